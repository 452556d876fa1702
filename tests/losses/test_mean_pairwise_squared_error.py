"""fr.losses.mean_pairwise_squared_error against TF 2.21's recorded values and names."""

import numpy as np
import pytest

import flowrt as fr

L = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.5], [0.0, -1.0, 2.0]], np.float32)
P = np.array([[1.5, 2.0, 2.0], [4.0, 4.0, 7.0], [1.0, 1.0, 1.0]], np.float32)

# (weights, rank-3 inputs, TF 2.21's loss)
CASES = [
    (1.0, False, 7.0),
    ([[1.0], [0.0], [2.0]], False, 10.5),
    (np.array([[1, 0, 1], [1, 1, 1], [0, 0, 1]], np.float32), False, 8.0),
    (0.5, True, 3.5),
    (0.0, False, 0.0),
]


@pytest.mark.parametrize("weights, rank3, want", CASES)
def test_values_and_names_are_tfs(weights, rank3, want):
    with fr.Graph().as_default():
        lab, pred = (L.reshape(3, 3, 1), P.reshape(3, 3, 1)) if rank3 else (L, P)
        loss = fr.losses.mean_pairwise_squared_error(lab, pred, weights=weights)
        assert loss.name == "mean_pairwise_squared_error/value_2:0"
        assert fr.get_collection(fr.GraphKeys.LOSSES) == [loss]
        with fr.Session() as sess:
            got = sess.run(loss)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_gradient_reaches_predictions():
    with fr.Graph().as_default():
        p = fr.constant(P)
        (g,) = fr.gradients(fr.losses.mean_pairwise_squared_error(L, p), [p])
        with fr.Session() as sess:
            got = sess.run(g)
    # d/dp of sum_i [2 sum d^2 / 2 - 2 (sum d)^2 / 6] = 2 d - 2 sum(d) / 3 per example
    d = P - L
    np.testing.assert_allclose(got, 2 * d - 2 * d.sum(1, keepdims=True) / 3, rtol=1e-5)


def test_none_arguments_raise():
    with pytest.raises(ValueError, match="`labels` must not be None"):
        fr.losses.mean_pairwise_squared_error(None, P)
