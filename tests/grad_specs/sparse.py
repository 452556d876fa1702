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
    GradSpec("SparseTensorDenseMatMul", _matmul(adjoint_a=True), [VALS, B32],
             id="SparseTensorDenseMatMul-adjoint_a"),
    GradSpec("SparseTensorDenseMatMul", _matmul(adjoint_b=True), [VALS, B24],
             id="SparseTensorDenseMatMul-adjoint_b"),
    GradSpec("SparseTensorDenseMatMul", _matmul(True, True), [VALS, B32.T.copy()],
             id="SparseTensorDenseMatMul-adjoint_both"),
]
