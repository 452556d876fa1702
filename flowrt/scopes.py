"""Default-graph conveniences: ``fr.name_scope``, ``fr.control_dependencies``,
``fr.device``, ``fr.colocate_with`` and the collection functions."""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import AbstractContextManager
from typing import Any

from ._core.graph import get_default_graph

__all__ = [
    "name_scope",
    "control_dependencies",
    "device",
    "colocate_with",
    "add_to_collection",
    "add_to_collections",
    "get_collection",
    "get_collection_ref",
]


class name_scope:  # noqa: N801 - TF1's name
    """A context manager for op names: ``with fr.name_scope("layer1") as scope:``.

    Args:
      name: the scope name; None resets to the root scope; a name ending in "/" re-enters
        that exact scope.
      default_name: used when ``name`` is None (then it is made unique).
      values: tensors the ops inside use; their graph becomes the default.
    """

    def __init__(
        self, name: str | None, default_name: str | None = None, values: Iterable[Any] | None = None
    ) -> None:
        if name is None and default_name is not None:
            name = default_name
        self._name = name
        self._values = values
        self._ctx: Any = None
        self._gctx: Any = None

    def __enter__(self) -> str:
        g = None
        for v in self._values or []:
            g = getattr(v, "graph", None)
            if g is not None:
                break
        if g is not None and g is not get_default_graph():
            self._gctx = g.as_default()
            self._gctx.__enter__()
        self._ctx = get_default_graph().name_scope(self._name)
        return self._ctx.__enter__()

    def __exit__(self, *exc: object) -> None:
        self._ctx.__exit__(*exc)
        if self._gctx is not None:
            self._gctx.__exit__(*exc)


def control_dependencies(control_inputs: Iterable[Any] | None) -> AbstractContextManager[None]:
    """Ops created inside run only after ``control_inputs`` (ops or tensors); None
    clears the outer control dependencies."""
    return get_default_graph().control_dependencies(control_inputs)


def device(device_name: Any) -> AbstractContextManager[None]:
    """Records a device on ops created inside: a device string or ``fr.DeviceSpec``, a
    device function ``f(op) -> device`` (such as ``fr.train.replica_device_setter``'s),
    or None to clear the enclosing devices.

    Note (flowrt): one process runs everything on the CPU; the device says which task of
    a cluster runs the op.
    """
    return get_default_graph().device(device_name)


def colocate_with(op: Any, ignore_existing: bool = False) -> AbstractContextManager[None]:
    """Ops created inside are placed with ``op`` (an op, tensor or variable).

    As TF1: they get the ``_class`` attr ``[b"loc:@<op's name>"]`` (also the groups of
    the enclosing ``colocate_with`` blocks, unless ``ignore_existing``; see
    ``Operation.colocation_groups``) and ``op``'s device, and the enclosing ``fr.device``
    blocks and device functions (``replica_device_setter``) do not apply to them. A
    variable created inside still passes through those device functions first (TF makes
    variables in an ``init_scope``), then takes ``op``'s device.

    Args:
      op: the op, tensor or variable to colocate with, or None with
        ``ignore_existing=True`` to clear colocation and devices inside.
      ignore_existing: only ``op``'s group, not the enclosing blocks' groups.

    Raises:
      ValueError: if ``op`` is None and ``ignore_existing`` is False.
    """
    return get_default_graph().colocate_with(op, ignore_existing)


def add_to_collection(name: str, value: Any) -> None:
    """Adds ``value`` to the default graph's collection ``name``."""
    get_default_graph().add_to_collection(name, value)


def add_to_collections(names: str | Iterable[str], value: Any) -> None:
    """Adds ``value`` to each of the default graph's collections ``names``."""
    get_default_graph().add_to_collections(names, value)


def get_collection(key: str, scope: str | None = None) -> list[Any]:
    """A copy of the default graph's collection ``key``, only items whose name matches
    ``scope`` (a regex anchored at the start) if given."""
    return get_default_graph().get_collection(key, scope)


def get_collection_ref(key: str) -> list[Any]:
    """The default graph's collection ``key`` itself (appending to it adds items)."""
    return get_default_graph().get_collection_ref(key)
