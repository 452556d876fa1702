"""``fr.contrib.training``: TF1's ``tf.contrib.training`` ps placement strategy,
``GreedyLoadBalancingStrategy`` with its ``byte_size_load_fn``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import dtypes as _dt
from .._core.shape import as_shape

__all__ = ["GreedyLoadBalancingStrategy", "byte_size_load_fn"]


class GreedyLoadBalancingStrategy:
    """A ``ps_strategy`` for ``fr.train.replica_device_setter``: each ps op goes to the
    ps task with the least load so far, then adds ``load_fn(op)`` to that task's load.

    The result depends on the order the variables are created in, as in TF1.

    Args:
      num_tasks: the number of ps tasks.
      load_fn: ``f(op) -> number``, e.g. ``byte_size_load_fn``.
    """

    def __init__(self, num_tasks: int, load_fn: Callable[[Any], float]):
        self._num_tasks = num_tasks
        self._load_fn = load_fn
        self._ps_loads = np.zeros(num_tasks)

    def __call__(self, op: Any) -> int:
        """The ps task index for ``op``: the least loaded (the first of equals)."""
        task = int(np.argmin(self._ps_loads))
        self._ps_loads[task] += self._load_fn(op)
        return task


def byte_size_load_fn(op: Any) -> int:
    """The size in bytes of the one output of ``op``: a load for
    ``GreedyLoadBalancingStrategy``.

    Note (flowrt): for a variable's ``VarHandleOp`` (a resource handle) the size is
    that of the variable's value, from its ``dtype`` and ``shape`` attrs; TF 2's
    resource handles all count 1 byte, which balances nothing.

    Raises:
      ValueError: if ``op`` does not have exactly one output, or its shape is not
        fully defined.
    """
    if len(op.outputs) != 1:
        raise ValueError("Op %s must have a single output" % op)
    output = op.outputs[0]
    dtype, shape = output.dtype, output.get_shape()
    if dtype is _dt.resource and "dtype" in op.attrs and "shape" in op.attrs:  # a variable
        dtype, shape = op.attrs["dtype"], as_shape(op.attrs["shape"])
    if not shape.is_fully_defined():
        raise ValueError(
            "byte_size_load_fn: the shape %s of the output of %s is not fully defined"
            % (shape, op.describe() if hasattr(op, "describe") else op)
        )
    return int(shape.num_elements()) * dtype.size
