"""TF1's streaming metrics at an operating point: the sensitivity where the specificity
is closest to a target, and the reverse, from confusion counts at evenly spaced
thresholds (TF 2.21's ``metrics_impl``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .. import dtypes as _dt
from .._core.graph import Tensor
from ..ops import math_ops
from ..ops.common import in_graph_of
from ..ops.scan_ops import cumsum
from ..ops.slicing_ops import gather
from ..var_scope import variable_scope
from .metrics_impl import _check_collections, _collect, _confusion_at_thresholds

if TYPE_CHECKING:
    from .._core.typing import TensorLike

__all__ = ["sensitivity_at_specificity", "specificity_at_sensitivity"]

_KEPSILON = 1e-7  # TF's allowance for floating-point imprecision


def _thresholds(num_thresholds: int, last: float) -> list[float]:
    mids = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
    return [0.0 - _KEPSILON] + mids + [last]


def _check(num_thresholds: int, target: float, what: str) -> None:
    if num_thresholds < 1:
        raise ValueError("`num_thresholds` must be > 0.")
    if target < 0 or target > 1:
        raise ValueError(
            "`%s` must be in the range [0, 1]. Currently, `%s` is %s." % (what, what, target)
        )


def _ratio_at(a, b, index, name):
    a_i, b_i = gather(a, index), gather(b, index)
    return math_ops.divide(a_i, a_i + b_i + _KEPSILON, name=name)


def sensitivity_at_specificity(
    labels: TensorLike,
    predictions: TensorLike,
    specificity: float,
    weights: TensorLike | None = None,
    num_thresholds: int = 200,
    metrics_collections: Sequence[str] | None = None,
    updates_collections: Sequence[str] | None = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    """The sensitivity ``tp / (tp + fn)`` at the threshold whose specificity
    ``tn / (tn + fp)`` is closest to ``specificity`` (the first such threshold).

    Args:
      labels: bool-castable labels, shaped like ``predictions``.
      predictions: floats in [0, 1].
      specificity: the target specificity, in [0, 1].
      weights: None or broadcastable to ``predictions``.
      num_thresholds: how many evenly spaced thresholds.
      metrics_collections: collections to add the value to.
      updates_collections: collections to add the update op to.
      name: the variable scope (default ``sensitivity_at_specificity``), holding
        ``true_positives``, ``false_negatives``, ``true_negatives`` and
        ``false_positives`` of shape ``[num_thresholds]``.

    Returns:
      ``(sensitivity, update_op)``.

    Raises:
      ValueError: ``num_thresholds`` below 1 or ``specificity`` outside [0, 1].
    """
    _check(num_thresholds, specificity, "specificity")
    _check_collections(metrics_collections, updates_collections)
    with in_graph_of([labels, predictions, weights]):
        with variable_scope(name, "sensitivity_at_specificity", (predictions, labels, weights)):
            ths = _thresholds(num_thresholds, 1.0 + _KEPSILON)
            values, updates = _confusion_at_thresholds(labels, predictions, ths, weights)

            def compute(c, nm):
                spec = math_ops.divide(c["tn"], c["tn"] + c["fp"] + _KEPSILON)
                index = math_ops.argmin(math_ops.abs(spec - specificity), 0)
                return _ratio_at(c["tp"], c["fn"], math_ops.cast(index, _dt.int32), nm)

            return _collect(
                metrics_collections,
                updates_collections,
                compute(values, "value"),
                compute(updates, "update_op"),
            )


def specificity_at_sensitivity(
    labels: TensorLike,
    predictions: TensorLike,
    sensitivity: float,
    weights: TensorLike | None = None,
    num_thresholds: int = 200,
    metrics_collections: Sequence[str] | None = None,
    updates_collections: Sequence[str] | None = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    """The specificity ``tn / (tn + fp)`` at the threshold whose sensitivity
    ``tp / (tp + fn)`` is closest to ``sensitivity`` (the last such threshold).

    Args:
      labels: bool-castable labels, shaped like ``predictions``.
      predictions: floats in [0, 1].
      sensitivity: the target sensitivity, in [0, 1].
      weights: None or broadcastable to ``predictions``.
      num_thresholds: how many evenly spaced thresholds (the last is ``1 - 1e-7``, as
        TF's).
      metrics_collections: collections to add the value to.
      updates_collections: collections to add the update op to.
      name: the variable scope (default ``specificity_at_sensitivity``), holding the
        four confusion counts of shape ``[num_thresholds]``.

    Returns:
      ``(specificity, update_op)``.

    Raises:
      ValueError: ``num_thresholds`` below 1 or ``sensitivity`` outside [0, 1].
    """
    _check(num_thresholds, sensitivity, "sensitivity")
    _check_collections(metrics_collections, updates_collections)
    with in_graph_of([labels, predictions, weights]):
        with variable_scope(name, "specificity_at_sensitivity", (predictions, labels, weights)):
            ths = _thresholds(num_thresholds, 1.0 - _KEPSILON)
            values, updates = _confusion_at_thresholds(labels, predictions, ths, weights)

            def compute(c, nm):
                sens = math_ops.divide(c["tp"], c["tp"] + c["fn"] + _KEPSILON)
                gap = math_ops.abs(sens - sensitivity)
                # The last threshold at the smallest gap: argmax of the running count of
                # minima is its first maximum, the last minimum.
                at_min = math_ops.cast(math_ops.equal(gap, math_ops.reduce_min(gap)), _dt.int64)
                index = math_ops.argmax(cumsum(at_min), 0)
                return _ratio_at(c["tn"], c["fp"], math_ops.cast(index, _dt.int32), nm)

            return _collect(
                metrics_collections,
                updates_collections,
                compute(values, "value"),
                compute(updates, "update_op"),
            )
