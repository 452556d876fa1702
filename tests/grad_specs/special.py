"""Gradient specs for flowrt/ops/special_math_ops.py (TF's math_grad.py rules)."""

import numpy as np

import flowrt as fr
from tests.gradcheck import GradSpec

_P = np.array([[0.3, 1.5], [2.0, 4.5]])  # positive arguments
_U = np.array([[0.1, 0.35], [0.6, 0.85]])  # in (0, 1)
_S = np.array([[-1.2, -0.4], [0.5, 2.5]])  # signed

SPECS = [
    GradSpec("Erf", fr.erf, [_S]),
    GradSpec("Erfc", fr.erfc, [_S]),
    GradSpec("Lgamma", fr.lgamma, [_P]),
    GradSpec("Digamma", fr.digamma, [_P], rtol=1e-4),
    GradSpec("Erfinv", lambda x: fr.math.erfinv(x), [_U * 2 - 1]),
    GradSpec("Ndtri", lambda x: fr.math.ndtri(x), [_U]),
    GradSpec("BesselI0e", lambda x: fr.math.bessel_i0e(x), [_S]),
    GradSpec("BesselI1e", lambda x: fr.math.bessel_i1e(x), [_S]),
    GradSpec("Igamma", fr.igamma, [_P, _P[::-1] + 0.5], rtol=1e-4),
    GradSpec("Igamma", fr.igamma, [_P[0], _P + 0.5], id="Igamma-broadcast", rtol=1e-4),
    GradSpec("Igammac", fr.igammac, [_P, _P[::-1] + 0.5], rtol=1e-4),
    GradSpec("Polygamma", lambda x: fr.polygamma(fr.ones_like(x), x), [_P], rtol=1e-4),
    GradSpec("Zeta", lambda q: fr.zeta(fr.ones_like(q) * 2.5, q), [_P], rtol=1e-4),
    GradSpec(
        "Betainc", lambda x: fr.betainc(fr.ones_like(x) * 2.0, fr.ones_like(x) * 3.0, x), [_U]
    ),
    GradSpec("Lgamma", lambda x: fr.lbeta(x), [_P], id="lbeta"),
]
