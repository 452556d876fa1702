"""Gradient specs for image resizing (flowrt/ops/image_ops.py). ``ResizeBilinear``
computes in float32 (as TF's), so its rows cast the result to float64 and, the resize
being linear in the image, use a large finite-difference step."""

import numpy as np

import flowrt as fr
from tests.gradcheck import GradSpec

_r = np.random.default_rng(23)
IMG = _r.standard_normal((2, 5, 7, 3))


def _bilinear(size, **kw):
    return lambda x: fr.cast(fr.image.resize_bilinear(x, size, **kw), fr.float64)


def _nearest(size, **kw):
    return lambda x: fr.image.resize_nearest_neighbor(x, size, **kw)


_F32 = dict(eps=1.0, rtol=1e-4, atol=1e-4)

SPECS = [
    GradSpec("ResizeBilinear", _bilinear([8, 11]), [IMG], **_F32),
    GradSpec(
        "ResizeBilinear",
        _bilinear([3, 4], align_corners=True),
        [IMG],
        id="ResizeBilinear-align_corners",
        **_F32,
    ),
    GradSpec(
        "ResizeBilinear",
        _bilinear([10, 5], half_pixel_centers=True),
        [IMG],
        id="ResizeBilinear-half_pixel_centers",
        **_F32,
    ),
    GradSpec("ResizeNearestNeighbor", _nearest([8, 11]), [IMG]),
    GradSpec(
        "ResizeNearestNeighbor",
        _nearest([3, 4], align_corners=True),
        [IMG],
        id="ResizeNearestNeighbor-align_corners",
    ),
    GradSpec(
        "ResizeNearestNeighbor",
        _nearest([10, 5], half_pixel_centers=True),
        [IMG],
        id="ResizeNearestNeighbor-half_pixel_centers",
    ),
]


def _patches(sizes, strides, rates, padding):
    return lambda x: fr.extract_image_patches(x, sizes, strides, rates, padding)


SPECS += [
    GradSpec(
        "ExtractImagePatches", _patches([1, 3, 2, 1], [1, 2, 2, 1], [1, 1, 2, 1], "SAME"), [IMG]
    ),
    GradSpec(
        "ExtractImagePatches",
        _patches([1, 2, 2, 1], [1, 1, 3, 1], [1, 1, 1, 1], "VALID"),
        [IMG],
        id="ExtractImagePatches-VALID",
    ),
]


# RGBToHSV: TF's piecewise gradient, checked where it is smooth (distinct channels,
# none at 0); each pixel's largest and smallest channel vary over the batch.
_HSV = np.array(
    [
        [[0.8, 0.5, 0.2], [0.3, 0.7, 0.45], [0.25, 0.4, 0.9]],
        [[0.6, 0.2, 0.35], [0.5, 0.65, 0.15], [0.3, 0.2, 0.55]],
    ]
)
SPECS += [
    GradSpec("RGBToHSV", fr.image.rgb_to_hsv, [_HSV], eps=1e-7, rtol=1e-5, atol=1e-6),
]


def _bicubic(size, **kw):
    return lambda x: fr.cast(fr.image.resize_bicubic(x, size, **kw), fr.float64)


SPECS += [
    GradSpec("ResizeBicubic", _bicubic([8, 11]), [IMG], **_F32),
    GradSpec(
        "ResizeBicubic",
        _bicubic([3, 4], align_corners=True),
        [IMG],
        id="ResizeBicubic-align_corners",
        **_F32,
    ),
    GradSpec(
        "ResizeBicubic",
        _bicubic([10, 5], half_pixel_centers=True),
        [IMG],
        id="ResizeBicubic-half_pixel_centers",
        **_F32,
    ),
]


_CROP_IMG = _r.standard_normal((2, 5, 6, 2))
# No sampling point on a pixel line, where the crop has a kink (TF's gradient takes 0).
_CROP_BOXES = np.array(
    [[0.11, 0.23, 0.71, 0.91], [0.83, 0.07, 0.31, 0.62], [0.27, 0.33, 0.57, 0.77]]
)


def _crop(method):
    def f(image, boxes):
        y = fr.image.crop_and_resize(image, fr.cast(boxes, fr.float32), [1, 0, 1], [3, 4], method)
        return fr.cast(y, fr.float64)

    return f


SPECS += [
    GradSpec("CropAndResize", _crop("bilinear"), [_CROP_IMG, _CROP_BOXES], wrt=[0], **_F32),
    GradSpec(
        "CropAndResize",
        _crop("nearest"),
        [_CROP_IMG, _CROP_BOXES],
        wrt=[0],
        id="CropAndResize-nearest",
        **_F32,
    ),
    # The boxes' gradient: bilinear sampling is smooth in the box within a pixel cell;
    # a small step in float32 coordinates, checked loosely.
    GradSpec(
        "CropAndResize",
        _crop("bilinear"),
        [_CROP_IMG, _CROP_BOXES],
        wrt=[1],
        eps=1e-3,
        rtol=2e-2,
        atol=2e-2,
        id="CropAndResize-boxes",
    ),
]
