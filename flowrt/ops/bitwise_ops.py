"""``tf.bitwise``: elementwise and, or, xor, invert and shifts of integer tensors.

Each op type is one table row (type, numpy kernel), built with the elementwise families
of ``math_ops``. As TF, a shift amount is clamped to ``[0, bits - 1]`` (so ``x << 8`` on
int8 is ``x << 7``) and shifts wrap around; none of these ops has a gradient (TF's
``NotDifferentiable``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .._core.elementwise import binary_kernel, unary_kernel
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from .common import INTS
from .math_ops import BinaryOp, UnaryOp, binary_fn, binary_infer, unary_fn, unary_infer

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift", "right_shift"]


def _clamped(shift: np.ndarray, x: np.ndarray) -> np.ndarray:
    return np.clip(shift, 0, x.dtype.itemsize * 8 - 1).astype(shift.dtype, copy=False)


def _left_shift(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.left_shift(x, _clamped(y, x))


def _right_shift(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.right_shift(x, _clamped(y, x))  # arithmetic for signed types, as TF


_BITWISE: list[tuple[str, Callable[..., np.ndarray]]] = [
    ("BitwiseAnd", np.bitwise_and),
    ("BitwiseOr", np.bitwise_or),
    ("BitwiseXor", np.bitwise_xor),
    ("LeftShift", _left_shift),
    ("RightShift", _right_shift),
]
for _t, _np_fn in _BITWISE:
    register_op(_t, infer=binary_infer(INTS), kernel=binary_kernel(_np_fn), grad=NOT_DIFFERENTIABLE)
register_op(
    "Invert", infer=unary_infer(INTS), kernel=unary_kernel(np.invert), grad=NOT_DIFFERENTIABLE
)

bitwise_and: BinaryOp = binary_fn("BitwiseAnd", "bitwise_and")
bitwise_or: BinaryOp = binary_fn("BitwiseOr", "bitwise_or")
bitwise_xor: BinaryOp = binary_fn("BitwiseXor", "bitwise_xor")
left_shift: BinaryOp = binary_fn("LeftShift", "left_shift")
right_shift: BinaryOp = binary_fn("RightShift", "right_shift")
invert: UnaryOp = unary_fn("Invert", "invert")
for _fn in (bitwise_and, bitwise_or, bitwise_xor, left_shift, right_shift, invert):
    _fn.__module__ = __name__
left_shift.__doc__ = (
    "Elementwise ``x << y`` of integer tensors, ``y`` clamped to ``[0, bits - 1]``, "
    "wrapping around (op type LeftShift)."
)
right_shift.__doc__ = (
    "Elementwise ``x >> y`` of integer tensors (arithmetic for signed types), ``y`` "
    "clamped to ``[0, bits - 1]`` (op type RightShift)."
)
invert.__doc__ = "Elementwise bitwise not of an integer tensor (op type Invert)."
