"""Running a plan: one body for straight plans, a readiness loop for the rest.

A plan whose blocking steps are totally ordered by its dependencies is *straight*
(every pipeline plan): it runs as one body (``plan_body``: a loop over its steps, one
generated function of straight-line kernel calls once the plan is hot). Without
blocking steps that body is the whole run, on the caller's thread. With them it is a
generator: a blocking step runs its kernel
(``yield from``) and, when that must wait, the wait travels out to the driver, which
parks a thread or awaits in a trio task — the same body either way
(``waiting.drive_sync`` / ``drive_async``). Only a plan whose blocking steps could wait
on each other is *concurrent*: ``run_concurrent`` fires ops as trio tasks when their
inputs are ready, each blocking op in its own task. The first failure surfaces as one
``OpError`` naming the op.

Every plan (a ``Runnable``: a ``plan.Plan`` or a cluster's ``DistributedPlan``) runs
through this module, which alone calls plan bodies: ``how`` decides the way, ``run``
(a thread), ``arun`` (a trio task) and ``run_nested`` / ``run_sync`` (a kernel's
sub-plan) follow it. ``docs/executor.md`` has the measurements behind each choice.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Awaitable, Callable, Generator, Sequence
from typing import Any, Protocol, TypeVar

import numpy as np
import outcome
import trio

from .. import errors
from .codegen import op_error
from .parker import Parker, canceller
from .plan_body import Lease, leases_of
from .run_context import RunContext
from .token import TOKEN
from .token_policy import turn_seconds
from .tracing import record, runner_name, timed_waits
from .waiting import Wait, drive_async, drive_sync

T = TypeVar("T")

__all__ = [
    "op_error",
    "Runnable",
    "how",
    "run",
    "arun",
    "run_sync",
    "run_nested",
    "interruptible",
    "run_concurrent",
    "ConcurrentRun",
]


# --------------------------------------------------------------------------------------
# How a plan runs: the one place that calls plan bodies
# --------------------------------------------------------------------------------------


class Runnable(Protocol):
    """What the executor runs: a ``plan.Plan``, or a cluster's ``DistributedPlan``.

    Attributes:
      blocking: some step may wait (the body is a generator).
      straight: the blocking steps are totally ordered (else ``run_concurrent``).
      opaque: some step runs opaque user code (``py_func``).
      seconds: running average of a run's compute time, outside its waits.
      ops: the graph ops the plan runs; fetch_is_fed / fetches_fed: which fetches are
        fed tensors.
    """

    seconds: float

    @property
    def blocking(self) -> bool: ...
    @property
    def straight(self) -> bool: ...
    @property
    def opaque(self) -> bool: ...
    @property
    def ops(self) -> Sequence[Any]: ...
    @property
    def fetch_is_fed(self) -> tuple[bool, ...]: ...
    @property
    def fetches_fed(self) -> bool: ...

    def body(self, traced: bool) -> Callable[[RunContext, Sequence[Any]], Any]:
        """The body of a straight plan (with per-step timing if ``traced``)."""
        ...


# How a run goes (``how``): its body called to its end, or up to its first wait and
# then driven; a concurrent plan's readiness loop; a worker thread (``arun`` only).
BODY, CONCURRENT, THREAD = 0, 1, 2

#: ``arun`` runs a straight plan on a worker thread once its running average compute
#: time exceeds this; below it the thread hand-off (~50-100 us) costs more than it frees.
THREAD_SECONDS = 0.002


def how(plan: Runnable, in_task: bool) -> int:
    """How ``plan`` runs, for a thread (``run``, a kernel's sub-plan) or a trio task."""
    if not plan.straight:
        return CONCURRENT
    if in_task and (plan.opaque or plan.seconds > THREAD_SECONDS):
        return THREAD
    return BODY


def _no_registration(ctx: RunContext) -> contextlib.AbstractContextManager[Any]:
    return contextlib.nullcontext()


#: Called with a run's context when the run is about to wait: a context manager around
#: the rest of the run (the session registers it for ``close()``, ``session._Running``).
OnWait = Callable[[RunContext], contextlib.AbstractContextManager[Any]]


def run(
    plan: Runnable, ctx: RunContext, feeds: Sequence[Any], on_wait: OnWait = _no_registration
) -> list[Any]:
    """Runs ``plan`` to its end on this thread, which holds the execution token (it is
    given up for each wait). ``on_wait`` wraps the run from its first wait on."""
    if how(plan, False) == CONCURRENT:
        with on_wait(ctx):
            return ConcurrentRun(plan, ctx, feeds).wait_sync()
    gen, vals = _start(plan, ctx, feeds)
    if gen is None:
        return vals
    with on_wait(ctx):
        return drive_sync(gen, plan, vals)


async def arun(
    plan: Runnable, ctx: RunContext, feeds: Sequence[Any], on_wait: OnWait = _no_registration
) -> list[Any]:
    """Runs ``plan`` in this trio task, which does not hold the token: each stretch of
    kernels between awaits takes it (never blocking the loop on it), or a worker thread
    runs the plan off the loop. Cancelling the task interrupts the run.

    A cancelled task starts nothing. A run that never waits is a schedule point only
    when the task has gone a switch interval without one (``_yield_turn``).
    """
    await trio.lowlevel.checkpoint_if_cancelled()
    mode = how(plan, True)
    if mode == CONCURRENT:
        with on_wait(ctx):
            return await interruptible(run_concurrent(plan, ctx, feeds), ctx, ctx.timeout)
    if mode == THREAD:
        with on_wait(ctx):
            # On the thread, waits time out by the run's own deadline.
            return await interruptible(_in_thread(plan, ctx, feeds), ctx, None)
    await TOKEN.acquire_async()
    try:
        gen, vals = _start(plan, ctx, feeds)
    finally:
        TOKEN.release()
    if gen is not None:  # a step waits: now the run can be interrupted
        with on_wait(ctx):
            return await interruptible(drive_async(gen, plan, vals), ctx, ctx.timeout)
    await _yield_turn()
    return vals


def run_sync(plan: Runnable, ctx: RunContext, feed_values: Sequence[Any]) -> list[Any]:
    """Runs a plan with no blocking step on this thread (a sub-plan of a kernel)."""
    return plan.body(False)(ctx, feed_values)


def run_nested(
    plan: Runnable, ctx: RunContext, feed_values: Sequence[Any]
) -> Generator[Wait, Any, list[Any]]:
    """A blocking kernel's part (a generator) that runs a sub-plan (a cond branch, a
    loop body) within the kernel's run, waiting as the run waits."""
    if how(plan, False) == CONCURRENT:
        return (yield ConcurrentRun(plan, ctx, feed_values))
    body = plan.body(False)
    if not plan.blocking:
        return body(ctx, feed_values)
    return (yield from body(ctx, feed_values))


def _start(plan: Runnable, ctx: RunContext, feeds: Sequence[Any]) -> tuple[Any, Any]:
    """Runs a straight plan's body up to its first wait: ``(None, fetched)`` if it
    completed, ``(generator, wait)`` if a step waits. Interrupted meanwhile (a signal),
    it gives back what it dequeued."""
    fn = plan.body(ctx.stats is not None)
    t0 = time.perf_counter()
    if not plan.blocking:
        vals = fn(ctx, feeds)
    else:
        gen = fn(ctx, feeds)
        try:
            return gen, gen.send(None)
        except StopIteration as stop:
            vals = stop.value
        except BaseException as e:
            if not isinstance(e, Exception):
                ctx.rollback()
            raise
    plan.seconds = 0.8 * plan.seconds + 0.2 * (time.perf_counter() - t0)
    return None, vals


# The last time (``time.perf_counter``) a task of this loop took a turn at ``arun``'s
# end, and which task: see ``_yield_turn``.
_TURN: trio.lowlevel.RunVar[tuple[Any, float]] = trio.lowlevel.RunVar("flowrt_turn")

#: Switch intervals a task's runs that never wait may go on before a schedule point.
LOOP_TURNS = 2


async def _yield_turn() -> None:
    """The end of a run that never waited: a schedule point once this task has run
    ``LOOP_TURNS`` switch intervals (``token_policy.turn_seconds``) since its last one
    here, else none.

    A schedule point costs a pass of trio's scheduler (~16 us on a quiet VM, more than
    a small run); taking one per run would make ``arun`` the slow path. Taking none at
    all would let a task looping over runs that never wait hold its loop forever (no
    other task, no deadline). The interval bounds what the loop's other tasks wait.

    It must be longer than one switch interval: each pass of the scheduler polls for
    I/O, which lets go of the GIL and takes it straight back, and a thread waiting for
    the GIL (a worker thread's run coming back from BLAS) asks for it by force only
    after a whole interval in which it did not change hands. Passes one interval apart
    kept such a thread waiting for seconds.
    """
    task = trio.lowlevel.current_task()
    now = time.perf_counter()
    last_task, since = _TURN.get((None, 0.0))
    if last_task is not task:
        _TURN.set((task, now))
    elif now - since >= LOOP_TURNS * turn_seconds():
        await trio.lowlevel.cancel_shielded_checkpoint()
        _TURN.set((task, time.perf_counter()))


def _to_end(plan: Runnable, ctx: RunContext, feeds: Sequence[Any]) -> list[Any]:
    """A straight run from start to end on a worker thread, holding the token."""
    with TOKEN:
        gen, vals = _start(plan, ctx, feeds)
        return vals if gen is None else drive_sync(gen, plan, vals)


async def _in_thread(plan: Runnable, ctx: RunContext, feeds: Sequence[Any]) -> list[Any]:
    """Runs a straight plan on a worker thread from a trio task (``_to_end``).

    Cancelling the task interrupts the run (``ctx.cancel``: a waiting op gives up and
    the run gives back what it dequeued) and waits for the thread to return, so the run
    never outlives its task. A run that completed before the cancel reached it hands
    back its result: its effects happened.
    """
    parker = Parker()
    box: list[outcome.Outcome[list[Any]]] = []

    def target() -> None:
        box.append(outcome.capture(_to_end, plan, ctx, feeds))

    trio.lowlevel.start_thread_soon(target, lambda _: parker.wake())
    try:
        await parker.park_async()
    except trio.Cancelled:
        ctx.cancel(errors.CancelledError(None, None, "The run was cancelled by its caller."))
        with trio.CancelScope(shield=True):
            await parker.park_async()
        if isinstance(box[0], outcome.Value):
            return box[0].unwrap()
        raise
    return box[0].unwrap()


async def interruptible(coro: Awaitable[T], ctx: RunContext, timeout: float | None) -> T:
    """Awaits ``coro`` (a run, or the part of one that waits) under a cancel scope that
    ``ctx.cancel`` (``close()``, a caller's cancel) cancels from any thread and that
    ends after ``timeout`` seconds of the loop's clock (None: never); raises the run's
    interruption then."""
    with trio.CancelScope() as cs:
        outer, ctx.cancel_hook = ctx.cancel_hook, canceller(cs)
        try:
            if ctx.interrupt is not None:
                cs.cancel()
            if timeout is not None:
                cs.deadline = trio.current_time() + timeout
            return await coro
        finally:
            ctx.cancel_hook = outer
    # The run's own scope was cancelled: by ctx.cancel or its deadline.
    if ctx.interrupt is None:
        ctx.timed_out()  # raises DeadlineExceededError
    interrupt = ctx.interrupt
    assert interrupt is not None, "interruptible: a cancelled run with no interruption"
    raise interrupt


# --------------------------------------------------------------------------------------
# Concurrent plans: a readiness loop of trio tasks
# --------------------------------------------------------------------------------------


async def run_concurrent(plan: Any, ctx: RunContext, feed_values: Sequence[Any]) -> list[Any]:
    """Runs a concurrent plan on trio: ops fire as their inputs become ready.

    Non-blocking kernels run inline in whichever task made them ready; each blocking
    kernel runs in a task of its own in the step's nursery, so one waiting op blocks
    only its own branch. The first failure cancels the rest. The caller does not hold
    the execution token: each stretch of kernels between awaits takes it. Kernels are
    the plan's (``Plan.kernels``, wrapped once per plan); numpy's error state is set
    once for the run, and the tasks of the run inherit it (a context variable).
    """
    vals = list(plan.init)
    for s, v in zip(plan.feed_slots, feed_values):
        vals[s] = v
    pending = list(plan.npred)
    steps = plan.steps
    stats = ctx.stats
    kernels = plan.kernels
    leases = _concurrent_leases(plan)

    def finish(st: Any, res: Sequence[Any]) -> list[int]:
        outs = st.outs
        if len(outs) == 1:
            vals[outs[0]] = res[0]
        else:
            for o, r in zip(outs, res):
                vals[o] = r
        ready = []
        for j in st.succ:
            pending[j] -= 1
            if pending[j] == 0:
                ready.append(j)
        return ready

    def drive(ready: list[int], nursery: trio.Nursery) -> None:
        while ready:
            st = steps[ready.pop()]
            if st.blocking:
                nursery.start_soon(run_blocking, st, nursery, name=st.op.name)
                continue
            t0 = time.perf_counter() if stats is not None else 0.0
            try:
                res = kernels[st.index](ctx, st.op, *[vals[i] for i in st.ins])
            except Exception as e:  # every kernel failure becomes an OpError
                raise op_error(e, st.op) from (None if isinstance(e, errors.OpError) else e)
            if stats is not None:
                record(stats, st.op, t0, res, runner_name())
            if leases is not None:
                leases.done(st, res, vals)
            ready.extend(finish(st, res))

    async def run_blocking(st: Any, nursery: trio.Nursery) -> None:
        t0 = time.perf_counter() if stats is not None else 0.0
        try:
            gen = st.kernel(ctx, st.op, *[vals[i] for i in st.ins])
            if stats is not None:
                gen = timed_waits(gen, stats, st.op)
            res = await drive_async(gen)
        except Exception as e:
            raise op_error(e, st.op) from (None if isinstance(e, errors.OpError) else e)
        if stats is not None:
            record(stats, st.op, t0, res, runner_name())
        await TOKEN.acquire_async()
        try:
            drive(finish(st, res), nursery)
        finally:
            TOKEN.release()

    quiet = np.errstate(all="ignore") if plan.numeric else contextlib.nullcontext()
    try:
        with quiet:
            async with trio.open_nursery() as nursery:
                await TOKEN.acquire_async()
                try:
                    drive(list(reversed(plan.roots)), nursery)
                finally:
                    TOKEN.release()
    except BaseExceptionGroup as eg:
        raise _first_error(eg) from None
    return [vals[s] for s in plan.fetch_slots]


def _first_error(eg: BaseExceptionGroup[Any]) -> BaseException:
    """The error to surface from a failed step: the first OpError, else the first error."""
    flat: list[BaseException] = []

    def walk(e: BaseException) -> None:
        if isinstance(e, BaseExceptionGroup):
            for x in e.exceptions:
                walk(x)
        else:
            flat.append(e)

    walk(eg)
    for e in flat:
        if isinstance(e, errors.OpError):
            return e
    for e in flat:
        if not isinstance(e, trio.Cancelled):
            return e
    return flat[0]


class ConcurrentRun(Wait):
    """A concurrent plan as one wait: a trio task runs it in place; a thread runs it
    in a trio loop of its own for the duration (a concurrent plan needs trio tasks)."""

    __slots__ = ("plan", "ctx", "feeds")

    def __init__(self, plan: Any, ctx: RunContext, feeds: Sequence[Any]) -> None:
        self.plan, self.ctx, self.feeds = plan, ctx, feeds

    async def wait_async(self) -> list[Any]:
        return await run_concurrent(self.plan, self.ctx, self.feeds)

    def wait_sync(self) -> list[Any]:
        # The loop's tasks take the token stretch by stretch (run_concurrent).
        depth = TOKEN.release_all()
        try:
            return trio.run(self._in_own_loop)
        finally:
            TOKEN.restore(depth)

    async def _in_own_loop(self) -> list[Any]:
        ctx = self.ctx
        ctx.check_interrupted()
        left = None if ctx.deadline == math.inf else ctx.deadline - time.monotonic()
        return await interruptible(run_concurrent(self.plan, ctx, self.feeds), ctx, left)


class _Leases:
    """The variable reads of one concurrent run whose values provably die within it
    (``plan_body.leases_of``, as for a straight plan): each is handed back once every step using
    the value or an alias of it has run, unless one's output shares its memory."""

    __slots__ = ("spec", "users_of", "left", "held", "escaped")

    def __init__(self, spec: dict[int, Lease], users_of: dict[int, list[int]]):
        self.spec, self.users_of = spec, users_of
        self.left = {i: len(s.users) for i, s in spec.items()}
        self.held: dict[int, tuple[Any, Any]] = {}
        self.escaped: set[int] = set()

    def done(self, st: Any, res: Sequence[Any], vals: list[Any]) -> None:
        """Step ``st`` ran with outputs ``res`` (not yet stored in ``vals``)."""
        i = st.index
        if i in self.spec:
            self.held[i] = (vals[st.ins[0]], res[0])
            self._settle(i)
        for r in self.users_of.get(i, ()):
            for j, slot in self.spec[r].checks:
                if j == i and any(np.may_share_memory(o, vals[slot]) for o in res):
                    self.escaped.add(r)
            self.left[r] -= 1
            self._settle(r)

    def _settle(self, r: int) -> None:
        if self.left[r] == 0 and r in self.held and r not in self.escaped:
            handle, value = self.held.pop(r)
            self.spec[r].release(handle, value)


def _concurrent_leases(plan: Any) -> _Leases | None:
    """A concurrent run's lease tracker, from its plan's reads (found once per plan)."""
    spec = plan.concurrent_leases
    if spec is None:
        keep = set(plan.fetch_slots)
        spec = leases_of(plan.steps, {}, keep)
        users_of: dict[int, list[int]] = {}
        for i, lease in spec.items():
            for j in lease.users:
                users_of.setdefault(j, []).append(i)
        spec = plan.concurrent_leases = (spec, users_of)
    return _Leases(*spec) if spec[0] else None
