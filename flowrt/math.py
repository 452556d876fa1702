"""``fr.math``: TF1's ``tf.math`` namespace (TF 1.13 and later), the math functions of
``fr`` and ``fr.nn`` under the names ``tf.math`` gives them, plus the names only
``tf.math`` has (``reduce_std``, ``xlogy``, ``cumulative_logsumexp``, ...). Definitions
live in ``flowrt/ops/math_ops.py``, ``cwise_math_ops.py``, ``scan_ops.py``,
``reduction_ops.py``, ``segment_ops.py``, ``safe_math_ops.py``,
``nn_ops.py`` and ``topk_ops.py``; this module only re-exports."""

import types as _types

from . import _math_special as special  # noqa: F401  (fr.math.special)
from .ops.activation_ops import *  # noqa: F403
from .ops.array_ops import invert_permutation  # noqa: F401
from .ops.binning_ops import bincount  # noqa: F401
from .ops.confusion_matrix_ops import confusion_matrix  # noqa: F401
from .ops.cwise_math_ops import *  # noqa: F403
from .ops.cwise_math_ops import nextafter, softsign  # noqa: F401
from .ops.extra_check_ops import is_non_decreasing, is_strictly_increasing  # noqa: F401
from .ops.indexed_slices import unsorted_segment_sum  # noqa: F401
from .ops.math_ops import *  # noqa: F403
from .ops.math_ops import accumulate_n  # noqa: F401
from .ops.math_ops import div_no_nan as divide_no_nan  # noqa: F401
from .ops.nn_ops import (  # noqa: F401
    l2_normalize,
    log_softmax,
    softmax,
    softplus,
    zero_fraction,
)
from .ops.partition_ops import (  # noqa: F401
    unsorted_segment_max,
    unsorted_segment_mean,
    unsorted_segment_min,
    unsorted_segment_prod,
    unsorted_segment_sqrt_n,
)
from .ops.product_ops import scalar_mul  # noqa: F401
from .ops.reduction_ops import *  # noqa: F403
from .ops.reduction_ops import reduce_euclidean_norm, reduce_std, reduce_variance  # noqa: F401
from .ops.safe_math_ops import *  # noqa: F403
from .ops.scan_ops import *  # noqa: F403
from .ops.scan_ops import cumulative_logsumexp  # noqa: F401
from .ops.segment_ops import (  # noqa: F401
    segment_max,
    segment_mean,
    segment_min,
    segment_prod,
    segment_sum,
)
from .ops.sparse_segment_ops import *  # noqa: F403
from .ops.special_math_ops import *  # noqa: F403
from .ops.topk_ops import in_top_k, top_k  # noqa: F401

# Names of fr that tf.math does not have (tf.math.cast, tf.math.where do not exist).
for _n in (
    "cast",
    "to_float",
    "to_int32",
    "to_int64",
    "where",
    "broadcast_to",
    "clip_by_value",
    "complex",
    "div",
    "realdiv",
    "floor_div",
    "div_no_nan",
    "arg_max",
    "arg_min",
    "truncatediv",
    "truncatemod",
):
    globals().pop(_n, None)

__all__ = sorted(
    _n
    for _n, _v in globals().items()
    if _n.isidentifier() and not _n.startswith("_") and not isinstance(_v, _types.ModuleType)
)
"""Every public name of ``fr.math``."""
