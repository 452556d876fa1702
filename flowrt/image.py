"""``fr.image``: TF1's ``tf.image`` functions. Definitions live in
``flowrt/ops/image_ops.py`` (resizing, patches) and ``flowrt/ops/image_*.py``
(geometry, color); this module only re-exports them."""

import types as _types

from .ops.image_boxes import *  # noqa: F403
from .ops.image_codecs import *  # noqa: F403
from .ops.image_color import *  # noqa: F403
from .ops.image_geometry import *  # noqa: F403
from .ops.image_hsv import *  # noqa: F403
from .ops.image_metrics import *  # noqa: F403
from .ops.image_nms import *  # noqa: F403
from .ops.image_ops import *  # noqa: F403
from .ops.image_resize import *  # noqa: F403
from .ops.image_sample_box import *  # noqa: F403

__all__ = sorted(
    _n
    for _n, _v in globals().items()
    if _n.isidentifier() and not _n.startswith("_") and not isinstance(_v, _types.ModuleType)
)
"""Every public name of ``fr.image``."""
