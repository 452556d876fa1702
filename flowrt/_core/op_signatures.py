"""TF 2.21's op signatures (its OpDefs: input arguments, attr types and allowed values)
for the op types flowrt registers, from ``op_defs.json`` beside this module (written by
``tools/dump_op_defs.py`` from TF's op registry).

One table serves two checks: attr values at op construction (``check_attr_values``:
Conv2D's ``padding`` must be one of TF's) and whole nodes at GraphDef import
(``check_node``: every attr of the type its OpDef declares, and as many inputs as its
input arguments take), each raising TF's error class (ValueError both) with TF's
wording.
"""

from __future__ import annotations

import functools
import json
import os
from typing import Any

__all__ = ["check_attr_values", "check_node"]

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


def check_attr_values(op_type: str, attrs: dict[str, Any]) -> None:
    """ValueError if a string attr's value is not one TF's OpDef allows (as TF's
    ``Attr 'padding' of 'Conv2D' Op passed string 'FOO' not in: "SAME", "VALID"``)."""
    sig = _table().get(op_type)
    if sig is None:
        return
    for name, (kind, allowed) in sig["attrs"].items():
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
    for name, number_attr, type_list_attr in sig["inputs"]:
        sized_by = number_attr or type_list_attr
        if not sized_by:
            args.append((name, None))
        elif sized_by not in node.attr:
            return None
        else:
            value = node.attr[sized_by]
            args.append((name, value.i if number_attr else len(value.list.type)))
    return args


def check_node(node: Any) -> None:
    """ValueError (TF's ``import_graph_def`` class) naming ``node`` (a NodeDef) and the
    attr, if an attr's AttrValue holds another type than its OpDef declares or a string
    attr is not one of its allowed values; or naming the node if its inputs (control
    inputs aside) are not as many as its OpDef's input arguments take. The op types
    of ``_FLOWRT_INPUTS`` take other inputs in flowrt: their own op checks them."""
    sig = _table().get(node.op)
    if sig is None:
        return
    where = "NodeDef '%s' (%s)" % (node.name, node.op)
    for name, (kind, allowed) in sig["attrs"].items():
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
    args = None if node.op in _FLOWRT_INPUTS else _input_args(sig, node)
    given = sum(1 for s in node.input if not s.startswith("^"))
    if args is not None and sum(1 if n is None else n for _, n in args) != given:
        raise ValueError(
            "%s: expected inputs '%s' do not match %d inputs specified"
            % (where, ", ".join(a if n is None else "%s*%d" % (a, n) for a, n in args), given)
        )
