"""Bicubic and area resizing: the ``ResizeBicubic``, ``ResizeBicubicGrad`` and
``ResizeArea`` ops (NHWC, float32 results), with TF's sampling rules.

Bicubic: output pixel ``i`` samples ``i * scale`` (or ``(i + 0.5) * scale - 0.5`` with
``half_pixel_centers``), reading 4 pixels per axis with weights looked up in TF's table
of 1025 cubic-convolution coefficients (``a = -0.75``; with ``half_pixel_centers``
Keys' ``a = -0.5``, weights of pixels outside the image set to 0 and the rest
renormalized; otherwise edge pixels repeat). It interpolates the 4 rows first, then
the 4 columns, in float32 in TF's order.

Area: each output pixel averages the input area it covers, each input pixel weighted by
the fraction of it inside, summed column by column, then row by row, as TF does.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.graph import Tensor, convert_to_tensor
from .._core.registry import register_op
from .._core.shape import TensorShape
from . import array_ops, math_ops
from .common import check_dtype, in_graph_of, make, op_scope
from .image_geometry import (
    as_batch,
    check_at_least_3d,
    image_dims,
    pad_to_bounding_box,
    tf_assert,
    unbatch,
    with_dependencies,
)
from .image_ops import (
    ResizeMethod,
    check_run,
    rank4,
    resize_images,
    resize_infer,
    resize_op,
    scale_images,
)

if TYPE_CHECKING:
    from .._core.typing import TensorLike

__all__ = ["resize_bicubic", "resize_area", "resize_image_with_pad"]

_TABLE = 1024


@functools.lru_cache(maxsize=2)
def _coeffs(a: float) -> np.ndarray:
    """TF's table: row i holds the weights at distance i / 1024 and 1 + i / 1024."""
    x = (np.arange(_TABLE + 1, dtype=np.float64) / _TABLE).astype(np.float32).astype(np.float64)
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    x1 = x + 1.0
    far = ((a * x1 - 5 * a) * x1 + 8 * a) * x1 - 4 * a
    return np.stack([near, far], axis=1).astype(np.float32)


def _cubic_taps(out_size: int, in_size: int, align: bool, half: bool):
    """``(indices [out, 4], weights [out, 4])`` along one axis."""
    s = scale_images(in_size, out_size, align)
    i = np.arange(out_size, dtype=np.float32)
    pos = (i + np.float32(0.5)) * s - np.float32(0.5) if half else i * s
    base = np.floor(pos).astype(np.int64)
    delta = pos - base.astype(np.float32)
    off = np.rint(delta * np.float32(_TABLE)).astype(np.int64)
    tab = _coeffs(-0.5 if half else -0.75)
    w = np.stack([tab[off, 1], tab[off, 0], tab[_TABLE - off, 0], tab[_TABLE - off, 1]], axis=1)
    raw = base[:, None] + np.arange(-1, 3)[None, :]
    idx = np.clip(raw, 0, in_size - 1)
    if half:
        w = np.where(idx == raw, w, np.float32(0))
        total = ((w[:, 0] + w[:, 1]) + w[:, 2]) + w[:, 3]
        ok = np.abs(total) >= np.float32(1000) * np.finfo(np.float32).tiny
        inv = np.where(ok, np.float32(1) / np.where(ok, total, np.float32(1)), np.float32(1))
        w = np.where(ok[:, None], w * inv[:, None], w)
    return idx, w.astype(np.float32)


def _attrs(op) -> tuple[bool, bool]:
    return op.attrs["align_corners"], op.attrs["half_pixel_centers"]


def _bicubic_kernel(ctx, op, x, size):
    h, w = check_run(op, x, size)
    align, half = _attrs(op)
    yi, yw = _cubic_taps(h, x.shape[1], align, half)
    xi, xw = _cubic_taps(w, x.shape[2], align, half)
    f = x.astype(np.float32, copy=False)
    # Rows first: each output row from 4 input rows, summed in TF's order.
    rows = np.take(f, yi[:, 0], axis=1) * yw[None, :, 0, None, None]
    for k in range(1, 4):
        rows = rows + np.take(f, yi[:, k], axis=1) * yw[None, :, k, None, None]
    out = np.take(rows, xi[:, 0], axis=2) * xw[None, None, :, 0, None]
    for k in range(1, 4):
        out = out + np.take(rows, xi[:, k], axis=2) * xw[None, None, :, k, None]
    return (out,)


def _weights(out_size: int, in_size: int, align: bool, half: bool) -> np.ndarray:
    """The [out, in] float32 matrix of bicubic weights along one axis."""
    idx, w = _cubic_taps(out_size, in_size, align, half)
    m = np.zeros((out_size, in_size), np.float32)
    np.add.at(m, (np.arange(out_size)[:, None], idx), w)
    return m


def _bicubic_grad_infer(op):
    g, x = op.inputs
    check_dtype(g, (_dt.float32,), "grads")
    check_dtype(x, (_dt.float32, _dt.float64), "original_image")
    n, h, w, c = rank4(x, "original_image")
    rank4(g, "grads")
    return [(x.dtype, TensorShape([n, h, w, c]))]


def _bicubic_grad_kernel(ctx, op, g, x):
    if g.ndim != 4 or x.ndim != 4 or g.shape[0] != x.shape[0] or g.shape[3] != x.shape[3]:
        raise errors.InvalidArgumentError(
            None,
            op,
            "grads %s and original_image %s do not match" % (list(g.shape), list(x.shape)),
        )
    align, half = _attrs(op)
    # Each output pixel's gradient times its 4 x 4 weights, added into the input: the
    # weight matrices of both axes applied at once (TF adds pixel by pixel, so sums of
    # many terms can differ from its in the last bits).
    wy = _weights(g.shape[1], x.shape[1], align, half)
    wx = _weights(g.shape[2], x.shape[2], align, half)
    dx = np.einsum("yh,nyxc,xw->nhwc", wy, g.astype(np.float32, copy=False), wx, optimize=True)
    return (dx.astype(x.dtype, copy=False),)


def _bicubic_grad(op, g):
    x, _ = op.inputs
    if x.dtype not in (_dt.float32, _dt.float64):
        return [None, None]
    align, half = _attrs(op)
    attrs = {"align_corners": align, "half_pixel_centers": half}
    return [make("ResizeBicubicGrad", [g, x], attrs), None]


register_op("ResizeBicubic", infer=resize_infer, kernel=_bicubic_kernel, grad=_bicubic_grad)
register_op("ResizeBicubicGrad", infer=_bicubic_grad_infer, kernel=_bicubic_grad_kernel)


# --------------------------------------------------------------------------------------
# ResizeArea
# --------------------------------------------------------------------------------------


def _area_spans(out_size: int, in_size: int, scale: np.float32):
    """Per output pixel along one axis: ``(indices [out, K], weights [out, K])``, the
    input pixels it covers in order with TF's fractions (0 past its span)."""
    o = np.arange(out_size, dtype=np.float32)
    lo = o * scale
    hi = (o + np.float32(1)) * scale
    start = np.floor(lo).astype(np.int64)
    end = np.ceil(hi).astype(np.int64)
    k = int(np.max(end - start)) if out_size else 1
    i = start[:, None] + np.arange(k)[None, :]
    fi = i.astype(np.float32)
    lo_, hi_ = lo[:, None], hi[:, None]
    i1 = fi + np.float32(1)
    frac = np.where(
        fi < lo_,
        np.where(i1 > hi_, scale, i1 - lo_),
        np.where(i1 > hi_, hi_ - fi, np.float32(1)),
    ).astype(np.float32)
    frac = np.where(i < end[:, None], frac, np.float32(0))
    return np.clip(i, 0, in_size - 1), frac


def _area_kernel(ctx, op, x, size):
    if x.ndim != 4:
        raise errors.InvalidArgumentError(
            None, op, "input must be 4-dimensional, got shape %s" % list(x.shape)
        )
    h, w = (int(v) for v in size)
    if h <= 0 or w <= 0:
        raise errors.InvalidArgumentError(
            None, op, "output dimensions must be positive, got [%d, %d]" % (h, w)
        )
    if x.shape[1] == 0 or x.shape[2] == 0:
        raise errors.InvalidArgumentError(
            None, op, "input image must be of non-zero size, got shape %s" % list(x.shape)
        )
    align = op.attrs["align_corners"]
    sy, sx = scale_images(x.shape[1], h, align), scale_images(x.shape[2], w, align)
    yi, yf = _area_spans(h, x.shape[1], sy)
    xi, xf = _area_spans(w, x.shape[2], sx)
    f = x.astype(np.float32, copy=False)
    total = np.zeros((x.shape[0], h, w, x.shape[3]), np.float32)
    for r in range(yi.shape[1]):
        rows = np.take(f, yi[:, r], axis=1)
        # TF: the first column times its fraction, then the inner ones (whole), then
        # the last times its fraction; then each row's sum times the row's fraction.
        acc = np.take(rows, xi[:, 0], axis=2) * xf[None, None, :, 0, None]
        for c in range(1, xi.shape[1]):
            acc = acc + np.take(rows, xi[:, c], axis=2) * xf[None, None, :, c, None]
        total = total + acc * yf[None, :, r, None, None]
    inv = np.float32(1.0 / np.float64(sy * sx))
    return (total * inv,)


register_op("ResizeArea", infer=resize_infer, kernel=_area_kernel)


def resize_bicubic(
    images: TensorLike,
    size: TensorLike,
    align_corners: bool = False,
    name: str | None = None,
    half_pixel_centers: bool = False,
) -> Tensor:
    """Resizes ``images`` [batch, height, width, channels] to ``size`` by bicubic
    interpolation (op ``ResizeBicubic``; the result is float32).

    Args:
      images: a 4-D tensor of a real dtype.
      size: an int32 vector ``[new_height, new_width]``.
      align_corners: align the corner pixels of input and output.
      name: the op name (default ``ResizeBicubic``).
      half_pixel_centers: sample at pixel centers with Keys' cubic (``a = -0.5``);
        needs ``align_corners=False``.
    """
    return resize_op("ResizeBicubic", images, size, align_corners, half_pixel_centers, name)


def resize_area(
    images: TensorLike,
    size: TensorLike,
    align_corners: bool = False,
    name: str | None = None,
) -> Tensor:
    """Resizes ``images`` [batch, height, width, channels] to ``size`` by area averaging
    (op ``ResizeArea``; the result is float32; TF defines no gradient for it).

    Args:
      images: a 4-D tensor of a real dtype.
      size: an int32 vector ``[new_height, new_width]``.
      align_corners: align the corner pixels of input and output.
      name: the op name (default ``ResizeArea``).
    """
    with in_graph_of([images, size]):
        x = convert_to_tensor(images, name="images")
        s = convert_to_tensor(size, dtype=None if isinstance(size, Tensor) else _dt.int32)
        return make("ResizeArea", [x, s], {"align_corners": bool(align_corners)}, name)


def resize_image_with_pad(
    image: TensorLike,
    target_height: Any,
    target_width: Any,
    method: int = ResizeMethod.BILINEAR,
    align_corners: bool = False,
) -> Tensor:
    """Resizes ``image`` keeping its aspect ratio to fit ``target_height`` x
    ``target_width``, then pads it evenly with zeros to that size (TF1
    ``tf.image.resize_image_with_pad``, composed as TF's ``resize_images`` and
    ``pad_to_bounding_box``).

    Raises:
      ValueError: for an image that is not 3-D or 4-D, or a static target <= 0.
    """
    with op_scope([image], None, "resize_image_with_pad"):
        x, is_batch = as_batch(convert_to_tensor(image, name="image"))
        checks = check_at_least_3d(x)
        checks += tf_assert(target_width > 0, "target_width must be > 0.")
        checks += tf_assert(target_height > 0, "target_height must be > 0.")
        x = with_dependencies(checks, x)
        _, height, width, _ = image_dims(x, 4)
        f_h = math_ops.cast(height, _dt.float32)
        f_w = math_ops.cast(width, _dt.float32)
        f_th = math_ops.cast(target_height, _dt.float32)
        f_tw = math_ops.cast(target_width, _dt.float32)
        ratio = math_ops.maximum(f_w / f_tw, f_h / f_th)
        rh_f = f_h / ratio
        rw_f = f_w / ratio
        rh = math_ops.cast(math_ops.floor(rh_f), _dt.int32)
        rw = math_ops.cast(math_ops.floor(rw_f), _dt.int32)
        p_h = math_ops.maximum(0, math_ops.cast(math_ops.floor((f_th - rh_f) / 2), _dt.int32))
        p_w = math_ops.maximum(0, math_ops.cast(math_ops.floor((f_tw - rw_f) / 2), _dt.int32))
        resized = resize_images(x, array_ops.stack([rh, rw]), method, align_corners=align_corners)
        padded = pad_to_bounding_box(resized, p_h, p_w, target_height, target_width)
        return unbatch(padded, is_batch)
