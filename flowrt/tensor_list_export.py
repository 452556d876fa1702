"""flowrt's TensorArrays as TF 2 writes ``tf.TensorArray`` in a graph: ``TensorList*`` ops
on a ``variant`` list value, which is flowrt's model too (a TensorArray is its flow, an
immutable value; ``ops/tensor_array_ops.py``). Each flowrt op is one TF node of the same
name, its flow output the list (output 0 in both), its inputs in TF's order, with the
``element_shape`` constant TF's ops take as an input (``-1`` for an unknown rank, ``-1``
for an unknown dim):

| flowrt | TF |
|---|---|
| ``TensorArrayV3(size)`` | ``TensorListReserve(element_shape, size)`` |
| ``TensorArrayWriteV3(flow, i, v)`` | ``TensorListSetItem(flow, i, v)`` (growing if dynamic) |
| ``TensorArrayReadV3(flow, i)`` | ``TensorListGetItem(flow, i, element_shape)`` |
| ``TensorArrayGatherV3`` of ``stack()`` | ``TensorListStack(flow, element_shape)`` |
| ``TensorArrayGatherV3(flow, idx)`` | ``TensorListGather(flow, idx, element_shape)`` |
| ``TensorArrayScatterV3(flow, idx, v)`` | ``TensorListScatterIntoExistingList(flow, v, idx)`` |
| ``TensorArraySplitV3(flow, v, lengths)`` | ``TensorListSplit(v, element_shape, lengths)`` (1) |
| ``TensorArrayConcatV3(flow)`` | ``TensorListConcatV2(flow, element_shape, leading_dims)`` |
| ``TensorArraySizeV3(flow)`` | ``TensorListLength(flow)`` |
| ``TensorArrayCloseV3(flow)`` | ``NoOp`` (TF 2's ``close``) |

(1) A new list of the parts, as TF 2's ``split`` writes it.

A loop carries the list as one more ``variant`` loop variable of its ``While``
(``function_export.py``). flowrt's TensorArray gradient ops have no TF counterpart and
fail the export naming them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from . import dtypes as _dt
from ._core.graph import Operation
from ._core.shape import TensorShape

if TYPE_CHECKING:
    from .graph_export import GraphDefWriter

__all__ = ["REWRITES"]

_SCALAR = TensorShape([])


def _const(w: GraphDefWriter, name: str, value: np.ndarray) -> str:
    name = w.unique(name)
    attrs = {"dtype": _dt.as_dtype(value.dtype), "value": value}
    w.node(name, "Const", [], attrs, out_shapes=[TensorShape(value.shape)])
    return name


def _element_shape(w: GraphDefWriter, op: Operation, shape: TensorShape) -> str:
    """The ``element_shape`` input TF's list ops take: ``-1`` for an unknown rank, else
    the dims with ``-1`` for each unknown one."""
    dims = -1 if shape.ndims is None else [-1 if d is None else d for d in shape.as_list()]
    return _const(w, op.name + "/element_shape", np.array(dims, dtype=np.int32))


def _list_node(
    w: GraphDefWriter, op: Operation, tf_type: str, inputs: list[str], attrs: dict
) -> None:
    w.node(
        op.name,
        tf_type,
        inputs,
        attrs,
        control=[c.name for c in op.control_inputs],
        device=op.device,
        out_shapes=[t.shape for t in op.outputs],
    )


def _reserve(w: GraphDefWriter, op: Operation) -> None:
    shape = _element_shape(w, op, op.attrs["element_shape"])
    attrs = {"element_dtype": op.attrs["dtype"], "shape_type": _dt.int32}
    _list_node(w, op, "TensorListReserve", [shape, w.ref(op.inputs[0])], attrs)


def _set_item(w: GraphDefWriter, op: Operation) -> None:
    flow, index, value = op.inputs
    attrs = {
        "element_dtype": value.dtype.base_dtype,
        "resize_if_index_out_of_bounds": bool(op.attrs.get("_dynamic_size", False)),
    }
    _list_node(w, op, "TensorListSetItem", [w.ref(flow), w.ref(index), w.ref(value)], attrs)


def _get_item(w: GraphDefWriter, op: Operation) -> None:
    flow, index = op.inputs
    shape = _element_shape(w, op, op.attrs["element_shape"])
    attrs = {"element_dtype": op.attrs["dtype"]}
    _list_node(w, op, "TensorListGetItem", [w.ref(flow), w.ref(index), shape], attrs)


def _gather(w: GraphDefWriter, op: Operation) -> None:
    """``stack()`` (flowrt's gather of every index, built with ``_static_size``) as
    TF's ``TensorListStack``; any other gather as ``TensorListGather``."""
    flow, indices = op.inputs
    shape = _element_shape(w, op, op.attrs["element_shape"])
    attrs = {"element_dtype": op.attrs["dtype"]}
    if "_static_size" in op.attrs:
        n = op.attrs["_static_size"]
        attrs["num_elements"] = -1 if n is None else int(n)
        _list_node(w, op, "TensorListStack", [w.ref(flow), shape], attrs)
    else:
        _list_node(w, op, "TensorListGather", [w.ref(flow), w.ref(indices), shape], attrs)


def _scatter(w: GraphDefWriter, op: Operation) -> None:
    flow, indices, value = op.inputs
    attrs = {"element_dtype": value.dtype.base_dtype}
    inputs = [w.ref(flow), w.ref(value), w.ref(indices)]
    _list_node(w, op, "TensorListScatterIntoExistingList", inputs, attrs)


def _split(w: GraphDefWriter, op: Operation) -> None:
    _flow, value, lengths = op.inputs
    rank = value.shape.ndims
    elem = TensorShape(None) if rank is None else TensorShape([None]).concatenate(value.shape[1:])
    shape = _element_shape(w, op, elem)
    attrs = {"element_dtype": value.dtype.base_dtype, "shape_type": _dt.int32}
    _list_node(w, op, "TensorListSplit", [w.ref(value), shape, w.ref(lengths)], attrs)


def _concat(w: GraphDefWriter, op: Operation) -> None:
    s = op.attrs["element_shape"]
    elem = TensorShape(None) if s.ndims in (None, 0) else TensorShape([None]).concatenate(s[1:])
    shape = _element_shape(w, op, elem)
    leading = _const(w, op.name + "/leading_dims", np.zeros([0], dtype=np.int64))
    attrs = {"element_dtype": op.attrs["dtype"], "shape_type": _dt.int32}
    _list_node(w, op, "TensorListConcatV2", [w.ref(op.inputs[0]), shape, leading], attrs)


def _length(w: GraphDefWriter, op: Operation) -> None:
    _list_node(w, op, "TensorListLength", [w.ref(op.inputs[0])], {})


def _close(w: GraphDefWriter, op: Operation) -> None:
    _list_node(w, op, "NoOp", [], {})


REWRITES: dict[str, Callable[[GraphDefWriter, Operation], None]] = {
    "TensorArrayV3": _reserve,
    "TensorArrayWriteV3": _set_item,
    "TensorArrayReadV3": _get_item,
    "TensorArrayGatherV3": _gather,
    "TensorArrayScatterV3": _scatter,
    "TensorArraySplitV3": _split,
    "TensorArrayConcatV3": _concat,
    "TensorArraySizeV3": _length,
    "TensorArrayCloseV3": _close,
}
