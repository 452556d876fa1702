"""Default-graph conveniences: ``fr.name_scope``, ``fr.control_dependencies``,
``fr.device`` and the collection functions."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

from ._core.graph import get_default_graph

__all__ = [
    "name_scope",
    "control_dependencies",
    "device",
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

    def __init__(self, name: str | None, default_name: str | None = None, values: Any = None):
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


def control_dependencies(control_inputs: Any) -> AbstractContextManager[None]:
    """Ops created inside run only after ``control_inputs`` (ops or tensors); None
    clears the outer control dependencies."""
    return get_default_graph().control_dependencies(control_inputs)


def device(device_name: str | None) -> AbstractContextManager[None]:
    """Records a device string on ops created inside.

    Note (flowrt): flowrt runs everything on the CPU; the device is only recorded.
    """
    return get_default_graph().device(device_name)


def add_to_collection(name: str, value: Any) -> None:
    """Adds ``value`` to the default graph's collection ``name``."""
    get_default_graph().add_to_collection(name, value)


def add_to_collections(names: Any, value: Any) -> None:
    """Adds ``value`` to each of the default graph's collections ``names``."""
    get_default_graph().add_to_collections(names, value)


def get_collection(key: str, scope: str | None = None) -> list[Any]:
    """A copy of the default graph's collection ``key``, only items whose name matches
    ``scope`` (a regex anchored at the start) if given."""
    return get_default_graph().get_collection(key, scope)


def get_collection_ref(key: str) -> list[Any]:
    """The default graph's collection ``key`` itself (appending to it adds items)."""
    return get_default_graph().get_collection_ref(key)
