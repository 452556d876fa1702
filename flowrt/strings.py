"""``fr.strings``: TF1's ``tf.strings`` namespace (TF 1.13 and later), the string
functions of ``fr`` under the names ``tf.strings`` gives them. Definitions live in
``flowrt/ops/string_ops.py``; this module only re-exports them."""

import types as _types

from .ops.string_ops import string_join as join  # noqa: F401
from .ops.string_ops import string_to_number as to_number  # noqa: F401
from .ops.string_ops import substr  # noqa: F401

__all__ = sorted(
    _n
    for _n, _v in globals().items()
    if _n.isidentifier() and not _n.startswith("_") and not isinstance(_v, _types.ModuleType)
)
"""Every public name of ``fr.strings``."""
