"""flowrt/ops/solve_ops.py against numpy.linalg, with the names, values and errors TF
2.21's compat.v1 was seen to give (written into the expectations)."""

import numpy as np
import pytest

import flowrt as fr

_r = np.random.default_rng(5)
A = _r.standard_normal((2, 4, 4)) + 4 * np.eye(4)
RHS = _r.standard_normal((2, 4, 3))
_S = _r.standard_normal((2, 4, 4))
SPD = _S @ np.swapaxes(_S, -1, -2) + np.eye(4)
FLOATS = [fr.float32, fr.float64]


def _run(fetches, feed=None):
    with fr.Session() as s:
        return s.run(fetches, feed)


def _adj(x):
    return np.conj(np.swapaxes(x, -1, -2))


def _tol(dtype):
    return {"rtol": 2e-4, "atol": 2e-4} if dtype.size <= 8 else {"rtol": 1e-9, "atol": 1e-10}


@pytest.mark.parametrize("dtype", FLOATS + [fr.complex64, fr.complex128])
def test_matrix_solve_matches_numpy(dtype):
    a, b = A.astype(dtype.np), RHS.astype(dtype.np)
    if dtype.is_complex:
        a = a + 1j * _r.standard_normal(a.shape).astype(dtype.np)
    with fr.Graph().as_default():
        x = fr.matrix_solve(a, b)
        xa = fr.linalg.solve(fr.constant(a), b, adjoint=True)
        assert x.name == "MatrixSolve:0" and x.shape.as_list() == [2, 4, 3] and x.dtype is dtype
        got = _run([x, xa])
    np.testing.assert_allclose(got[0], np.linalg.solve(a, b), **_tol(dtype))
    np.testing.assert_allclose(got[1], np.linalg.solve(_adj(a), b), **_tol(dtype))


@pytest.mark.parametrize("dtype", FLOATS + [fr.complex128])
@pytest.mark.parametrize("n", [3, 70])  # 70: the blocked (recursive) substitution
@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("adjoint", [False, True])
def test_triangular_solve_reads_one_triangle_and_broadcasts(dtype, n, lower, adjoint):
    a = _r.standard_normal((2, 1, n, n)) + n * np.eye(n)
    if dtype.is_complex:
        a = a + 1j * _r.standard_normal(a.shape)
    b = _r.standard_normal((3, n, 2))
    a, b = a.astype(dtype.np), b.astype(dtype.np)
    with fr.Graph().as_default():
        x = fr.matrix_triangular_solve(a, b, lower=lower, adjoint=adjoint)
        assert (
            x.shape.as_list() == [2, 3, n, 2]
            and x.name == "triangular_solve/MatrixTriangularSolve:0"
        )
        got = _run(x)
    tri = np.tril(a) if lower else np.triu(a)  # the other triangle is never read
    if adjoint:
        tri = _adj(tri)
    want = np.linalg.solve(np.broadcast_to(tri, (2, 3, n, n)), np.broadcast_to(b, (2, 3, n, 2)))
    np.testing.assert_allclose(got, want, **_tol(dtype))


def test_triangular_solve_with_a_zero_pivot_gives_tfs_inf_nan():
    with fr.Graph().as_default():
        got = _run(fr.matrix_triangular_solve(fr.zeros([2, 2]), fr.ones([2, 1])))
    np.testing.assert_array_equal(got, [[np.inf], [np.nan]])  # TF 2.21's value


def test_cholesky_solve_and_names():
    with fr.Graph().as_default():
        chol = fr.cholesky(SPD)
        x = fr.linalg.cholesky_solve(chol, RHS)
        assert x.name == "cholesky_solve/MatrixTriangularSolve_1:0"
        got = _run(x)
    np.testing.assert_allclose(got, np.linalg.solve(SPD, RHS), rtol=1e-9)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 6, 2)])
@pytest.mark.parametrize("l2", [0.0, 0.5])
def test_matrix_solve_ls_matches_the_normal_equations(shape, l2):
    a = _r.standard_normal(shape)
    b = _r.standard_normal(shape[:-1] + (2,))
    m, n = shape[-2:]
    if m >= n:
        want = np.linalg.solve(_adj(a) @ a + l2 * np.eye(n), _adj(a) @ b)
    else:
        want = _adj(a) @ np.linalg.solve(a @ _adj(a) + l2 * np.eye(m), b)
    with fr.Graph().as_default():
        x = fr.matrix_solve_ls(a, b, l2_regularizer=l2)  # the composite (static shape)
        ph = fr.placeholder(fr.float64, [None] * len(shape))
        xo = fr.linalg.lstsq(ph, b, l2_regularizer=l2)  # the MatrixSolveLs op
        assert x.name.startswith("matrix_solve_ls/") and xo.op.type == "MatrixSolveLs"
        assert x.shape.as_list() == list(shape[:-2]) + [n, 2]
        got = _run([x, xo], {ph: a})
    np.testing.assert_allclose(got[0], want, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(got[1], want, rtol=1e-8, atol=1e-10)


def test_matrix_solve_ls_values_are_tfs():
    a = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
    with fr.Graph().as_default():
        got = _run(fr.matrix_solve_ls(a, fr.ones([3, 1]), l2_regularizer=0.5))
    np.testing.assert_allclose(got, [[-0.2795701], [0.43010768]], rtol=1e-5)  # TF 2.21


def test_matrix_solve_ls_slow_path_is_the_minimum_norm_solution():
    a = np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]])  # rank 1
    b = np.array([[1.0], [2.0], [3.0]])
    with fr.Graph().as_default():
        x = fr.matrix_solve_ls(a, b, fast=False)
        fast = fr.matrix_solve_ls(fr.placeholder_with_default(a, [None, None]), b)
        assert x.op.type == "MatrixSolveLs"
        np.testing.assert_allclose(_run(x), np.linalg.lstsq(a, b, rcond=None)[0])
        with pytest.raises(fr.errors.InvalidArgumentError, match="rank deficient"):
            _run(fast)
        with pytest.raises(ValueError, match="Gradient not defined for fast=False"):
            fr.gradients(x, [x.op.inputs[0]])


def test_lstsq_complex128_with_l2_is_refused_as_tf():
    z = np.eye(2, dtype=np.complex128)
    with fr.Graph().as_default(), pytest.raises(NotImplementedError, match="complex128"):
        fr.matrix_solve_ls(z, z, l2_regularizer=0.1)


def test_singular_matrix_solve():
    with fr.Graph().as_default():
        with pytest.raises(fr.errors.InvalidArgumentError) as info:
            _run(fr.matrix_solve(fr.zeros([2, 2]), fr.ones([2, 1])))
    assert info.value.message == "Input matrix is not invertible."  # TF's message


@pytest.mark.parametrize(
    "build, error, message",
    [
        (
            lambda: fr.matrix_solve(fr.ones([2, 2]), fr.ones([3, 1])),
            ValueError,
            "Dimensions must be equal, but are 2 and 3",
        ),
        (
            lambda: fr.matrix_triangular_solve(fr.ones([2, 2]), fr.ones([3, 1])),
            ValueError,
            "Dimensions must be equal, but are 2 and 3",
        ),
        (
            lambda: fr.matrix_solve(fr.ones([2, 2, 2]), fr.ones([3, 2, 2])),
            ValueError,
            "batch dimensions must be equal",
        ),
        (
            lambda: fr.matrix_solve(fr.ones([2, 2]), fr.ones([2, 2], fr.float64)),
            TypeError,
            "Input 'rhs' of 'MatrixSolve' Op has type float64 that does not match type "
            "float32 of argument 'matrix'.",
        ),
        (
            lambda: fr.matrix_solve_ls(fr.ones([3, 2]), fr.ones([2, 1])),
            ValueError,
            "Dimensions must be equal, but are 3 and 2",
        ),
    ],
)
def test_construction_errors_are_tfs(build, error, message):
    with fr.Graph().as_default(), pytest.raises(error, match=message):
        build()


def test_pinv_and_matrix_rank_match_numpy():
    low_rank = _r.standard_normal((2, 5, 2)) @ _r.standard_normal((2, 2, 4))
    with fr.Graph().as_default():
        p = fr.linalg.pinv(low_rank)
        rank = fr.linalg.matrix_rank(low_rank)
        full = fr.linalg.matrix_rank(np.eye(3), tol=0.5)
        assert p.shape.as_list() == [2, 4, 5] and rank.dtype is fr.int32
        got = _run([p, rank, full])
    np.testing.assert_allclose(got[0], np.linalg.pinv(low_rank), atol=1e-10)
    np.testing.assert_array_equal(got[1], [2, 2])
    assert got[2] == 3


def test_solver_gradients_match_tensorflow():
    tf = pytest.importorskip("tensorflow.compat.v1")
    tf.disable_eager_execution()
    a, b = A[0], RHS[0]
    m = _r.standard_normal((5, 4))

    def build(lib, a, b, m):
        ys = [
            lib.reduce_sum(lib.matrix_solve(a, b) ** 2),
            lib.reduce_sum(lib.matrix_triangular_solve(a, b, lower=False, adjoint=True) ** 2),
            lib.reduce_sum(lib.matrix_solve_ls(m, m[:, :3], l2_regularizer=0.3) ** 2),
        ]
        return [g for y in ys for g in lib.gradients(y, [a, b, m]) if g is not None]

    with tf.Graph().as_default():
        want = tf.Session().run(build(tf, tf.constant(a), tf.constant(b), tf.constant(m)))
    with fr.Graph().as_default():
        got = _run(build(fr, fr.constant(a), fr.constant(b), fr.constant(m)))
    assert len(got) == len(want) == 5
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-7, atol=1e-9)


def test_lu_is_tfs():
    a = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 10.0]])
    with fr.Graph().as_default():
        lu, p = fr.linalg.lu(a)
        assert fr.linalg.lu(a).p.dtype is fr.int32  # TF's namedtuple
        lu64, p64 = fr.linalg.lu(fr.constant(np.stack([a, a.T]), fr.float32), fr.int64)
        assert lu.name == "Lu:0" and p.dtype is fr.int32 and p64.dtype is fr.int64
        assert lu64.shape.as_list() == [2, 3, 3] and p64.shape.as_list() == [2, 3]
        got = _run([lu, p, lu64, p64])
        with pytest.raises(fr.errors.InvalidArgumentError) as info:
            _run(fr.linalg.lu(fr.zeros([2, 2])))
        with pytest.raises(LookupError, match="No gradient defined for operation"):
            fr.gradients(lu, [lu.op.inputs[0]])
    assert info.value.message == "Input is not invertible."
    want_lu = [[7.0, 8.0, 10.0], [0.14285714, 0.85714286, 1.57142857], [0.57142857, 0.5, -0.5]]
    np.testing.assert_allclose(got[0], want_lu, rtol=1e-7)  # TF 2.21's values
    np.testing.assert_array_equal(got[1], [2, 0, 1])
    for m, lu_, p_ in zip(np.stack([a, a.T]), got[2], got[3]):
        lower = np.tril(lu_, -1) + np.eye(3)
        np.testing.assert_allclose(m[p_], lower @ np.triu(lu_), rtol=1e-6)


def _expm_reference(a, terms=60):
    """exp(a) by scaling and squaring its Taylor series (a reference of another method)."""
    s = max(0, int(np.ceil(np.log2(max(np.abs(a).sum(axis=-2).max(), 1e-300)))) + 1)
    x = a / 2.0**s
    out, term = np.eye(a.shape[-1]), np.eye(a.shape[-1])
    for k in range(1, terms):
        term = term @ x / k
        out = out + term
    for _ in range(s):
        out = out @ out
    return out


@pytest.mark.parametrize("scale", [0.001, 0.1, 0.5, 1.5, 4.0, 40.0])
def test_expm_matches_a_taylor_reference_at_every_pade_degree(scale):
    a = _r.standard_normal((2, 4, 4))
    a = a / np.abs(a).sum(axis=-2).max(axis=-1)[:, None, None] * scale
    with fr.Graph().as_default():
        e = fr.linalg.expm(a)
        e32 = fr.linalg.expm(fr.constant(a, fr.float32))
        assert e.name == "MatrixExponential:0" and e32.dtype is fr.float32
        got, got32 = _run([e, e32])
    want = np.stack([_expm_reference(m) for m in a])
    np.testing.assert_allclose(got, want, rtol=1e-11 * max(1.0, scale), atol=1e-13)
    np.testing.assert_allclose(got32, want, rtol=1e-5, atol=1e-5 * max(1.0, np.abs(want).max()))


def test_expm_of_complex_and_of_commuting_matrices():
    z = 1j * np.array([[0.0, np.pi], [np.pi, 0.0]])  # exp(i pi X) = -I
    d = np.diag([0.5, -1.0, 2.0])
    with fr.Graph().as_default():
        got_z, got_d = _run([fr.linalg.expm(z), fr.linalg.expm(d)])
    np.testing.assert_allclose(got_z, -np.eye(2), atol=1e-12)
    np.testing.assert_allclose(got_d, np.diag(np.exp([0.5, -1.0, 2.0])), rtol=1e-13)


def test_expm_gradient_matches_tensorflow():
    tf = pytest.importorskip("tensorflow.compat.v1")
    tf.disable_eager_execution()
    a = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 10.0]]) * 0.3

    def build(lib):
        x = lib.constant(a)
        e = lib.linalg.expm(x)
        return [e, lib.gradients(lib.reduce_sum(e**2), x)[0]]

    with tf.Graph().as_default():
        want = tf.Session().run(build(tf))
    with fr.Graph().as_default():
        got = _run(build(fr))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-10)


@pytest.mark.parametrize("fast", [True, False])
def test_complex_lstsq_runs_the_op(fast):
    a = _r.standard_normal((2, 5, 3)) + 1j * _r.standard_normal((2, 5, 3))
    b = _r.standard_normal((2, 5, 2)) + 1j * _r.standard_normal((2, 5, 2))
    with fr.Graph().as_default():
        x = fr.linalg.lstsq(a, b, fast=fast)
        assert x.op.type == "MatrixSolveLs" and x.dtype is fr.complex128
        got = _run(x)
    want = np.stack([np.linalg.lstsq(m, r, rcond=None)[0] for m, r in zip(a, b)])
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


def test_pinv_refuses_complex_as_tf():
    with fr.Graph().as_default(), pytest.raises(TypeError, match="must have `float`-like"):
        fr.linalg.pinv(np.eye(2, dtype=np.complex64))
