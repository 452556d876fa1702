"""Gradient specs for the sparse family (gradients with respect to values and dense
operands; indices and shapes are integers)."""

import numpy as np

import flowrt as fr
from tests.gradcheck import GradSpec

_r = np.random.default_rng(11)
_IDX = np.array([[0, 0], [0, 2], [1, 1], [2, 3], [2, 3]])  # a repeated entry adds up
VALS = _r.standard_normal(5)
B42 = _r.standard_normal((4, 2))
B32 = _r.standard_normal((3, 2))
B24 = _r.standard_normal((2, 4))


def _matmul(adjoint_a=False, adjoint_b=False):
    def f(values, b):
        sp = fr.SparseTensor(_IDX, values, [3, 4])
        return fr.sparse_tensor_dense_matmul(sp, b, adjoint_a=adjoint_a, adjoint_b=adjoint_b)

    return f


SPECS = [
    GradSpec("SparseTensorDenseMatMul", _matmul(), [VALS, B42]),
    GradSpec(
        "SparseTensorDenseMatMul",
        _matmul(adjoint_a=True),
        [VALS, B32],
        id="SparseTensorDenseMatMul-adjoint_a",
    ),
    GradSpec(
        "SparseTensorDenseMatMul",
        _matmul(adjoint_b=True),
        [VALS, B24],
        id="SparseTensorDenseMatMul-adjoint_b",
    ),
    GradSpec(
        "SparseTensorDenseMatMul",
        _matmul(True, True),
        [VALS, B32.T.copy()],
        id="SparseTensorDenseMatMul-adjoint_both",
    ),
]

_IDX2 = np.array([[0, 1], [1, 0], [1, 2]])
_UNSORTED = np.array([[1, 2], [0, 1], [1, 0]])
D23 = _r.standard_normal(3)


def _to_dense(values):
    return fr.sparse_tensor_to_dense(fr.SparseTensor(_IDX2, values, [2, 3]))


def _weights(t):
    # Distinct weights per output position make the check see where each value went.
    return t * fr.constant(
        np.arange(1.0, 1.0 + np.prod(t.shape.as_list())).reshape(t.shape.as_list())
    )


SPECS += [
    GradSpec("SparseToDense", lambda v: _weights(_to_dense(v)), [D23]),
    GradSpec(
        "SparseToDense",
        lambda v, d: _weights(fr.sparse_to_dense(_IDX2, [2, 3], v, d)),
        [np.array(1.5), np.array(-0.5)],
        id="SparseToDense-scalar-values-default",
    ),
    GradSpec(
        "SparseReorder",
        lambda v: _weights(fr.sparse_reorder(fr.SparseTensor(_UNSORTED, v, [2, 3])).values),
        [D23],
    ),
    GradSpec(
        "SparseReduceSum",
        lambda v: _weights(fr.sparse_reduce_sum(fr.SparseTensor(_IDX2, v, [2, 3]), axis=1)),
        [D23],
    ),
    GradSpec(
        "SparseReduceSum",
        lambda v: _weights(
            fr.sparse_reduce_sum(fr.SparseTensor(_IDX2, v, [2, 3]), axis=0, keepdims=True)
        ),
        [D23],
        id="SparseReduceSum-axis0-keepdims",
    ),
    GradSpec(
        "SparseFillEmptyRows",
        lambda v, d: (
            fr.sparse_fill_empty_rows(fr.SparseTensor([[0, 1], [2, 0]], v, [4, 2]), d)[0].values
            * [1.0, 2.0, 3.0, 4.0]
        ),
        [np.array([0.3, -1.2]), np.array(2.0)],
    ),
]

SPECS += [
    GradSpec(
        "SparseConcat",
        lambda a, b: (
            fr.sparse_concat(
                1,
                [
                    fr.SparseTensor([[1, 0], [0, 1]], a, [2, 2]),
                    fr.SparseTensor([[0, 0], [1, 2]], b, [2, 3]),
                ],
            ).values
            * [1.0, 2.0, 3.0, 4.0]
        ),
        [np.array([0.5, -1.0]), np.array([2.0, 0.25])],
    ),
]

_A = np.array([[0, 0], [0, 1], [1, 1]])
_B = np.array([[0, 1], [1, 0], [1, 1]])

SPECS += [
    GradSpec(
        "SparseAdd",
        lambda a, b: (
            fr.sparse_add(fr.SparseTensor(_A, a, [2, 2]), fr.SparseTensor(_B, b, [2, 2])).values
            * [1.0, 2.0, 3.0, 4.0]
        ),
        [np.array([1.0, 2.0, 3.0]), np.array([0.5, -1.0, -2.0])],
    ),
    GradSpec(
        "SparseTensorDenseAdd",
        lambda v, d: _weights(fr.sparse_add(fr.SparseTensor(_A, v, [2, 2]), d)),
        [np.array([1.0, 2.0, 3.0]), _r.standard_normal((2, 2))],
    ),
    GradSpec(
        "SparseSoftmax",
        lambda v: (
            fr.sparse_softmax(
                fr.SparseTensor([[0, 0], [0, 2], [1, 1], [2, 0], [2, 1], [2, 2]], v, [3, 3])
            ).values
            * [1.0, 5.0, 3.0, -2.0, 0.5, 4.0]
        ),
        [_r.standard_normal(6)],
    ),
]

SPECS += [
    GradSpec(
        "SparseSlice",
        lambda v: (
            fr.sparse_slice(
                fr.SparseTensor([[0, 0], [0, 4], [1, 2], [2, 1], [2, 5]], v, [4, 6]),
                [1, 1],
                [2, 4],
            ).values
            * [2.0, 3.0]
        ),
        [_r.standard_normal(5)],
    ),
]
