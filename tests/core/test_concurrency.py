"""The concurrency contract: concurrent arun tasks, threads sharing a session, sync
runs from worker threads, concurrent plans, close() and cancellation."""

import threading
import time

import pytest
import trio
import trio.testing

import flowrt as fr

from ._testops import Counter, Gate, count, wait_gate


async def test_two_aruns_in_one_nursery_run_at_once():
    gate = Gate()
    blocked = wait_gate(gate, fr.constant(5.0), name="blocked")
    quick = fr.constant(1.0) + 1.0
    done = []
    async with fr.Session() as sess:

        async def slow():
            done.append(("slow", await sess.arun(blocked)))

        async def fast():
            done.append(("fast", await sess.arun(quick)))

        with trio.fail_after(10):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(slow)
                await trio.testing.wait_all_tasks_blocked()
                assert gate.entered == 1
                nursery.start_soon(fast)
                await trio.testing.wait_all_tasks_blocked()
                assert done == [("fast", 2.0)]  # completed while the other run is blocked
                gate.open()
    assert done == [("fast", 2.0), ("slow", 5.0)]


def test_threads_share_one_session():
    x = fr.placeholder(fr.float32, name="x")
    y = x * 2.0
    n = Counter()
    c = count([y], n)
    results, errors = {}, []
    with fr.Session() as sess:

        def worker(k):
            try:
                results[k] = [float(sess.run(c, {x: float(k)})) for _ in range(50)]
            except BaseException as e:
                errors.append(e)

        threads = [threading.Thread(target=worker, args=(k,)) for k in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=30)
        assert not any(t.is_alive() for t in threads)
    assert errors == []
    assert results == {k: [2.0 * k] * 50 for k in range(6)}
    assert n.total == 300


def test_threads_block_concurrently():
    gate = Gate()
    w = wait_gate(gate, fr.placeholder(fr.float32, name="x"))
    results, errors = [], []
    with fr.Session() as sess:

        def worker(k):
            try:
                results.append(float(sess.run(w, {"x:0": float(k)})))
            except BaseException as e:
                errors.append(e)

        threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        gate.wait_entered(4)  # all four runs are blocked at once
        assert results == []
        gate.open()
        for t in threads:
            t.join(timeout=10)
        assert not any(t.is_alive() for t in threads)
    assert errors == [] and sorted(results) == [0.0, 1.0, 2.0, 3.0]


async def test_sync_run_from_a_worker_thread_parks_that_thread():
    bind_gate, gate = Gate(), Gate()
    bind_gate.open()
    binder = wait_gate(bind_gate)
    w = wait_gate(gate, fr.constant(3.0))
    async with fr.Session() as sess:
        await sess.arun(binder)
        with trio.fail_after(10):
            async with trio.open_nursery() as nursery:
                out = []

                async def in_thread():
                    out.append(await trio.to_thread.run_sync(sess.run, w))

                nursery.start_soon(in_thread)
                # the blocking op waits in the worker thread, not in any trio loop
                await gate.wait_entered_async(1)
                assert out == []
                assert gate.loops == [None]
                gate.open()
        assert out == [3.0]


async def test_sync_run_inside_the_trio_thread_raises():
    async with fr.Session() as sess:
        with pytest.raises(RuntimeError, match=r"await sess\.arun"):
            sess.run(fr.constant(1.0))


async def test_close_from_another_thread_cancels_a_blocked_arun():
    gate = Gate()
    w = wait_gate(gate)
    sess = fr.Session()
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            errs = []

            async def runner():
                try:
                    await sess.arun(w)
                except fr.errors.CancelledError as e:
                    errs.append(e)

            nursery.start_soon(runner)
            await trio.testing.wait_all_tasks_blocked()
            await trio.to_thread.run_sync(sess.close)
    assert len(errs) == 1 and gate.cancelled == 1


def test_close_from_another_thread_ends_a_blocked_sync_run():
    gate = Gate()
    w = wait_gate(gate)
    sess = fr.Session()
    errs = []

    def runner():
        try:
            sess.run(w)
        except fr.errors.CancelledError as e:
            errs.append(e)

    t = threading.Thread(target=runner)
    t.start()
    gate.wait_entered(1)
    closer = threading.Thread(target=sess.close)
    closer.start()
    closer.join(timeout=10)
    t.join(timeout=10)
    assert not t.is_alive() and not closer.is_alive()
    assert len(errs) == 1


async def test_cancelled_arun_leaves_the_session_usable():
    gate = Gate()
    w = wait_gate(gate, fr.constant(7.0))
    async with fr.Session() as sess:
        with trio.CancelScope() as cs:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(sess.arun, w)
                await trio.testing.wait_all_tasks_blocked()
                cs.cancel()
        assert cs.cancelled_caught and gate.cancelled == 1
        assert await sess.arun(fr.constant(1.0) + 1.0) == 2.0
        gate.open()
        with trio.fail_after(10):
            assert await sess.arun(w) == 7.0


async def test_cancelled_before_start_runs_nothing():
    n = Counter()
    c = count([], n)
    async with fr.Session() as sess:
        with trio.CancelScope() as cs:
            cs.cancel()
            await sess.arun(c)
        assert cs.cancelled_caught and n.total == 0
        await sess.arun(c)
        assert n.total == 1


# --- runs from several trio loops and threads at once ----------------------------------


def _queue_graph():
    q = fr.FIFOQueue(4, [fr.float32], shapes=[[]])
    x = fr.placeholder(fr.float32, [])
    return q, x, q.enqueue([x]), q.dequeue()


def test_arun_from_successive_loops():
    q, x, enq, deq = _queue_graph()
    sess = fr.Session()

    async def first():
        await sess.arun(enq, {x: 1.0})
        return await sess.arun(deq)

    async def second():
        async with trio.open_nursery() as nursery:

            async def produce():
                await trio.sleep(0.05)
                await sess.arun(enq, {x: 2.0})

            nursery.start_soon(produce)
            with trio.fail_after(10):
                return await sess.arun(deq)  # must wait: the old loop is gone

    assert trio.run(first) == 1.0
    assert trio.run(second) == 2.0
    sess.close()


def test_cancelling_an_arun_beside_a_waiting_thread_takes_nothing():
    q, x, enq, deq = _queue_graph()
    sess = fr.Session()
    sess.run(q.size())
    blocked = threading.Thread(target=lambda: _swallow(lambda: sess.run(deq)))
    blocked.start()  # waits for an element in its own thread

    async def main():
        with trio.fail_after(10):
            with trio.move_on_after(0.2) as cs:
                await sess.arun(deq)  # waits behind the thread, then is cancelled
        return cs.cancelled_caught

    try:
        assert trio.run(main)
        sess.run(enq, {x: 5.0})  # goes to the still-waiting thread, not the cancelled run
        blocked.join(10)
        assert not blocked.is_alive()
        assert sess.run(q.size()) == 0
    finally:
        sess.close()
        blocked.join(10)


def test_close_ends_a_waiting_thread_and_a_waiting_arun_with_cancelled_error():
    q, x, enq, deq = _queue_graph()
    sess = fr.Session()
    out = {}
    t1 = threading.Thread(target=lambda: out.update(sync=_swallow(lambda: sess.run(deq))))
    t1.start()

    async def user():
        async with trio.open_nursery() as nursery:
            nursery.start_soon(trio.to_thread.run_sync, _close_when_waiting, sess, q, 2)
            out["arun"] = await _aswallow(sess.arun(deq))

    trio.run(user)
    t1.join(10)
    assert not t1.is_alive()
    assert out["sync"] is fr.errors.CancelledError
    assert out["arun"] is fr.errors.CancelledError


def _close_when_waiting(sess, q, n):
    deadline = time.monotonic() + 10
    while q.statistics(sess).waiting_dequeuers < n and time.monotonic() < deadline:
        time.sleep(0.01)  # polls a thread-side statistic; there is no thread-side wait
    sess.close()


def _swallow(f):
    try:
        f()
    except Exception as e:
        return type(e)
    return None


async def _aswallow(coro):
    try:
        await coro
    except Exception as e:
        return type(e)
    return None


@pytest.mark.parametrize("via", ["task", "thread"])
async def test_blocking_ops_of_one_run_that_wait_on_each_other_run_concurrently(via):
    # In each pair, this run's dequeue from qa can only complete after its enqueue into
    # qb: a relay moves qb's element to qa. A plan whose blocking steps are not ordered
    # by its dependencies must not run them in some fixed order (one pair or the other
    # would then wait forever); it is a concurrent plan.
    qs = [fr.FIFOQueue(1, fr.float32, shapes=[]) for _ in range(4)]
    d1 = qs[0].dequeue()
    e2 = qs[1].enqueue(2.0)
    e4 = qs[3].enqueue(4.0)
    d3 = qs[2].dequeue()
    both = [d1, e2, d3, e4]
    relays = [qs[0].enqueue(qs[1].dequeue()), qs[2].enqueue(qs[3].dequeue())]
    async with fr.Session() as sess:
        out = []

        opts = fr.RunOptions(timeout_in_ms=10000)  # a thread's run is not cancelled

        async def main_run():
            if via == "task":
                out.append(await sess.arun(both, options=opts))
            else:
                out.append(await trio.to_thread.run_sync(lambda: sess.run(both, options=opts)))

        with trio.fail_after(15):
            async with trio.open_nursery() as nursery:
                for relay in relays:
                    nursery.start_soon(sess.arun, relay)
                nursery.start_soon(main_run)
    assert out[0][0] == 2.0 and out[0][2] == 4.0
