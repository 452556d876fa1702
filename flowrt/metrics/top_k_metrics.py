"""Metrics of the top ``k`` predicted classes against sets of labels: ``precision_at_k``,
``recall_at_k`` and their ``_at_top_k`` forms taking the predicted class ids directly.

As in TF, each row's labels and top-``k`` ids are sets (``fr.sets``): a row contributes
``|top_k ∩ labels|`` true positives, ``|top_k - labels|`` false positives and
``|labels - top_k|`` false negatives, weighted by the row's weight, summed in float64
variables (``precision_at_5/true_positive_at_5``, ...). A label outside
``[0, num_classes)`` is never predicted: it counts as a false negative.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .. import dtypes as _dt
from .._core.graph import Tensor, convert_to_tensor
from ..losses._weights import broadcast_weights
from ..ops import array_ops, math_ops, state_ops
from ..ops.common import in_graph_of
from ..ops.set_ops import set_difference, set_intersection, set_size
from ..ops.slicing_ops import concat
from ..ops.sparse_ops import SparseTensor
from ..ops.topk_ops import top_k
from ..var_scope import variable_scope
from .metrics_impl import _check_collections, _collect, metric_variable

if TYPE_CHECKING:
    from .._core.typing import TensorLike

__all__ = ["precision_at_k", "recall_at_k", "precision_at_top_k", "recall_at_top_k"]


def _at_k_name(name: str, k: int | None, class_id: int | None) -> str:
    name = "%s_at_%d" % (name, k) if k is not None else "%s_at_k" % name
    return name if class_id is None else "%s_class%d" % (name, class_id)


def _labels(labels: Any, predictions_idx: Tensor) -> Any:
    """Dense labels of one rank less than the predictions get a last dimension of one
    label (TF's ``_maybe_expand_labels``)."""
    if isinstance(labels, SparseTensor) or hasattr(labels, "dense_shape"):
        return labels
    labels = convert_to_tensor(labels)
    p, r = predictions_idx.shape.ndims, labels.shape.ndims
    if p is not None and r is not None and r == p - 1:
        labels = array_ops.expand_dims(labels, -1)
    return labels


def _select_class_id(ids: Any, class_id: int) -> Any:
    """The ids of each row that equal ``class_id`` (a set of at most that one id)."""
    ids = ids if isinstance(ids, SparseTensor) else convert_to_tensor(ids)
    lead = ids.dense_shape[:-1] if isinstance(ids, SparseTensor) else array_ops.shape(ids)[:-1]
    lead = math_ops.cast(lead, _dt.int32)
    shape = concat([lead, array_ops.constant([1])], 0)
    filled = array_ops.fill(shape, array_ops.constant(class_id, _dt.int64))
    return set_intersection(filled, ids)


def _streaming_count(
    name: str, counts: Tensor, weights: TensorLike | None
) -> tuple[Tensor, Tensor]:
    """A float64 variable ``name`` summing ``counts`` (one per row, weighted)."""
    counts = math_ops.cast(counts, _dt.float64)
    if weights is not None:
        w = math_ops.cast(convert_to_tensor(weights), _dt.float64)
        counts = math_ops.multiply(counts, broadcast_weights(w, counts))
    var = metric_variable([], _dt.float64, name=name)
    return array_ops.identity(var), state_ops.assign_add(var, math_ops.reduce_sum(counts))


def _at_top_k(
    what: str,
    from_scores: bool,
    labels: Any,
    predictions: Any,
    k: int | None,
    class_id: int | None,
    weights: Any,
    collections: tuple[Sequence[str] | None, Sequence[str] | None],
    name: str | None,
) -> tuple[Tensor, Tensor]:
    """The one body of the four metrics: ``what`` is ``precision`` or ``recall``;
    ``predictions`` are scores whose top ``k`` are taken (``from_scores``) or the
    predicted class ids themselves."""
    metrics_collections, updates_collections = collections
    _check_collections(metrics_collections, updates_collections)
    with in_graph_of([labels, predictions, weights]):
        with variable_scope(name, _at_k_name(what, k, class_id), (predictions, labels, weights)):
            if from_scores:
                assert k is not None
                _, predictions = top_k(convert_to_tensor(predictions), k)
            idx = math_ops.cast(convert_to_tensor(predictions), _dt.int64)
            labels = _labels(labels, idx)
            if class_id is not None:
                labels, idx = _select_class_id(labels, class_id), _select_class_id(idx, class_id)
            tp = set_size(set_intersection(idx, labels))
            # precision counts top-k ids not in the labels, recall labels not in the top k.
            other = set_size(set_difference(idx, labels, aminusb=what == "precision"))
            other_name = "false_positive" if what == "precision" else "false_negative"
            tp_v, tp_up = _streaming_count(_at_k_name("true_positive", k, class_id), tp, weights)
            o_v, o_up = _streaming_count(_at_k_name(other_name, k, class_id), other, weights)
            # 0 / 0 is NaN, as TF's (no label or prediction of the class yet).
            value = math_ops.divide(tp_v, math_ops.add(tp_v, o_v), name="value")
            update = math_ops.divide(tp_up, math_ops.add(tp_up, o_up), name="update_op")
            return _collect(metrics_collections, updates_collections, value, update)


def precision_at_k(
    labels: Any,
    predictions: TensorLike,
    k: int,
    class_id: int | None = None,
    weights: TensorLike | None = None,
    metrics_collections: Sequence[str] | None = None,
    updates_collections: Sequence[str] | None = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    """How many of the ``k`` highest-scored classes of each row are among its labels.

    Args:
      labels: int64 ``[D1, ... DN, num_labels]`` (or ``[D1, ... DN]``: one label a row),
        dense or a ``SparseTensor``; each row is a set of class ids.
      predictions: float ``[D1, ... DN, num_classes]`` scores.
      k: the number of top classes of a row.
      class_id: count only this class (the precision of one class).
      weights: per-row weights, broadcastable to ``[D1, ... DN]``.
      metrics_collections, updates_collections: collections for the value and update.
      name: the variable scope (default ``precision_at_<k>[_class<id>]``).

    Returns:
      ``(precision, update_op)`` (float64; NaN before any top-k prediction counts), with
      variables ``true_positive_at_<k>`` and ``false_positive_at_<k>``.
    """
    cols = metrics_collections, updates_collections
    return _at_top_k("precision", True, labels, predictions, k, class_id, weights, cols, name)


def recall_at_k(
    labels: Any,
    predictions: TensorLike,
    k: int,
    class_id: int | None = None,
    weights: TensorLike | None = None,
    metrics_collections: Sequence[str] | None = None,
    updates_collections: Sequence[str] | None = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    """How many of each row's labels are among its ``k`` highest-scored classes (the
    arguments as ``precision_at_k``).

    Returns:
      ``(recall, update_op)`` (float64; NaN before any label counts), with variables
      ``true_positive_at_<k>`` and ``false_negative_at_<k>``.
    """
    cols = metrics_collections, updates_collections
    return _at_top_k("recall", True, labels, predictions, k, class_id, weights, cols, name)


def precision_at_top_k(
    labels: Any,
    predictions_idx: TensorLike,
    k: int | None = None,
    class_id: int | None = None,
    weights: TensorLike | None = None,
    metrics_collections: Sequence[str] | None = None,
    updates_collections: Sequence[str] | None = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    """``precision_at_k`` of already chosen class ids: ``predictions_idx`` is an int
    ``[D1, ... DN, k]`` tensor of each row's predicted classes; ``k`` only names the
    metric (``precision_at_<k>``, ``precision_at_k`` when None), as in TF."""
    cols = metrics_collections, updates_collections
    return _at_top_k("precision", False, labels, predictions_idx, k, class_id, weights, cols, name)


def recall_at_top_k(
    labels: Any,
    predictions_idx: TensorLike,
    k: int | None = None,
    class_id: int | None = None,
    weights: TensorLike | None = None,
    metrics_collections: Sequence[str] | None = None,
    updates_collections: Sequence[str] | None = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    """``recall_at_k`` of already chosen class ids (see ``precision_at_top_k``)."""
    cols = metrics_collections, updates_collections
    return _at_top_k("recall", False, labels, predictions_idx, k, class_id, weights, cols, name)
