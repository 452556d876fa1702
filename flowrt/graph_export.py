"""A flowrt ``Graph`` as TF's ``GraphDef``: the one writer behind ``Graph.as_graph_def``,
``export_meta_graph``, the SavedModel builder and the event files' graph.

Processing order, per op in creation order:

1. **Name.** The op's TF type: flowrt's own type when TF's registry (``op_defs.json``)
   has it; a retired flowrt name mapped to TF's (``AsyncIf`` -> ``If``); a flowrt-only op
   rewritten as the TF ops that compute it (``_REWRITES``: ``AssignMulVariableOp`` as
   TF1's read, ``Mul`` and ``AssignVariableOp``). An op with neither fails the export
   with a ValueError naming it, so nothing TF cannot read is written.
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
``saver_graph_def`` adds the Saver's ``SaveV2``/``RestoreV2`` subgraph for a
``SaverDef`` (what ``export_meta_graph`` stores). ``op_signatures.check_graph_def``
validates the result against TF's OpDefs.
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
from .protos.meta_graph_pb2 import SaverDef
from .protos.tensor_pb2 import TensorProto, TensorShapeProto

__all__ = [
    "graph_def_proto",
    "graph_def",
    "saver_graph_def",
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

# Graph scratch key: restore placeholder op name -> (checkpoint key, slice spec), which
# the Saver records for ``saver_graph_def``.
RESTORE_KEYS = "saver_restore_keys"

# Op types flowrt once registered under another name than TF's.
_TF_NAME = {
    "AsyncIf": "If",
    "AsyncWhile": "While",
    "AsyncStatefulPartitionedCall": "StatefulPartitionedCall",
}

# flowrt ops whose TF form needs a FunctionDefLibrary (functional control flow and calls,
# ``initialized_value()``'s cond), TF's TensorArray flow outputs (every ``TensorArray*``
# op) or TF's ragged outputs (``ParseExampleV2``), which this writer does not write yet.
# They are written in flowrt's form (attrs holding Python objects listed in
# ``_flowrt_unencoded_attrs``), which ``fr.import_graph_def`` reads back and TF refuses.
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
        "ParseExampleV2",
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


class _Writer:
    """One GraphDef being written: nodes, names taken, and tensors a rewrite replaced."""

    def __init__(self, graph: Graph, display: bool):
        self.graph = graph
        self.display = display
        self.gd = GraphDef()
        self.names = {op.name for op in graph.get_operations()}
        self.renamed: dict[str, str] = {}  # flowrt tensor name -> exported input string

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
        n = self.gd.node.add()
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
            return
        pending = op.type in _PENDING or op.type.startswith("TensorArray")
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


def _read_after_assign(w: _Writer, op: Operation) -> None:
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


def _assign_mul(w: _Writer, op: Operation) -> None:
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


def _int_const(w: _Writer, name: str, value: int) -> str:
    name = w.unique(name)
    arr = np.array(value, dtype=np.int32)
    w.node(name, "Const", [], {"dtype": _dt.int32, "value": arr}, out_shapes=[TensorShape([])])
    return name


def _reduced_shape(w: _Writer, op: Operation) -> None:
    """``ReducedShape`` (a reduction's gradient) as TF's ``math_ops.reduced_shape``
    writes it: the input shape with the reduced axes set to 1, by ``DynamicStitch``."""
    shape, axes = op.inputs
    i32, vec = _dt.int32, TensorShape([None])
    s, dev = op.name, op.device
    ax = w.ref(axes)
    if axes.dtype.base_dtype != i32:
        cast = w.unique(s + "/Cast")
        w.node(cast, "Cast", [ax], {"SrcT": axes.dtype.base_dtype, "DstT": i32},
               device=dev, out_shapes=[axes.shape])  # fmt: skip
        ax = cast
    size = w.unique(s + "/Size")
    w.node(size, "Size", [w.ref(shape)], {"T": i32, "out_type": i32}, device=dev,
           control=[c.name for c in op.control_inputs], out_shapes=[TensorShape([])])  # fmt: skip
    add = w.unique(s + "/add")
    w.node(add, "AddV2", [ax, size], {"T": i32}, device=dev, out_shapes=[axes.shape])
    mod = w.unique(s + "/mod")
    w.node(mod, "FloorMod", [add, size], {"T": i32}, device=dev, out_shapes=[axes.shape])
    start, delta = _int_const(w, s + "/range/start", 0), _int_const(w, s + "/range/delta", 1)
    rng = w.unique(s + "/range")
    w.node(rng, "Range", [start, size, delta], {"Tidx": i32}, device=dev, out_shapes=[vec])
    ashape = w.unique(s + "/Shape")
    w.node(ashape, "Shape", [mod], {"T": i32, "out_type": i32}, device=dev,
           out_shapes=[TensorShape([axes.shape.ndims])])  # fmt: skip
    one = _int_const(w, s + "/Fill/value", 1)
    fill = w.unique(s + "/Fill")
    w.node(fill, "Fill", [ashape, one], {"T": i32, "index_type": i32}, device=dev,
           out_shapes=[TensorShape(None)])  # fmt: skip
    w.node(s, "DynamicStitch", [rng, mod, w.ref(shape), fill], {"N": 2, "T": i32},
           device=dev, out_shapes=[op.outputs[0].shape])  # fmt: skip


_REWRITES: dict[str, Callable[[_Writer, Operation], None]] = {
    "AssignMulVariableOp": _assign_mul,
    "ReducedShape": _reduced_shape,
}

# --------------------------------------------------------------------------------------
# Graphs
# --------------------------------------------------------------------------------------


def graph_def_proto(graph: Graph, display: bool = False) -> GraphDef:
    """The ``GraphDef`` message of a flowrt ``Graph``, nodes in creation order.

    ValueError naming the op if one has no TF counterpart (``display=True``, for
    TensorBoard, writes it under its flowrt type instead).
    """
    w = _Writer(graph, display)
    for op in graph.get_operations():
        w.op(op)
    w.gd.versions.producer = GRAPH_DEF_VERSION
    return w.gd


GRAPH_DEF_BUILDER["graph_def"] = graph_def_proto  # Graph.as_graph_def


def graph_def(graph: Graph) -> bytes:
    """The serialized display ``GraphDef`` of a flowrt ``Graph`` (an event file's)."""
    return graph_def_proto(graph, display=True).SerializeToString(deterministic=True)


# --------------------------------------------------------------------------------------
# The Saver's subgraph
# --------------------------------------------------------------------------------------


def _strings(values: list[str]) -> np.ndarray:
    return np.array([v.encode("utf-8") for v in values], dtype=object)


def _restore_entries(graph: Graph, restore: Operation) -> list[tuple]:
    """(key, slice spec, restore placeholder, variable handle) of each variable (part) the
    restore op assigns, sorted by key as TF's Saver orders them."""
    keys = graph._scratch.get(RESTORE_KEYS, {})
    entries = []
    for a in restore.control_inputs:
        ph = a.inputs[1].op if a.type == "AssignVariableOp" and len(a.inputs) == 2 else None
        if ph is None or ph.name not in keys:
            raise ValueError(
                "SaverDef's restore op '%s' runs %s, which is not a flowrt Saver's variable "
                "restore; its SaveV2/RestoreV2 subgraph cannot be written" % (restore.name, a.name)
            )
        key, spec = keys[ph.name]
        entries.append((key, spec, ph, a.inputs[0]))
    entries.sort(key=lambda e: (e[0], e[1]))
    return entries


def _write_saver(w: _Writer, scope: str, entries: list[tuple]) -> tuple[str, str]:
    """TF1's ``Saver`` subgraph: the filename, ``SaveV2`` of every variable's value,
    ``RestoreV2`` of every checkpoint entry, each restore placeholder an ``Identity`` of
    its ``RestoreV2`` output. Returns (filename tensor, save tensor)."""
    scalar, string = TensorShape([]), _dt.string
    names = _strings([e[0] for e in entries])
    specs = _strings([e[1] for e in entries])
    dtypes = [e[2].outputs[0].dtype.base_dtype for e in entries]

    def const(name: str, value: np.ndarray) -> str:
        name = w.unique(name)
        attrs = {"dtype": string, "value": value}
        w.node(name, "Const", [], attrs, out_shapes=[TensorShape(value.shape)])
        return name

    fin = const(scope + "/filename/input", np.array(b"model", dtype=object))
    fname = w.unique(scope + "/filename")
    w.node(fname, "PlaceholderWithDefault", [fin], {"dtype": string, "shape": scalar},
           out_shapes=[scalar])  # fmt: skip
    prefix = w.unique(scope + "/Const")
    w.node(prefix, "PlaceholderWithDefault", [fname], {"dtype": string, "shape": scalar},
           out_shapes=[scalar])  # fmt: skip
    reads = []
    for (_key, _spec, ph, handle), dtype in zip(entries, dtypes, strict=True):
        r = w.unique(scope + "/ReadVariableOp")
        w.node(r, "ReadVariableOp", [w.ref(handle)], {"dtype": dtype},
               out_shapes=[ph.outputs[0].shape])  # fmt: skip
        reads.append(r)
    save_names = const(scope + "/SaveV2/tensor_names", names)
    save_specs = const(scope + "/SaveV2/shape_and_slices", specs)
    save = w.unique(scope + "/SaveV2")
    w.node(save, "SaveV2", [prefix, save_names, save_specs, *reads], {"dtypes": dtypes})
    dep = w.unique(scope + "/control_dependency")
    w.node(dep, "Identity", [prefix], {"T": string, "_class": ["loc:@" + prefix]},
           control=[save], out_shapes=[scalar])  # fmt: skip
    rnames = const(scope + "/RestoreV2/tensor_names", names)
    rspecs = const(scope + "/RestoreV2/shape_and_slices", specs)
    restore = w.unique(scope + "/RestoreV2")
    w.node(restore, "RestoreV2", [prefix, rnames, rspecs], {"dtypes": dtypes},
           out_shapes=[TensorShape(None)] * len(entries))  # fmt: skip
    for i, (_key, _spec, ph, _handle) in enumerate(entries):
        out = ph.outputs[0]
        src = restore if i == 0 else "%s:%d" % (restore, i)
        w.node(ph.name, "Identity", [src], {"T": out.dtype.base_dtype}, out_shapes=[out.shape])
    return prefix + ":0", dep + ":0"


def _holds(graph: Graph, name: str) -> bool:
    try:
        return bool(name) and graph.as_graph_element(name) is not None
    except (KeyError, ValueError):
        return False


def saver_graph_def(graph: Graph, saver_def: SaverDef) -> tuple[GraphDef, SaverDef]:
    """The ``GraphDef`` of ``graph`` with the subgraph TF's ``Saver`` runs for
    ``saver_def`` (``SaveV2`` and ``RestoreV2`` in the restore op's name scope), and the
    ``SaverDef`` naming its filename and save tensors, so TF's ``Saver`` rebuilt from a
    meta graph saves and restores through it.

    A graph holding the subgraph already (imported from TF's files: the ``SaverDef``
    names its filename and save tensors) is written as it is.

    ValueError if ``saver_def``'s restore op is not a flowrt Saver's in ``graph``.
    """
    if _holds(graph, saver_def.filename_tensor_name) and _holds(graph, saver_def.save_tensor_name):
        return graph_def_proto(graph), saver_def
    try:
        restore = graph.get_operation_by_name(saver_def.restore_op_name)
    except (KeyError, ValueError):
        raise ValueError(
            "SaverDef's restore_op_name %r names no operation of the graph"
            % saver_def.restore_op_name
        ) from None
    entries = _restore_entries(graph, restore)
    scope = restore.name.rpartition("/")[0] or "save"
    placeholders = {e[2] for e in entries}
    w = _Writer(graph, display=False)
    tensors: tuple[str, str] | None = None
    for op in graph.get_operations():
        if op not in placeholders:
            w.op(op)
        elif tensors is None:
            tensors = _write_saver(w, scope, entries)
    w.gd.versions.producer = GRAPH_DEF_VERSION
    out = SaverDef()
    out.CopyFrom(saver_def)
    if tensors is not None:
        out.filename_tensor_name, out.save_tensor_name = tensors
    return w.gd, out
