"""decode_csv, string_to_number, read_file and TextLineReader, with TF1's behaviour."""

import numpy as np
import pytest

import flowrt as fr

# --- decode_csv -----------------------------------------------------------------------


def _run(fetches, feed=None):
    with fr.Session() as sess:
        return sess.run(fetches, feed)


def test_decode_csv_dtypes_defaults_quotes():
    recs = fr.placeholder(fr.string, [None])
    out = fr.decode_csv(recs, [[1.0], [0], ["x"], [fr.constant(5, fr.int64)],
                               fr.constant([], fr.float64)])
    assert [t.dtype for t in out] == [fr.float32, fr.int32, fr.string, fr.int64, fr.float64]
    assert all(t.shape.as_list() == [None] for t in out)
    assert out[0].op.type == "DecodeCSV" and out[0].op.name == "DecodeCSV"
    a, b, c, d, e = _run(out, {recs: ['1.5,2,"a,""b",3,4.25', ",,,,7", " 2 ,3,z,4,5"]})
    np.testing.assert_array_equal(a, np.array([1.5, 1.0, 2.0], np.float32))
    assert a.dtype == np.float32 and b.dtype == np.int32 and d.dtype == np.int64
    np.testing.assert_array_equal(b, [2, 0, 3])
    assert list(c) == [b'a,"b', b"x", b"z"]
    np.testing.assert_array_equal(d, [3, 5, 4])
    np.testing.assert_array_equal(e, [4.25, 7.0, 5.0])


def test_decode_csv_keeps_record_shape_and_scalar():
    col, = _run(fr.decode_csv(fr.constant([["1"], ["2"]]), [[0]]))
    assert col.shape == (2, 1) and col.dtype == np.int32
    x, y = _run(fr.decode_csv("3,4", [[0], [0.0]]))
    assert x == 3 and isinstance(x, np.int32) and y == 4.0


def test_decode_csv_delim_na_value_no_quotes_select_cols():
    out = fr.decode_csv(fr.constant("a;b;NA"), [["d"], ["e"], ["f"]], field_delim=";",
                        na_value="NA", use_quote_delim=False)
    assert _run(out) == [b"a", b"b", b"f"]
    assert _run(fr.decode_csv('"a""b",c', [[""], [""]], use_quote_delim=False)) == [
        b'"a""b"', b"c"]
    assert _run(fr.decode_csv("1,2,3", [[0], [0]], select_cols=[0, 2])) == [1, 3]
    inf, nan, hexa = _run(fr.decode_csv("inf,nan,0x10", [[0.0], [0.0], [0.0]]))
    assert np.isinf(inf) and np.isnan(nan) and hexa == 16.0


@pytest.mark.parametrize("record, message", [
    ("1,2,3", "^Expect 5 fields but have 3 in record 0$"),
    ("a,2,x,3,4", "^Field 0 in record 0 is not a valid float: a$"),
    ("1,2,x,3,", "^Field 4 is required but missing in record 0!$"),
    ("1,2.5,x,3,4", "^Field 1 in record 0 is not a valid int32: 2.5$"),
    ("1,99999999999,x,3,4", "^Field 1 in record 0 is not a valid int32: 99999999999$"),
    ('1,2,"x,3,4', "^Quoted field has to end with quote followed by delim or end$"),
    ('1,2,x"y,3,4', "^Unquoted fields cannot have quotes/CRLFs inside$"),
])
def test_decode_csv_errors_name_field_and_record(record, message):
    recs = fr.placeholder(fr.string, [None])
    out = fr.decode_csv(recs, [[1.0], [0], ["x"], [fr.constant(5, fr.int64)],
                               fr.constant([], fr.float64)])
    with fr.Session() as sess:
        sess.run(out, {recs: ["1,2,x,3,4"]})
        with pytest.raises(fr.errors.InvalidArgumentError) as info:
            sess.run(out, {recs: ["1,2,x,3,4", record]
                           if "record 0" not in message else [record]})
    assert info.value.op is out[0].op
    import re

    assert re.search(message, info.value.message)


def test_decode_csv_error_names_the_record_index():
    recs = fr.constant(["1", "2", "x"])
    with pytest.raises(fr.errors.InvalidArgumentError,
                       match="Field 0 in record 2 is not a valid int32: x"):
        _run(fr.decode_csv(recs, [[0]]))


def test_decode_csv_construction_errors():
    with pytest.raises(ValueError, match="Shape of a default must be a length-0 or length-1"):
        fr.decode_csv("a", [[1, 2]])
    with pytest.raises(TypeError, match="record_defaults\\[0\\] has DataType bool"):
        fr.decode_csv("a", [[True]])
    with pytest.raises(ValueError, match="field_delim should be only 1 char"):
        fr.decode_csv("a", [[""]], field_delim="ab")


# --- string_to_number, read_file ---------------------------------------------------


def test_string_to_number():
    f = fr.string_to_number(["1.5", " 2", "1e3"])
    assert f.dtype == fr.float32 and f.shape.as_list() == [3]
    np.testing.assert_array_equal(_run(f), np.array([1.5, 2.0, 1000.0], np.float32))
    i = _run(fr.string_to_number(["12", "-3"], out_type=fr.int64))
    assert i.dtype == np.int64 and list(i) == [12, -3]
    with pytest.raises(fr.errors.InvalidArgumentError,
                       match="StringToNumberOp could not correctly convert string: 1.5"):
        _run(fr.string_to_number(["1.5"], out_type=fr.int32))


def test_read_file_and_write_file(tmp_path):
    p = tmp_path / "a.txt"
    p.write_bytes(b"hi\nthere")
    t = fr.read_file(str(p))
    assert t.dtype == fr.string and t.shape.as_list() == []
    assert _run(t) == b"hi\nthere"
    out = tmp_path / "b.txt"
    _run(fr.write_file(str(out), "written"))
    assert out.read_bytes() == b"written"
    with pytest.raises(fr.errors.NotFoundError, match="No such file or directory"):
        _run(fr.read_file(str(p) + "x"))


def test_matching_files(tmp_path):
    for n in ("b.csv", "a.csv", "c.txt"):
        (tmp_path / n).write_text("")
    got = _run(fr.matching_files(str(tmp_path / "*.csv")))
    assert [g.rsplit(b"/", 1)[-1] for g in got] == [b"a.csv", b"b.csv"]
