"""The compiled dense update rules against TF's op-by-op arithmetic, bit for bit.

The reference of each rule is the sequence of elementwise operations TF's Eigen
expression performs, written with numpy ufuncs on arrays of the variable's dtype
(each operation rounded in that dtype, float16 included).

Bit for bit holds where every operation is correctly rounded (+, -, *, /, sqrt). Ftrl
with a general ``lr_power`` takes ``pow``, which no library rounds correctly: the
compiled rule calls libm's, numpy's ``power`` may take a SIMD loop that differs by an
ulp on some CPUs (AVX-512), so that case is compared within a bound instead.
"""

from __future__ import annotations

import numpy as np
import pytest

from flowrt._core import elementwise
from flowrt.train import update_rules as ur


def _ref_sgd(w, g, alpha):
    w -= g * alpha


def _ref_momentum(w, acc, g, lr, mom, nesterov):
    acc *= mom
    acc += g
    if nesterov:
        w -= acc * mom * lr + g * lr
    else:
        w -= acc * lr


def _ref_adam(w, m, v, g, c1, c2, eps, alpha):
    m += (g - m) * c1
    v += (g * g - v) * c2
    w -= m / (np.sqrt(v) + eps) * alpha


def _ref_adagrad(w, acc, g, lr):
    acc += g * g
    w -= g / np.sqrt(acc) * lr


def _ref_rms(w, ms, mom, mg, g, c, momentum, eps, lr, centered):
    ms += (g * g - ms) * c
    if centered:
        mg += (g - mg) * c
        d = ms - mg * mg + eps
    else:
        d = ms + eps
    mom *= momentum
    mom += g * lr / np.sqrt(d)
    w -= mom


def _ref_adadelta(w, acc, acc_up, g, lr, rho, c, eps):
    acc[...] = acc * rho + (g * g) * c
    u = np.sqrt(acc_up + eps) / np.sqrt(acc + eps) * g
    w -= u * lr
    acc_up[...] = acc_up * rho + (u * u) * c


def _prox(v, t, l1, l2t, one, zero):
    if l1 > 0:
        return np.sign(v) * np.maximum(np.abs(v) - t * l1, zero) / (one + l2t)
    return v / (one + l2t)


def _ref_proximal_sgd(w, g, lr, l1, l2t, one, zero):
    w[...] = _prox(w - g * lr, lr, l1, l2t, one, zero)


def _ref_proximal_adagrad(w, acc, g, lr, l1, l2, one, zero):
    acc += g * g
    t = lr * (one / np.sqrt(acc))
    w[...] = _prox(w - g * t, t, l1, l2 * t, one, zero)


def _ref_ftrl(w, acc, lin, g, lr, l1, two_l2, two_shrinkage, lr_power):
    na = acc + g * g
    if lr_power == -0.5:
        pn, po = np.sqrt(na), np.sqrt(acc)
    else:
        pn, po = na**-lr_power, acc**-lr_power
    gs = g + two_shrinkage * w if two_shrinkage != 0 else g
    lin += gs - (pn - po) / lr * w
    w[...] = (np.maximum(np.minimum(lin, l1), -l1) - lin) / (pn / lr + two_l2)
    acc[...] = na


def _cases():
    # (rule, reference, number of arrays before g, scalars builder)
    return [
        (ur.sgd, _ref_sgd, 1, lambda t: (t(0.1),)),
        (ur.momentum, _ref_momentum, 2, lambda t: (t(0.1), t(0.9), False)),
        (ur.momentum, _ref_momentum, 2, lambda t: (t(0.1), t(0.9), True)),
        (ur.adam, _ref_adam, 3, lambda t: (1 - t(0.9), 1 - t(0.999), t(1e-7), t(0.0123))),
        (ur.adagrad, _ref_adagrad, 2, lambda t: (t(0.1),)),
        (ur.rms_prop, _ref_rms, 4, lambda t: (1 - t(0.9), t(0.9), t(1e-7), t(0.01), False)),
        (ur.rms_prop, _ref_rms, 4, lambda t: (1 - t(0.9), t(0.9), t(1e-7), t(0.01), True)),
        (ur.adadelta, _ref_adadelta, 3, lambda t: (t(0.5), t(0.9), 1 - t(0.9), t(1e-6))),
        (ur.proximal_sgd, _ref_proximal_sgd, 1, lambda t: (t(0.1), t(0.3), t(0.02), t(1), t(0))),
        (ur.proximal_sgd, _ref_proximal_sgd, 1, lambda t: (t(0.1), t(0), t(0.02), t(1), t(0))),
        (
            ur.proximal_adagrad,
            _ref_proximal_adagrad,
            2,
            lambda t: (t(0.2), t(0.4), t(0.1), t(1), t(0)),
        ),
        (ur.ftrl, _ref_ftrl, 3, lambda t: (t(0.3), t(0.5), t(0.04), t(0), t(-0.5))),
        (ur.ftrl, _ref_ftrl, 3, lambda t: (t(0.3), t(0.05), t(0.04), t(0.2), t(-0.7))),
    ]


def _arrays(n_arrays, shape, dtype, seed):
    r = np.random.default_rng(seed)
    arrs = [r.uniform(0.5, 2, shape).astype(dtype) for _ in range(n_arrays)]
    if n_arrays == 4:
        arrs[3] *= dtype(0.1)  # mg: keeps ms - mg^2 positive
    arrs[0] -= dtype(1.2)  # weights of both signs (the proximal rules' sign(v))
    g = r.standard_normal(shape).astype(dtype)
    return arrs, g


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("case", range(13))
def test_rules_equal_the_op_by_op_arithmetic(dtype, case):
    rule, ref, n_arrays, scalars = _cases()[case]
    args = scalars(dtype)
    arrs, g = _arrays(n_arrays, (37, 11), dtype, case)
    want = [a.copy() for a in arrs]
    with np.errstate(all="ignore"):
        for _ in range(3):
            ur.run(rule, arrs, g, *args)
            ref(*want, g, *args)
    for got, w in zip(arrs, want, strict=True):
        assert got.dtype == dtype
        if case in _POW_CASES:
            _assert_within_pow_bound(got, w)
        else:
            np.testing.assert_array_equal(got, w)


# Cases whose rule calls pow (Ftrl with lr_power != -0.5).
_POW_CASES = {12}


def _assert_within_pow_bound(got, want):
    """Equal up to what pow's last-ulp freedom can change: perturbing every pow of
    the reference by one ulp either way (200 seeds, 3 steps, each dtype) moves the
    arrays by at most 4.1 ulps of their largest magnitude; the bound is 4x that."""
    eps = np.finfo(want.dtype).eps
    scale = float(np.max(np.abs(want.astype(np.float64))))
    np.testing.assert_allclose(got, want, rtol=0, atol=16 * eps * scale)


def test_pow_bound_catches_a_wrong_rule():
    # The bound is far below what a wrong power (0.7 taken as 0.75) changes.
    rule, ref, n_arrays, scalars = _cases()[12]
    args = scalars(np.float32)
    arrs, g = _arrays(n_arrays, (37, 11), np.float32, 12)
    want = [a.copy() for a in arrs]
    ur.run(rule, arrs, g, *args[:-1], np.float32(-0.75))
    ref(*want, g, *args)
    with pytest.raises(AssertionError):
        for got, w in zip(arrs, want, strict=True):
            _assert_within_pow_bound(got, w)


@pytest.mark.parametrize("case", [3, 6])
def test_rules_on_non_contiguous_and_large_arrays(case, monkeypatch):
    rule, ref, n_arrays, scalars = _cases()[case]
    args = scalars(np.float32)
    # A transposed variable is updated through a copy written back.
    arrs, g = _arrays(n_arrays, (20, 30), np.float32, 1)
    arrs = [np.ascontiguousarray(a.T).T for a in arrs]
    want = [a.copy() for a in arrs]
    ur.run(rule, arrs, g, *args)
    ref(*want, g, *args)
    for got, w in zip(arrs, want, strict=True):
        np.testing.assert_array_equal(got, w)
    # Blocks shared with helper threads (made small here to take that path).
    monkeypatch.setattr(ur, "PARALLEL_MIN_SIZE", 1000)
    monkeypatch.setattr(ur, "BLOCK", 300)
    arrs, g = _arrays(n_arrays, (4099,), np.float32, 2)
    want = [a.copy() for a in arrs]
    ur.run(rule, arrs, g, *args)
    ref(*want, g, *args)
    for got, w in zip(arrs, want, strict=True):
        np.testing.assert_array_equal(got, w)
    assert elementwise.THREADS >= 1


def _same(got, want):
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan)
    assert np.array_equal(got[~nan], want[~nan])
    assert np.array_equal(np.signbit(got[~nan]), np.signbit(want[~nan]))


def test_float16_rounding_matches_numpy():
    r = np.random.default_rng(0)
    bits = r.integers(0, 2**32, 200_000, dtype=np.uint64).astype(np.uint32)
    edges = [0, -0.0, 65504, 65519.99, 65520, -65520, 65536, 1e30]
    edges += [2.0**-14, 2.0**-24, 2.0**-25, 3 * 2.0**-26, 2.0**-26, 1e-30, np.inf, -np.inf, np.nan]
    xs = np.concatenate([np.float32(edges), bits.view(np.float32)])
    with np.errstate(over="ignore"):
        want = xs.astype(np.float16).astype(np.float32)
    # Compiled: SGD with a zero step rounds the variable to float16 when ``half``.
    got = xs.copy()
    ur.sgd(got, np.zeros_like(got), np.float32(0), True)
    _same(got, want)
    # The Python form, on a sample.
    _same(np.array([ur._to_half(x) for x in xs[:3000]], np.float32), want[:3000])


def test_rules_compiled_equal_their_python_form():
    # The Python functions numba compiles are the rules themselves: run as Python on a
    # few elements they give what the compiled loops give.
    for rule, _ref, n_arrays, scalars in _cases():
        args = scalars(np.float32)
        a, g = _arrays(n_arrays, (5,), np.float32, 7)
        b = [x.copy() for x in a]
        rule(*a, g, *args, False)
        rule.py(*b, g, *args, False)
        for x, y in zip(a, b, strict=True):
            np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_adam_alpha_is_tfs_arithmetic_in_the_dtype(dtype):
    from flowrt.train.apply_ops import _adam_alpha

    r = np.random.default_rng(1)
    one = dtype(1)
    for b1p, b2p, lr in r.uniform(0.01, 0.999, (500, 3)).astype(dtype):
        s = {"lr": lr, "beta1_power": b1p, "beta2_power": b2p}
        want = lr * np.sqrt(one - b2p) / (one - b1p)
        got = _adam_alpha(s, dtype)
        assert got.dtype == dtype and got == want
