"""``Dataset.cache(filename)``: written by the first complete pass, read by later ones.

The file names, the lockfile and the error of a second writer are TF 2.21's, printed by
tensorflow.compat.v1 for the same programs.
"""

import os

import numpy as np
import pytest

import flowrt as fr

Dataset = fr.data.Dataset


class Counted:
    """A dataset of ``x * 10`` whose map records each element it computes."""

    def __init__(self, filename, n=5):
        self.calls = []
        ds = Dataset.range(n).map(lambda x: fr.py_func(self._f, [x], fr.int64))
        self.ds = ds.cache(filename)

    def _f(self, x):
        self.calls.append(int(x))
        return x * 10


def _run(fetch):
    with fr.Session() as sess:
        return sess.run(fetch)


def _read(sess, nxt, limit=100):
    out = []
    for _ in range(limit):
        try:
            out.append(int(sess.run(nxt)))
        except fr.errors.OutOfRangeError:
            return out
    return out


def test_first_complete_pass_writes_the_files_later_passes_and_sessions_read_them(tmp_path):
    prefix = str(tmp_path / "c")
    c = Counted(prefix)
    it = c.ds.repeat(2).make_initializable_iterator()
    nxt = it.get_next()
    with fr.Session() as sess:
        sess.run(it.initializer)
        assert [int(sess.run(nxt)) for _ in range(3)] == [0, 10, 20]
        assert os.listdir(tmp_path) == ["c_0.lockfile"]
        assert (tmp_path / "c_0.lockfile").read_text().startswith("Created at: ")
        # The second pass of repeat reads the files: the map runs no more.
        assert _read(sess, nxt) == [30, 40, 0, 10, 20, 30, 40]
        assert c.calls == [0, 1, 2, 3, 4]
        assert sorted(os.listdir(tmp_path)) == ["c.data-00000-of-00001", "c.index"]
    c.calls.clear()
    with fr.Session() as sess:
        sess.run(it.initializer)
        assert _read(sess, nxt) == [0, 10, 20, 30, 40] * 2
    assert c.calls == []
    # Another graph (another program) reads the same files.
    with fr.Graph().as_default():
        other = Counted(prefix)
        with fr.Session() as sess:
            assert _read(sess, other.ds.make_one_shot_iterator().get_next()) == [0, 10, 20, 30, 40]
        assert other.calls == []


def test_unfinished_pass_leaves_no_cache(tmp_path):
    prefix = str(tmp_path / "c")
    c = Counted(prefix)
    it = c.ds.make_initializable_iterator()
    nxt = it.get_next()
    with fr.Session() as sess:
        sess.run(it.initializer)
        assert _read(sess, nxt, 2) == [0, 10]
        sess.run(it.initializer)  # TF 2.21: the partial pass is discarded, its lock freed
        assert os.listdir(tmp_path) == []
        assert _read(sess, nxt, 2) == [0, 10]
    assert os.listdir(tmp_path) == []  # a closed session frees it too
    # take() never completes a pass of the cache: nothing is written (TF 2.21).
    c = Counted(prefix)
    with fr.Session() as sess:
        nxt = c.ds.take(2).repeat(2).make_one_shot_iterator().get_next()
        assert _read(sess, nxt) == [0, 10, 0, 10]
    assert os.listdir(tmp_path) == []


def test_a_second_writer_of_the_same_cache_fails_with_already_exists(tmp_path):
    prefix = str(tmp_path / "c")
    first = Counted(prefix).ds.make_initializable_iterator()
    second = Counted(prefix).ds.make_initializable_iterator()
    with fr.Session() as sess:
        sess.run([first.initializer, second.initializer])
        sess.run(first.get_next())
        with pytest.raises(
            fr.errors.AlreadyExistsError,
            match=r"There appears to be a concurrent caching iterator running - cache "
            r"lockfile already exists \('.*c_0\.lockfile'\). If you are sure no other running "
            r"TF computations are using this cache prefix, delete the lockfile and "
            r"re-initialize the iterator. Lockfile contents: Created at: \d+",
        ):
            sess.run(second.get_next())
        assert _read(sess, first.get_next()) == [10, 20, 30, 40]
        assert sorted(os.listdir(tmp_path)) == ["c.data-00000-of-00001", "c.index"]


def test_cache_in_a_missing_directory_is_not_found(tmp_path):
    prefix = str(tmp_path / "nodir" / "c")
    with pytest.raises(fr.errors.NotFoundError, match=r"nodir/c_0.lockfile; No such file"):
        _run(Counted(prefix).ds.make_one_shot_iterator().get_next())


def test_tuples_strings_and_an_empty_dataset(tmp_path):
    prefix = str(tmp_path / "t")
    words = [b"a", b"b", b"", b"d", b"e", b"f"]
    ds = Dataset.from_tensor_slices((np.arange(12).reshape(6, 2), words))
    for _ in range(2):  # written, then read
        got = _run(ds.cache(prefix).batch(6).make_one_shot_iterator().get_next())
        np.testing.assert_array_equal(got[0], np.arange(12).reshape(6, 2))
        assert got[1].tolist() == words
    empty = Dataset.range(0).cache(str(tmp_path / "e"))
    for _ in range(2):
        with pytest.raises(fr.errors.OutOfRangeError):
            _run(empty.make_one_shot_iterator().get_next())
    assert os.path.exists(str(tmp_path / "e.index"))  # TF 2.21: no data file
    assert not os.path.exists(str(tmp_path / "e.data-00000-of-00001"))


def test_filename_may_be_fed_and_must_be_a_scalar_string():
    with pytest.raises(ValueError, match="filename must be a scalar"):
        Dataset.range(3).cache(["a", "b"])
    with pytest.raises((TypeError, ValueError)):
        Dataset.range(3).cache(3)


def test_filename_fed_when_the_dataset_is_made(tmp_path):
    name = fr.placeholder(fr.string, [])
    it = Dataset.range(3).cache(name).make_initializable_iterator()
    with fr.Session() as sess:
        sess.run(it.initializer, {name: str(tmp_path / "f")})
        assert _read(sess, it.get_next()) == [0, 1, 2]
    assert os.path.exists(str(tmp_path / "f.index"))


def test_a_lockfile_deleted_by_hand_does_not_break_the_writer(tmp_path):
    # TF's message invites deleting a stale lockfile; the writer holding it goes on.
    c = Counted(str(tmp_path / "c"))
    it = c.ds.make_initializable_iterator()
    nxt = it.get_next()
    with fr.Session() as sess:
        sess.run(it.initializer)
        assert _read(sess, nxt, 1) == [0]
        os.remove(str(tmp_path / "c_0.lockfile"))
        sess.run(it.initializer)  # ends the unfinished pass
        assert _read(sess, nxt) == [0, 10, 20, 30, 40]
    assert sorted(os.listdir(tmp_path)) == ["c.data-00000-of-00001", "c.index"]
