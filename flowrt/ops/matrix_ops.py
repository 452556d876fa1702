"""Batched matrix structure ops of TF1: ``matrix_band_part``, ``matrix_diag``,
``matrix_diag_part``, ``matrix_set_diag``, ``diag``/``diag_part``, and the composites
built on them as TF builds them: ``eye``, ``trace``, ``matrix_transpose`` and ``norm``.

Each op type is one ``register_op`` row (shape rule, numpy kernel, TF's gradient).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.graph import Tensor, convert_to_tensor
from .._core.registry import register_op
from .._core.shape import TensorShape, unknown_shape
from . import array_ops, math_ops
from .common import check_dtype, in_graph_of, make, op_scope

if TYPE_CHECKING:
    from .._core.typing import DTypeLike, TensorLike

__all__ = [
    "matrix_band_part",
    "matrix_diag",
    "matrix_diag_part",
    "matrix_set_diag",
    "diag",
    "diag_part",
    "eye",
    "trace",
    "matrix_transpose",
    "norm",
]

_INDEX = (_dt.int32, _dt.int64)


def _rank_at_least(x: Tensor, n: int, what: str) -> None:
    r = x.shape.ndims
    if r is not None and r < n:
        raise ValueError("%s must be at least rank %d, got shape %s" % (what, n, x.shape))


# --------------------------------------------------------------------------------------
# MatrixBandPart: keep a band of each innermost matrix, zero the rest
# --------------------------------------------------------------------------------------


def _band_infer(op):
    x, lo, up = op.inputs
    _rank_at_least(x, 2, "input")
    check_dtype(lo, _INDEX, "num_lower")
    check_dtype(up, _INDEX, "num_upper")
    return [(x.dtype, x.shape)]


def _band_kernel(ctx, op, x, lo, up):
    m, n = x.shape[-2:]
    lo, up = int(lo), int(up)
    if lo > m or up > n:
        raise errors.InvalidArgumentError(
            None,
            op,
            "num_lower (%d) must be at most the row count %d and num_upper (%d) at most the "
            "column count %d" % (lo, m, up, n),
        )
    d = np.arange(n)[None, :] - np.arange(m)[:, None]  # column - row
    keep = np.ones((m, n), bool)
    if lo >= 0:
        keep &= d >= -lo
    if up >= 0:
        keep &= d <= up
    return (np.where(keep, x, np.zeros((), x.dtype)),)


register_op(
    "MatrixBandPart",
    infer=_band_infer,
    kernel=_band_kernel,
    grad=lambda op, g: [matrix_band_part(g, op.inputs[1], op.inputs[2]), None, None],
)


def matrix_band_part(
    input: TensorLike, num_lower: TensorLike, num_upper: TensorLike, name: str | None = None
) -> Tensor:
    """Keeps the central band of each innermost matrix of ``input``, zeroing the rest.

    Element ``[..., m, n]`` is kept where ``m - n <= num_lower`` and
    ``n - m <= num_upper``; a negative count keeps the whole triangle
    (``matrix_band_part(x, -1, 0)`` is the lower triangle, ``(x, 0, 0)`` the diagonal).

    Args:
      input: a tensor of rank 2 or more.
      num_lower: subdiagonals to keep (int32/int64 scalar; negative: all).
      num_upper: superdiagonals to keep (int32/int64 scalar; negative: all).
      name: the op's name (default ``MatrixBandPart``).
    """
    with in_graph_of([input, num_lower, num_upper]):
        x = convert_to_tensor(input)
        lo = convert_to_tensor(num_lower, dtype=_dt.int64)
        up = convert_to_tensor(num_upper, dtype=lo.dtype)
        return make("MatrixBandPart", [x, lo, up], None, name)


# --------------------------------------------------------------------------------------
# MatrixDiag, MatrixDiagPart, MatrixSetDiag (main diagonal of the innermost matrices)
# --------------------------------------------------------------------------------------


def _mdiag_infer(op):
    (x,) = op.inputs
    _rank_at_least(x, 1, "input")
    if x.shape.ndims is None:
        return [(x.dtype, unknown_shape())]
    return [(x.dtype, TensorShape(x.shape.as_list() + [x.shape.as_list()[-1]]))]


def _mdiag_kernel(ctx, op, x):
    n = x.shape[-1]
    out = np.zeros(x.shape + (n,), x.dtype)
    idx = np.arange(n)
    out[..., idx, idx] = x
    return (out,)


def _diagonal_shape(x: Tensor) -> TensorShape:
    """The shape of the main diagonals of ``x``'s innermost matrices."""
    if x.shape.ndims is None:
        return unknown_shape()
    dims = x.shape.as_list()
    m, n = dims[-2:]
    k = None if m is None or n is None else min(m, n)
    return TensorShape(dims[:-2] + [k])


def _mdiag_part_infer(op):
    (x,) = op.inputs
    _rank_at_least(x, 2, "input")
    return [(x.dtype, _diagonal_shape(x))]


def _mdiag_part_kernel(ctx, op, x):
    return (np.ascontiguousarray(np.diagonal(x, axis1=-2, axis2=-1)),)


def _set_diag_infer(op):
    x, d = op.inputs
    _rank_at_least(x, 2, "input")
    if d.dtype is not x.dtype:
        raise TypeError("diagonal has dtype %s, input %s" % (d.dtype.name, x.dtype.name))
    want = _diagonal_shape(x)
    if not want.is_compatible_with(d.shape):
        raise ValueError(
            "diagonal must have shape %s for an input of shape %s, got %s"
            % (want, x.shape, d.shape)
        )
    return [(x.dtype, x.shape)]


def _set_diag_kernel(ctx, op, x, d):
    k = min(x.shape[-2:])
    if d.shape != x.shape[:-2] + (k,):
        raise errors.InvalidArgumentError(
            None,
            op,
            "diagonal must have shape %s for an input of shape %s, got %s"
            % (list(x.shape[:-2]) + [k], list(x.shape), list(d.shape)),
        )
    out = x.copy()
    idx = np.arange(k)
    out[..., idx, idx] = d
    return (out,)


register_op(
    "MatrixDiag",
    infer=_mdiag_infer,
    kernel=_mdiag_kernel,
    grad=lambda op, g: [matrix_diag_part(g)],
)
register_op(
    "MatrixDiagPart",
    infer=_mdiag_part_infer,
    kernel=_mdiag_part_kernel,
    grad=lambda op, g: [matrix_set_diag(array_ops.zeros_like(op.inputs[0]), g)],
)
register_op(
    "MatrixSetDiag",
    infer=_set_diag_infer,
    kernel=_set_diag_kernel,
    grad=lambda op, g: [
        matrix_set_diag(g, array_ops.zeros_like(op.inputs[1])),
        matrix_diag_part(g),
    ],
)


def matrix_diag(diagonal: TensorLike, name: str = "diag") -> Tensor:
    """Batched diagonal matrices: ``[..., N]`` becomes ``[..., N, N]`` with ``diagonal``
    on the main diagonal and zeros elsewhere (op type MatrixDiag).

    Args:
      diagonal: a tensor of rank 1 or more.
      name: the op's name (TF's default ``diag``).
    """
    return make("MatrixDiag", [diagonal], None, name)


def matrix_diag_part(input: TensorLike, name: str = "diag_part") -> Tensor:
    """The main diagonals of the innermost matrices: ``[..., M, N]`` becomes
    ``[..., min(M, N)]`` (op type MatrixDiagPart).

    Args:
      input: a tensor of rank 2 or more.
      name: the op's name (TF's default ``diag_part``).
    """
    return make("MatrixDiagPart", [input], None, name)


def matrix_set_diag(input: TensorLike, diagonal: TensorLike, name: str = "set_diag") -> Tensor:
    """``input`` with the main diagonals of its innermost matrices replaced by
    ``diagonal`` (shape ``[..., min(M, N)]``) (op type MatrixSetDiag).

    Args:
      input: a tensor of rank 2 or more.
      diagonal: the new diagonals, of ``input``'s dtype.
      name: the op's name (TF's default ``set_diag``).
    """
    with in_graph_of([input, diagonal]):
        x = convert_to_tensor(input)
        return make("MatrixSetDiag", [x, convert_to_tensor(diagonal, dtype=x.dtype)], None, name)


# --------------------------------------------------------------------------------------
# Diag / DiagPart: rank k <-> rank 2k (TF1's tf.diag, tf.diag_part)
# --------------------------------------------------------------------------------------


def _diag_infer(op):
    (x,) = op.inputs
    _rank_at_least(x, 1, "input")
    if x.shape.ndims is None:
        return [(x.dtype, unknown_shape())]
    return [(x.dtype, TensorShape(x.shape.as_list() * 2))]


def _diag_kernel(ctx, op, x):
    return (np.diag(x.ravel()).reshape(x.shape + x.shape),)


def _diag_part_infer(op):
    (x,) = op.inputs
    r = x.shape.ndims
    if r is None:
        return [(x.dtype, unknown_shape())]
    if r == 0 or r % 2:
        raise ValueError("input must have an even, nonzero rank, got shape %s" % x.shape)
    a, b = TensorShape(x.shape.as_list()[: r // 2]), TensorShape(x.shape.as_list()[r // 2 :])
    if not a.is_compatible_with(b):
        raise ValueError("input's two halves must agree, got shape %s" % x.shape)
    return [(x.dtype, a.merge_with(b))]


def _diag_part_kernel(ctx, op, x):
    half = x.shape[: x.ndim // 2]
    if half != x.shape[x.ndim // 2 :]:
        raise errors.InvalidArgumentError(
            None, op, "input's two halves must agree, got shape %s" % list(x.shape)
        )
    n = int(np.prod(half))
    return (np.ascontiguousarray(np.diagonal(x.reshape(n, n))).reshape(half),)


register_op("Diag", infer=_diag_infer, kernel=_diag_kernel, grad=lambda op, g: [diag_part(g)])
register_op(
    "DiagPart", infer=_diag_part_infer, kernel=_diag_part_kernel, grad=lambda op, g: [diag(g)]
)


def diag(diagonal: TensorLike, name: str | None = None) -> Tensor:
    """A tensor of rank ``2k`` with ``diagonal`` (rank ``k``) on its diagonal:
    ``out[i1..ik, i1..ik] = diagonal[i1..ik]``, zero elsewhere (op type Diag).

    Args:
      diagonal: a tensor of rank 1 or more.
      name: the op's name.
    """
    return make("Diag", [diagonal], None, name)


def diag_part(input: TensorLike, name: str | None = None) -> Tensor:
    """The inverse of ``fr.diag``: ``out[i1..ik] = input[i1..ik, i1..ik]`` (op type
    DiagPart).

    Args:
      input: a tensor of even rank ``2k`` whose two halves of dimensions agree.
      name: the op's name.
    """
    return make("DiagPart", [input], None, name)


# --------------------------------------------------------------------------------------
# Composites, built as TF builds them
# --------------------------------------------------------------------------------------


def eye(
    num_rows: int,
    num_columns: int | None = None,
    batch_shape: list[int] | None = None,
    dtype: DTypeLike = _dt.float32,
    name: str | None = None,
) -> Tensor:
    """An identity matrix (or a batch of them): ones on the main diagonal.

    Args:
      num_rows: the number of rows.
      num_columns: the number of columns (default ``num_rows``).
      batch_shape: leading batch dimensions of the result.
      dtype: the result's dtype.
      name: the name scope (default ``eye``).
    """
    with op_scope([], name, "eye"):
        cols = num_rows if num_columns is None else num_columns
        batch = list(batch_shape or [])
        ones = array_ops.ones(batch + [min(num_rows, cols)], dtype=dtype)
        if cols == num_rows:
            return matrix_diag(ones)
        return matrix_set_diag(array_ops.zeros(batch + [num_rows, cols], dtype=dtype), ones)


def trace(x: TensorLike, name: str | None = None) -> Tensor:
    """The sum of the main diagonal of each innermost matrix of ``x``.

    Args:
      x: a tensor of rank 2 or more.
      name: the result's name (default ``Trace``).
    """
    with op_scope([x], name, "Trace") as scope:
        return math_ops.reduce_sum(matrix_diag_part(x), [-1], name=scope)


def matrix_transpose(
    a: TensorLike, name: str = "matrix_transpose", conjugate: bool = False
) -> Tensor:
    """``a`` with its two innermost dimensions swapped.

    Args:
      a: a tensor of rank 2 or more.
      name: the name scope (default ``matrix_transpose``).
      conjugate: conjugate complex values too.
    """
    with op_scope([a], name, "matrix_transpose"):
        x = convert_to_tensor(a, name="a")
        r = x.shape.ndims
        if r is None:
            raise ValueError("matrix_transpose needs a known rank, got shape %s" % x.shape)
        if r < 2:
            raise ValueError(
                "Argument 'a' should be a (batch) matrix, with rank >= 2, got %s" % x.shape
            )
        perm = list(range(r - 2)) + [r - 1, r - 2]
        out = array_ops.transpose(x, perm)
        return math_ops.conj(out) if conjugate and x.dtype.is_complex else out


def _axes_list(axis: Any) -> list[int] | None:
    if axis is None:
        return None
    if isinstance(axis, (list, tuple)):
        return [int(a) for a in axis]
    return [int(axis)]


def norm(
    tensor: TensorLike,
    ord: Any = "euclidean",
    axis: Any = None,
    keepdims: bool | None = None,
    name: str | None = None,
    keep_dims: bool | None = None,
) -> Tensor:
    """The vector or matrix norm of ``tensor``, as TF1's ``tf.norm``.

    With ``axis`` None or one axis: the vector norm (``'euclidean'``, 1, ``np.inf`` or
    any real ``p > 0``) of the flattened tensor or along that axis. With two axes: the
    matrix norm (``'fro'``/``'euclidean'``, 1: largest column sum, ``np.inf``: largest
    row sum, 2: largest singular value, by ``svd``) of each matrix those axes span.

    Args:
      tensor: a float tensor.
      ord: the order of the norm.
      axis: None, an axis, or a pair of axes.
      keepdims: keep reduced axes with length 1.
      name: the name scope (default ``norm``).
      keep_dims: TF1's old name for ``keepdims``.

    Raises:
      ValueError: for an unsupported ``ord`` (TF's message) or a bad ``axis``.
    """
    if keepdims is not None and keep_dims is not None:
        raise ValueError("Can not specify both 'keepdims' and 'keep_dims'.")
    kd = bool(keepdims if keepdims is not None else keep_dims)
    axes = _axes_list(axis)
    is_matrix = axes is not None and len(axes) == 2
    if axes is not None and (len(axes) not in (1, 2) or (is_matrix and axes[0] == axes[1])):
        raise ValueError(
            "'axis' must be None, an integer, or a tuple of 2 unique integers, got %s"
            % (tuple(axis) if isinstance(axis, list) else axis,)
        )
    if is_matrix:
        if ord not in ("euclidean", "fro", 1, 2, np.inf):
            raise ValueError(
                "'ord' must be a supported matrix norm in ['euclidean', 'fro', 1, 2, inf], "
                "got %s" % (ord,)
            )
    elif ord not in ("euclidean", 1, 2, np.inf) and not (
        isinstance(ord, (int, float)) and not isinstance(ord, bool) and ord > 0
    ):
        raise ValueError("'ord' must be a supported vector norm, got %s" % (ord,))
    with op_scope([tensor], name, "norm"):
        x = convert_to_tensor(tensor, name="tensor")
        if is_matrix and ord == 2:
            assert axes is not None
            return _spectral_norm(x, axes, kd)
        if ord in ("euclidean", "fro") or (ord == 2 and not is_matrix):
            prod = x * math_ops.conj(x) if x.dtype.is_complex else x * x
            result = math_ops.sqrt(math_ops.reduce_sum(prod, axes, keepdims=True))
        else:
            result = math_ops.abs(x)
            if ord == 1:
                result = math_ops.reduce_sum(
                    result, None if axes is None else axes[0], keepdims=True
                )
                if is_matrix:
                    assert axes is not None
                    result = math_ops.reduce_max(result, axes[-1], keepdims=True)
            elif ord == np.inf:
                if is_matrix:
                    assert axes is not None
                    result = math_ops.reduce_sum(result, axes[1], keepdims=True)
                result = math_ops.reduce_max(
                    result, None if axes is None else axes[0], keepdims=True
                )
            else:
                p = convert_to_tensor(float(ord), dtype=result.dtype)
                result = math_ops.pow(
                    math_ops.reduce_sum(math_ops.pow(result, p), axes, keepdims=True), 1.0 / p
                )
        if not kd:
            result = array_ops.squeeze(result, axes)
        return result


def _spectral_norm(x: Tensor, axes: list, keepdims: bool) -> Tensor:
    """The largest singular value of each matrix that ``axes`` span (``svd`` of ``x``
    with those axes moved last)."""
    from .decomposition_ops import svd  # decomposition_ops builds on this module

    r = x.shape.ndims
    if r is None:
        raise ValueError("norm with ord=2 over two axes needs a known rank, got %s" % x.shape)
    pos = [int(a) % r for a in axes]
    perm = [i for i in range(r) if i not in pos] + pos
    s = svd(array_ops.transpose(x, perm), compute_uv=False)
    top = math_ops.reduce_max(math_ops.abs(s), axis=-1, keepdims=True)
    if x.dtype.is_complex:
        top = math_ops.cast(top, x.dtype)
    result = array_ops.transpose(array_ops.expand_dims(top, -1), [perm.index(i) for i in range(r)])
    return result if keepdims else array_ops.squeeze(result, pos)
