"""``fr.contrib.layers``: TF1's weight regularizers (``l2_regularizer`` & co.), the
usual ``kernel_regularizer=``/``regularizer=`` arguments of layers and ``get_variable``."""

from __future__ import annotations

import numbers
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from .._core.graph import GraphKeys, convert_to_tensor, get_default_graph
from ..ops import math_ops, nn_ops

if TYPE_CHECKING:
    from .._core.graph import Tensor
    from .._core.typing import Regularizer, TensorLike
    from ..variables import Variable

__all__ = [
    "l1_regularizer",
    "l2_regularizer",
    "l1_l2_regularizer",
    "sum_regularizer",
    "apply_regularization",
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
