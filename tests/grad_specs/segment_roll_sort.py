"""Gradient specs for flowrt/ops/segment_ops.py, manip_ops.py (roll) and sort_ops.py."""

import numpy as np

import flowrt as fr
from tests.gradcheck import GradSpec

_r = np.random.default_rng(13)
D42 = _r.standard_normal((4, 2))
IDS = [0, 0, 2, 2]

SPECS = [
    GradSpec("SegmentSum", lambda x: fr.segment_sum(x, IDS), [D42]),
    GradSpec("SegmentMean", lambda x: fr.segment_mean(x, [0, 1, 1, 1]), [D42]),
    GradSpec("SegmentMax", lambda x: fr.segment_max(x, IDS), [D42]),
    GradSpec("SegmentMin", lambda x: fr.segment_min(x, [0, 1, 1, 1]), [D42]),
    GradSpec("SegmentProd", lambda x: fr.segment_prod(x, IDS), [D42]),
    GradSpec(
        "SegmentMean",
        lambda x: fr.segment_mean(x, [0, 0, 1]),
        [_r.standard_normal(3)],
        id="SegmentMean-1d",
    ),
    GradSpec("Roll", lambda x: fr.roll(x, [1, -1], [0, 1]), [D42]),
    GradSpec("TopKV2", lambda x: fr.sort(x, axis=0), [D42], id="sort-axis0"),
]
