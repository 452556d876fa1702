"""``fr.bitcast`` (op ``Bitcast``): a tensor's bytes read as another dtype, no copy of
the values' bits changed. Not differentiable (TF's ``NotDifferentiable``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.graph import convert_to_tensor
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from .._core.shape import TensorShape, unknown_shape
from .common import check_dtype, make, op_scope

if TYPE_CHECKING:
    from .._core.graph import Tensor
    from .._core.typing import DTypeLike, TensorLike

__all__ = ["bitcast"]

_BITCASTABLE = (
    _dt.float16,
    _dt.float32,
    _dt.float64,
    _dt.int64,
    _dt.int32,
    _dt.uint8,
    _dt.uint16,
    _dt.uint32,
    _dt.uint64,
    _dt.int8,
    _dt.int16,
    _dt.complex64,
    _dt.complex128,
)


def _sizes(op) -> tuple[int, int]:
    return np.dtype(op.inputs[0].dtype.np).itemsize, np.dtype(op.attrs["type"].np).itemsize


def _mismatch(op, last) -> str:
    """TF's message, with the dtypes named (TF prints their enum numbers)."""
    size_in, size_out = _sizes(op)
    return "Cannot bitcast from %s to %s due to shape. %s does not match %d" % (
        op.inputs[0].dtype.name,
        op.attrs["type"].name,
        last,
        size_out // size_in,
    )


def _bitcast_infer(op):
    x = op.inputs[0]
    check_dtype(x, _BITCASTABLE, "input")
    out = op.attrs["type"]
    if out not in _BITCASTABLE:
        raise TypeError(
            "Value passed to parameter 'type' has DataType %s not in list of allowed values: %s"
            % (out.name, ", ".join(d.name for d in _BITCASTABLE))
        )
    size_in, size_out = _sizes(op)
    dims = x.shape.as_list() if x.shape.ndims is not None else None
    if dims is None:
        return [(op.attrs["type"], unknown_shape())]
    if size_in > size_out:
        dims = dims + [size_in // size_out]
    elif size_in < size_out:
        if not dims or (dims[-1] is not None and dims[-1] != size_out // size_in):
            raise ValueError(_mismatch(op, dims[-1] if dims else "[]"))
        dims = dims[:-1]
    return [(op.attrs["type"], TensorShape(dims))]


def _bitcast_kernel(ctx, op, x):
    size_in, size_out = _sizes(op)
    x = np.ascontiguousarray(x)
    if size_in < size_out and (x.ndim == 0 or x.shape[-1] != size_out // size_in):
        raise errors.InvalidArgumentError(None, op, _mismatch(op, x.shape[-1] if x.ndim else "[]"))
    out = x.view(op.attrs["type"].np)  # little-endian bytes, as TF's on this host
    if size_in > size_out:
        out = out.reshape(x.shape + (size_in // size_out,))
    elif size_in < size_out:
        out = out.reshape(x.shape[:-1])
    return (out,)


register_op("Bitcast", infer=_bitcast_infer, kernel=_bitcast_kernel, grad=NOT_DIFFERENTIABLE)


def bitcast(input: TensorLike, type: DTypeLike, name: str | None = None) -> Tensor:
    """``input``'s bytes as a tensor of ``type``: the same shape when the two sizes are
    equal; one more dimension (of the size ratio) when ``type`` is narrower; one fewer
    when it is wider, whose last dimension must then be the size ratio.

    Args:
      input: a numeric tensor (not bool or string).
      type: the dtype to read its bytes as.
      name: the op name (default ``Bitcast``).
    """
    with op_scope([input], name, "Bitcast") as scope:
        x = convert_to_tensor(input, name="input")
        return make("Bitcast", [x], {"type": _dt.as_dtype(type)}, scope)
