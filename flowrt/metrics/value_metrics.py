"""TF1's streaming means of derived values: ``mean_tensor`` (elementwise), and the
means of relative errors, cosine distances and of values below a threshold, built on
``metrics_impl.mean`` as TF 2.21 builds them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .. import dtypes as _dt
from .._core.graph import Tensor, convert_to_tensor
from ..losses._weights import as_float32, broadcast_weights, squeeze_weights
from ..ops import array_ops, math_ops, state_ops
from ..ops.common import in_graph_of
from ..var_scope import variable_scope
from .metrics_impl import _check_collections, _collect, mean, metric_variable

if TYPE_CHECKING:
    from .._core.typing import TensorLike

__all__ = ["mean_tensor", "mean_relative_error", "mean_cosine_distance", "percentage_below"]


def mean_tensor(
    values: TensorLike,
    weights: TensorLike | None = None,
    metrics_collections: Sequence[str] | None = None,
    updates_collections: Sequence[str] | None = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    """The elementwise (weighted) mean of ``values`` over all batches seen.

    Args:
      values: a numeric tensor of fully defined shape.
      weights: None, or a tensor broadcastable to ``values``.
      metrics_collections: collections to add the value to.
      updates_collections: collections to add the update op to.
      name: the variable scope (default ``mean``), holding ``total_tensor`` and
        ``count_tensor`` shaped like ``values``.

    Returns:
      ``(mean, update_op)``, both shaped like ``values`` (0 where nothing counted).
    """
    _check_collections(metrics_collections, updates_collections)
    with in_graph_of([values, weights]):
        with variable_scope(name, "mean", (values, weights)):
            values = as_float32(values)
            if not values.shape.is_fully_defined():
                raise ValueError(
                    "mean_tensor needs values of fully defined shape, got %s" % values.shape
                )
            shape = values.shape.as_list()
            total = metric_variable(shape, _dt.float32, name="total_tensor")
            count = metric_variable(shape, _dt.float32, name="count_tensor")
            num_values = array_ops.ones_like(values)
            if weights is not None:
                values, _, w = squeeze_weights(values, None, weights)
                assert w is not None
                w = broadcast_weights(as_float32(w), values)
                values = math_ops.multiply(values, w)
                num_values = math_ops.multiply(num_values, w)
            update_total = state_ops.assign_add(total, values)
            update_count = state_ops.assign_add(count, num_values)
            value = math_ops.div_no_nan(total, math_ops.maximum(count, 0.0), name="value")
            update_op = math_ops.div_no_nan(
                update_total, math_ops.maximum(update_count, 0.0), name="update_op"
            )
            return _collect(metrics_collections, updates_collections, value, update_op)


def mean_relative_error(
    labels: TensorLike,
    predictions: TensorLike,
    normalizer: TensorLike,
    weights: TensorLike | None = None,
    metrics_collections: Sequence[str] | None = None,
    updates_collections: Sequence[str] | None = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    """The streaming mean of ``|labels - predictions| / normalizer`` (0 where the
    normalizer is 0).

    Args:
      labels: a float tensor shaped like ``predictions``.
      predictions: a float tensor.
      normalizer: a float tensor shaped like ``predictions``.
      weights: None, or a tensor broadcastable to ``predictions``.
      metrics_collections: collections to add the value to.
      updates_collections: collections to add the update op to.
      name: the variable scope (default ``mean_relative_error``).

    Returns:
      ``(mean_relative_error, update_op)``.

    Raises:
      ValueError: the shapes of the arguments are incompatible.
    """
    with in_graph_of([labels, predictions, normalizer, weights]):
        predictions, labels = convert_to_tensor(predictions), convert_to_tensor(labels)
        predictions, labels, weights = squeeze_weights(predictions, labels, weights)
        normalizer = convert_to_tensor(normalizer)
        predictions, normalizer, _ = squeeze_weights(predictions, normalizer, None)
        predictions.shape.assert_is_compatible_with(normalizer.shape)
        relative_errors = math_ops.where(
            math_ops.equal(normalizer, 0.0),
            array_ops.zeros_like(labels),
            math_ops.divide(math_ops.abs(labels - predictions), normalizer),
        )
        return mean(
            relative_errors,
            weights,
            metrics_collections,
            updates_collections,
            name or "mean_relative_error",
        )


def mean_cosine_distance(
    labels: TensorLike,
    predictions: TensorLike,
    dim: int,
    weights: TensorLike | None = None,
    metrics_collections: Sequence[str] | None = None,
    updates_collections: Sequence[str] | None = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    """The streaming mean of the cosine distance ``1 - sum(labels * predictions, dim)``
    between unit-normalized ``labels`` and ``predictions``.

    Args:
      labels: a float tensor of unit vectors along ``dim``.
      predictions: a float tensor shaped like ``labels``.
      dim: the dimension holding the vectors.
      weights: None, or a tensor broadcastable to the distances (``dim`` of size 1).
      metrics_collections: collections to add the value to.
      updates_collections: collections to add the update op to.
      name: the variable scope (default ``mean_cosine_distance``).

    Returns:
      ``(mean_distance, update_op)``.

    Raises:
      ValueError: ``labels`` and ``predictions`` have incompatible shapes.
    """
    _check_collections(metrics_collections, updates_collections)
    with in_graph_of([labels, predictions, weights]):
        predictions, labels = convert_to_tensor(predictions), convert_to_tensor(labels)
        predictions, labels, weights = squeeze_weights(predictions, labels, weights)
        predictions.shape.assert_is_compatible_with(labels.shape)
        radial = math_ops.reduce_sum(
            math_ops.multiply(predictions, labels), axis=[dim], keepdims=True
        )
        mean_distance, update_op = mean(radial, weights, None, None, name or "mean_cosine_distance")
        value = math_ops.subtract(1.0, mean_distance)
        update_op = math_ops.subtract(1.0, update_op)
        return _collect(metrics_collections, updates_collections, value, update_op)


def percentage_below(
    values: TensorLike,
    threshold: float,
    weights: TensorLike | None = None,
    metrics_collections: Sequence[str] | None = None,
    updates_collections: Sequence[str] | None = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    """The streaming (weighted) share of ``values`` below ``threshold``.

    Args:
      values: a numeric tensor.
      threshold: the threshold.
      weights: None, or a tensor broadcastable to ``values``.
      metrics_collections: collections to add the value to.
      updates_collections: collections to add the update op to.
      name: the variable scope (default ``percentage_below_threshold``).

    Returns:
      ``(percentage, update_op)``: a fraction in [0, 1].
    """
    with in_graph_of([values, weights]):
        below = math_ops.cast(math_ops.less(values, threshold), _dt.float32)
        return mean(
            below, weights, metrics_collections, updates_collections,
            name or "percentage_below_threshold",
        )  # fmt: skip
