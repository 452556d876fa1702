"""Numbers from byte strings by TF's rules, vectorized over many fields at once.

``decode_csv`` and ``string_to_number`` share these rules (TF's ``safe_strto32/64``
and ``safe_strtof/d``): ASCII whitespace around the number is allowed; integers are
decimal with an optional sign and must fit the type; floats take decimal and exponent
forms, C99 hex floats (``0x1p3``), ``inf``/``infinity``/``nan`` in any case, and round
correctly to the target type (``1e40`` is ``inf`` in float32, not an error).

The fields are given as ``(buf, starts, lens)``: one ``uint8`` buffer and the offset
and length of every field in it. A whole batch is parsed by one compiled loop
(``_parse_ints`` / ``_parse_floats``, numba, without the GIL, so parallel input
threads parse on all cores) for the fields it can decide exactly: a sign, decimal
digits, a dot and an exponent, whose value is an integer of at most 18 digits, or for
floats a decimal ``m * 10**e`` with ``m < 2**53`` and ``|e| <= 22`` (Clinger's fast
path: ``m`` and ``10**|e|`` are exact doubles, so one multiplication or division
rounds correctly; a float32 is that double rounded again unless the double lies on a
float32 midpoint). Any other field (spaces, hex, ``inf``/``nan``, long mantissas,
large exponents, malformed or out-of-range numbers) goes through ``parse_scalar``, the
reference rules, one at a time.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from .. import dtypes as _dt
from .._core.jit import compiled, inlined

__all__ = [
    "parse_fields",
    "parse_groups",
    "parse_scalar",
    "fields_of",
    "warm_up_parsers",
    "TF_TYPE_NAME",
    "INT_RANGE",
]

TF_TYPE_NAME = {_dt.float32: "float", _dt.float64: "double", _dt.int32: "int32", _dt.int64: "int64"}
INT_RANGE = {_dt.int32: (-(2**31), 2**31 - 1), _dt.int64: (-(2**63), 2**63 - 1)}
_WS = b" \t\n\r\x0b\x0c"
_INF_NAN = {b"inf": float("inf"), b"infinity": float("inf"), b"nan": float("nan")}
# float32's largest value and the midpoint between it and 2**128: a decimal below the
# midpoint rounds to the largest float32, not to inf.
_F32_MAX = float(np.finfo(np.float32).max)
_F32_OVERFLOW = Fraction(2**128 - 2**103)


def parse_scalar(text: bytes, dtype):
    """The value of one field by TF's rules; ValueError if it is not a valid ``dtype``."""
    s = text.strip(_WS)
    if not s or b"_" in s:
        raise ValueError(text)
    if dtype.is_integer:
        if not (s[1:] if s[:1] in (b"+", b"-") else s).isdigit():
            raise ValueError(text)
        iv = int(s)
        lo, hi = INT_RANGE[dtype]
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
    if np.isinf(f) and not np.isinf(v):
        return _F32_MAX if abs(exact) < _F32_OVERFLOW else float(f)
    if np.isinf(f) or float(f) == v:
        return float(f)
    with np.errstate(over="ignore"):
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


def parse_fields(
    buf: np.ndarray,
    starts: np.ndarray,
    lens: np.ndarray,
    dtype,
    take: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Parses every field (or every field of ``take``) as ``dtype``.

    Args:
      buf: the ``uint8`` buffer holding the fields.
      starts: 1-D offsets of the fields in ``buf``.
      lens: 1-D lengths of the fields.
      dtype: float32, float64, int32 or int64.
      take: an optional bool mask of the fields to parse; the others are left 0.

    Returns:
      ``(values, bad)``: the values (``dtype``'s numpy type, 1-D) and a bool mask of
      the parsed fields that are not valid numbers (their values are 0).
    """
    mask = np.ones(starts.size, dtype=bool) if take is None else take
    return parse_groups(buf, starts, lens, {dtype: mask})[dtype]


def parse_groups(buf: np.ndarray, starts: np.ndarray, lens: np.ndarray, groups: dict) -> dict:
    """``parse_fields`` for several dtypes at once: ``groups`` maps each dtype to the
    bool mask of the fields to parse as that dtype; returns ``{dtype: (values, bad)}``
    where ``values`` is 0 at the fields of other groups."""
    n = starts.size
    starts = np.ascontiguousarray(starts, dtype=np.int64)
    lens = np.ascontiguousarray(lens, dtype=np.int64)
    got = {}
    for dtype, todo in groups.items():
        todo = np.ascontiguousarray(todo, dtype=bool)
        ok = np.zeros(n, dtype=bool)
        if dtype.is_integer:
            vals = np.zeros(n, dtype=np.int64)
            lo, hi = INT_RANGE[dtype]
            _parse_ints(buf, starts, lens, todo, lo, hi, vals, ok)
        else:
            vals = np.zeros(n, dtype=np.float64)
            _parse_floats(buf, starts, lens, todo, dtype is _dt.float32, _POW10, vals, ok)
        out = vals.astype(dtype.np)
        bad = np.zeros(n, dtype=bool)
        for i in np.flatnonzero(todo & ~ok).tolist():
            s = int(starts[i])
            try:
                out[i] = parse_scalar(buf[s : s + int(lens[i])].tobytes(), dtype)
            except (ValueError, OverflowError):
                bad[i] = True
        got[dtype] = out, bad
    return got


def warm_up_parsers() -> None:
    """The compiled parsers run once on tiny inputs (``_core/jit.warm_up``'s job)."""
    for dtype in (_dt.int64, _dt.float64):
        parse_fields(*fields_of([b"1"]), dtype)


_POW10 = np.array([float(10**k) for k in range(23)])  # exact doubles
_F32_MIN_NORMAL = float(np.finfo(np.float32).tiny)


@inlined
def _sign(buf, j, end):
    """``(negative, j)`` past an optional ``+`` or ``-`` at ``buf[j]``."""
    neg = False
    if j < end and (buf[j] == 43 or buf[j] == 45):
        neg = buf[j] == 45
        j += 1
    return neg, j


@inlined
def _mantissa_digits(buf, j, end, m, nd):
    """Reads the decimal digits from ``buf[j]`` on into the mantissa ``m`` of ``nd``
    significant digits (leading zeros are not significant; past 18, ``nd`` still counts
    but ``m`` no longer grows): ``(j, m, nd, digits read)``."""
    start = j
    while j < end and 48 <= buf[j] <= 57:
        if m != 0 or buf[j] != 48:
            nd += 1
            if nd <= 18:
                m = m * 10 + (np.int64(buf[j]) - 48)
        j += 1
    return j, m, nd, j - start


@compiled
def _parse_ints(buf, starts, lens, todo, lo, hi, vals, ok):
    """Sets ``vals[i]`` and ``ok[i]`` for each field of ``todo`` that is a sign and 1 to
    18 decimal digits within ``[lo, hi]``; leaves the others (not ``ok``)."""
    for i in range(starts.size):
        if not todo[i]:
            continue
        end = starts[i] + lens[i]
        neg, j = _sign(buf, starts[i], end)
        if j == end or end - j > 18:
            continue
        v = np.int64(0)
        while j < end:
            d = np.int64(buf[j]) - 48
            if d < 0 or d > 9:
                break
            v = v * 10 + d
            j += 1
        if j != end:
            continue
        if neg:
            v = -v
        if lo <= v <= hi:
            vals[i] = v
            ok[i] = True


@compiled
def _parse_floats(buf, starts, lens, todo, single, pow10, vals, ok):
    """Sets ``vals[i]`` (a double, exactly the float32 value when ``single``) and
    ``ok[i]`` for each field of ``todo`` whose correctly rounded value the fast path
    decides (module docstring); leaves the others (not ``ok``)."""
    for i in range(starts.size):
        if not todo[i]:
            continue
        end = starts[i] + lens[i]
        neg, j = _sign(buf, starts[i], end)
        e = 0
        whole = True
        j, m, nd, digits = _mantissa_digits(buf, j, end, np.int64(0), 0)
        if nd > 18:
            continue
        if j < end and buf[j] == 46:
            whole = False
            j, m, nd, frac = _mantissa_digits(buf, j + 1, end, m, nd)
            digits += frac
            e -= frac
            if nd > 18:
                continue
        if digits == 0:
            continue
        if j < end and (buf[j] == 101 or buf[j] == 69):
            whole = False
            j += 1
            eneg = False
            if j < end and (buf[j] == 43 or buf[j] == 45):
                eneg = buf[j] == 45
                j += 1
            x = 0
            start = j
            while j < end and 48 <= buf[j] <= 57:
                if x < 100000:
                    x = x * 10 + (buf[j] - 48)
                j += 1
            if j == start:
                continue
            e += -x if eneg else x
        if j != end:
            continue
        if m == 0:
            v = 0.0
        elif whole:  # an integer: one rounding from int64, in the target's precision
            v = np.float64(np.float32(m)) if single else np.float64(m)
        elif m <= 9007199254740992 and -22 <= e <= 22:
            v = np.float64(m) * pow10[e] if e >= 0 else np.float64(m) / pow10[-e]
            if single:
                if v > 3.4028234663852886e38 or v < _F32_MIN_NORMAL:
                    continue  # float32 overflow or subnormal: the reference decides
                f = np.float32(v)
                back = np.float64(f)
                if back != v:
                    other = np.nextafter(f, np.float32(np.inf if v > back else -np.inf))
                    if (back + np.float64(other)) * 0.5 == v:
                        continue  # on a float32 midpoint: double rounding may be wrong
                v = back
        else:
            continue
        vals[i] = -v if neg else v
        ok[i] = True
