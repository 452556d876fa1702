"""Running a plan: the inline loop for plans that cannot block, and the trio loop.

Every op fires when its inputs (data and control) are ready. A plan with no blocking
op is walked in its precomputed topological order on the calling thread: for cheap
kernels the walk is the whole cost, and a task per op would dominate it (see
docs/executor.md for the numbers). A plan with a blocking op (queue ops) runs on trio:
readiness counts are decremented as ops finish, sync kernels run inline in whichever
task made them ready, and each async kernel runs as its own task in the step's
nursery, so a blocked dequeue blocks only its own branch and its own run. The first
failure cancels the step and surfaces as one ``OpError`` naming the op.
"""

from __future__ import annotations

import contextlib
import time

import numpy as np
import trio

from .. import errors


class RunContext:
    """What kernels see of the run: the session's state and the run's options."""

    __slots__ = ("session", "resources", "deadline", "step_id", "stats", "waiting")

    def __init__(self, session, resources, deadline=None, step_id=0, stats=None):
        self.session = session
        self.resources = resources
        self.deadline = deadline
        self.step_id = step_id
        self.stats = stats
        self.waiting = None  # the blocking op a sequential run awaits, for messages


def op_error(exc: BaseException, op) -> errors.OpError:
    """Wraps a kernel's plain exception as InvalidArgumentError naming the op."""
    if isinstance(exc, errors.OpError):
        if exc.op is None:
            exc.op = op
        return exc
    msg = str(exc) or type(exc).__name__
    return errors.InvalidArgumentError(None, op, "%s: %s" % (op.describe(), msg))


# A plan run this many times is compiled to straight-line Python (``compile_sync``);
# before that the generic loop runs it, so a one-off signature pays no compile cost.
COMPILE_AFTER_RUNS = 2


def run_sync(plan, ctx: RunContext, feed_values) -> list:
    """Runs a non-blocking plan inline; returns the fetched values."""
    fn = _compiled(plan)
    if fn is not None and ctx.stats is None:
        return _call_compiled(plan, fn, ctx, feed_values)
    vals = _initial_vals(plan, feed_values)
    stats = ctx.stats
    with np.errstate(all="ignore"):
        for kernel, op, ins, outs in plan.sync_steps:
            t0 = time.perf_counter() if stats is not None else 0.0
            try:
                res = kernel(ctx, op, *[vals[i] for i in ins])
            except Exception as e:  # noqa: BLE001 - every kernel failure becomes an OpError
                raise op_error(e, op) from (None if isinstance(e, errors.OpError) else e)
            if type(outs) is int:
                vals[outs] = res[0]
            else:
                for o, r in zip(outs, res):
                    vals[o] = r
            if stats is not None:
                stats.append((op, t0, time.perf_counter()))
    return [vals[s] for s in plan.fetch_slots]


def compile_sync(plan):
    """Compiles a plan to one Python function of straight-line calls.

    Each step becomes ``s7 = k3(ctx, o3, s2, s5)[0]`` with kernels, ops and constants
    bound as globals of the generated code: no per-step list indexing, tuple tests or
    loop overhead remain. ``n`` tracks the current step so an error still names its op.
    For a blocking plan the function is ``run_prefix``'s compiled form: blocking steps
    call their ``try_kernel``, and on ``trio.WouldBlock`` (or a blocking step without
    one) it returns ``(vals, k)`` for ``resume``; completed, it returns
    ``(None, fetched)``.
    """
    init = plan.init

    def handoff(locs, k):
        vals = list(init)
        for name, v in locs.items():
            if name[0] == "s" and name[1:].isdigit():
                vals[int(name[1:])] = v
        return vals, k

    env = {"op_error": op_error, "OpError": errors.OpError, "WouldBlock": trio.WouldBlock,
           "handoff": handoff}
    fed = set(plan.feed_slots)

    def ref(slot):
        if slot in fed or init[slot] is None:
            return "s%d" % slot
        name = "c%d" % slot
        env[name] = init[slot]
        return name

    lines = ["def run(ctx, feeds):", "    n = -1", "    try:"]
    for j, slot in enumerate(plan.feed_slots):
        lines.append("        s%d = feeds[%d]" % (slot, j))
    # Each value is dropped after its last use: a variable's array that no step still
    # holds may then be updated in place (state_ops), and memory peaks lower.
    last = {}
    for i, st in enumerate(plan.steps):
        for x in st.ins:
            last[x] = i
    keep = set(plan.fetch_slots)
    fetched = "[%s]" % ", ".join(ref(s) for s in plan.fetch_slots)
    for i, st in enumerate(plan.steps):
        kernel = st.kernel
        if st.akernel is not None:
            if st.try_kernel is None:
                lines.append("        return handoff(locals(), %d)" % i)
                fetched = None
                break
            kernel = st.try_kernel
        env["k%d" % i], env["o%d" % i] = kernel, st.op
        call = "k%d(ctx, o%d%s)" % (i, i, "".join(", " + ref(x) for x in st.ins))
        lines.append("        n = %d" % i)
        if len(st.outs) == 1:
            line = "s%d = %s[0]" % (st.outs[0], call)
        elif not st.outs:
            line = call
        else:
            line = "%s, = %s" % (", ".join("s%d" % o for o in st.outs), call)
        if st.akernel is not None:
            lines += ["        try:", "            " + line, "        except WouldBlock:",
                      "            return handoff(locals(), %d)" % i]
        else:
            lines.append("        " + line)
        dead = [x for x in dict.fromkeys(st.ins) if last[x] == i and x not in keep
                and (x in fed or init[x] is None)]
        if dead:
            lines.append("        del %s" % ", ".join("s%d" % x for x in dead))
    if fetched is not None:
        lines.append("        return %s" % ("(None, %s)" % fetched if plan.blocking
                                              else fetched))
    lines.append("    except Exception as e:")
    lines.append("        if n < 0:")
    lines.append("            raise")
    lines.append("        raise op_error(e, OPS[n]) from (None if isinstance(e, OpError) else e)")
    env["OPS"] = tuple(st.op for st in plan.steps)
    code = compile("\n".join(lines), "<flowrt plan of %d steps>" % len(plan.steps), "exec")
    exec(code, env)
    return env["run"]


_NO_CONTEXT = contextlib.nullcontext()


def _compiled(plan):
    """The plan's compiled function, compiled on its ``COMPILE_AFTER_RUNS``-th run."""
    fn = plan.sync_fn
    if fn is None:
        plan.runs += 1
        if plan.runs >= COMPILE_AFTER_RUNS:
            fn = plan.sync_fn = compile_sync(plan)
    return fn


def _call_compiled(plan, fn, ctx, feed_values):
    if not plan.numeric:
        return fn(ctx, feed_values)
    with np.errstate(all="ignore"):
        return fn(ctx, feed_values)


def _initial_vals(plan, feed_values) -> list:
    vals = list(plan.init)
    for s, v in zip(plan.feed_slots, feed_values):
        vals[s] = v
    return vals


def _store(vals, st, res):
    outs = st.outs
    if len(outs) == 1:
        vals[outs[0]] = res[0]
    else:
        for o, r in zip(outs, res):
            vals[o] = r


def run_prefix(plan, ctx: RunContext, feed_values, vals=None, start: int = 0):
    """Runs a blocking plan on the calling thread as far as it goes without blocking.

    Steps run in order; blocking steps through their ``try_kernel``. Returns
    ``(None, fetched)`` when the plan completed, or ``(vals, k)`` when step ``k`` would
    block: nothing of step ``k`` happened, and ``resume`` continues from there on the
    trio loop. (Any order of completed steps is one the concurrent executor could
    have taken, so the result is the same.) With ``vals`` and ``start`` it tries again
    from step ``start`` of an earlier attempt.
    """
    if vals is None:
        fn = _compiled(plan)
        if fn is not None and ctx.stats is None:
            return _call_compiled(plan, fn, ctx, feed_values)
        vals = _initial_vals(plan, feed_values)
    stats = ctx.stats
    with np.errstate(all="ignore") if plan.numeric else _NO_CONTEXT:
        for st in plan.steps[start:]:
            t0 = time.perf_counter() if stats is not None else 0.0
            try:
                if st.akernel is None:
                    res = st.kernel(ctx, st.op, *[vals[i] for i in st.ins])
                elif st.try_kernel is None:
                    return vals, st.index
                else:
                    try:
                        res = st.try_kernel(ctx, st.op, *[vals[i] for i in st.ins])
                    except trio.WouldBlock:
                        return vals, st.index
            except Exception as e:  # noqa: BLE001
                raise op_error(e, st.op) from (None if isinstance(e, errors.OpError) else e)
            if stats is not None:
                stats.append((st.op, t0, time.perf_counter()))
            _store(vals, st, res)
    return None, [vals[s] for s in plan.fetch_slots]


async def resume(plan, ctx: RunContext, vals: list, k: int) -> list:
    """Runs steps ``k``.. of a plan after ``run_prefix`` stopped at step ``k``.

    With one blocking step left, in order in this task, awaiting it in place (a run
    cannot then wait on itself); with several, concurrently (``run_async``), since one
    may wait for another of the same run.
    """
    if plan.blocking_after[k] > 1:
        return await run_async(plan, ctx, None, vals, k)
    return await _resume_in_order(plan, ctx, vals, k)


async def _resume_in_order(plan, ctx: RunContext, vals: list, k: int) -> list:
    stats = ctx.stats
    for st in plan.steps[k:]:
        t0 = time.perf_counter() if stats is not None else 0.0
        try:
            with np.errstate(all="ignore") if plan.numeric else _NO_CONTEXT:
                if st.akernel is None:
                    res = st.kernel(ctx, st.op, *[vals[i] for i in st.ins])
                else:
                    ctx.waiting = st.op
                    res = await st.akernel(ctx, st.op, *[vals[i] for i in st.ins])
                    ctx.waiting = None
        except trio.Cancelled:
            raise
        except Exception as e:  # noqa: BLE001
            raise op_error(e, st.op) from (None if isinstance(e, errors.OpError) else e)
        if stats is not None:
            stats.append((st.op, t0, time.perf_counter()))
        _store(vals, st, res)
    return [vals[s] for s in plan.fetch_slots]


async def run_async(plan, ctx: RunContext, feed_values, vals=None, start: int = 0) -> list:
    """Runs a plan on trio: ops fire as their inputs become ready.

    With ``vals`` and ``start``, steps before ``start`` have already run (``run_prefix``)
    and their outputs are in ``vals``; the rest runs from there.
    """
    if vals is None:
        vals = _initial_vals(plan, feed_values)
    pending = list(plan.npred)
    steps = plan.steps
    stats = ctx.stats
    roots = plan.roots
    if start:
        for st in steps[:start]:
            for j in st.succ:
                pending[j] -= 1
        roots = [j for j in range(start, len(steps)) if pending[j] == 0]

    def finish(st, res):
        _store(vals, st, res)
        ready = []
        for j in st.succ:
            pending[j] -= 1
            if pending[j] == 0:
                ready.append(j)
        return ready

    def drive(ready, nursery):
        while ready:
            st = steps[ready.pop()]
            if st.akernel is not None:
                nursery.start_soon(run_blocking, st, nursery, name=st.op.name)
                continue
            t0 = time.perf_counter() if stats is not None else 0.0
            try:
                with np.errstate(all="ignore"):
                    res = st.kernel(ctx, st.op, *[vals[i] for i in st.ins])
            except Exception as e:  # noqa: BLE001
                raise op_error(e, st.op) from (None if isinstance(e, errors.OpError) else e)
            if stats is not None:
                stats.append((st.op, t0, time.perf_counter()))
            ready.extend(finish(st, res))

    async def run_blocking(st, nursery):
        t0 = time.perf_counter() if stats is not None else 0.0
        try:
            res = await st.akernel(ctx, st.op, *[vals[i] for i in st.ins])
        except trio.Cancelled:
            raise
        except Exception as e:  # noqa: BLE001
            raise op_error(e, st.op) from (None if isinstance(e, errors.OpError) else e)
        if stats is not None:
            stats.append((st.op, t0, time.perf_counter()))
        drive(finish(st, res), nursery)

    try:
        async with trio.open_nursery() as nursery:
            drive(list(reversed(roots)), nursery)
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
