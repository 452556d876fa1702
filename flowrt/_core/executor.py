"""Running a plan: one compiled body for straight plans, a readiness loop for the rest.

A plan whose blocking steps are totally ordered by its dependencies is *straight*
(every pipeline plan): it is compiled, when built, to one Python function of
straight-line kernel calls. Without blocking steps that function is the whole run, on
the caller's thread. With them it is a generator: a blocking step runs its kernel
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
from .registry import get_op_def
from .run_context import RunContext
from .token import TOKEN
from .token_policy import heavy_kernel
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


def op_error(exc: BaseException, op) -> errors.OpError:
    """Wraps a kernel's plain exception as InvalidArgumentError naming the op."""
    if isinstance(exc, errors.OpError):
        if exc.op is None:
            exc.op = op
        return exc
    if isinstance(exc, MemoryError) or (
        isinstance(exc, ValueError) and "larger than the maximum possible size" in str(exc)
    ):
        return errors.ResourceExhaustedError(
            None,
            op,
            "%s: OOM when allocating the op's output (%s)"
            % (op.describe(), str(exc) or "MemoryError"),
        )
    msg = str(exc) or type(exc).__name__
    return errors.InvalidArgumentError(None, op, "%s: %s" % (op.describe(), msg))


def compile_plan(plan, traced: bool = False):
    """Compiles a straight plan to one Python function ``run(ctx, feeds)``.

    Each step becomes ``s7 = k3(ctx, o3, s2, s5)[0]`` with kernels, ops and constants
    bound as globals of the generated code: no per-step list indexing or loop overhead
    remains. A blocking step becomes ``s7, = yield from k3(...)``, which makes the
    function a generator for ``waiting.drive_sync``/``drive_async``. Each value is
    dropped after its last use, so memory peaks lower. An error names its op, found
    from the line of the call that raised. ``traced`` adds each step's timing, outputs
    and runner to ``ctx.stats`` (``record``) and each wait of a blocking step
    (``timed_waits``); the untraced body has none of it.
    """
    init = plan.init
    env = {
        "op_error": op_error,
        "OpError": errors.OpError,
        "clock": time.perf_counter,
        "OPS": tuple(st.op for st in plan.steps),
        "record": record,
        "timed": timed_waits,
    }
    fed = set(plan.feed_slots)

    def ref(slot):
        if slot in fed or init[slot] is None:
            return "s%d" % slot
        name = "c%d" % slot
        env[name] = init[slot]
        return name

    body = []
    if traced:
        # One thread or task runs the whole body (a generator stays with its driver).
        body += ["stats = ctx.stats", "who = runner_name()"]
        env["runner_name"] = runner_name
    body += ["s%d = feeds[%d]" % (slot, j) for j, slot in enumerate(plan.feed_slots)]
    last = {}
    for i, st in enumerate(plan.steps):
        for x in st.ins:
            last[x] = i
    keep = set(plan.fetch_slots)
    leases = _leases(plan, last, keep)
    checks: dict[int, list] = {}  # step -> [(lease, slot of an alias)] to compare outputs
    releases: dict[int, list] = {}  # step -> leases handed back after it
    for i, lease in leases.items():
        for j, slot in lease["checks"]:
            checks.setdefault(j, []).append((i, slot))
        releases.setdefault(lease["end"], []).append(i)
    if checks:
        env["may_share"] = np.may_share_memory
    at: dict[int, int] = {}  # body line -> step whose kernel call it is
    for i, st in enumerate(plan.steps):
        env["k%d" % i], env["o%d" % i] = heavy_kernel(st), st.op
        call = "k%d(ctx, o%d%s)" % (i, i, "".join(", " + ref(x) for x in st.ins))
        if traced and st.blocking:
            call = "timed(%s, stats, o%d)" % (call, i)
        if traced:
            body.append("t0 = clock()")
        at[len(body)] = i
        if st.blocking:
            outs = "".join("s%d, " % o for o in st.outs)
            body.append("%s = yield from %s" % (outs or "_", call))
        elif len(st.outs) == 1:
            body.append("s%d = %s[0]" % (st.outs[0], call))
        elif not st.outs:
            body.append(call)
        else:
            body.append("%s, = %s" % (", ".join("s%d" % o for o in st.outs), call))
        if traced:
            body.append(
                "record(stats, o%d, t0, (%s), who)" % (i, "".join("s%d, " % o for o in st.outs))
            )
        if i in leases:
            # The read's value and handle, kept for handing the lease back.
            env["R%d" % i] = leases[i]["release"]
            body += [
                "V%d = s%d" % (i, st.outs[0]),
                "H%d = %s" % (i, ref(st.ins[0])),
                "e%d = False" % i,
            ]
        for r, slot in checks.get(i, ()):
            # An output sharing memory with the read's value escapes it: no release.
            body += [
                "if not e%d and (%s):"
                % (r, " or ".join("may_share(s%d, s%d)" % (o, slot) for o in st.outs)),
                "    e%d = True" % r,
            ]
        for r in releases.get(i, ()):
            body += ["if not e%d:" % r, "    R%d(H%d, V%d)" % (r, r, r), "del V%d, H%d" % (r, r)]
        dead = [
            x
            for x in dict.fromkeys(st.ins)
            if last[x] == i and x not in keep and (x in fed or init[x] is None)
        ]
        if dead:
            body.append("del %s" % ", ".join("s%d" % x for x in dead))
    body.append("return [%s]" % ", ".join(ref(s) for s in plan.fetch_slots))
    lines = ["def run(ctx, feeds):", "    try:"]
    if plan.numeric:
        # TF is silent on inf/nan: so are the kernels (queue-only plans skip the cost).
        lines.append("      with errstate(all='ignore'):")
        env["errstate"] = np.errstate
        indent = "        "
    else:
        indent = "      "
    # The step that failed is found from the line its call raised at (a line per step
    # costs nothing at run time; tracking a counter would).
    env["STEP_AT"] = {len(lines) + 1 + k: i for k, i in at.items()}
    lines += [indent + b for b in body]
    lines += [
        "    except Exception as e:",
        "        n = STEP_AT.get(e.__traceback__.tb_lineno)",
        "        if n is None:",
        "            raise",
        "        raise op_error(e, OPS[n]) from (None if isinstance(e, OpError) else e)",
    ]
    code = compile("\n".join(lines), "<flowrt plan of %d steps>" % len(plan.steps), "exec")
    exec(code, env)
    return env["run"]


def _leases(plan, last: dict, keep: set) -> dict:
    """The variable reads of a straight plan whose values provably die within the run.

    A read's value may be handed back (the variable may then be updated in place) when
    neither it nor an alias of it (an output of an ``aliases`` op such as Identity or
    Reshape) is fetched or reaches a stateful or blocking op. Every other op is taken
    to return fresh arrays, and the compiled code checks that at run time: an output
    sharing memory with the value cancels the hand-back. Returns, per read step, its
    release function, the (step, alias slot) pairs whose outputs to check, and the step
    after which the value and its aliases are dead.
    """
    steps = plan.steps
    users: dict[int, list] = {}
    for j, st in enumerate(steps):
        for x in dict.fromkeys(st.ins):
            users.setdefault(x, []).append(j)
    out = {}
    for i, st in enumerate(steps):
        release = None if st.blocking else get_op_def(st.op.type).extra.get("lease")
        if release is None:
            continue
        aliases, checks, end, escaped = [st.outs[0]], [], i, False
        k = 0
        while k < len(aliases) and not escaped:
            slot = aliases[k]
            k += 1
            if slot in keep:
                escaped = True
                break
            end = max(end, last.get(slot, i))
            for j in users.get(slot, ()):
                d = get_op_def(steps[j].op.type)
                if d.stateful or steps[j].blocking:
                    escaped = True
                    break
                if d.extra.get("aliases"):
                    aliases.extend(steps[j].outs)
                    end = max(end, j)
                else:
                    checks.append((j, slot))
        if not escaped:
            out[i] = {"release": release, "checks": checks, "end": end}
    return out


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
