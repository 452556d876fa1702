"""User functions of datasets (``map``, ``filter``, ``flat_map``, ...), traced once.

The function is called once, at graph-construction time, on placeholders standing for
one element, in a ``FuncGraph`` of its own (as TF traces a dataset function into the
function library). A tensor of the outer graph it uses is *captured*: it becomes a
placeholder of the function and an input of the dataset op, so it is computed (or fed)
in the run that makes the dataset, as TF captures it. A ``fr.Variable`` it reads is
passed in as its handle in the same way, so the function reads the session's value.
Each call at run time runs the function's compiled plan with the iterator's run
context.
"""

from __future__ import annotations

from typing import Any, Callable

from .._core.executor import run_sync
from .._core.graph import Tensor, get_default_graph
from .._core.plan import Plan
from ..func_graph import FuncGraph
from ..ops import array_ops
from . import structure as st

__all__ = ["DatasetFunction", "trace"]


class _DatasetGraph(FuncGraph):
    """A function graph that captures outer tensors as placeholders."""

    def __init__(self, name: str, outer: Any) -> None:
        super().__init__(name, may_create_variables=False)
        self.outer = outer
        self.seed = outer.seed
        self.captures: dict[Tensor, Tensor] = {}

    def _capture(self, x: Any) -> Any:
        if type(x) is not Tensor or x.op.graph is self:
            return x
        ph = self.captures.get(x)
        if ph is None:
            with self.as_default(), self.control_dependencies(None), self.name_scope(None):
                ph = array_ops.placeholder(x.dtype, x.shape, name="capture")
            self.captures[x] = ph
        return ph

    def _create_op(
        self,
        op_type: str,
        inputs: list,
        attrs: dict,
        name: str | None,
        default_name: str | None = None,
    ) -> Any:
        inputs = [self._capture(x) for x in inputs]
        return super()._create_op(op_type, inputs, attrs, name, default_name)


class DatasetFunction:
    """A traced dataset function: its graph, argument and capture placeholders, outputs.

    Attributes:
      outputs: the flat output tensors (of the function graph).
      output_structure: the nest the function returned (tensor leaves).
      captured: the outer tensors the function uses, in order (the dataset op's inputs).
    """

    def __init__(self, graph: _DatasetGraph, args: list, outputs: list, structure: Any):
        self.graph = graph
        self.args = args
        self.outputs = outputs
        self.output_structure = structure
        vars_ = list(graph.captured_variables.values())
        self.captured = list(graph.captures) + [v._handle for v, _ in vars_]
        feeds = args + list(graph.captures.values()) + [h for _, h in vars_]
        targets = [op for op in graph._ops if not op.outputs]
        self.plan = Plan(outputs, targets, feeds)
        if self.plan.blocking:
            raise ValueError(
                "dataset function %r uses an op that may block (a queue or reader op); "
                "tf.data functions may not block" % graph.name
            )

    def __call__(self, ctx: Any, element: list, captured: list) -> list:
        return run_sync(self.plan, ctx, list(element) + list(captured))


def trace(
    fn: Callable[..., Any], specs: Any, name: str, convert: Callable[[Any], Any] | None = None
) -> DatasetFunction:
    """Traces ``fn`` on one element described by ``specs`` (a nest of ``TensorSpec``).

    A tuple element is passed as positional arguments, anything else as one argument
    (as ``tf.data``). ``convert`` turns the returned value into a nest of tensors (of
    the function graph); by default every leaf is converted with ``convert_to_tensor``.
    """
    if not callable(fn):
        raise TypeError("%s: the function argument must be callable, got %r" % (name, fn))
    outer = get_default_graph()
    g = _DatasetGraph(name, outer)
    with g.as_default():
        flat = [
            array_ops.placeholder(s.dtype, s.shape, name="arg%d" % i)
            for i, s in enumerate(st.flatten(specs))
        ]
        element = st.pack(specs, flat)
        ret = (
            fn(*element)
            if isinstance(element, tuple) and not hasattr(element, "_fields")
            else fn(element)
        )
        if isinstance(ret, list):  # tf.data: a returned list is a tuple of components
            ret = tuple(ret)
        if convert is not None:
            ret = convert(ret)
        elif ret is None:
            raise ValueError(
                "%s: the function returned None; it must return a tensor or a nest of "
                "tensors (a dataset element has at least one component)" % name
            )
        else:
            ret = st.to_tensors(ret, "%s: the function's return value" % name)
        ret = st.map_structure(g._capture, ret)  # an outer tensor returned as it is
    outs = st.flatten(ret)
    return DatasetFunction(g, flat, outs, ret)
