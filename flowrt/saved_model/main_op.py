"""``fr.saved_model.main_op``: the op a SavedModel loader runs after restoring the
variables (initializing what the checkpoint does not hold)."""

from __future__ import annotations

from .._core.graph import Operation, get_default_graph
from ..ops.array_ops import group
from ..ops.lookup_ops import tables_initializer
from ..scopes import control_dependencies
from ..variables import global_variables_initializer, local_variables_initializer

__all__ = ["main_op", "main_op_with_restore"]


def main_op() -> Operation:
    """Groups the global and local variables' and the tables' initializers (TF's
    ``main_op``)."""
    return group(
        global_variables_initializer(), local_variables_initializer(), tables_initializer()
    )


def main_op_with_restore(restore_op_name: str) -> Operation:
    """``main_op()`` followed by the op named ``restore_op_name`` (e.g. a saver's
    ``save/restore_all``).

    Raises:
      KeyError: no operation of the default graph has that name.
    """
    restore = get_default_graph().get_operation_by_name(restore_op_name)
    with control_dependencies([main_op()]):
        return group(restore)
