"""TF1's ``tf.tuple``: tensors that are available only once all of them are computed.

This module defines a function named ``tuple``, so it does not use the builtin.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from .._core.graph import Operation, Tensor, convert_to_tensor, get_default_graph
from . import array_ops
from .common import op_scope

if TYPE_CHECKING:
    from .._core.typing import TensorLike

__all__ = ["tuple"]


def tuple(  # TF1's name, shadowing the builtin in this module only
    tensors: Sequence[TensorLike | None],
    name: str | None = None,
    control_inputs: Iterable[Operation | Tensor] | None = None,
) -> list[Tensor | None]:
    """``tensors`` gated together: each returned tensor is an identity of its input that
    runs only after every input (and every ``control_inputs`` op) is computed.

    Args:
      tensors: tensors, or None (returned as None).
      name: the name scope (default ``tuple``).
      control_inputs: more ops to finish before any result is available.

    Returns:
      A list like ``tensors``: ``tuple/control_dependency:0``, ``..._1:0``, ...

    Raises:
      TypeError: if ``control_inputs`` holds something other than ops and tensors.
    """
    items = list(tensors)
    with op_scope([t for t in items if t is not None], name, "tuple"):
        ts = [None if t is None else convert_to_tensor(t) for t in items]
        gating: list[Operation | Tensor] = [t.op for t in ts if t is not None]
        for c in control_inputs or []:
            if isinstance(c, Tensor):
                c = c.op
            if not isinstance(c, Operation):
                raise TypeError("Control input must be Operation or Tensor: %s" % (c,))
            gating.append(c)
        gate = array_ops.group(*gating)
        g = get_default_graph()
        out: list[Tensor | None] = []
        for t in ts:
            if t is None:
                out.append(None)
                continue
            with g.name_scope("control_dependency") as scope:
                with g.colocate_with(t.op), g.control_dependencies([gate]):
                    out.append(array_ops.identity(t, name=scope))
        return out
