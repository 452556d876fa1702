"""``fr.lookup``: TF1's ``tf.lookup`` (``tf.compat.v1.lookup``), immutable lookup
tables that live in the session and are filled by ``fr.tables_initializer()``.
Definitions live in ``flowrt/ops/lookup_ops.py`` and ``flowrt/ops/vocab_tables.py``;
this module only re-exports them."""

import types as _types

from .ops.lookup_ops import (  # noqa: F401
    KeyValueTensorInitializer,
    StaticHashTable,
    TextFileIndex,
    TextFileInitializer,
)
from .ops.vocab_tables import StaticVocabularyTable  # noqa: F401

__all__ = sorted(
    _n
    for _n, _v in globals().items()
    if _n.isidentifier() and not _n.startswith("_") and not isinstance(_v, _types.ModuleType)
)
"""Every public name of ``fr.lookup``."""
