"""The TF protocol buffers event files hold, and a flowrt ``Graph`` as a ``GraphDef``.

``Summary``, ``HistogramProto``, ``Event``, ``GraphDef`` and ``RunMetadata`` are the
classes compiled from ``flowrt/protos/*.proto`` (TF's messages and field numbers, so the
bytes are TF's). ``graph_def(graph)`` encodes a flowrt ``Graph`` for TensorBoard's graph
tab: node names, op types, inputs (``^name`` for control inputs), devices, the attrs that
have a protobuf form (a None attr as an empty ``AttrValue``; the names of attrs holding
Python objects in ``_flowrt_unencoded_attrs``), and ``_output_shapes`` (what TF1's
``as_graph_def(add_shapes=True)`` adds); ``fr.import_graph_def`` reads it back.
``histogram_proto(values)`` is TF's histogram of an array.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from .. import dtypes as _dt
from .._core.graph import GRAPH_DEF_BUILDER, Graph
from .._core.lazy_constant import LazyConstant
from .._core.shape import TensorShape
from ..protos.event_pb2 import Event, SessionLog, TaggedRunMetadata
from ..protos.graph_pb2 import AttrValue, GraphDef, NodeDef
from ..protos.step_stats_pb2 import RunMetadata, StepStats
from ..protos.summary_pb2 import HistogramProto, Summary, SummaryMetadata
from ..protos.tensor_pb2 import TensorProto, TensorShapeProto

__all__ = [
    "Summary",
    "SummaryMetadata",
    "HistogramProto",
    "Event",
    "SessionLog",
    "TaggedRunMetadata",
    "GraphDef",
    "NodeDef",
    "AttrValue",
    "TensorProto",
    "TensorShapeProto",
    "RunMetadata",
    "StepStats",
    "graph_def",
    "graph_def_proto",
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


def histogram_proto(values: Any) -> HistogramProto:
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
# GraphDef
# --------------------------------------------------------------------------------------

# The attr listing a node's attrs that held Python objects (callables, kernels, loop
# bodies) and so are not in the GraphDef; ``fr.import_graph_def`` names them.
UNENCODED_ATTRS = "_flowrt_unencoded_attrs"

# The GraphDef producer version of the TF release this encoding was checked against (2.21).
GRAPH_DEF_VERSION = 2474


def _fill_shape(proto: TensorShapeProto, shape: TensorShape) -> TensorShapeProto:
    """-1 for an unknown dim; ``unknown_rank`` for an unknown rank."""
    if shape.ndims is None:
        proto.unknown_rank = True
    else:
        for d in shape.as_list():
            proto.dim.add(size=-1 if d is None else d)
    return proto


def _datatype(dtype: _dt.DType) -> Any:
    """The ``DataType`` enum value of a flowrt dtype (a plain int, as protobuf takes it)."""
    return dtype.as_datatype_enum


def fill_tensor_proto(proto: TensorProto, arr: np.ndarray) -> bool:
    """dtype, shape and content of ``arr``; False if it has no TensorProto form."""
    if arr.dtype == object:
        if not all(isinstance(x, bytes) for x in arr.flat):
            return False
        proto.dtype = _datatype(_dt.string)
        proto.string_val.extend(arr.flat)
    else:
        try:
            proto.dtype = _datatype(_dt.as_dtype(arr.dtype))
        except (TypeError, KeyError):
            return False
        proto.tensor_content = arr.astype(arr.dtype.newbyteorder("<")).tobytes()
    _fill_shape(proto.tensor_shape, TensorShape(arr.shape))
    return True


def _is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _to_bytes(v) -> bytes:
    return v.encode("utf-8") if isinstance(v, str) else v


def _fill_attr(a: AttrValue, v) -> bool:
    """Sets ``a`` from a flowrt attr value; False if ``v`` has no protobuf form (it is then
    left out of the GraphDef)."""
    if isinstance(v, (bool, np.bool_)):
        a.b = bool(v)
    elif _is_int(v):
        a.i = int(v)
    elif isinstance(v, (float, np.floating)):
        with np.errstate(over="ignore"):  # rounds like C's (float)x, as TF does
            a.f = float(np.float32(v))
    elif isinstance(v, (str, bytes)):
        a.s = _to_bytes(v)
    elif isinstance(v, _dt.DType):
        a.type = _datatype(v)
    elif isinstance(v, TensorShape):
        a.shape.SetInParent()  # a scalar's shape has no field set, but is present
        _fill_shape(a.shape, v)
    elif isinstance(v, np.ndarray):
        return fill_tensor_proto(a.tensor, v)
    elif isinstance(v, LazyConstant):  # an imported constant: its proto as it came
        a.tensor.ParseFromString(v.proto.SerializeToString())
    elif isinstance(v, (list, tuple)):
        return _fill_list(a.list, list(v))
    else:
        return False
    return True


def _fill_list(lst: AttrValue.ListValue, vs: list) -> bool:
    if all(isinstance(v, (str, bytes)) for v in vs):
        lst.s.extend(_to_bytes(v) for v in vs)
    elif all(isinstance(v, (bool, np.bool_)) for v in vs):
        lst.b.extend(bool(v) for v in vs)
    elif all(_is_int(v) for v in vs):
        lst.i.extend(int(v) for v in vs)
    elif all(isinstance(v, (float, np.floating)) for v in vs):
        with np.errstate(over="ignore"):
            lst.f.extend(np.asarray(vs, dtype=np.float32).tolist())
    elif all(isinstance(v, _dt.DType) for v in vs):
        lst.type.extend(v.as_datatype_enum for v in vs)
    elif all(isinstance(v, TensorShape) for v in vs):
        for v in vs:
            _fill_shape(lst.shape.add(), v)
    elif all(isinstance(v, (tuple, list)) and all(map(_is_int, v)) for v in vs):
        # Shapes kept as int tuples (``dense_shapes``): TF's list(shape) attr.
        for v in vs:
            _fill_shape(lst.shape.add(), TensorShape([None if d < 0 else d for d in v]))
    else:
        return False
    # An empty list is written as an empty ListValue, as TF does.
    lst.SetInParent()
    return True


def _fill_node(n: NodeDef, op) -> None:
    n.name, n.op = op.name, op.type
    n.input.extend(t.op.name if t.value_index == 0 else t.name for t in op.inputs)
    n.input.extend("^" + c.name for c in op.control_inputs)
    if op.device:
        n.device = op.device
    unencoded = []
    for k, v in op.attrs.items():
        a = AttrValue()
        if v is None:
            n.attr[k].CopyFrom(a)  # present with no value: None, as the importer reads it
        elif _fill_attr(a, v):
            n.attr[k].CopyFrom(a)
        elif not k.startswith("_"):
            unencoded.append(k)
    if unencoded:
        # ``fr.import_graph_def`` refuses such a node, naming these attrs.
        n.attr[UNENCODED_ATTRS].list.s.extend(_to_bytes(k) for k in unencoded)
    if op.outputs:
        shapes = n.attr["_output_shapes"].list
        for t in op.outputs:
            _fill_shape(shapes.shape.add(), t.shape)


def graph_def_proto(graph: Graph) -> GraphDef:
    """The ``GraphDef`` message of a flowrt ``Graph``, nodes in creation order."""
    g = GraphDef()
    for op in graph.get_operations():
        _fill_node(g.node.add(), op)
    g.versions.producer = GRAPH_DEF_VERSION
    return g


GRAPH_DEF_BUILDER["graph_def"] = graph_def_proto  # Graph.as_graph_def


def graph_def(graph: Graph) -> bytes:
    """The serialized ``GraphDef`` of a flowrt ``Graph`` (see ``graph_def_proto``)."""
    return graph_def_proto(graph).SerializeToString(deterministic=True)
