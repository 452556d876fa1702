"""``fr.metrics``: TF1's streaming ``tf.metrics`` (``(value, update_op)`` over local
variables). Definitions live in ``metrics_impl.py``, ``class_metrics.py``,
``value_metrics.py``, ``operating_point_metrics.py`` and ``top_k_metrics.py``; this module
only re-exports."""

import types as _types

from .class_metrics import *  # noqa: F403
from .metrics_impl import *  # noqa: F403
from .operating_point_metrics import *  # noqa: F403
from .top_k_metrics import *  # noqa: F403
from .value_metrics import *  # noqa: F403

__all__ = sorted(
    _n
    for _n, _v in globals().items()
    if _n.isidentifier() and not _n.startswith("_") and not isinstance(_v, _types.ModuleType)
)
"""What the imports above brought (the implementation modules are not part of it)."""
