"""Gradient specs for flowrt/ops/batch_space_ops.py."""

import numpy as np

import flowrt as fr
from tests.gradcheck import GradSpec

_r = np.random.default_rng(29)

SPECS = [
    GradSpec(
        "SpaceToBatchND",
        lambda x: fr.space_to_batch_nd(x, [2, 3], [[1, 0], [0, 1]]),
        [_r.standard_normal((2, 3, 5, 2))],
    ),
    GradSpec(
        "BatchToSpaceND",
        lambda x: fr.batch_to_space_nd(x, [2, 2], [[0, 1], [1, 0]]),
        [_r.standard_normal((8, 1, 3, 2))],
    ),
]
