"""TensorFlow's random streams, bit for bit: Philox4x32-10 and the distributions of TF's
CPU kernels, as compiled loops writing straight into the output.

A stream is a 64-bit key and a 128-bit counter (``PhiloxState`` in
``_core/resources.py``: an op's seeds ``(seed, seed2)`` are the key and the counter's
upper half, as TF's ``GuardedPhiloxRandom``). One Philox call turns a counter into four
32-bit words; a kernel run reserves ``256`` calls per output element (TF's
``ReserveRandomOutputs(n, 256)``) and fills its output from the first counter of its
reservation, so the next run starts where TF's would.

The fills follow TF's ``FillPhiloxRandomTask``: outputs come in groups (4 per call for
32-bit and 16-bit values, 2 for 64-bit ones), group ``g`` made from the call at counter
``start + g``, a partial last group keeping its first values. A truncated normal group
``g`` starts at ``start + g * 256`` (float32/float16) or ``start + g * 128`` (float64)
and takes Box-Muller pairs from successive calls until the group is full, rejecting
values whose magnitude is not below 2. Float16 values are computed as float32 and
rounded (TF's ``Eigen::half`` conversions). ``log``, ``sin``, ``cos`` and ``sqrt`` are
the C library's, as TF's kernels call them.
"""

from __future__ import annotations

import numpy as np

from .._core.jit import compiled, inlined

__all__ = ["fill_float", "fill_int"]

_M32 = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)
_ONE = np.uint64(1)
_MUL_A = np.uint64(0xD2511F53)  # Philox4x32 round multipliers
_MUL_B = np.uint64(0xCD9E8D57)
_KEY_A = np.uint64(0x9E3779B9)  # Weyl key increments per round
_KEY_B = np.uint64(0xBB67AE85)
_M23 = np.uint64(0x7FFFFF)  # a float32 mantissa
_M20 = np.uint64(0xFFFFF)  # the upper 20 bits of a float64 mantissa
_TWO_PI = 2.0 * np.pi
_EPS32 = np.float32(1.0e-7)  # Box-Muller's floor for log()
_MINUS_TWO32 = np.float32(-2.0)
_TRUNCATE32 = np.float32(2.0)

# kinds of fill
UNIFORM = 0
UNIFORM_HALF = 1  # float16's 10 mantissa bits
NORMAL = 2
TRUNCATED = 3

_SKIP_TRUNCATED = 256  # Philox calls reserved per output by TF (one group: 4 x 256 / 4)


@inlined
def _philox(lo, hi, k0, k1):
    """The four words (uint64 each below 2**32) of Philox4x32-10 for counter ``hi:lo``
    (two uint64 halves) and key ``k1:k0``."""
    c0 = lo & _M32
    c1 = lo >> _S32
    c2 = hi & _M32
    c3 = hi >> _S32
    for _ in range(10):
        p0 = _MUL_A * c0
        p1 = _MUL_B * c2
        c0, c1, c2, c3 = (p1 >> _S32) ^ c1 ^ k0, p1 & _M32, (p0 >> _S32) ^ c3 ^ k1, p0 & _M32
        k0 = (k0 + _KEY_A) & _M32
        k1 = (k1 + _KEY_B) & _M32
    return c0, c1, c2, c3


@inlined
def _skip(lo, hi, n):
    """The 128-bit counter ``hi:lo`` advanced by ``n`` (uint64)."""
    s = lo + n
    if s < lo:
        hi = hi + _ONE
    return s, hi


@inlined
def _unit32(x):
    """TF's ``Uint32ToFloat``: the low 23 bits as a float32 in [0, 1)."""
    return np.float32(x & _M23) * np.float32(1.0 / 8388608.0)


@inlined
def _unit64(x0, x1):
    """TF's ``Uint64ToDouble``: 20 bits of ``x0`` and ``x1`` as a float64 in [0, 1)."""
    return np.float64(((x0 & _M20) << _S32) | x1) * (1.0 / 4503599627370496.0)


@inlined
def _box_muller32(x0, x1):
    """TF's ``BoxMullerFloat``: two float32 normal values from two words."""
    u1 = _unit32(x0)
    if u1 < _EPS32:
        u1 = _EPS32
    v1 = np.float32(_TWO_PI * np.float64(_unit32(x1)))
    u2 = np.sqrt(_MINUS_TWO32 * np.log(u1))
    return np.sin(v1) * u2, np.cos(v1) * u2


@inlined
def _box_muller64(x0, x1, x2, x3):
    """TF's ``BoxMullerDouble``: two float64 normal values from four words."""
    u1 = _unit64(x0, x1)
    if u1 < 1.0e-7:
        u1 = 1.0e-7
    v1 = _TWO_PI * _unit64(x2, x3)
    u2 = np.sqrt(-2.0 * np.log(u1))
    return np.sin(v1) * u2, np.cos(v1) * u2


@compiled
def _fill32(out, kind, k0, k1, lo, hi):
    """Fills the float32 vector ``out`` with fill ``kind`` of the stream at ``hi:lo``."""
    n = out.size
    groups = (n + 3) // 4
    if kind == TRUNCATED:
        for g in range(groups):
            clo, chi = _skip(lo, hi, np.uint64(g) * np.uint64(_SKIP_TRUNCATED))
            j = 4 * g
            end = min(j + 4, n)
            while j < end:
                w = _philox(clo, chi, k0, k1)
                clo, chi = _skip(clo, chi, _ONE)
                for p in range(2):
                    f0, f1 = _box_muller32(w[2 * p], w[2 * p + 1])
                    if abs(f0) < _TRUNCATE32 and j < end:
                        out[j] = f0
                        j += 1
                    if abs(f1) < _TRUNCATE32 and j < end:
                        out[j] = f1
                        j += 1
        return
    for g in range(groups):
        clo, chi = _skip(lo, hi, np.uint64(g))
        w = _philox(clo, chi, k0, k1)
        j = 4 * g
        if kind == NORMAL:
            f0, f1 = _box_muller32(w[0], w[1])
            f2, f3 = _box_muller32(w[2], w[3])
            vals = (f0, f1, f2, f3)
        elif kind == UNIFORM:
            vals = (_unit32(w[0]), _unit32(w[1]), _unit32(w[2]), _unit32(w[3]))
        else:  # UNIFORM_HALF: TF's Uint16ToHalf, exact in float32
            s = np.float32(1.0 / 1024.0)
            m = np.uint64(0x3FF)
            vals = (
                np.float32(w[0] & m) * s,
                np.float32(w[1] & m) * s,
                np.float32(w[2] & m) * s,
                np.float32(w[3] & m) * s,
            )
        for i in range(min(4, n - j)):
            out[j + i] = vals[i]


@compiled
def _fill64(out, kind, k0, k1, lo, hi):
    """Fills the float64 vector ``out`` with fill ``kind`` of the stream at ``hi:lo``."""
    n = out.size
    groups = (n + 1) // 2
    if kind == TRUNCATED:
        for g in range(groups):
            clo, chi = _skip(lo, hi, np.uint64(g) * np.uint64(_SKIP_TRUNCATED // 2))
            j = 2 * g
            end = min(j + 2, n)
            while j < end:
                w = _philox(clo, chi, k0, k1)
                clo, chi = _skip(clo, chi, _ONE)
                d0, d1 = _box_muller64(w[0], w[1], w[2], w[3])
                if abs(d0) < 2.0:
                    out[j] = d0
                    j += 1
                if abs(d1) < 2.0 and j < end:
                    out[j] = d1
                    j += 1
        return
    for g in range(groups):
        clo, chi = _skip(lo, hi, np.uint64(g))
        w = _philox(clo, chi, k0, k1)
        j = 2 * g
        if kind == NORMAL:
            v0, v1 = _box_muller64(w[0], w[1], w[2], w[3])
        else:
            v0, v1 = _unit64(w[0], w[1]), _unit64(w[2], w[3])
        out[j] = v0
        if j + 1 < n:
            out[j + 1] = v1


@compiled
def _fill_int(out, wide, k0, k1, lo, hi, base, span):
    """Fills ``out`` (the unsigned view of an int32 or int64 vector; ``wide`` for int64)
    with ``base + word % span`` modulo its width: TF's ``UniformDistribution`` for ints,
    one word per int32, two per int64 (low word first)."""
    n = out.size
    per = 2 if wide else 4
    for g in range((n + per - 1) // per):
        clo, chi = _skip(lo, hi, np.uint64(g))
        w = _philox(clo, chi, k0, k1)
        j = per * g
        for i in range(min(per, n - j)):
            if wide:
                bits = w[2 * i] | (w[2 * i + 1] << _S32)
                out[j + i] = base + bits % span
            else:
                out[j + i] = (base + w[i] % span) & _M32


def _args(key: int, counter: int) -> tuple:
    u = np.uint64
    return (
        u(key & 0xFFFFFFFF),
        u(key >> 32),
        u(counter & 0xFFFFFFFFFFFFFFFF),
        u(counter >> 64),
    )


def fill_float(out: np.ndarray, kind: int, key: int, counter: int) -> None:
    """Fills the float16, float32 or float64 vector ``out`` in place with fill ``kind``
    (``UNIFORM``, ``NORMAL`` or ``TRUNCATED``) of the Philox stream with 64-bit ``key``
    from 128-bit ``counter``, as TF's CPU kernel fills an output of that dtype."""
    if out.dtype == np.float64:
        _fill64(out, kind, *_args(key, counter))
    elif out.dtype == np.float32:
        _fill32(out, kind, *_args(key, counter))
    else:  # float16: computed in float32, then rounded as TF's Eigen::half(float)
        wide = np.empty(out.size, np.float32)
        _fill32(wide, UNIFORM_HALF if kind == UNIFORM else kind, *_args(key, counter))
        out[...] = wide


def fill_int(out: np.ndarray, minval: int, maxval: int, key: int, counter: int) -> None:
    """Fills the int32 or int64 vector ``out`` in place with uniform integers in
    ``[minval, maxval)`` (``minval < maxval``) from the Philox stream with ``key`` at
    ``counter``, as TF's ``RandomUniformInt`` kernel."""
    bits = out.dtype.itemsize * 8
    mod = 1 << bits
    view = out.view(np.uint64 if bits == 64 else np.uint32)
    span = np.uint64((maxval - minval) % mod)
    _fill_int(view, bits == 64, *_args(key, counter), np.uint64(minval % mod), span)
