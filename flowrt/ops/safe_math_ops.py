"""Elementwise products and quotients that are 0 where a factor is 0, however large or
undefined the other factor: ``xlogy``, ``xdivy``, ``xlog1py``, ``multiply_no_nan`` and
``reciprocal_no_nan``; and ``polyval``, Horner's rule built from ``add`` and ``multiply``.

Each op type is one table row (type, numpy kernel, gradient); the gradients are TF's
(``math_grad.py``), written in the broadcast shape and summed back by ``binary_grad``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .._core.elementwise import binary_kernel
from .._core.graph import Tensor, convert_to_tensor
from .._core.registry import register_op
from . import array_ops, math_ops
from .common import COMPLEX, FLOATS, op_scope
from .math_ops import BinaryOp, binary_fn, binary_grad, binary_infer

if TYPE_CHECKING:
    from .._core.typing import TensorLike

__all__ = [
    "xlogy",
    "xdivy",
    "xlog1py",
    "multiply_no_nan",
    "reciprocal_no_nan",
    "polyval",
]


def _zero_where(cond, value):
    return np.where(cond, np.zeros((), value.dtype), value)


def _xlogy(x, y):
    return _zero_where(x == 0, x * np.log(y))


def _xdivy(x, y):
    return _zero_where(x == 0, x / y)


def _xlog1py(x, y):
    return _zero_where(x == 0, x * np.log1p(y))


def _mul_no_nan(x, y):
    return _zero_where(y == 0, x * y)


def _nonzero(x):
    return math_ops.cast(math_ops.not_equal(x, array_ops.zeros_like(x)), x.dtype)


def _xlogy_grad(op, g):
    x, y = op.inputs
    return _xlogy_op(_nonzero(x), y) * g, _xdivy_op(x, y) * g


def _xdivy_grad(op, g):
    x, y = op.inputs
    return _xdivy_op(_nonzero(x), y) * g, _xdivy_op(-x, y * y) * g


def _xlog1py_grad(op, g):
    x, y = op.inputs
    return _xlog1py_op(_nonzero(x), y) * g, _xdivy_op(x, y + 1) * g


def _mul_no_nan_grad(op, g):
    x, y = op.inputs
    return _mul_no_nan_op(g, y), _mul_no_nan_op(x, g)


_FC = FLOATS + COMPLEX

# type, numpy kernel, gradient in the broadcast shape (op, g) -> (gx, gy)
_BINARY: list[tuple[Any, ...]] = [
    ("Xlogy", _xlogy, _xlogy_grad),
    ("Xdivy", _xdivy, _xdivy_grad),
    ("Xlog1py", _xlog1py, _xlog1py_grad),
    ("MulNoNan", _mul_no_nan, _mul_no_nan_grad),
]
for _t, _np_fn, _grad in _BINARY:
    register_op(_t, infer=binary_infer(_FC), kernel=binary_kernel(_np_fn), grad=binary_grad(_grad))

_xlogy_op: BinaryOp = binary_fn("Xlogy", "xlogy")
_xdivy_op: BinaryOp = binary_fn("Xdivy", "xdivy")
_xlog1py_op: BinaryOp = binary_fn("Xlog1py", "xlog1py")
_mul_no_nan_op: BinaryOp = binary_fn("MulNoNan", "multiply_no_nan")


def xlogy(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """``x * log(y)``, and 0 where ``x`` is 0 (even where ``y`` is 0): op type Xlogy.

    Args:
      x: a float or complex tensor.
      y: a tensor of ``x``'s dtype, broadcast against ``x``.
      name: the op's name (default ``Xlogy``).
    """
    return _xlogy_op(x, y, name=name)


def xdivy(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """``x / y``, and 0 where ``x`` is 0 (even where ``y`` is 0): op type Xdivy.

    Args:
      x: a float or complex tensor.
      y: a tensor of ``x``'s dtype, broadcast against ``x``.
      name: the name scope (default ``xdivy``).
    """
    with op_scope([x, y], name, "xdivy"):
        return _xdivy_op(x, y)


def xlog1py(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """``x * log1p(y)``, and 0 where ``x`` is 0 (even where ``y`` is -1): op type Xlog1py.

    Args:
      x: a float or complex tensor.
      y: a tensor of ``x``'s dtype, broadcast against ``x``.
      name: the name scope (default ``xlog1py``).
    """
    with op_scope([x, y], name, "xlog1py"):
        return _xlog1py_op(x, y)


def multiply_no_nan(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """``x * y``, and 0 where ``y`` is 0 (even where ``x`` is inf or NaN): op type MulNoNan.

    Args:
      x: a float or complex tensor.
      y: a tensor of ``x``'s dtype, broadcast against ``x``.
      name: the op's name (default ``multiply_no_nan``).
    """
    with op_scope([x, y], name, "multiply_no_nan") as scope:
        return _mul_no_nan_op(x, y, name=scope)


def reciprocal_no_nan(x: TensorLike, name: str | None = None) -> Tensor:
    """``1 / x``, and 0 where ``x`` is 0: ``div_no_nan(1, x)`` (op type DivNoNan).

    Args:
      x: a float or complex tensor.
      name: the op's name (default ``reciprocal_no_nan``).
    """
    with op_scope([x], name, "reciprocal_no_nan") as scope:
        x = convert_to_tensor(x, name="x")
        one = convert_to_tensor(1, dtype=x.dtype, name="one")
        return math_ops.div_no_nan(one, x, name=scope)


def polyval(coeffs: list[Any], x: TensorLike, name: str | None = None) -> Tensor:
    """The polynomial ``coeffs[0] * x**(n-1) + ... + coeffs[n-1]`` at ``x``, by Horner's
    rule (``p = c + p * x``); zeros like ``x`` when ``coeffs`` is empty.

    Args:
      coeffs: a list of tensors broadcastable against ``x``, highest degree first.
      x: the points to evaluate at.
      name: the name scope (default ``polyval``).
    """
    if not isinstance(coeffs, (list, tuple)):
        raise ValueError(
            "Argument coeffs must be a list of tensors or numbers, got %r; pass "
            "[c0, c1, ...] (highest degree first)." % (coeffs,)
        )
    with op_scope(list(coeffs) + [x], name, "polyval") as scope:
        x = convert_to_tensor(x, name="x")
        if not coeffs:
            return array_ops.zeros_like(x, name=scope)
        cs = [convert_to_tensor(c, name="coeff_%d" % i) for i, c in enumerate(coeffs)]
        p = cs[0]
        for c in cs[1:]:
            p = c + p * x
        return p
