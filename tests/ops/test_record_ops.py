"""TFRecordReader, FixedLengthRecordReader, WholeFileReader and IdentityReader in queue
pipelines: keys, values, counters, compression, and corrupt files."""

import gzip

import numpy as np
import pytest
import trio

import flowrt as fr


def _filenames(sess, names):
    q = fr.FIFOQueue(10, fr.string)
    sess.run(q.enqueue_many([[str(n) for n in names]]))
    sess.run(q.close())
    return q


def _drain(sess, fetches):
    out = []
    while True:
        try:
            out.append(sess.run(fetches))
        except fr.errors.OutOfRangeError:
            return out


def _write(path, records, options=None):
    with fr.python_io.TFRecordWriter(str(path), options) as w:
        for r in records:
            w.write(r)


def test_tfrecord_reader_keys_are_file_and_offset(tmp_path):
    a, b = tmp_path / "a.tfr", tmp_path / "b.tfr"
    _write(a, [b"one", b"", b"three"])
    _write(b, [b"four"])
    q = fr.FIFOQueue(10, fr.string)
    reader = fr.TFRecordReader(name="rr")
    key, value = reader.read(q)
    assert reader.reader_ref.op.type == "TFRecordReaderV2" and key.shape.as_list() == []
    with fr.Session() as sess:
        sess.run(q.enqueue_many([[str(a), str(b)]]))
        sess.run(q.close())
        got = _drain(sess, [key, value])
        assert [(k.decode(), v) for k, v in got] == [
            ("%s:0" % a, b"one"),
            ("%s:19" % a, b""),
            ("%s:35" % a, b"three"),
            ("%s:0" % b, b"four"),
        ]
        assert sess.run(reader.num_records_produced()) == 4
        assert sess.run(reader.num_work_units_completed()) == 2


@pytest.mark.parametrize("ctype", ["GZIP", "ZLIB"])
def test_tfrecord_reader_reads_compressed_files(tmp_path, ctype):
    p = tmp_path / "c.tfr"
    recs = [b"r%d" % i for i in range(20)]
    _write(p, recs, ctype)
    reader = fr.TFRecordReader(options=fr.python_io.TFRecordOptions(ctype))
    with fr.Session() as sess:
        q = _filenames(sess, [p])
        keys, values = reader.read_up_to(q, 8)
        batches = _drain(sess, values)
    assert [len(b) for b in batches] == [8, 8, 4]
    assert [v for b in batches for v in b] == recs


def test_tfrecord_reader_corrupt_record_is_data_loss(tmp_path):
    p = tmp_path / "bad.tfr"
    _write(p, [b"first", b"second"])
    raw = bytearray(p.read_bytes())
    raw[21 + 12] ^= 0xFF  # the second record's data
    p.write_bytes(bytes(raw))
    reader = fr.TFRecordReader()
    with fr.Session() as sess:
        q = _filenames(sess, [p])
        key, value = reader.read(q)
        assert sess.run(value) == b"first"
        with pytest.raises(
            fr.errors.DataLossError,
            match=r"corrupted \(data CRC mismatch\) record at offset 21 in "
            r".*bad.tfr",
        ) as e:
            sess.run(value)
        assert e.value.op.type == "ReaderReadV2"


def test_tfrecord_reader_missing_file_is_not_found(tmp_path):
    reader = fr.TFRecordReader()
    with fr.Session() as sess:
        q = _filenames(sess, [tmp_path / "missing.tfr"])
        with pytest.raises(fr.errors.NotFoundError, match="missing.tfr"):
            sess.run(reader.read(q))


def test_fixed_length_reader_header_footer_hop(tmp_path):
    p = tmp_path / "fx.bin"
    p.write_bytes(b"HH" + b"".join(bytes([i]) * 3 for i in range(4)) + b"x" + b"FFF")
    plain = fr.FixedLengthRecordReader(3, header_bytes=2, footer_bytes=3)
    hop = fr.FixedLengthRecordReader(3, header_bytes=2, footer_bytes=3, hop_bytes=2)
    with fr.Session() as sess:
        got = _drain(sess, list(plain.read(_filenames(sess, [p]))))
        assert got == [[b"%s:%d" % (str(p).encode(), i), bytes([i]) * 3] for i in range(4)]
        got = [v for _, v in _drain(sess, list(hop.read(_filenames(sess, [p]))))]
        assert got == [
            b"\x00\x00\x00",
            b"\x00\x01\x01",
            b"\x01\x01\x02",
            b"\x02\x02\x02",
            b"\x02\x03\x03",
            b"\x03\x03x",
        ]


def test_fixed_length_reader_gzip_encoding(tmp_path):
    p = tmp_path / "fx.gz"
    payload = np.arange(12, dtype=np.uint8).tobytes()
    p.write_bytes(gzip.compress(payload))
    reader = fr.FixedLengthRecordReader(4, encoding="GZIP")
    with fr.Session() as sess:
        _, value = reader.read(_filenames(sess, [p]))
        pixels = fr.decode_raw(value, fr.uint8)
        got = [v for v in _drain(sess, pixels)]
    np.testing.assert_array_equal(np.concatenate(got), np.arange(12))


def test_fixed_length_reader_rejects_bad_sizes():
    with pytest.raises(ValueError, match="record_bytes must be positive"):
        fr.FixedLengthRecordReader(0)
    with pytest.raises(ValueError, match="hop_bytes must be non-negative"):
        fr.FixedLengthRecordReader(4, hop_bytes=-1)


def test_whole_file_and_identity_readers(tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_bytes(b"alpha\n")
    b.write_bytes(b"")
    whole = fr.WholeFileReader()
    ident = fr.IdentityReader()
    with fr.Session() as sess:
        got = _drain(sess, list(whole.read(_filenames(sess, [a, b]))))
        assert got == [[str(a).encode(), b"alpha\n"], [str(b).encode(), b""]]
        assert sess.run(whole.num_work_units_completed()) == 2
        keys, values = ident.read_up_to(_filenames(sess, ["w1", "w2"]), 5)
        assert [list(k) for k in _drain(sess, keys)] == [[b"w1"], [b"w2"]]


async def test_tfrecord_pipeline_with_queue_runners_and_parse_example(tmp_path):
    files = []
    for f in range(2):
        p = tmp_path / ("part%d.tfr" % f)
        _write(
            p,
            [
                fr.train.Example(
                    features=fr.train.Features(
                        feature={
                            "id": fr.train.Feature(
                                int64_list=fr.train.Int64List(value=[10 * f + i])
                            )
                        }
                    )
                ).SerializeToString()
                for i in range(5)
            ],
        )
        files.append(str(p))
    names = fr.train.string_input_producer(files, num_epochs=1, shuffle=False)
    _, serialized = fr.TFRecordReader().read(names)
    batch = fr.train.batch([serialized], 4, allow_smaller_final_batch=True)
    ids = fr.parse_example(batch, {"id": fr.FixedLenFeature([], fr.int64)})["id"]
    seen = []
    async with fr.Session() as sess:
        await sess.arun(fr.local_variables_initializer())
        with trio.fail_after(20):
            async with fr.train.queue_runners(sess):
                while True:
                    try:
                        seen.extend((await sess.arun(ids)).tolist())
                    except fr.errors.OutOfRangeError:
                        break
    assert sorted(seen) == [0, 1, 2, 3, 4, 10, 11, 12, 13, 14]


def test_batches_of_read_strings_hold_bytes_not_arrays(tmp_path):
    # Regression: a batch of more than 8 separately enqueued scalar strings stored
    # each as a 0-d object array (parse_example then read the array's pointer bytes).
    p = tmp_path / "r.tfr"
    _write(p, [b"rec%d" % i for i in range(40)])
    names = fr.train.string_input_producer([str(p)], num_epochs=1, shuffle=False)
    _, value = fr.TFRecordReader().read(names)
    batch = fr.train.shuffle_batch([value], 32, capacity=40, min_after_dequeue=0, seed=1)
    with fr.Session() as sess:
        sess.run(fr.local_variables_initializer())
        coord = fr.train.Coordinator()
        threads = fr.train.start_queue_runners(sess, coord)
        got = sess.run(batch)
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=10)
    assert all(type(v) is bytes for v in got)
    assert len(set(got)) == 32 and set(got) <= {b"rec%d" % i for i in range(40)}


async def test_one_reader_shared_by_two_runner_tasks_yields_each_record_once(tmp_path):
    files = []
    for f in range(3):
        p = tmp_path / ("s%d.tfr" % f)
        _write(p, [b"%d-%d" % (f, i) for i in range(30)])
        files.append(str(p))
    names = fr.train.string_input_producer(files, num_epochs=1, shuffle=False)
    _, value = fr.TFRecordReader().read(names)
    batch = fr.train.batch([value], 7, num_threads=2, allow_smaller_final_batch=True)
    seen = []
    async with fr.Session() as sess:
        await sess.arun(fr.local_variables_initializer())
        with trio.fail_after(20):
            async with fr.train.queue_runners(sess):
                while True:
                    try:
                        seen.extend(await sess.arun(batch))
                    except fr.errors.OutOfRangeError:
                        break
    assert sorted(seen) == sorted(b"%d-%d" % (f, i) for f in range(3) for i in range(30))
