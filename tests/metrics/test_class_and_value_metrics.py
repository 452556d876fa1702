"""fr.metrics' per-class and derived-value metrics against TF 2.21's recorded values
(tf.compat.v1.metrics in graph mode): update values after each batch, final values,
variable names, and the range checks of mean_iou."""

import numpy as np
import pytest

import flowrt as fr

BATCHES = [
    dict(
        l=[0, 1, 2, 2, 1], p=[0, 2, 2, 1, 1], w=[1.0, 0.5, 2.0, 1.0, 1.0],
        x=[[0.6, 0.8], [1.0, 0.0], [0.0, 1.0]], y=[[0.8, 0.6], [0.6, 0.8], [0.0, -1.0]],
        v=[0.1, 0.5, 0.9], n=[1.0, 0.0, 2.0],
    ),
    dict(
        l=[3, 3, 0, 1, 0], p=[3, 0, 0, 1, 1], w=[0.0, 1.0, 1.0, 3.0, 1.0],
        x=[[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]], y=[[1.0, 0.0], [1.0, 0.0], [0.6, -0.8]],
        v=[1.5, 0.2, 0.3], n=[2.0, 4.0, 0.5],
    ),
]  # fmt: skip


def _program():
    ph = dict(
        l=fr.placeholder(fr.int64, [5]), p=fr.placeholder(fr.int64, [5]),
        w=fr.placeholder(fr.float32, [5]), x=fr.placeholder(fr.float32, [3, 2]),
        y=fr.placeholder(fr.float32, [3, 2]), v=fr.placeholder(fr.float32, [3]),
        n=fr.placeholder(fr.float32, [3]),
    )  # fmt: skip
    M, lab, p, w, x, y, v, n = fr.metrics, *ph.values()
    out = dict(
        iou=M.mean_iou(lab, p, 4),
        iouw=M.mean_iou(lab, p, 5, weights=w),
        pca=M.mean_per_class_accuracy(lab, p, 4),
        pcaw=M.mean_per_class_accuracy(lab, p, 5, weights=w),
        mt=M.mean_tensor(x),
        mtw=M.mean_tensor(v, weights=n),
        mre=M.mean_relative_error(v, n * 0.5, n),
        mrew=M.mean_relative_error(v, n * 0.5, n, weights=[1.0, 2.0, 0.0]),
        mcd=M.mean_cosine_distance(x, y, 1),
        pb=M.percentage_below(v, 0.4),
        pbw=M.percentage_below(v, 0.4, weights=n),
    )
    return ph, out


# TF 2.21's update_op values after each batch (mean_iou's is the confusion matrix and
# mean_per_class_accuracy's the per-class accuracies, as in TF), then the final values.
TF_UPDATES = [
    dict(
        iou=[[1, 0, 0, 0], [0, 1, 1, 0], [0, 1, 1, 0], [0, 0, 0, 0]],
        iouw=[[1, 0, 0, 0, 0], [0, 1, 0.5, 0, 0], [0, 1, 2, 0, 0], [0] * 5, [0] * 5],
        pca=[1.0, 0.5, 0.5, 0.0],
        pcaw=[1.0, 0.6666666865348816, 0.6666666865348816, 0.0, 0.0],
        mt=[[0.6000000238418579, 0.800000011920929], [1.0, 0.0], [0.0, 1.0]],
        mtw=[0.10000000149011612, 0.0, 0.8999999761581421],
        mre=0.15000000596046448, mrew=0.13333334028720856, mcd=0.8133333325386047,
        pb=0.3333333432674408, pbw=0.3333333432674408,
    ),
    dict(
        iou=[[2, 1, 0, 0], [0, 2, 1, 0], [0, 1, 1, 0], [1, 0, 0, 1]],
        iouw=[[2, 1, 0, 0, 0], [0, 4, 0.5, 0, 0], [0, 1, 2, 0, 0], [1, 0, 0, 0, 0], [0] * 5],
        pca=[0.6666666865348816, 0.6666666865348816, 0.5, 0.5],
        pcaw=[0.6666666865348816, 0.8888888955116272, 0.6666666865348816, 0.0, 0.0],
        mt=[[0.800000011920929, 0.4000000059604645], [0.5, 0.5],
            [0.30000001192092896, 0.8999999761581421]],
        mtw=[1.0333333015441895, 0.20000000298023224, 0.7799999713897705],
        mre=0.2083333283662796, mrew=0.25833332538604736, mcd=0.7866666913032532,
        pb=0.5, pbw=0.5789473652839661,
    ),
]  # fmt: skip
TF_VALUES = dict(
    TF_UPDATES[1],
    iou=0.4333333373069763, iouw=0.4217032790184021,
    pca=0.5833333730697632, pcaw=0.444444477558136,
)  # fmt: skip


def test_streaming_values_are_tfs():
    with fr.Graph().as_default():
        ph, out = _program()
        with fr.Session() as sess:
            sess.run(fr.local_variables_initializer())
            ups = [
                sess.run({k: u[1] for k, u in out.items()}, {ph[k]: b[k] for k in ph})
                for b in BATCHES
            ]
            values = sess.run({k: u[0] for k, u in out.items()})
    for got, want in zip(ups + [values], TF_UPDATES + [TF_VALUES]):
        for k, w in want.items():
            np.testing.assert_allclose(got[k], w, rtol=1e-6, err_msg=k)
    assert ups[0]["iou"].dtype == np.float64 and values["iou"].dtype == np.float32


def test_variables_are_tfs_local_metric_variables():
    with fr.Graph().as_default():
        _program()
        names = sorted(v.op.name for v in fr.get_collection("metric_variables"))
        assert names == sorted(v.op.name for v in fr.local_variables())
    assert "mean_iou/total_confusion_matrix" in names
    assert {"mean_accuracy/total", "mean_accuracy/count"} <= set(names)
    assert {"mean/total_tensor", "mean/count_tensor"} <= set(names)
    assert {"mean_cosine_distance/total", "percentage_below_threshold_1/count"} <= set(names)


@pytest.mark.parametrize("labels, message", [([0, 4], "`labels` out of bound"),
                                             ([-1, 0], "`labels` contains negative")])  # fmt: skip
def test_mean_iou_checks_class_ids(labels, message):
    with fr.Graph().as_default():
        _, update = fr.metrics.mean_iou(fr.constant(labels), fr.constant([0, 1]), 4)
        with fr.Session() as sess:
            sess.run(fr.local_variables_initializer())
            with pytest.raises(fr.errors.InvalidArgumentError, match=message):
                sess.run(update)


def test_shape_errors():
    with fr.Graph().as_default():
        with pytest.raises(ValueError, match="incompatible"):
            fr.metrics.mean_iou([0, 1, 2], [0, 1], 3)
        with pytest.raises(ValueError, match="fully defined shape"):
            fr.metrics.mean_tensor(fr.placeholder(fr.float32, [None]))
