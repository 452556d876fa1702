"""sparse_add, sparse_softmax and sparse_reduce_max against TF 2.21's recorded results
(tf.compat.v1 graph mode), including out-of-order inputs, thresholds and errors.
Gradients are checked in tests/grad_specs/sparse.py."""

import numpy as np
import pytest

import flowrt as fr

S = fr.SparseTensor
SP = ([[0, 0], [1, 0], [1, 1]], [-7.0, 4.0, 3.0], [3, 2])


def _run(t):
    with fr.Session() as sess:
        return sess.run(t)


def _check_sparse(got, indices, values, dense_shape):
    np.testing.assert_array_equal(got.indices, indices)
    np.testing.assert_allclose(got.values, values, rtol=1e-6)
    assert got.values.dtype == np.asarray(values).dtype or got.values.dtype == np.float32
    np.testing.assert_array_equal(got.dense_shape, dense_shape)


def test_sparse_plus_sparse_keeps_sums_above_the_threshold():
    with fr.Graph().as_default():
        a = S([[0, 0], [0, 1], [2, 1]], [1.0, 2.0, 3.0], [3, 2])
        b = S([[0, 1], [1, 1]], [-1.99, 5.0], [3, 2])
        kept = fr.sparse_add(a, b, thresh=0.001)
        dropped = fr.sparse.add(a, b, threshold=0.05)
        assert kept.shape.as_list() == [3, 2] and kept.dtype == fr.float32
        k, d = _run([kept, dropped])
    # TF 2.21's values
    _check_sparse(k, [[0, 0], [0, 1], [1, 1], [2, 1]], [1.0, 0.00999999, 5.0, 3.0], [3, 2])
    _check_sparse(d, [[0, 0], [1, 1], [2, 1]], [1.0, 5.0, 3.0], [3, 2])


def test_sparse_plus_sparse_out_of_order_is_tfs_walk():
    with fr.Graph().as_default():
        u = S([[1, 0], [0, 0]], [1, 2], [2, 2])
        got = _run(fr.sparse.add(u, u))
    _check_sparse(got, [[1, 0], [0, 0]], np.array([2, 4], np.int32), [2, 2])  # TF 2.21's


def test_sparse_plus_dense_is_dense():
    with fr.Graph().as_default():
        sp = S(*SP)
        a, b = fr.sparse.add(sp, fr.ones([3, 2])), fr.sparse_add(fr.ones([3, 2]), sp)
        assert a.shape.as_list() == [3, 2]
        va, vb = _run([a, b])
    np.testing.assert_array_equal(va, [[-6.0, 1.0], [5.0, 4.0], [1.0, 1.0]])
    np.testing.assert_array_equal(vb, va)


def test_sparse_add_errors():
    with fr.Graph().as_default():
        with pytest.raises(TypeError, match="At least one input should be SparseTensor"):
            fr.sparse_add(fr.ones([2]), fr.ones([2]))
        with pytest.raises(ValueError, match="incompatible"):
            fr.sparse_add(S([[0, 0]], [1.0], [2, 2]), S([[0, 0]], [1.0], [2, 3]))
        bad = fr.sparse_add(S([[0, 0]], [1.0], [2, 2]), fr.ones([2, 3]))
        with pytest.raises(fr.errors.InvalidArgumentError, match="sparse side 2 vs dense side 3"):
            _run(bad)


def test_softmax_values_are_tfs_in_and_out_of_order():
    with fr.Graph().as_default():
        a = fr.sparse.softmax(
            S([[0, 2], [0, 0], [1, 1], [2, 0], [2, 1]], [1.0, 2.0, 3.0, -1.0, 4.0], [3, 3])
        )
        b = fr.sparse_softmax(S([[1, 0], [0, 0], [1, 1]], [1.0, 2.0, 0.5], [2, 2]))
        c = fr.sparse_softmax(
            S(
                [[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 1, 1], [1, 1, 2]],
                [1.0, 2.0, 0.5, 3.0, 3.0],
                [2, 2, 3],
            )
        )
        va, vb, vc = _run([a, b, c])
        with pytest.raises(fr.errors.InvalidArgumentError, match="rank >= 2"):
            _run(fr.sparse_softmax(S([[1], [0]], [1.0, 2.0], [2])).values)
    # TF 2.21's values: the kernel sorts the entries and returns values in sorted order.
    np.testing.assert_allclose(
        va.values, [0.7310586, 0.26894143, 1.0, 0.00669285, 0.9933072], rtol=1e-6
    )
    np.testing.assert_allclose(vb.values, [1.0, 0.62245935, 0.37754068], rtol=1e-6)
    np.testing.assert_allclose(vc.values, [0.26894143, 0.7310586, 1.0, 0.5, 0.5], rtol=1e-6)


def test_reduce_max_ignores_missing_values():
    with fr.Graph().as_default():
        sp = S(*SP)
        outs = [
            fr.sparse.reduce_max(sp, 1),
            fr.sparse_reduce_max(sp, 0),
            fr.sparse_reduce_max(sp),
            fr.sparse_reduce_max(sp, 1, keepdims=True),
        ]
        assert [o.shape.as_list() for o in outs] == [[3], [2], [], [3, 1]]
        sparse1 = fr.sparse.reduce_max_sparse(sp, 1)
        sparse0 = fr.sparse_reduce_max_sparse(sp, [0], keepdims=True)
        v1, v0, va, vk, s1, s0 = _run(outs + [sparse1, sparse0])
    # TF 2.21's values: reduced positions with no value give 0.
    np.testing.assert_array_equal(v1, [-7.0, 4.0, 0.0])
    np.testing.assert_array_equal(v0, [4.0, 3.0])
    assert va == 4.0 and vk.shape == (3, 1)
    _check_sparse(s1, [[0], [1]], [-7.0, 4.0], [3])
    _check_sparse(s0, [[0, 0], [0, 1]], [4.0, 3.0], [1, 2])


def test_reduce_max_has_no_gradient_as_in_tf():
    with fr.Graph().as_default():
        v = fr.constant([1.0, 2.0])
        m = fr.sparse_reduce_max(S([[0, 0], [1, 1]], v, [2, 2]), 1)
        with pytest.raises(LookupError, match="No gradient defined for operation"):
            fr.gradients(m, [v])


def test_maximum_and_minimum_take_missing_values_as_zero():
    with fr.Graph().as_default():
        a = S([[0, 0], [0, 2], [1, 1], [2, 0]], [1.0, -2.0, 3.0, -4.0], [3, 3])
        b = S([[0, 2], [1, 0], [1, 1], [2, 2]], [-1.0, 5.0, 2.0, -6.0], [3, 3])
        mx, mn = _run([fr.sparse_maximum(a, b), fr.sparse.minimum(a, b)])
        v = fr.constant([1.0, 2.0])
        out = fr.sparse.maximum(S([[0], [1]], v, [2]), S([[0], [1]], v, [2]))
        with pytest.raises(LookupError, match="No gradient defined for operation"):
            fr.gradients(out.values, [v])
    union = [[0, 0], [0, 2], [1, 0], [1, 1], [2, 0], [2, 2]]
    _check_sparse(mx, union, [1.0, -1.0, 5.0, 3.0, 0.0, 0.0], [3, 3])  # TF 2.21's
    _check_sparse(mn, union, [0.0, -2.0, 0.0, 2.0, -4.0, -6.0], [3, 3])
