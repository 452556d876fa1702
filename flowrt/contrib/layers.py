"""``fr.contrib.layers``: TF1's weight regularizers (``l2_regularizer`` & co.), the
usual ``kernel_regularizer=``/``regularizer=`` arguments of layers and ``get_variable``,
and its initializers (``xavier_initializer``, ``variance_scaling_initializer``)."""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from .. import dtypes as _dt
from .._core.graph import GraphKeys, convert_to_tensor, get_default_graph
from ..init_ops import Initializer, _fans, _sample, _shape_list
from ..ops import math_ops, nn_ops

if TYPE_CHECKING:
    from .._core.graph import Tensor
    from .._core.typing import DTypeLike, Regularizer, ShapeLike, TensorLike
    from ..partitioned_variables import PartitionInfo
    from ..variables import Variable

__all__ = [
    "l1_regularizer",
    "l2_regularizer",
    "l1_l2_regularizer",
    "sum_regularizer",
    "apply_regularization",
    "xavier_initializer",
    "xavier_initializer_conv2d",
    "variance_scaling_initializer",
]


def _check_scale(scale: object) -> bool:
    if isinstance(scale, numbers.Integral):
        raise ValueError("scale cannot be an integer: %s" % (scale,))
    if isinstance(scale, numbers.Real):
        if scale < 0.0:
            raise ValueError("Setting a scale less than 0 on a regularizer: %g" % scale)
        return scale == 0.0
    return False


def _scaled(
    scale: float | TensorLike, scope: str | None, default: str, penalty: Callable[[Tensor], Tensor]
) -> Regularizer:
    if _check_scale(scale):
        return lambda _: None

    def reg(weights: Tensor) -> Tensor:
        with get_default_graph().name_scope(scope or default) as name:
            s = convert_to_tensor(scale, dtype=weights.dtype, name="scale")
            return math_ops.multiply(s, penalty(weights), name=name)

    return reg


def l1_regularizer(scale: float | TensorLike, scope: str | None = None) -> Regularizer:
    """``fn(weights) -> scale * sum(|weights|)`` (None when ``scale`` is 0).

    Raises:
      ValueError: ``scale`` is an integer or negative.
    """
    return _scaled(scale, scope, "l1_regularizer", lambda w: math_ops.reduce_sum(math_ops.abs(w)))


def l2_regularizer(scale: float | TensorLike, scope: str | None = None) -> Regularizer:
    """``fn(weights) -> scale * l2_loss(weights)`` = ``scale * sum(weights ** 2) / 2``
    (None when ``scale`` is 0).

    Raises:
      ValueError: ``scale`` is an integer or negative.
    """
    return _scaled(scale, scope, "l2_regularizer", nn_ops.l2_loss)


def sum_regularizer(
    regularizer_list: Iterable[Regularizer | None], scope: str | None = None
) -> Regularizer:
    """A regularizer adding the penalties of ``regularizer_list`` (Nones skipped)."""
    regs = [r for r in regularizer_list if r]
    if not regs:
        return lambda _: None

    def reg(weights: Tensor) -> Tensor | None:
        with get_default_graph().name_scope(scope or "sum_regularizer") as name:
            penalties = [p for p in (r(weights) for r in regs) if p is not None]
            return math_ops.add_n(penalties, name=name) if penalties else None

    return reg


def l1_l2_regularizer(
    scale_l1: float | TensorLike = 1.0, scale_l2: float | TensorLike = 1.0, scope: str | None = None
) -> Regularizer:
    """The sum of ``l1_regularizer(scale_l1)`` and ``l2_regularizer(scale_l2)``."""
    return sum_regularizer([l1_regularizer(scale_l1), l2_regularizer(scale_l2)], scope=scope)


def apply_regularization(
    regularizer: Regularizer, weights_list: Sequence[Variable | Tensor] | None = None
) -> Tensor:
    """Sums ``regularizer(w)`` over ``weights_list`` (default: the ``WEIGHTS``
    collection) and adds the sum to ``REGULARIZATION_LOSSES``.

    Raises:
      ValueError: no weights, or a penalty that is not a scalar.
    """
    g = get_default_graph()
    if not weights_list:
        weights_list = g.get_collection(GraphKeys.WEIGHTS)
    if not weights_list:
        raise ValueError("No weights to regularize.")
    with g.name_scope("get_regularization_penalty") as scope:
        penalties = [regularizer(w) for w in weights_list]
        penalties = [p if p is not None else convert_to_tensor(0.0) for p in penalties]
        for p in penalties:
            if p.shape.ndims not in (None, 0):
                raise ValueError(
                    "regularizer must return a scalar Tensor instead of a "
                    "Tensor with rank %d." % p.shape.ndims
                )
        total = math_ops.add_n(penalties, name=scope)
    g.add_to_collection(GraphKeys.REGULARIZATION_LOSSES, total)
    return total


# --------------------------------------------------------------------------------------
# Initializers: contrib's own variance scaling (factor, FAN_* modes, truncated normal
# with stddev sqrt(1.3 * factor / n)), which differs from fr.variance_scaling_initializer
# --------------------------------------------------------------------------------------


class _ContribVarianceScaling(Initializer):
    def __init__(
        self, factor: float, mode: str, uniform: bool, seed: int | None, dtype: DTypeLike
    ) -> None:
        if not _dt.as_dtype(dtype).is_floating:
            raise TypeError("Cannot create initializer for non-floating point type.")
        if mode not in ("FAN_IN", "FAN_OUT", "FAN_AVG"):
            raise TypeError("Unknown mode %s [FAN_IN, FAN_OUT, FAN_AVG]" % (mode,))
        self.factor, self.mode, self.uniform, self.seed = factor, mode, uniform, seed
        self.dtype = _dt.as_dtype(dtype)

    def __call__(
        self,
        shape: ShapeLike,
        dtype: DTypeLike | None = None,
        partition_info: PartitionInfo | None = None,
    ) -> Tensor:
        dt = _dt.as_dtype(dtype or self.dtype)
        if not dt.is_floating:
            raise TypeError("Cannot create initializer for non-floating point type.")
        shape = _shape_list(shape)
        fan_in, fan_out = _fans(
            _shape_list(partition_info.full_shape) if partition_info is not None else shape
        )
        n = {"FAN_IN": fan_in, "FAN_OUT": fan_out, "FAN_AVG": (fan_in + fan_out) / 2.0}
        if self.uniform:
            limit = math.sqrt(3.0 * self.factor / n[self.mode])
            return _sample(
                "random_uniform",
                shape,
                dt,
                self.seed,
                "random_uniform",
                minval=-limit,
                maxval=limit,
            )
        stddev = math.sqrt(1.3 * self.factor / n[self.mode])
        return _sample(
            "truncated_normal", shape, dt, self.seed, "truncated_normal", mean=0.0, stddev=stddev
        )

    def get_config(self) -> dict:
        return {
            "factor": self.factor,
            "mode": self.mode,
            "uniform": self.uniform,
            "seed": self.seed,
            "dtype": self.dtype.name,
        }


def variance_scaling_initializer(
    factor: float = 2.0,
    mode: str = "FAN_IN",
    uniform: bool = False,
    seed: int | None = None,
    dtype: DTypeLike = _dt.float32,
) -> Initializer:
    """contrib's variance scaling initializer (He et al. by default).

    With ``n`` the fan given by ``mode`` (``FAN_IN``, ``FAN_OUT`` or ``FAN_AVG``, the
    mean of both): uniform in ``[-l, l]``, ``l = sqrt(3 * factor / n)``, if ``uniform``,
    else a normal truncated at two standard deviations with
    ``stddev = sqrt(1.3 * factor / n)``.

    Args:
      factor: the scale.
      mode: ``"FAN_IN"``, ``"FAN_OUT"`` or ``"FAN_AVG"``.
      uniform: sample uniformly instead of from the truncated normal.
      seed: the op seed.
      dtype: a float dtype.

    Raises:
      TypeError: for a non-float dtype or an unknown mode, as TF1.
    """
    return _ContribVarianceScaling(factor, mode, uniform, seed, dtype)


def xavier_initializer(
    uniform: bool = True, seed: int | None = None, dtype: DTypeLike = _dt.float32
) -> Initializer:
    """Glorot and Bengio's initializer: ``variance_scaling_initializer(factor=1.0,
    mode="FAN_AVG", uniform=uniform)``.

    Args:
      uniform: uniform (default) or truncated normal samples.
      seed: the op seed.
      dtype: a float dtype.
    """
    return _ContribVarianceScaling(1.0, "FAN_AVG", uniform, seed, dtype)


xavier_initializer_conv2d = xavier_initializer
