"""TF1's per-class streaming metrics: ``mean_iou`` over a streaming confusion matrix and
``mean_per_class_accuracy`` over per-class counts (TF 2.21's ``metrics_impl``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .. import dtypes as _dt
from .._core.graph import Tensor, convert_to_tensor
from ..ops import array_ops, check_ops, math_ops, matrix_ops, state_ops
from ..ops.common import in_graph_of
from ..ops.indexed_slices import unsorted_segment_sum
from ..scopes import control_dependencies
from ..var_scope import variable_scope
from .metrics_impl import _check_collections, _collect, metric_variable

if TYPE_CHECKING:
    from .._core.typing import TensorLike

__all__ = ["mean_iou", "mean_per_class_accuracy"]


def _flat(t: Tensor) -> Tensor:
    return array_ops.reshape(t, [-1]) if (t.shape.ndims or 0) > 1 else t


def _in_range(ids: Tensor, num_classes: Tensor, what: str) -> Tensor:
    """``ids`` once checked non-negative and below ``num_classes`` (TF's assertions)."""
    checks = [
        check_ops.assert_non_negative(ids, message="`%s` contains negative values" % what),
        check_ops.assert_less(ids, num_classes, message="`%s` out of bound" % what),
    ]
    with control_dependencies(checks):
        return array_ops.identity(ids)


def _streaming_confusion_matrix(labels, predictions, num_classes, weights):
    """The float64 ``total_confusion_matrix`` variable (rows labels, columns predictions)
    and the op adding this batch's weighted counts to it."""
    total_cm = metric_variable(
        [num_classes, num_classes], _dt.float64, name="total_confusion_matrix"
    )
    n = math_ops.cast(num_classes, _dt.int64)
    labels = _in_range(_flat(math_ops.cast(labels, _dt.int64)), n, "labels")
    predictions = _in_range(_flat(math_ops.cast(predictions, _dt.int64)), n, "predictions")
    if weights is None:
        counts = array_ops.ones_like(labels, dtype=_dt.float64)
    else:
        counts = math_ops.cast(_flat(convert_to_tensor(weights)), _dt.float64)
    cells = unsorted_segment_sum(counts, labels * n + predictions, num_classes * num_classes)
    current_cm = array_ops.reshape(cells, [num_classes, num_classes])
    return total_cm, state_ops.assign_add(total_cm, current_cm)


def mean_iou(
    labels: TensorLike,
    predictions: TensorLike,
    num_classes: int,
    weights: TensorLike | None = None,
    metrics_collections: Sequence[str] | None = None,
    updates_collections: Sequence[str] | None = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    """The mean intersection-over-union of the classes: per class ``tp / (tp + fp + fn)``
    from a streaming confusion matrix, averaged over the classes seen (in labels or
    predictions).

    Args:
      labels: class ids in ``[0, num_classes)``, any shape (flattened).
      predictions: class ids shaped like ``labels``.
      num_classes: the number of classes (a Python int).
      weights: None, or weights shaped like ``labels``.
      metrics_collections: collections to add the value to.
      updates_collections: collections to add the update op to.
      name: the variable scope (default ``mean_iou``), holding the float64
        ``total_confusion_matrix`` of shape ``[num_classes, num_classes]``.

    Returns:
      ``(mean_iou, update_op)``; as in TF, ``update_op`` returns the updated confusion
      matrix, not the mean.

    Raises:
      ValueError: ``labels`` and ``predictions`` have incompatible shapes.
    """
    _check_collections(metrics_collections, updates_collections)
    with in_graph_of([labels, predictions, weights]):
        with variable_scope(name, "mean_iou", (predictions, labels, weights)):
            labels, predictions = convert_to_tensor(labels), convert_to_tensor(predictions)
            predictions.shape.assert_is_compatible_with(labels.shape)
            total_cm, update_op = _streaming_confusion_matrix(
                labels, predictions, num_classes, weights
            )
            sum_over_row = math_ops.cast(math_ops.reduce_sum(total_cm, 0), _dt.float32)
            sum_over_col = math_ops.cast(math_ops.reduce_sum(total_cm, 1), _dt.float32)
            cm_diag = math_ops.cast(matrix_ops.diag_part(total_cm), _dt.float32)
            denominator = sum_over_row + sum_over_col - cm_diag
            num_valid = math_ops.reduce_sum(
                math_ops.cast(math_ops.not_equal(denominator, 0.0), _dt.float32)
            )
            denominator = math_ops.where(
                math_ops.greater(denominator, 0.0), denominator, array_ops.ones_like(denominator)
            )
            iou = math_ops.divide(cm_diag, denominator)
            value = math_ops.where(
                math_ops.greater(num_valid, 0.0),
                math_ops.reduce_sum(iou, name="mean_iou") / num_valid,
                0.0,
            )
            return _collect(metrics_collections, updates_collections, value, update_op)


def mean_per_class_accuracy(
    labels: TensorLike,
    predictions: TensorLike,
    num_classes: int,
    weights: TensorLike | None = None,
    metrics_collections: Sequence[str] | None = None,
    updates_collections: Sequence[str] | None = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    """The accuracy of each class (the share of its labels predicted right), averaged
    over all ``num_classes`` classes (a class never seen counts as 0).

    Args:
      labels: class ids in ``[0, num_classes)``, any shape (flattened).
      predictions: class ids shaped like ``labels``.
      num_classes: the number of classes (a Python int).
      weights: None, or weights shaped like ``labels``.
      metrics_collections: collections to add the value to.
      updates_collections: collections to add the update op to.
      name: the variable scope (default ``mean_accuracy``), holding ``total`` and
        ``count`` of shape ``[num_classes]``.

    Returns:
      ``(mean_accuracy, update_op)``; as in TF, ``update_op`` returns the per-class
      accuracies (shape ``[num_classes]``), not their mean.

    Raises:
      ValueError: ``labels`` and ``predictions`` have incompatible shapes.
    """
    _check_collections(metrics_collections, updates_collections)
    with in_graph_of([labels, predictions, weights]):
        with variable_scope(name, "mean_accuracy", (predictions, labels, weights)):
            labels = _flat(math_ops.cast(convert_to_tensor(labels), _dt.int64))
            predictions = _flat(convert_to_tensor(predictions))
            predictions.shape.assert_is_compatible_with(labels.shape)
            total = metric_variable([num_classes], _dt.float32, name="total")
            count = metric_variable([num_classes], _dt.float32, name="count")
            ones = array_ops.ones([array_ops.size(labels)], _dt.float32)
            if labels.dtype != predictions.dtype:
                predictions = math_ops.cast(predictions, labels.dtype)
            is_correct = math_ops.cast(math_ops.equal(predictions, labels), _dt.float32)
            if weights is not None:
                w = math_ops.cast(_flat(convert_to_tensor(weights)), _dt.float32)
                is_correct = is_correct * w
                ones = ones * w
            update_total = state_ops.scatter_add(total, labels, ones)
            update_count = state_ops.scatter_add(count, labels, is_correct)
            per_class = math_ops.div_no_nan(count, math_ops.maximum(total, 0.0))
            value = math_ops.reduce_mean(per_class, name="mean_accuracy")
            update_op = math_ops.div_no_nan(
                update_count, math_ops.maximum(update_total, 0.0), name="update_op"
            )
            return _collect(metrics_collections, updates_collections, value, update_op)
