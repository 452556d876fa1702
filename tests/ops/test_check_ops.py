"""Assertions, check_numerics, add_check_numerics_ops, Print and gradient clipping."""

import numpy as np
import pytest

import flowrt as fr


def test_assert_under_control_dependencies_guards_the_op():
    x = fr.placeholder(fr.float32, [None])
    check = fr.assert_equal(x, fr.constant([1.0, 2.0, 3.0]), message="x is off")
    with fr.control_dependencies([check]):
        y = fr.identity(x) * 2.0
    with fr.Session() as sess:
        np.testing.assert_array_equal(sess.run(y, {x: [1, 2, 3]}), [2, 4, 6])
        with pytest.raises(fr.errors.InvalidArgumentError) as info:
            sess.run(y, {x: [1, 2, 4]})
    assert info.value.message == (
        "assertion failed: [x is off.  ] [Condition x == y did not hold element-wise:] "
        "[x (Placeholder:0) = ] [1 2 4] [y (Const:0) = ] [1 2 3]"
    )
    assert info.value.op is check


@pytest.mark.parametrize(
    "fn,good,bad,sym",
    [
        (fr.assert_positive, [1.0, 2.0], [1.0, 0.0], ">"),
        (fr.assert_negative, [-1.0], [-1.0, 0.0], "<"),
        (fr.assert_non_negative, [0.0, 2.0], [-1.0], ">="),
        (fr.assert_non_positive, [0.0, -2.0], [0.5], "<="),
    ],
)
def test_sign_asserts(fn, good, bad, sym):
    x = fr.placeholder(fr.float32, [None])
    op = fn(x)
    with fr.Session() as sess:
        sess.run(op, {x: good})
        with pytest.raises(
            fr.errors.InvalidArgumentError, match=r"Condition x %s 0 did not hold" % sym
        ):
            sess.run(op, {x: bad})


@pytest.mark.parametrize(
    "fn,a,b",
    [
        (fr.assert_less, [1, 2], [2, 3]),
        (fr.assert_less_equal, [1, 3], [2, 3]),
        (fr.assert_greater, [3, 4], [2, 3]),
        (fr.assert_greater_equal, [3, 3], [2, 3]),
        (fr.assert_none_equal, [1, 2], [2, 1]),
    ],
)
def test_binary_asserts_hold_and_fail(fn, a, b):
    x = fr.placeholder(fr.int32, [2])
    y = fr.placeholder(fr.int32, [2])
    op = fn(x, y, summarize=1)
    with fr.Session() as sess:
        sess.run(op, {x: a, y: b})
        with pytest.raises(fr.errors.InvalidArgumentError, match=r"assertion failed.*\.\.\.\]"):
            sess.run(op, {x: b, y: a} if fn is not fr.assert_none_equal else {x: a, y: a})


def test_static_asserts():
    with pytest.raises(fr.errors.InvalidArgumentError, match="did not hold"):
        fr.assert_equal(fr.constant(1), fr.constant(2))
    m = fr.constant(np.zeros((2, 3), np.float32))
    assert fr.assert_rank(m, 2).type == "NoOp"
    with pytest.raises(ValueError, match=r"must have rank 3.  Received rank 2"):
        fr.assert_rank(m, 3)
    with pytest.raises(ValueError, match="must have rank at least 3"):
        fr.assert_rank_at_least(m, 3)
    with pytest.raises(TypeError, match="must be of type int32; got float32"):
        fr.assert_type(m, fr.int32)
    with pytest.raises(TypeError, match="to be integer type"):
        fr.assert_integer(m)
    with pytest.raises(ValueError, match="Expected scalar shape"):
        fr.assert_scalar(m)
    assert fr.assert_scalar(fr.constant(1.0)).shape.ndims == 0


def test_dynamic_rank_assert():
    x = fr.placeholder(fr.float32)
    op = fr.assert_rank(x, 2)
    with fr.Session() as sess:
        sess.run(op, {x: np.zeros((1, 2))})
        with pytest.raises(fr.errors.InvalidArgumentError, match="must have rank"):
            sess.run(op, {x: np.zeros(3)})


def test_check_numerics_and_its_gradient():
    x = fr.placeholder(fr.float32, [None])
    y = fr.check_numerics(x, "bad x")
    (g,) = fr.gradients(fr.reduce_sum(y * fr.log(x)), x)
    with fr.Session() as sess:
        np.testing.assert_array_equal(sess.run(y, {x: [1.0, 2.0]}), [1.0, 2.0])
        for v, what in (
            ([1.0, np.nan], "NaN"),
            ([np.inf], "Inf"),
            ([np.inf, np.nan], "Inf and NaN"),
        ):
            with pytest.raises(
                fr.errors.InvalidArgumentError, match="^bad x : Tensor had %s values\n" % what
            ):
                sess.run(y, {x: v})
        with pytest.raises(
            fr.errors.InvalidArgumentError,
            match="detected in gradient. bad x : Tensor had Inf values",
        ):
            sess.run(g, {x: [0.0]})
    with pytest.raises(TypeError, match="DataType int32"):
        fr.check_numerics(fr.constant(1), "m")


def test_add_check_numerics_ops_names_the_first_bad_tensor():
    x = fr.placeholder(fr.float32, [])
    y = fr.log(x, name="the_log")
    z = y * 2.0
    check = fr.add_check_numerics_ops()
    with fr.Session() as sess:
        assert sess.run([z, check], {x: 1.0})[0] == 0.0
        with pytest.raises(
            fr.errors.InvalidArgumentError, match="^the_log:0 : Tensor had NaN values\n"
        ):
            sess.run([z, check], {x: -1.0})


def test_print_passes_through_and_writes_first_n(capfd):
    x = fr.placeholder(fr.float32, [None])
    y = fr.Print(
        x, [x, "label", fr.constant([[1, 2], [3, 4]])], message="x: ", first_n=2, summarize=3
    )
    (g,) = fr.gradients(fr.reduce_sum(y * 3.0), x)
    with fr.Session() as sess:
        for _ in range(3):
            np.testing.assert_array_equal(sess.run(y, {x: [1.5, 2, 3, 4]}), [1.5, 2, 3, 4])
        np.testing.assert_array_equal(sess.run(g, {x: [1.0]}), [3.0])
    err = capfd.readouterr().err
    assert err.count("x: [1.5 2 3...] [label] [[1 2][3...]]\n") == 2


def test_clip_by_norm_and_global_norm_values():
    a = fr.constant([[3.0, 4.0], [1.0, 2.0]])
    b = fr.constant([0.0, 12.0])
    cn = fr.clip_by_norm(a, 2.0)
    cn_rows = fr.clip_by_norm(a, 2.0, axes=[1])
    zero = fr.clip_by_norm(fr.constant([0.0, 0.0]), 1.0)
    (ca, none, cb), norm = fr.clip_by_global_norm([a, None, b], 5.0)
    (inf,), _ = fr.clip_by_global_norm([fr.constant([np.inf, 1.0])], 1.0)
    assert none is None
    assert cn.name == "clip_by_norm:0"
    assert ca.name == "clip_by_global_norm/clip_by_global_norm/_0:0"
    av = np.array([[3.0, 4.0], [1.0, 2.0]])
    with fr.Session() as sess:
        r = sess.run([cn, cn_rows, zero, ca, cb, norm, inf])
    n = np.sqrt(30.0)
    np.testing.assert_allclose(r[0], av * 2 / n, rtol=1e-6)
    np.testing.assert_allclose(
        r[1], av * 2 / np.maximum(np.linalg.norm(av, axis=1, keepdims=True), 2), rtol=1e-6
    )
    np.testing.assert_array_equal(r[2], [0.0, 0.0])
    g = np.sqrt(30.0 + 144.0)
    np.testing.assert_allclose(r[3], av * 5 / g, rtol=1e-6)
    np.testing.assert_allclose(r[4], np.array([0.0, 12.0]) * 5 / g, rtol=1e-6)
    assert r[5] == pytest.approx(g)
    assert np.isnan(r[6]).all()  # a non-finite norm makes everything NaN, as TF1


def test_clip_indexed_slices_and_errors():
    emb = fr.Variable(np.ones((4, 3), np.float32))
    loss = fr.reduce_sum(fr.gather(emb, [0, 2]) * 10.0)
    (grad,) = fr.gradients(loss, [emb])
    clipped = fr.clip_by_norm(grad, 1.0)
    assert isinstance(clipped, fr.IndexedSlices)
    (cg,), _ = fr.clip_by_global_norm([grad], 1.0)
    assert isinstance(cg, fr.IndexedSlices)
    with fr.Session() as sess:
        sess.run(emb.initializer)
        v = sess.run(clipped.values)
    assert np.linalg.norm(v) == pytest.approx(1.0, rel=1e-6)
    with pytest.raises(TypeError, match="should be a sequence"):
        fr.clip_by_global_norm(fr.constant([1.0]), 1.0)


@pytest.mark.parametrize(
    "fn, x, want",
    [  # TF 2.21's results
        (fr.is_non_decreasing, [1, 1, 2], True),
        (fr.is_non_decreasing, [[1, 2], [2, 1]], False),
        (fr.is_non_decreasing, [5], True),
        (fr.is_strictly_increasing, [1, 1, 2], False),
        (fr.is_strictly_increasing, [1.0, 2.0, 3.5], True),
        (fr.is_strictly_increasing, [], True),
    ],
)
def test_monotonicity_tests_flatten_x(fn, x, want):
    with fr.Graph().as_default():
        t = fn(x)
        assert (t.op.type, t.op.name, t.dtype) == ("All", fn.__name__ + "/All", fr.bool)
        assert fr.Session().run(t) == want
        assert getattr(fr.math, fn.__name__) is fn


def test_monotonicity_tests_reject_non_numeric_x():
    with fr.Graph().as_default():
        with pytest.raises(TypeError, match="Expected x to be numeric"):
            fr.is_non_decreasing(fr.constant([True, False]))
