"""Compiled loops of the sliding-window ops (convolution, pooling, LRN), NHWC.

Each loop covers the images ``[n0, n1)`` of a batch so that a kernel can hand
disjoint slices of one batch to several threads (``_core/blas.run_blocks``); all run
without the GIL (``_core/jit.compiled``). Padding is never materialized: a window
position outside the input reads as zero (convolution) or is skipped (pooling).

* ``im2col`` / ``col2im``: the ``[rows, KH*KW*C]`` patch matrix of some images (row
  ``(b, oy, ox)``, column ``(i, j, c)``), and the scatter-add of such a matrix back
  into the input positions it was read from; a convolution and its two backprops are
  one sgemm each on top (``conv_ops``).
* ``max_pool`` and ``max_pool_route``: a window's maximum (NaN wins, as
  ``np.maximum``), and the routing of a gradient through the first tap equal to it in
  row-major order (TF's CPU routing of a max pool's gradient), found again from the
  forward op's input and output (``MaxPoolGrad`` has TF's inputs, not an argmax).
* ``lrn`` / ``lrn_grad``: one pass per pixel over the depth axis with running window
  sums in float64.
"""

from __future__ import annotations

import math

import numpy as np

from .._core.jit import compiled, inlined, warm_up

__all__ = ["im2col", "col2im", "max_pool", "max_pool_route", "lrn", "lrn_grad"]


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


@compiled
def max_pool(x, n0, n1, kh, kw, sh, sw, pt, pl, low, out):
    """``out[b, oy, ox, c]``: the maximum of the window's real taps (``low`` when it
    has none); a NaN tap makes it NaN."""
    h, w, c = x.shape[1], x.shape[2], x.shape[3]
    oh, ow = out.shape[1], out.shape[2]
    for b in range(n0, n1):
        for oy in range(oh):
            for ox in range(ow):
                for ch in range(c):
                    out[b, oy, ox, ch] = low
                for i in range(kh):
                    iy = oy * sh - pt + i
                    if iy < 0 or iy >= h:
                        continue
                    for j in range(kw):
                        ix = ox * sw - pl + j
                        if ix < 0 or ix >= w:
                            continue
                        for ch in range(c):
                            v = x[b, iy, ix, ch]
                            m = out[b, oy, ox, ch]
                            if v > m or v != v:
                                if m == m:
                                    out[b, oy, ox, ch] = v


@compiled
def max_pool_route(x, y, src, n0, n1, kh, kw, sh, sw, pt, pl, low, dst, backward):
    """Routes through each window's first tap (row-major order, padding included as
    ``low``) equal to its maximum ``y``: with ``backward``, adds ``src[b, oy, ox]`` into
    ``dst[b, iy, ix]`` (``dst[n0:n1]`` zeroed first: a max pool's gradient); else sets
    ``dst[b, oy, ox] = src[b, iy, ix]`` (the gradient's gradient). A maximum first
    reached on padding, or on no tap (NaN), routes nothing (zero)."""
    h, w, c = x.shape[1], x.shape[2], x.shape[3]
    oh, ow = y.shape[1], y.shape[2]
    open_ = np.empty(c, np.bool_)
    if backward:
        for b in range(n0, n1):
            dst[b] = 0
    for b in range(n0, n1):
        for oy in range(oh):
            for ox in range(ow):
                left = c
                for ch in range(c):
                    open_[ch] = True
                    if not backward:
                        dst[b, oy, ox, ch] = 0
                for i in range(kh):
                    iy = oy * sh - pt + i
                    for j in range(kw):
                        ix = ox * sw - pl + j
                        real = 0 <= iy < h and 0 <= ix < w
                        for ch in range(c):
                            if not open_[ch]:
                                continue
                            m = y[b, oy, ox, ch]
                            if real:
                                if x[b, iy, ix, ch] != m:
                                    continue
                                if backward:
                                    dst[b, iy, ix, ch] += src[b, oy, ox, ch]
                                else:
                                    dst[b, oy, ox, ch] = src[b, iy, ix, ch]
                            elif low != m:
                                continue
                            open_[ch] = False
                            left -= 1
                        if left == 0:
                            break
                    if left == 0:
                        break


@inlined
def _pow_neg(v, beta):
    """``v ** -beta`` with the exponents LRN uses written as square roots."""
    if beta == 0.75:
        r = 1.0 / math.sqrt(v)
        return r * math.sqrt(r)
    if beta == 0.5:
        return 1.0 / math.sqrt(v)
    if beta == 1.0:
        return 1.0 / v
    return math.exp(-beta * math.log(v))


@compiled
def lrn(x, n0, n1, radius, bias, alpha, beta, out):
    """``out = x * (bias + alpha * sum(x[..., d-r : d+r+1] ** 2)) ** -beta`` for the
    pixels ``[n0, n1)`` of ``x`` seen as [pixels, depth]."""
    depth = x.shape[1]
    sq = np.empty(depth, np.float64)
    for p in range(n0, n1):
        for d in range(depth):
            v = np.float64(x[p, d])
            sq[d] = v * v
        s = 0.0
        for d in range(min(radius, depth)):
            s += sq[d]
        for d in range(depth):
            if d + radius < depth:
                s += sq[d + radius]
            if d - radius - 1 >= 0:
                s -= sq[d - radius - 1]
            out[p, d] = x[p, d] * _pow_neg(bias + alpha * s, beta)


@compiled
def lrn_grad(g, x, n0, n1, radius, bias, alpha, beta, dx):
    """LRN's gradient for the pixels ``[n0, n1)`` of ``[pixels, depth]`` arrays:
    ``dx_j = g_j n_j^-beta - 2 alpha beta x_j sum_{i near j} g_i x_i n_i^(-beta-1)``
    (the windows are symmetric, so the sum is a window sum at ``j``)."""
    depth = x.shape[1]
    sq = np.empty(depth, np.float64)
    pw = np.empty(depth, np.float64)
    t = np.empty(depth, np.float64)
    for p in range(n0, n1):
        for d in range(depth):
            v = np.float64(x[p, d])
            sq[d] = v * v
        s = 0.0
        for d in range(min(radius, depth)):
            s += sq[d]
        for d in range(depth):
            if d + radius < depth:
                s += sq[d + radius]
            if d - radius - 1 >= 0:
                s -= sq[d - radius - 1]
            n = bias + alpha * s
            pw[d] = _pow_neg(n, beta)
            t[d] = np.float64(g[p, d]) * x[p, d] * pw[d] / n
        s = 0.0
        for d in range(min(radius, depth)):
            s += t[d]
        k = 2.0 * alpha * beta
        for d in range(depth):
            if d + radius < depth:
                s += t[d + radius]
            if d - radius - 1 >= 0:
                s -= t[d - radius - 1]
            dx[p, d] = g[p, d] * pw[d] - k * x[p, d] * s


def _warm_job() -> None:
    for dt in (np.float32, np.float64):
        x = np.zeros((1, 2, 2, 1), dt)
        cols = np.zeros((4, 1), dt)
        im2col(x, 0, 1, 1, 1, 1, 1, 1, 1, 0, 0, 2, 2, cols)
        col2im(cols, 0, 1, 1, 1, 1, 1, 1, 1, 0, 0, 2, 2, x)
        y = np.zeros((1, 1, 1, 1), dt)
        max_pool(x, 0, 1, 2, 2, 2, 2, 0, 0, dt(-np.inf), y)
        for backward in (True, False):
            max_pool_route(x, y, y, 0, 1, 2, 2, 2, 2, 0, 0, dt(-np.inf), x, backward)
        p = x.reshape(4, 1)
        lrn(p, 0, 4, 1, 1.0, 1.0, 0.75, p)
        lrn_grad(p, p, 0, 4, 1, 1.0, 1.0, 0.75, p.copy())


def warm() -> None:
    """Compiles (or loads) these loops for float32/64 on the warm-up thread."""
    warm_up(_warm_job, "window_kernels")
