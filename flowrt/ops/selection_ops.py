"""Picking and reordering elements: ``where_v2`` (op type SelectV2, a broadcasting
select), ``reverse_sequence`` (op type ReverseSequence: each batch row's first
``seq_lengths`` elements reversed), ``repeat`` and ``batch_gather`` (composed of
gathers, as TF composes them).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.graph import Tensor
from .._core.registry import register_op
from .._core.shape import TensorShape, broadcast_shapes
from . import array_ops, indexing_ops, math_ops, slicing_ops
from .common import check_dtype, make, op_scope, to_tensor

if TYPE_CHECKING:
    from .._core.typing import TensorLike

__all__ = [
    "reverse_sequence",
    "where_v2",
    "repeat",
    "batch_gather",
]


_INDEX = (_dt.int32, _dt.int64)


def _int_tensor(v, dtype=_dt.int32) -> Tensor:
    return v if isinstance(v, Tensor) else to_tensor(v, dtype)


# --------------------------------------------------------------------------------------
# ReverseSequence
# --------------------------------------------------------------------------------------


def _revseq_infer(op):
    x, lens = op.inputs
    check_dtype(lens, _INDEX, "seq_lengths")
    sd, bd = op.attrs["seq_dim"], op.attrs["batch_dim"]
    if lens.shape.ndims not in (None, 1):
        raise ValueError("seq_lengths must be 1-dimensional, got shape %s" % lens.shape)
    if x.shape.ndims is not None:
        n = x.shape.ndims
        if sd == bd or not (0 <= sd < n and 0 <= bd < n):
            raise ValueError(
                "seq_dim (%d) and batch_dim (%d) must be distinct axes of the input of "
                "rank %d" % (sd, bd, n)
            )
        if not TensorShape([x.shape.as_list()[bd]]).is_compatible_with(lens.shape):
            raise ValueError(
                "len(seq_lengths) (%s) != input.dims(%d) (%s)"
                % (lens.shape[0], bd, x.shape.as_list()[bd])
            )
    return [(x.dtype, x.shape)]


def _revseq_kernel(ctx, op, x, lens):
    sd, bd = op.attrs["seq_dim"], op.attrs["batch_dim"]
    if lens.shape[0] != x.shape[bd]:
        raise errors.InvalidArgumentError(
            None,
            op,
            "len(seq_lengths) (%d) != input.dims(%d) (%d)" % (lens.shape[0], bd, x.shape[bd]),
        )
    out = x.copy()
    for i, n in enumerate(lens.tolist()):
        if not 0 <= n <= x.shape[sd]:
            raise errors.InvalidArgumentError(
                None,
                op,
                "seq_lengths[%d] = %d is not in [0, input.dims(%d) = %d]" % (i, n, sd, x.shape[sd]),
            )
        src: list[Any] = [slice(None)] * x.ndim
        src[bd], src[sd] = i, slice(n - 1, None, -1) if n else slice(0, 0)
        dst: list[Any] = [slice(None)] * x.ndim
        dst[bd], dst[sd] = i, slice(0, n)
        out[tuple(dst)] = x[tuple(src)]
    return (out,)


register_op(
    "ReverseSequence",
    infer=_revseq_infer,
    kernel=_revseq_kernel,
    grad=lambda op, g: [
        make(
            "ReverseSequence",
            [g, op.inputs[1]],
            {"seq_dim": op.attrs["seq_dim"], "batch_dim": op.attrs["batch_dim"]},
        ),
        None,
    ],
)


def reverse_sequence(
    input: TensorLike,
    seq_lengths: TensorLike,
    seq_axis: int | None = None,
    batch_axis: int | None = None,
    name: str | None = None,
    seq_dim: int | None = None,
    batch_dim: int | None = None,
) -> Tensor:
    """Reverses, for each ``i`` along ``batch_axis``, the first ``seq_lengths[i]``
    elements along ``seq_axis`` (the rest stay in place).

    Args:
      input: a tensor.
      seq_lengths: an int32/int64 vector, as long as ``input``'s ``batch_axis``.
      seq_axis: the axis reversed (TF1's ``seq_dim`` is the same argument).
      batch_axis: the batch axis (default 0; TF1's ``batch_dim``).
      name: the op's name (default ``ReverseSequence``).
      seq_dim: deprecated name of ``seq_axis``.
      batch_dim: deprecated name of ``batch_axis``.

    Raises:
      InvalidArgumentError: at run time, for a length outside ``[0, input.dims(seq_axis)]``.
    """
    sd = _one_of(seq_axis, seq_dim, "seq_axis", "seq_dim")
    bd = _one_of(batch_axis, batch_dim, "batch_axis", "batch_dim")
    if sd is None:
        raise ValueError("reverse_sequence needs seq_axis")
    with op_scope([input, seq_lengths], None, None):
        x = to_tensor(input)
        bd = 0 if bd is None else int(bd)
        n = x.shape.ndims
        sd, bd = int(sd), bd
        if n is not None:
            sd, bd = sd + n if sd < 0 else sd, bd + n if bd < 0 else bd
        lens = _int_tensor(seq_lengths, _dt.int64)
        return make("ReverseSequence", [x, lens], {"seq_dim": sd, "batch_dim": bd}, name)


def _one_of(a, b, na, nb):
    if a is not None and b is not None and a != b:
        raise ValueError("Cannot specify both '%s' and '%s'" % (na, nb))
    return a if a is not None else b


# --------------------------------------------------------------------------------------
# SelectV2 (where_v2): broadcasting select
# --------------------------------------------------------------------------------------


def _select_v2_infer(op):
    c, x, y = op.inputs
    check_dtype(c, (_dt.bool,), "condition")
    if x.dtype is not y.dtype:
        raise TypeError(
            "Input 'e' of 'SelectV2' Op has type %s that does not match type %s of "
            "argument 't'." % (y.dtype.name, x.dtype.name)
        )
    return [(x.dtype, broadcast_shapes(broadcast_shapes(c.shape, x.shape), y.shape))]


def _select_v2_kernel(ctx, op, c, x, y):
    try:
        return (np.asarray(np.where(c, x, y), dtype=x.dtype),)
    except ValueError:
        raise errors.InvalidArgumentError(
            None,
            op,
            "condition %s, then %s and else %s shapes are not broadcastable"
            % (list(c.shape), list(x.shape), list(y.shape)),
        ) from None


def _sum_back(g, x: Tensor, out: Tensor):
    rx, _ = array_ops.broadcast_gradient_args(array_ops.shape(x), array_ops.shape(out))
    return array_ops.reshape(math_ops.reduce_sum(g, rx, keepdims=True), array_ops.shape(x))


def _select_v2_grad(op, g):
    c, x, y = op.inputs
    zeros = array_ops.zeros_like(g)
    gx = make("SelectV2", [c, g, zeros])
    gy = make("SelectV2", [c, zeros, g])
    out = op.outputs[0]
    return [None, _sum_back(gx, x, out), _sum_back(gy, y, out)]


register_op("SelectV2", infer=_select_v2_infer, kernel=_select_v2_kernel, grad=_select_v2_grad)


def where_v2(
    condition: TensorLike,
    x: TensorLike | None = None,
    y: TensorLike | None = None,
    name: str | None = None,
) -> Tensor:
    """``x`` where ``condition`` is true, else ``y``, with ``condition``, ``x`` and ``y``
    broadcast against each other (op SelectV2); with neither ``x`` nor ``y``, the
    coordinates of the true elements (as ``fr.where``).

    Args:
      condition: a bool tensor.
      x: values where ``condition`` is true.
      y: values where it is false (``x``'s dtype).
      name: the op's name.
    """
    if x is None and y is None:
        return math_ops.where(condition, name=name)
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    with op_scope([condition, x, y], None, None):
        tx, ty = math_ops.binary_inputs(x, y, "SelectV2")
        return make("SelectV2", [to_tensor(condition), tx, ty], None, name)


# --------------------------------------------------------------------------------------
# repeat (composed: gather of repeated indices)
# --------------------------------------------------------------------------------------


def repeat(
    input: TensorLike, repeats: TensorLike, axis: int | None = None, name: str | None = None
) -> Tensor:
    """Each slice of ``input`` along ``axis`` repeated ``repeats`` times (numpy's
    ``repeat``); composed from ``sequence_mask``, ``boolean_mask`` and ``gather``.

    Args:
      input: a tensor.
      repeats: an int32 scalar, or a vector as long as ``input``'s ``axis``.
      axis: the axis; None repeats the flattened ``input``.
      name: a name scope for the ops (default ``Repeat``).
    """
    with op_scope([input, repeats], name, "Repeat"):
        x = to_tensor(input)
        if axis is None:
            x, axis = array_ops.reshape(x, [-1]), 0
        r = _int_tensor(repeats)
        if r.shape.ndims not in (None, 0, 1):
            raise ValueError("repeats must be a scalar or a vector, got shape %s" % r.shape)
        n = array_ops.shape(x)[axis]
        r = math_ops.broadcast_to(r, array_ops.reshape(n, [1]))
        width = math_ops.maximum(math_ops.reduce_max(r), 0)
        mask = indexing_ops.sequence_mask(r, width)
        rows = math_ops.broadcast_to(
            array_ops.expand_dims(array_ops.range(n), 1), array_ops.shape(mask)
        )
        return slicing_ops.gather(x, indexing_ops.boolean_mask(rows, mask), axis=axis)


def batch_gather(params: TensorLike, indices: TensorLike, name: str | None = None) -> Tensor:
    """For each batch position ``b...`` (all axes of ``indices`` but the last),
    ``params[b..., indices[b..., j]]``: TF1's ``batch_gather``, composed from reshape
    and one ``gather`` on the flattened batch.

    Args:
      params: a tensor of shape ``[B..., N, rest...]``.
      indices: an int tensor of shape ``[B..., K]`` with a known rank.
      name: a name scope for the ops (default ``BatchGather``).
    """
    with op_scope([params, indices], name, "BatchGather"):
        p, ix = to_tensor(params), _int_tensor(indices)
        k = ix.shape.ndims
        if k is None:
            raise ValueError("batch_gather does not allow indices with unknown shape.")
        if k == 0:
            raise ValueError("batch_gather does not allow indices with rank 0.")
        if k == 1:
            return slicing_ops.gather(p, ix)
        ps = array_ops.shape(p)
        batch = ps[: k - 1]
        n = math_ops.cast(ps[k - 1], ix.dtype)
        count = math_ops.reduce_prod(batch)
        offsets = math_ops.cast(array_ops.range(count), ix.dtype) * n
        offsets = array_ops.reshape(offsets, slicing_ops.concat([batch, [1]], 0))
        flat = array_ops.reshape(p, slicing_ops.concat([[-1], ps[k:]], 0))
        out = slicing_ops.gather(flat, ix + offsets)
        if p.shape.ndims is not None and ix.shape.ndims is not None:
            out.set_shape(TensorShape(ix.shape.as_list() + p.shape.as_list()[k:]))
        return out
