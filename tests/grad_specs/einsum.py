"""Gradient specs for ``Einsum`` (flowrt/ops/einsum_ops.py): contractions, the
implicit form, ellipsis broadcasting from size 1, labels summed in one input, repeated
labels (diagonals) and three inputs."""

import numpy as np

import flowrt as fr
from tests.gradcheck import GradSpec

_r = np.random.default_rng(41)
A = _r.standard_normal((2, 3, 4))
B = _r.standard_normal((4, 5))
D = _r.standard_normal((3, 3))
V = _r.standard_normal((1, 4))
M = _r.standard_normal((2, 3, 1, 4))


def _e(equation):
    return lambda *xs: fr.einsum(equation, *xs)


SPECS = [
    GradSpec("Einsum", _e("bij,jk->bik"), [A, B]),
    GradSpec("Einsum", _e("...ij,jk"), [A, B], id="Einsum-implicit-ellipsis"),
    GradSpec("Einsum", _e("...j,...j->..."), [A, V], id="Einsum-broadcast-from-1"),
    GradSpec("Einsum", _e("bij->bj"), [A], id="Einsum-sum-one-input"),
    GradSpec("Einsum", _e("bij,k->bk"), [A, B[0]], id="Einsum-labels-in-one-input"),
    GradSpec("Einsum", _e("ii->i"), [D], id="Einsum-diagonal"),
    GradSpec("Einsum", _e("ii"), [D], id="Einsum-trace"),
    GradSpec("Einsum", _e("i,j"), [B[0], B[1]], id="Einsum-outer"),
    GradSpec("Einsum", _e("ij,jk,kl->il"), [D, D * 2, D + 1], id="Einsum-three-inputs"),
    GradSpec("Einsum", _e("i...j,j->i..."), [M, B[:, 0]], id="Einsum-ellipsis-in-middle"),
    GradSpec("Einsum", _e("b...ii->b..."), [_r.standard_normal((2, 3, 3))], id="Einsum-batch-diag"),
]
