"""Gradient specs for the checking/printing ops and the clipping functions built on them."""

import numpy as np

import flowrt as fr
from tests.gradcheck import GradSpec

_r = np.random.default_rng(7)
A = _r.standard_normal((3, 4))
B = _r.standard_normal((4,))
SMALL = A * 0.05

SPECS = [
    GradSpec("CheckNumerics", lambda x: fr.check_numerics(x, "x") * x, [A]),
    GradSpec("Print", lambda x, y: fr.Print(x, [y, x], first_n=0) * y, [A, B]),
    GradSpec("Maximum", lambda x: fr.clip_by_norm(x, 1.0), [A], id="clip_by_norm-clipped"),
    GradSpec(
        "Maximum",
        lambda x: fr.clip_by_norm(x, 10.0, axes=[1]),
        [A],
        id="clip_by_norm-axes-unclipped",
    ),
    GradSpec(
        "Minimum",
        lambda x, y: fr.clip_by_global_norm([x, y], 1.5)[0][0],
        [A, B],
        id="clip_by_global_norm",
    ),
    GradSpec(
        "Minimum",
        lambda x, y: fr.clip_by_global_norm([x, y], 9.0)[0][1],
        [SMALL, B],
        id="clip_by_global_norm-unclipped",
    ),
    GradSpec("Sqrt", lambda x, y: fr.global_norm([x, None, y]), [A, B], id="global_norm"),
]
