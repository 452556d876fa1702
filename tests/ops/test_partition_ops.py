"""dynamic_partition/stitch and the unsorted segment reductions, against TF 2.21's
results (recorded here)."""

import numpy as np
import pytest

import flowrt as fr

X = np.arange(12.0).reshape(6, 2)
IDS = [0, 1, 0, -1, 3, 0]


def _run(fetches, feed=None):
    with fr.Session() as s:
        return s.run(fetches, feed)


def test_partition_stitch_values_and_static_shapes():
    with fr.Graph().as_default():
        parts = fr.dynamic_partition(fr.constant(X), [0, 1, 0, 2, 1, 0], 3)
        st = fr.dynamic_stitch(
            [[0, 2], [1, 3, 4]],
            [fr.constant([[1.0, 1], [2, 2]]), fr.constant([[3.0, 3], [4, 4], [5, 5]])],
        )
        assert [p.shape.as_list() for p in parts] == [[None, 2]] * 3
        assert st.shape.as_list() == [5, 2]  # as TF: constant indices give the rows
        p0, p1, p2, s = _run(parts + [st])
    np.testing.assert_array_equal(p0, [[0, 1], [4, 5], [10, 11]])
    np.testing.assert_array_equal(p1, [[2, 3], [8, 9]])
    np.testing.assert_array_equal(p2, [[6, 7]])
    np.testing.assert_array_equal(s, [[1, 1], [3, 3], [2, 2], [4, 4], [5, 5]])


def test_stitch_later_index_wins():
    with fr.Graph().as_default():
        st = fr.dynamic_stitch([[0, 1], [1]], [[1.0, 2.0], [9.0]])
        np.testing.assert_array_equal(_run(st), [1.0, 9.0])


def test_unsorted_segment_values_match_tf():
    with fr.Graph().as_default():
        x = fr.constant(X)
        ys = [
            fr.unsorted_segment_max(x, IDS, 4),
            fr.unsorted_segment_min(x, IDS, 4),
            fr.math.unsorted_segment_prod(x, IDS, 4),
            fr.unsorted_segment_mean(x, IDS, 4),
            fr.math.unsorted_segment_sqrt_n(x, IDS, 4),
        ]
        mx, mn, pr, me, sq = _run(ys)
    np.testing.assert_array_equal(mx, [[10, 11], [2, 3], [-np.inf, -np.inf], [8, 9]])
    np.testing.assert_array_equal(mn, [[0, 1], [2, 3], [np.inf, np.inf], [8, 9]])
    np.testing.assert_array_equal(pr, [[0, 55], [2, 3], [1, 1], [8, 9]])
    np.testing.assert_allclose(me, [[14 / 3, 17 / 3], [2, 3], [0, 0], [8, 9]])
    np.testing.assert_allclose(sq, [[14 / 3**0.5, 17 / 3**0.5], [2, 3], [0, 0], [8, 9]])


def test_integer_segment_max_of_empty_segment_is_lowest():
    with fr.Graph().as_default():
        y = fr.unsorted_segment_max(fr.constant([3, 5], fr.int32), [0, 0], 2)
        np.testing.assert_array_equal(_run(y), [5, np.iinfo(np.int32).min])


def test_gradients_match_tf():
    with fr.Graph().as_default():
        x = fr.constant(X)
        parts = fr.dynamic_partition(x, [0, 1, 0, 2, 1, 0], 3)
        ms = [
            fr.unsorted_segment_max(x, IDS, 4),
            fr.unsorted_segment_min(x, IDS, 4),
            fr.unsorted_segment_prod(x, IDS, 4),
            fr.unsorted_segment_mean(x, IDS, 4),
            fr.unsorted_segment_sqrt_n(x, IDS, 4),
        ]
        (g,) = fr.gradients(
            [fr.reduce_sum(t * t) for t in parts] + [fr.reduce_sum(t) for t in ms], x
        )
        gms = [fr.gradients(fr.reduce_sum(t * t), x)[0] for t in ms]
        g, gms = _run([g, gms])
    a = 41.91068360252296 - 41
    want = [[41 + a, 58 + a], [9, 11], [8 + a, 21 + a], [12, 14], [21, 23], [21 + a, 28 + a]]
    np.testing.assert_allclose(g, want)
    r, t = 3.111111111111111, 3.777777777777778
    want_each = [
        [[0, 0], [4, 6], [0, 0], [0, 0], [16, 18], [20, 22]],
        [[0, 2], [4, 6], [0, 0], [0, 0], [16, 18], [0, 0]],
        [[0, 6050], [4, 6], [0, 1210], [0, 0], [16, 18], [0, 550]],
        [[r, t], [4, 6], [r, t], [0, 0], [16, 18], [r, t]],
        [[3 * r, 3 * t], [4, 6], [3 * r, 3 * t], [0, 0], [16, 18], [3 * r, 3 * t]],
    ]
    for got, want in zip(gms, want_each):
        np.testing.assert_allclose(got, want)


def test_out_of_range_partition_names_the_value():
    with fr.Graph().as_default():
        p = fr.placeholder(fr.int32, [6])
        parts = fr.dynamic_partition(fr.constant(X), p, 3)
        with pytest.raises(
            fr.errors.InvalidArgumentError, match=r"partitions\[2\] = 5 is not in \[0, 3\)"
        ):
            _run(parts, {p: [0, 1, 5, 2, 1, 0]})


def test_out_of_range_segment_id_names_the_value():
    with fr.Graph().as_default():
        ids = fr.placeholder(fr.int32, [6])
        y = fr.unsorted_segment_max(fr.constant(X), ids, 4)
        with pytest.raises(
            fr.errors.InvalidArgumentError, match=r"segment_ids\[2\] = 7 is out of range \[0, 4\)"
        ):
            _run(y, {ids: [0, 1, 7, 0, 0, 0]})


def test_negative_stitch_index_is_an_error():
    with fr.Graph().as_default():
        ix = fr.placeholder(fr.int32, [2])
        y = fr.dynamic_stitch([ix], [fr.constant([1.0, 2.0])])
        with pytest.raises(fr.errors.InvalidArgumentError, match=r"indices\[0\]\[1\] = -1"):
            _run(y, {ix: [0, -1]})


def test_construction_errors():
    with fr.Graph().as_default():
        with pytest.raises(ValueError, match="data.shape must start with partitions.shape"):
            fr.dynamic_partition(fr.ones([3, 2]), [0, 1], 2)
        with pytest.raises(ValueError, match="num_partitions"):
            fr.dynamic_partition(fr.ones([2]), [0, 1], 0)
        with pytest.raises(ValueError, match=r"does not start with indices\[0\].shape"):
            fr.dynamic_stitch([[0, 1]], [fr.ones([3])])
