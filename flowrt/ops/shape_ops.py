"""Shapes as values: ``ensure_shape`` (op type EnsureShape, a run-time shape check),
``shape_n`` (ShapeN), and the broadcast shape of two shapes, ``broadcast_dynamic_shape``
(BroadcastArgs) and ``broadcast_static_shape``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.graph import Tensor
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from .._core.shape import TensorShape, as_shape, broadcast_shapes
from .common import check_dtype, make, make_op, op_scope, to_tensor
from .const_eval import static_value

if TYPE_CHECKING:
    from .._core.typing import DTypeLike, ShapeLike, TensorLike

__all__ = [
    "ensure_shape",
    "shape_n",
    "broadcast_static_shape",
    "broadcast_dynamic_shape",
]


_INDEX = (_dt.int32, _dt.int64)


def _int_tensor(v, dtype=_dt.int32) -> Tensor:
    return v if isinstance(v, Tensor) else to_tensor(v, dtype)


# --------------------------------------------------------------------------------------
# EnsureShape, ShapeN, ListDiff, UnravelIndex, Bincount, Cross, BroadcastArgs
# --------------------------------------------------------------------------------------


def _ensure_infer(op):
    want = op.attrs["shape"]
    x = op.inputs[0]
    if not x.shape.is_compatible_with(want):
        raise ValueError(
            "Shape of tensor %s %s is not compatible with expected shape %s."
            % (x.name, x.shape, want)
        )
    return [(x.dtype, x.shape.merge_with(want))]


def _dims_str(shape: TensorShape) -> str:
    """A shape as TF's run-time messages print it: ``[2,?,4]``."""
    if shape.ndims is None:
        return "<unknown>"
    return "[%s]" % ",".join("?" if d is None else str(d) for d in shape.as_list())


def _ensure_kernel(ctx, op, x):
    want = op.attrs["shape"]
    if not TensorShape(x.shape).is_compatible_with(want):
        raise errors.InvalidArgumentError(
            None,
            op,
            "Shape of tensor %s %s is not compatible with expected shape %s."
            % (op.inputs[0].name, _dims_str(TensorShape(x.shape)), _dims_str(want)),
        )
    return (x,)


register_op("EnsureShape", infer=_ensure_infer, kernel=_ensure_kernel, grad=lambda op, g: [g])


def ensure_shape(x: TensorLike, shape: ShapeLike, name: str | None = None) -> Tensor:
    """``x``, checked at run time to have a shape compatible with ``shape`` (and given
    that static shape).

    Args:
      x: a tensor.
      shape: a (partially known) shape.
      name: the op's name (default ``EnsureShape``).

    Raises:
      ValueError: when ``x``'s static shape already contradicts ``shape``.
      InvalidArgumentError: at run time, naming both shapes.
    """
    return make("EnsureShape", [x], {"shape": as_shape(shape)}, name)


def _shape_n_infer(op):
    out = op.attrs["out_type"]
    return [(out, TensorShape([t.shape.ndims])) for t in op.inputs]


def _shape_n_kernel(ctx, op, *xs):
    dt = op.attrs["out_type"].np
    return tuple(np.asarray(x.shape, dtype=dt) for x in xs)


register_op("ShapeN", infer=_shape_n_infer, kernel=_shape_n_kernel, grad=NOT_DIFFERENTIABLE)


def shape_n(
    input: Sequence[TensorLike], out_type: DTypeLike = _dt.int32, name: str | None = None
) -> list[Tensor]:
    """The shapes of the tensors ``input``, one int vector each (one op ShapeN).

    Args:
      input: a list of tensors.
      out_type: int32 or int64.
      name: the op's name (default ``ShapeN``).
    """
    out = _dt.as_dtype(out_type)
    if out not in _INDEX:
        raise TypeError("out_type must be int32 or int64, got %s" % out.name)
    return list(make_op("ShapeN", list(input), {"out_type": out}, name).outputs)


def _bargs_infer(op):
    s0, s1 = op.inputs
    for t, n in ((s0, "s0"), (s1, "s1")):
        check_dtype(t, _INDEX, n)
    if s1.dtype is not s0.dtype:
        raise TypeError("s1 has dtype %s, s0 %s" % (s1.dtype.name, s0.dtype.name))
    a, b = static_value(s0), static_value(s1)
    if a is not None and b is not None:
        return [(s0.dtype, TensorShape([len(_bcast(a, b, None))]))]
    n0 = s0.shape[0] if s0.shape.ndims == 1 else None
    n1 = s1.shape[0] if s1.shape.ndims == 1 else None
    return [(s0.dtype, TensorShape([None if n0 is None or n1 is None else max(n0, n1)]))]


def _bcast(a, b, op):
    try:
        return np.broadcast_shapes(tuple(np.asarray(a).tolist()), tuple(np.asarray(b).tolist()))
    except ValueError:
        msg = "Incompatible shapes: [%s] vs. [%s]" % (
            ",".join(map(str, np.asarray(a).tolist())),
            ",".join(map(str, np.asarray(b).tolist())),
        )
        if op is None:
            raise ValueError(msg) from None
        raise errors.InvalidArgumentError(None, op, msg) from None


register_op(
    "BroadcastArgs",
    infer=_bargs_infer,
    kernel=lambda ctx, op, a, b: (np.asarray(_bcast(a, b, op), dtype=a.dtype),),
    grad=NOT_DIFFERENTIABLE,
)


def broadcast_dynamic_shape(
    shape_x: TensorLike, shape_y: TensorLike, name: str | None = None
) -> Tensor:
    """The broadcast of two shape vectors, computed at run time (op BroadcastArgs).

    Args:
      shape_x: an int32/int64 vector.
      shape_y: a vector of ``shape_x``'s dtype.
      name: the op's name.

    Raises:
      InvalidArgumentError: at run time, when the shapes do not broadcast.
    """
    with op_scope([shape_x, shape_y], None, None):
        sx = _int_tensor(shape_x)
        return make("BroadcastArgs", [sx, _int_tensor(shape_y, sx.dtype)], None, name)


def broadcast_static_shape(shape_x: ShapeLike, shape_y: ShapeLike) -> TensorShape:
    """The broadcast of two static shapes (unknown dimensions stay unknown).

    Raises:
      ValueError: when the shapes do not broadcast.
    """
    x, y = as_shape(shape_x), as_shape(shape_y)
    try:
        return broadcast_shapes(x, y)
    except ValueError:
        raise ValueError("Incompatible shapes for broadcasting: %s and %s" % (x, y)) from None
