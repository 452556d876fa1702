"""flowrt/ops/sort_ops.py, segment_ops.py, manip_ops.py (roll) and lin_space against
NumPy, with the names, shapes and errors TF 2.21's compat.v1 was seen to give (written
into the expectations)."""

import numpy as np
import pytest

import flowrt as fr

D = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]], np.float32)


def _run(fetches, feed=None):
    with fr.Session() as s:
        return s.run(fetches, feed)


def test_unique_in_order_of_first_occurrence():
    with fr.Graph().as_default():
        x = fr.constant([4, 1, 4, 2, 1, 7])
        u = fr.unique(x)
        uc = fr.unique_with_counts(x, out_idx=fr.int64)
        assert (u.y.name, u.idx.name) == ("Unique:0", "Unique:1")
        assert u.y.shape.as_list() == [None] and u.idx.shape.as_list() == [6]
        assert uc.count.dtype == fr.int64
        ru, ruc = _run([u, uc])
    assert type(ru).__name__ == "Unique"
    np.testing.assert_array_equal(ru.y, [4, 1, 2, 7])
    np.testing.assert_array_equal(ru.idx, [0, 1, 0, 2, 1, 3])
    assert ru.idx.dtype == np.int32 and ruc.idx.dtype == np.int64
    np.testing.assert_array_equal(ruc.count, [2, 2, 1, 1])
    with fr.Graph().as_default():
        with pytest.raises(ValueError, match="1-D"):
            fr.unique(fr.ones([2, 2]))


def test_roll_and_its_gradient():
    with fr.Graph().as_default():
        x = fr.constant([4, 1, 4, 2, 1, 7])
        r1 = fr.roll(x, 2, 0)
        p = fr.placeholder(fr.float32, [4, 2])
        r2 = fr.roll(p, [1, -1], [0, 1])
        assert (r1.name, r2.name) == ("Roll:0", "Roll_1:0")
        g = fr.gradients(fr.reduce_sum(fr.roll(p, 1, 0) * D), p)[0]
        r = _run([r1, r2, g], {p: D})
    np.testing.assert_array_equal(r[0], np.roll([4, 1, 4, 2, 1, 7], 2))
    np.testing.assert_array_equal(r[1], np.roll(D, (1, -1), (0, 1)))
    np.testing.assert_array_equal(r[2], np.roll(D, -1, 0))


def test_lin_space():
    with fr.Graph().as_default():
        a = fr.lin_space(0.0, 1.0, 5)
        assert a.shape.as_list() == [5] and fr.linspace is fr.lin_space
        np.testing.assert_allclose(_run(a), [0.0, 0.25, 0.5, 0.75, 1.0])
        with pytest.raises(fr.errors.InvalidArgumentError, match="num > 0"):
            _run(fr.lin_space(0.0, 1.0, 0))


def test_segment_reductions_as_tf():
    with fr.Graph().as_default():
        r = _run(
            {
                "ss": fr.segment_sum(D, [0, 0, 2, 2]),
                "sm": fr.segment_mean(D, [0, 1, 1, 1]),
                "smax": fr.segment_max(D, [0, 0, 1, 1]),
                "smin": fr.segment_min(D, [0, 0, 1, 1]),
                "sp": fr.segment_prod(D, [0, 1, 1, 1]),
                "mss": fr.math.segment_sum([4, 1, 4, 2, 1, 7], [0, 0, 1, 1, 1, 1]),
            }
        )
    np.testing.assert_array_equal(r["ss"], [[4, 6], [0, 0], [12, 14]])  # empty segment: 0
    np.testing.assert_allclose(r["sm"], [[1, 2], [5, 6]])
    np.testing.assert_array_equal(r["smax"], [[3, 4], [7, 8]])
    np.testing.assert_array_equal(r["smin"], [[1, 2], [5, 6]])
    np.testing.assert_array_equal(r["sp"], [[1, 2], [105, 192]])
    np.testing.assert_array_equal(r["mss"], [5, 14])


def test_segment_errors():
    with fr.Graph().as_default():
        with pytest.raises(ValueError, match="same size as dimension 0"):
            fr.segment_sum(D, [0, 0, 1])
        with pytest.raises(fr.errors.InvalidArgumentError, match="not increasing"):
            _run(fr.segment_sum(D, [1, 0, 0, 0]))


def test_segment_gradients_as_tf():
    # TF 2.21's gradients at this input (ties in segment_max share the gradient).
    pv = np.array([[1.0, 2.0], [1.0, 5.0], [3.0, 3.0], [2.0, 3.0]], np.float32)
    w = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    with fr.Graph().as_default():
        p = fr.placeholder(fr.float32, [4, 2])
        gmean = fr.gradients(fr.reduce_sum(fr.segment_mean(p, [0, 1, 1, 1]) * w), p)[0]
        gmax = fr.gradients(fr.reduce_sum(fr.segment_max(p, [0, 0, 1, 1])), p)[0]
        rm, rx = _run([gmean, gmax], {p: pv})
    np.testing.assert_allclose(rm, [[1, 2], [1, 4 / 3], [1, 4 / 3], [1, 4 / 3]], rtol=1e-6)
    np.testing.assert_allclose(rx, [[0.5, 0], [0.5, 1], [1, 0.5], [0, 0.5]])


def test_sort_and_argsort():
    m = np.array([[3.0, 1.0, 2.0], [0.0, 5.0, -1.0]], np.float32)
    with fr.Graph().as_default():
        s = fr.sort(m)
        sd = fr.sort(m, axis=0, direction="DESCENDING")
        a = fr.argsort([3, 1, 2, 1])
        ad = fr.argsort([3, 1, 2, 1], direction="DESCENDING")
        assert (s.name, sd.name, a.name) == (
            "sort/Neg_1:0",
            "sort_1/transpose_1:0",
            "argsort/TopKV2:1",
        )
        r = _run([s, sd, a, ad])
        with pytest.raises(ValueError, match="Unknown direction"):
            fr.sort(m, direction="UP")
    np.testing.assert_array_equal(r[0], np.sort(m, 1))
    np.testing.assert_array_equal(r[1], -np.sort(-m, 0))
    np.testing.assert_array_equal(r[2], [1, 3, 2, 0])  # ties in index order
    np.testing.assert_array_equal(r[3], [0, 2, 1, 3])
