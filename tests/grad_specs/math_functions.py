"""Gradient specs for flowrt/ops/cwise_math_ops.py, scan_ops.py and reduction_ops.py (TF's
math_grad.py rules)."""

import numpy as np

import flowrt as fr
from tests.gradcheck import GradSpec

_r = np.random.default_rng(7)
A = _r.standard_normal((3, 4))
B = _r.standard_normal((3, 4))
UNIT = _r.uniform(-0.8, 0.8, (3, 4))  # inside (-1, 1): asin, acos, atanh
GT1 = _r.uniform(1.2, 3.0, (3, 4))  # acosh
NZ = _r.uniform(0.5, 2.0, (3, 4)) * np.where(_r.random((3, 4)) < 0.5, -1.0, 1.0)  # cumprod

SPECS = [
    GradSpec("Sinh", fr.sinh, [A]),
    GradSpec("Cosh", fr.cosh, [A]),
    GradSpec("Tan", fr.tan, [UNIT]),
    GradSpec("Asin", fr.asin, [UNIT]),
    GradSpec("Acos", fr.acos, [UNIT]),
    GradSpec("Atan", fr.atan, [A]),
    GradSpec("Asinh", fr.asinh, [A]),
    GradSpec("Acosh", fr.acosh, [GT1]),
    GradSpec("Atanh", fr.atanh, [UNIT]),
    GradSpec("Expm1", fr.expm1, [A]),
    GradSpec("Softsign", fr.nn.softsign, [A]),
    GradSpec("Atan2", fr.atan2, [A, GT1]),
    GradSpec("Atan2", fr.atan2, [A, B[:1]], id="Atan2-broadcast"),
    GradSpec("Cumsum", lambda x: fr.cumsum(x, axis=1), [A]),
    GradSpec(
        "Cumsum",
        lambda x: fr.cumsum(x, axis=0, exclusive=True, reverse=True),
        [A],
        id="Cumsum-ex-rev",
    ),
    GradSpec("Cumprod", lambda x: fr.cumprod(x, axis=1), [NZ]),
    GradSpec(
        "Cumprod",
        lambda x: fr.cumprod(x, axis=-2, exclusive=True, reverse=True),
        [NZ],
        id="Cumprod-ex-rev",
    ),
    GradSpec("Max", lambda x: fr.reduce_logsumexp(x, axis=1), [A], id="reduce_logsumexp"),
    GradSpec("CumulativeLogsumexp", lambda x: fr.math.cumulative_logsumexp(x, axis=1), [A]),
    GradSpec(
        "CumulativeLogsumexp",
        # the last row is -inf (an empty sum): left out of the finite differences
        lambda x: fr.math.cumulative_logsumexp(x, axis=0, exclusive=True, reverse=True)[:-1],
        [A],
        id="CumulativeLogsumexp-ex-rev",
    ),
    GradSpec("NextAfter", fr.math.nextafter, [A, B]),
    GradSpec("NextAfter", fr.math.nextafter, [A, B[:1]], id="NextAfter-broadcast"),
    GradSpec("EuclideanNorm", lambda x: fr.math.reduce_euclidean_norm(x, axis=1), [A]),
    GradSpec(
        "EuclideanNorm",
        lambda x: fr.math.reduce_euclidean_norm(x, axis=[0, 1], keepdims=True),
        [A],
        id="EuclideanNorm-keepdims",
    ),
]
