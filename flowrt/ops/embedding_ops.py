"""Embedding lookup (``fr.nn.embedding_lookup``): a gather on axis 0 of a tensor or of
a sharded list of them ("mod" or "div" partitioning), with optional row max-norm clipping;
and its sparse forms (``embedding_lookup_sparse``, ``safe_embedding_lookup_sparse``),
which combine the embeddings of each row's ids (sum, mean or sqrtn, optionally weighted)
as TF composes them, from ``unique``, a lookup and the sparse segment reductions.

The sharded path is two fused ops: ``ShardIds`` routes each id to its shard and row, and
``StitchRows`` puts the gathered rows back in ids' order. Each op type is registered once,
with its infer rule, kernel and gradient together.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from .. import dtypes as _dt
from .._core.graph import Tensor, convert_to_tensor, get_default_graph
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from .._core.shape import TensorShape, unknown_shape
from . import array_ops, math_ops, slicing_ops
from .common import in_graph_of, make, make_op
from .nn_ops import OwnScope

if TYPE_CHECKING:
    from .._core.typing import TensorLike
    from ..partitioned_variables import PartitionedVariable

__all__ = ["embedding_lookup", "embedding_lookup_sparse", "safe_embedding_lookup_sparse"]


# --------------------------------------------------------------------------------------
# Embeddings
# --------------------------------------------------------------------------------------


def _clip_by_norm(t, clip_norm, axes):
    l2sum = math_ops.reduce_sum(t * t, axes, keepdims=True)
    pred = math_ops.greater(l2sum, 0.0)
    safe = math_ops.where(pred, l2sum, array_ops.ones_like(l2sum))
    l2norm = math_ops.where(pred, math_ops.sqrt(safe), l2sum)
    clip = convert_to_tensor(clip_norm, t.dtype)
    return array_ops.identity(t * clip / math_ops.maximum(l2norm, clip))


def _param_list(params) -> list:
    """The shards of ``params``: a ``PartitionedVariable``'s parts, a list's items, or
    ``[params]``, as TF1's lookups take them."""
    if hasattr(params, "_get_variable_list"):  # a PartitionedVariable
        return list(cast(Any, params)._get_variable_list())
    return list(params) if isinstance(params, (list, tuple)) else [params]


def embedding_lookup(
    params: TensorLike | Sequence[TensorLike] | PartitionedVariable,
    ids: TensorLike,
    partition_strategy: str = "mod",
    name: str | None = None,
    validate_indices: bool = True,
    max_norm: float | None = None,
) -> Tensor:
    """Rows ``params[ids]`` (a gather on axis 0).

    ``params`` is a tensor or variable, a ``PartitionedVariable`` (its parts), or a list
    of them sharded along axis 0 by
    ``partition_strategy`` ("mod": id ``i`` lives in shard ``i % n``; "div": in
    contiguous blocks). With ``max_norm`` each looked-up row is clipped to that L2 norm.
    The gradient with respect to ``params`` is an ``IndexedSlices`` (only the looked-up
    rows), which optimizers apply as row updates.

    As TF1, each gather (and each shard's shape) is colocated with its shard, so on a
    cluster the rows are gathered on the ps task that holds the shard.
    """
    if params is None:
        raise ValueError("params must be specified")
    params = _param_list(params)
    if not params:
        raise ValueError("Need at least one param")
    if partition_strategy not in ("mod", "div"):
        raise ValueError("Unrecognized partition strategy: " + partition_strategy)
    with in_graph_of([params, ids]) as g:
        with OwnScope(name, "embedding_lookup") as s:
            ids = convert_to_tensor(ids, name="ids")
            if len(params) > 1:
                return _sharded_lookup(params, ids, partition_strategy, max_norm)
        with _colocated(params[0]):
            result = slicing_ops.gather(params[0], ids, name=s.name)
            if max_norm is not None:
                with g.name_scope(s.full + "/"):
                    result = _clip_rows(result, ids, max_norm)
        with g.name_scope(s.full + "/"):
            return array_ops.identity(result)


def _colocated(param):
    """``colocate_with(param)`` for a tensor or variable (TF1 gathers where the shard is)."""
    if isinstance(param, Tensor) or hasattr(param, "handle"):
        return get_default_graph().colocate_with(param)
    return contextlib.nullcontext()


def _shape_of(param, out_type):
    with _colocated(param):
        return array_ops.shape(param, out_type=out_type)


def _clip_rows(rows, ids, max_norm):
    ir, pr = ids.shape.ndims, rows.shape.ndims
    if ir is None or pr is None:
        raise NotImplementedError("embedding_lookup(max_norm=...) needs known ranks")
    return _clip_by_norm(rows, max_norm, list(range(ir, pr)))


def _sharded_lookup(params, ids, strategy, max_norm):
    # Gathers from each shard and stitches the rows back into ids' order.
    n = len(params)
    flat = array_ops.reshape(ids, [-1])
    parts = make_op(
        "ShardIds",
        [flat] + [_shape_of(p, flat.dtype) for p in params],
        {"n": n, "strategy": strategy},
    ).outputs
    shard_rows, positions = parts[:n], parts[n:]
    rows = []
    for p, r in zip(params, shard_rows, strict=True):
        with _colocated(p):
            rows.append(slicing_ops.gather(p, r))
    stitched = make("StitchRows", list(positions) + rows, {"n": n})
    if ids.shape.is_fully_defined() and params[0].shape.ndims is not None:
        tail = params[0].shape.as_list()[1:]
        out = array_ops.reshape(
            stitched, ids.shape.as_list() + [-1 if t is None else t for t in tail]
        )
    else:
        out = array_ops.reshape(
            stitched, slicing_ops.concat([array_ops.shape(ids), array_ops.shape(stitched)[1:]], 0)
        )
    if max_norm is not None:
        out = _clip_rows(out, ids, max_norm)
    return array_ops.identity(out)


def _shard_ids_infer(op):
    n = op.attrs["n"]
    dt = op.inputs[0].dtype
    return [(dt, unknown_shape(1))] * n + [(_dt.int32, unknown_shape(1))] * n


def _shard_ids_kernel(ctx, op, ids, *shapes):
    n = op.attrs["n"]
    sizes = [int(s[0]) for s in shapes]
    if op.attrs["strategy"] == "mod":
        shard, row = ids % n, ids // n
    else:
        total = sum(sizes)
        per, extras = total // n, total % n
        big = extras * (per + 1)
        shard = np.where(ids < big, ids // max(per + 1, 1), extras + (ids - big) // max(per, 1))
        row = np.where(ids < big, ids % max(per + 1, 1), (ids - big) % max(per, 1))
    rows, pos = [], []
    for i in range(n):
        m = shard == i
        rows.append(row[m].astype(ids.dtype))
        pos.append(np.flatnonzero(m).astype(np.int32))
    return tuple(rows) + tuple(pos)


def _stitch_infer(op):
    n = op.attrs["n"]
    d = op.inputs[n]
    tail = d.shape.as_list()[1:] if d.shape.ndims is not None else None
    return [(d.dtype, TensorShape([None] + tail) if tail is not None else unknown_shape())]


def _stitch_kernel(ctx, op, *args):
    n = op.attrs["n"]
    pos, rows = args[:n], args[n:]
    total = sum(len(p) for p in pos)
    out = np.empty((total,) + rows[0].shape[1:], dtype=rows[0].dtype)
    for p, r in zip(pos, rows, strict=True):
        out[p] = r
    return (out,)


def _stitch_grad(op, g):
    n = op.attrs["n"]
    return [None] * n + [slicing_ops.gather(g, p) for p in op.inputs[:n]]


register_op("ShardIds", infer=_shard_ids_infer, kernel=_shard_ids_kernel, grad=NOT_DIFFERENTIABLE)
register_op("StitchRows", infer=_stitch_infer, kernel=_stitch_kernel, grad=_stitch_grad)


# --------------------------------------------------------------------------------------
# Sparse lookups: TF's composition
# --------------------------------------------------------------------------------------


def embedding_lookup_sparse(
    params: TensorLike | Sequence[TensorLike] | PartitionedVariable,
    sp_ids: Any,
    sp_weights: Any,
    partition_strategy: str = "mod",
    name: str | None = None,
    combiner: str | None = None,
    max_norm: float | None = None,
) -> Tensor:
    """Per row of the ``SparseTensor`` ``sp_ids`` (``[batch, ids]``), its ids' embeddings
    combined: ``"sum"``, ``"mean"`` (the default, as TF1's None) or ``"sqrtn"`` (sum over
    the square root of the sum of squared weights), weighted by ``sp_weights`` (a
    ``SparseTensor`` like ``sp_ids``, or None for weight 1). The result has
    ``max(row index) + 1`` rows: trailing rows without ids are not included and rows
    without ids in between are 0 (as TF; a weighted mean or sqrtn over zero weight is 0).

    Raises:
      ValueError: an unknown ``combiner``.
      TypeError: ``sp_ids`` (or ``sp_weights``) is not a ``SparseTensor``.
    """
    from .segment_ops import segment_sum
    from .sort_ops import unique
    from .sparse_ops import SparseTensor
    from .sparse_segment_ops import sparse_segment_mean, sparse_segment_sqrt_n, sparse_segment_sum

    combiner = "mean" if combiner is None else combiner
    if combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError("combiner must be one of 'mean', 'sqrtn' or 'sum'")
    params = _param_list(params)
    if not isinstance(sp_ids, SparseTensor):
        raise TypeError("sp_ids must be SparseTensor")
    if sp_weights is not None and not isinstance(sp_weights, SparseTensor):
        raise TypeError("sp_weights must be either None or SparseTensor")
    if sp_weights is not None:
        sp_ids.values.shape.assert_is_compatible_with(sp_weights.values.shape)
        sp_ids.indices.shape.assert_is_compatible_with(sp_weights.indices.shape)
    g = get_default_graph()
    with g.name_scope(name or "embedding_lookup_sparse") as scope:
        segment_ids = math_ops.cast(sp_ids.indices[:, 0], _dt.int32)
        ids, idx = unique(sp_ids.values)
        emb = embedding_lookup(
            params, ids, partition_strategy=partition_strategy, max_norm=max_norm
        )
        if emb.dtype is _dt.float16:
            emb = math_ops.cast(emb, _dt.float32)
        if sp_weights is None:
            reduce = {
                "sum": sparse_segment_sum,
                "mean": sparse_segment_mean,
                "sqrtn": sparse_segment_sqrt_n,
            }[combiner]
            return reduce(emb, idx, segment_ids, name=scope)
        weights = sp_weights.values
        if weights.dtype is not emb.dtype:
            weights = math_ops.cast(weights, emb.dtype)
        emb = slicing_ops.gather(emb, idx)
        r = emb.shape.ndims
        if r is None:
            raise ValueError("embedding_lookup_sparse needs embeddings of known rank")
        weights = array_ops.reshape(weights, [-1] + [1] * (r - 1))
        summed = segment_sum(emb * weights, segment_ids)
        if combiner == "sum":
            return array_ops.identity(summed, name=scope)
        if combiner == "mean":
            return math_ops.div_no_nan(summed, segment_sum(weights, segment_ids), name=scope)
        norm = math_ops.sqrt(segment_sum(weights * weights, segment_ids))
        return math_ops.div_no_nan(summed, norm, name=scope)


def _flatten_rows(sp, rank: int):
    """A rank-``rank`` ``SparseTensor`` as a 2-D one: rows numbered over all but the
    last dimension (row-major), the last dimension kept; and the dense shape's head."""
    from .scan_ops import cumprod
    from .sparse_ops import SparseTensor

    shape = math_ops.cast(sp.dense_shape, _dt.int64)
    if rank == 2:
        return sp, shape[:1]
    head = shape[: rank - 1]
    strides = cumprod(head, exclusive=True, reverse=True)
    rows = math_ops.reduce_sum(sp.indices[:, : rank - 1] * strides, axis=1)
    indices = array_ops.stack([rows, sp.indices[:, rank - 1]], axis=1)
    dense = array_ops.stack([math_ops.reduce_prod(head), shape[rank - 1]])
    return SparseTensor(indices, sp.values, dense), head


def safe_embedding_lookup_sparse(
    embedding_weights: TensorLike | Sequence[TensorLike] | PartitionedVariable,
    sparse_ids: Any,
    sparse_weights: Any = None,
    combiner: str = "mean",
    default_id: int | None = None,
    name: str | None = None,
    partition_strategy: str = "div",
    max_norm: float | None = None,
) -> Tensor:
    """``embedding_lookup_sparse`` that copes with what real sparse features hold: ids
    below 0 (and, unless ``combiner`` is ``"sum"``, weights not above 0) are dropped, a
    row left without ids gives ``default_id``'s embedding or zeros, and ``sparse_ids``
    may have any rank ``r >= 2`` (the result is ``dense_shape[:r-1] + [dim]``).

    Raises:
      ValueError: no ``embedding_weights``.
    """
    from .sparse_ops import SparseTensor, sparse_fill_empty_rows, sparse_retain

    if embedding_weights is None:
        raise ValueError("Missing embedding_weights %s." % embedding_weights)
    weights_list = _param_list(embedding_weights)
    if not weights_list:
        raise ValueError("Missing embedding_weights %s." % embedding_weights)
    g = get_default_graph()
    with g.name_scope(name or "embedding_lookup") as scope:
        rank = sparse_ids.dense_shape.shape.num_elements()
        if rank is None:
            raise ValueError("safe_embedding_lookup_sparse needs sparse_ids of known rank")
        ids, head = _flatten_rows(sparse_ids, rank)
        weights = sparse_weights
        if weights is not None:
            weights = SparseTensor(ids.indices, weights.values, ids.dense_shape)
        keep = math_ops.greater_equal(ids.values, 0)
        if weights is not None and combiner != "sum":
            keep = math_ops.logical_and(keep, math_ops.greater(weights.values, 0))
        ids = sparse_retain(ids, keep)
        if weights is not None:
            weights = sparse_retain(weights, keep)
        ids, empty = sparse_fill_empty_rows(ids, default_id or 0)
        if weights is not None:
            weights, _ = sparse_fill_empty_rows(weights, 1.0)
        result = embedding_lookup_sparse(
            weights_list,
            ids,
            weights,
            combiner=combiner,
            partition_strategy=partition_strategy,
            max_norm=max_norm,
        )
        if default_id is None:
            mask = array_ops.reshape(empty, [-1] + [1] * ((result.shape.ndims or 2) - 1))
            result = math_ops.where(
                math_ops.broadcast_to(mask, array_ops.shape(result)),
                array_ops.zeros_like(result),
                result,
            )
        out_shape = slicing_ops.concat(
            [math_ops.cast(head, _dt.int32), array_ops.shape(result)[1:]], 0
        )
        final = array_ops.reshape(result, out_shape, name=scope)
        final.set_shape(TensorShape([None] * (rank - 1)).concatenate(result.shape[1:]))
        return final
