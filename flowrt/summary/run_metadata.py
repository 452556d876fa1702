"""``run_metadata_proto``: a run's metadata, whatever form it has, as TF's ``RunMetadata``.

A traced run fills ``fr.RunMetadata().step_stats``. That may be TF's structure
(``dev_stats[].node_stats[]`` with ``node_name``, ``all_start_micros``,
``all_end_rel_micros``, ``output``, ``memory``...) or a flat list of per-op records
(``node_name``, ``op_type``, ``start_micros``, ``end_micros``, ``thread_id``). Both are
copied, attribute by attribute and leaving out what is not there, into the protobuf
TensorBoard reads.

Every output's ``tensor_description`` gets a ``shape`` (empty, ``shape {}``, for a
scalar or a handle, as TF writes it): TensorBoard's graph tab reads
``output[].tensor_description.shape.dim`` of each node and fails on a missing shape.
"""

from __future__ import annotations

from typing import Any

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from .._core.shape import TensorShape
from ..graph_export import fill_shape
from ..protos.step_stats_pb2 import TensorDescription
from .protos import RunMetadata, TensorShapeProto

__all__ = ["run_metadata_proto", "CPU_DEVICE"]

CPU_DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"

_INTS = {
    FieldDescriptor.CPPTYPE_INT32,
    FieldDescriptor.CPPTYPE_INT64,
    FieldDescriptor.CPPTYPE_UINT32,
    FieldDescriptor.CPPTYPE_UINT64,
    FieldDescriptor.CPPTYPE_ENUM,
}


def _get(obj, name):
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


def _scalar(field: FieldDescriptor, v):
    if field.cpp_type in _INTS:
        v = getattr(v, "as_datatype_enum", v)  # a flowrt DType for a DataType field
        v = int(v)
        if field.cpp_type == FieldDescriptor.CPPTYPE_UINT32:
            v &= 0xFFFFFFFF  # thread ids: TF's are 32-bit
        return v
    if field.cpp_type == FieldDescriptor.CPPTYPE_STRING and field.type == field.TYPE_BYTES:
        return v.encode("utf-8") if isinstance(v, str) else bytes(v)
    if field.cpp_type == FieldDescriptor.CPPTYPE_STRING:
        return str(v)
    if field.cpp_type == FieldDescriptor.CPPTYPE_BOOL:
        return bool(v)
    return float(v)


def _copy(obj, msg: Message) -> None:
    """Sets each field of ``msg`` that ``obj`` has as an attribute (or dict key)."""
    msg.SetInParent()
    if isinstance(obj, Message) and obj.DESCRIPTOR.full_name == msg.DESCRIPTOR.full_name:
        msg.CopyFrom(obj)
        return
    if isinstance(msg, TensorShapeProto) and _get(obj, "dim") is None:
        fill_shape(msg, TensorShape(obj))  # a TensorShape, list or tuple
        return
    if isinstance(msg, TensorDescription):
        msg.shape.SetInParent()
    for field in msg.DESCRIPTOR.fields:
        v = _get(obj, field.name)
        if v is None:
            continue
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            getattr(msg, field.name).update(dict(v))
        elif field.message_type is not None and field.is_repeated:
            for item in v:
                _copy(item, getattr(msg, field.name).add())
        elif field.message_type is not None:
            _copy(v, getattr(msg, field.name))
        elif field.is_repeated:
            getattr(msg, field.name).extend(_scalar(field, x) for x in v)
        else:
            setattr(msg, field.name, _scalar(field, v))


def _flat_records(records) -> RunMetadata:
    """Per-op records (``start_micros``/``end_micros`` since the epoch) on one CPU device."""
    meta = RunMetadata()
    dev = meta.step_stats.dev_stats.add(device=CPU_DEVICE)
    for r in records:
        start, end = _get(r, "start_micros"), _get(r, "end_micros")
        n = dev.node_stats.add(node_name=str(_get(r, "node_name")))
        if start is not None:
            n.all_start_micros = int(start)
            n.op_start_rel_micros = 0
            if end is not None:
                n.all_end_rel_micros = n.op_end_rel_micros = max(0, int(end) - int(start))
        op_type = _get(r, "op_type")
        if op_type is not None:
            n.timeline_label = "%s = %s()" % (n.node_name, op_type)
        if _get(r, "thread_id") is not None:
            n.thread_id = int(_get(r, "thread_id")) & 0xFFFFFFFF
    return meta


def run_metadata_proto(run_metadata: Any) -> Message | bytes:
    """TF's ``RunMetadata`` for what a traced run filled in.

    Args:
      run_metadata: serialized bytes or a protobuf (returned as they are), or an object
        whose ``step_stats`` is TF's structure or a list of per-op records.

    Returns:
      A ``RunMetadata`` protobuf, or the bytes given.

    Raises:
      TypeError: ``run_metadata`` has no ``step_stats``.
    """
    if isinstance(run_metadata, (bytes, bytearray, memoryview)):
        return bytes(run_metadata)
    if isinstance(run_metadata, Message):
        return run_metadata
    if not hasattr(run_metadata, "step_stats"):
        raise TypeError(
            "run_metadata must be a RunMetadata (filled by a run with "
            "RunOptions(trace_level=FULL_TRACE)); got %s" % type(run_metadata).__name__
        )
    stats = run_metadata.step_stats
    if _get(stats, "dev_stats") is None:
        meta = _flat_records(stats or [])
    else:
        meta = RunMetadata()
        _copy(stats, meta.step_stats)
    for name in ("partition_graphs",):
        graphs = getattr(run_metadata, name, None)
        for g in graphs or []:
            if isinstance(g, Message):
                getattr(meta, name).add().CopyFrom(g)
    return meta
