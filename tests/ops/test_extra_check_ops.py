"""assert_near, assert_rank_in, assert_same_float_dtype, assert_proper_iterable,
verify_tensor_all_finite and the monotonicity tests, against TF 2.21's behaviour; and
the fr.debugging / fr.manip namespaces, get_static_value, VERSION and OpError."""

import numpy as np
import pytest

import flowrt as fr


def test_assert_near_is_strict_with_dtype_default_tolerances():
    x = fr.placeholder(fr.float32, [None])
    with fr.Session() as s:
        s.run(fr.assert_near(x, x + 1e-7), {x: [1.0, 2.0]})
        s.run(fr.assert_near(x, x + 0.5, atol=0.6, rtol=0.0), {x: [1.0, 2.0]})
        with pytest.raises(fr.errors.InvalidArgumentError, match="m.  ] \\[x and y not equal"):
            s.run(fr.assert_near(x, x + 1.0, message="m"), {x: [1.0, 2.0]})
        # |x - y| == atol exactly fails: TF compares with less, not less_equal.
        with pytest.raises(fr.errors.InvalidArgumentError):
            s.run(fr.debugging.assert_near(x, x + 0.5, atol=0.5, rtol=0.0), {x: [0.0]})


def test_assert_rank_in_static_and_dynamic():
    assert fr.assert_rank_in(fr.zeros([2, 3]), [1, 2]).type == "NoOp"
    with pytest.raises(ValueError, match=r"must have rank in \(0, 1\).  Received rank 2"):
        fr.assert_rank_in(fr.zeros([2, 3]), [0, 1])
    p = fr.placeholder(fr.float32)
    with fr.Session() as s:
        s.run(fr.assert_rank_in(p, [1, 2]), {p: [1.0]})
        with pytest.raises(fr.errors.InvalidArgumentError, match="must have rank in\\] \\[0\\]"):
            s.run(fr.assert_rank_in(p, [0, 2]), {p: [1.0]})


def test_assert_same_float_dtype_and_assert_proper_iterable():
    a, b = fr.zeros([1], fr.float64), fr.zeros([1], fr.float64)
    assert fr.assert_same_float_dtype([a, b]) == fr.float64
    assert fr.assert_same_float_dtype() == fr.float32
    assert fr.assert_same_float_dtype(None, fr.float16) == fr.float16
    with pytest.raises(
        ValueError,
        match="type=tf.float32, must be of the same type \\(tf.float64\\) as",
    ):
        fr.assert_same_float_dtype([a, fr.zeros([1])])
    with pytest.raises(ValueError, match="Expected floating point type, got tf.int32."):
        fr.assert_same_float_dtype([fr.constant([1])])
    fr.assert_proper_iterable([1, 2])
    fr.assert_proper_iterable(x for x in ())
    for bad in (fr.constant([1]), np.zeros(2), "ab", b"ab"):
        with pytest.raises(TypeError, match='to be a "proper" iterable'):
            fr.assert_proper_iterable(bad)
    with pytest.raises(TypeError, match='Expected argument "values" to be iterable'):
        fr.assert_proper_iterable(3)


def test_monotonic_tests_and_is_numeric_tensor():
    with fr.Session() as s:
        got = s.run(
            [
                fr.is_non_decreasing([1, 2, 2]),
                fr.is_strictly_increasing([1, 2, 2]),
                fr.is_strictly_increasing([[1, 2], [3, 4]]),
                fr.is_non_decreasing([5]),
                fr.is_strictly_increasing(fr.zeros([0])),
                fr.is_non_decreasing([3.0, 1.0]),
            ]
        )
    assert got == [True, False, True, True, True, False]  # TF 2.21's values
    assert fr.is_numeric_tensor(fr.constant(1.0)) and not fr.is_numeric_tensor(fr.constant("a"))
    assert not fr.is_numeric_tensor(1.0) and not fr.is_numeric_tensor(fr.constant(True))
    with pytest.raises(TypeError, match="Expected x to be numeric, instead found: "):
        fr.is_non_decreasing(fr.constant(["a"]))


def test_verify_tensor_all_finite_is_assert_all_finite():
    x = fr.placeholder(fr.float32, [None])
    y = fr.debugging.assert_all_finite(x, "bad values")
    with fr.Session() as s:
        assert s.run(y, {x: [1.0, 2.0]}).tolist() == [1.0, 2.0]
        with pytest.raises(fr.errors.InvalidArgumentError, match="bad values : Tensor had NaN"):
            s.run(y, {x: [np.nan]})


def test_namespaces_get_static_value_version_and_op_error():
    assert fr.debugging.check_numerics is fr.check_numerics
    assert fr.debugging.assert_equal is fr.assert_equal and fr.debugging.is_nan is fr.is_nan
    assert fr.manip.roll is fr.roll and fr.manip.gather_nd is fr.gather_nd
    assert fr.manip.tile is fr.tile and fr.manip.reshape is fr.reshape
    assert fr.OpError is fr.errors.OpError and fr.VERSION == fr.__version__
    assert fr.get_static_value(fr.constant([1, 2])).tolist() == [1, 2]
    assert fr.get_static_value(fr.shape(fr.zeros([2, 3]))).tolist() == [2, 3]
    assert fr.get_static_value(fr.placeholder(fr.float32)) is None
    assert fr.get_static_value(fr.Variable(1.0)) is None
    assert fr.get_static_value(3) == 3
    with pytest.raises(NotImplementedError, match="partial=True"):
        fr.get_static_value(fr.constant(1), partial=True)
