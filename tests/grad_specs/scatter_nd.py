"""Gradient specs for flowrt/ops/scatter_nd_ops.py (TF's rules)."""

import numpy as np

import flowrt as fr
from tests.gradcheck import GradSpec

_r = np.random.default_rng(23)
T42 = _r.standard_normal((4, 2))
U32 = _r.standard_normal((3, 2))
IX = [[1], [3], [0]]

SPECS = [
    GradSpec("TensorScatterUpdate", lambda t, u: fr.tensor_scatter_nd_update(t, IX, u), [T42, U32]),
    GradSpec(
        "TensorScatterAdd", lambda t, u: fr.tensor_scatter_nd_add(t, [[1], [3], [1]], u), [T42, U32]
    ),
    GradSpec("TensorScatterSub", lambda t, u: fr.tensor_scatter_nd_sub(t, IX, u), [T42, U32]),
    GradSpec("TensorScatterMax", lambda t, u: fr.tensor_scatter_nd_max(t, IX, u), [T42, U32]),
    GradSpec("TensorScatterMin", lambda t, u: fr.tensor_scatter_nd_min(t, IX, u), [T42, U32]),
]
