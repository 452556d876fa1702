"""``fr.nn.top_k`` (op ``TopKV2``) and ``fr.nn.in_top_k`` (op ``InTopKV2``).

Ties keep the lower index first, as TF's kernel does; ``in_top_k`` counts a target as
in the top k when fewer than k predictions are strictly greater (ties are in), and a
non-finite prediction or an out-of-range target is never in.
"""

from __future__ import annotations

import collections
from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes as _dt
from .._core.graph import Tensor, convert_to_tensor
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from .._core.shape import TensorShape, unknown_shape
from . import array_ops, indexing_ops, math_ops
from .common import NUMERIC, check_dtype, in_graph_of, int_list, make_op, op_scope, shape_str

if TYPE_CHECKING:
    from .._core.typing import TensorLike

__all__ = ["top_k", "in_top_k"]


def _topk_infer(op):
    x, k = op.inputs
    check_dtype(x, NUMERIC, "input")
    check_dtype(k, (_dt.int32,), "k")
    if k.shape.ndims not in (None, 0):
        raise ValueError("k must be a scalar, got shape %s" % shape_str(k.shape))
    kv = int_list(k)
    if kv is not None and kv[0] < 0:
        raise ValueError("Need k >= 0, got %d" % kv[0])
    if x.shape.ndims is None:
        return [(x.dtype, unknown_shape()), (_dt.int32, unknown_shape())]
    if x.shape.ndims < 1:
        raise ValueError("input must have rank >= 1, got shape %s" % shape_str(x.shape))
    n = x.shape.as_list()[-1]
    if kv is not None and n is not None and n < kv[0]:
        raise ValueError("input must have last dimension >= k = %d but is %d" % (kv[0], n))
    out = TensorShape(x.shape.as_list()[:-1] + [None if kv is None else kv[0]])
    return [(x.dtype, out), (_dt.int32, out)]


def _topk_kernel(ctx, op, x, k):
    k = int(k)
    n = x.shape[-1]
    if k < 0:
        raise ValueError("Need k >= 0, got %d" % k)
    if n < k:
        raise ValueError("input must have at least k columns. Had %d, needed %d" % (n, k))
    # A stable descending order with ties in index order: a stable ascending argsort of
    # the reversed row, read backwards.
    order = np.argsort(x[..., ::-1], axis=-1, kind="stable")[..., ::-1][..., :k]
    idx = (n - 1 - order).astype(np.int32)
    return np.take_along_axis(x, idx, axis=-1), idx


def _topk_grad(op, g_values, g_indices):
    # Scatter the values' gradient back to the positions the indices name.
    x = op.inputs[0]
    idx = op.outputs[1]
    n = array_ops.shape(x)[-1]
    hot = indexing_ops.one_hot(idx, n, dtype=g_values.dtype)
    return [math_ops.reduce_sum(array_ops.expand_dims(g_values, -1) * hot, -2), None]


register_op("TopKV2", infer=_topk_infer, kernel=_topk_kernel, grad=_topk_grad)


def top_k(
    input: TensorLike, k: TensorLike = 1, sorted: bool = True, name: str | None = None
) -> _TopKResult:
    """The ``k`` largest entries of the last axis of ``input`` and their indices.

    Args:
      input: a numeric tensor of rank >= 1.
      k: an int or int32 scalar tensor.
      sorted: kept for TF1 signatures; the values always come sorted descending.
      name: the op name (default ``TopKV2``).

    Returns:
      ``(values, indices)``: ``values`` like ``input`` with last dimension ``k``,
      ``indices`` int32.
    """
    with in_graph_of([input, k]):
        x = convert_to_tensor(input, name="input")
        kt = convert_to_tensor(k, dtype=_dt.int32, name="k") if not isinstance(k, Tensor) else k
        op = make_op("TopKV2", [x, kt], {"sorted": bool(sorted)}, name, "TopKV2")
        return _TopKResult(op.outputs[0], op.outputs[1])


# TF's result type: fetching it gives ``TopKV2(values=..., indices=...)`` of arrays.
_TopKResult = collections.namedtuple(  # type: ignore[name-match]  # TF's class name
    "TopKV2", ["values", "indices"]
)


def _in_topk_infer(op):
    p, t, k = op.inputs
    check_dtype(p, (_dt.float32,), "predictions")
    check_dtype(t, (_dt.int32, _dt.int64), "targets")
    if t.dtype is not k.dtype:
        raise TypeError(
            "k must have the dtype of targets (%s), got %s" % (t.dtype.name, k.dtype.name)
        )
    if p.shape.ndims not in (None, 2):
        raise ValueError("predictions must be 2-dimensional, got shape %s" % shape_str(p.shape))
    if t.shape.ndims not in (None, 1):
        raise ValueError("targets must be 1-dimensional, got shape %s" % shape_str(t.shape))
    if k.shape.ndims not in (None, 0):
        raise ValueError("k must be a scalar, got shape %s" % shape_str(k.shape))
    b = p.shape[0] if p.shape.ndims == 2 else None
    out = TensorShape([b]).merge_with(t.shape) if t.shape.ndims == 1 else TensorShape([b])
    return [(_dt.bool, out)]


def _in_topk_kernel(ctx, op, p, t, k):
    if p.ndim != 2 or t.ndim != 1 or p.shape[0] != t.shape[0]:
        raise ValueError(
            "First dimension of predictions %d must match length of targets "
            "%d" % (p.shape[0] if p.ndim else 0, t.shape[0] if t.ndim else 0)
        )
    rows = np.arange(p.shape[0])
    ok = (t >= 0) & (t < p.shape[1])
    tv = p[rows, np.where(ok, t, 0)]
    finite = np.isfinite(tv) & np.isfinite(p).all(axis=1)
    greater = (p > tv[:, None]).sum(axis=1)
    return (ok & finite & (greater < int(k)),)


register_op("InTopKV2", infer=_in_topk_infer, kernel=_in_topk_kernel, grad=NOT_DIFFERENTIABLE)


def in_top_k(
    predictions: TensorLike, targets: TensorLike, k: TensorLike, name: str | None = None
) -> Tensor:
    """Whether each ``targets[i]`` is among the top ``k`` of ``predictions[i]``.

    Args:
      predictions: float32 [batch, classes].
      targets: int32/int64 [batch] class ids.
      k: an int or a scalar tensor.
      name: the op name (default ``in_top_k``).

    Returns:
      A bool [batch] tensor (op ``in_top_k/InTopKV2``). Ties with the k-th value count
      as in.
    """
    with op_scope([predictions, targets, k], name, "in_top_k"):
        p = convert_to_tensor(predictions, name="predictions")
        t = convert_to_tensor(targets, name="targets")
        kt = convert_to_tensor(k, dtype=t.dtype, name="k") if not isinstance(k, Tensor) else k
        return make_op("InTopKV2", [p, t, kt], None, None).outputs[0]
