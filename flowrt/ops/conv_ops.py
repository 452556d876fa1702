"""2-D convolution (``fr.nn.conv2d``) and its TF gradient ops, NHWC.

``Conv2D``, ``Conv2DBackpropInput`` and ``Conv2DBackpropFilter`` are one registration
each (infer, kernel, gradient), with TF's gradient wiring: the gradient of each of the
three is written with the other two, so second-order gradients and ``RegisterGradient``
overrides work as in TF1.

The three kernels share one scheme: the batch is cut into blocks of whole images
(``_Blocks``) whose patch matrix ``[rows, KH*KW*C]`` (``window_kernels.im2col``, padding
read as zeros, never copied) is about a megabyte, so it is still in cache when one
sgemm uses it: ``Conv2D`` multiplies it by the filter, ``Conv2DBackpropFilter`` adds
its transpose times the output gradient, ``Conv2DBackpropInput`` multiplies the output
gradient by the filter's transpose and adds the result back where the patches were read
(``window_kernels.col2im``). The blocks run on the kernel threads
(``blas.run_blocks``); ``benchmarks/models.py`` and ``benchmarks/conv.py`` measure them
against TF, ``docs/kernels.md`` has the figures.

The window geometry (``window_geometry``) and the padded views are shared with the
pooling ops (``pool_ops``).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np
from numpy.lib.stride_tricks import as_strided

from .. import dtypes as _dt
from .._core import blas
from .._core.graph import Tensor, convert_to_tensor, get_default_graph
from .._core.registry import register_op
from .._core.shape import TensorShape, unknown_shape
from . import array_ops, window_kernels
from .common import check_dtype, in_graph_of, int_list, make, shape_str

if TYPE_CHECKING:
    from .._core.typing import TensorLike

__all__ = [
    "conv2d",
    "conv2d_backprop_input",
    "conv2d_backprop_filter",
    "conv2d_transpose",
    "conv1d",
]

_CONV_DTYPES = (_dt.float16, _dt.float32, _dt.float64)
PADDINGS = ("SAME", "VALID")


# --------------------------------------------------------------------------------------
# Geometry shared with pooling
# --------------------------------------------------------------------------------------


def window_geometry(size, k, stride, dilation, padding, explicit=(0, 0)):
    """``(out, pad_before, pad_after)`` along one spatial axis, as TF computes it.

    ``size`` may be None (unknown); then ``out`` is None too. Raises ValueError when a
    VALID window does not fit (TF: "Negative dimension size caused by subtracting ...").
    """
    eff = (k - 1) * dilation + 1
    if size is None:
        return None, 0, 0
    if padding == "VALID":
        out = (size - eff + stride) // stride
        if size < eff:
            raise ValueError(
                "Negative dimension size caused by subtracting %d from %d "
                "(Computed output size would be negative: VALID window of "
                "effective size %d on an input of size %d)" % (eff, size, eff, size)
            )
        return out, 0, 0
    if padding == "SAME":
        out = (size + stride - 1) // stride
        total = max((out - 1) * stride + eff - size, 0)
        return out, total // 2, total - total // 2
    before, after = explicit
    out = (size + before + after - eff) // stride + 1
    if size + before + after < eff:
        raise ValueError(
            "Computed output size would be negative: %d [input_size: %d, "
            "effective_filter_size: %d, stride: %d]" % (out, size + before + after, eff, stride)
        )
    return out, before, after


def spatial_arg(value, what, fn, n=4):
    """TF's ``_get_sequence``: an int, or a list of 1, 2 or 4 ints -> a list of 4 (NHWC)."""
    if value is None:
        raise ValueError("%s: `%s` must be given" % (fn, what))
    if isinstance(value, Tensor):
        v = int_list(value)
        if v is None:
            raise ValueError("%s: `%s` must be known at graph construction" % (fn, what))
        value = v
    if isinstance(value, (int, np.integer)):
        return [1, int(value), int(value), 1]
    value = [int(v) for v in value]
    if len(value) == 1:
        return [1, value[0], value[0], 1]
    if len(value) == 2:
        return [1, value[0], value[1], 1]
    if len(value) == 4:
        return value
    raise ValueError("%s should be of length 1, 2 or 4 but was %d" % (what, len(value)))


def check_format(data_format, fn):
    """NHWC only; TF's CPU kernels reject NCHW for pooling and most convolutions too."""
    if data_format not in (None, "NHWC"):
        raise ValueError(
            "%s: data_format %r is not supported; flowrt's kernels are NHWC "
            "(transpose to NHWC first)" % (fn, data_format)
        )


def check_padding(padding, op_type, explicit_ok=False):
    """Returns ``(padding_string, explicit_paddings)`` for TF's ``padding`` argument;
    TF's ValueError for anything else (the strings are case-sensitive, as in TF)."""
    if isinstance(padding, str) and padding in PADDINGS:
        return padding, []
    if explicit_ok and isinstance(padding, (list, tuple)):
        pads = [[int(a), int(b)] for a, b in padding]
        if len(pads) != 4 or pads[0] != [0, 0] or pads[3] != [0, 0]:
            raise ValueError(
                "%s: explicit padding must be [[0, 0], [top, bottom], [left, "
                "right], [0, 0]], got %r" % (op_type, padding)
            )
        if any(p < 0 for pair in pads for p in pair):
            raise ValueError(
                "%s: explicit paddings must be non-negative, got %r" % (op_type, padding)
            )
        return "EXPLICIT", [p for pair in pads for p in pair]
    allowed = '"SAME", "VALID", "EXPLICIT"' if explicit_ok else '"SAME", "VALID"'
    raise ValueError(
        "Attr 'padding' of '%s' Op passed %s not in: %s."
        % (op_type, "string %r" % padding if isinstance(padding, str) else repr(padding), allowed)
    )


def geometry(h, w, op, kh, kw):
    """``((oh, pt, pb), (ow, pl, pr))`` for an op's strides/dilations/padding attrs."""
    a = op.attrs
    s, d = a["strides"], a.get("dilations", [1, 1, 1, 1])
    ex = a.get("explicit_paddings") or [0] * 8
    return (
        window_geometry(h, kh, s[1], d[1], a["padding"], (ex[2], ex[3])),
        window_geometry(w, kw, s[2], d[2], a["padding"], (ex[4], ex[5])),
    )


def pad_hw(x, geo, value=0):
    """``x`` [N, H, W, C] padded per ``geo`` (no copy when there is no padding)."""
    (_, pt, pb), (_, pl, pr) = geo
    if not (pt or pb or pl or pr):
        return x
    n, h, w, c = x.shape
    out = np.full((n, h + pt + pb, w + pl + pr, c), value, dtype=x.dtype)
    out[:, pt : pt + h, pl : pl + w] = x
    return out


def windows(xp, geo, kh, kw, strides, dilations):
    """A read-only ``[N, OH, OW, KH, KW, C]`` view of the windows of padded ``xp``."""
    (oh, _, _), (ow, _, _) = geo
    sn, sh, sw, sc = xp.strides
    return as_strided(
        xp,
        (xp.shape[0], oh, ow, kh, kw, xp.shape[3]),
        (sn, sh * strides[1], sw * strides[2], sh * dilations[1], sw * dilations[2], sc),
        writeable=False,
    )


def tap_slice(i, j, geo, strides, dilations):
    """The slice of the padded input read by filter tap ``(i, j)`` for every output."""
    (oh, _, _), (ow, _, _) = geo
    r0, c0 = i * dilations[1], j * dilations[2]
    return (
        slice(None),
        slice(r0, r0 + (oh - 1) * strides[1] + 1, strides[1]),
        slice(c0, c0 + (ow - 1) * strides[2] + 1, strides[2]),
    )


def crop(xp, geo, h, w):
    (_, pt, _), (_, pl, _) = geo
    return xp[:, pt : pt + h, pl : pl + w]


def check_attrs(op):
    """Construction-time checks of strides/dilations shared by the conv and pool ops."""
    a = op.attrs
    s = a["strides"]
    if len(s) != 4:
        raise ValueError("Sliding window strides field must specify 4 dimensions, got %s" % (s,))
    if s[0] != 1 or s[3] != 1:
        raise ValueError(
            "Current implementation does not yet support strides in the batch and depth dimensions."
        )
    if min(s) < 1:
        raise ValueError("strides must be positive, got %s" % (s,))
    d = a.get("dilations", [1, 1, 1, 1])
    if len(d) != 4 or d[0] != 1 or d[3] != 1 or min(d) < 1:
        raise ValueError("dilations must be [1, dh, dw, 1] with positive dh, dw, got %s" % (d,))


def _rank4(t, what):
    if t.shape.ndims is not None and t.shape.ndims != 4:
        raise ValueError(
            "Shape must be rank 4 but is rank %d for %s of shape %s"
            % (t.shape.ndims, what, shape_str(t.shape))
        )
    return [None] * 4 if t.shape.ndims is None else t.shape.as_list()


# --------------------------------------------------------------------------------------
# Conv2D and its gradient ops
# --------------------------------------------------------------------------------------


def _conv_out_shape(op, x_dims, f_dims):
    n, h, w, c = x_dims
    kh, kw, fc, o = f_dims
    if c is not None and fc is not None and c != fc:
        raise ValueError(_depth_message(c, fc))
    if kh is None or kw is None:
        return TensorShape([n, None, None, o])
    (oh, _, _), (ow, _, _) = geometry(h, w, op, kh, kw)
    return TensorShape([n, oh, ow, o])


def _depth_message(c, fc):
    if fc and c % fc == 0:
        return (
            "input depth %d is a multiple of the filter's input depth %d: grouped "
            "convolutions are not supported by flowrt" % (c, fc)
        )
    return "Depth of input (%d) is not a multiple of input depth of filter (%d)" % (c, fc)


def _conv_infer(op):
    x, f = op.inputs
    check_dtype(x, _CONV_DTYPES, "input")
    if f.dtype is not x.dtype:
        raise TypeError(
            "Input 'filter' of 'Conv2D' Op has type %s that does not match type "
            "%s of argument 'input'." % (f.dtype.name, x.dtype.name)
        )
    check_attrs(op)
    return [(x.dtype, _conv_out_shape(op, _rank4(x, "input"), _rank4(f, "filter")))]


def _check_run(op, x, f):
    if x.ndim != 4 or f.ndim != 4:
        raise ValueError(
            "input and filter must be 4-dimensional, got shapes %s and %s"
            % (list(x.shape), list(f.shape))
        )
    if x.shape[3] != f.shape[2]:
        raise ValueError(_depth_message(x.shape[3], f.shape[2]))


def _compute_dtype(dt):
    # numpy's float16 matmul is unvectorized; TF accumulates half precision in float32.
    return np.float32 if dt == np.float16 else dt


class _Blocks:
    """A convolution's batch cut into blocks of whole images, each block's patch
    matrix (``window_kernels.im2col``) about ``_BLOCK_BYTES``: it stays in the L2 cache
    between being written and being multiplied, and the blocks are what
    ``blas.run_blocks`` hands to threads. ``args`` are the window arguments of
    ``im2col``/``col2im`` after the image range."""

    def __init__(self, op, n, h, w, c, kh, kw, dtype):
        a = op.attrs
        s, d = a["strides"], a.get("dilations", [1, 1, 1, 1])
        self.geo = geo = geometry(h, w, op, kh, kw)
        (oh, pt, _), (ow, pl, _) = geo
        self.args = (kh, kw, s[1], s[2], d[1], d[2], pt, pl, oh, ow)
        self.n, self.pixels, self.depth = n, oh * ow, kh * kw * c
        self.dtype = np.dtype(dtype)
        per_image = max(1, self.pixels * self.depth * self.dtype.itemsize)
        per_block = max(1, min(_BLOCK_BYTES // per_image, -(-n // blas.kernel_threads())))
        self.bounds = list(range(0, n, per_block)) + [n]
        # a 1x1 window of stride 1 without padding reads the input as it is
        self.identity = self.args == (1, 1, 1, 1, 1, 1, 0, 0, h, w)

    def __len__(self):
        return len(self.bounds) - 1

    def rows(self, i):
        n0, n1 = self.bounds[i], self.bounds[i + 1]
        return n0, n1, (n1 - n0) * self.pixels

    def cols(self, x, i):
        """Block ``i``'s patch matrix of ``x`` (in this thread's scratch buffer)."""
        n0, n1, rows = self.rows(i)
        if self.identity:
            return x[n0:n1].reshape(rows, self.depth)
        buf = _scratch(rows, self.depth, self.dtype)
        window_kernels.im2col(x, n0, n1, *self.args, buf)
        return buf


_BLOCK_BYTES = 1 << 20
_local = threading.local()


def _scratch(rows, cols, dtype):
    """A ``[rows, cols]`` buffer of this thread's, reused by its next block: a fresh
    megabyte-sized array per block would be mapped and faulted in each time."""
    need = rows * cols
    buf = getattr(_local, "buf", None)
    if buf is None or buf.size < need or buf.dtype != dtype:
        buf = _local.buf = np.empty(max(need, 1), dtype)
    return buf[:need].reshape(rows, cols)


def _conv_kernel(ctx, op, x, f):
    _check_run(op, x, f)
    kh, kw, c, o = f.shape
    dt = _compute_dtype(x.dtype)
    xc = np.ascontiguousarray(x, dt)
    f2 = np.ascontiguousarray(f, dt).reshape(-1, o)
    blocks = _Blocks(op, *x.shape, kh, kw, dt)
    out = np.empty((x.shape[0], blocks.geo[0][0], blocks.geo[1][0], o), dt)

    def block(i):
        n0, n1, rows = blocks.rows(i)
        np.matmul(blocks.cols(xc, i), f2, out=out[n0:n1].reshape(rows, o))

    blas.run_blocks(len(blocks), block)
    return (out.astype(x.dtype, copy=False),)


def _sizes(t, what):
    v = int_list(t)
    if v is not None and len(v) != 4:
        raise ValueError("%s must be a vector of 4 sizes, got %s" % (what, v))
    if t.shape.ndims not in (None, 1) or (t.shape.ndims == 1 and t.shape[0] not in (None, 4)):
        raise ValueError(
            "%s must be a vector of 4 sizes, got shape %s" % (what, shape_str(t.shape))
        )
    return v


def _backprop_input_infer(op):
    sizes, f, g = op.inputs
    check_dtype(sizes, (_dt.int32, _dt.int64), "input_sizes")
    check_dtype(g, _CONV_DTYPES, "out_backprop")
    if f.dtype is not g.dtype:
        raise TypeError(
            "filter and out_backprop must have the same dtype, got %s and %s"
            % (f.dtype.name, g.dtype.name)
        )
    check_attrs(op)
    v = _sizes(sizes, "input_sizes")
    if v is None:
        return [(g.dtype, unknown_shape(4))]
    f_dims, g_dims = _rank4(f, "filter"), _rank4(g, "out_backprop")
    expect = _conv_out_shape(op, v, f_dims)
    if not expect.is_compatible_with(TensorShape(g_dims)):
        raise ValueError(
            "out_backprop has shape %s but a Conv2D of input %s with filter %s "
            "gives %s" % (shape_str(g.shape), v, shape_str(f.shape), shape_str(expect))
        )
    return [(g.dtype, TensorShape(v))]


def _backprop_input_kernel(ctx, op, sizes, f, g):
    n, h, w, c = (int(s) for s in sizes)
    kh, kw, fc, o = f.shape
    if fc != c or g.ndim != 4 or g.shape[3] != o:
        raise ValueError(
            "input_sizes %s, filter %s and out_backprop %s do not match"
            % (list(sizes), list(f.shape), list(g.shape))
        )
    geo = geometry(h, w, op, kh, kw)
    out_dtype = g.dtype
    if g.shape[:3] != (n, geo[0][0], geo[1][0]):
        raise ValueError(
            "out_backprop has shape %s, expected [%d, %d, %d, %d] for "
            "input_sizes %s" % (list(g.shape), n, geo[0][0], geo[1][0], o, list(sizes))
        )
    dt = _compute_dtype(g.dtype)
    g = np.ascontiguousarray(g, dt)
    f2 = np.ascontiguousarray(f, dt).reshape(-1, o)
    blocks = _Blocks(op, n, h, w, c, kh, kw, dt)
    dx = np.empty((n, h, w, c), dt)

    def block(i):
        # the patch-matrix gradient of the block, added back where its patches were read
        n0, n1, rows = blocks.rows(i)
        g2 = g[n0:n1].reshape(rows, o)
        if blocks.identity:
            np.matmul(g2, f2.T, out=dx[n0:n1].reshape(rows, c))
            return
        dcols = np.matmul(g2, f2.T, out=_scratch(rows, blocks.depth, dt))
        window_kernels.col2im(dcols, n0, n1, *blocks.args, dx)

    blas.run_blocks(len(blocks), block)
    return (dx.astype(out_dtype, copy=False),)


def _backprop_filter_infer(op):
    x, sizes, g = op.inputs
    check_dtype(sizes, (_dt.int32, _dt.int64), "filter_sizes")
    check_dtype(x, _CONV_DTYPES, "input")
    if g.dtype is not x.dtype:
        raise TypeError(
            "input and out_backprop must have the same dtype, got %s and %s"
            % (x.dtype.name, g.dtype.name)
        )
    check_attrs(op)
    v = _sizes(sizes, "filter_sizes")
    if v is None:
        return [(x.dtype, unknown_shape(4))]
    expect = _conv_out_shape(op, _rank4(x, "input"), v)
    if not expect.is_compatible_with(TensorShape(_rank4(g, "out_backprop"))):
        raise ValueError(
            "out_backprop has shape %s but a Conv2D of input %s with filter %s "
            "gives %s" % (shape_str(g.shape), shape_str(x.shape), v, shape_str(expect))
        )
    return [(x.dtype, TensorShape(v))]


def _backprop_filter_kernel(ctx, op, x, sizes, g):
    kh, kw, c, o = (int(s) for s in sizes)
    if x.ndim != 4 or x.shape[3] != c or g.ndim != 4 or g.shape[3] != o:
        raise ValueError(
            "input %s, filter_sizes %s and out_backprop %s do not match"
            % (list(x.shape), list(sizes), list(g.shape))
        )
    dt = _compute_dtype(x.dtype)
    blocks = _Blocks(op, *x.shape, kh, kw, dt)
    geo = blocks.geo
    if g.shape[:3] != (x.shape[0], geo[0][0], geo[1][0]):
        raise ValueError(
            "out_backprop has shape %s, expected [%d, %d, %d, %d]"
            % (list(g.shape), x.shape[0], geo[0][0], geo[1][0], o)
        )
    xc = np.ascontiguousarray(x, dt)
    gc = np.ascontiguousarray(g, dt)
    partial: dict = {}  # per thread: the sum of its blocks' products

    def block(i):
        n0, n1, rows = blocks.rows(i)
        prod = blocks.cols(xc, i).T @ gc[n0:n1].reshape(rows, o)
        acc = partial.get(threading.get_ident())
        if acc is None:
            partial[threading.get_ident()] = prod
        else:
            acc += prod

    blas.run_blocks(len(blocks), block)
    df = sum(partial.values()) if partial else np.zeros((kh * kw * c, o), dt)
    return (np.asarray(df).reshape(kh, kw, c, o).astype(x.dtype, copy=False),)


def _attrs_of(op):
    return {
        k: op.attrs[k]
        for k in (
            "strides",
            "padding",
            "dilations",
            "explicit_paddings",
            "data_format",
            "use_cudnn_on_gpu",
        )
    }


def conv_grads(forward: str, backprop_input: str, backprop_filter: str, attrs_of):
    """The gradient functions of a convolution op type and its two backprop op types,
    wired as TF wires them (each backprop's gradient is the other backprop and the
    forward op), so gradients of any order are convolutions again; ``attrs_of(op)``
    gives the attrs the new ops copy."""

    def grad(op, g):
        x, f = op.inputs
        at = attrs_of(op)
        return [
            make(backprop_input, [array_ops.shape(x), f, g], at),
            make(backprop_filter, [x, array_ops.shape(f), g], at),
        ]

    def input_grad(op, gg):
        _, f, g = op.inputs
        at = attrs_of(op)
        return [
            None,
            make(backprop_filter, [gg, array_ops.shape(f), g], at),
            make(forward, [gg, f], at),
        ]

    def filter_grad(op, gg):
        x, _, g = op.inputs
        at = attrs_of(op)
        return [
            make(backprop_input, [array_ops.shape(x), gg, g], at),
            None,
            make(forward, [x, gg], at),
        ]

    return grad, input_grad, filter_grad


_conv_grad, _backprop_input_grad, _backprop_filter_grad = conv_grads(
    "Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter", _attrs_of
)


register_op("Conv2D", infer=_conv_infer, kernel=_conv_kernel, grad=_conv_grad)
register_op(
    "Conv2DBackpropInput",
    infer=_backprop_input_infer,
    kernel=_backprop_input_kernel,
    grad=_backprop_input_grad,
)
register_op(
    "Conv2DBackpropFilter",
    infer=_backprop_filter_infer,
    kernel=_backprop_filter_kernel,
    grad=_backprop_filter_grad,
)


# --------------------------------------------------------------------------------------
# Public functions
# --------------------------------------------------------------------------------------


def _conv_attrs(strides, padding, data_format, dilations, fn, op_type):
    window_kernels.warm()
    check_format(data_format, fn)
    pad, explicit = check_padding(padding, op_type, explicit_ok=True)
    return {
        "strides": spatial_arg(strides, "strides", fn),
        "dilations": spatial_arg([1, 1, 1, 1] if dilations is None else dilations, "dilations", fn),
        "padding": pad,
        "explicit_paddings": explicit,
        "data_format": "NHWC",
        "use_cudnn_on_gpu": True,
    }


def _pick(a, b, an, bn, fn):
    if a is not None and b is not None:
        raise ValueError("%s: give only one of `%s` and `%s`" % (fn, an, bn))
    if a is None and b is None:
        raise ValueError("%s: `%s` is required" % (fn, an))
    return a if a is not None else b


def conv2d(
    input: TensorLike,
    filter: TensorLike | None = None,
    strides: int | Sequence[int] | None = None,
    padding: str | Sequence[Sequence[int]] | None = None,
    use_cudnn_on_gpu: bool = True,
    data_format: str = "NHWC",
    dilations: int | Sequence[int] | None = None,
    name: str | None = None,
    filters: TensorLike | None = None,
) -> Tensor:
    """2-D convolution of ``input`` [batch, height, width, in_channels] with ``filter``
    [filter_height, filter_width, in_channels, out_channels].

    Args:
      input: a float16/32/64 tensor, NHWC.
      filter: the filter (``filters`` is the TF2 spelling; give one).
      strides: an int or a list of 1, 2 or 4 ints (``[1, sh, sw, 1]``).
      padding: ``"SAME"``, ``"VALID"`` or explicit ``[[0, 0], [t, b], [l, r], [0, 0]]``.
      use_cudnn_on_gpu: ignored (kept for TF1 signatures).
      data_format: ``"NHWC"``.
      dilations: an int or a list of 1, 2 or 4 ints (default 1).
      name: the op name (default ``Conv2D``).

    Returns:
      The ``Conv2D`` output [batch, out_height, out_width, out_channels].

    Note (flowrt): only NHWC is supported (``NCHW`` raises ValueError), and the input
    depth must equal the filter's (no grouped convolution).
    """
    with in_graph_of([input, filter, filters]):
        fn = "conv2d"
        f = _pick(filter, filters, "filter", "filters", fn)
        attrs = _conv_attrs(strides, padding, data_format, dilations, fn, "Conv2D")
        x = convert_to_tensor(input, name="input")
        f = convert_to_tensor(
            f, dtype=x.dtype if not isinstance(f, Tensor) else None, name="filter"
        )
        return make("Conv2D", [x, f], attrs, name, "Conv2D")


def conv2d_backprop_input(
    input_sizes: TensorLike,
    filter: TensorLike | None = None,
    out_backprop: TensorLike | None = None,
    strides: int | Sequence[int] | None = None,
    padding: str | Sequence[Sequence[int]] | None = None,
    use_cudnn_on_gpu: bool = True,
    data_format: str = "NHWC",
    dilations: int | Sequence[int] | None = None,
    name: str | None = None,
    filters: TensorLike | None = None,
) -> Tensor:
    """The gradient of ``conv2d`` with respect to its input (op ``Conv2DBackpropInput``).

    ``input_sizes`` is the input's shape (an int32 vector of 4). Other arguments as for
    ``conv2d``.
    """
    with in_graph_of([input_sizes, filter, out_backprop, filters]):
        fn = "conv2d_backprop_input"
        f = _pick(filter, filters, "filter", "filters", fn)
        attrs = _conv_attrs(strides, padding, data_format, dilations, fn, "Conv2DBackpropInput")
        g = convert_to_tensor(out_backprop, name="out_backprop")
        f = convert_to_tensor(f, dtype=g.dtype if not isinstance(f, Tensor) else None)
        sizes = convert_to_tensor(
            input_sizes,
            dtype=_dt.int32 if not isinstance(input_sizes, Tensor) else None,
            name="input_sizes",
        )
        return make("Conv2DBackpropInput", [sizes, f, g], attrs, name, "Conv2DBackpropInput")


def conv2d_backprop_filter(
    input: TensorLike,
    filter_sizes: TensorLike,
    out_backprop: TensorLike,
    strides: int | Sequence[int],
    padding: str | Sequence[Sequence[int]],
    use_cudnn_on_gpu: bool = True,
    data_format: str = "NHWC",
    dilations: int | Sequence[int] | None = None,
    name: str | None = None,
) -> Tensor:
    """The gradient of ``conv2d`` with respect to its filter (``Conv2DBackpropFilter``)."""
    with in_graph_of([input, filter_sizes, out_backprop]):
        fn = "conv2d_backprop_filter"
        attrs = _conv_attrs(strides, padding, data_format, dilations, fn, "Conv2DBackpropFilter")
        x = convert_to_tensor(input, name="input")
        g = convert_to_tensor(
            out_backprop,
            dtype=x.dtype if not isinstance(out_backprop, Tensor) else None,
            name="out_backprop",
        )
        sizes = convert_to_tensor(
            filter_sizes,
            dtype=_dt.int32 if not isinstance(filter_sizes, Tensor) else None,
            name="filter_sizes",
        )
        return make("Conv2DBackpropFilter", [x, sizes, g], attrs, name, "Conv2DBackpropFilter")


def conv2d_transpose(
    value: TensorLike | None = None,
    filter: TensorLike | None = None,
    output_shape: TensorLike | None = None,
    strides: int | Sequence[int] | None = None,
    padding: str = "SAME",
    data_format: str = "NHWC",
    name: str | None = None,
    input: TensorLike | None = None,
    filters: TensorLike | None = None,
    dilations: int | Sequence[int] | None = None,
) -> Tensor:
    """The transpose of ``conv2d`` (a ``Conv2DBackpropInput`` named ``conv2d_transpose``).

    ``filter`` is [height, width, output_channels, in_channels]; ``output_shape`` the
    4-vector output shape.
    """
    with in_graph_of([value, filter, output_shape, input, filters]):
        fn = "conv2d_transpose"
        v = _pick(value, input, "value", "input", fn)
        f = _pick(filter, filters, "filter", "filters", fn)
        x = convert_to_tensor(v, name="value")
        f = convert_to_tensor(f, dtype=x.dtype if not isinstance(f, Tensor) else None)
        if (
            f.shape.ndims == 4
            and x.shape.ndims == 4
            and None not in (f.shape[3], x.shape[3])
            and f.shape[3] != x.shape[3]
        ):
            raise ValueError(
                "input channels does not match filter's input channels, %s != %s"
                % (x.shape[3], f.shape[3])
            )
        return conv2d_backprop_input(
            cast(Any, output_shape),  # None: "None values not supported.", as TF1
            f,
            x,
            strides,
            padding,
            data_format=data_format,
            dilations=dilations,
            name=name or "conv2d_transpose",
        )


def conv1d(
    value: TensorLike | None = None,
    filters: TensorLike | None = None,
    stride: int | Sequence[int] | None = None,
    padding: str | None = None,
    use_cudnn_on_gpu: bool | None = None,
    data_format: str | None = None,
    name: str | None = None,
    input: TensorLike | None = None,
    dilations: int | Sequence[int] | None = None,
) -> Tensor:
    """1-D convolution of ``value`` [batch, width, in_channels] with ``filters``
    [filter_width, in_channels, out_channels], as TF builds it: an expand_dims to
    height 1, a ``Conv2D`` named ``conv1d`` and a squeeze (``conv1d/Squeeze``).

    Args:
      value: the input (``input`` is the TF2 spelling; give one).
      filters: the filter.
      stride: an int or a list of 1 or 3 ints.
      padding: ``"SAME"`` or ``"VALID"``.
      data_format: ``"NWC"`` (``"NHWC"`` is accepted as its alias).
      dilations: an int or a list of 1 or 3 ints.
      name: the name scope (default ``conv1d``).
    """
    with in_graph_of([value, filters, stride, input]):
        fn = "conv1d"
        v = _pick(value, input, "value", "input", fn)
        if data_format not in (None, "NWC", "NHWC"):
            raise ValueError(
                "%s: data_format %r is not supported; flowrt's kernels are NWC" % (fn, data_format)
            )

        def one(a, what):
            a = 1 if a is None else a
            if isinstance(a, (int, np.integer)):
                return int(a)
            a = [int(t) for t in a]
            if len(a) == 1 or (len(a) == 3 and a[0] == a[2] == 1):
                return a[len(a) // 2]
            raise ValueError(
                "%s should be of length 1 or 3 (with 1 in the batch and channel "
                "dimensions), got %s" % (what, a)
            )

        s, d = one(stride, "stride"), one(dilations, "dilations")
        with get_default_graph().name_scope(name or fn) as scope:
            x = array_ops.expand_dims(convert_to_tensor(v, name="value"), -3)
            f = convert_to_tensor(
                filters, dtype=x.dtype if not isinstance(filters, Tensor) else None, name="filters"
            )
            f = array_ops.expand_dims(f, 0)
            attrs = _conv_attrs([1, 1, s, 1], padding, None, [1, 1, d, 1], fn, "Conv2D")
            y = make("Conv2D", [x, f], attrs, scope)
            return array_ops.squeeze(y, [-3])
