"""Embedding lookup (``fr.nn.embedding_lookup``): a gather on axis 0 of a tensor or of
a sharded list of them ("mod" or "div" partitioning), with optional row max-norm clipping.

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
from .nn_ops import _OwnScope

if TYPE_CHECKING:
    from .._core.typing import TensorLike
    from ..partitioned_variables import PartitionedVariable

__all__ = ["embedding_lookup"]


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
    if hasattr(params, "_get_variable_list"):  # a PartitionedVariable: its parts, as TF
        params = cast(Any, params)._get_variable_list()
    if isinstance(params, (list, tuple)):
        params = list(params)
        if not params:
            raise ValueError("Need at least one param")
    else:
        params = [params]
    if partition_strategy not in ("mod", "div"):
        raise ValueError("Unrecognized partition strategy: " + partition_strategy)
    with in_graph_of([params, ids]) as g:
        with _OwnScope(name, "embedding_lookup") as s:
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
