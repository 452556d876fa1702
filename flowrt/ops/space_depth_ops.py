"""``fr.space_to_depth`` and ``fr.depth_to_space`` (ops ``SpaceToDepth`` and
``DepthToSpace``), NHWC; each one's gradient is the other.

``SpaceToDepth`` moves each ``block_size x block_size`` spatial block into the depth
dimension (depth index ``(row_in_block * block_size + col_in_block) * C + c``);
``DepthToSpace`` is its inverse.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._core.graph import Tensor, convert_to_tensor
from .._core.registry import register_op
from .._core.shape import TensorShape
from .common import in_graph_of, make, shape_str
from .conv_ops import check_format

if TYPE_CHECKING:
    from .._core.typing import TensorLike

__all__ = ["space_to_depth", "depth_to_space"]


def _dims(op) -> tuple[list, int]:
    x = op.inputs[0]
    if x.shape.ndims is not None and x.shape.ndims != 4:
        raise ValueError(
            "Shape must be rank 4 but is rank %d with input shape %s"
            % (x.shape.ndims, shape_str(x.shape))
        )
    dims = [None] * 4 if x.shape.ndims is None else x.shape.as_list()
    return dims, op.attrs["block_size"]


def _divisible(d: int | None, by: int) -> None:
    if d is not None and d % by:
        raise ValueError("Dimension size must be evenly divisible by %d but is %d" % (by, d))


def _s2d_infer(op):
    (n, h, w, c), b = _dims(op)
    _divisible(h, b)
    _divisible(w, b)
    return [
        (
            op.inputs[0].dtype,
            TensorShape(
                [
                    n,
                    None if h is None else h // b,
                    None if w is None else w // b,
                    None if c is None else c * b * b,
                ]
            ),
        )
    ]


def _d2s_infer(op):
    (n, h, w, c), b = _dims(op)
    _divisible(c, b * b)
    return [
        (
            op.inputs[0].dtype,
            TensorShape(
                [
                    n,
                    None if h is None else h * b,
                    None if w is None else w * b,
                    None if c is None else c // (b * b),
                ]
            ),
        )
    ]


def _check_run(op, x: np.ndarray, spatial: bool) -> None:
    b = op.attrs["block_size"]
    if x.ndim != 4:
        raise ValueError("input must be 4-dimensional, got shape %s" % list(x.shape))
    if spatial and (x.shape[1] % b or x.shape[2] % b):
        raise ValueError(
            "Image height %d and width %d should be divisible by block_size: %d"
            % (x.shape[1], x.shape[2], b)
        )
    if not spatial and x.shape[3] % (b * b):
        raise ValueError(
            "Input depth dimension %d should be divisible by: %d" % (x.shape[3], b * b)
        )


def _s2d_kernel(ctx, op, x):
    _check_run(op, x, True)
    b = op.attrs["block_size"]
    n, h, w, c = x.shape
    y = x.reshape(n, h // b, b, w // b, b, c).transpose(0, 1, 3, 2, 4, 5)
    return (np.ascontiguousarray(y).reshape(n, h // b, w // b, b * b * c),)


def _d2s_kernel(ctx, op, x):
    _check_run(op, x, False)
    b = op.attrs["block_size"]
    n, h, w, c = x.shape
    y = x.reshape(n, h, w, b, b, c // (b * b)).transpose(0, 1, 3, 2, 4, 5)
    return (np.ascontiguousarray(y).reshape(n, h * b, w * b, c // (b * b)),)


def _attrs(op) -> dict:
    return {"block_size": op.attrs["block_size"], "data_format": "NHWC"}


register_op(
    "SpaceToDepth",
    infer=_s2d_infer,
    kernel=_s2d_kernel,
    grad=lambda op, g: [make("DepthToSpace", [g], _attrs(op))],
    quiet=True,
)
register_op(
    "DepthToSpace",
    infer=_d2s_infer,
    kernel=_d2s_kernel,
    grad=lambda op, g: [make("SpaceToDepth", [g], _attrs(op))],
    quiet=True,
)


def _block_attrs(op_type: str, block_size: int, data_format: str, fn: str) -> dict:
    check_format(data_format, fn)
    if isinstance(block_size, bool) or not isinstance(block_size, (int, np.integer)):
        raise TypeError("Expected int for argument 'block_size' not %r." % (block_size,))
    if block_size < 2:
        raise ValueError(
            "Attr 'block_size' of '%s' Op passed %d less than minimum 2." % (op_type, block_size)
        )
    return {"block_size": int(block_size), "data_format": "NHWC"}


def space_to_depth(
    input: TensorLike, block_size: int, name: str | None = None, data_format: str = "NHWC"
) -> Tensor:
    """Moves ``block_size x block_size`` spatial blocks into the depth dimension.

    Args:
      input: [batch, height, width, depth]; height and width divisible by
        ``block_size``.
      block_size: an int of at least 2.
      name: the op name (default ``SpaceToDepth``).
      data_format: ``"NHWC"``.

    Returns:
      [batch, height / block_size, width / block_size, depth * block_size**2].
    """
    with in_graph_of([input]):
        attrs = _block_attrs("SpaceToDepth", block_size, data_format, "space_to_depth")
        return make("SpaceToDepth", [convert_to_tensor(input)], attrs, name, "SpaceToDepth")


def depth_to_space(
    input: TensorLike, block_size: int, name: str | None = None, data_format: str = "NHWC"
) -> Tensor:
    """Moves depth into ``block_size x block_size`` spatial blocks (the inverse of
    ``space_to_depth``).

    Args:
      input: [batch, height, width, depth]; depth divisible by ``block_size**2``.
      block_size: an int of at least 2.
      name: the op name (default ``DepthToSpace``).
      data_format: ``"NHWC"``.

    Returns:
      [batch, height * block_size, width * block_size, depth / block_size**2].
    """
    with in_graph_of([input]):
        attrs = _block_attrs("DepthToSpace", block_size, data_format, "depth_to_space")
        return make("DepthToSpace", [convert_to_tensor(input)], attrs, name, "DepthToSpace")
