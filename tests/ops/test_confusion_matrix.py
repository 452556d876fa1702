"""fr.confusion_matrix against TF 2.21's (tensorflow.compat.v1, graph mode) results."""

import numpy as np
import pytest

import flowrt as fr


def test_counts_with_inferred_num_classes():
    with fr.Graph().as_default():
        cm = fr.confusion_matrix([1, 2, 4], [2, 2, 4])
        assert (cm.op.type, cm.op.name, cm.dtype) == (
            "ScatterNd",
            "confusion_matrix/ScatterNd",
            fr.int32,
        )
        got = fr.Session().run(cm)
    want = np.zeros((5, 5), np.int32)  # TF 2.21's
    want[1, 2] = want[2, 2] = want[4, 4] = 1
    np.testing.assert_array_equal(got, want)
    assert fr.math.confusion_matrix is fr.confusion_matrix


def test_weights_num_classes_dtype_and_squeezed_predictions():
    with fr.Graph().as_default():
        cm = fr.confusion_matrix(
            [0, 1, 1], [[1], [1], [0]], num_classes=3, weights=[0.5, 1.0, 2.0], dtype=fr.float32
        )
        assert cm.dtype == fr.float32 and cm.shape.as_list() == [3, 3]
        got = fr.Session().run(cm)
    np.testing.assert_array_equal(got, [[0, 0.5, 0], [2, 1, 0], [0, 0, 0]])  # TF 2.21's


def test_duplicates_add_up_with_a_placeholder():
    with fr.Graph().as_default():
        labels = fr.placeholder(fr.int64, [None])
        cm = fr.confusion_matrix(labels, labels, num_classes=2)
        got = fr.Session().run(cm, {labels: [1, 1, 0, 1]})
    np.testing.assert_array_equal(got, [[1, 0], [0, 3]])


@pytest.mark.parametrize(
    "labels, predictions, num_classes, message",
    [
        ([1, -1], [0, 0], None, "`labels` contains negative values"),
        ([1, 0], [0, -2], None, "`predictions` contains negative values"),
        ([1, 3], [0, 0], 3, "`labels` out of bound"),
        ([1, 0], [0, 3], 3, "`predictions` out of bound"),
    ],
)
def test_out_of_range_indices_fail_at_run_time(labels, predictions, num_classes, message):
    with fr.Graph().as_default():
        lab = fr.placeholder(fr.int32, [2])
        cm = fr.confusion_matrix(lab, predictions, num_classes=num_classes)
        with pytest.raises(fr.errors.InvalidArgumentError, match=message):
            fr.Session().run(cm, {lab: labels})
