"""numparse: the compiled batch parse agrees with the reference rules (``parse_scalar``,
TF's safe_strto*) on everything it accepts, and defers everything else to them."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import flowrt as fr
from flowrt.ops.numparse import fields_of, parse_fields, parse_groups, parse_scalar

_NUMERIC = [fr.float32, fr.float64, fr.int32, fr.int64]


def _reference(text: bytes, dtype):
    try:
        return parse_scalar(text, dtype), False
    except (ValueError, OverflowError):
        return 0, True


def _assert_same(got, want, text):
    got, want = float(got), float(want)
    if math.isnan(want):
        assert math.isnan(got), text
    else:
        assert got == want and math.copysign(1, got) == math.copysign(1, want), text


def _check_batch(texts, dtype):
    vals, bad = parse_fields(*fields_of(texts), dtype)
    for text, v, b in zip(texts, vals, bad):
        want, want_bad = _reference(text, dtype)
        assert b == want_bad, (text, dtype)
        if not b:
            _assert_same(v, np.array(want, dtype.as_numpy_dtype), text)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.text("0123456789+-.eE", min_size=1, max_size=22), min_size=1, max_size=8),
    st.sampled_from(_NUMERIC),
)
def test_the_fast_paths_alphabet_agrees_with_the_reference(texts, dtype):
    # Every field alone, and the batch.
    encoded = [t.encode() for t in texts]
    for t in encoded:
        _check_batch([t], dtype)
    _check_batch(encoded, dtype)


@settings(max_examples=200, deadline=None)
@given(
    st.floats(allow_nan=False) | st.floats(width=32, allow_nan=False),
    st.sampled_from(["%r", "%.9g", "%.17g", "%.25e", "%.3f"]),
)
def test_float_texts_round_like_the_reference(x, fmt):
    text = (fmt % x).encode()
    for dtype in (fr.float32, fr.float64):
        _check_batch([text], dtype)


@pytest.mark.parametrize(
    "text, dtype, want",
    [
        # Exactly representable below the midpoint between float32's max and 2**128:
        # TF (strtof) and Arrow round to the max; so does the reference now.
        (b"3.4028235677973366e38", fr.float32, float(np.finfo(np.float32).max)),
        (b"340282356779733661637539395458142568448", fr.float32, math.inf),  # the tie
        (b"1e40", fr.float32, math.inf),
        (b"0x10", fr.int32, None),  # hex: never Arrow's (it would take it), TF refuses
        (b" 12 ", fr.int32, 12),  # spaces: the reference's (TF allows them)
        (b"-inf", fr.float64, -math.inf),
        (b"NaN", fr.float32, math.nan),
        (b"0x1p3", fr.float32, 8.0),
        (b"007", fr.int64, 7),
        (b"+5", fr.int32, 5),
        (b"9223372036854775807", fr.int64, 2**63 - 1),
        (b"9223372036854775808", fr.int64, None),
        (b"2147483648", fr.int32, None),
        (b"1.5", fr.int32, None),
        (b".", fr.float32, None),
        (b"", fr.float32, None),
    ],
)
def test_edge_fields(text, dtype, want):
    vals, bad = parse_fields(*fields_of([b"1", text, b"2"]), dtype)
    assert vals[0] == 1 and vals[2] == 2  # the neighbours never depend on the odd one
    if want is None:
        assert bad.tolist() == [False, True, False]
    else:
        assert not bad.any()
        _assert_same(vals[1], np.array(want, dtype.as_numpy_dtype), text)


def test_groups_over_a_separated_buffer():
    text = b"1,2.5,x\n30,-4,y"
    buf = np.frombuffer(text, np.uint8)
    starts = np.array([0, 2, 6, 8, 11, 14])
    lens = np.array([1, 3, 1, 2, 2, 1])
    ints = np.array([1, 0, 0, 1, 0, 0], bool)
    floats = np.array([0, 1, 0, 0, 1, 0], bool)
    got = parse_groups(buf, starts, lens, {fr.int32: ints, fr.float64: floats})
    assert got[fr.int32][0][ints].tolist() == [1, 30]
    assert got[fr.float64][0][floats].tolist() == [2.5, -4.0]
    assert not got[fr.int32][1].any() and not got[fr.float64][1].any()
    # Only some fields taken: the others are neither parsed nor bad.
    buf = np.frombuffer(b"1,99999999999,3", np.uint8)
    starts, lens = np.array([0, 2, 14]), np.array([1, 11, 1])
    take = np.array([1, 0, 1], bool)
    got = parse_groups(buf, starts, lens, {fr.int32: take})
    assert got[fr.int32][0][take].tolist() == [1, 3] and not got[fr.int32][1].any()
    got = parse_groups(buf, starts, lens, {fr.int32: ~take})
    assert got[fr.int32][1].tolist() == [False, True, False]  # out of int32's range


def test_float32_on_a_midpoint_of_the_double_rounding_is_decided_by_the_reference():
    # 1 + 2**-24 + 2**-60 rounds to the double 1 + 2**-24, a float32 midpoint: rounding
    # that double again would give 1.0, but the decimal is above the midpoint.
    text = b"1.000000059604644776135792984128"  # too many digits for the fast path
    near = b"1.00000005960464477"  # 18 digits: the fast path's double is not the tie
    vals, bad = parse_fields(*fields_of([text, near, b"0.1", b"3.4028235e38"]), fr.float32)
    assert not bad.any()
    assert vals[0] == np.nextafter(np.float32(1), np.float32(2))
    assert vals[1] == np.float32(float(near)) and vals[2] == np.float32(0.1)
    assert np.isinf(vals[3]) or vals[3] == np.finfo(np.float32).max


def test_whole_numbers_become_floats_with_one_rounding():
    texts = [b"16777217", b"16777219", b"123456789012345678"]
    vals, bad = parse_fields(*fields_of(texts), fr.float32)
    assert not bad.any()
    want = [np.float32(16777216), np.float32(16777220), np.float32(123456789012345678)]
    assert vals.tolist() == [float(w) for w in want]


def test_the_values_are_fresh_writable_arrays():
    vals, _ = parse_fields(*fields_of([b"1", b"2"]), fr.float32)
    assert vals.flags.writeable and vals.flags.owndata


def test_a_field_the_fast_path_leaves_is_decided_by_the_reference():
    # "1-2" is not a number: the reference marks it bad; the others parse.
    vals, bad = parse_fields(*fields_of([b"1e5", b"1-2", b"3"]), fr.float64)
    assert vals.tolist() == [1e5, 0.0, 3.0] and bad.tolist() == [False, True, False]
