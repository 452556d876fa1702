"""File datasets: TextLineDataset, TFRecordDataset, FixedLengthRecordDataset, list_files."""

import gzip
import os

import pytest

import flowrt as fr

from .test_dataset_ops import elements

data = fr.data


def _write(path, content: bytes):
    with open(path, "wb") as f:
        f.write(content)
    return str(path)


def test_text_lines_of_several_files_in_order(tmp_path):
    a = _write(tmp_path / "a.txt", b"one\ntwo\r\nthree")
    b = _write(tmp_path / "b.txt", b"")
    c = _write(tmp_path / "c.txt", b"four\n")
    ds = data.TextLineDataset([a, b, c])
    assert ds.output_types == fr.string and ds.output_shapes == fr.TensorShape([])
    assert elements(ds) == [b"one", b"two", b"three", b"four"]
    assert elements(data.TextLineDataset(c)) == [b"four"]


def test_text_lines_gzip_and_filenames_from_a_placeholder(tmp_path):
    p = str(tmp_path / "z.txt.gz")
    with gzip.open(p, "wb") as f:
        f.write(b"x,1\ny,2\n")
    names = fr.placeholder(fr.string, [None])
    ds = data.TextLineDataset(names, compression_type="GZIP").map(
        lambda line: fr.decode_csv(line, [[""], [0]])
    )
    it = ds.make_initializable_iterator()
    word, num = it.get_next()
    with fr.Session() as sess:
        sess.run(it.initializer, {names: [p]})
        assert sess.run([word, num]) == [b"x", 1]
        assert sess.run([word, num]) == [b"y", 2]
        with pytest.raises(fr.errors.OutOfRangeError):
            sess.run(word)


def test_missing_file_is_not_found(tmp_path):
    with pytest.raises(fr.errors.NotFoundError, match="nope.txt"):
        elements(data.TextLineDataset(str(tmp_path / "nope.txt")))
    with pytest.raises(ValueError, match="compression"):
        data.TextLineDataset("x", compression_type="BZ2")


@pytest.mark.parametrize("compression", [None, "GZIP", "ZLIB"])
def test_tfrecords(tmp_path, compression):
    opts = fr.python_io.TFRecordOptions(compression_type=compression or "")
    paths = []
    for k in range(2):
        p = str(tmp_path / ("r%d.tfrecord" % k))
        with fr.python_io.TFRecordWriter(p, opts) as w:
            for i in range(3):
                w.write(b"rec-%d-%d" % (k, i))
        paths.append(p)
    got = elements(data.TFRecordDataset(paths, compression_type=compression))
    assert got == [b"rec-%d-%d" % (k, i) for k in range(2) for i in range(3)]


def test_tfrecords_of_examples_parsed_in_a_batched_map(tmp_path):
    p = str(tmp_path / "ex.tfrecord")
    with fr.python_io.TFRecordWriter(p) as w:
        for i in range(5):
            ex = fr.train.Example(
                features=fr.train.Features(
                    feature={"v": fr.train.Feature(int64_list=fr.train.Int64List(value=[i]))}
                )
            )
            w.write(ex.SerializeToString())
    ds = (
        data.TFRecordDataset(p)
        .batch(2)
        .map(lambda s: fr.parse_example(s, {"v": fr.FixedLenFeature([], fr.int64)})["v"])
    )
    assert [b.tolist() for b in elements(ds)] == [[0, 1], [2, 3], [4]]


def test_fixed_length_records(tmp_path):
    p = _write(tmp_path / "f.bin", b"HH" + b"abcdefgh" + b"F")
    ds = data.FixedLengthRecordDataset(p, record_bytes=4, header_bytes=2, footer_bytes=1)
    assert elements(ds) == [b"abcd", b"efgh"]
    bad = data.FixedLengthRecordDataset(p, record_bytes=3, header_bytes=2, footer_bytes=1)
    with pytest.raises(fr.errors.InvalidArgumentError, match="not an exact multiple"):
        elements(bad)
    with pytest.raises(TypeError, match="record_bytes"):
        data.FixedLengthRecordDataset(p, record_bytes="4")


def test_list_files_sorted_or_shuffled(tmp_path):
    for n in "cab":
        _write(tmp_path / (n + ".txt"), n.encode())
    _write(tmp_path / "skip.csv", b"")
    pattern = os.path.join(str(tmp_path), "*.txt")
    names = [
        os.path.basename(x).decode()
        for x in elements(data.Dataset.list_files(pattern, shuffle=False))
    ]
    assert names == ["a.txt", "b.txt", "c.txt"]
    shuffled = elements(data.Dataset.list_files(pattern, seed=3))
    assert sorted(shuffled) == sorted(elements(data.Dataset.list_files(pattern, shuffle=False)))
    assert shuffled == elements(data.Dataset.list_files(pattern, seed=3))
    lines = data.Dataset.list_files(pattern, shuffle=False).flat_map(data.TextLineDataset)
    assert elements(lines) == [b"a", b"b", b"c"]
    # TF 2.21: a pattern matching nothing is an empty dataset.
    assert elements(data.Dataset.list_files(os.path.join(str(tmp_path), "*.none"))) == []


def test_interleave_of_files(tmp_path):
    paths = [_write(tmp_path / ("%d.txt" % k), b"%d-0\n%d-1\n" % (k, k)) for k in range(3)]
    ds = data.Dataset.from_tensor_slices(paths).interleave(data.TextLineDataset, cycle_length=2)
    assert elements(ds) == [b"0-0", b"1-0", b"0-1", b"1-1", b"2-0", b"2-1"]
