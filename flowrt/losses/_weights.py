"""Weight broadcasting and squeezable dimensions shared by ``fr.losses`` and
``fr.metrics`` (TF1's ``weights_broadcast_ops``; ``remove_squeezable_dimensions`` lives
beside ``confusion_matrix``, as in TF), checked on static shapes."""

from __future__ import annotations

from typing import TYPE_CHECKING, overload

from .. import dtypes as _dt
from .._core.graph import Operation, Tensor, convert_to_tensor, get_default_graph
from ..ops import array_ops, check_ops, math_ops
from ..ops.common import in_graph_of, shape_str
from ..ops.confusion_matrix_ops import remove_squeezable_dimensions
from ..ops.control_flow_ops import cond

if TYPE_CHECKING:
    from .._core.typing import TensorLike


def as_float32(x: TensorLike, name: str | None = None) -> Tensor:
    t = convert_to_tensor(x, name=name)
    return t if t.dtype is _dt.float32 else math_ops.cast(t, _dt.float32)


def check_broadcastable(weights: Tensor, values: Tensor) -> None:
    """Raises TF's ValueError unless ``weights`` broadcasts to ``values`` (rank 0, or the
    same rank with each dimension 1 or equal)."""
    ws, vs = weights.shape, values.shape
    if ws.ndims is None or vs.ndims is None or ws.ndims == 0:
        return
    if ws.ndims != vs.ndims:
        raise ValueError(
            "weights can not be broadcast to values. values.rank=%d. "
            "weights.rank=%d. values.shape=%s. weights.shape=%s."
            % (vs.ndims, ws.ndims, shape_str(vs), shape_str(ws))
        )
    for w, v in zip(ws.as_list(), vs.as_list()):
        if w is not None and v is not None and w not in (1, v):
            raise ValueError(
                "weights can not be broadcast to values. values.shape=%s. "
                "weights.shape=%s." % (shape_str(vs), shape_str(ws))
            )


def assert_broadcastable(weights: Tensor, values: Tensor) -> list[Operation]:
    """TF's ``assert_broadcastable``: raises the ValueError of ``check_broadcastable``
    when the static shapes decide; otherwise returns an ``Assert`` op raising
    ``InvalidArgumentError`` ("weights can not be broadcast to values.") at run time unless
    ``weights`` is a scalar or has ``values``' rank with each dimension 1 or equal."""
    check_broadcastable(weights, values)
    ws, vs = weights.shape, values.shape
    if ws.ndims == 0 or (ws.is_fully_defined() and vs.is_fully_defined()):
        return []
    with get_default_graph().name_scope("assert_broadcastable"):
        w_shape, v_shape = array_ops.shape(weights), array_ops.shape(values)
        w_rank, v_rank = array_ops.rank(weights), array_ops.rank(values)
        is_scalar = math_ops.equal(0, w_rank, name="is_scalar")

        def valid_dims() -> Tensor:
            return math_ops.reduce_all(
                math_ops.logical_or(math_ops.equal(w_shape, 1), math_ops.equal(w_shape, v_shape))
            )

        def valid_nonscalar() -> Tensor:
            same_rank = math_ops.equal(v_rank, w_rank, name="is_same_rank")
            return cond(same_rank, valid_dims, lambda: same_rank)

        is_valid = cond(is_scalar, lambda: is_scalar, valid_nonscalar, name="is_valid_shape")
        data: list[TensorLike] = [
            "weights can not be broadcast to values.",
            "weights.shape=", weights.name, w_shape,
            "values.shape=", values.name, v_shape,
            "is_scalar=", is_scalar,
        ]  # fmt: skip
        return [check_ops.Assert(is_valid, data)]


def broadcast_weights(weights: Tensor, values: Tensor) -> Tensor:
    """``weights`` broadcast to the shape of ``values`` (TF's ``broadcast_weights``), checked
    by ``assert_broadcastable``."""
    with in_graph_of([weights, values]):
        if (
            weights.shape.is_fully_defined()
            and values.shape.is_fully_defined()
            and weights.shape.as_list() == values.shape.as_list()
        ):
            return weights
        with get_default_graph().control_dependencies(assert_broadcastable(weights, values)):
            return math_ops.multiply(weights, array_ops.ones_like(values), name="broadcast_weights")


@overload
def squeeze_weights(
    predictions: Tensor, labels: Tensor, weights: TensorLike | None
) -> tuple[Tensor, Tensor, Tensor | None]: ...
@overload
def squeeze_weights(
    predictions: Tensor, labels: None, weights: TensorLike | None
) -> tuple[Tensor, None, Tensor | None]: ...
def squeeze_weights(
    predictions: Tensor, labels: Tensor | None, weights: TensorLike | None
) -> tuple[Tensor, Tensor | None, Tensor | None]:
    """TF metrics' ``_remove_squeezable_dimensions``: squeezes labels against predictions,
    then a trailing 1 of ``weights`` (or expands it) to match ``predictions``' rank."""
    with in_graph_of([predictions, labels, weights]):
        if labels is not None:
            labels, predictions = remove_squeezable_dimensions(labels, predictions)
        if weights is None:
            return predictions, labels, None
        w = convert_to_tensor(weights)
        wr, pr = w.shape.ndims, predictions.shape.ndims
        if wr == 0:
            return predictions, labels, w
        if wr is not None and pr is not None:
            if wr - pr == 1 and w.shape.as_list()[-1] in (1, None):
                w = array_ops.squeeze(w, [-1])
            elif pr - wr == 1:
                w = array_ops.expand_dims(w, -1)
            return predictions, labels, w
        return predictions, labels, _match_rank_at_run_time(w, predictions)


def _match_rank_at_run_time(w: Tensor, predictions: Tensor) -> Tensor:
    """``squeeze_weights`` on ranks known only at run time: a scalar ``w`` as it is, one
    extra (trailing 1) dimension squeezed, one missing dimension added."""
    w_rank = array_ops.rank(w)
    rank_diff = w_rank - array_ops.rank(predictions)
    if w.shape.ndims is not None and w.shape.as_list()[-1] not in (1, None):
        squeezed = lambda: w  # the static last dimension rules the squeeze out
    else:
        squeezed = lambda: array_ops.squeeze(w, [-1])

    def expanded() -> Tensor:
        return cond(math_ops.equal(rank_diff, -1), lambda: array_ops.expand_dims(w, -1), lambda: w)

    def adjusted() -> Tensor:
        return cond(math_ops.equal(rank_diff, 1), squeezed, expanded)

    return cond(math_ops.equal(w_rank, 0), lambda: w, adjusted)
