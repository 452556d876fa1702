"""Image metrics and filters composed of flowrt ops as TF's ``image_ops_impl`` composes
them (so their gradients come from those ops): ``total_variation``,
``image_gradients``, ``sobel_edges``, ``psnr``, ``ssim`` and ``ssim_multiscale``."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes as _dt
from .._core.graph import Tensor, convert_to_tensor, get_default_graph
from . import array_ops, check_ops, control_flow_ops, math_ops, nn_ops, pool_ops, slicing_ops
from .common import op_scope
from .depthwise_conv_ops import depthwise_conv2d
from .image_color import convert_image_dtype

if TYPE_CHECKING:
    from .._core.typing import TensorLike

__all__ = ["total_variation", "image_gradients", "sobel_edges", "psnr", "ssim", "ssim_multiscale"]


def total_variation(images: TensorLike, name: str | None = None) -> Tensor:
    """The sum of absolute differences between neighbouring pixels, per image (TF1
    ``tf.image.total_variation``): a scalar for a 3-D image, [batch] for a 4-D batch.

    Raises:
      ValueError: for a rank other than 3 or 4.
    """
    with op_scope([images], name, "total_variation"):
        x = convert_to_tensor(images, name="images")
        nd = x.shape.ndims
        if nd == 3:
            d1 = x[1:, :, :] - x[:-1, :, :]
            d2 = x[:, 1:, :] - x[:, :-1, :]
            axis = None
        elif nd == 4:
            d1 = x[:, 1:, :, :] - x[:, :-1, :, :]
            d2 = x[:, :, 1:, :] - x[:, :, :-1, :]
            axis = [1, 2, 3]
        else:
            raise ValueError("'images' must be either 3 or 4-dimensional.")
        return math_ops.reduce_sum(math_ops.abs(d1), axis=axis) + math_ops.reduce_sum(
            math_ops.abs(d2), axis=axis
        )


def image_gradients(image: TensorLike) -> tuple[Tensor, Tensor]:
    """``(dy, dx)``: each pixel's forward difference to the pixel below / to the right,
    0 on the last row / column (TF1 ``tf.image.image_gradients``).

    Raises:
      ValueError: for an image that is not 4-D.
    """
    x = convert_to_tensor(image, name="image")
    if x.shape.ndims != 4:
        raise ValueError(
            "image_gradients expects a 4D tensor [batch_size, h, w, d], not %s." % x.shape
        )
    shape = array_ops.shape(x)
    n, h, w, d = slicing_ops.unstack(shape)
    dy = x[:, 1:, :, :] - x[:, :-1, :, :]
    dx = x[:, :, 1:, :] - x[:, :, :-1, :]
    dy = slicing_ops.concat([dy, array_ops.zeros(array_ops.stack([n, 1, w, d]), x.dtype)], 1)
    dx = slicing_ops.concat([dx, array_ops.zeros(array_ops.stack([n, h, 1, d]), x.dtype)], 2)
    return array_ops.reshape(dy, shape), array_ops.reshape(dx, shape)


def sobel_edges(image: TensorLike) -> Tensor:
    """The vertical and horizontal 3x3 Sobel responses of each channel, the image
    reflected at its borders: [batch, h, w, d, 2] (TF1 ``tf.image.sobel_edges``)."""
    x = convert_to_tensor(image, name="image")
    static = x.shape
    shape = array_ops.shape(x)
    k = np.array([[[-1, -2, -1], [0, 0, 0], [1, 2, 1]], [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]]])
    k = np.expand_dims(np.transpose(k, (1, 2, 0)), -2)
    kt = slicing_ops.tile(
        array_ops.constant(k, dtype=x.dtype), [1, 1, shape[-1], 1], name="sobel_filters"
    )
    padded = slicing_ops.pad(x, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="REFLECT")
    out = depthwise_conv2d(padded, kt, [1, 1, 1, 1], "VALID")
    out = array_ops.reshape(out, slicing_ops.concat([shape, [2]], 0))
    if static.ndims is not None:
        out.set_shape(static.concatenate([2]))
    return out


def _compatible_shapes(a: Tensor, b: Tensor) -> list:
    s1, s2 = a.shape.with_rank_at_least(3), b.shape.with_rank_at_least(3)
    s1[-3:].assert_is_compatible_with(s2[-3:])
    if s1.ndims is not None and s2.ndims is not None:
        for d1, d2 in zip(reversed(s1.as_list()[:-3]), reversed(s2.as_list()[:-3])):
            if not (d1 == 1 or d2 == 1 or d1 is None or d2 is None or d1 == d2):
                raise ValueError("Two images are not compatible: %s and %s" % (s1, s2))
    sh1, sh2 = array_ops.shape(a), array_ops.shape(b)
    return [
        check_ops.Assert(math_ops.greater_equal(array_ops.size(sh1), 3), [sh1, sh2], summarize=10),
        check_ops.Assert(
            math_ops.reduce_all(math_ops.equal(sh1[-3:], sh2[-3:])), [sh1, sh2], summarize=10
        ),
    ]


def psnr(a: TensorLike, b: TensorLike, max_val: TensorLike, name: str | None = None) -> Tensor:
    """The peak signal-to-noise ratio of ``a`` against ``b`` in dB, over the last three
    dims (TF1 ``tf.image.psnr``).

    Args:
      a: images [..., h, w, c].
      b: images of ``a``'s shape (leading dims broadcast).
      max_val: the dynamic range (255 for uint8 images, 1.0 for floats in [0, 1]).
      name: the name scope (default ``PSNR``).
    """
    with op_scope([a, b], name, "PSNR"):
        a = convert_to_tensor(a, name="a")
        b = convert_to_tensor(b, name="b")
        mv = convert_image_dtype(math_ops.cast(max_val, a.dtype), _dt.float32)
        a = convert_image_dtype(a, _dt.float32)
        b = convert_image_dtype(b, _dt.float32)
        mse = math_ops.reduce_mean(math_ops.squared_difference(a, b), [-3, -2, -1])
        val = math_ops.subtract(
            20 * math_ops.log(mv) / math_ops.log(10.0),
            np.float32(10 / np.log(10)) * math_ops.log(mse),
            name="psnr",
        )
        with get_default_graph().control_dependencies(_compatible_shapes(a, b)):
            return array_ops.identity(val)


def _gauss(size: Tensor, sigma: Tensor) -> Tensor:
    coords = math_ops.cast(array_ops.range(size), sigma.dtype)
    coords -= math_ops.cast(size - 1, sigma.dtype) / 2.0
    g = math_ops.square(coords)
    g *= -0.5 / math_ops.square(sigma)
    g = array_ops.reshape(g, [1, -1]) + array_ops.reshape(g, [-1, 1])
    g = nn_ops.softmax(array_ops.reshape(g, [1, -1]))
    return array_ops.reshape(g, array_ops.stack([size, size, 1, 1]))


def ssim(
    img1: TensorLike,
    img2: TensorLike,
    max_val: TensorLike,
    filter_size: int = 11,
    filter_sigma: float = 1.5,
    k1: float = 0.01,
    k2: float = 0.03,
    return_index_map: bool = False,
) -> Tensor:
    """The structural similarity of ``img1`` and ``img2`` [..., h, w, c] with an
    ``filter_size`` Gaussian window, averaged over pixels and channels (TF1
    ``tf.image.ssim``); with ``return_index_map`` the per-pixel map.

    Args:
      img1: images, at least ``filter_size`` high and wide.
      img2: images of ``img1``'s shape.
      max_val: the dynamic range of the pixel values.
      filter_size: the Gaussian window's size.
      filter_sigma: the Gaussian's width.
      k1: the luminance constant.
      k2: the contrast-structure constant.
      return_index_map: return the map of local SSIM values instead of the mean.
    """
    with op_scope([img1, img2], None, "SSIM"):
        x, y, mv = _prepare(img1, img2, max_val)
        if return_index_map:
            luminance, cs = _ssim_maps(x, y, mv, filter_size, filter_sigma, k1, k2)
            return math_ops.reduce_mean(luminance * cs, [-1])
        per_channel, _ = _ssim_per_channel(x, y, mv, filter_size, filter_sigma, k1, k2)
        return math_ops.reduce_mean(per_channel, [-1])


def _prepare(img1, img2, max_val):
    x = convert_to_tensor(img1, name="img1")
    y = convert_to_tensor(img2, name="img2")
    with get_default_graph().control_dependencies(_compatible_shapes(x, y)):
        x = array_ops.identity(x)
    mv = convert_image_dtype(math_ops.cast(max_val, x.dtype), _dt.float32)
    return convert_image_dtype(x, _dt.float32), convert_image_dtype(y, _dt.float32), mv


def _ssim_maps(x, y, mv, filter_size, filter_sigma, k1, k2):
    """TF's ``_ssim_helper`` through a Gaussian window: the luminance and
    contrast-structure maps [..., h', w', c]."""
    size = array_ops.constant(filter_size, dtype=_dt.int32)
    sigma = array_ops.constant(filter_sigma, dtype=x.dtype)
    sh1, sh2 = array_ops.shape(x), array_ops.shape(y)
    checks = [
        check_ops.Assert(
            math_ops.reduce_all(math_ops.greater_equal(sh[-3:-1], size)),
            [sh, size],
            summarize=8,
        )
        for sh in (sh1, sh2)
    ]
    with get_default_graph().control_dependencies(checks):
        x = array_ops.identity(x)
    kernel = slicing_ops.tile(_gauss(size, sigma), [1, 1, sh1[-1], 1])

    def reducer(t):
        shape = array_ops.shape(t)
        t = array_ops.reshape(t, slicing_ops.concat([[-1], shape[-3:]], 0))
        r = depthwise_conv2d(t, kernel, [1, 1, 1, 1], "VALID")
        return array_ops.reshape(r, slicing_ops.concat([shape[:-3], array_ops.shape(r)[1:]], 0))

    c1 = (k1 * mv) ** 2
    c2 = (k2 * mv) ** 2
    mean0, mean1 = reducer(x), reducer(y)
    num0 = mean0 * mean1 * 2.0
    den0 = math_ops.square(mean0) + math_ops.square(mean1)
    luminance = (num0 + c1) / (den0 + c1)
    num1 = reducer(x * y) * 2.0
    den1 = reducer(math_ops.square(x) + math_ops.square(y))
    cs = (num1 - num0 + c2) / (den1 - den0 + c2)
    return luminance, cs


def _ssim_per_channel(x, y, mv, filter_size, filter_sigma, k1, k2):
    """TF's ``_ssim_per_channel``: the mean SSIM and contrast-structure per channel."""
    luminance, cs = _ssim_maps(x, y, mv, filter_size, filter_sigma, k1, k2)
    return math_ops.reduce_mean(luminance * cs, [-3, -2]), math_ops.reduce_mean(cs, [-3, -2])


def _identities(ts: list) -> list:
    return [array_ops.identity(t) for t in ts]


_MSSSIM_WEIGHTS = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333)


def ssim_multiscale(
    img1: TensorLike,
    img2: TensorLike,
    max_val: TensorLike,
    power_factors: Sequence[float] = _MSSSIM_WEIGHTS,
    filter_size: int = 11,
    filter_sigma: float = 1.5,
    k1: float = 0.01,
    k2: float = 0.03,
) -> Tensor:
    """The multi-scale structural similarity of ``img1`` and ``img2`` [..., h, w, c]
    (Wang et al. 2003; TF1 ``tf.image.ssim_multiscale``): the contrast-structure terms
    of ``len(power_factors)`` scales (each a 2x2 average pool of the one before, an odd
    size padded symmetrically first) and the last scale's SSIM, combined as a weighted
    geometric mean, averaged over channels.

    Args:
      img1: images; the smallest scale must still be ``filter_size`` high and wide.
      img2: images of ``img1``'s shape.
      max_val: the dynamic range of the pixel values.
      power_factors: the weight of each scale (default: the paper's five).
      filter_size: the Gaussian window's size.
      filter_sigma: the Gaussian's width.
      k1: the luminance constant.
      k2: the contrast-structure constant.
    """
    with op_scope([img1, img2], None, "MS-SSIM"):
        x, y, mv = _prepare(img1, img2, max_val)
        imgs = [x, y]
        heads = [array_ops.shape(t)[:-3] for t in imgs]
        tails = [array_ops.shape(t)[-3:] for t in imgs]
        divisor = [1, 2, 2, 1]
        divisor_t = array_ops.constant(divisor[1:], dtype=_dt.int32)

        def do_pad(images, remainder):
            padding = array_ops.expand_dims(remainder, -1)
            padding = slicing_ops.pad(padding, [[1, 0], [1, 0]])
            return [slicing_ops.pad(t, padding, mode="SYMMETRIC") for t in images]

        mcs = []
        for k in range(len(power_factors)):
            with get_default_graph().name_scope("Scale%d" % k):
                if k > 0:
                    flat = [
                        array_ops.reshape(t, slicing_ops.concat([[-1], tl], 0))
                        for t, tl in zip(imgs, tails)
                    ]
                    remainder = math_ops.floormod(tails[0], divisor_t)
                    need_padding = math_ops.reduce_any(math_ops.not_equal(remainder, 0))
                    padded = control_flow_ops.cond(
                        need_padding,
                        functools.partial(do_pad, flat, remainder),
                        functools.partial(_identities, flat),
                    )
                    down = [pool_ops.avg_pool(t, divisor, divisor, "VALID") for t in padded]
                    tails = [array_ops.shape(t)[1:] for t in down]
                    imgs = [
                        array_ops.reshape(t, slicing_ops.concat([h, tl], 0))
                        for t, h, tl in zip(down, heads, tails)
                    ]
                per_channel, cs = _ssim_per_channel(
                    imgs[0], imgs[1], mv, filter_size, filter_sigma, k1, k2
                )
                mcs.append(nn_ops.relu(cs))
        mcs.pop()
        stacked = array_ops.stack(mcs + [nn_ops.relu(per_channel)], axis=-1)
        weights = array_ops.constant(np.asarray(power_factors, np.float32))
        ms_ssim = math_ops.reduce_prod(math_ops.pow(stacked, weights), [-1])
        return math_ops.reduce_mean(ms_ssim, [-1])
