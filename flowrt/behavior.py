"""TF's switches between TF1 and TF2 behaviour, as ``tf.compat.v1`` has them.

flowrt always behaves as TF1 in graph mode with resource variables, the behaviour a
TF1 program asks for with ``tf.disable_eager_execution()`` or
``tf.disable_v2_behavior()``. One switch changes what a program sees: static shapes
index to ints (TF2's ``TensorShape``, the default) or to ``Dimension`` objects (TF1's,
after ``disable_v2_behavior()`` or ``disable_v2_tensorshape()``). The other ``disable_*``
switches are accepted and change nothing; the ``enable_*`` switches that would turn on a
TF2 behaviour flowrt does not have raise ``NotImplementedError`` saying so, rather than
leave a program believing it runs eagerly.
"""

from __future__ import annotations

from typing import Any

from ._core.shape import set_v2_tensorshape

__all__ = [
    "control_flow_v2_enabled",
    "disable_control_flow_v2",
    "disable_eager_execution",
    "disable_resource_variables",
    "disable_tensor_equality",
    "disable_v2_behavior",
    "disable_v2_tensorshape",
    "enable_control_flow_v2",
    "enable_eager_execution",
    "enable_resource_variables",
    "enable_tensor_equality",
    "enable_v2_behavior",
    "enable_v2_tensorshape",
    "executing_eagerly",
    "executing_eagerly_outside_functions",
    "resource_variables_enabled",
]


def _unsupported(what: str) -> NotImplementedError:
    return NotImplementedError(
        "%s is not supported by flowrt: it builds graphs and runs them in an fr.Session "
        "(or traces fr.function into graphs), always with TF1's graph-mode behaviour" % what
    )


def disable_eager_execution() -> None:
    """Graph mode, TF1's way of running: flowrt's only mode, so this changes nothing."""


def enable_eager_execution(
    config: Any = None, device_policy: Any = None, execution_mode: Any = None
) -> None:
    """Raises ``NotImplementedError``: flowrt has no eager mode."""
    raise _unsupported("Eager execution (tf.enable_eager_execution)")


def executing_eagerly() -> bool:
    """False: ops build graph nodes, in and out of ``fr.function``."""
    return False


def executing_eagerly_outside_functions() -> bool:
    """False: flowrt has no eager mode."""
    return False


def disable_v2_behavior() -> None:
    """TF1 behaviour: static shapes index to ``Dimension`` objects
    (``x.get_shape()[1].value``), as ``disable_v2_tensorshape()``; the rest is flowrt's
    own behaviour already."""
    set_v2_tensorshape(False)


def enable_v2_behavior() -> None:
    """Raises ``NotImplementedError``: flowrt has no eager mode."""
    raise _unsupported("TF2 behaviour (tf.enable_v2_behavior)")


def disable_resource_variables() -> None:
    """Accepted; changes nothing.

    Note (flowrt): variables are always resource variables (TF's ``use_resource=True``):
    a read inside a run sees one value, and updates are atomic per op.
    """


def enable_resource_variables() -> None:
    """flowrt's variables are resource variables already: changes nothing."""


def resource_variables_enabled() -> bool:
    """True: every flowrt variable is a resource variable."""
    return True


def disable_control_flow_v2() -> None:
    """TF1's control flow (``cond``/``while_loop`` as graph nodes), flowrt's own: changes
    nothing."""


def enable_control_flow_v2() -> None:
    """Accepted; changes nothing.

    Note (flowrt): ``cond`` and ``while_loop`` behave alike either way (only the taken
    branch runs; loops differentiate), so the switch has nothing to change.
    """


def control_flow_v2_enabled() -> bool:
    """False: the TF1 form, as ``tf.disable_v2_behavior()`` leaves it."""
    return False


def disable_tensor_equality() -> None:
    """TF1's ``Tensor.__eq__`` (identity, tensors hashable), flowrt's own: changes nothing."""


def enable_tensor_equality() -> None:
    """Raises ``NotImplementedError``: tensors compare by identity, as in TF1 (use
    ``fr.equal`` for an elementwise comparison)."""
    raise _unsupported("Elementwise Tensor == (tf.enable_tensor_equality)")


def disable_v2_tensorshape() -> None:
    """TF1's ``TensorShape``: indexing and iterating a static shape give ``Dimension``
    objects (``shape[i].value``; unknown is ``Dimension(None)``); ``as_list()`` still
    gives ints and None."""
    set_v2_tensorshape(False)


def enable_v2_tensorshape() -> None:
    """TF2's ``TensorShape``, the default: a static shape indexes to ints and None."""
    set_v2_tensorshape(True)
