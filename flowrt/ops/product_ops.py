"""Products of whole tensors: ``tensordot`` (composed of transpose, reshape and
matmul, as TF composes it), ``cross`` (op type Cross, the cross product of 3-vectors)
and ``scalar_mul`` (an ``IndexedSlices`` operand stays sparse).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.graph import Tensor
from .._core.registry import register_op
from .._core.shape import TensorShape
from . import array_ops, linalg_ops, math_ops, slicing_ops
from .common import NUMERIC, check_dtype, make, op_scope, to_tensor
from .selection_ops import where_v2
from .set_ops import setdiff1d

if TYPE_CHECKING:
    from .._core.typing import TensorLike

__all__ = [
    "tensordot",
    "cross",
    "scalar_mul",
]


def _int_tensor(v, dtype=_dt.int32) -> Tensor:
    return v if isinstance(v, Tensor) else to_tensor(v, dtype)


# --------------------------------------------------------------------------------------
# tensordot (composed: transpose, reshape, matmul -- as TF)
# --------------------------------------------------------------------------------------


def _tensordot_axes(a: Tensor, axes):
    """The contraction axes of ``a`` and of ``b`` (lists, or int32 tensors)."""
    if isinstance(axes, (int, np.integer)):
        if axes < 0:
            raise ValueError("'axes' must be at least 0.")
        if a.shape.ndims is not None:
            if axes > a.shape.ndims:
                raise ValueError(
                    "'axes' must not be larger than the number of dimensions of tensor %s." % a
                )
            n = a.shape.ndims
            return list(range(n - axes, n)), list(range(axes))
        r = array_ops.rank(a)
        return array_ops.range(r - axes, r), array_ops.range(axes)
    if isinstance(axes, (list, tuple)):
        if len(axes) != 2:
            raise ValueError("'axes' must be an integer or have length 2.")
        a_axes, b_axes = axes
        if isinstance(a_axes, (int, np.integer)) and isinstance(b_axes, (int, np.integer)):
            a_axes, b_axes = [int(a_axes)], [int(b_axes)]
        if not isinstance(a_axes, Tensor) and not isinstance(b_axes, Tensor):
            a_axes, b_axes = [int(i) for i in a_axes], [int(i) for i in b_axes]
            if len(a_axes) != len(b_axes):
                raise ValueError(
                    "Different number of contraction axes 'a' and 'b', %d != %d."
                    % (len(a_axes), len(b_axes))
                )
            return a_axes, b_axes
        return _int_tensor(a_axes), _int_tensor(b_axes)
    axes = _int_tensor(axes)
    return axes[0], axes[1]


def _static_free_dims(a: Tensor, axes):
    """``a``'s free dimensions (some maybe None) when its rank and ``axes`` are static."""
    if a.shape.ndims is None or not isinstance(axes, list):
        return None
    n = a.shape.ndims
    axes = [i + n if i < 0 else i for i in axes]
    return [d for i, d in enumerate(a.shape.as_list()) if i not in axes]


def _tensordot_reshape(a: Tensor, axes, flipped: bool):
    """``a`` transposed and reshaped to a matrix with the contracted axes on the inner
    side (the outer side when ``flipped``); and its free dimensions (list or tensor)."""
    if a.shape.is_fully_defined() and isinstance(axes, list):
        dims = a.shape.as_list()
        n = len(dims)
        axes = [i + n if i < 0 else i for i in axes]
        for i in axes:
            if not 0 <= i < n:
                raise ValueError("tensordot axis %d is out of range for %s" % (i, a))
        free = [i for i in range(n) if i not in axes]
        free_dims = [dims[i] for i in free]
        prod_free = int(np.prod(free_dims))
        prod_axes = int(np.prod([dims[i] for i in axes]))
        perm = axes + free if flipped else free + axes
        new_shape = [prod_axes, prod_free] if flipped else [prod_free, prod_axes]
        t = a if perm == list(range(n)) else array_ops.transpose(a, perm)
        if t.shape.as_list() != new_shape:
            t = array_ops.reshape(t, new_shape)
        return t, free_dims
    shape_a, rank_a = array_ops.shape(a), array_ops.rank(a)
    ax = _int_tensor(axes)
    ax = where_v2(ax >= 0, ax, ax + rank_a)
    free_t, _ = setdiff1d(array_ops.range(rank_a), ax)
    free_dims_t = slicing_ops.gather(shape_a, free_t)
    prod_free_t = math_ops.reduce_prod(free_dims_t)
    prod_axes_t = math_ops.reduce_prod(slicing_ops.gather(shape_a, ax))
    if flipped:
        perm_t = slicing_ops.concat([ax, free_t], 0)
        shape_t = array_ops.stack([prod_axes_t, prod_free_t])
    else:
        perm_t = slicing_ops.concat([free_t, ax], 0)
        shape_t = array_ops.stack([prod_free_t, prod_axes_t])
    return array_ops.reshape(array_ops.transpose(a, perm_t), shape_t), free_dims_t


def tensordot(a: TensorLike, b: TensorLike, axes: Any, name: str | None = None) -> Tensor:
    """The tensor contraction of ``a`` and ``b`` over ``axes``, composed (as TF) from
    ``transpose``, ``reshape`` and ``matmul``, so its gradient is theirs.

    Args:
      a: a float tensor.
      b: a tensor of ``a``'s dtype.
      axes: an int ``N`` (the last N axes of ``a`` against the first N of ``b``), a pair
        of axis lists ``[a_axes, b_axes]`` of equal length, or an int32 tensor of shape
        ``[2, k]`` (or a pair of int32 tensors).
      name: a name scope for the ops (default ``Tensordot``).

    Raises:
      ValueError: for negative ``axes``, more axes than ``a`` has, or axis lists of
        different lengths.
    """
    with op_scope([a, b, axes], name, "Tensordot") as scope:
        a, b = to_tensor(a, name="a"), to_tensor(b, name="b")
        a_axes, b_axes = _tensordot_axes(a, axes)
        a_m, a_free = _tensordot_reshape(a, a_axes, False)
        b_m, b_free = _tensordot_reshape(b, b_axes, True)
        ab = linalg_ops.matmul(a_m, b_m)
        if isinstance(a_free, list) and isinstance(b_free, list):
            if ab.shape.as_list() == a_free + b_free:
                return array_ops.identity(ab, name=scope)
            return array_ops.reshape(ab, a_free + b_free, name=scope)
        a_static, b_static = _static_free_dims(a, a_axes), _static_free_dims(b, b_axes)
        a_free, b_free = _int_tensor(a_free), _int_tensor(b_free)
        out = array_ops.reshape(ab, slicing_ops.concat([a_free, b_free], 0), name=scope)
        if a_static is not None and b_static is not None:
            out.set_shape(TensorShape(a_static + b_static))
        return out


def _cross_infer(op):
    a, b = op.inputs
    check_dtype(a, NUMERIC, "a")
    if a.dtype is not b.dtype:
        raise TypeError("b has dtype %s, a %s" % (b.dtype.name, a.dtype.name))
    if not a.shape.is_compatible_with(b.shape):
        raise ValueError("a and b must be the same shape, got %s and %s" % (a.shape, b.shape))
    s = a.shape.merge_with(b.shape)
    if s.ndims == 0 or (s.ndims is not None and s.as_list()[-1] not in (None, 3)):
        raise ValueError("Dimension must be 3 but is %s for the inner axis of %s" % (s[-1], s))
    return [(a.dtype, s)]


def _cross_kernel(ctx, op, a, b):
    if a.shape != b.shape or not a.ndim or a.shape[-1] != 3:
        raise errors.InvalidArgumentError(
            None,
            op,
            "a and b must be the same shape with an inner dimension of 3, got %s and %s"
            % (list(a.shape), list(b.shape)),
        )
    return (np.cross(a, b).astype(a.dtype, copy=False),)


register_op(
    "Cross",
    infer=_cross_infer,
    kernel=_cross_kernel,
    grad=lambda op, g: [cross(op.inputs[1], g), cross(g, op.inputs[0])],
)


def cross(a: TensorLike, b: TensorLike, name: str | None = None) -> Tensor:
    """The cross product of the 3-vectors along the last axis of ``a`` and ``b``.

    Args:
      a: a numeric tensor whose last dimension is 3.
      b: a tensor of ``a``'s dtype and shape.
      name: the op's name (default ``Cross``).
    """
    with op_scope([a, b], None, None):
        ta, tb = math_ops.binary_inputs(a, b, "Cross")
        return make("Cross", [ta, tb], None, name)


def scalar_mul(scalar: TensorLike, x: TensorLike, name: str | None = None) -> Any:
    """``scalar * x`` for a 0-D ``scalar`` (an ``IndexedSlices`` ``x`` stays sparse).

    Raises:
      ValueError: if ``scalar`` is not 0-D.
    """
    with op_scope([scalar, x], name, "scalar_mul"):
        from .indexed_slices import IndexedSlices

        dt = x.dtype if hasattr(x, "dtype") else None
        s = to_tensor(scalar, dt if not isinstance(scalar, Tensor) else None)
        if s.shape.ndims != 0:
            raise ValueError("Only scalar multiply works, got shape %s" % s.shape)
        if isinstance(x, IndexedSlices):
            return IndexedSlices(s * x.values, x.indices, x.dense_shape)
        return s * to_tensor(x, s.dtype)
