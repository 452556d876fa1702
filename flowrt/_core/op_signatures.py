"""TF 2.21's op signatures (its OpDefs: input and output arguments, attr types, allowed
values and defaults) for the op types flowrt registers or its GraphDef writer emits, from
``op_defs.json`` beside this module (written by ``tools/dump_op_defs.py`` from TF's op
registry).

One table serves three checks: attr values at op construction (``check_attr_values``:
Conv2D's ``padding`` must be one of TF's), whole nodes at GraphDef import
(``check_node``: every attr of the type its OpDef declares, and as many inputs as its
input arguments take), and every node of an exported GraphDef (``check_graph_def``:
op type, attrs, input count and input dtypes as TF's importer checks them), each
raising ValueError with TF's wording where TF has one.
"""

from __future__ import annotations

import functools
import json
import os
from typing import Any

__all__ = ["check_attr_values", "check_node", "check_graph_def", "op_def"]

# An OpDef attr type -> the AttrValue field that holds it.
_FIELD = {
    "string": "s",
    "int": "i",
    "float": "f",
    "bool": "b",
    "type": "type",
    "shape": "shape",
    "tensor": "tensor",
    "func": "func",
}
# An AttrValue field -> the type name TF's message gives it.
_KIND_NAME = {"s": "string", "i": "int", "f": "float", "b": "bool", "list": "list"}


# Op types whose flowrt node takes other inputs than TF's OpDef lists (flowrt's op then
# checks its own): ParseExampleV2 holds its keys as attrs, not string inputs; the
# TensorArray V3 ops carry no flow input; a loop's captured tensors follow its loop
# variables; the dataset ops keep scalar arguments as attrs; PrintV2 formats its own
# message.
_FLOWRT_INPUTS = frozenset(
    {
        "ParseExampleV2",
        "TensorArrayConcatV3",
        "TensorArrayGatherV3",
        "TensorArrayReadV3",
        "TensorArrayScatterV3",
        "TensorArraySizeV3",
        "TensorArraySplitV3",
        "TensorArrayWriteV3",
        "While",
        "StatelessWhile",
        "FixedLengthRecordDataset",
        "PrefetchDataset",
        "ShuffleDataset",
        "TFRecordDataset",
        "TextLineDataset",
        "PrintV2",
    }
)


@functools.cache
def _table() -> dict[str, Any]:
    with open(os.path.join(os.path.dirname(__file__), "op_defs.json")) as f:
        return json.load(f)


def op_def(op_type: str) -> dict[str, Any] | None:
    """TF's OpDef of ``op_type`` as the table holds it, or None if TF has no such op:
    ``inputs``/``outputs`` as [name, type enum, type attr, number attr, type-list attr,
    is_ref], ``attrs`` as {name: [type, allowed values, default AttrValue JSON]}."""
    return _table().get(op_type)


def check_attr_values(op_type: str, attrs: dict[str, Any]) -> None:
    """ValueError if a string attr's value is not one TF's OpDef allows (as TF's
    ``Attr 'padding' of 'Conv2D' Op passed string 'FOO' not in: "SAME", "VALID"``)."""
    sig = _table().get(op_type)
    if sig is None:
        return
    for name, (kind, allowed, _default) in sig["attrs"].items():
        v = attrs.get(name)
        if kind == "string" and allowed and isinstance(v, str) and v not in allowed:
            raise ValueError(
                "Attr '%s' of '%s' Op passed string '%s' not in: %s."
                % (name, op_type, v, ", ".join('"%s"' % a for a in allowed))
            )


def _input_args(sig: dict[str, Any], node: Any) -> list[tuple[str, int | None]] | None:
    """The OpDef's input arguments with how many inputs of ``node`` each takes (None:
    one; a list argument is sized by the node's attr), or None if an attr that sizes
    one is missing."""
    args: list[tuple[str, int | None]] = []
    for name, _fixed, _type_attr, number_attr, type_list_attr, _is_ref in sig["inputs"]:
        sized_by = number_attr or type_list_attr
        if not sized_by:
            args.append((name, None))
        elif sized_by not in node.attr:
            return None
        else:
            value = node.attr[sized_by]
            args.append((name, value.i if number_attr else len(value.list.type)))
    return args


def check_node(node: Any, tf_inputs: bool = False) -> None:
    """ValueError (TF's ``import_graph_def`` class) naming ``node`` (a NodeDef) and the
    attr, if an attr's AttrValue holds another type than its OpDef declares or a string
    attr is not one of its allowed values; or naming the node if its inputs (control
    inputs aside) are not as many as its OpDef's input arguments take. The op types
    of ``_FLOWRT_INPUTS`` take other inputs in flowrt, and their own op checks them,
    unless ``tf_inputs`` (a GraphDef written for TF, ``check_graph_def_node``)."""
    sig = _table().get(node.op)
    if sig is None:
        return
    where = "NodeDef '%s' (%s)" % (node.name, node.op)
    for name, (kind, allowed, _default) in sig["attrs"].items():
        if name not in node.attr:
            continue
        value = node.attr[name]
        got = value.WhichOneof("value")
        want = "list" if kind.startswith("list(") else _FIELD.get(kind)
        if got is None or want is None or (got == "placeholder"):
            continue
        if got != want:
            raise ValueError(
                "%s: AttrValue had value with type '%s' when '%s' expected for attr '%s'"
                % (where, _KIND_NAME.get(got, got), kind, name),
            )
        if kind == "string" and allowed and value.s.decode("utf-8", "replace") not in allowed:
            raise ValueError(
                "%s: value for attr '%s' of \"%s\" is not in the list of allowed values: %s"
                % (
                    where,
                    name,
                    value.s.decode("utf-8", "replace"),
                    ", ".join('"%s"' % a for a in allowed),
                ),
            )
    args = None if node.op in _FLOWRT_INPUTS and not tf_inputs else _input_args(sig, node)
    given = sum(1 for s in node.input if not s.startswith("^"))
    if args is not None and sum(1 if n is None else n for _, n in args) != given:
        raise ValueError(
            "%s: expected inputs '%s' do not match %d inputs specified"
            % (where, ", ".join(a if n is None else "%s*%d" % (a, n) for a, n in args), given)
        )


# --------------------------------------------------------------------------------------
# Exported GraphDefs
# --------------------------------------------------------------------------------------

_REF = 100  # TF's DataType of a ref: the base type + 100


def _arg_types(args: list, node: Any) -> list[tuple[str, list[int]]]:
    """(arg name, the DataType of each of its tensors) of OpDef args ``args`` bound to
    ``node``'s attrs."""
    out = []
    for name, fixed, type_attr, number_attr, list_attr, is_ref in args:
        if list_attr:
            types = list(node.attr[list_attr].list.type)
        else:
            t = fixed or node.attr[type_attr].type
            n = node.attr[number_attr].i if number_attr else 1
            types = [t] * n
        out.append((name, [t + _REF if is_ref else t for t in types]))
    return out


def _flat(args: list[tuple[str, list[int]]]) -> list[int]:
    return [t for _name, types in args for t in types]


def _graph_source(outputs: dict[str, list[tuple[str, list[int]]]]):
    """The DataType of a GraphDef input string (``node``, ``node:k``), or None."""

    def source(inp: str) -> int | None:
        name, _, idx = inp.partition(":")
        types = _flat(outputs[name]) if name in outputs else []
        k = int(idx) if idx.isdigit() else 0
        return types[k] if k < len(types) else None

    return source


def _function_source(outputs: dict[str, list[tuple[str, list[int]]]], args: dict[str, int]):
    """The DataType of a FunctionDef input string (``arg``, ``node:output_arg:k``)."""

    def source(inp: str) -> int | None:
        if inp in args:
            return args[inp]
        parts = inp.split(":")
        if len(parts) != 3 or parts[0] not in outputs or not parts[2].isdigit():
            return None
        types = dict(outputs[parts[0]]).get(parts[1], [])
        k = int(parts[2])
        return types[k] if k < len(types) else None

    return source


def _check_calls(node: Any, sig: dict, library: dict[str, Any], where: str) -> None:
    """Every ``func`` attr names a function of the library; an If's branches take its
    ``Tin`` and give its ``Tout``."""
    for name, (kind, _allowed, _default) in sig["attrs"].items():
        if kind != "func" or name not in node.attr:
            continue
        fn = node.attr[name].func.name
        if fn not in library:
            raise ValueError(
                "%s: attr '%s' names function '%s', not in the library" % (where, name, fn)
            )
        if node.op in ("If", "StatelessIf"):
            fsig = library[fn].signature
            got = ([a.type for a in fsig.input_arg], [a.type for a in fsig.output_arg])
            want = (list(node.attr["Tin"].list.type), list(node.attr["Tout"].list.type))
            if got != want:
                raise ValueError(
                    "%s: function '%s' takes and gives %s, the node %s" % (where, fn, got, want)
                )


def check_graph_def_node(node: Any, source: Any, library: dict[str, Any]) -> list:
    """ValueError naming ``node`` unless TF's importer would take it: its op type is in
    TF's registry, every attr it carries is declared (or internal, ``_``-prefixed) and of
    the declared kind and allowed value, every declared attr without a default is set,
    its ``func`` attrs name functions of ``library``, its data inputs match the
    OpDef's arguments in count and DataType (``source``: the DataType of an input
    string, None if it names no earlier output), and its ``_output_shapes`` (if set)
    has one shape per output. Returns the node's outputs as
    (output arg, DataTypes)."""
    sig = _table().get(node.op)
    where = "NodeDef '%s' (%s)" % (node.name, node.op)
    if sig is None:
        raise ValueError("%s: Op type not registered '%s' in TensorFlow 2.21" % (where, node.op))
    declared = sig["attrs"]
    for name in node.attr:
        if not name.startswith("_") and name not in declared:
            raise ValueError("%s: NodeDef mentions attr '%s' not in its OpDef" % (where, name))
    for name, (_kind, _allowed, default) in declared.items():
        if name not in node.attr and default is None:
            raise ValueError("%s: NodeDef missing attr '%s'" % (where, name))
    check_node(node, tf_inputs=True)
    for name, (kind, allowed, _default) in declared.items():
        if kind == "type" and allowed and node.attr[name].type not in allowed:
            raise ValueError(
                "%s: value for attr '%s' of DataType %d is not in the list of allowed "
                "values %s" % (where, name, node.attr[name].type, allowed)
            )
    _check_calls(node, sig, library, where)
    want = _flat(_arg_types(sig["inputs"], node))
    data = [i for i in node.input if not i.startswith("^")]
    for k, (inp, t) in enumerate(zip(data, want)):
        got = source(inp)
        if got is None:
            raise ValueError("%s: input %d '%s' names no earlier output" % (where, k, inp))
        if got not in (t, t + _REF):  # a ref feeds its value to a non-ref input
            raise ValueError(
                "%s: input %d '%s' has DataType %d, TF's OpDef expects %d" % (where, k, inp, got, t)
            )
    outputs = _arg_types(sig["outputs"], node)
    if "_output_shapes" in node.attr:
        n, k = len(_flat(outputs)), len(node.attr["_output_shapes"].list.shape)
        if n != k:
            raise ValueError(
                "%s: Node '%s' has %d outputs but the _output_shapes attribute specifies "
                "shapes for %d outputs" % (where, node.name, n, k)
            )
    return outputs


def _check_nodes(nodes: Any, source: Any, outputs: dict, library: dict, where: str) -> None:
    names = {n.name for n in nodes}
    for node in nodes:
        for c in node.input:
            if c.startswith("^") and c[1:] not in names:
                raise ValueError(
                    "%sNodeDef '%s' (%s): control input '%s' names no node"
                    % (where, node.name, node.op, c)
                )
        try:
            outputs[node.name] = check_graph_def_node(node, source, library)
        except ValueError as e:
            raise ValueError(where + str(e)) from None


def check_graph_def(graph_def: Any) -> None:
    """Checks every node of ``graph_def`` (a GraphDef, nodes producers first) and of each
    function of its library with ``check_graph_def_node``; a function's returns must
    name outputs of its body of its signature's types."""
    library = {f.signature.name: f for f in graph_def.library.function}
    outputs: dict[str, list] = {}
    _check_nodes(graph_def.node, _graph_source(outputs), outputs, library, "")
    for name, f in library.items():
        args = {a.name: a.type for a in f.signature.input_arg}
        fouts: dict[str, list] = {}
        source = _function_source(fouts, args)
        _check_nodes(f.node_def, source, fouts, library, "function '%s': " % name)
        for a in f.signature.output_arg:
            if source(f.ret.get(a.name, "")) != a.type:
                raise ValueError(
                    "function '%s': output '%s' returns '%s', not a %d"
                    % (name, a.name, f.ret.get(a.name, ""), a.type)
                )
