"""What a task's death costs the runs of the others: nothing lost, nothing duplicated
(docs/distributed.md, "Nothing is lost")."""

import numpy as np
import pytest
import trio

import flowrt as fr
from flowrt.distributed import client as client_module
from flowrt.distributed.ray_cluster import NAMESPACE, actor_name, find_actor
from flowrt.distributed.task import TaskRuntime
from flowrt.train import server as server_module

from . import programs


def _start_ps(cluster, where, hosts, ray):
    """ps task 0, hosted by this process (its parts run in place) or by a worker
    process actor (called remotely); returns its session target."""
    if where == "driver":
        return fr.train.Server(cluster, "ps", 0).target
    ray.get(hosts[0].call.remote(programs.start_server, cluster.as_dict(), "ps", 0))
    return "grpc://" + cluster.task_address("ps", 0)


@pytest.mark.parametrize("where", ["driver", "actor"])
async def test_a_ps_dying_mid_run_fails_it_and_the_living_ps_gets_its_element_back(
    make_cluster, processes, hosts, ray_session, where
):
    """The run took 1 from q1 on ps0 and waits to put it into the full q2 on ps1 when
    ps1's process dies: the run fails with UnavailableError naming ps1, and ps0 has
    1 back (a task's death is not an op's failure, which would consume it)."""
    ray = ray_session
    cluster = make_cluster(ps=2, worker=1)
    target = _start_ps(cluster, where, hosts, ray)
    (ps1,) = processes(1)
    ray.get(ps1.call.remote(programs.start_server, cluster.as_dict(), "ps", 1))
    with fr.Graph().as_default():
        with fr.device("/job:ps/task:0"):
            q1 = fr.FIFOQueue(10, [fr.int64], shapes=[[]], shared_name="q1")
        with fr.device("/job:ps/task:1"):
            q2 = fr.FIFOQueue(1, [fr.int64], shapes=[[]], shared_name="q2")
        move = q2.enqueue([q1.dequeue()])
        sess = fr.Session(target)
        await sess.arun([q1.enqueue([1]), q2.enqueue([0])])
        failed = []

        async def run_move():
            with pytest.raises(fr.errors.UnavailableError, match="ps/task:1") as info:
                await sess.arun(move, options=fr.RunOptions(timeout_in_ms=60000))
            failed.append(info.value)

        with trio.fail_after(45):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(run_move)
                while await sess.arun(q1.size()) != 0:  # the run holds 1
                    await trio.sleep(0.02)
                ray.kill(
                    ray.get_actor(actor_name(cluster.task_address("ps", 1)), namespace=NAMESPACE)
                )
                ray.kill(ps1)
        assert failed
        assert await sess.arun(q1.size()) == 1
        assert await sess.arun(q1.dequeue()) == 1
        sess.close()


async def test_a_storm_of_worker_kills_mid_run_moves_every_element_exactly_once(
    make_cluster, processes, ray_session
):
    """Eight worker processes, one after another, move batches of 5 between two queues
    of the ps task and are killed mid-run. A run whose one part holds both queues
    commits on that task as its part completes, so a kill at any moment leaves each
    element in exactly one of the two queues."""
    ray = ray_session
    cluster = make_cluster(ps=1, worker=8)
    fr.train.Server(cluster, "ps", 0)
    runtime = server_module.HOSTED[cluster.task_address("ps", 0)]
    with fr.Graph().as_default():
        with fr.device("/job:ps/task:0"):
            in_q = fr.FIFOQueue(1000, [fr.int64], shapes=[[]], shared_name="in_q")
            out_q = fr.FIFOQueue(1000, [fr.int64], shapes=[[]], shared_name="out_q")
        x = fr.placeholder(fr.int64, [None])
        sess = fr.Session("grpc://" + cluster.task_address("ps", 0))
        await sess.arun(in_q.enqueue_many([x]), {x: np.arange(700)})
        victims = processes(8)
        with trio.fail_after(90):
            for i, victim in enumerate(victims):
                before = await sess.arun(out_q.size())
                victim.call.remote(programs.move_batches_forever, cluster.as_dict(), i)
                while await sess.arun(out_q.size()) < before + 20:
                    await trio.sleep(0.005)
                ray.kill(victim)
            # The task's watchdog rolls back what the dead clients' runs held.
            while runtime.stats()["inflight"] or runtime.stats()["pending"]:
                await trio.sleep(0.05)
        n_in, n_out = await sess.arun([in_q.size(), out_q.size()])
        left, moved = await sess.arun([in_q.dequeue_many(n_in), out_q.dequeue_many(n_out)])
        sess.close()
    ids = sorted(left.tolist() + moved.tolist())
    duplicated = sorted({i for i in ids if ids.count(i) > 1})
    assert duplicated == [] and ids == list(range(700))


async def test_a_storm_of_worker_kills_mid_run_across_tasks_moves_every_element_exactly_once(
    make_cluster, processes, hosts, ray_session
):
    """As above, with the two queues on two tasks (ps1 in another process): each run's
    dequeue part on ps0 and enqueue part on ps1 complete one after the other, and a
    worker killed at any moment, even after both completed and before its commit left,
    leaves each element in exactly one of the two queues: the tasks of a dead worker's
    run ask each other how its parts ended and commit only when all completed."""
    ray = ray_session
    cluster = make_cluster(ps=2, worker=8)
    fr.train.Server(cluster, "ps", 0)
    ray.get(hosts[1].call.remote(programs.start_server, cluster.as_dict(), "ps", 1))
    tasks = [
        server_module.HOSTED[cluster.task_address("ps", 0)],
        find_actor(cluster.task_address("ps", 1), "ps1"),
    ]

    async def stats(task):
        if isinstance(task, TaskRuntime):
            return task.stats()
        return await trio.to_thread.run_sync(lambda: ray.get(task.stats.remote()))

    with fr.Graph().as_default():
        with fr.device("/job:ps/task:0"):
            in_q = fr.FIFOQueue(1000, [fr.int64], shapes=[[]], shared_name="in_q")
        with fr.device("/job:ps/task:1"):
            out_q = fr.FIFOQueue(1000, [fr.int64], shapes=[[]], shared_name="out_q")
        x = fr.placeholder(fr.int64, [None])
        sess = fr.Session("grpc://" + cluster.task_address("ps", 0))
        await sess.arun(in_q.enqueue_many([x]), {x: np.arange(700)})
        victims = processes(8)
        with trio.fail_after(120):
            for i, victim in enumerate(victims):
                before = await sess.arun(out_q.size())
                victim.call.remote(programs.move_batches_across_forever, cluster.as_dict(), i)
                while await sess.arun(out_q.size()) < before + 20:
                    await trio.sleep(0.005)
                ray.kill(victim)
            # The tasks' watchdogs settle what the dead clients' runs held.
            for task in tasks:
                while True:
                    s = await stats(task)
                    if not (s["inflight"] or s["pending"]):
                        break
                    await trio.sleep(0.05)
        n_in, n_out = await sess.arun([in_q.size(), out_q.size()])
        left, moved = await sess.arun([in_q.dequeue_many(n_in), out_q.dequeue_many(n_out)])
        sess.close()
    ids = sorted(left.tolist() + moved.tolist())
    duplicated = sorted({i for i in ids if ids.count(i) > 1})
    assert duplicated == [] and ids == list(range(700))


async def test_the_tasks_of_a_run_whose_client_died_before_its_commit_commit_it(
    make_cluster, hosts, ray_session, monkeypatch
):
    """The run moved 1 from q1 on ps0 to q2 on ps1, and both its parts completed, when
    its client died before its commit left (simulated: the commit is not sent, then
    each task drops the client as its watchdog does for a dead one). ps0 asks ps1
    how its part ended, and keeps the move: 1 is in q2 only."""
    ray = ray_session
    cluster = make_cluster(ps=2, worker=1)
    for i in range(2):
        ray.get(hosts[i].call.remote(programs.start_server, cluster.as_dict(), "ps", i))
    tasks = [find_actor(cluster.task_address("ps", i), "ps%d" % i) for i in range(2)]
    with fr.Graph().as_default():
        with fr.device("/job:ps/task:0"):
            q1 = fr.FIFOQueue(10, [fr.int64], shapes=[[]], shared_name="q1")
        with fr.device("/job:ps/task:1"):
            q2 = fr.FIFOQueue(10, [fr.int64], shapes=[[]], shared_name="q2")
        x = fr.placeholder(fr.int64, [None])
        target = "grpc://" + cluster.task_address("ps", 0)
        sess, check = fr.Session(target), fr.Session(target)
        await check.arun(q1.enqueue_many([x]), {x: np.array([1, 2, 3])})
        monkeypatch.setattr(client_module, "_commit", lambda ctx: None)
        await sess.arun(q2.enqueue([q1.dequeue()]))
        monkeypatch.undo()
        client_id = sess._cluster.client_id
        with trio.fail_after(60):
            for task in tasks:
                await trio.to_thread.run_sync(ray.get, task.drop_client.remote(client_id))
            for task in tasks:
                while (await trio.to_thread.run_sync(ray.get, task.stats.remote()))["pending"]:
                    await trio.sleep(0.05)
            sizes = await check.arun([q1.size(), q2.size()])
            assert sizes == [2, 1]
            assert (await check.arun(q1.dequeue_many(2))).tolist() == [2, 3]
            assert await check.arun(q2.dequeue()) == 1
        sess.close()
        check.close()


async def test_a_part_whose_task_was_asked_about_it_first_is_refused(
    make_cluster, hosts, ray_session
):
    """A task asked how a run's part ended before the part arrived (a dead client's
    run, settled by another task) records it aborted: the part, arriving later, is
    refused, and its run gives back what its other parts took."""
    ray = ray_session
    cluster = make_cluster(ps=2, worker=1)
    for i in range(2):
        ray.get(hosts[i].call.remote(programs.start_server, cluster.as_dict(), "ps", i))
    ps1 = find_actor(cluster.task_address("ps", 1), "ps1")
    with fr.Graph().as_default():
        with fr.device("/job:ps/task:0"):
            q1 = fr.FIFOQueue(10, [fr.int64], shapes=[[]], shared_name="q1")
        with fr.device("/job:ps/task:1"):
            q2 = fr.FIFOQueue(10, [fr.int64], shapes=[[]], shared_name="q2")
        sess = fr.Session("grpc://" + cluster.task_address("ps", 0))
        await sess.arun(q1.enqueue([7]))
        move = q2.enqueue([q1.dequeue()])
        run_id = sess._cluster.next_run_id() + 1  # the next run's: move's
        # Its part on ps1 is its second stage's (its first dequeues on ps0).
        state = ray.get(ps1.part_state.remote(sess._cluster.client_id, run_id, 1))
        assert state == "aborted"
        with trio.fail_after(60):
            with pytest.raises(
                fr.errors.CancelledError, match="arrived after the run was settled as aborted"
            ):
                await sess.arun(move)
            assert await sess.arun([q1.size(), q2.size()]) == [1, 0]
            assert await sess.arun(q1.dequeue()) == 7
        sess.close()
