"""fr.train.NewCheckpointReader: names, shapes, dtypes and values of a saved checkpoint,
with TF's error classes for a missing key or checkpoint."""

import numpy as np
import pytest

import flowrt as fr


def _save(tmp_path):
    with fr.Graph().as_default():
        fr.Variable([1.0, 2.0], name="v")
        fr.get_variable("sc/w", [2, 3], dtype=fr.float64, initializer=fr.ones_initializer())
        fr.Variable(3, name="i")
        fr.Variable([b"a", b"bc"], name="s")
        with fr.Session() as sess:
            sess.run(fr.global_variables_initializer())
            return fr.train.Saver().save(sess, str(tmp_path / "m"), global_step=7)


def test_reader_lists_and_reads_variables(tmp_path):
    prefix = _save(tmp_path)
    r = fr.train.NewCheckpointReader(prefix)
    assert r.get_variable_to_shape_map() == {"v": [2], "sc/w": [2, 3], "i": [], "s": [2]}
    assert r.get_variable_to_dtype_map() == {
        "v": fr.float32,
        "sc/w": fr.float64,
        "i": fr.int32,
        "s": fr.string,
    }
    assert r.has_tensor("sc/w") and not r.has_tensor("w")
    np.testing.assert_array_equal(r.get_tensor("v"), np.array([1.0, 2.0], np.float32))
    assert r.get_tensor("sc/w").dtype == np.float64
    np.testing.assert_array_equal(r.get_tensor("sc/w"), np.ones((2, 3)))
    assert r.get_tensor("i") == 3
    assert list(r.get_tensor("s")) == [b"a", b"bc"]
    assert r.debug_string().splitlines()[0] == b"i (int32) []"


def test_reader_errors_are_tfs(tmp_path):
    prefix = _save(tmp_path)
    r = fr.train.NewCheckpointReader(prefix)
    with pytest.raises(fr.errors.NotFoundError, match="Key zz not found in checkpoint"):
        r.get_tensor("zz")
    with pytest.raises(fr.errors.NotFoundError):
        fr.train.NewCheckpointReader(str(tmp_path / "nope"))


def _save_old(tmp_path):
    with fr.Graph().as_default():
        with fr.variable_scope("old"):
            fr.get_variable("a", [2], initializer=fr.constant_initializer(5.0))
            fr.get_variable("sub/b", [1], initializer=fr.constant_initializer(7.0))
        fr.get_variable("c", [3], initializer=fr.constant_initializer(9.0))
        with fr.Session() as sess:
            sess.run(fr.global_variables_initializer())
            return fr.train.Saver().save(sess, str(tmp_path / "m"))


def test_init_from_checkpoint_by_scope_name_and_variable(tmp_path):
    _save_old(tmp_path)
    with fr.variable_scope("new"):
        a = fr.get_variable("a", [2])
        b = fr.get_variable("sub/b", [1])
    x = fr.get_variable("x", [3])
    y = fr.Variable([0.0, 0.0], name="y")
    z = fr.get_variable("z", [1], initializer=fr.constant_initializer(1.0))
    # a directory means its latest checkpoint
    fr.train.init_from_checkpoint(str(tmp_path), {"old/": "new/", "c": "x", "old/a": y})
    fr.train.init_from_checkpoint(str(tmp_path), {"old/": "absent_scope/"})  # no-op, as TF
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        r = sess.run([a, b, x, y, z])
    np.testing.assert_array_equal(r[0], [5.0, 5.0])
    np.testing.assert_array_equal(r[1], [7.0])
    np.testing.assert_array_equal(r[2], [9.0, 9.0, 9.0])
    np.testing.assert_array_equal(r[3], [5.0, 5.0])
    np.testing.assert_array_equal(r[4], [1.0])  # not in the map: its own initializer


def test_init_from_checkpoint_errors_are_value_errors(tmp_path):
    prefix = _save_old(tmp_path)
    fr.get_variable("x", [3])
    fr.get_variable("w", [3], dtype=fr.float64)
    with pytest.raises(ValueError, match="Tensor nope is not found"):
        fr.train.init_from_checkpoint(prefix, {"nope": "x"})
    with pytest.raises(ValueError, match="Shape of variable x:0"):
        fr.train.init_from_checkpoint(prefix, {"old/a": "x"})
    with pytest.raises(ValueError, match="dtype of variable w:0"):
        fr.train.init_from_checkpoint(prefix, {"c": "w"})
    with pytest.raises(ValueError, match="should map to scope only"):
        fr.train.init_from_checkpoint(prefix, {"c": "some_scope"})
