"""The dense update rules of the optimizers' apply ops, TF's ``ApplyGradientDescent``,
``ApplyMomentum``, ``ApplyAdam``, ``ApplyAdagrad``, ``ApplyRMSProp``,
``ApplyCenteredRMSProp``, ``ApplyAdadelta``, ``ApplyProximalGradientDescent``,
``ApplyProximalAdagrad`` and ``ApplyFtrl(V2)``: one compiled loop each (numba,
``_core/jit.py``).

A loop makes one pass over the variable, its slots and the gradient, with no
temporaries and without the GIL, where numpy calls would make Adam 12 passes over the
arrays with 12 calls' Python overhead (``docs/kernels.md`` and ``docs/fusion.md`` have
the measurements). Each intermediate is
rounded as TF's Eigen expression (and numpy) rounds it, in the variable's type and in
the same order, with no fused multiply-add: the results are bit for bit those of the
op-by-op numpy form (``tests/train/test_update_rules.py`` checks every rule against
it, float16 included).

float16: numba has no float16 arithmetic. A float16 variable's arrays are widened to
float32 (exact), each loop rounds every intermediate to float16 (``_h``), which is what
float16 arithmetic does (the operation in float32, rounded to float16), and the
results are stored back (exact: each is a float16 value).

Large variables are split into blocks that helper threads share
(``_core/elementwise.for_blocks``); the loops release the GIL, so the blocks run in
parallel.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._core.elementwise import BLOCK, PARALLEL_MIN_SIZE, for_blocks
from .._core.jit import compiled, inlined

__all__ = [
    "run",
    "sgd",
    "momentum",
    "adam",
    "adagrad",
    "rms_prop",
    "adadelta",
    "proximal_sgd",
    "proximal_adagrad",
    "ftrl",
]


@inlined
def _to_half(x):
    """``x`` (a float32) rounded to the nearest float16 value, ties to even, as float32:
    ``np.float32(np.float16(x))`` (±inf beyond float16's range, subnormals below it)."""
    a = abs(float(x))
    if a != a:
        return np.float32(x)
    if a >= 65520.0:  # halfway between float16's largest value and 2**16
        return np.float32(math.copysign(math.inf, x))
    if a < 6.103515625e-05:  # 2**-14: the subnormals, a step of 2**-24
        q = 5.960464477539063e-08
    else:  # 11 significant bits
        q = math.ldexp(1.0, math.frexp(a)[1] - 11)
    return np.float32(math.copysign(np.rint(a / q) * q, x))


@inlined
def _h(x, half):
    """``x`` rounded to float16 when ``half``; else ``x`` itself."""
    return _to_half(x) if half else x


@compiled
def sgd(w, g, alpha, half):
    """``var -= alpha * grad``."""
    for i in range(w.size):
        w[i] = _h(w[i] - _h(g[i] * alpha, half), half)


@compiled
def momentum(w, acc, g, lr, mom, nesterov, half):
    """``accum = accum * momentum + grad; var -= lr * accum`` (Nesterov:
    ``var -= grad * lr + accum * momentum * lr``)."""
    for i in range(w.size):
        gi = g[i]
        a = _h(_h(acc[i] * mom, half) + gi, half)
        acc[i] = a
        if nesterov:
            t = _h(_h(_h(a * mom, half) * lr, half) + _h(gi * lr, half), half)
        else:
            t = _h(a * lr, half)
        w[i] = _h(w[i] - t, half)


@compiled
def adam(w, m, v, g, c1, c2, eps, alpha, half):
    """``m += (grad - m)(1 - beta1); v += (grad^2 - v)(1 - beta2);
    var -= m / (sqrt(v) + epsilon) * alpha`` (``c1 = 1 - beta1``, ``c2 = 1 - beta2``)."""
    for i in range(w.size):
        gi = g[i]
        mi = _h(m[i] + _h(_h(gi - m[i], half) * c1, half), half)
        m[i] = mi
        vi = _h(v[i] + _h(_h(_h(gi * gi, half) - v[i], half) * c2, half), half)
        v[i] = vi
        t = _h(_h(mi / _h(_h(np.sqrt(vi), half) + eps, half), half) * alpha, half)
        w[i] = _h(w[i] - t, half)


@compiled
def adagrad(w, acc, g, lr, half):
    """``accum += grad^2; var -= grad / sqrt(accum) * lr``."""
    for i in range(w.size):
        gi = g[i]
        a = _h(acc[i] + _h(gi * gi, half), half)
        acc[i] = a
        w[i] = _h(w[i] - _h(_h(gi / _h(np.sqrt(a), half), half) * lr, half), half)


@compiled
def rms_prop(w, ms, mom, mg, g, c, momentum, eps, lr, centered, half):
    """``ms += (grad^2 - ms)(1 - rho)``; centered: ``mg += (grad - mg)(1 - rho)``, and
    ``mg^2`` is taken off ``ms`` below; ``mom = mom * momentum + grad * lr /
    sqrt(ms + epsilon); var -= mom`` (``c = 1 - rho``; ``mg`` unused when not
    centered)."""
    for i in range(w.size):
        gi = g[i]
        s = _h(ms[i] + _h(_h(_h(gi * gi, half) - ms[i], half) * c, half), half)
        ms[i] = s
        if centered:
            gm = _h(mg[i] + _h(_h(gi - mg[i], half) * c, half), half)
            mg[i] = gm
            d = _h(_h(s - _h(gm * gm, half), half) + eps, half)
        else:
            d = _h(s + eps, half)
        t = _h(_h(gi * lr, half) / _h(np.sqrt(d), half), half)
        mo = _h(_h(mom[i] * momentum, half) + t, half)
        mom[i] = mo
        w[i] = _h(w[i] - mo, half)


@compiled
def adadelta(w, acc, acc_up, g, lr, rho, c, eps, half):
    """``accum = accum * rho + grad^2 (1 - rho); update = sqrt(accum_update + epsilon)
    * rsqrt(accum + epsilon) * grad; var -= update * lr; accum_update = accum_update *
    rho + update^2 (1 - rho)`` (``c = 1 - rho``)."""
    for i in range(w.size):
        gi = g[i]
        a = _h(_h(acc[i] * rho, half) + _h(_h(gi * gi, half) * c, half), half)
        acc[i] = a
        su = _h(np.sqrt(_h(acc_up[i] + eps, half)), half)
        u = _h(_h(su / _h(np.sqrt(_h(a + eps, half)), half), half) * gi, half)
        w[i] = _h(w[i] - _h(u * lr, half), half)
        acc_up[i] = _h(_h(acc_up[i] * rho, half) + _h(_h(u * u, half) * c, half), half)


@inlined
def _shrink(v, t, l1, l2t, one, zero, half):
    """The proximal step of TF's proximal rules: ``sign(v) * max(|v| - t * l1, 0) /
    (1 + l2t)`` when ``l1 > 0``, else ``v / (1 + l2t)``."""
    den = _h(one + l2t, half)
    if l1 > 0:
        m = _h(abs(v) - _h(t * l1, half), half)
        if not m > zero:  # max(., 0); a NaN stays NaN through sign(v) below
            m = zero if m <= zero else m
        if v < zero:
            m = -m
        elif not v > zero:
            m = v * m  # sign(0) * m is 0 (NaN for a NaN v)
        return _h(m / den, half)
    return _h(v / den, half)


@compiled
def proximal_sgd(w, g, lr, l1, l2t, one, zero, half):
    """``v = var - grad * lr; var = shrink(v, lr)`` (``l2t = l2 * lr``)."""
    for i in range(w.size):
        v = _h(w[i] - _h(g[i] * lr, half), half)
        w[i] = _shrink(v, lr, l1, l2t, one, zero, half)


@compiled
def proximal_adagrad(w, acc, g, lr, l1, l2, one, zero, half):
    """``accum += grad^2; t = lr * rsqrt(accum); v = var - grad * t; var = shrink(v,
    t)`` with ``l2 * t``."""
    for i in range(w.size):
        gi = g[i]
        a = _h(acc[i] + _h(gi * gi, half), half)
        acc[i] = a
        t = _h(lr * _h(one / _h(np.sqrt(a), half), half), half)
        v = _h(w[i] - _h(gi * t, half), half)
        w[i] = _shrink(v, t, l1, _h(l2 * t, half), one, zero, half)


@compiled
def ftrl(w, acc, lin, g, lr, l1, two_l2, two_shrinkage, lr_power, half):
    """TF's ``ApplyFtrlV2`` (``ApplyFtrl`` when ``two_shrinkage`` is 0):
    ``new_accum = accum + grad^2; linear += grad + 2 shrinkage var - (new_accum^-p -
    accum^-p) / lr * var; var = (clip(linear, -l1, l1) - linear) / (new_accum^-p / lr +
    2 l2); accum = new_accum`` (``p = lr_power``; -0.5 takes square roots)."""
    root = lr_power == -0.5
    for i in range(w.size):
        gi = g[i]
        wi = w[i]
        a = acc[i]
        na = _h(a + _h(gi * gi, half), half)
        if root:
            pn = _h(np.sqrt(na), half)
            po = _h(np.sqrt(a), half)
        else:
            pn = _h(na**-lr_power, half)
            po = _h(a**-lr_power, half)
        gs = gi
        if two_shrinkage != 0:
            gs = _h(gi + _h(two_shrinkage * wi, half), half)
        d = _h(_h(_h(pn - po, half) / lr, half) * wi, half)
        li = _h(lin[i] + _h(gs - d, half), half)
        lin[i] = li
        c = li
        if c > l1:
            c = l1
        if c < -l1:
            c = -l1
        w[i] = _h(_h(c - li, half) / _h(_h(pn / lr, half) + two_l2, half), half)
        acc[i] = na


def run(rule, arrays: Sequence[np.ndarray], g: np.ndarray, *scalars: Any) -> None:
    """Applies the compiled ``rule`` to ``arrays`` (the variable and its slots, updated
    in place) and the gradient ``g`` (all of one shape and dtype), with ``scalars`` (of
    that dtype) and the ``half`` flag last.

    C-contiguous float32/float64 arrays are updated through flat views of themselves;
    float16 or non-contiguous ones through contiguous (float32) copies written back.
    """
    half = arrays[0].dtype.char == "e"  # float16
    work = None
    for a in arrays:
        if half or not a.flags.c_contiguous:
            wide = np.dtype(np.float32) if half else arrays[0].dtype
            work = [np.ascontiguousarray(a, dtype=wide) for a in arrays]
            scalars = tuple(wide.type(s) if isinstance(s, np.floating) else s for s in scalars)
            break
    flat = [a.reshape(-1) for a in (arrays if work is None else work)]
    gf = np.ascontiguousarray(g, dtype=flat[0].dtype).reshape(-1)
    n = gf.size
    if n < PARALLEL_MIN_SIZE:
        rule(*flat, gf, *scalars, half)
    else:
        for_blocks(
            n,
            BLOCK,
            lambda lo, hi: rule(*[a[lo:hi] for a in flat], gf[lo:hi], *scalars, half),
            True,
        )
    if work is not None:
        for a, b in zip(arrays, work, strict=True):
            a[...] = b
