"""fr.metrics: streaming values recorded from TF 2.21 (tf.compat.v1.metrics), local
metric variables named as TF1, collections; an optional live TF cross-check."""

import numpy as np
import pytest

import flowrt as fr

BATCHES = [([1, 0, 1, 1], [0.9, 0.6, 0.3, 0.8]), ([0, 0, 1], [0.2, 0.7, 0.55])]


def _program(m):
    lab = m.placeholder(m.int64, [None])
    pr = m.placeholder(m.float32, [None])
    M = m.metrics
    out = dict(
        acc=M.accuracy(lab, m.cast(pr > 0.5, m.int64)),
        prec=M.precision(lab, pr > 0.5),
        rec=M.recall(lab, pr > 0.5),
        auc=M.auc(lab, pr, num_thresholds=5),
        aucpr=M.auc(lab, pr, curve="PR", num_thresholds=5),
        mean=M.mean(pr),
    )
    return lab, pr, out


def _stream(m, lab, pr, out):
    ups = []
    with m.Session() as s:
        s.run(m.local_variables_initializer())
        for L, P in BATCHES:
            ups.append(s.run({k: v[1] for k, v in out.items()}, {lab: L, pr: P}))
        value = s.run({k: v[0] for k, v in out.items()})
        again = s.run({k: v[0] for k, v in out.items()})
    return ups, value, again


# Recorded from TF 2.21 with the program above: the update value after each batch.
RECORDED = [
    dict(acc=0.5, prec=0.6666667, rec=0.6666667, auc=0.6666661, aucpr=0.90277743, mean=0.65),
    dict(acc=0.5714286, prec=0.6, rec=0.75, auc=0.7499999, aucpr=0.8583332, mean=0.57857144),
]


def test_streaming_values_match_recorded_tf():
    ups, value, again = _stream(fr, *_program(fr))
    for got, want in zip(ups, RECORDED):
        for k in want:
            np.testing.assert_allclose(got[k], want[k], rtol=1e-5, err_msg=k)
    assert value == again  # reading the value changes nothing
    for k in value:
        np.testing.assert_allclose(value[k], RECORDED[-1][k], rtol=1e-5, err_msg=k)


def test_variables_are_local_metric_variables_named_as_tf1():
    _, _, out = _program(fr)
    names = sorted(v.op.name for v in fr.local_variables())
    assert names == sorted(v.op.name for v in fr.get_collection("metric_variables"))
    assert "accuracy/total" in names and "accuracy/count" in names
    assert "precision/true_positives/count" in names
    assert "recall/false_negatives/count" in names
    assert "auc/true_positives" in names and "auc_1/false_positives" in names
    assert not fr.trainable_variables() and not fr.global_variables()
    assert out["acc"][0].name == "accuracy/value:0"
    assert out["acc"][1].name == "accuracy/update_op:0"
    assert out["auc"][0].name == "auc/value:0"


def test_uninitialized_metric_names_the_variable():
    lab, pr, out = _program(fr)
    with fr.Session() as s:
        with pytest.raises(fr.errors.FailedPreconditionError, match=r"accuracy/"):
            s.run(out["acc"][1], {lab: [1], pr: [0.4]})


def test_collections_and_weights():
    v, up = fr.metrics.mean(
        [1.0, 2.0, 3.0],
        weights=[1.0, 0.0, 3.0],
        metrics_collections=["m"],
        updates_collections=["u"],
    )
    assert fr.get_collection("m") == [v] and fr.get_collection("u") == [up]
    with fr.Session() as s:
        s.run(fr.local_variables_initializer())
        assert s.run(v) == 0.0  # nothing counted yet: 0, not NaN
        np.testing.assert_allclose(s.run(up), 10.0 / 4.0)
    with pytest.raises(TypeError, match=r"metrics_collections must be a list"):
        fr.metrics.mean([1.0], metrics_collections="m")
    with pytest.raises(ValueError, match=r"curve must be either ROC or PR, XY unknown"):
        fr.metrics.auc([1], [0.5], curve="XY")


def test_matches_tensorflow_live():
    tf = pytest.importorskip("tensorflow.compat.v1")
    tf.disable_eager_execution()
    got = []
    for m in (fr, tf):
        with m.Graph().as_default():
            got.append(_stream(m, *_program(m)))
    for a, b in zip(got[0][0], got[1][0]):
        for k in a:
            np.testing.assert_allclose(a[k], b[k], rtol=1e-5, err_msg=k)


def test_metrics_at_thresholds_match_recorded_tf():
    lab = fr.constant([1, 0, 1, 1, 0, 0, 1])
    pr = fr.constant([0.9, 0.6, 0.3, 0.8, 0.2, 0.7, 0.55])
    w = fr.constant([1, 2, 0.5, 1, 1, 1, 3])
    th = [0.25, 0.5, 0.75]
    M = fr.metrics
    out = dict(
        p=M.precision_at_thresholds(lab, pr, th),
        r=M.recall_at_thresholds(lab, pr, th, weights=w),
        fn=M.false_negatives_at_thresholds(lab, pr, th, weights=w),
        tn=M.true_negatives_at_thresholds(lab, pr, th),
    )
    assert out["p"][0].name == "precision_at_thresholds/precision_value:0"
    assert sorted(v.op.name for v in fr.local_variables()) == [
        "false_negatives/false_negatives",
        "precision_at_thresholds/false_positives",
        "precision_at_thresholds/true_positives",
        "recall_at_thresholds/false_negatives",
        "recall_at_thresholds/true_positives",
        "true_negatives/true_negatives",
    ]
    with fr.Session() as s:
        s.run(fr.local_variables_initializer())
        got = s.run({k: v[1] for k, v in out.items()})
    # Recorded from TF 2.21 (tf.compat.v1.metrics) on the same program.
    want = dict(
        p=[0.6666667, 0.6, 1.0], r=[1.0, 0.90909094, 0.36363637], fn=[0, 0.5, 3.5], tn=[1, 1, 3]
    )
    for k in want:
        np.testing.assert_allclose(got[k], want[k], rtol=1e-5, err_msg=k)


@pytest.mark.parametrize("labels", [[1, 0, 0], [[1], [0], [0]]])
def test_accuracy_weights_of_unknown_rank_are_squeezed_at_run_time(labels):
    # TF's _remove_squeezable_dimensions squeezes the trailing 1 of weights [3, 1] against
    # predictions [3] when the weights' rank is known only at run time: 102 / 104.
    weights = fr.placeholder(fr.float32)
    acc, update = fr.metrics.accuracy(labels, [1, 1, 1], weights=weights)
    with fr.Session() as s:
        s.run(fr.local_variables_initializer())
        s.run(update, {weights: [[100.0], [1.0], [1.0]]})
        np.testing.assert_allclose(s.run(acc), 100.0 / 102.0, rtol=1e-6)
