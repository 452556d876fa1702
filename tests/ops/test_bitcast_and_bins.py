"""fr.bitcast and fr.histogram_fixed_width_bins against TF 2.21's recorded results."""

import numpy as np
import pytest

import flowrt as fr


def _run(t, feed=None):
    with fr.Session(graph=t.graph) as sess:
        return sess.run(t, feed)


def test_bitcast_reads_the_bytes_as_tf_does():
    with fr.Graph().as_default():
        same = fr.bitcast(np.array([1.0, 2.0], np.float32), fr.int32)
        narrower = fr.bitcast(np.array([1.0, -2.5], np.float32), fr.uint8)
        wider = fr.bitcast(np.array([[1, 2, 3, 4]], np.uint8), fr.float32)
        halves = fr.bitcast(np.array([1.0], np.float64), fr.int32)
    assert same.op.type == "Bitcast" and same.dtype is fr.int32
    assert narrower.shape.as_list() == [2, 4] and wider.shape.as_list() == [1]
    assert _run(same).tolist() == [1065353216, 1073741824]  # TF 2.21's values
    assert _run(narrower).tolist() == [[0, 0, 128, 63], [0, 0, 32, 192]]
    np.testing.assert_array_equal(_run(wider), np.array([1.539989614439558e-36], np.float32))
    assert _run(halves).tolist() == [[0, 1072693248]]


def test_bitcast_shape_and_dtype_errors():
    with fr.Graph().as_default():
        with pytest.raises(ValueError, match="Cannot bitcast from uint8 to float32 due to shape"):
            fr.bitcast(np.array([1, 2, 3], np.uint8), fr.float32)
        with pytest.raises(TypeError, match="parameter 'input' has DataType bool"):
            fr.bitcast(np.array([True]), fr.uint8)
        with pytest.raises(TypeError, match="parameter 'type' has DataType string"):
            fr.bitcast(np.array([1], np.int32), fr.string)
        x = fr.placeholder(fr.uint8, [None, None])
        y = fr.bitcast(x, fr.int32)
        assert y.shape.as_list() == [None]
        assert _run(y, {x: np.full((2, 4), 1, np.uint8)}).tolist() == [16843009] * 2
        with pytest.raises(fr.errors.InvalidArgumentError, match="3 does not match 4"):
            _run(y, {x: np.zeros((2, 3), np.uint8)})

    with fr.Graph().as_default():  # not differentiable, as TF's: no gradient flows
        v = fr.constant([1.0, 2.0])
        out = fr.bitcast(v, fr.float32)  # same dtype: a gradient rule would pass through
        assert fr.gradients(fr.reduce_sum(out), v) == [None]


def test_histogram_fixed_width_bins_as_tf():
    with fr.Graph().as_default():
        flat = fr.histogram_fixed_width_bins([-1.0, 0.0, 1.5, 2.0, 5.0, 15.0], [0.0, 5.0], 5)
        square = fr.histogram_fixed_width_bins([[0.1, 0.25], [0.9, 1.0]], [0.0, 1.0], 4)
        assert flat.dtype is fr.int32 and square.shape.as_list() == [2, 2]
        assert _run(flat).tolist() == [0, 0, 1, 2, 4, 4]  # TF 2.21's values
        assert _run(square).tolist() == [[0, 1], [3, 3]]
        with pytest.raises(TypeError):  # as TF: the scaled int values are float64
            fr.histogram_fixed_width_bins(np.array([3, 7], np.int32), [0, 10], 5)
