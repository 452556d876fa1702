"""TF1's dense matrix decompositions: ``MatrixInverse``, ``MatrixDeterminant``,
``LogMatrixDeterminant``, ``Cholesky``, ``Qr``, ``Svd`` and ``SelfAdjointEigV2``, the
composites TF builds on them (``logdet``; ``matrix_ops.norm``'s spectral norm uses
``svd``), and TF's gradients
(``linalg_grad.py``).

Each op type is one ``register_op`` row (shape rule over batch dims ``[..., M, N]``,
numpy kernel, TF's gradient). Kernels run LAPACK through ``numpy.linalg``; float16
inputs are computed in float32 and rounded back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.graph import Tensor
from .._core.registry import register_op
from .._core.shape import TensorShape, unknown_shape
from . import array_ops, math_ops, matrix_ops
from .common import check_dtype, make, op_scope, shape_str
from .linalg_ops import matmul

if TYPE_CHECKING:
    from .._core.typing import TensorLike

# TF1's top-level names; fr.linalg adds slogdet, logdet and adjoint.
__all__ = [
    "matrix_inverse",
    "matrix_determinant",
    "cholesky",
    "qr",
    "svd",
    "self_adjoint_eig",
    "self_adjoint_eigvals",
]

# TF's order in its "not in list of allowed values" messages.
LINALG_TYPES = (_dt.float64, _dt.float32, _dt.float16, _dt.complex64, _dt.complex128)


# --------------------------------------------------------------------------------------
# Shared pieces: shape rules, float16 through LAPACK, gradient helpers
# --------------------------------------------------------------------------------------


def matrix_dims(x: Tensor, square: bool) -> tuple[list | None, Any, Any]:
    """``(batch dims or None, M, N)`` of a ``[..., M, N]`` input; raises ValueError (TF's
    wording) for a rank below 2, or for a non-square matrix when ``square``."""
    check_dtype(x, LINALG_TYPES, "input")
    s = x.shape
    if s.ndims is None:
        return None, None, None
    if s.ndims < 2:
        raise ValueError(
            "Shape must be at least rank 2 but is rank %d (input shape %s): the op works on "
            "the innermost matrices of a [..., M, N] tensor" % (s.ndims, shape_str(s))
        )
    dims = s.as_list()
    m, n = dims[-2:]
    if square and m is not None and n is not None and m != n:
        raise ValueError(
            "Dimensions must be equal, but are %d and %d: the input must be a (batch of) "
            "square matrices, got shape %s" % (m, n, shape_str(s))
        )
    return dims[:-2], m, n


def _shape(batch: list | None, *tail: Any) -> TensorShape:
    return unknown_shape() if batch is None else TensorShape(batch + list(tail))


def lapack_in(x: np.ndarray) -> np.ndarray:
    """``x`` in a dtype LAPACK takes (float16 is computed in float32)."""
    return x.astype(np.float32) if x.dtype == np.float16 else x


def _out(v: np.ndarray, like: np.ndarray) -> np.ndarray:
    """``v`` as a C-contiguous array of ``like``'s dtype, keeping a 0-d result 0-d."""
    out = np.asarray(v, dtype=like.dtype)
    return out if out.flags.c_contiguous else out.copy()


def adjoint(matrix: TensorLike, name: str | None = None) -> Tensor:
    """The conjugate transpose of the innermost matrices (``tf.linalg.adjoint``).

    Args:
      matrix: a tensor of rank 2 or more.
      name: the name scope (default ``adjoint``).
    """
    with op_scope([matrix], name, "adjoint"):
        return matrix_ops.matrix_transpose(matrix, conjugate=True)


def mm(a: Tensor, b: Tensor, adjoint_a: bool = False, adjoint_b: bool = False) -> Tensor:
    return matmul(a, b, adjoint_a=adjoint_a, adjoint_b=adjoint_b)


def real_gradient_only(op) -> None:
    """Gradients are built from ``fr.matmul``, which has no complex kernel in flowrt."""
    dt = op.inputs[0].dtype
    if dt.is_complex:
        raise TypeError(
            "flowrt does not differentiate %s op '%s' for %s inputs (fr.matmul has no "
            "complex kernel); compute it in float32/float64" % (op.type, op.name, dt.name)
        )


def safe_reciprocal(x: Tensor, epsilon: float = 1e-20) -> Tensor:
    """TF's Lorentz-broadened ``1/x``, finite at 0 (degenerate eigen/singular values)."""
    return x * math_ops.reciprocal(x * x + epsilon)


def _scalar_to_matrix(x: Tensor) -> Tensor:
    """``[...]`` to ``[..., 1, 1]`` for broadcasting against a batch of matrices."""
    return array_ops.expand_dims(array_ops.expand_dims(x, -1), -1)


# --------------------------------------------------------------------------------------
# MatrixInverse
# --------------------------------------------------------------------------------------


def square_infer(op):
    (x,) = op.inputs
    batch, m, n = matrix_dims(x, square=True)
    return [(x.dtype, _shape(batch, m if m is not None else n, n if n is not None else m))]


def _inverse_kernel(ctx, op, x):
    a = lapack_in(x)
    if op.attrs["adjoint"]:
        a = np.conj(np.swapaxes(a, -1, -2))
    try:
        inv = np.linalg.inv(a)
    except np.linalg.LinAlgError:
        raise errors.InvalidArgumentError(None, op, "Input is not invertible.") from None
    return (_out(inv, x),)


def _inverse_grad(op, g):
    real_gradient_only(op)
    ainv = op.outputs[0]
    adj = op.attrs["adjoint"]
    return [-mm(ainv, mm(g, ainv, adjoint_a=adj, adjoint_b=not adj), adjoint_a=not adj)]


register_op("MatrixInverse", infer=square_infer, kernel=_inverse_kernel, grad=_inverse_grad)


def matrix_inverse(input: TensorLike, adjoint: bool = False, name: str | None = None) -> Tensor:
    """The inverse of each square matrix of ``input`` (``[..., M, M]``), or of its
    adjoint when ``adjoint`` (op type MatrixInverse).

    Args:
      input: float16/32/64 or complex64/128 tensor of shape ``[..., M, M]``.
      adjoint: invert the conjugate transposes instead.
      name: the op's name (default ``MatrixInverse``).

    Raises:
      fr.errors.InvalidArgumentError: at run time, "Input is not invertible." for a
        singular matrix.

    Note (flowrt): gradients for complex inputs are not supported (TypeError).
    """
    return make("MatrixInverse", [input], {"adjoint": bool(adjoint)}, name)


class LogMatrixDeterminant(NamedTuple):
    """What ``fr.linalg.slogdet`` returns (TF's namedtuple)."""

    sign: Tensor
    log_abs_determinant: Tensor


class Qr(NamedTuple):
    """What ``fr.qr`` returns (TF's namedtuple)."""

    q: Tensor
    r: Tensor


# --------------------------------------------------------------------------------------
# MatrixDeterminant, LogMatrixDeterminant, logdet
# --------------------------------------------------------------------------------------


def _det_infer(op):
    (x,) = op.inputs
    batch, _, _ = matrix_dims(x, square=True)
    return [(x.dtype, _shape(batch))]


def _det_kernel(ctx, op, x):
    return (_out(np.linalg.det(lapack_in(x)), x),)


def _det_grad(op, g):
    real_gradient_only(op)
    a_adj_inv = matrix_inverse(op.inputs[0], adjoint=True)
    return [_scalar_to_matrix(g * op.outputs[0]) * a_adj_inv]


register_op("MatrixDeterminant", infer=_det_infer, kernel=_det_kernel, grad=_det_grad)


def _slogdet_infer(op):
    (x,) = op.inputs
    batch, _, _ = matrix_dims(x, square=True)
    return [(x.dtype, _shape(batch)), (x.dtype, _shape(batch))]


def _slogdet_kernel(ctx, op, x):
    sign, logabs = np.linalg.slogdet(lapack_in(x))
    return (_out(sign, x), _out(logabs, x))


def _slogdet_grad(op, _, g_logabs):
    real_gradient_only(op)
    a_adj_inv = matrix_inverse(op.inputs[0], adjoint=True)
    return [_scalar_to_matrix(g_logabs) * a_adj_inv]


register_op(
    "LogMatrixDeterminant", infer=_slogdet_infer, kernel=_slogdet_kernel, grad=_slogdet_grad
)


def matrix_determinant(input: TensorLike, name: str | None = None) -> Tensor:
    """The determinant of each square matrix of ``input``: ``[..., M, M]`` gives
    ``[...]`` (op type MatrixDeterminant; an empty 0x0 matrix has determinant 1).

    Args:
      input: float16/32/64 or complex64/128 tensor of shape ``[..., M, M]``.
      name: the op's name (default ``MatrixDeterminant``).

    Note (flowrt): gradients for complex inputs are not supported (TypeError).
    """
    return make("MatrixDeterminant", [input], None, name)


def log_matrix_determinant(input: TensorLike, name: str | None = None) -> LogMatrixDeterminant:
    """``(sign, log_abs_determinant)`` of each square matrix of ``input``, as
    ``tf.linalg.slogdet`` (op type LogMatrixDeterminant). A singular matrix gives sign 0
    and ``-inf``.

    Args:
      input: float16/32/64 or complex64/128 tensor of shape ``[..., M, M]``.
      name: the op's name (default ``LogMatrixDeterminant``).

    Returns:
      ``(sign, log_abs_determinant)`` (a namedtuple, as TF), of shape ``[...]`` and
      ``input``'s dtype.
    """
    sign, logabs = make("LogMatrixDeterminant", [input], None, name)
    return LogMatrixDeterminant(sign, logabs)


def logdet(matrix: TensorLike, name: str | None = None) -> Tensor:
    """The log determinant of each Hermitian positive definite matrix, as TF composes
    it: ``2 * sum(log(real(diag_part(cholesky(matrix)))))``.

    Args:
      matrix: float or complex tensor of shape ``[..., M, M]``, positive definite.
      name: the name scope (default ``logdet``).

    Raises:
      fr.errors.InvalidArgumentError: at run time, when the matrix is not positive
        definite (from its Cholesky factorization).
    """
    with op_scope([matrix], name, "logdet"):
        chol = cholesky(matrix)
        d = matrix_ops.matrix_diag_part(chol)
        if chol.dtype.is_complex:
            d = math_ops.real(d)
        return 2.0 * math_ops.reduce_sum(math_ops.log(d), axis=[-1])


# --------------------------------------------------------------------------------------
# Cholesky
# --------------------------------------------------------------------------------------


def _cholesky_kernel(ctx, op, x):
    try:
        chol = np.linalg.cholesky(lapack_in(x))
    except np.linalg.LinAlgError:
        raise errors.InvalidArgumentError(
            None, op, "Cholesky decomposition was not successful. The input might not be valid."
        ) from None
    return (_out(chol, x),)


def _cholesky_grad(op, g):
    # TF: grad_a = L^-H ((L^H g) * (tril(ones) - eye/2)) L^-1, symmetrized; the two
    # products with L^-1 are triangular solves instead of an explicit inverse.
    from .solve_ops import matrix_triangular_solve

    real_gradient_only(op)
    chol = op.outputs[0]
    middle = mm(chol, g, adjoint_a=True)
    middle = matrix_ops.matrix_set_diag(middle, 0.5 * matrix_ops.matrix_diag_part(middle))
    middle = matrix_ops.matrix_band_part(middle, -1, 0)
    left = matrix_triangular_solve(chol, middle, lower=True, adjoint=True)
    grad_a = adjoint(matrix_triangular_solve(chol, adjoint(left), lower=True, adjoint=True))
    return [0.5 * (grad_a + adjoint(grad_a))]


register_op("Cholesky", infer=square_infer, kernel=_cholesky_kernel, grad=_cholesky_grad)


def cholesky(input: TensorLike, name: str | None = None) -> Tensor:
    """The lower-triangular Cholesky factor ``L`` (``input = L L^H``) of each Hermitian
    positive definite matrix (op type Cholesky). Only the lower triangle of ``input``
    is read.

    Args:
      input: float16/32/64 or complex64/128 tensor of shape ``[..., M, M]``.
      name: the op's name (default ``Cholesky``).

    Raises:
      fr.errors.InvalidArgumentError: at run time, "Cholesky decomposition was not
        successful. The input might not be valid." when a matrix is not positive
        definite.

    Note (flowrt): as TF1; TF 2.21 on CPU returns NaNs instead of raising.
    """
    return make("Cholesky", [input], None, name)


# --------------------------------------------------------------------------------------
# Qr
# --------------------------------------------------------------------------------------


def _qr_infer(op):
    (x,) = op.inputs
    batch, m, n = matrix_dims(x, square=False)
    if op.attrs["full_matrices"]:
        p = m
    else:
        p = None if m is None or n is None else min(m, n)
    return [(x.dtype, _shape(batch, m, p)), (x.dtype, _shape(batch, p, n))]


def _qr_kernel(ctx, op, x):
    a = lapack_in(x)
    m, n = a.shape[-2:]
    full = op.attrs["full_matrices"]
    if a.size == 0:
        p = m if full else min(m, n)
        q = np.broadcast_to(np.eye(m, p, dtype=a.dtype), a.shape[:-2] + (m, p)).copy()
        return (_out(q, x), np.zeros(a.shape[:-2] + (p, n), x.dtype))
    q, r = np.linalg.qr(a, mode="complete" if full else "reduced")
    return (_out(q, x), _out(r, x))


def _qr_grad(op, dq, dr):
    # TF's QrGrad (arXiv:2009.10071): the square/deep case, and wide matrices reduced
    # to it by splitting a = [x, y], r = [u, v].
    real_gradient_only(op)
    from .solve_ops import matrix_triangular_solve

    q, r = op.outputs
    if r.shape.ndims is None or None in r.shape.as_list()[-2:] or q.shape[-2] is None:
        raise NotImplementedError(
            "QrGrad not implemented with dynamic shapes. Received r.shape: %s" % r.shape
        )
    rows, cols = r.shape.as_list()[-2:]
    if rows > cols and q.shape[-2] == q.shape[-1]:
        raise NotImplementedError(
            "QrGrad not implemented when nrows > ncols and full_matrices is true. "
            "Received r.shape=%s with nrows=%d and ncols=%d." % (r.shape, rows, cols)
        )

    def tri_solve(x, r):  # x @ r^-H for upper-triangular r
        return adjoint(matrix_triangular_solve(r, adjoint(x), lower=False, adjoint=False))

    def square_or_deep(q, r, dq, dr):
        qdq = mm(q, dq, adjoint_a=True)
        qdq_ = qdq - adjoint(qdq)
        rdr = mm(r, dr, adjoint_b=True)
        rdr_ = rdr - adjoint(rdr)
        tril = matrix_ops.matrix_band_part(qdq_ + rdr_, -1, 0)
        return mm(q, dr + tri_solve(tril, r)) + tri_solve(dq - mm(q, qdq), r)

    m = q.shape.as_list()[-2]
    if m >= cols:
        return [square_or_deep(q, r, dq, dr)]
    from .slicing_ops import concat

    y = op.inputs[0][..., :, m:]
    u = r[..., :, :m]
    dv = dr[..., :, m:]
    du = dr[..., :, :m]
    dx = square_or_deep(q, u, dq + mm(y, dv, adjoint_b=True), du)
    return [concat([dx, mm(q, dv)], axis=-1)]


register_op("Qr", infer=_qr_infer, kernel=_qr_kernel, grad=_qr_grad)


def qr(input: TensorLike, full_matrices: bool = False, name: str | None = None) -> Qr:
    """The QR decomposition ``input = q @ r`` of each matrix (op type Qr): ``q`` has
    orthonormal columns, ``r`` is upper triangular (LAPACK's signs, as TF on CPU).

    Args:
      input: float16/32/64 or complex64/128 tensor of shape ``[..., M, N]``.
      full_matrices: ``q`` is ``[..., M, M]`` and ``r`` ``[..., M, N]``; else
        ``[..., M, P]`` and ``[..., P, N]`` with ``P = min(M, N)``.
      name: the op's name (default ``Qr``).

    Returns:
      ``(q, r)`` (a namedtuple, as TF).

    Note (flowrt): gradients for complex inputs are not supported (TypeError); as TF,
    none for ``M > N`` with ``full_matrices`` or unknown matrix dims.
    """
    q, r = make("Qr", [input], {"full_matrices": bool(full_matrices)}, name)
    return Qr(q, r)


# --------------------------------------------------------------------------------------
# Svd
# --------------------------------------------------------------------------------------


def _svd_infer(op):
    (x,) = op.inputs
    batch, m, n = matrix_dims(x, square=False)
    p = None if m is None or n is None else min(m, n)
    s = (x.dtype.real_dtype, _shape(batch, p))
    if not op.attrs["compute_uv"]:
        return [s, (x.dtype, TensorShape([0])), (x.dtype, TensorShape([0]))]
    if op.attrs["full_matrices"]:
        return [s, (x.dtype, _shape(batch, m, m)), (x.dtype, _shape(batch, n, n))]
    return [s, (x.dtype, _shape(batch, m, p)), (x.dtype, _shape(batch, n, p))]


def _svd_kernel(ctx, op, x):
    a = lapack_in(x)
    m, n = a.shape[-2:]
    real = np.empty(0, x.dtype).real.dtype
    full, uv = op.attrs["full_matrices"], op.attrs["compute_uv"]
    p = min(m, n)
    if a.size == 0:
        s = np.zeros(a.shape[:-2] + (p,), real)
        ku, kv = (m, n) if full else (p, p)
        u = np.broadcast_to(np.eye(m, ku, dtype=x.dtype), a.shape[:-2] + (m, ku)).copy()
        v = np.broadcast_to(np.eye(n, kv, dtype=x.dtype), a.shape[:-2] + (n, kv)).copy()
    elif not uv:
        s = np.linalg.svd(a, compute_uv=False)
    else:
        u, s, vh = np.linalg.svd(a, full_matrices=full)
        v = np.conj(np.swapaxes(vh, -1, -2))
    if not uv:
        empty = np.zeros(0, x.dtype)
        return (_out(s, np.empty(0, real)), empty, empty.copy())
    return (_out(s, np.empty(0, real)), _out(u, x), _out(v, x))


def _svd_grad(op, grad_s, grad_u, grad_v):
    # TF's SvdGrad (Giles; Townsend for the thin case), real inputs.
    real_gradient_only(op)
    a = op.inputs[0]
    grad_s_mat = matrix_ops.matrix_diag(grad_s)
    if not op.attrs["compute_uv"]:
        s, u, v = svd(a, compute_uv=True)
        return [mm(u, mm(grad_s_mat, v, adjoint_b=True))]
    full = op.attrs["full_matrices"]
    m, n = a.shape.as_list()[-2:] if a.shape.ndims is not None else [None, None]
    if m is None or n is None:
        raise NotImplementedError(
            "SVD gradient has not been implemented for input with unknown inner matrix shape."
        )
    s, u, v = op.outputs
    use_adjoint = m > n
    if use_adjoint:  # differentiate a^H = v s u^H and transpose at the end
        m, n = n, m
        u, v = v, u
        grad_u, grad_v = grad_v, grad_u
    if full and abs(m - n) > 1:
        raise NotImplementedError(
            "svd gradient is not implemented for abs(m - n) > 1 when full_matrices is True. "
            "Received: m=%d and n=%d from op input=%s with shape=%s." % (m, n, a.name, a.shape)
        )
    s_mat = matrix_ops.matrix_diag(s)
    s2 = math_ops.square(s)
    f = matrix_ops.matrix_set_diag(
        safe_reciprocal(array_ops.expand_dims(s2, -2) - array_ops.expand_dims(s2, -1)),
        array_ops.zeros_like(s),
    )
    s_inv_mat = matrix_ops.matrix_diag(safe_reciprocal(s))
    v1 = v[..., :, :m]
    grad_v1 = grad_v[..., :, :m]
    f_u = f * mm(u, grad_u, adjoint_a=True)
    f_v = f * mm(v1, grad_v1, adjoint_a=True)
    term1_nouv = grad_s_mat + mm(f_u + adjoint(f_u), s_mat) + mm(s_mat, f_v + adjoint(f_v))
    grad_a = mm(u, mm(term1_nouv, v1, adjoint_b=True))
    if m != n:
        gv1t = adjoint(grad_v1)
        term2_nous = gv1t - mm(mm(gv1t, v1), v1, adjoint_b=True)
        if full:
            v2 = v[..., :, m:n]
            grad_v2 = grad_v[..., :, m:n]
            term2_nous -= mm(mm(v1, grad_v2, adjoint_a=True), v2, adjoint_b=True)
        grad_a += mm(mm(u, s_inv_mat), term2_nous)
    return [adjoint(grad_a) if use_adjoint else grad_a]


register_op("Svd", infer=_svd_infer, kernel=_svd_kernel, grad=_svd_grad)


def svd(
    tensor: TensorLike,
    full_matrices: bool = False,
    compute_uv: bool = True,
    name: str | None = None,
) -> Any:
    """The singular value decomposition ``tensor = u @ diag(s) @ adjoint(v)`` of each
    matrix (op type Svd).

    Args:
      tensor: float16/32/64 or complex64/128 tensor of shape ``[..., M, N]``.
      full_matrices: ``u`` is ``[..., M, M]`` and ``v`` ``[..., N, N]``; else
        ``[..., M, P]`` and ``[..., N, P]`` with ``P = min(M, N)``.
      compute_uv: also compute ``u`` and ``v``; else only ``s`` is returned.
      name: the op's name (default ``Svd``).

    Returns:
      ``(s, u, v)`` in TF's order (``v``, not ``v^H``), or ``s`` alone when not
      ``compute_uv``; ``s`` is real, descending, shape ``[..., P]``.

    Note (flowrt): gradients for complex inputs are not supported (TypeError); as TF,
    none for unknown matrix dims, or ``|M - N| > 1`` with ``full_matrices``.
    """
    attrs = {"full_matrices": bool(full_matrices), "compute_uv": bool(compute_uv)}
    s, u, v = make("Svd", [tensor], attrs, name)
    return (s, u, v) if compute_uv else s


# --------------------------------------------------------------------------------------
# SelfAdjointEigV2
# --------------------------------------------------------------------------------------


def _eig_infer(op):
    (x,) = op.inputs
    batch, m, n = matrix_dims(x, square=True)
    k = m if m is not None else n
    e = (x.dtype, _shape(batch, k))  # TF: of the input's dtype, also when complex
    if not op.attrs["compute_v"]:
        return [e, (x.dtype, TensorShape([0]))]
    return [e, (x.dtype, _shape(batch, k, k))]


def _eig_kernel(ctx, op, x):
    a = lapack_in(x)
    if not op.attrs["compute_v"]:
        return (_out(np.linalg.eigvalsh(a), x), np.zeros(0, x.dtype))
    e, v = np.linalg.eigh(a)
    return (_out(e, x), _out(v, x))


def _eig_grad(op, grad_e, grad_v):
    # TF's SelfAdjointEigV2Grad; the forward op reads the lower triangle only, so the
    # gradient is symmetrized onto it.
    real_gradient_only(op)
    e = op.outputs[0]
    if op.attrs["compute_v"]:
        v = op.outputs[1]
        f = matrix_ops.matrix_set_diag(
            safe_reciprocal(array_ops.expand_dims(e, -2) - array_ops.expand_dims(e, -1)),
            array_ops.zeros_like(e),
        )
        inner = matrix_ops.matrix_diag(grad_e) + f * mm(v, grad_v, adjoint_a=True)
        grad_a = mm(v, mm(inner, v, adjoint_b=True))
    else:
        _, v = self_adjoint_eig(op.inputs[0])
        grad_a = mm(v, mm(matrix_ops.matrix_diag(grad_e), v, adjoint_b=True))
    grad_a = matrix_ops.matrix_band_part(grad_a + adjoint(grad_a), -1, 0)
    return [matrix_ops.matrix_set_diag(grad_a, 0.5 * matrix_ops.matrix_diag_part(grad_a))]


register_op("SelfAdjointEigV2", infer=_eig_infer, kernel=_eig_kernel, grad=_eig_grad)


def self_adjoint_eig(tensor: TensorLike, name: str | None = None) -> tuple[Tensor, Tensor]:
    """Eigenvalues ``e`` (ascending) and eigenvectors ``v`` (columns) of each
    self-adjoint matrix, reading its lower triangle (op type SelfAdjointEigV2;
    ``tf.linalg.eigh``).

    Args:
      tensor: float16/32/64 or complex64/128 tensor of shape ``[..., N, N]``.
      name: the op's name (default ``SelfAdjointEigV2``).

    Returns:
      ``(e, v)``: ``e`` of shape ``[..., N]`` (``tensor``'s dtype), ``v`` of shape ``[..., N, N]``.

    Note (flowrt): gradients for complex inputs are not supported (TypeError).
    """
    e, v = make("SelfAdjointEigV2", [tensor], {"compute_v": True}, name)
    return e, v


def self_adjoint_eigvals(tensor: TensorLike, name: str | None = None) -> Tensor:
    """The eigenvalues (ascending) of each self-adjoint matrix, from its lower triangle
    (op type SelfAdjointEigV2 with ``compute_v=False``; ``tf.linalg.eigvalsh``).

    Args:
      tensor: float16/32/64 or complex64/128 tensor of shape ``[..., N, N]``.
      name: the op's name (default ``SelfAdjointEigV2``).
    """
    e, _ = make("SelfAdjointEigV2", [tensor], {"compute_v": False}, name)
    return e
