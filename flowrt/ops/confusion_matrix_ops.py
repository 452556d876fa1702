"""``confusion_matrix`` (``fr.confusion_matrix``, ``fr.math.confusion_matrix``) and the
``remove_squeezable_dimensions`` it shares with ``fr.losses`` and ``fr.metrics``, as in
TF's ``confusion_matrix.py``: counts built with one ``ScatterNd``, after run-time checks
that every class index is in range (an out-of-range index would be dropped silently)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import dtypes as _dt
from .._core.graph import Tensor, convert_to_tensor
from . import array_ops, math_ops
from .check_ops import assert_less, assert_non_negative
from .common import in_graph_of, op_scope
from .image_geometry import with_dependencies
from .indexing_ops import scatter_nd

if TYPE_CHECKING:
    from .._core.typing import TensorLike

__all__ = ["confusion_matrix"]


def remove_squeezable_dimensions(
    labels: Tensor, predictions: Tensor, expected_rank_diff: int = 0
) -> tuple[Tensor, Tensor]:
    """Squeezes a trailing size-1 dimension so that ``rank(predictions) - rank(labels)``
    becomes ``expected_rank_diff`` (static ranks only, as TF when they are known)."""
    with in_graph_of([labels, predictions, expected_rank_diff]):
        lr, pr = labels.shape.ndims, predictions.shape.ndims
        if lr is None or pr is None:
            return labels, predictions
        diff = pr - lr
        if diff == expected_rank_diff + 1 and predictions.shape[-1] in (1, None):
            predictions = array_ops.squeeze(predictions, [-1])
        elif diff == expected_rank_diff - 1 and labels.shape[-1] in (1, None):
            labels = array_ops.squeeze(labels, [-1])
        return labels, predictions


def confusion_matrix(
    labels: TensorLike,
    predictions: TensorLike,
    num_classes: TensorLike | None = None,
    dtype: Any = _dt.int32,
    name: str | None = None,
    weights: TensorLike | None = None,
) -> Tensor:
    """The ``[num_classes, num_classes]`` matrix whose entry ``[i, j]`` counts (or sums
    the ``weights`` of) the examples with label ``i`` predicted as ``j``.

    Labels and predictions are class indices in ``[0, num_classes)``; running with a
    negative or (given ``num_classes``) too large index raises ``InvalidArgumentError``.

    Args:
      labels: a 1-D integer tensor of true classes.
      predictions: a 1-D integer tensor of predicted classes, as long as ``labels``.
      num_classes: the number of classes; if None, one more than the largest label or
        prediction.
      dtype: the dtype of the matrix.
      name: the name scope (default ``confusion_matrix``).
      weights: a tensor of ``predictions``' shape weighting each example (default 1).
    """
    with op_scope([predictions, labels, num_classes, weights], name, "confusion_matrix"):
        labels, predictions = remove_squeezable_dimensions(
            convert_to_tensor(labels, name="labels"),
            convert_to_tensor(predictions, name="predictions"),
        )
        predictions = math_ops.cast(predictions, _dt.int64)
        labels = math_ops.cast(labels, _dt.int64)
        labels = with_dependencies(
            [assert_non_negative(labels, message="`labels` contains negative values")], labels
        )
        predictions = with_dependencies(
            [assert_non_negative(predictions, message="`predictions` contains negative values")],
            predictions,
        )
        if num_classes is None:
            n = math_ops.maximum(math_ops.reduce_max(predictions), math_ops.reduce_max(labels)) + 1
        else:
            n = math_ops.cast(num_classes, _dt.int64)
            labels = with_dependencies(
                [assert_less(labels, n, message="`labels` out of bound")], labels
            )
            predictions = with_dependencies(
                [assert_less(predictions, n, message="`predictions` out of bound")], predictions
            )
        if weights is not None:
            weights = convert_to_tensor(weights, name="weights")
            predictions.shape.assert_is_compatible_with(weights.shape)
            weights = math_ops.cast(weights, dtype)
        shape = array_ops.stack([n, n])
        indices = array_ops.stack([labels, predictions], axis=1)
        values = array_ops.ones_like(predictions, dtype) if weights is None else weights
        return scatter_nd(indices, values, math_ops.cast(shape, _dt.int64))
