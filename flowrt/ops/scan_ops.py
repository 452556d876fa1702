"""The cumulative scans along one axis: ``cumsum``, ``cumprod`` and
``cumulative_logsumexp`` (op types Cumsum, Cumprod, CumulativeLogsumexp), exclusive
and reversed as TF's attributes ask.

Each op type is one table row (type, dtypes, numpy scan, identity, gradient); the
gradients are TF's (``math_grad.py``): a scan of the gradient the other way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .. import dtypes as _dt
from .._core.graph import Tensor, convert_to_tensor
from .._core.registry import register_op
from . import array_ops, math_ops
from .common import FLOATS, NUMERIC, check_dtype, in_graph_of, int_list
from .math_ops import scoped_op

if TYPE_CHECKING:
    from .._core.typing import TensorLike

__all__ = [
    "cumsum",
    "cumprod",
]


# --------------------------------------------------------------------------------------
# Cumulative scans
# --------------------------------------------------------------------------------------


def _scan_infer(allowed):
    return lambda op: _check_scan(op, allowed)


def _check_scan(op, allowed):
    x, axis = op.inputs
    check_dtype(x, allowed)
    check_dtype(axis, (_dt.int32, _dt.int64), "axis")
    if axis.shape.ndims not in (None, 0):
        raise ValueError("axis must be a scalar, got shape %s" % axis.shape)
    a = int_list(axis)
    r = x.shape.ndims
    if a is not None and r is not None and not -r <= a[0] < r:
        raise ValueError("axis %d is out of range for a tensor of rank %d" % (a[0], r))
    return [(x.dtype, x.shape)]


def _scan_kernel(np_scan, identity):
    def kernel(ctx, op, x, axis):
        ax = int(axis)
        if not -x.ndim <= ax < x.ndim:
            from .. import errors

            raise errors.InvalidArgumentError(
                None, op, "axis %d is out of range [-%d, %d)" % (ax, x.ndim, x.ndim)
            )
        v = np.flip(x, ax) if op.attrs["reverse"] else x
        out = np_scan(v, axis=ax, dtype=x.dtype)
        if op.attrs["exclusive"]:
            # shift by one along the axis, the first element being the identity
            out = np.concatenate(
                [np.full_like(np.take(out, [0], axis=ax), identity), np.delete(out, -1, ax)],
                axis=ax,
            )
        if op.attrs["reverse"]:
            out = np.flip(out, ax)
        return (np.ascontiguousarray(out),)

    return kernel


def _cumsum_grad(op, g):
    return [
        cumsum(g, op.inputs[1], op.attrs["exclusive"], not op.attrs["reverse"]),
        None,
    ]


def _cumprod_grad(op, g):
    x, axis = op.inputs
    ex, rev = op.attrs["exclusive"], op.attrs["reverse"]
    prod = cumprod(x, axis, ex, rev)
    out = cumsum(prod * g, axis, ex, not rev)
    return [math_ops.div_no_nan(out, x), None]


def _cumulative_logsumexp_grad(op, g):
    # TF's rule: the positive and negative parts of g in log space, each through a
    # reversed cumulative_logsumexp, so nothing overflows.
    x, axis = op.inputs
    ex, rev = op.attrs["exclusive"], op.attrs["reverse"]
    lowest = array_ops.fill(array_ops.shape(g), np.finfo(g.dtype.np).min)
    lowest = math_ops.cast(lowest, g.dtype)
    zeros = array_ops.zeros_like(g)
    log_pos = math_ops.where(math_ops.greater(g, zeros), math_ops.log(g), lowest)
    log_neg = math_ops.where(math_ops.less(g, zeros), math_ops.log(-g), lowest)
    y = op.outputs[0]
    pos = math_ops.exp(cumulative_logsumexp(log_pos - y, axis, ex, not rev) + x)
    neg = math_ops.exp(cumulative_logsumexp(log_neg - y, axis, ex, not rev) + x)
    return [pos - neg, None]


def _logaddexp_scan(v, axis, dtype):
    return np.logaddexp.accumulate(v, axis=axis, dtype=dtype)


# type, allowed dtypes, numpy scan, identity (the exclusive first element), gradient
_SCANS: list[tuple[Any, ...]] = [
    ("Cumsum", NUMERIC, np.cumsum, 0, _cumsum_grad),
    ("Cumprod", NUMERIC, np.cumprod, 1, _cumprod_grad),
    ("CumulativeLogsumexp", FLOATS, _logaddexp_scan, -np.inf, _cumulative_logsumexp_grad),
]

for _t, _allowed, _np_scan, _identity, _grad in _SCANS:
    register_op(
        _t, infer=_scan_infer(_allowed), kernel=_scan_kernel(_np_scan, _identity), grad=_grad
    )


def _scan_fn(op_type, x, axis, exclusive, reverse, name):
    with in_graph_of([x, axis]):
        return scoped_op(
            op_type,
            name,
            op_type,
            lambda: [
                convert_to_tensor(x, name="x"),
                axis if isinstance(axis, Tensor) else convert_to_tensor(axis, _dt.int32, "axis"),
            ],
            {"exclusive": bool(exclusive), "reverse": bool(reverse)},
            operands=(x, axis),
        )


def cumsum(
    x: TensorLike,
    axis: TensorLike = 0,
    exclusive: bool = False,
    reverse: bool = False,
    name: str | None = None,
) -> Tensor:
    """Cumulative sum of ``x`` along ``axis`` (op type Cumsum).

    ``cumsum([a, b, c])`` is ``[a, a + b, a + b + c]``; ``exclusive=True`` gives
    ``[0, a, a + b]`` and ``reverse=True`` sums from the end: ``[a + b + c, b + c, c]``.

    Args:
      x: a numeric tensor.
      axis: the axis to scan (a scalar int32/int64; negative counts from the end).
      exclusive: leave each element out of its own sum.
      reverse: scan from the last element to the first.
      name: the op's name.
    """
    return _scan_fn("Cumsum", x, axis, exclusive, reverse, name)


def cumprod(
    x: TensorLike,
    axis: TensorLike = 0,
    exclusive: bool = False,
    reverse: bool = False,
    name: str | None = None,
) -> Tensor:
    """Cumulative product of ``x`` along ``axis`` (op type Cumprod).

    ``cumprod([a, b, c])`` is ``[a, a * b, a * b * c]``; ``exclusive`` and ``reverse``
    work as in ``fr.cumsum`` (the exclusive first element is 1).

    Args:
      x: a numeric tensor.
      axis: the axis to scan (a scalar int32/int64; negative counts from the end).
      exclusive: leave each element out of its own product.
      reverse: scan from the last element to the first.
      name: the op's name.
    """
    return _scan_fn("Cumprod", x, axis, exclusive, reverse, name)


def cumulative_logsumexp(
    x: TensorLike,
    axis: TensorLike = 0,
    exclusive: bool = False,
    reverse: bool = False,
    name: str | None = None,
) -> Tensor:
    """Cumulative ``log(sum(exp(x)))`` along ``axis``, without overflow (op type
    CumulativeLogsumexp): ``[a, log(e**a + e**b), ...]``.

    ``exclusive`` and ``reverse`` work as in ``fr.cumsum`` (the exclusive first element
    is ``-inf``).

    Args:
      x: a float tensor.
      axis: the axis to scan (a scalar int32/int64; negative counts from the end).
      exclusive: leave each element out of its own sum.
      reverse: scan from the last element to the first.
      name: the op's name.
    """
    return _scan_fn("CumulativeLogsumexp", x, axis, exclusive, reverse, name)
