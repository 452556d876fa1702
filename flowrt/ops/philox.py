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

__all__ = ["fill_float", "fill_int", "stateless_key", "UNIFORM", "NORMAL", "TRUNCATED"]

_M32 = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)
_MUL_A = np.uint64(0xD2511F53)  # Philox4x32 round multipliers
_MUL_B = np.uint64(0xCD9E8D57)
_KEY_A = np.uint64(0x9E3779B9)  # Weyl key increments per round
_KEY_B = np.uint64(0xBB67AE85)
_M23 = np.uint64(0x7FFFFF)  # a float32 mantissa
_M20 = np.uint64(0xFFFFF)  # the upper 20 bits of a float64 mantissa
_M10 = np.uint64(0x3FF)  # a float16 mantissa
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


@inlined(always=True)
def _philox(lo, hi, k0, k1):
    """The four words (uint64 each below 2**32) of Philox4x32-10 for counter ``hi:lo``
    (two uint64 halves) and key ``k1:k0``: ten rounds, the key raised by a Weyl step
    between them. Written out, not looped: numba inlines no helper with a loop."""
    c0, c1, c2, c3 = lo & _M32, lo >> _S32, hi & _M32, hi >> _S32
    a, b = k0, k1
    p0, p1 = _MUL_A * c0, _MUL_B * c2
    c0, c1, c2, c3 = (p1 >> _S32) ^ c1 ^ a, p1 & _M32, (p0 >> _S32) ^ c3 ^ b, p0 & _M32
    a, b = (a + _KEY_A) & _M32, (b + _KEY_B) & _M32
    p0, p1 = _MUL_A * c0, _MUL_B * c2
    c0, c1, c2, c3 = (p1 >> _S32) ^ c1 ^ a, p1 & _M32, (p0 >> _S32) ^ c3 ^ b, p0 & _M32
    a, b = (a + _KEY_A) & _M32, (b + _KEY_B) & _M32
    p0, p1 = _MUL_A * c0, _MUL_B * c2
    c0, c1, c2, c3 = (p1 >> _S32) ^ c1 ^ a, p1 & _M32, (p0 >> _S32) ^ c3 ^ b, p0 & _M32
    a, b = (a + _KEY_A) & _M32, (b + _KEY_B) & _M32
    p0, p1 = _MUL_A * c0, _MUL_B * c2
    c0, c1, c2, c3 = (p1 >> _S32) ^ c1 ^ a, p1 & _M32, (p0 >> _S32) ^ c3 ^ b, p0 & _M32
    a, b = (a + _KEY_A) & _M32, (b + _KEY_B) & _M32
    p0, p1 = _MUL_A * c0, _MUL_B * c2
    c0, c1, c2, c3 = (p1 >> _S32) ^ c1 ^ a, p1 & _M32, (p0 >> _S32) ^ c3 ^ b, p0 & _M32
    a, b = (a + _KEY_A) & _M32, (b + _KEY_B) & _M32
    p0, p1 = _MUL_A * c0, _MUL_B * c2
    c0, c1, c2, c3 = (p1 >> _S32) ^ c1 ^ a, p1 & _M32, (p0 >> _S32) ^ c3 ^ b, p0 & _M32
    a, b = (a + _KEY_A) & _M32, (b + _KEY_B) & _M32
    p0, p1 = _MUL_A * c0, _MUL_B * c2
    c0, c1, c2, c3 = (p1 >> _S32) ^ c1 ^ a, p1 & _M32, (p0 >> _S32) ^ c3 ^ b, p0 & _M32
    a, b = (a + _KEY_A) & _M32, (b + _KEY_B) & _M32
    p0, p1 = _MUL_A * c0, _MUL_B * c2
    c0, c1, c2, c3 = (p1 >> _S32) ^ c1 ^ a, p1 & _M32, (p0 >> _S32) ^ c3 ^ b, p0 & _M32
    a, b = (a + _KEY_A) & _M32, (b + _KEY_B) & _M32
    p0, p1 = _MUL_A * c0, _MUL_B * c2
    c0, c1, c2, c3 = (p1 >> _S32) ^ c1 ^ a, p1 & _M32, (p0 >> _S32) ^ c3 ^ b, p0 & _M32
    a, b = (a + _KEY_A) & _M32, (b + _KEY_B) & _M32
    p0, p1 = _MUL_A * c0, _MUL_B * c2
    c0, c1, c2, c3 = (p1 >> _S32) ^ c1 ^ a, p1 & _M32, (p0 >> _S32) ^ c3 ^ b, p0 & _M32
    return c0, c1, c2, c3


@inlined(always=True)
def _at(lo, hi, g):
    """The 128-bit counter ``hi:lo`` advanced by ``g`` (a group's index, below 2**63)."""
    c = lo + np.uint64(g)
    return c, hi + np.uint64(c < lo)


@inlined(always=True)
def _unit32(x):
    """TF's ``Uint32ToFloat``: the low 23 bits as a float32 in [0, 1)."""
    return np.float32(np.int64(x & _M23)) * np.float32(1.0 / 8388608.0)


@inlined(always=True)
def _unit16(x):
    """TF's ``Uint16ToHalf``: the low 10 bits in [0, 1), exact in float32."""
    return np.float32(np.int64(x & _M10)) * np.float32(1.0 / 1024.0)


@inlined(always=True)
def _unit64(x0, x1):
    """TF's ``Uint64ToDouble``: 20 bits of ``x0`` and ``x1`` as a float64 in [0, 1)."""
    return np.float64(np.int64(((x0 & _M20) << _S32) | x1)) * (1.0 / 4503599627370496.0)


@inlined(always=True)
def _box_muller32(x0, x1):
    """TF's ``BoxMullerFloat``: two float32 normal values from two words."""
    u1 = max(_unit32(x0), _EPS32)  # no log(0)
    v1 = np.float32(_TWO_PI * np.float64(_unit32(x1)))
    u2 = np.sqrt(_MINUS_TWO32 * np.log(u1))
    return np.sin(v1) * u2, np.cos(v1) * u2


@inlined(always=True)
def _box_muller64(x0, x1, x2, x3):
    """TF's ``BoxMullerDouble``: two float64 normal values from four words."""
    u1 = max(_unit64(x0, x1), 1.0e-7)  # no log(0)
    v1 = _TWO_PI * _unit64(x2, x3)
    u2 = np.sqrt(-2.0 * np.log(u1))
    return np.sin(v1) * u2, np.cos(v1) * u2


@compiled
def _fill32(out, kind, k0, k1, lo, hi):
    """Fills the float32 vector ``out`` with fill ``kind`` of the stream at ``hi:lo``:
    group ``g`` of four values from the call at ``start + g`` (``start + 256 g`` on for a
    truncated normal, as many calls as its rejections take)."""
    n = out.size
    full = 0
    # Whole groups of the plain fills in loops of their own: 2-4x faster than the general
    # loop below (which fills the rest: a truncated normal's groups, a partial group).
    if kind == UNIFORM:
        full = n // 4
        for g in range(full):
            clo, chi = _at(lo, hi, g)
            w0, w1, w2, w3 = _philox(clo, chi, k0, k1)
            out[4 * g] = _unit32(w0)
            out[4 * g + 1] = _unit32(w1)
            out[4 * g + 2] = _unit32(w2)
            out[4 * g + 3] = _unit32(w3)
    elif kind == NORMAL:
        full = n // 4
        for g in range(full):
            clo, chi = _at(lo, hi, g)
            w0, w1, w2, w3 = _philox(clo, chi, k0, k1)
            f0, f1 = _box_muller32(w0, w1)
            f2, f3 = _box_muller32(w2, w3)
            out[4 * g] = f0
            out[4 * g + 1] = f1
            out[4 * g + 2] = f2
            out[4 * g + 3] = f3
    stride = _SKIP_TRUNCATED if kind == TRUNCATED else 1
    for g in range(full, (n + 3) // 4):
        clo, chi = _at(lo, hi, g * stride)
        j = 4 * g
        end = min(j + 4, n)
        while j < end:
            w0, w1, w2, w3 = _philox(clo, chi, k0, k1)
            clo, chi = _at(clo, chi, 1)
            if kind == UNIFORM or kind == UNIFORM_HALF:
                w = (w0, w1, w2, w3)
                for i in range(end - j):
                    out[j + i] = _unit32(w[i]) if kind == UNIFORM else _unit16(w[i])
                j = end
            else:
                for p in range(2):
                    f0, f1 = _box_muller32(w0 if p == 0 else w2, w1 if p == 0 else w3)
                    if (kind == NORMAL or abs(f0) < _TRUNCATE32) and j < end:
                        out[j] = f0
                        j += 1
                    if (kind == NORMAL or abs(f1) < _TRUNCATE32) and j < end:
                        out[j] = f1
                        j += 1


@compiled
def _fill64(out, kind, k0, k1, lo, hi):
    """Fills the float64 vector ``out`` with fill ``kind`` of the stream at ``hi:lo``:
    group ``g`` of two values from the call at ``start + g`` (``start + 128 g`` on for a
    truncated normal)."""
    n = out.size
    full = 0
    if kind == UNIFORM:  # whole groups in loops of their own, as in _fill32
        full = n // 2
        for g in range(full):
            clo, chi = _at(lo, hi, g)
            w0, w1, w2, w3 = _philox(clo, chi, k0, k1)
            out[2 * g] = _unit64(w0, w1)
            out[2 * g + 1] = _unit64(w2, w3)
    elif kind == NORMAL:
        full = n // 2
        for g in range(full):
            clo, chi = _at(lo, hi, g)
            w0, w1, w2, w3 = _philox(clo, chi, k0, k1)
            d0, d1 = _box_muller64(w0, w1, w2, w3)
            out[2 * g] = d0
            out[2 * g + 1] = d1
    stride = _SKIP_TRUNCATED // 2 if kind == TRUNCATED else 1
    for g in range(full, (n + 1) // 2):
        clo, chi = _at(lo, hi, g * stride)
        j = 2 * g
        end = min(j + 2, n)
        while j < end:
            w0, w1, w2, w3 = _philox(clo, chi, k0, k1)
            clo, chi = _at(clo, chi, 1)
            if kind == UNIFORM:
                d0, d1 = _unit64(w0, w1), _unit64(w2, w3)
            else:
                d0, d1 = _box_muller64(w0, w1, w2, w3)
            if (kind != TRUNCATED or abs(d0) < 2.0) and j < end:
                out[j] = d0
                j += 1
            if (kind != TRUNCATED or abs(d1) < 2.0) and j < end:
                out[j] = d1
                j += 1


@compiled
def _fill_int(out, wide, k0, k1, lo, hi, base, span):
    """Fills ``out`` (the unsigned view of an int32 or int64 vector; ``wide`` for int64)
    with ``base + word % span`` modulo its width: TF's ``UniformDistribution`` for ints,
    one word per int32, two per int64 (low word first). ``span`` 0 stands for the whole
    width: the words themselves (TF's ``UniformFullIntDistribution``)."""
    n = out.size
    per = 2 if wide else 4
    for g in range((n + per - 1) // per):
        clo, chi = _at(lo, hi, g)
        w = _philox(clo, chi, k0, k1)
        j = per * g
        for i in range(min(per, n - j)):
            if wide:
                bits = w[2 * i] | (w[2 * i + 1] << _S32)
                out[j + i] = base + (bits % span if span else bits)
            else:
                out[j + i] = (base + (w[i] % span if span else w[i])) & _M32


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
    ``counter``, as TF's ``RandomUniformInt`` kernel; ``maxval - minval`` equal to the
    dtype's range (2**32 or 2**64) draws the whole range, as ``...FullInt``."""
    bits = out.dtype.itemsize * 8
    mod = 1 << bits
    view = out.view(np.uint64 if bits == 64 else np.uint32)
    span = np.uint64((maxval - minval) % mod)
    _fill_int(view, bits == 64, *_args(key, counter), np.uint64(minval % mod), span)


def stateless_key(seed0: int, seed1: int) -> tuple[int, int]:
    """The key and counter of a stateless op with seed ``[seed0, seed1]`` (TF's
    ``GenerateKey``): one Philox call on counter ``seed1:seed0`` (64 bits each, negative
    seeds as two's complement) with a fixed key scrambles them, so that either seed
    alone may be weak; its first two words are the key, its last two the counter's
    upper half."""
    u, m = np.uint64, (1 << 64) - 1
    w = [int(x) for x in _philox(u(seed0 & m), u(seed1 & m), u(0x3EC8F720), u(0x02461E29))]
    return w[0] | w[1] << 32, (w[2] | w[3] << 32) << 64
