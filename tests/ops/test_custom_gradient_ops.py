"""fr.custom_gradient and fr.identity_n (expected values recorded from TF 2.21's
tf.compat.v1 in graph mode)."""

import numpy as np
import pytest

import flowrt as fr


@fr.custom_gradient
def _log1pexp(x):
    e = fr.exp(x)

    def grad(dy):
        return dy * (1 - 1 / (1 + e))

    return fr.log(1 + e), grad


def test_identity_n_passes_values_and_shapes():
    with fr.Graph().as_default():
        a, b = fr.identity_n([fr.constant([1.0, 2.0]), fr.constant(3)])
        assert a.op is b.op and a.op.type == "IdentityN" and a.op.name == "IdentityN"
        assert a.shape.as_list() == [2] and b.dtype == fr.int32
        with fr.Session() as s:
            av, bv = s.run([a, b])
        np.testing.assert_array_equal(av, [1.0, 2.0])
        assert bv == 3


def test_grad_fn_replaces_the_gradient():
    with fr.Graph().as_default():
        x = fr.constant([0.0, 1.0, 100.0])
        y = _log1pexp(x)
        (dx,) = fr.gradients(y, x)
        assert y.name == "IdentityN:0" and dx.name == "gradients/IdentityN_grad/mul:0"
        with fr.Session() as s:
            yv, dxv = s.run([y, dx])
    np.testing.assert_allclose(yv[:2], [0.6931472, 1.3132616], rtol=1e-6)
    assert np.isinf(yv[2])
    # The plain gradient exp(x)/(1+exp(x)) is nan at 100; the custom one is finite.
    np.testing.assert_allclose(dxv, [0.5, 0.7310586, 1.0], rtol=1e-6)


def test_several_results_and_arguments():
    @fr.custom_gradient
    def two(a, b):
        def grad(dy1, dy2):
            return dy1 * 3.0 + dy2, dy2 * 5.0

        return (a * b, a + b), grad

    with fr.Graph().as_default():
        a, b = fr.constant(2.0), fr.constant(3.0)
        p, q = two(a, b)
        ga = fr.gradients(p + 2 * q, [a, b])
        with fr.Session() as s:
            assert s.run(ga) == [5.0, 10.0]


def _lin(x):
    w = fr.get_variable("w", [], initializer=fr.constant_initializer(2.0))

    def grad(dy, variables=None):
        return dy * w, [dy * x * 10.0]

    return x * w, grad


def test_variables_get_their_gradient_from_grad_fn_in_gradients_and_optimizers():
    with fr.Graph().as_default():
        with fr.variable_scope("m"):
            z = fr.custom_gradient(_lin)(fr.constant(3.0))
        (w,) = fr.global_variables()
        assert w.name == "m/w:0"
        (gw,) = fr.gradients(z, [w])
        step = fr.train.GradientDescentOptimizer(0.01).minimize(z)
        with fr.Session() as s:
            s.run(fr.global_variables_initializer())
            assert s.run(gw) == 30.0
            s.run(step)
            np.testing.assert_allclose(s.run(w), 1.7, rtol=1e-6)


def test_variables_captured_from_outside_are_found():
    with fr.Graph().as_default():
        w = fr.Variable(2.0, name="outer")
        seen = []

        @fr.custom_gradient
        def f(x):
            def grad(dy, variables):
                seen.extend(v.name for v in variables)
                return dy * w, [dy * 7.0]

            return x * w, grad

        x = fr.constant(3.0)
        y = f(x)
        gx, gw = fr.gradients(y, [x, w])
        with fr.Session() as s:
            s.run(fr.global_variables_initializer())
            assert s.run([gx, gw]) == [2.0, 7.0]
        assert seen == ["outer:0"]


def test_grad_fn_without_variables_argument_is_a_type_error():
    def nov(x):
        w = fr.get_variable("w2", [], initializer=fr.constant_initializer(2.0))
        return x * w, lambda dy: dy * w

    with fr.Graph().as_default():
        with pytest.raises(TypeError) as info:
            fr.custom_gradient(nov)(fr.constant(3.0))
    assert str(info.value) == (
        "@tf.custom_gradient grad_fn must accept keyword argument 'variables', since "
        "function uses variables: [<fr.Variable 'w2:0' shape=() dtype=float32>]"
    )


def test_one_gradient_per_variable_is_required():
    def f(x):
        w = fr.get_variable("w3", [], initializer=fr.constant_initializer(2.0))

        def grad(dy, variables):
            return dy * w, []

        return x * w, grad

    with fr.Graph().as_default():
        z = fr.custom_gradient(f)(fr.constant(3.0))
        with pytest.raises(
            ValueError,
            match="^Must return gradient for each variable from @custom_gradient grad_fn.$",
        ):
            fr.gradients(z, fr.global_variables())


def test_keyword_arguments_are_rejected_in_graph_mode():
    with fr.Graph().as_default(), pytest.raises(ValueError, match="keywords arguments only"):
        _log1pexp(x=fr.constant(1.0))


def test_custom_gradient_with_gradient_tape_in_a_function():
    @fr.function
    def step(x):
        with fr.GradientTape() as tape:
            tape.watch(x)
            y = _log1pexp(x)
        return tape.gradient(y, x)

    with fr.Graph().as_default():
        g = step(fr.constant([0.0, 100.0]))
        with fr.Session() as s:
            np.testing.assert_allclose(s.run(g), [0.5, 1.0], rtol=1e-6)


def test_built_in_the_arguments_graph_with_its_gradient():
    g = fr.Graph()
    with g.as_default():
        x = fr.constant([0.0, 100.0])
    with fr.Graph().as_default():
        y = _log1pexp(x)
    assert y.graph is g
    with g.as_default():
        (dx,) = fr.gradients(y, x)
        with fr.Session() as s:
            np.testing.assert_allclose(s.run(dx), [0.5, 1.0], rtol=1e-6)


def test_grad_pass_through_keeps_values_and_passes_gradients_unchanged():
    with fr.Graph().as_default():
        x = fr.constant([1.0, 2.0])
        y = fr.grad_pass_through(lambda t: fr.round(t * 2.7))(x)
        (g,) = fr.gradients(y * 3.0, x)
        v = fr.Variable(2.0)
        z = fr.constant(3.0)
        w = fr.grad_pass_through(lambda t: t * v)(z)  # reads a variable: it gets no gradient
        gz, gv = fr.gradients(w, [z, v])
        with fr.Session() as s:
            s.run(v.initializer)
            yv, gval, wv, gzv = s.run([y, g, w, gz])
    np.testing.assert_array_equal(yv, [3.0, 5.0])
    np.testing.assert_array_equal(gval, [3.0, 3.0])
    assert (wv, gzv, gv) == (6.0, 1.0, None)
