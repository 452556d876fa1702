"""Gradient subgraphs built with TF's op structure (fused unary gradient ops, TF's
SmartBroadcastGradientArgs, the Reshape gradient's static shape)."""

import numpy as np
import pytest

import flowrt as fr
from flowrt.ops.common import make


def _grad_types(scope):
    g = fr.get_default_graph()
    return sorted(op.type for op in g.get_operations() if "/%s_grad/" % scope in op.name + "/")


@pytest.mark.parametrize(
    "fn, grad_type",
    [
        (fr.sigmoid, "SigmoidGrad"),
        (fr.tanh, "TanhGrad"),
        (fr.sqrt, "SqrtGrad"),
        (fr.rsqrt, "RsqrtGrad"),
        (fr.reciprocal, "ReciprocalGrad"),
    ],
)
def test_unary_gradient_is_one_fused_op_reading_the_output_once(fn, grad_type):
    x = fr.placeholder(fr.float32, [None, 3])
    y = fn(x, name="f")
    (dx,) = fr.gradients(y, x)
    assert dx.op.type == grad_type
    assert dx.op.inputs[0] is y
    with fr.Session() as sess:
        xv = np.array([[0.5, 1.0, 2.0]], np.float32)
        got = sess.run(dx, {x: xv})
    h = 1e-3
    want = (_value_of(fn, xv + h) - _value_of(fn, xv - h)) / (2 * h)
    np.testing.assert_allclose(got, want, rtol=1e-2)


def _value_of(fn, v):
    with fr.Graph().as_default(), fr.Session() as s:
        return s.run(fn(fr.constant(v.astype(np.float64))))


def test_sqrt_grad_of_zero_gradient_at_zero_is_zero_as_tf():
    y = fr.constant([0.0, 4.0])
    dy = fr.constant([0.0, 1.0])
    with fr.Session() as sess:
        np.testing.assert_array_equal(sess.run(make("SqrtGrad", [y, dy])), [0.0, 0.125])


def test_fused_gradient_op_rejects_mismatched_dtypes():
    with pytest.raises(TypeError, match="'dy' of 'SigmoidGrad'"):
        make("SigmoidGrad", [fr.constant([1.0]), fr.constant([1.0], fr.float64)])


def test_dynamic_broadcast_reads_each_shape_once():
    x = fr.placeholder(fr.float32, [None, 4], name="x")
    y = fr.placeholder(fr.float32, [None, 4], name="y")
    fr.gradients(fr.subtract(x, y, name="d"), [x, y])
    types = _grad_types("d")
    assert types.count("Shape") == 2 and types.count("BroadcastGradientArgs") == 1
    assert types.count("Sum") == 2 and types.count("Reshape") == 2
    g = fr.get_default_graph()
    shape_inputs = sorted(
        op.inputs[0].op.name
        for op in g.get_operations()
        if "d_grad" in op.name and op.type == "Shape"
    )
    assert shape_inputs == ["x", "y"]


def test_static_broadcast_sums_without_broadcast_gradient_args():
    x = fr.placeholder(fr.float32, [None, 4], name="x")
    b = fr.placeholder(fr.float32, [4], name="b")
    gx, gb = fr.gradients(fr.add(x, b, name="a"), [x, b])
    assert "BroadcastGradientArgs" not in _grad_types("a")
    with fr.Session() as sess:
        vx, vb = sess.run([gx, gb], {x: np.ones((3, 4), np.float32), b: np.zeros(4, np.float32)})
    np.testing.assert_array_equal(vx, np.ones((3, 4)))
    np.testing.assert_array_equal(vb, np.full(4, 3.0))


def test_reshape_gradient_uses_the_static_shape_with_one_wildcard():
    x = fr.placeholder(fr.float32, [None, 6], name="x")
    (gx,) = fr.gradients(fr.reshape(x, [-1, 2, 3], name="r"), x)
    assert "Shape" not in _grad_types("r")
    with fr.Session() as sess:
        assert sess.run(gx, {x: np.ones((2, 6), np.float32)}).shape == (2, 6)
