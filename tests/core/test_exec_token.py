"""The execution token (flowrt/_core/token.py): runs execute holding it and give it up
wherever they wait, around py_func and around heavy kernels; nothing deadlocks."""

import os
import signal
import sys
import threading
import time
import types

import numpy as np
import pytest
import trio

import flowrt as fr
from flowrt._core import token_policy
from flowrt._core.token import TOKEN, ExecutionToken
from flowrt._core.token_policy import heavy_kernel
from tests.signals import ctrl_c_after


def _in_thread(fn, *args):
    """Starts ``fn(*args)`` on a daemon thread; returns (thread, box of its outcome)."""
    box: list = []

    def target():
        try:
            box.append(("ok", fn(*args)))
        except BaseException as e:  # reported to the test
            box.append(("error", e))

    t = threading.Thread(target=target, daemon=True)
    t.start()
    return t, box


async def _joined(t, box, seconds=10):
    """Waits (off the loop) for a thread of ``_in_thread`` and returns its value."""
    with trio.fail_after(seconds):
        await trio.to_thread.run_sync(t.join, abandon_on_cancel=True)
    kind, value = box[0]
    if kind == "error":
        raise value
    return value


async def test_token_is_reentrant():
    tok = ExecutionToken()

    def twice():
        with tok, tok:  # a nested run on the same thread
            return tok._depth

    t, box = _in_thread(twice)
    assert await _joined(t, box) == 2
    assert tok._owner is None


def test_token_is_served_in_arrival_order():
    tok = ExecutionToken()
    order = []
    tok.acquire()
    tok._depth += 1  # held twice (see test_token_is_reentrant)
    got = [threading.Event() for _ in range(3)]

    def waiter(i):
        tok.acquire()
        order.append(i)
        got[i].set()
        tok.release()

    threads = []
    for i in range(3):
        t = threading.Thread(target=waiter, args=(i,), daemon=True)
        t.start()
        threads.append(t)
        # wait until it is in line (it cannot get the token while this thread holds it)
        while len(tok._waiters) < i + 1:
            t.join(0.001)
    tok.release()
    assert not got[0].is_set()  # still held once
    tok.release()
    for t in threads:
        t.join(10)
    assert order == [0, 1, 2]
    assert tok._owner is None


@pytest.fixture
def switch_interval():
    """Sets the GIL's (and so the token's) switch interval for one test."""
    old = sys.getswitchinterval()
    yield sys.setswitchinterval
    sys.setswitchinterval(old)


def _queue_waiter(tok, order, name):
    """Starts a thread that takes ``tok``, records ``name`` and releases it; returns
    once the thread is in line."""

    def waiter():
        tok.acquire()
        order.append(name)
        tok.release()

    t = threading.Thread(target=waiter, daemon=True)
    t.start()
    while not tok._waiters:
        t.join(0.001)
    return t


@pytest.mark.parametrize("linger, expected", [(True, ["A2", "B"]), (False, ["B", "A2"])])
def test_a_run_that_ends_keeps_its_turn_for_its_next_run(switch_interval, linger, expected):
    # Back-to-back runs of one thread stay on it while the waiting threads are young:
    # each change of hands costs the next run cold caches (docs/executor.md).
    switch_interval(30.0)
    tok = ExecutionToken()
    order: list = []
    tok.acquire()
    t = _queue_waiter(tok, order, "B")
    tok.release(linger=linger)
    tok.acquire()  # the thread's next run
    order.append("A2")
    tok.release()
    t.join(10)
    assert order == expected and tok._owner is None


def test_a_waiter_takes_over_a_token_its_lingering_holder_left(switch_interval):
    # The thread that ended a run never comes back: the waiter must not wait for it.
    switch_interval(0.05)
    tok = ExecutionToken()
    order: list = []
    tok.acquire()
    t = _queue_waiter(tok, order, "B")
    tok.release(linger=True)
    t.join(10)
    assert order == ["B"] and tok._owner is None


def test_back_to_back_runs_starve_a_waiter_no_longer_than_the_interval(switch_interval):
    switch_interval(0.02)
    tok = ExecutionToken()
    order: list = []
    done = threading.Event()
    tok.acquire()
    t = _queue_waiter(tok, order, "B")
    t0 = time.monotonic()
    while time.monotonic() - t0 < 10 and "B" not in order:
        tok.release(linger=True)  # run after run, each taking the token back
        tok.acquire()
        time.sleep(0.001)
    tok.release()
    done.set()
    t.join(10)
    assert order == ["B"]
    assert time.monotonic() - t0 < 5  # served, not left until the loop gave up


async def test_a_waiting_task_is_served_at_once(switch_interval):
    # A trio task cannot time out of the line, so a run ending hands the token to it.
    switch_interval(30.0)
    tok = ExecutionToken()
    order: list = []
    taken, queued = threading.Event(), threading.Event()

    def holder():
        tok.acquire()
        taken.set()
        queued.wait(10)
        tok.release(linger=True)  # its run ends ...
        tok.acquire()  # ... and the next starts: after the task
        order.append("A2")
        tok.release()

    t = threading.Thread(target=holder, daemon=True)
    t.start()
    await trio.to_thread.run_sync(taken.wait, 10)
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:

            async def task():
                await tok.acquire_async()
                order.append("T")
                tok.release()

            nursery.start_soon(task)
            while not tok._waiters:
                await trio.sleep(0.001)
            queued.set()
        await trio.to_thread.run_sync(t.join, 10)
    assert order == ["T", "A2"] and tok._owner is None


def test_release_all_and_restore_keep_the_depth():
    tok = ExecutionToken()
    assert tok.release_all() == 0  # not held: nothing to give up
    tok.acquire()
    tok.acquire()
    assert tok.release_all() == 2 and not tok.held()
    tok.restore(2)
    tok.release()
    assert tok.held()
    tok.release()
    assert not tok.held() and tok._owner is None


def test_restore_takes_the_whole_depth_back_in_one_step():
    # A signal handler's exception (Ctrl-C) can land at any line boundary: none may
    # find the token held by this thread at a depth other than the one restored.
    tok = ExecutionToken()
    seen: list = []

    def trace(frame, event, arg):
        if event == "call":
            return trace if frame.f_code is ExecutionToken.restore.__code__ else None
        if event == "line" and tok.held():
            seen.append(tok._depth)
        return trace

    sys.settrace(trace)
    try:
        tok.restore(3)
    finally:
        sys.settrace(None)
    assert tok._depth == 3
    assert all(d == 3 for d in seen), seen
    for _ in range(3):
        tok.release()
    assert tok._owner is None


def _until(condition, seconds=10.0):
    """Polls ``condition`` from a helper thread (no event marks a thread's entering
    the line); fails the helper, and so the test, if it never holds."""
    end = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < end, "the condition never held"
        threading.Event().wait(0.001)


def test_an_interrupted_waiter_does_not_strand_a_task_behind_it(switch_interval):
    # A thread's run ends leaving the token free for its next run (a turn); the main
    # thread waits in line; a trio task queues behind it; Ctrl-C interrupts the main
    # thread. The task must get the token without some other thread touching it.
    switch_interval(60.0)  # no waiter's turn ends during the test
    tok = ExecutionToken()
    main = threading.get_ident()
    served = threading.Event()
    box: list = []

    async def task():
        await tok.acquire_async()
        tok.release()
        served.set()

    def lingerer():
        tok.acquire()
        _until(lambda: any(w.ident == main for w in list(tok._waiters)))  # main in line
        tok.release(linger=True)  # its run ends: the token is left free, a turn on
        t = threading.Thread(target=trio.run, args=(task,), daemon=True)
        t.start()
        box.append(t)
        _until(lambda: served.is_set() or any(w.ident == t.ident for w in list(tok._waiters)))
        os.kill(os.getpid(), signal.SIGINT)

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        threading.Thread(target=lingerer, daemon=True).start()
        try:
            tok.acquire()
            tok.release()
            threading.Event().wait(30)  # where the Ctrl-C lands when it was served
        except KeyboardInterrupt:
            pass
    finally:
        signal.signal(signal.SIGINT, previous)

    async def task_served():
        with trio.fail_after(10):
            await trio.to_thread.run_sync(served.wait, abandon_on_cancel=True)

    trio.run(task_served)
    box[0].join(10)
    assert tok._owner is None and not tok._waiters


async def test_a_task_awaits_the_token_without_blocking_its_loop():
    tok = ExecutionToken()
    taken, go = threading.Event(), threading.Event()

    def holder():
        tok.acquire()
        taken.set()
        go.wait(10)
        tok.release()

    t = threading.Thread(target=holder, daemon=True)
    t.start()
    await trio.to_thread.run_sync(taken.wait, 10)
    ticks = 0
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:

            async def ticker():
                nonlocal ticks
                while ticks < 5:  # the loop keeps running while the task waits
                    ticks += 1
                    await trio.lowlevel.checkpoint()
                go.set()

            async def taker():
                await tok.acquire_async()
                assert ticks == 5
                tok.release()

            nursery.start_soon(taker)
            nursery.start_soon(ticker)
    t.join(10)
    assert tok._owner is None


async def test_a_cancelled_task_leaves_the_line():
    tok = ExecutionToken()
    taken, go = threading.Event(), threading.Event()

    def holder():
        with tok:
            taken.set()
            go.wait(10)

    t = threading.Thread(target=holder, daemon=True)
    t.start()
    await trio.to_thread.run_sync(taken.wait, 10)
    with trio.move_on_after(0.05):
        await tok.acquire_async()
    assert len(tok._waiters) == 0
    go.set()
    await trio.to_thread.run_sync(t.join, 10)
    assert tok._owner is None


async def test_a_run_blocked_on_a_queue_lets_another_thread_fill_it():
    q = fr.FIFOQueue(2, fr.float32, shapes=[])
    deq = q.dequeue()
    enq = q.enqueue(3.0)
    with fr.Session() as sess:
        t, box = _in_thread(sess.run, deq)
        # the consumer parks (giving the token up) until a producer enqueues
        with trio.fail_after(10):
            while q.statistics(sess).waiting_dequeuers == 0:
                await trio.sleep(0.001)
        t2, box2 = _in_thread(sess.run, enq)
        await _joined(t2, box2)
        assert await _joined(t, box) == 3.0


async def test_py_func_calling_sess_run_from_another_thread():
    x = fr.placeholder(fr.float32, [])
    inner = x * 2.0
    holder: list = []

    def f(v):
        # opaque user code that runs the session on a thread of its own and waits for it
        out: list = []
        t = threading.Thread(target=lambda: out.append(holder[0].run(inner, {x: v})))
        t.start()
        t.join(10)
        return np.float32(out[0] + 1.0)

    y = fr.py_func(f, [x], fr.float32)
    with fr.Session() as sess:
        holder.append(sess)
        t, box = _in_thread(sess.run, y, {x: 4.0})
        assert await _joined(t, box) == 9.0


async def test_nested_runs_on_one_thread():
    x = fr.placeholder(fr.float32, [])
    inner = x + 1.0
    holder: list = []

    def f(v):
        assert not TOKEN.held()  # opaque code runs without the token
        return np.float32(holder[0].run(inner, {x: v}) * 10.0)

    y = fr.py_func(f, [x], fr.float32)

    def nested(sess):
        with TOKEN:  # the caller already holds it: runs nest
            out = sess.run(y, {x: 1.0})
            assert TOKEN.held()
        assert not TOKEN.held()
        return out

    with fr.Session() as sess:
        holder.append(sess)
        t, box = _in_thread(nested, sess)
        assert await _joined(t, box) == 20.0


async def test_arun_and_sync_runs_together():
    q = fr.FIFOQueue(1, fr.int32, shapes=[])
    enq = q.enqueue(fr.constant(5))
    deq = q.dequeue()
    with fr.Session() as sess:
        with trio.fail_after(10):
            # a task waits on the queue while threads fill and drain it
            async with trio.open_nursery() as nursery:
                got: list = []

                async def consumer():
                    for _ in range(20):
                        got.append(await sess.arun(deq))

                nursery.start_soon(consumer)
                t, box = _in_thread(lambda: [sess.run(enq) for _ in range(20)])
                await _joined(t, box)
            assert got == [5] * 20
            # and a thread waits while a task fills
            t, box = _in_thread(lambda: [sess.run(deq) for _ in range(20)])
            for _ in range(20):
                await sess.arun(enq)
            assert await _joined(t, box) == [5] * 20


def test_keyboard_interrupt_during_a_blocked_run_gives_the_token_up():
    q = fr.FIFOQueue(1, fr.int32, shapes=[])
    deq = q.dequeue()
    with fr.Session() as sess:
        with ctrl_c_after(0.2), pytest.raises(KeyboardInterrupt):
            sess.run(deq, options=fr.RunOptions(timeout_in_ms=20000))
        assert not TOKEN.held()
        # another thread can run at once: the interrupted run kept no hold
        t, box = _in_thread(sess.run, q.enqueue(1))
        t.join(10)
        assert box == [("ok", None)]
        assert sess.run(deq) == 1


def test_heavy_kernels_run_without_the_token(monkeypatch):
    seen: list = []

    def kernel(ctx, op, a, b):
        seen.append(TOKEN.held())
        return (a @ b,)

    Step = types.SimpleNamespace(blocking=False, op=types.SimpleNamespace(type="MatMul"))
    Step.kernel = kernel

    k = heavy_kernel(Step)
    big = np.ones((256, 256), np.float32)
    small = np.ones((4, 4), np.float32)
    with TOKEN:
        k(None, Step.op, small, small)
        k(None, Step.op, big, big)
        assert TOKEN.held()
    assert seen == [True, False]
    monkeypatch.setattr(token_policy, "MATMUL_RELEASE_FLOPS", 1 << 40)
    with TOKEN:
        k(None, Step.op, big, big)
    assert seen == [True, False, True]


class _Recording:
    """A kernel that records whether it ran holding the token."""

    def __init__(self, ops=None):
        self.seen: list = []
        if ops is not None:
            self.ops = [types.SimpleNamespace(type=t) for t in ops]  # as a FusedKernel's

    def __call__(self, ctx, op, *xs):
        self.seen.append(TOKEN.held())
        return (xs[0],)


def _step(op_type, kernel):
    return types.SimpleNamespace(
        blocking=False, op=types.SimpleNamespace(type=op_type), kernel=kernel
    )


@pytest.mark.parametrize(
    "op_type, held_at, released_at",
    [("Tanh", 1 << 12, 1 << 14), ("Log1p", 1 << 10, 1 << 12), ("AddV2", 1 << 16, 1 << 18)],
)
def test_elementwise_kernels_give_the_token_up_by_their_cost(op_type, held_at, released_at):
    rec = _Recording()
    k = heavy_kernel(_step(op_type, rec))
    with TOKEN:
        k(None, None, np.ones(held_at, np.float32), np.ones(1, np.float32))
        k(None, None, np.ones(released_at, np.float32), np.ones(1, np.float32))
        assert TOKEN.held()
    assert rec.seen == [True, False]


def test_a_fused_chain_counts_the_cost_of_every_member():
    cheap, dear = _Recording(["AddV2", "Mul"]), _Recording(["Sub", "Mul", "Tanh", "Abs", "Log1p"])
    x = np.ones(2048, np.float32)  # each column of benchmarks/distributed.py's producer
    with TOKEN:
        heavy_kernel(_step("AddV2", cheap))(None, None, x)
        heavy_kernel(_step("AddV2", dear))(None, None, x)
    assert cheap.seen == [True] and dear.seen == [False]


@pytest.mark.parametrize(
    "op_type, small, large",
    [
        (
            "DecodeCSV",
            (np.empty(64, object), *[np.zeros(1)] * 65),
            (np.empty(512, object), *[np.zeros(1)] * 65),
        ),
        ("Pack", [np.zeros(2048)] * 8, [np.zeros(2048)] * 200),
    ],
)
def test_parsing_and_copying_kernels_give_the_token_up_when_large(op_type, small, large):
    rec = _Recording()
    k = heavy_kernel(_step(op_type, rec))
    with TOKEN:
        k(None, None, *small)  # the main job's decode_csv of 64 x 65 fields stays held
        k(None, None, *large)
    assert rec.seen == [True, False]


def test_known_shapes_decide_an_elementwise_release_when_the_plan_is_built():
    with fr.Graph().as_default():
        small = fr.placeholder(fr.float32, [64, 4]) + 1.0
        large = fr.tanh(fr.placeholder(fr.float32, [1 << 14]))
        unknown = fr.tanh(fr.placeholder(fr.float32, [None]))
    rec = _Recording()
    # Small and known: the plan calls the kernel itself, with no check per run.
    assert heavy_kernel(_step_of(small.op, rec)) is rec
    # Large and known: always released, whatever a call's inputs are.
    k = heavy_kernel(_step_of(large.op, rec))
    assert k is not rec
    # Unknown: each call checks its inputs.
    u = heavy_kernel(_step_of(unknown.op, rec))
    with TOKEN:
        k(None, None, np.ones(4, np.float32))
        u(None, None, np.ones(4, np.float32))
        u(None, None, np.ones(1 << 14, np.float32))
        assert TOKEN.held()
    assert rec.seen == [False, True, False]


def _step_of(op, kernel):
    return types.SimpleNamespace(blocking=False, op=op, kernel=kernel)
