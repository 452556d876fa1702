"""Gradient specs for flowrt/ops/matrix_ops.py (band part, diagonals, norms)."""

import numpy as np

import flowrt as fr
from tests.gradcheck import GradSpec

_r = np.random.default_rng(11)
M34 = _r.standard_normal((3, 4))
B233 = _r.standard_normal((2, 3, 3))
V3 = _r.standard_normal((3,))
D23 = _r.standard_normal((2, 3))
V22 = _r.standard_normal((2, 2))

SPECS = [
    GradSpec("MatrixBandPart", lambda x: fr.matrix_band_part(x, 1, 0), [M34]),
    GradSpec("MatrixBandPart", lambda x: fr.matrix_band_part(x, -1, 1), [B233], id="band-batch"),
    GradSpec("MatrixDiag", fr.matrix_diag, [D23]),
    GradSpec("MatrixDiagPart", fr.matrix_diag_part, [M34]),
    GradSpec("MatrixDiagPart", fr.trace, [B233], id="trace"),
    GradSpec("MatrixSetDiag", fr.matrix_set_diag, [B233, D23]),
    GradSpec("Diag", fr.diag, [V3]),
    GradSpec("Diag", fr.diag, [V22], id="Diag-rank2"),
    GradSpec("DiagPart", fr.diag_part, [_r.standard_normal((3, 3))]),
    GradSpec("Sqrt", fr.norm, [M34], id="norm-euclidean"),
    GradSpec("Pow", lambda x: fr.norm(x, ord=3, axis=1), [M34], id="norm-p3"),
    GradSpec("Max", lambda x: fr.norm(x, ord=1, axis=[0, 1]), [M34], id="norm-matrix-1"),
]
