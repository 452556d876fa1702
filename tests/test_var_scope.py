"""fr.get_variable and fr.variable_scope: TF1 naming, reuse and defaults."""

import threading

import numpy as np
import pytest

import flowrt as fr


def test_get_variable_names_and_default_initializers():
    with fr.variable_scope("a") as scope:
        w = fr.get_variable("w", [20, 30])
        i = fr.get_variable("i", [3], dtype=fr.int32)
        x = fr.get_variable("x", initializer=fr.constant([1.0, 2.0]))
        assert fr.get_variable_scope() is scope
    assert scope.name == "a" and scope.original_name_scope == "a/"
    assert [w.name, i.name, x.name] == ["a/w:0", "a/i:0", "a/x:0"]
    assert w.initializer.name == "a/w/Assign"
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        wv, iv, xv = sess.run([w, i, x])
    limit = np.sqrt(6.0 / 50)
    assert (np.abs(wv) <= limit).all() and wv.std() > limit / 4  # glorot_uniform
    np.testing.assert_array_equal(iv, [0, 0, 0])
    np.testing.assert_array_equal(xv, [1.0, 2.0])


def test_reuse_rules_and_messages():
    with fr.variable_scope("dense1"):
        w = fr.get_variable("weight", [2, 2])
    with pytest.raises(
        ValueError,
        match=r"^Variable dense1/weight already exists, disallowed\. "
        r"Did you mean to set reuse=True",
    ):
        with fr.variable_scope("dense1"):
            fr.get_variable("weight", [2, 2])
    with fr.variable_scope("dense1", reuse=True) as scope:
        assert fr.get_variable("weight") is w
        assert scope.reuse is True and scope.original_name_scope == "dense1_2/"
        with pytest.raises(ValueError, match="Variable dense1/bias does not exist"):
            fr.get_variable("bias", [2])
        with pytest.raises(ValueError, match=r"specified shape \(3,\) and found shape \(2, 2\)"):
            fr.get_variable("weight", [3])
        with pytest.raises(ValueError, match="specified dtype int32 and found dtype float32"):
            fr.get_variable("weight", dtype=fr.int32)
        with fr.variable_scope("inner"):
            assert fr.get_variable_scope().reuse is True  # inherited
    with fr.variable_scope("dense1") as scope:
        scope.reuse_variables()
        assert fr.get_variable("weight") is w
    assert len(fr.global_variables()) == 1


def test_auto_reuse_and_op_name_scopes():
    def layer(x):
        with fr.variable_scope("shared", reuse=fr.AUTO_REUSE):
            w = fr.get_variable("w", [2], initializer=fr.constant_initializer([2.0, 3.0]))
            return x * w, w

    y1, w1 = layer(fr.constant([1.0, 1.0]))
    y2, w2 = layer(y1)
    assert w1 is w2
    assert [y1.op.name, y2.op.name] == ["shared/mul", "shared_1/mul"]
    assert [v.name for v in fr.global_variables()] == ["shared/w:0"]
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(y2), [4.0, 9.0])


def test_default_name_and_scope_objects():
    with fr.variable_scope(None, default_name="layer") as s1:
        pass
    with fr.variable_scope(None, default_name="layer") as s2:
        with fr.variable_scope(s1) as s3:
            v = fr.get_variable("v", [1])
            t = fr.add(1, 2)
    assert (s1.name, s2.name, s3.name) == ("layer", "layer_1", "layer")
    assert v.name == "layer/v:0" and t.name == "layer_1/layer/Add:0"
    with pytest.raises(TypeError, match="name_or_scope is required"):
        fr.variable_scope(None)
    with pytest.raises(ValueError, match="reuse=True cannot be used without a name_or_scope"):
        with fr.variable_scope(None, default_name="x", reuse=True):
            pass
    with pytest.raises(ValueError, match="reuse parameter must be True or False or None"):
        fr.variable_scope("x", reuse="yes")


def test_get_variable_ignores_name_scope_and_scope_defaults():
    with fr.name_scope("ns"):
        gv = fr.get_variable("gv", [1])
        v = fr.Variable(1.0, name="vv")
    assert gv.name == "gv:0" and v.name == "ns/vv:0"
    with fr.variable_scope("d", initializer=fr.ones_initializer(), dtype=fr.float64):
        o = fr.get_variable("o", [2])
        with fr.variable_scope("sub"):
            p = fr.get_variable("p", [1], initializer=fr.zeros_initializer())
    assert o.dtype == fr.float64 and p.dtype == fr.float64 and p.name == "d/sub/p:0"
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(o), [1.0, 1.0])
        np.testing.assert_array_equal(sess.run(p), [0.0])


def test_get_variable_argument_errors():
    with pytest.raises(ValueError, match="If initializer is a constant, do not specify shape"):
        fr.get_variable("c", [2], initializer=fr.constant([1.0, 2.0]))
    with pytest.raises(ValueError, match="did not get an initializer, so its `shape`"):
        fr.get_variable("noshape")
    with pytest.raises(
        ValueError, match="Initializer type 'int32' and explicit dtype 'float32' don't match"
    ):
        fr.get_variable("m", initializer=fr.constant([1, 2]), dtype=fr.float32)


def test_trainable_collections_regularizer_custom_getter():
    n = fr.get_variable("frozen", [2], trainable=False)
    loc = fr.get_local_variable("loc", [1])
    fr.get_variable(
        "r", [2], initializer=fr.ones_initializer(), regularizer=lambda v: fr.reduce_sum(v) * 0.5
    )
    assert n not in fr.trainable_variables() and n in fr.global_variables()
    assert loc in fr.local_variables() and loc not in fr.global_variables()
    losses = fr.get_collection(fr.GraphKeys.REGULARIZATION_LOSSES)
    assert len(losses) == 1 and losses[0].op.name.startswith("r/Regularizer/")

    def getter(next_getter, name, *args, **kwargs):
        return next_getter(name + "_custom", *args, **kwargs)

    with fr.variable_scope("cg", custom_getter=getter):
        c = fr.get_variable("c", [1])
    assert c.name == "cg/c_custom:0"
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        assert sess.run(losses[0]) == 1.0


def test_variable_scope_is_per_graph_and_per_thread():
    with fr.variable_scope("outer"):
        seen = {}

        def other():
            seen["name"] = fr.get_variable_scope().name

        t = threading.Thread(target=other)
        t.start()
        t.join()
        with fr.Graph().as_default():
            assert fr.get_variable_scope().name == ""
        assert fr.get_variable_scope().name == "outer"
    assert seen["name"] == ""


def test_global_step_helpers():
    assert fr.train.get_global_step() is None
    gs = fr.train.get_or_create_global_step()
    assert gs.name == "global_step:0" and gs.dtype == fr.int64 and gs.shape.as_list() == []
    assert fr.train.get_global_step() is gs is fr.train.get_or_create_global_step()
    assert gs not in fr.trainable_variables() and gs in fr.global_variables()
    assert fr.get_collection(fr.GraphKeys.GLOBAL_STEP) == [gs]
    with pytest.raises(ValueError, match='"global_step" already exists'):
        fr.train.create_global_step()
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        sess.run(gs.assign_add(5))
        assert fr.train.global_step(sess, gs) == 5
    with fr.Graph().as_default():
        fr.Variable(0.5, name="global_step")
        with pytest.raises(TypeError, match="does not have integer type"):
            fr.train.get_global_step()
