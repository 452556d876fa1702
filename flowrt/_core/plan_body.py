"""The body of a straight plan: interpreted while it is cold, compiled once it is hot.

``compile_plan(plan)`` returns the ``fn(ctx, feeds)`` a straight plan runs: the whole
run with no blocking step, else a generator that ``waiting.drive_sync``/``drive_async``
drive (a blocking step runs its kernel with ``yield from``). Its first runs walk the
plan's steps in a loop; from run ``COMPILE_AFTER_RUNS`` on it is one generated function
of straight-line kernel calls (``s7 = k3(ctx, o3, s2, s5)[0]``, kernels, ops and
constants bound as globals), built by ``codegen.Source``. Compiling a step costs
about what forty interpreted runs of it lose against the compiled form, so the body
compiles when its interpreted runs have lost that much (as a ski rental: never more
than twice the better choice); a plan that runs once (a large graph's first run, a
one-off initialisation) never pays it (``docs/executor.md`` has the measurements).
Both forms run the same steps in the same order, drop each value after its last use
(memory peaks lower), hand variable leases back at the same point, and name a failing
op the same way (``codegen.op_error``). A fed numeric 0-d array is computed on as its
numpy scalar, as the plan keeps constants. A traced run (``RunOptions.FULL_TRACE``)
always takes the loop, which times each step (``tracing.record``) and each wait of a
blocking step (``tracing.timed_waits``).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Generator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import errors
from .codegen import Source, op_error
from .registry import get_op_def
from .tracing import record, runner_name, timed_waits

if TYPE_CHECKING:
    from .plan import Plan, Step

__all__ = ["compile_plan", "leases_of", "Body", "Lease", "COMPILE_AFTER_RUNS"]

COMPILE_AFTER_RUNS = 40
"""Runs of a plan interpreted before its body is compiled (see the module docstring)."""

Fn = Callable[[Any, Sequence[Any]], Any]


class Lease:
    """A variable read whose value dies within the run: handed back after step ``end``
    (a concurrent run: once every step of ``users`` has run) unless an output sharing
    memory with it escapes (checked at steps ``checks``)."""

    __slots__ = ("release", "checks", "end", "users")

    def __init__(
        self,
        release: Callable[..., Any],
        checks: list[tuple[int, int]],
        end: int,
        users: set[int],
    ):
        self.release, self.checks, self.end, self.users = release, checks, end, users


class _Layout:
    """What both forms of the body need, derived once per plan: kernels, each slot's
    last use, the leases and, per step, what to do after its kernel returns."""

    __slots__ = ("kernels", "dead", "leases", "checks", "releases", "fed_at")

    def __init__(self, plan: Plan) -> None:
        steps = plan.steps
        init = plan.init
        fed = set(plan.feed_slots)
        keep = set(plan.fetch_slots)
        self.fed_at = {slot: j for j, slot in enumerate(plan.feed_slots)}
        last: dict[int, int] = {}
        for i, st in enumerate(steps):
            for x in st.ins:
                last[x] = i
        self.kernels = plan.kernels
        self.leases = leases_of(steps, last, keep)
        self.checks: dict[int, list[tuple[int, int]]] = {}  # step -> [(lease, alias slot)]
        self.releases: dict[int, list[int]] = {}  # step -> leases handed back after it
        for i, lease in self.leases.items():
            for j, slot in lease.checks:
                self.checks.setdefault(j, []).append((i, slot))
            self.releases.setdefault(lease.end, []).append(i)
        # Per step, the slots whose values die there (constants stay).
        self.dead: list[tuple[int, ...]] = [
            tuple(
                x
                for x in dict.fromkeys(st.ins)
                if last[x] == i and x not in keep and (x in fed or init[x] is None)
            )
            for i, st in enumerate(steps)
        ]


def leases_of(steps: Sequence[Step], last: dict[int, int], keep: set[int]) -> dict[int, Lease]:
    """The variable reads of a straight plan whose values provably die within the run.

    A read's value may be handed back (the variable may then be updated in place) when
    neither it nor an alias of it (an output of an ``aliases`` op such as Identity or
    Reshape) is fetched or reaches a stateful or blocking op. Every other op is taken
    to return fresh arrays, and the body checks that at run time: an output sharing
    memory with the value cancels the hand-back.
    """
    users: dict[int, list[int]] = {}
    for j, st in enumerate(steps):
        for x in dict.fromkeys(st.ins):
            users.setdefault(x, []).append(j)
    out = {}
    for i, st in enumerate(steps):
        release = None if st.blocking else get_op_def(st.op.type).extra.get("lease")
        if release is None:
            continue
        aliases, checks, end, escaped = [st.outs[0]], [], i, False
        seen: set[int] = set()
        k = 0
        while k < len(aliases) and not escaped:
            slot = aliases[k]
            k += 1
            if slot in keep:
                escaped = True
                break
            end = max(end, last.get(slot, i))
            for j in users.get(slot, ()):
                seen.add(j)
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
            out[i] = Lease(release, checks, end, seen)
    return out


def scalar(v: Any) -> Any:
    """A fed value as the body uses it: a numeric 0-d array as its numpy scalar, as the
    plan keeps constants (scalar arithmetic costs a tenth of the 0-d array path)."""
    if type(v) is np.ndarray and v.ndim == 0 and v.dtype.kind in "biuf":
        return v[()]
    return v


def _finish(gen: Generator[Any, Any, list[Any]]) -> list[Any]:
    """The result of a body with no blocking step (its generator never yields)."""
    try:
        gen.send(None)
    except StopIteration as stop:
        result: list[Any] = stop.value
        return result
    raise RuntimeError("a plan without blocking steps waited")  # a bug in the plan


def _interpret(
    plan: Plan, layout: _Layout, ctx: Any, feeds: Sequence[Any], traced: bool
) -> Generator[Any, Any, list[Any]]:
    """The plan's steps in a loop (a generator: blocking steps ``yield from``)."""
    vals = list(plan.init)
    for s, v in zip(plan.feed_slots, feeds):
        vals[s] = scalar(v)
    stats = ctx.stats if traced else None
    who = runner_name() if traced else ""
    leased: dict[int, list[Any]] = {}  # lease -> [value, handle, escaped]
    kernels, dead, leases = layout.kernels, layout.dead, layout.leases
    checks, releases = layout.checks, layout.releases
    guard = np.errstate(all="ignore") if plan.numeric else contextlib.nullcontext()
    t0 = 0.0
    with guard:
        for i, st in enumerate(plan.steps):
            op = st.op
            if stats is not None:
                t0 = time.perf_counter()
            try:
                if st.blocking:
                    gen = kernels[i](ctx, op, *[vals[x] for x in st.ins])
                    if stats is not None:
                        gen = timed_waits(gen, stats, op)
                    res = yield from gen
                else:
                    res = kernels[i](ctx, op, *[vals[x] for x in st.ins])
                outs = st.outs
                if len(outs) == 1:
                    vals[outs[0]] = res[0]
                else:
                    if len(res) != len(outs):
                        raise ValueError(
                            "the kernel returned %d outputs, expected %d" % (len(res), len(outs))
                        )
                    for o, r in zip(outs, res):
                        vals[o] = r
            except Exception as e:
                raise op_error(e, op) from (None if isinstance(e, errors.OpError) else e)
            if stats is not None:
                record(stats, op, t0, tuple(vals[o] for o in st.outs), who)
            if i in leases:
                leased[i] = [vals[st.outs[0]], vals[st.ins[0]], False]
            for r, slot in checks.get(i, ()):
                held = leased[r]
                if not held[2] and any(np.may_share_memory(vals[o], vals[slot]) for o in outs):
                    held[2] = True
            for r in releases.get(i, ()):
                value, handle, escaped = leased.pop(r)
                if not escaped:
                    leases[r].release(handle, value)
            for x in dead[i]:
                vals[x] = None
    fed = layout.fed_at
    return [feeds[fed[s]] if s in fed else vals[s] for s in plan.fetch_slots]


def _generate(plan: Plan, layout: _Layout) -> Fn:
    """The body as one generated function of straight-line kernel calls."""
    src = Source("plan of %d steps" % len(plan.steps), "def run(ctx, feeds):")
    init = plan.init
    fed = set(plan.feed_slots)

    def ref(slot: int) -> str:
        if slot in fed or init[slot] is None:
            return "s%d" % slot
        return src.bind("c%d" % slot, init[slot])

    if plan.feed_slots:
        src.bind("scalar", scalar)
    for j, slot in enumerate(plan.feed_slots):
        src.line("s%d = scalar(feeds[%d])" % (slot, j))
    if layout.checks:
        src.bind("may_share", np.may_share_memory)
    for i, st in enumerate(plan.steps):
        src.bind("k%d" % i, layout.kernels[i])
        src.bind("o%d" % i, st.op)
        call = "k%d(ctx, o%d%s)" % (i, i, "".join(", " + ref(x) for x in st.ins))
        if st.blocking:
            outs = "".join("s%d, " % o for o in st.outs)
            src.line("%s = yield from %s" % (outs or "_", call), st.op)
        elif len(st.outs) == 1:
            src.line("s%d = %s[0]" % (st.outs[0], call), st.op)
        elif not st.outs:
            src.line(call, st.op)
        else:
            src.line("%s, = %s" % (", ".join("s%d" % o for o in st.outs), call), st.op)
        lease = layout.leases.get(i)
        if lease is not None:
            # The read's value and handle, kept for handing the lease back.
            src.bind("R%d" % i, lease.release)
            src.line("V%d = s%d" % (i, st.outs[0]))
            src.line("H%d = %s" % (i, ref(st.ins[0])))
            src.line("e%d = False" % i)
        for r, slot in layout.checks.get(i, ()):
            # An output sharing memory with the read's value escapes it: no release.
            shared = " or ".join("may_share(s%d, s%d)" % (o, slot) for o in st.outs)
            src.line("if not e%d and (%s):" % (r, shared))
            src.line("    e%d = True" % r)
        for r in layout.releases.get(i, ()):
            src.line("if not e%d:" % r)
            src.line("    R%d(H%d, V%d)" % (r, r, r))
            src.line("del V%d, H%d" % (r, r))
        if layout.dead[i]:
            src.line("del %s" % ", ".join("s%d" % x for x in layout.dead[i]))
    fed_at = layout.fed_at  # a fetched feed comes back as fed (not as its scalar)
    src.line(
        "return [%s]"
        % ", ".join("feeds[%d]" % fed_at[s] if s in fed_at else ref(s) for s in plan.fetch_slots)
    )
    if not plan.numeric:  # TF is silent on inf/nan: so are the kernels (not queue plans)
        return src.build()
    src.bind("errstate", np.errstate)
    return src.build("errstate(all='ignore')")


class Body:
    """A straight plan's ``fn(ctx, feeds)``: interpreted, then compiled (module doc)."""

    __slots__ = ("plan", "runs", "compiled", "_layout")

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.runs = 0
        self.compiled: Fn | None = None
        self._layout: _Layout | None = None

    def layout(self) -> _Layout:
        if self._layout is None:
            self._layout = _Layout(self.plan)
        return self._layout

    def compile(self) -> Fn:
        """The generated form (built now if not yet)."""
        if self.compiled is None:
            self.compiled = _generate(self.plan, self.layout())
        return self.compiled

    def __call__(self, ctx: Any, feeds: Sequence[Any]) -> Any:
        fn = self.compiled
        if fn is None:
            self.runs += 1
            if self.runs < COMPILE_AFTER_RUNS:
                gen = _interpret(self.plan, self.layout(), ctx, feeds, False)
                return gen if self.plan.blocking else _finish(gen)
            fn = self.compile()
        return fn(ctx, feeds)


def compile_plan(plan: Plan, traced: bool = False) -> Fn:
    """The body of straight ``plan``; ``traced`` times each step and wait into
    ``ctx.stats`` (a loop: tracing is for looking, not for speed)."""
    body = Body(plan)
    if not traced:
        return body

    def run_traced(ctx: Any, feeds: Sequence[Any]) -> Any:
        gen = _interpret(plan, body.layout(), ctx, feeds, True)
        return gen if plan.blocking else _finish(gen)

    return run_traced
