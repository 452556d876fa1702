"""Gradient specs for convolution, pooling and top-k (flowrt/ops/conv_ops.py,
pool_ops.py, topk_ops.py), including TF's gradient ops checked as second-order
gradients."""

import numpy as np

import flowrt as fr
from tests.gradcheck import GradSpec

_r = np.random.default_rng(11)
X = _r.standard_normal((2, 5, 6, 3))
F = _r.standard_normal((3, 2, 3, 4))
# Distinct values a step of at least 0.01 apart, so no window's argmax flips under the
# finite-difference step.
DISTINCT = (_r.permutation(2 * 5 * 6 * 3) * 0.01).reshape(2, 5, 6, 3)


def _conv(padding, strides=1, dilations=1):
    return lambda x, f: fr.nn.conv2d(x, f, strides=strides, padding=padding, dilations=dilations)


def _second(fwd, wrt):
    """``d(fwd(x, ...))/d inputs[wrt]`` contracted with ``g``."""

    def fn(g, *xs):
        return fr.gradients(fwd(*xs), xs[wrt], grad_ys=g)[0]

    return fn


def _out_shape(padding, strides=(1, 1)):
    from flowrt.ops.conv_ops import window_geometry

    oh = window_geometry(5, 3, strides[0], 1, padding)[0]
    ow = window_geometry(6, 2, strides[1], 1, padding)[0]
    return (2, oh, ow, 4)


G_SAME = _r.standard_normal(_out_shape("SAME"))
G_VALID_S2 = _r.standard_normal(_out_shape("VALID", (2, 2)))


def _pool(kind, ksize, strides, padding):
    f = fr.nn.max_pool if kind == "max" else fr.nn.avg_pool
    return lambda x: f(x, ksize, strides, padding)


def _pool_grad_of(kind, ksize, strides, padding):
    """``fn(g, x)``: the pool's input gradient for incoming ``g`` (exercises XPoolGrad)."""
    return _second(_pool(kind, ksize, strides, padding), 0)


POOL_G = _r.standard_normal((2, 3, 3, 3))  # the pooled shape for ksize 3 stride 2 SAME


def _max_pool_grad_grad(g2, g, x):
    """The gradient of MaxPoolGrad's output with respect to its ``grad`` input."""
    y = fr.nn.max_pool(x, 3, 2, "SAME")
    dx = fr.gradients(y, x, grad_ys=g)[0]
    return fr.gradients(dx, g, grad_ys=g2)[0]


def _max_pool_grad_grad_grad(g3, g2, g, x):
    y = fr.nn.max_pool(x, 3, 2, "SAME")
    dx = fr.gradients(y, x, grad_ys=g)[0]
    ddx = fr.gradients(dx, g, grad_ys=g2)[0]
    return fr.gradients(ddx, g2, grad_ys=g3)[0]


SPECS = [
    GradSpec("Conv2D", _conv("SAME"), [X, F]),
    GradSpec("Conv2D", _conv("VALID", strides=2), [X, F], id="Conv2D-VALID-stride2"),
    GradSpec("Conv2D", _conv("SAME", strides=[1, 2, 3, 1]), [X, F], id="Conv2D-SAME-2x3"),
    GradSpec("Conv2D", _conv("SAME", dilations=2), [X, F], id="Conv2D-dilated"),
    # a 1x1 window of stride 1 without padding: the input is its own patch matrix
    GradSpec("Conv2D", _conv("VALID"), [X, F[:1, :1]], id="Conv2D-1x1"),
    GradSpec(
        "Conv2D", _conv([[0, 0], [1, 2], [0, 1], [0, 0]]), [X, F], id="Conv2D-explicit-padding"
    ),
    GradSpec("Conv2DBackpropInput", _second(_conv("SAME"), 0), [G_SAME, X, F], wrt=[0, 2]),
    GradSpec(
        "Conv2DBackpropInput",
        _second(_conv("VALID", strides=2), 0),
        [G_VALID_S2, X, F],
        wrt=[0, 2],
        id="Conv2DBackpropInput-VALID-stride2",
    ),
    GradSpec("Conv2DBackpropFilter", _second(_conv("SAME"), 1), [G_SAME, X, F], wrt=[0, 1]),
    GradSpec(
        "Conv2DBackpropFilter",
        _second(_conv("VALID", strides=2), 1),
        [G_VALID_S2, X, F],
        wrt=[0, 1],
        id="Conv2DBackpropFilter-VALID-stride2",
    ),
    GradSpec("MaxPool", _pool("max", 3, 2, "SAME"), [DISTINCT]),
    GradSpec(
        "MaxPool", _pool("max", [1, 2, 3, 1], [1, 1, 2, 1], "VALID"), [DISTINCT], id="MaxPool-VALID"
    ),
    GradSpec("MaxPoolGrad", _pool_grad_of("max", 3, 2, "SAME"), [POOL_G, DISTINCT]),
    GradSpec("MaxPoolGradGrad", _max_pool_grad_grad, [DISTINCT, POOL_G, DISTINCT], wrt=[0, 1, 2]),
    GradSpec(
        "MaxPoolGrad",
        _max_pool_grad_grad_grad,
        [POOL_G, DISTINCT, POOL_G, DISTINCT],
        id="MaxPoolGrad-third-order",
    ),
    GradSpec(
        "MaxPoolWithArgmax",
        lambda x: fr.nn.max_pool_with_argmax(x, [1, 3, 2, 1], [1, 2, 2, 1], "SAME")[0],
        [DISTINCT],
    ),
    GradSpec("AvgPool", _pool("avg", 3, 2, "SAME"), [X]),
    GradSpec("AvgPool", _pool("avg", [1, 2, 3, 1], [1, 1, 2, 1], "VALID"), [X], id="AvgPool-VALID"),
    GradSpec("AvgPoolGrad", _pool_grad_of("avg", 3, 2, "SAME"), [POOL_G, X], wrt=[0]),
    GradSpec("TopKV2", lambda x: fr.nn.top_k(x, k=3).values, [DISTINCT]),
    GradSpec("LRN", lambda x: fr.nn.lrn(x, depth_radius=1, bias=0.5, alpha=0.3, beta=0.75), [X]),
    GradSpec(
        "LRN", lambda x: fr.nn.lrn(x), [_r.standard_normal((1, 2, 2, 9))], id="LRN-defaults-wide"
    ),
]
