"""gather_nd / scatter_nd: values, static shapes and errors as TF (issue 12, item 8)."""

import numpy as np
import pytest

import flowrt as fr

P = np.arange(24.0).reshape(2, 3, 4)


def test_gather_nd_values_and_shapes():
    p = fr.constant(P)
    cases = [
        (fr.gather_nd(p, [[1, 2], [0, 0]]), [2, 4], P[[1, 0], [2, 0]]),
        (fr.gather_nd(p, [[[1, 2, 3]], [[0, 0, 0]]]), [2, 1], [[23.0], [0.0]]),
        (fr.gather_nd(p, [1]), [3, 4], P[1]),
        (fr.gather_nd(p, np.zeros((2, 0), np.int32)), [2, 2, 3, 4], np.stack([P, P])),
    ]
    with fr.Session() as sess:
        for t, static, want in cases:
            assert t.shape.as_list() == static and t.op.type == "GatherNd"
            np.testing.assert_array_equal(sess.run(t), want)
    ph = fr.placeholder(fr.int64, [None, 2])
    assert fr.gather_nd(p, ph).shape.as_list() == [None, 4]


def test_scatter_nd_adds_duplicates():
    a = fr.scatter_nd([[1], [1], [0]], [1.0, 2.0, 3.0], [3])
    b = fr.scatter_nd([[0, 1]], [[5.0, 6.0, 7.0, 8.0]], [2, 3, 4])
    with fr.Session() as sess:
        assert sess.run(a).tolist() == [3.0, 3.0, 0.0]
        got = sess.run(b)
    assert got.shape == (2, 3, 4) and got[0, 1].tolist() == [5.0, 6.0, 7.0, 8.0]
    assert got.sum() == 26.0


def test_gradient_is_a_scatter_as_tf():
    p = fr.constant(P)
    ph = fr.placeholder(fr.int32, [None, 2])
    g = fr.gather_nd(p, ph)
    grad = fr.gradients(fr.reduce_sum(g * g), p)[0]
    with fr.Session() as sess:
        got = sess.run(grad, {ph: [[1, 2], [1, 2]]})
    want = np.zeros_like(P)
    want[1, 2] = 4 * P[1, 2]  # gathered twice: the two gradients add up
    np.testing.assert_allclose(got, want)
    assert fr.gradients(g, ph) == [None]


def test_errors_name_the_op_and_index():
    p = fr.constant(P)
    with pytest.raises(
        ValueError,
        match=r"GatherNd op .*indices.shape\[-1\] must be <= "
        r"params.rank",
    ):
        fr.gather_nd(p, [[1, 2, 3, 4]])
    with pytest.raises(TypeError, match="indices"):
        fr.gather_nd(p, [[1.0]])
    with pytest.raises(ValueError, match=r"updates must have shape \[2\]"):
        fr.scatter_nd([[0], [1]], [1.0, 2.0, 3.0], [4])
    ph = fr.placeholder(fr.int32, [None, 2])
    g = fr.gather_nd(p, ph, name="pick")
    with fr.Session() as sess:
        with pytest.raises(
            fr.errors.InvalidArgumentError,
            match=r"GatherNd op 'pick'.*indices\[1\] = \[2, 0\] does not "
            r"index into param shape \[2, 3, 4\]",
        ):
            sess.run(g, {ph: [[0, 0], [2, 0]]})
