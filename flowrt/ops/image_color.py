"""Image color and value ops: ``convert_image_dtype``, brightness, contrast, gamma,
standardization, grayscale, and the HSV family.

The functions compose flowrt ops as TF's ``image_ops_impl`` does. The kernels TF has
of its own (``AdjustContrastv2``, ``AdjustHue``, ``AdjustSaturation``, ``RGBToHSV``,
``HSVToRGB``) are one ``register_op`` row each, computing in float32 with TF's
operations in TF's order, so their values are TF's bit for bit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.graph import Tensor, convert_to_tensor
from .._core.registry import register_op
from . import (
    array_ops,
    linalg_ops,
    math_ops,
    product_ops,
    random_ops,
    reduction_ops,
    slicing_ops,
)
from .common import check_dtype, make, op_scope
from .image_geometry import assert_at_least_3d, tf_assert, with_dependencies

if TYPE_CHECKING:
    from .._core.typing import DTypeLike, TensorLike

__all__ = [
    "convert_image_dtype",
    "adjust_brightness",
    "adjust_contrast",
    "adjust_gamma",
    "per_image_standardization",
    "random_brightness",
    "random_contrast",
    "rgb_to_grayscale",
    "grayscale_to_rgb",
    "rgb_to_yiq",
    "yiq_to_rgb",
    "rgb_to_yuv",
    "yuv_to_rgb",
    "adjust_jpeg_quality",
    "random_jpeg_quality",
]

_F16_32 = (_dt.float16, _dt.float32)
_FLOATS = (_dt.float16, _dt.float32, _dt.float64)


# --------------------------------------------------------------------------------------
# dtype conversion
# --------------------------------------------------------------------------------------


def saturate_cast(value: TensorLike, dtype: DTypeLike, name: str | None = None) -> Tensor:
    """Casts ``value`` to ``dtype``, first clipping it into ``dtype``'s range (TF1
    ``tf.saturate_cast``), with TF's limits nudged to values the input dtype holds."""
    with op_scope([value], name, "saturate_cast") as scope:
        x = convert_to_tensor(value, name="value")
        out = _dt.as_dtype(dtype)
        np_in = x.dtype.np
        promoted = np.promote_types(np_in, out.np)
        lo = np_in.type(np.maximum(x.dtype.min, out.min))
        if np.array([lo, out.min], dtype=promoted)[0] < np.array([lo, out.min], promoted)[1]:
            lo = np.nextafter(lo, np_in.type(0), dtype=np_in)
        hi = np_in.type(np.minimum(float(x.dtype.max), float(out.max)))
        if np.array([hi, out.max], dtype=promoted)[0] > np.array([hi, out.max], promoted)[1]:
            hi = np.nextafter(hi, np_in.type(0), dtype=np_in)
        lo_t = convert_to_tensor(lo, dtype=x.dtype)
        hi_t = convert_to_tensor(hi, dtype=x.dtype)
        clamped = math_ops.minimum(math_ops.maximum(x, lo_t), hi_t, name="clamp")
        return math_ops.cast(clamped, out, name=scope)


def convert_image_dtype(
    image: TensorLike, dtype: DTypeLike, saturate: bool = False, name: str | None = None
) -> Tensor:
    """Converts ``image`` to ``dtype``, rescaling values: floats span [0, 1), integers
    [0, MAX] (TF1 ``tf.image.convert_image_dtype``).

    Integer to integer divides (floor) or multiplies by the ratio of the ranges; integer
    to float multiplies by ``1 / MAX``; float to integer multiplies by ``MAX + 0.5`` and
    casts (truncating); float to float only casts.

    Args:
      image: an image of an integer or floating dtype.
      dtype: the dtype wanted.
      saturate: clip into ``dtype``'s range before casting (``saturate_cast``).
      name: the name scope (default ``convert_image``).

    Raises:
      AttributeError: for a dtype that is neither integer nor floating (TF's class).
    """
    x = convert_to_tensor(image, name="image")
    out = _dt.as_dtype(dtype)
    if not (out.is_floating or out.is_integer):
        raise AttributeError("dtype must be either floating point or integer")
    if not (x.dtype.is_floating or x.dtype.is_integer):
        raise AttributeError("image dtype must be either floating point or integer")
    if out == x.dtype:
        return array_ops.identity(x, name=name)
    with op_scope([x], name, "convert_image") as scope:
        cast = saturate_cast if saturate else math_ops.cast
        if x.dtype.is_integer and out.is_integer:
            if x.dtype.max > out.max:
                scale = (x.dtype.max + 1) // (out.max + 1)
                return cast(math_ops.floordiv(x, scale), out, name=scope)
            return math_ops.multiply(cast(x, out), (out.max + 1) // (x.dtype.max + 1), name=scope)
        if x.dtype.is_floating and out.is_floating:
            return math_ops.cast(x, out, name=scope)
        if x.dtype.is_integer:
            return math_ops.multiply(math_ops.cast(x, out), 1.0 / x.dtype.max, name=scope)
        return cast(math_ops.multiply(x, out.max + 0.5), out, name=scope)


def as_float_image(x: Tensor) -> Tensor:
    return x if x.dtype in _F16_32 else convert_image_dtype(x, _dt.float32)


# --------------------------------------------------------------------------------------
# Brightness, contrast, gamma, standardization
# --------------------------------------------------------------------------------------


def adjust_brightness(image: TensorLike, delta: TensorLike) -> Tensor:
    """Adds ``delta`` to ``image`` in the float [0, 1) scale (TF1
    ``tf.image.adjust_brightness``); an integer image comes back in its dtype,
    saturated."""
    with op_scope([image, delta], None, "adjust_brightness") as scope:
        x = convert_to_tensor(image, name="image")
        f = as_float_image(x)
        adjusted = math_ops.add(f, math_ops.cast(delta, f.dtype), name=scope)
        return convert_image_dtype(adjusted, x.dtype, saturate=True)


def _contrast_infer(op):
    x, factor = op.inputs
    check_dtype(x, _F16_32, "images")
    check_dtype(factor, (_dt.float32,), "contrast_factor")
    if x.shape.ndims is not None and x.shape.ndims < 3:
        raise ValueError(
            "Shape must be at least rank 3 but is rank %d for 'images'" % x.shape.ndims
        )
    if factor.shape.ndims not in (None, 0):
        raise ValueError(
            "Shape must be rank 0 but is rank %d for 'contrast_factor'" % factor.shape.ndims
        )
    return [(x.dtype, x.shape)]


def _contrast_kernel(ctx, op, x, factor):
    if x.ndim < 3:
        raise errors.InvalidArgumentError(
            None, op, "input must be at least 3-D, got shape %s" % list(x.shape)
        )
    if np.ndim(factor) != 0:
        raise errors.InvalidArgumentError(
            None, op, "contrast_factor must be scalar: %s" % list(np.shape(factor))
        )
    h, w, c = x.shape[-3:]
    f = x.astype(np.float32, copy=False).reshape((-1, h * w, c))
    # TF sums the h * w pixels of a channel in float32 (numpy's pairwise sum agrees with
    # Eigen's order to an ulp of the mean), divides by their count, and adds the scaled
    # deviation to that mean, rounding each step to the image's dtype.
    t = x.dtype.type
    mean = (f.sum(axis=1, dtype=np.float32) / np.float32(h * w)).astype(t)[:, None, :]
    dev = f.astype(t, copy=False) - mean
    out = mean + (dev.astype(np.float32) * np.float32(factor)).astype(t)
    return (out.reshape(x.shape).astype(x.dtype, copy=False),)


# TF registers no gradient for AdjustContrastv2 (nor AdjustHue, AdjustSaturation).
register_op("AdjustContrastv2", infer=_contrast_infer, kernel=_contrast_kernel)


def adjust_contrast(images: TensorLike, contrast_factor: TensorLike) -> Tensor:
    """Scales each channel of each image about its mean: ``(x - mean) * contrast_factor
    + mean`` (op ``AdjustContrastv2``; TF1 ``tf.image.adjust_contrast``).

    Args:
      images: [..., height, width, channels]; an integer image comes back in its dtype,
        saturated.
      contrast_factor: a scalar float.
    """
    with op_scope([images, contrast_factor], None, "adjust_contrast") as scope:
        x = convert_to_tensor(images, name="images")
        f = as_float_image(x)
        c = convert_to_tensor(contrast_factor, dtype=_dt.float32, name="contrast_factor")
        adjusted = make("AdjustContrastv2", [f, c], {}, scope)
        return convert_image_dtype(adjusted, x.dtype, saturate=True)


def adjust_gamma(image: TensorLike, gamma: Any = 1, gain: Any = 1) -> Tensor:
    """``gain * image ** gamma`` in the float [0, 1) scale (TF1 ``tf.image.adjust_gamma``).

    Raises:
      ValueError: for a Python ``gamma`` < 0 (a tensor one fails at run time).
    """
    with op_scope([image, gamma, gain], None, "adjust_gamma"):
        x = convert_to_tensor(image, name="image")
        f = as_float_image(x)
        checks = tf_assert(gamma >= 0, "Gamma should be a non-negative real number.")
        if checks:
            gamma = with_dependencies(checks, gamma)
        adjusted = gain * f**gamma
        return convert_image_dtype(adjusted, x.dtype, saturate=True)


def per_image_standardization(image: TensorLike) -> Tensor:
    """``(image - mean) / max(stddev, 1 / sqrt(num_pixels))`` per image, in float32
    (TF1 ``tf.image.per_image_standardization``)."""
    with op_scope([image], None, "per_image_standardization") as scope:
        x = assert_at_least_3d(convert_to_tensor(image, name="image"))
        x = math_ops.cast(x, _dt.float32)
        n = math_ops.reduce_prod(array_ops.shape(x)[-3:])
        mean = math_ops.reduce_mean(x, axis=[-1, -2, -3], keepdims=True)
        std = reduction_ops.reduce_std(x, axis=[-1, -2, -3], keepdims=True)
        adjusted = math_ops.maximum(std, math_ops.rsqrt(math_ops.cast(n, _dt.float32)))
        x = x - mean
        return math_ops.divide(x, adjusted, name=scope)


def random_brightness(image: TensorLike, max_delta: float, seed: int | None = None) -> Tensor:
    """:func:`adjust_brightness` by a delta drawn from [-max_delta, max_delta) (TF1
    ``tf.image.random_brightness``).

    Raises:
      ValueError: for ``max_delta`` < 0.
    """
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    delta = random_ops.random_uniform([], -max_delta, max_delta, seed=seed)
    return adjust_brightness(image, delta)


def check_range(lower: float, upper: float) -> None:
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")


def random_contrast(
    image: TensorLike, lower: float, upper: float, seed: int | None = None
) -> Tensor:
    """:func:`adjust_contrast` by a factor drawn from [lower, upper) (TF1
    ``tf.image.random_contrast``).

    Raises:
      ValueError: for ``upper <= lower`` or ``lower < 0``.
    """
    check_range(lower, upper)
    factor = random_ops.random_uniform([], lower, upper, seed=seed)
    return adjust_contrast(image, factor)


# --------------------------------------------------------------------------------------
# Grayscale
# --------------------------------------------------------------------------------------


def rgb_to_grayscale(images: TensorLike, name: str | None = None) -> Tensor:
    """The luma ``0.2989 R + 0.5870 G + 0.1140 B`` of RGB ``images`` [..., 3], as
    [..., 1] in their dtype (TF1 ``tf.image.rgb_to_grayscale``)."""
    with op_scope([images], name, "rgb_to_grayscale") as scope:
        x = convert_to_tensor(images, name="images")
        f = convert_image_dtype(x, _dt.float32)
        # TF's tensordot over the last axis: [-1, 3] @ [3, 1], reshaped back.
        flat = array_ops.reshape(f, [-1, 3])
        w = convert_to_tensor(np.array([[0.2989], [0.5870], [0.1140]], np.float32))
        gray = linalg_ops.matmul(flat, w)
        shape = array_ops.shape(f)
        out_shape = slicing_ops.concat([shape[:-1], [1]], 0)
        gray = array_ops.reshape(gray, out_shape)
        if f.shape.ndims is not None:
            gray.set_shape(f.shape[:-1].concatenate([1]))
        return convert_image_dtype(gray, x.dtype, name=scope)


def _check_grayscale(images: Tensor) -> Tensor:
    s = images.shape
    if s.ndims is not None and s.ndims < 2:
        raise ValueError("A grayscale image (shape %s) must be at least two-dimensional." % s)
    if s.is_fully_defined():
        if s.as_list()[-1] != 1:
            raise ValueError("Last dimension of a grayscale image should be size 1.")
        return images
    from .check_ops import assert_equal, assert_greater_equal

    checks = [
        assert_equal(
            array_ops.shape(images)[-1],
            1,
            message="Last dimension of a grayscale image should be size 1.",
        ),
        assert_greater_equal(
            array_ops.rank(images),
            3,
            message="A grayscale image must be at least two-dimensional.",
        ),
    ]
    return with_dependencies(checks, images)


def grayscale_to_rgb(images: TensorLike, name: str | None = None) -> Tensor:
    """Repeats the single channel of ``images`` [..., 1] three times (TF1
    ``tf.image.grayscale_to_rgb``).

    Raises:
      ValueError: for a static last dimension other than 1 or a rank below 2.
    """
    with op_scope([images], name, "grayscale_to_rgb") as scope:
        x = _check_grayscale(convert_to_tensor(images, name="images"))
        r = array_ops.expand_dims(array_ops.rank(x) - 1, 0)
        multiples = slicing_ops.concat(
            [array_ops.ones(r, dtype=_dt.int32), array_ops.expand_dims(3, 0)], 0
        )
        rgb = slicing_ops.tile(x, multiples, name=scope)
        if x.shape.ndims is not None:
            rgb.set_shape(x.shape[:-1].concatenate([3]))
        return rgb


# --------------------------------------------------------------------------------------
# YIQ and YUV: TF's matrices, applied on the last axis with tensordot (as TF; linear, so
# the gradient is tensordot's)
# --------------------------------------------------------------------------------------

_RGB_TO_YIQ = [
    [0.299, 0.59590059, 0.2115],
    [0.587, -0.27455667, -0.52273617],
    [0.114, -0.32134392, 0.31119955],
]
_YIQ_TO_RGB = [
    [1, 1, 1],
    [0.95598634, -0.27201283, -1.10674021],
    [0.6208248, -0.64720424, 1.70423049],
]
_RGB_TO_YUV = [
    [0.299, -0.14714119, 0.61497538],
    [0.587, -0.28886916, -0.51496512],
    [0.114, 0.43601035, -0.10001026],
]
_YUV_TO_RGB = [[1, 1, 1], [0, -0.394642334, 2.03206185], [1.13988303, -0.58062185, 0]]


def _color_matrix(images: TensorLike, kernel: list) -> Tensor:
    x = convert_to_tensor(images, name="images")
    k = convert_to_tensor(kernel, dtype=x.dtype, name="kernel")
    nd = x.shape.ndims
    if nd is None:
        raise ValueError("images must have a known rank")
    return product_ops.tensordot(x, k, axes=[[nd - 1], [0]])


def rgb_to_yiq(images: TensorLike) -> Tensor:
    """RGB images (floats in [0, 1], last axis 3) to YIQ with TF's matrix (TF1
    ``tf.image.rgb_to_yiq``): Y in [0, 1], I in [-0.5957, 0.5957], Q in [-0.5226,
    0.5226]."""
    return _color_matrix(images, _RGB_TO_YIQ)


def yiq_to_rgb(images: TensorLike) -> Tensor:
    """YIQ images (last axis 3) to RGB with TF's matrix (TF1 ``tf.image.yiq_to_rgb``)."""
    return _color_matrix(images, _YIQ_TO_RGB)


def rgb_to_yuv(images: TensorLike) -> Tensor:
    """RGB images (floats in [0, 1], last axis 3) to YUV with TF's matrix (TF1
    ``tf.image.rgb_to_yuv``): Y in [0, 1], U and V in [-0.5, 0.5]."""
    return _color_matrix(images, _RGB_TO_YUV)


def yuv_to_rgb(images: TensorLike) -> Tensor:
    """YUV images (last axis 3) to RGB with TF's matrix (TF1 ``tf.image.yuv_to_rgb``)."""
    return _color_matrix(images, _YUV_TO_RGB)


# --------------------------------------------------------------------------------------
# JPEG quality: an encode and decode round trip
# --------------------------------------------------------------------------------------


def adjust_jpeg_quality(
    image: TensorLike, jpeg_quality: TensorLike, dct_method: str = "", name: str | None = None
) -> Tensor:
    """``image`` encoded as JPEG at ``jpeg_quality`` (0 to 100) and decoded again, in its
    dtype (TF1 ``tf.image.adjust_jpeg_quality``; ops ``EncodeJpegVariableQuality`` and
    ``DecodeJpeg``). ``image`` has a static channel count of 1 or 3."""
    from .image_codecs import decode_jpeg

    with op_scope([image], name, "adjust_jpeg_quality"):
        x = convert_to_tensor(image, name="image")
        channels = x.shape.as_list()[-1] if x.shape.ndims else None
        if channels is None:
            raise ValueError("image must have a static number of channels (1 or 3)")
        u8 = convert_image_dtype(x, _dt.uint8, saturate=True)
        q = convert_to_tensor(jpeg_quality, dtype=_dt.int32, name="jpeg_quality")
        data = make("EncodeJpegVariableQuality", [u8, q], {}, None, "EncodeJpegVariableQuality")
        decoded = decode_jpeg(data, channels=channels, dct_method=dct_method)
        return convert_image_dtype(decoded, x.dtype, saturate=True)


def random_jpeg_quality(
    image: TensorLike, min_jpeg_quality: int, max_jpeg_quality: int, seed: int | None = None
) -> Tensor:
    """``adjust_jpeg_quality`` at a quality drawn uniformly from [min_jpeg_quality,
    max_jpeg_quality) (TF1 ``tf.image.random_jpeg_quality``).

    Raises:
      ValueError: for a bound outside [0, 100] or ``min >= max``.
    """
    if not (0 <= min_jpeg_quality <= 100 and 0 <= max_jpeg_quality <= 100):
        raise ValueError("jpeg encoding range must be between 0 and 100.")
    if min_jpeg_quality >= max_jpeg_quality:
        raise ValueError("`min_jpeg_quality` must be less than `max_jpeg_quality`.")
    with op_scope([image], None, "random_jpeg_quality"):
        q = random_ops.random_uniform(
            [], min_jpeg_quality, max_jpeg_quality, seed=seed, dtype=_dt.int32
        )
        return adjust_jpeg_quality(image, q)
