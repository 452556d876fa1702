"""The non-max suppression variants beyond ``non_max_suppression``: with scores and
soft-NMS (``NonMaxSuppressionV5``), over a given overlap matrix
(``NonMaxSuppressionWithOverlaps``), per class over a batch
(``CombinedNonMaxSuppression``), and padded to a fixed size.

All run TF's greedy loop (``image_boxes.greedy_nms``): candidates by score, ties by lower index; a
candidate is compared with the boxes already kept, newest first, and each comparison
drops it when their similarity is above the threshold, or with soft-NMS (where TF
ignores the threshold) scales its score by ``exp(-sim² / 2σ)``; a candidate whose score
fell goes back in the queue.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.graph import convert_to_tensor
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from .common import TensorShape, check_dtype, make_op, op_scope
from .image_boxes import box_corners, check_boxes_and_scores, checked_dims, greedy_nms, iou_row

if TYPE_CHECKING:
    from .._core.graph import Tensor
    from .._core.typing import TensorLike

__all__ = [
    "non_max_suppression_with_scores",
    "non_max_suppression_overlaps",
    "non_max_suppression_padded",
    "combined_non_max_suppression",
]

_HALF_FLOAT = (_dt.float16, _dt.float32)


def _check_scalar(op, v, what: str):
    if np.ndim(v) != 0:
        raise errors.InvalidArgumentError(
            None, op, "%s must be 0-D, got shape %s" % (what, list(np.shape(v)))
        )


# --------------------------------------------------------------------------------------
# NonMaxSuppressionV5: with scores, soft-NMS, padding
# --------------------------------------------------------------------------------------


def _v5_infer(op):
    boxes, scores = op.inputs[:2]
    check_dtype(boxes, _HALF_FLOAT, "boxes")
    check_dtype(scores, _HALF_FLOAT, "scores")
    checked_dims(boxes, 2, "boxes")
    checked_dims(scores, 1, "scores")
    for t, what in zip(op.inputs[2:], ("max_output_size", "iou_threshold", "score_threshold")):
        checked_dims(t, 0, what)
    checked_dims(op.inputs[5], 0, "soft_nms_sigma")
    return [
        (_dt.int32, TensorShape([None])),
        (boxes.dtype, TensorShape([None])),
        (_dt.int32, TensorShape([])),
    ]


def _v5_kernel(ctx, op, boxes, scores, size, iou, score_thr, sigma):
    check_boxes_and_scores(op, boxes, scores)
    for v, what in ((size, "max_output_size"), (iou, "iou_threshold"), (sigma, "soft_nms_sigma")):
        _check_scalar(op, v, what)
    if not 0 <= float(iou) <= 1:
        raise errors.InvalidArgumentError(None, op, "iou_threshold must be in [0, 1]")
    if float(sigma) < 0:
        raise errors.InvalidArgumentError(None, op, "soft_nms_sigma must be non-negative")
    n = int(size)
    corners = box_corners(boxes)
    kept, kept_scores = greedy_nms(
        scores, lambda i: iou_row(corners, i), n, float(iou), float(score_thr), float(sigma)
    )
    valid = len(kept)
    if op.attrs["pad_to_max_output_size"]:
        kept += [0] * (n - valid)
        kept_scores += [0.0] * (n - valid)
    return (
        np.asarray(kept, np.int32),
        np.asarray(kept_scores, boxes.dtype),
        np.int32(valid),
    )


register_op("NonMaxSuppressionV5", infer=_v5_infer, kernel=_v5_kernel, grad=NOT_DIFFERENTIABLE)


def _v5(boxes, scores, max_output_size, iou, score_thr, sigma, pad: bool):
    b = convert_to_tensor(boxes, name="boxes")
    s = convert_to_tensor(scores, name="scores")
    m = convert_to_tensor(max_output_size, dtype=_dt.int32, name="max_output_size")
    ts = [convert_to_tensor(t, dtype=b.dtype) for t in (iou, score_thr, sigma)]
    attrs = {"pad_to_max_output_size": pad}
    return make_op("NonMaxSuppressionV5", [b, s, m] + ts, attrs, None).outputs


def non_max_suppression_with_scores(
    boxes: TensorLike,
    scores: TensorLike,
    max_output_size: TensorLike,
    iou_threshold: Any = 0.5,
    score_threshold: Any = float("-inf"),
    soft_nms_sigma: Any = 0.0,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    """Greedy non-max suppression returning the kept indices and their scores; with
    ``soft_nms_sigma`` > 0, soft-NMS (Bodla et al.): an overlapping box's score is
    scaled by ``exp(-iou² / (2 σ))`` instead of dropped (TF1
    ``tf.image.non_max_suppression_with_scores``; op ``NonMaxSuppressionV5``).

    Returns:
      ``(selected_indices, selected_scores)``: int32 [M] and [M] scores, best first.
    """
    with op_scope([boxes, scores], name, "non_max_suppression_with_scores"):
        idx, sc, _ = _v5(
            boxes, scores, max_output_size, iou_threshold, score_threshold, soft_nms_sigma, False
        )
        return idx, sc


def non_max_suppression_padded(
    boxes: TensorLike,
    scores: TensorLike,
    max_output_size: Any,
    iou_threshold: Any = 0.5,
    score_threshold: Any = float("-inf"),
    pad_to_max_output_size: bool = False,
    name: str | None = None,
    sorted_input: bool = False,
    canonicalized_coordinates: bool = False,
    tile_size: int = 512,
) -> tuple[Tensor, Tensor]:
    """Greedy non-max suppression of one image's boxes [num_boxes, 4], returning the
    indices and how many are valid (TF1 ``tf.image.non_max_suppression_padded``).

    With ``pad_to_max_output_size`` the indices are padded with 0 to
    ``max_output_size``. ``sorted_input``, ``canonicalized_coordinates`` and
    ``tile_size`` only speed TF up; the result does not depend on them.

    Note (flowrt): batched boxes ([..., num_boxes, 4]) raise ``ValueError``.
    """
    del sorted_input, canonicalized_coordinates, tile_size
    with op_scope([boxes, scores], name, "non_max_suppression_padded"):
        b = convert_to_tensor(boxes, name="boxes")
        if b.shape.ndims is not None and b.shape.ndims > 2:
            if not pad_to_max_output_size:
                raise ValueError(
                    "'pad_to_max_output_size' (value False) must be True for batched input"
                )
            raise ValueError("batched boxes are not supported; boxes must be [num_boxes, 4]")
        idx, _, valid = _v5(
            b, scores, max_output_size, iou_threshold, score_threshold, 0.0,
            bool(pad_to_max_output_size),
        )  # fmt: skip
        return idx, valid


# --------------------------------------------------------------------------------------
# NonMaxSuppressionWithOverlaps
# --------------------------------------------------------------------------------------


def _overlaps_infer(op):
    overlaps, scores = op.inputs[:2]
    checked_dims(overlaps, 2, "overlaps")
    checked_dims(scores, 1, "scores")
    for t, what in zip(op.inputs[2:], ("max_output_size", "overlap_threshold", "score_threshold")):
        checked_dims(t, 0, what)
    return [(_dt.int32, TensorShape([None]))]


def _overlaps_kernel(ctx, op, overlaps, scores, size, thr, score_thr):
    n = scores.shape[0] if scores.ndim == 1 else -1
    if overlaps.ndim != 2 or overlaps.shape != (n, n):
        raise errors.InvalidArgumentError(
            None,
            op,
            "overlaps must be square [num_boxes, num_boxes] for scores %s, got %s"
            % (list(scores.shape), list(overlaps.shape)),
        )
    kept, _ = greedy_nms(
        scores, lambda i: overlaps[i], int(size), float(thr), float(score_thr), symmetric=False
    )
    return (np.asarray(kept, np.int32),)


register_op(
    "NonMaxSuppressionWithOverlaps",
    infer=_overlaps_infer,
    kernel=_overlaps_kernel,
    grad=NOT_DIFFERENTIABLE,
)


def non_max_suppression_overlaps(
    overlaps: TensorLike,
    scores: TensorLike,
    max_output_size: TensorLike,
    overlap_threshold: Any = 0.5,
    score_threshold: Any = float("-inf"),
    name: str | None = None,
) -> Tensor:
    """Greedy non-max suppression over a given [num_boxes, num_boxes] overlap matrix
    (TF1 ``tf.image.non_max_suppression_overlaps``; op
    ``NonMaxSuppressionWithOverlaps``): int32 indices of the kept boxes, best first."""
    with op_scope([overlaps, scores], name, "non_max_suppression_overlaps"):
        o = convert_to_tensor(overlaps, _dt.float32, name="overlaps")
        s = convert_to_tensor(scores, _dt.float32, name="scores")
        m = convert_to_tensor(max_output_size, _dt.int32, name="max_output_size")
        ts = [convert_to_tensor(t, _dt.float32) for t in (overlap_threshold, score_threshold)]
        return make_op("NonMaxSuppressionWithOverlaps", [o, s, m] + ts, {}, None).outputs[0]


# --------------------------------------------------------------------------------------
# CombinedNonMaxSuppression
# --------------------------------------------------------------------------------------


def _detections(op, per_class: int | None, total: int | None) -> int | None:
    if total is None:
        return None
    if op.attrs["pad_per_class"]:
        if per_class is None or op.inputs[1].shape.as_list()[-1:] in ([None], []):
            return None
        return min(per_class * op.inputs[1].shape.as_list()[-1], total)
    return total


def _combined_infer(op):
    from .const_eval import static_value

    boxes, scores = op.inputs[:2]
    check_dtype(boxes, (_dt.float32,), "boxes")
    check_dtype(scores, (_dt.float32,), "scores")
    batch = checked_dims(boxes, 4, "boxes")[0]
    checked_dims(scores, 3, "scores")
    for t, what in zip(
        op.inputs[2:],
        ("max_output_size_per_class", "max_total_size", "iou_threshold", "score_threshold"),
    ):
        checked_dims(t, 0, what)
    per, tot = (static_value(t) for t in op.inputs[2:4])
    d = _detections(op, None if per is None else int(per), None if tot is None else int(tot))
    return [
        (_dt.float32, TensorShape([batch, d, 4])),
        (_dt.float32, TensorShape([batch, d])),
        (_dt.float32, TensorShape([batch, d])),
        (_dt.int32, TensorShape([batch])),
    ]


def _combined_kernel(ctx, op, boxes, scores, per_class, total, iou, score_thr):
    if boxes.ndim != 4 or boxes.shape[-1] != 4:
        raise errors.InvalidArgumentError(
            None, op, "boxes must be 4-D [batch, num_boxes, q, 4], got %s" % list(boxes.shape)
        )
    batch, n, q, _ = boxes.shape
    if scores.shape[:2] != (batch, n) or q not in (1, scores.shape[2]):
        raise errors.InvalidArgumentError(
            None,
            op,
            "scores %s do not match boxes %s (q must be 1 or num_classes)"
            % (list(scores.shape), list(boxes.shape)),
        )
    per, tot = int(per_class), int(total)
    if per <= 0 or tot <= 0:
        raise errors.InvalidArgumentError(
            None, op, "max_output_size_per_class and max_total_size must be > 0"
        )
    classes = scores.shape[2]
    det = min(per * classes, tot) if op.attrs["pad_per_class"] else tot
    out_boxes = np.zeros((batch, det, 4), np.float32)
    out_scores = np.zeros((batch, det), np.float32)
    out_classes = np.zeros((batch, det), np.float32)
    valid = np.zeros(batch, np.int32)
    for b in range(batch):
        found = []  # (score, class, box index), TF's order: score desc, then as found
        for c in range(classes):
            bx = boxes[b, :, 0 if q == 1 else c]
            iou_of = functools.partial(iou_row, box_corners(bx))
            kept, ks = greedy_nms(scores[b, :, c], iou_of, per, float(iou), float(score_thr))
            found += [(sc, c, i) for i, sc in zip(kept, ks)]
        found.sort(key=lambda t: -t[0])  # stable: ties keep class then rank order
        found = found[:det]
        valid[b] = len(found)
        for k, (s, c, i) in enumerate(found):
            box = boxes[b, i, 0 if q == 1 else c].astype(np.float32)
            if op.attrs["clip_boxes"]:
                box = np.clip(box, 0.0, 1.0)
            out_boxes[b, k] = box
            out_scores[b, k] = s
            out_classes[b, k] = c
    return out_boxes, out_scores, out_classes, valid


register_op(
    "CombinedNonMaxSuppression",
    infer=_combined_infer,
    kernel=_combined_kernel,
    grad=NOT_DIFFERENTIABLE,
)


def combined_non_max_suppression(
    boxes: TensorLike,
    scores: TensorLike,
    max_output_size_per_class: TensorLike,
    max_total_size: TensorLike,
    iou_threshold: Any = 0.5,
    score_threshold: Any = float("-inf"),
    pad_per_class: bool = False,
    clip_boxes: bool = True,
    name: str | None = None,
) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """Greedy non-max suppression per class and image, then the best ``max_total_size``
    detections of each image (TF1 ``tf.image.combined_non_max_suppression``; op
    ``CombinedNonMaxSuppression``).

    Args:
      boxes: float32 [batch, num_boxes, q, 4]; q is 1 (boxes shared by the classes) or
        num_classes.
      scores: float32 [batch, num_boxes, num_classes].
      max_output_size_per_class: a scalar int, boxes kept per class.
      max_total_size: a scalar int, detections kept per image.
      iou_threshold: drop a box whose IOU with a kept box of its class is above this.
      score_threshold: only boxes scoring above this are candidates.
      pad_per_class: pad to ``min(max_output_size_per_class * num_classes,
        max_total_size)`` instead of ``max_total_size``.
      clip_boxes: clip the boxes to [0, 1].
      name: the op's name.

    Returns:
      ``(nmsed_boxes [batch, D, 4], nmsed_scores [batch, D], nmsed_classes [batch, D],
      valid_detections [batch])``, zero-padded past each image's valid count.
    """
    with op_scope([boxes, scores], name, "combined_non_max_suppression"):
        b = convert_to_tensor(boxes, _dt.float32, name="boxes")
        s = convert_to_tensor(scores, _dt.float32, name="scores")
        ints = [
            convert_to_tensor(v, _dt.int32, name=n)
            for v, n in ((max_output_size_per_class, "max_output_size_per_class"),
                         (max_total_size, "max_total_size"))
        ]  # fmt: skip
        ts = [convert_to_tensor(t, _dt.float32) for t in (iou_threshold, score_threshold)]
        attrs = {"pad_per_class": bool(pad_per_class), "clip_boxes": bool(clip_boxes)}
        out = make_op("CombinedNonMaxSuppression", [b, s] + ints + ts, attrs, None).outputs
        return out[0], out[1], out[2], out[3]
