"""Gradient specs for flowrt/ops/conv3d_ops.py: Conv3D and its two gradient ops (each
differentiated with respect to both of its tensor inputs)."""

import numpy as np

import flowrt as fr
from tests.gradcheck import GradSpec

_r = np.random.default_rng(5)
X = _r.standard_normal((2, 4, 5, 3, 2))
F = _r.standard_normal((2, 3, 2, 2, 3))
S = [1, 2, 1, 2, 1]
# conv3d(X, F, S, "SAME") has shape [2, 2, 5, 2, 3]
G = _r.standard_normal((2, 2, 5, 2, 3))

SPECS = [
    GradSpec("Conv3D", lambda x, f: fr.nn.conv3d(x, f, S, "SAME"), [X, F]),
    GradSpec(
        "Conv3D",
        lambda x, f: fr.nn.conv3d(x, f, [1, 1, 2, 1, 1], "VALID", dilations=[1, 2, 1, 1, 1]),
        [X, F],
        id="Conv3D-valid-dilated",
    ),
    GradSpec(
        "Conv3DBackpropInputV2",
        lambda g, f: fr.nn.conv3d_transpose(g, f, list(X.shape), S, "SAME"),
        [G, F],
    ),
    GradSpec(
        "Conv3DBackpropFilterV2",
        lambda x, g: fr.nn.conv3d_backprop_filter(x, list(F.shape), g, S, "SAME"),
        [X, G],
    ),
]
