"""sensitivity_at_specificity and specificity_at_sensitivity against TF 2.21's
recorded values (tf.compat.v1.metrics in graph mode), their variables and errors."""

import numpy as np
import pytest

import flowrt as fr

BATCHES = [
    ([1, 0, 1, 1, 0, 0], [0.9, 0.6, 0.3, 0.8, 0.1, 0.45], [1.0, 1.0, 2.0, 1.0, 0.5, 1.0]),
    ([0, 0, 1, 1], [0.2, 0.7, 0.55, 0.35], [1.0, 1.0, 1.0, 3.0]),
]


def _program():
    lab, pr = fr.placeholder(fr.int64, [None]), fr.placeholder(fr.float32, [None])
    w = fr.placeholder(fr.float32, [None])
    M = fr.metrics
    out = dict(
        se=M.sensitivity_at_specificity(lab, pr, 0.7),
        se5=M.sensitivity_at_specificity(lab, pr, 0.5, num_thresholds=5),
        sew=M.sensitivity_at_specificity(lab, pr, 0.8, weights=w, num_thresholds=7),
        sp=M.specificity_at_sensitivity(lab, pr, 0.7),
        sp5=M.specificity_at_sensitivity(lab, pr, 0.5, num_thresholds=5),
        spw=M.specificity_at_sensitivity(lab, pr, 0.6, weights=w, num_thresholds=7),
        sp1=M.specificity_at_sensitivity(lab, pr, 1.0, num_thresholds=3),
    )
    return (lab, pr, w), out


# TF 2.21's update values after each batch; the final values equal the last ones.
TF_UPDATES = [
    dict(se=0.6666666865348816, se5=1.0, sew=0.5, sp=1.0, sp5=1.0, spw=1.0, sp1=0.0),
    dict(
        se=0.6000000238418579, se5=1.0, sew=0.25, sp=0.6000000238418579, sp5=1.0,
        spw=0.3333333432674408, sp1=0.0,
    ),
]  # fmt: skip


def test_values_are_tfs():
    with fr.Graph().as_default():
        ph, out = _program()
        names = {v.op.name for v in fr.get_collection("metric_variables")}
        with fr.Session() as sess:
            sess.run(fr.local_variables_initializer())
            ups = [sess.run({k: u[1] for k, u in out.items()}, dict(zip(ph, b))) for b in BATCHES]
            values = sess.run({k: u[0] for k, u in out.items()})
    for got, want in zip(ups + [values], TF_UPDATES + [TF_UPDATES[-1]]):
        for k, w in want.items():
            np.testing.assert_allclose(got[k], w, rtol=1e-6, err_msg=k)
    assert {
        "sensitivity_at_specificity/true_positives",
        "sensitivity_at_specificity/false_negatives",
        "specificity_at_sensitivity_1/true_negatives",
        "specificity_at_sensitivity_2/false_positives",
    } <= names


@pytest.mark.parametrize(
    "fn, kwargs, message",
    [
        (fr.metrics.sensitivity_at_specificity, dict(specificity=1.5), "`specificity` must be"),
        (fr.metrics.specificity_at_sensitivity, dict(sensitivity=-0.1), "`sensitivity` must be"),
        (
            fr.metrics.specificity_at_sensitivity,
            dict(sensitivity=0.5, num_thresholds=0),
            "`num_thresholds` must be > 0",
        ),
    ],
)
def test_argument_errors(fn, kwargs, message):
    with fr.Graph().as_default():
        with pytest.raises(ValueError, match=message):
            fn([1, 0], [0.5, 0.2], **kwargs)
