"""max_pool_with_argmax against TF 2.21's (tensorflow.compat.v1, graph mode) recorded
results: values, the argmax index formula (with and without the batch), ties, padding
and the gradient; gradients are also checked in tests/grad_specs/conv.py."""

import numpy as np
import pytest

import flowrt as fr

_x = np.array([[1, 3, 2, 3], [0, 3, 1, 1], [5, 5, 0, 2]], np.float32)
X = np.stack([np.stack([_x, -_x], -1), np.stack([_x * 2, _x], -1)])  # [2, 3, 4, 2]

# TF 2.21's: ksize 2x2, strides 1x2, SAME
TF_Y = [
    [[[3.0, -0.0], [3.0, -1.0]], [[5.0, -0.0], [2.0, -0.0]], [[5.0, -5.0], [2.0, -0.0]]],
    [[[6.0, 3.0], [6.0, 3.0]], [[10.0, 5.0], [4.0, 2.0]], [[10.0, 5.0], [4.0, 2.0]]],
]
TF_ARGMAX = [
    [[[2, 9], [6, 13]], [[16, 9], [22, 21]], [[16, 17], [22, 21]]],
    [[[2, 3], [6, 7]], [[16, 17], [22, 23]], [[16, 17], [22, 23]]],
]
# the gradient for incoming 1, 2, ..., 24 (windows sharing a maximum add up)
TF_DX = [
    [
        [[0, 0], [1, 0], [0, 0], [3, 0]],
        [[0, 8], [0, 0], [0, 4], [0, 0]],
        [[14, 10], [0, 0], [0, 20], [18, 0]],
    ],
    [
        [[0, 0], [13, 14], [0, 0], [15, 16]],
        [[0, 0], [0, 0], [0, 0], [0, 0]],
        [[38, 40], [0, 0], [0, 0], [42, 44]],
    ],
]


def test_values_indices_and_gradient_as_tf():
    with fr.Graph().as_default():
        x = fr.constant(X)
        y, argmax = fr.nn.max_pool_with_argmax(x, [1, 2, 2, 1], [1, 1, 2, 1], "SAME")
        assert (y.op.type, y.op.name) == ("MaxPoolWithArgmax", "MaxPoolWithArgmax")
        assert argmax.dtype == fr.int64 and y.shape.as_list() == argmax.shape.as_list() == [
            2,
            3,
            2,
            2,
        ]
        g = np.arange(1, 25, dtype=np.float32).reshape(2, 3, 2, 2)
        (dx,) = fr.gradients(y, x, grad_ys=g)
        assert dx.op.type == "MaxPoolGradWithArgmax"
        yv, av, dxv = fr.Session().run([y, argmax, dx])
    np.testing.assert_array_equal(yv, TF_Y)
    np.testing.assert_array_equal(av, TF_ARGMAX)
    np.testing.assert_array_equal(dxv, TF_DX)


def test_include_batch_in_index_and_int32_indices():
    with fr.Graph().as_default():
        y, argmax = fr.nn.max_pool_with_argmax(
            fr.constant(X), [1, 2, 2, 1], [1, 2, 2, 1], "VALID", include_batch_in_index=True
        )
        _, a32 = fr.nn.max_pool_with_argmax(
            fr.constant(X), [1, 2, 2, 1], [1, 2, 2, 1], "VALID", Targmax=fr.int32
        )
        assert a32.dtype == fr.int32
        g = np.ones((2, 1, 2, 2), np.float32)
        (dx,) = fr.gradients(y, y.op.inputs[0], grad_ys=g)
        yv, av, a32v, dxv = fr.Session().run([y, argmax, a32, dx])
    np.testing.assert_array_equal(av, [[[[2, 9], [6, 13]]], [[[26, 27], [30, 31]]]])  # TF's
    np.testing.assert_array_equal(a32v, [[[[2, 9], [6, 13]]], [[[2, 3], [6, 7]]]])
    np.testing.assert_array_equal(np.flatnonzero(dxv), np.sort(av.ravel()))


def test_the_gradient_op_has_no_gradient_as_in_tf():
    with fr.Graph().as_default():
        x = fr.constant(X)
        y, _ = fr.nn.max_pool_with_argmax(x, [1, 2, 2, 1], [1, 1, 1, 1], "VALID")
        g = fr.placeholder(fr.float32, y.shape)
        (dx,) = fr.gradients(y, x, grad_ys=g)
        with pytest.raises(LookupError, match="No gradient defined for operation"):
            fr.gradients(dx, g)


def test_errors_as_tf():
    with fr.Graph().as_default():
        x = fr.constant(X)
        with pytest.raises(ValueError, match="Cannot specify both 'Targmax' and 'output_dtype'"):
            fr.nn.max_pool_with_argmax(
                x, [1, 2, 2, 1], [1, 1, 1, 1], "SAME", Targmax=fr.int32, output_dtype=fr.int64
            )
        with pytest.raises(ValueError, match="other  than 'NHWC' are not supported"):
            fr.nn.max_pool_with_argmax(x, [1, 2, 2, 1], [1, 1, 1, 1], "SAME", data_format="NCHW")
        with pytest.raises(TypeError, match="Expected list for 'ksize'"):
            fr.nn.max_pool_with_argmax(x, 2, [1, 1, 1, 1], "SAME")
        with pytest.raises(ValueError, match="batch or depth"):
            fr.nn.max_pool_with_argmax(x, [2, 2, 2, 1], [1, 1, 1, 1], "SAME")
