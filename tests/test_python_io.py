"""TFRecord files: the writer's bytes against an independent reading of the format,
compression, corruption (DataLossError naming file and offset), and TF interop."""

import gzip
import os
import re
import struct
import zlib

import numpy as np
import pytest

import flowrt as fr
from flowrt.python_io import TFRecordCompressionType, TFRecordOptions
from tests.memory_limit import run_capped

RECORDS = [b"hello", b"", b"\x00\x01\x02binary\xff", b"x" * 300]


# An independent CRC-32C (bitwise, Castagnoli polynomial reflected), as the TFRecord
# format description gives it; it shares nothing with flowrt's implementation.
def _crc32c(data: bytes) -> int:
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def _masked(data: bytes) -> int:
    c = _crc32c(data)
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def _parse_by_spec(raw: bytes) -> list:
    """Reads a TFRecord stream by the format description, checking every CRC."""
    out, pos = [], 0
    while pos < len(raw):
        length_bytes = raw[pos : pos + 8]
        (length,) = struct.unpack("<Q", length_bytes)
        (length_crc,) = struct.unpack("<I", raw[pos + 8 : pos + 12])
        assert length_crc == _masked(length_bytes)
        data = raw[pos + 12 : pos + 12 + length]
        (data_crc,) = struct.unpack("<I", raw[pos + 12 + length : pos + 16 + length])
        assert data_crc == _masked(data)
        out.append(data)
        pos += 16 + length
    assert pos == len(raw)
    return out


def test_reference_crc_vector():
    assert _crc32c(b"123456789") == 0xE3069283


def _write(path, records, options=None):
    with fr.python_io.TFRecordWriter(str(path), options) as w:
        for r in records:
            w.write(r)


def test_writer_bytes_follow_the_format_description(tmp_path):
    p = tmp_path / "a.tfrecord"
    _write(p, RECORDS)
    raw = p.read_bytes()
    assert _parse_by_spec(raw) == RECORDS
    assert len(raw) == sum(16 + len(r) for r in RECORDS)
    assert list(fr.python_io.tf_record_iterator(str(p))) == RECORDS


def test_writer_accepts_str_records_and_explicit_close(tmp_path):
    p = tmp_path / "s.tfrecord"
    w = fr.python_io.TFRecordWriter(str(p), options=None)
    w.write("héllo")
    w.flush()
    w.close()
    w.close()  # closing twice is harmless
    assert _parse_by_spec(p.read_bytes()) == ["héllo".encode()]
    with pytest.raises(fr.errors.FailedPreconditionError, match="closed"):
        w.write(b"more")


@pytest.mark.parametrize(
    "ctype, unpack",
    [
        ("GZIP", gzip.decompress),
        ("ZLIB", zlib.decompress),
        (TFRecordCompressionType.GZIP, gzip.decompress),
        (TFRecordOptions(TFRecordCompressionType.ZLIB), zlib.decompress),
    ],
)
def test_compressed_files_are_whole_stream_gzip_or_zlib(tmp_path, ctype, unpack):
    p = tmp_path / "c.tfrecord"
    records = RECORDS * 50
    _write(p, records, ctype)
    assert _parse_by_spec(unpack(p.read_bytes())) == records
    assert list(fr.python_io.tf_record_iterator(str(p), ctype)) == records


def test_options_and_compression_type_strings():
    get = TFRecordOptions.get_compression_type_string
    assert get(None) == "" and get("GZIP") == "GZIP"
    assert get(TFRecordOptions(TFRecordCompressionType.ZLIB)) == "ZLIB"
    assert get(TFRecordCompressionType.NONE) == ""
    with pytest.raises(ValueError, match="Unsupported compression type 'LZ4'"):
        TFRecordOptions("LZ4")


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(fr.errors.NotFoundError, match="nope.tfrecord"):
        fr.python_io.tf_record_iterator(str(tmp_path / "nope.tfrecord"))
    with pytest.raises(fr.errors.NotFoundError, match="no_dir"):
        fr.python_io.TFRecordWriter(str(tmp_path / "no_dir" / "x.tfrecord"))


def _corrupt(path, offset, value=None):
    raw = bytearray(path.read_bytes())
    raw[offset] = (raw[offset] ^ 0xFF) if value is None else value
    path.write_bytes(bytes(raw))


@pytest.mark.parametrize(
    "where, what",
    [
        (33 + 2, "data CRC mismatch"),  # a byte of the second record's data
        (21 + 3, "length CRC mismatch"),  # a byte of the second record's length
        (21 + 10, "length CRC mismatch"),  # a byte of the second record's length CRC
        (21 + 16 + 5, "data CRC mismatch"),
    ],
)  # a byte of the second record's data CRC
def test_corrupt_record_is_data_loss_naming_file_and_offset(tmp_path, where, what):
    p = tmp_path / "bad.tfrecord"
    _write(p, [b"first", b"second", b"third"])  # records at offsets 0, 21, 43
    _corrupt(p, where)
    it = fr.python_io.tf_record_iterator(str(p))
    assert next(it) == b"first"
    with pytest.raises(
        fr.errors.DataLossError,
        match=r"corrupted \(%s\) record at offset 21 in .*bad.tfrecord" % what,
    ):
        next(it)


def test_truncated_file_is_data_loss(tmp_path):
    p = tmp_path / "cut.tfrecord"
    _write(p, [b"first", b"second"])
    p.write_bytes(p.read_bytes()[:-3])
    with pytest.raises(
        fr.errors.DataLossError,
        match=r"truncated \(7 of 10 data and CRC bytes\) record at offset 21",
    ):
        list(fr.python_io.tf_record_iterator(str(p)))
    p.write_bytes(p.read_bytes()[:25])
    with pytest.raises(fr.errors.DataLossError, match=r"truncated \(header of 4 of 12"):
        list(fr.python_io.tf_record_iterator(str(p)))


def test_corrupt_compressed_stream_is_data_loss(tmp_path):
    p = tmp_path / "bad.gz"
    _write(p, RECORDS * 20, "GZIP")
    raw = bytearray(p.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    p.write_bytes(bytes(raw))
    with pytest.raises(fr.errors.DataLossError, match="bad.gz"):
        list(fr.python_io.tf_record_iterator(str(p), "GZIP"))


def test_example_protos_round_trip_through_a_file(tmp_path):
    p = tmp_path / "ex.tfrecord"
    exs = [
        fr.train.Example(
            features=fr.train.Features(
                feature={
                    "i": fr.train.Feature(int64_list=fr.train.Int64List(value=[k, -k])),
                    "f": fr.train.Feature(float_list=fr.train.FloatList(value=[k / 2])),
                    "b": fr.train.Feature(bytes_list=fr.train.BytesList(value=[b"k%d" % k])),
                }
            )
        )
        for k in range(5)
    ]
    _write(p, [e.SerializeToString() for e in exs])
    back = [fr.train.Example.FromString(r) for r in fr.python_io.tf_record_iterator(str(p))]
    assert back == exs
    assert list(back[3].features.feature["i"].int64_list.value) == [3, -3]


def test_example_encoding_is_protobuf_wire_format():
    # Example{features=1: Features{feature=1: map entry{key=1: "a", value=2: Feature{
    #   int64_list=3: Int64List{value=1 packed: [1, 2]}}}}}
    ex = fr.train.Example(
        features=fr.train.Features(
            feature={"a": fr.train.Feature(int64_list=fr.train.Int64List(value=[1, 2]))}
        )
    )
    assert ex.SerializeToString() == b"\n\r\n\x0b\n\x01a\x12\x06\x1a\x04\n\x02\x01\x02"
    seq = fr.train.SequenceExample()
    seq.feature_lists.feature_list["t"].feature.add().float_list.value.append(1.5)
    assert fr.train.SequenceExample.FromString(seq.SerializeToString()) == seq


def test_files_interchange_with_tensorflow(tmp_path):
    tf = pytest.importorskip("tensorflow.compat.v1")
    for ctype in ("", "GZIP", "ZLIB"):
        mine, theirs = tmp_path / ("fr" + ctype), tmp_path / ("tf" + ctype)
        _write(mine, RECORDS, ctype)
        with tf.io.TFRecordWriter(str(theirs), tf.io.TFRecordOptions(ctype)) as w:
            for r in RECORDS:
                w.write(r)
        if not ctype:
            assert mine.read_bytes() == theirs.read_bytes()
        opts = tf.io.TFRecordOptions(ctype)
        assert list(tf.io.tf_record_iterator(str(mine), opts)) == RECORDS
        assert list(fr.python_io.tf_record_iterator(str(theirs), ctype)) == RECORDS
    ex = fr.train.Example(
        features=fr.train.Features(
            feature={"v": fr.train.Feature(float_list=fr.train.FloatList(value=np.arange(3.0)))}
        )
    )
    assert tf.train.Example.FromString(ex.SerializeToString()).features.feature[
        "v"
    ].float_list.value == [0.0, 1.0, 2.0]


def test_writer_creates_file_only_where_asked(tmp_path):
    p = tmp_path / "only.tfrecord"
    _write(p, [])
    assert os.path.getsize(p) == 0
    assert list(fr.python_io.tf_record_iterator(str(p))) == []


def test_tf_io_names(tmp_path):
    p = tmp_path / "io.tfrecord"
    with fr.io.TFRecordWriter(str(p), fr.io.TFRecordOptions("ZLIB")) as w:
        w.write(b"z")
    assert list(fr.io.tf_record_iterator(str(p), "ZLIB")) == [b"z"]
    assert fr.io.FixedLenFeature is fr.FixedLenFeature
    assert fr.io.parse_example is fr.parse_example and fr.io.decode_raw is fr.decode_raw


def test_hostile_length_is_data_loss_before_any_allocation(tmp_path):
    # A length field claiming 2**62 bytes, with a valid CRC: read as truncated, at once.
    header = struct.pack("<Q", 2**62)
    p = tmp_path / "huge.tfrecord"
    p.write_bytes(header + struct.pack("<I", _masked(header)) + b"tiny")
    with pytest.raises(fr.errors.DataLossError, match=r"truncated \(4 of %d data" % (2**62 + 4)):
        list(fr.python_io.tf_record_iterator(str(p)))


def test_gzip_record_declaring_more_than_its_stream_can_inflate_to_is_refused_unread(tmp_path):
    # One record declaring 1.5 GiB whose gzip stream (200 KB) inflates to 200 MB: at
    # deflate's largest ratio (1032) the stream cannot hold it, so it is a DataLossError
    # naming the file before anything is inflated (it inflated all 200 MB first).
    header = struct.pack("<Q", 3 << 29)
    p = tmp_path / "liar.gz"
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    with open(p, "wb") as f:
        f.write(z.compress(header + struct.pack("<I", _masked(header))))
        block = bytes(1 << 20)
        for _ in range(200):
            f.write(z.compress(block))
        f.write(z.flush())
    out = run_capped(
        """
        import tracemalloc, flowrt as fr
        tracemalloc.start()
        try:
            list(fr.python_io.tf_record_iterator(%r, "GZIP"))
        except fr.errors.DataLossError as e:
            print(e.message)
        print(tracemalloc.get_traced_memory()[1] >> 20)
        """
        % str(p)
    )
    message, peak_mb = out.strip().splitlines()
    assert re.fullmatch(
        r"truncated \(the stream can inflate to at most \d+ of its %d data and CRC bytes\) "
        r"record at offset 0 in .*liar\.gz" % ((3 << 29) + 4),
        message,
    )
    assert int(peak_mb) < 8


@pytest.mark.parametrize("ctype, cut", [("GZIP", 8), ("ZLIB", 4)])
def test_compressed_stream_without_its_trailer_is_data_loss(tmp_path, ctype, cut):
    # Cut exactly the gzip trailer (CRC-32, length) or the zlib Adler-32: the records
    # still inflate whole, yet the file is not what was written.
    p = tmp_path / "cut.z"
    _write(p, RECORDS, ctype)
    p.write_bytes(p.read_bytes()[:-cut])
    with pytest.raises(fr.errors.DataLossError, match="cut.z.*without its trailer"):
        list(fr.python_io.tf_record_iterator(str(p), ctype))


def test_path_with_a_nul_byte_is_invalid_argument_naming_it(tmp_path):
    bad = str(tmp_path / "a\x00b.tfrecord")
    with pytest.raises(fr.errors.InvalidArgumentError, match=r"a\\x00b\.tfrecord.*NUL byte"):
        fr.python_io.tf_record_iterator(bad)
    with pytest.raises(fr.errors.InvalidArgumentError, match=r"a\\x00b\.tfrecord.*NUL byte"):
        fr.python_io.TFRecordWriter(bad)
