"""3-D convolution (``fr.nn.conv3d``, ``conv3d_transpose``, ``conv3d_backprop_filter``)
and its TF gradient ops, NDHWC.

``Conv3D``, ``Conv3DBackpropInputV2`` and ``Conv3DBackpropFilterV2`` are one registration
each, wired by ``conv_ops.conv_grads`` as TF wires them, so gradients of any order are
3-D convolutions again. The kernels are those of ``Conv2D`` with one more spatial axis:
im2col through an ``as_strided`` view of the padded input and one matmul for the forward
op and the filter gradient; one matmul per filter tap for the input gradient. The
window geometry is ``conv_ops.window_geometry``, TF's, per axis.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np
from numpy.lib.stride_tricks import as_strided

from .. import dtypes as _dt
from .._core.graph import Tensor, convert_to_tensor
from .._core.registry import register_op
from .._core.shape import TensorShape, unknown_shape
from .common import check_dtype, in_graph_of, int_list, make, op_scope, shape_str
from .conv_ops import PADDINGS, conv_grads, window_geometry

if TYPE_CHECKING:
    from .._core.typing import TensorLike

__all__ = ["conv3d", "conv3d_backprop_filter", "conv3d_backprop_filter_v2", "conv3d_transpose"]

_DTYPES = (_dt.float16, _dt.float32, _dt.float64)
_ONES = [1, 1, 1, 1, 1]


# --------------------------------------------------------------------------------------
# Geometry: three spatial axes
# --------------------------------------------------------------------------------------


def _check_attrs(op):
    a = op.attrs
    s, d = a["strides"], a["dilations"]
    if len(s) != 5:
        raise ValueError(
            "Attr 'strides' of '%s' Op passed list of length %d; it must have 5 elements "
            "[1, sd, sh, sw, 1]" % (op.type, len(s))
        )
    if s[0] != 1 or s[4] != 1:
        raise ValueError(
            "Current implementation does not yet support strides in the batch and depth dimensions."
        )
    if min(s) < 1:
        raise ValueError("strides must be positive, got %s" % (s,))
    if len(d) != 5 or d[0] != 1 or d[4] != 1 or min(d) < 1:
        raise ValueError(
            "dilations must be [1, dd, dh, dw, 1] with positive dd, dh, dw, got %s" % (d,)
        )


def _geometry(op, spatial, ksizes):
    """``[(out, pad_before, pad_after)]`` per spatial axis."""
    a = op.attrs
    return [
        window_geometry(n, k, a["strides"][i + 1], a["dilations"][i + 1], a["padding"])
        for i, (n, k) in enumerate(zip(spatial, ksizes))
    ]


def _rank5(t, what):
    if t.shape.ndims is not None and t.shape.ndims != 5:
        raise ValueError(
            "Shape must be rank 5 but is rank %d for %s of shape %s"
            % (t.shape.ndims, what, shape_str(t.shape))
        )
    return [None] * 5 if t.shape.ndims is None else t.shape.as_list()


def _out_shape(op, x_dims, f_dims):
    c, fc, o = x_dims[4], f_dims[3], f_dims[4]
    if c is not None and fc is not None and c != fc:
        raise ValueError(
            "Input depth (%d) must equal the filter's input depth (%d) (in_channels)" % (c, fc)
        )
    if None in f_dims[:3]:
        return TensorShape([x_dims[0], None, None, None, o])
    outs = [g[0] for g in _geometry(op, x_dims[1:4], f_dims[:3])]
    return TensorShape([x_dims[0]] + outs + [o])


def _compute_dtype(dt):
    # numpy's float16 matmul is unvectorized; TF accumulates half precision in float32.
    return np.float32 if dt == np.float16 else dt


def _padded(x, geo):
    pads = [(0, 0)] + [(b, a) for _, b, a in geo] + [(0, 0)]
    return np.pad(x, pads) if any(b or a for _, b, a in geo) else x


def _im2col(op, x, ksizes):
    """``[N*OD*OH*OW, KD*KH*KW*C]`` windows of ``x`` and the geometry."""
    geo = _geometry(op, x.shape[1:4], ksizes)
    xp = _padded(x.astype(_compute_dtype(x.dtype), copy=False), geo)
    s, d = op.attrs["strides"][1:4], op.attrs["dilations"][1:4]
    st = xp.strides
    outs = [g[0] for g in geo]
    view = as_strided(
        xp,
        (xp.shape[0], *outs, *ksizes, xp.shape[4]),
        (
            st[0],
            *(st[i + 1] * s[i] for i in range(3)),
            *(st[i + 1] * d[i] for i in range(3)),
            st[4],
        ),
        writeable=False,
    )
    return view.reshape(xp.shape[0] * int(np.prod(outs)), -1), geo


def _check_run(x, f):
    if x.ndim != 5 or f.ndim != 5 or x.shape[4] != f.shape[3]:
        raise ValueError(
            "input and filter must be 5-dimensional with input depth equal to the filter's "
            "in_channels, got shapes %s and %s" % (list(x.shape), list(f.shape))
        )


def _conv_kernel(ctx, op, x, f):
    _check_run(x, f)
    o = f.shape[4]
    cols, geo = _im2col(op, x, f.shape[:3])
    out = cols @ f.astype(cols.dtype, copy=False).reshape(-1, o)
    return (out.reshape(x.shape[0], *(g[0] for g in geo), o).astype(x.dtype, copy=False),)


def _sizes(t, what):
    v = int_list(t)
    if v is not None and len(v) != 5:
        raise ValueError("%s must be a vector of 5 sizes, got %s" % (what, v))
    return v


def _conv_infer(op):
    x, f = op.inputs
    check_dtype(x, _DTYPES, "input")
    if f.dtype is not x.dtype:
        raise TypeError(
            "Input 'filter' of 'Conv3D' Op has type %s that does not match type %s of "
            "argument 'input'." % (f.dtype.name, x.dtype.name)
        )
    _check_attrs(op)
    return [(x.dtype, _out_shape(op, _rank5(x, "input"), _rank5(f, "filter")))]


def _check_backprop_shape(op, g, x_dims, f_dims):
    expect = _out_shape(op, x_dims, f_dims)
    if not expect.is_compatible_with(TensorShape(_rank5(g, "out_backprop"))):
        raise ValueError(
            "out_backprop has shape %s but a Conv3D of input %s with filter %s gives %s"
            % (shape_str(g.shape), x_dims, f_dims, shape_str(expect))
        )


def _backprop_input_infer(op):
    sizes, f, g = op.inputs
    check_dtype(sizes, (_dt.int32, _dt.int64), "input_sizes")
    check_dtype(g, _DTYPES, "out_backprop")
    if f.dtype is not g.dtype:
        raise TypeError(
            "filter and out_backprop must have the same dtype, got %s and %s"
            % (f.dtype.name, g.dtype.name)
        )
    _check_attrs(op)
    v = _sizes(sizes, "input_sizes")
    if v is None:
        return [(g.dtype, unknown_shape(5))]
    _check_backprop_shape(op, g, v, _rank5(f, "filter"))
    return [(g.dtype, TensorShape(v))]


def _backprop_input_kernel(ctx, op, sizes, f, g):
    sizes = [int(s) for s in sizes]
    ksizes, (c, o) = f.shape[:3], f.shape[3:]
    geo = _geometry(op, sizes[1:4], ksizes)
    outs = [gg[0] for gg in geo]
    if c != sizes[4] or g.shape != (sizes[0], *outs, o):
        raise ValueError(
            "input_sizes %s, filter %s and out_backprop %s do not match"
            % (sizes, list(f.shape), list(g.shape))
        )
    dt = _compute_dtype(g.dtype)
    g2 = g.astype(dt, copy=False).reshape(-1, o)
    f = f.astype(dt, copy=False)
    dxp = np.zeros([sizes[0]] + [n + b + a for n, (_, b, a) in zip(sizes[1:4], geo)] + [c], dt)
    s, d = op.attrs["strides"], op.attrs["dilations"]
    shape = (sizes[0], *outs, c)
    for tap in itertools.product(*(range(k) for k in ksizes)):
        where = tuple(
            slice(t * d[i + 1], t * d[i + 1] + (outs[i] - 1) * s[i + 1] + 1, s[i + 1])
            for i, t in enumerate(tap)
        )
        dxp[(slice(None),) + where] += (g2 @ f[tap].T).reshape(shape)
    crop = tuple(slice(b, b + n) for n, (_, b, _) in zip(sizes[1:4], geo))
    return (np.ascontiguousarray(dxp[(slice(None),) + crop]).astype(g.dtype, copy=False),)


def _backprop_filter_infer(op):
    x, sizes, g = op.inputs
    check_dtype(sizes, (_dt.int32, _dt.int64), "filter_sizes")
    check_dtype(x, _DTYPES, "input")
    if g.dtype is not x.dtype:
        raise TypeError(
            "input and out_backprop must have the same dtype, got %s and %s"
            % (x.dtype.name, g.dtype.name)
        )
    _check_attrs(op)
    v = _sizes(sizes, "filter_sizes")
    if v is None:
        return [(x.dtype, unknown_shape(5))]
    _check_backprop_shape(op, g, _rank5(x, "input"), v)
    return [(x.dtype, TensorShape(v))]


def _backprop_filter_kernel(ctx, op, x, sizes, g):
    sizes = [int(s) for s in sizes]
    c, o = sizes[3:]
    if x.ndim != 5 or x.shape[4] != c or g.ndim != 5 or g.shape[4] != o:
        raise ValueError(
            "input %s, filter_sizes %s and out_backprop %s do not match"
            % (list(x.shape), sizes, list(g.shape))
        )
    cols, geo = _im2col(op, x, sizes[:3])
    if g.shape[:4] != (x.shape[0], *(gg[0] for gg in geo)):
        raise ValueError("out_backprop has shape %s, expected %s" % (list(g.shape), geo))
    df = cols.T @ g.astype(cols.dtype, copy=False).reshape(-1, o)
    return (df.reshape(sizes).astype(x.dtype, copy=False),)


def _attrs_of(op):
    return {k: op.attrs[k] for k in ("strides", "padding", "dilations", "data_format")}


_conv_grad, _backprop_input_grad, _backprop_filter_grad = conv_grads(
    "Conv3D", "Conv3DBackpropInputV2", "Conv3DBackpropFilterV2", _attrs_of
)
register_op("Conv3D", infer=_conv_infer, kernel=_conv_kernel, grad=_conv_grad)
register_op(
    "Conv3DBackpropInputV2",
    infer=_backprop_input_infer,
    kernel=_backprop_input_kernel,
    grad=_backprop_input_grad,
)
register_op(
    "Conv3DBackpropFilterV2",
    infer=_backprop_filter_infer,
    kernel=_backprop_filter_kernel,
    grad=_backprop_filter_grad,
)


# --------------------------------------------------------------------------------------
# Public functions
# --------------------------------------------------------------------------------------


def _attrs(strides, padding, data_format, dilations, fn, op_type):
    if data_format not in (None, "NDHWC"):
        raise ValueError(
            "%s: data_format %r is not supported; flowrt's kernels are NDHWC (transpose to "
            "NDHWC first)" % (fn, data_format)
        )
    if not isinstance(padding, str) or padding not in PADDINGS:
        raise ValueError(
            "Attr 'padding' of '%s' Op passed %r not in: \"SAME\", \"VALID\"." % (op_type, padding)
        )
    if strides is None:
        raise ValueError("%s: `strides` must be given" % fn)
    return {
        "strides": [int(s) for s in strides],
        "dilations": [int(d) for d in (_ONES if dilations is None else dilations)],
        "padding": padding,
        "data_format": "NDHWC",
    }


def _one_of(a, b, an, bn, fn):
    if a is not None and b is not None:
        raise ValueError("%s: give only one of `%s` and `%s`" % (fn, an, bn))
    if a is None and b is None:
        raise ValueError("%s: `%s` is required" % (fn, an))
    return a if a is not None else b


def _int32(v, what):
    return convert_to_tensor(v, dtype=None if isinstance(v, Tensor) else _dt.int32, name=what)


def conv3d(
    input: TensorLike,
    filter: TensorLike | None = None,
    strides: Sequence[int] | None = None,
    padding: str | None = None,
    data_format: str = "NDHWC",
    dilations: Sequence[int] = _ONES,
    name: str | None = None,
    filters: TensorLike | None = None,
) -> Tensor:
    """3-D convolution of ``input`` [batch, depth, height, width, in_channels] with
    ``filter`` [filter_depth, filter_height, filter_width, in_channels, out_channels].

    Args:
      input: a float16/32/64 tensor, NDHWC.
      filter: the filter (``filters`` is the TF2 spelling; give one).
      strides: 5 ints ``[1, sd, sh, sw, 1]``.
      padding: ``"SAME"`` or ``"VALID"``.
      data_format: ``"NDHWC"``.
      dilations: 5 ints ``[1, dd, dh, dw, 1]``.
      name: the op name (default ``Conv3D``).

    Note (flowrt): only NDHWC is supported; dilations above 1 work (TF's CPU kernel
    rejects them).
    """
    with in_graph_of([input, filter, filters]):
        fn = "conv3d"
        f = _one_of(filter, filters, "filter", "filters", fn)
        attrs = _attrs(strides, padding, data_format, dilations, fn, "Conv3D")
        x = convert_to_tensor(input, name="input")
        f = convert_to_tensor(f, dtype=None if isinstance(f, Tensor) else x.dtype, name="filter")
        return make("Conv3D", [x, f], attrs, name, "Conv3D")


def conv3d_backprop_filter_v2(
    input: TensorLike,
    filter_sizes: TensorLike,
    out_backprop: TensorLike,
    strides: Sequence[int],
    padding: str,
    data_format: str = "NDHWC",
    dilations: Sequence[int] = _ONES,
    name: str | None = None,
) -> Tensor:
    """The gradient of ``conv3d`` with respect to its filter (op Conv3DBackpropFilterV2).

    ``filter_sizes`` is the filter's shape (an int32 vector of 5); the other arguments
    are as for ``conv3d``.
    """
    with in_graph_of([input, filter_sizes, out_backprop]):
        fn = "conv3d_backprop_filter_v2"
        attrs = _attrs(strides, padding, data_format, dilations, fn, "Conv3DBackpropFilterV2")
        x = convert_to_tensor(input, name="input")
        g = convert_to_tensor(
            out_backprop,
            dtype=None if isinstance(out_backprop, Tensor) else x.dtype,
            name="out_backprop",
        )
        sizes = _int32(filter_sizes, "filter_sizes")
        return make("Conv3DBackpropFilterV2", [x, sizes, g], attrs, name, "Conv3DBackpropFilterV2")


conv3d_backprop_filter = conv3d_backprop_filter_v2  # TF1: the same generated op


def conv3d_transpose(
    value: TensorLike | None = None,
    filter: TensorLike | None = None,
    output_shape: TensorLike | None = None,
    strides: Sequence[int] | None = None,
    padding: str = "SAME",
    data_format: str = "NDHWC",
    name: str | None = None,
    input: TensorLike | None = None,
    filters: TensorLike | None = None,
    dilations: Sequence[int] | None = None,
) -> Tensor:
    """The transpose of ``conv3d``: a ``Conv3DBackpropInputV2`` named
    ``conv3d_transpose``.

    Args:
      value: the input [batch, depth, height, width, in_channels] (or ``input``).
      filter: [depth, height, width, output_channels, in_channels] (or ``filters``).
      output_shape: the 5-vector output shape.
      strides: 5 ints ``[1, sd, sh, sw, 1]``.
      padding: ``"SAME"`` or ``"VALID"``.
      data_format: ``"NDHWC"``.
      name: the op name (default ``conv3d_transpose``).
      dilations: 5 ints (default 1).
    """
    with op_scope([value, filter, output_shape, input, filters], name, "conv3d_transpose") as scope:
        fn = "conv3d_transpose"
        x = convert_to_tensor(_one_of(value, input, "value", "input", fn), name="value")
        f = _one_of(filter, filters, "filter", "filters", fn)
        f = convert_to_tensor(f, dtype=None if isinstance(f, Tensor) else x.dtype, name="filter")
        attrs = _attrs(strides, padding, data_format, dilations, fn, "Conv3DBackpropInputV2")
        sizes = _int32(cast(Any, output_shape), "output_shape")  # None: TF's conversion error
        return make("Conv3DBackpropInputV2", [sizes, f, x], attrs, scope)
