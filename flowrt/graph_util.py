"""``fr.graph_util``: rewriting ``GraphDef``s (TF1's ``tf.graph_util``): freezing
variables into constants, cutting the subgraph that computes given nodes, and dropping
nodes only training needs."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import numpy as np

from . import dtypes as _dt
from ._core.graph import Graph, Operation
from ._core.shape import TensorShape
from .graph_export import fill_tensor_proto
from .graph_import import _dtype, import_graph_def
from .logging import get_logger
from .protos.graph_pb2 import GraphDef, NodeDef

__all__ = [
    "convert_variables_to_constants",
    "extract_sub_graph",
    "import_graph_def",
    "must_run_on_cpu",
    "remove_training_nodes",
    "tensor_shape_from_node_def_name",
]

_log = get_logger()

_VARIABLE_OPS = {
    "Assign",
    "AssignAdd",
    "AssignSub",
    "Queue",
    "ScatterAdd",
    "ScatterSub",
    "ScatterUpdate",
    "TruncatedNormal",
    "Variable",
    "VariableV2",
}


def _node_name(name: str) -> str:
    """The node an input string names (``"^a"`` and ``"a:1"`` name node ``a``)."""
    name = name[1:] if name.startswith("^") else name
    return name.split(":", 1)[0]


def extract_sub_graph(graph_def: GraphDef, dest_nodes: Iterable[str]) -> GraphDef:
    """The nodes of ``graph_def`` that ``dest_nodes`` need (through data and control
    inputs), in their original order.

    Raises:
      TypeError: ``graph_def`` is not a ``GraphDef``, or ``dest_nodes`` is a string.
      AssertionError: a destination node is not in the graph.
    """
    if type(graph_def).__name__ != "GraphDef":
        raise TypeError(
            "graph_def must be a graph_pb2.GraphDef proto, but got type %s." % type(graph_def)
        )
    if isinstance(dest_nodes, str):
        raise TypeError(
            "dest_nodes must be an iterable of strings, but got type %s." % type(dest_nodes)
        )
    by_name = {n.name: n for n in graph_def.node}
    dest = list(dest_nodes)
    for d in dest:
        if d not in by_name:
            raise AssertionError("%s is not in graph" % d)
    keep: set[str] = set()
    todo = list(dest)
    while todo:
        name = todo.pop()
        if name in keep:
            continue
        keep.add(name)
        todo.extend(_node_name(i) for i in by_name[name].input if _node_name(i) in by_name)
    out = GraphDef()
    if not isinstance(graph_def, GraphDef):  # TF's message: read its bytes into ours
        graph_def = GraphDef.FromString(graph_def.SerializeToString())
    out.node.extend(n for n in graph_def.node if n.name in keep)
    out.versions.CopyFrom(graph_def.versions)
    return out


def convert_variables_to_constants(
    sess: Any,
    input_graph_def: GraphDef,
    output_node_names: Iterable[str],
    variable_names_whitelist: Iterable[str] | None = None,
    variable_names_blacklist: Iterable[str] | None = None,
) -> GraphDef:
    """Freezes a graph: the subgraph computing ``output_node_names``, with each variable
    replaced by a ``Const`` of its value in ``sess`` (TF1's API).

    Args:
      sess: the session holding the variables' values.
      input_graph_def: the graph (``sess.graph.as_graph_def()``).
      output_node_names: the names of the nodes to keep the inputs of.
      variable_names_whitelist: if given, only these variables (node names) are frozen.
      variable_names_blacklist: these variables are not frozen.

    Returns:
      The frozen ``GraphDef``: each variable's ``VarHandleOp`` is a ``Const`` and each
      ``ReadVariableOp`` of it an ``Identity`` (as TF writes them).

    Raises:
      ValueError: a frozen variable is read other than by ``ReadVariableOp``.
    """
    allow = None if variable_names_whitelist is None else set(variable_names_whitelist)
    deny = set(variable_names_blacklist or ())
    graph_def = extract_sub_graph(input_graph_def, output_node_names)
    handles = [
        n
        for n in graph_def.node
        if n.op == "VarHandleOp" and (allow is None or n.name in allow) and n.name not in deny
    ]
    readers: dict[str, list[NodeDef]] = {h.name: [] for h in handles}
    for n in graph_def.node:
        for i in n.input:
            src = _node_name(i)
            if src in readers:
                if n.op != "ReadVariableOp":
                    raise ValueError(
                        "cannot freeze variable %r: node %r (%s) uses its handle; only "
                        "ReadVariableOp reads can become constants" % (src, n.name, n.op)
                    )
                readers[src].append(n)
    # Every handle in the subgraph is read (else no output would need it).
    values = sess.run([readers[h.name][0].name + ":0" for h in handles if readers[h.name]])
    value_of = dict(zip([h.name for h in handles if readers[h.name]], values, strict=True))
    read_names = {r.name for rs in readers.values() for r in rs}
    out = GraphDef()
    out.versions.CopyFrom(graph_def.versions)
    for n in graph_def.node:
        if n.name in value_of:
            const = out.node.add(name=n.name, op="Const", device=n.device)
            const.attr["dtype"].CopyFrom(n.attr["dtype"])
            arr = np.asarray(value_of[n.name])
            if arr.dtype == object:
                arr = np.array([x if isinstance(x, bytes) else bytes(x) for x in arr.flat], object)
                arr = arr.reshape(np.shape(value_of[n.name]))
            fill_tensor_proto(const.attr["value"].tensor, arr)
        elif n.name in read_names:
            ident = out.node.add(name=n.name, op="Identity", device=n.device)
            ident.input.extend(n.input)
            ident.attr["T"].CopyFrom(n.attr["dtype"])
            if "_class" in n.attr:
                ident.attr["_class"].CopyFrom(n.attr["_class"])
        else:
            out.node.add().CopyFrom(n)
    _log.info("Froze %d variables.", len(value_of))
    _log.info("Converted %d variables to const ops.", len(value_of))
    return out


def remove_training_nodes(
    input_graph: GraphDef, protected_nodes: Iterable[str] | None = None
) -> GraphDef:
    """``input_graph`` without ``CheckNumerics`` nodes, and with ``Identity`` nodes
    spliced out (their consumers read the identity's input), as TF1 does for inference.

    Identities in ``protected_nodes``, with control inputs, used as control inputs, or
    colocated with another node (``_class``) are kept.
    """
    protected = set(protected_nodes or ())
    removed = {n.name for n in input_graph.node if n.op == "CheckNumerics"} - protected
    kept = []
    for n in input_graph.node:
        if n.name in removed:
            continue
        m = NodeDef()
        m.CopyFrom(n)
        del m.input[:]
        m.input.extend(i for i in n.input if re.sub(r"^\^", "", i) not in removed)
        kept.append(m)
    control_inputs, with_control, colocated = set(), set(), set()
    for n in kept:
        for i in n.input:
            if "^" in i:
                control_inputs.add(i.replace("^", ""))
                with_control.add(n.name)
        if "_class" in n.attr:
            for s in n.attr["_class"].list.s:
                text = s.decode("utf-8")
                colocated.add(text[len("loc:@") :] if text.startswith("loc:@") else text)
    splice = {
        n.name: n.input[0]
        for n in kept
        if n.op == "Identity"
        and n.name not in protected
        and n.name not in colocated
        and n.name not in with_control
        and n.name not in control_inputs
    }
    out = GraphDef()
    for n in kept:
        if n.name in splice:
            continue
        m = out.node.add()
        m.CopyFrom(n)
        del m.input[:]
        for full in n.input:
            name = re.sub(r"^\^", "", full)
            while name in splice:
                full = splice[name]
                name = re.sub(r"^\^", "", full)
            m.input.append(full)
    return out


def must_run_on_cpu(node: Operation | NodeDef, pin_variables_on_cpu: bool = False) -> bool:
    """Whether TF would pin ``node`` to the CPU: int32 and string constants, int32
    ``DynamicStitch``/``Cast`` from int32, and (if ``pin_variables_on_cpu``) variable
    ops.

    Note (flowrt): every op runs on the CPU; this answers TF's placement question only.
    """
    op = node.type if isinstance(node, Operation) else node.op

    def attr_dtype(key: str) -> _dt.DType | None:
        if isinstance(node, Operation):
            # flowrt's ops carry no type attrs: the dtypes are their tensors'.
            t = node.inputs[0] if key == "SrcT" else node.outputs[0]
            return t.dtype
        if key not in node.attr:
            return None
        return _dtype(node.attr[key].type, "node %r attr %r" % (node.name, key))

    if pin_variables_on_cpu and op in _VARIABLE_OPS:
        return True
    if op == "Const":
        return attr_dtype("dtype") in (_dt.string, _dt.int32)
    if op in ("DynamicStitch", "ParallelDynamicStitch"):
        return attr_dtype("T") == _dt.int32
    if op == "Cast":
        return attr_dtype("SrcT") == _dt.int32
    return False


def tensor_shape_from_node_def_name(graph: Graph, input_name: str) -> TensorShape:
    """The static shape of the tensor ``input_name`` names in ``graph`` (``"a"`` is
    ``"a:0"``)."""
    name = input_name if ":" in input_name else input_name + ":0"
    return graph.get_tensor_by_name(name).shape
