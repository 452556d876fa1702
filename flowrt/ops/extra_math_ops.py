"""More of TF1's math surface: hyperbolic and inverse trigonometric functions, ``expm1``,
``softsign``, ``rint``, the ``is_nan``/``is_inf``/``is_finite`` tests, truncating integer
division, ``atan2``, ``nextafter``, the cumulative ``cumsum``/``cumprod``/
``cumulative_logsumexp`` scans, ``reduce_logsumexp`` and ``reduce_euclidean_norm``.

Each op type is one table row (type, dtypes, numpy kernel, gradient), built with the
elementwise families of ``math_ops``; gradients are TF's (``math_grad.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .. import dtypes as _dt
from .._core.elementwise import binary_kernel, unary_kernel
from .._core.graph import Tensor, convert_to_tensor
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from . import array_ops, math_ops, slicing_ops
from .common import (
    COMPLEX,
    FLOATS,
    INTS,
    NUMERIC,
    check_dtype,
    in_graph_of,
    int_list,
    op_scope,
    reduce_args,
)
from .math_ops import (
    BinaryOp,
    UnaryOp,
    binary_fn,
    binary_grad,
    binary_infer,
    op_input,
    op_output,
    scoped_op,
    unary_fn,
    unary_infer,
)
from .nn_ops import relu, softplus

if TYPE_CHECKING:
    from .._core.typing import AxisLike, TensorLike

__all__ = [
    "sinh",
    "cosh",
    "tan",
    "asin",
    "acos",
    "atan",
    "asinh",
    "acosh",
    "atanh",
    "expm1",
    "rint",
    "is_nan",
    "is_inf",
    "is_finite",
    "truncatediv",
    "truncatemod",
    "atan2",
    "cumsum",
    "cumprod",
    "reduce_logsumexp",
    "count_nonzero",
    "log_sigmoid",
]

# --------------------------------------------------------------------------------------
# Unary elementwise: type, allowed dtypes, output dtype (None: the input's), numpy
# kernel, gradient(op, g) -> [dx]
# --------------------------------------------------------------------------------------

_BOOL_OUT = _dt.bool


def _one_minus_x2(op):
    return 1.0 - math_ops.square(op_input(op))


def _softsign(x):
    return x / (1 + np.abs(x))


_UNARY: dict[str, tuple[Any, ...]] = {
    "Sinh": (FLOATS, None, np.sinh, lambda op, g: [g * cosh(op_input(op))]),
    "Cosh": (FLOATS, None, np.cosh, lambda op, g: [g * sinh(op_input(op))]),
    "Tan": (
        FLOATS,
        None,
        np.tan,
        lambda op, g: [g * math_ops.square(math_ops.reciprocal(math_ops.cos(op_input(op))))],
    ),
    "Asin": (FLOATS, None, np.arcsin, lambda op, g: [g * math_ops.rsqrt(_one_minus_x2(op))]),
    "Acos": (FLOATS, None, np.arccos, lambda op, g: [-g * math_ops.rsqrt(_one_minus_x2(op))]),
    "Atan": (
        FLOATS,
        None,
        np.arctan,
        lambda op, g: [g * math_ops.reciprocal(1.0 + math_ops.square(op_input(op)))],
    ),
    "Asinh": (FLOATS, None, np.arcsinh, lambda op, g: [g / cosh(op_output(op))]),
    "Acosh": (FLOATS, None, np.arccosh, lambda op, g: [g / sinh(op_output(op))]),
    "Atanh": (FLOATS, None, np.arctanh, lambda op, g: [g * math_ops.reciprocal(_one_minus_x2(op))]),
    "Expm1": (FLOATS, None, np.expm1, lambda op, g: [g * math_ops.exp(op_input(op))]),
    "Softsign": (
        FLOATS,
        None,
        _softsign,
        lambda op, g: [g / math_ops.square(1.0 + math_ops.abs(op_input(op)))],
    ),
    # TF: the gradient of Rint is zero (math_grad.py returns None).
    "Rint": (FLOATS, None, np.rint, NOT_DIFFERENTIABLE),
    "IsNan": (FLOATS, _BOOL_OUT, np.isnan, NOT_DIFFERENTIABLE),
    "IsInf": (FLOATS, _BOOL_OUT, np.isinf, NOT_DIFFERENTIABLE),
    "IsFinite": (FLOATS, _BOOL_OUT, np.isfinite, NOT_DIFFERENTIABLE),
}

for _t, (_allowed, _out, _np_fn, _grad) in _UNARY.items():
    register_op(
        _t,
        infer=unary_infer(_allowed, _out),
        kernel=unary_kernel(_np_fn),
        grad=_grad,
        ufunc=None if _out is not None or _t == "Softsign" else _np_fn,
    )

sinh: UnaryOp = unary_fn("Sinh", "sinh")
cosh: UnaryOp = unary_fn("Cosh", "cosh")
tan: UnaryOp = unary_fn("Tan", "tan")
asin: UnaryOp = unary_fn("Asin", "asin")
acos: UnaryOp = unary_fn("Acos", "acos")
atan: UnaryOp = unary_fn("Atan", "atan")
asinh: UnaryOp = unary_fn("Asinh", "asinh")
acosh: UnaryOp = unary_fn("Acosh", "acosh")
atanh: UnaryOp = unary_fn("Atanh", "atanh")
expm1: UnaryOp = unary_fn("Expm1", "expm1")
rint: UnaryOp = unary_fn("Rint", "rint")
is_nan: UnaryOp = unary_fn("IsNan", "is_nan")
is_inf: UnaryOp = unary_fn("IsInf", "is_inf")
is_finite: UnaryOp = unary_fn("IsFinite", "is_finite")
softsign: UnaryOp = unary_fn("Softsign", "softsign")  # fr.nn.softsign, fr.nn.swish, fr.nn.crelu
for _fn in (sinh, cosh, tan, asin, acos, atan, asinh, acosh, atanh, expm1, rint, is_nan):
    _fn.__module__ = __name__  # defined here (the docs' inspection follows __module__)
for _fn in (is_inf, is_finite, softsign):
    _fn.__module__ = __name__
rint.__doc__ = "Elementwise round to the nearest integer, halves to even (op type Rint)."
is_nan.__doc__ = "Elementwise ``x != x``: a bool tensor (op type IsNan)."

# --------------------------------------------------------------------------------------
# Binary elementwise
# --------------------------------------------------------------------------------------


def _truncatediv_kernel(ctx, op, x, y):
    math_ops.int_div_check(op, y)
    q = np.abs(x) // np.abs(y)  # C's x / y: rounds toward zero
    return (np.where((x < 0) != (y < 0), -q, q).astype(x.dtype, copy=False),)


def _truncatemod_kernel(ctx, op, x, y):
    if x.dtype.kind in "iu":
        math_ops.int_div_check(op, y)
    return (np.fmod(x, y),)


def _atan2_grad(op, g):
    y, x = op.inputs
    g_inv = g / (math_ops.square(y) + math_ops.square(x))
    return x * g_inv, -y * g_inv


register_op(
    "TruncateDiv",
    infer=binary_infer(INTS),
    kernel=_truncatediv_kernel,
    grad=NOT_DIFFERENTIABLE,  # TF's rule returns (None, None)
)
# TF registers no gradient for TruncateMod: fr.gradients raises LookupError, as TF does.
register_op("TruncateMod", infer=binary_infer(NUMERIC), kernel=_truncatemod_kernel)
register_op(
    "Atan2",
    infer=binary_infer(FLOATS),
    kernel=binary_kernel(np.arctan2),
    grad=binary_grad(_atan2_grad),
)

register_op(
    "NextAfter",
    infer=binary_infer((_dt.float32, _dt.float64)),
    kernel=binary_kernel(np.nextafter),
    grad=binary_grad(lambda op, g: (g, array_ops.zeros_like(g))),  # TF's: 1 for x1, 0 for x2
)

truncatediv: BinaryOp = binary_fn("TruncateDiv", "truncatediv")
truncatediv.__doc__ = (
    "Integer ``x / y`` rounded toward zero, as C does (op type TruncateDiv); "
    "``fr.floordiv`` rounds toward negative infinity."
)
truncatemod: BinaryOp = binary_fn("TruncateMod", "truncatemod")
truncatemod.__doc__ = (
    "The remainder of ``truncatediv``: it takes the sign of ``x`` (op type TruncateMod)."
)


def atan2(y: TensorLike, x: TensorLike, name: str | None = None) -> Tensor:
    """Elementwise arctangent of ``y / x`` in the quadrant of ``(x, y)`` (op type Atan2).

    Args:
      y: the numerator (a float tensor).
      x: the denominator, of ``y``'s dtype; broadcast against ``y``.
      name: the op's name.
    """
    return _atan2(y, x, name=name)


_atan2 = binary_fn("Atan2", "atan2")
nextafter: BinaryOp = binary_fn("NextAfter", "nextafter")
nextafter.__doc__ = (
    "The next representable float after ``x1`` in the direction of ``x2`` (op type "
    "NextAfter; float32 and float64)."
)
truncatediv.__module__ = truncatemod.__module__ = nextafter.__module__ = __name__

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


# --------------------------------------------------------------------------------------
# reduce_logsumexp: TF's composite (math_ops.py), so its gradient is the composite's
# --------------------------------------------------------------------------------------


def reduce_logsumexp(
    input_tensor: TensorLike,
    axis: AxisLike = None,
    keepdims: bool | None = None,
    name: str | None = None,
    reduction_indices: AxisLike = None,
    keep_dims: bool | None = None,
) -> Tensor:
    """``log(reduce_sum(exp(input_tensor), axis))``, computed without overflow.

    The maximum along ``axis`` is subtracted before exponentiating and added back
    (ignored where it is infinite), exactly as TF builds it, so large inputs give finite
    results and the gradient is the softmax of the inputs.

    Args:
      input_tensor: a float tensor.
      axis: the axes to reduce (all if None); negative axes count from the end.
      keepdims: keep reduced axes with length 1.
      name: the name of the result (default ``ReduceLogSumExp``).
      reduction_indices: TF1's old name for ``axis``.
      keep_dims: TF1's old name for ``keepdims``.
    """
    axis, kd = reduce_args(axis, keepdims, reduction_indices, keep_dims)
    with op_scope([input_tensor], name, "ReduceLogSumExp") as scope:
        x = convert_to_tensor(input_tensor, name="input_tensor")
        raw_max = math_ops.reduce_max(x, axis=axis, keepdims=True)
        my_max = array_ops.stop_gradient(
            math_ops.where(is_finite(raw_max), raw_max, array_ops.zeros_like(raw_max))
        )
        result = math_ops.log(
            math_ops.reduce_sum(math_ops.exp(math_ops.subtract(x, my_max)), axis, keepdims=kd)
        )
        if not kd:
            my_max = array_ops.reshape(my_max, array_ops.shape(result))
        return math_ops.add(result, my_max, name=scope)


def _euclidean_norm_kernel(ctx, op, x, axis):
    ax = math_ops.reduction_axes(x, axis)
    sq = x * np.conj(x) if x.dtype.kind == "c" else np.square(x, dtype=np.float64)
    s = np.sum(sq, axis=ax, keepdims=op.attrs["keep_dims"])
    return (np.asarray(np.sqrt(s)).astype(x.dtype),)  # integers truncate, as TF's sqrt


def _euclidean_norm_grad(op, g):
    y = math_ops.kept_shape_grad(op, op.outputs[0])
    return [op.inputs[0] / (y / math_ops.kept_shape_grad(op, g)), None]


register_op(
    "EuclideanNorm",
    infer=math_ops.reduce_infer(NUMERIC + COMPLEX),
    kernel=_euclidean_norm_kernel,
    grad=_euclidean_norm_grad,
)
_euclidean_norm = math_ops.reduce_fn("EuclideanNorm", "reduce_euclidean_norm")


def reduce_euclidean_norm(
    input_tensor: TensorLike,
    axis: AxisLike = None,
    keepdims: bool = False,
    name: str | None = None,
) -> Tensor:
    """The square root of the sum of squares of ``input_tensor`` along ``axis`` (all
    axes if None): op type EuclideanNorm. Integer results are truncated, as in TF.

    Args:
      input_tensor: a numeric tensor.
      axis: the axes to reduce; negative axes count from the end.
      keepdims: keep reduced axes with length 1.
      name: the op's name (default ``EuclideanNorm``).
    """
    return _euclidean_norm(input_tensor, axis, keepdims, name)


def count_nonzero(
    input_tensor: TensorLike,
    axis: AxisLike = None,
    keepdims: bool | None = None,
    dtype: Any = _dt.int64,
    name: str | None = None,
    reduction_indices: AxisLike = None,
    keep_dims: bool | None = None,
) -> Tensor:
    """The number of nonzero elements of ``input_tensor`` along ``axis`` (all if None).

    Args:
      input_tensor: a numeric or bool tensor.
      axis: the axes to count along; negative axes count from the end.
      keepdims: keep reduced axes with length 1.
      dtype: the dtype of the counts (int64, as TF).
      name: the name scope (default ``count_nonzero``).
      reduction_indices: TF1's old name for ``axis``.
      keep_dims: TF1's old name for ``keepdims``.
    """
    axis, kd = reduce_args(axis, keepdims, reduction_indices, keep_dims)
    with op_scope([input_tensor], name, "count_nonzero"):
        x = convert_to_tensor(input_tensor, name="input")
        zero = array_ops.zeros([], dtype=x.dtype)
        nonzero = math_ops.cast(math_ops.not_equal(x, zero), _dt.int64)
        return math_ops.cast(math_ops.reduce_sum(nonzero, axis, keepdims=kd), dtype=dtype)


def log_sigmoid(x: TensorLike, name: str | None = None) -> Tensor:
    """``log(sigmoid(x))``, computed as ``-softplus(-x)`` so it is finite for large ``-x``.

    Args:
      x: a float tensor.
      name: the name scope (default ``LogSigmoid``).
    """
    with op_scope([x], name, "LogSigmoid") as scope:
        x = convert_to_tensor(x, name="x")
        return math_ops.negative(softplus(-x), name=scope)


def reduce_variance(
    input_tensor: TensorLike,
    axis: AxisLike = None,
    keepdims: bool = False,
    name: str | None = None,
) -> Tensor:
    """The variance of ``input_tensor`` along ``axis`` (all if None): the mean squared
    deviation from the mean, divided by N (``fr.math.reduce_variance``).

    Args:
      input_tensor: a float tensor.
      axis: the axes to reduce; negative axes count from the end.
      keepdims: keep reduced axes with length 1.
      name: the name scope (default ``reduce_variance``).
    """
    with op_scope([input_tensor], name, "reduce_variance"):
        x = convert_to_tensor(input_tensor, name="input_tensor")
        means = math_ops.reduce_mean(x, axis, keepdims=True)
        squared_deviations = math_ops.square(math_ops.abs(math_ops.subtract(x, means)))
        return math_ops.reduce_mean(squared_deviations, axis, keepdims=keepdims)


def reduce_std(
    input_tensor: TensorLike,
    axis: AxisLike = None,
    keepdims: bool = False,
    name: str | None = None,
) -> Tensor:
    """The standard deviation of ``input_tensor`` along ``axis``: the square root of
    ``reduce_variance`` (``fr.math.reduce_std``).

    Args:
      input_tensor: a float tensor.
      axis: the axes to reduce; negative axes count from the end.
      keepdims: keep reduced axes with length 1.
      name: the name scope (default ``reduce_std``).
    """
    with op_scope([input_tensor], name, "reduce_std"):
        return math_ops.sqrt(reduce_variance(input_tensor, axis, keepdims))


def swish(features: TensorLike, name: str | None = None) -> Tensor:
    """``features * sigmoid(features)`` (SiLU), as ``fr.nn.swish``.

    Args:
      features: a float tensor.
      name: the name scope (default ``swish``).
    """
    with op_scope([features], name, "swish"):
        x = convert_to_tensor(features, name="features")
        return x * math_ops.sigmoid(x)


def crelu(features: TensorLike, name: str | None = None, axis: int = -1) -> Tensor:
    """``relu`` of ``features`` and of ``-features``, concatenated along ``axis``: the
    result has twice the depth (``fr.nn.crelu``).

    Args:
      features: a float tensor.
      name: the name scope (default ``CRelu``).
      axis: the axis to concatenate along.
    """
    with op_scope([features], name, "CRelu") as scope:
        x = convert_to_tensor(features, name="features")
        c = slicing_ops.concat([x, -x], axis, name=scope)
        return relu(c)
