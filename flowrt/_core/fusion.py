"""Elementwise fusion: a plan rewrite that turns a tree of elementwise steps into one.

A group is grown backwards from a root step through producers whose every consumer
(data and control) is already in the group and whose output is not fetched; every
member has a block form (``OpDef.ufunc``: ``f(*inputs, out=)``) and works on one float
dtype (float32 or float64, known statically). The group becomes one step whose kernel
runs the members as one ``elementwise.Program`` over cache-sized blocks: each block's
intermediates stay in cache, so the chain reads and writes main memory once, and large
arrays share their blocks between threads. Below ``FUSED_MIN_SIZE`` elements, or when
the values are not uniformly of the group's dtype, the fused step runs the original
kernels one by one instead. Both forms compute each member with its block form or its
kernel, which give the same values, so a result does not depend on its size; an error
in the fused form surfaces (as the member op's ``OpError``). A session built with
``RewriterConfig.remapping = OFF`` (``session_options``) plans without this rewrite.
See ``docs/fusion.md`` for the design and the measurements behind the threshold.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from .codegen import Source
from .elementwise import Program, broadcast_shape
from .registry import get_op_def

if TYPE_CHECKING:
    from .plan import Step

__all__ = ["fuse_steps", "FusedKernel", "FUSED_MIN_SIZE"]

# From this many elements (the largest input) the fused program runs; below it the
# member kernels one by one are as fast or faster (numpy's scalar and small-array fast
# paths against the program's per-instruction dispatch; benchmarks/elementwise.py,
# docs/fusion.md).
FUSED_MIN_SIZE = 1 << 17

# The builtin dtypes are singletons: membership and identity tests suffice.
_FLOATS = {np.dtype(np.float32): np.dtype(np.float32), np.dtype(np.float64): np.dtype(np.float64)}


def _fusible(st: Step) -> np.dtype | None:
    """The float dtype of a step that may join a group, else None."""
    if st.blocking or len(st.outs) != 1:
        return None
    op = st.op
    d = get_op_def(op.type)
    if d.ufunc is None or st.kernel is not d.kernel:
        return None
    out = op.outputs[0]
    n = out.shape.num_elements()
    if n is not None and n < FUSED_MIN_SIZE:
        return None  # statically too small ever to take the fused path
    dt: Any = _FLOATS.get(out.dtype.np)
    if dt is None or any(t.dtype.np is not dt for t in op.inputs):
        return None
    return dt


class _Group:
    __slots__ = ("root", "members", "dtype")

    def __init__(self, root: Step, dtype: np.dtype) -> None:
        self.root = root
        self.members = {root.index: root}
        self.dtype = dtype


def _program(members: list[Step]) -> tuple[Program, list[int]]:
    """The group's program (members in plan order) and its external input slots, in
    first-use order."""
    ext: list[int] = []
    result_of: dict[int, int] = {}  # member's output slot -> its instruction index
    instrs: list[Any] = []
    for st in members:
        args = []
        for s in st.ins:
            if s in result_of:
                args.append(-1 - result_of[s])
            else:
                if s not in ext:
                    ext.append(s)
                args.append(ext.index(s))
        result_of[st.outs[0]] = len(instrs)
        instrs.append((get_op_def(st.op.type).ufunc, args))
    n = len(ext)
    instrs = [(fn, [a if a >= 0 else n + (-1 - a) for a in args]) for fn, args in instrs]
    return Program(instrs, n, [st.op for st in members]), ext


def _grow(
    group: _Group,
    producer: dict[int, Step],
    readers: dict[int, list[int]],
    fetched: set[int],
    fusible: dict[int, np.dtype],
) -> None:
    """Adds producers whose every consumer is in the group."""
    changed = True
    while changed:
        changed = False
        for st in list(group.members.values()):
            for s in st.ins:
                p = producer.get(s)
                # (compare with `is`: numpy treats dtype == None as dtype == float64)
                if (
                    p is None
                    or p.index in group.members
                    or fusible.get(p.index) is not group.dtype
                    or s in fetched
                ):
                    continue
                if any(r not in group.members for r in readers[s]):
                    continue
                if any(j not in group.members for j in p.succ):
                    continue
                group.members[p.index] = p
                changed = True


class FusedKernel:
    """The kernel of a fused step: ``(ctx, op, *external_inputs) -> (result,)``."""

    def __init__(
        self,
        members: list[Step],
        ext_slots: Sequence[int],
        out_slot: int,
        dtype: np.dtype,
        program: Program,
    ) -> None:
        self.members = tuple((st.kernel, st.op, st.ins, st.outs[0]) for st in members)
        self.ext_slots = tuple(ext_slots)
        self.out_slot = out_slot
        self.dtype = dtype
        self.program = program
        self.ops = tuple(st.op for st in members)
        self.unfused = _straight_line(self.members, self.ext_slots, out_slot)

    def __call__(self, ctx: Any, op: Any, *xs: Any) -> tuple[Any]:
        dt = self.dtype
        big = False
        for x in xs:
            if getattr(x, "dtype", None) is not dt:
                return self.unfused(ctx, xs)
            if x.size >= FUSED_MIN_SIZE:
                big = True
        if not big:
            return self.unfused(ctx, xs)
        try:
            shape = broadcast_shape(xs)
        except ValueError:
            # Shapes that do not broadcast (unknown static dims let them through): the
            # members' kernels raise, naming the member whose inputs they are.
            return self.unfused(ctx, xs)
        return (self.program(xs, dt, shape),)

    def __repr__(self) -> str:
        return "<FusedKernel %d ops: %s>" % (len(self.members), " ".join(o.type for o in self.ops))


_Member = tuple[Any, Any, tuple[int, ...], int]  # (kernel, op, input slots, output slot)


def _straight_line(
    members: tuple[_Member, ...], ext_slots: tuple[int, ...], out_slot: int
) -> Callable[..., tuple[Any]]:
    """``unfused(ctx, xs) -> (result,)``: the members' own kernels in order, as straight-line
    code (cheaper than a loop over the members: docs/fusion.md); each intermediate is dropped at its
    last use, as in the unfused plan, so numpy reuses its memory instead of faulting in
    fresh pages. A failure names the member op (``codegen``)."""
    src = Source("fused group of %d ops" % len(members), "def unfused(ctx, xs):")
    last = {}
    for i, (_, _, ins, _) in enumerate(members):
        for x in ins:
            last[x] = i
    src.line("%s, = xs" % ", ".join("s%d" % x for x in ext_slots))
    src.line("del xs")
    for i, (kernel, op, ins, out) in enumerate(members):
        src.bind("k%d" % i, kernel)
        src.bind("o%d" % i, op)
        src.line("s%d = k%d(ctx, o%d%s)[0]" % (out, i, i, "".join(", s%d" % x for x in ins)), op)
        dead = [x for x in dict.fromkeys(ins) if last[x] == i and x != out_slot]
        if dead:
            src.line("del %s" % ", ".join("s%d" % x for x in dead))
    src.line("return (s%d,)" % out_slot)
    return src.build()


def fuse_steps(steps: list[Step], fetch_slots: Sequence[int]) -> list[Step]:
    """The plan's steps with each fusible elementwise group replaced by one step.

    ``steps`` are in topological order with ``succ``/``npred`` filled in; the result is
    too, renumbered. A step keeps the (kernel, op, ins, outs) contract: a fused step's
    op is its root (last) op, its ins are the group's external input slots.
    """
    if len(steps) < 2:
        return steps
    fusible = {}
    for st in steps:
        dt = _fusible(st)
        if dt is not None:
            fusible[st.index] = dt
    if len(fusible) < 2:
        return steps
    producer = {st.outs[0]: st for st in steps if len(st.outs) == 1}
    readers: dict[int, list[int]] = {}
    for st in steps:
        for s in st.ins:
            readers.setdefault(s, []).append(st.index)
    fetched = set(fetch_slots)

    owner: dict[int, _Group] = {}
    groups = []
    for st in reversed(steps):
        if st.index in owner or st.index not in fusible:
            continue
        g = _Group(st, fusible[st.index])
        _grow(g, producer, readers, fetched, fusible)
        for i in g.members:
            owner[i] = g
        if len(g.members) > 1:
            groups.append(g)
    if not groups:
        return steps

    from .plan import Step  # plan imports this module

    fused = {}
    root_of: dict[int, int] = {}  # member's old index -> its fused root's old index
    for g in groups:
        members = sorted(g.members.values(), key=lambda s: s.index)
        program, ext = _program(members)
        root = g.root
        st = Step(root.op, get_op_def(root.op.type), tuple(ext), root.outs, -1)
        st.kernel = FusedKernel(members, ext, root.outs[0], g.dtype, program)
        fused[root.index] = st
        for i in g.members:
            root_of[i] = root.index
    if not fused:
        return steps
    # A fused step sits at its root's position: all its external inputs are produced
    # earlier, and every consumer of a member's output other than the root's is a member.
    out: list = []
    new_index: dict[int, int] = {}
    for pos, st in enumerate(steps):
        r = root_of.get(pos)
        if r is not None and r != pos:
            continue
        new_index[pos] = len(out)
        out.append(fused[pos] if r is not None else st)
    for i, r in root_of.items():
        new_index[i] = new_index[r]
    succ: list[set[int]] = [set() for _ in out]
    for pos, st in enumerate(steps):
        a = new_index[pos]
        succ[a].update(new_index[j] for j in st.succ)
    for a, nst in enumerate(out):
        nst.index = a
        succ[a].discard(a)
        nst.succ = sorted(succ[a])
        nst.npred = 0
    for nst in out:
        for j in nst.succ:
            out[j].npred += 1
    return out
