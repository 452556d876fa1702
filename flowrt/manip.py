"""``fr.manip``: TF1's ``tf.manip`` namespace, array manipulations under the names
``tf.manip`` gives them. Definitions live in ``flowrt/ops/``; this module only
re-exports."""

import types as _types

from .ops.array_ops import reshape, reverse  # noqa: F401
from .ops.batch_space_ops import batch_to_space_nd, space_to_batch_nd  # noqa: F401
from .ops.indexing_ops import gather_nd, scatter_nd  # noqa: F401
from .ops.manip_ops import roll  # noqa: F401
from .ops.slicing_ops import tile  # noqa: F401

__all__ = sorted(
    _n
    for _n, _v in globals().items()
    if _n.isidentifier() and not _n.startswith("_") and not isinstance(_v, _types.ModuleType)
)
"""Every public name of ``fr.manip``."""
