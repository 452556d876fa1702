"""nn.log_poisson_loss, compute_average_loss, scale_regularization_loss, silu, and the
1-D pools, against TF 2.21's values (recorded) and numpy."""

from __future__ import annotations

import numpy as np
import pytest

import flowrt as fr

T = np.float32([0, 0.5, 1, 2, 5, 10])
L = np.float32([0.126, -0.132, 0.640, 0.105, -0.536, 0.362])


def _run(fn):
    with fr.Graph().as_default():
        out = fn()
        with fr.Session() as sess:
            return sess.run(out)


def test_log_poisson_loss():
    got = _run(lambda: fr.nn.log_poisson_loss(T, L))
    np.testing.assert_allclose(got, np.exp(L) - L * T, rtol=1e-6)
    full = _run(lambda: fr.nn.log_poisson_loss(T, L, compute_full_loss=True))
    with np.errstate(divide="ignore", invalid="ignore"):
        stirling = T * np.log(T) - T + 0.5 * np.log(2 * np.pi * T)
    want = np.exp(L) - L * T + np.where((T >= 0) & (T <= 1), 0, stirling)
    np.testing.assert_allclose(full, want, rtol=1e-5)
    with pytest.raises(ValueError, match="same shape"):
        fr.nn.log_poisson_loss(T, L[:3])


def test_loss_scaling_and_silu():
    assert _run(lambda: fr.nn.compute_average_loss(L)) == pytest.approx(L.mean(), rel=1e-6)
    got = _run(lambda: fr.nn.compute_average_loss(L, sample_weight=T, global_batch_size=12))
    assert got == pytest.approx((L * T).sum() / 12, rel=1e-6)
    with pytest.raises(ValueError, match="global_batch_size must be positive"):
        fr.nn.compute_average_loss(L, global_batch_size=0)
    assert _run(lambda: fr.nn.scale_regularization_loss(L)) == pytest.approx(L.sum(), rel=1e-6)
    np.testing.assert_allclose(_run(lambda: fr.nn.silu(L)), L / (1 + np.exp(-L)), rtol=1e-6)


def test_pool1d_is_the_2d_pool_over_the_width():
    x = np.random.default_rng(0).standard_normal((2, 9, 3)).astype(np.float32)
    got = _run(lambda: fr.nn.max_pool1d(x, 3, 2, "VALID"))
    want = np.stack([x[:, i : i + 3].max(1) for i in range(0, 7, 2)], 1)
    np.testing.assert_array_equal(got, want)
    got = _run(lambda: fr.nn.avg_pool1d(x, [2], [1], "SAME"))
    want = np.concatenate([(x[:, :-1] + x[:, 1:]) / 2, x[:, -1:]], 1)  # SAME: last alone
    np.testing.assert_allclose(got, want, rtol=1e-6)
    got = _run(lambda: fr.nn.max_pool1d(x, [1, 3, 1], [1, 3, 1], "SAME"))
    assert got.shape == (2, 3, 3)
    with pytest.raises(ValueError, match="NWC"):
        fr.nn.max_pool1d(x, 2, 2, "SAME", data_format="NCW")
