"""Partitioning a run's ops by cluster task, in stages.

Placement follows TF1's placer where it matters for state:

* an op that takes a resource handle (a variable's, queue's or reader's) runs on the
  task of the op that made the handle (TF's resource colocation);
* a handle op (``VarHandleOp``, ``FIFOQueueV2``, a reader) runs on the task its
  device names (``/job:ps/task:1``), or the session's own task when it names none;
* an op without inputs and device whose control inputs all run on one task runs
  there too (a ``group``'s ``NoOp`` after a task's updates);
* any other op runs where its device names a task other than the session's; with no
  such device it runs in the client process itself (the session's own task does its
  stateless work in place, as a TF1 worker runs its own ops without an RPC).

A run then goes in stages. An op's stage is one more than the latest stage of an input
made on another task, so the parts of one stage never wait on each other's values: the
client sends each remote part its inputs in one actor call and runs its local part
meanwhile. Handle ops are not staged: each part that needs a handle makes its own
(``get_or_create`` of the same resource), since a live queue or variable cannot travel.
"""

from __future__ import annotations

import io
import pickle
from typing import Any

from .. import errors
from .._core.device_spec import DeviceSpec
from .._core.graph import Graph, Operation, Tensor
from .._core.registry import get_op_def

__all__ = ["Task", "LOCAL", "Part", "partition", "PartSpec", "build_part_graph"]

Task = tuple  # (job, index)
LOCAL: Task = ("", -1)  # the client process


def _is_handle(t: Tensor) -> bool:
    return t.dtype.name == "resource"


class Part:
    """The ops of one task in one stage, and the values crossing its boundary.

    Attributes:
      task: ``(job, index)``, or ``LOCAL``.
      stage: its stage number.
      ops: the part's ops in topological order (handle ops it needs included).
      inputs: tensors it takes from other parts (or the run's feeds), in order.
      outputs: tensors it hands on (to later parts, or fetched), in order.
    """

    __slots__ = ("task", "stage", "ops", "inputs", "outputs", "key")

    def __init__(self, task: Task, stage: int):
        self.task, self.stage = task, stage
        self.ops: list[Operation] = []
        self.inputs: list[Tensor] = []
        self.outputs: list[Tensor] = []
        self.key = ""

    def __repr__(self) -> str:
        where = "local" if self.task == LOCAL else "/job:%s/task:%d" % self.task
        return "<Part stage %d %s: %d ops>" % (self.stage, where, len(self.ops))


def _placed_task(op: Operation, cluster) -> Task | None:
    """The task ``op.device`` names (job defaulting to none, task to 0), or None."""
    if not op.device:
        return None
    spec = DeviceSpec.from_string(op.device)
    job = spec.job
    if job is None or job == "localhost":
        return None
    index = spec.task or 0
    if job not in cluster.jobs or index not in cluster.task_indices(job):
        known = ", ".join("/job:%s/task:%d" % (j, i) for j, i, _ in cluster.tasks())
        raise errors.InvalidArgumentError(
            None,
            op,
            "Cannot assign a device for operation %s: %s was explicitly assigned to "
            "%s but available devices are [ %s ]. Make sure the device specification "
            "refers to a valid device." % (op.name, op.type, op.device, known),
        )
    return (job, index)


def place(ops: list[Operation], fed: set, own: Task, cluster) -> dict[Operation, Task]:
    """Each op's task (``LOCAL`` for the client), by the rules of the module docstring."""
    where: dict[Operation, Task] = {}
    for op in ops:
        task = None
        for t in op.inputs:
            if _is_handle(t) and t not in fed:
                at = where.get(t.op) or _placed_task(t.op, cluster) or own
                if task is not None and at != task:
                    raise errors.InvalidArgumentError(
                        None,
                        op,
                        "Cannot colocate %s: it takes resources on /job:%s/task:%d and "
                        "/job:%s/task:%d" % ((op.name,) + task + at),
                    )
                task = at
        if task is None:
            placed = _placed_task(op, cluster)
            if any(_is_handle(t) for t in op.outputs):
                task = placed or own
            elif placed is not None and placed != own:
                task = placed
            elif placed is None and not op.inputs and op.control_inputs:
                # An op without inputs that waits only on ops of one task (a group's
                # NoOp, a Const after it) runs there: no round trip to the client
                # between them and what waits on it there (Adam's global-step update).
                tasks = {where[c] for c in op.control_inputs}
                task = tasks.pop() if len(tasks) == 1 else LOCAL
            else:
                task = LOCAL
        where[op] = task
    return where


def partition(ops: list[Operation], fed: set, fetches: list[Tensor], own: Task, cluster):
    """Splits a run's ops (topological order) into stages of parts.

    Returns:
      A list of stages, each a list of ``Part`` (at most one per task).
    """
    where = place(ops, fed, own, cluster)
    handle_ops = {op for op in ops if op.outputs and all(_is_handle(t) for t in op.outputs)}
    # Ops every part needing them makes for itself: handles, and constants.
    free = handle_ops | {op for op in ops if op.type == "Const" and not op.control_inputs}
    stage: dict[Operation, int] = {}
    for op in ops:
        if op in free:
            continue
        s = 0
        here = where[op]
        for t in op.inputs:
            p = t.op
            if t in fed or p in free:
                continue
            s = max(s, stage[p] + (where[p] != here))
        for c in op.control_inputs:
            if c in stage:
                s = max(s, stage[c] + (where[c] != here))
        stage[op] = s
    parts: dict[tuple[int, Task], Part] = {}
    owner: dict[Operation, Part] = {}
    for op in ops:
        if op in free:
            continue
        key = (stage[op], where[op])
        part = parts.get(key)
        if part is None:
            part = parts[key] = Part(where[op], stage[op])
        part.ops.append(op)
        owner[op] = part
    needed_out: dict[Part, dict[Tensor, None]] = {p: {} for p in parts.values()}
    for part in parts.values():
        ins: dict[Tensor, None] = {}
        extra: dict[Operation, None] = {}
        for op in part.ops:
            for t in op.inputs:
                p = t.op
                if t in fed:
                    ins[t] = None
                elif p in free:
                    if p in handle_ops and where[p] != part.task:
                        raise errors.InvalidArgumentError(
                            None, op, "%s takes a resource handle made on another task" % op.name
                        )
                    extra[p] = None
                elif owner[p] is not part:
                    ins[t] = None
                    needed_out[owner[p]][t] = None
        part.inputs = list(ins)
        if extra:
            part.ops = sorted(list(extra) + part.ops, key=lambda o: o._id)
    for t in fetches:
        if t in fed:
            continue
        holder = owner.get(t.op)
        if holder is None and t.op in handle_ops:
            raise errors.InvalidArgumentError(
                None,
                t.op,
                "Fetching a resource handle (%s) from a cluster is not supported" % t.name,
            )
        if holder is None:  # a fetched constant: the client makes it
            holder = parts.get((0, LOCAL))
            if holder is None:
                holder = parts[(0, LOCAL)] = Part(LOCAL, 0)
                needed_out[holder] = {}
            if t.op not in holder.ops:
                holder.ops = sorted(holder.ops + [t.op], key=lambda o: o._id)
            owner[t.op] = holder
        needed_out[holder][t] = None
    for part, outs in needed_out.items():
        part.outputs = list(outs)
    by_stage: dict[int, list[Part]] = {}
    for (s, _), part in sorted(parts.items(), key=lambda kv: kv[0][0]):
        by_stage.setdefault(s, []).append(part)
    return [by_stage[s] for s in sorted(by_stage)]


# --------------------------------------------------------------------------------------
# Shipping a part to its task
# --------------------------------------------------------------------------------------


class PartSpec:
    """A remote part as data: what its task needs to rebuild the ops and run them.

    Each op is ``(name, type, attrs, inputs, controls, device, outputs)`` where inputs
    are ``("in", k)`` (the part's k-th input) or ``("op", i, j)`` (output j of the
    part's op i), and outputs are ``(dtype, shape)``.
    """

    __slots__ = ("ops", "inputs", "outputs")

    def __init__(self, part: Part):
        index = {op: i for i, op in enumerate(part.ops)}
        in_index = {t: k for k, t in enumerate(part.inputs)}
        self.inputs = [(t.name, t.dtype, t.shape) for t in part.inputs]
        ops = []
        for op in part.ops:
            if get_op_def(op.type).extra.get("opaque"):
                # TF1 too runs a py_func only in the process that made it.
                raise _not_remote("the Python function of %s (%s)" % (op.name, op.type))
            refs: list[tuple] = []
            for t in op.inputs:
                if t in in_index:
                    refs.append(("in", in_index[t]))
                else:
                    refs.append(("op", index[t.op], t.value_index))
            controls = [index[c] for c in op.control_inputs if c in index]
            outs = [(t.dtype, t.shape) for t in op.outputs]
            ops.append((op.name, op.type, op.attrs, refs, controls, op.device, outs))
        self.ops = ops
        self.outputs = [(index[t.op], t.value_index) for t in part.outputs]

    def dumps(self) -> bytes:
        """The spec pickled. An attribute holding graph objects (a function body) or
        a Python callable that cannot be pickled by name (a py_func's lambda) cannot
        run on another task."""
        buf = io.BytesIO()
        try:
            _SpecPickler(buf).dump((self.ops, self.inputs, self.outputs))
        except (pickle.PicklingError, AttributeError, TypeError) as e:
            raise _not_remote(e) from None
        return buf.getvalue()


def _not_remote(what) -> errors.UnimplementedError:
    return errors.UnimplementedError(
        None,
        None,
        "An op placed on another task has an attribute holding %s; ops with graph "
        "functions or Python callables (py_func, cond/while bodies) run only in the "
        "client process: remove their device." % (what,),
    )


class _SpecPickler(pickle.Pickler):
    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, (Graph, Operation, Tensor)):
            raise _not_remote(repr(obj))
        return NotImplemented


def build_part_graph(blob: bytes):
    """Rebuilds a shipped part in a graph of its own.

    Returns:
      ``(graph, ops, feed tensors, fetch tensors)`` for ``Plan(fetches, [], feeds, ops)``.
    """
    ops_spec, inputs, outputs = pickle.loads(blob)
    g = Graph()
    feeds = []
    for k, (_name, dtype, shape) in enumerate(inputs):
        ph = g._import_op("_input_%d" % k, "Placeholder", (), {"dtype": dtype, "shape": shape})
        ph._set_outputs([(dtype, shape)])
        feeds.append(ph.outputs[0])
    ops: list[Operation] = []
    for name, type_, attrs, refs, controls, device, outs in ops_spec:
        get_op_def(type_)  # an unknown type fails here, naming it
        ins = tuple(feeds[r[1]] if r[0] == "in" else ops[r[1]].outputs[r[2]] for r in refs)
        op = g._import_op(name, type_, ins, attrs, device)
        op._set_outputs(outs)
        for c in controls:
            op.control_inputs.append(ops[c])
        ops.append(op)
    fetches = [ops[i].outputs[j] for i, j in outputs]
    return g, ops, feeds, fetches
