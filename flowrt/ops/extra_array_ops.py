"""More of TF1's array surface: ``unique``, ``unique_with_counts``, ``roll``,
``lin_space``/``linspace``, the sorted segment reductions (``segment_sum``, ``_mean``,
``_max``, ``_min``, ``_prod``) and ``sort``/``argsort``.

Each op type is one ``register_op`` row (shape rule, numpy kernel, TF's gradient).
"""

from __future__ import annotations

import collections
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.graph import Tensor, convert_to_tensor
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from .._core.shape import TensorShape, unknown_shape
from . import array_ops, math_ops, slicing_ops
from .common import FLOATS, NUMERIC, check_dtype, in_graph_of, make, make_op, op_scope
from .const_eval import static_value
from .topk_ops import top_k

if TYPE_CHECKING:
    from .._core.typing import DTypeLike, TensorLike

__all__ = [
    "unique",
    "unique_with_counts",
    "roll",
    "lin_space",
    "linspace",
    "segment_sum",
    "segment_mean",
    "segment_max",
    "segment_min",
    "segment_prod",
    "sort",
    "argsort",
    "is_tensor",
]

_INDEX = (_dt.int32, _dt.int64)

# --------------------------------------------------------------------------------------
# Unique, UniqueWithCounts: values in order of first occurrence
# --------------------------------------------------------------------------------------


def _unique_infer(op, counts: bool):
    (x,) = op.inputs
    if x.shape.ndims not in (None, 1):
        raise ValueError("unique expects a 1-D vector, got shape %s" % x.shape)
    it = op.attrs["out_idx"]
    out = [(x.dtype, unknown_shape(1)), (it, x.shape if x.shape.ndims == 1 else unknown_shape(1))]
    return out + [(it, unknown_shape(1))] if counts else out


def _unique_kernel(ctx, op, x):
    _, first, inverse, cnt = np.unique(
        x, return_index=True, return_inverse=True, return_counts=True
    )
    order = np.argsort(first, kind="stable")  # sorted-unique position -> first-occurrence rank
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    it = op.attrs["out_idx"].np
    out = (x[np.sort(first)], rank[inverse.reshape(-1)].astype(it))
    return out + (cnt[order].astype(it),) if op.type == "UniqueWithCounts" else out


register_op(
    "Unique",
    infer=lambda op: _unique_infer(op, False),
    kernel=_unique_kernel,
    grad=NOT_DIFFERENTIABLE,
)
register_op(
    "UniqueWithCounts",
    infer=lambda op: _unique_infer(op, True),
    kernel=_unique_kernel,
    grad=NOT_DIFFERENTIABLE,
)


def unique(x: TensorLike, out_idx: DTypeLike = _dt.int32, name: str | None = None) -> tuple:
    """The distinct values of the 1-D ``x`` in order of first occurrence, and for each
    element of ``x`` the index of its value among them: ``(y, idx)``, ``x == y[idx]``.

    Args:
      x: a 1-D tensor.
      out_idx: the dtype of ``idx`` (int32 or int64).
      name: the op's name (default ``Unique``).
    """
    op = make_op("Unique", [x], {"out_idx": _dt.as_dtype(out_idx)}, name)
    return _Unique(op.outputs[0], op.outputs[1])


def unique_with_counts(
    x: TensorLike, out_idx: DTypeLike = _dt.int32, name: str | None = None
) -> tuple:
    """``unique`` and, for each distinct value, how often it occurs: ``(y, idx, count)``.

    Args:
      x: a 1-D tensor.
      out_idx: the dtype of ``idx`` and ``count`` (int32 or int64).
      name: the op's name (default ``UniqueWithCounts``).
    """
    op = make_op("UniqueWithCounts", [x], {"out_idx": _dt.as_dtype(out_idx)}, name)
    return _UniqueWithCounts(*op.outputs)


# TF's result types: fetching gives ``Unique(y=..., idx=...)`` of arrays.
_Unique = collections.namedtuple("Unique", ["y", "idx"])  # type: ignore[name-match]
_UniqueWithCounts = collections.namedtuple(  # type: ignore[name-match]
    "UniqueWithCounts", ["y", "idx", "count"]
)

# --------------------------------------------------------------------------------------
# Roll
# --------------------------------------------------------------------------------------


def _roll_infer(op):
    x, shift, axis = op.inputs
    check_dtype(shift, _INDEX, "shift")
    check_dtype(axis, _INDEX, "axis")
    if shift.shape.ndims not in (None, 0, 1) or axis.shape.ndims not in (None, 0, 1):
        raise ValueError("shift and axis must be scalars or vectors")
    if not shift.shape.is_compatible_with(axis.shape):
        raise ValueError(
            "shift and axis must have the same size, got %s and %s" % (shift.shape, axis.shape)
        )
    return [(x.dtype, x.shape)]


def _roll_kernel(ctx, op, x, shift, axis):
    shift, axis = np.atleast_1d(shift), np.atleast_1d(axis)
    if shift.shape != axis.shape:
        raise errors.InvalidArgumentError(
            None,
            op,
            "shift and axis must have the same size, got %d and %d" % (shift.size, axis.size),
        )
    for a in axis.tolist():
        if not -x.ndim <= a < x.ndim:
            raise errors.InvalidArgumentError(
                None, op, "axis %d is out of range for a tensor of rank %d" % (a, x.ndim)
            )
    return (np.roll(x, tuple(shift.tolist()), tuple(axis.tolist())),)


register_op(
    "Roll",
    infer=_roll_infer,
    kernel=_roll_kernel,
    grad=lambda op, g: [roll(g, -op.inputs[1], op.inputs[2]), None, None],
)


def roll(input: TensorLike, shift: TensorLike, axis: TensorLike, name: str | None = None) -> Tensor:
    """``input`` with its elements shifted ``shift`` places along ``axis``, wrapping
    around (several shifts and axes may be given as vectors of the same size).

    Args:
      input: a tensor.
      shift: int32/int64 scalar or vector; positive shifts move toward higher indices.
      axis: int32/int64 scalar or vector of the axes to shift.
      name: the op's name (default ``Roll``).
    """
    with in_graph_of([input, shift, axis]):
        s = shift if isinstance(shift, Tensor) else convert_to_tensor(shift, dtype=_dt.int32)
        a = axis if isinstance(axis, Tensor) else convert_to_tensor(axis, dtype=_dt.int32)
        return make("Roll", [input, s, a], None, name)


# --------------------------------------------------------------------------------------
# LinSpace
# --------------------------------------------------------------------------------------


def _linspace_infer(op):
    start, stop, num = op.inputs
    check_dtype(start, FLOATS, "start")
    if stop.dtype is not start.dtype:
        raise TypeError("stop has dtype %s, start %s" % (stop.dtype.name, start.dtype.name))
    check_dtype(num, _INDEX, "num")
    n = static_value(num)
    return [(start.dtype, TensorShape([None if n is None else int(n)]))]


def _linspace_kernel(ctx, op, start, stop, num):
    if int(num) <= 0:
        raise errors.InvalidArgumentError(None, op, "Requires num > 0: %d" % int(num))
    return (np.linspace(start, stop, int(num), dtype=start.dtype),)


register_op("LinSpace", infer=_linspace_infer, kernel=_linspace_kernel, grad=NOT_DIFFERENTIABLE)


def lin_space(
    start: TensorLike, stop: TensorLike, num: TensorLike, name: str | None = None
) -> Tensor:
    """``num`` evenly spaced values from ``start`` to ``stop``, both included.

    Args:
      start: a float scalar.
      stop: a float scalar of ``start``'s dtype.
      num: int32/int64 scalar, the number of values (> 0).
      name: the op's name (default ``LinSpace``).
    """
    with in_graph_of([start, stop, num]):
        a = convert_to_tensor(start, name="start")
        b = convert_to_tensor(stop, dtype=a.dtype, name="stop")
        n = num if isinstance(num, Tensor) else convert_to_tensor(num, dtype=_dt.int32)
        return make("LinSpace", [a, b, n], None, name)


linspace = lin_space

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

# --------------------------------------------------------------------------------------
# sort, argsort: TF builds them on top_k along the last axis
# --------------------------------------------------------------------------------------


def _sort_or_argsort(values, axis, direction, return_argsort, name, default):
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError('Unknown direction: %s (use "ASCENDING" or "DESCENDING")' % direction)
    with op_scope([values], name, default):
        x = convert_to_tensor(values, name="values")
        r = x.shape.ndims
        if r is None:
            raise ValueError("sort needs a tensor of known rank, got shape %s" % x.shape)
        if not isinstance(axis, int) or not -r <= axis < r:
            raise ValueError("axis must be a constant int in [-%d, %d), got %r" % (r, r, axis))
        axis %= r
        perm = None
        if axis != r - 1:
            perm = list(range(r))
            perm[axis], perm[-1] = r - 1, axis
            x = array_ops.transpose(x, perm)
        k = x.shape[-1] if x.shape[-1] is not None else array_ops.shape(x)[-1]
        if direction == "ASCENDING":
            vals, idx = top_k(-x, k)
            vals = -vals
        else:
            vals, idx = top_k(x, k)
        out = idx if return_argsort else vals
        if perm is not None:
            out = array_ops.transpose(out, perm)
        return out


def sort(
    values: TensorLike, axis: int = -1, direction: str = "ASCENDING", name: str | None = None
) -> Tensor:
    """``values`` sorted along ``axis``.

    Args:
      values: a numeric tensor of known rank.
      axis: the axis to sort (a Python int).
      direction: ``"ASCENDING"`` or ``"DESCENDING"``.
      name: the name scope (default ``sort``).
    """
    return _sort_or_argsort(values, axis, direction, False, name, "sort")


def argsort(
    values: TensorLike,
    axis: int = -1,
    direction: str = "ASCENDING",
    stable: bool = False,
    name: str | None = None,
) -> Tensor:
    """The int32 indices that sort ``values`` along ``axis`` (ties in index order).

    Args:
      values: a numeric tensor of known rank.
      axis: the axis to sort (a Python int).
      direction: ``"ASCENDING"`` or ``"DESCENDING"``.
      stable: kept for TF's signature; the order of ties is always by index.
      name: the name scope (default ``argsort``).
    """
    return _sort_or_argsort(values, axis, direction, True, name, "argsort")


def is_tensor(x: Any) -> bool:
    """Whether ``x`` is a graph tensor (a ``Tensor``, ``Variable``, ``SparseTensor`` or
    ``IndexedSlices``) rather than a Python or NumPy value.

    Args:
      x: any object.
    """
    from ..variables import Variable  # variables builds on the ops package
    from .indexed_slices import IndexedSlices
    from .sparse_ops import SparseTensor

    return isinstance(x, (Tensor, Variable, SparseTensor, IndexedSlices))
