"""fr.GradientTape inside functions: watch, persistent, stop_recording, accessed
variables, nesting; and the same gradient subgraph as fr.gradients."""

import numpy as np
import pytest

import flowrt as fr


def test_gradient_of_watched_tensor_and_accessed_variable():
    w = fr.Variable(np.float32(2.0))

    @fr.function
    def f(x):
        with fr.GradientTape() as tape:
            tape.watch(x)
            y = x * x * w
        return tape.gradient(y, [x, w])

    gx, gw = f(np.float32(3.0))
    assert gx == 12.0 and gw == 9.0


def test_unwatched_tensor_gives_none_or_zero():
    @fr.function
    def f(x):
        with fr.GradientTape(persistent=True) as tape:
            y = x * x
        assert tape.gradient(y, x) is None
        return tape.gradient(y, x, unconnected_gradients=fr.UnconnectedGradients.ZERO)

    assert f(np.float32(3.0)) == 0.0


def test_watch_accessed_variables_false_needs_explicit_watch():
    a, b = fr.Variable(1.0), fr.Variable(2.0)

    @fr.function
    def f():
        with fr.GradientTape(watch_accessed_variables=False) as tape:
            tape.watch(a)
            y = a * b
        assert tape.watched_variables() == (a,)
        ga, gb = tape.gradient(y, [a, b])
        assert gb is None
        return ga

    assert f() == 2.0


def test_persistent_tape_computes_several_gradients_and_plain_tape_only_one():
    @fr.function
    def f(x):
        with fr.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = x * x
            z = y * y
        return tape.gradient(z, x), tape.gradient(y, x)

    assert f(np.float32(2.0)) == (32.0, 4.0)

    @fr.function
    def g(x):
        with fr.GradientTape() as tape:
            tape.watch(x)
            y = x * x
        tape.gradient(y, x)
        return tape.gradient(y, x)

    with pytest.raises(RuntimeError, match="A non-persistent GradientTape can only be used"):
        g(np.float32(2.0))


def test_stop_recording_holds_ops_constant():
    @fr.function
    def f(x):
        with fr.GradientTape() as tape:
            tape.watch(x)
            y = x * x
            with tape.stop_recording():
                c = x * 10.0  # not recorded: a constant for the tape
            z = y + c * x
        return tape.gradient(z, x)

    # dz/dx = 2x + c (c held constant) = 6 + 30
    assert f(np.float32(3.0)) == 36.0


def test_nested_tapes_give_second_order():
    @fr.function
    def f(x):
        with fr.GradientTape() as outer:
            outer.watch(x)
            with fr.GradientTape() as inner:
                inner.watch(x)
                y = x * x * x
            dy = inner.gradient(y, x)
        return dy, outer.gradient(dy, x)

    assert f(np.float64(2.0)) == (12.0, 12.0)


def test_tape_outside_a_function_says_why_and_what_to_do():
    with pytest.raises(RuntimeError, match=r"inside an @fr.function.*fr.gradients"):
        with fr.GradientTape():
            pass


def test_tape_gradient_through_while_loop_and_cond():
    @fr.function
    def f(x):
        with fr.GradientTape() as tape:
            tape.watch(x)
            y = fr.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * x), [0, x])[1]
            z = fr.cond(y > 0.0, lambda: y * 2.0, lambda: y)
        return tape.gradient(z, x)

    assert f(np.float32(2.0)) == pytest.approx(2 * 4 * 8.0)  # d(2 x**4)/dx


def test_tape_adds_the_same_ops_as_fr_gradients():
    marks = {}

    @fr.function
    def f(x):
        with fr.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = fr.reduce_sum(fr.exp(x) * fr.sin(x))
        g = fr.get_default_graph()
        n0 = len(g.get_operations())
        tape.gradient(y, x)
        n1 = len(g.get_operations())
        fr.gradients(y, x)
        n2 = len(g.get_operations())
        marks["tape"] = [op.type for op in g.get_operations()[n0:n1]]
        marks["gradients"] = [op.type for op in g.get_operations()[n1:n2]]
        return y

    f.get_concrete_function(np.ones(3, np.float32))
    assert marks["tape"] == marks["gradients"] and "Exp" not in marks["tape"]


def test_tape_reaches_variables_used_inside_a_called_function():
    w = fr.Variable(np.float32(3.0))

    @fr.function
    def inner(x):
        return x * w

    @fr.function
    def outer(x):
        with fr.GradientTape() as tape:
            y = inner(x) * w
        return tape.gradient(y, w)

    assert outer(np.float32(2.0)) == 12.0  # y = 2 w**2


def test_tape_reaches_variables_read_inside_loops_branches_and_calls():
    v = fr.Variable(3.0)
    w = fr.Variable(np.float32(2.0))

    @fr.function
    def inner(x):
        return x * v

    @fr.function
    def f(x):
        with fr.GradientTape() as tape:
            y = fr.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * w), [0, x])[1]
            z = fr.cond(y > 0, lambda: inner(y) * w, lambda: y)
        return tape.gradient(z, [w, v])

    # z = v x w**4: dz/dw = 4 v x w**3, dz/dv = x w**4
    assert f(np.float32(1.0)) == [96.0, 16.0]
