"""The dense update rules of the optimizers' apply ops, TF's ``ApplyGradientDescent``,
``ApplyMomentum``, ``ApplyAdam``, ``ApplyAdagrad``, ``ApplyRMSProp`` and
``ApplyCenteredRMSProp``: one compiled loop each (numba, ``_core/jit.py``).

A loop makes one pass over the variable, its slots and the gradient, with no
temporaries and without the GIL. Written as numpy calls, Adam is 12 passes over the
arrays, with 12 calls' Python overhead (25 µs for a 10-element bias, 48 µs for a 64x128
matrix, 481 µs for 784x256, against 2, 9 and 112 µs compiled). Each intermediate is
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

__all__ = ["run", "sgd", "momentum", "adam", "adagrad", "rms_prop"]


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
