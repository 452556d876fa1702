"""flowrt's functional control flow as TF writes it: an ``If``/``StatelessIf`` node whose
``then_branch``/``else_branch`` name ``FunctionDef``s of the GraphDef's library, as TF
2.x's ``cond_v2`` writes ``tf.cond`` in ``compat.v1`` graphs.

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
from typing import TYPE_CHECKING, Any

import numpy as np

from ._core.graph import Operation, Tensor
from ._core.op_signatures import op_def
from .protos.graph_pb2 import FunctionDef

if TYPE_CHECKING:
    from .graph_export import GraphDefWriter

__all__ = ["REWRITES"]


class _BodyWriter:
    """Writes one branch into ``fdef`` with the graph writer's rules; ``feeds`` maps
    the name of each outside tensor the branch reads to the function input carrying it."""

    def __init__(self, parent: GraphDefWriter, fdef: Any, feeds: dict[str, str]):
        from .graph_export import GraphDefWriter

        self.w = GraphDefWriter(parent.graph, False, parent.library)
        self.w.nodes = fdef.node_def
        self.w.renamed.update(feeds)
        self.args = set(feeds.values())


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


def _branch_function(w: GraphDefWriter, op: Operation, b: int, tag: str) -> str:
    """Writes branch ``b`` of If ``op`` as a FunctionDef of the library; returns its name."""
    body = op.attrs["branches"][b]
    n_user = op.attrs["_n_user"]
    fdef = FunctionDef()
    name = _function_name(w, op, tag)
    w.library[name] = fdef  # claimed before nested branches pick their names
    sig = fdef.signature
    sig.name = name
    inputs = ["input_%d" % i for i in range(len(op.inputs) - 1)]
    for arg, t in zip(inputs, op.inputs[1:], strict=True):
        sig.input_arg.add(name=arg, type=t.dtype.base_dtype.as_datatype_enum)
    feeds = {t.name: inputs[i - 1] for t, i in zip(body.feeds, body.input_idx, strict=True)}
    bw = _BodyWriter(w, fdef, feeds)
    for o in body.ops:
        bw.w.op(o)
    for k, out in enumerate(op.outputs):
        src = body.outputs[k] if k < n_user else body.exports.get(k)
        ret = "output_%d" % k
        sig.output_arg.add(name=ret, type=out.dtype.base_dtype.as_datatype_enum)
        fdef.ret[ret] = bw.w.ref(src) if src is not None else _zeros(bw, out, "zeros_%d" % k)
    if any((op_def(n.op) or {}).get("stateful") for n in fdef.node_def):
        sig.is_stateful = True
    _to_function_form(fdef, bw.args)
    return name


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


REWRITES = {"If": _write_if, "StatelessIf": _write_if, "AsyncIf": _write_if}
