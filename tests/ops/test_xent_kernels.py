"""The compiled softmax cross-entropy loops against a float64 reference: within an ulp
or two of the exact values, rows of NaN/inf as numpy's formula gives them, float16,
N-d logits, empty batches and bad labels."""

import numpy as np
import pytest

import flowrt as fr
from flowrt.ops import xent_kernels as xk
from tests.libm import assert_within_ulps


def reference(logits, onehot):
    x = logits.astype(np.float64)
    shifted = x - x.max(-1, keepdims=True)
    e = np.exp(shifted)
    s = e.sum(-1, keepdims=True)
    loss = (onehot * (np.log(s) - shifted)).sum(-1)
    return loss, e / s - onehot


def close_loss(loss, ref, logits):
    """Within a few roundings of the exact loss: a loss is a difference of terms as
    large as the logits, so its error is relative to their size, not its own."""
    eps = np.finfo(logits.dtype).eps
    scale = np.abs(logits).max(-1).astype(np.float64) + np.abs(ref)
    assert np.all(np.abs(loss.astype(np.float64) - ref) <= 4 * eps * scale)


def close_back(back, ref, logits):
    """Within a few roundings of the exact backprop: exp of a shifted logit rounded to
    the dtype is off by that rounding times the logit's size, relatively, and the
    float64 sum of a row of n terms by up to n roundings of float64."""
    eps = np.finfo(logits.dtype).eps
    x = logits.astype(np.float64)
    size = 1 + np.abs(x - x.max(-1, keepdims=True))
    err = np.abs(back.astype(np.float64) - ref)
    sum_error = x.shape[-1] * np.finfo(np.float64).eps
    assert np.all(err <= 4 * eps * (size * np.abs(ref) + 1) + sum_error * np.abs(ref))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(128, 10), (3, 4, 7), (5, 1), (2, 50_000)])
def test_sparse_and_dense_match_a_float64_reference(dtype, shape):
    rng = np.random.default_rng(sum(shape))
    logits = (rng.standard_normal(shape) * 8).astype(dtype)
    labels = rng.integers(0, shape[-1], shape[:-1]).astype(np.int64)
    onehot = np.zeros(shape)
    np.put_along_axis(onehot, labels[..., None], 1.0, -1)
    ref_loss, ref_back = reference(logits, onehot)
    loss, back = xk.sparse_softmax_xent(logits, labels)
    assert loss.dtype == dtype and loss.shape == shape[:-1] and back.shape == shape
    # Every result is computed in float64 from the shifted logits and numpy's
    # exponentials (each rounded to ``dtype``) and rounded once.
    close_loss(loss, ref_loss, logits)
    close_back(back, ref_back, logits)
    soft = rng.dirichlet(np.ones(shape[-1]), shape[:-1]).astype(dtype)
    ref_loss, ref_back = reference(logits, soft.astype(np.float64))
    loss, back = xk.softmax_xent(logits, soft)
    close_loss(loss, ref_loss, logits)
    close_back(back, ref_back, logits)


def test_rows_with_nan_or_inf_logits_come_out_as_numpy_computes_them():
    logits = np.array(
        [[np.nan, 1, 2], [1, np.nan, 2], [np.inf, 1, 2], [-np.inf, -np.inf, -np.inf], [1, 2, 3]],
        np.float32,
    )
    labels = np.array([0, 0, 1, 2, 2])
    with np.errstate(all="ignore"):
        ref_loss, ref_back = reference(logits, np.eye(3)[labels])
    loss, back = xk.sparse_softmax_xent(logits, labels)
    np.testing.assert_array_equal(np.isnan(loss), np.isnan(ref_loss))
    np.testing.assert_array_equal(np.isnan(back), np.isnan(ref_back))
    assert np.all(np.isnan(back[:4])) and np.all(np.isfinite(back[4]))


def test_float16_is_computed_in_float32_and_rounded_once():
    rng = np.random.default_rng(0)
    logits = rng.standard_normal((6, 9)).astype(np.float16)
    labels = rng.integers(0, 9, 6).astype(np.int32)
    loss, back = xk.sparse_softmax_xent(logits, labels)
    assert loss.dtype == back.dtype == np.float16
    ref_loss, ref_back = reference(logits, np.eye(9)[labels])
    # Within one half-precision ulp, not bit for bit: the float32 loss goes through
    # libm's exp and log (tests/libm.py), so it may sit a float32 ulp from the float64
    # reference's rounding and round to the neighbouring half (a float16 computation
    # would be many half ulps off).
    assert_within_ulps(loss, ref_loss.astype(np.float32).astype(np.float16), 1)
    np.testing.assert_allclose(back, ref_back, atol=1e-3)


def test_empty_batches_and_bad_labels():
    loss, back = xk.sparse_softmax_xent(np.zeros((0, 4), np.float32), np.zeros(0, np.int32))
    assert loss.shape == (0,) and back.shape == (0, 4)
    loss, back = xk.softmax_xent(np.zeros((0, 4), np.float32), np.zeros((0, 4), np.float32))
    assert loss.shape == (0,) and back.shape == (0, 4)
    logits = np.zeros((3, 4), np.float32)
    assert xk.sparse_softmax_xent(logits, np.array([0, 4, -1])) == 1
    assert xk.sparse_softmax_xent(logits, np.array([0, 1, -1])) == 2
    assert xk.sparse_softmax_xent(np.zeros((2, 0), np.float32), np.array([0, 0])) == 0


def test_a_bad_label_fails_the_run_naming_it_and_all_labels():
    p = fr.placeholder(fr.int64, [None])
    loss = fr.nn.sparse_softmax_cross_entropy_with_logits(
        labels=p, logits=np.zeros((3, 4), np.float32)
    )
    with fr.Session() as sess:
        with pytest.raises(
            fr.errors.InvalidArgumentError,
            match=r"Received a label value of -3 which is outside the valid range of "
            r"\[0, 4\)\.  Label values: 1 -3 7",
        ):
            sess.run(loss, {p: [1, -3, 7]})
