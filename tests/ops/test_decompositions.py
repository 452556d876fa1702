"""flowrt/ops/decomposition_ops.py against numpy.linalg, with the names, shapes, values
and errors TF 2.21's compat.v1 was seen to give (written into the expectations)."""

import numpy as np
import pytest

import flowrt as fr

_r = np.random.default_rng(3)
A = np.array([[4.0, 1.0], [1.0, 3.0]])
B = _r.standard_normal((2, 3, 4, 4)) + 4 * np.eye(4)
_S = _r.standard_normal((2, 4, 4))
SPD = _S @ np.swapaxes(_S, -1, -2) + np.eye(4)
Z = (_r.standard_normal((2, 3, 3)) + 1j * _r.standard_normal((2, 3, 3))) + 3 * np.eye(3)
ZH = Z @ np.conj(np.swapaxes(Z, -1, -2))
FLOATS = [fr.float32, fr.float64]
COMPLEX = [fr.complex64, fr.complex128]


def _run(fetches, feed=None):
    with fr.Session() as s:
        return s.run(fetches, feed)


def _tol(dtype):
    return {"rtol": 1e-4, "atol": 1e-4} if dtype.size <= 8 else {"rtol": 1e-9, "atol": 1e-10}


@pytest.mark.parametrize("dtype", FLOATS + COMPLEX)
def test_inverse_determinants_and_cholesky_match_numpy(dtype):
    x = (SPD if not dtype.is_complex else ZH).astype(dtype.np)
    with fr.Graph().as_default():
        t = fr.constant(x)
        outs = [
            fr.matrix_inverse(t),
            fr.linalg.inv(t, adjoint=True),
            fr.matrix_determinant(t),
            *fr.linalg.slogdet(t),
            fr.linalg.logdet(t),
            fr.cholesky(t),
        ]
        assert [o.dtype for o in outs[:-2]] == [dtype] * 5
        assert outs[-2].dtype is dtype.real_dtype and outs[-1].dtype is dtype
        shapes = [o.shape.as_list() for o in outs]
        got = _run(outs)
    assert shapes == [[2, *x.shape[1:]]] * 2 + [[2]] * 4 + [list(x.shape)]
    assert [list(g.shape) for g in got] == shapes
    sign, logabs = np.linalg.slogdet(x)
    want = [
        np.linalg.inv(x),
        np.linalg.inv(np.conj(np.swapaxes(x, -1, -2))),
        np.linalg.det(x),
        sign,
        logabs,
        logabs.real,
        np.linalg.cholesky(x),
    ]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, **_tol(dtype))


def test_names_and_shapes_are_tfs():
    with fr.Graph().as_default():
        x = fr.constant(A)
        outs = {
            "MatrixInverse:0": fr.matrix_inverse(x),
            "MatrixDeterminant:0": fr.matrix_determinant(x),
            "LogMatrixDeterminant:1": fr.linalg.slogdet(x)[1],
            "logdet/mul:0": fr.linalg.logdet(x),
            "Cholesky:0": fr.cholesky(x),
            "Qr:1": fr.qr(x)[1],
            "Svd:2": fr.svd(x)[2],
            "Svd_1:0": fr.svd(x, compute_uv=False),
            "SelfAdjointEigV2:1": fr.self_adjoint_eig(x)[1],
            "SelfAdjointEigV2_1:0": fr.self_adjoint_eigvals(x),
            "norm/Squeeze:0": fr.norm(x, ord=2, axis=[0, 1]),
            "adjoint/matrix_transpose/transpose:0": fr.linalg.adjoint(x),
        }
        assert [t.name for t in outs.values()] == list(outs)
        svd_op = outs["Svd_1:0"].op
        assert [t.shape.as_list() for t in svd_op.outputs] == [[2], [0], [0]]
        eig_op = outs["SelfAdjointEigV2_1:0"].op
        assert [t.shape.as_list() for t in eig_op.outputs] == [[2], [0]]


def test_tf_names_at_top_level_and_in_linalg():
    assert fr.linalg.inv is fr.matrix_inverse and fr.linalg.det is fr.matrix_determinant
    assert fr.linalg.eigh is fr.self_adjoint_eig and fr.linalg.eigvalsh is fr.self_adjoint_eigvals
    assert fr.linalg.cholesky is fr.cholesky and fr.linalg.svd is fr.svd and fr.linalg.qr is fr.qr
    assert fr.linalg.norm is fr.norm
    for name in ["slogdet", "logdet", "adjoint", "pinv", "matrix_rank", "lstsq"]:
        assert name in fr.linalg.__all__ and name not in fr.__all__  # as tf.compat.v1
    for name in ["matrix_inverse", "cholesky", "svd", "qr", "self_adjoint_eig", "norm"]:
        assert name in fr.__all__


def test_unknown_dims_infer_and_run():
    x = fr.placeholder(fr.float64, [None, None, None])
    with fr.Graph().as_default():
        x = fr.placeholder(fr.float64, [None, 3, None])
        inv = fr.matrix_inverse(x)
        q, r = fr.qr(x)
        s, u, v = fr.svd(x, full_matrices=True)
        d = fr.matrix_determinant(fr.placeholder(fr.float64))
        assert inv.shape.as_list() == [None, 3, 3] and q.shape.as_list() == [None, 3, None]
        assert s.shape.as_list() == [None, None] and u.shape.as_list() == [None, 3, 3]
        assert d.shape.ndims is None
        got = _run([inv, q, r, s], {x: B[0, :, :3, :3]})
    np.testing.assert_allclose(got[0], np.linalg.inv(B[0, :, :3, :3]))
    np.testing.assert_allclose(got[1] @ got[2], B[0, :, :3, :3], atol=1e-12)


def test_empty_matrices():
    with fr.Graph().as_default():
        e = fr.zeros([2, 0, 0], fr.float64)
        outs = _run([fr.matrix_determinant(e), fr.matrix_inverse(e), fr.cholesky(e)])
        q, r = _run(fr.qr(fr.zeros([3, 0])))
        s, u, v = _run(fr.svd(fr.zeros([2, 0]), full_matrices=True))
    np.testing.assert_array_equal(outs[0], [1.0, 1.0])  # TF: det of a 0x0 matrix is 1
    assert outs[1].shape == outs[2].shape == (2, 0, 0)
    assert q.shape == (3, 0) and r.shape == (0, 0)
    assert s.shape == (0,) and v.shape == (0, 0)
    np.testing.assert_array_equal(u, np.eye(2))  # TF's value


def test_singular_and_indefinite_matrices():
    with fr.Graph().as_default():
        sing = fr.constant([[1.0, 2.0], [2.0, 4.0]])
        with pytest.raises(fr.errors.InvalidArgumentError) as info:
            _run(fr.matrix_inverse(sing))
        assert info.value.message == "Input is not invertible."
        with pytest.raises(fr.errors.InvalidArgumentError) as info:
            _run(fr.cholesky(-fr.eye(2), name="chol"))
        assert info.value.op.name == "chol" and info.value.message == (
            "Cholesky decomposition was not successful. The input might not be valid."
        )
        with pytest.raises(fr.errors.InvalidArgumentError, match="Cholesky decomposition"):
            _run(fr.linalg.logdet(sing))
        det, (sign, logabs), (nsign, nlog) = _run(
            [fr.matrix_determinant(sing), fr.linalg.slogdet(sing), fr.linalg.slogdet(-fr.eye(3))]
        )
    assert det == 0.0 and (sign, logabs) == (0.0, -np.inf) and (nsign, nlog) == (-1.0, 0.0)


@pytest.mark.parametrize(
    "build, error, message",
    [
        (lambda: fr.matrix_inverse(fr.ones([2, 3])), ValueError, "Dimensions must be equal"),
        (lambda: fr.cholesky(fr.ones([3])), ValueError, "Shape must be at least rank 2"),
        (lambda: fr.qr(fr.ones([3])), ValueError, "Shape must be at least rank 2"),
        (lambda: fr.svd(fr.ones([3])), ValueError, "Shape must be at least rank 2"),
        (lambda: fr.self_adjoint_eig(fr.ones([2, 3])), ValueError, "Dimensions must be equal"),
        (
            lambda: fr.matrix_inverse(fr.ones([2, 2], fr.int32)),
            TypeError,
            "Value passed to parameter 'input' has DataType int32 not in list of allowed "
            "values: float64, float32, float16, complex64, complex128",
        ),
    ],
)
def test_construction_errors_are_tfs(build, error, message):
    with fr.Graph().as_default(), pytest.raises(error, match=message):
        build()


def test_float16_is_computed_in_float32():
    with fr.Graph().as_default():
        x = fr.constant(A.astype(np.float16))
        inv, e = fr.matrix_inverse(x), fr.self_adjoint_eig(x)[0]
        assert inv.dtype is fr.float16 and e.dtype is fr.float16
        got_inv, got_e = _run([inv, e])
    assert got_inv.dtype == np.float16
    np.testing.assert_allclose(got_inv, np.linalg.inv(A), rtol=1e-3)
    np.testing.assert_allclose(got_e, np.linalg.eigvalsh(A), rtol=1e-3)


@pytest.mark.parametrize("dtype", FLOATS + COMPLEX)
@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (2, 3, 3), (2, 2, 5, 2)])
@pytest.mark.parametrize("full", [False, True])
def test_qr_and_svd_reconstruct(dtype, shape, full):
    x = _r.standard_normal(shape)
    if dtype.is_complex:
        x = x + 1j * _r.standard_normal(shape)
    x = x.astype(dtype.np)
    m, n = shape[-2:]
    p = min(m, n)
    with fr.Graph().as_default():
        t = fr.constant(x)
        q, r = fr.qr(t, full_matrices=full)
        s, u, v = fr.svd(t, full_matrices=full)
        s_only = fr.svd(t, compute_uv=False)
        shapes = [o.shape.as_list() for o in (q, r, s, u, v)]
        assert s.dtype is dtype.real_dtype and u.dtype is dtype
        got = _run([q, r, s, u, v, s_only])
    batch = list(shape[:-2])
    k = m if full else p
    assert shapes == [
        batch + [m, k],
        batch + [k, n],
        batch + [p],
        batch + [m, m if full else p],
        batch + [n, n if full else p],
    ]
    assert [list(g.shape) for g in got[:5]] == shapes
    gq, gr, gs, gu, gv, gs2 = got
    tol = _tol(dtype)
    np.testing.assert_allclose(gq @ gr, x, **tol)
    np.testing.assert_allclose(np.triu(gr), gr, **tol)
    eye = np.eye(gq.shape[-1])
    np.testing.assert_allclose(
        np.conj(np.swapaxes(gq, -1, -2)) @ gq,
        np.broadcast_to(eye, gq.shape[:-2] + eye.shape),
        **tol,
    )
    np.testing.assert_allclose(gs, np.linalg.svd(x, compute_uv=False), **tol)
    np.testing.assert_allclose(gs2, gs, **tol)
    us = gu[..., :, :p] * gs[..., None, :]
    np.testing.assert_allclose(us @ np.conj(np.swapaxes(gv[..., :, :p], -1, -2)), x, **tol)


def test_qr_svd_and_eigh_values_are_tfs():
    """TF's LAPACK sign conventions, recorded from TF 2.21 (float32)."""
    with fr.Graph().as_default():
        qr = fr.qr(fr.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
        q, r = qr.q, qr.r  # TF's namedtuple
        fetched = _run(fr.linalg.slogdet(fr.constant(A)))
        assert type(fetched).__name__ == "LogMatrixDeterminant" and fetched.sign == 1.0
        s, u, v = fr.svd(fr.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
        # Only the lower triangle is read: the 100 is ignored, as in TF.
        e = fr.self_adjoint_eigvals(fr.constant([[2.0, 100.0], [1.0, 3.0]]))
        got = _run([q, r, s, u, v, e])
    want = [
        [[-0.16903079, 0.897085], [-0.5070925, 0.2760267], [-0.8451542, -0.34503305]],
        [[-5.91608, -7.437357], [0.0, 0.82807845]],
        [9.508034, 0.77286935],
        [[-0.38631773, -0.92236584], [-0.92236584, 0.38631773]],
        [[-0.42866713, 0.8059641], [-0.56630695, 0.1123824], [-0.70394677, -0.58119917]],
        [1.3819659, 3.6180334],
    ]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", FLOATS + COMPLEX)
def test_self_adjoint_eig_matches_numpy(dtype):
    x = (SPD if not dtype.is_complex else ZH).astype(dtype.np)
    with fr.Graph().as_default():
        e, v = fr.linalg.eigh(fr.constant(x))
        ev = fr.linalg.eigvalsh(fr.constant(x))
        assert e.dtype is dtype and e.shape.as_list() == list(x.shape[:-1])
        ge, gv, gev = _run([e, v, ev])
    tol = _tol(dtype)
    np.testing.assert_allclose(ge, np.linalg.eigvalsh(x), **{**tol, "rtol": 10 * tol["rtol"]})
    np.testing.assert_allclose(gev, ge, **tol)
    # Columns are eigenvectors: x v = v diag(e).
    np.testing.assert_allclose(
        x @ gv, gv * ge[..., None, :], atol=1e-3 if dtype.size <= 8 else 1e-9
    )


def test_spectral_norm():
    x = _r.standard_normal((2, 3, 4))
    with fr.Graph().as_default():
        t = fr.constant(x)
        n = fr.norm(t, ord=2, axis=[1, 2])
        nk = fr.linalg.norm(t, ord=2, axis=(0, -1), keepdims=True)
        nf = fr.norm(t, ord="fro", axis=[1, 2])
        assert n.shape.as_list() == [2] and nk.shape.as_list() == [1, 3, 1]
        got = _run([n, nk, nf])
    np.testing.assert_allclose(got[0], np.linalg.norm(x, 2, axis=(1, 2)))
    np.testing.assert_allclose(got[1], np.linalg.norm(x, 2, axis=(0, 2), keepdims=True))
    np.testing.assert_allclose(got[2], np.linalg.norm(x, "fro", axis=(1, 2)))


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (
            {"ord": "nuc", "axis": [0, 1]},
            "'ord' must be a supported matrix norm in ['euclidean', 'fro', 1, 2, inf], got nuc",
        ),
        (
            {"ord": -1, "axis": (0, 1)},
            "'ord' must be a supported matrix norm in ['euclidean', 'fro', 1, 2, inf], got -1",
        ),
        (
            {"ord": 2, "axis": [1, 1]},
            "'axis' must be None, an integer, or a tuple of 2 unique integers, got (1, 1)",
        ),
    ],
)
def test_norm_errors_are_tfs(kwargs, message):
    with fr.Graph().as_default(), pytest.raises(ValueError) as info:
        fr.norm(fr.ones([2, 2]), **kwargs)
    assert str(info.value) == message


def test_complex_gradients_are_refused_plainly():
    with fr.Graph().as_default():
        z = fr.constant(ZH[0])
        with pytest.raises(TypeError, match="flowrt does not differentiate MatrixInverse"):
            fr.gradients(fr.real(fr.reduce_sum(fr.matrix_inverse(z))), [z])


def test_gradients_match_tensorflow():
    tf = pytest.importorskip("tensorflow.compat.v1")
    tf.disable_eager_execution()
    x = SPD[0]
    m = _r.standard_normal((4, 3))

    def build(lib, a, b):
        s, u, v = lib.svd(b)
        e, w = lib.self_adjoint_eig(a)
        q, r = lib.qr(b)
        ys = [
            lib.reduce_sum(lib.matrix_inverse(a) * a),
            lib.matrix_determinant(a),
            lib.reduce_sum(lib.cholesky(a) ** 2),
            lib.reduce_sum(s**3) + lib.reduce_sum(lib.abs(u[:, :1]) * lib.abs(v[:1, :])),
            lib.reduce_sum(e**2) + lib.reduce_sum(w * w[:, ::-1]),
            lib.reduce_sum(q * lib.abs(q)) + lib.reduce_sum(r * r),
        ]
        return [lib.gradients(y, [a, b])[0 if i < 3 or i == 4 else 1] for i, y in enumerate(ys)]

    with tf.Graph().as_default():
        want = tf.Session().run(build(tf, tf.constant(x), tf.constant(m)))
    with fr.Graph().as_default():
        got = _run(build(fr, fr.constant(x), fr.constant(m)))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-7, atol=1e-9)


WRAPPERS = {
    "matrix_inverse": lambda x, y: fr.matrix_inverse(x),
    "matrix_determinant": lambda x, y: fr.matrix_determinant(x),
    "slogdet": lambda x, y: fr.linalg.slogdet(x),
    "logdet": lambda x, y: fr.linalg.logdet(x),
    "cholesky": lambda x, y: fr.cholesky(x),
    "qr": lambda x, y: fr.qr(x),
    "svd": lambda x, y: fr.svd(x),
    "eigh": lambda x, y: fr.self_adjoint_eig(x),
    "eigvalsh": lambda x, y: fr.self_adjoint_eigvals(x),
    "norm-2": lambda x, y: fr.norm(x, ord=2, axis=[0, 1]),
    "adjoint": lambda x, y: fr.linalg.adjoint(x),
    "solve": lambda x, y: fr.matrix_solve(x, y),
    "triangular_solve": lambda x, y: fr.matrix_triangular_solve(x, y),
    "cholesky_solve": lambda x, y: fr.linalg.cholesky_solve(x, y),
    "lstsq": lambda x, y: fr.linalg.lstsq(x, y, l2_regularizer=0.1),
    "lstsq-op": lambda x, y: fr.linalg.lstsq(x, y, fast=False),
    "pinv": lambda x, y: fr.linalg.pinv(x),
    "matrix_rank": lambda x, y: fr.linalg.matrix_rank(x),
    "lu": lambda x, y: fr.linalg.lu(x),
    "expm": lambda x, y: fr.linalg.expm(x),
}


@pytest.mark.parametrize("case", sorted(WRAPPERS))
def test_wrappers_build_in_their_inputs_graph(case):
    g = fr.Graph()
    with g.as_default():
        x, y = fr.constant(A), fr.constant(A[:, :1])
    default = fr.Graph()
    with default.as_default():
        WRAPPERS[case](x, y)
    assert default.get_operations() == [] and len(g.get_operations()) > 2
