"""flowrt/ops/matrix_ops.py against NumPy, with the names, shapes and errors TF 2.21's
compat.v1 was seen to give (written into the expectations)."""

import numpy as np
import pytest

import flowrt as fr

X = np.arange(12.0).reshape(3, 4) - 5
B = np.arange(24.0).reshape(2, 3, 4)


def _run(fetches, feed=None):
    with fr.Session() as s:
        return s.run(fetches, feed)


def test_matrix_band_part_keeps_the_band():
    with fr.Graph().as_default():
        a = fr.matrix_band_part(X, 1, 0)
        b = fr.matrix_band_part(B, -1, 1)
        c = fr.matrix_band_part(B, 0, -1)
        assert (a.name, b.name, a.shape.as_list()) == (
            "MatrixBandPart:0",
            "MatrixBandPart_1:0",
            [3, 4],
        )
        ra, rb, rc = _run([a, b, c])
    np.testing.assert_array_equal(ra, np.tril(np.triu(X, -1)))
    np.testing.assert_array_equal(rb, np.tril(B, 1))
    np.testing.assert_array_equal(rc, np.triu(B))


def test_matrix_band_part_errors():
    with fr.Graph().as_default():
        with pytest.raises(ValueError, match="at least rank 2"):
            fr.matrix_band_part(fr.ones([3]), 0, 0)
        with pytest.raises(fr.errors.InvalidArgumentError, match="num_lower"):
            _run(fr.matrix_band_part(fr.ones([2, 2]), 5, 0))


def test_diagonals_and_eye():
    with fr.Graph().as_default():
        md = fr.matrix_diag([[1.0, 2.0], [3.0, 4.0]])
        mdp = fr.matrix_diag_part(B)
        msd = fr.matrix_set_diag(B, np.ones((2, 3)))
        e23, e3 = fr.eye(2, 3), fr.eye(3)
        eb = fr.eye(2, batch_shape=[2], dtype=fr.int32)
        assert (md.name, mdp.name) == ("diag:0", "diag_part:0")  # TF's default names
        assert mdp.shape.as_list() == [2, 3] and eb.shape.as_list() == [2, 2, 2]
        assert eb.dtype == fr.int32 and e23.dtype == fr.float32
        r = _run([md, mdp, msd, e23, e3, eb])
    np.testing.assert_array_equal(r[0], [np.diag([1.0, 2.0]), np.diag([3.0, 4.0])])
    np.testing.assert_array_equal(r[1], np.diagonal(B, axis1=1, axis2=2))
    want = B.copy()
    want[:, [0, 1, 2], [0, 1, 2]] = 1.0
    np.testing.assert_array_equal(r[2], want)
    np.testing.assert_array_equal(r[3], np.eye(2, 3))
    np.testing.assert_array_equal(r[4], np.eye(3))
    np.testing.assert_array_equal(r[5], [np.eye(2), np.eye(2)])


def test_diag_and_diag_part_of_any_rank():
    with fr.Graph().as_default():
        d = fr.diag(fr.constant([[1, 2], [3, 4]]))
        assert d.shape.as_list() == [2, 2, 2, 2]
        rd, rp = _run([d, fr.diag_part(d)])
    assert rd[1, 0, 1, 0] == 3 and rd[1, 0, 0, 0] == 0 and rd.sum() == 10
    np.testing.assert_array_equal(rp, [[1, 2], [3, 4]])
    with fr.Graph().as_default():
        with pytest.raises(ValueError, match="even, nonzero rank"):
            fr.diag_part(fr.ones([2, 2, 2]))


def test_trace_and_matrix_transpose():
    with fr.Graph().as_default():
        t = fr.trace(B)
        mt = fr.matrix_transpose(B)
        assert t.name == "Trace:0" and mt.name == "matrix_transpose/transpose:0"
        assert mt.shape.as_list() == [2, 4, 3]
        rt, rm = _run([t, mt])
    np.testing.assert_array_equal(rt, np.trace(B, axis1=1, axis2=2))
    np.testing.assert_array_equal(rm, B.transpose(0, 2, 1))


@pytest.mark.parametrize(
    "kwargs, want",
    [
        ({}, 12.083045973594572),  # TF 2.21's values for X
        ({"ord": 1, "axis": 1}, [14.0, 4.0, 18.0]),
        ({"ord": np.inf, "axis": 0, "keepdims": True}, [[5.0, 4.0, 5.0, 6.0]]),
        ({"ord": 1, "axis": [0, 1]}, 10.0),
        ({"ord": np.inf, "axis": [-2, -1]}, 18.0),
        ({"ord": 3}, 8.732891741295965),
        ({"ord": 1}, np.abs(X).sum()),
        ({"ord": np.inf}, 6.0),
        ({"axis": -1}, np.sqrt((X * X).sum(1))),
    ],
)
def test_norm_values_as_tf(kwargs, want):
    with fr.Graph().as_default():
        np.testing.assert_allclose(_run(fr.norm(X, **kwargs)), want, rtol=1e-12)


def test_norm_names_shapes_and_errors():
    with fr.Graph().as_default():
        n = fr.norm(B, ord="fro", axis=[1, 2])
        k = fr.norm(B, axis=[1, 2], keepdims=True)
        assert n.name == "norm/Squeeze:0" and n.shape.as_list() == [2]
        assert k.shape.as_list() == [2, 1, 1]
        np.testing.assert_allclose(_run(n), [22.494443758403985, 61.78996682310163])
        for bad in [{"ord": 0}, {"ord": -1}, {"axis": [0, 0]}, {"ord": "nuc", "axis": [0, 1]}]:
            with pytest.raises(ValueError, match="'ord'|'axis'"):
                fr.norm(B, **bad)
        # ord=2 over two axes (the spectral norm) is supported: tests/ops/test_decompositions.py


def test_swish_and_crelu():
    with fr.Graph().as_default():
        c = fr.nn.crelu(X)
        assert c.name == "CRelu/Relu:0" and c.shape.as_list() == [3, 8]
        rs, rc = _run([fr.nn.swish(X), c])
    np.testing.assert_allclose(rs, X / (1 + np.exp(-X)))
    np.testing.assert_array_equal(rc, np.maximum(np.concatenate([X, -X], -1), 0))
