"""The boundary primitive (flowrt/_core/parker.py): a waiter parks in a thread or a
trio task, and is woken from any thread or any loop, even after its loop ended."""

import threading

import pytest
import trio

from flowrt._core.parker import Parker, canceller
from tests.signals import ctrl_c_after


async def _made_in_thread(park_timeout=10.0):
    """Starts a thread that makes a Parker and parks on it; returns (parker, done,
    result), ``done`` a trio.Event set when the thread's park returns, ``result`` a
    list that holds what it returned then."""
    loop = trio.lowlevel.current_trio_token()
    made = trio.Event()
    done = trio.Event()
    box: list = []
    result: list = []

    def waiter():
        p = Parker()
        box.append(p)
        trio.from_thread.run_sync(made.set, trio_token=loop)
        result.append(p.park(park_timeout))
        trio.from_thread.run_sync(done.set, trio_token=loop)

    threading.Thread(target=waiter, daemon=True).start()
    await made.wait()
    return box[0], done, result


async def test_a_thread_waiter_is_woken_by_a_trio_task():
    with trio.fail_after(10):
        p, done, result = await _made_in_thread()
        assert not p.in_trio
        assert p.wake()
        await done.wait()
    assert result == [True]


async def test_a_thread_waiter_times_out_unwoken():
    with trio.fail_after(10):
        p, done, result = await _made_in_thread(park_timeout=0.01)
        await done.wait()
    assert result == [False]


async def test_a_task_waiter_is_woken_by_a_thread():
    p = Parker()
    assert p.in_trio
    woken = False

    async def waiter():
        nonlocal woken
        await p.park_async()
        woken = True

    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(waiter)
            await trio.testing.wait_all_tasks_blocked()
            assert not woken
            assert await trio.to_thread.run_sync(p.wake)
    assert woken


async def test_a_task_waiter_is_woken_by_a_task_of_its_loop():
    p = Parker()
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(p.park_async)
            await trio.testing.wait_all_tasks_blocked()
            assert p.wake()


async def test_wakes_before_a_park_leave_one_permit():
    p = Parker()
    assert p.wake() and p.wake()
    with trio.fail_after(10):
        await p.park_async()  # the pending permit: returns at once
    with trio.move_on_after(0.01) as cs:
        await p.park_async()  # consumed: parks
    assert cs.cancelled_caught


async def test_a_waiter_in_one_loop_is_woken_from_another_loop():
    here = trio.lowlevel.current_trio_token()
    made = trio.Event()
    box: list = []

    async def in_loop_a():
        p = Parker()
        box.append(p)
        here.run_sync_soon(made.set)
        with trio.fail_after(10):
            await p.park_async()
        return "woken"

    def loop_a():
        box.append(trio.run(in_loop_a))

    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(trio.to_thread.run_sync, loop_a)
            await made.wait()
            assert box[0].wake()  # from this loop (B), on another thread
    assert box[1] == "woken"


def test_a_wake_after_the_loop_finished_does_nothing_and_does_not_raise():
    async def make():
        return Parker()

    p = trio.run(make)
    assert p.wake() is False  # on the thread that ran the loop
    box: list = []
    t = threading.Thread(target=lambda: box.append(p.wake()))
    t.start()
    t.join()
    assert box == [False]  # from another thread


def test_a_wake_from_the_loops_thread_in_a_later_loop_is_dropped():
    p = trio.run(_make_parker)

    async def wake_in_another_loop():
        return p.wake()

    assert trio.run(wake_in_another_loop) is False


async def _make_parker():
    return Parker()


async def test_a_cancelled_task_waiter_takes_nothing():
    p = Parker()
    with trio.move_on_after(0.01) as cs:
        await p.park_async()
    assert cs.cancelled_caught
    assert p.wake()  # after the cancel: the permit waits for the next park
    with trio.fail_after(10):
        await p.park_async()


async def test_a_task_waiter_cancelled_from_a_thread():
    p = Parker()
    with trio.fail_after(10):
        with trio.CancelScope() as cs:
            cancel = canceller(cs)
            async with trio.open_nursery() as nursery:
                nursery.start_soon(trio.to_thread.run_sync, cancel)
                await p.park_async()
    assert cs.cancelled_caught


def test_a_canceller_after_its_loop_finished_does_nothing():
    async def make():
        with trio.CancelScope() as cs:
            return canceller(cs)

    cancel = trio.run(make)
    assert cancel() is False
    box: list = []
    t = threading.Thread(target=lambda: box.append(cancel()))
    t.start()
    t.join()
    assert box == [False]


def test_a_thread_waiter_is_interrupted_by_a_signal():
    p = Parker()
    with ctrl_c_after(0.05), pytest.raises(KeyboardInterrupt):
        p.park(10)
    assert p.wake()  # the interrupted park took nothing
    assert p.park(0)


async def test_a_parker_is_parked_on_where_it_was_made():
    with pytest.raises(RuntimeError, match="made in a trio task"):
        Parker().park(0)
    p = await trio.to_thread.run_sync(Parker)
    with pytest.raises(RuntimeError, match="made outside trio"):
        await p.park_async()
