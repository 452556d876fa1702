"""``fr.make_template``: a function whose ``get_variable`` calls share variables across
calls (TF1's ``tf.make_template`` and its ``Template`` class).

The first call opens a unique variable scope and creates the variables; every later
call re-enters that scope with ``reuse=True``, so ``get_variable`` returns the same
variables. Ops get a fresh name scope per call (``lin/``, ``lin_1/``, ...), as in TF1.
"""

from __future__ import annotations

import functools
import traceback
from collections.abc import Callable
from typing import Any

from ._core.graph import GraphKeys
from .scopes import get_collection
from .var_scope import VariableScope, _pure_variable_scope, _unique_variable_scope, variable_scope

__all__ = ["make_template", "Template"]


def make_template(
    name_: str,
    func_: Callable[..., Any],
    create_scope_now_: bool = False,
    unique_name_: str | None = None,
    custom_getter_: Callable[..., Any] | None = None,
    **kwargs: Any,
) -> Template:
    """Wraps ``func_`` so that all its calls share the variables it creates.

    ``func_`` must create its variables with ``fr.get_variable`` (a ``fr.Variable``
    made on a later call raises ValueError). The first call creates them in a unique
    variable scope named after ``name_`` (``name_``, ``name__1``, ...); later calls
    reuse them.

    Args:
      name_: the variable scope's base name.
      func_: the function to wrap; ``kwargs`` are bound to it (``functools.partial``).
      create_scope_now_: open the variable scope now (at the current scope) rather
        than on the first call.
      unique_name_: use this exact scope name instead of a unique one made from
        ``name_`` (to share variables between templates).
      custom_getter_: a custom getter for the template's variable scope.
      **kwargs: keyword arguments passed to ``func_`` on every call.

    Returns:
      A callable ``Template``.

    Raises:
      ValueError: if ``name_`` is None.

    Example:
      def scale(x):
          w = fr.get_variable("w", [], initializer=fr.ones_initializer())
          return x * w
      t = fr.make_template("scale", scale)
      a, b = t(x1), t(x2)     # one variable scale/w
    """
    if kwargs:
        func_ = functools.partial(func_, **kwargs)
    return Template(name_, func_, create_scope_now_, unique_name_, custom_getter_)


def _skip_common(defined: list[str], now: list[str]) -> list[str]:
    """The frames of the defining stack below the part it shares with the current one."""
    i = 0
    while i < min(len(defined), len(now)) and defined[i] == now[i]:
        i += 1
    return defined[i:]


class Template:
    """A function wrapped so its calls share variables (see :func:`make_template`).

    Args:
      name: the variable scope's base name.
      func: the function to wrap.
      create_scope_now: open the variable scope at construction.
      unique_name: an exact scope name to use instead of a unique one.
      custom_getter: a custom getter for the template's variable scope.
    """

    def __init__(
        self,
        name: str,
        func: Callable[..., Any],
        create_scope_now: bool = False,
        unique_name: str | None = None,
        custom_getter: Callable[..., Any] | None = None,
    ) -> None:
        if name is None:
            raise ValueError("name cannot be None.")
        self._func = func
        self._stacktrace = traceback.format_stack()[:-2]
        self._name = name
        self._unique_name = unique_name
        self._custom_getter = custom_getter
        self._variable_scope: VariableScope | None = None
        if create_scope_now:
            scope_name = unique_name or _unique_variable_scope(name)
            with _pure_variable_scope(scope_name, custom_getter=custom_getter) as vs:
                self._variable_scope = vs
        self._variables_created = False

    def _call_func(self, args: tuple, kwargs: dict) -> Any:
        try:
            trainable_at_start = len(get_collection(GraphKeys.TRAINABLE_VARIABLES))
            result = self._func(*args, **kwargs)
            if self._variables_created:
                trainable = get_collection(GraphKeys.TRAINABLE_VARIABLES)
                if len(trainable) != trainable_at_start:
                    raise ValueError(
                        "Trainable variable created when calling a template after the "
                        "first time, perhaps you used tf.Variable when you meant "
                        "tf.get_variable: %s" % (trainable[trainable_at_start:],)
                    )
            else:
                self._variables_created = True
            return result
        except Exception as exc:
            # TF1 adds where the template was defined to the first argument.
            trace = "".join(_skip_common(self._stacktrace, traceback.format_stack()))
            first = exc.args[0] if exc.args else ""
            exc.args = ("%s\n\noriginally defined at:\n%s" % (first, trace), *exc.args[1:])
            raise

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Calls the function in the template's variable scope, reusing its variables
        after the first call."""
        if self._variable_scope is not None:
            with variable_scope(self._variable_scope, reuse=self._variables_created or None):
                return self._call_func(args, kwargs)
        with variable_scope(self._unique_name, self._name, custom_getter=self._custom_getter) as vs:
            self._variable_scope = vs
            return self._call_func(args, kwargs)

    @property
    def name(self) -> str:
        """The name given to the template."""
        return self._name

    @property
    def func(self) -> Callable[..., Any]:
        """The wrapped function."""
        return self._func

    @property
    def variable_scope(self) -> VariableScope | None:
        """The template's variable scope (None before the first call unless it was
        created at construction)."""
        return self._variable_scope

    @property
    def variable_scope_name(self) -> str | None:
        """The variable scope's name with a trailing ``/``, or None if not yet made."""
        if self._variable_scope is None:
            return None
        name = self._variable_scope.name
        return name if not name or name.endswith("/") else name + "/"

    def _collection(self, key: str) -> list[Any]:
        if self._variable_scope is None:
            return []
        return self._variable_scope.get_collection(key)

    @property
    def variables(self) -> list[Any]:
        """The global and local variables created in the template's scope."""
        return self.global_variables + self.local_variables

    @property
    def trainable_variables(self) -> list[Any]:
        """The trainable variables created in the template's scope."""
        return self._collection(GraphKeys.TRAINABLE_VARIABLES)

    @property
    def non_trainable_variables(self) -> list[Any]:
        """The global variables of the template's scope that are not trainable."""
        trainable = set(map(id, self.trainable_variables))
        return [v for v in self.global_variables if id(v) not in trainable]

    @property
    def global_variables(self) -> list[Any]:
        """The global variables created in the template's scope."""
        return self._collection(GraphKeys.GLOBAL_VARIABLES)

    @property
    def local_variables(self) -> list[Any]:
        """The local variables created in the template's scope."""
        return self._collection(GraphKeys.LOCAL_VARIABLES)
