"""Interrupted runs take and leave nothing: cancels, timeouts, close and KeyboardInterrupt,
from threads and trio tasks, with queues in between (issue: all-or-nothing runs)."""

import gc
import random
import threading
import time
import weakref

import numpy as np
import pytest
import trio
import trio.testing

import flowrt as fr
from flowrt.ops.data_flow_ops import queue_of
from tests.signals import ctrl_c_after


def _two_queues(cap1=100, cap2=1):
    q1 = fr.FIFOQueue(cap1, fr.int32, shapes=[], name="q1")
    q2 = fr.FIFOQueue(cap2, fr.int32, shapes=[], name="q2")
    return q1, q2


async def test_cancelled_transfer_leaves_the_element_in_the_first_queue():
    q1, q2 = _two_queues()
    move = q2.enqueue(q1.dequeue())
    async with fr.Session() as sess:
        await sess.arun(q1.enqueue_many([[1, 2]]))
        await sess.arun(q2.enqueue(0))  # q2 is full now
        with trio.move_on_after(5) as cs:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(sess.arun, move)
                await trio.testing.wait_all_tasks_blocked()
                assert await sess.arun(q1.size()) == 1  # 1 is taken, waiting to enter q2
                cs.cancel()
        assert cs.cancelled_caught
        assert await sess.arun(q1.size()) == 2
        assert list(await sess.arun(q1.dequeue_many(2))) == [1, 2]  # in order, at the front


def test_timed_out_transfer_from_a_thread_leaves_the_element():
    q1, q2 = _two_queues()
    move = q2.enqueue(q1.dequeue())
    with fr.Session() as sess:
        sess.run(q1.enqueue_many([[1, 2, 3]]))
        sess.run(q2.enqueue(0))
        with pytest.raises(fr.errors.DeadlineExceededError, match="FIFOQueue 'q2'"):
            sess.run(move, options=fr.RunOptions(timeout_in_ms=50))
        assert sess.run(q1.size()) == 3  # (checked first: a lost element would hang below)
        assert list(sess.run(q1.dequeue_many(3))) == [1, 2, 3]


def test_close_gives_back_a_dequeue_many_of_a_waiting_run():
    q1, q2 = _two_queues()
    move = q2.enqueue_many(q1.dequeue_many(2))
    sess = fr.Session()
    sess.run(q1.enqueue_many([[1, 2, 3]]))
    sess.run(q2.enqueue(0))
    err = []
    t = threading.Thread(target=lambda: _catch(err, lambda: sess.run(move)))
    t.start()
    _wait_until(lambda: sess.run(q1.size()) == 1)
    sess.close()
    t.join(10)
    assert not t.is_alive() and err and isinstance(err[0], fr.errors.CancelledError)
    q1_core = queue_of(sess.resources, q1.queue_ref.op)
    assert [int(e[0]) for e in q1_core.get_nowait(3)] == [1, 2, 3]


def test_a_failing_run_consumes_what_it_dequeued():
    # As TF: a run that fails on an op error keeps its dequeues (no poison loops).
    q = fr.FIFOQueue(4, fr.float32, shapes=[])
    bad = fr.reshape(q.dequeue(), fr.placeholder_with_default([2], [None]))  # fails
    with fr.Session() as sess:
        sess.run(q.enqueue_many([[1.0, 2.0]]))
        with pytest.raises(fr.errors.InvalidArgumentError):
            sess.run(bad)
        assert sess.run(q.size()) == 1


@pytest.mark.parametrize("via", ["task", "thread"])
async def test_a_run_that_waited_then_failed_consumes_what_it_dequeued(via):
    # The dequeue waits first (the run is in flight), then a later op fails: an op
    # error, not an interruption, so the element stays consumed (TF's rule).
    q = fr.FIFOQueue(4, fr.float32, shapes=[])
    bad = fr.reshape(q.dequeue(), fr.placeholder_with_default([2], [None]))
    async with fr.Session() as sess:

        async def failing():
            with pytest.raises(fr.errors.InvalidArgumentError, match="Reshape"):
                if via == "task":
                    await sess.arun(bad)
                else:
                    await trio.to_thread.run_sync(sess.run, bad)

        with trio.fail_after(10):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(failing)
                while q.statistics(sess).waiting_dequeuers == 0:
                    await trio.sleep(0.001)  # a thread's wait is not a trio task's
                await sess.arun(q.enqueue_many([[1.0, 2.0]]))
        assert await sess.arun(q.size()) == 1


def test_keyboard_interrupt_during_a_blocked_run_takes_nothing():
    q1, q2 = _two_queues()
    move = q2.enqueue(q1.dequeue())
    with fr.Session() as sess:
        sess.run(q1.enqueue_many([[7]]))
        sess.run(q2.enqueue(0))
        t0 = time.monotonic()
        with ctrl_c_after(0.2), pytest.raises(KeyboardInterrupt):
            sess.run(move, options=fr.RunOptions(timeout_in_ms=20000))
        # Promptly: not at the next timed wake-up (the stall check, 10 s by default).
        assert time.monotonic() - t0 < 5
        assert sess.run(q1.size()) == 1 and sess.run(q2.size()) == 1
        assert q2.statistics(sess).waiting_enqueuers == 0
        assert sess.run(q2.dequeue()) == 0 and sess.run(q1.dequeue()) == 7


@pytest.mark.parametrize("seed,off_loop", [(0, False), (1, False), (2, True)])
async def test_random_interruptions_count_every_element_exactly_once(seed, off_loop, monkeypatch):
    # Producers fill q1; movers transfer q1 -> q2 (a small queue); consumers drain q2.
    # Movers are cancelled, timed out, or run from threads at random: every element
    # still arrives exactly once. ``off_loop``: every arun runs on a worker thread (the
    # heavy-plan path), so cancels reach runs on threads too.
    if off_loop:
        monkeypatch.setattr(fr._core.executor, "THREAD_SECONDS", -1.0)
    rng = random.Random(seed)
    n = 300
    q1, q2 = _two_queues(cap1=20, cap2=3)
    x = fr.placeholder(fr.int32, [None])
    fill, close1 = q1.enqueue_many(x), q1.close()
    move = q2.enqueue_many(q1.dequeue_up_to(2))
    take = q2.dequeue_up_to(4)
    close2 = q2.close()
    got = []
    async with fr.Session() as sess:

        async def produce():
            for i in range(0, n, 10):
                await sess.arun(fill, {x: np.arange(i, i + 10, dtype=np.int32)})
            await sess.arun(close1)

        async def mover(k):
            while True:
                r = rng.random()
                try:
                    if r < 0.3:
                        with trio.move_on_after(rng.random() * 0.003):
                            await sess.arun(move)
                    elif r < 0.5:
                        await sess.arun(move, options=fr.RunOptions(timeout_in_ms=1))
                    elif r < 0.7:
                        await trio.to_thread.run_sync(
                            lambda: sess.run(move, options=fr.RunOptions(timeout_in_ms=2))
                        )
                    else:
                        await sess.arun(move)
                except fr.errors.DeadlineExceededError:
                    pass
                except fr.errors.OutOfRangeError:
                    return

        async def consume():
            while True:
                try:
                    got.extend(int(v) for v in await sess.arun(take))
                except fr.errors.OutOfRangeError:
                    return

        with trio.fail_after(60):
            async with trio.open_nursery() as outer:
                outer.start_soon(consume)
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(produce)
                    for k in range(3):
                        nursery.start_soon(mover, k)
                await sess.arun(close2)
    assert sorted(got) == list(range(n))


def test_dropped_sessions_are_freed_and_hold_no_threads():
    q = fr.FIFOQueue(2, fr.float32, shapes=[])
    enq, deq = q.enqueue(1.0), q.dequeue()
    before = threading.active_count()
    refs = []
    for _ in range(50):
        sess = fr.Session()
        sess.run(enq)
        sess.run(deq)
        refs.append(weakref.ref(sess))
        del sess
    gc.collect()
    assert threading.active_count() <= before
    assert all(r() is None for r in refs)


async def test_waiting_aruns_hold_no_thread():
    q = fr.FIFOQueue(2, fr.float32, shapes=[])
    deq = q.dequeue()
    before = threading.active_count()
    async with fr.Session() as sess:
        with trio.move_on_after(5) as cs:
            async with trio.open_nursery() as nursery:
                for _ in range(200):
                    nursery.start_soon(sess.arun, deq)
                await trio.testing.wait_all_tasks_blocked()
                assert q.statistics(sess).waiting_dequeuers == 200
                assert threading.active_count() <= before
                cs.cancel()


def test_sync_run_needs_no_trio_loop(monkeypatch):
    # A blocking plan from a plain thread: waits park the thread; no trio loop starts.
    q = fr.FIFOQueue(2, fr.float32, shapes=[])
    enq, deq = q.enqueue(3.0), q.dequeue()
    seen = []

    def no_loop(*args, **kwargs):
        raise AssertionError("a sync run started a trio loop")

    monkeypatch.setattr(trio, "run", no_loop)
    monkeypatch.setattr(trio.lowlevel, "start_guest_run", no_loop)
    with fr.Session() as sess:
        before = set(threading.enumerate())
        t = threading.Thread(target=lambda: (_sleep_then(0.05), sess.run(enq)))
        t.start()
        assert sess.run(deq) == 3.0  # waits in this thread until the producer enqueues
        seen = set(threading.enumerate()) - before - {t}
        t.join(10)
    assert seen == set()


def test_aruns_from_two_trio_loops_at_once_share_a_session():
    q = fr.FIFOQueue(2, fr.float32, shapes=[])
    x = fr.placeholder(fr.float32, [])
    enq, deq = q.enqueue(x), q.dequeue()
    sess = fr.Session()
    out = {}

    def consumer_loop():
        async def main():
            with trio.fail_after(10):
                out["a"] = [float(await sess.arun(deq)) for _ in range(5)]

        trio.run(main)

    def producer_loop():
        async def main():
            for i in range(5):
                await sess.arun(enq, {x: float(i)})

        trio.run(main)

    ts = [threading.Thread(target=consumer_loop), threading.Thread(target=producer_loop)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(15)
    sess.close()
    assert out["a"] == [0.0, 1.0, 2.0, 3.0, 4.0]


def _sleep_then(s):
    threading.Event().wait(s)


def _wait_until(pred, timeout=10.0):
    ev = threading.Event()
    for _ in range(int(timeout / 0.01)):
        if pred():
            return
        ev.wait(0.01)
    raise AssertionError("condition not reached")


def _catch(out, f):
    try:
        f()
    except BaseException as e:
        out.append(e)


@pytest.mark.parametrize("blocking", [False, True])
async def test_a_heavy_arun_does_not_stall_other_tasks(blocking):
    # A heavy plan (here a large matmul, fed by a dequeue or not) runs off the loop once
    # its compute time is known, so a producer task keeps running meanwhile: many of its
    # runs start and end while one heavy run is in flight (inline, at most one could,
    # at the run's final checkpoint).
    q = fr.FIFOQueue(50, fr.float64, shapes=[])
    a = fr.constant(np.random.default_rng(0).standard_normal((700, 700)))
    scale = q.dequeue() if blocking else fr.constant(1.0, fr.float64)
    heavy = fr.reduce_sum(fr.matmul(a * scale, a))
    tick, drain = q.enqueue(1.0), q.dequeue()
    async with fr.Session() as sess:
        await sess.arun(q.enqueue_many([[1.0] * 10]))
        for _ in range(5):
            await sess.arun(heavy)  # learns the plan is heavy
        spans, ticks = [], []

        async def ticker():
            while True:
                t0 = trio.current_time()
                await sess.arun(tick)
                await sess.arun(drain)
                ticks.append((t0, trio.current_time()))

        with trio.fail_after(30):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(ticker)
                await trio.sleep(0)
                for _ in range(3):
                    t0 = trio.current_time()
                    await sess.arun(heavy)
                    spans.append((t0, trio.current_time()))
                nursery.cancel_scope.cancel()
    inside = [sum(s0 < a0 and b0 < s1 for a0, b0 in ticks) for s0, s1 in spans]
    assert max(inside) >= 3, inside
