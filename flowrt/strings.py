"""``fr.strings``: TF1's ``tf.strings`` namespace (TF 1.13 and later), the string
functions of ``fr`` under the names ``tf.strings`` gives them. Definitions live in
``flowrt/ops/string_ops.py``, ``text_ops.py`` and ``hash_bucket_ops.py``; this module
only re-exports them."""

import types as _types

from .ops.hash_bucket_ops import string_to_hash_bucket as to_hash_bucket  # noqa: F401
from .ops.hash_bucket_ops import string_to_hash_bucket_fast as to_hash_bucket_fast  # noqa: F401
from .ops.hash_bucket_ops import (  # noqa: F401
    string_to_hash_bucket_strong as to_hash_bucket_strong,
)
from .ops.logging_ops import string_format as format  # noqa: F401
from .ops.string_ops import string_join as join  # noqa: F401
from .ops.string_ops import string_to_number as to_number  # noqa: F401
from .ops.string_ops import substr  # noqa: F401
from .ops.text_ops import as_string, reduce_join, regex_full_match, regex_replace  # noqa: F401
from .ops.text_ops import string_length as length  # noqa: F401
from .ops.text_ops import string_lower as lower  # noqa: F401
from .ops.text_ops import string_strip as strip  # noqa: F401
from .ops.text_ops import string_upper as upper  # noqa: F401
from .ops.text_ops import strings_split as split  # noqa: F401

__all__ = sorted(
    _n
    for _n, _v in globals().items()
    if _n.isidentifier() and not _n.startswith("_") and not isinstance(_v, _types.ModuleType)
)
"""Every public name of ``fr.strings``."""
