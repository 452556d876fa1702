"""TF1's ``tf.losses``: weighted, reduced losses added to the ``LOSSES`` collection.

Each loss opens its own name scope (``mean_squared_error/``), computes the elementwise
losses in float32, and reduces them with ``compute_weighted_loss`` in that same scope,
so the result is named as in TF1 (``mean_squared_error/value:0`` for the default
``SUM_BY_NONZERO_WEIGHTS`` reduction).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import dtypes as _dt
from .._core.graph import GraphKeys, Tensor, convert_to_tensor, get_default_graph
from ..ops import array_ops, math_ops, nn_ops
from ..ops.common import in_graph_of
from ..ops.confusion_matrix_ops import remove_squeezable_dimensions
from ._weights import as_float32, assert_broadcastable, broadcast_weights

if TYPE_CHECKING:
    from .._core.typing import TensorLike

__all__ = [
    "Reduction",
    "compute_weighted_loss",
    "add_loss",
    "get_losses",
    "get_regularization_losses",
    "get_regularization_loss",
    "get_total_loss",
    "absolute_difference",
    "mean_squared_error",
    "huber_loss",
    "log_loss",
    "hinge_loss",
    "cosine_distance",
    "mean_pairwise_squared_error",
    "sigmoid_cross_entropy",
    "softmax_cross_entropy",
    "sparse_softmax_cross_entropy",
]


class Reduction:
    """How ``compute_weighted_loss`` reduces the weighted elementwise losses.

    Attributes:
      NONE: no reduction (the weighted losses, same shape as the losses).
      SUM: the sum of the weighted losses.
      MEAN: the sum divided by the sum of the weights.
      SUM_OVER_BATCH_SIZE: the sum divided by the number of elements.
      SUM_BY_NONZERO_WEIGHTS: the sum divided by the number of nonzero weights
        (TF1's default); ``SUM_OVER_NONZERO_WEIGHTS`` is the same.
    """

    NONE = "none"
    SUM = "weighted_sum"
    SUM_OVER_BATCH_SIZE = "weighted_sum_over_batch_size"
    MEAN = "weighted_mean"
    SUM_BY_NONZERO_WEIGHTS = "weighted_sum_by_nonzero_weights"
    SUM_OVER_NONZERO_WEIGHTS = SUM_BY_NONZERO_WEIGHTS

    @classmethod
    def all(cls) -> tuple[str, ...]:
        return (
            cls.NONE,
            cls.SUM,
            cls.MEAN,
            cls.SUM_OVER_BATCH_SIZE,
            cls.SUM_OVER_NONZERO_WEIGHTS,
            cls.SUM_BY_NONZERO_WEIGHTS,
        )

    @classmethod
    def validate(cls, key: str) -> None:
        if key not in cls.all():
            raise ValueError("Invalid Reduction Key %s." % (key,))


def _num_present(losses: Tensor, weights: Tensor) -> Tensor:
    """How many losses have a nonzero weight (weights broadcast to the losses)."""
    with get_default_graph().name_scope("num_present"):
        zero = array_ops.zeros_like(weights)
        present = math_ops.where(math_ops.equal(weights, zero), zero, array_ops.ones_like(weights))
        if weights.shape.ndims == 0 or not (
            present.shape.is_fully_defined()
            and losses.shape.is_fully_defined()
            and present.shape.as_list() == losses.shape.as_list()
        ):
            present = math_ops.multiply(present, array_ops.ones_like(losses))
        return math_ops.reduce_sum(present)


def compute_weighted_loss(
    losses: TensorLike,
    weights: TensorLike = 1.0,
    scope: str | None = None,
    loss_collection: str | None = GraphKeys.LOSSES,
    reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS,
) -> Tensor:
    """Weights ``losses`` and reduces them; adds the result to ``loss_collection``.

    Args:
      losses: a tensor of elementwise losses.
      weights: a scalar or a tensor broadcastable to ``losses`` (rank 0, or the same rank
        with dimensions 1 or equal).
      scope: the name scope (default ``weighted_loss``).
      loss_collection: the collection the loss is added to (None: none).
      reduction: a ``Reduction`` key.

    Returns:
      The loss, in the dtype of ``losses``; a scalar unless ``reduction`` is ``NONE``.

    Raises:
      ValueError: an invalid reduction, or weights that do not broadcast to ``losses``.
    """
    with in_graph_of([losses, weights]):
        Reduction.validate(reduction)
        g = get_default_graph()
        with g.name_scope(scope or "weighted_loss"):
            losses = convert_to_tensor(losses)
            input_dtype = losses.dtype
            losses = as_float32(losses)
            weights = as_float32(weights)
            with g.control_dependencies(assert_broadcastable(weights, losses)):
                weighted = math_ops.multiply(losses, weights)
            if reduction == Reduction.NONE:
                loss = weighted
            else:
                loss = math_ops.reduce_sum(weighted)
                if reduction == Reduction.MEAN:
                    den = math_ops.reduce_sum(
                        math_ops.multiply(array_ops.ones_like(losses), weights)
                    )
                    loss = math_ops.div_no_nan(loss, den, name="value")
                elif reduction == Reduction.SUM_BY_NONZERO_WEIGHTS:
                    loss = math_ops.div_no_nan(loss, _num_present(losses, weights), name="value")
                elif reduction == Reduction.SUM_OVER_BATCH_SIZE:
                    n = math_ops.cast(array_ops.size(losses), _dt.float32)
                    loss = math_ops.div_no_nan(loss, n, name="value")
            if loss.dtype is not input_dtype:
                loss = math_ops.cast(loss, input_dtype)
            add_loss(loss, loss_collection)
            return loss


def add_loss(loss: Tensor, loss_collection: str | None = GraphKeys.LOSSES) -> None:
    """Adds ``loss`` to ``loss_collection`` (nothing when the collection is None)."""
    if loss_collection:
        get_default_graph().add_to_collection(loss_collection, loss)


def get_losses(
    scope: str | None = None, loss_collection: str | None = GraphKeys.LOSSES
) -> list[Tensor]:
    """The losses in ``loss_collection`` whose names match the regex ``scope``."""
    return get_default_graph().get_collection(loss_collection, scope)


def get_regularization_losses(scope: str | None = None) -> list[Tensor]:
    """The tensors in ``REGULARIZATION_LOSSES`` matching ``scope``."""
    return get_default_graph().get_collection(GraphKeys.REGULARIZATION_LOSSES, scope)


def get_regularization_loss(
    scope: str | None = None, name: str = "total_regularization_loss"
) -> Tensor:
    """The sum of the regularization losses, or a 0.0 constant when there are none."""
    losses = get_regularization_losses(scope)
    if losses:
        return math_ops.add_n(losses, name=name)
    return convert_to_tensor(0.0)


def get_total_loss(
    add_regularization_losses: bool = True, name: str = "total_loss", scope: str | None = None
) -> Tensor:
    """The sum of ``get_losses()`` (plus the regularization losses by default).

    Raises:
      ValueError: there are no losses at all (as TF's ``add_n`` of nothing).
    """
    losses = get_losses(scope)
    if add_regularization_losses:
        losses = losses + get_regularization_losses(scope)
    if not losses:
        raise ValueError(
            "No losses to sum: add losses with fr.losses.* or "
            "fr.losses.add_loss (and regularizers) before get_total_loss()"
        )
    return math_ops.add_n(losses, name=name)


def _check_args(labels, predictions, what_l="labels", what_p="predictions"):
    if labels is None:
        raise ValueError("%s must not be None." % what_l)
    if predictions is None:
        raise ValueError("%s must not be None." % what_p)


def _pair(labels, predictions):
    p = as_float32(predictions, name="predictions")
    lab = as_float32(labels, name="labels")
    if not p.shape.is_compatible_with(lab.shape):
        raise ValueError("Shapes %s and %s are incompatible" % (p.shape, lab.shape))
    return lab, p


def _weighted(name, default, fn, weights, loss_collection, reduction):
    with get_default_graph().name_scope(name or default) as scope:
        losses = fn()
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def absolute_difference(
    labels: TensorLike,
    predictions: TensorLike,
    weights: TensorLike = 1.0,
    scope: str | None = None,
    loss_collection: str | None = GraphKeys.LOSSES,
    reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS,
) -> Tensor:
    """The weighted ``|predictions - labels|`` (scope ``absolute_difference``)."""
    with in_graph_of([labels, predictions, weights]):
        _check_args(labels, predictions)

        def fn():
            lab, p = _pair(labels, predictions)
            return math_ops.abs(math_ops.subtract(p, lab))

        return _weighted(scope, "absolute_difference", fn, weights, loss_collection, reduction)


def mean_squared_error(
    labels: TensorLike,
    predictions: TensorLike,
    weights: TensorLike = 1.0,
    scope: str | None = None,
    loss_collection: str | None = GraphKeys.LOSSES,
    reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS,
) -> Tensor:
    """The weighted ``(predictions - labels) ** 2`` (scope ``mean_squared_error``)."""
    with in_graph_of([labels, predictions, weights]):
        _check_args(labels, predictions)

        def fn():
            lab, p = _pair(labels, predictions)
            return math_ops.squared_difference(p, lab)

        return _weighted(scope, "mean_squared_error", fn, weights, loss_collection, reduction)


def huber_loss(
    labels: TensorLike,
    predictions: TensorLike,
    weights: TensorLike = 1.0,
    delta: float = 1.0,
    scope: str | None = None,
    loss_collection: str | None = GraphKeys.LOSSES,
    reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS,
) -> Tensor:
    """Quadratic within ``delta`` of the label, linear beyond (scope ``huber_loss``)."""
    with in_graph_of([labels, predictions, weights, delta]):
        _check_args(labels, predictions)

        def fn():
            lab, p = _pair(labels, predictions)
            err = math_ops.abs(math_ops.subtract(p, lab))
            quad = math_ops.minimum(err, delta)
            lin = math_ops.subtract(err, quad)
            return math_ops.add(
                math_ops.multiply(0.5, math_ops.multiply(quad, quad)), math_ops.multiply(delta, lin)
            )

        return _weighted(scope, "huber_loss", fn, weights, loss_collection, reduction)


def log_loss(
    labels: TensorLike,
    predictions: TensorLike,
    weights: TensorLike = 1.0,
    epsilon: float = 1e-7,
    scope: str | None = None,
    loss_collection: str | None = GraphKeys.LOSSES,
    reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS,
) -> Tensor:
    """``-labels * log(p + eps) - (1 - labels) * log(1 - p + eps)`` (scope ``log_loss``)."""
    with in_graph_of([labels, predictions, weights]):
        _check_args(labels, predictions)

        def fn():
            lab, p = _pair(labels, predictions)
            return -math_ops.multiply(lab, math_ops.log(p + epsilon)) - math_ops.multiply(
                1 - lab, math_ops.log(1 - p + epsilon)
            )

        return _weighted(scope, "log_loss", fn, weights, loss_collection, reduction)


def hinge_loss(
    labels: TensorLike,
    logits: TensorLike,
    weights: TensorLike = 1.0,
    scope: str | None = None,
    loss_collection: str | None = GraphKeys.LOSSES,
    reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS,
) -> Tensor:
    """``relu(1 - (2 * labels - 1) * logits)`` for 0/1 labels (scope ``hinge_loss``)."""
    with in_graph_of([labels, logits, weights]):
        _check_args(labels, logits, "labels", "logits")

        def fn():
            lab, x = _pair(labels, logits)
            ones = array_ops.ones_like(lab)
            signed = math_ops.subtract(2 * lab, ones)
            return nn_ops.relu(math_ops.subtract(ones, math_ops.multiply(signed, x)))

        return _weighted(scope, "hinge_loss", fn, weights, loss_collection, reduction)


def cosine_distance(
    labels: TensorLike,
    predictions: TensorLike,
    axis: int | None = None,
    weights: TensorLike = 1.0,
    scope: str | None = None,
    loss_collection: str | None = GraphKeys.LOSSES,
    reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS,
    dim: int | None = None,
) -> Tensor:
    """``1 - sum(labels * predictions, axis)`` for unit-normalized inputs."""
    with in_graph_of([labels, predictions, axis, weights, dim]):
        if dim is not None:
            if axis is not None:
                raise ValueError("Cannot specify both 'axis' and 'dim'")
            axis = dim
        if axis is None:
            raise ValueError("You must specify 'axis'.")
        _check_args(labels, predictions)

        def fn():
            lab, p = _pair(labels, predictions)
            return 1 - math_ops.reduce_sum(math_ops.multiply(p, lab), axis, keepdims=True)

        return _weighted(scope, "cosine_distance_loss", fn, weights, loss_collection, reduction)


def _batch_axes(x: Tensor):
    """The axes of ``x`` after the first (static when its rank is known)."""
    if x.shape.ndims is not None:
        return list(range(1, x.shape.ndims))
    return array_ops.range(1, array_ops.rank(x))


def mean_pairwise_squared_error(
    labels: TensorLike,
    predictions: TensorLike,
    weights: TensorLike = 1.0,
    scope: str | None = None,
    loss_collection: str | None = GraphKeys.LOSSES,
) -> Tensor:
    """The weighted sum over the batch of the mean squared difference between all
    pairs of differences ``predictions - labels`` within each example: for example ``i``
    with ``n_i`` present elements, ``2 * sum(d**2) / (n_i - 1) - 2 * sum(d)**2 /
    (n_i * (n_i - 1))`` (scope ``mean_pairwise_squared_error``).

    Args:
      labels: the ground truth, shaped like ``predictions`` (first dimension: batch).
      predictions: the predicted values.
      weights: a scalar, or weights per example (``[batch]`` broadcastable).
      scope: the name scope.
      loss_collection: the collection the loss is added to.

    Returns:
      A float32 scalar (0 when no element is present).
    """
    with in_graph_of([labels, predictions, weights]):
        if labels is None:
            raise ValueError("Argument `labels` must not be None.")
        if predictions is None:
            raise ValueError("Argument `predictions` must not be None.")
        g = get_default_graph()
        with g.name_scope(scope or "mean_pairwise_squared_error"):
            weights_t = as_float32(weights)
            lab = as_float32(labels)
            p = as_float32(predictions)
            p.shape.assert_is_compatible_with(lab.shape)
            diffs = math_ops.subtract(p, lab)
            axes = _batch_axes(diffs)
            sum_squares = math_ops.reduce_sum(math_ops.square(diffs), axes, keepdims=True)
            with g.name_scope("num_present") as ns:
                zero = array_ops.zeros_like(weights_t)
                present = math_ops.where(
                    math_ops.equal(weights_t, 0.0), zero, array_ops.ones_like(weights_t)
                )
                present = broadcast_weights(present, diffs)
                num = math_ops.reduce_sum(present, _batch_axes(present), keepdims=True, name=ns)
            term1 = 2.0 * math_ops.div_no_nan(
                sum_squares, math_ops.maximum(num - 1, 0.0), name="value"
            )
            sum_diff = math_ops.reduce_sum(diffs, axes, keepdims=True)
            term2 = 2.0 * math_ops.div_no_nan(
                math_ops.square(sum_diff),
                math_ops.maximum(math_ops.multiply(num, num - 1), 0.0),
                name="value",
            )
            loss = math_ops.reduce_sum(math_ops.multiply(term1 - term2, weights_t))
            mean_loss = math_ops.where(
                math_ops.reduce_sum(num) > 0, loss, array_ops.zeros_like(loss), name="value"
            )
            add_loss(mean_loss, loss_collection)
            return mean_loss


def sigmoid_cross_entropy(
    multi_class_labels: TensorLike,
    logits: TensorLike,
    weights: TensorLike = 1.0,
    label_smoothing: float = 0,
    scope: str | None = None,
    loss_collection: str | None = GraphKeys.LOSSES,
    reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS,
) -> Tensor:
    """Sigmoid cross entropy of ``logits`` against 0/1 ``multi_class_labels``.

    With ``label_smoothing`` ``s > 0`` the labels become ``labels * (1 - s) + s / 2``.
    Scope ``sigmoid_cross_entropy_loss``; the elementwise losses are named ``xentropy``.
    """
    with in_graph_of([multi_class_labels, logits, weights]):
        _check_args(multi_class_labels, logits, "multi_class_labels", "logits")

        def fn():
            x = convert_to_tensor(logits, name="logits")
            lab = math_ops.cast(convert_to_tensor(multi_class_labels), x.dtype)
            if not x.shape.is_compatible_with(lab.shape):
                raise ValueError("Shapes %s and %s are incompatible" % (x.shape, lab.shape))
            if label_smoothing > 0:
                lab = lab * (1 - label_smoothing) + 0.5 * label_smoothing
            return nn_ops.sigmoid_cross_entropy_with_logits(labels=lab, logits=x, name="xentropy")

        return _weighted(
            scope, "sigmoid_cross_entropy_loss", fn, weights, loss_collection, reduction
        )


def softmax_cross_entropy(
    onehot_labels: TensorLike,
    logits: TensorLike,
    weights: TensorLike = 1.0,
    label_smoothing: float = 0,
    scope: str | None = None,
    loss_collection: str | None = GraphKeys.LOSSES,
    reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS,
) -> Tensor:
    """Softmax cross entropy of ``logits`` [batch, classes] against ``onehot_labels``.

    With ``label_smoothing`` ``s > 0`` the labels become
    ``labels * (1 - s) + s / num_classes``. No gradient flows into the labels. Scope
    ``softmax_cross_entropy_loss``; ``weights`` has shape [] or [batch].
    """
    with in_graph_of([onehot_labels, logits, weights]):
        _check_args(onehot_labels, logits, "onehot_labels", "logits")

        def fn():
            x = convert_to_tensor(logits, name="logits")
            lab = math_ops.cast(convert_to_tensor(onehot_labels), x.dtype)
            if not x.shape.is_compatible_with(lab.shape):
                raise ValueError("Shapes %s and %s are incompatible" % (x.shape, lab.shape))
            if label_smoothing > 0:
                n = math_ops.cast(array_ops.shape(lab)[-1], x.dtype)
                lab = lab * (1 - label_smoothing) + label_smoothing / n
            lab = array_ops.stop_gradient(lab, name="labels_stop_gradient")
            return nn_ops.softmax_cross_entropy_with_logits_v2(
                labels=lab, logits=x, name="xentropy"
            )

        return _weighted(
            scope, "softmax_cross_entropy_loss", fn, weights, loss_collection, reduction
        )


def sparse_softmax_cross_entropy(
    labels: TensorLike,
    logits: TensorLike,
    weights: TensorLike = 1.0,
    scope: str | None = None,
    loss_collection: str | None = GraphKeys.LOSSES,
    reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS,
) -> Tensor:
    """Softmax cross entropy of ``logits`` [batch, classes] against int class ``labels``
    [batch] (a trailing dimension of 1 is squeezed). Scope
    ``sparse_softmax_cross_entropy_loss``."""
    with in_graph_of([labels, logits, weights]):
        _check_args(labels, logits, "labels", "logits")
        with get_default_graph().name_scope(scope or "sparse_softmax_cross_entropy_loss") as sc:
            x = convert_to_tensor(logits, name="logits")
            lab = convert_to_tensor(labels, name="labels")
            lab, x = remove_squeezable_dimensions(lab, x, expected_rank_diff=1)
            w = convert_to_tensor(weights)
            if (
                w.shape.ndims is not None
                and lab.shape.ndims is not None
                and w.shape.ndims - lab.shape.ndims == 1
            ):
                w = array_ops.squeeze(w, [-1])  # [batch, 1] weights for [batch] labels
            losses = nn_ops.sparse_softmax_cross_entropy_with_logits(
                labels=lab, logits=x, name="xentropy"
            )
            return compute_weighted_loss(losses, w, sc, loss_collection, reduction=reduction)
