"""Compiled loops of the sliding-window ops, NHWC.

Each loop covers the images ``[n0, n1)`` of a batch so that a kernel can hand
disjoint slices of one batch to several threads (``_core/blas.run_blocks``); all run
without the GIL (``_core/jit.compiled``). Padding is never materialized: a window
position outside the input reads as zero.

* ``im2col`` / ``col2im``: the ``[rows, KH*KW*C]`` patch matrix of some images (row
  ``(b, oy, ox)``, column ``(i, j, c)``), and the scatter-add of such a matrix back
  into the input positions it was read from; a convolution and its two backprops are
  one sgemm each on top (``conv_ops``).
"""

from __future__ import annotations

import numpy as np

from .._core.jit import compiled, warm_up

__all__ = ["im2col", "col2im"]


@compiled
def im2col(x, n0, n1, kh, kw, sh, sw, dh, dw, pt, pl, oh, ow, cols):
    """Fills ``cols[(b - n0) * OH * OW + oy * OW + ox, (i * KW + j) * C + c]`` with
    ``x[b, oy*sh - pt + i*dh, ox*sw - pl + j*dw, c]`` (zero outside ``x``)."""
    h, w, c = x.shape[1], x.shape[2], x.shape[3]
    r = 0
    for b in range(n0, n1):
        for oy in range(oh):
            for ox in range(ow):
                k = 0
                for i in range(kh):
                    iy = oy * sh - pt + i * dh
                    for j in range(kw):
                        ix = ox * sw - pl + j * dw
                        if 0 <= iy < h and 0 <= ix < w:
                            for ch in range(c):
                                cols[r, k + ch] = x[b, iy, ix, ch]
                        else:
                            for ch in range(c):
                                cols[r, k + ch] = 0
                        k += c
                r += 1


@compiled
def col2im(cols, n0, n1, kh, kw, sh, sw, dh, dw, pt, pl, oh, ow, dx):
    """The transpose of ``im2col``: zeroes ``dx[n0:n1]`` and adds each element of
    ``cols`` into the input position ``im2col`` read it from."""
    h, w, c = dx.shape[1], dx.shape[2], dx.shape[3]
    for b in range(n0, n1):
        dx[b] = 0
    r = 0
    for b in range(n0, n1):
        for oy in range(oh):
            for ox in range(ow):
                k = 0
                for i in range(kh):
                    iy = oy * sh - pt + i * dh
                    for j in range(kw):
                        ix = ox * sw - pl + j * dw
                        if 0 <= iy < h and 0 <= ix < w:
                            for ch in range(c):
                                dx[b, iy, ix, ch] += cols[r, k + ch]
                        k += c
                r += 1


def _warm_job() -> None:
    for dt in (np.float32, np.float64):
        x = np.zeros((1, 2, 2, 1), dt)
        cols = np.zeros((4, 1), dt)
        im2col(x, 0, 1, 1, 1, 1, 1, 1, 1, 0, 0, 2, 2, cols)
        col2im(cols, 0, 1, 1, 1, 1, 1, 1, 1, 0, 0, 2, 2, x)


def warm() -> None:
    """Compiles (or loads) these loops for float32/64 on the warm-up thread."""
    warm_up(_warm_job, "window_kernels")
