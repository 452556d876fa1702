"""Activation functions by name, as ``keras.activations.get``."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from .. import nn
from .._core.graph import Tensor
from ..ops import array_ops

_T = TypeVar("_T")

__all__ = ["get", "linear", "relu", "sigmoid", "tanh", "softmax", "elu", "selu", "softplus"]


def linear(x: _T) -> _T:
    """The identity (Keras' default activation)."""
    return x


relu, sigmoid, tanh, softmax = nn.relu, nn.sigmoid, nn.tanh, nn.softmax
elu, selu, softplus = nn.elu, nn.selu, nn.softplus

_BY_NAME: dict[str, Callable[[Tensor], Tensor]] = {
    "linear": linear,
    "relu": relu,
    "sigmoid": sigmoid,
    "tanh": tanh,
    "softmax": softmax,
    "elu": elu,
    "selu": selu,
    "softplus": softplus,
    "identity": array_ops.identity,
}


def get(identifier: str | Callable[[Tensor], Tensor] | None) -> Callable[[Tensor], Tensor]:
    """An activation from a name, a callable, or None (linear)."""
    if identifier is None:
        return linear
    if callable(identifier):
        return identifier
    if isinstance(identifier, str) and identifier in _BY_NAME:
        return _BY_NAME[identifier]
    import difflib

    close = difflib.get_close_matches(str(identifier), _BY_NAME, n=3)
    raise ValueError(
        "Unknown activation function: %r.%s"
        % (identifier, " Did you mean %s?" % ", ".join(map(repr, close)) if close else "")
    )
