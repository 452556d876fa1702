"""Checkpoints as TF1 writes them (relative state paths, missing parents) and as untrusted
input: damaged or hostile files give DataLossError/InvalidArgumentError naming the file and
variable, and a failed restore changes no variable."""

import io
import json
import os
import zipfile

import numpy as np
import pytest

import flowrt as fr
from flowrt.train import saver as saver_mod

DATA = ".data-00000-of-00001"


def _save(tmp_path, values=None):
    values = values or {
        "a": np.arange(6.0, dtype=np.float32).reshape(2, 3),
        "s": np.array([b"xy", b""], dtype=object),
    }
    with fr.Graph().as_default():
        vs = [fr.Variable(v, name=n) for n, v in values.items()]
        with fr.Session() as sess:
            sess.run(fr.global_variables_initializer())
            return fr.train.Saver(vs).save(sess, str(tmp_path / "m"))


def _restore_into_fresh(path, names_values):
    """Restores into variables set to sentinels; returns their values after (or raises)."""
    with fr.Graph().as_default():
        vs = {n: fr.Variable(v, name=n) for n, v in names_values.items()}
        with fr.Session() as sess:
            sess.run(fr.global_variables_initializer())
            try:
                fr.train.Saver(list(vs.values())).restore(sess, path)
            finally:
                after = {n: sess.run(v) for n, v in vs.items()}
    return after


SENTINELS = {"a": np.full((2, 3), -1.0, np.float32), "s": np.array([b"?", b"?"], dtype=object)}


def test_relative_checkpoint_dir_resumes_from_cwd_and_from_elsewhere(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with fr.Graph().as_default():
        v = fr.Variable(3.0, name="v")
        with fr.Session() as sess:
            sess.run(v.initializer)
            saver = fr.train.Saver()
            with pytest.raises(
                ValueError,
                match="Parent directory of logs/run/model.ckpt doesn't exist, can't save.",
            ):  # TF 2.21 says the same
                saver.save(sess, "logs/run/model.ckpt", global_step=1)
            os.makedirs("logs/run")
            saver.save(sess, "logs/run/model.ckpt", global_step=1)
            saver.save(sess, "logs/run/model.ckpt", global_step=2)
    # Byte for byte what TF 2.21's tf.compat.v1 Saver writes for the same calls.
    assert (tmp_path / "logs/run/checkpoint").read_text() == (
        'model_checkpoint_path: "model.ckpt-2"\n'
        'all_model_checkpoint_paths: "model.ckpt-1"\n'
        'all_model_checkpoint_paths: "model.ckpt-2"\n'
    )
    assert fr.train.latest_checkpoint("logs/run") == os.path.join("logs/run", "model.ckpt-2")
    monkeypatch.chdir(tmp_path / "logs")
    assert fr.train.latest_checkpoint("run") == os.path.join("run", "model.ckpt-2")
    assert fr.train.latest_checkpoint(str(tmp_path / "logs/run")) == str(
        tmp_path / "logs/run/model.ckpt-2"
    )


def test_save_relative_paths_and_absolute_dirs(tmp_path):
    with fr.Graph().as_default():
        v = fr.Variable(3.0, name="v")
        with fr.Session() as sess:
            sess.run(v.initializer)
            os.makedirs(tmp_path / "a")
            os.makedirs(tmp_path / "b")
            fr.train.Saver(save_relative_paths=True).save(sess, str(tmp_path / "a/m"))
            fr.train.Saver().save(sess, str(tmp_path / "b/m"))
    assert (tmp_path / "a/checkpoint").read_text().startswith('model_checkpoint_path: "m"\n')
    assert str(tmp_path) in (tmp_path / "b/checkpoint").read_text()
    assert fr.train.latest_checkpoint(str(tmp_path / "a")) == str(tmp_path / "a/m")


def test_uninitialized_local_variable_names_the_local_initializer():
    with fr.Graph().as_default():
        v = fr.Variable(1.0, name="loc", collections=[fr.GraphKeys.LOCAL_VARIABLES])
        g = fr.Variable(1.0, name="glob")
        with fr.Session() as sess:
            with pytest.raises(
                fr.errors.FailedPreconditionError,
                match=r"loc.*run fr.local_variables_initializer\(\)",
            ):
                sess.run(v)
            with pytest.raises(
                fr.errors.FailedPreconditionError,
                match=r"glob.*run fr.global_variables_initializer\(\)",
            ):
                sess.run(g)


def _rewrite(path, edit):
    """Rebuilds the npz data file with ``edit(entries)`` applied (a hostile writer)."""
    data = path + DATA
    with zipfile.ZipFile(data) as z:
        entries = {n[:-4]: np.load(io.BytesIO(z.read(n)), allow_pickle=False) for n in z.namelist()}
    edit(entries)
    with open(data, "wb") as f:
        np.savez(f, **entries)


def _index(entries):
    return json.loads(entries["index"].tobytes().decode())


def _set_index(entries, index):
    entries["index"] = np.frombuffer(json.dumps(index).encode(), np.uint8)


def test_stored_dtype_must_match_the_index(tmp_path):
    path = _save(tmp_path)

    def complex_as_float(entries):
        key = _index(entries)["tensors"]["a"]["key"]
        entries[key] = entries[key].astype(np.complex64)[:, :3]

    _rewrite(path, complex_as_float)
    with pytest.raises(
        fr.errors.DataLossError,
        match=r"m\.data.*variable a: stored dtype "
        r"complex64, but the index says float32",
    ):
        _restore_into_fresh(path, SENTINELS)


def test_declared_shape_is_checked_before_reading_data(tmp_path):
    path = _save(tmp_path)

    def lie_about_size(entries):
        idx = _index(entries)
        key = idx["tensors"]["a"]["key"]
        idx["tensors"]["a"]["shape"] = [2, 3]
        entries[key] = np.zeros((512, 1024), np.float32)  # not what the index declares
        _set_index(entries, idx)

    _rewrite(path, lie_about_size)
    with pytest.raises(
        fr.errors.DataLossError,
        match=r"variable a: stored shape \[512, "
        r"1024\], but the index says \[2, 3\]",
    ):
        _restore_into_fresh(path, SENTINELS)


def test_index_shape_differing_from_the_variable_is_invalid_argument(tmp_path):
    path = _save(tmp_path)
    with pytest.raises(
        fr.errors.InvalidArgumentError,
        match=r"variable a from .*m\.data.*"
        r"shape \[2, 3\] but the variable has shape \(3, 2\)",
    ):
        _restore_into_fresh(path, {"a": np.zeros((3, 2), np.float32), "s": SENTINELS["s"]})


def test_hostile_index_entries(tmp_path):
    path = _save(tmp_path)

    def bad(entries):
        idx = _index(entries)
        idx["tensors"]["a"] = {"key": "t0", "dtype": "float32", "shape": [-1, 3]}
        idx["tensors"]["s"] = {"key": "t1", "dtype": "no_such_type", "shape": [2]}
        _set_index(entries, idx)

    _rewrite(path, bad)
    with pytest.raises(fr.errors.DataLossError, match="variable a: bad index entry"):
        _restore_into_fresh(path, SENTINELS)
    with pytest.raises(fr.errors.DataLossError, match="variable s: unknown dtype"):
        fr.train.load_variable(path, "s")


def test_pickled_entries_are_never_loaded(tmp_path):
    path = _save(tmp_path)
    # An object-dtype (pickled) .npy member in place of a variable's data.
    data = path + DATA
    with zipfile.ZipFile(data) as z:
        members = {n: z.read(n) for n in z.namelist()}
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.array([1, 2], dtype=object), allow_pickle=True)
    members["t0.npy"] = buf.getvalue()
    with zipfile.ZipFile(data, "w") as z:
        for n, b in members.items():
            z.writestr(n, b)
    with pytest.raises(fr.errors.DataLossError, match="stored dtype object"):
        _restore_into_fresh(path, SENTINELS)


def test_truncations_and_bit_flips_give_data_loss_and_change_nothing(tmp_path):
    path = _save(tmp_path)
    data = path + DATA
    good = (tmp_path / os.path.basename(data)).read_bytes()
    rng = np.random.default_rng(0)
    cuts = sorted(set(rng.integers(0, len(good), 25).tolist()) | {0, 1, len(good) - 1})
    cases = [good[:n] for n in cuts]
    for bit in rng.integers(0, len(good) * 8, 60).tolist():
        b = bytearray(good)
        b[bit // 8] ^= 1 << (bit % 8)
        cases.append(bytes(b))
    failed = 0
    with fr.Graph().as_default():
        vs = {n: fr.Variable(v, name=n) for n, v in SENTINELS.items()}
        saver = fr.train.Saver(list(vs.values()))
        with fr.Session() as sess:
            for blob in cases:
                sess.run(fr.global_variables_initializer())
                with open(data, "wb") as f:
                    f.write(blob)
                try:
                    saver.restore(sess, path)
                except (fr.errors.DataLossError, fr.errors.InvalidArgumentError) as e:
                    assert data in str(e)
                    failed += 1
                    np.testing.assert_array_equal(sess.run(vs["a"]), SENTINELS["a"])
                    assert list(sess.run(vs["s"])) == [b"?", b"?"]
                    continue
                # A flip in bytes nothing reads (zip timestamps...) may load: then the
                # values must be exactly the saved ones.
                np.testing.assert_array_equal(sess.run(vs["a"]), np.arange(6.0).reshape(2, 3))
                assert list(sess.run(vs["s"])) == [b"xy", b""]
    assert failed >= len(cuts)


def test_failed_restore_changes_no_variable(tmp_path):
    path = _save(tmp_path)

    def break_second(entries):  # "a" is fine, "s" (read after it) is damaged
        key = _index(entries)["tensors"]["s"]["key"]
        entries[key + "_len"] = np.array([5, 7], np.int64)

    _rewrite(path, break_second)
    with fr.Graph().as_default():
        a = fr.Variable(SENTINELS["a"], name="a")
        s = fr.Variable(SENTINELS["s"], name="s")
        with fr.Session() as sess:
            sess.run(fr.global_variables_initializer())
            with pytest.raises(fr.errors.DataLossError, match="variable s"):
                fr.train.Saver([a, s]).restore(sess, path)
            np.testing.assert_array_equal(sess.run(a), SENTINELS["a"])


def test_not_a_checkpoint_at_all(tmp_path):
    path = str(tmp_path / "x")
    (tmp_path / "x.index").write_text("{}")
    (tmp_path / ("x" + DATA)).write_bytes(b"\x00" * 100)
    with pytest.raises(fr.errors.DataLossError, match=r"x\.data-00000-of-00001.*archive"):
        _restore_into_fresh(path, SENTINELS)
    assert saver_mod.checkpoint_exists(path)
