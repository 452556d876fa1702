"""``nn.ctc_greedy_decoder``: best-path decoding of CTC logits (TF1's
``tf.nn.ctc_greedy_decoder``, op ``CTCGreedyDecoder``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from .common import TensorShape, check_dtype, in_graph_of, is_tensor_like, make_op, to_tensor
from .sparse_ops import SparseTensor

if TYPE_CHECKING:
    from .._core.graph import Tensor
    from .._core.typing import TensorLike

__all__ = ["ctc_greedy_decoder"]

_FLOATS = (_dt.float32, _dt.float64)


def ctc_greedy_decoder(
    inputs: TensorLike,
    sequence_length: TensorLike,
    merge_repeated: bool = True,
    blank_index: int | None = None,
) -> tuple[list[SparseTensor], Tensor]:
    """Greedy (best path) decoding of ``inputs``: the most likely class at each time step,
    without blanks, and with a run of one class emitted once when ``merge_repeated``.

    A blank is an ordinary class for the choice of the most likely one (a step whose best
    class is the blank emits nothing but ends a run of repeats): the sequence ``A B B * B
    * B`` (``*`` the blank) gives ``A B B B`` with ``merge_repeated`` and ``A B B B B``
    without.

    Args:
      inputs: float32/float64 ``[max_time, batch_size, num_classes]`` logits.
      sequence_length: int32 ``[batch_size]``: the steps of each sequence to decode (at
        most ``max_time``).
      merge_repeated: emit consecutive equal classes once.
      blank_index: the blank class, ``num_classes - 1`` by default; a negative index
        counts from ``num_classes``.

    Returns:
      ``([decoded], neg_sum_logits)``: ``decoded`` an int64 ``SparseTensor`` of dense
      shape ``[batch_size, longest decoded length]`` holding each sequence's classes;
      ``neg_sum_logits`` ``[batch_size, 1]`` of the inputs' dtype, minus the sum over the
      decoded steps of each step's largest logit.

    Raises:
      TypeError: inputs not float32/float64, or a ``sequence_length`` tensor not int32.
      ValueError: ranks or batch sizes known at construction that do not fit.
      InvalidArgumentError: (at run time) the same, empty inputs, or a ``blank_index``
        outside ``[-num_classes, num_classes)``.
      FailedPreconditionError: (at run time) a ``sequence_length`` longer than
        ``max_time``, or not one per batch entry.
    """
    with in_graph_of([inputs, sequence_length]):
        x = to_tensor(inputs)
        check_dtype(x, _FLOATS, "inputs")
        if is_tensor_like(sequence_length):
            lengths = to_tensor(sequence_length)
            if lengths.dtype is not _dt.int32:
                raise TypeError(
                    "Input 'sequence_length' of 'CTCGreedyDecoder' Op has type %s that does "
                    "not match expected type of int32." % lengths.dtype.name
                )
        else:
            lengths = to_tensor(sequence_length, _dt.int32)
        op = make_op(
            "CTCGreedyDecoder",
            [x, lengths],
            {
                "merge_repeated": bool(merge_repeated),
                "blank_index": -1 if blank_index is None else int(blank_index),
            },
            None,
            "CTCGreedyDecoder",
        )
        indices, values, shape, neg_sum_logits = op.outputs
        return [SparseTensor(indices, values, shape)], neg_sum_logits


def _infer(op):
    x, lengths = op.inputs
    for what, t, rank in (("inputs", x, 3), ("sequence_length", lengths, 1)):
        if t.shape.ndims is not None and t.shape.ndims != rank:
            raise ValueError(
                "Shape must be rank %d but is rank %d for %s" % (rank, t.shape.ndims, what)
            )
    batch = x.shape.as_list()[1] if x.shape.ndims is not None else None
    n = lengths.shape.as_list()[0] if lengths.shape.ndims is not None else None
    if batch is not None and n is not None and batch != n:
        raise ValueError("Dimensions must be equal, but are %d and %d" % (batch, n))
    return [
        (_dt.int64, TensorShape([None, 2])),
        (_dt.int64, TensorShape([None])),
        (_dt.int64, TensorShape([2])),
        (x.dtype, TensorShape([batch if batch is not None else n, 1])),
    ]


def _validate(op, x: np.ndarray, lengths: np.ndarray) -> int:
    """TF's checks in TF's order and words; the blank class, counted from 0."""
    if x.ndim != 3:
        raise errors.InvalidArgumentError(None, op, "inputs is not a 3-Tensor")
    if x.size == 0:
        raise errors.InvalidArgumentError(None, op, "inputs must not be empty")
    max_time, batch, classes = x.shape
    if lengths.ndim != 1:
        raise errors.InvalidArgumentError(None, op, "sequence_length is not a vector")
    if lengths.shape[0] != batch:
        raise errors.FailedPreconditionError(
            None,
            op,
            "len(sequence_length) != batch_size.  len(sequence_length):  %d batch_size: %d"
            % (lengths.shape[0], batch),
        )
    over = np.flatnonzero(lengths > max_time)
    if over.size:
        raise errors.FailedPreconditionError(
            None, op, "sequence_length(%d) <= %d" % (over[0], max_time)
        )
    given = op.attrs["blank_index"]
    blank = given + classes if given < 0 else given
    if not 0 <= blank < classes:
        raise errors.InvalidArgumentError(
            None,
            op,
            "blank_index expected to be between %d and %d but was %d"
            % (-classes, classes - 1, given),
        )
    return blank


def _kernel(ctx, op, x, lengths):
    x, lengths = np.asarray(x), np.asarray(lengths, np.int32)
    blank = _validate(op, x, lengths)
    max_time, batch, _ = x.shape
    best = np.argmax(x, axis=2)
    top = np.take_along_axis(x, best[:, :, None], axis=2)[:, :, 0]
    if np.isnan(top).any():
        # TF's row maximum: the first strictly greater logit wins, so a NaN is never
        # chosen unless it is class 0, and then it stays (no comparison with it is true).
        best = np.argmax(np.where(np.isnan(x), -np.inf, x), axis=2)
        best[np.isnan(x[:, :, 0])] = 0
        top = np.take_along_axis(x, best[:, :, None], axis=2)[:, :, 0]
    live = np.arange(max_time)[:, None] < lengths[None, :]
    with np.errstate(invalid="ignore", over="ignore"):
        # cumsum adds step by step, in TF's order and the inputs' dtype; the steps past a
        # sequence's end add 0 after its sum.
        neg_sum = np.cumsum(np.where(live, -top, 0), axis=0, dtype=x.dtype)[-1]
    keep = live & (best != blank)
    if op.attrs["merge_repeated"]:
        keep[1:] &= best[1:] != best[:-1]
    rows, steps = np.nonzero(keep.T)  # batch-major, each row's steps in order
    counts = np.bincount(rows, minlength=batch)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    column = np.arange(rows.size) - starts[rows]
    indices = np.stack([rows, column], axis=1).astype(np.int64).reshape(-1, 2)
    values = best[steps, rows].astype(np.int64)
    shape = np.array([batch, counts.max(initial=0)], np.int64)
    return indices, values, shape, neg_sum.reshape(batch, 1)


register_op("CTCGreedyDecoder", infer=_infer, kernel=_kernel, grad=NOT_DIFFERENTIABLE)
