"""Gradient specs for flowrt/ops/safe_math_ops.py (TF's math_grad.py rules)."""

import numpy as np

import flowrt as fr
from tests.gradcheck import GradSpec

_r = np.random.default_rng(11)
A = _r.standard_normal((3, 4))
POS = _r.uniform(0.5, 2.0, (3, 4))  # log(y), 1 / y
GTM1 = _r.uniform(-0.5, 2.0, (3, 4))  # log1p(y)
ROW = _r.uniform(0.5, 2.0, (1, 4))

SPECS = [
    GradSpec("Xlogy", fr.math.xlogy, [A, POS]),
    GradSpec("Xlogy", fr.math.xlogy, [A, ROW], id="Xlogy-broadcast"),
    GradSpec("Xdivy", fr.math.xdivy, [A, POS]),
    GradSpec("Xdivy", fr.math.xdivy, [ROW, POS], id="Xdivy-broadcast"),
    GradSpec("Xlog1py", fr.math.xlog1py, [A, GTM1]),
    GradSpec("MulNoNan", fr.math.multiply_no_nan, [A, POS]),
    GradSpec("MulNoNan", fr.math.multiply_no_nan, [A, ROW], id="MulNoNan-broadcast"),
]
