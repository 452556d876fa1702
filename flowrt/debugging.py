"""``fr.debugging``: TF1's ``tf.debugging`` namespace: the run-time assertions,
``check_numerics`` and the elementwise finiteness tests. Definitions live in
``flowrt/ops/check_ops.py``, ``extra_check_ops.py`` and ``cwise_math_ops.py``; this
module only re-exports."""

import types as _types

from .ops.check_ops import (  # noqa: F401
    Assert,
    assert_equal,
    assert_greater,
    assert_greater_equal,
    assert_integer,
    assert_less,
    assert_less_equal,
    assert_negative,
    assert_non_negative,
    assert_non_positive,
    assert_none_equal,
    assert_positive,
    assert_rank,
    assert_rank_at_least,
    assert_scalar,
    assert_type,
    check_numerics,
)
from .ops.cwise_math_ops import is_finite, is_inf, is_nan  # noqa: F401
from .ops.extra_check_ops import (  # noqa: F401
    assert_near,
    assert_proper_iterable,
    assert_rank_in,
    assert_same_float_dtype,
    is_non_decreasing,
    is_numeric_tensor,
    is_strictly_increasing,
)
from .ops.extra_check_ops import verify_tensor_all_finite as assert_all_finite  # noqa: F401

__all__ = sorted(
    _n
    for _n, _v in globals().items()
    if _n.isidentifier() and not _n.startswith("_") and not isinstance(_v, _types.ModuleType)
)
"""Every public name of ``fr.debugging``."""
