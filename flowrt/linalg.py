"""``fr.linalg``: TF1's ``tf.linalg`` namespace, the matrix functions of ``fr`` under the
names ``tf.linalg`` gives them. Definitions live in ``flowrt/ops/matrix_ops.py``,
``linalg_ops.py``, ``einsum_ops.py``, ``decomposition_ops.py`` and ``solve_ops.py``; this
module only re-exports."""

import types as _types

from .ops.decomposition_ops import (  # noqa: F401
    adjoint,
    cholesky,
    logdet,
    qr,
    svd,
)
from .ops.decomposition_ops import log_matrix_determinant as slogdet  # noqa: F401
from .ops.decomposition_ops import matrix_determinant as det  # noqa: F401
from .ops.decomposition_ops import matrix_inverse as inv  # noqa: F401
from .ops.decomposition_ops import self_adjoint_eig as eigh  # noqa: F401
from .ops.decomposition_ops import self_adjoint_eigvals as eigvalsh  # noqa: F401
from .ops.einsum_ops import einsum  # noqa: F401
from .ops.linalg_ops import matmul  # noqa: F401
from .ops.matrix_ops import diag as tensor_diag  # noqa: F401
from .ops.matrix_ops import diag_part as tensor_diag_part  # noqa: F401
from .ops.matrix_ops import (  # noqa: F401
    eye,
    matrix_transpose,
    norm,
    trace,
)
from .ops.matrix_ops import matrix_band_part as band_part  # noqa: F401
from .ops.matrix_ops import matrix_diag as diag  # noqa: F401
from .ops.matrix_ops import matrix_diag_part as diag_part  # noqa: F401
from .ops.matrix_ops import matrix_set_diag as set_diag  # noqa: F401
from .ops.matrix_ops import matrix_transpose as transpose  # noqa: F401
from .ops.nn_ops import l2_normalize  # noqa: F401
from .ops.solve_ops import cholesky_solve, expm, lu, matrix_rank, pinv  # noqa: F401
from .ops.solve_ops import matrix_solve as solve  # noqa: F401
from .ops.solve_ops import matrix_solve_ls as lstsq  # noqa: F401
from .ops.solve_ops import matrix_triangular_solve as triangular_solve  # noqa: F401

__all__ = sorted(
    _n
    for _n, _v in globals().items()
    if _n.isidentifier() and not _n.startswith("_") and not isinstance(_v, _types.ModuleType)
)
"""Every public name of ``fr.linalg``."""
