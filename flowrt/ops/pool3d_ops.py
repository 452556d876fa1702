"""3-D pooling (``fr.nn.max_pool3d``, ``fr.nn.avg_pool3d``) and its TF gradient ops, NDHWC.

``MaxPool3D``, ``MaxPool3DGrad``, ``MaxPool3DGradGrad``, ``AvgPool3D`` and
``AvgPool3DGrad`` are one registration each, wired as TF's ``nn_grad.py`` wires them.
The kernels are those of the 2-D ops (``pool_ops``) with one more spatial axis: one pass
over the window taps, each tap a strided slice of the padded input. As in TF's CPU
kernels, ``MaxPool3DGrad`` gives a window's gradient to each of its maxima and
``MaxPool3DGradGrad`` reads it at the first; average windows count only their real
(unpadded) elements. The geometry is ``conv_ops.window_geometry``.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes as _dt
from .._core.graph import Tensor, convert_to_tensor
from .._core.registry import register_op
from .._core.shape import TensorShape, unknown_shape
from . import array_ops
from .common import check_dtype, int_list, make, op_scope, shape_str
from .conv_ops import PADDINGS, window_geometry

if TYPE_CHECKING:
    from .._core.typing import TensorLike

__all__ = ["max_pool3d", "avg_pool3d"]

_DTYPES = (_dt.float16, _dt.float32, _dt.float64)


def _check_attrs(op):
    a = op.attrs
    for what in ("ksize", "strides"):
        v = a[what]
        if len(v) != 5:
            raise ValueError(
                "Sliding window %s field must specify 5 dimensions, got %s" % (what, v)
            )
        if v[0] != 1 or v[4] != 1:
            raise ValueError(
                "Pooling is not yet supported on the batch nor channel dimension, got %s %s"
                % (what, v)
            )
        if min(v) < 1:
            raise ValueError("%s must be positive, got %s" % (what, v))


def _geometry(op, spatial):
    a = op.attrs
    return [
        window_geometry(n, a["ksize"][i + 1], a["strides"][i + 1], 1, a["padding"])
        for i, n in enumerate(spatial)
    ]


def _out_shape(op, dims):
    return TensorShape([dims[0]] + [g[0] for g in _geometry(op, dims[1:4])] + [dims[4]])


def _dims5(t, what):
    if t.shape.ndims is None:
        return [None] * 5
    if t.shape.ndims != 5:
        raise ValueError(
            "Shape must be rank 5 but is rank %d for %s of shape %s"
            % (t.shape.ndims, what, shape_str(t.shape))
        )
    return t.shape.as_list()


def _padded(x, geo, value=0):
    if not any(b or a for _, b, a in geo):
        return x
    return np.pad(x, [(0, 0)] + [(b, a) for _, b, a in geo] + [(0, 0)], constant_values=value)


def _taps(op, geo):
    """The slice of the padded input each window tap reads, for every output."""
    k, s = op.attrs["ksize"], op.attrs["strides"]
    for tap in itertools.product(*(range(n) for n in k[1:4])):
        yield (slice(None),) + tuple(
            slice(t, t + (geo[i][0] - 1) * s[i + 1] + 1, s[i + 1]) for i, t in enumerate(tap)
        )


def _crop(xp, geo, spatial):
    return np.ascontiguousarray(
        xp[(slice(None),) + tuple(slice(b, b + n) for n, (_, b, _) in zip(spatial, geo))]
    )


def _geo_of(op, x):
    if x.ndim != 5:
        raise ValueError("input must be 5-dimensional, got shape %s" % list(x.shape))
    return _geometry(op, x.shape[1:4])


def _pool_infer(op):
    x = op.inputs[0]
    check_dtype(x, _DTYPES, "input")
    _check_attrs(op)
    return [(x.dtype, _out_shape(op, _dims5(x, "input")))]


# --------------------------------------------------------------------------------------
# MaxPool3D, MaxPool3DGrad, MaxPool3DGradGrad
# --------------------------------------------------------------------------------------


def _max_pool_kernel(ctx, op, x):
    geo = _geo_of(op, x)
    xp = _padded(x, geo, -np.inf)
    out = None
    for sl in _taps(op, geo):
        out = xp[sl].copy() if out is None else np.maximum(out, xp[sl], out=out)
    return (out,)


def _argmax_masks(op, x, y, geo, first_only):
    """Yields ``(slice, mask)`` per tap: where this tap holds its window's maximum (only
    the first such tap of each window if ``first_only``)."""
    xp = _padded(x, geo, -np.inf)
    taken = np.zeros(y.shape, bool)
    for sl in _taps(op, geo):
        m = xp[sl] == y
        if first_only:
            m &= ~taken
            taken |= m
        yield sl, m


def _max_pool_grad_kernel(ctx, op, x, y, g):
    if y.shape != g.shape:
        raise ValueError(
            "orig_output and grad must have the same shape, got %s and %s"
            % (list(y.shape), list(g.shape))
        )
    geo = _geo_of(op, x)
    dxp = np.zeros((x.shape[0],) + _padded_shape(x, geo), g.dtype)
    # TF's CPU MaxPool3DGrad gives the gradient to every maximum of a window (MaxPoolGrad
    # and MaxPool3DGradGrad to the first only)
    for sl, m in _argmax_masks(op, x, y, geo, first_only=False):
        dxp[sl] += np.where(m, g, 0)
    return (_crop(dxp, geo, x.shape[1:4]),)


def _padded_shape(x, geo):
    return tuple(n + b + a for n, (_, b, a) in zip(x.shape[1:4], geo)) + (x.shape[4],)


def _max_pool_grad_grad_kernel(ctx, op, x, y, gg):
    if gg.shape != x.shape:
        raise ValueError(
            "grad must have the shape of orig_input, got %s and %s"
            % (list(gg.shape), list(x.shape))
        )
    geo = _geo_of(op, x)
    ggp = _padded(gg, geo)
    out = np.zeros(y.shape, gg.dtype)
    for sl, m in _argmax_masks(op, x, y, geo, first_only=True):
        np.copyto(out, ggp[sl], where=m)
    return (out,)


def _max_grad_infer(op, grad_like_input):
    x, y, g = op.inputs
    check_dtype(x, _DTYPES, "orig_input")
    for t, what in ((y, "orig_output"), (g, "grad")):
        if t.dtype is not x.dtype:
            raise TypeError(
                "%s must have the dtype of orig_input (%s), got %s"
                % (what, x.dtype.name, t.dtype.name)
            )
    _check_attrs(op)
    expect = _out_shape(op, _dims5(x, "orig_input"))
    for t, what in ((y, "orig_output"), (g, "grad")):
        want = x.shape if what == "grad" and grad_like_input else expect
        if not want.is_compatible_with(t.shape):
            raise ValueError(
                "%s has shape %s, expected %s for orig_input %s"
                % (what, shape_str(t.shape), shape_str(want), shape_str(x.shape))
            )
    out = expect.merge_with(y.shape) if grad_like_input else x.shape
    return [(x.dtype, out)]


def _attrs_of(op):
    return {k: op.attrs[k] for k in ("ksize", "strides", "padding", "data_format")}


def _max_grads_of(grad_type):
    def rule(op, g):
        x, y = op.inputs[:2]
        made = make(grad_type, [x, y, g], _attrs_of(op))
        return [array_ops.zeros_like(x), array_ops.zeros_like(y), made]

    return rule


register_op(
    "MaxPool3D",
    infer=_pool_infer,
    kernel=_max_pool_kernel,
    grad=lambda op, g: [make("MaxPool3DGrad", [op.inputs[0], op.outputs[0], g], _attrs_of(op))],
)
register_op(
    "MaxPool3DGrad",
    infer=lambda op: _max_grad_infer(op, False),
    kernel=_max_pool_grad_kernel,
    grad=_max_grads_of("MaxPool3DGradGrad"),
)
register_op(
    "MaxPool3DGradGrad",
    infer=lambda op: _max_grad_infer(op, True),
    kernel=_max_pool_grad_grad_kernel,
    grad=_max_grads_of("MaxPool3DGrad"),
)


# --------------------------------------------------------------------------------------
# AvgPool3D, AvgPool3DGrad
# --------------------------------------------------------------------------------------


def _window_counts(op, geo, spatial):
    """How many real (unpadded) elements each output window covers: [1, OD, OH, OW, 1]."""
    k, s = op.attrs["ksize"], op.attrs["strides"]
    counts = np.ones((1, 1, 1))
    for i, (n, (o, before, _)) in enumerate(zip(spatial, geo)):
        start = np.arange(o) * s[i + 1] - before
        along = np.minimum(start + k[i + 1], n) - np.maximum(start, 0)
        counts = counts * along.reshape([-1 if j == i else 1 for j in range(3)])
    return counts[None, ..., None]


def _compute_dtype(dt):
    return np.float32 if dt == np.float16 else dt


def _avg_pool_kernel(ctx, op, x):
    geo = _geo_of(op, x)
    xp = _padded(x.astype(_compute_dtype(x.dtype), copy=False), geo)
    out = None
    for sl in _taps(op, geo):
        out = xp[sl].copy() if out is None else np.add(out, xp[sl], out=out)
    out /= _window_counts(op, geo, x.shape[1:4])
    return (out.astype(x.dtype, copy=False),)


def _avg_grad_infer(op):
    sizes, g = op.inputs
    check_dtype(sizes, (_dt.int32,), "orig_input_shape")
    check_dtype(g, _DTYPES, "grad")
    _check_attrs(op)
    v = int_list(sizes)
    if v is None:
        return [(g.dtype, unknown_shape(5))]
    if len(v) != 5:
        raise ValueError("orig_input_shape must be a vector of 5 sizes, got %s" % v)
    expect = _out_shape(op, v)
    if not expect.is_compatible_with(g.shape):
        raise ValueError(
            "grad has shape %s, expected %s for orig_input_shape %s"
            % (shape_str(g.shape), shape_str(expect), v)
        )
    return [(g.dtype, TensorShape(v))]


def _avg_pool_grad_kernel(ctx, op, sizes, g):
    sizes = [int(v) for v in sizes]
    geo = _geometry(op, sizes[1:4])
    want = (sizes[0], *(o for o, _, _ in geo), sizes[4])
    if g.shape != want:
        raise ValueError(
            "grad has shape %s, expected %s for orig_input_shape %s"
            % (list(g.shape), list(want), sizes)
        )
    dt = _compute_dtype(g.dtype)
    share = g.astype(dt) / _window_counts(op, geo, sizes[1:4])
    padded = [n + b + a for n, (_, b, a) in zip(sizes[1:4], geo)]
    dxp = np.zeros([sizes[0]] + padded + [sizes[4]], dt)
    for sl in _taps(op, geo):
        dxp[sl] += share
    return (_crop(dxp, geo, sizes[1:4]).astype(g.dtype, copy=False),)


register_op(
    "AvgPool3D",
    infer=_pool_infer,
    kernel=_avg_pool_kernel,
    grad=lambda op, g: [make("AvgPool3DGrad", [array_ops.shape(op.inputs[0]), g], _attrs_of(op))],
)
register_op(
    "AvgPool3DGrad",
    infer=_avg_grad_infer,
    kernel=_avg_pool_grad_kernel,
    grad=lambda op, gg: [None, make("AvgPool3D", [gg], _attrs_of(op))],
)


# --------------------------------------------------------------------------------------
# Public functions
# --------------------------------------------------------------------------------------


def _five(value, what, fn):
    """TF's ``_get_sequence(value, 3, 4, what)``: an int or 1, 3 or 5 ints -> 5 ints."""
    if isinstance(value, (int, np.integer)):
        return [1, int(value), int(value), int(value), 1]
    v = [int(t) for t in value]
    if len(v) == 1:
        return [1] + v * 3 + [1]
    if len(v) == 3:
        return [1] + v + [1]
    if len(v) == 5:
        return v
    raise ValueError("%s should be of length 1, 3 or 5 but was %d" % (what, len(v)))


def _pool(op_type, input, ksize, strides, padding, data_format, name):
    fn = "max_pool3d" if op_type == "MaxPool3D" else "avg_pool3d"
    with op_scope([input], name, op_type) as scope:
        if data_format not in (None, "NDHWC"):
            raise ValueError(
                "%s: data_format %r is not supported; flowrt's kernels are NDHWC (transpose "
                "to NDHWC first)" % (fn, data_format)
            )
        if not isinstance(padding, str) or padding not in PADDINGS:
            raise ValueError(
                "Attr 'padding' of '%s' Op passed %r not in: \"SAME\", \"VALID\"."
                % (op_type, padding)
            )
        attrs = {
            "ksize": _five(ksize, "ksize", fn),
            "strides": _five(strides, "strides", fn),
            "padding": padding,
            "data_format": "NDHWC",
        }
        x = convert_to_tensor(input, name="input")
        return make(op_type, [x], attrs, scope)


def max_pool3d(
    input: TensorLike,
    ksize: int | Sequence[int],
    strides: int | Sequence[int],
    padding: str,
    data_format: str = "NDHWC",
    name: str | None = None,
) -> Tensor:
    """The maximum of each window of ``input`` [batch, depth, height, width, channels]
    (op type MaxPool3D).

    Args:
      input: a float16/32/64 tensor, NDHWC.
      ksize: the window size: an int or 1, 3 or 5 ints.
      strides: the window step: an int or 1, 3 or 5 ints.
      padding: ``"SAME"`` or ``"VALID"``.
      data_format: ``"NDHWC"``.
      name: the op's name (default ``MaxPool3D``).

    Note (flowrt): only NDHWC is supported; float64 inputs are accepted (TF's kernel
    rejects them).
    """
    return _pool("MaxPool3D", input, ksize, strides, padding, data_format, name)


def avg_pool3d(
    input: TensorLike,
    ksize: int | Sequence[int],
    strides: int | Sequence[int],
    padding: str,
    data_format: str = "NDHWC",
    name: str | None = None,
) -> Tensor:
    """The mean of each window of ``input`` [batch, depth, height, width, channels], over
    the window's real elements only (padding is not counted): op type AvgPool3D.

    Args:
      input: a float16/32/64 tensor, NDHWC.
      ksize: the window size: an int or 1, 3 or 5 ints.
      strides: the window step: an int or 1, 3 or 5 ints.
      padding: ``"SAME"`` or ``"VALID"``.
      data_format: ``"NDHWC"``.
      name: the op's name (default ``AvgPool3D``).

    Note (flowrt): only NDHWC is supported; float64 inputs are accepted (TF's kernel
    rejects them).
    """
    return _pool("AvgPool3D", input, ksize, strides, padding, data_format, name)
