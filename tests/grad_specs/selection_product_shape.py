"""Gradient specs for flowrt/ops/selection_ops.py, product_ops.py and shape_ops.py (op rows
and composed functions)."""

import numpy as np

import flowrt as fr
from tests.gradcheck import GradSpec

_r = np.random.default_rng(19)
D234 = _r.standard_normal((2, 3, 4))
D45 = _r.standard_normal((4, 5))
D23 = _r.standard_normal((2, 3))

SPECS = [
    GradSpec("ReverseSequence", lambda x: fr.reverse_sequence(x, [3, 1], 1, 0), [D234]),
    GradSpec(
        "SelectV2",
        lambda x, y: fr.where_v2(fr.constant([True, False, True]), x, y),
        [D23, D23[0]],
    ),
    GradSpec("EnsureShape", lambda x: fr.ensure_shape(x, [2, None]) * x, [D23]),
    GradSpec("Cross", fr.cross, [D23, D23[::-1]]),
    GradSpec("MatMul", lambda a, b: fr.tensordot(a, b, 1), [D234, D45], id="tensordot"),
    GradSpec(
        "MatMul",
        lambda a, b: fr.tensordot(a, b, [[0, 2], [1, 0]]),
        [D234, D45[:, :2]],
        id="tensordot-pairs",
    ),
    GradSpec("GatherV2", lambda x: fr.repeat(x, [2, 0, 1], axis=1), [D23], id="repeat"),
    GradSpec(
        "GatherV2",
        lambda x: fr.batch_gather(x, [[[0, 2], [1, 1], [3, 0]], [[3, 3], [0, 0], [1, 2]]]),
        [D234],
        id="batch_gather",
    ),
]
