"""The Saver's subgraph as TF's ``Saver`` builds it, for the ``SaverDef`` a meta graph
stores: the filename tensor, ``SaveV2`` of every variable's value, ``RestoreV2`` of every
checkpoint entry, each restore placeholder of flowrt's ``Saver`` an ``Identity`` of its
``RestoreV2`` output. TF's ``Saver`` rebuilt from the meta graph (``import_meta_graph``)
saves and restores through it; so does flowrt's (``save_restore_ops.py``).
"""

from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from .._core.graph import Graph, Operation
from .._core.shape import TensorShape
from ..graph_export import GraphDefWriter, graph_def_proto
from ..protos.graph_pb2 import GraphDef
from ..protos.meta_graph_pb2 import SaverDef

__all__ = ["saver_graph_def"]

# Graph scratch key: restore placeholder op name -> (checkpoint key, slice spec), which
# the Saver records for ``saver_graph_def``.
RESTORE_KEYS = "saver_restore_keys"


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


def _write_saver(w: GraphDefWriter, scope: str, entries: list[tuple]) -> tuple[str, str]:
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
    w.node(
        fname,
        "PlaceholderWithDefault",
        [fin],
        {"dtype": string, "shape": scalar},
        out_shapes=[scalar],
    )
    prefix = w.unique(scope + "/Const")
    w.node(
        prefix,
        "PlaceholderWithDefault",
        [fname],
        {"dtype": string, "shape": scalar},
        out_shapes=[scalar],
    )
    reads = []
    for (_key, _spec, ph, handle), dtype in zip(entries, dtypes, strict=True):
        r = w.unique(scope + "/ReadVariableOp")
        w.node(
            r, "ReadVariableOp", [w.ref(handle)], {"dtype": dtype}, out_shapes=[ph.outputs[0].shape]
        )
        reads.append(r)
    save_names = const(scope + "/SaveV2/tensor_names", names)
    save_specs = const(scope + "/SaveV2/shape_and_slices", specs)
    save = w.unique(scope + "/SaveV2")
    w.node(save, "SaveV2", [prefix, save_names, save_specs, *reads], {"dtypes": dtypes})
    dep = w.unique(scope + "/control_dependency")
    w.node(
        dep,
        "Identity",
        [prefix],
        {"T": string, "_class": ["loc:@" + prefix]},
        control=[save],
        out_shapes=[scalar],
    )
    rnames = const(scope + "/RestoreV2/tensor_names", names)
    rspecs = const(scope + "/RestoreV2/shape_and_slices", specs)
    restore = w.unique(scope + "/RestoreV2")
    w.node(
        restore,
        "RestoreV2",
        [prefix, rnames, rspecs],
        {"dtypes": dtypes},
        out_shapes=[TensorShape(None)] * len(entries),
    )
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
    w = GraphDefWriter(graph, display=False)
    tensors: tuple[str, str] | None = None
    for op in w.top_level_ops():
        if op not in placeholders:
            w.op(op)
        elif tensors is None:
            tensors = _write_saver(w, scope, entries)
    gd = w.finish()
    out = SaverDef()
    out.CopyFrom(saver_def)
    if tensors is not None:
        out.filename_tensor_name, out.save_tensor_name = tensors
    return gd, out
