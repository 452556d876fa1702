"""Constants kept as the ``TensorProto`` they were imported from until a run needs them.

A GraphDef's ``Const`` may declare far more than its proto holds: a shape with no
values (zeros), or a few values, the last repeated to fill it. TF keeps the proto in
its graph and makes the tensor when a kernel first needs it, so a graph holding an
unused [60000, 60000] constant loads at no cost; flowrt does the same. A
``LazyConstant`` has the ``dtype``, ``shape`` and ``ndim`` that shape inference reads;
``value_of`` decodes it the first time a run (or a fold at graph construction) asks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import errors

__all__ = ["LazyConstant", "value_of"]


class LazyConstant:
    """The value attr of an imported ``Const``: its ``TensorProto`` (already checked to
    be well formed), decoded by ``decode(proto, where)`` once, when first needed."""

    __slots__ = ("proto", "dtype", "shape", "_decode", "_value")

    def __init__(
        self,
        proto: Any,
        dtype: np.dtype,
        shape: tuple[int, ...],
        decode: Callable[[Any, str], np.ndarray],
    ):
        self.proto, self.dtype, self.shape = proto, dtype, shape
        self._decode = decode
        self._value: np.ndarray | None = None

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __repr__(self) -> str:
        return "<LazyConstant shape=%s dtype=%s>" % (list(self.shape), self.dtype)


def value_of(value: np.ndarray | LazyConstant, op: Any) -> np.ndarray:
    """The array of ``op``'s ``value`` attr, decoding a ``LazyConstant`` the first time.

    Raises:
      ResourceExhaustedError: naming ``op``, when the proto declares far more than it
        holds (``bounds.declared_bytes``'s cap on a repeated fill).
    """
    if not isinstance(value, LazyConstant):
        return value
    if value._value is None:
        try:
            arr = value._decode(value.proto, "Const '%s'" % op.name)
        except ValueError as e:
            raise errors.ResourceExhaustedError(
                None,
                op,
                "OOM when allocating tensor with shape%s and type %s: %s"
                % (list(value.shape), value.dtype, e),
            ) from None
        arr.flags.writeable = False
        value._value = arr
    return value._value
