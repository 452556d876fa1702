"""precision_at_k / recall_at_k and their _at_top_k forms; the literals were printed by
TF 2.21's tf.compat.v1.metrics for the same programs."""

import math

import numpy as np
import pytest

import flowrt as fr

SCORES = [[0.1, 0.3, 0.2, 0.4], [0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1]]
# Row sets: top-2 {3, 1}, {3, 2}, {0, 1}; labels {0, 3}, {1, -1}, {0, 7}.
LABELS = [[0, 3], [1, -1], [0, 7]]


def _run(metrics):
    with fr.Session() as sess:
        sess.run(fr.local_variables_initializer())
        updates = sess.run({k: u for k, (_, u) in metrics.items()})
        values = sess.run({k: v for k, (v, _) in metrics.items()})
    return updates, values


def test_precision_and_recall_at_k_as_tf():
    pred = fr.constant(SCORES)
    labels = fr.constant(LABELS, fr.int64)
    one = fr.constant([3, 2, 1], fr.int64)
    idx = fr.constant([[3, 1], [3, 2], [0, 1]], fr.int64)
    sparse = fr.SparseTensor([[0, 0], [0, 1], [2, 0]], fr.constant([0, 3, 0], fr.int64), [3, 2])
    ms = {
        "p2": fr.metrics.precision_at_k(labels, pred, 2),
        "r2": fr.metrics.recall_at_k(labels, pred, 2),  # -1 and 7 are false negatives
        "p2c3": fr.metrics.precision_at_k(labels, pred, 2, class_id=3),
        "r2c0": fr.metrics.recall_at_k(labels, pred, 2, class_id=0),
        "p1w": fr.metrics.precision_at_k(one, pred, 1, weights=[1.0, 2.0, 0.5]),
        "r1w": fr.metrics.recall_at_k(one, pred, 1, weights=[1.0, 2.0, 0.5]),
        "ptop": fr.metrics.precision_at_top_k(labels, idx),
        "rtop": fr.metrics.recall_at_top_k(labels, idx, k=1),
        "sparse": fr.metrics.precision_at_k(sparse, pred, 2),
    }
    updates, values = _run(ms)
    want = {
        "p2": 1 / 3,
        "r2": 1 / 3,
        "p2c3": 0.5,
        "r2c0": 0.5,
        "p1w": 2 / 7,
        "r1w": 2 / 7,
        "ptop": 1 / 3,
        "rtop": 1 / 3,
        "sparse": 1 / 3,
    }
    for k, w in want.items():
        assert values[k] == pytest.approx(w, rel=1e-12) and updates[k] == values[k], k
        assert ms[k][0].dtype == fr.float64
    names = [v.name for v in fr.local_variables()]
    assert names[:6] == [
        "precision_at_2/true_positive_at_2:0",
        "precision_at_2/false_positive_at_2:0",
        "recall_at_2/true_positive_at_2:0",
        "recall_at_2/false_negative_at_2:0",
        "precision_at_2_class3/true_positive_at_2_class3:0",
        "precision_at_2_class3/false_positive_at_2_class3:0",
    ]
    assert "precision_at_k/true_positive_at_k:0" in names


def test_metrics_at_k_accumulate_and_are_nan_before_any_count():
    scores = fr.placeholder(fr.float32, [None, 4])
    labels = fr.placeholder(fr.int64, [None])
    value, update = fr.metrics.recall_at_k(labels, scores, 1, class_id=2)
    with fr.Session() as sess:
        sess.run(fr.local_variables_initializer())
        assert math.isnan(sess.run(value))  # TF 2.21: nan (0 / 0)
        assert math.isnan(sess.run(update, {scores: SCORES[:1], labels: [1]}))
        assert sess.run(update, {scores: SCORES, labels: [2, 2, 2]}) == 0.0
        assert sess.run(update, {scores: np.eye(4)[[2]], labels: [2]}) == 0.25
    with pytest.raises(TypeError, match="int64 vs int32"):
        fr.metrics.recall_at_k(fr.constant([[1]]), fr.constant(SCORES[:1]), 1)
