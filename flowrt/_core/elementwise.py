"""Elementwise kernels: numpy for small arrays, numexpr (multi-threaded, no
temporaries) from a measured size on.

The crossover is measured by ``benchmarks/elementwise.py`` and documented in
``docs/fusion.md``; results are identical in dtype to the numpy path because
numexpr is used only where its type rules agree with numpy's (float32/float64 inputs
of one dtype).
"""

from __future__ import annotations

import numexpr as ne
import numpy as np

# Below this many elements numpy beats numexpr for one op: numpy 2's SIMD loops against
# numexpr's setup, thread hand-off and (without VML) scalar libm calls. Measured on the
# 2-core host: numexpr/numpy time 0.03x..0.43x up to 2**20 elements, ~1.3x at 2**22
# (benchmarks/elementwise.py, docs/fusion.md).
NUMEXPR_MIN_SIZE = 1 << 22

_NE_KINDS = (np.dtype(np.float32), np.dtype(np.float64))


def use_numexpr(*arrays) -> bool:
    """True when every operand is a float32/float64 array of one dtype and the
    largest has at least NUMEXPR_MIN_SIZE elements."""
    big = False
    dt = None
    for a in arrays:
        d = getattr(a, "dtype", None)
        if d not in _NE_KINDS or (dt is not None and d != dt):
            return False
        dt = d
        if a.size >= NUMEXPR_MIN_SIZE:
            big = True
    return big


def unary_kernel(np_fn, ne_expr: str | None):
    """A kernel ``(ctx, op, x) -> (y,)`` running numexpr on large float inputs."""
    if ne_expr is None:
        return lambda ctx, op, x: (np_fn(x),)

    def kernel(ctx, op, x):
        if x.size >= NUMEXPR_MIN_SIZE and x.dtype in _NE_KINDS:
            return (ne.evaluate(ne_expr, local_dict={"x": x}),)
        return (np_fn(x),)

    return kernel


def binary_kernel(np_fn, ne_expr: str | None):
    """A kernel ``(ctx, op, x, y) -> (z,)`` running numexpr on large float inputs."""
    if ne_expr is None:
        return lambda ctx, op, x, y: (np_fn(x, y),)

    def kernel(ctx, op, x, y):
        if (x.size >= NUMEXPR_MIN_SIZE or y.size >= NUMEXPR_MIN_SIZE) and use_numexpr(x, y):
            return (ne.evaluate(ne_expr, local_dict={"x": x, "y": y}),)
        return (np_fn(x, y),)

    return kernel
