"""Gradient specs for flowrt/ops/partition_ops.py (TF's rules)."""

import numpy as np

import flowrt as fr
from tests.gradcheck import GradSpec

_r = np.random.default_rng(17)
D62 = _r.standard_normal((6, 2))
IDS = [0, 1, 0, -1, 3, 0]

SPECS = [
    GradSpec(
        "DynamicPartition", lambda x: fr.dynamic_partition(x, [0, 1, 0, 2, 1, 0], 3)[0], [D62]
    ),
    GradSpec(
        "DynamicStitch",
        lambda a, b: fr.dynamic_stitch([[0, 2], [1, 3, 4]], [a, b]),
        [D62[:2], D62[2:5]],
    ),
    GradSpec(
        "UnsortedSegmentMax", lambda x: fr.unsorted_segment_max(x, [0, 1, 0, -1, 2, 0], 3), [D62]
    ),
    GradSpec(
        "UnsortedSegmentMin", lambda x: fr.unsorted_segment_min(x, [0, 1, 0, -1, 2, 2], 3), [D62]
    ),
    GradSpec("UnsortedSegmentProd", lambda x: fr.unsorted_segment_prod(x, IDS, 4), [D62]),
    GradSpec(
        "UnsortedSegmentSum",
        lambda x: fr.unsorted_segment_mean(x, IDS, 4),
        [D62],
        id="unsorted_segment_mean",
    ),
    GradSpec(
        "UnsortedSegmentSum",
        lambda x: fr.unsorted_segment_sqrt_n(x, [[0, 1], [2, 2], [-1, 0]], 3),
        [D62.reshape(3, 2, 2)],
        id="unsorted_segment_sqrt_n-2d-ids",
    ),
]
