"""xlogy, xdivy, xlog1py, multiply_no_nan, reciprocal_no_nan and polyval against the values
TF 2.21 (tensorflow.compat.v1, graph mode) gives; gradients are in tests/grad_specs."""

import numpy as np
import pytest

import flowrt as fr

X = np.array([0.0, 0.0, 1.5, -2.0, 3.0])
Y = np.array([0.0, 2.0, 0.5, 0.0, -1.0])
INF, NAN = np.inf, np.nan

# TF 2.21's results on X, Y: the value, then the gradients of reduce_sum(f(X, Y)) wrt X, Y.
TF = {
    "xlogy": (
        [0.0, 0.0, -1.0397207708399179, INF, NAN],
        [0.0, 0.0, -0.6931471805599453, -INF, NAN],
        [0.0, 0.0, 3.0, -INF, -3.0],
    ),
    "xdivy": ([0.0, 0.0, 3.0, -INF, -3.0], [0.0, 0.0, 2.0, INF, -1.0], [0.0, 0.0, -6.0, INF, -3.0]),
    "xlog1py": (
        [0.0, 0.0, 0.6081976621622466, 0.0, -INF],
        [0.0, 0.0, 0.4054651081081644, 0.0, -INF],
        [0.0, 0.0, 1.0, -2.0, INF],
    ),
    "multiply_no_nan": (
        [0.0, 0.0, 0.75, 0.0, -3.0],
        [0.0, 2.0, 0.5, 0.0, -1.0],
        [0.0, 0.0, 1.5, -2.0, 3.0],
    ),
}
OP = {
    "xlogy": ("Xlogy", "Xlogy"),
    "xdivy": ("Xdivy", "xdivy/Xdivy"),
    "xlog1py": ("Xlog1py", "xlog1py/Xlog1py"),
    "multiply_no_nan": ("MulNoNan", "multiply_no_nan"),
}


@pytest.mark.parametrize("fn", sorted(TF))
def test_values_gradients_and_names_as_tf(fn):
    with fr.Graph().as_default():
        x, y = fr.constant(X), fr.constant(Y)
        z = getattr(fr.math, fn)(x, y)
        assert (z.op.type, z.op.name) == OP[fn]
        assert z.dtype == fr.float64 and z.shape.as_list() == [5]
        out = fr.Session().run([z] + fr.gradients(fr.reduce_sum(z), [x, y]))
    for got, want in zip(out, TF[fn]):
        np.testing.assert_allclose(got, want, rtol=1e-15)


def test_multiply_no_nan_is_zero_where_y_is_zero_even_for_inf_and_nan():
    with fr.Graph().as_default():
        z = fr.math.multiply_no_nan(fr.constant([np.inf, np.nan, 1.0]), [0.0, 0.0, 2.0])
        np.testing.assert_array_equal(fr.Session().run(z), [0.0, 0.0, 2.0])


def test_broadcasting_and_complex():
    with fr.Graph().as_default():
        z = fr.math.xlogy([[0.0], [2.0]], fr.constant([1.0, np.e, 0.0]))
        assert z.shape.as_list() == [2, 3]
        c = fr.math.xdivy(fr.constant([0j, 2 + 2j]), fr.constant([0j, 1j]))
        assert c.dtype == fr.complex128
        zv, cv = fr.Session().run([z, c])
    np.testing.assert_allclose(zv, [[0.0, 0.0, 0.0], [0.0, 2.0, -np.inf]])
    np.testing.assert_allclose(cv, [0j, 2 - 2j])


@pytest.mark.parametrize("fn", sorted(TF))
def test_integer_inputs_are_rejected_naming_the_op(fn):
    with fr.Graph().as_default():
        with pytest.raises(TypeError, match=r"(?s)%s.*DataType int32 not in list" % OP[fn][0]):
            getattr(fr.math, fn)(fr.constant([1]), fr.constant([1]))


def test_reciprocal_no_nan():
    with fr.Graph().as_default():
        r = fr.math.reciprocal_no_nan(fr.constant([0.0, 2.0, -4.0]))
        assert (r.op.type, r.op.name, r.dtype) == ("DivNoNan", "reciprocal_no_nan", fr.float32)
        np.testing.assert_array_equal(fr.Session().run(r), [0.0, 0.5, -0.25])  # TF 2.21's


def test_polyval_horner_and_empty_coeffs():
    with fr.Graph().as_default():
        x = fr.constant([0.0, 1.0, 2.0])
        p = fr.math.polyval([1.0, 2.0, 3.0], x)  # x**2 + 2x + 3
        assert p.op.name == "polyval/add_1" and p.dtype == fr.float32
        z = fr.math.polyval([], fr.constant([1.0, 2.0]))
        t = fr.math.polyval([fr.constant([[1.0], [2.0]]), 0.5], x)  # broadcast coefficients
        pv, zv, tv = fr.Session().run([p, z, t])
    np.testing.assert_array_equal(pv, [3.0, 6.0, 11.0])  # TF 2.21's
    np.testing.assert_array_equal(zv, [0.0, 0.0])
    np.testing.assert_array_equal(tv, [[0.5, 1.5, 2.5], [0.5, 2.5, 4.5]])
    with pytest.raises(ValueError, match="coeffs must be a list"):
        fr.math.polyval(fr.constant([1.0]), 1.0)
