"""Running a plan: one body for straight plans, a readiness loop for the rest.

A plan whose blocking steps are totally ordered by its dependencies is *straight*
(every pipeline plan): it runs as one body (``plan_body``: a loop over its steps, one
generated function of straight-line kernel calls once the plan is hot). Without
blocking steps that body is the whole run, on the caller's thread. With them it is a
generator: a blocking step runs its kernel
(``yield from``) and, when that must wait, the wait travels out to the driver, which
parks a thread (``run``) or awaits in a trio task (``arun``) — the same body either way
(``waiting.drive_sync`` / ``drive_async``). Only a plan whose blocking steps could wait
on each other is *concurrent*: ``run_concurrent`` fires ops as trio tasks when their
inputs are ready, each blocking op in its own task. The first failure surfaces as one
``OpError`` naming the op. ``docs/executor.md`` has the measurements behind each choice.
"""

from __future__ import annotations

import math
import time

import numpy as np
import trio

from .. import errors
from .codegen import op_error
from .plan_body import compile_plan
from .run_context import RunContext
from .token import TOKEN, heavy_kernel
from .tracing import record, runner_name, timed_waits
from .waiting import Wait, drive_async

__all__ = [
    "op_error",
    "compile_plan",
    "run_concurrent",
    "run_sync",
    "run_nested",
    "ConcurrentRun",
]


async def run_concurrent(plan, ctx: RunContext, feed_values) -> list:
    """Runs a concurrent plan on trio: ops fire as their inputs become ready.

    Non-blocking kernels run inline in whichever task made them ready; each blocking
    kernel runs in a task of its own in the step's nursery, so one waiting op blocks
    only its own branch. The first failure cancels the rest. The caller does not hold
    the execution token: each stretch of kernels between awaits takes it.
    """
    vals = list(plan.init)
    for s, v in zip(plan.feed_slots, feed_values):
        vals[s] = v
    pending = list(plan.npred)
    steps = plan.steps
    stats = ctx.stats
    kernels = [heavy_kernel(st) for st in steps]

    def finish(st, res):
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

    def drive(ready, nursery):
        while ready:
            st = steps[ready.pop()]
            if st.blocking:
                nursery.start_soon(run_blocking, st, nursery, name=st.op.name)
                continue
            t0 = time.perf_counter() if stats is not None else 0.0
            try:
                with np.errstate(all="ignore"):
                    res = kernels[st.index](ctx, st.op, *[vals[i] for i in st.ins])
            except Exception as e:  # every kernel failure becomes an OpError
                raise op_error(e, st.op) from (None if isinstance(e, errors.OpError) else e)
            if stats is not None:
                record(stats, st.op, t0, res, runner_name())
            ready.extend(finish(st, res))

    async def run_blocking(st, nursery):
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

    try:
        async with trio.open_nursery() as nursery:
            await TOKEN.acquire_async()
            try:
                drive(list(reversed(plan.roots)), nursery)
            finally:
                TOKEN.release()
    except BaseExceptionGroup as eg:
        raise _first_error(eg) from None
    return [vals[s] for s in plan.fetch_slots]


def _first_error(eg: BaseExceptionGroup) -> BaseException:
    """The error to surface from a failed step: the first OpError, else the first error."""
    flat = []

    def walk(e):
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


def run_sync(plan, ctx: RunContext, feed_values) -> list:
    """Runs a plan with no blocking step on this thread (a sub-plan of a kernel)."""
    return plan.fn(ctx, feed_values)


def run_nested(plan, ctx: RunContext, feed_values):
    """A blocking kernel's part (a generator) that runs a sub-plan (a cond branch, a
    loop body) within the kernel's run, waiting as the run waits."""
    if not plan.blocking:
        return plan.fn(ctx, feed_values)
    if plan.straight:
        return (yield from plan.fn(ctx, feed_values))
    return (yield ConcurrentRun(plan, ctx, feed_values))


class ConcurrentRun(Wait):
    """A concurrent plan as one wait: a trio task runs it in place; a thread runs it
    in a trio loop of its own for the duration (a concurrent plan needs trio tasks)."""

    __slots__ = ("plan", "ctx", "feeds")

    def __init__(self, plan, ctx: RunContext, feeds):
        self.plan, self.ctx, self.feeds = plan, ctx, feeds

    async def wait_async(self):
        return await run_concurrent(self.plan, self.ctx, self.feeds)

    def wait_sync(self):
        # The loop's tasks take the token stretch by stretch (run_concurrent).
        depth = TOKEN.release_all()
        try:
            return trio.run(self._in_own_loop)
        finally:
            TOKEN.restore(depth)

    async def _in_own_loop(self):
        ctx = self.ctx
        token = trio.lowlevel.current_trio_token()
        with trio.CancelScope() as cs:
            if ctx.deadline != math.inf:
                cs.deadline = trio.current_time() + (ctx.deadline - time.monotonic())
            outer = ctx.cancel_hook
            ctx.cancel_hook = lambda: token.run_sync_soon(cs.cancel)
            try:
                ctx.check_interrupted()
                return await run_concurrent(self.plan, ctx, self.feeds)
            finally:
                ctx.cancel_hook = outer
        if ctx.interrupt is None:
            ctx.timed_out()
        ctx.check_interrupted()
