"""Gradient specs for fused_batch_norm (composed of ops; checked as one function)."""

import numpy as np

import flowrt as fr
from tests.gradcheck import GradSpec

_r = np.random.default_rng(19)
X = _r.standard_normal((2, 3, 2, 4))
S = _r.uniform(0.5, 1.5, 4)
OFF = _r.standard_normal(4)

SPECS = [
    GradSpec(
        "Rsqrt",
        lambda x, s, o: fr.nn.fused_batch_norm(x, s, o)[0],
        [X, S, OFF],
        id="fused_batch_norm-training",
    ),
    GradSpec(
        "Rsqrt",
        lambda x, s, o: fr.nn.fused_batch_norm(
            fr.transpose(x, [0, 3, 1, 2]), s, o, data_format="NCHW"
        )[0],
        [X, S, OFF],
        id="fused_batch_norm-nchw",
    ),
    GradSpec(
        "Rsqrt",
        lambda x, s, o: fr.nn.fused_batch_norm(x, s, o, mean=OFF, variance=S, is_training=False)[0],
        [X, S, OFF],
        id="fused_batch_norm-inference",
    ),
]
