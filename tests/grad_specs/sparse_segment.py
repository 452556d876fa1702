"""Gradient specs for flowrt/ops/sparse_segment_ops.py and the sparse embedding lookups
built on them."""

import numpy as np

import flowrt as fr
from tests.gradcheck import GradSpec

_r = np.random.default_rng(17)
D = _r.standard_normal((6, 3))
IDX, SEG = [0, 2, 2, 5], [0, 0, 2, 2]


def _sparse_ids():
    return fr.SparseTensor(
        [[0, 0], [0, 1], [2, 0], [2, 1], [2, 2]], np.array([1, 3, 3, 5, 1], np.int64), [4, 3]
    )


def _sparse_weights():
    return fr.SparseTensor(
        [[0, 0], [0, 1], [2, 0], [2, 1], [2, 2]], np.array([1, 2, 0.5, 1.5, 3]), [4, 3]
    )


SPECS = [
    GradSpec("SparseSegmentSum", lambda x: fr.sparse_segment_sum(x, IDX, SEG), [D]),
    GradSpec("SparseSegmentMean", lambda x: fr.sparse_segment_mean(x, IDX, SEG), [D]),
    GradSpec("SparseSegmentSqrtN", lambda x: fr.sparse_segment_sqrt_n(x, IDX, SEG), [D]),
    GradSpec(
        "SparseSegmentSumWithNumSegments",
        lambda x: fr.sparse_segment_sum(x, [1, 4], [0, 2], num_segments=4),
        [D],
    ),
    GradSpec(
        "SparseSegmentMeanWithNumSegments",
        lambda x: fr.sparse_segment_mean(x, [1, 4, 4], [0, 2, 2], num_segments=3),
        [D],
    ),
    GradSpec(
        "SparseSegmentSqrtNWithNumSegments",
        lambda x: fr.sparse_segment_sqrt_n(x, [1, 4, 0], [1, 1, 1], num_segments=2),
        [D],
    ),
    GradSpec(
        "SparseSegmentSqrtN",
        lambda x: fr.nn.embedding_lookup_sparse(x, _sparse_ids(), None, combiner="sqrtn"),
        [D],
        id="embedding_lookup_sparse-sqrtn",
    ),
    GradSpec(
        "SegmentSum",
        lambda x: fr.nn.safe_embedding_lookup_sparse(x, _sparse_ids(), _sparse_weights()),
        [D],
        id="safe_embedding_lookup_sparse-weighted-mean",
    ),
]
