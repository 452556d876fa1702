"""A flowrt ``Graph`` as TF's ``GraphDef``: the one writer behind ``Graph.as_graph_def``,
``export_meta_graph``, the SavedModel builder and the event files' graph.

Processing order, per op in creation order:

1. **Name.** The op's TF type: flowrt's own type when TF's registry (``op_defs.json``)
   has it; a retired flowrt name mapped to TF's (``AsyncIf`` -> ``If``); a flowrt-only op
   rewritten as the TF ops that compute it (``_REWRITES``: ``AssignMulVariableOp`` as
   TF1's read, ``Mul`` and ``AssignVariableOp``; a cond, loop or ``fr.function`` call
   as TF's ``If``, ``While`` or ``PartitionedCall`` over ``FunctionDef``s of the
   library, ``function_export.py``; a TensorArray op as TF 2's ``TensorList*`` op,
   ``tensor_list_export.py``; sparse Adam, ``ProdOthers`` and ``ParseExampleV2`` as
   TF's Python writes them, ``composite_export.py``). An op with
   neither fails the export with a ValueError naming it, so nothing TF cannot read is
   written.
2. **Attrs.** The attrs TF's OpDef declares, from flowrt's values; the type, number and
   type-list attrs (``T``, ``N``, ``Tidx``, ``dtypes``) from the dtypes and counts of the
   op's inputs and outputs, as the OpDef binds them; every other attr its OpDef default.
   flowrt-internal attrs are not written; ``_class`` (colocation) and ``_output_shapes``
   (what ``as_graph_def(add_shapes=True)`` adds) are, as TF writes them.
3. **Inputs.** Data inputs in TF's order, then ``^name`` control inputs; a tensor a
   rewrite replaced is read from the op that now computes it.

``graph_def_proto(graph, display=True)`` is the TensorBoard form: an op without a TF
counterpart keeps its flowrt type (listing the attrs it cannot encode in
``_flowrt_unencoded_attrs``) instead of failing, since no runtime reads it.
``train/saver_graph.py`` adds the Saver's ``SaveV2``/``RestoreV2`` subgraph on this
writer. ``op_signatures.check_graph_def`` validates the result against TF's OpDefs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from google.protobuf import json_format

from . import dtypes as _dt
from ._core.graph import GRAPH_DEF_BUILDER, Graph, Operation, Tensor
from ._core.lazy_constant import LazyConstant
from ._core.op_signatures import op_def
from ._core.shape import TensorShape
from .protos.graph_pb2 import AttrValue, GraphDef, NodeDef
from .protos.tensor_pb2 import TensorProto, TensorShapeProto

__all__ = [
    "graph_def_proto",
    "graph_def",
    "fill_tensor_proto",
    "fill_shape",
    "datatype",
]

# The attr listing a node's attrs that held Python objects (callables, kernels, loop
# bodies) and so are not in a display GraphDef; ``fr.import_graph_def`` names them.
UNENCODED_ATTRS = "_flowrt_unencoded_attrs"

# The GraphDef producer version of the TF release this encoding was checked against (2.21).
GRAPH_DEF_VERSION = 2474
GRAPH_DEF_TF_VERSION = "2.21.0"

# Op types flowrt once registered under another name than TF's.
_TF_NAME = {
    "AsyncIf": "If",
    "AsyncWhile": "While",
    "AsyncStatefulPartitionedCall": "StatefulPartitionedCall",
}

# flowrt ops written in flowrt's form (attrs holding Python objects listed in
# ``_flowrt_unencoded_attrs``), which TF refuses: a loop recording values for its
# gradient and ``initialized_value()``'s cond. Otherwise ``function_export.py`` writes
# the If, While and call ops as TF's over library functions (this form is the display
# form's).
_PENDING = frozenset(
    {
        "If",
        "StatelessIf",
        "AsyncIf",
        "While",
        "StatelessWhile",
        "AsyncWhile",
        "PartitionedCall",
        "StatefulPartitionedCall",
        "AsyncStatefulPartitionedCall",
        "ReadVariableOrDefault",
    }
)

# Underscore attrs TF writes and reads; flowrt's other underscore attrs are internal.
_KEPT_PRIVATE = ("_class",)

# --------------------------------------------------------------------------------------
# AttrValue encoding
# --------------------------------------------------------------------------------------


def fill_shape(proto: TensorShapeProto, shape: TensorShape) -> TensorShapeProto:
    """-1 for an unknown dim; ``unknown_rank`` for an unknown rank."""
    if shape.ndims is None:
        proto.unknown_rank = True
    else:
        for d in shape.as_list():
            proto.dim.add(size=-1 if d is None else d)
    return proto


def datatype(dtype: _dt.DType) -> Any:
    """The ``DataType`` enum value of a flowrt dtype (a plain int, as protobuf takes it)."""
    return dtype.as_datatype_enum


def fill_tensor_proto(proto: TensorProto, arr: np.ndarray) -> bool:
    """dtype, shape and content of ``arr``; False if it has no TensorProto form."""
    if arr.dtype == object:
        if not all(isinstance(x, bytes) for x in arr.flat):
            return False
        proto.dtype = datatype(_dt.string)
        proto.string_val.extend(arr.flat)
    else:
        try:
            proto.dtype = datatype(_dt.as_dtype(arr.dtype))
        except (TypeError, KeyError):
            return False
        proto.tensor_content = arr.astype(arr.dtype.newbyteorder("<")).tobytes()
    fill_shape(proto.tensor_shape, TensorShape(arr.shape))
    return True


class FuncRef:
    """A ``func`` attr's value: the name of a function of the library."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name


def _is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _to_bytes(v) -> bytes:
    return v.encode("utf-8") if isinstance(v, str) else v


def fill_attr(a: AttrValue, v) -> bool:
    """Sets ``a`` from a flowrt attr value; False if ``v`` has no protobuf form."""
    if isinstance(v, (bool, np.bool_)):
        a.b = bool(v)
    elif _is_int(v):
        a.i = int(v)
    elif isinstance(v, (float, np.floating)):
        with np.errstate(over="ignore"):  # rounds like C's (float)x, as TF does
            a.f = float(np.float32(v))
    elif isinstance(v, (str, bytes)):
        a.s = _to_bytes(v)
    elif isinstance(v, _dt.DType):
        a.type = datatype(v)
    elif isinstance(v, TensorShape):
        a.shape.SetInParent()  # a scalar's shape has no field set, but is present
        fill_shape(a.shape, v)
    elif isinstance(v, np.ndarray):
        return fill_tensor_proto(a.tensor, v)
    elif isinstance(v, LazyConstant):  # an imported constant: its proto as it came
        a.tensor.ParseFromString(v.proto.SerializeToString())
    elif isinstance(v, FuncRef):
        a.func.name = v.name
    elif isinstance(v, (list, tuple)):
        return _fill_list(a.list, list(v))
    else:
        return False
    return True


def _fill_list(lst: AttrValue.ListValue, vs: list) -> bool:
    if all(isinstance(v, (str, bytes)) for v in vs):
        lst.s.extend(_to_bytes(v) for v in vs)
    elif all(isinstance(v, (bool, np.bool_)) for v in vs):
        lst.b.extend(bool(v) for v in vs)
    elif all(_is_int(v) for v in vs):
        lst.i.extend(int(v) for v in vs)
    elif all(isinstance(v, (float, np.floating)) for v in vs):
        with np.errstate(over="ignore"):
            lst.f.extend(np.asarray(vs, dtype=np.float32).tolist())
    elif all(isinstance(v, _dt.DType) for v in vs):
        lst.type.extend(v.as_datatype_enum for v in vs)
    elif all(isinstance(v, TensorShape) for v in vs):
        for v in vs:
            fill_shape(lst.shape.add(), v)
    elif all(isinstance(v, (tuple, list)) and all(map(_is_int, v)) for v in vs):
        # Shapes kept as int tuples (``dense_shapes``): TF's list(shape) attr.
        for v in vs:
            fill_shape(lst.shape.add(), TensorShape([None if d < 0 else d for d in v]))
    else:
        return False
    # An empty list is written as an empty ListValue, as TF does.
    lst.SetInParent()
    return True


# --------------------------------------------------------------------------------------
# Nodes from OpDefs
# --------------------------------------------------------------------------------------


def _where(op: Operation) -> str:
    return "%s op '%s'" % (op.type, op.name)


def _arg_counts(args: list, n: int, attrs: dict, where: str) -> list[int]:
    """How many of ``n`` tensors each OpDef arg takes: one, its number attr's value, or
    its type list's length; the unknown variable-length args share what is left."""
    counts: list[int | None] = []
    for _name, _fixed, _type_attr, number_attr, list_attr, _ref in args:
        if number_attr:
            v: Any = attrs.get(number_attr)
            counts.append(int(v) if _is_int(v) else None)
        elif list_attr:
            v = attrs.get(list_attr)
            counts.append(len(v) if isinstance(v, (list, tuple)) else None)
        else:
            counts.append(1)
    unknown = [i for i, c in enumerate(counts) if c is None]
    left = n - sum(c for c in counts if c is not None)
    if unknown:
        if left < 0 or left % len(unknown):
            raise ValueError("%s: %d tensors do not fit TF's arguments" % (where, n))
        for i in unknown:
            counts[i] = left // len(unknown)
    elif left:
        raise ValueError("%s has %d tensors where TF's OpDef takes %d" % (where, n, n - left))
    return [int(c or 0) for c in counts]


def _bind_types(args: list, tensors: list, attrs: dict, where: str) -> None:
    """Sets the type, number and type-list attrs the OpDef binds to ``tensors``."""
    counts = _arg_counts(args, len(tensors), attrs, where)
    i = 0
    for (_name, _fixed, type_attr, number_attr, list_attr, _ref), c in zip(args, counts):
        part = tensors[i : i + c]
        i += c
        if number_attr:
            attrs.setdefault(number_attr, c)
        if list_attr:
            attrs.setdefault(list_attr, [t.dtype.base_dtype for t in part])
        if type_attr and part:
            attrs.setdefault(type_attr, part[0].dtype.base_dtype)


class GraphDefWriter:
    """One GraphDef being written: nodes, names taken, and tensors a rewrite replaced
    (``train/saver_graph.py`` adds the Saver's nodes with it)."""

    def __init__(self, graph: Graph, display: bool, library: dict | None = None):
        self.graph = graph
        self.display = display
        self.gd = GraphDef()
        self.nodes: Any = self.gd.node  # where ``node`` appends (a FunctionDef's body)
        self.names = {op.name for op in graph.get_operations()}
        self.renamed: dict[str, str] = {}  # flowrt tensor name -> exported input string
        # The FunctionDefs of branches and bodies, by name (shared with body writers).
        self.library: dict[str, Any] = {} if library is None else library
        # The library function of each (call spec id, output count) written so far.
        self.call_functions: dict[tuple[int, int], str] = {}

    def top_level_ops(self) -> list[Operation]:
        """The graph's ops outside branches and loop bodies (which the writer writes as
        functions of the library); every op in the display form."""
        ops = self.graph.get_operations()
        if self.display:
            return ops
        from .ops.control_flow_ops import nested_ops

        nested = nested_ops(self.graph)
        return [op for op in ops if op not in nested]

    def finish(self) -> GraphDef:
        self.gd.versions.producer = GRAPH_DEF_VERSION
        for name in sorted(self.library):
            self.gd.library.function.add().CopyFrom(self.library[name])
        return self.gd

    def unique(self, name: str) -> str:
        base, i = name, 0
        while name in self.names:
            i += 1
            name = "%s_%d" % (base, i)
        self.names.add(name)
        return name

    def ref(self, t: Tensor) -> str:
        """The input string of tensor ``t`` (``name`` for output 0, as TF writes it)."""
        if t.name in self.renamed:
            return self.renamed[t.name]
        return t.op.name if t.value_index == 0 else t.name

    def node(
        self,
        name: str,
        tf_type: str,
        inputs: list[str],
        attrs: dict[str, Any],
        *,
        control: list[str] = (),  # type: ignore[assignment]
        device: str = "",
        out_shapes: list[TensorShape] | None = None,
        where: str = "",
        flowrt_form: bool = False,
    ) -> NodeDef:
        """Appends a node of TF type ``tf_type``: attrs its OpDef declares, defaults for
        the others, ``_output_shapes`` when it has outputs (``flowrt_form``: flowrt's
        attrs as they are, see ``_PENDING``)."""
        sig = None if flowrt_form else op_def(tf_type)
        n = self.nodes.add()
        n.name, n.op = name, tf_type
        n.input.extend(inputs)
        n.input.extend("^" + c for c in control)
        if device:
            n.device = device
        declared = sig["attrs"] if sig is not None else {}
        unencoded = []
        for k, v in attrs.items():
            if v is None or (sig is not None and k not in declared and k not in _KEPT_PRIVATE):
                continue
            a = AttrValue()
            if fill_attr(a, v):
                n.attr[k].CopyFrom(a)
            elif sig is not None:
                raise ValueError(
                    "%s: attr '%s' holds %s, which has no GraphDef form"
                    % (where or "%s node '%s'" % (tf_type, name), k, type(v).__name__)
                )
            elif not k.startswith("_"):
                unencoded.append(k)
        if unencoded:
            n.attr[UNENCODED_ATTRS].list.s.extend(_to_bytes(k) for k in unencoded)
        for k, (_kind, _allowed, default) in declared.items():
            if k not in n.attr and default is not None:
                json_format.ParseDict(default, n.attr[k])
        if out_shapes:
            lst = n.attr["_output_shapes"].list
            for s in out_shapes:
                fill_shape(lst.shape.add(), s)
        return n

    def op(self, op: Operation) -> None:
        rewrite = _REWRITES.get(op.type)
        if rewrite is not None:
            rewrite(self, op)
        else:
            self.plain(op)

    def plain(self, op: Operation) -> None:
        """Writes ``op`` as one node of its own type (flowrt's form for ``_PENDING``)."""
        pending = op.type in _PENDING
        tf_type = op.type if pending else _TF_NAME.get(op.type, op.type)
        sig = None if pending else op_def(tf_type)
        if sig is None and not (self.display or pending):
            raise ValueError(
                "%s has no TensorFlow counterpart, so a GraphDef TF reads cannot hold "
                "it (TF's op registry has no '%s')" % (_where(op), op.type)
            )
        attrs = {
            k: v
            for k, v in op.attrs.items()
            if sig is None or not k.startswith("_") or k in _KEPT_PRIVATE
        }
        outputs = list(op.outputs)
        if sig is not None:
            where = _where(op)
            _bind_types(sig["inputs"], list(op.inputs), attrs, where)
            if not sig["outputs"]:
                # flowrt's ``Assign*VariableOp`` yields the new value; TF's yields nothing.
                outputs = []
            _bind_types(sig["outputs"], outputs, attrs, where)
        self.node(
            op.name,
            tf_type,
            [self.ref(t) for t in op.inputs],
            attrs,
            control=[c.name for c in op.control_inputs],
            device=op.device,
            out_shapes=[t.shape for t in outputs],
            where=_where(op),
            flowrt_form=sig is None,
        )
        if sig is not None and len(outputs) < len(op.outputs):
            _read_after_assign(self, op)


def _read_after_assign(w: GraphDefWriter, op: Operation) -> None:
    """TF1's ``assign(..., read_value=True)``: a ``ReadVariableOp`` run after the assign,
    standing in for flowrt's ``Assign*VariableOp`` output (only when something reads it)."""
    out = op.outputs[0] if op.outputs else None
    if out is None or not out.consumers():
        return
    name = w.unique(op.name + "/ReadVariableOp")
    w.node(
        name,
        "ReadVariableOp",
        [w.ref(op.inputs[0])],
        {"dtype": out.dtype.base_dtype},
        control=[op.name],
        device=op.device,
        out_shapes=[out.shape],
    )
    w.renamed[out.name] = name


def _assign_mul(w: GraphDefWriter, op: Operation) -> None:
    """``AssignMulVariableOp`` (Adam's beta powers) as TF1 writes ``v.assign(v * x)``."""
    handle, x = op.inputs
    dtype, shape = x.dtype.base_dtype, x.shape  # the factor has the variable's dtype
    read = w.unique(op.name + "/ReadVariableOp")
    w.node(
        read,
        "ReadVariableOp",
        [w.ref(handle)],
        {"dtype": dtype},
        control=[c.name for c in op.control_inputs],
        device=op.device,
        out_shapes=[shape],
    )
    mul = w.unique(op.name + "/mul")
    w.node(mul, "Mul", [read, w.ref(x)], {"T": dtype}, device=op.device, out_shapes=[shape])
    w.node(
        op.name,
        "AssignVariableOp",
        [w.ref(handle), mul],
        {"dtype": dtype},
        device=op.device,
    )


def _int_const(w: GraphDefWriter, name: str, value: int) -> str:
    name = w.unique(name)
    arr = np.array(value, dtype=np.int32)
    w.node(name, "Const", [], {"dtype": _dt.int32, "value": arr}, out_shapes=[TensorShape([])])
    return name


def _reduced_shape(w: GraphDefWriter, op: Operation) -> None:
    """``ReducedShape`` (a reduction's gradient) as TF's ``math_ops.reduced_shape``
    writes it: the input shape with the reduced axes set to 1, by ``DynamicStitch``."""
    shape, axes = op.inputs
    i32, vec = _dt.int32, TensorShape([None])
    s, dev = op.name, op.device
    ax = w.ref(axes)
    if axes.dtype.base_dtype != i32:
        cast = w.unique(s + "/Cast")
        w.node(
            cast,
            "Cast",
            [ax],
            {"SrcT": axes.dtype.base_dtype, "DstT": i32},
            device=dev,
            out_shapes=[axes.shape],
        )
        ax = cast
    size = w.unique(s + "/Size")
    w.node(
        size,
        "Size",
        [w.ref(shape)],
        {"T": i32, "out_type": i32},
        device=dev,
        control=[c.name for c in op.control_inputs],
        out_shapes=[TensorShape([])],
    )
    add = w.unique(s + "/add")
    w.node(add, "AddV2", [ax, size], {"T": i32}, device=dev, out_shapes=[axes.shape])
    mod = w.unique(s + "/mod")
    w.node(mod, "FloorMod", [add, size], {"T": i32}, device=dev, out_shapes=[axes.shape])
    start, delta = _int_const(w, s + "/range/start", 0), _int_const(w, s + "/range/delta", 1)
    rng = w.unique(s + "/range")
    w.node(rng, "Range", [start, size, delta], {"Tidx": i32}, device=dev, out_shapes=[vec])
    ashape = w.unique(s + "/Shape")
    w.node(
        ashape,
        "Shape",
        [mod],
        {"T": i32, "out_type": i32},
        device=dev,
        out_shapes=[TensorShape([axes.shape.ndims])],
    )
    one = _int_const(w, s + "/Fill/value", 1)
    fill = w.unique(s + "/Fill")
    w.node(
        fill,
        "Fill",
        [ashape, one],
        {"T": i32, "index_type": i32},
        device=dev,
        out_shapes=[TensorShape(None)],
    )
    w.node(
        s,
        "DynamicStitch",
        [rng, mod, w.ref(shape), fill],
        {"N": 2, "T": i32},
        device=dev,
        out_shapes=[op.outputs[0].shape],
    )


def _unary(w: GraphDefWriter, name: str, tf_type: str, x: str, t: Tensor, dev: str) -> str:
    """An elementwise node of one input shaped and typed like ``t``."""
    name = w.unique(name)
    w.node(name, tf_type, [x], {"T": t.dtype.base_dtype}, device=dev, out_shapes=[t.shape])
    return name


def _binary(w: GraphDefWriter, name: str, tf_type: str, a: str, b: str, t: Tensor, dev: str) -> str:
    w.node(name, tf_type, [a, b], {"T": t.dtype.base_dtype}, device=dev, out_shapes=[t.shape])
    return name


def _sigmoid_xent(w: GraphDefWriter, op: Operation) -> None:
    """``SigmoidCrossEntropyWithLogits`` as TF's ``nn.sigmoid_cross_entropy_with_logits``
    computes it: ``relu(x) - x * z + log1p(exp(-|x|))``."""
    x, z = op.inputs
    out, s, dev = op.outputs[0], op.name, op.device
    lx = w.ref(x)
    relu = _unary(w, s + "/Relu", "Relu", lx, out, dev)
    mul = _binary(w, w.unique(s + "/mul"), "Mul", lx, w.ref(z), out, dev)
    sub = _binary(w, w.unique(s + "/sub"), "Sub", relu, mul, out, dev)
    neg_abs = _unary(w, s + "/Neg", "Neg", _unary(w, s + "/Abs", "Abs", lx, out, dev), out, dev)
    log1p = _unary(
        w, s + "/Log1p", "Log1p", _unary(w, s + "/Exp", "Exp", neg_abs, out, dev), out, dev
    )
    _binary(w, s, "AddV2", sub, log1p, out, dev)


def _sigmoid_xent_grad(w: GraphDefWriter, op: Operation) -> None:
    """Its gradient with respect to the logits: ``(sigmoid(x) - z) * g``."""
    g, x, z = op.inputs
    out, s, dev = op.outputs[0], op.name, op.device
    sig = _unary(w, s + "/Sigmoid", "Sigmoid", w.ref(x), out, dev)
    sub = _binary(w, w.unique(s + "/sub"), "Sub", sig, w.ref(z), out, dev)
    _binary(w, s, "Mul", sub, w.ref(g), out, dev)


def _strided_first(w: GraphDefWriter, op: Operation) -> None:
    """``StridedFirst`` (a vector's first element) as TF's ``s[0]``: a ``StridedSlice``."""
    (vec,) = op.inputs
    s, dev = op.name, op.device
    ends = [np.array([v], dtype=np.int32) for v in (0, 1, 1)]
    names = []
    for part, arr in zip(("stack", "stack_1", "stack_2"), ends, strict=True):
        names.append(w.unique(s + "/" + part))
        w.node(
            names[-1],
            "Const",
            [],
            {"dtype": _dt.int32, "value": arr},
            out_shapes=[TensorShape([1])],
        )
    attrs = {"T": vec.dtype.base_dtype, "Index": _dt.int32, "shrink_axis_mask": 1}
    w.node(
        s,
        "StridedSlice",
        [w.ref(vec), *names],
        attrs,
        device=dev,
        control=[c.name for c in op.control_inputs],
        out_shapes=[TensorShape([])],
    )


def _assert_node(w: GraphDefWriter, name: str, cond: str, message: str, control: list[str]) -> None:
    msg = w.unique(name + "/data_0")
    value = np.array(message.encode("utf-8"), dtype=object)
    w.node(msg, "Const", [], {"dtype": _dt.string, "value": value}, out_shapes=[TensorShape([])])
    w.node(name, "Assert", [cond, msg], {"T": [_dt.string]}, control=control)


def _input_assert_not_empty(w: GraphDefWriter, op: Operation) -> None:
    """An input pipeline's check that a tensor has elements, as TF1's
    ``Assert(size > 0)`` with the tensor passed on by an ``Identity`` after it."""
    (t,) = op.inputs
    s, dev = op.name, op.device
    size = w.unique(s + "/Size")
    w.node(
        size,
        "Size",
        [w.ref(t)],
        {"T": t.dtype.base_dtype, "out_type": _dt.int32},
        device=dev,
        control=[c.name for c in op.control_inputs],
        out_shapes=[TensorShape([])],
    )
    zero = _int_const(w, s + "/Greater/y", 0)
    greater = w.unique(s + "/Greater")
    w.node(
        greater, "Greater", [size, zero], {"T": _dt.int32}, device=dev, out_shapes=[TensorShape([])]
    )
    check = w.unique(s + "/Assert")
    _assert_node(w, check, greater, op.attrs["message"], [])
    out = op.outputs[0]
    w.node(
        s,
        "Identity",
        [w.ref(t)],
        {"T": out.dtype.base_dtype},
        control=[check],
        device=dev,
        out_shapes=[out.shape],
    )


def _assert_initialized(w: GraphDefWriter, op: Operation) -> None:
    """``assert_variables_initialized`` as TF1 writes it: ``Assert`` that every
    variable's ``VarIsInitializedOp`` holds."""
    s, dev, scalar = op.name, op.device, TensorShape([])
    flags = []
    for h in op.inputs:
        flags.append(w.unique(s + "/VarIsInitializedOp"))
        w.node(flags[-1], "VarIsInitializedOp", [w.ref(h)], {}, device=dev, out_shapes=[scalar])
    stack = w.unique(s + "/stack")
    w.node(
        stack,
        "Pack",
        flags,
        {"T": _dt.bool, "N": len(flags), "axis": 0},
        device=dev,
        out_shapes=[TensorShape([len(flags)])],
    )
    axis = _int_const(w, s + "/Const", 0)
    every = w.unique(s + "/All")
    w.node(
        every,
        "All",
        [stack, axis],
        {"Tidx": _dt.int32, "keep_dims": False},
        device=dev,
        out_shapes=[scalar],
    )
    message = "Attempting to use uninitialized value among %s" % ", ".join(op.attrs["names"])
    _assert_node(w, s, every, message, [c.name for c in op.control_inputs])


def _sparse_sgd(w: GraphDefWriter, op: Operation) -> None:
    """``ResourceSparseApplyGradientDescent`` as TF's ``GradientDescentOptimizer`` writes
    a sparse update: ``ResourceScatterAdd(var, indices, -grad * lr)``."""
    var, alpha, grad, indices = op.inputs
    s, dev = op.name, op.device
    dtype = grad.dtype.base_dtype
    mul = w.unique(s + "/mul")
    w.node(
        mul,
        "Mul",
        [w.ref(grad), w.ref(alpha)],
        {"T": dtype},
        device=dev,
        control=[c.name for c in op.control_inputs],
        out_shapes=[grad.shape],
    )
    neg = _unary(w, s + "/Neg", "Neg", mul, grad, dev)
    attrs = {"dtype": dtype, "Tindices": indices.dtype.base_dtype}
    w.node(s, "ResourceScatterAdd", [w.ref(var), w.ref(indices), neg], attrs, device=dev)
    _read_after_assign(w, op)


_REWRITES: dict[str, Callable[[GraphDefWriter, Operation], None]] = {
    "AssignMulVariableOp": _assign_mul,
    "ReducedShape": _reduced_shape,
    "SigmoidCrossEntropyWithLogits": _sigmoid_xent,
    "SigmoidCrossEntropyWithLogitsGrad": _sigmoid_xent_grad,
    "StridedFirst": _strided_first,
    "_InputAssertNotEmpty": _input_assert_not_empty,
    "AssertVariablesInitialized": _assert_initialized,
    "ResourceSparseApplyGradientDescent": _sparse_sgd,
}

# --------------------------------------------------------------------------------------
# Graphs
# --------------------------------------------------------------------------------------


def graph_def_proto(graph: Graph, display: bool = False) -> GraphDef:
    """The ``GraphDef`` message of a flowrt ``Graph``, nodes in creation order.

    ValueError naming the op if one has no TF counterpart (``display=True``, for
    TensorBoard, writes it under its flowrt type instead).
    """
    w = GraphDefWriter(graph, display)
    for op in w.top_level_ops():
        w.op(op)
    return w.finish()


GRAPH_DEF_BUILDER["graph_def"] = graph_def_proto  # Graph.as_graph_def


def graph_def(graph: Graph) -> bytes:
    """The serialized display ``GraphDef`` of a flowrt ``Graph`` (an event file's)."""
    return graph_def_proto(graph, display=True).SerializeToString(deterministic=True)


from . import composite_export, function_export, tensor_list_export  # noqa: E402

_REWRITES.update(composite_export.REWRITES)
_REWRITES.update(function_export.REWRITES)
_REWRITES.update(tensor_list_export.REWRITES)
