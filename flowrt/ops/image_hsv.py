"""The HSV family of ``fr.image``: the ``RGBToHSV``, ``HSVToRGB``, ``AdjustHue`` and
``AdjustSaturation`` kernels (one ``register_op`` row each) and the functions over them.

Each kernel works on the last axis (3 channels) of an image of any rank, in float32 for
half and float32 images (TF's kernels compute so), with TF's per-pixel steps vectorized
over the pixels: ``AdjustHue`` turns a pixel into a hue in [0, 6) and its min/max, and
back; ``AdjustSaturation`` into hue/saturation/value, and back. ``RGBToHSV``'s gradient
is TF's, composed of flowrt ops; the others have none in TF.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.graph import Tensor, convert_to_tensor
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from . import array_ops, math_ops, random_ops
from .common import check_dtype, make, op_scope
from .image_color import as_float_image, check_range, convert_image_dtype

if TYPE_CHECKING:
    from .._core.typing import TensorLike

__all__ = [
    "rgb_to_hsv",
    "hsv_to_rgb",
    "adjust_hue",
    "adjust_saturation",
    "random_hue",
    "random_saturation",
]

_F16_32 = (_dt.float16, _dt.float32)
_FLOATS = (_dt.float16, _dt.float32, _dt.float64)


def _rgb_infer(allowed, arg):
    def infer(op):
        x = op.inputs[0]
        check_dtype(x, allowed, arg)
        s = x.shape
        if s.ndims is not None and s.ndims < 1:
            raise ValueError("Shape must be at least rank 1 but is rank 0 for '%s'" % arg)
        if s.ndims is not None and s[-1] not in (None, 3):
            raise ValueError("Dimension must be 3 but is %d for '%s'" % (s[-1], arg))
        for t in op.inputs[1:]:
            if t.shape.ndims not in (None, 0):
                raise ValueError("Shape must be rank 0 but is rank %d" % t.shape.ndims)
        return [(x.dtype, s)]

    return infer


def _check_rgb(op, x: np.ndarray, min_rank: int = 1) -> None:
    if x.ndim < min_rank:
        raise errors.InvalidArgumentError(
            None,
            op,
            "input must be at least %s, got shape %s"
            % ("1D" if min_rank == 1 else "3-D", list(x.shape)),
        )
    if x.shape[-1] != 3:
        raise errors.InvalidArgumentError(
            None,
            op,
            "input must have 3 channels but input only has %d channels." % x.shape[-1],
        )


# --------------------------------------------------------------------------------------
# RGBToHSV and HSVToRGB (in the image's own dtype, as TF's Eigen kernels)
# --------------------------------------------------------------------------------------


def _channels(x: np.ndarray):
    return (x[..., i] for i in range(3))


def _rgb_to_hsv_np(x: np.ndarray) -> np.ndarray:
    t = x.dtype.type
    r, g, b = _channels(x)
    v = np.maximum(np.maximum(r, g), b)
    rng = v - np.minimum(np.minimum(r, g), b)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(v > 0, rng / v, t(0))
        norm = (t(1) / rng) * (t(1) / t(6))
        h = np.where(
            r == v,
            norm * (g - b),
            np.where(g == v, norm * (b - r) + t(2) / t(6), norm * (r - g) + t(4) / t(6)),
        )
    h = np.where(rng > 0, h, t(0))
    h = np.where(h < 0, h + t(1), h)
    return np.stack([h, s, v], axis=-1).astype(x.dtype, copy=False)


def _rgb_to_hsv_kernel(ctx, op, x):
    _check_rgb(op, x)
    return (_rgb_to_hsv_np(x),)


def _hsv_to_rgb_kernel(ctx, op, x):
    _check_rgb(op, x)
    t = x.dtype.type
    h, s, v = _channels(x)
    dh = h * t(6)
    dr = np.clip(np.abs(dh - t(3)) - t(1), t(0), t(1))
    dg = np.clip(-np.abs(dh - t(2)) + t(2), t(0), t(1))
    db = np.clip(-np.abs(dh - t(4)) + t(2), t(0), t(1))
    one_minus_s = t(1) - s
    out = [(one_minus_s + s * d) * v for d in (dr, dg, db)]
    return (np.stack(out, axis=-1).astype(x.dtype, copy=False),)


def _rgb_to_hsv_grad(op, grad):
    # TF's gradient (image_grad.py), term for term: piecewise partial derivatives of
    # v, s and h selected by which channel is the largest and the smallest.
    x, y = op.inputs[0], op.outputs[0]
    dt = x.dtype
    r, g, b = x[..., 0], x[..., 1], x[..., 2]
    sat, val = y[..., 1], y[..., 2]

    def f(c):
        return math_ops.cast(c, dt)

    def rcp(t):
        return math_ops.div_no_nan(math_ops.cast(1.0, dt), t)

    sq = math_ops.square
    r_big = f(math_ops.logical_and(r >= b, r >= g))
    g_big = f(math_ops.logical_and(g > r, g >= b))
    b_big = f(math_ops.logical_and(b > r, b > g))
    r_small = f(math_ops.logical_and(r < b, r < g))
    g_small = f(math_ops.logical_and(g <= r, g < b))
    b_small = f(math_ops.logical_and(b <= r, b <= g))
    r_pos, g_pos, b_pos = f(r > 0), f(g > 0), f(b > 0)

    ds_dr = r_pos * math_ops.add(
        r_big * math_ops.add(g_small * g, b_small * b) * rcp(sq(r)),
        r_small * -1 * rcp((g_big * g) + (b_big * b)),
    )
    ds_dg = g_pos * math_ops.add(
        g_big * math_ops.add(r_small * r, b_small * b) * rcp(sq(g)),
        g_small * -1 * rcp((r_big * r) + (b_big * b)),
    )
    ds_db = b_pos * math_ops.add(
        b_big * math_ops.add(g_small * g, r_small * r) * rcp(sq(b)),
        b_small * -1 * rcp((g_big * g) + (r_big * r)),
    )
    sv = rcp(sq(sat)) * rcp(sq(val))
    dh_dr = (
        60 * (r_pos * r_big * -1 * (g - b) * sv)
        + 60 * (g_pos * g_big * r_small * (b - g) * rcp(sq(r - g)))
        + 60 * (g_pos * g_big * b_small * -1 * rcp(g - b))
        + 60 * (b_pos * b_big * r_small * (b - g) * rcp(sq(b - r)))
        + 60 * (b_pos * b_big * g_small * rcp(b - g))
    ) / 360
    dh_dg = (
        60 * (g_pos * g_big * -1 * (b - r) * sv)
        + 60 * (r_pos * r_big * g_small * (r - b) * rcp(sq(r - g)))
        + 60 * (r_pos * r_big * b_small * rcp(r - b))
        + 60 * (b_pos * b_big * g_small * (r - b) * rcp(sq(b - g)))
        + 60 * (b_pos * b_big * r_small * -1 * rcp(b - r))
    ) / 360
    dh_db = (
        60 * (b_pos * b_big * -1 * (r - g) * sv)
        + 60 * (r_pos * r_big * b_small * (g - r) * rcp(sq(r - b)))
        + 60 * (r_pos * r_big * g_small * -1 * rcp(r - g))
        + 60 * (g_pos * g_big * b_small * (g - r) * rcp(sq(g - b)))
        + 60 * (g_pos * g_big * r_small * rcp(g - r))
    ) / 360
    gh, gs, gv = grad[..., 0], grad[..., 1], grad[..., 2]
    dv = array_ops.stack([gv * r_big, gv * g_big, gv * b_big], axis=-1)
    ds = array_ops.stack([gs * ds_dr, gs * ds_dg, gs * ds_db], axis=-1)
    dh = array_ops.stack([gh * dh_dr, gh * dh_dg, gh * dh_db], axis=-1)
    return [math_ops.add(math_ops.add(dv, ds), dh)]


register_op(
    "RGBToHSV",
    infer=_rgb_infer(_FLOATS, "images"),
    kernel=_rgb_to_hsv_kernel,
    grad=_rgb_to_hsv_grad,
)
register_op(
    "HSVToRGB",
    infer=_rgb_infer(_FLOATS, "images"),
    kernel=_hsv_to_rgb_kernel,
    grad=NOT_DIFFERENTIABLE,
)


# --------------------------------------------------------------------------------------
# AdjustHue and AdjustSaturation (float32 per pixel, as TF's CPU kernels)
# --------------------------------------------------------------------------------------


def _adjust_hue_kernel(ctx, op, x, delta):
    _check_rgb(op, x, 3)
    f = x.astype(np.float32, copy=False)
    r, g, b = (f[..., i] for i in range(3))
    # The hue category (0..5) of TF's rgb_to_hv, by the channels' order.
    rg = r < g
    cat = np.where(
        rg,
        np.where(b < r, 1, np.where(b > g, 3, 2)),
        np.where(b < g, 0, np.where(b > r, 4, 5)),
    )
    hi = np.where(rg, np.where(b > g, b, g), np.where(b > r, b, r))
    lo = np.where(rg, np.where(b < r, b, r), np.where(b < g, b, g))
    mid = np.where(
        rg, np.where(b < r, r, np.where(b > g, g, b)), np.where(b < g, g, np.where(b > r, r, b))
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = (mid - lo) / (hi - lo)
    even = (cat & 1) == 0
    h = (cat + np.where(even, ratio, np.float32(1) - ratio)).astype(np.float32)
    h = np.where(hi == lo, np.float32(0), h)
    h = h + np.float32(delta) * np.float32(6)
    while np.any(h < 0):
        h = np.where(h < 0, h + np.float32(6), h)
    while np.any(h >= 6):
        h = np.where(h >= 6, h - np.float32(6), h)
    # hv_range_to_rgb
    cat = h.astype(np.int64)
    ratio = h - cat.astype(np.float32)
    ratio = np.where((cat & 1) == 0, ratio, np.float32(1) - ratio)
    mid = lo + ratio * (hi - lo)
    cat = np.minimum(cat, 5)
    pick = [
        (hi, mid, lo),
        (mid, hi, lo),
        (lo, hi, mid),
        (lo, mid, hi),
        (mid, lo, hi),
        (hi, lo, mid),
    ]
    out = [np.choose(cat, [p[c] for p in pick]) for c in range(3)]
    return (np.stack(out, axis=-1).astype(x.dtype, copy=False),)


def _adjust_saturation_kernel(ctx, op, x, scale):
    _check_rgb(op, x, 3)
    f = x.astype(np.float32, copy=False)
    r, g, b = (f[..., i] for i in range(3))
    v = np.maximum(r, np.maximum(g, b))
    rng = v - np.minimum(r, np.minimum(g, b))
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(v > 0, rng / v, np.float32(0))
        norm = np.float32(1) / (np.float32(6) * rng)
    # TF adds 2.0 / 6.0 and 4.0 / 6.0 as doubles, then stores the hue as a float.
    h = np.where(
        r == v,
        norm * (g - b),
        np.where(
            g == v,
            (norm * (b - r)).astype(np.float64) + 2.0 / 6.0,
            (norm * (r - g)).astype(np.float64) + 4.0 / 6.0,
        ),
    ).astype(np.float32)
    h = np.where(rng <= 0, np.float32(0), h)
    h = np.where(h < 0, h + np.float32(1), h)
    s = np.minimum(np.float32(1), np.maximum(np.float32(0), s * np.float32(scale)))
    # hsv_to_rgb
    c = s * v
    m = v - c
    dh = h * np.float32(6)
    cat = dh.astype(np.int64)
    fm = dh
    while np.any(fm <= 0):
        fm = np.where(fm <= 0, fm + np.float32(2), fm)
    while np.any(fm >= 2):
        fm = np.where(fm >= 2, fm - np.float32(2), fm)
    xx = c * (np.float32(1) - np.abs(fm - np.float32(1)))
    z = np.zeros_like(c)
    pick = [(c, xx, z), (xx, c, z), (z, c, xx), (z, xx, c), (xx, z, c), (c, z, xx), (z, z, z)]
    cat = np.where((cat >= 0) & (cat <= 5), cat, 6)
    out = [np.choose(cat, [p[k] for p in pick]) + m for k in range(3)]
    return (np.stack(out, axis=-1).astype(x.dtype, copy=False),)


register_op("AdjustHue", infer=_rgb_infer(_F16_32, "images"), kernel=_adjust_hue_kernel, grad=None)
register_op(
    "AdjustSaturation",
    infer=_rgb_infer(_F16_32, "images"),
    kernel=_adjust_saturation_kernel,
    grad=None,
)


# --------------------------------------------------------------------------------------
# Public functions
# --------------------------------------------------------------------------------------


def rgb_to_hsv(images: TensorLike, name: str | None = None) -> Tensor:
    """Converts RGB ``images`` [..., 3] with values in [0, 1] to HSV: hue in [0, 1),
    saturation and value (op ``RGBToHSV``; TF1 ``tf.image.rgb_to_hsv``).

    Args:
      images: a float tensor whose last dimension is 3.
      name: the op name (default ``RGBToHSV``).
    """
    x = convert_to_tensor(images, name="images")
    return make("RGBToHSV", [x], {}, name, "RGBToHSV")


def hsv_to_rgb(images: TensorLike, name: str | None = None) -> Tensor:
    """Converts HSV ``images`` [..., 3] (all in [0, 1]) to RGB (op ``HSVToRGB``; TF1
    ``tf.image.hsv_to_rgb``)."""
    x = convert_to_tensor(images, name="images")
    return make("HSVToRGB", [x], {}, name, "HSVToRGB")


def adjust_hue(image: TensorLike, delta: TensorLike, name: str | None = None) -> Tensor:
    """Rotates the hue of RGB ``image`` [..., 3] by ``delta`` (a fraction of the circle,
    in [-1, 1]) (op ``AdjustHue``; TF1 ``tf.image.adjust_hue``); an integer image comes
    back in its dtype."""
    with op_scope([image], name, "adjust_hue"):
        x = convert_to_tensor(image, name="image")
        f = as_float_image(x)
        d = convert_to_tensor(delta, dtype=_dt.float32, name="delta")
        return convert_image_dtype(make("AdjustHue", [f, d], {}, None, "AdjustHue"), x.dtype)


def adjust_saturation(
    image: TensorLike, saturation_factor: TensorLike, name: str | None = None
) -> Tensor:
    """Scales the saturation of RGB ``image`` [..., 3] by ``saturation_factor``, clipped
    to [0, 1] (op ``AdjustSaturation``; TF1 ``tf.image.adjust_saturation``)."""
    with op_scope([image], name, "adjust_saturation"):
        x = convert_to_tensor(image, name="image")
        f = as_float_image(x)
        s = convert_to_tensor(saturation_factor, dtype=_dt.float32, name="scale")
        out = make("AdjustSaturation", [f, s], {}, None, "AdjustSaturation")
        return convert_image_dtype(out, x.dtype)


def random_hue(image: TensorLike, max_delta: float, seed: int | None = None) -> Tensor:
    """:func:`adjust_hue` by a delta drawn from [-max_delta, max_delta) (TF1
    ``tf.image.random_hue``).

    Raises:
      ValueError: for ``max_delta`` outside [0, 0.5].
    """
    if max_delta > 0.5:
        raise ValueError("max_delta must be <= 0.5.")
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    delta = random_ops.random_uniform([], -max_delta, max_delta, seed=seed)
    return adjust_hue(image, delta)


def random_saturation(
    image: TensorLike, lower: float, upper: float, seed: int | None = None
) -> Tensor:
    """:func:`adjust_saturation` by a factor drawn from [lower, upper) (TF1
    ``tf.image.random_saturation``).

    Raises:
      ValueError: for ``upper <= lower`` or ``lower < 0``.
    """
    check_range(lower, upper)
    factor = random_ops.random_uniform([], lower, upper, seed=seed)
    return adjust_saturation(image, factor)
