"""flowrt's functional control flow as TF writes it: an ``If``/``StatelessIf`` node whose
``then_branch``/``else_branch`` name ``FunctionDef``s of the GraphDef's library, as TF
2.x's ``cond_v2`` writes ``tf.cond`` in ``compat.v1`` graphs, and a ``While`` or
``StatelessWhile`` over ``cond``/``body`` functions, as ``while_v2`` writes
``tf.while_loop`` (see ``_loop_functions``), and an ``fr.function`` call as a
``(Stateful)PartitionedCall`` of its traced graph's function.

A branch's traced ops (``TracedBody``) become the function's body. Its inputs are the
``If``'s inputs after the predicate (``input_0``, ...). A tensor the branch consumes
from outside is read from the input that feeds it. The function's outputs are the
``If``'s: the branch's results, then the forward tensors its gradient needs. Where the
other branch made such a tensor, this one returns zeros, as ``cond_v2`` does. Body
nodes are written with the graph writer, then their inputs are renamed to TF's
function form (``node:output_arg:index``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from . import dtypes as _dt
from ._core.graph import Operation, Tensor
from ._core.op_signatures import op_def
from ._core.shape import TensorShape
from .protos.graph_pb2 import FunctionDef

if TYPE_CHECKING:
    from .graph_export import GraphDefWriter

__all__ = ["REWRITES"]


class _BodyWriter:
    """Writes one branch into ``fdef`` with the graph writer's rules; ``feeds`` maps
    the name of each outside tensor the branch reads to the function input carrying it."""

    def __init__(self, parent: GraphDefWriter, fdef: Any, feeds: dict[str, str], graph: Any):
        from .graph_export import GraphDefWriter

        self.w = GraphDefWriter(graph, False, parent.library)
        self.w.nodes = fdef.node_def
        self.w.renamed.update(feeds)
        self.args = set(feeds.values())
        self.inputs: list[str] = []  # the function's input names, in order


def _function_name(w: GraphDefWriter, op: Operation, tag: str) -> str:
    base = re.sub(r"[^A-Za-z0-9_]", "_", op.name) + "_" + tag
    name, i = base, 0
    while name in w.library:
        i += 1
        name = "%s_%d" % (base, i)
    return name


def _output_args(node: Any) -> list[tuple[str, int]]:
    """(output arg name, index within it) of each output of a written ``node``."""
    sig = op_def(node.op)
    if sig is None:
        raise ValueError("NodeDef '%s': op type '%s' has no TF OpDef" % (node.name, node.op))
    out: list[tuple[str, int]] = []
    for name, _fixed, _type_attr, number_attr, list_attr, _ref in sig["outputs"]:
        if number_attr:
            n = node.attr[number_attr].i
        elif list_attr:
            n = len(node.attr[list_attr].list.type)
        else:
            n = 1
        out.extend((name, j) for j in range(n))
    return out


def _to_function_form(fdef: Any, args: set[str]) -> None:
    """Renames the body's inputs and returns from GraphDef form (``node``, ``node:k``)
    to TF's function form (``node:output_arg:index``); function inputs keep their name."""
    outs = {n.name: _output_args(n) for n in fdef.node_def}

    def conv(ref: str) -> str:
        if ref.startswith("^") or ref in args:
            return ref
        name, _, k = ref.partition(":")
        arg, j = outs[name][int(k) if k else 0]
        return "%s:%s:%d" % (name, arg, j)

    for n in fdef.node_def:
        n.input[:] = [conv(i) for i in n.input]
    for key in list(fdef.ret):
        fdef.ret[key] = conv(fdef.ret[key])


def _zeros(bw: _BodyWriter, t: Tensor, name: str) -> str:
    """Zeros standing in for a forward tensor the other branch made (``cond_v2``)."""
    if not t.shape.is_fully_defined() or np.dtype(t.dtype.np).kind == "O":
        raise ValueError(
            "If op '%s': its output %s (%s %s) is made by one branch only and has no "
            "static shape for the other branch's zeros" % (t.op.name, t.name, t.dtype.name, t.shape)
        )
    name = bw.w.unique(name)
    value = np.zeros(t.shape.as_list(), dtype=t.dtype.np)
    bw.w.node(
        name, "Const", [], {"dtype": t.dtype.base_dtype, "value": value}, out_shapes=[t.shape]
    )
    return name


def _function(
    w: GraphDefWriter,
    op: Operation,
    body: Any,
    tag: str,
    args: list[Tensor],
    arg_of_feed: list[int],
    returns: Callable[[Any], list[tuple[Any, str]]],
) -> str:
    """Writes traced ``body`` as a FunctionDef of the library taking ``args`` (the
    tensor ``body.feeds[j]`` is input ``arg_of_feed[j]``); ``returns(writer)`` writes
    and gives its outputs as (dtype, GraphDef-form ref). Returns the function's name."""
    fdef = FunctionDef()
    name = _function_name(w, op, tag)
    w.library[name] = fdef  # claimed before nested branches pick their names
    sig = fdef.signature
    sig.name = name
    inputs = ["input_%d" % i for i in range(len(args))]
    for arg, t in zip(inputs, args, strict=True):
        sig.input_arg.add(name=arg, type=t.dtype.base_dtype.as_datatype_enum)
    feeds = {t.name: inputs[i] for t, i in zip(body.feeds, arg_of_feed, strict=True)}
    bw = _BodyWriter(w, fdef, feeds, getattr(body, "graph", w.graph))
    bw.inputs, bw.args = inputs, set(inputs)
    for o in body.ops:
        bw.w.op(o)
    for k, (dtype, ref) in enumerate(returns(bw)):
        ret = "output_%d" % k
        sig.output_arg.add(name=ret, type=dtype.base_dtype.as_datatype_enum)
        fdef.ret[ret] = ref
    for target in getattr(body, "targets", ()):
        sig.control_output.append(target.name)
        fdef.control_ret[target.name] = target.name
    if any((op_def(n.op) or {}).get("stateful") for n in fdef.node_def):
        sig.is_stateful = True
    _to_function_form(fdef, bw.args)
    return name


def _branch_function(w: GraphDefWriter, op: Operation, b: int, tag: str) -> str:
    """Branch ``b`` of If ``op``: the If's inputs after the predicate in, its outputs
    out (zeros for a gradient's forward tensor the other branch made)."""
    body = op.attrs["branches"][b]
    n_user = op.attrs["_n_user"]

    def returns(bw: _BodyWriter) -> list[tuple[Any, str]]:
        out = []
        for k, t in enumerate(op.outputs):
            src = body.outputs[k] if k < n_user else body.exports.get(k)
            ref = bw.w.ref(src) if src is not None else _zeros(bw, t, "zeros_%d" % k)
            out.append((t.dtype, ref))
        return out

    idx = [i - 1 for i in body.input_idx]
    return _function(w, op, body, tag, list(op.inputs[1:]), idx, returns)


def _scalar_node(bw: _BodyWriter, name: str, tf_type: str, inputs: list[str], attrs: dict) -> str:
    name = bw.w.unique(name)
    bw.w.node(name, tf_type, inputs, attrs, out_shapes=[TensorShape([])])
    return name


def _loop_functions(w: GraphDefWriter, op: Operation) -> tuple[str, str]:
    """The cond and body functions of While ``op``, as TF's ``while_v2`` writes them:
    both take the loop counter, the iteration limit, the loop variables and the
    captures; the cond also stops at the limit (none when negative); the body counts
    the iteration and passes the limit and captures through."""
    nv = op.attrs["_n_vars"]
    cb, bb = op.attrs["cond"], op.attrs["body"]
    args = list(op.inputs)
    i32 = args[0].dtype.base_dtype

    def cond_returns(bw: _BodyWriter) -> list[tuple[Any, str]]:
        counter, limit = bw.inputs[0], bw.inputs[1]
        zero = _scalar_node(bw, "zero", "Const", [], {"dtype": i32, "value": np.array(0, i32.np)})
        unbounded = _scalar_node(bw, "Less", "Less", [limit, zero], {"T": i32})
        below = _scalar_node(bw, "Less_1", "Less", [counter, limit], {"T": i32})
        go_on = _scalar_node(bw, "LogicalOr", "LogicalOr", [unbounded, below], {})
        user = bw.w.ref(cb.outputs[0])
        return [(_dt.bool, _scalar_node(bw, "LogicalAnd", "LogicalAnd", [go_on, user], {}))]

    def body_returns(bw: _BodyWriter) -> list[tuple[Any, str]]:
        one = _scalar_node(bw, "one", "Const", [], {"dtype": i32, "value": np.array(1, i32.np)})
        count = _scalar_node(bw, "add", "AddV2", [bw.inputs[0], one], {"T": i32})
        out = [(i32, count), (i32, bw.inputs[1])]
        out += [(t.dtype, bw.w.ref(t)) for t in bb.outputs[:nv]]
        out += [(t.dtype, bw.inputs[2 + nv + j]) for j, t in enumerate(args[2 + nv :])]
        return out

    cond_fn = _function(w, op, cb, "cond", args, list(cb.input_idx), cond_returns)
    body_fn = _function(w, op, bb, "body", args, list(bb.input_idx), body_returns)
    return cond_fn, body_fn


def _write_while(w: GraphDefWriter, op: Operation) -> None:
    """A ``While`` (``StatelessWhile`` when no cond or body op is stateful) over two
    library functions; its outputs are its inputs' (TF's), flowrt's first ``2 + n``."""
    if w.display or "_record" in op.attrs:
        # A loop recording values for its gradient: TF records them in TensorLists,
        # which this writer does not build; flowrt's form (TF refuses it).
        w.plain(op)
        return
    from .graph_export import FuncRef

    cond_fn, body_fn = _loop_functions(w, op)
    shapes = [t.shape for t in op.outputs] + [t.shape for t in op.inputs[len(op.outputs) :]]
    attrs = {
        "T": [t.dtype.base_dtype for t in op.inputs],
        "output_shapes": shapes,
        "cond": FuncRef(cond_fn),
        "body": FuncRef(body_fn),
        "parallel_iterations": op.attrs.get("parallel_iterations", 10),
    }
    w.node(
        op.name,
        "StatelessWhile" if op.type == "StatelessWhile" else "While",
        [w.ref(t) for t in op.inputs],
        attrs,
        control=[c.name for c in op.control_inputs],
        device=op.device,
        out_shapes=[t.shape for t in op.inputs],
    )


def _write_if(w: GraphDefWriter, op: Operation) -> None:
    """An ``If`` (``StatelessIf`` when no branch op is stateful) over two library
    functions; flowrt's blocking ``AsyncIf`` is TF's ``If``."""
    if w.display:
        w.plain(op)
        return
    from .graph_export import FuncRef

    then_fn = _branch_function(w, op, 0, "true")
    else_fn = _branch_function(w, op, 1, "false")
    pred = op.inputs[0]
    attrs = {
        "Tcond": pred.dtype.base_dtype,
        "Tin": [t.dtype.base_dtype for t in op.inputs[1:]],
        "Tout": [t.dtype.base_dtype for t in op.outputs],
        "output_shapes": [t.shape for t in op.outputs],
        "then_branch": FuncRef(then_fn),
        "else_branch": FuncRef(else_fn),
    }
    w.node(
        op.name,
        "StatelessIf" if op.type == "StatelessIf" else "If",
        [w.ref(t) for t in op.inputs],
        attrs,
        control=[c.name for c in op.control_inputs],
        device=op.device,
        out_shapes=[t.shape for t in op.outputs],
    )


class _CallBody:
    """A call op's function as ``_function`` takes a body: the ops its plan runs, in
    its own graph, from the call's inputs (``feeds``) to its outputs and targets."""

    def __init__(self, op: Operation):
        from ._core.plan import prune

        spec = op.attrs["f"]
        self.graph = spec.graph
        self.feeds = list(spec.feeds)
        self.outputs = list(spec.fetches[: len(op.outputs)])
        self.targets = list(spec.targets)
        fed = set(self.feeds)
        self.ops = [
            o
            for o in prune(self.outputs, self.targets, fed)
            if not (o.outputs and all(t in fed for t in o.outputs))
        ]


def _write_call(w: GraphDefWriter, op: Operation) -> None:
    """An ``fr.function`` call as TF writes a ``tf.function`` call: a
    ``(Stateful)PartitionedCall`` of a library function (one per traced function and
    output count); flowrt's blocking call is TF's ``StatefulPartitionedCall``."""
    if w.display:
        w.plain(op)
        return
    from .graph_export import FuncRef

    body = _CallBody(op)
    key = (id(op.attrs["f"]), len(op.outputs))
    fn = w.call_functions.get(key)
    if fn is None:

        def returns(bw: _BodyWriter) -> list[tuple[Any, str]]:
            return [(t.dtype, bw.w.ref(t)) for t in body.outputs]

        fn = _function(w, op, body, "fn", list(op.inputs), list(range(len(body.feeds))), returns)
        w.call_functions[key] = fn
    attrs = {
        "Tin": [t.dtype.base_dtype for t in op.inputs],
        "Tout": [t.dtype.base_dtype for t in op.outputs],
        "f": FuncRef(fn),
    }
    w.node(
        op.name,
        "PartitionedCall" if op.type == "PartitionedCall" else "StatefulPartitionedCall",
        [w.ref(t) for t in op.inputs],
        attrs,
        control=[c.name for c in op.control_inputs],
        device=op.device,
        out_shapes=[t.shape for t in op.outputs],
    )


REWRITES = {
    "PartitionedCall": _write_call,
    "StatefulPartitionedCall": _write_call,
    "AsyncStatefulPartitionedCall": _write_call,
    "If": _write_if,
    "StatelessIf": _write_if,
    "AsyncIf": _write_if,
    "While": _write_while,
    "StatelessWhile": _write_while,
    "AsyncWhile": _write_while,
}
