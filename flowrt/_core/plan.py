"""Pruning a graph to what one run needs, and the compiled, cacheable plan for it.

A plan is built once per (fetches, feeds, targets) signature: the ops reachable
backwards from the fetches and targets (through data and control edges, cut at fed
tensors) in a topological order, each output given a slot in a flat value list.
Constants with no control inputs are pre-filled instead of run. The executor only
walks this list; nothing here is recomputed per run.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np

from .executor import Runnable
from .fusion import fuse_steps
from .graph import Graph, Operation, Tensor
from .lazy_constant import value_of
from .plan_body import compile_plan
from .registry import get_op_def, kernel_of
from .token_policy import heavy_kernel
from .waiting import on_worker_thread

__all__ = ["Plan", "PlanCache", "Step", "prune", "fuses"]


def prune(
    fetch_tensors: Sequence[Tensor], target_ops: Sequence[Operation], fed: set
) -> list[Operation]:
    """The ops a run needs, in a topological order (producers before consumers).

    ``fed`` holds the fed tensors; the subgraph above a fed tensor is cut off unless
    something else needs it. Creation order is topological (an op's inputs and control
    inputs exist before it), so sorting by creation id orders the pruned set; graphs
    that had control inputs added after creation are ordered by Kahn's algorithm.
    """
    needed: set[Operation] = set()
    stack = [t.op for t in fetch_tensors if t not in fed]
    stack.extend(target_ops)
    add = needed.add
    while stack:
        op = stack.pop()
        if op in needed:
            continue
        add(op)
        for t in op.inputs:
            if t.op not in needed and t not in fed:
                stack.append(t.op)
        for c in op.control_inputs:
            if not _fed_placeholder(c, fed):
                stack.append(c)
    if needed and next(iter(needed)).graph._late_control_inputs:
        return _topo_order(needed, fed)
    return sorted(needed, key=_op_id)


def _fed_placeholder(op: Operation, fed: set[Tensor]) -> bool:
    """A fed placeholder satisfies a control dependency on it (TF replaces the node by
    the feed, control edges included); other fed ops still run for their control
    users."""
    return op.type in ("Placeholder", "PlaceholderV2") and op.outputs[0] in fed


def _op_id(op: Operation) -> int:
    return op._id


def _topo_order(needed: set, fed: set) -> list[Operation]:
    indeg = {}
    users: dict[Operation, list] = {op: [] for op in needed}
    for op in needed:
        n = 0
        for t in op.inputs:
            if t not in fed:
                users[t.op].append(op)
                n += 1
        for c in op.control_inputs:
            if not _fed_placeholder(c, fed):
                users[c].append(op)
                n += 1
        indeg[op] = n
    ready = sorted((op for op, n in indeg.items() if n == 0), key=_op_id, reverse=True)
    order = []
    while ready:
        op = ready.pop()
        order.append(op)
        for u in users[op]:
            indeg[u] -= 1
            if indeg[u] == 0:
                ready.append(u)
    if len(order) != len(needed):
        stuck = [op.name for op, n in indeg.items() if n > 0][:3]
        raise ValueError("the graph has a cycle through %s" % ", ".join(stuck))
    return order


# Constant folding keeps results up to this many elements in the plan.
FOLD_MAX_ELEMENTS = 1 << 16


def _fold(d: Any, op: Operation, values: list[Any]) -> list[Any] | None:
    """The outputs of a pure op whose inputs are all constants, computed once when the
    plan is built (as TF's constant folding does), or None to leave it a step."""
    try:
        with np.errstate(all="ignore"):
            outs = d.kernel(None, op, *values)
    except Exception:  # the op then fails at run time, naming itself
        return None
    if len(outs) != len(op.outputs):
        return None
    res = []
    for v in outs:
        if isinstance(v, np.ndarray):
            if v.size > FOLD_MAX_ELEMENTS or v.dtype == object:
                return None
            v.flags.writeable = False  # fetched copies are made from it (Session)
        elif not isinstance(v, np.generic):
            return None
        res.append(v)
    return res


class Step:
    """One op in a plan: its kernel, input and output slots, and its successors."""

    __slots__ = ("op", "kernel", "blocking", "ins", "outs", "succ", "npred", "index")

    def __init__(
        self, op: Operation, d: Any, ins: tuple[int, ...], outs: tuple[int, ...], index: int
    ) -> None:
        self.op = op
        self.kernel, self.blocking = kernel_of(d, op)
        self.ins = ins
        self.outs = outs
        self.succ: list[int] = []
        self.npred = 0
        self.index = index


class Plan:
    """The compiled form of one run signature.

    ``ops``, if given, are exactly the ops to run, in topological order, instead of
    those pruned from the fetches and targets (a cluster run's part); control inputs
    outside them ran before the part. ``fuse`` applies the elementwise fusion rewrite
    (``fusion.py``; a session's ``RewriterConfig.remapping``, see ``fuses``).

    Attributes:
      steps: Steps in topological order.
      init: the initial value list (pre-filled constants, None elsewhere).
      feed_slots / fetch_slots: where fed values go and fetched values come from.
      blocking: True if some step may block (its kernel is a generator).
      straight: its blocking steps are totally ordered, so it runs as ``fn``.
      kernels: per step, the kernel the plan calls (``token_policy.heavy_kernel``: wrapped
        once, when the plan is built).
      fn: the body (``plan_body.compile_plan``) of a straight plan, else None.
      roots: indices of the steps with no predecessor (``run_concurrent``).
      npred: per step, how many predecessor steps it waits for.
    """

    def __init__(
        self,
        fetch_tensors: Sequence[Tensor],
        target_ops: Sequence[Operation],
        feed_tensors: Sequence[Tensor],
        ops: Sequence[Operation] | None = None,
        fuse: bool = True,
        overlap_calls: bool = False,
    ) -> None:
        fed = set(feed_tensors)
        n_fed = len(feed_tensors)
        if ops is None:
            ops = prune(fetch_tensors, target_ops, fed)
        slot: dict[Tensor, int] = {}
        init: list = [None] * len(feed_tensors)
        for i, t in enumerate(feed_tensors):
            slot[t] = i
        steps: list[Step] = []
        producer: dict[Operation, Step] = {}
        blocking = False
        consumed: set[Tensor] | None = None
        whole: set[Operation] = set()  # ops run as targets or control inputs: all outputs
        for op in ops:
            outs = op.outputs
            if op.type == "Const" and not op.control_inputs:
                v = value_of(op.attrs["value"], op)
                if outs[0] not in fed:
                    slot[outs[0]] = len(init)
                    # Numeric scalars as numpy scalars: their arithmetic is ~10x cheaper
                    # than on 0-d arrays, and results are numpy scalars either way.
                    init.append(v[()] if v.ndim == 0 and v.dtype.kind in "biuf" else v)
                continue
            d = get_op_def(op.type)
            ins = tuple(slot[t] for t in op.inputs)
            if (
                not d.stateful
                and d.kernel is not None
                and not d.extra.get("no_fold")
                and not op.control_inputs
                and all(init[i] is not None and i >= n_fed for i in ins)
            ):
                folded = _fold(d, op, [init[i] for i in ins])
                if folded is not None:
                    for t, v in zip(outs, folded):
                        if t not in fed:
                            slot[t] = len(init)
                        init.append(v)
                    continue
            out_slots = []
            for t in outs:
                # A fed output keeps its fed value; the kernel's goes to a scratch slot.
                if t not in fed:
                    slot[t] = len(init)
                out_slots.append(len(init))
                init.append(None)
            st = Step(op, d, ins, tuple(out_slots), len(steps))
            narrow = d.extra.get("narrow_outputs")
            if narrow is not None:
                # An op computing only the outputs this plan consumes (a cond's branch
                # runs just what they need): its registered kernel factory says how.
                if consumed is None:
                    consumed = set(fetch_tensors).union(*(o.inputs for o in ops))
                    whole = set(target_ops).union(*(o.control_inputs for o in ops))
                keep = frozenset(i for i, t in enumerate(outs) if t in consumed)
                if len(keep) < len(outs) and op not in whole:
                    st.kernel = narrow(st.kernel, keep)
            if st.blocking:
                blocking = True
            for t in op.inputs:
                p = producer.get(t.op)
                if p is not None and t not in fed:
                    p.succ.append(st.index)
                    st.npred += 1
            for c in op.control_inputs:
                p = producer.get(c)
                if p is not None:
                    p.succ.append(st.index)
                    st.npred += 1
            steps.append(st)
            producer[op] = st
        if overlap_calls and _overlap_opaque(steps):
            blocking = True
        self.feed_slots = tuple(range(len(feed_tensors)))
        self.fetch_slots = tuple(slot[t] for t in fetch_tensors)
        self.fetch_is_fed = tuple(t in fed for t in fetch_tensors)
        self.fetches_fed = any(self.fetch_is_fed)
        if fuse:
            steps = fuse_steps(steps, self.fetch_slots)  # elementwise fusion (fusion.py)
        self.steps = steps
        self.init = init
        self.blocking = blocking
        self.roots = tuple(st.index for st in steps if st.npred == 0)
        self.npred = [st.npred for st in steps]
        # Whether some kernel may compute in floating point (and so needs numpy's
        # warnings silenced, as TF is silent on inf/nan); queue plans usually do not.
        self.numeric = any(not get_op_def(st.op.type).extra.get("quiet") for st in steps)
        self.straight = _straight(steps)
        # Whether some kernel runs opaque user code (py_func): arun keeps it off the loop.
        self.opaque = any(get_op_def(st.op.type).extra.get("opaque") for st in steps)
        self.ops = ops
        self.seconds = 0.0  # running average of a run's compute time (executor.how)
        self.kernels = [heavy_kernel(st) for st in steps]
        # A concurrent plan's variable reads that die in the run (executor._Leases).
        self.concurrent_leases: Any = None
        self.fn = compile_plan(self) if self.straight else None
        self._traced_fn: Callable[..., Any] | None = None

    def body(self, traced: bool) -> Callable[..., Any]:
        """The body (``plan_body``), with per-step timing if ``traced`` (a straight plan)."""
        fn = self.traced_fn if traced else self.fn
        assert fn is not None, "a concurrent plan has no body"
        return fn

    @property
    def traced_fn(self) -> Callable[..., Any] | None:
        """The body with per-step timing (``RunOptions.FULL_TRACE``)."""
        if self._traced_fn is None and self.straight:
            self._traced_fn = compile_plan(self, traced=True)
        return self._traced_fn

    def __repr__(self) -> str:
        kind = "" if not self.blocking else " straight" if self.straight else " concurrent"
        return "<Plan %d steps%s>" % (len(self.steps), kind)


def fuses(ctx: Any) -> bool:
    """Whether the plans of ``ctx``'s run (a kernel's sub-plans too) fuse elementwise
    chains: as its session's ``ConfigProto`` says (``session_options.fuses``)."""
    return getattr(getattr(ctx, "session", None), "_fuse", True)


def _overlap_opaque(steps: list[Step]) -> bool:
    """Makes the opaque steps (py_funcs) of ``steps`` blocking ones that call on a
    worker thread when two of them are independent, so the plan runs them at once (as
    TF does: one may wait for the other); True if it did."""
    opaque = [st for st in steps if get_op_def(st.op.type).extra.get("opaque")]
    if len(opaque) < 2 or _straight([_Marked(st) for st in steps]):
        return False
    for st in opaque:
        st.kernel = on_worker_thread(st.kernel)
        st.blocking = True
    return True


class _Marked:
    """A step seen by ``_straight`` as blocking when it is opaque."""

    __slots__ = ("index", "succ", "blocking")

    def __init__(self, st: Step) -> None:
        self.index, self.succ = st.index, st.succ
        self.blocking = st.blocking or bool(get_op_def(st.op.type).extra.get("opaque"))


def _straight(steps: Sequence[Any]) -> bool:
    """Whether the blocking steps are totally ordered by the plan's dependencies, so
    that running the steps in order never waits on a step that comes later."""
    blocking = [st.index for st in steps if st.blocking]
    for a, b in zip(blocking, blocking[1:]):
        # b must be reachable from a: walk successors of a up to index b.
        seen, stack = set(), [a]
        while stack:
            i = stack.pop()
            if i == b:
                break
            for j in steps[i].succ:
                if j <= b and j not in seen:
                    seen.add(j)
                    stack.append(j)
        else:
            return False
    return True


Signature = tuple[tuple[Tensor, ...], tuple[Operation, ...], tuple[Tensor, ...]]


class PlanCache:
    """A session's plans by run signature, shared by its runs and ``explain``.

    A plan stays valid while the graph does not change: a new graph version empties
    the cache. Plans are built outside the cache's lock (a big one takes a while) and
    kept only if the graph did not change meanwhile, so a plan built from an older
    graph serves the run that built it but never a later one. A caller may keep
    entries of its own beside the plans (the session keeps, per fetch structure, its
    flattened fetches with their plan), emptied with them.
    """

    def __init__(self, graph: Graph, build: Callable[..., Runnable]) -> None:
        self._graph = graph
        self._build = build
        self._lock = threading.Lock()
        self._version = graph.version
        self._plans: dict[Signature, Runnable] = {}
        self._entries: dict[Hashable, Any] = {}

    def _current(self) -> int:
        """With the lock held: the graph's version, after emptying a stale cache."""
        version = self._graph.version
        if version != self._version:
            self._plans, self._entries = {}, {}
            self._version = version
        return version

    def entry(self, key: Hashable) -> tuple[Any, int]:
        """The caller's entry for ``key`` (None if none) and the graph version it is for.

        A hit takes no lock (a run's hot path): the version is read before the entries,
        and ``_current`` replaces the entries before the version, so an entry read here
        belongs to the version returned, or the version returned is already stale and
        nothing stored for it is kept (``keep_entry``)."""
        version = self._version
        entries = self._entries
        if version == self._graph.version:
            return entries.get(key), version
        with self._lock:
            version = self._current()
            return self._entries.get(key), version

    def keep_entry(self, key: Hashable, value: Any, version: int) -> None:
        """Keeps ``value`` for ``key`` if the graph is still at ``version`` (``entry``)."""
        with self._lock:
            if self._current() == version:
                self._entries[key] = value

    @staticmethod
    def signature(
        fetches: Sequence[Tensor], targets: Sequence[Operation], feeds: Sequence[Tensor]
    ) -> Signature:
        """The key of a run's plan: its fetched tensors, target ops and fed tensors."""
        return (tuple(fetches), tuple(targets), tuple(feeds))

    def get(
        self, fetches: Sequence[Tensor], targets: Sequence[Operation], feeds: Sequence[Tensor]
    ) -> Runnable | None:
        """The cached plan of this signature, or None (nothing is built)."""
        key = self.signature(fetches, targets, feeds)
        with self._lock:
            self._current()
            return self._plans.get(key)

    def plan(
        self, fetches: Sequence[Tensor], targets: Sequence[Operation], feeds: Sequence[Tensor]
    ) -> tuple[Runnable, int]:
        """The plan of this signature, built (and cached) on a miss, and the graph
        version it was looked up at."""
        key = self.signature(fetches, targets, feeds)
        with self._lock:
            version = self._current()
            plan = self._plans.get(key)
        if plan is None:
            plan = self._build(*key)
            with self._lock:
                if self._current() == version:
                    plan = self._plans.setdefault(key, plan)
        return plan, version

    def plans(self) -> list[tuple[Signature, Runnable]]:
        """Every cached ``(signature, plan)``."""
        with self._lock:
            self._current()
            return list(self._plans.items())
