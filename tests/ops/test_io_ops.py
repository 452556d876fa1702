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
    out = fr.decode_csv(
        recs, [[1.0], [0], ["x"], [fr.constant(5, fr.int64)], fr.constant([], fr.float64)]
    )
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
    (col,) = _run(fr.decode_csv(fr.constant([["1"], ["2"]]), [[0]]))
    assert col.shape == (2, 1) and col.dtype == np.int32
    x, y = _run(fr.decode_csv("3,4", [[0], [0.0]]))
    assert x == 3 and isinstance(x, np.int32) and y == 4.0


def test_decode_csv_delim_na_value_no_quotes_select_cols():
    out = fr.decode_csv(
        fr.constant("a;b;NA"),
        [["d"], ["e"], ["f"]],
        field_delim=";",
        na_value="NA",
        use_quote_delim=False,
    )
    assert _run(out) == [b"a", b"b", b"f"]
    assert _run(fr.decode_csv('"a""b",c', [[""], [""]], use_quote_delim=False)) == [b'"a""b"', b"c"]
    assert _run(fr.decode_csv("1,2,3", [[0], [0]], select_cols=[0, 2])) == [1, 3]
    inf, nan, hexa = _run(fr.decode_csv("inf,nan,0x10", [[0.0], [0.0], [0.0]]))
    assert np.isinf(inf) and np.isnan(nan) and hexa == 16.0


@pytest.mark.parametrize(
    "record, message",
    [
        ("1,2,3", "^Expect 5 fields but have 3 in record 0$"),
        ("a,2,x,3,4", "^Field 0 in record 0 is not a valid float: a$"),
        ("1,2,x,3,", "^Field 4 is required but missing in record 0!$"),
        ("1,2.5,x,3,4", "^Field 1 in record 0 is not a valid int32: 2.5$"),
        ("1,99999999999,x,3,4", "^Field 1 in record 0 is not a valid int32: 99999999999$"),
        ('1,2,"x,3,4', "^Quoted field has to end with quote followed by delim or end$"),
        ('1,2,x"y,3,4', "^Unquoted fields cannot have quotes/CRLFs inside$"),
    ],
)
def test_decode_csv_errors_name_field_and_record(record, message):
    recs = fr.placeholder(fr.string, [None])
    out = fr.decode_csv(
        recs, [[1.0], [0], ["x"], [fr.constant(5, fr.int64)], fr.constant([], fr.float64)]
    )
    with fr.Session() as sess:
        sess.run(out, {recs: ["1,2,x,3,4"]})
        with pytest.raises(fr.errors.InvalidArgumentError) as info:
            sess.run(out, {recs: ["1,2,x,3,4", record] if "record 0" not in message else [record]})
    assert info.value.op is out[0].op
    import re

    assert re.search(message, info.value.message)


def test_decode_csv_error_names_the_record_index():
    recs = fr.constant(["1", "2", "x"])
    with pytest.raises(
        fr.errors.InvalidArgumentError, match="Field 0 in record 2 is not a valid int32: x"
    ):
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
    with pytest.raises(
        fr.errors.InvalidArgumentError,
        match="StringToNumberOp could not correctly convert string: 1.5",
    ):
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


# --- TextLineReader ---------------------------------------------------------------------


def _files(tmp_path):
    contents = {"a.csv": "h\n1\n2\n3\n", "b.csv": "h\r\n4\r\n5", "e.csv": ""}
    for n, c in contents.items():
        (tmp_path / n).write_bytes(c.encode())
    return [str(tmp_path / n) for n in ("a.csv", "e.csv", "b.csv")]


def test_text_line_reader_reads_files_in_order_as_tf(tmp_path):
    files = _files(tmp_path)
    q = fr.FIFOQueue(10, fr.string, shapes=[])
    r = fr.TextLineReader(skip_header_lines=1)
    k, v = r.read(q)
    assert (k.dtype, v.dtype) == (fr.string, fr.string) and k.shape.as_list() == []
    assert r.reader_ref.op.type == "TextLineReaderV2" and k.op.type == "ReaderReadV2"
    ku, vu = r.read_up_to(q, 4)
    assert ku.shape.as_list() == [None]
    n, w = r.num_records_produced(), r.num_work_units_completed()
    a, b = (f.encode() for f in (files[0], files[2]))
    with fr.Session() as s:
        s.run(q.enqueue_many([files]))
        s.run(q.enqueue_many([files]))
        s.run(q.close())
        assert s.run([k, v]) == [a + b":2", b"1"]
        assert (s.run(n), s.run(w)) == (1, 0)
        keys, vals = s.run([ku, vu])  # the rest of a.csv only
        assert list(keys) == [a + b":3", a + b":4"] and list(vals) == [b"2", b"3"]
        keys, vals = s.run([ku, vu])  # e.csv is empty; b.csv's lines lose their \r
        assert list(keys) == [b + b":2", b + b":3"] and list(vals) == [b"4", b"5"]
        assert list(s.run(vu)) == [b"1", b"2", b"3"]
        assert (s.run(n), s.run(w)) == (8, 4)
        s.run(r.reset())
        assert (s.run(n), s.run(w)) == (0, 0)
        assert list(s.run(vu)) == [b"4", b"5"]
        with pytest.raises(fr.errors.OutOfRangeError):
            s.run([k, v])


def test_text_line_reader_missing_file_is_not_found(tmp_path):
    q = fr.FIFOQueue(10, fr.string, shapes=[])
    k, v = fr.TextLineReader().read(q)
    with fr.Session() as s:
        s.run(q.enqueue([str(tmp_path / "nope.csv")]))
        with pytest.raises(fr.errors.NotFoundError, match="nope.csv; No such file"):
            s.run([k, v])


async def test_text_line_reader_read_blocks_until_a_file_name_arrives(tmp_path):
    import trio
    import trio.testing

    (tmp_path / "x.txt").write_text("only\n")
    q = fr.FIFOQueue(10, fr.string, shapes=[])
    k, v = fr.TextLineReader().read(q)
    enq = q.enqueue([str(tmp_path / "x.txt")])
    got = []
    with trio.fail_after(5):
        async with fr.Session() as s:
            async with trio.open_nursery() as nursery:

                async def reader():
                    got.append(await s.arun(v))

                nursery.start_soon(reader)
                await trio.testing.wait_all_tasks_blocked()
                assert got == []  # blocked on the empty filename queue
                await s.arun(enq)
    assert got == [b"only"]


def test_reader_needs_a_string_queue():
    with pytest.raises(TypeError, match="must hold scalar strings"):
        fr.TextLineReader().read(fr.FIFOQueue(2, fr.int32, shapes=[]))
    with pytest.raises(TypeError, match="queue must be a queue object"):
        fr.TextLineReader().read("files")


def test_io_match_filenames_once_is_a_local_variable_holding_the_glob(tmp_path):
    for n in ("b.x", "a.x", "c.y"):
        (tmp_path / n).write_bytes(b"")
    files = fr.io.match_filenames_once(str(tmp_path / "*.x"))
    assert files in fr.local_variables()
    with fr.Session() as s:
        s.run(fr.local_variables_initializer())
        got = s.run(files)
    assert sorted(got.tolist()) == [str(tmp_path / n).encode() for n in ("a.x", "b.x")]
