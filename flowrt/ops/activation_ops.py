"""Activations composed of existing ops as TF composes them: ``log_sigmoid``
(``-softplus(-x)``), ``swish`` (SiLU) and ``crelu``; their gradients come from the
ops they are made of.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._core.graph import Tensor, convert_to_tensor
from . import math_ops, slicing_ops
from .common import op_scope
from .nn_ops import relu, softplus

if TYPE_CHECKING:
    from .._core.typing import TensorLike

__all__ = [
    "log_sigmoid",
]


def log_sigmoid(x: TensorLike, name: str | None = None) -> Tensor:
    """``log(sigmoid(x))``, computed as ``-softplus(-x)`` so it is finite for large ``-x``.

    Args:
      x: a float tensor.
      name: the name scope (default ``LogSigmoid``).
    """
    with op_scope([x], name, "LogSigmoid") as scope:
        x = convert_to_tensor(x, name="x")
        return math_ops.negative(softplus(-x), name=scope)


def swish(features: TensorLike, name: str | None = None) -> Tensor:
    """``features * sigmoid(features)`` (SiLU), as ``fr.nn.swish``.

    Args:
      features: a float tensor.
      name: the name scope (default ``swish``).
    """
    with op_scope([features], name, "swish"):
        x = convert_to_tensor(features, name="features")
        return x * math_ops.sigmoid(x)


def crelu(features: TensorLike, name: str | None = None, axis: int = -1) -> Tensor:
    """``relu`` of ``features`` and of ``-features``, concatenated along ``axis``: the
    result has twice the depth (``fr.nn.crelu``).

    Args:
      features: a float tensor.
      name: the name scope (default ``CRelu``).
      axis: the axis to concatenate along.
    """
    with op_scope([features], name, "CRelu") as scope:
        x = convert_to_tensor(features, name="features")
        c = slicing_ops.concat([x, -x], axis, name=scope)
        return relu(c)
