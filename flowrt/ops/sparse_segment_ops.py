"""TF1's sparse segment reductions: ``sparse_segment_sum``, ``sparse_segment_mean`` and
``sparse_segment_sqrt_n`` (with their ``num_segments`` forms), the reductions
``embedding_lookup_sparse`` is built on.

``sparse_segment_sum(data, indices, segment_ids)`` is ``segment_sum(gather(data,
indices), segment_ids)`` in one kernel: the rows ``data[indices]`` summed by segment
(``segment_ids`` sorted, one per index), divided by the segment's size (mean) or its
square root (sqrt_n). Empty segments give zero rows. Each op type is one row: infer
rule, kernel and TF's gradient (an ``unsorted_segment_sum`` of the scaled output
gradient back onto the rows of ``data``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.graph import Tensor, convert_to_tensor
from .._core.registry import register_op
from .._core.shape import TensorShape, unknown_shape
from . import array_ops, math_ops, slicing_ops
from .common import FLOATS, NUMERIC, check_dtype, in_graph_of, make
from .indexed_slices import unsorted_segment_sum

if TYPE_CHECKING:
    from .._core.typing import TensorLike

__all__ = [
    "sparse_segment_mean",
    "sparse_segment_sqrt_n",
    "sparse_segment_sum",
]

_INDEX = (_dt.int32, _dt.int64)
_KINDS = {"Sum": None, "Mean": np.ones, "SqrtN": np.sqrt}


def _infer(op):
    data, indices, ids = op.inputs[:3]
    check_dtype(data, NUMERIC if op.type.startswith("SparseSegmentSum") else FLOATS, "data")
    check_dtype(indices, _INDEX, "indices")
    check_dtype(ids, _INDEX, "segment_ids")
    for t, what in ((indices, "indices"), (ids, "segment_ids")):
        if t.shape.ndims not in (None, 1):
            raise ValueError("%s should be a vector, got shape %s" % (what, t.shape))
    if not indices.shape.is_compatible_with(ids.shape):
        raise ValueError(
            "segment_ids and indices should have same size, got shapes %s and %s"
            % (ids.shape, indices.shape)
        )
    if data.shape.ndims == 0:
        raise ValueError("data must be at least rank 1")
    if data.shape.ndims is None:
        return [(data.dtype, unknown_shape())]
    return [(data.dtype, TensorShape([None] + data.shape.as_list()[1:]))]


def _kernel(kind: str):
    def kernel(ctx, op, data, indices, ids, *num_segments):
        indices = np.asarray(indices).reshape(-1)
        ids = np.asarray(ids).reshape(-1)
        if indices.size != ids.size:
            raise errors.InvalidArgumentError(
                None, op, "segment_ids and indices should have same size."
            )
        n_rows = data.shape[0]
        if indices.size and (indices.min() < 0 or indices.max() >= n_rows):
            i = int(np.flatnonzero((indices < 0) | (indices >= n_rows))[0])
            raise errors.InvalidArgumentError(
                None, op, "Bad: indices[%d] == %d out of range [0, %d)" % (i, indices[i], n_rows)
            )
        if ids.size and (ids[0] < 0 or np.any(np.diff(ids) < 0)):
            raise errors.InvalidArgumentError(None, op, "segment ids are not increasing")
        if num_segments:
            n = int(num_segments[0])
            if ids.size and ids[-1] >= n:
                raise errors.InvalidArgumentError(
                    None, op, "segment ids must be < num_segments: %d >= %d" % (ids[-1], n)
                )
        else:
            n = int(ids[-1]) + 1 if ids.size else 0
        out = np.zeros((n,) + data.shape[1:], data.dtype)
        if ids.size:
            rows = data.take(indices, axis=0)
            starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
            red = np.add.reduceat(rows, starts, axis=0)
            if kind != "Sum":
                count = np.diff(np.r_[starts, ids.size]).astype(data.dtype)
                if kind == "SqrtN":
                    count = np.sqrt(count)
                red /= count.reshape((-1,) + (1,) * (data.ndim - 1))
            out[ids[starts]] = red
        return (out,)

    return kernel


def _grad(kind: str):
    def grad(op, g):
        data, indices, ids = op.inputs[:3]
        if kind != "Sum":
            ones = array_ops.ones_like(ids, dtype=g.dtype)
            count = unsorted_segment_sum(ones, ids, array_ops.shape(g)[0])
            scale = math_ops.maximum(count, 1.0)
            if kind == "SqrtN":
                scale = math_ops.sqrt(scale)
            r = g.shape.ndims
            g = g / (array_ops.reshape(scale, [-1] + [1] * (r - 1)) if r != 1 else scale)
        rows = slicing_ops.gather(g, ids)
        back = unsorted_segment_sum(rows, indices, array_ops.shape(data)[0])
        return [back, None, None] + [None] * (len(op.inputs) - 3)

    return grad


for _kind in _KINDS:
    for _suffix in ("", "WithNumSegments"):
        register_op(
            "SparseSegment%s%s" % (_kind, _suffix),
            infer=_infer,
            kernel=_kernel(_kind),
            grad=_grad(_kind),
        )


def _reduce(kind, data, indices, segment_ids, name, num_segments):
    with in_graph_of([data, indices, segment_ids]):
        ins = [
            convert_to_tensor(data),
            convert_to_tensor(indices, dtype_hint=_dt.int32),
            convert_to_tensor(segment_ids, dtype_hint=_dt.int32),
        ]
        op_type = "SparseSegment" + kind
        if num_segments is not None:
            ins.append(convert_to_tensor(num_segments, dtype_hint=_dt.int32))
            op_type += "WithNumSegments"
        return make(op_type, ins, None, name)


def sparse_segment_sum(
    data: TensorLike,
    indices: TensorLike,
    segment_ids: TensorLike,
    name: str | None = None,
    num_segments: TensorLike | None = None,
) -> Tensor:
    """Sums of the rows ``data[indices]`` by segment: output row ``s`` is the sum of
    ``data[indices[i]]`` over the ``i`` with ``segment_ids[i] == s`` (``segment_ids``
    sorted). ``max(segment_ids) + 1`` rows, or ``num_segments``; empty segments are 0.

    Raises (at run time):
      InvalidArgumentError: an index out of range, or segment ids not sorted.
    """
    return _reduce("Sum", data, indices, segment_ids, name, num_segments)


def sparse_segment_mean(
    data: TensorLike,
    indices: TensorLike,
    segment_ids: TensorLike,
    name: str | None = None,
    num_segments: TensorLike | None = None,
) -> Tensor:
    """``sparse_segment_sum`` divided by each segment's number of rows (float data)."""
    return _reduce("Mean", data, indices, segment_ids, name, num_segments)


def sparse_segment_sqrt_n(
    data: TensorLike,
    indices: TensorLike,
    segment_ids: TensorLike,
    name: str | None = None,
    num_segments: TensorLike | None = None,
) -> Tensor:
    """``sparse_segment_sum`` divided by the square root of each segment's number of
    rows (float data)."""
    return _reduce("SqrtN", data, indices, segment_ids, name, num_segments)
