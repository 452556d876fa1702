"""Numbers from byte strings by TF's rules, vectorized over many fields at once.

``decode_csv`` and ``string_to_number`` share these rules (TF's ``safe_strto32/64``
and ``safe_strtof/d``): ASCII whitespace around the number is allowed; integers are
decimal with an optional sign and must fit the type; floats take decimal and exponent
forms, C99 hex floats (``0x1p3``), ``inf``/``infinity``/``nan`` in any case, and round
correctly to the target type (``1e40`` is ``inf`` in float32, not an error).

The fields are given as ``(buf, starts, lens)``: one ``uint8`` buffer and the offset
and length of every field in it, in buffer order. A whole batch is parsed by ONE
call of Apache Arrow's string-to-number cast (C++, correctly rounded straight to the
target type, run with the GIL released, so parallel input threads parse on all cores)
over an Arrow array laid on the buffer without copying it. The rule for what Arrow
parses: every non-empty field made only of the characters ``0-9 + - . e E``. On that
alphabet Arrow accepts exactly what TF accepts and gives the same value (checked
against ``parse_scalar`` in tests/ops/test_numparse.py); anything else (spaces, hex,
``inf``/``nan``, underscores), or a batch Arrow refuses as a whole (a malformed or
out-of-range number), goes field by field through ``parse_scalar``, the reference rules.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from .. import dtypes as _dt

__all__ = ["parse_fields", "parse_groups", "parse_scalar", "fields_of", "TF_TYPE_NAME", "INT_RANGE"]

TF_TYPE_NAME = {_dt.float32: "float", _dt.float64: "double", _dt.int32: "int32", _dt.int64: "int64"}
INT_RANGE = {_dt.int32: (-(2**31), 2**31 - 1), _dt.int64: (-(2**63), 2**63 - 1)}
_WS = b" \t\n\r\x0b\x0c"
_INF_NAN = {b"inf": float("inf"), b"infinity": float("inf"), b"nan": float("nan")}
# The bytes of the fields Arrow parses (see the module docstring).
# Byte classes: a digit, a sign, dot or exponent letter, any other byte, a separator.
_DIGIT, _SIGN_DOT_EXP, _OTHER, _SEP = 0, 1, 2, 3
_CLASS = np.full(256, _OTHER, dtype=np.uint8)
_CLASS[np.frombuffer(b"0123456789", np.uint8)] = _DIGIT
_CLASS[np.frombuffer(b"+-.eE", np.uint8)] = _SIGN_DOT_EXP
_CLASSES: dict = {b"": _CLASS}  # by separator bytes: _CLASS with those bytes _SEP
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
    seps: bytes = b"",
) -> tuple[np.ndarray, np.ndarray]:
    """Parses every field (or every field of ``take``) as ``dtype``.

    Args:
      buf: the ``uint8`` buffer holding the fields.
      starts: 1-D offsets of the fields in ``buf``, in buffer order: each field starts
        at or after the end of the one before.
      lens: 1-D lengths of the fields.
      dtype: float32, float64, int32 or int64.
      take: an optional bool mask of the fields to parse; the others are left 0.
      seps: an optional bool mask of the bytes of ``buf`` that lie in no field (the
        separators): it lets one pass over the buffer find that every field is plain.

    Returns:
      ``(values, bad)``: the values (``dtype``'s numpy type, 1-D) and a bool mask of
      the parsed fields that are not valid numbers (their values are 0).
    """
    mask = np.ones(starts.size, dtype=bool) if take is None else take
    return parse_groups(buf, starts, lens, {dtype: mask}, seps)[dtype]


def parse_groups(
    buf: np.ndarray,
    starts: np.ndarray,
    lens: np.ndarray,
    groups: dict,
    seps: bytes = b"",
) -> dict:
    """``parse_fields`` for several dtypes at once: ``groups`` maps each dtype to the
    bool mask of the fields to parse as that dtype; returns ``{dtype: (values, bad)}``
    where ``values`` is unspecified at the fields of other groups. The buffer is
    checked and laid out for Arrow once, then cast once (or once per dtype).

    ``seps`` (optional): the separator bytes. When given, ``buf`` must hold exactly the
    fields in order with one separator byte between neighbours, and no field holds one.
    """
    n = starts.size
    ends = starts + lens
    lut = _CLASSES.get(seps)
    if lut is None:
        lut = _CLASSES[seps] = _CLASS.copy()
        lut[np.frombuffer(seps, np.uint8)] = _SEP
    cls = lut.take(buf)
    # A field is plain when it is not empty and holds no byte outside the alphabet.
    odd = cls == _OTHER
    plain = lens > 0
    if odd.any():
        count = np.zeros(buf.size + 1, dtype=np.int32)
        np.cumsum(odd, out=count[1:])
        plain &= count[ends] == count[starts]
    # Without a sign, dot or exponent anywhere, the plain fields are whole numbers of at
    # most 18 digits: exact as int64, which Arrow parses twice as fast as floats. ONE
    # cast to int64 then serves every group: a float type is converted from it (the one
    # correct rounding strtof would do), an int32 is range-checked.
    whole = not (cls == _SIGN_DOT_EXP).any() and int(lens.max(initial=0)) <= 18
    layout = None
    ints: Any = False  # not parsed yet
    got = {}
    for dtype, todo in groups.items():
        which = todo & plain
        out = None
        if which.any():
            if layout is None:
                layout = _arrow_layout(buf, starts, ends, seps)
            if whole:
                if ints is False:
                    union = plain & np.logical_or.reduce(list(groups.values()))
                    every = layout[4] == 1 and union.all()
                    ints = _arrow_parse(layout, None if every else union, _dt.int64)
                out = None if ints is None else _from_int64(ints, dtype, which)
            else:
                out = _arrow_parse(layout, which, dtype)
        if out is None:  # nothing plain, or Arrow refused a field: the reference decides
            out = np.zeros(n, dtype=dtype.np)
            which = np.zeros(n, dtype=bool)
        bad = np.zeros(n, dtype=bool)
        for i in np.flatnonzero(todo & ~which).tolist():
            s = int(starts[i])
            try:
                out[i] = parse_scalar(buf[s : s + int(lens[i])].tobytes(), dtype)
            except (ValueError, OverflowError):
                bad[i] = True
        got[dtype] = out, bad
    return got


def _from_int64(ints: np.ndarray, dtype, which: np.ndarray) -> np.ndarray | None:
    """``ints`` as ``dtype`` (a new array); None when an int32 field of ``which`` is out
    of range."""
    if dtype is _dt.int32:
        vals = ints[which]
        if vals.size and (vals.min() < -(2**31) or vals.max() > 2**31 - 1):
            return None
    return ints.astype(dtype.np)


_ARROW: list = []  # [pyarrow, pyarrow.compute, {dtype: CastOptions}], imported on first use


def _arrow():
    if not _ARROW:
        import pyarrow as pa
        import pyarrow.compute as pc

        casts = {
            t: pc.CastOptions.safe(at)
            for t, at in [
                (_dt.float32, pa.float32()),
                (_dt.float64, pa.float64()),
                (_dt.int32, pa.int32()),
                (_dt.int64, pa.int64()),
            ]
        }
        _ARROW[:] = [pa, pc, casts]
    return _ARROW


def _arrow_layout(buf, starts, ends, seps: bytes):
    """``(type, length, offsets, data, step)``: the buffers of an Arrow binary array
    holding the fields. Field ``i`` is element ``i * step``: when the fields tile
    ``buf`` (or do so apart from the separators ``seps``, then dropped in one copy) the
    array is the fields (``step`` 1); else it alternates the fields and the gaps between
    them, on ``buf`` itself (offsets ``start0, end0, start1, end1, ...``; ``step`` 2)."""
    pa = _arrow()[0]
    n = starts.size
    small = buf.size < 2**31
    itype = np.int32 if small else np.int64
    lens = ends - starts
    if seps or int(lens.sum()) == int(ends[-1] - starts[0]):
        data = buf.tobytes().translate(None, seps) if seps else buf[starts[0] : ends[-1]]
        offsets = np.empty(n + 1, dtype=itype)
        offsets[0] = 0
        np.cumsum(lens, out=offsets[1:])
        step = 1
    else:
        data = buf
        offsets = np.empty(2 * n, dtype=itype)
        offsets[0::2] = starts
        offsets[1::2] = ends
        step = 2
    kind = pa.binary() if small else pa.large_binary()
    return kind, offsets.size - 1, pa.py_buffer(offsets), pa.py_buffer(data), step


def _arrow_parse(layout, which: np.ndarray | None, dtype) -> np.ndarray | None:
    """The values of the fields of ``which`` (a new array; other fields unspecified) by
    one Arrow cast over ``layout`` (``_arrow_layout``), whose validity bitmap marks only
    those fields, so the cast skips the others. ``which`` None: every field (the layout
    must then be of the fields alone). None when Arrow refuses one of the fields."""
    pa, pc, casts = _arrow()
    kind, length, offsets, data, step = layout
    if which is None:
        bitmap = None
    else:
        valid = np.zeros(length, dtype=bool)
        valid[0::step] = which
        bitmap = pa.py_buffer(np.packbits(valid, bitorder="little"))
    arr = pa.Array.from_buffers(kind, length, [bitmap, offsets, data])
    try:
        got = pc.call_function("cast", [arr], casts[dtype])
    except pa.ArrowInvalid:
        return None
    # A copy: writable, and no Arrow buffer kept alive.
    return np.frombuffer(got.buffers()[1], dtype=dtype.np, count=length)[0::step].copy()
