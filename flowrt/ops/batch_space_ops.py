"""Moving blocks of space into the batch and back: ``space_to_batch_nd`` and
``batch_to_space_nd`` (op rows whose gradients are each other, as TF), and TF1's 4-D
``space_to_batch``/``batch_to_space`` with one square block size.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.graph import Tensor
from .._core.registry import register_op
from .._core.shape import TensorShape, unknown_shape
from .common import check_dtype, make, op_scope, to_tensor
from .const_eval import static_value

if TYPE_CHECKING:
    from .._core.typing import TensorLike

__all__ = ["space_to_batch_nd", "batch_to_space_nd", "space_to_batch", "batch_to_space"]

_INDEX = (_dt.int32, _dt.int64)


def _args_infer(op, what):
    x, block, pads = op.inputs
    check_dtype(block, _INDEX, "block_shape")
    check_dtype(pads, _INDEX, what)
    if block.shape.ndims not in (None, 1):
        raise ValueError("block_shape must be a vector, got shape %s" % block.shape)
    m = block.shape[0] if block.shape.ndims == 1 else None
    if pads.shape.ndims is not None and not pads.shape.is_compatible_with([m, 2]):
        raise ValueError("%s must have shape [%s, 2], got %s" % (what, m, pads.shape))
    if m is not None and x.shape.ndims is not None and x.shape.ndims < m + 1:
        raise ValueError(
            "input rank should be > block_shape's length %d, got input shape %s" % (m, x.shape)
        )
    return static_value(block), static_value(pads)


def _check_args(op, x, block, pads, what):
    m = block.shape[0] if block.ndim == 1 else -1
    if block.ndim != 1 or pads.shape != (m, 2):
        raise errors.InvalidArgumentError(
            None,
            op,
            "block_shape must be a vector and %s of shape [%d, 2], got %s and %s"
            % (what, m, list(block.shape), list(pads.shape)),
        )
    if x.ndim < m + 1:
        raise errors.InvalidArgumentError(
            None, op, "input rank should be > %d, got shape %s" % (m, list(x.shape))
        )
    if np.any(block < 1):
        raise errors.InvalidArgumentError(
            None, op, "block_shape must be positive, got %s" % block.tolist()
        )
    if np.any(pads < 0):
        raise errors.InvalidArgumentError(
            None, op, "%s must be non-negative, got %s" % (what, pads.tolist())
        )
    return m


# --------------------------------------------------------------------------------------
# SpaceToBatchND
# --------------------------------------------------------------------------------------


def _s2b_infer(op):
    x = op.inputs[0]
    block, pads = _args_infer(op, "paddings")
    if block is None or pads is None or x.shape.ndims is None:
        return [(x.dtype, unknown_shape(x.shape.ndims))]
    block, pads = np.asarray(block), np.asarray(pads)
    dims = x.shape.as_list()
    out = [None if dims[0] is None else dims[0] * int(np.prod(block))]
    for i, b in enumerate(block.tolist()):
        d = dims[1 + i]
        if d is None:
            out.append(None)
            continue
        p = d + int(pads[i, 0]) + int(pads[i, 1])
        if p % b:
            raise ValueError(
                "padded_shape[%d]=%d is not divisible by block_shape[%d]=%d" % (i, p, i, b)
            )
        out.append(p // b)
    return [(x.dtype, TensorShape(out + dims[1 + len(block) :]))]


def _s2b_kernel(ctx, op, x, block, pads):
    m = _check_args(op, x, block, pads, "paddings")
    b = [int(v) for v in block]
    padded = np.pad(x, [(0, 0)] + [tuple(p) for p in pads.tolist()] + [(0, 0)] * (x.ndim - m - 1))
    n, rest = x.shape[0], x.shape[m + 1 :]
    shape = [n]
    for i in range(m):
        p = padded.shape[1 + i]
        if p % b[i]:
            raise errors.InvalidArgumentError(
                None,
                op,
                "padded_shape[%d]=%d is not divisible by block_shape[%d]=%d" % (i, p, i, b[i]),
            )
        shape += [p // b[i], b[i]]
    y = padded.reshape(shape + list(rest))
    perm = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)]
    perm += list(range(1 + 2 * m, y.ndim))
    y = y.transpose(perm)
    out = [n * int(np.prod(b))] + [shape[1 + 2 * i] for i in range(m)] + list(rest)
    return (np.ascontiguousarray(y).reshape(out),)


register_op(
    "SpaceToBatchND",
    infer=_s2b_infer,
    kernel=_s2b_kernel,
    grad=lambda op, g: [make("BatchToSpaceND", [g, op.inputs[1], op.inputs[2]]), None, None],
)

# --------------------------------------------------------------------------------------
# BatchToSpaceND
# --------------------------------------------------------------------------------------


def _b2s_infer(op):
    x = op.inputs[0]
    block, crops = _args_infer(op, "crops")
    if block is None or crops is None or x.shape.ndims is None:
        return [(x.dtype, unknown_shape(x.shape.ndims))]
    block, crops = np.asarray(block), np.asarray(crops)
    dims = x.shape.as_list()
    prod = int(np.prod(block))
    if dims[0] is not None and dims[0] % prod:
        raise ValueError(
            "Input batch dimension (%d) is not divisible by product of block sizes (%d)"
            % (dims[0], prod)
        )
    out = [None if dims[0] is None else dims[0] // prod]
    for i, b in enumerate(block.tolist()):
        d = dims[1 + i]
        out.append(None if d is None else d * b - int(crops[i, 0]) - int(crops[i, 1]))
        if out[-1] is not None and out[-1] < 0:
            raise ValueError(
                "crops %s are larger than the dimension %d of the result" % (crops[i], d * b)
            )
    return [(x.dtype, TensorShape(out + dims[1 + len(block) :]))]


def _b2s_kernel(ctx, op, x, block, crops):
    m = _check_args(op, x, block, crops, "crops")
    b = [int(v) for v in block]
    prod = int(np.prod(b))
    if x.shape[0] % prod:
        raise errors.InvalidArgumentError(
            None,
            op,
            "Input batch dimension (%d) is not divisible by product of block sizes (%d)"
            % (x.shape[0], prod),
        )
    n, spatial, rest = x.shape[0] // prod, x.shape[1 : m + 1], x.shape[m + 1 :]
    y = x.reshape(b + [n] + list(spatial) + list(rest))
    perm = [m]
    for i in range(m):
        perm += [m + 1 + i, i]
    perm += list(range(2 * m + 1, y.ndim))
    y = np.ascontiguousarray(y.transpose(perm))
    full = [spatial[i] * b[i] for i in range(m)]
    y = y.reshape([n] + full + list(rest))
    index = [slice(None)]
    for i in range(m):
        lo, hi = int(crops[i, 0]), int(crops[i, 1])
        if lo + hi > full[i]:
            raise errors.InvalidArgumentError(
                None,
                op,
                "crops[%d] = %s are larger than the dimension %d of the result"
                % (i, [lo, hi], full[i]),
            )
        index.append(slice(lo, full[i] - hi))
    return (np.ascontiguousarray(y[tuple(index)]),)


register_op(
    "BatchToSpaceND",
    infer=_b2s_infer,
    kernel=_b2s_kernel,
    grad=lambda op, g: [make("SpaceToBatchND", [g, op.inputs[1], op.inputs[2]]), None, None],
)


def _nd(op_type, x, block_shape, pads, name):
    with op_scope([x, block_shape, pads], None, None):
        b = block_shape if isinstance(block_shape, Tensor) else to_tensor(block_shape, _dt.int32)
        p = pads if isinstance(pads, Tensor) else to_tensor(pads, _dt.int32)
        return make(op_type, [to_tensor(x), b, p], None, name)


def space_to_batch_nd(
    input: TensorLike, block_shape: TensorLike, paddings: TensorLike, name: str | None = None
) -> Tensor:
    """Pads the ``M`` spatial dimensions after the batch by ``paddings`` and moves
    ``block_shape`` blocks of them into the batch: shape ``[batch * prod(block_shape),
    padded_1 / block_1, ..., padded_M / block_M, rest...]``.

    Args:
      input: a tensor of rank ``M + 1`` or more.
      block_shape: an int vector of ``M`` positive block sizes.
      paddings: an int ``[M, 2]`` tensor of non-negative (start, end) paddings; each
        padded dimension must be divisible by its block size.
      name: the op's name (default ``SpaceToBatchND``).
    """
    return _nd("SpaceToBatchND", input, block_shape, paddings, name)


def batch_to_space_nd(
    input: TensorLike, block_shape: TensorLike, crops: TensorLike, name: str | None = None
) -> Tensor:
    """The inverse of ``space_to_batch_nd``: moves ``block_shape`` blocks of the batch
    back into the ``M`` spatial dimensions, then crops them by ``crops``.

    Args:
      input: a tensor whose batch is divisible by ``prod(block_shape)``.
      block_shape: an int vector of ``M`` positive block sizes.
      crops: an int ``[M, 2]`` tensor of non-negative (start, end) crops.
      name: the op's name (default ``BatchToSpaceND``).
    """
    return _nd("BatchToSpaceND", input, block_shape, crops, name)


def _block(block_size, block_shape, fn):
    if block_shape is not None:
        if block_size is not None and block_size != block_shape:
            raise ValueError("Cannot specify both 'block_size' and 'block_shape'")
        block_size = block_shape
    if not isinstance(block_size, (int, np.integer)) or block_size < 2:
        raise ValueError("%s: block_size must be an int >= 2, got %r" % (fn, block_size))
    return [int(block_size)] * 2


def _check_4d(x: Tensor, fn: str):
    if x.shape.ndims not in (None, 4):
        raise ValueError("%s: input must be 4-D, got shape %s" % (fn, x.shape))


def space_to_batch(
    input: TensorLike,
    paddings: TensorLike,
    block_size: int | None = None,
    name: str | None = None,
    block_shape: int | None = None,
) -> Tensor:
    """TF1's 4-D ``space_to_batch``: ``space_to_batch_nd`` of the two spatial
    dimensions with square blocks of ``block_size``.

    Args:
      input: a 4-D ``[batch, height, width, depth]`` tensor.
      paddings: an int ``[2, 2]`` tensor of paddings of height and width.
      block_size: the block size (an int >= 2; ``block_shape`` is its other name).
      name: the op's name.
      block_shape: the same as ``block_size``.
    """
    size = _block(block_size, block_shape, "space_to_batch")
    with op_scope([input, paddings], None, None):
        x = to_tensor(input)
        _check_4d(x, "space_to_batch")
        return space_to_batch_nd(x, size, paddings, name=name)


def batch_to_space(
    input: TensorLike,
    crops: TensorLike,
    block_size: int | None = None,
    name: str | None = None,
    block_shape: int | None = None,
) -> Tensor:
    """TF1's 4-D ``batch_to_space``: ``batch_to_space_nd`` into the two spatial
    dimensions with square blocks of ``block_size``.

    Args:
      input: a 4-D tensor whose batch is divisible by ``block_size ** 2``.
      crops: an int ``[2, 2]`` tensor of crops of height and width.
      block_size: the block size (an int >= 2; ``block_shape`` is its other name).
      name: the op's name.
      block_shape: the same as ``block_size``.
    """
    size = _block(block_size, block_shape, "batch_to_space")
    with op_scope([input, crops], None, None):
        x = to_tensor(input)
        _check_4d(x, "batch_to_space")
        return batch_to_space_nd(x, size, crops, name=name)
