"""Image resizing (``fr.image.resize_images``, ``resize_bilinear``,
``resize_nearest_neighbor``): the ``ResizeBilinear`` and ``ResizeNearestNeighbor`` ops
and their gradient ops, NHWC; and ``fr.extract_image_patches`` (``ExtractImagePatches``).

The sampling positions follow TF's kernels exactly, in float32 as they compute them:
the scale is ``(in - 1) / (out - 1)`` with ``align_corners`` (and more than one output
pixel), else ``in / out``; output pixel ``i`` samples ``i * scale``, or with
``half_pixel_centers`` ``(i + 0.5) * scale - 0.5`` (bilinear) and ``(i + 0.5) * scale``
(nearest). Bilinear interpolates in float32 (its output is float32 for every input
dtype, as TF's); nearest rounds half away from zero with ``align_corners``, else floors.
Each gradient adds every output pixel's gradient into the input pixels it read, with the
same weights.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.graph import Tensor, convert_to_tensor
from .._core.registry import register_op
from .._core.shape import TensorShape
from . import array_ops, conv_ops, indexing_ops
from .common import check_dtype, in_graph_of, int_list, make, op_scope, shape_str
from .conv_ops import geometry, pad_hw, windows

if TYPE_CHECKING:
    from .._core.typing import TensorLike

__all__ = [
    "ResizeMethod",
    "resize_images",
    "resize",
    "resize_bilinear",
    "resize_nearest_neighbor",
    "extract_image_patches",
    "extract_patches",
]

_IMAGE_DTYPES = (
    _dt.int8,
    _dt.uint8,
    _dt.int16,
    _dt.int32,
    _dt.int64,
    _dt.float16,
    _dt.float32,
    _dt.float64,
)
_FLOATS = (_dt.float16, _dt.float32, _dt.float64)


class ResizeMethod:
    """TF1's resize methods (``fr.image.ResizeMethod.BILINEAR``, ...); ``resize_images``
    also takes TF 2's spellings (``"bilinear"``, ``"nearest"``, ``"bicubic"``, ``"area"``).
    """

    BILINEAR = 0
    NEAREST_NEIGHBOR = 1
    BICUBIC = 2
    AREA = 3


# --------------------------------------------------------------------------------------
# Sampling positions, as TF's kernels compute them
# --------------------------------------------------------------------------------------


def scale_images(in_size: int, out_size: int, align: bool) -> np.float32:
    if align and out_size > 1:
        return np.float32(in_size - 1) / np.float32(out_size - 1)
    return np.float32(in_size) / np.float32(out_size)


def _bilinear_taps(out_size: int, in_size: int, align: bool, half: bool):
    """``(lower, upper, lerp)`` per output pixel along one axis."""
    s = scale_images(in_size, out_size, align)
    i = np.arange(out_size, dtype=np.float32)
    pos = (i + np.float32(0.5)) * s - np.float32(0.5) if half else i * s
    f = np.floor(pos)
    lower = np.maximum(f.astype(np.int64), 0)
    upper = np.minimum(np.ceil(pos).astype(np.int64), in_size - 1)
    return lower, upper, (pos - f).astype(np.float32)


def _nearest_index(out_size: int, in_size: int, align: bool, half: bool) -> np.ndarray:
    s = scale_images(in_size, out_size, align)
    i = np.arange(out_size, dtype=np.float32)
    pos = ((i + np.float32(0.5)) * s if half else i * s).astype(np.float64)
    # roundf (half away from zero) on the float32 position; floorf without align.
    idx = np.floor(pos + 0.5) if align else np.floor(pos)
    idx = np.minimum(idx.astype(np.int64), in_size - 1)
    return np.maximum(idx, 0) if half else idx


# --------------------------------------------------------------------------------------
# Shape inference and run-time checks shared by the four ops
# --------------------------------------------------------------------------------------


def rank4(t: Tensor, what: str) -> list:
    if t.shape.ndims is not None and t.shape.ndims != 4:
        raise ValueError(
            "Shape must be rank 4 but is rank %d for %s of shape %s"
            % (t.shape.ndims, what, shape_str(t.shape))
        )
    return [None] * 4 if t.shape.ndims is None else t.shape.as_list()


def _size_of(size: Tensor) -> list:
    check_dtype(size, (_dt.int32,), "size")
    if size.shape.ndims is not None and size.shape.ndims != 1:
        raise ValueError("Shape must be rank 1 but is rank %d for 'size'" % size.shape.ndims)
    if size.shape.ndims == 1 and size.shape[0] not in (None, 2):
        raise ValueError("Dimension must be 2 but is %d for 'size'" % size.shape[0])
    v = int_list(size)
    return [None, None] if v is None else v


def resize_infer(op):
    x, size = op.inputs
    check_dtype(x, _IMAGE_DTYPES, "images")
    n, _, _, c = rank4(x, "images")
    h, w = _size_of(size)
    out_dt = x.dtype if op.type == "ResizeNearestNeighbor" else _dt.float32
    return [(out_dt, TensorShape([n, h, w, c]))]


def check_run(op, x: np.ndarray, size) -> tuple[int, int]:
    if op.attrs["half_pixel_centers"] and op.attrs["align_corners"]:
        raise errors.InvalidArgumentError(
            None, op, "If half_pixel_centers is True, align_corners must be False."
        )
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
    return h, w


def _attrs(op) -> dict:
    return {k: op.attrs[k] for k in ("align_corners", "half_pixel_centers")}


# --------------------------------------------------------------------------------------
# ResizeBilinear and ResizeBilinearGrad
# --------------------------------------------------------------------------------------


def _bilinear_kernel(ctx, op, x, size):
    h, w = check_run(op, x, size)
    a = _attrs(op)
    yl, yu, ylerp = _bilinear_taps(h, x.shape[1], a["align_corners"], a["half_pixel_centers"])
    xl, xu, xlerp = _bilinear_taps(w, x.shape[2], a["align_corners"], a["half_pixel_centers"])
    f = x.astype(np.float32, copy=False)
    # TF's top = tl + (tr - tl) * xlerp (and bottom alike) is this row interpolation of
    # the input rows yl (and yu): the same float32 operations, made once per input row.
    left, right = np.take(f, xl, axis=2), np.take(f, xu, axis=2)
    rows = left + (right - left) * xlerp[None, None, :, None]
    t, b = np.take(rows, yl, axis=1), np.take(rows, yu, axis=1)
    return (t + (b - t) * ylerp[None, :, None, None],)


def _weights(out_size: int, in_size: int, align: bool, half: bool) -> np.ndarray:
    """The [out, in] float32 matrix of bilinear weights along one axis."""
    lo, up, lerp = _bilinear_taps(out_size, in_size, align, half)
    m = np.zeros((out_size, in_size), np.float32)
    rows = np.arange(out_size)
    np.add.at(m, (rows, lo), np.float32(1) - lerp)
    np.add.at(m, (rows, up), lerp)
    return m


def _bilinear_grad_infer(op):
    g, x = op.inputs
    check_dtype(g, (_dt.float32,), "grads")
    check_dtype(x, _FLOATS, "original_image")
    n, h, w, c = rank4(x, "original_image")
    rank4(g, "grads")
    return [(x.dtype, TensorShape([n, h, w, c]))]


def _bilinear_grad_kernel(ctx, op, g, x):
    if g.ndim != 4 or x.ndim != 4 or g.shape[0] != x.shape[0] or g.shape[3] != x.shape[3]:
        raise errors.InvalidArgumentError(
            None,
            op,
            "grads %s and original_image %s do not match" % (list(g.shape), list(x.shape)),
        )
    a = _attrs(op)
    wy = _weights(g.shape[1], x.shape[1], a["align_corners"], a["half_pixel_centers"])
    wx = _weights(g.shape[2], x.shape[2], a["align_corners"], a["half_pixel_centers"])
    dx = np.einsum("yh,nyxc,xw->nhwc", wy, g.astype(np.float32, copy=False), wx, optimize=True)
    return (dx.astype(x.dtype, copy=False),)


def _bilinear_grad(op, g):
    x, _ = op.inputs
    if x.dtype not in _FLOATS:
        return [None, None]
    return [make("ResizeBilinearGrad", [g, x], _attrs(op)), None]


register_op("ResizeBilinear", infer=resize_infer, kernel=_bilinear_kernel, grad=_bilinear_grad)
register_op("ResizeBilinearGrad", infer=_bilinear_grad_infer, kernel=_bilinear_grad_kernel)


# --------------------------------------------------------------------------------------
# ResizeNearestNeighbor and ResizeNearestNeighborGrad
# --------------------------------------------------------------------------------------


def _nearest_kernel(ctx, op, x, size):
    h, w = check_run(op, x, size)
    a = _attrs(op)
    yi = _nearest_index(h, x.shape[1], a["align_corners"], a["half_pixel_centers"])
    xi = _nearest_index(w, x.shape[2], a["align_corners"], a["half_pixel_centers"])
    return (np.take(np.take(x, yi, axis=1), xi, axis=2),)


def _nearest_grad_infer(op):
    g, size = op.inputs
    check_dtype(g, _FLOATS + (_dt.int32, _dt.int64, _dt.int8, _dt.uint8), "grads")
    n, _, _, c = rank4(g, "grads")
    h, w = _size_of(size)
    return [(g.dtype, TensorShape([n, h, w, c]))]


def _nearest_grad_kernel(ctx, op, g, size):
    h, w = check_run(op, g, size)
    a = _attrs(op)
    # The forward mapping of the resized image (g's size) onto the original (size).
    yi = _nearest_index(g.shape[1], h, a["align_corners"], a["half_pixel_centers"])
    xi = _nearest_index(g.shape[2], w, a["align_corners"], a["half_pixel_centers"])
    dx = np.zeros((g.shape[0], h, w, g.shape[3]), g.dtype)
    np.add.at(dx, (slice(None), yi[:, None], xi[None, :]), g)
    return (dx,)


def _nearest_grad(op, g):
    x, _ = op.inputs
    if x.dtype not in _FLOATS:
        return [None, None]
    shape = array_ops.shape(x)
    hw = indexing_ops.strided_slice(shape, [1], [3])
    return [make("ResizeNearestNeighborGrad", [g, hw], _attrs(op)), None]


register_op("ResizeNearestNeighbor", infer=resize_infer, kernel=_nearest_kernel, grad=_nearest_grad)
register_op("ResizeNearestNeighborGrad", infer=_nearest_grad_infer, kernel=_nearest_grad_kernel)


# --------------------------------------------------------------------------------------
# Public functions
# --------------------------------------------------------------------------------------


def resize_op(op_type, images, size, align_corners, half_pixel_centers, name):
    with in_graph_of([images, size]):
        x = convert_to_tensor(images, name="images")
        s = convert_to_tensor(size, dtype=None if isinstance(size, Tensor) else _dt.int32)
        attrs = {
            "align_corners": bool(align_corners),
            "half_pixel_centers": bool(half_pixel_centers),
        }
        return make(op_type, [x, s], attrs, name, op_type)


def resize_bilinear(
    images: TensorLike,
    size: TensorLike,
    align_corners: bool = False,
    name: str | None = None,
    half_pixel_centers: bool = False,
) -> Tensor:
    """Resizes ``images`` [batch, height, width, channels] to ``size`` by bilinear
    interpolation (op ``ResizeBilinear``; the result is float32).

    Args:
      images: a 4-D tensor of a real dtype.
      size: an int32 vector ``[new_height, new_width]``.
      align_corners: align the corner pixels of input and output.
      name: the op name (default ``ResizeBilinear``).
      half_pixel_centers: sample at pixel centers (TF2's ``tf.image.resize``
        behaviour); needs ``align_corners=False``.
    """
    return resize_op("ResizeBilinear", images, size, align_corners, half_pixel_centers, name)


def resize_nearest_neighbor(
    images: TensorLike,
    size: TensorLike,
    align_corners: bool = False,
    name: str | None = None,
    half_pixel_centers: bool = False,
) -> Tensor:
    """Resizes ``images`` [batch, height, width, channels] to ``size`` by picking the
    nearest pixel (op ``ResizeNearestNeighbor``; the dtype is kept).

    Args as for :func:`resize_bilinear`.
    """
    return resize_op("ResizeNearestNeighbor", images, size, align_corners, half_pixel_centers, name)


def resize_images(
    images: TensorLike,
    size: TensorLike,
    method: int = ResizeMethod.BILINEAR,
    align_corners: bool = False,
    preserve_aspect_ratio: bool = False,
    name: str | None = None,
) -> Tensor:
    """Resizes an image [height, width, channels] or a batch [batch, height, width,
    channels] to ``size``, as TF1's ``tf.image.resize_images``.

    Args:
      images: a 3-D or 4-D tensor.
      size: ``[new_height, new_width]`` (ints or an int32 tensor).
      method: ``ResizeMethod.BILINEAR``, ``BICUBIC`` or ``AREA`` (float32 result) or
        ``ResizeMethod.NEAREST_NEIGHBOR`` (dtype kept).
      align_corners: align the corner pixels of input and output.
      preserve_aspect_ratio: scale to fit within ``size`` keeping the aspect ratio
        (needs a static image size).
      name: the name scope (default ``resize``).

    Returns:
      The resized image(s); the input itself when its static size already is ``size``.

    Raises:
      ValueError: for a shape that is not 3-D or 4-D, a bad ``size``, or an unsupported
        ``method``.
    """
    # image_resize builds on this module, so its functions are looked up when called.
    from . import image_resize

    fns = {
        ResizeMethod.BILINEAR: resize_bilinear,
        ResizeMethod.NEAREST_NEIGHBOR: resize_nearest_neighbor,
        ResizeMethod.BICUBIC: image_resize.resize_bicubic,
        ResizeMethod.AREA: image_resize.resize_area,
    }
    key = _METHOD_NAMES.get(method, method) if isinstance(method, str) else method
    if key not in fns:
        raise ValueError("Resize method is not implemented: %s" % (method,))
    with op_scope([images, size], name, "resize"):
        x = convert_to_tensor(images, name="images")
        if x.shape.ndims is None:
            raise ValueError("'images' contains no shape.")
        is_batch = x.shape.ndims == 4
        if x.shape.ndims == 3:
            x = array_ops.expand_dims(x, 0)
        elif x.shape.ndims != 4:
            raise ValueError("'images' must have either 3 or 4 dimensions.")
        _, height, width, _ = x.shape.as_list()
        s = convert_to_tensor(size, dtype=_dt.int32, name="size")
        if not s.shape.is_compatible_with(TensorShape([2])):
            raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
        v = int_list(s)
        if preserve_aspect_ratio:
            if v is None or height is None or width is None:
                raise ValueError(
                    "preserve_aspect_ratio needs a static image size and a constant size in flowrt"
                )
            scale = min(v[0] / height, v[1] / width)
            v = [int(round(height * scale)), int(round(width * scale))]
            s = convert_to_tensor(v, dtype=_dt.int32)
        if v is not None and [height, width] == v:
            return x if is_batch else array_ops.squeeze(x, [0])
        y = fns[key](x, s, align_corners=align_corners)
        y.set_shape([None] + (v if v is not None else [None, None]) + [None])
        return y if is_batch else array_ops.squeeze(y, [0])


resize = resize_images

_METHOD_NAMES = {
    "bilinear": ResizeMethod.BILINEAR,
    "nearest": ResizeMethod.NEAREST_NEIGHBOR,
    "bicubic": ResizeMethod.BICUBIC,
    "area": ResizeMethod.AREA,
}


# --------------------------------------------------------------------------------------
# ExtractImagePatches
# --------------------------------------------------------------------------------------


def _patches_attrs(op) -> dict:
    a = op.attrs
    return {"strides": a["strides"], "dilations": a["rates"], "padding": a["padding"]}


class _Geo:
    """The attrs ``conv_ops.geometry`` reads, from an ExtractImagePatches op's."""

    def __init__(self, op) -> None:
        self.attrs = _patches_attrs(op)


def _patches_infer(op):
    x = op.inputs[0]
    check_dtype(x, _IMAGE_DTYPES + (_dt.complex64, _dt.complex128), "images")
    n, h, w, c = rank4(x, "images")
    a = op.attrs
    for key in ("ksizes", "strides", "rates"):
        v = a[key]
        if len(v) != 4 or v[0] != 1 or v[3] != 1:
            raise ValueError(
                "%s must be [1, rows, cols, 1], got %s" % ("sizes" if key == "ksizes" else key, v)
            )
    kh, kw = a["ksizes"][1:3]
    (oh, _, _), (ow, _, _) = geometry(h, w, _Geo(op), kh, kw)
    depth = None if c is None else kh * kw * c
    return [(x.dtype, TensorShape([n, oh, ow, depth]))]


def _patches_kernel(ctx, op, x):
    if x.ndim != 4:
        raise errors.InvalidArgumentError(
            None, op, "input must be 4-dimensional, got shape %s" % list(x.shape)
        )
    a = op.attrs
    kh, kw = a["ksizes"][1:3]
    geo = geometry(x.shape[1], x.shape[2], _Geo(op), kh, kw)
    xp = pad_hw(x, geo)
    cols = windows(xp, geo, kh, kw, a["strides"], a["rates"])
    n, oh, ow = cols.shape[:3]
    return (np.ascontiguousarray(cols).reshape(n, oh, ow, kh * kw * x.shape[3]),)


def _patches_grad(op, g):
    # The patches are a Conv2D with a 0/1 filter picking each (row, col, channel) of a
    # window into its own output channel; the gradient is that filter's transpose.
    x = op.inputs[0]
    if x.dtype not in _FLOATS:
        return [None]
    c = x.shape[3] if x.shape.ndims == 4 else None
    if c is None:
        raise ValueError(
            "The gradient of ExtractImagePatches op %r needs the input's channel count" % op.name
        )
    kh, kw = op.attrs["ksizes"][1:3]
    eye = np.eye(kh * kw * c, dtype=x.dtype.np).reshape(kh, kw, c, kh * kw * c)
    a = op.attrs
    return [
        conv_ops.conv2d_backprop_input(
            array_ops.shape(x), eye, g, a["strides"], a["padding"], dilations=a["rates"]
        )
    ]


register_op("ExtractImagePatches", infer=_patches_infer, kernel=_patches_kernel, grad=_patches_grad)


def extract_image_patches(
    images: TensorLike,
    ksizes: list[int] | None = None,
    strides: list[int] | None = None,
    rates: list[int] | None = None,
    padding: str | None = None,
    name: str | None = None,
    sizes: list[int] | None = None,
) -> Tensor:
    """The ``ksizes`` windows of ``images`` [batch, height, width, depth] laid out in
    the depth dimension, as TF1's ``tf.extract_image_patches``.

    Args:
      images: a 4-D tensor.
      ksizes: ``[1, rows, cols, 1]``, the window size (``sizes`` is its TF2 name).
      strides: ``[1, stride_rows, stride_cols, 1]``.
      rates: ``[1, rate_rows, rate_cols, 1]``: the distance between sampled pixels.
      padding: ``"SAME"`` (zeros outside the image) or ``"VALID"``.
      name: the op name (default ``ExtractImagePatches``).
      sizes: TF2's name for ``ksizes``.

    Returns:
      [batch, out_rows, out_cols, rows * cols * depth], each patch in (row, col, depth)
      order.
    """
    if ksizes is not None and sizes is not None:
        raise ValueError("Can not specify both 'ksizes' and 'sizes'.")
    ks = ksizes if ksizes is not None else sizes
    if ks is None or strides is None or rates is None or padding is None:
        raise ValueError("extract_image_patches: sizes, strides, rates and padding are required")
    pad, _ = conv_ops.check_padding(padding, "ExtractImagePatches")
    with in_graph_of([images]):
        x = convert_to_tensor(images, name="images")
        attrs = {
            "ksizes": [int(v) for v in ks],
            "strides": [int(v) for v in strides],
            "rates": [int(v) for v in rates],
            "padding": pad,
        }
        return make("ExtractImagePatches", [x], attrs, name, "ExtractImagePatches")


def extract_patches(
    images: TensorLike,
    sizes: list[int],
    strides: list[int],
    rates: list[int],
    padding: str,
    name: str | None = None,
) -> Tensor:
    """TF2's spelling of :func:`extract_image_patches` (``tf.image.extract_patches``)."""
    return extract_image_patches(images, None, strides, rates, padding, name, sizes)
