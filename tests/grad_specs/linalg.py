"""Gradient specs for flowrt/ops/decomposition_ops.py and solve_ops.py (TF's
linalg_grad.py rules). Decompositions with sign freedom (Qr, Svd, eigenvectors) are
checked through functions of their outputs that LAPACK computes continuously."""

import numpy as np

import flowrt as fr
from tests.gradcheck import GradSpec

_r = np.random.default_rng(7)
A33 = _r.standard_normal((3, 3)) + 3 * np.eye(3)
B233 = _r.standard_normal((2, 3, 3)) + 3 * np.eye(3)
M42 = _r.standard_normal((4, 2))
M24 = _r.standard_normal((2, 4))
M43 = _r.standard_normal((4, 3))
M34 = _r.standard_normal((3, 4))
R32 = _r.standard_normal((3, 2))
R232 = _r.standard_normal((2, 3, 2))
_S = _r.standard_normal((2, 3, 3))
SPD = _S @ np.swapaxes(_S, -1, -2) + 3 * np.eye(3)
SYM = np.diag([1.0, 2.5, 4.0]) + 0.3 * (_S[0] + _S[0].T)


def _sym(x):
    return 0.5 * (x + fr.linalg.adjoint(x))


def _unknown(x):
    """``x`` with unknown matrix dims (to reach the op form of matrix_solve_ls)."""
    return fr.placeholder_with_default(x, shape=[None, None])


SPECS = [
    GradSpec("MatrixInverse", fr.matrix_inverse, [A33]),
    GradSpec(
        "MatrixInverse", lambda x: fr.matrix_inverse(x, adjoint=True), [B233], id="inverse-adj"
    ),
    GradSpec("MatrixDeterminant", fr.matrix_determinant, [B233]),
    GradSpec("LogMatrixDeterminant", lambda x: fr.linalg.slogdet(x)[1], [B233]),
    GradSpec("Cholesky", lambda x: fr.cholesky(_sym(x)), [SPD]),
    GradSpec("Cholesky", lambda x: fr.linalg.logdet(_sym(x)), [SPD], id="logdet"),
    GradSpec(
        "MatrixTriangularSolve",
        lambda a, b: fr.linalg.cholesky_solve(fr.cholesky(_sym(a)), b),
        [SPD, R232],
        id="cholesky_solve",
    ),
    GradSpec("MatrixSolve", fr.matrix_solve, [B233, R232]),
    GradSpec(
        "MatrixSolve", lambda a, b: fr.matrix_solve(a, b, adjoint=True), [A33, R32], id="solve-adj"
    ),
    GradSpec("MatrixTriangularSolve", fr.matrix_triangular_solve, [B233, R232]),
    GradSpec(
        "MatrixTriangularSolve",
        lambda a, b: fr.matrix_triangular_solve(a, b, lower=False, adjoint=True),
        [A33, R232],
        id="trisolve-upper-adj-broadcast",
    ),
    GradSpec(
        "Cholesky",
        lambda a, b: fr.matrix_solve_ls(a, b),
        [M43, _r.standard_normal((4, 2))],
        id="lstsq-over",
    ),
    GradSpec(
        "Cholesky",
        lambda a, b: fr.matrix_solve_ls(a, b, l2_regularizer=0.5),
        [M24, _r.standard_normal((2, 3))],
        id="lstsq-under-l2",
    ),
    GradSpec(
        "MatrixSolveLs",
        lambda a, b: fr.matrix_solve_ls(_unknown(a), _unknown(b), l2_regularizer=0.1),
        [M43, _r.standard_normal((4, 2))],
        id="MatrixSolveLs-over",
    ),
    GradSpec(
        "MatrixSolveLs",
        lambda a, b: fr.matrix_solve_ls(_unknown(a), _unknown(b)),
        [M24, _r.standard_normal((2, 3))],
        id="MatrixSolveLs-under",
    ),
    GradSpec("Qr", lambda x: fr.qr(x)[0], [M43], id="Qr-q-deep"),
    GradSpec("Qr", lambda x: fr.qr(x)[1], [R232], id="Qr-r-deep-batch"),
    GradSpec("Qr", lambda x: (lambda q, r: 2.0 * q + r)(*fr.qr(x)), [A33], id="Qr-square"),
    GradSpec(
        "Qr",
        lambda x: (lambda q, r: 2.0 * r + fr.reduce_sum(q[:, :1]))(*fr.qr(x)),
        [M24],
        id="Qr-wide",
    ),
    GradSpec("Svd", lambda x: fr.svd(x, compute_uv=False), [M43], id="Svd-s-only"),
    GradSpec("Svd", lambda x: fr.svd(x)[0], [M34], id="Svd-s"),
    GradSpec(
        "Svd",
        lambda x: (lambda s, u, v: fr.matmul(u * s[..., None, :] ** 2, v, adjoint_b=True))(
            *fr.svd(x)
        ),
        [M43],
        id="Svd-uv-deep",
    ),
    GradSpec(
        "Svd",
        lambda x: (lambda s, u, v: fr.matmul(u, u, adjoint_b=True) + fr.reduce_sum(v * v))(
            *fr.svd(x)
        ),
        [M24],
        id="Svd-uv-wide",
    ),
    GradSpec(
        "Svd",
        lambda x: (lambda s, u, v: fr.matmul(v[..., :, :1], v[..., :, :1], adjoint_b=True))(
            *fr.svd(x, full_matrices=True)
        ),
        [_r.standard_normal((3, 3))],
        id="Svd-full-square",
    ),
    GradSpec(
        "Svd",
        lambda x: (
            lambda s, u, v: (
                fr.matmul(u[:, 2:], u[:, 2:], adjoint_b=True) + fr.reduce_sum(u[:, :2] * v[:1])
            )
        )(*fr.svd(x, full_matrices=True)),
        [_r.standard_normal((3, 2))],
        id="Svd-full-deep",
    ),
    GradSpec("Svd", lambda x: fr.norm(x, ord=2, axis=[-2, -1]), [B233], id="norm-spectral"),
    GradSpec("Svd", fr.linalg.pinv, [M43], id="pinv"),
    GradSpec("MatrixExponential", fr.linalg.expm, [0.05 * A33], id="expm-pade"),
    GradSpec("MatrixExponential", fr.linalg.expm, [B233], id="expm-squaring-batch"),
    GradSpec("SelfAdjointEigV2", fr.self_adjoint_eigvals, [SYM], id="eigvalsh"),
    GradSpec(
        "SelfAdjointEigV2",
        lambda x: (lambda e, v: fr.matmul(v * e[..., None, :] ** 3, v, adjoint_b=True))(
            *fr.self_adjoint_eig(x)
        ),
        [SYM],
        id="eigh-vectors",
    ),
    GradSpec(
        "SelfAdjointEigV2",
        lambda x: (lambda e, v: fr.abs(v[..., :, :1]) + e[..., None, :])(*fr.self_adjoint_eig(x)),
        [np.stack([SYM, SYM.T + np.diag([0.0, 1.0, 3.0])])],
        id="eigh-batch",
    ),
]
