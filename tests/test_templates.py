"""fr.make_template: variable sharing and names as TF1's (recorded from TF 2.21's
tf.compat.v1)."""

import numpy as np
import pytest

import flowrt as fr


def _scale(x, factor=1.0):
    w = fr.get_variable("w", [2], initializer=fr.ones_initializer())
    return fr.multiply(x, w * factor, name="mul")


def _names(vs):
    return [v.name for v in vs]


def test_second_call_shares_the_variables_and_names_as_tf():
    with fr.Graph().as_default():
        t = fr.make_template("lin", _scale, factor=2.0)
        a = t(fr.constant([1.0, 2.0]))
        b = t(fr.constant([3.0, 4.0]))
        assert (a.name, b.name) == ("lin/mul_1:0", "lin_1/mul_1:0")
        assert _names(fr.global_variables()) == ["lin/w:0"]
        assert t.name == "lin" and t.variable_scope.name == "lin"
        assert t.variable_scope_name == "lin/"
        assert _names(t.variables) == _names(t.trainable_variables) == ["lin/w:0"]
        assert t.non_trainable_variables == [] and t.local_variables == []
        with fr.Session() as s:
            s.run(fr.global_variables_initializer())
            av, bv = s.run([a, b])
        np.testing.assert_array_equal(av, [2.0, 4.0])
        np.testing.assert_array_equal(bv, [6.0, 8.0])


def test_a_template_has_no_scope_before_its_first_call():
    with fr.Graph().as_default():
        t = fr.make_template("lin", _scale)
        assert t.variable_scope is None and t.variable_scope_name is None
        assert t.variables == []


def test_create_scope_now_and_unique_name():
    with fr.Graph().as_default():
        t = fr.make_template("lin", _scale)
        t(fr.constant([1.0, 2.0]))
        t(fr.constant([1.0, 2.0]))
        t2 = fr.make_template("lin", _scale, create_scope_now_=True)
        assert t2.variable_scope_name == "lin_1/"
        with fr.name_scope("outer"):
            c = t2(fr.constant([1.0, 2.0]))
        d = t2(fr.constant([1.0, 2.0]))
        assert (c.name, d.name) == ("outer/lin_1/mul_1:0", "lin_1_1/mul_1:0")
        t3 = fr.make_template("lin", _scale, unique_name_="myu")
        e, e2 = t3(fr.constant([1.0, 2.0])), t3(fr.constant([1.0, 2.0]))
        assert (e.name, e2.name) == ("myu/mul_1:0", "myu_1/mul_1:0")
        assert _names(fr.global_variables()) == ["lin/w:0", "lin_1/w:0", "myu/w:0"]


def test_a_template_made_in_a_scope_keeps_that_scope():
    with fr.Graph().as_default():
        with fr.variable_scope("vs"):
            t = fr.make_template("tt", _scale)
            e = t(fr.constant([1.0, 2.0]))
        e2 = t(fr.constant([1.0, 2.0]))
        assert (e.name, e2.name) == ("vs/tt/mul_1:0", "tt/mul_1:0")
        assert _names(fr.global_variables()) == ["vs/tt/w:0"]


def test_custom_getter_applies_to_the_template_variables():
    seen = []

    def getter(get, name, *args, **kwargs):
        seen.append(name)
        return get(name, *args, **kwargs)

    with fr.Graph().as_default():
        t = fr.make_template("g", _scale, custom_getter_=getter)
        t(fr.constant([1.0, 2.0]))
        t(fr.constant([1.0, 2.0]))
        assert seen == ["g/w", "g/w"]


def test_a_trainable_variable_made_on_a_later_call_is_an_error():
    def bad(x):
        return x * fr.Variable(1.0, name="v")

    with fr.Graph().as_default():
        t = fr.make_template("bad", bad)
        t(1.0)
        with pytest.raises(ValueError) as info:
            t(1.0)
        msg = str(info.value)
        assert msg.startswith(
            "Trainable variable created when calling a template after the first time, "
            "perhaps you used tf.Variable when you meant tf.get_variable: "
            "[<fr.Variable 'bad_1/v:0' shape=() dtype=float32>]"
        )
        assert "originally defined at:" in msg and "test_templates.py" in msg


def test_name_is_required():
    with pytest.raises(ValueError, match="^name cannot be None.$"):
        fr.make_template(None, _scale)


def test_templates_train_one_set_of_variables():
    with fr.Graph().as_default():
        t = fr.make_template("m", _scale)
        loss = fr.reduce_sum(t(fr.constant([1.0, 2.0]))) + fr.reduce_sum(t(fr.constant([3.0, 4.0])))
        step = fr.train.GradientDescentOptimizer(0.1).minimize(loss)
        with fr.Session() as s:
            s.run(fr.global_variables_initializer())
            s.run(step)
            np.testing.assert_allclose(s.run(t.variables[0]), [0.6, 0.4], rtol=1e-6)
