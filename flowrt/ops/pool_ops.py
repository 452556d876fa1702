"""Max and average pooling (``fr.nn.max_pool``/``avg_pool``) and their TF gradient ops.

``MaxPool`` -> ``MaxPoolGrad`` -> ``MaxPoolGradGrad`` and ``AvgPool`` <-> ``AvgPoolGrad``
are wired as TF wires them, so second-order gradients and ``RegisterGradient`` work.

Max pooling and its gradients are compiled loops over the windows
(``window_kernels``), the batch split among the kernel threads: a max pool routes each
output's gradient to the first maximal element of its window in row-major order, found
again from the forward op's input and output, and sums the gradients an input element
gets in output order, as TF's CPU kernel does; SAME padding never wins a max. The
average pools loop over the (few) window taps with whole-array numpy operations; the
average excludes the padding.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes as _dt
from .._core import blas
from .._core.graph import Tensor, convert_to_tensor
from .._core.registry import register_op
from .._core.shape import TensorShape, unknown_shape
from . import array_ops, window_kernels
from .common import check_dtype, int_list, make, op_scope, shape_str
from .conv_ops import (
    check_attrs,
    check_format,
    check_padding,
    crop,
    geometry,
    pad_hw,
    spatial_arg,
    tap_slice,
)

if TYPE_CHECKING:
    from .._core.typing import TensorLike

__all__ = ["max_pool", "avg_pool", "max_pool2d", "avg_pool2d", "max_pool1d", "avg_pool1d"]

_POOL_DTYPES = (_dt.float16, _dt.float32, _dt.float64)
_ONES = [1, 1, 1, 1]


def _pool_infer_shape(op, dims):
    n, h, w, c = dims
    k = op.attrs["ksize"]
    (oh, _, _), (ow, _, _) = geometry(h, w, op, k[1], k[2])
    return TensorShape([n, oh, ow, c])


def _check_ksize(op):
    k = op.attrs["ksize"]
    if len(k) != 4:
        raise ValueError("Sliding window ksize field must specify 4 dimensions, got %s" % (k,))
    if k[0] != 1 or k[3] != 1:
        raise ValueError(
            "Pooling is not yet supported on the batch or depth dimension, got ksize %s" % (k,)
        )
    if min(k) < 1:
        raise ValueError("ksize must be positive, got %s" % (k,))
    check_attrs(op)


def _dims4(t, what):
    if t.shape.ndims is None:
        return [None] * 4
    if t.shape.ndims != 4:
        raise ValueError(
            "Shape must be rank 4 but is rank %d for %s of shape %s"
            % (t.shape.ndims, what, shape_str(t.shape))
        )
    return t.shape.as_list()


def _pool_infer(op):
    x = op.inputs[0]
    check_dtype(x, _POOL_DTYPES, "input")
    _check_ksize(op)
    return [(x.dtype, _pool_infer_shape(op, _dims4(x, "input")))]


def _geo(op, x):
    if x.ndim != 4:
        raise ValueError("input must be 4-dimensional, got shape %s" % list(x.shape))
    k = op.attrs["ksize"]
    return geometry(x.shape[1], x.shape[2], op, k[1], k[2])


def _taps(op):
    k = op.attrs["ksize"]
    return [(i, j) for i in range(k[1]) for j in range(k[2])]


# --------------------------------------------------------------------------------------
# MaxPool, MaxPoolGrad, MaxPoolGradGrad
# --------------------------------------------------------------------------------------


def _low(dtype):
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def _window_args(op, geo):
    k, s = op.attrs["ksize"], op.attrs["strides"]
    (_, pt, _), (_, pl, _) = geo
    return k[1], k[2], s[1], s[2], pt, pl


def _exact(x):
    """``x`` as the compiled loops take it: C-ordered, float16 widened to float32 (a
    maximum and its comparisons are exact either way)."""
    return np.ascontiguousarray(x, np.float32 if x.dtype == np.float16 else x.dtype)


def _max_pool_kernel(ctx, op, x):
    geo = _geo(op, x)
    xc = _exact(x)
    out = np.empty((x.shape[0], geo[0][0], geo[1][0], x.shape[3]), xc.dtype)
    args = _window_args(op, geo) + (_low(xc.dtype), out)
    blas.run_blocks(
        *_image_blocks(x.shape[0], lambda n0, n1: window_kernels.max_pool(xc, n0, n1, *args))
    )
    return (out.astype(x.dtype, copy=False),)


def _image_blocks(n, fn):
    """``(count, block)`` for ``blas.run_blocks``: the batch in one block per thread."""
    per = max(1, -(-n // blas.kernel_threads()))
    bounds = list(range(0, n, per)) + [n]
    return len(bounds) - 1, lambda i: fn(bounds[i], bounds[i + 1])


def _route(op, x, y, src, dst_shape, backward):
    """``window_kernels.max_pool_route`` over the batch: a max pool's gradient
    (``backward``) or that gradient's gradient, in ``src``'s dtype."""
    geo = _geo(op, x)
    want = (x.shape[0], geo[0][0], geo[1][0], x.shape[3])
    if y.shape != want:
        raise ValueError(
            "orig_output has shape %s, expected %s for orig_input %s"
            % (list(y.shape), list(want), list(x.shape))
        )
    xc = _exact(x)
    yc, sc = np.ascontiguousarray(y, xc.dtype), _exact(src)
    dst = np.empty(dst_shape, sc.dtype)
    args = _window_args(op, geo) + (_low(xc.dtype), dst, backward)
    blas.run_blocks(
        *_image_blocks(
            x.shape[0], lambda n0, n1: window_kernels.max_pool_route(xc, yc, sc, n0, n1, *args)
        )
    )
    return dst.astype(src.dtype, copy=False)


def _max_pool_grad_kernel(ctx, op, x, y, g):
    if y.shape != g.shape:
        raise ValueError(
            "orig_output and grad must have the same shape, got %s and %s"
            % (list(y.shape), list(g.shape))
        )
    return (_route(op, x, y, g, x.shape, True),)


def _max_pool_grad_grad_kernel(ctx, op, x, y, gg):
    # For each output, the incoming gradient (input-shaped) at its window's argmax.
    if gg.shape != x.shape:
        raise ValueError(
            "grad must have the shape of orig_input, got %s and %s"
            % (list(gg.shape), list(x.shape))
        )
    return (_route(op, x, y, gg, y.shape, False),)


def _pool_grad_infer(op, grad_like_input=False):
    x, y, g = op.inputs
    check_dtype(x, _POOL_DTYPES, "orig_input")
    for t, what in ((y, "orig_output"), (g, "grad")):
        if t.dtype is not x.dtype:
            raise TypeError(
                "%s must have the dtype of orig_input (%s), got %s"
                % (what, x.dtype.name, t.dtype.name)
            )
    _check_ksize(op)
    expect = _pool_infer_shape(op, _dims4(x, "orig_input"))
    for t, what in ((y, "orig_output"), (g, "grad")):
        want = x.shape if what == "grad" and grad_like_input else expect
        if not want.is_compatible_with(t.shape):
            raise ValueError(
                "%s has shape %s, expected %s for orig_input %s"
                % (what, shape_str(t.shape), shape_str(want), shape_str(x.shape))
            )
    return x, expect


def _max_pool_grad_infer(op):
    x, _ = _pool_grad_infer(op)
    return [(x.dtype, x.shape)]


def _max_pool_grad_grad_infer(op):
    x, expect = _pool_grad_infer(op, grad_like_input=True)
    return [(x.dtype, expect.merge_with(op.inputs[1].shape))]


def _pool_attrs(op):
    return {k: op.attrs[k] for k in ("ksize", "strides", "padding", "data_format")}


register_op(
    "MaxPool",
    infer=_pool_infer,
    kernel=_max_pool_kernel,
    grad=lambda op, g: [make("MaxPoolGrad", [op.inputs[0], op.outputs[0], g], _pool_attrs(op))],
)
register_op(
    "MaxPoolGrad",
    infer=_max_pool_grad_infer,
    kernel=_max_pool_grad_kernel,
    grad=lambda op, gg: [
        array_ops.zeros_like(op.inputs[0]),
        array_ops.zeros_like(op.inputs[1]),
        make("MaxPoolGradGrad", [op.inputs[0], op.inputs[1], gg], _pool_attrs(op)),
    ],
)
register_op(
    "MaxPoolGradGrad",
    infer=_max_pool_grad_grad_infer,
    kernel=_max_pool_grad_grad_kernel,
    grad=lambda op, ggg: [
        array_ops.zeros_like(op.inputs[0]),
        array_ops.zeros_like(op.inputs[1]),
        make("MaxPoolGrad", [op.inputs[0], op.inputs[1], ggg], _pool_attrs(op)),
    ],
)


# --------------------------------------------------------------------------------------
# AvgPool, AvgPoolGrad
# --------------------------------------------------------------------------------------


def _window_counts(op, geo, h, w):
    """How many real (unpadded) elements each output window covers: [1, OH, OW, 1]."""
    (oh, pt, pb), (ow, pl, pr) = geo
    k, s = op.attrs["ksize"], op.attrs["strides"]

    def along(n_out, before, size, kk, ss):
        start = np.arange(n_out) * ss - before
        return np.minimum(start + kk, size) - np.maximum(start, 0)

    rows = along(oh, pt, h, k[1], s[1])
    cols = along(ow, pl, w, k[2], s[2])
    return (rows[:, None] * cols[None, :])[None, :, :, None]


def _avg_dtype(dt):
    return np.float32 if dt == np.float16 else dt


def _avg_pool_kernel(ctx, op, x):
    geo = _geo(op, x)
    xp = pad_hw(x.astype(_avg_dtype(x.dtype), copy=False), geo)
    s = op.attrs["strides"]
    out = None
    for i, j in _taps(op):
        v = xp[tap_slice(i, j, geo, s, _ONES)]
        out = v.copy() if out is None else np.add(out, v, out=out)
    out /= _window_counts(op, geo, x.shape[1], x.shape[2])
    return (out.astype(x.dtype, copy=False),)


def _avg_pool_grad_infer(op):
    sizes, g = op.inputs
    check_dtype(sizes, (_dt.int32,), "orig_input_shape")
    check_dtype(g, _POOL_DTYPES, "grad")
    _check_ksize(op)
    v = int_list(sizes)
    if v is None:
        return [(g.dtype, unknown_shape(4))]
    if len(v) != 4:
        raise ValueError("orig_input_shape must be a vector of 4 sizes, got %s" % v)
    expect = _pool_infer_shape(op, v)
    if not expect.is_compatible_with(g.shape):
        raise ValueError(
            "grad has shape %s, expected %s for orig_input_shape %s"
            % (shape_str(g.shape), shape_str(expect), v)
        )
    return [(g.dtype, TensorShape(v))]


def _avg_pool_grad_kernel(ctx, op, sizes, g):
    n, h, w, c = (int(v) for v in sizes)
    k = op.attrs["ksize"]
    geo = geometry(h, w, op, k[1], k[2])
    if g.shape != (n, geo[0][0], geo[1][0], c):
        raise ValueError(
            "grad has shape %s, expected %s for orig_input_shape %s"
            % (list(g.shape), [n, geo[0][0], geo[1][0], c], list(sizes))
        )
    dt = _avg_dtype(g.dtype)
    share = g.astype(dt) / _window_counts(op, geo, h, w)
    dxp = np.zeros((n, h + geo[0][1] + geo[0][2], w + geo[1][1] + geo[1][2], c), dt)
    s = op.attrs["strides"]
    for i, j in _taps(op):
        dxp[tap_slice(i, j, geo, s, _ONES)] += share
    return (np.ascontiguousarray(crop(dxp, geo, h, w)).astype(g.dtype, copy=False),)


register_op(
    "AvgPool",
    infer=_pool_infer,
    kernel=_avg_pool_kernel,
    grad=lambda op, g: [make("AvgPoolGrad", [array_ops.shape(op.inputs[0]), g], _pool_attrs(op))],
)
register_op(
    "AvgPoolGrad",
    infer=_avg_pool_grad_infer,
    kernel=_avg_pool_grad_kernel,
    grad=lambda op, gg: [None, make("AvgPool", [gg], _pool_attrs(op))],
)


# --------------------------------------------------------------------------------------
# Public functions
# --------------------------------------------------------------------------------------


def _pool(op_type, value, ksize, strides, padding, data_format, name, input, fn):
    if value is not None and input is not None:
        raise ValueError("%s: give only one of `value` and `input`" % fn)
    v = value if value is not None else input
    if v is None:
        raise ValueError("%s: `value` is required" % fn)
    window_kernels.warm()
    check_format(data_format, fn)
    pad, _ = check_padding(padding, op_type)
    attrs = {
        "ksize": spatial_arg(ksize, "ksize", fn),
        "strides": spatial_arg(strides, "strides", fn),
        "padding": pad,
        "data_format": "NHWC",
    }
    x = convert_to_tensor(v, name="input")
    return make(op_type, [x], attrs, name, op_type)


def max_pool(
    value: TensorLike | None = None,
    ksize: int | Sequence[int] | None = None,
    strides: int | Sequence[int] | None = None,
    padding: str | None = None,
    data_format: str = "NHWC",
    name: str | None = None,
    input: TensorLike | None = None,
) -> Tensor:
    """Max pooling of ``value`` [batch, height, width, channels] (op ``MaxPool``).

    Args:
      value: a float tensor, NHWC (``input`` is the TF2 spelling; give one).
      ksize: an int or a list of 1, 2 or 4 ints (``[1, kh, kw, 1]``).
      strides: an int or a list of 1, 2 or 4 ints (``[1, sh, sw, 1]``).
      padding: ``"SAME"`` or ``"VALID"``.
      data_format: ``"NHWC"``.
      name: the op name (default ``MaxPool``).

    Note (flowrt): only NHWC (TF's CPU kernel rejects NCHW too).
    """
    return _pool("MaxPool", value, ksize, strides, padding, data_format, name, input, "max_pool")


def avg_pool(
    value: TensorLike | None = None,
    ksize: int | Sequence[int] | None = None,
    strides: int | Sequence[int] | None = None,
    padding: str | None = None,
    data_format: str = "NHWC",
    name: str | None = None,
    input: TensorLike | None = None,
) -> Tensor:
    """Average pooling (op ``AvgPool``); with SAME padding each window averages only
    its real elements, as in TF. Arguments as for ``max_pool``."""
    return _pool("AvgPool", value, ksize, strides, padding, data_format, name, input, "avg_pool")


def max_pool2d(
    input: TensorLike,
    ksize: int | Sequence[int],
    strides: int | Sequence[int],
    padding: str,
    data_format: str = "NHWC",
    name: str | None = None,
) -> Tensor:
    """TF2's spelling of ``max_pool`` (default name ``MaxPool2d``)."""
    return max_pool(input, ksize, strides, padding, data_format, name or "MaxPool2d")


def avg_pool2d(
    input: TensorLike,
    ksize: int | Sequence[int],
    strides: int | Sequence[int],
    padding: str,
    data_format: str = "NHWC",
    name: str | None = None,
) -> Tensor:
    """TF2's spelling of ``avg_pool``."""
    return avg_pool(input, ksize, strides, padding, data_format, name)


def _pool1d(pool, input, ksize, strides, padding, data_format, name, default):
    """TF's 1-D pooling: the width axis pooled as a 2-D pool over ``[N, 1, W, C]``."""
    if data_format not in ("NWC", "NHWC"):
        raise ValueError("data_format must be NWC, got %r" % (data_format,))

    def arg(v, what):
        v = list(v) if isinstance(v, (list, tuple)) else [v]
        if len(v) == 1:
            return [1, 1, int(v[0]), 1]
        if len(v) == 3:
            return [1, 1, int(v[1]), 1]
        raise ValueError("%s should be of length 1 or 3, got %r" % (what, v))

    with op_scope([input], name, default):
        x = array_ops.expand_dims(convert_to_tensor(input, name="input"), 1)
        y = pool(x, arg(ksize, "ksize"), arg(strides, "strides"), padding)
        return array_ops.squeeze(y, [1])


def max_pool1d(
    input: TensorLike,
    ksize: int | Sequence[int],
    strides: int | Sequence[int],
    padding: str,
    data_format: str = "NWC",
    name: str | None = None,
) -> Tensor:
    """Max pooling of ``input`` [batch, width, channels] over its width (``ksize`` and
    ``strides``: an int or a list of 1 or 3 ints), as TF builds it on ``max_pool``."""
    return _pool1d(max_pool, input, ksize, strides, padding, data_format, name, "MaxPool1d")


def avg_pool1d(
    input: TensorLike,
    ksize: int | Sequence[int],
    strides: int | Sequence[int],
    padding: str,
    data_format: str = "NWC",
    name: str | None = None,
) -> Tensor:
    """Average pooling over the width of [batch, width, channels]; as ``max_pool1d``."""
    return _pool1d(avg_pool, input, ksize, strides, padding, data_format, name, "AvgPool1D")
