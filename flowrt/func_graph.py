"""The graph a ``@fr.function`` traces into, and where TF2-style variables live.

A ``FuncGraph`` is an ordinary ``Graph`` that knows it is building a function: while it
is the default graph, a variable from another graph is *captured* (a ``VarHandleOp``
bound to the variable's process-wide state), and ``fr.Variable(...)`` is *lifted* into
a graph of its own and initialized at once, as TF2 lifts variables out of a
``tf.function``. Active ``GradientTape``s of the graph are told about each
variable read (``watch_accessed_variables``).

The state a captured variable reads and writes is its *eager state*: one
``VariableResource`` per ``fr.Variable`` object, shared by every plain or async call.
It starts from the variable's initial value. A call op feeds the capture handle instead
when the variable belongs to the calling graph (see ``ConcreteFunction``), so that call
uses the caller's state.
"""

from __future__ import annotations

from ._core.executor import run_sync
from ._core.graph import Graph, Tensor
from ._core.plan import Plan
from ._core.resources import ResourceManager
from ._core.run_context import RunContext

__all__ = ["FuncGraph", "variable_graph", "evaluate"]


class FuncGraph(Graph):
    """The graph of one traced concrete function.

    Attributes:
      name: the function's name.
      captured_variables: ``{id(variable): (variable, handle)}`` in capture order.
      may_create_variables: True only while the function's first trace runs (TF2's rule).
      tapes: the ``GradientTape``s recording on this graph, innermost last.
    """

    def __init__(self, name: str, may_create_variables: bool = True):
        super().__init__()
        self.name = name
        self.captured_variables: dict[int, tuple] = {}
        self.may_create_variables = may_create_variables
        self.created_variables: list = []
        self.tapes: list = []

    @property
    def building_function(self) -> bool:
        return True

    def __repr__(self):
        return "<fr.FuncGraph %r with %d ops>" % (self.name, len(self._ops))


def variable_graph() -> Graph:
    """A graph of its own for one variable lifted out of a function: its name is the one
    asked for (TF2 variables may share names), and it is freed with the variable."""
    return Graph()


def evaluate(tensors: list[Tensor]) -> list:
    """Values of ``tensors`` computed without feeds (initial values of variables).

    Runs on the caller's thread (also from a trio task: tracing happens there), with
    state of its own; a tensor needing a fed placeholder is a ValueError.
    """
    from .errors import InvalidArgumentError

    plan = Plan(tensors, [], [])
    for st in plan.steps:
        if st.op.type == "Placeholder":
            raise ValueError(
                "the initial value of a variable created in a function may not depend on "
                "the function's arguments (it needs %s); create the variable from a value "
                "or an initializer, or outside the function" % st.op.name
            )
    try:
        return run_sync(plan, RunContext(None, ResourceManager()), [])
    except InvalidArgumentError as e:
        raise ValueError("could not compute a variable's initial value: %s" % e.message) from None


def notify_read(g, variable, read: Tensor) -> None:
    """Tells ``g``'s recording tapes that ``variable`` was read as ``read``."""
    for tape in g.tapes:
        tape._on_read(variable, read)
