"""TF's graph forms as flowrt's: the one table that rewrites what TF 2.21's ``compat.v1``
writes into a ``GraphDef`` of flowrt's op types, before ``import_graph_def`` builds it.

flowrt runs one kind of variable (a resource: ``VarHandleOp`` + ``ReadVariableOp`` +
``AssignVariableOp``) and one kind of optimizer update (``ResourceApply*``). TF1's ref
variables are rewritten into that form, node by node, keeping every node's name:

- ``VariableV2`` becomes a ``VarHandleOp``. An empty ``shared_name`` names a ref
  variable by its node (TF's kernel), but shares one resource among ``VarHandleOp`` nodes:
  the importer gives those the node's imported name (``unshared_ref_variables``).
- An op that writes through a ref (``Assign*``, ``Apply*``, ``Scatter*``,
  ``IsVariableInitialized``, ``CountUpTo``) becomes its resource form (``_ref_ops``),
  taking the variable's handle.
- ``DisableCopyOnRead`` (TF's saver writes it before reading a sliced resource variable)
  is a ``NoOp``: flowrt's variables have no copy-on-read mode.
- ``ResourceGather`` (a resource variable's ``embedding_lookup``) becomes ``GatherV2`` of a
  ``ReadVariableOp``, flowrt's form of it.
- TensorArrays become flowrt's, whose flow is the array's value and which have no
  handle: TF1's ``TensorArrayV3`` (a handle and a float flow through TF1's loops) and TF
  2's ``TensorList*`` ops (in functional loops) alike.
- ``ParseExampleV2``'s keys, constant inputs in TF, become flowrt's attrs.
- ``Identity`` of a ref variable (the ``w/read`` snapshot) becomes ``ReadVariableOp``;
  any other op reading a ref gets a ``ReadVariableOp`` inserted before it, under its
  control inputs, so it reads when TF's op would. An ``Apply*`` op returns nothing in
  flowrt: a consumer of its output reads the variable after it.

The saver's subgraph (``SaveV2``, ``RestoreV2``, a sharded saver's ``ShardedFilename``
and ``MergeV2Checkpoints``) is made of flowrt ops as it is (``train/save_restore_ops.py``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from .graph_import_cf import functional_control_flow
from .graph_import_cf import split_input as _split
from .graph_import_cf import tensor_name as _tensor
from .protos.graph_pb2 import GraphDef, NodeDef

__all__ = ["to_flowrt_forms", "unshared_ref_variables"]

_REF_VARIABLES = frozenset({"VariableV2", "Variable"})

AttrEdit = Callable[[NodeDef, NodeDef], None]


def _t_as_dtype(src: NodeDef, dst: NodeDef) -> None:
    dst.attr["dtype"].CopyFrom(src.attr["T"])
    del dst.attr["T"]
    if "use_locking" in dst.attr:
        del dst.attr["use_locking"]


def _keep(src: NodeDef, dst: NodeDef) -> None:
    pass


def _drop_dtype(src: NodeDef, dst: NodeDef) -> None:
    if "dtype" in dst.attr:
        del dst.attr["dtype"]


RefOp = tuple[str, int, AttrEdit, bool]


@functools.cache
def _ref_ops() -> dict[str, RefOp]:
    """TF ref op -> (flowrt op, how many leading inputs are refs, its attrs from TF's,
    whether flowrt's op returns a value)."""
    from .train.apply_ops import _APPLY  # the train layer imports graph_import

    table: dict[str, RefOp] = {
        "Assign": ("AssignVariableOp", 1, _t_as_dtype, True),
        "AssignAdd": ("AssignAddVariableOp", 1, _t_as_dtype, True),
        "AssignSub": ("AssignSubVariableOp", 1, _t_as_dtype, True),
        "IsVariableInitialized": ("VarIsInitializedOp", 1, _drop_dtype, True),
        "CountUpTo": ("CountUpTo", 1, _keep, True),
    }
    for op in ("Update", "Add", "Sub", "Mul", "Div", "Min", "Max", "NdUpdate", "NdAdd", "NdSub"):
        table["Scatter" + op] = ("ResourceScatter" + op, 1, _t_as_dtype, True)
    for resource, _, n_handles, _ in _APPLY:
        # TF's ref form of ResourceApplyAdam is ApplyAdam, with the same inputs and attrs.
        table[resource[len("Resource") :]] = (resource, n_handles, _keep, False)
    return table


def unshared_ref_variables(gd: GraphDef) -> set[str]:
    """The ref variables of ``gd`` without a ``shared_name``: TF names each by its node."""
    return {
        n.name
        for n in gd.node
        if n.op in _REF_VARIABLES and not ("shared_name" in n.attr and n.attr["shared_name"].s)
    }


def to_flowrt_forms(gd: GraphDef) -> GraphDef:
    """``gd`` with TF's ref variables, ref updates and saver ops in flowrt's forms (the
    module docstring says how); ``gd`` itself when it holds none of them."""
    gd = functional_control_flow(_tensor_arrays(gd))
    nodes = list(gd.node)
    kinds = {n.op for n in nodes}
    ref_ops = _ref_ops()
    rewritten = _REF_VARIABLES | ref_ops.keys()
    rewritten |= {"ResourceGather", "DisableCopyOnRead", "ParseExampleV2"}
    rewritten |= _TENSOR_LIST_OPS
    if not kinds & rewritten:
        return gd
    by_name = {n.name: n for n in nodes}
    used = set(by_name)

    def fresh(base: str) -> str:
        name, k = base, 0
        while name in used:
            k += 1
            name = "%s_%d" % (base, k)
        used.add(name)
        return name

    def ref_variable(src: str) -> NodeDef | None:
        """The ref variable whose output ``src`` is, or None."""
        node = by_name.get(_split(src)[0])
        return node if node is not None and node.op in _REF_VARIABLES else None

    def variable_of(src: str) -> NodeDef | None:
        """The ref variable a tensor refers to (a variable's output, or the ref a ref op
        passes through), or None for a value."""
        name, i = _split(src)
        node = by_name.get(name)
        while node is not None and i == 0:
            if node.op in _REF_VARIABLES:
                return node
            if node.op not in ref_ops or not node.input:
                return None
            name, i = _split(node.input[0])
            node = by_name.get(name)
        return None

    out = GraphDef()
    out.CopyFrom(gd)
    del out.node[:]
    for node in nodes:
        new = NodeDef()
        new.CopyFrom(node)
        controls = [s for s in node.input if s.startswith("^")]
        data = [s for s in node.input if not s.startswith("^")]
        row = ref_ops.get(node.op)
        n_refs = row[1] if row is not None else 0
        extra: list[NodeDef] = []
        read = functools.partial(_read, node, extra, fresh)

        if node.op in _REF_VARIABLES:
            new.op = "VarHandleOp"
            for attr in ("container", "shared_name"):  # TF's defaults, when left out
                new.attr[attr].s = node.attr[attr].s if attr in node.attr else b""
        elif node.op == "DisableCopyOnRead":
            # flowrt's variables have no copy-on-read mode to switch off.
            new.op = "NoOp"
            new.attr.clear()
            controls = ["^" + _split(d)[0] for d in data] + controls
            data = []
        elif node.op == "ParseExampleV2" and "num_sparse" in node.attr:
            data = _parse_example(node, new, by_name)
        elif node.op in _TENSOR_LIST_OPS:
            data = _tensor_list(node, new, extra, fresh, by_name)
        elif node.op == "ResourceGather":
            data = _resource_gather(node, new, extra, fresh, controls)
        elif node.op == "Identity" and ref_variable(data[0]) is not None:
            new.op = "ReadVariableOp"
            data = [_split(data[0])[0]]
            new.attr["dtype"].CopyFrom(node.attr["T"])
            del new.attr["T"]
        else:
            if row is not None:
                new.op = row[0]
                row[2](node, new)
            for k, s in enumerate(data):
                if k < n_refs:
                    var = variable_of(s)
                    if var is None:
                        raise ValueError(
                            "Node '%s' (%s): input %d ('%s') must be a ref variable, "
                            "which TF writes as VariableV2" % (node.name, node.op, k, s)
                        )
                    data[k] = var.name
                    src = _split(s)[0]
                    if src != var.name and "^" + src not in controls:
                        # A ref passed on by another ref op: run after that op, as the
                        # data edge made TF do.
                        controls.append("^" + src)
                    continue
                var = ref_variable(s)
                if var is not None:
                    data[k] = read(var.name, var.attr["dtype"], controls)
                    continue
                producer = by_name.get(_split(s)[0])
                if producer is not None and producer.op in ref_ops and not ref_ops[producer.op][3]:
                    # An Apply* op's output: the variable as it updated it.
                    var = variable_of(s)
                    if var is not None:
                        data[k] = read(var.name, var.attr["dtype"], ["^" + producer.name])
        del new.input[:]
        new.input.extend(data + controls)
        out.node.extend(extra)
        out.node.append(new)
    return out


def _read(consumer: NodeDef, extra: list, fresh, handle: str, dtype, after: list[str]) -> str:
    """Adds to ``extra`` a ``ReadVariableOp`` of variable ``handle`` (its ``dtype``
    AttrValue) for ``consumer``, run after the ``^ops`` of ``after``; returns its name."""
    r = NodeDef(name=fresh(consumer.name + "/ReadVariableOp"), op="ReadVariableOp")
    r.input.extend([handle] + after)
    r.attr["dtype"].CopyFrom(dtype)
    r.device = consumer.device
    extra.append(r)
    return r.name


def _resource_gather(node: NodeDef, new: NodeDef, extra: list, fresh, controls) -> list[str]:
    """``ResourceGather`` (rows of a resource variable: ``embedding_lookup``'s forward) as
    ``GatherV2`` of a read of it; returns the node's new data inputs."""
    handle, indices = [s for s in node.input if not s.startswith("^")]
    dtype = node.attr["dtype"]
    read = _read(node, extra, fresh, handle, dtype, controls)
    axis = NodeDef(name=fresh(node.name + "/axis"), op="Const")
    axis.attr["dtype"].type = 3  # DT_INT32
    axis.attr["value"].tensor.dtype = 3
    axis.attr["value"].tensor.int_val.append(0)
    extra.append(axis)
    new.op = "GatherV2"
    new.attr.clear()
    new.attr["Tparams"].CopyFrom(dtype)
    new.attr["Tindices"].CopyFrom(node.attr["Tindices"])
    new.attr["Taxis"].type = 3
    new.attr["batch_dims"].i = node.attr["batch_dims"].i
    return [read, indices, axis.name]


_TENSOR_LIST_OPS = frozenset(
    {
        "TensorListReserve",
        "TensorListFromTensor",
        "TensorListGetItem",
        "TensorListSetItem",
        "TensorListStack",
        "TensorListGather",
        "TensorListLength",
        "TensorListScatterIntoExistingList",
        "TensorListSplit",
        "TensorListConcatV2",
    }
)
_INT32 = 3  # DT_INT32
_INT64 = 9  # DT_INT64


# TF1's TensorArray ops, which take (handle, ..., flow_in); flowrt's take (flow, ...).
_TA_OPS = frozenset(
    {
        "TensorArrayWriteV3",
        "TensorArrayReadV3",
        "TensorArrayGatherV3",
        "TensorArrayScatterV3",
        "TensorArraySizeV3",
        "TensorArrayConcatV3",
        "TensorArraySplitV3",
        "TensorArrayCloseV3",
    }
)
_FLOW_OUT = frozenset({"TensorArrayWriteV3", "TensorArrayScatterV3", "TensorArraySplitV3"})
# Ops that pass a tensor on unchanged (through TF1's control flow).
_PASS_ON = frozenset({"Identity", "Enter", "Merge", "Switch", "NextIteration", "Exit"})
_VARIANT = 21  # DT_VARIANT


def _tensor_arrays(gd: GraphDef) -> GraphDef:
    """TF1's TensorArrays (a ``resource`` handle and a float flow through TF1's control
    flow) as flowrt's, whose only output is the flow, a ``variant`` value: ``TensorArrayV3``
    keeps its name, its flow is output 0, the ops take the flow first and no handle, and
    the nodes passing the flow on carry a variant; those passing the handle on go."""
    arrays = {n.name for n in gd.node if n.op == "TensorArrayV3"}
    # TF's arrays pass their flow on as output 1; flowrt's (a graph flowrt wrote) have
    # only the flow, output 0, and are in flowrt's form already.
    if not any(
        _split(s)[0] in arrays and _split(s)[1] == 1
        for n in gd.node
        for s in n.input
        if not s.startswith("^")
    ):
        return gd
    consumers: dict[str, list[NodeDef]] = {}
    for n in gd.node:
        for src in n.input:
            if not src.startswith("^"):
                consumers.setdefault(_split(src)[0], []).append(n)
    kind: dict[str, str] = {}  # tensor "node:i" -> "handle" or "flow"
    todo = []
    for n in gd.node:
        if n.op == "TensorArrayV3":
            todo += [("%s:0" % n.name, "handle"), ("%s:1" % n.name, "flow")]
        elif n.op in _FLOW_OUT:
            todo.append(("%s:0" % n.name, "flow"))
    while todo:
        t, k = todo.pop()
        if t in kind:
            continue
        kind[t] = k
        name, _ = _split(t)
        for c in consumers.get(name, ()):
            if c.op in _PASS_ON and any(_tensor(s) == t for s in c.input if not s.startswith("^")):
                outs = (0, 1) if c.op == "Switch" else (0,)
                todo += [("%s:%d" % (c.name, i), k) for i in outs]
    handles = {_split(t)[0] for t, k in kind.items() if k == "handle"} - arrays
    out = GraphDef()
    out.CopyFrom(gd)
    del out.node[:]
    for n in gd.node:
        if n.name in handles:
            continue  # a handle passed on: flowrt's ops need none
        new = out.node.add()
        new.CopyFrom(n)
        del new.input[:]
        data = [s for s in n.input if not s.startswith("^")]
        controls = [s for s in n.input if s.startswith("^") and s[1:] not in handles]
        if n.op in _TA_OPS:
            # (handle, middle..., flow_in) -> (flow_in, middle...); Close has no flow.
            data = [] if n.op == "TensorArrayCloseV3" else [data[-1]] + data[1:-1]
            if n.op == "TensorArrayCloseV3":
                new.op = "NoOp"
                new.attr.clear()
            if n.op == "TensorArrayReadV3" and "element_shape" not in new.attr:
                new.attr["element_shape"].shape.unknown_rank = True
            if n.op in _FLOW_OUT:
                new.attr["infer_shape"].b = False
        elif n.op in _PASS_ON and data and kind.get(_tensor(data[0])) == "flow":
            new.attr["T"].type = _VARIANT
        # A TensorArrayV3's flow, its output 1 in TF, is flowrt's output 0.
        data = [_split(s)[0] if _split(s)[1] == 1 and _split(s)[0] in arrays else s for s in data]
        new.input.extend(data + controls)
    return out


def _const(extra: list, fresh, name: str, value: int) -> str:
    c = NodeDef(name=fresh(name), op="Const")
    c.attr["dtype"].type = _INT32
    c.attr["value"].tensor.dtype = _INT32
    c.attr["value"].tensor.int_val.append(value)
    extra.append(c)
    return c.name


def _node(extra: list, fresh, name: str, op: str, inputs: list[str], **types) -> str:
    """Adds to ``extra`` a node ``op`` of ``inputs`` whose type attrs are ``types``
    (DataType enums or AttrValues); returns its name."""
    n = NodeDef(name=fresh(name), op=op, input=inputs)
    for k, v in types.items():
        if isinstance(v, int):
            n.attr[k].type = v
        else:
            n.attr[k].CopyFrom(v)
    extra.append(n)
    return n.name


def _element_shape(src: str, by_name, attr) -> None:
    """Sets ``attr`` (a shape AttrValue) to the element shape a TF list op takes as the
    constant ``src`` (-1: unknown rank; a -1 dim: unknown), else to unknown rank."""
    from .graph_import import make_ndarray  # graph_import imports this module

    const = by_name.get(_split(src)[0])
    dims = None
    if const is not None and const.op == "Const":
        value = make_ndarray(const.attr["value"].tensor, const.name)
        dims = None if value.ndim == 0 else value.tolist()
    if dims is None:
        attr.shape.unknown_rank = True
        return
    attr.shape.SetInParent()
    for d in dims:
        attr.shape.dim.add(size=d)


def _tensor_list(node: NodeDef, new: NodeDef, extra: list, fresh, by_name) -> list[str]:
    """TF 2's ``TensorList*`` ops (a TensorArray in a functional loop) as flowrt's
    TensorArray ops, whose flow is a list value too; returns the node's new data inputs."""
    data = [s for s in node.input if not s.startswith("^")]
    dtype = node.attr["element_dtype"]
    new.attr.clear()
    op, base = node.op, node.name

    def array(ta: NodeDef, shape: str) -> None:
        ta.op = "TensorArrayV3"
        ta.attr["dtype"].CopyFrom(dtype)
        _element_shape(shape, by_name, ta.attr["element_shape"])
        ta.attr["dynamic_size"].b = False
        ta.attr["clear_after_read"].b = False  # a list's items stay readable
        ta.attr["identical_element_shapes"].b = False
        ta.attr["tensor_array_name"].s = b""

    def indices(size: str) -> str:
        zero, one = _const(extra, fresh, base + "/zero", 0), _const(extra, fresh, base + "/one", 1)
        return _node(extra, fresh, base + "/indices", "Range", [zero, size, one], Tidx=_INT32)

    if op == "TensorListReserve":
        array(new, data[0])
        return [data[1]]
    if op == "TensorListFromTensor":
        shape = _node(extra, fresh, base + "/shape", "Shape", [data[0]], T=dtype, out_type=_INT32)
        zero = _const(extra, fresh, base + "/first", 0)
        size = _node(
            extra,
            fresh,
            base + "/size",
            "GatherV2",
            [shape, zero, zero],
            Tparams=_INT32,
            Tindices=_INT32,
            Taxis=_INT32,
        )
        extra[-1].attr["batch_dims"].i = 0
        ta = NodeDef(name=fresh(base + "/array"), input=[size])
        array(ta, data[1])
        extra.append(ta)
        new.op = "TensorArrayScatterV3"
        new.attr["infer_shape"].b = False
        return [ta.name, indices(size), data[0]]
    if op in ("TensorListGetItem", "TensorListStack", "TensorListGather"):
        new.attr["dtype"].CopyFrom(dtype)
        shape_input = data[1] if op == "TensorListStack" else data[2]
        _element_shape(shape_input, by_name, new.attr["element_shape"])
        if op == "TensorListGetItem":
            new.op = "TensorArrayReadV3"
            return data[:2]
        new.op = "TensorArrayGatherV3"
        if op == "TensorListGather":
            return data[:2]
        size = _node(extra, fresh, base + "/size", "TensorArraySizeV3", [data[0]])
        return [data[0], indices(size)]
    if op == "TensorListSetItem":
        new.op = "TensorArrayWriteV3"
        new.attr["infer_shape"].b = False
        new.attr["_dynamic_size"].b = node.attr["resize_if_index_out_of_bounds"].b
        return data[:3]
    if op == "TensorListScatterIntoExistingList":
        new.op = "TensorArrayScatterV3"
        new.attr["infer_shape"].b = False
        new.attr["_dynamic_size"].b = True  # TF's scatter grows the list
        return [data[0], data[2], data[1]]
    if op == "TensorListSplit":
        # A new list of ``len(lengths)`` parts of the tensor.
        size = _node(extra, fresh, base + "/size", "Size", [data[2]], T=_INT64, out_type=_INT32)
        ta = NodeDef(name=fresh(base + "/array"), input=[size])
        array(ta, data[1])
        extra.append(ta)
        new.op = "TensorArraySplitV3"
        new.attr["infer_shape"].b = False
        return [ta.name, data[0], data[2]]
    if op == "TensorListConcatV2":
        new.op = "TensorArrayConcatV3"
        new.attr["dtype"].CopyFrom(dtype)
        _element_shape(data[1], by_name, new.attr["element_shape"])
        return data[:1]
    new.op = "TensorArraySizeV3"  # TensorListLength
    return data[:1]


def _const_strings(node: NodeDef, src: str, by_name, what: str) -> list[str]:
    const = by_name.get(_split(src)[0])
    if const is None or const.op != "Const":
        raise ValueError(
            "Node '%s' (%s): its %s must be a constant for flowrt, got '%s'"
            % (node.name, node.op, what, src)
        )
    return [b.decode("utf-8") for b in const.attr["value"].tensor.string_val]


def _parse_example(node: NodeDef, new: NodeDef, by_name) -> list[str]:
    """TF's ``ParseExampleV2`` (keys as constant inputs) as flowrt's (keys as attrs);
    returns the node's new data inputs. A dense shape of unknown first dimension is a
    ``FixedLenSequenceFeature``'s."""
    data = [s for s in node.input if not s.startswith("^")]
    ragged = _const_strings(node, data[4], by_name, "ragged_keys")
    if ragged:
        raise ValueError(
            "Node '%s' (ParseExampleV2): ragged features (%s) have no flowrt form"
            % (node.name, ", ".join(ragged))
        )
    new.attr.clear()
    new.attr["sparse_keys"].list.s.extend(
        k.encode() for k in _const_strings(node, data[2], by_name, "sparse_keys")
    )
    new.attr["dense_keys"].list.s.extend(
        k.encode() for k in _const_strings(node, data[3], by_name, "dense_keys")
    )
    new.attr["sparse_types"].CopyFrom(node.attr["sparse_types"])
    new.attr["Tdense"].CopyFrom(node.attr["Tdense"])
    new.attr["dense_shapes"].list.SetInParent()
    new.attr["ragged"].list.SetInParent()
    for shape in node.attr["dense_shapes"].list.shape:
        seq = bool(shape.dim) and shape.dim[0].size < 0
        kept = new.attr["dense_shapes"].list.shape.add()
        kept.dim.extend(shape.dim[1:] if seq else shape.dim)
        new.attr["ragged"].list.b.append(seq)
    new.attr["single"].b = False
    return data[:2] + data[5:]


# --------------------------------------------------------------------------------------
# Function libraries: TF 2's functional control flow and calls
# --------------------------------------------------------------------------------------

# Op -> its function attrs, in the order the builder takes them.
FUNCTIONAL_OPS = {
    "While": ("cond", "body"),
    "StatelessWhile": ("cond", "body"),
    "If": ("then_branch", "else_branch"),
    "StatelessIf": ("then_branch", "else_branch"),
    "PartitionedCall": ("f",),
    "StatefulPartitionedCall": ("f",),
}


def _output_index(node: NodeDef, arg: str, index: int) -> int:
    """The flat output index of ``node``'s output ``arg:index`` (a FunctionDef's
    ``node:arg:index`` input), from TF's OpDef of ``node.op`` when flowrt has it."""
    from ._core.op_signatures import op_def

    outputs = (op_def(node.op) or {}).get("outputs")
    if not outputs:
        return index  # an op of one output arg (what flowrt's table cannot tell otherwise)
    flat = 0
    for out in outputs:
        name, number_attr, list_attr = out[0], out[3], out[4]
        if name == arg:
            return flat + index
        if number_attr:
            flat += node.attr[number_attr].i
        elif list_attr:
            flat += len(node.attr[list_attr].list.type)
        else:
            flat += 1
    raise ValueError("Node '%s' (%s) has no output '%s'" % (node.name, node.op, arg))


def _tensor_name(s: str) -> str:
    return s if ":" in s else s + ":0"


def function_graph_def(fdef, library) -> tuple[GraphDef, list[str], list[str], list[str]]:
    """A ``FunctionDef`` as ``(graph_def, arg nodes, output tensors, control ops)``: its
    args become placeholders named as the args (to be mapped by ``input_map``), its
    ``node:arg:index`` inputs flat ``node:i`` names, and ``library`` comes along for the
    functions its nodes call."""
    sig = fdef.signature
    gd = GraphDef()
    gd.library.CopyFrom(library)
    args = []
    for a in sig.input_arg:
        ph = gd.node.add(name=a.name, op="Placeholder")
        if not a.type:
            raise ValueError(
                "function '%s': arg '%s' has a polymorphic type (%s), which flowrt cannot "
                "import" % (sig.name, a.name, a.type_attr or a.type_list_attr)
            )
        ph.attr["dtype"].type = a.type
        ph.attr["shape"].shape.unknown_rank = True
        args.append(a.name)
    by_name = {n.name: n for n in fdef.node_def}

    def flat(s: str) -> str:
        if s.startswith("^"):
            return s
        parts = s.split(":")
        if len(parts) == 1:
            return s  # an arg
        if len(parts) == 2 and parts[1].isdigit():
            return s  # flowrt's own flat form (graph_import_cf's functions)
        if len(parts) == 3 and parts[0] in by_name:
            return "%s:%d" % (parts[0], _output_index(by_name[parts[0]], parts[1], int(parts[2])))
        raise ValueError("function '%s': input '%s' names no arg or node output" % (sig.name, s))

    for n in fdef.node_def:
        new = gd.node.add()
        new.CopyFrom(n)
        del new.input[:]
        new.input.extend(flat(s) for s in n.input)
    outputs = [_tensor_name(flat(fdef.ret[a.name])) for a in sig.output_arg]
    controls = [fdef.control_ret[c] for c in sig.control_output]
    return gd, args, outputs, controls
