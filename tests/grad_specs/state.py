"""Gradient specs for state ops.

``ReadVariableOp`` passes its gradient through to the snapshot's consumers; its input is
a resource handle, so no placeholder can reach it and the numeric check below only
covers the op inside a differentiated graph. The pass-through itself is checked in
``tests/test_variables.py::test_gradient_with_respect_to_variable``.
"""

import numpy as np

import flowrt as fr
from tests.gradcheck import GradSpec

_r = np.random.default_rng(7)
A = _r.standard_normal((3, 4))


def _times_variable(x):
    v = fr.Variable(np.linspace(-1.0, 1.0, 12).reshape(3, 4))
    with fr.control_dependencies([v.initializer]):
        r = v.read_value()
    return x * r + fr.square(x)


SPECS = [
    GradSpec("ReadVariableOp", _times_variable, [A]),
]
