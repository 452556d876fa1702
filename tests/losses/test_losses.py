"""fr.losses: values recorded from TF 2.21 (tf.compat.v1.losses), TF1's names, the
LOSSES collection, reductions and weight checks; an optional live TF cross-check."""

import numpy as np
import pytest

import flowrt as fr

LOGITS = np.array([[2.0, 1.0, 0.1], [0.5, 2.5, 0.3], [1.2, 0.2, 3.0], [0.0, 0.0, 0.0]], np.float32)
LABELS = np.array([0, 2, 2, 1], np.int32)
W = np.array([1.0, 0.0, 2.0, 0.5], np.float32)
P = np.array([[0.9, 0.2], [0.4, 0.6], [0.3, 0.8], [0.5, 0.1]], np.float32)
Y = np.array([[1, 0], [0, 1], [1, 1], [0, 0]], np.float32)


def _program(m):
    L = m.losses
    out = dict(
        sparse=L.sparse_softmax_cross_entropy(LABELS, LOGITS, weights=W),
        softmax_ls=L.softmax_cross_entropy(
            np.eye(3, dtype=np.float32)[LABELS], LOGITS, label_smoothing=0.1
        ),
        sigmoid_sum=L.sigmoid_cross_entropy(
            Y, P * 4 - 2, weights=W[:, None], reduction=L.Reduction.SUM
        ),
        mse_mean=L.mean_squared_error(Y, P, weights=W[:, None], reduction=L.Reduction.MEAN),
        abs_batch=L.absolute_difference(Y, P, reduction=L.Reduction.SUM_OVER_BATCH_SIZE),
        huber=L.huber_loss(Y, P * 3, delta=0.5),
        log=L.log_loss(Y, P),
        none=L.mean_squared_error(Y, P, reduction=L.Reduction.NONE, loss_collection=None),
    )
    out["total"] = L.get_total_loss()
    return out


# Recorded from TF 2.21 with the program above.
RECORDED = dict(
    sparse=0.4580092,
    softmax_ls=1.0773845,
    sigmoid_sum=3.7544734,
    mse_mean=0.17714286,
    abs_batch=0.325,
    huber=0.3625,
    log=0.44697222,
    none=(P - Y) ** 2,
    total=6.6014824,
)


def test_values_match_recorded_tf():
    out = _program(fr)
    with fr.Session() as s:
        got = s.run(out)
    for k, v in RECORDED.items():
        np.testing.assert_allclose(got[k], v, rtol=1e-5, atol=1e-6, err_msg=k)


def test_names_and_losses_collection_as_tf1():
    out = _program(fr)
    assert out["sparse"].name == "sparse_softmax_cross_entropy_loss/value:0"
    assert out["softmax_ls"].name == "softmax_cross_entropy_loss/value:0"
    assert out["sigmoid_sum"].name == "sigmoid_cross_entropy_loss/Sum:0"
    assert out["mse_mean"].name == "mean_squared_error/value:0"
    assert out["total"].name == "total_loss:0"
    assert fr.get_collection(fr.GraphKeys.LOSSES) == [
        out[k]
        for k in ("sparse", "softmax_ls", "sigmoid_sum", "mse_mean", "abs_batch", "huber", "log")
    ]
    assert fr.losses.get_losses(scope="huber") == [out["huber"]]


def test_zero_weights_give_zero_not_nan():
    loss = fr.losses.mean_squared_error(Y, P, weights=0.0)
    with fr.Session() as s:
        assert s.run(loss) == 0.0


def test_weights_that_do_not_broadcast_are_a_value_error():
    with pytest.raises(
        ValueError,
        match=r"weights can not be broadcast to values. "
        r"values.rank=2. weights.rank=1",
    ):
        fr.losses.mean_squared_error(Y, P, weights=W)
    with pytest.raises(ValueError, match=r"Invalid Reduction Key mean"):
        fr.losses.mean_squared_error(Y, P, reduction="mean")


def test_regularization_losses_enter_the_total():
    fr.get_variable(
        "w",
        initializer=np.array([3.0, 4.0], np.float32),
        regularizer=fr.contrib.layers.l2_regularizer(0.1),
    )
    fr.losses.add_loss(fr.constant(1.5))
    total = fr.losses.get_total_loss()
    reg = fr.losses.get_regularization_loss()
    assert reg.name == "total_regularization_loss:0"
    with fr.Session() as s:
        s.run(fr.global_variables_initializer())
        np.testing.assert_allclose(s.run([total, reg]), [1.5 + 1.25, 1.25], rtol=1e-6)
    assert fr.losses.get_total_loss(add_regularization_losses=False).op.inputs[0].name == "Const:0"


def test_no_losses_at_all():
    with pytest.raises(ValueError, match=r"No losses to sum"):
        fr.losses.get_total_loss()
    with fr.Session() as s:
        assert s.run(fr.losses.get_regularization_loss()) == 0.0


def test_sparse_weights_with_a_trailing_one_are_squeezed():
    a = fr.losses.sparse_softmax_cross_entropy(LABELS, LOGITS, weights=W[:, None])
    with fr.Session() as s:
        np.testing.assert_allclose(s.run(a), RECORDED["sparse"], rtol=1e-5)


def test_sparse_labels_with_a_trailing_one_are_squeezed_and_gradients_flow():
    logits = fr.constant(LOGITS)
    loss = fr.losses.sparse_softmax_cross_entropy(LABELS[:, None], logits)
    (g,) = fr.gradients(loss, logits)
    e = np.exp(LOGITS - LOGITS.max(1, keepdims=True))
    sm = e / e.sum(1, keepdims=True)
    with fr.Session() as s:
        np.testing.assert_allclose(s.run(g), (sm - np.eye(3)[LABELS]) / 4, rtol=1e-5, atol=1e-7)


def test_matches_tensorflow_live():
    tf = pytest.importorskip("tensorflow.compat.v1")
    tf.disable_eager_execution()
    got = []
    for m in (fr, tf):
        with m.Graph().as_default():
            out = _program(m)
            names = {k: v.name for k, v in out.items()}
            with m.Session() as s:
                got.append((s.run(out), names))
    for k in got[0][0]:
        np.testing.assert_allclose(got[0][0][k], got[1][0][k], rtol=1e-5, atol=1e-6)
    assert got[0][1] == got[1][1]


@pytest.mark.parametrize("wshape", [(3,), (2, 3, 1), (1, 2, 3)])
def test_run_time_weights_that_do_not_broadcast_are_an_invalid_argument(wshape):
    # numpy would broadcast these; TF's assert_broadcastable wants weights of rank 0 or of
    # the losses' rank with each dimension 1 or equal.
    losses, weights = fr.placeholder(fr.float32), fr.placeholder(fr.float32)
    loss = fr.losses.compute_weighted_loss(losses, weights)
    with fr.Session() as s:
        feed = {losses: np.ones((2, 3), np.float32)}
        assert s.run(loss, {**feed, weights: np.ones((2, 1), np.float32)}) == 1.0
        assert s.run(loss, {**feed, weights: 2.0}) == 2.0
        with pytest.raises(fr.errors.InvalidArgumentError, match="weights can not be broadcast"):
            s.run(loss, {**feed, weights: np.ones(wshape, np.float32)})
