"""TF1's linear solvers: ``MatrixSolve``, ``MatrixTriangularSolve``, ``MatrixSolveLs``,
the composites TF builds on them and on the decompositions (``cholesky_solve``,
``matrix_solve_ls``/``tf.linalg.lstsq``, ``pinv``, ``matrix_rank``), the ``Lu``
factorization and the matrix exponential (``MatrixExponential``, solved Pade
approximants).

Each op type is one ``register_op`` row (shape rule over batch dims, numpy kernel, TF's
gradient from ``linalg_grad.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.graph import Tensor, convert_to_tensor
from .._core.registry import register_op
from .._core.shape import TensorShape, broadcast_shapes, unknown_shape
from . import array_ops, math_ops, matrix_ops
from .common import in_graph_of, is_tensor_like, make, op_scope, shape_str
from .decomposition_ops import (
    cholesky,
    lapack_in,
    matrix_dims,
    mm,
    real_gradient_only,
    square_infer,
    svd,
)
from .math_ops import sum_to

if TYPE_CHECKING:
    from .._core.typing import TensorLike

# TF1's top-level names; fr.linalg adds lstsq, pinv and matrix_rank.
__all__ = [
    "matrix_solve",
    "matrix_triangular_solve",
    "matrix_solve_ls",
    "cholesky_solve",
]


def _solve_args(matrix: TensorLike, rhs: TensorLike, op_type: str) -> list[Tensor]:
    a = convert_to_tensor(matrix, name="matrix")
    b = convert_to_tensor(rhs, dtype=None if is_tensor_like(rhs) else a.dtype, name="rhs")
    if b.dtype is not a.dtype:
        raise TypeError(
            "Input 'rhs' of '%s' Op has type %s that does not match type %s of argument "
            "'matrix'." % (op_type, b.dtype.name, a.dtype.name)
        )
    return [a, b]


def _rhs_dims(a: Tensor, b: Tensor) -> tuple[list | None, Any, Any]:
    """``(batch, M, K)`` of the right-hand sides, checked against ``[..., M, M]``."""
    batch_a, m, n = matrix_dims(a, square=True)
    m = m if m is not None else n
    s = b.shape
    if s.ndims is None or batch_a is None:
        return None, m, None if s.ndims is None else s.as_list()[-1]
    if s.ndims < 2:
        raise ValueError(
            "Shape must be at least rank 2 but is rank %d: rhs must be [..., M, K], got %s"
            % (s.ndims, shape_str(s))
        )
    rows, k = s.as_list()[-2:]
    if m is not None and rows is not None and m != rows:
        raise ValueError(
            "Dimensions must be equal, but are %d and %d: matrix %s has %d rows and rhs %s "
            "%d" % (m, rows, shape_str(a.shape), m, shape_str(s), rows)
        )
    return s.as_list()[:-2], m if m is not None else rows, k


# --------------------------------------------------------------------------------------
# MatrixSolve
# --------------------------------------------------------------------------------------


def _solve_infer(op):
    a, b = op.inputs
    batch_b, m, k = _rhs_dims(a, b)
    if batch_b is None:
        return [(a.dtype, unknown_shape())]
    batch_a = TensorShape(a.shape.as_list()[:-2])
    if not batch_a.is_compatible_with(TensorShape(batch_b)):
        raise ValueError(
            "batch dimensions must be equal, got matrix %s and rhs %s (MatrixSolve does not "
            "broadcast)" % (shape_str(a.shape), shape_str(b.shape))
        )
    return [(a.dtype, batch_a.merge_with(batch_b).concatenate([m, k]))]


def _solve_kernel(ctx, op, a, b):
    if a.shape[:-2] != b.shape[:-2] or a.shape[-1] != b.shape[-2]:
        raise errors.InvalidArgumentError(
            None,
            op,
            "matrix %s and rhs %s do not fit: need [..., M, M] and [..., M, K] with the same "
            "batch dimensions" % (list(a.shape), list(b.shape)),
        )
    x = lapack_in(a)
    if op.attrs["adjoint"]:
        x = np.conj(np.swapaxes(x, -1, -2))
    try:
        out = np.linalg.solve(x, lapack_in(b)) if b.size else np.zeros(b.shape, x.dtype)
    except np.linalg.LinAlgError:
        raise errors.InvalidArgumentError(None, op, "Input matrix is not invertible.") from None
    return (np.ascontiguousarray(out, dtype=b.dtype),)


def _solve_grad(op, g):
    real_gradient_only(op)
    a = op.inputs[0]
    adj = op.attrs["adjoint"]
    c = op.outputs[0]
    grad_b = matrix_solve(a, g, adjoint=not adj)
    grad_a = -mm(c, grad_b, adjoint_b=True) if adj else -mm(grad_b, c, adjoint_b=True)
    return [grad_a, grad_b]


register_op("MatrixSolve", infer=_solve_infer, kernel=_solve_kernel, grad=_solve_grad)


def matrix_solve(
    matrix: TensorLike, rhs: TensorLike, adjoint: bool = False, name: str | None = None
) -> Tensor:
    """Solves ``matrix @ x = rhs`` (or ``adjoint(matrix) @ x = rhs``) for each square
    matrix (op type MatrixSolve).

    Args:
      matrix: float16/32/64 or complex64/128 tensor of shape ``[..., M, M]``.
      rhs: tensor of the same dtype and batch dimensions, shape ``[..., M, K]``.
      adjoint: solve with the conjugate transposes of ``matrix``.
      name: the op's name (default ``MatrixSolve``).

    Raises:
      fr.errors.InvalidArgumentError: at run time, "Input matrix is not invertible."

    Note (flowrt): gradients for complex inputs are not supported (TypeError).
    """
    with in_graph_of([matrix, rhs]):
        inputs = _solve_args(matrix, rhs, "MatrixSolve")
    return make("MatrixSolve", inputs, {"adjoint": bool(adjoint)}, name)


# --------------------------------------------------------------------------------------
# MatrixTriangularSolve (batch dims broadcast, as TF 2)
# --------------------------------------------------------------------------------------


def _tri_infer(op):
    a, b = op.inputs
    batch_b, m, k = _rhs_dims(a, b)
    if batch_b is None:
        return [(a.dtype, unknown_shape())]
    batch = broadcast_shapes(TensorShape(a.shape.as_list()[:-2]), TensorShape(batch_b))
    return [(a.dtype, batch.concatenate([m, k]))]


def _substitute_rows(a: np.ndarray, b: np.ndarray, lower: bool) -> np.ndarray:
    """Row-by-row substitution: IEEE inf/nan past a zero pivot, as TF's kernel."""
    n = a.shape[-1]
    x = np.array(b, dtype=np.result_type(a, b), copy=True)
    for i in range(n) if lower else range(n - 1, -1, -1):
        done = slice(0, i) if lower else slice(i + 1, n)
        acc = a[..., i : i + 1, done] @ x[..., done, :]
        x[..., i : i + 1, :] = (x[..., i : i + 1, :] - acc) / a[..., i : i + 1, i : i + 1]
    return x


def _solve_block(a: np.ndarray, b: np.ndarray, lower: bool) -> np.ndarray:
    # LAPACK's LU of an upper triangular matrix needs no pivot and no update (its
    # column below the diagonal is zero), so gesv on it is back substitution done in C;
    # a lower triangular system becomes one by reversing rows and columns.
    if lower:
        a, b = a[..., ::-1, ::-1], b[..., ::-1, :]
    try:
        x = np.linalg.solve(np.triu(a), b)
    except np.linalg.LinAlgError:  # a zero pivot: TF's inf/nan, row by row
        x = _substitute_rows(a, b, lower=False)
    return x[..., ::-1, :] if lower else x


def triangular_substitution(a: np.ndarray, b: np.ndarray, lower: bool) -> np.ndarray:
    """``x`` with ``tri(a) @ x = b``, reading only the ``lower`` (or upper) triangle of
    ``a``; batch dims already broadcast. A zero pivot gives inf/nan, as TF's kernel.

    Halves recursively so that most of the work is matrix products; blocks up to 64
    rows are solved by LAPACK (``_solve_block``).
    """
    n = a.shape[-1]
    if n <= 64:
        return _solve_block(a, b, lower)
    h = n // 2
    if lower:
        x1 = triangular_substitution(a[..., :h, :h], b[..., :h, :], True)
        x2 = triangular_substitution(a[..., h:, h:], b[..., h:, :] - a[..., h:, :h] @ x1, True)
    else:
        x2 = triangular_substitution(a[..., h:, h:], b[..., h:, :], False)
        x1 = triangular_substitution(a[..., :h, :h], b[..., :h, :] - a[..., :h, h:] @ x2, False)
    return np.concatenate([x1, x2], axis=-2)


def _tri_kernel(ctx, op, a, b):
    if a.shape[-1] != b.shape[-2]:
        raise errors.InvalidArgumentError(
            None, op, "matrix %s and rhs %s do not fit" % (list(a.shape), list(b.shape))
        )
    try:
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    except ValueError:
        raise errors.InvalidArgumentError(
            None,
            op,
            "batch dimensions of matrix %s and rhs %s do not broadcast"
            % (list(a.shape), list(b.shape)),
        ) from None
    x, lower = lapack_in(a), op.attrs["lower"]
    if op.attrs["adjoint"]:
        x, lower = np.conj(np.swapaxes(x, -1, -2)), not lower
    x = np.broadcast_to(x, batch + x.shape[-2:])
    rhs = np.broadcast_to(lapack_in(b), batch + b.shape[-2:])
    with np.errstate(divide="ignore", invalid="ignore"):
        out = triangular_substitution(x, rhs, lower)
    return (np.ascontiguousarray(out, dtype=b.dtype),)


def _tri_grad(op, g):
    real_gradient_only(op)
    a, b = op.inputs
    adj, lower = op.attrs["adjoint"], op.attrs["lower"]
    c = op.outputs[0]
    grad_b = _tri_op(a, g, lower, not adj)
    grad_a = -mm(c, grad_b, adjoint_b=True) if adj else -mm(grad_b, c, adjoint_b=True)
    grad_a = (
        matrix_ops.matrix_band_part(grad_a, -1, 0)
        if lower
        else (matrix_ops.matrix_band_part(grad_a, 0, -1))
    )
    # Sum over the batch dims each input was broadcast along.
    return [sum_to(grad_a, a, grad_a, grad_a.shape), sum_to(grad_b, b, grad_b, grad_b.shape)]


register_op("MatrixTriangularSolve", infer=_tri_infer, kernel=_tri_kernel, grad=_tri_grad)


def _tri_op(matrix: Tensor, rhs: Tensor, lower: bool, adjoint: bool) -> Tensor:
    return make(
        "MatrixTriangularSolve", [matrix, rhs], {"lower": bool(lower), "adjoint": bool(adjoint)}
    )


def matrix_triangular_solve(
    matrix: TensorLike,
    rhs: TensorLike,
    lower: bool = True,
    adjoint: bool = False,
    name: str | None = None,
) -> Tensor:
    """Solves ``matrix @ x = rhs`` for triangular matrices (op type
    MatrixTriangularSolve); only the ``lower`` (else upper) triangle of ``matrix`` is
    read. Batch dimensions broadcast (TF 2's kernel).

    Args:
      matrix: float16/32/64 or complex64/128 tensor of shape ``[..., M, M]``.
      rhs: tensor of the same dtype, shape ``[..., M, K]``.
      lower: ``matrix`` is lower triangular (else upper).
      adjoint: solve with the conjugate transposes of ``matrix``.
      name: the name scope (default ``triangular_solve``, as TF 2.21).

    A zero on the diagonal gives inf/nan in the result, as in TF (no error).

    Note (flowrt): gradients for complex inputs are not supported (TypeError).
    """
    with op_scope([matrix, rhs], name, "triangular_solve"):
        a, b = _solve_args(matrix, rhs, "MatrixTriangularSolve")
        return _tri_op(a, b, lower, adjoint)


def cholesky_solve(chol: TensorLike, rhs: TensorLike, name: str | None = None) -> Tensor:
    """Solves ``A @ x = rhs`` given the Cholesky factor ``chol`` of ``A`` (from
    ``fr.cholesky``), by two triangular solves, as TF composes it.

    Args:
      chol: float tensor of shape ``[..., M, M]``, lower triangular.
      rhs: tensor of the same dtype, shape ``[..., M, K]``.
      name: the name scope (default ``cholesky_solve``).
    """
    with op_scope([chol, rhs], name, "cholesky_solve"):
        a, b = _solve_args(chol, rhs, "MatrixTriangularSolve")
        y = _tri_op(a, b, lower=True, adjoint=False)
        return _tri_op(a, y, lower=True, adjoint=True)


# --------------------------------------------------------------------------------------
# MatrixSolveLs and matrix_solve_ls (tf.linalg.lstsq)
# --------------------------------------------------------------------------------------

_RANK_DEFICIENT = (
    "Input matrix was rank deficient or ill-conditioned. Try setting fast=False or "
    "provide a larger l2_regularizer > 0."
)


def _ls_infer(op):
    a, b, l2 = op.inputs
    batch_a, m, n = matrix_dims(a, square=False)
    if l2.dtype is not _dt.float64 or l2.shape.ndims not in (None, 0):
        raise TypeError(
            "l2_regularizer must be a float64 scalar, got %s %s" % (l2.dtype.name, l2.shape)
        )
    s = b.shape
    if batch_a is None or s.ndims is None:
        return [(a.dtype, unknown_shape())]
    if s.ndims < 2:
        raise ValueError("Shape must be at least rank 2 but is rank %d (rhs)" % s.ndims)
    rows, k = s.as_list()[-2:]
    if m is not None and rows is not None and m != rows:
        raise ValueError(
            "Dimensions must be equal, but are %d and %d: matrix %s and rhs %s need the same "
            "number of rows" % (m, rows, shape_str(a.shape), shape_str(s))
        )
    batch = TensorShape(batch_a).merge_with(TensorShape(s.as_list()[:-2]))
    return [(a.dtype, batch.concatenate([n, k]))]


def _ls_kernel(ctx, op, a, b, l2):
    if a.shape[:-2] != b.shape[:-2] or a.shape[-2] != b.shape[-2]:
        raise errors.InvalidArgumentError(
            None, op, "matrix %s and rhs %s do not fit" % (list(a.shape), list(b.shape))
        )
    x, rhs = lapack_in(a), lapack_in(b)
    xh = np.conj(np.swapaxes(x, -1, -2))
    m, n = x.shape[-2:]
    if not op.attrs["fast"]:  # the minimum-norm least-squares solution; l2 ignored (TF)
        return (np.ascontiguousarray(np.linalg.pinv(x) @ rhs, dtype=b.dtype),)
    over = m >= n
    gram = xh @ x if over else x @ xh
    gram = gram + float(l2) * np.eye(gram.shape[-1], dtype=gram.dtype)
    try:
        chol = np.linalg.cholesky(gram)
    except np.linalg.LinAlgError:
        raise errors.InvalidArgumentError(None, op, _RANK_DEFICIENT) from None
    cholh = np.conj(np.swapaxes(chol, -1, -2))
    with np.errstate(divide="ignore", invalid="ignore"):

        def chol_solve(r):
            return triangular_substitution(cholh, triangular_substitution(chol, r, True), False)

        out = chol_solve(xh @ rhs) if over else xh @ chol_solve(rhs)
    return (np.ascontiguousarray(out, dtype=b.dtype),)


def _regularized_gramian_cholesky(a: Tensor, l2: Tensor, first_kind: bool) -> Tensor:
    gram = mm(a, a, adjoint_a=first_kind, adjoint_b=not first_kind)
    eye = matrix_ops.matrix_set_diag(
        array_ops.zeros_like(gram), array_ops.ones_like(matrix_ops.matrix_diag_part(gram))
    )
    return cholesky(gram + math_ops.cast(l2, a.dtype) * eye)


def _ls_grad(op, g):
    # TF's MatrixSolveLsGrad: backprop through the normal equations of the first kind
    # (M >= N) or of the second kind (M < N).
    real_gradient_only(op)
    if not op.attrs["fast"]:
        raise ValueError("Gradient not defined for fast=False")
    a, b, l2 = op.inputs
    x = op.outputs[0]

    def overdetermined():
        chol = _regularized_gramian_cholesky(a, l2, first_kind=True)
        z = cholesky_solve(chol, g)
        xzt = mm(x, z, adjoint_b=True)
        zx_sym = xzt + matrix_ops.matrix_transpose(xzt)
        return [-mm(a, zx_sym) + mm(b, z, adjoint_b=True), mm(a, z)]

    def underdetermined():
        chol = _regularized_gramian_cholesky(a, l2, first_kind=False)
        grad_b = cholesky_solve(chol, mm(a, g))
        tmp = cholesky_solve(chol, b)
        a1 = -mm(grad_b, mm(tmp, a, adjoint_a=True))
        a2 = mm(tmp, g - mm(a, grad_b, adjoint_a=True), adjoint_b=True)
        return [a1 + a2, grad_b]

    dims = a.shape.as_list()[-2:] if a.shape.ndims is not None else [None, None]
    if None not in dims:
        ga, gb = overdetermined() if dims[0] >= dims[1] else underdetermined()
    else:
        from .control_flow_ops import cond

        shape = array_ops.shape(a)
        ga, gb = cond(shape[-2] >= shape[-1], overdetermined, underdetermined)
    return [ga, gb, None]


register_op("MatrixSolveLs", infer=_ls_infer, kernel=_ls_kernel, grad=_ls_grad)

_L2_CACHE_SIZE_GUESS = 256000


def matrix_solve_ls(
    matrix: TensorLike,
    rhs: TensorLike,
    l2_regularizer: Any = 0.0,
    fast: bool = True,
    name: str | None = None,
) -> Tensor:
    """Least-squares solutions of ``matrix @ x = rhs`` (``tf.linalg.lstsq``).

    With ``fast`` (the default) and static matrix dims, TF's composite: for ``M >= N``
    ``x = (A^H A + l2 I)^-1 A^H rhs``, else ``x = A^H (A A^H + l2 I)^-1 rhs``, each by a
    Cholesky factorization (so the gradient flows through ``Cholesky``); otherwise, and
    for large batches of small matrices, the MatrixSolveLs op. ``fast=False`` gives the
    minimum-norm solution, ignoring ``l2_regularizer``, and has no gradient.

    Args:
      matrix: float tensor of shape ``[..., M, N]``.
      rhs: tensor of the same dtype, shape ``[..., M, K]``.
      l2_regularizer: a float64 scalar ``>= 0``.
      fast: use the normal equations (Cholesky).
      name: the name scope / op name (default ``matrix_solve_ls``).

    Note (flowrt): complex inputs always use the MatrixSolveLs op (the composite needs
    ``fr.matmul``, which has no complex kernel); its gradient is not supported for them.

    Raises:
      NotImplementedError: for complex128 with a nonzero ``l2_regularizer`` (as TF).
      fr.errors.InvalidArgumentError: at run time with ``fast``, when the matrix is rank
        deficient or ill-conditioned.
    """
    with in_graph_of([matrix, rhs]):
        a, b = _solve_args(matrix, rhs, "MatrixSolveLs")
    if a.dtype is _dt.complex128 and (is_tensor_like(l2_regularizer) or l2_regularizer != 0):
        raise NotImplementedError(
            "matrix_solve_ls is currently disabled for complex128 and l2_regularizer != 0 "
            "due to poor accuracy."
        )
    s = a.shape
    composite = bool(fast) and not a.dtype.is_complex  # fr.matmul has no complex kernel
    if composite and s.is_fully_defined():
        batch = int(np.prod(s.as_list()[:-2], dtype=np.int64))
        big = int(np.prod(s.as_list(), dtype=np.int64)) * a.dtype.size > _L2_CACHE_SIZE_GUESS
        composite = not (big and batch > min(s.as_list()[-2:]))
    if not composite or s.ndims is None or None in s.as_list()[-2:]:
        with in_graph_of([a, b]):
            l2 = convert_to_tensor(l2_regularizer, dtype=_dt.float64, name="l2_regularizer")
        return make("MatrixSolveLs", [a, b, l2], {"fast": bool(fast)}, name)
    with op_scope([a, b], name, "matrix_solve_ls"):
        l2 = l2_regularizer
        m, n = s.as_list()[-2:]
        gram = mm(a, a, adjoint_a=m >= n, adjoint_b=m < n)
        if is_tensor_like(l2) or l2 != 0:
            eye = matrix_ops.eye(min(m, n), batch_shape=s.as_list()[:-2], dtype=a.dtype)
            gram += math_ops.cast(l2, a.dtype) * eye
        chol = cholesky(gram)
        if m >= n:
            return cholesky_solve(chol, mm(a, b, adjoint_a=True))
        return mm(a, cholesky_solve(chol, b), adjoint_a=True)


# --------------------------------------------------------------------------------------
# pinv, matrix_rank: composites on Svd (tf.linalg)
# --------------------------------------------------------------------------------------


def _default_tolerance(a: Tensor, s_max: Tensor) -> Tensor:
    m, n = a.shape.as_list()[-2:] if a.shape.ndims is not None else [None, None]
    big: Tensor | float
    if m is None or n is None:
        dims = math_ops.cast(array_ops.shape(a)[-2:], a.dtype.real_dtype)
        big = math_ops.reduce_max(dims)
    else:
        big = float(max(m, n))
    eps = float(np.finfo(a.dtype.real_dtype.np).eps)
    return eps * big * s_max


def pinv(
    a: TensorLike, rcond: Any = None, validate_args: bool = False, name: str | None = None
) -> Tensor:
    """The Moore-Penrose pseudo-inverse of each matrix, from its SVD: singular values
    at or below ``rcond * max(s)`` are treated as zero (``tf.linalg.pinv``).

    Args:
      a: float tensor of shape ``[..., M, N]``.
      rcond: relative cutoff (default ``10 * max(M, N) * eps``).
      validate_args: accepted for compatibility.
      name: the name scope (default ``pinv``).

    Returns:
      A tensor of shape ``[..., N, M]``.
    """
    with op_scope([a], name, "pinv"):
        x = convert_to_tensor(a, name="a")
        if not x.dtype.is_floating:
            raise TypeError("Input `a` must have `float`-like `dtype` (saw %s)." % x.dtype.name)
        if rcond is None:
            m, n = x.shape.as_list()[-2:] if x.shape.ndims is not None else [None, None]
            if m is None or n is None:
                raise ValueError("pinv needs static matrix dims for the default rcond")
            rcond = 10.0 * max(m, n) * float(np.finfo(x.dtype.real_dtype.np).eps)
        s, u, v = svd(x, full_matrices=False, compute_uv=True)
        cutoff = math_ops.cast(rcond, s.dtype) * math_ops.reduce_max(s, axis=-1, keepdims=True)
        inf = array_ops.fill(array_ops.shape(s), np.array(np.inf, s.dtype.np))
        s = math_ops.where(s > cutoff, s, inf)
        return mm(v / array_ops.expand_dims(s, -2), u, adjoint_b=True)


def matrix_rank(
    a: TensorLike, tol: Any = None, validate_args: bool = False, name: str | None = None
) -> Tensor:
    """The number of singular values of each matrix above ``tol`` (default
    ``eps * max(M, N) * max(s)``) (``tf.linalg.matrix_rank``).

    Args:
      a: float tensor of shape ``[..., M, N]``.
      tol: absolute threshold.
      validate_args: accepted for compatibility.
      name: the name scope (default ``matrix_rank``).

    Returns:
      An int32 tensor of shape ``[...]``.
    """
    with op_scope([a], name, "matrix_rank"):
        x = convert_to_tensor(a, name="a")
        s = svd(x, compute_uv=False)
        if tol is None:
            tol = _default_tolerance(x, math_ops.reduce_max(s, axis=-1, keepdims=True))
        else:
            tol = convert_to_tensor(tol, dtype=s.dtype, name="tol")
        return math_ops.reduce_sum(math_ops.cast(s > tol, _dt.int32), axis=-1)


# --------------------------------------------------------------------------------------
# Lu: partial-pivoting LU factorization (no gradient in TF)
# --------------------------------------------------------------------------------------


def _lu_infer(op):
    (x,) = op.inputs
    batch, m, n = matrix_dims(x, square=True)
    k = m if m is not None else n
    idx = op.attrs["output_idx_type"]
    return [
        (x.dtype, op.inputs[0].shape if batch is None else TensorShape(batch + [k, k])),
        (idx, unknown_shape() if batch is None else TensorShape(batch + [k])),
    ]


def _lu_kernel(ctx, op, x):
    n = x.shape[-1]
    lu = lapack_in(x).reshape((-1, n, n)).copy()
    count = lu.shape[0]
    perm = np.tile(np.arange(n), (count, 1))
    rows = np.arange(count)
    for k in range(n):  # Doolittle with row pivoting, every matrix of the batch at once
        piv = k + np.argmax(np.abs(lu[:, k:, k]), axis=1)
        if (lu[rows, piv, k] == 0).any():
            raise errors.InvalidArgumentError(None, op, "Input is not invertible.")
        lu[rows, k], lu[rows, piv] = lu[rows, piv], lu[rows, k].copy()
        perm[rows, k], perm[rows, piv] = perm[rows, piv], perm[rows, k].copy()
        lu[:, k + 1 :, k] /= lu[:, k : k + 1, k]
        lu[:, k + 1 :, k + 1 :] -= lu[:, k + 1 :, k : k + 1] * lu[:, k : k + 1, k + 1 :]
    idx = op.attrs["output_idx_type"].np
    return (lu.reshape(x.shape).astype(x.dtype), perm.reshape(x.shape[:-1]).astype(idx))


register_op("Lu", infer=_lu_infer, kernel=_lu_kernel, grad=None)


class Lu(NamedTuple):
    """What ``fr.linalg.lu`` returns (TF's namedtuple)."""

    lu: Tensor
    p: Tensor


def lu(input: TensorLike, output_idx_type: Any = _dt.int32, name: str | None = None) -> Lu:
    """The LU factorization with partial pivoting of each square matrix (op type Lu;
    ``tf.linalg.lu``).

    Args:
      input: float16/32/64 or complex64/128 tensor of shape ``[..., M, M]``.
      output_idx_type: int32 or int64, the dtype of ``p``.
      name: the op's name (default ``Lu``).

    Returns:
      ``(lu, p)`` (a namedtuple, as TF): ``lu`` packs the unit lower triangular ``L``
      (below the diagonal) and ``U`` (on and above it); ``p`` (``[..., M]``) is the row
      permutation, so that ``gather(input, p)`` (per matrix) equals ``L @ U``.

    Raises:
      fr.errors.InvalidArgumentError: at run time, "Input is not invertible." for a
        singular matrix.

    As in TF, Lu has no gradient.
    """
    idx = _dt.as_dtype(output_idx_type)
    if idx not in (_dt.int32, _dt.int64):
        raise TypeError("output_idx_type must be int32 or int64, got %s" % idx.name)
    lu_, p = make("Lu", [input], {"output_idx_type": idx}, name)
    return Lu(lu_, p)


# --------------------------------------------------------------------------------------
# MatrixExponential (tf.linalg.expm): Pade scaling and squaring
# --------------------------------------------------------------------------------------

# Higham (2005): Pade coefficients b_0..b_m and the 1-norm bound up to which the degree-m
# approximant is accurate to double precision (TF uses the same table for float64).
_PADE = [
    (3, 1.495585217958292e-002, [120.0, 60.0, 12.0, 1.0]),
    (5, 2.539398330063230e-001, [30240.0, 15120.0, 3360.0, 420.0, 30.0, 1.0]),
    (
        7,
        9.504178996162932e-001,
        [17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0, 1.0],
    ),
    (
        9,
        2.097847961257068e000,
        [
            17643225600.0,
            8821612800.0,
            2075673600.0,
            302702400.0,
            30270240.0,
            2162160.0,
            110880.0,
            3960.0,
            90.0,
            1.0,
        ],
    ),
]
_PADE13 = [
    64764752532480000.0,
    32382376266240000.0,
    7771770303897600.0,
    1187353796428800.0,
    129060195264000.0,
    10559470521600.0,
    670442572800.0,
    33522128640.0,
    1323241920.0,
    40840800.0,
    960960.0,
    16380.0,
    182.0,
    1.0,
]
_THETA13 = 5.371920351148152


def _pade(a: np.ndarray, b: list) -> np.ndarray:
    """``r_m(a) = (V - U)^-1 (V + U)`` with ``U`` the odd and ``V`` the even terms."""
    eye = np.broadcast_to(np.eye(a.shape[-1], dtype=a.dtype), a.shape)
    a2 = a @ a
    if len(b) == 14:  # degree 13, evaluated with a2, a4, a6 (Higham's scheme)
        a4 = a2 @ a2
        a6 = a4 @ a2
        u = a @ (
            a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2)
            + b[7] * a6
            + b[5] * a4
            + b[3] * a2
            + b[1] * eye
        )
        v = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2
        v = v + b[0] * eye
    else:
        power, u_sum, v = eye, b[1] * eye, b[0] * eye
        for k in range(2, len(b), 2):
            power = power @ a2
            v = v + b[k] * power
            u_sum = u_sum + b[k + 1] * power
        u = a @ u_sum
    return np.linalg.solve(v - u, v + u)


def _expm_kernel(ctx, op, x):
    n = x.shape[-1]
    a = x.reshape((-1, n, n)).astype(np.complex128 if x.dtype.kind == "c" else np.float64)
    out = np.empty_like(a)
    norms = np.abs(a).sum(axis=-2).max(axis=-1, initial=0.0)
    todo = np.ones(len(a), bool)
    for _, theta, b in _PADE:
        pick = todo & (norms < theta)
        if pick.any():
            out[pick] = _pade(a[pick], b)
        todo &= ~pick
    if todo.any():
        s = np.maximum(0, np.ceil(np.log2(norms[todo] / _THETA13))).astype(int)
        r = _pade(a[todo] / (2.0**s)[:, None, None], _PADE13)
        for i in range(int(s.max(initial=0))):
            more = s > i
            r[more] = r[more] @ r[more]
        out[todo] = r
    return (out.reshape(x.shape).astype(x.dtype),)


def _expm_grad(op, g):
    # The Frechet derivative of exp at a^H applied to g: the top-right block of
    # exp([[a^H, g], [0, a^H]]), so the gradient is one more (differentiable) expm.
    real_gradient_only(op)
    from .slicing_ops import concat

    at = matrix_ops.matrix_transpose(op.inputs[0])
    top = concat([at, g], axis=-1)
    bottom = concat([array_ops.zeros_like(at), at], axis=-1)
    big = make("MatrixExponential", [concat([top, bottom], axis=-2)])
    n = at.shape[-1] if at.shape.ndims is not None else None
    if n is None:
        n = array_ops.shape(at)[-1]
    return [big[..., :n, n:]]


register_op("MatrixExponential", infer=square_infer, kernel=_expm_kernel, grad=_expm_grad)


def expm(input: TensorLike, name: str | None = None) -> Tensor:
    """The matrix exponential of each square matrix (``tf.linalg.expm``), by Pade
    approximants with scaling and squaring (Higham 2005, the method TF uses).

    Args:
      input: float16/32/64 or complex64/128 tensor of shape ``[..., M, M]``.
      name: the op's name (default ``MatrixExponential``).

    Note (flowrt): one MatrixExponential op (TF composes the approximants in the graph,
    named ``matrix_exponential/...``); every dtype is computed in double precision with
    the degree-13 table. Its gradient is the exact Frechet derivative (a 2M x 2M
    expm), not the derivative of TF's approximant graph; they agree to rounding.
    """
    return make("MatrixExponential", [input], None, name)
