"""Where a task's state lives: in the process that started its Server.

Sessions in that process run the task's parts in place (no Ray call); other processes
call the hosting process directly when it is a worker process actor, else (a driver)
through the task's mailbox; the mailbox ends with its process.
"""

import subprocess
import sys
import textwrap

import numpy as np
import pytest
import trio

import flowrt as fr
from flowrt.distributed import mailbox
from flowrt.train import server as server_module

from . import programs


def test_a_session_in_the_servers_process_runs_its_parts_without_ray_calls(make_cluster):
    cluster = make_cluster(ps=1, worker=1)
    ps = fr.train.Server(cluster, "ps", 0)
    worker = fr.train.Server(cluster, "worker", 0)
    with fr.Graph().as_default():
        with fr.device("/job:ps/task:0"):
            v = fr.Variable(np.zeros(2, np.float32), name="v")
            q = fr.FIFOQueue(10, [fr.float32], shapes=[[2]], shared_name="q")
        x = fr.placeholder(fr.float32, [2])
        step = v.assign_add(x)
        enq = q.enqueue([step])
        deq = q.dequeue()
        before = mailbox.CALLS
        with fr.Session(worker.target) as sess:
            sess.run(v.initializer)
            sess.run(enq, {x: np.ones(2, np.float32)})
            np.testing.assert_allclose(sess.run(deq), [1, 1])
            with pytest.raises(fr.errors.DeadlineExceededError, match="fifo_queue_Dequeue"):
                sess.run(deq, options=fr.RunOptions(timeout_in_ms=50))
        assert mailbox.CALLS == before
    # The state is the ps task's, in this process: a session on the ps target sees it.
    runtime = server_module.HOSTED[cluster.task_address("ps", 0)]
    assert runtime.name == "/job:ps/task:0"
    with fr.Graph().as_default():
        with fr.device("/job:ps/task:0"):
            v2 = fr.Variable(np.zeros(2, np.float32), name="v")
        with fr.Session(ps.target) as sess:
            np.testing.assert_allclose(sess.run(v2), [1, 1])
    assert mailbox.CALLS == before


async def test_a_hosted_dequeue_in_arun_is_cancelled_and_gives_back(make_cluster):
    cluster = make_cluster(ps=1, worker=1)
    fr.train.Server(cluster, "ps", 0)
    worker = fr.train.Server(cluster, "worker", 0)
    with fr.Graph().as_default():
        with fr.device("/job:ps/task:0"):
            q = fr.FIFOQueue(10, [fr.int64], shapes=[[]], shared_name="q")
        x = fr.placeholder(fr.int64, [None])
        sess = fr.Session(worker.target)
        await sess.arun(q.enqueue_many([x]), {x: np.array([4])})
        # dequeue_many(2) finds one element: it waits, taking nothing, until cancelled.
        with trio.move_on_after(0.3) as cs:
            await sess.arun(q.dequeue_many(2))
        assert cs.cancelled_caught
        with trio.fail_after(30):
            assert (await sess.arun(q.dequeue())) == 4
        sess.close()


def test_a_remote_clients_runs_reach_state_hosted_in_another_process(
    make_cluster, hosts, ray_session
):
    ray = ray_session
    cluster = make_cluster(ps=1, worker=2)
    host, other = hosts
    ray.get(host.call.remote(programs.start_server, cluster.as_dict(), "ps", 0))
    worker = fr.train.Server(cluster, "worker", 0)
    with fr.Graph().as_default():
        with fr.device("/job:ps/task:0"):
            v = fr.Variable(0.0, name="total")
        with fr.Session(worker.target) as sess:
            before, direct = mailbox.CALLS, mailbox.DIRECT_CALLS
            sess.run(v.initializer)
            assert sess.run(v.assign_add(2.0)) == 2.0
            # The ps task is not in this process: its hosting actor is called directly,
            # its mailbox never.
            assert mailbox.DIRECT_CALLS > direct and mailbox.CALLS == before
    # Another worker process adds to it, and the hosting process's own session, which
    # runs in place, sees both updates.
    value, calls, direct = ray.get(
        other.call.remote(programs.add_counting_calls, cluster.as_dict(), 1, "total", 3.0)
    )
    assert value == 5.0 and calls == 0 and direct > 0
    assert ray.get(host.call.remote(programs.read_hosted, cluster.as_dict(), "total")) == (5.0, 0)


def test_a_task_hosted_by_a_driver_is_reached_through_its_mailbox(make_cluster, hosts, ray_session):
    """Ray cannot call into a driver (this test process): its task's requests wait in
    the task's mailbox, which the driver's serving thread polls."""
    cluster = make_cluster(ps=1, worker=2)
    ps = fr.train.Server(cluster, "ps", 0)
    with fr.Graph().as_default():
        with fr.device("/job:ps/task:0"):
            v = fr.Variable(0.0, name="total")
        with fr.Session(ps.target) as sess:
            sess.run(v.initializer)
    value, calls, direct = ray_session.get(
        hosts[1].call.remote(programs.add_counting_calls, cluster.as_dict(), 1, "total", 3.0)
    )
    assert value == 3.0 and calls > 0 and direct == 0


async def test_a_waiting_part_served_directly_holds_up_no_other_request(
    make_cluster, hosts, ray_session
):
    """A dequeue waiting on an actor-hosted task, and meanwhile other requests to the
    same task, from another session: the waiting part waits on a thread of the
    actor's thread lane, the size on its quick lane and the enqueue on another thread
    (served one at a time, the size and the enqueue would wait behind the dequeue
    forever)."""
    cluster = make_cluster(ps=1, worker=1)
    ray_session.get(hosts[0].call.remote(programs.start_server, cluster.as_dict(), "ps", 0))
    worker = fr.train.Server(cluster, "worker", 0)
    with fr.Graph().as_default():
        with fr.device("/job:ps/task:0"):
            q = fr.FIFOQueue(10, [fr.int64], shapes=[[]], shared_name="q")
        x = fr.placeholder(fr.int64, [None])
        consumer, other = fr.Session(worker.target), fr.Session(worker.target)
        before = mailbox.CALLS
        got = []

        async def consume():
            got.append(await consumer.arun(q.dequeue_many(2)))

        with trio.fail_after(30):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(consume)
                while not consumer._inflight:  # the dequeue waits on the ps task
                    await trio.sleep(0.01)
                assert await other.arun(q.size()) == 0
                await other.arun(q.enqueue_many([x]), {x: np.array([1])})
                assert await other.arun(q.size()) == 1
                await other.arun(q.enqueue_many([x]), {x: np.array([2])})
        assert got[0].tolist() == [1, 2]
        assert mailbox.CALLS == before
        consumer.close()
        other.close()


@pytest.mark.parametrize("direct", [True, False], ids=["called-directly", "behind-mailbox"])
async def test_killing_the_hosting_process_fails_a_waiting_run_with_unavailable(
    make_cluster, processes, ray_session, direct
):
    ray = ray_session
    cluster = make_cluster(ps=1, worker=1)
    (host,) = processes(1)
    ray.get(host.call.remote(programs.start_server, cluster.as_dict(), "ps", 0, direct))
    worker = fr.train.Server(cluster, "worker", 0)
    with fr.Graph().as_default():
        with fr.device("/job:ps/task:0"):
            q = fr.FIFOQueue(10, [fr.int64], shapes=[[]], shared_name="q")
        deq = q.dequeue()
        sess = fr.Session(worker.target)
        failed = []

        async def consume():
            with pytest.raises(fr.errors.UnavailableError, match="ps/task:0") as info:
                await sess.arun(deq, options=fr.RunOptions(timeout_in_ms=60000))
            failed.append(info.value)

        # Well within the run's timeout: the run learns of the death, it does not hang.
        with trio.fail_after(45):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(consume)
                while not sess._inflight:  # the dequeue waits on the ps task
                    await trio.sleep(0.01)
                ray.kill(host)
        assert failed
        sess.close()


@pytest.mark.parametrize("where", ["driver", "actor"])
def test_a_task_serves_only_its_methods(make_cluster, hosts, ray_session, where):
    from flowrt.distributed import ray_cluster

    cluster = make_cluster(ps=1)
    if where == "driver":
        fr.train.Server(cluster, "ps", 0)
    else:
        ray_session.get(hosts[0].call.remote(programs.start_server, cluster.as_dict(), "ps", 0))
    stub = ray_cluster.find_actor(cluster.task_address("ps", 0), "ps")
    assert (stub.direct is None) == (where == "driver")
    assert ray_session.get(stub.ping.remote(), timeout=60) == "/job:ps/task:0"
    with pytest.raises(ray_session.exceptions.RayTaskError, match="serves no method '_drop'"):
        ray_session.get(stub._drop.remote("x"), timeout=60)
    if where == "actor":
        # A request that may wait never takes the actor's own thread (it would hold up
        # every other request), nor a quick one a thread for waiting.
        address = cluster.task_address("ps", 0)
        with pytest.raises(
            ray_session.exceptions.RayTaskError,
            match=r"serves 'join' on its thread lane \(serve_thread\), not on its quick",
        ):
            ray_session.get(stub.direct.serve.remote((address, "join", ())), timeout=60)
        with pytest.raises(ray_session.exceptions.RayTaskError, match="serves 'ping' on its quick"):
            ray_session.get(stub.direct.serve_thread.remote((address, "ping", ())), timeout=60)


@pytest.mark.parametrize("direct", [True, False], ids=["called-directly", "behind-mailbox"])
def test_a_part_that_may_wait_takes_the_thread_lane_and_a_read_the_quick_one(
    make_cluster, hosts, ray_session, direct
):
    """The task tells the client, once per plan, that a part may wait; a part that only
    reads stays on the quick lane, however busy the machine is."""
    from flowrt.distributed.client import DistributedPlan

    cluster = make_cluster(ps=1, worker=1)
    ray_session.get(hosts[0].call.remote(programs.start_server, cluster.as_dict(), "ps", 0, direct))
    worker = fr.train.Server(cluster, "worker", 0)
    with fr.Graph().as_default():
        with fr.device("/job:ps/task:0"):
            v = fr.Variable(np.arange(3.0), name="v")
            q = fr.FIFOQueue(10, [fr.float64], shapes=[[3]], shared_name="q")
        enq = q.enqueue([v.value()])
        deq = q.dequeue()
        with fr.Session(worker.target) as sess:
            sess.run(v.initializer)
            for _ in range(3):
                np.testing.assert_allclose(sess.run(v), [0, 1, 2])
                sess.run(enq)
                np.testing.assert_allclose(sess.run(deq), [0, 1, 2])
            lanes: dict = {}
            for _, plan in sess._plans.plans():
                if isinstance(plan, DistributedPlan):
                    kinds = {op.type for op in plan.ops}
                    lane = "queue" if kinds & {"QueueEnqueueV2", "QueueDequeueV2"} else "read"
                    for remotes, _, _ in plan.stages:
                        lanes.setdefault(lane, set()).update(r.waits for r in remotes)
    assert lanes == {"read": {False}, "queue": {True}}


def test_a_part_parked_for_good_does_not_keep_the_hosting_process_from_exiting():
    # A waiting request whose client went away without cancelling it (here a join that
    # never returns) parks a thread of the serving lane for good; the process hosting
    # the task must still exit, as it does with TF's in-process server.
    program = textwrap.dedent(
        """
        import asyncio, threading
        from flowrt.distributed import mailbox

        class Remote:
            def __init__(self, fn):
                self.remote = fn

        sent, parked = [], threading.Event()

        async def next_requests(timeout):
            if not sent:
                sent.append(1)
                return [(1, "join", ("plain", ()))]
            await asyncio.sleep(timeout)
            return []

        class Box:
            next = Remote(next_requests)
            answer = Remote(lambda *args: None)

        class Runtime:
            def join(self):
                parked.set()
                threading.Event().wait()

        mailbox.serve(Box(), Runtime(), "/job:ps/task:0")
        assert parked.wait(30)
        print("exiting")
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0 and out.stdout.strip() == "exiting", out.stderr
