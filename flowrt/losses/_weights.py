"""Weight broadcasting and squeezable dimensions shared by ``fr.losses`` and
``fr.metrics`` (TF1's ``weights_broadcast_ops``; ``remove_squeezable_dimensions`` lives
beside ``confusion_matrix``, as in TF), checked on static shapes."""

from __future__ import annotations

from typing import TYPE_CHECKING, overload

from .. import dtypes as _dt
from .._core.graph import Tensor, convert_to_tensor
from ..ops import array_ops, math_ops
from ..ops.common import in_graph_of, shape_str
from ..ops.confusion_matrix_ops import remove_squeezable_dimensions

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


def broadcast_weights(weights: Tensor, values: Tensor) -> Tensor:
    """``weights`` broadcast to the shape of ``values`` (TF's ``broadcast_weights``)."""
    with in_graph_of([weights, values]):
        check_broadcastable(weights, values)
        if (
            weights.shape.is_fully_defined()
            and values.shape.is_fully_defined()
            and weights.shape.as_list() == values.shape.as_list()
        ):
            return weights
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
        if wr is not None and pr is not None and wr != 0:
            if wr - pr == 1 and w.shape[-1] in (1, None):
                w = array_ops.squeeze(w, [-1])
            elif pr - wr == 1:
                w = array_ops.expand_dims(w, -1)
        return predictions, labels, w
