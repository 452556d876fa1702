"""tensordot, reverse_sequence, where_v2, repeat, ensure_shape and the rest of
flowrt/ops/selection_ops.py, shape_ops.py and product_ops.py, with setdiff1d, bincount,
unravel_index, parallel_stack and accumulate_n, against TF 2.21's results (recorded
here)."""

import numpy as np
import pytest

import flowrt as fr

A = np.arange(24.0).reshape(2, 3, 4)
B = np.arange(20.0).reshape(4, 5)


def _run(fetches, feed=None):
    with fr.Session() as s:
        return s.run(fetches, feed)


def test_tensordot_axes_forms_and_static_shapes():
    with fr.Graph().as_default():
        a, b = fr.constant(A), fr.constant(B)
        ph = fr.placeholder(fr.float64, [None, 3, 4])
        ys = [
            fr.tensordot(a, b, 1),
            fr.tensordot(a, b, [[2], [0]]),
            fr.tensordot(a, b, fr.constant([[2], [0]])),
            fr.tensordot(a, fr.constant(A[0]), [[1, 2], [0, 1]]),
            fr.tensordot(ph, b, [[-1], [0]]),
            fr.tensordot(a, b, 0),
        ]
        # TF: (None, 3, 5) for the placeholder, static shapes otherwise.
        assert ys[4].shape.as_list() == [None, 3, 5]
        assert ys[5].shape.as_list() == [2, 3, 4, 4, 5]
        got = _run(ys, {ph: A})
    want = np.tensordot(A, B, 1)
    for g in got[:3] + [got[4]]:
        np.testing.assert_allclose(g, want)
    np.testing.assert_allclose(got[3], np.tensordot(A, A[0], [[1, 2], [0, 1]]))
    np.testing.assert_allclose(got[5], np.tensordot(A, B, 0))


def test_tensordot_bad_axes():
    with fr.Graph().as_default():
        a = fr.constant(A)
        with pytest.raises(ValueError, match="'axes' must be at least 0."):
            fr.tensordot(a, a, -1)
        with pytest.raises(ValueError, match="must not be larger than the number of dim"):
            fr.tensordot(a, a, 4)
        with pytest.raises(ValueError, match="Different number of contraction axes"):
            fr.tensordot(a, a, [[0, 1], [0]])


def test_reverse_sequence_and_its_gradient_match_tf():
    with fr.Graph().as_default():
        x = fr.constant(np.arange(12.0).reshape(3, 4))
        y = fr.reverse_sequence(x, [1, 2, 4], seq_axis=1, batch_axis=0)
        yd = fr.reverse_sequence(fr.transpose(x), [1, 2, 4], seq_dim=0, batch_dim=1)
        (g,) = fr.gradients(fr.reduce_sum(y * np.arange(12.0).reshape(3, 4)), x)
        got, gd, gg = _run([y, yd, g])
    want = [[0, 1, 2, 3], [5, 4, 6, 7], [11, 10, 9, 8]]
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(gd, np.transpose(want))
    np.testing.assert_array_equal(gg, want)


def test_reverse_sequence_length_out_of_range():
    with fr.Graph().as_default():
        lens = fr.placeholder(fr.int64, [3])
        y = fr.reverse_sequence(fr.ones([3, 4]), lens, seq_axis=1)
        with pytest.raises(fr.errors.InvalidArgumentError, match=r"seq_lengths\[2\] = 5"):
            _run(y, {lens: [1, 2, 5]})


def test_where_v2_broadcasts():
    with fr.Graph().as_default():
        c = fr.constant([True, False])
        x = fr.constant([[1.0, 2], [3, 4]])
        y = fr.where_v2(c, x, 0.0)
        assert y.shape.as_list() == [2, 2]
        (gx,) = fr.gradients(fr.reduce_sum(fr.where_v2(c, 5.0, x)), x)
        coords = fr.where_v2(fr.constant([[True, False], [False, True]]))
        v, g, w = _run([y, gx, coords])
    np.testing.assert_array_equal(v, [[1, 0], [3, 0]])
    np.testing.assert_array_equal(g, [[0, 1], [0, 1]])
    np.testing.assert_array_equal(w, [[0, 0], [1, 1]])


def test_repeat():
    with fr.Graph().as_default():
        x = fr.constant([[1, 2], [3, 4]])
        ys = [fr.repeat(x, 2), fr.repeat(x, [1, 2], axis=0), fr.repeat(x, 3, axis=1)]
        got = _run(ys)
    np.testing.assert_array_equal(got[0], np.repeat([[1, 2], [3, 4]], 2))
    np.testing.assert_array_equal(got[1], np.repeat([[1, 2], [3, 4]], [1, 2], axis=0))
    np.testing.assert_array_equal(got[2], np.repeat([[1, 2], [3, 4]], 3, axis=1))


def test_ensure_shape():
    with fr.Graph().as_default():
        ph = fr.placeholder(fr.float64, [None, 3, 4], name="x")
        y = fr.ensure_shape(ph, [2, None, 4])
        assert y.shape.as_list() == [2, 3, 4]
        assert _run(y, {ph: A}).shape == (2, 3, 4)
        with pytest.raises(
            fr.errors.InvalidArgumentError,
            match=r"Shape of tensor x:0 \[1,3,4\] is not compatible with expected shape "
            r"\[2,\?,4\]\.",
        ):
            _run(y, {ph: np.zeros((1, 3, 4))})
        with pytest.raises(ValueError, match="is not compatible with expected shape"):
            fr.ensure_shape(fr.constant(A), [2, 3, 5])


def test_shape_n_setdiff1d_unravel_index():
    with fr.Graph().as_default():
        sn = fr.shape_n([fr.constant(A), fr.constant(B)], out_type=fr.int64)
        sd = fr.setdiff1d([1, 2, 3, 4, 5], [2, 4])
        ui = [fr.unravel_index([1, 5, 4], [3, 2]), fr.unravel_index(5, [3, 2])]
        assert ui[0].shape.as_list() == [2, 3] and ui[1].shape.as_list() == [2]
        (s0, s1), d, (u0, u1) = _run([sn, sd, ui])
    assert s0.dtype == np.int64 and s0.tolist() == [2, 3, 4] and s1.tolist() == [4, 5]
    assert d.out.tolist() == [1, 3, 5] and d.idx.tolist() == [0, 2, 4]
    assert u0.tolist() == [[0, 2, 2], [1, 1, 0]] and u1.tolist() == [2, 1]


def test_unravel_index_out_of_range_names_it():
    with fr.Graph().as_default():
        with pytest.raises(fr.errors.InvalidArgumentError, match="index 7 is out of bounds"):
            _run(fr.unravel_index(fr.constant([1, 7]), [3, 2]))


def test_bincount_matches_tf():
    with fr.Graph().as_default():
        ys = [
            fr.bincount([1, 1, 3]),
            fr.bincount([1, 1, 3], weights=[0.5, 1.0, 2.0], minlength=6),
            fr.math.bincount([1, 1, 3], maxlength=2),
            fr.bincount(fr.constant([], fr.int32)),
        ]
        a, b, c, d = _run(ys)
    assert a.tolist() == [0, 2, 0, 1] and a.dtype == np.int32
    np.testing.assert_array_equal(b, [0, 1.5, 0, 2, 0, 0])
    assert c.tolist() == [0, 2] and d.tolist() == []
    with fr.Graph().as_default():
        with pytest.raises(fr.errors.InvalidArgumentError, match="Input arr must be non-neg"):
            _run(fr.bincount(fr.constant([1, -1])))


def test_cross_and_its_errors():
    with fr.Graph().as_default():
        y = fr.cross([[1.0, 0, 0]], [[0.0, 1, 0]])
        np.testing.assert_array_equal(_run(y), [[0, 0, 1]])
        with pytest.raises(ValueError, match="Dimension must be 3 but is 4"):
            fr.cross(fr.ones([2, 4]), fr.ones([2, 4]))


def test_saturate_cast_and_to_double():
    with fr.Graph().as_default():
        y = fr.saturate_cast(fr.constant([-3e10, 1.5, 3e10]), fr.int32)
        z = fr.to_double(fr.constant([1, 2]))
        a, b = _run([y, z])
    assert a.tolist() == [-2147483648, 1, 2147483520]  # as TF (float32 clip value)
    assert b.dtype == np.float64 and z.op.name == "ToDouble"


def test_broadcast_shapes():
    assert fr.broadcast_static_shape(fr.TensorShape([2, 1, 3]), [None, 1]).as_list() == [
        2,
        None,
        3,
    ]
    with pytest.raises(ValueError, match="Incompatible shapes for broadcasting"):
        fr.broadcast_static_shape([2, 3], [4])
    with fr.Graph().as_default():
        s = fr.broadcast_dynamic_shape([2, 1, 3], [4, 1])
        assert s.shape.as_list() == [3]
        assert _run(s).tolist() == [2, 4, 3]
        a = fr.placeholder(fr.int32, [2])
        bad = fr.broadcast_dynamic_shape(a, fr.constant([4]))
        with pytest.raises(
            fr.errors.InvalidArgumentError, match=r"Incompatible shapes: \[2,3\] vs\. \[4\]"
        ):
            _run(bad, {a: [2, 3]})


def test_parallel_stack_batch_gather_scalar_mul_accumulate_n():
    with fr.Graph().as_default():
        ps = fr.parallel_stack([[1, 2], [3, 4]])
        p = fr.constant(np.arange(24).reshape(2, 3, 4))
        bg = fr.batch_gather(p, [[[0, 2], [1, 1], [2, 0]], [[3, 3], [0, 0], [1, 2]]])
        assert bg.shape.as_list() == [2, 3, 2]
        sm = fr.scalar_mul(2.0, fr.constant([1.0, 2]))
        an = fr.accumulate_n([fr.constant([1.0, 2]), fr.constant([3.0, 4])])
        got = _run([ps, bg, sm, an])
        with pytest.raises(ValueError, match="Only scalar multiply works"):
            fr.scalar_mul([1.0, 2.0], fr.constant([1.0, 2]))
        with pytest.raises(ValueError, match="fully defined"):
            fr.parallel_stack([fr.placeholder(fr.float32, [None])])
        with pytest.raises(ValueError, match="at least one"):
            fr.accumulate_n([])
    assert got[0].tolist() == [[1, 2], [3, 4]]
    assert got[1].tolist() == [[[0, 2], [5, 5], [10, 8]], [[15, 15], [16, 16], [21, 22]]]
    assert got[2].tolist() == [2, 4] and got[3].tolist() == [4, 6]


def test_no_gradient_is_not_differentiable():
    assert fr.no_gradient is fr.NotDifferentiable
