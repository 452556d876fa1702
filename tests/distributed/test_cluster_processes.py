"""TF1's between-graph replicated programs, with workers as separate processes."""

import time

import numpy as np
import pytest

import flowrt as fr
from flowrt.distributed.ray_cluster import NAMESPACE, actor_name

from . import programs


def test_between_graph_replicated_async_sgd_converges(make_cluster, processes, ray_session):
    ray = ray_session
    cluster = make_cluster(ps=2, worker=2)
    for i in range(2):
        fr.train.Server(cluster, "ps", i)
    w0, w1 = processes(2)
    first = w0.call.remote(programs.train_worker, cluster.as_dict(), 0, 60, 0)
    second = w1.call.remote(programs.train_worker, cluster.as_dict(), 1, 60, 1)
    (l0_first, l0_last, _), (l1_first, l1_last, _) = ray.get([first, second], timeout=300)
    assert l0_last < 0.05 * l0_first and l1_last < 0.05
    with fr.Graph().as_default():
        x, y, w, b, loss, train, global_step = programs.model(cluster, 0)
        # Round robin over the two ps tasks: global_step, w, b.
        assert [v.device for v in (global_step, w, b)] == [
            "/job:ps/task:0",
            "/job:ps/task:1",
            "/job:ps/task:0",
        ]
        with fr.Session("grpc://" + cluster.task_address("ps", 0)) as sess:
            # Both workers' updates reached the one global_step on the ps.
            assert sess.run(global_step) == 120
            np.testing.assert_allclose(sess.run(w), programs.TRUE_W, atol=0.1)
            np.testing.assert_allclose(sess.run(b), [0.3], atol=0.1)


def _start_ps(cluster, where, hosts, ray):
    """The ps task, hosted by this process (a driver: reached through its mailbox) or by
    a worker process actor (called directly); returns its session target."""
    if where == "driver":
        return fr.train.Server(cluster, "ps", 0).target
    ray.get(hosts[0].call.remote(programs.start_server, cluster.as_dict(), "ps", 0))
    return "grpc://" + cluster.task_address("ps", 0)


@pytest.mark.parametrize("where", ["driver", "actor"])
def test_two_producer_processes_feed_a_ps_queue_exactly_once(
    make_cluster, processes, hosts, ray_session, where
):
    ray = ray_session
    cluster = make_cluster(ps=1, worker=3)
    ps_target = _start_ps(cluster, where, hosts, ray)
    p0, p1 = processes(2)
    runs = [
        p0.call.remote(programs.produce, cluster.as_dict(), 0, 0, 300, 7),
        p1.call.remote(programs.produce, cluster.as_dict(), 1, 1000, 300, 11),
    ]
    with fr.Graph().as_default():
        with fr.device("/job:ps/task:0"):
            q = fr.FIFOQueue(50, [fr.int64], shapes=[[]], shared_name="q")
        deq = q.dequeue_many(20)
        got = []
        with fr.Session(ps_target) as sess:
            while len(got) < 600:
                ready, _ = ray.wait(runs, timeout=0)
                if ready:
                    ray.get(ready)
                got.extend(sess.run(deq, options=fr.RunOptions(timeout_in_ms=60000)).tolist())
    assert ray.get(runs, timeout=60) == [300, 300]
    assert sorted(got) == list(range(300)) + list(range(1000, 1300))
    # Each producer's elements arrive in its order.
    assert [v for v in got if v < 1000] == list(range(300))


@pytest.mark.parametrize("where", ["driver", "actor"])
def test_killing_a_worker_mid_dequeue_loses_nothing(
    make_cluster, processes, hosts, ray_session, where
):
    ray = ray_session
    cluster = make_cluster(ps=1, worker=2)
    ps_target = _start_ps(cluster, where, hosts, ray)
    (victim,) = processes(1)
    with fr.Graph().as_default():
        with fr.device("/job:ps/task:0"):
            q = fr.FIFOQueue(50, [fr.int64], shapes=[[]], shared_name="q")
        x = fr.placeholder(fr.int64, [None])
        enq = q.enqueue_many([x])
        size = q.size()
        with fr.Session(ps_target) as sess:
            sess.run(enq, {x: np.arange(12)})
            running = victim.call.remote(programs.dequeue_forever, cluster.as_dict(), 1)
            # It takes 5, 5, then waits in dequeue_many(5) holding none (2 left).
            deadline = time.monotonic() + 60
            while sess.run(size) != 2:
                assert time.monotonic() < deadline, "the consumer never drained the queue"
                time.sleep(0.05)
            sess.run(enq, {x: np.arange(100, 102)})  # 4 now: still short of 5
            ray.kill(victim)
            with pytest.raises(ray.exceptions.RayActorError):
                ray.get(running, timeout=60)
            sess.run(enq, {x: np.arange(200, 201)})  # would complete the dead run's 5
            # The dead client's run is cancelled: the 5 stay in the queue.
            deadline = time.monotonic() + 30
            while sess.run(size) != 5:
                assert time.monotonic() < deadline, "size %d" % sess.run(size)
                time.sleep(0.05)
            left = sess.run(q.dequeue_many(5)).tolist()
            assert left == [10, 11, 100, 101, 200]


def test_a_dead_ps_fails_runs_with_unavailable_then_a_restart_resumes(
    make_cluster, processes, ray_session, tmp_path
):
    ray = ray_session
    cluster = make_cluster(ps=1, worker=1)
    (ps_proc,) = processes(1)
    ray.get(ps_proc.call.remote(programs.start_server, cluster.as_dict(), "ps", 0))
    worker = fr.train.Server(cluster, "worker", 0)
    ckpt = str(tmp_path / "model.ckpt")
    with fr.Graph().as_default():
        with fr.device("/job:ps/task:0"):
            v = fr.Variable(0.0, name="v")
        inc = v.assign_add(1.0)
        saver = fr.train.Saver([v])
        with fr.Session(worker.target) as sess:
            sess.run(v.initializer)
            for _ in range(3):
                sess.run(inc)
            saver.save(sess, ckpt)
            # The ps task dies (its actor, then the process that started it).
            ray.kill(ray.get_actor(actor_name(cluster.task_address("ps", 0)), namespace=NAMESPACE))
            ray.kill(ps_proc)
            # ray.kill is asynchronous: a run sent at once could still be served (the
            # session calls the ps process directly). Wait until the process is gone.
            deadline = time.monotonic() + 60
            while True:
                try:
                    ray.get(ps_proc.call.remote(programs.ready), timeout=60)
                except ray.exceptions.RayActorError:
                    break
                assert time.monotonic() < deadline, "the killed ps process still answers"
                time.sleep(0.05)
            with pytest.raises(fr.errors.UnavailableError, match="ps/task:0"):
                sess.run(inc, options=fr.RunOptions(timeout_in_ms=20000))
            with pytest.raises(fr.errors.UnavailableError, match="ps/task:0"):
                sess.run(inc)
        (ps_again,) = processes(1)
        deadline = time.monotonic() + 60
        while True:  # Ray frees the dead task's name shortly after it died
            try:
                ray.get(ps_again.call.remote(programs.start_server, cluster.as_dict(), "ps", 0))
                break
            except fr.errors.UnknownError:
                assert time.monotonic() < deadline
                time.sleep(0.2)
        with fr.Session(worker.target) as sess:
            saver.restore(sess, ckpt)
            assert sess.run(inc) == 4.0


def test_a_worker_killed_between_stages_gives_back_its_dequeue(
    make_cluster, processes, ray_session
):
    """The worker's run took an element from q1 on ps0 (its part there completed and
    holds it) and waits to put it into the full q2 on ps1 when the worker dies: the
    ps0 task sees its client gone and gives the element back."""
    ray = ray_session
    cluster = make_cluster(ps=2, worker=2)
    ps0, ps1 = (fr.train.Server(cluster, "ps", i) for i in range(2))
    (victim,) = processes(1)
    with fr.Graph().as_default():
        with fr.device("/job:ps/task:0"):
            q1 = fr.FIFOQueue(10, [fr.int64], shapes=[[]], shared_name="q1")
        with fr.device("/job:ps/task:1"):
            q2 = fr.FIFOQueue(1, [fr.int64], shapes=[[]], shared_name="q2")
        x = fr.placeholder(fr.int64, [None])
        with fr.Session(ps0.target) as sess:
            sess.run(q1.enqueue_many([x]), {x: np.array([1, 2, 3])})
            running = victim.call.remote(programs.transfer_forever, cluster.as_dict(), 1)
            # It moves 1 into q2, then takes 2 from q1 and waits on the full q2.
            deadline = time.monotonic() + 60
            while sess.run(q1.size()) != 1:
                assert time.monotonic() < deadline
                time.sleep(0.05)
            ray.kill(victim)
            with pytest.raises(ray.exceptions.RayActorError):
                ray.get(running, timeout=60)
            deadline = time.monotonic() + 30
            while sess.run(q1.size()) != 2:
                assert time.monotonic() < deadline, "the dead run's element never came back"
                time.sleep(0.05)
            assert sess.run(q1.dequeue_many(2)).tolist() == [2, 3]
            assert sess.run(q2.dequeue()) == 1
