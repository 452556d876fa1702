"""``fr.Module``: TF2's container of variables and sub-modules, with a name scope.

A module's variables are found by walking its attributes (and lists, tuples and dicts
in them), in attribute-name order, as TF2's ``tf.Module`` does; nothing is registered
anywhere else. Its name scope is made unique when it is created and re-entered by
``with module.name_scope:``.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable
from typing import Any, TypeVar, cast

from ._core.graph import get_default_graph
from .variables import Variable

__all__ = ["Module"]

_F = TypeVar("_F", bound=Callable[..., Any])


def _snake(name: str) -> str:
    s = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", s).lower()


class _ModuleScope:
    """Re-enters a module's name scope in the current default graph."""

    def __init__(self, scope: str):
        self._scope = scope
        self._ctx: contextlib.AbstractContextManager[str] | None = None

    def __enter__(self) -> str:
        ctx = self._ctx = get_default_graph().name_scope(self._scope)
        return ctx.__enter__()

    def __exit__(self, *exc: Any) -> bool | None:
        assert self._ctx is not None  # entered first
        return self._ctx.__exit__(*exc)


class Module:
    """A named container of variables and other modules (TF2's ``tf.Module``).

    Args:
      name: the module's name (default: the class name in snake_case); must be a valid
        Python identifier.

    Attributes found by walking the module: ``variables``, ``trainable_variables``,
    ``non_trainable_variables``, ``submodules``.
    """

    def __init__(self, name: str | None = None) -> None:
        if name is None:
            name = _snake(type(self).__name__)
        elif not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*", name):
            raise ValueError(
                "%r is not a valid module name. Module names must be valid "
                "Python identifiers (e.g. a valid class name)." % name
            )
        self._name = name
        # A name scope cannot start with "_" at the root (TF's rule, checked by
        # Graph.name_scope); as tf-keras does for private classes, prefix "private".
        scope_name = "private" + name if name.startswith("_") else name
        with get_default_graph().name_scope(scope_name) as scope:
            self._scope_name = scope

    @property
    def name(self) -> str:
        return self._name

    @property
    def name_scope(self) -> _ModuleScope:
        """A context manager entering this module's (unique) name scope."""
        return _ModuleScope(self._scope_name)

    def _walk(self, want: Callable[[Any], bool]) -> tuple[Any, ...]:
        """Objects for which ``want`` holds, found depth-first through attributes."""
        out: list[Any] = []
        seen = {id(self)}

        def visit(x: Any, depth: int) -> None:
            if isinstance(x, (list, tuple)):
                for y in x:
                    visit(y, depth)
                return
            if isinstance(x, dict):
                for k in sorted(x, key=str):
                    visit(x[k], depth)
                return
            if id(x) in seen:
                return
            if isinstance(x, (Variable, Module)):
                seen.add(id(x))
                if want(x):
                    out.append(x)
                if isinstance(x, Module):
                    for k in sorted(vars(x)):
                        visit(vars(x)[k], depth + 1)

        for k in sorted(vars(self)):
            visit(vars(self)[k], 0)
        return tuple(out)

    @property
    def variables(self) -> tuple[Variable, ...]:
        """All variables of this module and its sub-modules."""
        return self._walk(lambda x: isinstance(x, Variable))

    @property
    def trainable_variables(self) -> tuple[Variable, ...]:
        return self._walk(lambda x: isinstance(x, Variable) and x.trainable)

    @property
    def non_trainable_variables(self) -> tuple[Variable, ...]:
        return self._walk(lambda x: isinstance(x, Variable) and not x.trainable)

    @property
    def submodules(self) -> tuple[Module, ...]:
        return self._walk(lambda x: isinstance(x, Module))

    @classmethod
    def with_name_scope(cls, method: _F) -> _F:
        """Decorates a method to run inside the module's name scope."""

        def wrapped(self: Module, *args: Any, **kwargs: Any) -> Any:
            with self.name_scope:
                return method(self, *args, **kwargs)

        wrapped.__name__ = getattr(method, "__name__", "method")
        wrapped.__doc__ = method.__doc__
        return cast(_F, wrapped)

    def __repr__(self) -> str:
        return "<%s name=%r>" % (type(self).__name__, self._name)
