"""Values, names, shapes and errors of flowrt/ops/cwise_math_ops.py, scan_ops.py,
reduction_ops.py and activation_ops.py, against NumPy and against what TF 2.21's
compat.v1 was seen to give (written into the expectations)."""

import numpy as np
import pytest

import flowrt as fr

X = np.array([-2.0, -0.5, 0.0, 0.5, 2.5], dtype=np.float32)
UNIT = np.array([-0.5, 0.1, 0.9], dtype=np.float32)


def _run(fetches, feed=None):
    with fr.Session() as s:
        return s.run(fetches, feed)


@pytest.mark.parametrize(
    "fn, ref, x",
    [
        (fr.sinh, np.sinh, X),
        (fr.cosh, np.cosh, X),
        (fr.tan, np.tan, X),
        (fr.asin, np.arcsin, UNIT),
        (fr.acos, np.arccos, UNIT),
        (fr.atan, np.arctan, X),
        (fr.asinh, np.arcsinh, X),
        (fr.acosh, np.arccosh, np.abs(X) + 1),
        (fr.atanh, np.arctanh, UNIT),
        (fr.expm1, np.expm1, X),
        (fr.nn.softsign, lambda v: v / (1 + np.abs(v)), X),
    ],
)
def test_unary_values_names_and_dtype(fn, ref, x):
    with fr.Graph().as_default():
        y = fn(fr.constant(x))
        assert y.dtype == fr.float32 and y.shape.as_list() == [x.size]
        assert y.op.type == y.op.name  # TF names the op after its type: Sinh, Softsign, ...
        np.testing.assert_allclose(_run(y), ref(x), rtol=1e-6)


def test_rint_rounds_halves_to_even():
    with fr.Graph().as_default():
        np.testing.assert_array_equal(
            _run(fr.rint(fr.constant([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.7]))),
            [-2.0, -2.0, -0.0, 0.0, 2.0, 2.0, 1.0],
        )


def test_is_nan_inf_finite_give_bool():
    with fr.Graph().as_default():
        x = fr.constant(X) / 0.0  # [-inf, -inf, nan, inf, inf]
        r = _run([fr.is_nan(x), fr.is_inf(x), fr.is_finite(x), fr.is_finite(fr.constant(X))])
        assert all(v.dtype == np.bool_ for v in r)
        np.testing.assert_array_equal(r[0], [False, False, True, False, False])
        np.testing.assert_array_equal(r[1], [True, True, False, True, True])
        np.testing.assert_array_equal(r[2], [False] * 5)
        np.testing.assert_array_equal(r[3], [True] * 5)


def test_int_only_ops_reject_floats_and_float_ops_reject_ints():
    with fr.Graph().as_default():
        with pytest.raises(TypeError, match="Rint"):
            fr.rint(fr.constant([1, 2]))
        with pytest.raises(TypeError, match="TruncateDiv"):
            fr.truncatediv(fr.constant([1.0]), 2.0)


def test_truncatediv_and_truncatemod_round_toward_zero():
    # TF: truncatediv([7,-7,7,-7], [2,2,-2,-2]) == [3,-3,-3,3]; truncatemod == [1,-1,1,-1],
    # where floordiv gives [3,-4,-4,3] and mod [1,1,-1,-1].
    with fr.Graph().as_default():
        x = fr.constant([7, -7, 7, -7])
        y = fr.constant([2, 2, -2, -2])
        td, tm, tmf = _run(
            [fr.truncatediv(x, y), fr.truncatemod(x, y), fr.truncatemod([7.0, -7.0], 2.0)]
        )
        np.testing.assert_array_equal(td, [3, -3, -3, 3])
        np.testing.assert_array_equal(tm, [1, -1, 1, -1])
        np.testing.assert_array_equal(tmf, [1.0, -1.0])
        assert td.dtype == np.int32


def test_truncatediv_by_zero_is_an_invalid_argument():
    with fr.Graph().as_default():
        z = fr.truncatediv(fr.constant([7]), fr.constant([0]))
        with pytest.raises(fr.errors.InvalidArgumentError, match="Integer division by zero"):
            _run(z)


def test_truncate_gradients_as_tf():
    with fr.Graph().as_default():
        x = fr.constant([7, -7])
        assert fr.gradients(fr.cast(fr.truncatediv(x, 2), fr.float32), x) == [None]
        xf = fr.placeholder(fr.float32, [2])
        with pytest.raises(LookupError, match="No gradient defined for operation"):
            fr.gradients(fr.truncatemod(xf, 2.0), xf)


def test_atan2_quadrants():
    y = np.array([1.0, 1.0, -1.0, -1.0, 0.0])
    x = np.array([1.0, -1.0, -1.0, 1.0, -1.0])
    with fr.Graph().as_default():
        np.testing.assert_allclose(_run(fr.atan2(y, x)), np.arctan2(y, x))


def test_cumsum_exclusive_reverse_and_axes():
    with fr.Graph().as_default():
        x = fr.constant([1.0, 2.0, 3.0, 4.0])
        m = fr.reshape(fr.range(6), [2, 3])
        r = _run(
            {
                "cs": fr.cumsum(x),
                "ex": fr.cumsum(x, exclusive=True),
                "rev": fr.cumsum(x, reverse=True),
                "both": fr.cumsum(x, exclusive=True, reverse=True),
                "ax1": fr.cumsum(m, axis=1),
                "neg": fr.cumsum(m, axis=-2, exclusive=True),
                "cp": fr.cumprod(x),
                "cpx": fr.cumprod(x, exclusive=True, reverse=True),
            }
        )
    np.testing.assert_array_equal(r["cs"], [1, 3, 6, 10])
    np.testing.assert_array_equal(r["ex"], [0, 1, 3, 6])
    np.testing.assert_array_equal(r["rev"], [10, 9, 7, 4])
    np.testing.assert_array_equal(r["both"], [9, 7, 4, 0])
    np.testing.assert_array_equal(r["ax1"], [[0, 1, 3], [3, 7, 12]])
    np.testing.assert_array_equal(r["neg"], [[0, 0, 0], [0, 1, 2]])
    assert r["ax1"].dtype == np.int32
    np.testing.assert_array_equal(r["cp"], [1, 2, 6, 24])
    np.testing.assert_array_equal(r["cpx"], [24, 12, 4, 1])


def test_cumsum_names_shape_and_bad_axis():
    with fr.Graph().as_default():
        p = fr.placeholder(fr.float32, [None, 3])
        c = fr.cumsum(p, axis=1)
        assert c.name == "Cumsum:0" and c.shape.as_list() == [None, 3]
        assert fr.cumprod(p).name == "Cumprod:0"
        with pytest.raises(ValueError, match="out of range"):
            fr.cumsum(p, axis=2)
        a = fr.placeholder(fr.int32, [])
        with pytest.raises(fr.errors.InvalidArgumentError, match="out of range"):
            _run(fr.cumsum(p, axis=a), {p: np.ones((2, 3)), a: 5})


def test_cumsum_and_cumprod_gradients_as_tf():
    # Values TF 2.21 gives for these gradients at x = [0.5, 1.5, -0.3].
    with fr.Graph().as_default():
        x = fr.placeholder(fr.float32, [3])
        w = fr.constant([1.0, 2.0, 3.0])
        g1 = fr.gradients(fr.reduce_sum(fr.cumsum(x, exclusive=True) * w), x)[0]
        g2 = fr.gradients(fr.reduce_sum(fr.cumprod(x) * w), x)[0]
        r = _run([g1, g2], {x: [0.5, 1.5, -0.3]})
    np.testing.assert_allclose(r[0], [5.0, 3.0, 0.0])
    np.testing.assert_allclose(
        r[1], [1 + 2 * 1.5 + 3 * 1.5 * -0.3, 2 * 0.5 + 3 * 0.5 * -0.3, 3 * 0.75]
    )


def test_reduce_logsumexp_is_stable_and_named_as_tf():
    with fr.Graph().as_default():
        m = fr.reshape(fr.range(6.0), [2, 3])
        a = fr.reduce_logsumexp(m * 100.0, axis=1)
        b = fr.reduce_logsumexp(m, axis=-1, keepdims=True)
        c = fr.reduce_logsumexp(fr.constant([-np.inf, -np.inf]))
        d = fr.reduce_logsumexp(fr.constant([1.0, 2.0]), reduction_indices=[0], keep_dims=True)
        assert a.name == "ReduceLogSumExp:0" and a.shape.as_list() == [2]
        assert b.name == "ReduceLogSumExp_1:0" and b.shape.as_list() == [2, 1]
        assert c.shape.as_list() == []
        ra, rb, rc, rd = _run([a, b, c, d])
    mv = np.arange(6.0).reshape(2, 3)
    np.testing.assert_allclose(ra, [200.0, 500.0], rtol=1e-6)  # no overflow to inf
    np.testing.assert_allclose(rb, np.log(np.exp(mv).sum(1, keepdims=True)), rtol=1e-6)
    assert rc == -np.inf
    np.testing.assert_allclose(rd, [np.log(np.exp(1.0) + np.exp(2.0))], rtol=1e-6)
    with fr.Graph().as_default():
        with pytest.raises(ValueError, match="both 'axis' and 'reduction_indices'"):
            fr.reduce_logsumexp(fr.constant([1.0]), axis=0, reduction_indices=0)


def test_reduce_logsumexp_gradient_is_softmax():
    with fr.Graph().as_default():
        x = fr.placeholder(fr.float32, [3])
        g = fr.gradients(fr.reduce_logsumexp(x), x)[0]
        xv = np.array([0.5, 1.5, -0.3], np.float32)
        np.testing.assert_allclose(_run(g, {x: xv}), np.exp(xv) / np.exp(xv).sum(), rtol=1e-6)


def test_count_nonzero_names_dtypes_and_values_as_tf():
    with fr.Graph().as_default():
        x = fr.constant([[1.0, 0.0, -2.0], [0.0, 0.0, 3.0]])
        a = fr.count_nonzero(x)
        b = fr.count_nonzero(x, axis=1, keepdims=True)
        c = fr.count_nonzero(x, 0, dtype=fr.int32)
        d = fr.count_nonzero(fr.constant([True, False]), reduction_indices=[0])
        assert (a.name, b.name, c.name) == (
            "count_nonzero/Sum:0",
            "count_nonzero_1/Sum:0",
            "count_nonzero_2/Cast_1:0",
        )
        assert a.dtype == fr.int64 and c.dtype == fr.int32 and b.shape.as_list() == [2, 1]
        r = _run([a, b, c, d])
    assert r[0] == 3 and r[3] == 1
    np.testing.assert_array_equal(r[1], [[2], [1]])
    np.testing.assert_array_equal(r[2], [1, 0, 2])


def test_log_sigmoid_is_finite_for_large_negative_inputs():
    with fr.Graph().as_default():
        p = fr.placeholder(fr.float32, [3])
        y = fr.log_sigmoid(p)
        g = fr.gradients(fr.reduce_sum(y), p)[0]
        assert y.name == "LogSigmoid:0"
        xv = np.array([-100.0, 0.0, 3.0], np.float32)
        rv, rg = _run([y, g], {p: xv})
    np.testing.assert_allclose(rv, [-100.0, -np.log(2.0), -np.log1p(np.exp(-3.0))], rtol=1e-6)
    np.testing.assert_allclose(rg, 1.0 / (1.0 + np.exp(xv)), rtol=1e-6)


def test_fr_math_namespace_holds_tf_math_names():
    assert fr.math.reduce_sum is fr.reduce_sum and fr.math.cumsum is fr.cumsum
    assert fr.math.softplus is fr.nn.softplus and fr.math.top_k is fr.nn.top_k
    assert fr.math.divide_no_nan is fr.div_no_nan
    # tf.math has no cast, where or truncatediv
    assert not {"cast", "where", "truncatediv", "div_no_nan"} & set(fr.math.__all__)
    with fr.Graph().as_default():
        x = fr.constant([[1.0, 0.0, -2.0], [0.0, 0.0, 3.0]])
        var = fr.math.reduce_variance(x, axis=0)
        std = fr.math.reduce_std(x, 1, keepdims=True)
        dnn = fr.math.divide_no_nan(x, x)
        assert var.name == "reduce_variance/Mean_1:0" and std.name == "reduce_std/Sqrt:0"
        assert dnn.name == "div_no_nan:0"  # TF's default name, not the op type
        rv, rs, rd = _run([var, std, dnn])
    xv = np.array([[1.0, 0.0, -2.0], [0.0, 0.0, 3.0]])
    np.testing.assert_allclose(rv, xv.var(0), rtol=1e-6)
    np.testing.assert_allclose(rs, xv.std(1, keepdims=True), rtol=1e-6)
    np.testing.assert_array_equal(rd, [[1, 0, 1], [0, 0, 1]])


A = np.arange(12, dtype=np.float64).reshape(3, 4) - 5

# TF 2.21's cumulative_logsumexp of A along axis 1 (row 0; rows 1, 2 are it shifted by 4, 8)
_CLSE_ROW = [-5.0, -3.686738312481777, -2.5923940355556194, -1.5598103014388045]
_REV_COL = [3.0184793025946575, 3.01814992791781, 3.0]  # axis 0, reverse: column 0


def test_cumulative_logsumexp_values_as_tf():
    x = fr.constant(A)
    y = fr.math.cumulative_logsumexp(x, axis=1)
    assert (y.op.type, y.op.name, y.shape.as_list()) == ("CumulativeLogsumexp",) * 2 + ([3, 4],)
    ex = fr.math.cumulative_logsumexp(x, axis=1, exclusive=True)
    rev = fr.math.cumulative_logsumexp(x, axis=0, reverse=True)
    exrev = fr.math.cumulative_logsumexp(x, axis=0, exclusive=True, reverse=True)
    yv, exv, revv, exrevv = _run([y, ex, rev, exrev])
    np.testing.assert_allclose(yv, np.array(_CLSE_ROW) + [[0.0], [4.0], [8.0]], rtol=1e-14)
    np.testing.assert_allclose(exv[:, 1:], yv[:, :-1], rtol=1e-14)
    assert np.all(exv[:, 0] == -np.inf)
    np.testing.assert_allclose(revv, np.array(_REV_COL)[:, None] + np.arange(4), rtol=1e-14)
    np.testing.assert_allclose(exrevv[:-1], revv[1:], rtol=1e-14)
    assert np.all(exrevv[-1] == -np.inf)


def test_cumulative_logsumexp_does_not_overflow_and_gradient_is_tf_s():
    x = fr.constant(np.arange(12, dtype=np.float64).reshape(3, 4) / 4 - 1)
    big = fr.math.cumulative_logsumexp(fr.constant([1000.0, 1000.0]))
    y = fr.math.cumulative_logsumexp(x, axis=1, exclusive=True)
    (g,) = fr.gradients(fr.reduce_sum(y[:, 1:] * [[1.0, -2.0, 0.5]]), x)
    bv, gv = _run([big, g])
    np.testing.assert_allclose(bv, [1000.0, 1000.0 + np.log(2.0)])
    # TF 2.21's
    np.testing.assert_allclose(gv, [[0.25149061, -0.96110508, 0.20961448, 0.0]] * 3, rtol=1e-7)


def test_cumulative_logsumexp_takes_floats_only():
    with pytest.raises(TypeError, match="CumulativeLogsumexp.*DataType int32 not in list"):
        fr.math.cumulative_logsumexp(fr.constant([1, 2]))


def test_reduce_euclidean_norm_as_tf():
    x = fr.constant(A)
    y = fr.math.reduce_euclidean_norm(x, axis=1)
    assert (y.op.type, y.op.name, y.shape.as_list()) == ("EuclideanNorm", "EuclideanNorm", [3])
    kd = fr.math.reduce_euclidean_norm(x, 0, keepdims=True)
    assert kd.shape.as_list() == [1, 4]
    ints = fr.math.reduce_euclidean_norm(fr.constant([[3, 4], [5, 12], [1, 1]]), 1)
    assert ints.dtype == fr.int32
    (g,) = fr.gradients(y, x)
    yv, allv, kdv, iv, gv = _run([y, fr.math.reduce_euclidean_norm(x), kd, ints, g])
    # TF 2.21's
    np.testing.assert_allclose(yv, [7.3484692283495345, 2.449489742783178, 9.273618495495704])
    assert allv == pytest.approx(12.083045973594572, rel=1e-15)
    np.testing.assert_allclose(
        kdv, [[5.916079783099616, 5.656854249492381, 5.916079783099616, 6.6332495807108]]
    )
    np.testing.assert_array_equal(iv, [5, 13, 1])  # integer square roots truncate, as TF's
    np.testing.assert_allclose(gv, A / yv[:, None], rtol=1e-15)
    assert not hasattr(fr, "reduce_euclidean_norm")  # only tf.math has it


def test_nextafter_as_tf():
    y = fr.math.nextafter(fr.constant([1.0, 0.0]), fr.constant([2.0, -1.0]))
    assert (y.op.type, y.op.name, y.dtype) == ("NextAfter", "NextAfter", fr.float32)
    (g,) = fr.gradients(y, y.op.inputs[0])
    yv, gv = _run([y, g])
    np.testing.assert_array_equal(yv, np.array([1.0000001, -1.4e-45], np.float32))  # TF 2.21's
    np.testing.assert_array_equal(gv, [1.0, 1.0])
    with pytest.raises(TypeError, match="NextAfter.*DataType float16 not in list"):
        fr.math.nextafter(fr.constant([1.0], fr.float16), fr.constant([2.0], fr.float16))


def test_erfcinv_as_tf():
    y = fr.math.erfcinv(fr.constant([0.1, 0.5, 1.0, 1.5, 1.9], fr.float64))
    assert y.op.name == "erfcinv/mul_1"
    # TF 2.21's
    want = [1.16308715, 0.47693628, 0.0, -0.47693628, -1.16308715]
    np.testing.assert_allclose(_run(y), want, rtol=1e-8, atol=1e-15)
