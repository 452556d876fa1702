"""``fr.layers``: TF1's ``tf.layers`` (variable-scoped layers, functional and class forms).

Definitions live in ``base.py``, ``core.py``, ``convolutional.py``,
``separable_conv.py`` and ``normalization.py``; this module only re-exports them.
"""

import types as _types

from .base import InputSpec, Layer  # noqa: F401
from .convolutional import *  # noqa: F403
from .core import *  # noqa: F403
from .normalization import *  # noqa: F403
from .separable_conv import *  # noqa: F403

__all__ = sorted(
    _n
    for _n, _v in globals().items()
    if _n.isidentifier() and not _n.startswith("_") and not isinstance(_v, _types.ModuleType)
)
"""What the imports above brought (the implementation modules are not part of it)."""
