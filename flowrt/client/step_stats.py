"""TF1's ``StepStats`` for a traced run, built from the executor's per-step records.

A run with ``RunOptions(trace_level=FULL_TRACE)`` collects one record per step it ran
(``_core/tracing.py``: op, start, end, the thread or trio task, its outputs) and one per
wait of a blocking step. ``step_stats_from`` turns them into the structure of TF1's
``step_stats.proto``: ``StepStats.dev_stats[].node_stats[]``, with the same field names.
"""

from __future__ import annotations

import functools
import itertools
import threading
import time
import weakref
from collections.abc import Iterable

from google.protobuf import text_format
from google.protobuf.message import Message

from .. import dtypes as _dt
from .._core.graph import Operation
from ..protos.tensor_pb2 import TensorShapeProto

__all__ = [
    "AllocationDescription",
    "AllocatorMemoryUsed",
    "TensorDescription",
    "NodeOutput",
    "NodeExecStats",
    "DeviceStepStats",
    "StepStats",
    "step_stats_from",
    "DEVICE",
]

DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"

_runner_ids: dict[str, int] = {}
_runner_lock = threading.Lock()
_next_id = itertools.count(1)


def runner_id(runner: str) -> int:
    """A small process-wide number for a thread or task name (``thread_id``)."""
    i = _runner_ids.get(runner)
    if i is not None:
        return i
    with _runner_lock:
        i = _runner_ids.get(runner)
        if i is None:
            i = _runner_ids[runner] = next(_next_id)
        return i


class _Record:
    """Equality and repr by fields, as protobuf messages compare."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        fields: tuple[str, ...] = self.__slots__
        return type(other) is type(self) and all(
            getattr(self, f) == getattr(other, f) for f in fields
        )

    __hash__ = None  # type: ignore[assignment]  # mutable records, as protobuf messages

    def __repr__(self) -> str:
        fields: tuple[str, ...] = self.__slots__
        return "%s(%s)" % (
            type(self).__name__,
            ", ".join("%s=%s" % (f, _repr(getattr(self, f))) for f in fields),
        )


def _repr(v: object) -> str:
    """A protobuf message on one line (``TensorShapeProto(dim { size: 2 })``)."""
    if isinstance(v, Message):
        return "%s(%s)" % (type(v).__name__, text_format.MessageToString(v, as_one_line=True))
    return repr(v)


class AllocationDescription(_Record):
    """The memory one output took: ``requested_bytes``, ``allocated_bytes``."""

    __slots__ = ("requested_bytes", "allocated_bytes", "allocator_name")

    def __init__(self, requested_bytes: int = 0, allocator_name: str = "cpu"):
        self.requested_bytes = int(requested_bytes)
        self.allocated_bytes = int(requested_bytes)
        self.allocator_name = allocator_name


class AllocatorMemoryUsed(_Record):
    """The memory an op allocated, as TF1's ``NodeExecStats.memory`` entries:
    ``total_bytes``, ``peak_bytes`` and ``live_bytes`` of ``allocator_name``.

    Note (flowrt): flowrt has no allocator; an op's entry counts the outputs that own a
    fresh buffer (views and values passed through, as TF's aliased outputs, count 0).
    """

    __slots__ = ("allocator_name", "total_bytes", "peak_bytes", "live_bytes")

    def __init__(self, total_bytes: int = 0, allocator_name: str = "cpu"):
        self.allocator_name = allocator_name
        self.total_bytes = self.peak_bytes = self.live_bytes = int(total_bytes)


class TensorDescription(_Record):
    """An output's ``dtype`` (the op's output DType: ``resource`` for a handle),
    ``shape`` (a ``TensorShapeProto``, without dims for a scalar or a handle, as TF1
    writes them) and ``allocation_description``."""

    __slots__ = ("dtype", "shape", "allocation_description")

    def __init__(
        self,
        dtype: _dt.DType | None = None,
        shape: TensorShapeProto | None = None,
        allocation_description: AllocationDescription | None = None,
    ) -> None:
        self.dtype = dtype
        self.shape = TensorShapeProto() if shape is None else shape
        self.allocation_description = allocation_description or AllocationDescription()


class NodeOutput(_Record):
    """One output of a traced op: its ``slot`` and ``tensor_description``."""

    __slots__ = ("slot", "tensor_description")

    def __init__(self, slot: int, tensor_description: TensorDescription):
        self.slot = slot
        self.tensor_description = tensor_description


class NodeExecStats(_Record):
    """Timing of one op (or one wait) in a traced run, as TF1's ``NodeExecStats``.

    Attributes:
      node_name: the op's name.
      all_start_micros: start, in microseconds since the epoch.
      op_start_rel_micros, op_end_rel_micros, all_end_rel_micros: relative to
        ``all_start_micros``.
      timeline_label: ``"name = Type(input, ...)"`` as TF1 writes it.
      output: a NodeOutput per output (dtype, shape, bytes).
      memory: an AllocatorMemoryUsed when the op allocated its outputs (else empty).
      thread_id: a small number for the thread or task that ran the op.
      thread_name: Note (flowrt): that thread (``thread:<name>``) or trio task
        (``task:<name>``) by name; TF1 has no such field.
      wait_for: Note (flowrt): empty for an op; for a wait of a blocking op (a slice
        nested in the op's own), what it waited for (the queue, its size and
        capacity). TF1 has no such records.
      op_type: Note (flowrt): the op's type; TF1 has it only in ``timeline_label``.
    """

    __slots__ = (
        "node_name",
        "all_start_micros",
        "op_start_rel_micros",
        "op_end_rel_micros",
        "all_end_rel_micros",
        "timeline_label",
        "output",
        "memory",
        "thread_id",
        "thread_name",
        "wait_for",
        "op_type",
    )

    def __init__(
        self,
        node_name: str = "",
        all_start_micros: int = 0,
        op_start_rel_micros: int = 0,
        op_end_rel_micros: int = 0,
        all_end_rel_micros: int = 0,
        timeline_label: str = "",
        output: Iterable[NodeOutput] = (),
        memory: Iterable[AllocatorMemoryUsed] = (),
        thread_id: int = 0,
        thread_name: str = "",
        wait_for: str = "",
        op_type: str = "",
    ) -> None:
        self.node_name = node_name
        self.all_start_micros = all_start_micros
        self.op_start_rel_micros = op_start_rel_micros
        self.op_end_rel_micros = op_end_rel_micros
        self.all_end_rel_micros = all_end_rel_micros
        self.timeline_label = timeline_label
        self.output = list(output)
        self.memory = list(memory)
        self.thread_id = thread_id
        self.thread_name = thread_name
        self.wait_for = wait_for
        self.op_type = op_type


class DeviceStepStats(_Record):
    """The ``node_stats`` of one ``device``, and ``thread_names`` (``thread_id`` -> the
    thread or task's name), as TF1's."""

    __slots__ = ("device", "node_stats")

    def __init__(self, device: str = DEVICE, node_stats: Iterable[NodeExecStats] = ()) -> None:
        self.device = device
        self.node_stats = list(node_stats)

    @property
    def thread_names(self) -> dict[int, str]:
        return {n.thread_id: n.thread_name for n in self.node_stats}


class StepStats(_Record):
    """A traced run's ``dev_stats``: flowrt has one device, the CPU."""

    __slots__ = ("dev_stats",)

    def __init__(self, dev_stats: Iterable[DeviceStepStats] = ()) -> None:
        self.dev_stats = list(dev_stats)

    def MergeFrom(self, other: StepStats) -> None:
        """Appends ``other``'s node stats to this one's, device by device."""
        mine = {d.device: d for d in self.dev_stats}
        for d in other.dev_stats:
            if d.device in mine:
                mine[d.device].node_stats.extend(d.node_stats)
            else:
                self.dev_stats.append(DeviceStepStats(d.device, d.node_stats))


_labels: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # op -> its label


def _label(op: Operation) -> str:
    """TF1's ``timeline_label``: ``"name = Type(in, other:1)"``, inputs as a NodeDef
    names them (output 0 by the op's name alone)."""
    label = _labels.get(op)
    if label is None:
        ins = ", ".join(t.op.name if t.value_index == 0 else t.name for t in op.inputs)
        label = _labels[op] = "%s = %s(%s)" % (op.name, op.type, ins)
    return label


@functools.lru_cache(maxsize=1024)
def _shape(dims: tuple[int, ...]) -> TensorShapeProto:
    """The ``TensorShapeProto`` of ``dims`` (shared: step stats are read, not edited)."""
    proto = TensorShapeProto()
    for d in dims:
        proto.dim.add(size=d)
    return proto


def _outputs(op: Operation, outs: tuple) -> tuple[list[NodeOutput], list[AllocatorMemoryUsed]]:
    """An op step's NodeOutputs (its graph dtypes, the values' shapes and bytes) and its
    memory entry (the bytes of the outputs it allocated, none when it allocated none)."""
    output, allocated = [], 0
    for slot, (dims, nbytes, fresh) in enumerate(outs):
        dtype = op.outputs[slot].dtype.base_dtype if slot < len(op.outputs) else None
        desc = TensorDescription(dtype, _shape(dims), AllocationDescription(nbytes))
        output.append(NodeOutput(slot, desc))
        allocated += nbytes if fresh else 0
    return output, [AllocatorMemoryUsed(allocated)] if allocated else []


#: perf_counter -> epoch seconds, taken once: runs traced into one file (a profiler
#: block) share the clock, so consecutive runs on one thread never overlap by a rounding.
_EPOCH_OFFSET = time.time() - time.perf_counter()


def step_stats_from(stats: list) -> StepStats:
    """Builds TF1's StepStats from a traced run's ``ctx.stats`` (``tracing.Stat``),
    ordered by start time (a wait after the op whose step holds it)."""
    offset = _EPOCH_OFFSET
    nodes = []
    now = time.perf_counter()  # the end of a wait still going on (a profiler block's)
    for s in sorted(stats, key=lambda s: (s[1], s[5] is not None)):
        op, t0, t1, runner, outs, wait = s
        t1 = now if t1 is None else t1
        # Both ends rounded from the same clock keep nesting and order exact.
        start = int(round((t0 + offset) * 1e6))
        dur = max(0, int(round((t1 + offset) * 1e6)) - start)
        if wait is None:
            label, (output, memory) = _label(op), _outputs(op, outs)
        else:
            label, output, memory = "%s: waits for %s" % (op.name, wait), [], []
        name = label[: label.index(" = ")] if wait is None else op.name
        nodes.append(
            NodeExecStats(
                name,
                start,
                0,
                dur,
                dur,
                label,
                output,
                memory,
                runner_id(runner),
                runner,
                wait or "",
                op.type,
            )
        )
    return StepStats([DeviceStepStats(DEVICE, nodes)])
