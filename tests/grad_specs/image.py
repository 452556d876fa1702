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
