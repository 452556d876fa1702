"""``fr.math.special``: TF's ``tf.math.special`` names that flowrt has (the scaled and
unscaled modified Bessel functions of orders 0 and 1). Definitions live in
``flowrt/ops/special_math_ops.py``; this module only re-exports."""

from .ops.special_math_ops import bessel_i0, bessel_i0e, bessel_i1, bessel_i1e

__all__ = ["bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e"]
