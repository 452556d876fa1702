"""Gradient specs for ``IdentityN`` (flowrt/ops/custom_gradient_ops.py), plain and as
the op ``fr.custom_gradient`` routes gradients through (its ``grad_fn`` here is the
true gradient, so the numerical check holds)."""

import numpy as np

import flowrt as fr
from tests.gradcheck import GradSpec

_r = np.random.default_rng(31)
A = _r.standard_normal((3, 4))
B = _r.standard_normal((4,))


@fr.custom_gradient
def _softplus_times(x, y):
    e = fr.exp(x)
    out = fr.log(1 + e) * y

    def grad(dy):
        return dy * y * e / (1 + e), fr.reduce_sum(dy * fr.log(1 + e), 0)

    return out, grad


SPECS = [
    GradSpec("IdentityN", lambda x, y: fr.identity_n([x, y])[0] * fr.identity_n([x, y])[1], [A, B]),
    GradSpec("IdentityN", _softplus_times, [A, B], id="IdentityN-custom_gradient"),
]
