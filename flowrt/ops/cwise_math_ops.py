"""Elementwise math beyond ``math_ops``' core: hyperbolic and inverse trigonometric
functions, ``expm1``, ``softsign``, ``rint``, the ``is_nan``/``is_inf``/``is_finite``
tests, truncating integer division (``truncatediv``, ``truncatemod``), ``atan2`` and
``nextafter``.

Each op type is one table row (type, dtypes, numpy kernel, gradient), built with the
elementwise families of ``math_ops``; gradients are TF's (``math_grad.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .. import dtypes as _dt
from .._core.elementwise import binary_kernel, unary_kernel
from .._core.graph import Tensor
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from . import array_ops, math_ops
from .common import FLOATS, INTS, NUMERIC
from .math_ops import (
    BinaryOp,
    UnaryOp,
    binary_fn,
    binary_grad,
    binary_infer,
    op_input,
    op_output,
    unary_fn,
    unary_infer,
)

if TYPE_CHECKING:
    from .._core.typing import TensorLike

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
