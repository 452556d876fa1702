"""Numbers from byte strings by TF's rules, vectorized over many fields at once.

``decode_csv`` and ``string_to_number`` share these rules (TF's ``safe_strto32/64``
and ``safe_strtof/d``): ASCII whitespace around the number is allowed; integers are
decimal with an optional sign and must fit the type; floats take decimal and exponent
forms, C99 hex floats (``0x1p3``), ``inf``/``infinity``/``nan`` in any case, and round
correctly to the target type (``1e40`` is ``inf`` in float32, not an error).

The fields are given as ``(buf, starts, lens)``: one ``uint8`` buffer and the offset
and length of every field in it, so a whole batch of records is parsed by a few numpy
operations on a padded character matrix (they release the GIL) instead of a Python
call per field. Fields of the common shapes (``-12``, ``3.25``: at most 15 digits, no
exponent, no spaces) are computed exactly there; the rest go one by one through
``parse_scalar``, the reference rules.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from .. import dtypes as _dt

__all__ = ["parse_fields", "parse_scalar", "fields_of", "digit_values", "TF_TYPE_NAME"]

TF_TYPE_NAME = {_dt.float32: "float", _dt.float64: "double", _dt.int32: "int32", _dt.int64: "int64"}
_INT_RANGE = {_dt.int32: (-(2**31), 2**31 - 1), _dt.int64: (-(2**63), 2**63 - 1)}
_WS = b" \t\n\r\x0b\x0c"
_INF_NAN = {b"inf": float("inf"), b"infinity": float("inf"), b"nan": float("nan")}
# Fields wider than this (rare: long mantissas, padding) go through parse_scalar.
_FAST_WIDTH = 18
_P10_INT = np.array([10**k for k in range(19)], dtype=np.int64)
_P10_F64 = np.array([10.0**k for k in range(19)], dtype=np.float64)


def parse_scalar(text: bytes, dtype):
    """The value of one field by TF's rules; ValueError if it is not a valid ``dtype``."""
    s = text.strip(_WS)
    if not s or b"_" in s:
        raise ValueError(text)
    if dtype.is_integer:
        if not (s[1:] if s[:1] in (b"+", b"-") else s).isdigit():
            raise ValueError(text)
        iv = int(s)
        lo, hi = _INT_RANGE[dtype]
        if not lo <= iv <= hi:
            raise ValueError(text)
        return iv
    body = s.lstrip(b"+-")
    if len(s) - len(body) > 1:
        raise ValueError(text)
    neg = s[:1] == b"-"
    low = body.lower()
    if low in _INF_NAN:
        v = _INF_NAN[low]
        return -v if neg else v
    if not low or not low[:1].isalnum() and low[:1] != b".":
        raise ValueError(text)
    if low.startswith(b"0x"):
        v = float.fromhex(low.decode("ascii"))  # raises ValueError when malformed
        if dtype is _dt.float32:
            v = _to_float32(v, Fraction(*v.as_integer_ratio()))
        return -v if neg else v
    if not all(c in b"0123456789.eE+-" for c in low):
        raise ValueError(text)  # float() would take "nan"/"inf" spellings TF refuses
    v = float(low)
    if dtype is _dt.float32 and v != 0.0 and np.isfinite(v):
        v = _to_float32(v, Fraction(low.decode("ascii")))
    return -v if neg else v


def _to_float32(v: float, exact: Fraction) -> float:
    """``exact`` rounded to float32, given its float64 rounding ``v``: correct even when
    ``v`` falls exactly halfway between two float32 values (double rounding)."""
    with np.errstate(over="ignore"):
        f = np.float32(v)
    if np.isinf(f) or float(f) == v:
        return float(f)
    other = np.nextafter(f, np.float32(np.inf if v > float(f) else -np.inf))
    if np.isinf(other):
        return float(f)  # beyond the largest float32: numpy's cast decides overflow
    mid = (Fraction(float(f)) + Fraction(float(other))) / 2
    if Fraction(v) != mid or exact == mid:
        return float(f)  # not a tie in float64, or a true tie (numpy rounds to even)
    return float(f) if (exact < mid) == (float(f) < float(other)) else float(other)


def fields_of(strings) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(buf, starts, lens)`` of a sequence of ``bytes``, laid end to end."""
    lens = np.fromiter(map(len, strings), dtype=np.int64, count=len(strings))
    starts = np.cumsum(lens) - lens
    buf = np.frombuffer(b"".join(strings), dtype=np.uint8)
    return buf, starts, lens


def parse_fields(buf: np.ndarray, starts: np.ndarray, lens: np.ndarray, dtype):
    """Parses every field as ``dtype``.

    Returns:
      ``(values, bad)``: the values (``dtype``'s numpy type, the shape of ``starts``)
      and a bool mask of the fields that are not valid numbers (their values are 0).
    """
    shape = starts.shape
    starts, lens = starts.reshape(-1), lens.reshape(-1)
    out = np.zeros(starts.shape, dtype=dtype.np)
    bad = np.zeros(starts.shape, dtype=bool)
    if starts.size:
        slow = _parse_fast(buf, starts, lens, dtype, out)
        for i in np.flatnonzero(slow):
            s = int(starts[i])
            try:
                out[i] = parse_scalar(buf[s : s + int(lens[i])].tobytes(), dtype)
            except (ValueError, OverflowError):
                bad[i] = True
    return out.reshape(shape), bad.reshape(shape)


def _parse_fast(buf, starts, lens, dtype, out) -> np.ndarray:
    """Fills ``out`` where the field has a plain shape; returns the mask of the rest.

    The fields are read right-aligned into a ``[width, fields]`` character matrix (one
    row per character position, so every operation runs along the fields; positions
    before a field's start are zeroed), and the digits are accumulated by Horner's
    rule, a row at a time. A dot counts as a zero digit, then the digits left of it
    are shifted down by one place. Signs and dots are only looked for when the buffer
    has any.
    """
    width = min(int(lens.max()), _FAST_WIDTH)
    if width == 0:
        return np.ones(starts.shape, dtype=bool)
    text = buf.tobytes()
    cols = np.arange(width)[:, None]
    padded = np.concatenate([np.zeros(width, np.uint8), buf])
    lead = width - lens
    ch = padded[starts + lens + cols]  # buf[end - width + j] is padded[end + j]
    ch *= cols >= lead
    d = ch - np.uint8(48)
    digit = d < 10
    ndig = np.add.reduce(digit, axis=0, dtype=np.int64)
    nvalid = ndig.copy()
    ok = (ndig >= 1) & (lens <= width)
    neg = None
    if b"-" in text or b"+" in text:
        sign = (ch == 43) | (ch == 45)
        nsign = np.add.reduce(sign, axis=0, dtype=np.int64)
        first = ch[np.minimum(np.maximum(lead, 0), width - 1), np.arange(ch.shape[1])]
        ok &= nsign == ((first == 43) | (first == 45))  # one sign, in front
        nvalid += nsign
        neg = first == 45
    ndot = None
    if b"." in text:
        dot = ch == 46
        ndot = np.add.reduce(dot, axis=0, dtype=np.int64)
        nvalid += ndot
    ok &= nvalid == lens  # nothing but digits, a sign, dots
    d *= digit
    whole = d[0].astype(np.int64)
    for j in range(1, width):
        whole *= 10
        whole += d[j]
    if dtype.is_integer:
        if ndot is not None:
            ok &= ndot == 0
        val = whole if neg is None else np.where(neg, -whole, whole)
        if dtype is _dt.int32:
            ok &= (val >= -(2**31)) & (val <= 2**31 - 1)
        np.copyto(out, val, where=ok, casting="unsafe")
        return ~ok
    ok &= ndig <= 15
    mant = whole
    if ndot is not None:
        ok &= ndot <= 1
        k = np.where(ndot == 1, width - 1 - np.argmax(dot, axis=0), 0)
        frac = whole % _P10_INT[k]
        mant = np.where(ndot == 1, (whole - frac) // 10 + frac, whole)
        # Exact (one rounding): mantissa and 10**k are exact doubles (< 2**53, k <= 15).
        val = mant / _P10_F64[k]
    else:
        val = mant.astype(np.float64)  # exact: < 10**15
    if dtype is _dt.float32 and ndot is not None:
        # One rounding to float32 from the double is exact unless the double lies
        # exactly halfway between two float32 values: those go the exact way.
        bits = val.view(np.uint64) & np.uint64((1 << 29) - 1)
        ok &= (bits != np.uint64(1 << 28)) | (mant == 0)
    if neg is not None:
        val = np.where(neg, -val, val)
    np.copyto(out, val, where=ok, casting="unsafe")
    return ~ok


def digit_values(buf: np.ndarray, sep: np.ndarray, starts: np.ndarray, lens: np.ndarray):
    """The values of every field of a buffer that holds only digits and separators.

    ``sep`` marks the separator bytes; every field (``starts``/``lens``, in buffer order)
    must have 1 to 15 digits, so each value is exact as an int64 and as a float64. One
    pass over the buffer: each digit times its place value, summed per field.
    """
    pos = np.arange(buf.size)
    field = np.cumsum(sep)  # a separator counts towards the next field, as a 0
    place = (starts + lens)[np.minimum(field, starts.size - 1)] - 1 - pos
    digits = np.where(sep, 0, buf - np.uint8(48)).astype(np.int64)
    digits *= _P10_INT[np.clip(place, 0, 18)]
    return np.add.reduceat(digits, starts)
