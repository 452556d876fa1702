"""TF1's ``tf.metrics``: streaming metrics as ``(value, update_op)`` over local variables.

Each metric opens a variable scope (``accuracy/``) holding float32 accumulators created
with ``metric_variable`` (in ``LOCAL_VARIABLES`` and ``METRIC_VARIABLES``, initialized
by ``fr.local_variables_initializer()``). ``update_op`` adds one batch and returns the
metric including it; ``value`` reads the accumulators without changing them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .. import dtypes as _dt
from .._core.graph import GraphKeys, Tensor, convert_to_tensor, get_default_graph
from ..losses._weights import as_float32, broadcast_weights, squeeze_weights
from ..ops import array_ops, math_ops, state_ops
from ..ops.common import in_graph_of
from ..var_scope import variable_scope
from ..variables import Variable, VariableAggregation, VariableSynchronization

if TYPE_CHECKING:
    from .._core.typing import DTypeLike, TensorLike

__all__ = [
    "metric_variable",
    "mean",
    "accuracy",
    "true_positives",
    "false_positives",
    "true_negatives",
    "false_negatives",
    "precision",
    "recall",
    "auc",
    "mean_squared_error",
    "mean_absolute_error",
    "root_mean_squared_error",
    "precision_at_thresholds",
    "recall_at_thresholds",
    "true_positives_at_thresholds",
    "false_positives_at_thresholds",
    "true_negatives_at_thresholds",
    "false_negatives_at_thresholds",
]


def metric_variable(
    shape: Sequence[int], dtype: DTypeLike, validate_shape: bool = True, name: str | None = None
) -> Variable:
    """A zero-initialized, non-trainable local variable in ``METRIC_VARIABLES``."""
    dtype = _dt.as_dtype(dtype)
    return Variable(
        lambda: array_ops.zeros(shape, dtype),
        trainable=False,
        collections=[GraphKeys.LOCAL_VARIABLES, GraphKeys.METRIC_VARIABLES],
        validate_shape=validate_shape,
        name=name,
        synchronization=VariableSynchronization.ON_READ,
        aggregation=VariableAggregation.SUM,
    )


def _collect(metrics_collections, updates_collections, value, update_op):
    g = get_default_graph()
    for c in metrics_collections or ():
        g.add_to_collection(c, value)
    for c in updates_collections or ():
        g.add_to_collection(c, update_op)
    return value, update_op


def _check_collections(metrics_collections, updates_collections):
    for what, c in (
        ("metrics_collections", metrics_collections),
        ("updates_collections", updates_collections),
    ):
        if c is not None and not isinstance(c, (list, tuple)):
            raise TypeError("%s must be a list of collection names, got %r" % (what, c))


def _weighted_values(values, weights):
    """(weighted values, their count) as float32, weights broadcast to the values."""
    if weights is None:
        return values, math_ops.cast(array_ops.size(values), _dt.float32)
    values, _, weights = squeeze_weights(values, None, weights)
    weights = broadcast_weights(as_float32(weights), values)
    return math_ops.multiply(values, weights), math_ops.reduce_sum(weights)


def mean(
    values: TensorLike,
    weights: TensorLike | None = None,
    metrics_collections: Sequence[str] | None = None,
    updates_collections: Sequence[str] | None = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    """The (weighted) mean of ``values`` over all batches seen.

    Args:
      values: a numeric tensor of any shape.
      weights: None, or a tensor broadcastable to ``values`` (rank 0 or same rank).
      metrics_collections: collections to add the value to.
      updates_collections: collections to add the update op to.
      name: the variable scope (default ``mean``), holding ``total`` and ``count``.

    Returns:
      ``(mean, update_op)``: ``mean`` is ``total / count`` (0 when ``count`` is 0).
    """
    _check_collections(metrics_collections, updates_collections)
    with variable_scope(name, "mean", (values, weights)):
        values = as_float32(values)
        total = metric_variable([], _dt.float32, name="total")
        count = metric_variable([], _dt.float32, name="count")
        values, num = _weighted_values(values, weights)
        update_total = state_ops.assign_add(total, math_ops.reduce_sum(values))
        # TF orders the count update after ``values`` with a control dependency; both
        # updates are in every run of ``update_op`` anyway, so none is added here.
        update_count = state_ops.assign_add(count, num)
        value = math_ops.div_no_nan(total, math_ops.maximum(count, 0.0), name="value")
        update_op = math_ops.div_no_nan(
            update_total, math_ops.maximum(update_count, 0.0), name="update_op"
        )
        return _collect(metrics_collections, updates_collections, value, update_op)


def accuracy(
    labels: TensorLike,
    predictions: TensorLike,
    weights: TensorLike | None = None,
    metrics_collections: Sequence[str] | None = None,
    updates_collections: Sequence[str] | None = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    """How often ``predictions`` equals ``labels`` (the mean of their elementwise equality).

    Returns:
      ``(accuracy, update_op)``, with variables ``accuracy/total`` and ``accuracy/count``.

    Raises:
      ValueError: ``labels`` and ``predictions`` have incompatible shapes.
    """
    with in_graph_of([labels, predictions, weights]):
        labels = convert_to_tensor(labels)
        predictions = convert_to_tensor(predictions)
        predictions, labels, weights = squeeze_weights(predictions, labels, weights)
        if not predictions.shape.is_compatible_with(labels.shape):
            raise ValueError(
                "Shapes %s and %s are incompatible" % (predictions.shape, labels.shape)
            )
        if labels.dtype is not predictions.dtype:
            predictions = math_ops.cast(predictions, labels.dtype)
        is_correct = math_ops.cast(math_ops.equal(predictions, labels), _dt.float32)
        return mean(
            is_correct, weights, metrics_collections, updates_collections, name or "accuracy"
        )


def _count_condition(values, weights, metrics_collections, updates_collections):
    count = metric_variable([], _dt.float32, name="count")
    values = math_ops.cast(values, _dt.float32)
    if weights is not None:
        values, _, weights = squeeze_weights(values, None, weights)
        values = math_ops.multiply(values, broadcast_weights(as_float32(weights), values))
    value = array_ops.identity(count)
    update_op = state_ops.assign_add(count, math_ops.reduce_sum(values))
    return _collect(metrics_collections, updates_collections, value, update_op)


def _bool_pair(labels, predictions, weights):
    labels = math_ops.cast(convert_to_tensor(labels), _dt.bool)
    predictions = math_ops.cast(convert_to_tensor(predictions), _dt.bool)
    predictions, labels, weights = squeeze_weights(predictions, labels, weights)
    if not predictions.shape.is_compatible_with(labels.shape):
        raise ValueError("Shapes %s and %s are incompatible" % (predictions.shape, labels.shape))
    return labels, predictions, weights


def _condition_metric(default, want_label, want_pred):
    def metric(
        labels: TensorLike,
        predictions: TensorLike,
        weights: TensorLike | None = None,
        metrics_collections: Sequence[str] | None = None,
        updates_collections: Sequence[str] | None = None,
        name: str | None = None,
    ) -> tuple[Tensor, Tensor]:
        _check_collections(metrics_collections, updates_collections)
        with variable_scope(name, default, (predictions, labels, weights)):
            lab, pred, weights = _bool_pair(labels, predictions, weights)
            is_lab = lab if want_label else math_ops.logical_not(lab)
            is_pred = pred if want_pred else math_ops.logical_not(pred)
            return _count_condition(
                math_ops.logical_and(is_lab, is_pred),
                weights,
                metrics_collections,
                updates_collections,
            )

    metric.__name__ = metric.__qualname__ = default
    metric.__doc__ = (
        "The (weighted) number of %s: labels %s and predictions %s (both cast to bool).\n\n"
        "Returns:\n  ``(count, update_op)``; the variable is ``%s/count``."
        % (default.replace("_", " "), want_label, want_pred, default)
    )
    return metric


true_positives = _condition_metric("true_positives", True, True)
false_positives = _condition_metric("false_positives", False, True)
true_negatives = _condition_metric("true_negatives", False, False)
false_negatives = _condition_metric("false_negatives", True, False)


def _ratio_metric(default, other, other_fn):
    def metric(
        labels: TensorLike,
        predictions: TensorLike,
        weights: TensorLike | None = None,
        metrics_collections: Sequence[str] | None = None,
        updates_collections: Sequence[str] | None = None,
        name: str | None = None,
    ) -> tuple[Tensor, Tensor]:
        _check_collections(metrics_collections, updates_collections)
        with variable_scope(name, default, (predictions, labels, weights)):
            lab, pred, weights = _bool_pair(labels, predictions, weights)
            tp, tp_up = true_positives(lab, pred, weights)
            o, o_up = other_fn(lab, pred, weights)

            def ratio(a, b, nm):
                s = a + b
                return math_ops.where(
                    math_ops.greater(s, 0.0),
                    math_ops.truediv(a, s),
                    array_ops.zeros_like(s),
                    name=nm,
                )

            return _collect(
                metrics_collections,
                updates_collections,
                ratio(tp, o, "value"),
                ratio(tp_up, o_up, "update_op"),
            )

    metric.__name__ = metric.__qualname__ = default
    metric.__doc__ = (
        "The %s ``tp / (tp + %s)`` of bool-cast ``predictions`` against ``labels``, 0 "
        "when nothing counts.\n\nReturns:\n  ``(%s, update_op)``; the variables are "
        "``%s/true_positives/count`` and ``%s/%s/count``."
        % (default, other, default, default, default, other_fn.__name__)
    )
    return metric


precision = _ratio_metric("precision", "fp", false_positives)
recall = _ratio_metric("recall", "fn", false_negatives)


def _mean_of(default, fn):
    def metric(
        labels: TensorLike,
        predictions: TensorLike,
        weights: TensorLike | None = None,
        metrics_collections: Sequence[str] | None = None,
        updates_collections: Sequence[str] | None = None,
        name: str | None = None,
    ) -> tuple[Tensor, Tensor]:
        labels = as_float32(labels)
        predictions = as_float32(predictions)
        predictions, labels, weights = squeeze_weights(predictions, labels, weights)
        if not predictions.shape.is_compatible_with(labels.shape):
            raise ValueError(
                "Shapes %s and %s are incompatible" % (predictions.shape, labels.shape)
            )
        return mean(
            fn(labels, predictions),
            weights,
            metrics_collections,
            updates_collections,
            name or default,
        )

    metric.__name__ = metric.__qualname__ = default
    metric.__doc__ = "The streaming %s of ``predictions`` against ``labels``." % (
        default.replace("_", " ")
    )
    return metric


mean_squared_error = _mean_of("mean_squared_error", math_ops.squared_difference)
mean_absolute_error = _mean_of(
    "mean_absolute_error", lambda a, b: math_ops.abs(math_ops.subtract(b, a))
)


def root_mean_squared_error(
    labels: TensorLike,
    predictions: TensorLike,
    weights: TensorLike | None = None,
    metrics_collections: Sequence[str] | None = None,
    updates_collections: Sequence[str] | None = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    """The square root of the streaming mean squared error."""
    mse, up = mean_squared_error(
        labels, predictions, weights, None, None, name or "root_mean_squared_error"
    )
    value, update_op = math_ops.sqrt(mse), math_ops.sqrt(up)
    return _collect(metrics_collections, updates_collections, value, update_op)


# --------------------------------------------------------------------------------------
# AUC
# --------------------------------------------------------------------------------------


def _confusion_at_thresholds(
    labels, predictions, thresholds, weights, includes=("tp", "fn", "tn", "fp")
):
    predictions = as_float32(predictions)
    labels = math_ops.cast(convert_to_tensor(labels), _dt.bool)
    predictions, labels, weights = squeeze_weights(predictions, labels, weights)
    n = len(thresholds)
    pred = array_ops.reshape(predictions, [1, -1])
    lab = array_ops.reshape(labels, [1, -1])
    thresh = array_ops.reshape(convert_to_tensor(thresholds, _dt.float32), [n, 1])
    pred_pos = math_ops.greater(pred, thresh)  # [n, batch] by broadcasting
    pred_neg = math_ops.logical_not(pred_pos)
    lab_pos = math_ops.logical_and(lab, array_ops.ones_like(pred_pos))
    lab_neg = math_ops.logical_not(lab_pos)
    w = None
    if weights is not None:
        w = array_ops.reshape(broadcast_weights(as_float32(weights), predictions), [1, -1])
    values, updates = {}, {}
    for key, vname, a, b in (
        ("tp", "true_positives", lab_pos, pred_pos),
        ("fn", "false_negatives", lab_pos, pred_neg),
        ("tn", "true_negatives", lab_neg, pred_neg),
        ("fp", "false_positives", lab_neg, pred_pos),
    ):
        if key not in includes:
            continue
        var = metric_variable([n], _dt.float32, name=vname)
        hit = math_ops.cast(math_ops.logical_and(a, b), _dt.float32)
        if w is not None:
            hit = math_ops.multiply(hit, w)
        updates[key] = state_ops.assign_add(var, math_ops.reduce_sum(hit, 1))
        values[key] = var._as_tensor()
    return values, updates


def _interpolate_pr_auc(tp, fp, fn, n):
    dtp = tp[: n - 1] - tp[1:]
    p = tp + fp
    slope = math_ops.div_no_nan(dtp, math_ops.maximum(p[: n - 1] - p[1:], 0.0), name="prec_slope")
    intercept = tp[1:] - math_ops.multiply(slope, p[1:])
    ratio = math_ops.where(
        math_ops.logical_and(math_ops.greater(p[: n - 1], 0.0), math_ops.greater(p[1:], 0.0)),
        math_ops.div_no_nan(p[: n - 1], math_ops.maximum(p[1:], 0.0), name="recall_relative_ratio"),
        array_ops.ones_like(p[1:]),
    )
    inc = math_ops.div_no_nan(
        slope * (dtp + intercept * math_ops.log(ratio)),
        math_ops.maximum(tp[1:] + fn[1:], 0.0),
        name="pr_auc_increment",
    )
    return math_ops.reduce_sum(inc, name="interpolate_pr_auc")


def auc(
    labels: TensorLike,
    predictions: TensorLike,
    weights: TensorLike | None = None,
    num_thresholds: int = 200,
    metrics_collections: Sequence[str] | None = None,
    updates_collections: Sequence[str] | None = None,
    curve: str = "ROC",
    name: str | None = None,
    summation_method: str = "trapezoidal",
    thresholds: Sequence[float] | None = None,
) -> tuple[Tensor, Tensor]:
    """The area under the ROC or PR curve, from confusion counts at fixed thresholds.

    Args:
      labels: bool-castable labels, shaped like ``predictions``.
      predictions: floats in [0, 1].
      weights: None or broadcastable to ``predictions``.
      num_thresholds: how many evenly spaced thresholds (ignored with ``thresholds``).
      curve: ``"ROC"`` or ``"PR"``.
      summation_method: ``"trapezoidal"``, ``"careful_interpolation"`` (PR),
        ``"minoring"`` or ``"majoring"``.
      thresholds: explicit thresholds in [0, 1] (then -eps and 1 + eps are added).
      name: the variable scope (default ``auc``), holding ``true_positives``,
        ``false_negatives``, ``true_negatives`` and ``false_positives`` of shape
        [num_thresholds].

    Returns:
      ``(auc, update_op)``.

    Raises:
      ValueError: an unknown ``curve`` or ``summation_method``, or fewer than 2
        thresholds.

    Note (flowrt): predictions outside [0, 1] are not checked at run time (TF adds
    assertions); they fall below the first or above the last threshold.
    """
    _check_collections(metrics_collections, updates_collections)
    if curve not in ("ROC", "PR"):
        raise ValueError("curve must be either ROC or PR, %s unknown" % curve)
    if summation_method not in ("trapezoidal", "careful_interpolation", "minoring", "majoring"):
        raise ValueError("Invalid summation_method: %s" % summation_method)
    kepsilon = 1e-7
    if thresholds is not None:
        mids = sorted(float(t) for t in thresholds)
        num_thresholds = len(mids) + 2
    else:
        if num_thresholds < 2:
            raise ValueError("num_thresholds must be > 1, got %d" % num_thresholds)
        mids = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
    ths = [0.0 - kepsilon] + mids + [1.0 + kepsilon]
    n = num_thresholds
    with variable_scope(name, "auc", (labels, predictions, weights)):
        values, updates = _confusion_at_thresholds(labels, predictions, ths, weights)
        epsilon = 1.0e-6

        def compute(tp, fn, tn, fp, nm):
            if curve == "PR" and summation_method == "careful_interpolation":
                return _interpolate_pr_auc(tp, fp, fn, n)
            rec = math_ops.truediv(tp + epsilon, tp + fn + epsilon)
            if curve == "ROC":
                x, y = math_ops.truediv(fp, fp + tn + epsilon), rec
            else:
                x, y = rec, math_ops.truediv(tp + epsilon, tp + fp + epsilon)
            if summation_method in ("trapezoidal", "careful_interpolation"):
                h = (y[: n - 1] + y[1:]) / 2.0
            elif summation_method == "minoring":
                h = math_ops.minimum(y[: n - 1], y[1:])
            else:
                h = math_ops.maximum(y[: n - 1], y[1:])
            return math_ops.reduce_sum(math_ops.multiply(x[: n - 1] - x[1:], h), name=nm)

        value = compute(values["tp"], values["fn"], values["tn"], values["fp"], "value")
        update_op = compute(updates["tp"], updates["fn"], updates["tn"], updates["fp"], "update_op")
        return _collect(metrics_collections, updates_collections, value, update_op)


def _thresholds(thresholds):
    ths = [float(t) for t in thresholds]
    if not ths:
        raise ValueError("thresholds must be a non-empty list of floats")
    return ths


def _ratio_at_thresholds(default, other):
    def metric(
        labels: TensorLike,
        predictions: TensorLike,
        thresholds: Sequence[float],
        weights: TensorLike | None = None,
        metrics_collections: Sequence[str] | None = None,
        updates_collections: Sequence[str] | None = None,
        name: str | None = None,
    ) -> tuple[Tensor, Tensor]:
        _check_collections(metrics_collections, updates_collections)
        with variable_scope(name, default, (predictions, labels, weights)):
            values, updates = _confusion_at_thresholds(
                labels, predictions, _thresholds(thresholds), weights, includes=("tp", other)
            )

            def ratio(tp, o, nm):
                return math_ops.truediv(tp, 1e-7 + tp + o, name=default.split("_")[0] + "_" + nm)

            return _collect(
                metrics_collections,
                updates_collections,
                ratio(values["tp"], values[other], "value"),
                ratio(updates["tp"], updates[other], "update_op"),
            )

    metric.__name__ = metric.__qualname__ = default
    metric.__doc__ = (
        "The %s ``tp / (tp + %s)`` at each of ``thresholds`` (a prediction above a "
        "threshold counts as positive).\n\nReturns:\n  ``(values, update_op)``, each of "
        "shape [len(thresholds)]; the variables are ``%s/true_positives`` and ``%s/%s``."
        % (
            default.split("_")[0],
            other,
            default,
            default,
            {"fp": "false_positives", "fn": "false_negatives"}[other],
        )
    )
    return metric


precision_at_thresholds = _ratio_at_thresholds("precision_at_thresholds", "fp")
recall_at_thresholds = _ratio_at_thresholds("recall_at_thresholds", "fn")


def _count_at_thresholds(key, default):
    def metric(
        labels: TensorLike,
        predictions: TensorLike,
        thresholds: Sequence[float],
        weights: TensorLike | None = None,
        metrics_collections: Sequence[str] | None = None,
        updates_collections: Sequence[str] | None = None,
        name: str | None = None,
    ) -> tuple[Tensor, Tensor]:
        _check_collections(metrics_collections, updates_collections)
        with variable_scope(name, default, (predictions, labels, weights)):
            values, updates = _confusion_at_thresholds(
                labels, predictions, _thresholds(thresholds), weights, includes=(key,)
            )
            return _collect(
                metrics_collections,
                updates_collections,
                array_ops.identity(values[key]),
                updates[key],
            )

    metric.__name__ = metric.__qualname__ = default + "_at_thresholds"
    metric.__doc__ = (
        "The (weighted) number of %s at each of ``thresholds``.\n\nReturns:\n  "
        "``(counts, update_op)`` of shape [len(thresholds)]; the variable is ``%s/%s``."
        % (default.replace("_", " "), default, default)
    )
    return metric


true_positives_at_thresholds = _count_at_thresholds("tp", "true_positives")
false_positives_at_thresholds = _count_at_thresholds("fp", "false_positives")
true_negatives_at_thresholds = _count_at_thresholds("tn", "true_negatives")
false_negatives_at_thresholds = _count_at_thresholds("fn", "false_negatives")
