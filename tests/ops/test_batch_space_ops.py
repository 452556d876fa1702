"""space_to_batch_nd / batch_to_space_nd (and TF1's 4-D forms) against TF 2.21's
results (recorded here)."""

import numpy as np
import pytest

import flowrt as fr

X = np.arange(2 * 3 * 5 * 2.0).reshape(2, 3, 5, 2)


def _run(fetches, feed=None):
    with fr.Session() as s:
        return s.run(fetches, feed)


def test_round_trip_and_static_shapes_match_tf():
    with fr.Graph().as_default():
        x = fr.constant(X)
        y = fr.space_to_batch_nd(x, [2, 3], [[1, 0], [0, 1]])
        z = fr.batch_to_space_nd(y, [2, 3], [[1, 0], [0, 1]])
        assert y.shape.as_list() == [12, 2, 2, 2] and z.shape.as_list() == [2, 3, 5, 2]
        a, b = _run([y, z])
    np.testing.assert_array_equal(b, X)
    # TF 2.21's first values of y (the first block row is padding).
    want = [0, 0, 0, 0, 10, 11, 16, 17, 0, 0, 0, 0, 40, 41, 46, 47, 0, 0, 0, 0, 12, 13]
    np.testing.assert_array_equal(a.reshape(-1)[: len(want)], want)


def test_batch_to_space_crops_match_tf():
    with fr.Graph().as_default():
        w = fr.batch_to_space_nd(
            fr.constant(np.arange(24.0).reshape(8, 1, 3, 1)), [2, 2], [[0, 1], [1, 0]]
        )
        assert w.shape.as_list() == [2, 1, 5, 1]
        got = _run(w)
    np.testing.assert_array_equal(got.reshape(-1), [6, 1, 7, 2, 8, 9, 4, 10, 5, 11])


def test_tf1_4d_forms():
    with fr.Graph().as_default():
        x = fr.constant(np.arange(16.0).reshape(1, 4, 4, 1))
        s = fr.space_to_batch(x, [[0, 0], [0, 0]], 2)
        b = fr.batch_to_space(s, [[0, 0], [0, 0]], block_size=2)
        assert s.shape.as_list() == [4, 2, 2, 1]
        got, back = _run([s, b])
        with pytest.raises(ValueError, match="input must be 4-D"):
            fr.space_to_batch(fr.ones([4, 4]), [[0, 0], [0, 0]], 2)
    want = [0, 2, 8, 10, 1, 3, 9, 11, 4, 6, 12, 14, 5, 7, 13, 15]
    np.testing.assert_array_equal(got.reshape(-1), want)
    np.testing.assert_array_equal(back, np.arange(16.0).reshape(1, 4, 4, 1))


def test_gradient_matches_tf():
    with fr.Graph().as_default():
        x = fr.constant(X)
        y = fr.space_to_batch_nd(x, [2, 3], [[1, 0], [0, 1]])
        (g,) = fr.gradients(fr.reduce_sum(y * np.arange(96.0).reshape(12, 2, 2, 2)), x)
        got = _run(g)
    want = [48, 49, 64, 65, 80, 81, 50, 51, 66, 67, 4, 5, 20, 21, 36, 37, 6, 7, 22, 23]
    np.testing.assert_array_equal(got.reshape(-1)[: len(want)], want)


def test_errors():
    with fr.Graph().as_default():
        x = fr.constant(X)
        with pytest.raises(
            ValueError, match=r"padded_shape\[0\]=3 is not divisible by block_shape\[0\]=2"
        ):
            fr.space_to_batch_nd(x, [2, 2], [[0, 0], [0, 0]])
        with pytest.raises(
            ValueError,
            match=r"Input batch dimension \(2\) is not divisible by product of block sizes \(4\)",
        ):
            fr.batch_to_space_nd(x, [2, 2], [[0, 0], [0, 0]])
        block = fr.placeholder(fr.int32, [2])
        y = fr.batch_to_space_nd(x, block, [[0, 0], [0, 0]])
        with pytest.raises(fr.errors.InvalidArgumentError, match=r"Input batch dimension \(2\)"):
            _run(y, {block: [2, 2]})
