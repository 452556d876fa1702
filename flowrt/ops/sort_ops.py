"""Sorting and distinct values: ``sort``/``argsort`` (built on ``top_k`` along the last
axis, as TF builds them) and ``unique``/``unique_with_counts`` (op types Unique,
UniqueWithCounts: values in order of first occurrence).
"""

from __future__ import annotations

import collections
from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes as _dt
from .._core.graph import Tensor, convert_to_tensor
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from .._core.shape import unknown_shape
from . import array_ops
from .common import make_op, op_scope
from .topk_ops import top_k

if TYPE_CHECKING:
    from .._core.typing import DTypeLike, TensorLike

__all__ = [
    "unique",
    "unique_with_counts",
    "sort",
    "argsort",
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
