"""Gradient specs for flowrt/ops/pool3d_ops.py: the 3-D pools and their TF gradient ops
(checked as second- and third-order gradients)."""

import numpy as np

import flowrt as fr
from tests.gradcheck import GradSpec

_r = np.random.default_rng(13)
X = _r.standard_normal((2, 4, 5, 3, 2))
# Distinct values a step of 0.01 apart: no window's argmax flips under the finite step.
DISTINCT = (_r.permutation(X.size) * 0.01).reshape(X.shape)
K, S = [2, 3, 2], 2  # pooled shape with SAME padding: [2, 2, 3, 2, 2]
G = _r.standard_normal((2, 2, 3, 2, 2))


def _max(x):
    return fr.nn.max_pool3d(x, K, S, "SAME")


def _avg(x):
    return fr.nn.avg_pool3d(x, K, S, "SAME")


def _grad_of(pool):
    """``fn(g, x)``: the pool's input gradient for incoming ``g``."""
    return lambda g, x: fr.gradients(pool(x), x, grad_ys=g)[0]


def _max_grad_grad(g2, g, x):
    dx = fr.gradients(_max(x), x, grad_ys=g)[0]
    return fr.gradients(dx, g, grad_ys=g2)[0]


def _max_grad_grad_grad(g3, g2, g, x):
    ddx = _max_grad_grad(g2, g, x)
    return fr.gradients(ddx, g2, grad_ys=g3)[0]


SPECS = [
    GradSpec("MaxPool3D", _max, [DISTINCT]),
    GradSpec(
        "MaxPool3D",
        lambda x: fr.nn.max_pool3d(x, [1, 2, 2, 3, 1], [1, 1, 2, 1, 1], "VALID"),
        [DISTINCT],
        id="MaxPool3D-VALID",
    ),
    GradSpec("MaxPool3DGrad", _grad_of(_max), [G, DISTINCT]),
    GradSpec("MaxPool3DGradGrad", _max_grad_grad, [DISTINCT, G, DISTINCT]),
    GradSpec(
        "MaxPool3DGrad", _max_grad_grad_grad, [G, DISTINCT, G, DISTINCT], id="MaxPool3DGrad-3rd"
    ),
    GradSpec("AvgPool3D", _avg, [X]),
    GradSpec(
        "AvgPool3D",
        lambda x: fr.nn.avg_pool3d(x, 3, [1, 2, 1], "VALID"),
        [X],
        id="AvgPool3D-VALID",
    ),
    GradSpec("AvgPool3DGrad", _grad_of(_avg), [G, X], wrt=[0]),
]
