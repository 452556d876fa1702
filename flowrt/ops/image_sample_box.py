"""``sample_distorted_bounding_box``: a random crop of an image that covers enough of
one of its bounding boxes (op ``SampleDistortedBoundingBoxV2``), TF's algorithm with
numpy's random stream (``ResourceManager.rng``) instead of TF's Philox one."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from .common import TensorShape, make_op, op_scope, to_tensor

if TYPE_CHECKING:
    from .._core.graph import Tensor
    from .._core.typing import TensorLike

__all__ = ["sample_distorted_bounding_box"]

_INTS = (_dt.uint8, _dt.int8, _dt.int16, _dt.int32, _dt.int64)


def _lrint(v: float) -> int:
    return int(np.rint(np.float32(v)))


def _random_crop(rng, width: int, height: int, min_area: float, max_area: float, ar: float):
    """TF's ``GenerateRandomCrop``: a crop (x, y, w, h) of aspect ratio ``ar`` and area
    in [min_area, max_area], or None."""
    h = _lrint(math.sqrt(min_area / ar))
    max_h = _lrint(math.sqrt(max_area / ar))
    if _lrint(max_h * ar) > width:
        max_h = int((width + 0.5 - 1e-7) / ar)
        if _lrint(max_h * ar) > width:
            max_h -= 1
    max_h = min(max_h, height)
    h = min(h, max_h)
    if h < max_h:
        h += int(rng.integers(0, max_h - h + 1))
    w = _lrint(h * ar)
    area = w * h
    if area < min_area:
        h += 1
        w = _lrint(h * ar)
        area = w * h
    if area > max_area:
        h -= 1
        w = _lrint(h * ar)
        area = w * h
    if area < min_area or area > max_area or w > width or h > height or w <= 0 or h <= 0:
        return None
    y = 0 if h >= height else int(rng.integers(0, height - h))
    x = 0 if w >= width else int(rng.integers(0, width - w))
    return x, y, w, h


def _covers(crop, min_covered: float, boxes) -> bool:
    x, y, w, h = crop
    for xmin, ymin, xmax, ymax in boxes:
        area = (xmax - xmin) * (ymax - ymin)
        if area <= 0:
            continue
        iw = min(x + w, xmax) - max(x, xmin)
        ih = min(y + h, ymax) - max(y, ymin)
        inter = max(iw, 0) * max(ih, 0)
        if inter / area >= min_covered:
            return True
    return False


def _sample_kernel(ctx, op, image_size, bounding_boxes, min_object_covered):
    a = op.attrs
    size = np.asarray(image_size)
    if size.shape != (3,):
        raise errors.InvalidArgumentError(
            None, op, "image_size must be 1-dimensional with 3 elements, got %s" % size.shape
        )
    height, width = int(size[0]), int(size[1])
    if height <= 0 or width <= 0:
        raise errors.InvalidArgumentError(
            None, op, "image height and width must be positive, got %s" % size.tolist()
        )
    b = np.asarray(bounding_boxes, np.float32)
    if b.ndim != 3 or b.shape[-1] != 4:
        raise errors.InvalidArgumentError(
            None,
            op,
            "input boxes must be 3-dimensional [batch, num_boxes, coords], got %s" % list(b.shape),
        )
    boxes = []
    for ymin, xmin, ymax, xmax in b.reshape(-1, 4).tolist():
        if not all(0.0 <= v <= 1.0 for v in (ymin, xmin, ymax, xmax)):
            raise errors.InvalidArgumentError(
                None,
                op,
                "All bounding box coordinates must be in [0.0, 1.0]: %s" % [ymin, xmin, ymax, xmax],
            )
        if ymin >= ymax or xmin >= xmax:
            raise errors.InvalidArgumentError(
                None, op, "Bounding box must have min < max: %s" % [ymin, xmin, ymax, xmax]
            )
        # TF scales in float32 and truncates.
        fw, fh = np.float32(width), np.float32(height)
        f32 = np.float32
        boxes.append(
            (int(f32(xmin) * fw), int(f32(ymin) * fh), int(f32(xmax) * fw), int(f32(ymax) * fh))
        )
    if not boxes:
        if not a["use_image_if_no_bounding_boxes"]:
            raise errors.InvalidArgumentError(
                None,
                op,
                "No bounding boxes provided as input. One must enable "
                "use_image_if_no_bounding_boxes if you wish to not provide any bounding boxes.",
            )
        boxes.append((0, 0, width, height))
    covered = float(np.asarray(min_object_covered))
    if covered < 0:
        raise errors.InvalidArgumentError(
            None, op, "min_object_covered must be non-negative: %s" % covered
        )
    lo_ar, hi_ar = a["aspect_ratio_range"]
    lo_area, hi_area = a["area_range"]
    min_area, max_area = lo_area * width * height, hi_area * width * height
    rng = ctx.resources.rng(op)
    crop = (0, 0, width, height)
    for _ in range(a["max_attempts"]):
        ar = float(rng.uniform(lo_ar, hi_ar))
        c = _random_crop(rng, width, height, min_area, max_area, ar)
        if c is not None and _covers(c, covered, boxes):
            crop = c
            break
    x, y, w, h = crop
    dt = size.dtype
    begin = np.array([y, x, 0], dt)
    out_size = np.array([h, w, -1], dt)
    box = np.array([[[y / height, x / width, (y + h) / height, (x + w) / width]]], np.float32)
    return begin, out_size, box


def _sample_infer(op):
    size, boxes, covered = op.inputs
    if size.shape.ndims not in (None, 1):
        raise ValueError("Shape must be rank 1 but is rank %d for 'image_size'" % size.shape.ndims)
    if boxes.shape.ndims not in (None, 3):
        raise ValueError(
            "Shape must be rank 3 but is rank %d for 'bounding_boxes'" % boxes.shape.ndims
        )
    if covered.shape.ndims not in (None, 0):
        raise ValueError(
            "Shape must be rank 0 but is rank %d for 'min_object_covered'" % covered.shape.ndims
        )
    dt = size.dtype
    return [(dt, TensorShape([3])), (dt, TensorShape([3])), (_dt.float32, TensorShape([1, 1, 4]))]


register_op(
    "SampleDistortedBoundingBoxV2",
    infer=_sample_infer,
    kernel=_sample_kernel,
    grad=NOT_DIFFERENTIABLE,
    stateful=True,
)


def _pair(v: Any, default: list, what: str) -> list:
    if v is None:
        return list(default)
    v = [float(e) for e in v]
    if len(v) != 2:
        raise ValueError("%s must have 2 elements, got %d" % (what, len(v)))
    return v


def sample_distorted_bounding_box(
    image_size: TensorLike,
    bounding_boxes: TensorLike,
    seed: int | None = None,
    seed2: int | None = None,
    min_object_covered: Any = 0.1,
    aspect_ratio_range: Any = None,
    area_range: Any = None,
    max_attempts: int | None = None,
    use_image_if_no_bounding_boxes: bool | None = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor, Tensor]:
    """A random crop of an image covering at least ``min_object_covered`` of one of
    ``bounding_boxes`` (TF1 ``tf.image.sample_distorted_bounding_box``; op
    ``SampleDistortedBoundingBoxV2``).

    Each of ``max_attempts`` tries draws an aspect ratio in ``aspect_ratio_range`` and a
    crop of that ratio with area fraction in ``area_range`` at a random place; the first
    covering enough of a box is taken, else the whole image.

    Args:
      image_size: [height, width, channels], an integer tensor.
      bounding_boxes: [batch, N, 4] floats ``[ymin, xmin, ymax, xmax]`` in [0, 1].
      seed: the op's ``seed`` attribute (TF1: passed as is).
      seed2: the op's ``seed2``; with both 0 or None the stream is nondeterministic.
      min_object_covered: a float (or scalar tensor) >= 0.
      aspect_ratio_range: width / height range, default ``[0.75, 1.33]``.
      area_range: crop area as a fraction of the image, default ``[0.05, 1]``.
      max_attempts: default 100.
      use_image_if_no_bounding_boxes: with no boxes, treat the whole image as one.
      name: the op's name.

    Returns:
      ``(begin, size, bboxes)``: ``begin = [y, x, 0]`` and ``size = [h, w, -1]`` for
      ``fr.slice``, in ``image_size``'s dtype, and the crop as a [1, 1, 4] box.

    Note (flowrt): the random stream is numpy's, not TF's: a seeded program gets
    reproducible crops that differ from TF's.
    """
    with op_scope([image_size, bounding_boxes], name, "sample_distorted_bounding_box"):
        size = to_tensor(image_size, name="image_size")
        if size.dtype not in _INTS:
            raise TypeError("image_size must be an integer tensor, got %s" % size.dtype.name)
        boxes = to_tensor(bounding_boxes, _dt.float32, name="bounding_boxes")
        covered = to_tensor(min_object_covered, _dt.float32, name="min_object_covered")
        attempts = 100 if max_attempts is None else int(max_attempts)
        if attempts <= 0:
            raise ValueError("max_attempts must be positive: %d" % attempts)
        area = _pair(area_range, [0.05, 1.0], "area_range")
        if not 0 < area[0] <= area[1] <= 1:
            raise ValueError("area_range must be within (0, 1] and increasing: %s" % area)
        ratio = _pair(aspect_ratio_range, [0.75, 1.33], "aspect_ratio_range")
        if not 0 < ratio[0] <= ratio[1]:
            raise ValueError("aspect_ratio_range must be positive and increasing: %s" % ratio)
        s1, s2 = int(seed or 0), int(seed2 or 0)
        attrs = {
            "seed": s1,
            "seed2": s2,
            "seed2_pair": None if s1 == 0 and s2 == 0 else (s1, s2),
            "aspect_ratio_range": ratio,
            "area_range": area,
            "max_attempts": attempts,
            "use_image_if_no_bounding_boxes": bool(use_image_if_no_bounding_boxes),
        }
        op = make_op("SampleDistortedBoundingBoxV2", [size, boxes, covered], attrs, None)
        begin, size_out, bboxes = op.outputs
        return begin, size_out, bboxes
