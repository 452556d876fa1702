"""Depthwise 2-D convolution (``fr.nn.depthwise_conv2d``), the separable and atrous
convolutions built on it and on ``Conv2D``, and TF's depthwise gradient ops, NHWC.

``DepthwiseConv2dNative`` convolves each input channel ``c`` with its own
``channel_multiplier`` filters ``filter[:, :, c, :]``, giving output channels
``c * multiplier + m``. It and its two gradient ops are one registration each, wired as
TF's (each one's gradient is written with the other two). The kernels loop over the
filter taps: one broadcast multiply-add of a strided view of the padded input per tap.
The window geometry is the one ``Conv2D`` and pooling use (``conv_ops``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes as _dt
from .._core.graph import Tensor, convert_to_tensor, get_default_graph
from .._core.registry import register_op
from .._core.shape import TensorShape, unknown_shape
from .common import check_dtype, in_graph_of, int_list, make, shape_str
from .conv_ops import (
    check_attrs,
    check_format,
    check_padding,
    conv2d,
    conv_grads,
    crop,
    geometry,
    pad_hw,
    spatial_arg,
    tap_slice,
)

if TYPE_CHECKING:
    from .._core.typing import TensorLike

__all__ = [
    "depthwise_conv2d",
    "depthwise_conv2d_native",
    "depthwise_conv2d_native_backprop_input",
    "depthwise_conv2d_native_backprop_filter",
    "separable_conv2d",
    "atrous_conv2d",
]

_DTYPES = (_dt.float16, _dt.float32, _dt.float64)


def _rank4(t: Tensor, what: str) -> list:
    if t.shape.ndims is not None and t.shape.ndims != 4:
        raise ValueError(
            "Shape must be rank 4 but is rank %d for %s of shape %s"
            % (t.shape.ndims, what, shape_str(t.shape))
        )
    return [None] * 4 if t.shape.ndims is None else t.shape.as_list()


def _out_shape(op, x_dims, f_dims) -> TensorShape:
    n, h, w, c = x_dims
    kh, kw, fc, m = f_dims
    if c is not None and fc is not None and c != fc:
        raise ValueError("Dimensions must be equal, but are %d and %d" % (c, fc))
    c = c if c is not None else fc
    oc = None if c is None or m is None else c * m
    if kh is None or kw is None:
        return TensorShape([n, None, None, oc])
    (oh, _, _), (ow, _, _) = geometry(h, w, op, kh, kw)
    return TensorShape([n, oh, ow, oc])


def _same_dtype(a: Tensor, b: Tensor, an: str, bn: str) -> None:
    if a.dtype is not b.dtype:
        raise TypeError(
            "Input '%s' of 'DepthwiseConv2dNative' Op has type %s that does not match type "
            "%s of argument '%s'." % (bn, b.dtype.name, a.dtype.name, an)
        )


def _infer(op):
    x, f = op.inputs
    check_dtype(x, _DTYPES, "input")
    _same_dtype(x, f, "input", "filter")
    check_attrs(op)
    return [(x.dtype, _out_shape(op, _rank4(x, "input"), _rank4(f, "filter")))]


def _compute(dt):
    return np.float32 if dt == np.float16 else dt


def _taps(op):
    a = op.attrs
    return a["strides"], a.get("dilations", [1, 1, 1, 1])


def _kernel(ctx, op, x, f):
    if x.ndim != 4 or f.ndim != 4 or x.shape[3] != f.shape[2]:
        raise ValueError(
            "input %s and filter %s do not match: the filter's third dimension must be "
            "the input depth" % (list(x.shape), list(f.shape))
        )
    kh, kw, c, m = f.shape
    geo = geometry(x.shape[1], x.shape[2], op, kh, kw)
    dt = _compute(x.dtype)
    xp = pad_hw(x.astype(dt, copy=False), geo)
    f = f.astype(dt, copy=False)
    s, d = _taps(op)
    # One [N, OH, OW, C] plane per multiplier m (numpy's loops are slow over a short
    # innermost axis), interleaved as channel c * m + m at the end.
    out = np.zeros((m, x.shape[0], geo[0][0], geo[1][0], c), dt)
    tmp = np.empty(out.shape[1:], dt)  # one product buffer, reused for every tap
    for i in range(kh):
        for j in range(kw):
            tap = xp[tap_slice(i, j, geo, s, d)]
            for k in range(m):
                out[k] += np.multiply(tap, f[i, j, :, k], out=tmp)
    out = np.moveaxis(out, 0, -1).reshape(out.shape[1:4] + (c * m,))
    return (np.ascontiguousarray(out).astype(x.dtype, copy=False),)


def _sizes(t: Tensor, what: str):
    v = int_list(t)
    if v is not None and len(v) != 4:
        raise ValueError("%s must be a vector of 4 sizes, got %s" % (what, v))
    return v


def _backprop_input_infer(op):
    sizes, f, g = op.inputs
    check_dtype(sizes, (_dt.int32, _dt.int64), "input_sizes")
    check_dtype(g, _DTYPES, "out_backprop")
    _same_dtype(f, g, "filter", "out_backprop")
    check_attrs(op)
    v = _sizes(sizes, "input_sizes")
    if v is None:
        return [(g.dtype, unknown_shape(4))]
    expect = _out_shape(op, v, _rank4(f, "filter"))
    if not expect.is_compatible_with(TensorShape(_rank4(g, "out_backprop"))):
        raise ValueError(
            "out_backprop has shape %s but a depthwise convolution of input %s with "
            "filter %s gives %s" % (shape_str(g.shape), v, shape_str(f.shape), shape_str(expect))
        )
    return [(g.dtype, TensorShape(v))]


def _check_backprop(op, x_shape, f_shape, g):
    n, h, w, c = x_shape
    kh, kw, fc, m = f_shape
    geo = geometry(h, w, op, kh, kw)
    if fc != c or g.shape != (n, geo[0][0], geo[1][0], c * m):
        raise ValueError(
            "input %s, filter %s and out_backprop %s do not match"
            % (list(x_shape), list(f_shape), list(g.shape))
        )
    return geo


def _backprop_input_kernel(ctx, op, sizes, f, g):
    n, h, w, c = (int(v) for v in sizes)
    kh, kw, _, m = f.shape
    geo = _check_backprop(op, (n, h, w, c), f.shape, g)
    dt = _compute(g.dtype)
    gm = _planes(g.astype(dt, copy=False), c, m)
    f = f.astype(dt, copy=False)
    dxp = np.zeros((n, h + geo[0][1] + geo[0][2], w + geo[1][1] + geo[1][2], c), dt)
    s, d = _taps(op)
    tmp = np.empty(gm.shape[1:], dt)
    for i in range(kh):
        for j in range(kw):
            tap = dxp[tap_slice(i, j, geo, s, d)]
            for k in range(m):
                tap += np.multiply(gm[k], f[i, j, :, k], out=tmp)
    return (np.ascontiguousarray(crop(dxp, geo, h, w)).astype(g.dtype, copy=False),)


def _backprop_filter_infer(op):
    x, sizes, g = op.inputs
    check_dtype(sizes, (_dt.int32, _dt.int64), "filter_sizes")
    check_dtype(x, _DTYPES, "input")
    _same_dtype(x, g, "input", "out_backprop")
    check_attrs(op)
    v = _sizes(sizes, "filter_sizes")
    if v is None:
        return [(x.dtype, unknown_shape(4))]
    expect = _out_shape(op, _rank4(x, "input"), v)
    if not expect.is_compatible_with(TensorShape(_rank4(g, "out_backprop"))):
        raise ValueError(
            "out_backprop has shape %s but a depthwise convolution of input %s with "
            "filter %s gives %s" % (shape_str(g.shape), shape_str(x.shape), v, shape_str(expect))
        )
    return [(x.dtype, TensorShape(v))]


def _backprop_filter_kernel(ctx, op, x, sizes, g):
    kh, kw, c, m = (int(v) for v in sizes)
    geo = _check_backprop(op, x.shape, (kh, kw, c, m), g)
    dt = _compute(x.dtype)
    xp = pad_hw(x.astype(dt, copy=False), geo)
    gm = _planes(g.astype(dt, copy=False), c, m)
    s, d = _taps(op)
    df = np.empty((kh, kw, c, m), dt)
    for i in range(kh):
        for j in range(kw):
            tap = xp[tap_slice(i, j, geo, s, d)]
            for k in range(m):
                df[i, j, :, k] = np.einsum("nhwc,nhwc->c", tap, gm[k])
    return (df.astype(x.dtype, copy=False),)


def _planes(g: np.ndarray, c: int, m: int) -> np.ndarray:
    """Output gradient [N, OH, OW, C * M] as M contiguous [N, OH, OW, C] planes."""
    g5 = g.reshape(g.shape[:3] + (c, m))
    return np.ascontiguousarray(np.moveaxis(g5, -1, 0))


def _attrs_of(op) -> dict:
    return {k: op.attrs[k] for k in ("strides", "padding", "dilations", "explicit_paddings")} | {
        "data_format": "NHWC"
    }


_grad, _backprop_input_grad, _backprop_filter_grad = conv_grads(
    "DepthwiseConv2dNative",
    "DepthwiseConv2dNativeBackpropInput",
    "DepthwiseConv2dNativeBackpropFilter",
    _attrs_of,
)


register_op("DepthwiseConv2dNative", infer=_infer, kernel=_kernel, grad=_grad)
register_op(
    "DepthwiseConv2dNativeBackpropInput",
    infer=_backprop_input_infer,
    kernel=_backprop_input_kernel,
    grad=_backprop_input_grad,
)
register_op(
    "DepthwiseConv2dNativeBackpropFilter",
    infer=_backprop_filter_infer,
    kernel=_backprop_filter_kernel,
    grad=_backprop_filter_grad,
)


# --------------------------------------------------------------------------------------
# Public functions
# --------------------------------------------------------------------------------------


def _attrs(strides, padding, data_format, dilations, fn, op_type) -> dict:
    check_format(data_format, fn)
    pad, explicit = check_padding(padding, op_type, explicit_ok=True)
    return {
        "strides": spatial_arg(strides, "strides", fn),
        "dilations": spatial_arg([1, 1, 1, 1] if dilations is None else dilations, "dilations", fn),
        "padding": pad,
        "explicit_paddings": explicit,
        "data_format": "NHWC",
    }


def _rate(rate, dilations, strides, fn) -> list[int]:
    """The ``[dh, dw]`` dilation of TF1's ``rate`` (or TF2's ``dilations``) argument."""
    if rate is not None and dilations is not None:
        raise ValueError("%s: give only one of `rate` and `dilations`" % fn)
    r = rate if rate is not None else dilations
    if r is None:
        return [1, 1]
    r = [int(v) for v in np.broadcast_to(np.asarray(r), (2,))]
    if min(r) < 1:
        raise ValueError("%s: rate must be positive, got %s" % (fn, r))
    s = spatial_arg(strides, "strides", fn)
    if max(r) > 1 and max(s) > 1:
        raise ValueError(
            "When dilation rate is greater than 1, then all values of strides must be 1. "
            "Received: `dilation rate` %s and `strides` %s" % (r, s)
        )
    return r


def depthwise_conv2d_native(
    input: TensorLike,
    filter: TensorLike,
    strides: int | Sequence[int],
    padding: str | Sequence[Sequence[int]],
    data_format: str = "NHWC",
    dilations: int | Sequence[int] | None = None,
    name: str | None = None,
) -> Tensor:
    """The ``DepthwiseConv2dNative`` op: each input channel convolved with its own
    ``channel_multiplier`` filters.

    Args:
      input: a float16/32/64 tensor [batch, height, width, in_channels].
      filter: [filter_height, filter_width, in_channels, channel_multiplier].
      strides: an int or a list of 1, 2 or 4 ints.
      padding: ``"SAME"``, ``"VALID"`` or explicit ``[[0, 0], [t, b], [l, r], [0, 0]]``.
      data_format: ``"NHWC"``.
      dilations: an int or a list of 1, 2 or 4 ints (default 1).
      name: the op name (default ``DepthwiseConv2dNative``).

    Returns:
      [batch, out_height, out_width, in_channels * channel_multiplier]; output channel
      ``c * channel_multiplier + m`` is input channel ``c`` with filter ``m``.

    Note (flowrt): NHWC only; unequal row and column strides work (TF's CPU kernel
    rejects them).
    """
    with in_graph_of([input, filter]):
        fn = "depthwise_conv2d_native"
        attrs = _attrs(strides, padding, data_format, dilations, fn, "DepthwiseConv2dNative")
        x = convert_to_tensor(input, name="input")
        f = convert_to_tensor(filter, dtype=None if isinstance(filter, Tensor) else x.dtype)
        return make("DepthwiseConv2dNative", [x, f], attrs, name, "DepthwiseConv2dNative")


def depthwise_conv2d_native_backprop_input(
    input_sizes: TensorLike,
    filter: TensorLike,
    out_backprop: TensorLike,
    strides: int | Sequence[int],
    padding: str | Sequence[Sequence[int]],
    data_format: str = "NHWC",
    dilations: int | Sequence[int] | None = None,
    name: str | None = None,
) -> Tensor:
    """The gradient of ``depthwise_conv2d_native`` with respect to its input
    (``input_sizes`` is the input's shape). Other arguments as there."""
    with in_graph_of([input_sizes, filter, out_backprop]):
        fn = "depthwise_conv2d_native_backprop_input"
        op_type = "DepthwiseConv2dNativeBackpropInput"
        attrs = _attrs(strides, padding, data_format, dilations, fn, op_type)
        g = convert_to_tensor(out_backprop, name="out_backprop")
        f = convert_to_tensor(filter, dtype=None if isinstance(filter, Tensor) else g.dtype)
        sizes = convert_to_tensor(
            input_sizes, dtype=None if isinstance(input_sizes, Tensor) else _dt.int32
        )
        return make(op_type, [sizes, f, g], attrs, name, op_type)


def depthwise_conv2d_native_backprop_filter(
    input: TensorLike,
    filter_sizes: TensorLike,
    out_backprop: TensorLike,
    strides: int | Sequence[int],
    padding: str | Sequence[Sequence[int]],
    data_format: str = "NHWC",
    dilations: int | Sequence[int] | None = None,
    name: str | None = None,
) -> Tensor:
    """The gradient of ``depthwise_conv2d_native`` with respect to its filter
    (``filter_sizes`` is the filter's shape). Other arguments as there."""
    with in_graph_of([input, filter_sizes, out_backprop]):
        fn = "depthwise_conv2d_native_backprop_filter"
        op_type = "DepthwiseConv2dNativeBackpropFilter"
        attrs = _attrs(strides, padding, data_format, dilations, fn, op_type)
        x = convert_to_tensor(input, name="input")
        g = convert_to_tensor(
            out_backprop, dtype=None if isinstance(out_backprop, Tensor) else x.dtype
        )
        sizes = convert_to_tensor(
            filter_sizes, dtype=None if isinstance(filter_sizes, Tensor) else _dt.int32
        )
        return make(op_type, [x, sizes, g], attrs, name, op_type)


def depthwise_conv2d(
    input: TensorLike,
    filter: TensorLike,
    strides: int | Sequence[int],
    padding: str | Sequence[Sequence[int]],
    rate: int | Sequence[int] | None = None,
    name: str | None = None,
    data_format: str | None = None,
    dilations: int | Sequence[int] | None = None,
) -> Tensor:
    """Depthwise 2-D convolution, as TF1's ``tf.nn.depthwise_conv2d``.

    Args:
      input: [batch, height, width, in_channels].
      filter: [filter_height, filter_width, in_channels, channel_multiplier].
      strides: a list of 4 ints ``[1, sh, sw, 1]`` (or 1 or 2 ints).
      padding: ``"SAME"`` or ``"VALID"`` (or explicit paddings).
      rate: the dilation ``[dh, dw]`` (or one int); strides must then be 1.
      name: the op name (default ``depthwise``).
      data_format: ``"NHWC"`` (or None).
      dilations: TF2's name for ``rate``.

    Returns:
      [batch, out_height, out_width, in_channels * channel_multiplier].

    Note (flowrt): a rate above 1 is one dilated ``DepthwiseConv2dNative`` op (TF wraps
    an undilated one in ``SpaceToBatchND``/``BatchToSpaceND``); the values are the same.
    """
    with in_graph_of([input, filter]):
        r = _rate(rate, dilations, strides, "depthwise_conv2d")
        with get_default_graph().name_scope(name or "depthwise") as scope:
            x = convert_to_tensor(input, name="tensor_in")
            f = convert_to_tensor(
                filter, dtype=None if isinstance(filter, Tensor) else x.dtype, name="filter_in"
            )
            return depthwise_conv2d_native(
                x, f, strides, padding, data_format or "NHWC", [1, r[0], r[1], 1], name=scope
            )


def separable_conv2d(
    input: TensorLike,
    depthwise_filter: TensorLike,
    pointwise_filter: TensorLike,
    strides: int | Sequence[int],
    padding: str | Sequence[Sequence[int]],
    rate: int | Sequence[int] | None = None,
    name: str | None = None,
    data_format: str | None = None,
    dilations: int | Sequence[int] | None = None,
) -> Tensor:
    """A depthwise convolution followed by a 1x1 convolution mixing the channels, as
    TF1's ``tf.nn.separable_conv2d``.

    Args:
      input: [batch, height, width, in_channels].
      depthwise_filter: [filter_height, filter_width, in_channels, channel_multiplier].
      pointwise_filter: [1, 1, in_channels * channel_multiplier, out_channels].
      strides: the depthwise convolution's strides.
      padding: the depthwise convolution's padding.
      rate: the depthwise dilation ``[dh, dw]``.
      name: the name scope and final op name (default ``separable_conv2d``).
      data_format: ``"NHWC"`` (or None).
      dilations: TF2's name for ``rate``.

    Returns:
      [batch, out_height, out_width, out_channels]: the ``Conv2D`` op named after the
      scope, whose input is ``<scope>/depthwise``.

    Raises:
      ValueError: a pointwise filter that is not 1x1, or whose depth is not
        ``in_channels * channel_multiplier``.
    """
    with in_graph_of([input, depthwise_filter, pointwise_filter]):
        r = _rate(rate, dilations, strides, "separable_conv2d")
        with get_default_graph().name_scope(name or "separable_conv2d") as scope:
            x = convert_to_tensor(input, name="input")
            dw = convert_to_tensor(
                depthwise_filter,
                dtype=None if isinstance(depthwise_filter, Tensor) else x.dtype,
                name="depthwise_filter",
            )
            pw = convert_to_tensor(
                pointwise_filter,
                dtype=None if isinstance(pointwise_filter, Tensor) else x.dtype,
                name="pointwise_filter",
            )
            p = pw.shape.as_list() if pw.shape.ndims == 4 else None
            if p is not None and (p[0] not in (1, None) or p[1] not in (1, None)):
                raise ValueError(
                    "Pointwise filter must be 1x1 in its spatial dimensions, got shape %s"
                    % shape_str(pw.shape)
                )
            d = dw.shape.as_list() if dw.shape.ndims == 4 else None
            if p is not None and d is not None and None not in (d[2], d[3], p[2]):
                if d[2] * d[3] != p[2]:
                    raise ValueError(
                        "The pointwise filter's input depth %d must be in_channels * "
                        "channel_multiplier = %d" % (p[2], d[2] * d[3])
                    )
            depthwise = depthwise_conv2d_native(
                x, dw, strides, padding, data_format or "NHWC", [1, r[0], r[1], 1], "depthwise"
            )
            return conv2d(depthwise, pw, [1, 1, 1, 1], "VALID", name=scope)


def atrous_conv2d(
    value: TensorLike,
    filters: TensorLike,
    rate: int,
    padding: str,
    name: str | None = None,
) -> Tensor:
    """Atrous (dilated) 2-D convolution with stride 1, as TF1's ``tf.nn.atrous_conv2d``.

    Args:
      value: [batch, height, width, in_channels].
      filters: [filter_height, filter_width, in_channels, out_channels].
      rate: the dilation along height and width (a positive int).
      padding: ``"SAME"`` or ``"VALID"``.
      name: the name scope (default ``convolution``).

    Returns:
      [batch, out_height, out_width, out_channels].

    Note (flowrt): one dilated ``Conv2D`` op (TF builds ``SpaceToBatchND``, ``Conv2D``,
    ``BatchToSpaceND``); the values are the same.
    """
    if not isinstance(rate, (int, np.integer)) or isinstance(rate, bool) or rate < 1:
        raise ValueError("rate %r should be a positive integer" % (rate,))
    with in_graph_of([value, filters]):
        with get_default_graph().name_scope(name or "convolution"):
            return conv2d(value, filters, 1, padding, dilations=int(rate))
