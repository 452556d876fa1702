"""``fr.import_graph_def``: a ``GraphDef`` rebuilt as ops of the default graph.

Each ``NodeDef`` becomes an op of the same registered type, with its inputs (``^name``
for control inputs), device and attrs decoded from their ``AttrValue`` form; shapes and
dtypes are inferred again, as TF's importer does (``_output_shapes`` is not read back).
TF's forms flowrt runs differently are rewritten into flowrt's first
(``graph_import_tf``), and functional nodes are built from the GraphDef's function
library (``_import_functional``).
``decode_attr`` and ``make_ndarray`` are the inverse of the writer in
``flowrt/graph_export.py``.
"""

from __future__ import annotations

import difflib
import heapq
import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from . import dtypes as _dt
from . import errors
from ._core.bounds import DeclaredSizeError, declared_bytes
from ._core.graph import Operation, Tensor, convert_to_tensor, get_default_graph
from ._core.lazy_constant import LazyConstant
from ._core.op_signatures import check_node
from ._core.registry import registered_ops
from ._core.shape import TensorShape
from .graph_export import UNENCODED_ATTRS
from .graph_import_cf import split_input as _split_input
from .graph_import_tf import (
    FUNCTIONAL_OPS,
    function_graph_def,
    to_flowrt_forms,
    unshared_ref_variables,
)
from .protos.graph_pb2 import AttrValue, GraphDef, NodeDef
from .protos.tensor_pb2 import TensorProto, TensorShapeProto

__all__ = ["import_graph_def", "make_ndarray"]

# Attrs a node carries that are no op's input: the writer's shapes and flowrt's record of
# the attrs it could not encode (see ``graph_export.py``).
_SHAPES_ATTR = "_output_shapes"
DROPPED_ATTR = UNENCODED_ATTRS

_BY_ENUM = {d.as_datatype_enum: d for d in _dt.ALL_DTYPES}


def _dtype(enum: int, where: str) -> _dt.DType:
    try:
        return _BY_ENUM[enum]
    except KeyError:
        raise ValueError("%s: DataType %d has no flowrt dtype" % (where, enum)) from None


def _shape(proto: TensorShapeProto) -> TensorShape:
    if proto.unknown_rank:
        return TensorShape(None)
    return TensorShape([None if d.size < 0 else d.size for d in proto.dim])


# TensorProto's typed value fields, by the numpy kind they hold.
VAL_FIELDS = {
    "float16": "half_val",
    "float32": "float_val",
    "float64": "double_val",
    "int8": "int_val",
    "int16": "int_val",
    "int32": "int_val",
    "uint8": "int_val",
    "uint16": "int_val",
    "int64": "int64_val",
    "uint32": "uint32_val",
    "uint64": "uint64_val",
    "bool": "bool_val",
    "complex64": "scomplex_val",
    "complex128": "dcomplex_val",
    "string": "string_val",
}


_EXPAND_LIMIT = 1 << 16
"""Elements above which a tensor of one repeated value is a broadcast view."""

EXPAND_CAP = 1 << 30
"""The bytes a TensorProto whose last value repeats to fill its shape may expand to;
one value repeated is a broadcast view and costs nothing, whatever its shape."""


def _checked(tensor: TensorProto, where: str) -> tuple[_dt.DType, tuple[int, ...]]:
    """The dtype and shape of a well-formed ``TensorProto``, checked without decoding
    its values: they fit the shape, and the element count is an int64."""
    dt = _dtype(tensor.dtype, where)
    shape = _shape(tensor.tensor_shape)
    if not shape.is_fully_defined():
        raise ValueError("%s: a tensor's shape must be fully known, got %s" % (where, shape))
    dims = tuple(shape.as_list())
    npd = dt.np.newbyteorder("<") if dt != _dt.string else np.dtype(object)
    try:
        declared_bytes(dims, npd.itemsize)
    except DeclaredSizeError as e:
        raise ValueError("%s: %s" % (where, e)) from None
    size = math.prod(dims)
    if dt != _dt.string and tensor.tensor_content:
        if len(tensor.tensor_content) != size * npd.itemsize:
            raise ValueError(
                "%s: tensor_content holds %d bytes, but shape %s of %s needs %d"
                % (where, len(tensor.tensor_content), list(dims), dt.name, size * npd.itemsize)
            )
        return dt, dims
    field = VAL_FIELDS.get(dt.name)
    if field is None:
        raise ValueError("%s: a %s tensor has no value form" % (where, dt.name))
    n = len(getattr(tensor, field)) // (2 if dt.is_complex else 1)
    if n > size:
        raise ValueError("%s: %d values do not fit shape %s" % (where, n, list(dims)))
    return dt, dims


def make_ndarray(tensor: TensorProto, where: str = "TensorProto") -> np.ndarray:
    """The numpy array a ``TensorProto`` holds (TF1's ``tf.make_ndarray``).

    Args:
      tensor: a ``TensorProto`` (flowrt's or TF's class).
      where: names the tensor in error messages.

    Returns:
      An array of the proto's dtype and shape; strings are an object array of ``bytes``.
      One value repeated over many elements is a read-only broadcast view.

    Raises:
      ValueError: the dtype has no flowrt form, the shape is not fully known or too
        large, the values do not fit the shape, or repeating the last of several values
        to fill it would take more than ``EXPAND_CAP`` bytes.
    """
    dt, dims = _checked(tensor, where)
    size = math.prod(dims)
    if dt == _dt.string:
        vals = list(tensor.string_val)
        arr = np.empty(len(vals), dtype=object)
        arr[:] = vals
    elif tensor.tensor_content:
        npd = dt.np.newbyteorder("<")
        return np.frombuffer(tensor.tensor_content, dtype=npd).astype(dt.np).reshape(dims)
    elif dt == _dt.float16:
        arr = np.asarray(tensor.half_val, dtype=np.uint16).view(np.float16)
    elif dt.is_complex:
        pairs = np.asarray(getattr(tensor, VAL_FIELDS[dt.name]), dtype=dt.real_dtype.np)
        arr = (pairs[0::2] + 1j * pairs[1::2]).astype(dt.np)
    else:
        arr = np.asarray(getattr(tensor, VAL_FIELDS[dt.name])).astype(dt.np)
    # TF's rule: fewer values than elements repeat the last one (none: zeros).
    if arr.size == size:
        return arr.reshape(dims)
    if arr.size <= 1 and size > _EXPAND_LIMIT:
        # One value repeated: a read-only broadcast view, so a constant declaring
        # gigabytes costs nothing until a run copies it.
        fill = arr[0] if arr.size else (b"" if dt == _dt.string else dt.np.type(0))
        return np.broadcast_to(np.array(fill, dtype=object if dt == _dt.string else dt.np), dims)
    try:
        declared_bytes(dims, arr.dtype.itemsize, EXPAND_CAP)
    except DeclaredSizeError as e:
        raise ValueError(
            "%s: %d values repeated to fill it: %s (EXPAND_CAP)" % (where, arr.size, e)
        ) from None
    out = np.empty(size, dtype=arr.dtype) if dt == _dt.string else np.zeros(size, dtype=dt.np)
    if dt == _dt.string:
        out[:] = b""
    if arr.size:
        out[: arr.size] = arr
        out[arr.size :] = arr[-1]
    return out.reshape(dims)


def lazy_constant(tensor: TensorProto, where: str) -> LazyConstant:
    """A ``Const``'s value as its ``TensorProto``, checked now and decoded by
    ``make_ndarray`` when a run first needs it (``_core/lazy_constant.py``)."""
    dt, dims = _checked(tensor, where)
    return LazyConstant(tensor, dt.np, dims, make_ndarray)


def _text(b: bytes) -> str | bytes:
    # flowrt keeps text attrs (padding, shared_name, ...) as str; bytes that are not
    # UTF-8 stay bytes.
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        return b


# String attrs flowrt keeps as bytes, not str: ``py_func``'s registry token.
_BYTES_ATTRS = frozenset({"token"})


def decode_attr(value: AttrValue, where: str, name: str = "") -> Any:
    """The flowrt value of attr ``name``'s ``AttrValue`` (``where`` names node and attr
    for errors)."""
    kind = value.WhichOneof("value")
    if kind is None:
        return None
    if kind == "s":
        return value.s if name in _BYTES_ATTRS else _text(value.s)
    if kind in ("i", "f", "b"):
        return getattr(value, kind)
    if kind == "type":
        return _dtype(value.type, where)
    if kind == "shape":
        return _shape(value.shape)
    if kind == "tensor":
        return lazy_constant(value.tensor, where)
    if kind == "list":
        lst = value.list
        if lst.s:
            return [_text(x) for x in lst.s]
        if lst.i:
            return list(lst.i)
        if lst.f:
            return list(lst.f)
        if lst.b:
            return list(lst.b)
        if lst.type:
            return [_dtype(t, where) for t in lst.type]
        if lst.shape:
            return [_shape(s) for s in lst.shape]
        if lst.tensor:
            return [make_ndarray(t, where) for t in lst.tensor]
        if lst.func:
            raise ValueError("%s: function attrs are not supported by flowrt" % where)
        return []
    raise ValueError(
        "%s: %s attrs are not supported by flowrt (functions live in Python, not in the "
        "GraphDef)" % (where, "function" if kind == "func" else kind)
    )


# --------------------------------------------------------------------------------------
# import_graph_def
# --------------------------------------------------------------------------------------


def _as_graph_def(graph_def: Any) -> GraphDef:
    if isinstance(graph_def, GraphDef):
        return graph_def
    # TF's own GraphDef (or any message with the same fields): the bytes are the same.
    if type(graph_def).__name__ == "GraphDef" and hasattr(graph_def, "SerializeToString"):
        return GraphDef.FromString(graph_def.SerializeToString())
    raise TypeError("Argument `graph_def` must be a GraphDef proto.")


def _tensor_key(s: str) -> str:
    name, i = _split_input(s)
    return "^" + name if i < 0 else "%s:%d" % (name, i)


def _topological(nodes: dict[str, NodeDef]) -> list[NodeDef]:
    """Nodes with every input before its consumers, in GraphDef order where free (Kahn)."""
    order = {n: i for i, n in enumerate(nodes)}
    waiting: dict[str, int] = {}
    consumers: dict[str, list[str]] = {n: [] for n in nodes}
    for name, node in nodes.items():
        srcs = {_split_input(s)[0] for s in node.input}
        for src in srcs:
            if src not in nodes:
                raise ValueError("Node '%s': Unknown input node '%s'" % (name, src))
            consumers[src].append(name)
        waiting[name] = len(srcs)
    ready = [order[n] for n, k in waiting.items() if k == 0]
    heapq.heapify(ready)
    names = list(nodes)
    out = []
    while ready:
        name = names[heapq.heappop(ready)]
        out.append(nodes[name])
        for c in consumers[name]:
            waiting[c] -= 1
            if waiting[c] == 0:
                heapq.heappush(ready, order[c])
    if len(out) != len(nodes):
        raise ValueError("%d nodes in a cycle" % (len(nodes) - len(out)))
    return out


def _check_input_map(input_map: Any) -> dict[str, Any]:
    if input_map is None:
        return {}
    if not isinstance(input_map, dict):
        raise TypeError(
            "Argument `input_map` must be a dictionary. Obtained %s" % type(input_map).__name__
        )
    out = {}
    for k, v in input_map.items():
        if not isinstance(k, str):
            raise TypeError("Argument `input_map` must be a dictionary with string keys.")
        key = _tensor_key(k)
        if key.startswith("^"):
            if not isinstance(v, Operation):
                raise TypeError(
                    "input_map[%r] maps a control input, so it must be an Operation, got %s"
                    % (k, type(v).__name__)
                )
        else:
            v = convert_to_tensor(v)
        out[key] = v
    return out


def _attrs(node: NodeDef, where: str) -> dict[str, Any]:
    dropped = node.attr.get(DROPPED_ATTR)
    if dropped is not None and dropped.list.s:
        names = ", ".join(repr(_text(s)) for s in dropped.list.s)
        raise ValueError(
            "%s: attr %s held a Python object (a callable, a fused kernel or a loop body) "
            "that a GraphDef cannot carry, so this node cannot be imported; build it again "
            "in Python instead" % (where, names)
        )
    return {
        k: decode_attr(v, "%s attr '%s'" % (where, k), k)
        for k, v in sorted(node.attr.items())
        if k not in (_SHAPES_ATTR, DROPPED_ATTR)
    }


def import_graph_def(
    graph_def: GraphDef,
    input_map: dict[str, Any] | None = None,
    return_elements: Iterable[str] | None = None,
    name: str | None = None,
    op_dict: Any = None,
    producer_op_list: Any = None,
) -> list[Operation | Tensor] | None:
    """Imports the ops of a ``GraphDef`` into the default graph (TF1's API).

    Args:
      graph_def: a ``GraphDef`` (``Graph.as_graph_def()``, or TF's message: its bytes
        are read into flowrt's class).
      input_map: maps names in ``graph_def`` (``"x:0"``, or ``"x"`` for output 0, or
        ``"^x"`` for control inputs on ``x``) to tensors (or operations) of the default
        graph that replace them as inputs of the imported ops.
      return_elements: names in ``graph_def`` to return: ``"x"`` gives the operation,
        ``"x:0"`` the tensor.
      name: the prefix of the imported names (default ``"import"``, made unique as a
        name scope); ``""`` imports the names as they are (made unique).
      op_dict: deprecated in TF; ignored.
      producer_op_list: kept for TF1's signature; ignored (no default attrs to strip).

    Returns:
      The operations and tensors named by ``return_elements``, in order, or None.

    Raises:
      TypeError: ``graph_def`` is not a ``GraphDef``, or ``input_map`` is not a dict.
      ValueError: a node name is not unique, an input or ``input_map`` key names no
        node, a mapped tensor has the wrong dtype, the nodes form a cycle, a return
        element is missing, or a node cannot be rebuilt (its message names it).
      NotFoundError: a node's op type is not registered.

    Note (flowrt): TF's forms that flowrt runs otherwise are rewritten first
    (``graph_import_tf``: ref variables, TF1 control flow, the saver's ops; see
    ``docs/interop.md``). ``func`` attrs are read for ``While``/``If`` (built with
    ``fr.while_loop``/``fr.cond``) and ``PartitionedCall`` (its function inline) from the
    GraphDef's library, nowhere else. A node whose attr held a Python object when
    flowrt wrote it (loop and branch bodies, function calls, ``fr.print``'s stream;
    recorded in ``_flowrt_unencoded_attrs``) is a ValueError naming it. A ``py_func``
    node imports, but its callable is registered with the graph that made it: running it
    elsewhere fails as in a new TF process (``callback pyfunc_0 is not found``).
    """
    del op_dict, producer_op_list
    returns = None if return_elements is None else [str(r) for r in return_elements]
    created = import_nodes(graph_def, input_map, "import" if name is None else name)
    return None if returns is None else [_return_element(r, created) for r in returns]


def import_nodes(
    graph_def: Any, input_map: dict[str, Any] | None, name: str
) -> dict[str, Operation]:
    """``import_graph_def``'s work: ``{node name in graph_def: its new op}``, the nodes
    imported under name scope ``name`` (``""``: none)."""
    gd = _as_graph_def(graph_def)
    by_own_name = unshared_ref_variables(gd)
    gd = to_flowrt_forms(gd)
    mapped = _check_input_map(input_map)
    nodes: dict[str, NodeDef] = {}
    for node in gd.node:
        if node.name in nodes:
            raise ValueError("Node '%s' is not unique" % node.name)
        nodes[node.name] = node
    missing = sorted(k for k in mapped if _split_input(k)[0] not in nodes)
    if missing:
        raise ValueError(
            "Attempted to map inputs that were not found in graph_def: [%s]" % ", ".join(missing)
        )
    ordered = _topological(nodes)
    ops = registered_ops()
    g = get_default_graph()
    created: dict[str, Operation] = {}
    with g.name_scope(name):
        for node in ordered:
            created[node.name] = _import_node(
                g, node, ops, created, mapped, gd.library, node.name in by_own_name
            )
    return created


def _import_node(
    g, node: NodeDef, ops, created: dict, mapped: dict, library, own_name: bool = False
) -> Operation:
    """The op of ``node``; ``own_name``: a TF ref variable, its resource named by its op."""
    where = "Node '%s' (%s)" % (node.name, node.op)
    if node.op not in ops:
        close = difflib.get_close_matches(node.op, ops.keys(), n=3)
        hint = " Did you mean %s?" % ", ".join(map(repr, close)) if close else ""
        raise errors.NotFoundError(
            None,
            None,
            "Op type not registered '%s' in binary running flowrt (node '%s').%s"
            % (node.op, node.name, hint),
        )
    check_node(node)
    functional = node.op in FUNCTIONAL_OPS and any(
        node.attr[k].WhichOneof("value") == "func"
        for k in FUNCTIONAL_OPS[node.op]
        if k in node.attr
    )
    attrs = {} if functional else _attrs(node, where)
    full = g.unique_name(node.name)
    if own_name:
        attrs["shared_name"] = full
    inputs: list[Tensor] = []
    controls: list[Operation] = []
    for s in node.input:
        src, i = _split_input(s)
        if i < 0:
            controls.append(mapped.get("^" + src, created[src]))
            continue
        op = created[src]
        if i >= len(op.outputs):
            raise ValueError(
                "Node '%s': Connecting to invalid output %d of source node %s which has %d "
                "outputs." % (node.name, i, src, len(op.outputs))
            )
        t = mapped.get("%s:%d" % (src, i))
        if t is None:
            t = op.outputs[i]
        elif t.dtype != op.outputs[i].dtype:
            raise ValueError(
                "Input %d of node %s was passed %s from %s incompatible with expected %s."
                % (len(inputs), full, t.dtype.name, t.name, op.outputs[i].dtype.name)
            )
        inputs.append(t)
    try:
        if functional:
            # Every op of the inlined function waits for the node's control inputs.
            with g.control_dependencies(controls):
                op = _import_functional(g, node, inputs, full, library)
        else:
            op = g._create_op(node.op, inputs, attrs, full + "/")
    except KeyError as e:
        raise ValueError("%s: NodeDef missing attr %s" % (where, e)) from None
    except IndexError:
        raise ValueError("%s: too few inputs (%d given)" % (where, len(inputs))) from None
    if node.device:
        op.device = node.device
    # A new op: no cached plan holds it yet, so its control edges are set directly.
    for c in controls:
        if c not in op.control_inputs:
            op.control_inputs.append(c)
            c._control_outputs.append(op)
    return op


def _call_function(g, fname: str, args: list, library, scope: str) -> list[Tensor]:
    """Imports function ``fname`` of ``library`` under name scope ``scope``, its args
    mapped to ``args``; returns its outputs (run after its control outputs)."""
    fdef = next((f for f in library.function if f.signature.name == fname), None)
    if fdef is None:
        raise ValueError("function '%s' is not in the GraphDef's library" % fname)
    gd, arg_names, outputs, controls = function_graph_def(fdef, library)
    if len(args) != len(arg_names):
        raise ValueError(
            "function '%s' takes %d args, called with %d" % (fname, len(arg_names), len(args))
        )
    by_arg = {a + ":0": t for a, t in zip(arg_names, args)}
    created = import_nodes(gd, by_arg, scope)
    outs = [
        by_arg[o] if o in by_arg else created[n].outputs[i]
        for o, (n, i) in zip(outputs, map(_split_input, outputs))
    ]
    after = [created[c] for c in controls]
    if not after:
        return outs
    from .ops.array_ops import identity

    with g.control_dependencies(after):
        return [identity(t) for t in outs]


def _passed_through_handles(library, body: str, inputs: list[Tensor]) -> set[int]:
    """The loop inputs that are resource handles ``body`` returns as they came."""
    fdef = next((f for f in library.function if f.signature.name == body), None)
    if fdef is None:
        return set()
    ins = [a.name for a in fdef.signature.input_arg]
    outs = [fdef.ret.get(a.name) for a in fdef.signature.output_arg]
    return {
        i
        for i, t in enumerate(inputs)
        if t.dtype is _dt.resource and i < len(outs) and i < len(ins) and outs[i] == ins[i]
    }


def _import_functional(g, node: NodeDef, inputs: list[Tensor], full: str, library) -> Operation:
    """A TF 2 functional node (``While``, ``If``, a call) built with flowrt's
    ``while_loop``, ``cond`` or the function's ops inline, under name scope ``full``; the
    node itself is an ``IdentityN`` of its results (a ``NoOp`` for none), named ``full``."""
    from .ops.control_flow_ops import cond
    from .ops.while_ops import while_loop

    fn = [node.attr[k].func.name for k in FUNCTIONAL_OPS[node.op]]
    with g.name_scope(full + "/"):
        if node.op.endswith("While"):
            shapes = node.attr["output_shapes"].list.shape if "output_shapes" in node.attr else []
            # A variable the body passes through unchanged (a capture, as while_v2 and
            # flowrt's export write it) is read from outside: flowrt's loops capture
            # variables, whose handles are not loop variables.
            fixed = _passed_through_handles(library, fn[1], inputs)
            var_idx = [i for i in range(len(inputs)) if i not in fixed]

            def loop_args(a: tuple) -> list:
                full = list(inputs)
                for i, t in zip(var_idx, a, strict=True):
                    full[i] = t
                return full

            def body(*a):
                outs = _call_function(g, fn[1], loop_args(a), library, "body")
                return [outs[i] for i in var_idx]

            loop_outs = while_loop(
                lambda *a: _call_function(g, fn[0], loop_args(a), library, "cond")[0],
                body,
                [inputs[i] for i in var_idx],
                shape_invariants=[_shape(shapes[i]) for i in var_idx] if shapes else None,
                return_same_structure=True,
            )
            outs = loop_args(loop_outs)
        elif node.op.endswith("If"):
            args = inputs[1:]
            outs = cond(
                inputs[0],
                lambda: _call_function(g, fn[0], args, library, "then"),
                lambda: _call_function(g, fn[1], args, library, "else"),
            )
        else:
            outs = _call_function(g, fn[0], inputs, library, "call")
    outs = [outs] if isinstance(outs, Tensor) else list(outs)
    if not outs:
        return g._create_op("NoOp", [], {}, full + "/")
    return g._create_op("IdentityN", outs, {"T": [t.dtype for t in outs]}, full + "/")


def _return_element(r: str, created: dict[str, Operation]) -> Operation | Tensor:
    name, sep, index = r.rpartition(":")
    if sep and index.isdigit():
        op = created.get(name)
        if op is None:
            raise ValueError("Requested return tensor '%s' not found in graph def" % r)
        i = int(index)
        if i >= len(op.outputs):
            raise ValueError(
                "Invalid return output %d of node '%s', which has %d output(s)"
                % (i, name, len(op.outputs))
            )
        return op.outputs[i]
    op = created.get(r)
    if op is None:
        raise ValueError("Requested return node '%s' not found in graph def" % r)
    return op
