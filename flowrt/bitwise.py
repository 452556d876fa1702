"""``fr.bitwise``: TF1's ``tf.bitwise`` namespace. Definitions live in
``flowrt/ops/bitwise_ops.py``; this module only re-exports."""

from .ops.bitwise_ops import (
    bitwise_and,
    bitwise_or,
    bitwise_xor,
    invert,
    left_shift,
    right_shift,
)

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift", "right_shift"]
