"""The global step: an int64 scalar variable in the ``GLOBAL_STEP`` collection."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from .. import dtypes as _dt
from .._core.graph import Graph, GraphKeys, Tensor, get_default_graph
from ..graph_export import graph_def_proto
from ..init_ops import zeros_initializer
from ..summary.protos import GraphDef
from ..summary.writer import read_events
from ..var_scope import get_variable
from ..variables import Variable, VariableAggregation

if TYPE_CHECKING:
    from ..protos.event_pb2 import Event
    from ..session import Session

__all__ = [
    "global_step",
    "get_global_step",
    "create_global_step",
    "get_or_create_global_step",
    "assert_global_step",
    "summary_iterator",
    "write_graph",
]

# The collection caching the hooks' shared read of the global step (TF1's key).
GLOBAL_STEP_READ_KEY = "global_step_read_op_cache"


def global_step(sess: Session, global_step_tensor: Variable | Tensor | str) -> int:
    """The value of ``global_step_tensor`` (a variable, tensor or name) in ``sess``."""
    return int(sess.run(global_step_tensor))


def assert_global_step(global_step_tensor: Variable | Tensor) -> None:
    """Raises TypeError unless the argument is a scalar integer Variable or Tensor."""
    if not isinstance(global_step_tensor, (Variable, Tensor)):
        raise TypeError(
            'Existing "global_step" must be a Variable or Tensor: %s.' % global_step_tensor
        )
    if not global_step_tensor.dtype.is_integer:
        raise TypeError(
            'Existing "global_step" does not have integer type: %s' % global_step_tensor.dtype
        )
    shape = global_step_tensor.get_shape()
    if shape.ndims != 0 and shape.is_fully_defined():
        raise TypeError('Existing "global_step" is not scalar: %s' % shape)


def get_global_step(graph: Graph | None = None) -> Variable | Tensor | None:
    """The global step variable of ``graph`` (default graph), or None.

    Looked up in the ``GLOBAL_STEP`` collection, then as the tensor ``global_step:0``.
    """
    graph = graph or get_default_graph()
    found = graph.get_collection(GraphKeys.GLOBAL_STEP)
    if len(found) > 1:
        return None  # TF logs "Multiple tensors in global_step collection." and gives up.
    if found:
        step = found[0]
    else:
        try:
            step = graph.get_tensor_by_name("global_step:0")
        except KeyError:
            return None
    assert_global_step(step)
    return step


def create_global_step(graph: Graph | None = None) -> Variable:
    """Creates the global step (int64, 0, not trainable); ValueError if it exists."""
    graph = graph or get_default_graph()
    if get_global_step(graph) is not None:
        raise ValueError('"global_step" already exists.')
    with graph.as_default() as g, g.name_scope(None):
        return get_variable(
            GraphKeys.GLOBAL_STEP,
            shape=[],
            dtype=_dt.int64,
            initializer=zeros_initializer(),
            trainable=False,
            aggregation=VariableAggregation.ONLY_FIRST_REPLICA,
            collections=[GraphKeys.GLOBAL_VARIABLES, GraphKeys.GLOBAL_STEP],
        )


def get_or_create_global_step(graph: Graph | None = None) -> Variable | Tensor:
    """The global step of ``graph``, created if it does not exist yet."""
    graph = graph or get_default_graph()
    step = get_global_step(graph)
    if step is None:
        step = create_global_step(graph)
    return step


def _get_or_create_global_step_read(graph: Graph | None = None) -> Tensor | None:
    """One tensor reading the global step, shared by the hooks (``global_step/add:0``):
    the step before the run's increment, so a hook's ``read + 1`` is the step after it.

    Built as TF1 does, from ``initialized_value() + 0``, and cached in the
    ``GLOBAL_STEP_READ_KEY`` collection; None when the graph has no global step.
    """
    graph = graph or get_default_graph()
    cached = graph.get_collection(GLOBAL_STEP_READ_KEY)
    if cached:
        return cached[0]
    step = get_global_step(graph)
    if step is None:
        return None
    with graph.as_default() as g, g.name_scope(None), g.name_scope(step.op.name + "/"):
        value = step.initialized_value() if isinstance(step, Variable) else step
        read = value + 0
        g.add_to_collection(GLOBAL_STEP_READ_KEY, read)
    # The hooks count on a stale read (the step before this run's increment, as TF's
    # reads in practice are): the ops already built that write the step wait for it.
    # Ops built later run after it anyway (a run's ops run in creation order).
    handle = getattr(step, "handle", None)
    if handle is not None:
        for op in handle.consumers():
            if op.type in _STEP_WRITERS:
                op._add_control_input(read.op)
    return read


_STEP_WRITERS = ("AssignAddVariableOp", "AssignSubVariableOp", "AssignVariableOp")


def summary_iterator(path: str) -> Iterator[Event]:
    """The ``Event`` records of an event file, in order (TF1's
    ``tf.train.summary_iterator``)."""
    return read_events(path)


def write_graph(
    graph_or_graph_def: Graph | GraphDef,
    logdir: str,
    name: str,
    as_text: bool = True,
) -> str:
    """Writes a graph's ``GraphDef`` to ``logdir/name``, making ``logdir`` if needed.

    Args:
      graph_or_graph_def: a ``fr.Graph`` (``sess.graph``) or a ``GraphDef`` message.
      logdir: the directory to write into.
      name: the file name (``graph.pbtxt``, ``graph.pb``).
      as_text: write the text format (default) instead of the binary one.

    Returns:
      The path of the written file.
    """
    import os

    from google.protobuf import text_format

    gd = (
        graph_def_proto(graph_or_graph_def)
        if isinstance(graph_or_graph_def, Graph)
        else graph_or_graph_def
    )
    os.makedirs(logdir, exist_ok=True)
    path = os.path.join(logdir, name)
    tmp = path + ".tmp%d" % os.getpid()
    if as_text:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text_format.MessageToString(gd))
    else:
        with open(tmp, "wb") as f:
            f.write(gd.SerializeToString(deterministic=True))
    os.replace(tmp, path)
    return path
