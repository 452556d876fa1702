"""nn.fused_batch_norm: training and inference statistics as TF returns them."""

from __future__ import annotations

import numpy as np
import pytest

import flowrt as fr

_r = np.random.default_rng(0)
X = _r.standard_normal((2, 3, 4, 5)).astype(np.float32)
S = _r.uniform(0.5, 1.5, 5).astype(np.float32)
OFF = _r.standard_normal(5).astype(np.float32)
M = _r.standard_normal(5).astype(np.float32)
V = _r.uniform(0.5, 2, 5).astype(np.float32)


def _run(*fetch_fns):
    with fr.Graph().as_default():
        out = [f() for f in fetch_fns]
        with fr.Session() as sess:
            return sess.run(out)


def test_training_normalizes_with_batch_stats_and_returns_unbiased_variance():
    ((y, m, v),) = _run(lambda: fr.nn.fused_batch_norm(X, S, OFF, epsilon=1e-3))
    bm, bv = X.mean((0, 1, 2)), X.var((0, 1, 2))
    np.testing.assert_allclose(y, (X - bm) / np.sqrt(bv + 1e-3) * S + OFF, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(m, bm, rtol=1e-5, atol=1e-6)
    n = X.size / 5
    np.testing.assert_allclose(v, bv * n / (n - 1), rtol=1e-5)
    ((y2, _, v2),) = _run(
        lambda: fr.nn.fused_batch_norm(fr.transpose(X, [0, 3, 1, 2]), S, OFF, data_format="NCHW")
    )
    np.testing.assert_allclose(y2, y.transpose(0, 3, 1, 2), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(v2, v, rtol=1e-6)
    ((_, m3, v3),) = _run(
        lambda: fr.nn.fused_batch_norm(X, S, OFF, mean=M, variance=V, exponential_avg_factor=0.3)
    )
    np.testing.assert_allclose(m3, 0.7 * M + 0.3 * bm, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(v3, 0.7 * V + 0.3 * v, rtol=1e-5)


def test_inference_uses_the_given_statistics():
    ((y, m, v),) = _run(
        lambda: fr.nn.fused_batch_norm(X, S, OFF, mean=M, variance=V, is_training=False)
    )
    np.testing.assert_allclose(y, (X - M) / np.sqrt(V + 1e-3) * S + OFF, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(m, M)
    np.testing.assert_array_equal(v, V)


def test_float16_input_gives_float16_output_and_float32_stats():
    with fr.Graph().as_default():
        y, m, v = fr.nn.fused_batch_norm(fr.constant(X.astype(np.float16)), S, OFF)
        assert (y.dtype, m.dtype, v.dtype) == (fr.float16, fr.float32, fr.float32)


def test_bad_arguments():
    with pytest.raises(ValueError, match="data_format"):
        fr.nn.fused_batch_norm(X, S, OFF, data_format="NWC")
    with pytest.raises(ValueError, match="4-D"):
        fr.nn.fused_batch_norm(X[0], S, OFF)
    with pytest.raises(ValueError, match="mean.*variance"):
        fr.nn.fused_batch_norm(X, S, OFF, is_training=False)
