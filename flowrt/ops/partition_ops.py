"""Partitions and unsorted segment reductions: ``dynamic_partition``, ``dynamic_stitch``,
``unsorted_segment_max``/``_min``/``_prod`` (op rows with TF's gradients) and
``unsorted_segment_mean``/``_sqrt_n`` (composed from ``unsorted_segment_sum``, as TF).

Each op type is one ``register_op`` row: shape rule, numpy kernel, TF's gradient
(``data_flow_grad.py``, ``math_grad.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.graph import Tensor
from .._core.registry import register_op
from .._core.shape import TensorShape, unknown_shape
from . import array_ops, math_ops, slicing_ops
from .common import NUMERIC, check_dtype, make, make_op, op_scope, to_tensor
from .const_eval import static_value
from .indexed_slices import unsorted_segment_sum

if TYPE_CHECKING:
    from .._core.typing import TensorLike

__all__ = [
    "dynamic_partition",
    "dynamic_stitch",
    "unsorted_segment_max",
    "unsorted_segment_min",
    "unsorted_segment_prod",
    "unsorted_segment_mean",
    "unsorted_segment_sqrt_n",
]

_INDEX = (_dt.int32, _dt.int64)


def _index_str(shape, flat_pos):
    return "".join("[%d]" % i for i in np.unravel_index(flat_pos, shape)) if shape else ""


# --------------------------------------------------------------------------------------
# DynamicPartition
# --------------------------------------------------------------------------------------


def _partition_infer(op):
    data, parts = op.inputs
    check_dtype(parts, (_dt.int32,), "partitions")
    n = op.attrs["num_partitions"]
    ds, ps = data.shape, parts.shape
    if ds.ndims is not None and ps.ndims is not None:
        if ds.ndims < ps.ndims or not TensorShape(ds.as_list()[: ps.ndims]).is_compatible_with(ps):
            raise ValueError(
                "data.shape must start with partitions.shape, got data.shape = %s, "
                "partitions.shape = %s" % (ds, ps)
            )
        out = TensorShape([None] + ds.as_list()[ps.ndims :])
    else:
        out = unknown_shape()
    return [(data.dtype, out)] * n


def _partition_kernel(ctx, op, data, parts):
    n = op.attrs["num_partitions"]
    if data.shape[: parts.ndim] != parts.shape:
        raise errors.InvalidArgumentError(
            None,
            op,
            "data.shape must start with partitions.shape, got data.shape = %s, "
            "partitions.shape = %s" % (list(data.shape), list(parts.shape)),
        )
    flat = parts.reshape(-1)
    bad = np.flatnonzero((flat < 0) | (flat >= n))
    if bad.size:
        i = int(bad[0])
        raise errors.InvalidArgumentError(
            None,
            op,
            "partitions%s = %d is not in [0, %d)" % (_index_str(parts.shape, i), int(flat[i]), n),
        )
    rows = data.reshape((flat.size,) + data.shape[parts.ndim :])
    return tuple(rows[flat == p] for p in range(n))


def _partition_grad(op, *grads):
    data, parts = op.inputs
    prefix = array_ops.shape(parts)
    original = array_ops.reshape(array_ops.range(math_ops.reduce_prod(prefix)), prefix)
    partitioned = dynamic_partition(original, parts, op.attrs["num_partitions"])
    stitched = dynamic_stitch(partitioned, list(grads))
    return [array_ops.reshape(stitched, array_ops.shape(data)), None]


register_op(
    "DynamicPartition", infer=_partition_infer, kernel=_partition_kernel, grad=_partition_grad
)


def dynamic_partition(
    data: TensorLike, partitions: TensorLike, num_partitions: int, name: str | None = None
) -> list[Tensor]:
    """Splits ``data`` into ``num_partitions`` tensors by ``partitions``: output ``i``
    holds, in order, the slices ``data[js]`` with ``partitions[js] == i``.

    Args:
      data: a tensor whose shape starts with ``partitions``' shape.
      partitions: an int32 tensor of values in ``[0, num_partitions)``.
      num_partitions: the number of outputs (an int >= 1).
      name: the op's name (default ``DynamicPartition``).

    Raises:
      InvalidArgumentError: at run time, for a partition out of range (naming it).
    """
    if not isinstance(num_partitions, (int, np.integer)) or num_partitions < 1:
        raise ValueError("num_partitions must be an int >= 1, got %r" % (num_partitions,))
    with op_scope([data, partitions], None, None):
        p = partitions if isinstance(partitions, Tensor) else to_tensor(partitions, _dt.int32)
        op = make_op("DynamicPartition", [data, p], {"num_partitions": int(num_partitions)}, name)
    return list(op.outputs)


# --------------------------------------------------------------------------------------
# DynamicStitch
# --------------------------------------------------------------------------------------


def _stitch_infer(op):
    n = len(op.inputs) // 2
    indices, data = op.inputs[:n], op.inputs[n:]
    tail = None
    for i, (ix, d) in enumerate(zip(indices, data)):
        check_dtype(ix, (_dt.int32,), "indices")
        if d.dtype is not data[0].dtype:
            raise TypeError(
                "data[%d] has dtype %s, data[0] %s" % (i, d.dtype.name, data[0].dtype.name)
            )
        if ix.shape.ndims is None or d.shape.ndims is None:
            continue
        lead = d.shape.as_list()[: ix.shape.ndims]
        if len(lead) < ix.shape.ndims or not TensorShape(lead).is_compatible_with(ix.shape):
            raise ValueError(
                "data[%d].shape = %s does not start with indices[%d].shape = %s"
                % (i, d.shape, i, ix.shape)
            )
        t = TensorShape(d.shape.as_list()[ix.shape.ndims :])
        if tail is not None and not tail.is_compatible_with(t):
            raise ValueError(
                "data[%d].shape = %s does not match the slice shape %s of the others"
                % (i, d.shape, tail)
            )
        tail = t if tail is None else tail.merge_with(t)
    rows = None
    values = [static_value(ix) for ix in indices]
    if all(v is not None for v in values):
        rows = max((int(np.max(v)) + 1 for v in values if np.size(v)), default=0)
    if tail is None:
        return [(data[0].dtype, unknown_shape())]
    return [(data[0].dtype, TensorShape([rows] + tail.as_list()))]


def _stitch_kernel(ctx, op, *args):
    n = len(args) // 2
    indices, data = args[:n], args[n:]
    rows = max((int(ix.max()) + 1 for ix in indices if ix.size), default=0)
    tail = None
    for i, (ix, d) in enumerate(zip(indices, data)):
        if d.shape[: ix.ndim] != ix.shape:
            raise errors.InvalidArgumentError(
                None,
                op,
                "data[%d].shape = %s does not start with indices[%d].shape = %s"
                % (i, list(d.shape), i, list(ix.shape)),
            )
        t = d.shape[ix.ndim :]
        if tail is not None and t != tail:
            raise errors.InvalidArgumentError(
                None,
                op,
                "data[%d].shape = %s does not match data[0]'s slice shape %s"
                % (i, list(d.shape), list(tail)),
            )
        tail = t
        if ix.size and ix.min() < 0:
            j = int(np.flatnonzero(ix.reshape(-1) < 0)[0])
            raise errors.InvalidArgumentError(
                None,
                op,
                "indices[%d]%s = %d is out of range [0, %d)"
                % (i, _index_str(ix.shape, j), int(ix.reshape(-1)[j]), rows),
            )
    out = np.zeros((rows,) + (tail or ()), dtype=data[0].dtype)
    for ix, d in zip(indices, data):  # later indices win, as TF
        out[ix.reshape(-1)] = d.reshape((ix.size,) + tail)
    return (out,)


def _stitch_grad(op, grad):
    n = len(op.inputs) // 2
    grad = to_tensor(grad)
    return [None] * n + [slicing_ops.gather(grad, op.inputs[i]) for i in range(n)]


register_op("DynamicStitch", infer=_stitch_infer, kernel=_stitch_kernel, grad=_stitch_grad)


def dynamic_stitch(
    indices: Sequence[TensorLike], data: Sequence[TensorLike], name: str | None = None
) -> Tensor:
    """Interleaves the values of ``data`` into one tensor:
    ``merged[indices[m][i, ...], ...] = data[m][i, ...]``; where an index repeats,
    the later one wins; the result has ``max(indices) + 1`` rows.

    Args:
      indices: a list of int32 tensors.
      data: a list of tensors of one dtype, as many as ``indices``; ``data[m].shape``
        starts with ``indices[m].shape`` and the rest is the same for all.
      name: the op's name (default ``DynamicStitch``).
    """
    indices, data = list(indices), list(data)
    if len(indices) != len(data) or not indices:
        raise ValueError(
            "dynamic_stitch takes as many data tensors as indices (at least one), got %d "
            "and %d" % (len(indices), len(data))
        )
    with op_scope(indices + data, None, None):
        ix = [i if isinstance(i, Tensor) else to_tensor(i, _dt.int32) for i in indices]
        return make("DynamicStitch", ix + [to_tensor(d) for d in data], None, name)


# --------------------------------------------------------------------------------------
# UnsortedSegmentMax, UnsortedSegmentMin, UnsortedSegmentProd
# --------------------------------------------------------------------------------------


def _useg_infer(op):
    data, ids, n = op.inputs
    check_dtype(data, NUMERIC, "data")
    check_dtype(ids, _INDEX, "segment_ids")
    check_dtype(n, _INDEX, "num_segments")
    rows = static_value(n)
    if data.shape.ndims is None or ids.shape.ndims is None:
        return [(data.dtype, unknown_shape())]
    lead = data.shape.as_list()[: ids.shape.ndims]
    if not TensorShape(lead).is_compatible_with(ids.shape):
        raise ValueError(
            "data.shape = %s does not start with segment_ids.shape = %s" % (data.shape, ids.shape)
        )
    tail = data.shape.as_list()[ids.shape.ndims :]
    return [(data.dtype, TensorShape([None if rows is None else int(rows)] + tail))]


def _identity(dtype, ufunc):
    if ufunc is np.multiply:
        return 1
    if dtype.kind == "f":
        return -np.inf if ufunc is np.maximum else np.inf
    info = np.iinfo(dtype)
    return info.min if ufunc is np.maximum else info.max


def _useg_kernel(ufunc):
    def kernel(ctx, op, data, ids, n):
        n = int(n)
        if data.shape[: ids.ndim] != ids.shape:
            raise errors.InvalidArgumentError(
                None,
                op,
                "data.shape = %s does not start with segment_ids.shape = %s"
                % (list(data.shape), list(ids.shape)),
            )
        flat = ids.reshape(-1)
        bad = np.flatnonzero(flat >= n)
        if bad.size:
            i = int(bad[0])
            raise errors.InvalidArgumentError(
                None,
                op,
                "segment_ids%s = %d is out of range [0, %d)"
                % (_index_str(ids.shape, i), int(flat[i]), n),
            )
        tail = data.shape[ids.ndim :]
        out = np.full((n,) + tail, _identity(data.dtype, ufunc), dtype=data.dtype)
        rows = data.reshape((flat.size,) + tail)
        keep = flat >= 0  # TF drops negative ids
        reduce_rows_into(out, flat[keep], rows[keep], ufunc)
        return (out,)

    return kernel


def reduce_rows_into(out, idx, rows, ufunc) -> None:
    """``out[i] = ufunc(out[i], rows where idx == i)`` for every ``i`` in ``idx``: one
    stable sort and one ``ufunc.reduceat`` (``ufunc.at`` is ~100x slower on rows)."""
    if not idx.size:
        return
    order = np.argsort(idx, kind="stable")
    s = idx[order]
    starts = np.flatnonzero(np.concatenate(([True], s[1:] != s[:-1])))
    red = ufunc.reduceat(rows[order], starts, axis=0)
    u = s[starts]
    out[u] = ufunc(out[u], red)


def gather_drop_negatives(params, ids, zero_clipped=None, is_positive=None):
    """TF's ``_GatherDropNegatives``: ``params`` gathered at ``ids``, zero where an id is
    negative; also the clipped ids and the (broadcast) mask of kept rows."""
    if zero_clipped is None:
        zero_clipped = math_ops.maximum(ids, array_ops.zeros_like(ids))
    gathered = slicing_ops.gather(params, zero_clipped)
    if is_positive is None:
        is_positive = math_ops.greater_equal(ids, array_ops.zeros_like(ids))
        ones = array_ops.ones(
            array_ops.reshape(array_ops.rank(gathered) - array_ops.rank(is_positive), [1]),
            _dt.int32,
        )
        shape = slicing_ops.concat([array_ops.shape(is_positive), ones], 0)
        is_positive = array_ops.reshape(is_positive, shape)
        is_positive = math_ops.logical_and(
            is_positive, array_ops.fill(array_ops.shape(gathered), True)
        )
    zeros = array_ops.zeros_like(gathered)
    return math_ops.where(is_positive, gathered, zeros), zero_clipped, is_positive


def _useg_min_max_grad(op, grad):
    data, ids, n = op.inputs
    gathered, zero_clipped, is_positive = gather_drop_negatives(op.outputs[0], ids)
    is_selected = math_ops.logical_and(math_ops.equal(data, gathered), is_positive)
    num_selected = unsorted_segment_sum(math_ops.cast(is_selected, grad.dtype), ids, n)
    weighted = math_ops.divide(grad, num_selected)
    gathered_grads, _, _ = gather_drop_negatives(weighted, None, zero_clipped, is_positive)
    return [
        math_ops.where(is_selected, gathered_grads, array_ops.zeros_like(gathered_grads)),
        None,
        None,
    ]


def _useg_prod_grad(op, grad):
    data, ids, n = op.inputs
    is_zero = math_ops.equal(data, array_ops.zeros_like(data))
    num_zeros = unsorted_segment_sum(math_ops.cast(is_zero, _dt.int32), ids, n)
    grad = math_ops.where(
        math_ops.greater(num_zeros, array_ops.ones_like(num_zeros)),
        array_ops.zeros_like(grad),
        grad,
    )
    non_zero_data = math_ops.where(is_zero, array_ops.ones_like(data), data)
    non_zero_prod = unsorted_segment_prod(non_zero_data, ids, n)
    zero_clipped = math_ops.maximum(ids, array_ops.zeros_like(ids))
    gathered_prod = slicing_ops.gather(op.outputs[0], zero_clipped)
    gathered_non_zero_prod = slicing_ops.gather(non_zero_prod, zero_clipped)
    prod_divided_by_el = gathered_prod / data
    partial = math_ops.where(is_zero, gathered_non_zero_prod, prod_divided_by_el)
    gathered_grad = gather_drop_negatives(grad, ids, zero_clipped)[0]
    return [gathered_grad * partial, None, None]


register_op(
    "UnsortedSegmentMax",
    infer=_useg_infer,
    kernel=_useg_kernel(np.maximum),
    grad=_useg_min_max_grad,
)
register_op(
    "UnsortedSegmentMin",
    infer=_useg_infer,
    kernel=_useg_kernel(np.minimum),
    grad=_useg_min_max_grad,
)
register_op(
    "UnsortedSegmentProd",
    infer=_useg_infer,
    kernel=_useg_kernel(np.multiply),
    grad=_useg_prod_grad,
)


def _useg(op_type, data, segment_ids, num_segments, name):
    with op_scope([data, segment_ids, num_segments], None, None):
        ids = segment_ids if isinstance(segment_ids, Tensor) else to_tensor(segment_ids, _dt.int32)
        n = num_segments if isinstance(num_segments, Tensor) else to_tensor(num_segments, ids.dtype)
        return make(op_type, [data, ids, n], None, name)


_USEG_DOC = """The %s of the slices of ``data`` in each of ``num_segments`` segments:
``output[i] = %s(data[j...] for j... with segment_ids[j...] == i)`` (op type %s).
A segment no id names gets %s; slices with a negative id are dropped.

Args:
  data: a numeric tensor whose shape starts with ``segment_ids``' shape.
  segment_ids: an int32/int64 tensor of ids below ``num_segments``.
  num_segments: an int32/int64 scalar.
  name: the op's name.

Raises:
  InvalidArgumentError: at run time, for an id >= ``num_segments`` (naming it).
"""


def unsorted_segment_max(
    data: TensorLike, segment_ids: TensorLike, num_segments: TensorLike, name: str | None = None
) -> Tensor:
    return _useg("UnsortedSegmentMax", data, segment_ids, num_segments, name)


def unsorted_segment_min(
    data: TensorLike, segment_ids: TensorLike, num_segments: TensorLike, name: str | None = None
) -> Tensor:
    return _useg("UnsortedSegmentMin", data, segment_ids, num_segments, name)


def unsorted_segment_prod(
    data: TensorLike, segment_ids: TensorLike, num_segments: TensorLike, name: str | None = None
) -> Tensor:
    return _useg("UnsortedSegmentProd", data, segment_ids, num_segments, name)


unsorted_segment_max.__doc__ = _USEG_DOC % (
    "maximum",
    "max",
    "UnsortedSegmentMax",
    "the dtype's lowest value",
)
unsorted_segment_min.__doc__ = _USEG_DOC % (
    "minimum",
    "min",
    "UnsortedSegmentMin",
    "the dtype's highest value",
)
unsorted_segment_prod.__doc__ = _USEG_DOC % ("product", "prod", "UnsortedSegmentProd", "1")


def _segment_counts(data, segment_ids, num_segments):
    """The number of rows in each segment (at least 1), shaped to broadcast against an
    ``unsorted_segment_sum`` of ``data`` (TF's ``_unsorted_segment_N``)."""
    ids = to_tensor(segment_ids)
    ones = array_ops.ones(array_ops.shape(ids), data.dtype)
    n = unsorted_segment_sum(ones, ids, num_segments)
    pad = array_ops.ones(
        array_ops.reshape(array_ops.rank(data) - array_ops.rank(ids), [1]), _dt.int32
    )
    shape = slicing_ops.concat([array_ops.shape(n)[:1], pad], 0)
    return math_ops.maximum(array_ops.reshape(n, shape), 1)


def unsorted_segment_mean(
    data: TensorLike, segment_ids: TensorLike, num_segments: TensorLike, name: str | None = None
) -> Tensor:
    """The mean of the slices of ``data`` in each segment (0 for an empty segment);
    composed from ``unsorted_segment_sum`` divided by the segment sizes, as TF.

    Args:
      data: a float tensor whose shape starts with ``segment_ids``' shape.
      segment_ids: an int32/int64 tensor of ids below ``num_segments``.
      num_segments: an int32/int64 scalar.
      name: a name scope for the ops (default ``UnsortedSegmentMean``).
    """
    with op_scope([data, segment_ids, num_segments], name, "UnsortedSegmentMean"):
        data = to_tensor(data)
        n = _segment_counts(data, segment_ids, num_segments)
        return unsorted_segment_sum(data, segment_ids, num_segments) / n


def unsorted_segment_sqrt_n(
    data: TensorLike, segment_ids: TensorLike, num_segments: TensorLike, name: str | None = None
) -> Tensor:
    """The sum of the slices of ``data`` in each segment divided by the square root of
    the segment's size (0 for an empty segment); composed as TF.

    Args:
      data: a float tensor whose shape starts with ``segment_ids``' shape.
      segment_ids: an int32/int64 tensor of ids below ``num_segments``.
      num_segments: an int32/int64 scalar.
      name: a name scope for the ops (default ``UnsortedSegmentSqrtN``).
    """
    with op_scope([data, segment_ids, num_segments], name, "UnsortedSegmentSqrtN"):
        data = to_tensor(data)
        n = _segment_counts(data, segment_ids, num_segments)
        return unsorted_segment_sum(data, segment_ids, num_segments) / math_ops.sqrt(n)
