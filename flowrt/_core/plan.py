"""Pruning a graph to what one run needs, and the compiled, cacheable plan for it.

A plan is built once per (fetches, feeds, targets) signature: the ops reachable
backwards from the fetches and targets (through data and control edges, cut at fed
tensors) in a topological order, each output given a slot in a flat value list.
Constants with no control inputs are pre-filled instead of run. The executor only
walks this list; nothing here is recomputed per run.
"""

from __future__ import annotations

from typing import Sequence

from .graph import Operation, Tensor
from .registry import get_op_def


def prune(fetch_tensors: Sequence[Tensor], target_ops: Sequence[Operation],
          fed: set) -> list[Operation]:
    """The ops a run needs, in a topological order (producers before consumers).

    ``fed`` holds the fed tensors; the subgraph above a fed tensor is cut off unless
    something else needs it.
    """
    needed: dict[Operation, None] = {}
    stack = [t.op for t in fetch_tensors if t not in fed] + list(target_ops)
    while stack:
        op = stack.pop()
        if op in needed:
            continue
        needed[op] = None
        for t in op.inputs:
            if t not in fed and t.op not in needed:
                stack.append(t.op)
        for c in op.control_inputs:
            if c not in needed:
                stack.append(c)
    return _topo_order(needed, fed)


def _topo_order(needed: dict, fed: set) -> list[Operation]:
    indeg = {}
    users: dict[Operation, list] = {op: [] for op in needed}
    for op in needed:
        n = 0
        for t in op.inputs:
            if t not in fed:
                users[t.op].append(op)
                n += 1
        for c in op.control_inputs:
            users[c].append(op)
            n += 1
        indeg[op] = n
    ready = sorted((op for op, n in indeg.items() if n == 0), key=lambda o: o._id)
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


class Step:
    """One op in a plan: its kernel, input and output slots, and its successors."""

    __slots__ = ("op", "kernel", "akernel", "ins", "outs", "succ", "npred", "index")

    def __init__(self, op: Operation, ins: tuple, outs: tuple):
        d = get_op_def(op.type)
        self.op = op
        self.kernel = d.kernel
        self.akernel = d.akernel
        self.ins = ins
        self.outs = outs
        self.succ: list[int] = []
        self.npred = 0
        self.index = -1


class Plan:
    """The compiled form of one run signature.

    Attributes:
      steps: Steps in topological order.
      init: the initial value list (pre-filled constants, None elsewhere).
      feed_slots / fetch_slots: where fed values go and fetched values come from.
      blocking: True if some step may block (has an async kernel).
      roots: indices of the steps with no predecessor in the plan.
    """

    def __init__(self, fetch_tensors, target_ops, feed_tensors):
        fed = set(feed_tensors)
        ops = prune(fetch_tensors, target_ops, fed)
        slot: dict[Tensor, int] = {}
        init: list = []

        def slot_of(t):
            s = slot.get(t)
            if s is None:
                s = slot[t] = len(init)
                init.append(None)
            return s

        self.feed_slots = tuple(slot_of(t) for t in feed_tensors)
        steps: list[Step] = []
        producer: dict[Operation, Step] = {}
        for op in ops:
            if op.type == "Const" and not op.control_inputs:
                init[slot_of(op.outputs[0])] = op.attrs["value"]
                continue
            ins = tuple(slot_of(t) for t in op.inputs)
            outs = tuple(slot_of(t) for t in op.outputs)
            st = Step(op, ins, outs)
            st.index = len(steps)
            steps.append(st)
            producer[op] = st
        for st in steps:
            preds = [producer.get(t.op) for t in st.op.inputs if t not in fed]
            preds += [producer.get(c) for c in st.op.control_inputs]
            for p in preds:
                if p is not None:
                    p.succ.append(st.index)
                    st.npred += 1
        self.fetch_slots = tuple(slot_of(t) for t in fetch_tensors)
        self.steps = steps
        self.init = init
        self.blocking = any(st.akernel is not None for st in steps)
        self.roots = tuple(st.index for st in steps if st.npred == 0)
        self.npred = [st.npred for st in steps]
        self.ops = ops
        # Flat tuples for the sync loop: no attribute lookups per step.
        self.sync_steps = tuple((st.kernel, st.op, st.ins, st.outs[0] if len(st.outs) == 1
                                 else st.outs) for st in steps)

    def __repr__(self):
        return "<Plan %d steps%s>" % (len(self.steps), " blocking" if self.blocking else "")
