"""variable_scope and variable details TF1 programs rely on (issue 12, item 8)."""

import numpy as np
import pytest

import flowrt as fr


def test_scope_names_are_checked_as_tf():
    with pytest.raises(ValueError, match="'_' is not a valid root scope name"):
        with fr.variable_scope("_"):
            pass
    with pytest.raises(ValueError, match="'x y' is not a valid root scope name"):
        with fr.name_scope("x y"):
            pass
    g1, g2 = fr.Graph(), fr.Graph()
    with g1.as_default(), g2.as_default():  # TF's testTwoGraphs
        with pytest.raises(ValueError, match="'_' is not a valid (?:root )?scope name"):
            with fr.variable_scope("_"):
                pass
        assert fr.get_variable_scope().name == "" and g2.get_name_scope() == ""
    with fr.variable_scope("a"):
        with fr.variable_scope("_b"):  # allowed below the root, as in TF
            assert fr.get_variable("v", []).name == "a/_b/v:0"
    with pytest.raises(ValueError, match="'a b' is not a valid scope name"):
        with fr.name_scope("ok"), fr.name_scope("a b"):
            pass


def test_failed_scope_exit_leaves_a_consistent_stack():
    outer, inner = fr.variable_scope("outer"), fr.variable_scope("inner")
    outer.__enter__()
    inner.__enter__()
    with pytest.raises(RuntimeError, match="Improper nesting of variable_scope"):
        outer.__exit__(None, None, None)
    with pytest.raises(RuntimeError, match="closed when an enclosing variable_scope exited"):
        inner.__exit__(None, None, None)
    g = fr.get_default_graph()
    assert fr.get_variable_scope().name == "" and g.get_name_scope() == ""
    with fr.variable_scope("next"):
        assert fr.get_variable("w", []).name == "next/w:0"
    with pytest.raises(KeyError):
        with fr.variable_scope("body"):
            raise KeyError("boom")
    assert fr.get_variable_scope().name == "" and g.get_name_scope() == ""


def test_string_variable_without_initializer_is_empty_bytes():
    s = fr.get_variable("s", [], dtype=fr.string)
    s2 = fr.get_variable("s2", [2], dtype=fr.string)
    assert fr.zeros([2], fr.string).dtype == fr.string
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        got, got2 = sess.run([s, s2])
    assert got == b"" and got2.tolist() == [b"", b""]


def test_caching_device_is_where_the_value_is_read():
    with fr.variable_scope("s", caching_device="/cpu:1"):
        w = fr.get_variable("w", [2])
        u = fr.get_variable("u", [2], caching_device="/job:c")
    v = fr.Variable(1.0, caching_device=lambda op: "/cpu:2")
    assert w.value().op.device == "/device:CPU:1" and w.op.device == ""
    assert u.value().op.device == "/job:c"
    assert v.value().op.device == "/device:CPU:2"
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        assert sess.run(w * 2.0).shape == (2,) and sess.run(v) == 1.0


def test_device_functions_as_tf():
    def consts_on_cpu1(op):
        return "/cpu:1" if op.type == "Const" else ""

    def ps(op):
        return "/job:ps/task:%d" % (0 if op.type.startswith("Var") else 1)

    with fr.device("/job:w"):
        with fr.device(consts_on_cpu1):
            a = fr.constant(1.0)
            b = a + 1
            with fr.device("/gpu:0"):
                c = fr.constant(2.0)
        with fr.device(ps):
            v = fr.Variable(1.0)
            d = v + 1
            with fr.device("/cpu:0"):
                e = fr.constant(3.0)
            with fr.device(None):
                h = fr.constant(3.0)
        k = fr.constant(0.0)
    got = [x.op.device for x in (a, b, c, v, d, e, h, k)]
    # The values TF 2.21 gives for the same program.
    assert got == [
        "/job:w/device:CPU:1",
        "/job:w",
        "/job:w/device:CPU:1",
        "/job:ps/task:0",
        "/job:ps/task:1",
        "/job:ps/task:1",
        "",
        "/job:w",
    ]


def test_variable_creator_scope_as_tf():
    seen = []

    def rename(next_creator, **kw):
        seen.append(("rename", sorted(kw)))
        kw["name"] = "renamed"
        return next_creator(**kw)

    def watch(next_creator, **kw):
        seen.append(("watch", kw["name"]))
        return next_creator(**kw)

    with fr.variable_creator_scope(rename):
        with fr.variable_creator_scope(watch):
            v = fr.Variable(1.0, name="orig")
            w = fr.get_variable("gv", [2])
    x = fr.Variable(2.0, name="after")
    assert v.name == "renamed:0" and w.name == "renamed_1:0" and x.name == "after:0"
    assert seen[0] == ("watch", "orig") and seen[2] == ("watch", "gv")
    assert {"initial_value", "name", "trainable", "caching_device", "dtype"} <= set(seen[1][1])
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        assert sess.run(v) == 1.0
        np.testing.assert_array_equal(sess.run(w).shape, [2])
