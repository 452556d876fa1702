"""Writes ``flowrt/_core/op_defs.json``: TF 2.21's OpDef signatures of the op types
flowrt registers (input arguments, attr types and allowed values), read from TF's op
registry. Needs ``tensorflow-cpu==2.21.0``; run from the repository root:

    python tools/dump_op_defs.py
"""

import json
import os

from tensorflow.python.framework import op_def_registry

import flowrt  # noqa: F401  (registers every op)
from flowrt._core.registry import registered_ops

OUT = os.path.join(os.path.dirname(__file__), "..", "flowrt", "_core", "op_defs.json")


def _allowed(attr):
    if not attr.HasField("allowed_values"):
        return None
    lst = attr.allowed_values.list
    if attr.type in ("string", "list(string)"):
        return [s.decode("utf-8") for s in lst.s]
    if attr.type in ("type", "list(type)"):
        return sorted(lst.type)
    return None


def main():
    table = {}
    for op_type in sorted(registered_ops()):
        op = op_def_registry.get(op_type)
        if op is None:
            continue
        table[op_type] = {
            "inputs": [[a.name, a.number_attr, a.type_list_attr] for a in op.input_arg],
            "attrs": {a.name: [a.type, _allowed(a)] for a in op.attr},
        }
    with open(OUT, "w") as f:
        json.dump(table, f, indent=0, sort_keys=True)
        f.write("\n")
    print("%d op types written to %s" % (len(table), os.path.normpath(OUT)))


if __name__ == "__main__":
    main()
