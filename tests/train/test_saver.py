"""fr.train.Saver: naming, state file, restore by name, max_to_keep, atomic writes."""

import os

import numpy as np
import pytest

import flowrt as fr
from flowrt.train import saver as saver_mod


def _model():
    w = fr.get_variable("w", initializer=fr.constant([[1.0, 2.0], [3.0, 4.0]]))
    b = fr.Variable([0.5], name="b")
    s = fr.Variable(["ab", "c\x00"], name="s")
    gs = fr.train.get_or_create_global_step()
    return w, b, s, gs


def test_save_restore_naming_and_state_file(tmp_path):
    w, b, s, gs = _model()
    saver = fr.train.Saver()
    prefix = str(tmp_path / "model.ckpt")
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        sess.run([w.assign(w * 10.0), gs.assign(20)])
        path = saver.save(sess, prefix, global_step=gs)
        assert path == prefix + "-20"
        assert saver.save(sess, prefix, global_step=7) == prefix + "-7"
    assert sorted(os.listdir(tmp_path)) == [
        "checkpoint",
        "model.ckpt-20.data-00000-of-00001",
        "model.ckpt-20.index",
        "model.ckpt-20.meta",
        "model.ckpt-7.data-00000-of-00001",
        "model.ckpt-7.index",
        "model.ckpt-7.meta",
    ]
    assert (tmp_path / "checkpoint").read_text() == (
        'model_checkpoint_path: "%s-7"\n'
        'all_model_checkpoint_paths: "%s-20"\n'
        'all_model_checkpoint_paths: "%s-7"\n' % (prefix, prefix, prefix)
    )
    assert fr.train.latest_checkpoint(str(tmp_path)) == prefix + "-7"
    state = fr.train.get_checkpoint_state(str(tmp_path))
    assert state.model_checkpoint_path == prefix + "-7"
    assert state.all_model_checkpoint_paths == [prefix + "-20", prefix + "-7"]
    assert saver.last_checkpoints == [prefix + "-20", prefix + "-7"]
    with fr.Session() as sess2:
        with pytest.raises(fr.errors.FailedPreconditionError):
            sess2.run(w)
        saver.restore(sess2, path)
        np.testing.assert_array_equal(sess2.run(w), [[10.0, 20.0], [30.0, 40.0]])
        assert sess2.run(gs) == 20
        assert list(sess2.run(s)) == [b"ab", b"c\x00"]
    assert dict(fr.train.list_variables(path)) == {
        "b": [1],
        "global_step": [],
        "s": [2],
        "w": [2, 2],
    }
    np.testing.assert_array_equal(fr.train.load_variable(str(tmp_path), "b"), [0.5])
    # A tensor name reads its variable, as TF's load_variable (CheckpointSaverHook's use).
    assert fr.train.load_variable(str(tmp_path), "global_step:0") == 20


def test_restore_into_fresh_graph_by_name_and_missing_variable(tmp_path):
    with fr.Graph().as_default():
        v = fr.Variable([1.0, 2.0], name="v")
        with fr.Session() as sess:
            sess.run(v.initializer)
            path = fr.train.Saver().save(sess, str(tmp_path / "m"))
    assert path == str(tmp_path / "m")
    with fr.Graph().as_default():
        v2 = fr.Variable([0.0, 0.0], name="v")
        fr.Variable(3.0, name="w")
        with fr.Session() as sess:
            fr.train.Saver([v2]).restore(sess, path)
            np.testing.assert_array_equal(sess.run(v2), [1.0, 2.0])
            with pytest.raises(fr.errors.NotFoundError, match="key w not found in checkpoint"):
                fr.train.Saver().restore(sess, path)
            # Saving under other names with a dict.
            fr.train.Saver({"renamed": v2}).save(sess, str(tmp_path / "d"))
        assert [n for n, _ in fr.train.list_variables(str(tmp_path / "d"))] == ["renamed"]
    with fr.Graph().as_default():
        fr.Variable([0.0, 0.0, 0.0], name="v")
        with fr.Session() as sess:
            with pytest.raises(fr.errors.InvalidArgumentError, match=r"shape \[2\]"):
                fr.train.Saver().restore(sess, path)


def test_saver_argument_errors(tmp_path):
    with pytest.raises(ValueError, match="No variables to save"):
        fr.train.Saver()
    v = fr.Variable(1.0, name="v")
    with pytest.raises(ValueError, match="At least two variables have the same name: v"):
        with fr.Graph().as_default():
            a = fr.Variable(1.0, name="v")
            b = fr.Variable(1.0, name="v")
            b.op.name = "v"  # force a clash
            fr.train.Saver([a, b])
    saver = fr.train.Saver([v])
    with fr.Session() as sess:
        with pytest.raises(ValueError, match="not a valid checkpoint"):
            saver.restore(sess, str(tmp_path / "nothing"))
        with pytest.raises(ValueError, match="when it is None"):
            saver.restore(sess, None)
        with pytest.raises(ValueError, match="Parent directory of .* doesn't exist"):
            saver.save(sess, str(tmp_path / "no" / "such" / "dir"))
        with pytest.raises(fr.errors.FailedPreconditionError, match="v"):
            saver.save(sess, str(tmp_path / "x"))
    assert fr.train.latest_checkpoint(str(tmp_path / "nowhere")) is None
    assert fr.train.get_checkpoint_state(str(tmp_path / "nowhere")) is None


def test_max_to_keep_deletes_old_checkpoints(tmp_path):
    v = fr.Variable(0, name="v")
    saver = fr.train.Saver(max_to_keep=2)
    prefix = str(tmp_path / "model.ckpt")
    with fr.Session() as sess:
        sess.run(v.initializer)
        for step in range(4):
            sess.run(v.assign(step))
            saver.save(sess, prefix, global_step=step)
    files = sorted(os.listdir(tmp_path))
    assert files == [
        "checkpoint",
        "model.ckpt-2.data-00000-of-00001",
        "model.ckpt-2.index",
        "model.ckpt-2.meta",
        "model.ckpt-3.data-00000-of-00001",
        "model.ckpt-3.index",
        "model.ckpt-3.meta",
    ]
    assert saver.last_checkpoints == [prefix + "-2", prefix + "-3"]
    assert (
        fr.train.get_checkpoint_state(str(tmp_path)).all_model_checkpoint_paths
        == saver.last_checkpoints
    )
    with fr.Session() as sess:
        saver.restore(sess, fr.train.latest_checkpoint(str(tmp_path)))
        assert sess.run(v) == 3


def test_crash_mid_save_leaves_previous_checkpoint_loadable(tmp_path, monkeypatch):
    v = fr.Variable(1.0, name="v")
    saver = fr.train.Saver()
    prefix = str(tmp_path / "model.ckpt")
    with fr.Session() as sess:
        sess.run(v.initializer)
        first = saver.save(sess, prefix, global_step=1)
        sess.run(v.assign(2.0))

        def crashing_writer(values, f):
            f.write(b"\x00\x00\x80? partial")
            raise OSError("disk full")

        monkeypatch.setattr(saver_mod, "write_bundle", crashing_writer)
        with pytest.raises(OSError, match="disk full"):
            saver.save(sess, prefix, global_step=2)
        # Same prefix again: the old complete file must survive a crash too.
        with pytest.raises(OSError, match="disk full"):
            saver.save(sess, prefix, global_step=1)
        monkeypatch.undo()
    assert sorted(os.listdir(tmp_path)) == [
        "checkpoint",
        "model.ckpt-1.data-00000-of-00001",
        "model.ckpt-1.index",
        "model.ckpt-1.meta",
    ]
    assert fr.train.latest_checkpoint(str(tmp_path)) == first
    assert saver.last_checkpoints == [first]
    with fr.Session() as sess:
        saver.restore(sess, first)
        assert sess.run(v) == 1.0


def test_crash_while_writing_state_file_keeps_old_state(tmp_path, monkeypatch):
    v = fr.Variable(1.0, name="v")
    saver = fr.train.Saver()
    prefix = str(tmp_path / "model.ckpt")
    with fr.Session() as sess:
        sess.run(v.initializer)
        first = saver.save(sess, prefix, global_step=1)
        real_replace = os.replace

        def failing_replace(src, dst):
            if os.path.basename(dst) == "checkpoint":
                raise OSError("power cut")
            real_replace(src, dst)

        monkeypatch.setattr(saver_mod.os, "replace", failing_replace)
        with pytest.raises(OSError, match="power cut"):
            saver.save(sess, prefix, global_step=2)
    assert fr.train.latest_checkpoint(str(tmp_path)) == first
    assert not [f for f in os.listdir(tmp_path) if f.endswith(".tmp")]


def test_save_creates_a_missing_directory_with_tfs_file_modes(tmp_path):
    # TF 2.21 creates the checkpoint directory when its parent exists, and its files
    # are 0666 less the umask (0644), where mkstemp's 0600 hid them from other users.
    v = fr.Variable(1.0, name="v")
    with fr.Session() as sess:
        sess.run(v.initializer)
        path = fr.train.Saver().save(sess, str(tmp_path / "new" / "model"))
    assert path == str(tmp_path / "new" / "model")
    umask = os.umask(0o022)
    os.umask(umask)
    modes = {p.name: p.stat().st_mode & 0o777 for p in (tmp_path / "new").iterdir()}
    assert set(modes) == {"checkpoint", "model.index", "model.data-00000-of-00001", "model.meta"}
    assert set(modes.values()) == {0o666 & ~umask}


def test_checkpoint_state_timestamps_round_trip_as_tf_writes_them(tmp_path):
    d = str(tmp_path)
    state = fr.train.get_checkpoint_state
    fr.train.update_checkpoint_state(d, d + "/m-2", [d + "/m-1"])
    s = state(d)
    assert (s.all_model_checkpoint_timestamps, s.last_preserved_timestamp) == ([], 0.0)
    fr.train.update_checkpoint_state(
        d,
        d + "/m-2",
        [d + "/m-1", d + "/m-2"],
        all_model_checkpoint_timestamps=[1796466000.5, 1796466001.25],
        last_preserved_timestamp=1796465000.0,
    )
    # TF's text format of CheckpointState (TF 2.21 reads it back with the same values).
    assert (tmp_path / "checkpoint").read_text().splitlines()[-3:] == [
        "all_model_checkpoint_timestamps: 1796466000.5",
        "all_model_checkpoint_timestamps: 1796466001.25",
        "last_preserved_timestamp: 1796465000.0",
    ]
    s = state(d)
    assert s.all_model_checkpoint_timestamps == [1796466000.5, 1796466001.25]
    assert s.last_preserved_timestamp == 1796465000.0
    with pytest.raises(ValueError, match="timestamps, if provided, must match checkpoint paths"):
        fr.train.generate_checkpoint_state_proto(d, d + "/m", [d + "/m"], [1.0, 2.0])


def test_failed_resave_to_the_same_prefix_leaves_the_previous_checkpoint_loadable(
    tmp_path, monkeypatch
):
    # os.replace fails at its second call, between moving the data file and the index.
    prefix = str(tmp_path / "model.ckpt")
    with fr.Graph().as_default():
        v = fr.Variable(np.arange(5.0), name="v")
        saver = fr.train.Saver()
        with fr.Session() as s:
            s.run(v.initializer)
            saver.save(s, prefix, write_meta_graph=False)
            s.run(v.assign(v * 10 + 1))
            real, calls = os.replace, []

            def flaky(src, dst):
                calls.append(dst)
                if len(calls) == 2:
                    raise OSError("disk unplugged")
                real(src, dst)

            monkeypatch.setattr(os, "replace", flaky)
            with pytest.raises(OSError, match="disk unplugged"):
                saver.save(s, prefix, write_meta_graph=False)
            monkeypatch.setattr(os, "replace", real)
    np.testing.assert_array_equal(fr.train.load_variable(prefix, "v"), np.arange(5.0))
    assert sorted(os.listdir(tmp_path)) == [
        "checkpoint",
        "model.ckpt.data-00000-of-00001",
        "model.ckpt.index",
    ]
