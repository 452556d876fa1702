"""Reductions beyond ``math_ops``' sums, means and extrema: ``reduce_logsumexp``
(TF's overflow-free composite), ``reduce_euclidean_norm`` (op type EuclideanNorm),
``count_nonzero``, ``reduce_variance`` and ``reduce_std``.

The composites are built from existing ops as TF builds them, so their gradients are
the composites'.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .. import dtypes as _dt
from .._core.graph import Tensor, convert_to_tensor
from .._core.registry import register_op
from . import array_ops, math_ops
from .common import COMPLEX, NUMERIC, op_scope, reduce_args
from .cwise_math_ops import is_finite

if TYPE_CHECKING:
    from .._core.typing import AxisLike, TensorLike

__all__ = [
    "reduce_logsumexp",
    "count_nonzero",
]


# --------------------------------------------------------------------------------------
# reduce_logsumexp: TF's composite (math_ops.py), so its gradient is the composite's
# --------------------------------------------------------------------------------------


def reduce_logsumexp(
    input_tensor: TensorLike,
    axis: AxisLike = None,
    keepdims: bool | None = None,
    name: str | None = None,
    reduction_indices: AxisLike = None,
    keep_dims: bool | None = None,
) -> Tensor:
    """``log(reduce_sum(exp(input_tensor), axis))``, computed without overflow.

    The maximum along ``axis`` is subtracted before exponentiating and added back
    (ignored where it is infinite), exactly as TF builds it, so large inputs give finite
    results and the gradient is the softmax of the inputs.

    Args:
      input_tensor: a float tensor.
      axis: the axes to reduce (all if None); negative axes count from the end.
      keepdims: keep reduced axes with length 1.
      name: the name of the result (default ``ReduceLogSumExp``).
      reduction_indices: TF1's old name for ``axis``.
      keep_dims: TF1's old name for ``keepdims``.
    """
    axis, kd = reduce_args(axis, keepdims, reduction_indices, keep_dims)
    with op_scope([input_tensor], name, "ReduceLogSumExp") as scope:
        x = convert_to_tensor(input_tensor, name="input_tensor")
        raw_max = math_ops.reduce_max(x, axis=axis, keepdims=True)
        my_max = array_ops.stop_gradient(
            math_ops.where(is_finite(raw_max), raw_max, array_ops.zeros_like(raw_max))
        )
        result = math_ops.log(
            math_ops.reduce_sum(math_ops.exp(math_ops.subtract(x, my_max)), axis, keepdims=kd)
        )
        if not kd:
            my_max = array_ops.reshape(my_max, array_ops.shape(result))
        return math_ops.add(result, my_max, name=scope)


def _euclidean_norm_kernel(ctx, op, x, axis):
    ax = math_ops.reduction_axes(x, axis)
    sq = x * np.conj(x) if x.dtype.kind == "c" else np.square(x, dtype=np.float64)
    s = np.sum(sq, axis=ax, keepdims=op.attrs["keep_dims"])
    return (np.asarray(np.sqrt(s)).astype(x.dtype),)  # integers truncate, as TF's sqrt


def _euclidean_norm_grad(op, g):
    y = math_ops.kept_shape_grad(op, op.outputs[0])
    return [op.inputs[0] / (y / math_ops.kept_shape_grad(op, g)), None]


register_op(
    "EuclideanNorm",
    infer=math_ops.reduce_infer(NUMERIC + COMPLEX),
    kernel=_euclidean_norm_kernel,
    grad=_euclidean_norm_grad,
)

_euclidean_norm = math_ops.reduce_fn("EuclideanNorm", "reduce_euclidean_norm")


def reduce_euclidean_norm(
    input_tensor: TensorLike,
    axis: AxisLike = None,
    keepdims: bool = False,
    name: str | None = None,
) -> Tensor:
    """The square root of the sum of squares of ``input_tensor`` along ``axis`` (all
    axes if None): op type EuclideanNorm. Integer results are truncated, as in TF.

    Args:
      input_tensor: a numeric tensor.
      axis: the axes to reduce; negative axes count from the end.
      keepdims: keep reduced axes with length 1.
      name: the op's name (default ``EuclideanNorm``).
    """
    return _euclidean_norm(input_tensor, axis, keepdims, name)


def count_nonzero(
    input_tensor: TensorLike,
    axis: AxisLike = None,
    keepdims: bool | None = None,
    dtype: Any = _dt.int64,
    name: str | None = None,
    reduction_indices: AxisLike = None,
    keep_dims: bool | None = None,
) -> Tensor:
    """The number of nonzero elements of ``input_tensor`` along ``axis`` (all if None).

    Args:
      input_tensor: a numeric or bool tensor.
      axis: the axes to count along; negative axes count from the end.
      keepdims: keep reduced axes with length 1.
      dtype: the dtype of the counts (int64, as TF).
      name: the name scope (default ``count_nonzero``).
      reduction_indices: TF1's old name for ``axis``.
      keep_dims: TF1's old name for ``keepdims``.
    """
    axis, kd = reduce_args(axis, keepdims, reduction_indices, keep_dims)
    with op_scope([input_tensor], name, "count_nonzero"):
        x = convert_to_tensor(input_tensor, name="input")
        zero = array_ops.zeros([], dtype=x.dtype)
        nonzero = math_ops.cast(math_ops.not_equal(x, zero), _dt.int64)
        return math_ops.cast(math_ops.reduce_sum(nonzero, axis, keepdims=kd), dtype=dtype)


def reduce_variance(
    input_tensor: TensorLike,
    axis: AxisLike = None,
    keepdims: bool = False,
    name: str | None = None,
) -> Tensor:
    """The variance of ``input_tensor`` along ``axis`` (all if None): the mean squared
    deviation from the mean, divided by N (``fr.math.reduce_variance``).

    Args:
      input_tensor: a float tensor.
      axis: the axes to reduce; negative axes count from the end.
      keepdims: keep reduced axes with length 1.
      name: the name scope (default ``reduce_variance``).
    """
    with op_scope([input_tensor], name, "reduce_variance"):
        x = convert_to_tensor(input_tensor, name="input_tensor")
        means = math_ops.reduce_mean(x, axis, keepdims=True)
        squared_deviations = math_ops.square(math_ops.abs(math_ops.subtract(x, means)))
        return math_ops.reduce_mean(squared_deviations, axis, keepdims=keepdims)


def reduce_std(
    input_tensor: TensorLike,
    axis: AxisLike = None,
    keepdims: bool = False,
    name: str | None = None,
) -> Tensor:
    """The standard deviation of ``input_tensor`` along ``axis``: the square root of
    ``reduce_variance`` (``fr.math.reduce_std``).

    Args:
      input_tensor: a float tensor.
      axis: the axes to reduce; negative axes count from the end.
      keepdims: keep reduced axes with length 1.
      name: the name scope (default ``reduce_std``).
    """
    with op_scope([input_tensor], name, "reduce_std"):
        return math_ops.sqrt(reduce_variance(input_tensor, axis, keepdims))
