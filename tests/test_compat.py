"""fr.compat, the TF1/TF2 behaviour switches, fr.logging, fr.gfile, fr.app/fr.flags."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import flowrt as fr


def test_graph_mode_switches_are_accepted_and_eager_ones_refused():
    fr.disable_eager_execution()
    fr.disable_v2_behavior()
    fr.disable_resource_variables()
    fr.disable_control_flow_v2()
    fr.disable_tensor_equality()
    fr.disable_v2_tensorshape()
    fr.enable_v2_tensorshape()  # the one switch that changes something: shapes' view
    fr.enable_resource_variables()
    assert fr.executing_eagerly() is False
    assert fr.executing_eagerly_outside_functions() is False
    assert fr.resource_variables_enabled() is True
    assert fr.control_flow_v2_enabled() is False
    for switch in (fr.enable_eager_execution, fr.enable_v2_behavior, fr.enable_tensor_equality):
        with pytest.raises(NotImplementedError, match="not supported by flowrt"):
            switch()

    @fr.function
    def f(x):
        assert not fr.executing_eagerly()
        return x * 2

    assert f(fr.constant(2.0)) is not None


def test_compat_v1_is_flowrt_itself():
    import flowrt.compat.v1 as tf

    assert tf.Session is fr.Session and tf.placeholder is fr.placeholder
    assert fr.compat.v1 is tf and tf.nn.relu is fr.nn.relu
    with pytest.raises(AttributeError, match="tf.estimator is not supported"):
        tf.estimator  # noqa: B018
    with fr.Graph().as_default():
        x = tf.placeholder(tf.float32, [2])
        with tf.Session() as sess:
            assert sess.run(x * 2, {x: [1, 2]}).tolist() == [2, 4]


def test_compat_string_helpers():
    assert fr.compat.as_bytes("é") == "é".encode() and fr.compat.as_bytes(b"x") == b"x"
    assert fr.compat.as_bytes(bytearray(b"y")) == b"y"
    assert fr.compat.as_text(b"\xc3\xa9") == "é" and fr.compat.as_str("a") == "a"
    assert fr.compat.as_str_any(3) == "3" and fr.compat.as_str_any(b"b") == "b"
    assert fr.compat.path_to_str(__import__("pathlib").Path("/a/b")) == "/a/b"
    for bad in (3, None):
        with pytest.raises(TypeError, match="Expected binary or unicode string"):
            fr.compat.as_bytes(bad)
        with pytest.raises(TypeError, match="Expected binary or unicode string"):
            fr.compat.as_text(bad)
    assert isinstance(np.int32(1), fr.compat.integral_types)
    assert isinstance(np.float32(1), fr.compat.real_types)
    assert fr.compat.forward_compatible(2019, 1, 1)


def test_logging_writes_to_the_flowrt_logger_at_tf_levels(caplog):
    assert (fr.logging.DEBUG, fr.logging.INFO, fr.logging.WARN) == (10, 20, 30)
    assert (fr.logging.ERROR, fr.logging.FATAL) == (40, 50)
    assert fr.get_logger() is logging.getLogger("flowrt")
    before = fr.get_logger().level
    try:
        fr.logging.set_verbosity(fr.logging.INFO)
        assert fr.logging.get_verbosity() == fr.logging.INFO
        with caplog.at_level(logging.INFO, logger="flowrt"):
            fr.logging.info("step %d", 3)
            fr.logging.debug("hidden")
            fr.logging.warn("careful")
            for i in range(7):
                fr.logging.log_every_n(fr.logging.INFO, "every %d", 3, i)
                fr.logging.log_first_n(fr.logging.INFO, "first %d", 2, i)
            fr.logging.log_if(fr.logging.INFO, "yes", True)
            fr.logging.log_if(fr.logging.INFO, "no", False)
        got = [r.getMessage() for r in caplog.records if r.name == "flowrt"]
        assert got[:2] == ["step 3", "careful"]
        assert [m for m in got if m.startswith("every")] == ["every 0", "every 3", "every 6"]
        assert [m for m in got if m.startswith("first")] == ["first 0", "first 1"]
        assert "yes" in got and "no" not in got and "hidden" not in got
    finally:
        fr.get_logger().setLevel(before)


def test_gfile_reads_and_writes_text_and_bytes(tmp_path):
    p = tmp_path / "a.txt"
    with fr.gfile.GFile(str(p), "w") as f:
        f.write("one\n")
        f.write(b"two\n")
    with fr.gfile.GFile(p) as f:
        assert list(f) == ["one\n", "two\n"]
    with fr.gfile.Open(str(p), "rb") as f:
        assert f.read(3) == b"one" and f.tell() == 3 and f.size() == 8
        f.seek(0)
        assert f.readlines() == [b"one\n", b"two\n"]
    assert fr.gfile.FastGFile(str(p), "rb").read() == b"one\ntwo\n"
    with fr.gfile.GFile(str(p), "a") as f:
        f.write("three")
    assert fr.io.gfile.GFile(str(p)).read().endswith("three")
    with pytest.raises(fr.errors.NotFoundError, match="nope"):
        fr.gfile.GFile(str(tmp_path / "nope")).read()
    with pytest.raises(fr.errors.InvalidArgumentError, match="mode"):
        fr.gfile.GFile(str(p), "x")


def test_gfile_file_system_operations(tmp_path):
    d = str(tmp_path / "d" / "e")
    fr.gfile.MakeDirs(d)
    fr.gfile.MakeDirs(d)  # exists: fine
    assert fr.gfile.IsDirectory(d) and fr.io.gfile.isdir(d) and fr.gfile.Exists(d)
    with pytest.raises(fr.errors.AlreadyExistsError):
        fr.gfile.MkDir(d)
    with pytest.raises(fr.errors.NotFoundError):
        fr.gfile.MkDir(str(tmp_path / "x" / "y"))
    f1 = os.path.join(d, "f1")
    fr.gfile.GFile(f1, "w").write("1")
    fr.gfile.Copy(f1, os.path.join(d, "f2"))
    with pytest.raises(fr.errors.AlreadyExistsError):
        fr.gfile.Copy(f1, os.path.join(d, "f2"))
    fr.gfile.Copy(f1, os.path.join(d, "f2"), overwrite=True)
    assert fr.gfile.ListDirectory(d) == ["f1", "f2"] == fr.io.gfile.listdir(d)
    assert fr.gfile.Glob(os.path.join(d, "f*")) == [f1, os.path.join(d, "f2")]
    with pytest.raises(fr.errors.AlreadyExistsError):
        fr.gfile.Rename(f1, os.path.join(d, "f2"))
    fr.gfile.Rename(f1, os.path.join(d, "f3"))
    assert not fr.gfile.Exists(f1)
    st = fr.gfile.Stat(os.path.join(d, "f3"))
    assert st.length == 1 and not st.is_directory and st.mtime_nsec > 0
    walked = list(fr.gfile.Walk(str(tmp_path / "d")))
    assert walked[0][0] == str(tmp_path / "d") and walked[0][1] == ["e"]
    fr.gfile.Remove(os.path.join(d, "f3"))
    with pytest.raises(fr.errors.NotFoundError):
        fr.gfile.Remove(os.path.join(d, "f3"))
    with pytest.raises(fr.errors.NotFoundError, match="Could not find directory"):
        fr.gfile.ListDirectory(str(tmp_path / "missing"))
    fr.gfile.DeleteRecursively(str(tmp_path / "d"))
    assert not fr.gfile.Exists(str(tmp_path / "d"))
    with pytest.raises(fr.errors.NotFoundError):
        fr.gfile.DeleteRecursively(str(tmp_path / "d"))
    assert fr.gfile.Exists("file://" + str(tmp_path))
    with pytest.raises(fr.errors.UnimplementedError, match="gs"):
        fr.gfile.Exists("gs://bucket/x")


def test_app_run_parses_flags_and_calls_main(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(
        textwrap.dedent(
            """
            import flowrt as tf

            tf.flags.DEFINE_integer("steps", 3, "training steps")
            tf.flags.DEFINE_string("name", "x", "a name")
            FLAGS = tf.flags.FLAGS

            def main(argv):
                print(FLAGS.steps, FLAGS.name, argv[1:])
                return 7

            if __name__ == "__main__":
                tf.app.run()
            """
        )
    )
    got = subprocess.run(
        [sys.executable, str(script), "--steps=5", "--unknown=1", "rest"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert got.returncode == 7, got.stderr
    assert got.stdout.split("\n")[0] == "5 x ['--unknown=1', 'rest']"
