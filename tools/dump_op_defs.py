"""Writes ``flowrt/_core/op_defs.json``: TF 2.21's OpDefs of the op types flowrt
registers and of the TF op types its GraphDef writer emits (``EXPORT_ONLY``), read from
TF's op registry. Each entry holds the input and output arguments (name, fixed type,
type attr, number attr, type-list attr, is_ref), the attrs (type, allowed values,
default as an ``AttrValue`` in protobuf JSON) and whether the op is stateful. Needs
``tensorflow-cpu==2.21.0``; run from the repository root:

    python tools/dump_op_defs.py
"""

import json
import os

from google.protobuf import json_format
from tensorflow.python.framework import op_def_registry

import flowrt  # noqa: F401  (registers every op)
from flowrt._core.registry import registered_ops

OUT = os.path.join(os.path.dirname(__file__), "..", "flowrt", "_core", "op_defs.json")

# TF op types flowrt does not register that the GraphDef writer emits: the Saver's
# save/restore subgraph, the TF compositions of flowrt-only ops and TF 2's TensorList
# ops, flowrt's TensorArrays as TF writes them.
EXPORT_ONLY = [
    "SaveV2",
    "RestoreV2",
    "MergeV2Checkpoints",
    "ShardedFilename",
    "TensorListReserve",
    "TensorListFromTensor",
    "TensorListSetItem",
    "TensorListGetItem",
    "TensorListStack",
    "TensorListGather",
    "TensorListScatterIntoExistingList",
    "TensorListSplit",
    "TensorListConcatV2",
    "TensorListLength",
]


def _allowed(attr):
    if not attr.HasField("allowed_values"):
        return None
    lst = attr.allowed_values.list
    if attr.type in ("string", "list(string)"):
        return [s.decode("utf-8") for s in lst.s]
    if attr.type in ("type", "list(type)"):
        return sorted(lst.type)
    return None


def _arg(a):
    return [a.name, a.type, a.type_attr, a.number_attr, a.type_list_attr, a.is_ref]


def _default(attr):
    if not attr.HasField("default_value"):
        return None
    return json_format.MessageToDict(attr.default_value)


def main():
    table = {}
    for op_type in sorted(set(registered_ops()) | set(EXPORT_ONLY)):
        op = op_def_registry.get(op_type)
        if op is None:
            continue
        table[op_type] = {
            "inputs": [_arg(a) for a in op.input_arg],
            "outputs": [_arg(a) for a in op.output_arg],
            "attrs": {a.name: [a.type, _allowed(a), _default(a)] for a in op.attr},
            "stateful": op.is_stateful,
        }
    # One op per line, so a TF upgrade's diff shows the ops that changed.
    lines = [
        "%s: %s" % (json.dumps(k), json.dumps(table[k], sort_keys=True)) for k in sorted(table)
    ]
    with open(OUT, "w") as f:
        f.write("{\n" + ",\n".join(lines) + "\n}\n")
    print("%d op types written to %s" % (len(table), os.path.normpath(OUT)))


if __name__ == "__main__":
    main()
