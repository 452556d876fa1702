"""SparseTensor layout ops (from_dense, eye, reshape, transpose, expand_dims,
reset_shape, merge, to_indicator) against TF 2.21's recorded results in
tf.compat.v1 graph mode, and their errors."""

import numpy as np
import pytest

import flowrt as fr

S = fr.SparseTensor
SP = ([[0, 0, 1], [0, 2, 0], [1, 1, 3]], [1.0, 2.0, 3.0], [2, 3, 4])
IDS = ([[0, 0], [0, 1], [1, 0], [2, 0], [2, 1]], [3, 1, 0, 2, 2], [3, 2])
MERGE_VALUES = [0.1, 0.2, 0.3, 0.4, 0.5]


def _build():
    sp, ids = S(*SP), S(*IDS)
    vals = S(ids.indices, MERGE_VALUES, [3, 2])
    return dict(
        fd=fr.sparse.from_dense([[0, 1.5, 0], [2.0, 0, 0]]),
        fds=fr.sparse.from_dense(np.array([[b"", b"a"], [b"b", b""]])),
        eye=fr.sparse.eye(3),
        eye2=fr.sparse.eye(2, 4, dtype=fr.int32),
        rs=fr.sparse_reshape(sp, [6, -1]),
        rs2=fr.sparse.reshape(sp, [4, 6]),
        tr=fr.sparse_transpose(sp),
        tr2=fr.sparse.transpose(sp, [1, 0, 2]),
        ed=fr.sparse.expand_dims(sp, 1),
        ed2=fr.sparse.expand_dims(sp),
        ed3=fr.sparse.expand_dims(sp, -2),
        rsh=fr.sparse_reset_shape(sp),
        rsh2=fr.sparse_reset_shape(sp, [3, 3, 5]),
        mg=fr.sparse_merge(ids, vals, 4),
        mg2=fr.sparse.merge([ids, ids], vals, [4, 5]),
    )


# TF 2.21's (indices, values, dense_shape)
TF_SPARSE = dict(
    fd=([[0, 1], [1, 0]], [1.5, 2.0], [2, 3]),
    fds=([[0, 1], [1, 0]], [b"a", b"b"], [2, 2]),
    eye=([[0, 0], [1, 1], [2, 2]], [1.0, 1.0, 1.0], [3, 3]),
    eye2=([[0, 0], [1, 1]], [1, 1], [2, 4]),
    rs=([[0, 1], [2, 0], [4, 3]], [1.0, 2.0, 3.0], [6, 4]),
    rs2=([[0, 1], [1, 2], [3, 1]], [1.0, 2.0, 3.0], [4, 6]),
    tr=([[0, 2, 0], [1, 0, 0], [3, 1, 1]], [2.0, 1.0, 3.0], [4, 3, 2]),
    tr2=([[0, 0, 1], [1, 1, 3], [2, 0, 0]], [1.0, 3.0, 2.0], [3, 2, 4]),
    ed=([[0, 0, 0, 1], [0, 0, 2, 0], [1, 0, 1, 3]], [1.0, 2.0, 3.0], [2, 1, 3, 4]),
    ed2=([[0, 0, 1, 0], [0, 2, 0, 0], [1, 1, 3, 0]], [1.0, 2.0, 3.0], [2, 3, 4, 1]),
    ed3=([[0, 0, 0, 1], [0, 2, 0, 0], [1, 1, 0, 3]], [1.0, 2.0, 3.0], [2, 3, 1, 4]),
    rsh=([[0, 0, 1], [0, 2, 0], [1, 1, 3]], [1.0, 2.0, 3.0], [2, 3, 4]),
    rsh2=([[0, 0, 1], [0, 2, 0], [1, 1, 3]], [1.0, 2.0, 3.0], [3, 3, 5]),
    mg=([[0, 1], [0, 3], [1, 0], [2, 2], [2, 2]], [0.2, 0.1, 0.3, 0.4, 0.5], [3, 4]),
    mg2=(
        [[0, 1, 1], [0, 3, 3], [1, 0, 0], [2, 2, 2], [2, 2, 2]],
        [0.2, 0.1, 0.3, 0.4, 0.5],
        [3, 4, 5],
    ),
)
STATIC = dict(fd=[2, 3], eye=[3, 3], rs=[6, 4], rs2=[4, 6], tr=[4, 3, 2], rsh2=[3, 3, 5])


def test_values_are_tfs():
    with fr.Graph().as_default():
        out = _build()
        for k, dims in STATIC.items():
            assert out[k].shape.as_list() == dims, k
        with fr.Session() as sess:
            got = sess.run(out)
    for k, (indices, values, dense_shape) in TF_SPARSE.items():
        np.testing.assert_array_equal(got[k].indices, indices, err_msg=k)
        if isinstance(values[0], bytes):
            assert list(got[k].values) == values
        else:
            np.testing.assert_allclose(got[k].values, values, rtol=1e-6, err_msg=k)
        np.testing.assert_array_equal(got[k].dense_shape, dense_shape, err_msg=k)
    assert got["eye2"].values.dtype == np.int32 and got["rs"].indices.dtype == np.int64


def test_to_indicator_is_tfs():
    with fr.Graph().as_default():
        ind = fr.sparse_to_indicator(S(*IDS), 4)
        assert ind.dtype == fr.bool
        with fr.Session() as sess:
            got = sess.run(ind)
    want = [[False, True, False, True], [True, False, False, False], [False, False, True, False]]
    np.testing.assert_array_equal(got, want)  # TF 2.21's


def test_gradients_pass_through_layout_ops():
    with fr.Graph().as_default():
        v = fr.constant([1.0, 2.0, 3.0])
        sp = S(SP[0], v, SP[2])
        moved = fr.sparse_transpose(fr.sparse_reshape(sp, [4, 6]))
        loss = fr.reduce_sum(moved.values * fr.constant([1.0, 10.0, 100.0]))
        (g,) = fr.gradients(loss, [v])
        with fr.Session() as sess:
            got = sess.run(g)
    # reshape keeps the order; the transpose to [6, 4] puts entry 0 (row 0, col 1)
    # first, then entry 2 ([3, 1] -> [1, 3]), then entry 1 ([1, 2] -> [2, 1]).
    np.testing.assert_array_equal(got, [1.0, 100.0, 10.0])


def test_errors():
    with fr.Graph().as_default():
        sp = S(*SP)
        with pytest.raises(ValueError, match=r"Cannot reshape a tensor with 24 elements"):
            fr.sparse_reshape(sp, [5, 5])
        with pytest.raises(ValueError, match="At most one dimension can be inferred"):
            fr.sparse_reshape(sp, [-1, -1])
        with pytest.raises(ValueError, match="new_shape should have dimension sizes >="):
            fr.sparse_reset_shape(sp, [1, 3, 4])
        with pytest.raises(ValueError, match="equal lengths"):
            fr.sparse_merge([S(*IDS)], S(*IDS), [4, 5])
        with pytest.raises(TypeError, match="axis must be an int or tensor"):
            fr.sparse.expand_dims(sp, 1.5)
        dyn = fr.sparse_placeholder(fr.float32, [None, None])
        bad = fr.sparse_reshape(dyn, [5, -1])
        with fr.Session() as sess:
            with pytest.raises(fr.errors.InvalidArgumentError, match="Input to reshape is a Spar"):
                sess.run(bad, {dyn: ([[0, 0]], [1.0], [2, 3])})


SP46 = ([[0, 0], [0, 4], [1, 2], [2, 1], [2, 5], [3, 3]], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [4, 6])


def test_slice_and_split_are_tfs():
    with fr.Graph().as_default():
        sp = S(*SP46)
        slices = [
            fr.sparse_slice(sp, [1, 1], [2, 4]),
            fr.sparse.slice(sp, [2, 3], [5, 5]),
        ]
        cols = fr.sparse_split(sp_input=sp, num_split=4, axis=1)
        rows = fr.sparse.split(sp_input=sp, num_split=3, axis=-2)
        with fr.Session() as sess:
            got = sess.run(slices + cols + rows)
    want = [  # TF 2.21's
        ([[0, 1], [1, 0]], [3.0, 4.0], [2, 4]),
        ([[0, 2], [1, 0]], [5.0, 6.0], [2, 3]),
        ([[0, 0], [2, 1]], [1.0, 4.0], [4, 2]),
        ([[1, 0], [3, 1]], [3.0, 6.0], [4, 2]),
        ([[0, 0]], [2.0], [4, 1]),
        ([[2, 0]], [5.0], [4, 1]),
        ([[0, 0], [0, 4], [1, 2]], [1.0, 2.0, 3.0], [2, 6]),
        ([[0, 1], [0, 5]], [4.0, 5.0], [1, 6]),
        ([[0, 3]], [6.0], [1, 6]),
    ]
    for g, (indices, values, dense_shape) in zip(got, want):
        np.testing.assert_array_equal(g.indices, indices)
        np.testing.assert_array_equal(g.values, values)
        np.testing.assert_array_equal(g.dense_shape, dense_shape)


def test_split_wants_keywords_and_a_valid_count():
    with fr.Graph().as_default():
        sp = S(*SP46)
        with pytest.raises(ValueError, match="Keyword arguments are required"):
            fr.sparse_split(sp, 2, 1)
        with pytest.raises(ValueError, match="`num_split` is required"):
            fr.sparse_split(sp_input=sp, axis=1)
        bad = fr.sparse_split(sp_input=sp, num_split=7, axis=1)[0].values
        with fr.Session() as sess:
            with pytest.raises(fr.errors.InvalidArgumentError, match="between 1 and 6, got 7"):
                sess.run(bad)
