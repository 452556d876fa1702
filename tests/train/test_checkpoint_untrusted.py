"""Checkpoints as TF1 writes them (relative state paths, missing parents) and as untrusted
input: damaged or hostile files give DataLossError/InvalidArgumentError naming the file and
variable, and a failed restore changes no variable."""

import os

import numpy as np
import pytest

import flowrt as fr
from flowrt.protos.tensor_bundle_pb2 import BundleEntryProto
from flowrt.train import saver as saver_mod
from flowrt.train import sstable

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


def _rewrite_index(path, edit):
    """Rebuilds the index with ``edit(entries)`` applied to its ``{name: BundleEntryProto}``
    (a hostile or buggy writer); CRCs of the table itself stay right."""
    index = path + ".index"
    with open(index, "rb") as f:
        table = sstable.read_table(f.read(), index)
    entries = {k.decode(): BundleEntryProto.FromString(v) for k, v in table[1:]}
    edit(entries)
    items = [table[0]] + [(k.encode(), e.SerializeToString()) for k, e in sorted(entries.items())]
    with open(index, "wb") as f:
        f.write(sstable.write_table(items))


def test_declared_size_is_checked_against_dtype_and_shape_before_reading(tmp_path):
    path = _save(tmp_path)

    def lie_about_size(entries):
        entries["a"].size = 512 * 1024 * 4

    _rewrite_index(path, lie_about_size)
    with pytest.raises(
        fr.errors.DataLossError,
        match=r"m\.data-00000-of-00001.*tensor a: 2097152 bytes stored for 6 elements of float32",
    ):
        _restore_into_fresh(path, SENTINELS)


def test_offsets_past_the_end_of_the_data_file(tmp_path):
    path = _save(tmp_path)

    def move(entries):
        entries["a"].offset = 1 << 40

    _rewrite_index(path, move)
    with pytest.raises(
        fr.errors.DataLossError, match=r"m\.data.*tensor a at offset 1099511627776.*past the end"
    ):
        fr.train.load_variable(path, "a")


def test_index_shape_differing_from_the_variable_is_invalid_argument(tmp_path):
    path = _save(tmp_path)
    with pytest.raises(
        fr.errors.InvalidArgumentError,
        match=r"variable a from .*m\.index.*"
        r"shape \[2, 3\] but the variable has shape \(3, 2\)",
    ):
        _restore_into_fresh(path, {"a": np.zeros((3, 2), np.float32), "s": SENTINELS["s"]})


def test_index_dtype_differing_from_the_variable_is_invalid_argument(tmp_path):
    path = _save(tmp_path)
    with pytest.raises(
        fr.errors.InvalidArgumentError,
        match=r"variable a from .*m\.index.*dtype float32 but the variable has dtype float64",
    ):
        _restore_into_fresh(path, {"a": np.zeros((2, 3), np.float64), "s": SENTINELS["s"]})


def test_hostile_index_entries(tmp_path):
    path = _save(tmp_path)

    def negative_dim(entries):
        entries["a"].shape.dim[0].size = -1

    _rewrite_index(path, negative_dim)
    with pytest.raises(fr.errors.DataLossError, match=r"m\.index.*tensor a has a bad shape"):
        _restore_into_fresh(path, SENTINELS)
    path = _save(tmp_path)

    def unknown_dtype(entries):
        entries["s"].dtype = 99

    _rewrite_index(path, unknown_dtype)
    with pytest.raises(fr.errors.UnimplementedError, match="Tensor s of checkpoint .* DataType 99"):
        fr.train.load_variable(path, "s")
    # Only that tensor: the others still list and load.
    assert fr.train.list_variables(path) == [("a", [2, 3]), ("s", [2])]
    assert fr.train.load_variable(path, "a").shape == (2, 3)
    path = _save(tmp_path)

    def bad_shard(entries):
        entries["a"].shard_id = 3

    _rewrite_index(path, bad_shard)
    with pytest.raises(fr.errors.DataLossError, match="tensor a is in shard 3 of 1"):
        fr.train.NewCheckpointReader(path)


def test_truncations_and_bit_flips_give_data_loss_and_change_nothing(tmp_path):
    path = _save(tmp_path)
    with fr.Graph().as_default():
        vs = {n: fr.Variable(v, name=n) for n, v in SENTINELS.items()}
        saver = fr.train.Saver(list(vs.values()))
        with fr.Session() as sess:
            for suffix in (DATA, ".index"):
                target = path + suffix
                good = (tmp_path / os.path.basename(target)).read_bytes()
                rng = np.random.default_rng(0)
                cuts = sorted(set(rng.integers(0, len(good), 25).tolist()) | {0, 1, len(good) - 1})
                cases = [good[:n] for n in cuts]
                for bit in rng.integers(0, len(good) * 8, 60).tolist():
                    b = bytearray(good)
                    b[bit // 8] ^= 1 << (bit % 8)
                    cases.append(bytes(b))
                failed = 0
                for blob in cases:
                    sess.run(fr.global_variables_initializer())
                    with open(target, "wb") as f:
                        f.write(blob)
                    try:
                        saver.restore(sess, path)
                    except fr.errors.DataLossError as e:
                        assert target in str(e)
                        failed += 1
                        np.testing.assert_array_equal(sess.run(vs["a"]), SENTINELS["a"])
                        assert list(sess.run(vs["s"])) == [b"?", b"?"]
                        continue
                    # Only a flip in the index footer's padding (read by nothing) may load:
                    # then the values must be exactly the saved ones.
                    assert suffix == ".index"
                    np.testing.assert_array_equal(sess.run(vs["a"]), np.arange(6.0).reshape(2, 3))
                    assert list(sess.run(vs["s"])) == [b"xy", b""]
                with open(target, "wb") as f:
                    f.write(good)
                assert failed >= len(cuts)


def test_failed_restore_changes_no_variable(tmp_path):
    path = _save(tmp_path)
    data = tmp_path / ("m" + DATA)
    b = bytearray(data.read_bytes())
    b[-1] ^= 1  # "a" is fine, "s" (read after it) is damaged
    data.write_bytes(bytes(b))
    with fr.Graph().as_default():
        a = fr.Variable(SENTINELS["a"], name="a")
        s = fr.Variable(SENTINELS["s"], name="s")
        with fr.Session() as sess:
            sess.run(fr.global_variables_initializer())
            with pytest.raises(fr.errors.DataLossError, match="tensor s"):
                fr.train.Saver([a, s]).restore(sess, path)
            np.testing.assert_array_equal(sess.run(a), SENTINELS["a"])


def test_not_a_checkpoint_at_all(tmp_path):
    path = str(tmp_path / "x")
    (tmp_path / "x.index").write_bytes(b"\x00" * 100)
    (tmp_path / ("x" + DATA)).write_bytes(b"\x00" * 100)
    with pytest.raises(fr.errors.DataLossError, match=r"x\.index.*bad magic number"):
        _restore_into_fresh(path, SENTINELS)
    assert saver_mod.checkpoint_exists(path)
    (tmp_path / "x.index").write_text("{}")
    with pytest.raises(fr.errors.DataLossError, match="written by an older flowrt"):
        _restore_into_fresh(path, SENTINELS)
