"""Default-graph conveniences: ``fr.name_scope``, ``fr.control_dependencies``,
``fr.device`` and the collection functions."""

from __future__ import annotations

from ._core.graph import get_default_graph

__all__ = ["name_scope", "control_dependencies", "device", "add_to_collection",
           "add_to_collections", "get_collection", "get_collection_ref"]


class name_scope:  # noqa: N801 - TF1's name
    """A context manager for op names: ``with fr.name_scope("layer1") as scope:``.

    Args:
      name: the scope name; None resets to the root scope; a name ending in "/" re-enters
        that exact scope.
      default_name: used when ``name`` is None (then it is made unique).
      values: tensors the ops inside use; their graph becomes the default.
    """

    def __init__(self, name, default_name=None, values=None):
        if name is None and default_name is not None:
            name = default_name
        self._name = name
        self._values = values
        self._ctx = None
        self._gctx = None

    def __enter__(self):
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

    def __exit__(self, *exc):
        self._ctx.__exit__(*exc)
        if self._gctx is not None:
            self._gctx.__exit__(*exc)


def control_dependencies(control_inputs):
    """Ops created inside run only after ``control_inputs`` (ops or tensors)."""
    return get_default_graph().control_dependencies(control_inputs)


def device(device_name):
    """Records a device string on ops created inside (flowrt runs everything on CPU)."""
    return get_default_graph().device(device_name)


def add_to_collection(name, value):
    get_default_graph().add_to_collection(name, value)


def add_to_collections(names, value):
    get_default_graph().add_to_collections(names, value)


def get_collection(key, scope=None):
    return get_default_graph().get_collection(key, scope)


def get_collection_ref(key):
    return get_default_graph().get_collection_ref(key)
