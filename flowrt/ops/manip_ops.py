"""TF's ``manip_ops``: ``roll`` (op type Roll), the elements of a tensor shifted
cyclically along some axes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.graph import Tensor, convert_to_tensor
from .._core.registry import register_op
from .common import check_dtype, in_graph_of, make

if TYPE_CHECKING:
    from .._core.typing import TensorLike

__all__ = [
    "roll",
]


_INDEX = (_dt.int32, _dt.int64)


# --------------------------------------------------------------------------------------
# Roll
# --------------------------------------------------------------------------------------


def _roll_infer(op):
    x, shift, axis = op.inputs
    check_dtype(shift, _INDEX, "shift")
    check_dtype(axis, _INDEX, "axis")
    if shift.shape.ndims not in (None, 0, 1) or axis.shape.ndims not in (None, 0, 1):
        raise ValueError("shift and axis must be scalars or vectors")
    if not shift.shape.is_compatible_with(axis.shape):
        raise ValueError(
            "shift and axis must have the same size, got %s and %s" % (shift.shape, axis.shape)
        )
    return [(x.dtype, x.shape)]


def _roll_kernel(ctx, op, x, shift, axis):
    shift, axis = np.atleast_1d(shift), np.atleast_1d(axis)
    if shift.shape != axis.shape:
        raise errors.InvalidArgumentError(
            None,
            op,
            "shift and axis must have the same size, got %d and %d" % (shift.size, axis.size),
        )
    for a in axis.tolist():
        if not -x.ndim <= a < x.ndim:
            raise errors.InvalidArgumentError(
                None, op, "axis %d is out of range for a tensor of rank %d" % (a, x.ndim)
            )
    return (np.roll(x, tuple(shift.tolist()), tuple(axis.tolist())),)


register_op(
    "Roll",
    infer=_roll_infer,
    kernel=_roll_kernel,
    grad=lambda op, g: [roll(g, -op.inputs[1], op.inputs[2]), None, None],
)


def roll(input: TensorLike, shift: TensorLike, axis: TensorLike, name: str | None = None) -> Tensor:
    """``input`` with its elements shifted ``shift`` places along ``axis``, wrapping
    around (several shifts and axes may be given as vectors of the same size).

    Args:
      input: a tensor.
      shift: int32/int64 scalar or vector; positive shifts move toward higher indices.
      axis: int32/int64 scalar or vector of the axes to shift.
      name: the op's name (default ``Roll``).
    """
    with in_graph_of([input, shift, axis]):
        s = shift if isinstance(shift, Tensor) else convert_to_tensor(shift, dtype=_dt.int32)
        a = axis if isinstance(axis, Tensor) else convert_to_tensor(axis, dtype=_dt.int32)
        return make("Roll", [input, s, a], None, name)
