"""Box ops of ``fr.image``: non-max suppression (``NonMaxSuppressionV2``/``V3``) and
``CropAndResize`` with its two gradient ops, and ``DrawBoundingBoxes``(``V2``), each one
``register_op`` row.

Non-max suppression is TF's greedy pass: candidates (score above ``score_threshold``)
in order of score, ties by index; one is kept unless its IOU with a kept box exceeds
``iou_threshold`` (strictly); at most ``max_output_size`` are kept. ``greedy_nms`` is
that pass for every non-max suppression op (``image_nms`` has the others): a kept box's
IOU row, vectorized, suppresses the candidates it overlaps.

``CropAndResize`` samples each box's crop in float32 as TF's kernel does: a box edge
``y1`` maps to ``y1 * (height - 1)``, a one-pixel crop to the box's center, points
outside the image read ``extrapolation_value``.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.graph import Tensor, convert_to_tensor
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from .._core.shape import TensorShape
from . import array_ops
from .common import check_dtype, in_graph_of, int_list, make, make_op, op_scope

if TYPE_CHECKING:
    from .._core.typing import TensorLike

__all__ = [
    "non_max_suppression",
    "non_max_suppression_v2",
    "non_max_suppression_v3",
    "crop_and_resize",
    "draw_bounding_boxes",
]

_HALF_FLOAT = (_dt.float16, _dt.float32)
_REALS = (
    _dt.uint8,
    _dt.uint16,
    _dt.int8,
    _dt.int16,
    _dt.int32,
    _dt.int64,
    _dt.float16,
    _dt.float32,
    _dt.float64,
)


def checked_dims(t: Tensor, rank: int, what: str) -> list:
    s = t.shape
    if s.ndims is not None and s.ndims != rank:
        raise ValueError("Shape must be rank %d but is rank %d for '%s'" % (rank, s.ndims, what))
    return [None] * rank if s.ndims is None else s.as_list()


# --------------------------------------------------------------------------------------
# NonMaxSuppressionV2 / V3
# --------------------------------------------------------------------------------------


def _nms_infer(op):
    boxes, scores, size, iou = op.inputs[:4]
    check_dtype(boxes, _HALF_FLOAT, "boxes")
    check_dtype(scores, _HALF_FLOAT, "scores")
    check_dtype(size, (_dt.int32,), "max_output_size")
    n, four = checked_dims(boxes, 2, "boxes")
    if four not in (None, 4):
        raise ValueError("Dimension must be 4 but is %d for 'boxes'" % four)
    (m,) = checked_dims(scores, 1, "scores")
    if n is not None and m is not None and n != m:
        raise ValueError("Dimensions must be equal, but are %d and %d" % (n, m))
    for t, what in zip(op.inputs[2:], ("max_output_size", "iou_threshold", "score_threshold")):
        checked_dims(t, 0, what)
    return [(_dt.int32, TensorShape([None]))]


def box_corners(boxes: np.ndarray):
    b = boxes.astype(np.float32, copy=False)
    ymin, ymax = np.minimum(b[:, 0], b[:, 2]), np.maximum(b[:, 0], b[:, 2])
    xmin, xmax = np.minimum(b[:, 1], b[:, 3]), np.maximum(b[:, 1], b[:, 3])
    return ymin, xmin, ymax, xmax, (ymax - ymin) * (xmax - xmin)


def iou_row(c, i: int) -> np.ndarray:
    """TF's IOU of box ``i`` with every box, in float32 (0 when either is empty)."""
    ymin, xmin, ymax, xmax, area = c
    ih = np.minimum(ymax[i], ymax) - np.maximum(ymin[i], ymin)
    iw = np.minimum(xmax[i], xmax) - np.maximum(xmin[i], xmin)
    inter = np.maximum(ih, np.float32(0)) * np.maximum(iw, np.float32(0))
    with np.errstate(divide="ignore", invalid="ignore"):
        iou = inter / (area[i] + area - inter)
    return np.where((area[i] <= 0) | (area <= 0), np.float32(0), iou)


def greedy_nms(
    scores: np.ndarray,
    similarity: Callable[[int], np.ndarray],
    size: int,
    threshold: float,
    score_threshold: float | None,
    sigma: float = 0.0,
    symmetric: bool = True,
) -> tuple[list[int], list[float]]:
    """TF's ``DoNonMaxSuppressionOp``: the kept indices and their (soft-NMS) scores.
    ``similarity(i)`` is box ``i``'s row of similarities with every box; a
    ``score_threshold`` of None keeps every candidate in play.

    Hard NMS (``sigma`` 0) of a symmetric similarity (IOU) suppresses, each time a box
    is kept, every candidate its row exceeds the threshold for: one row per kept box.
    Otherwise (soft-NMS, or a given overlap matrix read candidate by kept) candidates
    come off a heap and are compared with the kept boxes, newest first."""
    s = scores.astype(np.float32, copy=False)
    thr = np.float32(threshold)
    s_thr = np.float32(-np.inf if score_threshold is None else score_threshold)
    if sigma <= 0 and symmetric:
        cand = np.arange(len(s)) if score_threshold is None else np.flatnonzero(s > s_thr)
        alive = np.zeros(len(s), bool)
        alive[cand] = True
        kept: list[int] = []
        for i in cand[np.lexsort((cand, -s[cand]))]:
            if len(kept) >= size:
                break
            if alive[i]:
                kept.append(int(i))
                alive &= ~(similarity(int(i)) > thr)
        return kept, [float(s[i]) for i in kept]
    soft = sigma > 0
    scale = np.float32(-0.5 / sigma) if soft else np.float32(0)
    # Heap entries: (-score, index, first kept box not yet compared with).
    heap = [(-float(s[i]), i, 0) for i in range(len(s)) if s[i] > s_thr]
    heapq.heapify(heap)
    kept = []
    kept_scores: list[float] = []
    rows: dict[int, np.ndarray] = {}
    while len(kept) < size and heap:
        neg, i, begin = heapq.heappop(heap)
        score = np.float32(-neg)
        original = score
        hard = False
        if kept:
            row = rows.get(i)
            if row is None:
                row = rows[i] = similarity(i)
            for j in range(len(kept) - 1, begin - 1, -1):
                sim = np.float32(row[kept[j]])
                if not soft and sim > thr:
                    hard = True
                    break
                score = np.float32(score * np.exp(scale * sim * sim, dtype=np.float32))
                if score <= s_thr:
                    break
        if hard:
            continue
        if score == original:
            kept.append(i)
            kept_scores.append(float(score))
        elif score > s_thr:
            heapq.heappush(heap, (-float(score), i, len(kept)))
    return kept, kept_scores


def check_boxes_and_scores(op, boxes, scores):
    """TF's checks of non-max suppression's ``boxes`` ([n, 4]) and ``scores`` ([n])."""
    if boxes.ndim != 2 or boxes.shape[1] != 4:
        raise errors.InvalidArgumentError(
            None, op, "boxes must be 2-D with 4 columns, got shape %s" % list(boxes.shape)
        )
    if scores.ndim != 1 or scores.shape[0] != boxes.shape[0]:
        raise errors.InvalidArgumentError(
            None,
            op,
            "scores has incompatible shape %s for boxes %s"
            % (list(scores.shape), list(boxes.shape)),
        )


def _nms_kernel(ctx, op, boxes, scores, size, iou_threshold, score_threshold=None):
    check_boxes_and_scores(op, boxes, scores)
    size = int(size)
    if size < 0:
        raise errors.InvalidArgumentError(None, op, "output size must be non-negative")
    thr = np.float32(iou_threshold)
    if not 0 <= thr <= 1:
        raise errors.InvalidArgumentError(None, op, "iou_threshold must be in [0, 1]")
    corners = box_corners(boxes)
    kept, _ = greedy_nms(
        scores,
        lambda i: iou_row(corners, i),
        size,
        float(thr),
        None if score_threshold is None else float(score_threshold),
    )
    return (np.asarray(kept, np.int32),)


register_op("NonMaxSuppressionV2", infer=_nms_infer, kernel=_nms_kernel, grad=NOT_DIFFERENTIABLE)
register_op("NonMaxSuppressionV3", infer=_nms_infer, kernel=_nms_kernel, grad=NOT_DIFFERENTIABLE)


def _nms(op_type, boxes, scores, max_output_size, thresholds, name):
    with in_graph_of([boxes, scores]):
        b = convert_to_tensor(boxes, name="boxes")
        s = convert_to_tensor(scores, name="scores")
        m = convert_to_tensor(max_output_size, dtype=_dt.int32, name="max_output_size")
        ts = [convert_to_tensor(t, dtype=b.dtype) for t in thresholds]
        return make(op_type, [b, s, m] + ts, {}, name, op_type)


def non_max_suppression_v2(
    boxes: TensorLike,
    scores: TensorLike,
    max_output_size: TensorLike,
    iou_threshold: TensorLike,
    name: str | None = None,
) -> Tensor:
    """The raw ``NonMaxSuppressionV2`` op (``tf.raw_ops.NonMaxSuppressionV2``): indices
    of at most ``max_output_size`` boxes, greedily by score, dropping boxes whose IOU
    with a kept one exceeds ``iou_threshold``.

    Note (flowrt): TF has this only as ``tf.raw_ops``; flowrt names it in ``fr.image``.
    """
    return _nms("NonMaxSuppressionV2", boxes, scores, max_output_size, [iou_threshold], name)


def non_max_suppression_v3(
    boxes: TensorLike,
    scores: TensorLike,
    max_output_size: TensorLike,
    iou_threshold: TensorLike,
    score_threshold: TensorLike,
    name: str | None = None,
) -> Tensor:
    """The raw ``NonMaxSuppressionV3`` op: :func:`non_max_suppression_v2` over the boxes
    whose score exceeds ``score_threshold``.

    Note (flowrt): TF has this only as ``tf.raw_ops``; flowrt names it in ``fr.image``.
    """
    return _nms(
        "NonMaxSuppressionV3",
        boxes,
        scores,
        max_output_size,
        [iou_threshold, score_threshold],
        name,
    )


def non_max_suppression(
    boxes: TensorLike,
    scores: TensorLike,
    max_output_size: TensorLike,
    iou_threshold: float = 0.5,
    score_threshold: float = float("-inf"),
    name: str | None = None,
) -> Tensor:
    """Greedy non-max suppression (TF1 ``tf.image.non_max_suppression``; op
    ``NonMaxSuppressionV3``).

    Args:
      boxes: [num_boxes, 4] float, ``[y1, x1, y2, x2]`` (either corner order).
      scores: [num_boxes] float.
      max_output_size: a scalar int, the most boxes to keep.
      iou_threshold: drop a box whose IOU with a kept box is above this.
      score_threshold: only boxes scoring above this are candidates.
      name: the name scope (default ``non_max_suppression``).

    Returns:
      int32 [M]: the kept boxes' indices, best first.
    """
    with op_scope([boxes, scores], name, "non_max_suppression"):
        b = convert_to_tensor(boxes, name="boxes")
        return non_max_suppression_v3(b, scores, max_output_size, iou_threshold, score_threshold)


# --------------------------------------------------------------------------------------
# CropAndResize and its gradients
# --------------------------------------------------------------------------------------


def _positions(lo: np.ndarray, hi: np.ndarray, size: int, crop: int) -> np.ndarray:
    """[num_boxes, crop] float32 sampling positions along one axis, as TF computes them."""
    s1 = np.float32(size - 1)
    if crop > 1:
        scale = (hi - lo) * s1 / np.float32(crop - 1)
        return lo[:, None] * s1 + np.arange(crop, dtype=np.float32)[None, :] * scale[:, None]
    # TF: 0.5 * (y1 + y2) * (size - 1), the sum in float32, the rest in double.
    center = (0.5 * (lo + hi).astype(np.float64) * (size - 1)).astype(np.float32)
    return center[:, None]


def _roundf(pos: np.ndarray, size: int) -> np.ndarray:
    """C's roundf (half away from zero) of in-image positions, as clipped indices."""
    f = np.floor(pos)
    return np.clip(f + (pos - f >= 0.5), 0, size - 1).astype(np.int64)


def _check_boxes(op, image_shape, boxes, box_ind):
    if boxes.ndim != 2 or boxes.shape[1] != 4:
        raise errors.InvalidArgumentError(
            None, op, "boxes must be 2-D [num_boxes, 4], got shape %s" % list(boxes.shape)
        )
    if box_ind.shape != (boxes.shape[0],):
        raise errors.InvalidArgumentError(
            None, op, "box_index has incompatible shape %s" % list(box_ind.shape)
        )
    bad = (box_ind < 0) | (box_ind >= image_shape[0])
    if np.any(bad):
        raise errors.InvalidArgumentError(None, op, "box_index has values outside [0, batch_size)")


def _sampling(op, image_shape, boxes, box_ind, crop):
    """Positions, validity masks and the 4 taps of each crop pixel."""
    _, h, w, _ = image_shape
    ch, cw = crop
    b = boxes.astype(np.float32, copy=False)
    ys = _positions(b[:, 0], b[:, 2], h, ch)
    xs = _positions(b[:, 1], b[:, 3], w, cw)
    vy = (ys >= 0) & (ys <= h - 1)
    vx = (xs >= 0) & (xs <= w - 1)
    return ys, xs, vy, vx


def _crop_infer(op):
    image, boxes, box_ind, crop = op.inputs
    check_dtype(image, _REALS, "image")
    check_dtype(boxes, (_dt.float32,), "boxes")
    check_dtype(box_ind, (_dt.int32,), "box_ind")
    check_dtype(crop, (_dt.int32,), "crop_size")
    _, _, _, depth = checked_dims(image, 4, "image")
    n, four = checked_dims(boxes, 2, "boxes")
    if four not in (None, 4):
        raise ValueError("Dimension must be 4 but is %d for 'boxes'" % four)
    checked_dims(box_ind, 1, "box_ind")
    hw = int_list(crop) or [None, None]
    return [(_dt.float32, TensorShape([n, hw[0], hw[1], depth]))]


def _crop_kernel(ctx, op, image, boxes, box_ind, crop):
    _check_boxes(op, image.shape, boxes, box_ind)
    ch, cw = (int(v) for v in crop)
    if ch <= 0 or cw <= 0:
        raise errors.InvalidArgumentError(None, op, "crop dimensions must be positive")
    ys, xs, vy, vx = _sampling(op, image.shape, boxes, box_ind, (ch, cw))
    h, w = image.shape[1:3]
    img = image.astype(np.float32, copy=False)
    nb = box_ind[:, None, None]
    ext = np.float32(op.attrs["extrapolation_value"])
    if op.attrs["method"] == "nearest":
        yi, xi = _roundf(ys, h), _roundf(xs, w)
        out = img[nb, yi[:, :, None], xi[:, None, :]]
    else:
        top = np.clip(np.floor(ys), 0, h - 1).astype(np.int64)
        bot = np.clip(np.ceil(ys), 0, h - 1).astype(np.int64)
        left = np.clip(np.floor(xs), 0, w - 1).astype(np.int64)
        right = np.clip(np.ceil(xs), 0, w - 1).astype(np.int64)
        ylerp = (ys - np.floor(ys)).astype(np.float32)[:, :, None, None]
        xlerp = (xs - np.floor(xs)).astype(np.float32)[:, None, :, None]
        tl = img[nb, top[:, :, None], left[:, None, :]]
        tr = img[nb, top[:, :, None], right[:, None, :]]
        bl = img[nb, bot[:, :, None], left[:, None, :]]
        br = img[nb, bot[:, :, None], right[:, None, :]]
        t = tl + (tr - tl) * xlerp
        b = bl + (br - bl) * xlerp
        out = t + (b - t) * ylerp
    valid = (vy[:, :, None] & vx[:, None, :])[..., None]
    return (np.where(valid, out, ext).astype(np.float32),)


def _crop_grad(op, grad):
    image, boxes, box_ind, _ = op.inputs
    if image.shape.is_fully_defined():
        shape = image.shape.as_list()
    else:
        shape = array_ops.shape(image)
    g0 = None
    if image.dtype in (_dt.float16, _dt.float32, _dt.float64):
        g0 = make(
            "CropAndResizeGradImage",
            [grad, boxes, box_ind, convert_to_tensor(shape, dtype=_dt.int32)],
            {"T": image.dtype, "method": op.attrs["method"]},
        )
    g1 = make("CropAndResizeGradBoxes", [grad, image, boxes, box_ind], {})
    return [g0, g1, None, None]


register_op("CropAndResize", infer=_crop_infer, kernel=_crop_kernel, grad=_crop_grad)


def _grad_image_infer(op):
    grads, boxes, box_ind, size = op.inputs
    check_dtype(grads, (_dt.float32,), "grads")
    checked_dims(grads, 4, "grads")
    v = int_list(size)
    return [(op.attrs["T"], TensorShape(v if v is not None else [None] * 4))]


def _grad_image_kernel(ctx, op, grads, boxes, box_ind, size):
    shape = tuple(int(v) for v in size)
    _check_boxes(op, shape, boxes, box_ind)
    ch, cw = grads.shape[1:3]
    ys, xs, vy, vx = _sampling(op, shape, boxes, box_ind, (ch, cw))
    dt = op.attrs["T"].np
    out = np.zeros(shape, dt)
    valid = (vy[:, :, None] & vx[:, None, :])[..., None]
    g = np.where(valid, grads.astype(np.float32, copy=False), np.float32(0))
    bi = box_ind[:, None, None]
    h, w = shape[1:3]
    if op.attrs["method"] == "nearest":
        yi, xi = _roundf(ys, h)[:, :, None], _roundf(xs, w)[:, None, :]
        np.add.at(out, (bi, yi, xi), g.astype(dt))
        return (out,)
    top = np.clip(np.floor(ys), 0, h - 1).astype(np.int64)[:, :, None]
    bot = np.clip(np.ceil(ys), 0, h - 1).astype(np.int64)[:, :, None]
    left = np.clip(np.floor(xs), 0, w - 1).astype(np.int64)[:, None, :]
    right = np.clip(np.ceil(xs), 0, w - 1).astype(np.int64)[:, None, :]
    yl = (ys - np.floor(ys)).astype(np.float32)[:, :, None, None]
    xl = (xs - np.floor(xs)).astype(np.float32)[:, None, :, None]
    one = np.float32(1)
    dtop = (one - yl) * g
    dbot = yl * g
    # TF adds a crop pixel's 4 taps in turn, pixel by pixel: stacking the taps after
    # the pixel axes makes np.add.at (which applies in index order) do the same.
    shp = g.shape[:3] + (4,)
    rows = np.stack(np.broadcast_arrays(top, top, bot, bot), axis=-1)
    cols = np.stack(np.broadcast_arrays(left, right, left, right), axis=-1)
    vals = np.stack([(one - xl) * dtop, xl * dtop, (one - xl) * dbot, xl * dbot], axis=3)
    bb = np.broadcast_to(bi[..., None], shp)
    np.add.at(out, (bb, np.broadcast_to(rows, shp), np.broadcast_to(cols, shp)), vals.astype(dt))
    return (out,)


register_op(
    "CropAndResizeGradImage",
    infer=_grad_image_infer,
    kernel=_grad_image_kernel,
    grad=NOT_DIFFERENTIABLE,
)


def _grad_boxes_infer(op):
    grads, image, boxes, box_ind = op.inputs
    check_dtype(grads, (_dt.float32,), "grads")
    return [(_dt.float32, boxes.shape)]


def _grad_boxes_kernel(ctx, op, grads, image, boxes, box_ind):
    _check_boxes(op, image.shape, boxes, box_ind)
    n, ch, cw, _ = grads.shape
    h, w = image.shape[1:3]
    ys, xs, vy, vx = _sampling(op, image.shape, boxes, box_ind, (ch, cw))
    img = image.astype(np.float32, copy=False)
    nb = box_ind[:, None, None]
    top = np.clip(np.floor(ys), 0, h - 1).astype(np.int64)[:, :, None]
    bot = np.clip(np.ceil(ys), 0, h - 1).astype(np.int64)[:, :, None]
    left = np.clip(np.floor(xs), 0, w - 1).astype(np.int64)[:, None, :]
    right = np.clip(np.ceil(xs), 0, w - 1).astype(np.int64)[:, None, :]
    yl = (ys - np.floor(ys)).astype(np.float32)[:, :, None, None]
    xl = (xs - np.floor(xs)).astype(np.float32)[:, None, :, None]
    tl, tr = img[nb, top, left], img[nb, top, right]
    bl, br = img[nb, bot, left], img[nb, bot, right]
    one = np.float32(1)
    gy = ((one - xl) * (bl - tl) + xl * (br - tr)) * grads
    gx = ((one - yl) * (tr - tl) + yl * (br - bl)) * grads
    valid = (vy[:, :, None] & vx[:, None, :])[..., None]
    gy = np.where(valid, gy, np.float32(0))
    gx = np.where(valid, gx, np.float32(0))
    hr = np.float32(h - 1) / np.float32(ch - 1) if ch > 1 else np.float32(0)
    wr = np.float32(w - 1) / np.float32(cw - 1) if cw > 1 else np.float32(0)
    yy = np.arange(ch, dtype=np.float32)[None, :, None, None] * hr
    xx = np.arange(cw, dtype=np.float32)[None, None, :, None] * wr
    if ch > 1:
        d0, d2 = gy * (np.float32(h - 1) - yy), gy * yy
    else:
        d0 = d2 = gy * np.float32(0.5 * (h - 1))
    if cw > 1:
        d1, d3 = gx * (np.float32(w - 1) - xx), gx * xx
    else:
        d1 = d3 = gx * np.float32(0.5 * (w - 1))
    # TF adds the terms pixel by pixel, channel by channel, in float32: np.add.at with
    # a repeated index accumulates in that order.
    out = np.zeros((n, 4), np.float32)
    rows = np.repeat(np.arange(n), ch * cw * grads.shape[3])
    for k, d in enumerate((d0, d1, d2, d3)):
        np.add.at(out[:, k], rows, np.broadcast_to(d, grads.shape).astype(np.float32).ravel())
    return (out,)


register_op(
    "CropAndResizeGradBoxes",
    infer=_grad_boxes_infer,
    kernel=_grad_boxes_kernel,
    grad=NOT_DIFFERENTIABLE,
)


def crop_and_resize(
    image: TensorLike,
    boxes: TensorLike,
    box_ind: TensorLike | None = None,
    crop_size: TensorLike | None = None,
    method: str = "bilinear",
    extrapolation_value: float = 0.0,
    name: str | None = None,
    box_indices: TensorLike | None = None,
) -> Tensor:
    """Crops each box of ``boxes`` out of image ``box_ind[i]`` of ``image`` and resizes it
    to ``crop_size`` (op ``CropAndResize``; TF1 ``tf.image.crop_and_resize``).

    Args:
      image: [batch, height, width, depth], a real dtype.
      boxes: [num_boxes, 4] float32, normalized ``[y1, x1, y2, x2]`` (1.0 is the last
        pixel; ``y1 > y2`` flips the crop).
      box_ind: [num_boxes] int32, the image of each box (``box_indices`` in TF2).
      crop_size: ``[crop_height, crop_width]``.
      method: ``"bilinear"`` or ``"nearest"``.
      extrapolation_value: the value of sampling points outside the image.
      name: the op name (default ``CropAndResize``).
      box_indices: TF2's name for ``box_ind``.

    Returns:
      float32 [num_boxes, crop_height, crop_width, depth].
    """
    if box_ind is None:
        box_ind = box_indices
    if box_ind is None or crop_size is None:
        raise ValueError("crop_and_resize needs box_ind and crop_size")
    if method not in ("bilinear", "nearest"):
        raise ValueError("method must be 'bilinear' or 'nearest', got %r" % (method,))
    with in_graph_of([image, boxes, box_ind, crop_size]):
        x = convert_to_tensor(image, name="image")
        b = convert_to_tensor(boxes, dtype=_dt.float32, name="boxes")
        i = convert_to_tensor(box_ind, dtype=_dt.int32, name="box_ind")
        c = convert_to_tensor(crop_size, dtype=_dt.int32, name="crop_size")
        attrs = {"method": method, "extrapolation_value": float(extrapolation_value)}
        return make_op("CropAndResize", [x, b, i, c], attrs, name, "CropAndResize").outputs[0]


# --------------------------------------------------------------------------------------
# DrawBoundingBoxes / DrawBoundingBoxesV2
# --------------------------------------------------------------------------------------

# TF's default colors (RGBA): yellow, blue, red, lime, purple, olive, maroon, navy, aqua,
# fuchsia; channels past the 4th are 1.
_COLORS = [
    [1, 1, 0, 1],
    [0, 0, 1, 1],
    [1, 0, 0, 1],
    [0, 1, 0, 1],
    [0.5, 0, 0.5, 1],
    [0.5, 0.5, 0, 1],
    [0.5, 0, 0, 1],
    [0, 0, 0.5, 1],
    [0, 1, 1, 1],
    [1, 0, 1, 1],
]


def _draw_infer(op):
    images, boxes = op.inputs[:2]
    check_dtype(images, _HALF_FLOAT, "images")
    check_dtype(boxes, (_dt.float32,), "boxes")
    checked_dims(images, 4, "images")
    checked_dims(boxes, 3, "boxes")
    if len(op.inputs) == 3:
        check_dtype(op.inputs[2], (_dt.float32,), "colors")
    return [(images.dtype, images.shape)]


def _draw_kernel(ctx, op, images, boxes, colors=None):
    if images.ndim != 4:
        raise errors.InvalidArgumentError(
            None, op, "The rank of the images should be 4, got shape %s" % list(images.shape)
        )
    n, h, w, depth = images.shape
    if depth not in (1, 3, 4):
        raise errors.InvalidArgumentError(
            None, op, "Channel depth should be either 1 (GRY), 3 (RGB), or 4 (RGBA)"
        )
    if boxes.ndim != 3 or boxes.shape[0] != n or boxes.shape[2] != 4:
        raise errors.InvalidArgumentError(
            None, op, "boxes must be [batch, num_boxes, 4], got shape %s" % list(boxes.shape)
        )
    if colors is not None and colors.size:
        if colors.ndim != 2:
            raise errors.InvalidArgumentError(None, op, "colors must be a 2-D matrix")
        if colors.shape[1] < depth:
            raise errors.InvalidArgumentError(
                None, op, "colors must have equal or more channels than the image provided"
            )
        table = colors.astype(np.float32)[:, :depth]
    else:
        table = np.array(_COLORS, np.float32)
        if depth > 4:
            table = np.pad(table, ((0, 0), (0, depth - 4)), constant_values=1)
        table = table[:, :depth].copy()
        if depth == 1:
            table[:, 0] = 1  # TF's default colors draw white on a gray image
    table = table.astype(images.dtype)
    canvas = images.copy()
    # TF truncates each edge's float32 position to a pixel; a box is drawn line by line.
    b = boxes.astype(np.float32, copy=False)
    rows = (b[..., [0, 2]] * np.float32(h - 1)).astype(np.int64)
    cols = (b[..., [1, 3]] * np.float32(w - 1)).astype(np.int64)
    for i in range(n):
        for k in range(boxes.shape[1]):
            r0, r1 = rows[i, k]
            c0, c1 = cols[i, k]
            if r0 > r1 or c0 > c1 or r0 >= h or r1 < 0 or c0 >= w or c1 < 0:
                continue  # inverted or outside the image: TF skips it (with a warning)
            color = table[k % len(table)]
            rc0, rc1, cc0, cc1 = max(r0, 0), min(r1, h - 1), max(c0, 0), min(c1, w - 1)
            if r0 >= 0:
                canvas[i, r0, cc0 : cc1 + 1] = color
            if r1 < h:
                canvas[i, r1, cc0 : cc1 + 1] = color
            if c0 >= 0:
                canvas[i, rc0 : rc1 + 1, c0] = color
            if c1 < w:
                canvas[i, rc0 : rc1 + 1, c1] = color
    return (canvas,)


register_op("DrawBoundingBoxes", infer=_draw_infer, kernel=_draw_kernel, grad=NOT_DIFFERENTIABLE)
register_op("DrawBoundingBoxesV2", infer=_draw_infer, kernel=_draw_kernel, grad=NOT_DIFFERENTIABLE)


def draw_bounding_boxes(
    images: TensorLike,
    boxes: TensorLike,
    name: str | None = None,
    colors: TensorLike | None = None,
) -> Tensor:
    """Draws the outline of each box of ``boxes`` [batch, num_boxes, 4] (normalized
    ``[y_min, x_min, y_max, x_max]``) on ``images`` [batch, height, width, depth]
    (TF1 ``tf.image.draw_bounding_boxes``; op ``DrawBoundingBoxes``, or
    ``DrawBoundingBoxesV2`` with ``colors``).

    Args:
      images: float32 or half images with 1, 3 or 4 channels.
      boxes: float32 [batch, num_boxes, 4].
      name: the op name.
      colors: float32 [num_colors, channels] cycled over the boxes; default TF's 10.
    """
    with in_graph_of([images, boxes]):
        x = convert_to_tensor(images, name="images")
        b = convert_to_tensor(boxes, dtype=_dt.float32, name="boxes")
        if colors is None:
            return make("DrawBoundingBoxes", [x, b], {}, name, "DrawBoundingBoxes")
        c = convert_to_tensor(colors, dtype=_dt.float32, name="colors")
        return make("DrawBoundingBoxesV2", [x, b, c], {}, name, "DrawBoundingBoxesV2")
