"""decode_csv's batch path: round trips against Python's csv module, agreement with the
record-by-record reference, TF1's rules and error order (expected values observed from
TF 2.21), exact float parsing."""

import csv
import io
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import flowrt as fr
from flowrt.ops import csv_ops

_TYPES = {
    "int32": (fr.int32, [0]),
    "int64": (fr.int64, np.array([7], np.int64)),
    "float32": (fr.float32, [0.0]),
    "float64": (fr.float64, np.array([0.5])),
    "string": (fr.string, ["dflt"]),
}
_TEXT = st.text(st.sampled_from(list("ab ,;|\"'\t\r\nx")), max_size=6)


def _value(kind):
    if kind == "int32":
        return st.integers(-(2**31), 2**31 - 1)
    if kind == "int64":
        return st.integers(-(2**63), 2**63 - 1)
    if kind == "float32":
        return st.floats(width=32, allow_nan=False).map(lambda v: np.float32(v))
    if kind == "float64":
        return st.floats(allow_nan=False)
    return _TEXT


@st.composite
def _tables(draw):
    kinds = draw(st.lists(st.sampled_from(sorted(_TYPES)), min_size=1, max_size=5))
    rows = draw(st.lists(st.tuples(*[_value(k) for k in kinds]), min_size=1, max_size=12))
    delim = draw(st.sampled_from([",", ";", "|", "\t"]))
    return kinds, rows, delim


def _decode(records, defaults, **kw):
    with fr.Graph().as_default():
        out = fr.decode_csv(fr.constant(records, fr.string), defaults, **kw)
        with fr.Session() as s:
            return s.run(out)


@settings(max_examples=60, deadline=None)
@given(_tables())
def test_random_csv_round_trips_against_pythons_csv_module(table):
    kinds, rows, delim = table
    text = io.StringIO()
    csv.writer(text, delimiter=delim, lineterminator="\r\n").writerows(
        [["%r" % float(v) if isinstance(v, np.float32) else v for v in row] for row in rows]
    )
    # One record per row: the writer quotes fields holding \r or \n, so split by hand.
    records = [line.encode() for line in _records(text.getvalue())]
    cols = _decode(records, [_TYPES[k][1] for k in kinds], field_delim=delim)
    for c, kind in enumerate(kinds):
        want = [r[c] for r in rows]
        if kind == "string":
            want = [w.encode() if w else b"dflt" for w in want]
            assert list(cols[c]) == want
        else:
            assert cols[c].dtype == _TYPES[kind][0].as_numpy_dtype
            np.testing.assert_array_equal(cols[c], np.array(want, cols[c].dtype))


def _records(text):
    out, cur, quoted = [], "", False
    for ch in text:
        if ch == "\n" and not quoted:
            out.append(cur[:-1])  # without the writer's "\r\n"
            cur = ""
            continue
        if ch == '"':
            quoted = not quoted
        cur += ch
    return out


_FIELDS = st.sampled_from(
    [
        "1",
        "-2",
        "3.5",
        "",
        "NA",
        " 4",
        "x",
        '"5"',
        '"a,b"',
        '""',
        "1e3",
        "0x10",
        "inf",
        "+",
        ".",
        "\r",
        "\n",
        '"',
        "99999999999",
    ]
)


@settings(max_examples=150, deadline=None)
@given(
    records=st.lists(
        st.lists(_FIELDS, min_size=0, max_size=4).map(",".join), min_size=1, max_size=6
    ),
    kinds=st.lists(st.sampled_from(sorted(_TYPES)), min_size=1, max_size=4),
    required=st.booleans(),
    na=st.sampled_from(["", "NA"]),
    quote=st.booleans(),
    select=st.booleans(),
)
def test_batch_path_agrees_with_the_reference_on_any_input(
    records, kinds, required, na, quote, select
):
    class Op:
        attrs = {
            "OUT_TYPE": [_TYPES[k][0] for k in kinds],
            "field_delim": ",",
            "use_quote_delim": quote,
            "na_value": na,
            "select_cols": list(range(0, 2 * len(kinds), 2)) if select else [],
        }

    defaults = [
        np.zeros(0, np.float32)
        if required and i == 0
        else np.array(
            [b"d" if k == "string" else 0],
            dtype=object if k == "string" else _TYPES[k][0].as_numpy_dtype,
        )
        for i, k in enumerate(kinds)
    ]
    spec = csv_ops._Spec(Op, defaults)
    recs = [r.encode() for r in records]
    try:
        want = csv_ops._decode_reference(recs, spec)
    except fr.errors.InvalidArgumentError:
        want = None
    got = csv_ops._decode_batch(recs, spec)
    if want is None:
        assert got is None  # the batch path never accepts what TF refuses
    elif got is not None:  # (it may defer valid input to the reference)
        for g, w in zip(got, want):
            assert g.dtype == w.dtype
            np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize(
    "records, defaults, kw, want",
    [
        # Observed from TF 2.21.
        (["1,\n2"], [[0], [0]], {}, [[1], [2]]),  # a line end starting a field is skipped
        (["\r1,2"], [[0], [0]], {}, [[1], [2]]),
        ([","], [[0], [0]], {}, [[0], [0]]),
        (['"ab",'], [[""], [""]], {}, [[b"ab"], [b""]]),
        (['"",x'], [["d"], ["e"]], {}, [[b"d"], [b"x"]]),
        (['"1",2'], [[0], [0]], {}, [[1], [2]]),
        (["1,2,3,4,5"], [[0], [0]], {"select_cols": [0, 1]}, [[1], [2]]),
        (['1,2,"x'], [[0], [0]], {"select_cols": [0, 1]}, [[1], [2]]),  # never looked at
        (["1,2,"], [[0], [0]], {"select_cols": [1, 2]}, [[2], [0]]),
        ([" 1 , 2", "+3,-0"], [[0], [0.0]], {}, [[1, 3], [2.0, -0.0]]),
        (["0x1p3,1e40", "INF,-nan"], [[0.0], [0.0]], {}, [[8.0, np.inf], [np.inf, np.nan]]),
        (["9223372036854775807"], np.array([0], np.int64), {}, [[2**63 - 1]]),
    ],
)
def test_tf_field_rules(records, defaults, kw, want):
    got = _decode(records, defaults, **kw)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, np.array(w, dtype=g.dtype))
    if kw == {} and records == ["1,2", "+3,-0"]:
        assert np.signbit(got[1][1])


@pytest.mark.parametrize(
    "records, defaults, kw, message",
    [
        # Observed from TF 2.21: errors come in record order, and within a record the field
        # count before the fields.
        (["1,2", "x,2,3"], [[0], [0]], {}, "Expect 2 fields but have 3 in record 1"),
        (["x,2", "1,2,3"], [[0], [0]], {}, "Field 0 in record 0 is not a valid int32: x"),
        ([""], [[0], [0]], {}, "Expect 2 fields but have 0 in record 0"),
        (["1", ""], [[0]], {}, "Expect 1 fields but have 0 in record 1"),
        (["1,2,3"], [[0], [0]], {"select_cols": [1, 3]}, "Expect 2 fields but have 1 in record 0"),
        (["NA,2"], [[], [0]], {"na_value": "NA"}, "Field 0 is required but missing in record 0!"),
        (['"ab"c,d'], [[""], [""]], {}, "Quote inside a string has to be escaped by another quote"),
        (["1,2\n"], [[0], [0]], {}, "Unquoted fields cannot have quotes/CRLFs inside"),
        (["1,0x1A"], [[0], [0]], {}, "Field 1 in record 0 is not a valid int32: 0x1A"),
        (["1,1_0"], [[0], [0.0]], {}, "Field 1 in record 0 is not a valid float: 1_0"),
        (["1,."], [[0], [0.0]], {}, "Field 1 in record 0 is not a valid float: ."),
        (["1,2147483648"], [[0], [0]], {}, "Field 1 in record 0 is not a valid int32: 2147483648"),
        (
            ["9223372036854775808"],
            np.array([0], np.int64),
            {},
            "Field 0 in record 0 is not a valid int64: 9223372036854775808",
        ),
        (["1,1e"], [[0], np.array([0.0])], {}, "Field 1 in record 0 is not a valid double: 1e"),
    ],
)
def test_tf_errors_and_their_order(records, defaults, kw, message):
    with pytest.raises(fr.errors.InvalidArgumentError) as info:
        _decode(records, defaults, **kw)
    assert info.value.message == message
    assert info.value.op.type == "DecodeCSV"


def _float32_of(text: str) -> np.float32:
    """The correctly rounded float32 of a decimal, by exact arithmetic."""
    x = Fraction(text)
    f = np.float32(float(x))
    for g in (np.nextafter(f, np.float32(-np.inf)), np.nextafter(f, np.float32(np.inf))):
        if abs(Fraction(float(g)) - x) < abs(Fraction(float(f)) - x) or (
            abs(Fraction(float(g)) - x) == abs(Fraction(float(f)) - x)
            and int(g.view(np.uint32)) % 2 == 0
        ):
            f = g
    return f


@settings(max_examples=80, deadline=None)
@given(
    st.integers(1, 2**24).flatmap(
        lambda m: st.tuples(st.just(m), st.integers(-30, 30), st.integers(0, 12))
    )
)
def test_float32_fields_round_once_like_strtof(parts):
    # Midpoints between float32 values written with extra digits: rounding through
    # float64 first would go wrong on some of them.
    m, e, extra = parts
    mid = Fraction(2 * m + 1, 2) * Fraction(2) ** e
    texts = ["%.*e" % (extra + 8, float(mid)), str(float(np.float32(float(mid))))]
    got = _decode([t for t in texts], [[0.0]])[0]
    for t, g in zip(texts, got):
        assert g == _float32_of(t), t


def test_many_records_take_the_batch_path_and_keep_their_shape():
    rng = np.random.default_rng(0)
    data = rng.integers(-500, 500, (64, 65))
    records = np.array(
        [b",".join(b"%d.%d" % (v, abs(v) % 7) for v in row) for row in data], dtype=object
    ).reshape(8, 8)
    cols = _decode(records, [[0.0]] * 65)
    assert cols[3].shape == (8, 8)
    want = np.array([[float("%d.%d" % (v, abs(v) % 7)) for v in row] for row in data], np.float32)
    np.testing.assert_array_equal(np.stack([c.reshape(-1) for c in cols], 1), want)


@pytest.mark.parametrize(
    "records, defaults, kw, want",
    [
        # All fields whole numbers: one int64 parse serves every column.
        (
            ["007,12,123456789012345"],
            [[0], [0.0], np.array([0.0])],
            {},
            [[7], [12.0], [123456789012345.0]],
        ),
        (["16777217,0"], [[0.0], [1]], {"na_value": "0"}, [[16777216.0], [1]]),  # ties to even
        # The first field shorter than the longest; dtypes interleaved (columns reordered).
        (
            ["1,22,333333", "4444,5,66"],
            [[0.0], [0], np.array([0], np.int64)],
            {},
            [[1.0, 4444.0], [22, 5], [333333, 66]],
        ),
        (
            ["1,2,3", "4,5,6"],
            [[0], np.array([0], np.int64)],
            {"select_cols": [0, 2]},
            [[1, 4], [3, 6]],
        ),
    ],
)
def test_plain_digit_batches(records, defaults, kw, want):
    got = _decode(records, defaults, **kw)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, np.array(w, dtype=g.dtype))


def test_plain_digit_batch_out_of_int32_range_is_refused():
    with pytest.raises(fr.errors.InvalidArgumentError) as info:
        _decode(["1,2", "3,2147483648"], [[0], [0]])
    assert info.value.message == "Field 1 in record 1 is not a valid int32: 2147483648"
    assert _decode(["1,2", "3,2147483648"], [[0], np.array([0], np.int64)])[1][1] == 2**31


@settings(max_examples=60, deadline=None)
@given(
    delim=st.sampled_from([".", "e", "-", "5", "+", " "]),
    rows=st.lists(
        st.lists(st.sampled_from(["1", "25", "-3", "4.5", "6e1", "", "x"]), min_size=2, max_size=2),
        min_size=1,
        max_size=5,
    ),
    select=st.booleans(),
)
def test_delimiters_from_the_number_alphabet_agree_with_the_reference(delim, rows, select):
    # A delimiter that is also a digit, sign, dot or exponent letter splits the fields
    # first; the batch path must then parse the pieces exactly as the reference does.
    class Op:
        attrs = {
            "OUT_TYPE": [fr.float32, fr.int32],
            "field_delim": delim,
            "use_quote_delim": True,
            "na_value": "",
            "select_cols": [0, 1] if select else [],
        }

    spec = csv_ops._Spec(Op, [np.array([9.0], np.float32), np.array([7], np.int32)])
    recs = [delim.join(r).encode() for r in rows]
    try:
        want = csv_ops._decode_reference(recs, spec)
    except fr.errors.InvalidArgumentError:
        want = None
    got = csv_ops._decode_batch(recs, spec)
    if want is None:
        assert got is None
    elif got is not None:
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)


_DIGIT_FIELDS = st.one_of(
    st.text("0123456789", min_size=1, max_size=20),  # leading zeros, and past 18 digits
    st.sampled_from(["", "-1", "1 ", "x", "0x1", "\r", ";"]),
)


@settings(max_examples=150, deadline=None)
@given(
    rows=st.lists(st.lists(_DIGIT_FIELDS, min_size=1, max_size=4), min_size=1, max_size=6),
    kinds=st.lists(st.sampled_from(["int32", "int64", "float32", "float64"]), min_size=3),
    na=st.sampled_from(["", "NA", "7"]),
    delim=st.sampled_from([",", ";", " ", '"']),
)
def test_plain_path_agrees_with_the_reference_and_is_taken_on_digit_tables(rows, kinds, na, delim):
    kinds = kinds[: max(len(r) for r in rows)]

    class Op:
        attrs = {
            "OUT_TYPE": [_TYPES[k][0] for k in kinds],
            "field_delim": delim,
            "use_quote_delim": True,
            "na_value": na,
            "select_cols": [],
        }

    spec = csv_ops._Spec(Op, [np.array([5], _TYPES[k][0].as_numpy_dtype) for k in kinds])
    recs = [delim.join(r).encode() for r in rows]
    try:
        want = csv_ops._decode_reference(recs, spec)
    except fr.errors.InvalidArgumentError:
        want = None
    got = csv_ops._decode_plain(recs, spec) if spec.plain is not None else None
    if want is None:
        assert got is None
    elif got is not None:
        for g, w in zip(got, want):
            assert g.dtype == w.dtype
            np.testing.assert_array_equal(g, w)
    plain = all(len(r) == len(kinds) and all(f.isdigit() and len(f) <= 18 for f in r) for r in rows)
    fits = want is not None
    if plain and fits and na != "7" and delim != '"':
        assert got is not None  # the common case takes the plain path


def test_the_main_jobs_batches_take_the_plain_path():
    rng = np.random.default_rng(0)
    recs = [b",".join(b"%d" % v for v in rng.integers(0, 17, 65)) for _ in range(64)]

    class Op:
        attrs = {
            "OUT_TYPE": [fr.int32] + [fr.float32] * 64,
            "field_delim": ",",
            "use_quote_delim": True,
            "na_value": "",
            "select_cols": [],
        }

    spec = csv_ops._Spec(Op, [np.array([0], np.int32)] + [np.array([0.0], np.float32)] * 64)
    got = csv_ops._decode_plain(recs, spec)
    want = csv_ops._decode_reference(recs, spec)
    assert got is not None
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


def _digit_table_spec(kinds, delim=","):
    class Op:
        attrs = {
            "OUT_TYPE": [_TYPES[k][0] for k in kinds],
            "field_delim": delim,
            "use_quote_delim": True,
            "na_value": "",
            "select_cols": [],
        }

    return csv_ops._Spec(Op, [np.array([5], _TYPES[k][0].as_numpy_dtype) for k in kinds])


@pytest.mark.parametrize("longest", [1, 2, 3, 4, 5, 9, 10, 11, 17, 18, 19])
def test_plain_path_reads_every_field_length_exactly(longest):
    # Fields of 1..longest digits mixed in one batch (with leading zeros), dtype groups
    # interleaved: the pair steps, their masks and the column order against the reference.
    rng = np.random.default_rng(longest)
    kinds = ["int64", "float32", "int64", "float64", "int32", "float32", "float32"]
    spec = _digit_table_spec(kinds, ";")
    rows = []
    for _ in range(37):
        lens = rng.integers(1, longest + 1, len(kinds))
        row = [bytes(rng.integers(48, 58, k).astype(np.uint8)) for k in lens]
        row[4] = row[4][-9:]  # int32: fits
        rows.append(b";".join(row))
    got = csv_ops._decode_plain(rows, spec)
    want = csv_ops._decode_reference(rows, spec)
    if longest > 18:
        assert got is None  # past 18 digits: the general path
        return
    assert got is not None
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize(
    "recs",
    [
        [b"1,2", b"3,4\n5,6"],  # a line end inside a record
        [b"1,2", b"34"],  # too few fields
        [b"1,2,3", b"4"],  # the same count of separators, in the wrong records
        [b"1,,2", b"3,4"],
        [b"1,2", b""],
        [b"1,2\r", b"3,4"],
        [b"1,2", b"3,4."],
        [b",1", b"2,3"],
    ],
)
def test_plain_path_refuses_what_is_not_a_plain_table(recs):
    assert csv_ops._decode_plain(recs, _digit_table_spec(["int32", "float32"])) is None


def test_plain_path_leaves_int32_overflow_to_the_reference():
    spec = _digit_table_spec(["int32", "int64"])
    assert csv_ops._decode_plain([b"2147483648,1"], spec) is None
    got = csv_ops._decode_plain([b"2147483647,12345678901"], spec)
    assert [g.tolist() for g in got] == [[2147483647], [12345678901]]


@pytest.mark.parametrize(
    "recs, want",
    [
        ([b"-5,+7", b"-2147483648,-12"], [[-5, -2147483648], [7.0, -12.0]]),
        ([b"0,-1", b"+0,00"], [[0, 0], [-1.0, 0.0]]),
    ],
)
def test_plain_path_reads_signed_fields(recs, want):
    spec = _digit_table_spec(["int32", "float32"])
    got = csv_ops._decode_plain(recs, spec)
    assert got is not None
    assert [g.tolist() for g in got] == want
    for g, w in zip(got, csv_ops._decode_reference(recs, spec)):
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize(
    "recs",
    [
        [b"-2147483649,1"],  # below int32
        [b"1,-0"],  # -0.0 in a float column: the sign is kept by the general path
        [b"1,--2"],
        [b"1,-"],
        [b"+,1"],
        [b"1,2-"],
    ],
)
def test_plain_path_refuses_bad_signs_and_ranges(recs):
    spec = _digit_table_spec(["int32", "float32"])
    assert csv_ops._decode_plain(recs, spec) is None


def test_plain_path_is_off_when_na_value_could_be_a_plain_field():
    got = _decode(["1,-1", "2,3"], [[0], [9.5]], na_value="-1")
    assert got[1].tolist() == [9.5, 3.0]


def test_compiled_plain_scan_matches_its_python_form():
    # The compiled kernel and the Python it is compiled from agree, refusals included.
    spec = _digit_table_spec(["int32", "int64", "float64"])
    lo, hi = spec.plain
    rng = np.random.default_rng(3)
    cases = [b"1,2,3\n-4,+5,66", b"1,2\n3,4,5", b"2147483648,1,1", b"1,2,3\n4,5,6\n"]
    cases += [b"\n".join(b",".join(b"%d" % v for v in rng.integers(-99, 99, 3)) for _ in range(5))]
    for text in cases:
        n = text.count(b"\n") + 1
        buf = np.frombuffer(text, np.uint8)
        a, b = np.zeros((3, n), np.int64), np.zeros((3, n), np.int64)
        ok = csv_ops._scan_plain(buf, n, ord(","), lo, hi, a)
        assert ok == csv_ops._scan_plain.py(buf, n, ord(","), lo, hi, b)
        if ok:
            np.testing.assert_array_equal(a, b)
