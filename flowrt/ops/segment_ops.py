"""The sorted segment reductions ``segment_sum``, ``_mean``, ``_max``, ``_min`` and
``_prod``: ``segment_ids`` sorted, the output has ``max(id) + 1`` rows.

Each op type is one table row (type, numpy reduction, TF's gradient).
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
from .common import NUMERIC, check_dtype, in_graph_of, make

if TYPE_CHECKING:
    from .._core.typing import TensorLike

__all__ = [
    "segment_sum",
    "segment_mean",
    "segment_max",
    "segment_min",
    "segment_prod",
]


_INDEX = (_dt.int32, _dt.int64)


# --------------------------------------------------------------------------------------
# Sorted segment reductions: segment_ids sorted, the output has max(id) + 1 rows
# --------------------------------------------------------------------------------------


def _segment_infer(op):
    data, ids = op.inputs
    check_dtype(data, NUMERIC, "data")
    check_dtype(ids, _INDEX, "segment_ids")
    if ids.shape.ndims not in (None, 1):
        raise ValueError("segment_ids should be a vector, got shape %s" % ids.shape)
    if data.shape.ndims == 0:
        raise ValueError("data must be at least rank 1")
    if data.shape.ndims is None:
        return [(data.dtype, unknown_shape())]
    if ids.shape.ndims == 1 and not TensorShape([data.shape[0]]).is_compatible_with(ids.shape):
        raise ValueError(
            "segment_ids should be the same size as dimension 0 of data, got shapes %s and %s"
            % (ids.shape, data.shape)
        )
    return [(data.dtype, TensorShape([None] + data.shape.as_list()[1:]))]


def _segment_kernel(ufunc, mean=False):
    def kernel(ctx, op, data, ids):
        if ids.shape[0] != data.shape[0]:
            raise errors.InvalidArgumentError(
                None,
                op,
                "segment_ids should be the same size as dimension 0 of data, got "
                "%d and %d" % (ids.shape[0], data.shape[0]),
            )
        if ids.size and (ids[0] < 0 or np.any(np.diff(ids) < 0)):
            raise errors.InvalidArgumentError(
                None, op, "segment ids are not increasing (or are negative): %s" % ids.tolist()[:10]
            )
        n = int(ids[-1]) + 1 if ids.size else 0
        out = np.zeros((n,) + data.shape[1:], data.dtype)  # empty segments: 0, as TF
        if ids.size:
            starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
            red = ufunc.reduceat(data, starts, axis=0)
            if mean:
                cnt = np.diff(np.r_[starts, ids.size]).reshape((-1,) + (1,) * (data.ndim - 1))
                red = (red / cnt).astype(data.dtype)
            out[ids[starts]] = red
        return (out,)

    return kernel


def _segment_sum_grad(op, g):
    return [slicing_ops.gather(g, op.inputs[1]), None]


def _segment_mean_grad(op, g):
    data, ids = op.inputs
    ones = array_ops.ones_like(ids, dtype=g.dtype)
    counts = segment_sum(ones, ids)
    r = g.shape.ndims
    scaled = g / (
        array_ops.reshape(counts, [-1] + [1] * (r - 1)) if r is not None and r > 1 else counts
    )
    return [slicing_ops.gather(scaled, ids), None]


def _segment_min_max_grad(op, g):
    # TF's _SegmentMinOrMaxGrad: the gradient is split among the selected elements.
    data, ids = op.inputs
    gathered = slicing_ops.gather(op.outputs[0], ids)
    selected = math_ops.equal(data, gathered)
    num = segment_sum(math_ops.cast(selected, g.dtype), ids)
    gathered_g = slicing_ops.gather(g / num, ids)
    return [math_ops.where(selected, gathered_g, array_ops.zeros_like(gathered_g)), None]


def _segment_prod_grad(op, g):
    # d prod / d x_i = prod / x_i (TF's rule for nonzero inputs)
    data, ids = op.inputs
    gathered = slicing_ops.gather(op.outputs[0], ids)
    return [slicing_ops.gather(g, ids) * math_ops.div_no_nan(gathered, data), None]


for _t, _uf, _mean, _grad in (
    ("SegmentSum", np.add, False, _segment_sum_grad),
    ("SegmentMean", np.add, True, _segment_mean_grad),
    ("SegmentMax", np.maximum, False, _segment_min_max_grad),
    ("SegmentMin", np.minimum, False, _segment_min_max_grad),
    ("SegmentProd", np.multiply, False, _segment_prod_grad),
):
    register_op(_t, infer=_segment_infer, kernel=_segment_kernel(_uf, _mean), grad=_grad)


def _segment_fn(op_type: str, pub: str, what: str):
    def fn(data: TensorLike, segment_ids: TensorLike, name: str | None = None) -> Tensor:
        with in_graph_of([data, segment_ids]):
            ids = (
                segment_ids
                if isinstance(segment_ids, Tensor)
                else convert_to_tensor(segment_ids, dtype=_dt.int32)
            )
            return make(op_type, [data, ids], None, name)

    fn.__name__ = fn.__qualname__ = pub
    fn.__module__ = __name__
    fn.__doc__ = (
        "The %s of the rows of ``data`` in each segment: ``segment_ids`` (sorted, one per "
        "row of ``data``) name each row's segment; the result has ``max(segment_ids) + 1`` "
        "rows, empty segments giving 0 (op type %s)." % (what, op_type)
    )
    return fn


segment_sum = _segment_fn("SegmentSum", "segment_sum", "sum")

segment_mean = _segment_fn("SegmentMean", "segment_mean", "mean")

segment_max = _segment_fn("SegmentMax", "segment_max", "maximum")

segment_min = _segment_fn("SegmentMin", "segment_min", "minimum")

segment_prod = _segment_fn("SegmentProd", "segment_prod", "product")
