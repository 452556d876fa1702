"""The few TF protocol buffers event files hold, as small classes encoded by hand.

``Summary``, ``HistogramProto`` and ``Event`` have TF1's field names, ``SerializeToString``
and ``FromString``, and serialize to the same bytes as TF's protobuf classes. Only the
fields below exist; unknown fields are skipped when parsing.

  Event{wall_time=1 double, step=2 int64, file_version=3 string, graph_def=4 bytes,
        summary=5 Summary}
  Summary{value=1 repeated Value{tag=1, simple_value=2 float, histo=5 HistogramProto}}
  HistogramProto{min=1, max=2, num=3, sum=4, sum_squares=5 double,
                 bucket_limit=6, bucket=7 packed double}

``graph_def(graph)`` encodes a flowrt ``Graph`` as a ``GraphDef`` for TensorBoard's graph
tab: node names, op types, inputs (``^name`` for control inputs), devices, the attrs that
have a protobuf form, and ``_output_shapes`` (what TF1's ``as_graph_def(add_shapes=True)``
adds).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from .. import dtypes as _dt
from .._core.shape import TensorShape
from . import _wire as w

__all__ = [
    "Summary",
    "HistogramProto",
    "Event",
    "graph_def",
    "histogram_proto",
    "DEFAULT_BUCKET_LIMITS",
]

DBL_MAX = sys.float_info.max

# --------------------------------------------------------------------------------------
# HistogramProto, with TF's default buckets
# --------------------------------------------------------------------------------------


def _default_bucket_limits() -> np.ndarray:
    # TF's histogram.cc: limits growing by 10% from 1e-12 up to 1e20, mirrored, around 0.
    pos, v = [], 1.0e-12
    while v < 1.0e20:
        pos.append(v)
        v *= 1.1
    pos.append(DBL_MAX)
    return np.array([-x for x in reversed(pos)] + [0.0] + pos)


DEFAULT_BUCKET_LIMITS = _default_bucket_limits()


@dataclass
class HistogramProto:
    """A histogram: bucket ``i`` counts values in ``[bucket_limit[i-1], bucket_limit[i])``."""

    min: float = 0.0
    max: float = 0.0
    num: float = 0.0
    sum: float = 0.0
    sum_squares: float = 0.0
    bucket_limit: list = field(default_factory=list)
    bucket: list = field(default_factory=list)

    def SerializeToString(self) -> bytes:
        return b"".join(
            [
                w.opt_double(1, self.min),
                w.opt_double(2, self.max),
                w.opt_double(3, self.num),
                w.opt_double(4, self.sum),
                w.opt_double(5, self.sum_squares),
                w.packed_doubles(6, self.bucket_limit),
                w.packed_doubles(7, self.bucket),
            ]
        )

    @classmethod
    def FromString(cls, data: bytes) -> "HistogramProto":
        h = cls()
        names = {1: "min", 2: "max", 3: "num", 4: "sum", 5: "sum_squares"}
        for f, wire, v in w.fields(data):
            if f in names and wire == w.I64:
                setattr(h, names[f], w.as_double(v))
            elif f == 6:
                h.bucket_limit.extend(w.unpack_doubles(wire, v))
            elif f == 7:
                h.bucket.extend(w.unpack_doubles(wire, v))
        return h


def histogram_proto(values) -> HistogramProto:
    """TF's ``Histogram`` of finite values, empty runs of buckets collapsed as TF does."""
    x = np.asarray(values, dtype=np.float64).reshape(-1)
    limits = DEFAULT_BUCKET_LIMITS
    counts = np.bincount(np.searchsorted(limits, x, side="right"), minlength=len(limits))
    counts = counts.astype(np.float64)
    # A run of empty buckets becomes one entry with the run's last limit.
    nonzero = counts > 0
    keep = nonzero | np.append(nonzero[1:], True)
    # Sums are sequential like TF's loop (cumsum does not reorder), so they match bit for bit.
    return HistogramProto(
        min=float(x.min()) if x.size else DBL_MAX,
        max=float(x.max()) if x.size else -DBL_MAX,
        num=float(x.size),
        sum=float(np.cumsum(x)[-1]) if x.size else 0.0,
        sum_squares=float(np.cumsum(x * x)[-1]) if x.size else 0.0,
        bucket_limit=limits[keep].tolist(),
        bucket=counts[keep].tolist(),
    )


# --------------------------------------------------------------------------------------
# Summary
# --------------------------------------------------------------------------------------


@dataclass
class _Value:
    tag: str = ""
    simple_value: float | None = None
    histo: HistogramProto | None = None

    def SerializeToString(self) -> bytes:
        out = [w.opt_bytes(1, self.tag)]
        if self.simple_value is not None:  # a oneof member: written even when 0
            out.append(w.float_field(2, self.simple_value))
        if self.histo is not None:
            out.append(w.bytes_field(5, self.histo.SerializeToString()))
        return b"".join(out)

    @classmethod
    def FromString(cls, data: bytes) -> "_Value":
        v = cls()
        for f, wire, raw in w.fields(data):
            if f == 1 and wire == w.LEN:
                v.tag = raw.decode("utf-8")
            elif f == 2 and wire == w.I32:
                v.simple_value = w.as_float(raw)
            elif f == 5 and wire == w.LEN:
                v.histo = HistogramProto.FromString(raw)
        return v


_Value.__name__ = _Value.__qualname__ = "Value"


class _Values(list):
    """``summary.value``: a list that also has protobuf's ``add(**fields)``."""

    def add(self, **kwargs) -> _Value:
        v = _Value(**kwargs)
        self.append(v)
        return v


@dataclass
class Summary:
    """A list of tagged values (TF1's ``tf.Summary``).

    Example:
      fr.summary.Summary(value=[fr.summary.Summary.Value(tag="acc", simple_value=0.9)])
    """

    value: list = field(default_factory=list)
    Value: ClassVar[type] = _Value

    def __post_init__(self):
        self.value = _Values(self.value)

    def SerializeToString(self) -> bytes:
        return b"".join(w.bytes_field(1, v.SerializeToString()) for v in self.value)

    @classmethod
    def FromString(cls, data: bytes) -> "Summary":
        return cls(
            [_Value.FromString(raw) for f, wire, raw in w.fields(data) if f == 1 and wire == w.LEN]
        )


# --------------------------------------------------------------------------------------
# Event
# --------------------------------------------------------------------------------------


@dataclass
class Event:
    """One record of an event file (TF1's ``tf.Event``); at most one of ``file_version``,
    ``graph_def`` (serialized ``GraphDef`` bytes) and ``summary`` is set."""

    wall_time: float = 0.0
    step: int = 0
    file_version: str | None = None
    graph_def: bytes | None = None
    summary: Summary | None = None

    def SerializeToString(self) -> bytes:
        out = [w.opt_double(1, self.wall_time), w.opt_int(2, self.step)]
        if self.file_version is not None:
            out.append(w.bytes_field(3, self.file_version))
        if self.graph_def is not None:
            out.append(w.bytes_field(4, self.graph_def))
        if self.summary is not None:
            out.append(w.bytes_field(5, self.summary.SerializeToString()))
        return b"".join(out)

    @classmethod
    def FromString(cls, data: bytes) -> "Event":
        e = cls()
        for f, wire, raw in w.fields(data):
            if f == 1 and wire == w.I64:
                e.wall_time = w.as_double(raw)
            elif f == 2 and wire == w.VARINT:
                e.step = w.as_int64(raw)
            elif f == 3 and wire == w.LEN:
                e.file_version = raw.decode("utf-8")
            elif f == 4 and wire == w.LEN:
                e.graph_def = raw
            elif f == 5 and wire == w.LEN:
                e.summary = Summary.FromString(raw)
        return e


# --------------------------------------------------------------------------------------
# GraphDef
# --------------------------------------------------------------------------------------

# The GraphDef producer version of the TF release this encoding was checked against (2.21).
GRAPH_DEF_VERSION = 2474


def _shape_proto(shape: TensorShape) -> bytes:
    """TensorShapeProto{dim=2 repeated Dim{size=1}, unknown_rank=3}; -1 for an unknown dim."""
    if shape.ndims is None:
        return w.int_field(3, 1)
    return b"".join(w.bytes_field(2, w.opt_int(1, -1 if d is None else d)) for d in shape.as_list())


def _tensor_proto(arr: np.ndarray) -> bytes | None:
    """TensorProto{dtype=1, tensor_shape=2, tensor_content=4 | string_val=8}."""
    if arr.dtype == object:
        if not all(isinstance(x, bytes) for x in arr.flat):
            return None
        enum, content = 7, b"".join(w.bytes_field(8, x) for x in arr.flat)
    else:
        try:
            enum = _dt.as_dtype(arr.dtype).as_datatype_enum
        except (TypeError, KeyError):
            return None
        content = w.opt_bytes(4, arr.astype(arr.dtype.newbyteorder("<")).tobytes())
    return w.int_field(1, enum) + w.bytes_field(2, _shape_proto(TensorShape(arr.shape))) + content


def _is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _attr_value(v) -> bytes | None:
    """AttrValue{list=1, s=2, i=3, f=4, b=5, type=6, shape=7, tensor=8}, or None if ``v``
    has no protobuf form (it is then left out of the GraphDef)."""
    if isinstance(v, (bool, np.bool_)):
        return w.int_field(5, int(v))
    if _is_int(v):
        return w.int_field(3, v)
    if isinstance(v, (float, np.floating)):
        return w.float_field(4, float(v))
    if isinstance(v, (str, bytes)):
        return w.bytes_field(2, v)
    if isinstance(v, _dt.DType):
        return w.int_field(6, v.as_datatype_enum)
    if isinstance(v, TensorShape):
        return w.bytes_field(7, _shape_proto(v))
    if isinstance(v, np.ndarray):
        t = _tensor_proto(v)
        return None if t is None else w.bytes_field(8, t)
    if isinstance(v, (list, tuple)):
        lst = _list_value(list(v))
        return None if lst is None else w.bytes_field(1, lst)
    return None


def _list_value(vs: list) -> bytes | None:
    """ListValue{s=2, i=3 packed, f=4 packed, b=5 packed, type=6 packed, shape=7}."""
    if all(isinstance(v, (str, bytes)) for v in vs):
        return b"".join(w.bytes_field(2, v) for v in vs)
    if all(isinstance(v, (bool, np.bool_)) for v in vs):
        return w.packed_varints(5, [int(v) for v in vs])
    if all(_is_int(v) for v in vs):
        return w.packed_varints(3, vs)
    if all(isinstance(v, (float, np.floating)) for v in vs):
        with np.errstate(over="ignore"):
            return w.bytes_field(4, np.asarray(vs, dtype="<f4").tobytes())
    if all(isinstance(v, _dt.DType) for v in vs):
        return w.packed_varints(6, [v.as_datatype_enum for v in vs])
    if all(isinstance(v, TensorShape) for v in vs):
        return b"".join(w.bytes_field(7, _shape_proto(v)) for v in vs)
    return None


def _node_def(op) -> bytes:
    """NodeDef{name=1, op=2, input=3, device=4, attr=5 map<string, AttrValue>}."""
    out = [w.bytes_field(1, op.name), w.bytes_field(2, op.type)]
    out += [w.bytes_field(3, t.op.name if t.value_index == 0 else t.name) for t in op.inputs]
    out += [w.bytes_field(3, "^" + c.name) for c in op.control_inputs]
    out.append(w.opt_bytes(4, op.device))
    attrs = [(k, _attr_value(v)) for k, v in sorted(op.attrs.items())]
    if op.outputs:
        attrs.append(
            (
                "_output_shapes",
                w.bytes_field(
                    1, b"".join(w.bytes_field(7, _shape_proto(t.shape)) for t in op.outputs)
                ),
            )
        )
    out += [
        w.bytes_field(5, w.bytes_field(1, k) + w.bytes_field(2, v))
        for k, v in attrs
        if v is not None
    ]
    return b"".join(out)


def graph_def(graph) -> bytes:
    """The serialized ``GraphDef`` of a flowrt ``Graph``: GraphDef{node=1, versions=4}."""
    nodes = b"".join(w.bytes_field(1, _node_def(op)) for op in graph.get_operations())
    return nodes + w.bytes_field(4, w.int_field(1, GRAPH_DEF_VERSION))
