"""Gradient specs for depthwise convolution (flowrt/ops/depthwise_conv_ops.py), its
gradient ops checked as second-order gradients, and SpaceToDepth/DepthToSpace
(flowrt/ops/space_depth_ops.py)."""

import numpy as np

import flowrt as fr
from tests.gradcheck import GradSpec

_r = np.random.default_rng(17)
X = _r.standard_normal((2, 5, 6, 3))
F = _r.standard_normal((3, 2, 3, 2))
P = _r.standard_normal((1, 1, 6, 4))
G_SAME = _r.standard_normal((2, 5, 6, 6))


def _dw(padding, strides=1, rate=None):
    s = [1, strides, strides, 1] if isinstance(strides, int) else strides
    return lambda x, f: fr.nn.depthwise_conv2d(x, f, s, padding, rate=rate)


def _second(fwd, wrt):
    def fn(g, *xs):
        return fr.gradients(fwd(*xs), xs[wrt], grad_ys=g)[0]

    return fn


SPECS = [
    GradSpec("DepthwiseConv2dNative", _dw("SAME"), [X, F]),
    GradSpec("DepthwiseConv2dNative", _dw("VALID", 2), [X, F], id="DepthwiseConv2dNative-VALID-2"),
    GradSpec(
        "DepthwiseConv2dNative",
        _dw("SAME", [1, 2, 3, 1]),
        [X, F],
        id="DepthwiseConv2dNative-SAME-2x3",
    ),
    GradSpec(
        "DepthwiseConv2dNative", _dw("SAME", rate=2), [X, F], id="DepthwiseConv2dNative-rate2"
    ),
    GradSpec(
        "DepthwiseConv2dNative",
        lambda x, f: fr.nn.depthwise_conv2d_native(x, f, 1, [[0, 0], [1, 2], [0, 1], [0, 0]]),
        [X, F],
        id="DepthwiseConv2dNative-explicit-padding",
    ),
    GradSpec(
        "DepthwiseConv2dNativeBackpropInput",
        _second(_dw("SAME"), 0),
        [G_SAME, X, F],
        wrt=[0, 2],
    ),
    GradSpec(
        "DepthwiseConv2dNativeBackpropFilter",
        _second(_dw("SAME"), 1),
        [G_SAME, X, F],
        wrt=[0, 1],
    ),
    GradSpec(
        "DepthwiseConv2dNative",
        lambda x, f, p: fr.nn.separable_conv2d(x, f, p, [1, 1, 1, 1], "SAME"),
        [X, F, P],
        id="separable_conv2d",
    ),
    GradSpec("SpaceToDepth", lambda x: fr.space_to_depth(x, 2), [_r.standard_normal((2, 4, 6, 3))]),
    GradSpec("DepthToSpace", lambda x: fr.depth_to_space(x, 2), [_r.standard_normal((2, 2, 3, 8))]),
]
