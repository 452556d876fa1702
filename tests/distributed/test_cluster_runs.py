"""Runs on a cluster from sessions in this process, with the ps tasks hosted by this
process (their parts run in place) or by another one (their parts are calls of the
hosting actor, or of the tasks' mailboxes when their host serves them that way, as a
driver does)."""

import numpy as np
import pytest
import trio

import flowrt as fr

from . import programs


@pytest.fixture(params=["ps-here", "ps-in-actor", "ps-behind-mailbox"])
def ps_worker(request, make_cluster, hosts, ray_session):
    """Two ps tasks and a worker task here. The ps tasks are hosted by this process
    (parts run in place), by a worker process actor (called directly), or by one that
    serves them through their mailboxes, as a driver does."""
    cluster = make_cluster(ps=2, worker=1)
    if request.param == "ps-here":
        servers = [fr.train.Server(cluster, "ps", i) for i in range(2)]
    else:
        host, direct = hosts[0], request.param == "ps-in-actor"
        servers = ray_session.get(
            [
                host.call.remote(programs.start_server, cluster.as_dict(), "ps", i, direct)
                for i in range(2)
            ]
        )
    worker = fr.train.Server(cluster, "worker", 0)
    return cluster, servers, worker


def _queue(shared="q", capacity=10, device="/job:ps/task:0"):
    with fr.device(device):
        return fr.FIFOQueue(capacity, [fr.int64], shapes=[[]], shared_name=shared)


def test_variables_on_ps_are_shared_by_sessions_and_graphs(ps_worker):
    cluster, _, worker = ps_worker
    with fr.Graph().as_default():
        with fr.device("/job:ps/task:1"):
            v = fr.Variable(np.zeros(3, np.float32), name="v")
        x = fr.placeholder(fr.float32, [3])
        add = v.assign_add(x * 2.0)
        with fr.Session(worker.target) as sess:
            sess.run(v.initializer)
            np.testing.assert_allclose(sess.run(add, {x: np.ones(3, np.float32)}), [2, 2, 2])
    # Another graph (another worker's program) and session see the same variable.
    with fr.Graph().as_default():
        with fr.device("/job:ps/task:1"):
            v2 = fr.Variable(np.zeros(3, np.float32), name="v")
        with fr.Session(worker.target) as sess:
            np.testing.assert_allclose(sess.run(v2), [2, 2, 2])
        # An in-process session has state of its own.
        with fr.Session() as sess:
            with pytest.raises(fr.errors.FailedPreconditionError):
                sess.run(v2)


def test_queue_on_ps_feeds_another_session_and_times_out(ps_worker):
    _, _, worker = ps_worker
    with fr.Graph().as_default():
        q = _queue()
        x = fr.placeholder(fr.int64, [None])
        enq = q.enqueue_many([x])
        deq = q.dequeue()
        with fr.Session(worker.target) as producer, fr.Session(worker.target) as consumer:
            producer.run(enq, {x: np.arange(3)})
            assert [consumer.run(deq) for _ in range(3)] == [0, 1, 2]
            # Hosted here, the op says it timed out; elsewhere, the op or the task.
            timed_out = "fifo_queue_Dequeue|ps/task:0"
            with pytest.raises(fr.errors.DeadlineExceededError, match=timed_out):
                consumer.run(deq, options=fr.RunOptions(timeout_in_ms=300))
            producer.run(enq, {x: np.arange(5, 6)})
            assert consumer.run(deq) == 5
            assert consumer.run(q.size()) == 0


def test_interrupted_cross_task_transfer_leaves_the_element(ps_worker):
    """``q2.enqueue(q1.dequeue())`` with q1 on ps0 and a full q2 on ps1: the run's
    timeout ends it and the element is back at the front of q1."""
    _, _, worker = ps_worker
    with fr.Graph().as_default():
        q1 = _queue("q1", device="/job:ps/task:0")
        q2 = _queue("q2", capacity=1, device="/job:ps/task:1")
        x = fr.placeholder(fr.int64, [None])
        fill1, fill2 = q1.enqueue_many([x]), q2.enqueue_many([x])
        move = q2.enqueue([q1.dequeue()])
        with fr.Session(worker.target) as sess:
            sess.run(fill1, {x: np.array([7, 8])})
            sess.run(fill2, {x: np.array([100])})
            with pytest.raises(fr.errors.DeadlineExceededError):
                sess.run(move, options=fr.RunOptions(timeout_in_ms=400))
            assert sess.run(q1.size()) == 2
            assert sess.run(q1.dequeue_many(2)).tolist() == [7, 8]
            assert sess.run(q2.size()) == 1


def test_close_ends_a_blocked_remote_dequeue(ps_worker):
    _, _, worker = ps_worker
    with fr.Graph().as_default():
        q = _queue()
        deq = q.dequeue_many(2)
        x = fr.placeholder(fr.int64, [None])
        enq = q.enqueue_many([x])
        sess = fr.Session(worker.target)
        other = fr.Session(worker.target)
        other.run(enq, {x: np.array([1])})
        errs = []

        def blocked():
            try:
                sess.run(deq)
            except fr.errors.CancelledError as e:
                errs.append(e)

        import threading

        t = threading.Thread(target=blocked)
        t.start()
        # The dequeue_many(2) took nothing yet: one element is there, it waits for two.
        while other.run(q.size()) != 1 or not sess._inflight:
            pass
        sess.close()
        t.join(30)
        assert not t.is_alive() and errs
        assert other.run(q.dequeue()) == 1
        other.close()


async def test_cancelled_arun_gives_back_what_it_dequeued(ps_worker):
    """An arun whose remote dequeue completed and whose next stage (an enqueue on the
    other ps, full) waits, cancelled: the dequeued element goes back."""
    _, _, worker = ps_worker
    with fr.Graph().as_default():
        q1 = _queue("a1", device="/job:ps/task:0")
        q2 = _queue("a2", capacity=1, device="/job:ps/task:1")
        x = fr.placeholder(fr.int64, [None])
        move = q2.enqueue([q1.dequeue()])
        sess = fr.Session(worker.target)
        await sess.arun(q1.enqueue_many([x]), {x: np.array([1, 2])})
        await sess.arun(q2.enqueue_many([x]), {x: np.array([9])})
        with trio.move_on_after(1.0) as cs:
            await sess.arun(move)
        assert cs.cancelled_caught
        assert (await sess.arun(q1.dequeue_many(2))).tolist() == [1, 2]
        sess.close()


def test_op_error_on_a_task_names_the_op(ps_worker):
    _, _, worker = ps_worker
    with fr.Graph().as_default():
        with fr.device("/job:ps/task:0"):
            v = fr.Variable(np.zeros(2, np.float32), name="never_initialized")
        with fr.Session(worker.target) as sess:
            with pytest.raises(fr.errors.FailedPreconditionError) as info:
                sess.run(v)
            assert info.value.op is not None
            assert "never_initialized" in info.value.op.name


def test_unknown_job_and_bad_targets(ps_worker, make_cluster):
    _, _, worker = ps_worker
    with fr.Graph().as_default():
        with fr.device("/job:nope/task:0"):
            c = fr.constant(1.0) + 1.0
        with fr.Session(worker.target) as sess:
            with pytest.raises(fr.errors.InvalidArgumentError, match="job:nope"):
                sess.run(c)
    with pytest.raises(fr.errors.InvalidArgumentError, match="not supported"):
        fr.Session("http://example.com")
    with pytest.raises(fr.errors.UnavailableError, match="never-started"):
        fr.Session("grpc://never-started")
    cluster = make_cluster(ps=1)
    fr.train.Server(cluster, "ps", 0)
    with pytest.raises(fr.errors.UnknownError, match="already in use"):
        fr.train.Server(cluster, "ps", 0)


def test_local_server_runs_a_whole_program(ray_session):
    server = fr.train.Server.create_local_server()
    with fr.Graph().as_default():
        v = fr.Variable(3.0, name="v")
        out = v * fr.constant(2.0)
        with fr.Session(server.target) as sess:
            sess.run(fr.global_variables_initializer())
            assert sess.run(out) == 6.0


@pytest.mark.fr_timeout(60)
def test_a_local_servers_config_times_out_its_sessions_runs(ray_session):
    # TF: the server's config is its sessions' default (operation_timeout_in_ms included).
    server = fr.train.Server.create_local_server(config=fr.ConfigProto(operation_timeout_in_ms=200))
    with fr.Graph().as_default():
        dequeue = fr.FIFOQueue(2, fr.float32, shapes=[], name="empty").dequeue()
        with fr.Session(server.target) as sess:
            with pytest.raises(fr.errors.DeadlineExceededError, match="Timed out after 200 ms"):
                sess.run(dequeue)


def test_monitored_training_session_on_a_cluster_chief_and_worker(make_cluster, tmp_path):
    cluster = make_cluster(ps=1, worker=2)
    fr.train.Server(cluster, "ps", 0)
    chief = fr.train.Server(cluster, "worker", 0)
    other = fr.train.Server(cluster, "worker", 1)
    with fr.Graph().as_default():
        with fr.device("/job:ps/task:0"):
            step = fr.train.get_or_create_global_step()
            w = fr.Variable(5.0, name="w")
        loss = fr.square(w)
        train = fr.train.GradientDescentOptimizer(0.25).minimize(loss, global_step=step)
        with fr.train.MonitoredTrainingSession(
            master=chief.target, is_chief=True, checkpoint_dir=str(tmp_path)
        ) as sess:
            for _ in range(3):
                sess.run(train)
        # A non-chief worker waits for the model the chief made ready: it already is.
        with fr.train.MonitoredTrainingSession(master=other.target, is_chief=False) as sess:
            assert sess.run(step) == 3
            assert sess.run(w) == pytest.approx(5.0 * 0.5**3)


def test_create_local_cluster_and_list_devices(ray_session):
    workers, ps = fr.test.create_local_cluster(num_workers=1, num_ps=2)
    with fr.Graph().as_default():
        with fr.device("/job:ps/task:1"):
            v = fr.Variable(1.5, name="v")
        with fr.Session(workers[0].target) as sess:
            sess.run(v.initializer)
            assert sess.run(v * 2.0) == 3.0
            names = [d.name for d in sess.list_devices()]
    assert "/job:ps/replica:0/task:1/device:CPU:0" in names and len(names) == 3


def test_the_cluster_runs_with_ray_token_authentication(ray_session):
    from ray._raylet import AuthenticationMode, get_authentication_mode

    assert get_authentication_mode() == AuthenticationMode.TOKEN


def test_adam_slots_live_with_their_variables_on_the_ps_tasks(ps_worker):
    cluster, _, worker = ps_worker
    with fr.Graph().as_default():
        with fr.device(fr.train.replica_device_setter(cluster=cluster)):
            w = fr.get_variable("w", [4], initializer=fr.ones_initializer())
            b = fr.get_variable("b", [], initializer=fr.zeros_initializer())
            loss = fr.reduce_sum(fr.square(w - 3.0)) + fr.square(b + 1.0)
            opt = fr.train.AdamOptimizer(0.3)
            train = opt.minimize(loss)
        assert [opt.get_slot(w, "m").device, opt.get_slot(b, "v").device] == [
            "/job:ps/task:0",
            "/job:ps/task:1",
        ]
        with fr.Session(worker.target) as sess:
            sess.run(fr.global_variables_initializer())
            first = sess.run(loss)
            for _ in range(40):
                sess.run(train)
            assert sess.run(loss) < 0.05 * first
        # The slots are state of the ps tasks: another session reads the same values.
        with fr.Session(worker.target) as sess:
            assert sess.run(opt.get_slot(w, "m")).shape == (4,)
            assert abs(sess.run(w)[0] - 3.0) < 0.3
