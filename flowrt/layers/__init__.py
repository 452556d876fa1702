"""``fr.layers``: TF1's ``tf.layers`` (variable-scoped layers, functional and class forms).

Definitions live in ``base.py``, ``core.py``, ``convolutional.py`` and
``normalization.py``; this module only re-exports them.
"""

from .base import InputSpec, Layer  # noqa: F401
from .convolutional import *  # noqa: F403
from .core import *  # noqa: F403
from .normalization import *  # noqa: F403
