"""Initializers by name, as ``keras.initializers.get`` (flowrt's init_ops classes)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from .. import init_ops

if TYPE_CHECKING:
    from .._core.graph import Tensor

__all__ = ["get"]

_BY_NAME = {
    "zeros": init_ops.Zeros,
    "ones": init_ops.Ones,
    "glorot_uniform": init_ops.GlorotUniform,
    "glorot_normal": init_ops.GlorotNormal,
    "random_uniform": init_ops.RandomUniform,
    "random_normal": init_ops.RandomNormal,
    "truncated_normal": init_ops.TruncatedNormal,
}


def get(identifier: str | Callable[..., Tensor] | None) -> Callable[..., Tensor] | None:
    """An initializer from a name, an initializer object or callable, or None."""
    if identifier is None or callable(identifier):
        return identifier
    if isinstance(identifier, str) and identifier in _BY_NAME:
        return _BY_NAME[identifier]()
    import difflib

    close = difflib.get_close_matches(str(identifier), _BY_NAME, n=3)
    raise ValueError(
        "Unknown initializer: %r.%s"
        % (identifier, " Did you mean %s?" % ", ".join(map(repr, close)) if close else "")
    )
