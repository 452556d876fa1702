"""Meta graphs: a graph, its collections and its saver in one ``MetaGraphDef`` file.

``export_meta_graph`` writes what ``import_meta_graph`` needs to rebuild a model in a
fresh graph: the ``GraphDef``, the ``SaverDef`` of the saver that restores it, and the
graph's collections as TF encodes them:

- variable collections (global, trainable, local, model, moving-average, metric, global
  step): one
  serialized ``VariableDef`` per variable, rebuilt as ``fr.Variable`` objects bound to
  the imported ops (one object per variable, shared by its collections);
- ``queue_runners``: ``QueueRunnerDef``s, rebuilt as ``QueueRunner``s;
- ``savers``: ``SaverDef``s, rebuilt as ``Saver``s;
- operations and tensors: their names (``node_list``); strings, ints and floats: their
  values (``bytes_list``, ``int64_list``, ``float_list``).

A collection holding anything else (Python objects such as cond contexts) is left out,
with a warning in the ``flowrt.train`` log, as TF does.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections.abc import Iterable
from typing import Any

from google.protobuf import message, text_format
from google.protobuf.message import DecodeError

from .._core.graph import GraphKeys, Operation, Tensor, get_default_graph
from ..graph_export import GRAPH_DEF_TF_VERSION, graph_def_proto
from ..graph_import import import_nodes
from ..partitioned_variables import SaveSliceInfo
from ..protos.graph_pb2 import GraphDef
from ..protos.meta_graph_pb2 import (
    CollectionDef,
    MetaGraphDef,
    SaverDef,
    SaveSliceInfoDef,
    VariableDef,
)
from ..protos.queue_runner_pb2 import QueueRunnerDef
from ..variables import Variable, VariableAggregation, VariableSynchronization
from .saver_graph import saver_graph_def

__all__ = [
    "export_meta_graph",
    "import_meta_graph",
    "export_scoped_meta_graph",
    "import_scoped_meta_graph",
    "read_meta_graph_file",
    "MetaGraphDef",
    "CollectionDef",
    "SaverDef",
    "VariableDef",
]

_log = logging.getLogger("flowrt.train")

_VARIABLE_COLLECTIONS = (
    GraphKeys.GLOBAL_VARIABLES,
    GraphKeys.TRAINABLE_VARIABLES,
    GraphKeys.LOCAL_VARIABLES,
    GraphKeys.MODEL_VARIABLES,
    GraphKeys.MOVING_AVERAGE_VARIABLES,
    GraphKeys.METRIC_VARIABLES,
    GraphKeys.GLOBAL_STEP,
)

_SYNC = list(VariableSynchronization)
_AGG = list(VariableAggregation)


# --------------------------------------------------------------------------------------
# Names under a scope
# --------------------------------------------------------------------------------------


def _strip(name: str, scope: str | None) -> str:
    if not scope:
        return name
    prefix = scope.rstrip("/") + "/"
    for lead in ("^", ""):
        if name.startswith(lead + prefix):
            return lead + name[len(lead) + len(prefix) :]
    return name


def _prepend(name: str, scope: str | None) -> str:
    if not scope:
        return name
    lead = "^" if name.startswith("^") else ""
    return "%s%s/%s" % (lead, scope.rstrip("/"), name[len(lead) :])


def _in_scope(name: str, scope: str | None) -> bool:
    return not scope or name.startswith(scope.rstrip("/") + "/")


# --------------------------------------------------------------------------------------
# Variables
# --------------------------------------------------------------------------------------


def _variable_def(v: Variable, scope: str | None) -> VariableDef | None:
    if not _in_scope(v.name, scope):
        return None
    d = VariableDef(
        variable_name=_strip(v.name, scope),
        initial_value_name=_strip(v.initial_value.name, scope),
        initializer_name=_strip(v.initializer.name, scope),
        snapshot_name=_strip(v.value().name, scope),
        is_resource=True,
        trainable=v.trainable,
    )
    # TF's enums count from 0 in the Python enums' order (AUTO, NONE, ON_WRITE, ...).
    d.synchronization = _SYNC.index(v.synchronization)  # type: ignore[assignment]
    d.aggregation = _AGG.index(v.aggregation)  # type: ignore[assignment]
    info = v._save_slice_info
    if info is not None:
        d.save_slice_info_def.CopyFrom(
            SaveSliceInfoDef(
                full_name=_strip(info.full_name, scope),
                full_shape=info.full_shape,
                var_offset=info.var_offset,
                var_shape=info.var_shape,
            )
        )
    return d


def _variable_from_def(d: VariableDef, g, scope: str | None) -> Variable:
    """A ``Variable`` bound to the ops ``d`` names in ``g``; nothing is added to ``g``.

    The object is filled in as ``Variable.__init__`` fills it, because that constructor
    builds new ops (``variable_def`` is not supported there)."""

    def element(name: str) -> Any:
        return g.as_graph_element(_prepend(name, scope))

    handle = element(d.variable_name)
    if not isinstance(handle, Tensor) or handle.op.type != "VarHandleOp":
        raise ValueError(
            "VariableDef names %r as the variable, which is not a VarHandleOp output; "
            "flowrt imports resource variables only" % d.variable_name
        )
    v = Variable.__new__(Variable)
    v._handle = handle
    v._initializer_op = element(d.initializer_name)
    v._snapshot = element(d.snapshot_name)
    # TF's files may leave the initial value out; the snapshot stands in for it then.
    v._initial_value = element(d.initial_value_name or d.snapshot_name)
    v._eager = None
    v._eager_lock = threading.Lock()
    v._trainable = d.trainable
    v._constraint = None
    v._caching_device = None
    v._synchronization = _SYNC[d.synchronization]
    v._aggregation = _AGG[d.aggregation]
    v._save_slice_info = None
    if d.HasField("save_slice_info_def"):
        s = d.save_slice_info_def
        v._save_slice_info = SaveSliceInfo(
            _prepend(s.full_name, scope), list(s.full_shape), list(s.var_offset), list(s.var_shape)
        )
    return v


# --------------------------------------------------------------------------------------
# Collections
# --------------------------------------------------------------------------------------


def _collection_def(key: str, items: list, scope: str | None) -> CollectionDef | None:
    """TF's encoding of one collection, or None (with a warning) if it has no form."""
    from .queue_runner import QueueRunner
    from .saver import Saver

    c = CollectionDef()
    if key in _VARIABLE_COLLECTIONS and all(isinstance(x, Variable) for x in items):
        defs = [_variable_def(x, scope) for x in items]
        c.bytes_list.value.extend(d.SerializeToString() for d in defs if d is not None)
    elif all(isinstance(x, QueueRunner) for x in items):
        qrs = [x.to_proto(export_scope=scope) for x in items]
        c.bytes_list.value.extend(q.SerializeToString() for q in qrs if q is not None)
    elif all(isinstance(x, Saver) for x in items):
        c.bytes_list.value.extend(x.as_saver_def().SerializeToString() for x in items)
    elif all(isinstance(x, (Operation, Tensor)) for x in items):
        c.node_list.value.extend(_strip(x.name, scope) for x in items if _in_scope(x.name, scope))
    elif all(isinstance(x, (str, bytes)) for x in items):
        c.bytes_list.value.extend(x.encode() if isinstance(x, str) else x for x in items)
    elif all(isinstance(x, int) and not isinstance(x, bool) for x in items):
        c.int64_list.value.extend(items)
    elif all(isinstance(x, float) for x in items):
        c.float_list.value.extend(items)
    else:
        kinds = sorted({type(x).__name__ for x in items})
        _log.warning(
            "export_meta_graph: collection %r is left out: it holds %s, which has no "
            "CollectionDef form",
            key,
            ", ".join(kinds),
        )
        return None
    c.SetInParent()
    which = c.WhichOneof("kind")
    if which is not None:
        getattr(c, which).SetInParent()
    return c


def _restore_collection(key: str, c: CollectionDef, g, scope: str | None, names, variables):
    """Adds the items of collection ``c`` to ``g``'s collection ``key``."""
    from .queue_runner import QueueRunner
    from .saver import Saver

    def parse(cls, raw):
        try:
            return cls.FromString(raw)
        except DecodeError as e:
            raise ValueError(
                "collection %r holds bytes that are not a %s: %s" % (key, cls.__name__, e)
            ) from None

    def name(n):
        try:
            return names(n)
        except (KeyError, ValueError, IndexError):
            raise ValueError(
                "collection %r names %r, which is not in the imported graph" % (key, n)
            ) from None

    kind = c.WhichOneof("kind")
    if kind == "node_list":
        items: list = [name(n) for n in c.node_list.value]
    elif kind == "bytes_list" and key in _VARIABLE_COLLECTIONS:
        items = []
        for raw in c.bytes_list.value:
            d = parse(VariableDef, raw)
            if d.variable_name not in variables:
                try:
                    variables[d.variable_name] = _variable_from_def(d, g, scope)
                except (KeyError, ValueError) as e:
                    raise ValueError(
                        "collection %r: variable %r names an op or tensor that is not in "
                        "the imported graph (%s)" % (key, d.variable_name, e)
                    ) from None
            items.append(variables[d.variable_name])
    elif kind == "bytes_list" and key == GraphKeys.QUEUE_RUNNERS:
        items = [
            QueueRunner(queue_runner_def=parse(QueueRunnerDef, raw), import_scope=scope)
            for raw in c.bytes_list.value
        ]
    elif kind == "bytes_list" and key == GraphKeys.SAVERS:
        items = [Saver(saver_def=parse(SaverDef, raw), name=scope) for raw in c.bytes_list.value]
    elif kind == "bytes_list":
        items = list(c.bytes_list.value)
    elif kind == "int64_list":
        items = list(c.int64_list.value)
    elif kind == "float_list":
        items = list(c.float_list.value)
    else:
        return
    for x in items:
        g.add_to_collection(key, x)


# --------------------------------------------------------------------------------------
# Export
# --------------------------------------------------------------------------------------


_UNBOUND = "$unbound_inputs_"


def _scoped_graph_def(
    gd: GraphDef, scope: str | None, clear_devices: bool, unbound: list | None = None
) -> GraphDef:
    """The nodes of ``gd`` under ``scope``, named relative to it. An input from outside
    the scope is a ValueError, or, with ``unbound`` (a list collecting them), is renamed
    ``$unbound_inputs_<name>`` for ``import_scoped_meta_graph``'s ``input_map``."""
    if not scope and not clear_devices:
        return gd
    out = GraphDef()
    out.versions.CopyFrom(gd.versions)
    for node in gd.node:
        if not _in_scope(node.name, scope):
            continue
        n = out.node.add()
        n.CopyFrom(node)
        n.name = _strip(node.name, scope)
        del n.input[:]
        for s in node.input:
            if not _in_scope(s.lstrip("^"), scope) and unbound is not None:
                lead = "^" if s.startswith("^") else ""
                name = _UNBOUND + s[len(lead) :]
                if name not in unbound:
                    unbound.append(name)
                n.input.append(lead + name)
                continue
            if not _in_scope(s.lstrip("^"), scope):
                raise ValueError(
                    "export_meta_graph: node '%s' in export_scope %r has input '%s' from "
                    "outside the scope" % (node.name, scope, s)
                )
            n.input.append(_strip(s, scope))
        if clear_devices:
            n.device = ""
    return out


def export_meta_graph(
    filename: str | None = None,
    meta_info_def: MetaGraphDef.MetaInfoDef | None = None,
    graph_def: GraphDef | None = None,
    saver_def: SaverDef | None = None,
    collection_list: Iterable[str] | None = None,
    as_text: bool = False,
    graph: Any = None,
    export_scope: str | None = None,
    clear_devices: bool = False,
    clear_extraneous_savers: bool = False,
    strip_default_attrs: bool = False,
    save_debug_info: bool = False,
    **kwargs: Any,
) -> MetaGraphDef:
    """Returns (and writes to ``filename``) a ``MetaGraphDef`` of a graph (TF1's API).

    Args:
      filename: where to write it; None writes nothing.
      meta_info_def: a ``MetaInfoDef`` to use instead of flowrt's.
      graph_def: a ``GraphDef`` to use instead of the graph's own.
      saver_def: the ``SaverDef`` to store (``Saver.as_saver_def()``).
      collection_list: the collection keys to store (default: all).
      as_text: write the text format instead of the binary one.
      graph: the graph (default: the default graph).
      export_scope: store only the nodes under this name scope, names relative to it
        (an input from outside it is a ValueError).
      clear_devices: drop the nodes' device placements.
      clear_extraneous_savers: keep only the ``savers`` entry matching ``saver_def``.
      strip_default_attrs: kept for TF1's signature (flowrt writes no default attrs).
      save_debug_info: kept for TF1's signature (no debug info is written).
      **kwargs: TF1's other arguments; ignored.

    Returns:
      The ``MetaGraphDef`` message.

    Raises:
      ValueError: a node under ``export_scope`` has an input from outside it.

    Note (flowrt): the graph is TF's (``flowrt/graph_export.py``): an op with no TF
    counterpart is a ValueError naming it. ``meta_info_def.tensorflow_version`` is the TF
    release whose format is written (TF parses it) and ``tensorflow_git_version`` names
    flowrt's version. With ``saver_def``, the saver's ``SaveV2``/``RestoreV2`` subgraph
    is written and the stored ``SaverDef`` names its filename and save tensors.
    """
    del strip_default_attrs, save_debug_info, kwargs
    # TF's export_meta_graph is its scoped form without unbound inputs, too.
    meta, _ = export_scoped_meta_graph(
        filename,
        graph_def,
        graph,
        export_scope,
        as_text,
        unbound_inputs_col_name=None,
        clear_devices=clear_devices,
        saver_def=saver_def,
        clear_extraneous_savers=clear_extraneous_savers,
        meta_info_def=meta_info_def,
        collection_list=collection_list,
    )
    return meta


def _write(meta: MetaGraphDef, filename: str, as_text: bool) -> None:
    d = os.path.dirname(filename)
    if d:
        os.makedirs(d, exist_ok=True)
    tmp = "%s.tmp%d" % (filename, os.getpid())
    if as_text:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text_format.MessageToString(meta))
    else:
        with open(tmp, "wb") as f:
            f.write(meta.SerializeToString(deterministic=True))
    os.replace(tmp, filename)


# --------------------------------------------------------------------------------------
# Import
# --------------------------------------------------------------------------------------


def read_meta_graph_file(filename: str) -> MetaGraphDef:
    """Reads a ``MetaGraphDef`` file, binary or text (what TF1's
    ``import_meta_graph`` reads).

    Raises:
      IOError: the file does not exist, or is neither format.
    """
    if not os.path.exists(filename):
        raise OSError("File %s does not exist." % filename)
    with open(filename, "rb") as f:
        data = f.read()
    meta = MetaGraphDef()
    try:
        meta.ParseFromString(data)
        return meta
    except message.DecodeError:
        pass
    try:
        text_format.Merge(data.decode("utf-8"), meta)
    except (text_format.ParseError, UnicodeDecodeError) as e:
        raise OSError(
            "Cannot parse file %s: it is neither a binary nor a text MetaGraphDef (%s)."
            % (filename, e)
        ) from None
    return meta


def import_meta_graph(
    meta_graph_or_file: MetaGraphDef | str,
    clear_devices: bool = False,
    import_scope: str | None = None,
    input_map: dict[str, Any] | None = None,
    **kwargs: Any,
) -> Any:
    """Rebuilds a saved graph and its collections in the default graph (TF1's API).

    Args:
      meta_graph_or_file: a ``MetaGraphDef`` or the path of a file holding one (binary
        or text, e.g. ``model.ckpt-20.meta``).
      clear_devices: drop the nodes' device placements.
      import_scope: a name scope to import under (names in the file are relative).
      input_map: as ``fr.import_graph_def``'s: tensors replacing inputs of the graph.
      **kwargs: TF1's other arguments; ignored.

    Returns:
      A ``Saver`` restoring the imported variables: built from the file's ``SaverDef``
      if it has one, else over all variables; None if there are no variables.

    Note (flowrt): TF's graph forms are imported as flowrt's (ref variables as resource
    variables, TF1 control flow as ``while_loop``/``cond``, ...; see
    ``docs/interop.md``). A saver rebuilt from a ``SaverDef`` stores each variable under
    the checkpoint key the file's ``RestoreV2`` names (TF's files: a ``var_list``
    dict's keys), else under the variable's name relative to ``import_scope``.
    """
    from .saver import Saver

    del kwargs
    meta = _meta_of(meta_graph_or_file)
    g, scope, variables = _import(meta, clear_devices, import_scope, input_map, None)
    if meta.HasField("saver_def"):
        return Saver(saver_def=meta.saver_def, name=scope)
    if variables or g.get_collection(GraphKeys.SAVEABLE_OBJECTS):
        return Saver()
    _log.info("Saver not created because there are no variables in the graph to restore")
    return None


def _meta_of(meta_graph_or_file: Any) -> MetaGraphDef:
    meta = (
        read_meta_graph_file(meta_graph_or_file)
        if isinstance(meta_graph_or_file, str)
        else meta_graph_or_file
    )
    if not isinstance(meta, MetaGraphDef):
        if type(meta).__name__ != "MetaGraphDef":
            raise TypeError("meta_graph_or_file must be a MetaGraphDef or a file name.")
        meta = MetaGraphDef.FromString(meta.SerializeToString())
    return meta


def _import(meta, clear_devices, import_scope, input_map, unbound_inputs_col_name):
    """Imports ``meta``'s nodes and collections into the default graph: ``(graph, scope,
    {variable_name: Variable})``."""
    if unbound_inputs_col_name and unbound_inputs_col_name in meta.collection_def:
        c = meta.collection_def[unbound_inputs_col_name]
        missing = [
            n.decode("utf-8")
            for n in c.bytes_list.value
            if n.decode("utf-8") not in (input_map or {})
        ]
        if missing:
            raise ValueError(
                "Graph contains unbound inputs: %s. Must provide these inputs through "
                "input_map." % ", ".join(missing)
            )
    g = get_default_graph()
    gd = GraphDef()
    gd.CopyFrom(meta.graph_def)
    if unbound_inputs_col_name and unbound_inputs_col_name in meta.collection_def:
        input_map = _bind_unbound_inputs(gd, dict(input_map or {}))
    if clear_devices:
        for node in gd.node:
            node.device = ""
    scope = g.unique_name(import_scope, mark_as_used=False) if import_scope else None
    created = import_nodes(gd, input_map, scope + "/" if scope else "")

    def names(n: str) -> Any:
        op_name, sep, index = n.partition(":")
        op = created.get(op_name)
        if op is None:
            return g.as_graph_element(_prepend(n, scope))
        return op.outputs[int(index)] if sep else op

    variables: dict[str, Variable] = {}
    # Variables first: a saver of the ``savers`` collection binds to them.
    for key in sorted(meta.collection_def, key=lambda k: (k not in _VARIABLE_COLLECTIONS, k)):
        if key != unbound_inputs_col_name:
            _restore_collection(key, meta.collection_def[key], g, scope, names, variables)
    return g, scope, variables


def _bind_unbound_inputs(gd: GraphDef, input_map: dict) -> dict:
    """Points each ``$unbound_inputs_<name>`` input of ``gd`` at a placeholder node
    ``unbound_inputs/<name>`` added to it, and maps that node instead (the importer
    maps only the inputs of nodes of the GraphDef)."""
    out = {}
    for key, t in input_map.items():
        if not key.startswith(_UNBOUND):
            out[key] = t
            continue
        node = gd.node.add(
            name="unbound_inputs/" + key[len(_UNBOUND) :].replace(":", "_"), op="Placeholder"
        )
        enum: Any = t.dtype.as_datatype_enum
        node.attr["dtype"].type = enum
        node.attr["shape"].shape.unknown_rank = True
        out[node.name + ":0"] = t
        for n in gd.node:
            for i, s in enumerate(n.input):
                lead = "^" if s.startswith("^") else ""
                if s[len(lead) :] == key:
                    n.input[i] = lead + node.name
    return out


def export_scoped_meta_graph(
    filename: str | None = None,
    graph_def: GraphDef | None = None,
    graph: Any = None,
    export_scope: str | None = None,
    as_text: bool = False,
    unbound_inputs_col_name: str | None = "unbound_inputs",
    clear_devices: bool = False,
    saver_def: SaverDef | None = None,
    clear_extraneous_savers: bool = False,
    strip_default_attrs: bool = False,
    save_debug_info: bool = False,
    **kwargs: Any,
) -> tuple[MetaGraphDef, dict[str, Variable]]:
    """The part of a graph under ``export_scope`` as a ``MetaGraphDef`` (TF1's
    ``meta_graph.export_scoped_meta_graph``), to import elsewhere, e.g. under another
    scope, with ``import_scoped_meta_graph``.

    Args:
      filename, graph_def, graph, as_text, clear_devices, saver_def,
        clear_extraneous_savers: as for ``export_meta_graph``.
      export_scope: the name scope to export; names are stored relative to it.
      unbound_inputs_col_name: an input from outside the scope is renamed
        ``$unbound_inputs_<name>`` and listed in this collection (the importer must map
        it); None makes it a ValueError, as ``export_meta_graph`` does.
      strip_default_attrs, save_debug_info: kept for TF1's signature.
      **kwargs: ``meta_info_def`` and ``collection_list`` as for ``export_meta_graph``
        (TF passes them this way); TF1's other arguments are ignored.

    Returns:
      ``(meta_graph_def, var_list)``: ``var_list`` maps each exported global variable's
      name, relative to the scope (``w:0``), to the variable.
    """
    meta_info_def = kwargs.pop("meta_info_def", None)
    collection_list = kwargs.pop("collection_list", None)
    del strip_default_attrs, save_debug_info, kwargs
    g = graph if graph is not None else get_default_graph()
    meta = MetaGraphDef()
    if meta_info_def is not None:
        meta.meta_info_def.CopyFrom(meta_info_def)
    else:
        import flowrt

        meta.meta_info_def.tensorflow_version = GRAPH_DEF_TF_VERSION
        meta.meta_info_def.tensorflow_git_version = "flowrt " + flowrt.__version__
    given_saver_def = saver_def
    if graph_def is not None:
        gd = graph_def
    elif saver_def is not None:
        # TF's Saver rebuilt from this file saves and restores through SaveV2/RestoreV2.
        gd, saver_def = saver_graph_def(g, saver_def)
    else:
        gd = graph_def_proto(g)
    unbound: list | None = [] if unbound_inputs_col_name else None
    meta.graph_def.CopyFrom(_scoped_graph_def(gd, export_scope, clear_devices, unbound))
    if unbound:
        c = meta.collection_def[unbound_inputs_col_name]
        c.bytes_list.value.extend(n.encode("utf-8") for n in unbound)
    if saver_def is not None:
        meta.saver_def.CopyFrom(saver_def)
    keys = g.get_all_collection_keys() if collection_list is None else list(collection_list)
    for key in sorted(keys, key=str):
        items = g.get_collection(key)
        if not isinstance(key, str) or not items or key == unbound_inputs_col_name:
            continue
        if key == GraphKeys.SAVERS and clear_extraneous_savers and saver_def is not None:
            items = [s for s in items if s.as_saver_def() == given_saver_def]
            if not items:
                continue
        c = _collection_def(key, items, export_scope)
        if (
            c is not None
            and key == GraphKeys.SAVERS
            and saver_def is not None
            and given_saver_def is not None
            and saver_def is not given_saver_def
        ):
            mine, written = given_saver_def.SerializeToString(), saver_def.SerializeToString()
            c.bytes_list.value[:] = [written if raw == mine else raw for raw in c.bytes_list.value]
        if c is not None:
            meta.collection_def[key].CopyFrom(c)
    if filename is not None:
        _write(meta, filename, as_text)
    var_list = {
        _strip(v.name, export_scope): v
        for v in g.get_collection(GraphKeys.GLOBAL_VARIABLES)
        if _in_scope(v.name, export_scope)
    }
    return meta, var_list


def import_scoped_meta_graph(
    meta_graph_or_file: MetaGraphDef | str,
    clear_devices: bool = False,
    graph: Any = None,
    import_scope: str | None = None,
    input_map: dict[str, Any] | None = None,
    unbound_inputs_col_name: str = "unbound_inputs",
    **kwargs: Any,
) -> dict[str, Variable]:
    """Imports a ``MetaGraphDef`` (of ``export_scoped_meta_graph``) under
    ``import_scope`` (TF1's ``meta_graph.import_scoped_meta_graph``).

    Args:
      meta_graph_or_file: a ``MetaGraphDef`` or the path of a file holding one.
      clear_devices: drop the nodes' device placements.
      graph: the graph to import into (default: the default graph).
      import_scope: the name scope to import under.
      input_map: maps names of the meta graph's inputs (``$unbound_inputs_x``) to
        tensors of the graph.
      unbound_inputs_col_name: the collection listing the inputs ``input_map`` must map.
      **kwargs: TF1's other arguments; ignored.

    Returns:
      The imported variables by name relative to ``import_scope`` (``w:0``).

    Raises:
      ValueError: an unbound input of the meta graph is not in ``input_map``.

    Note (flowrt): each mapped unbound input leaves an unused placeholder
    ``<import_scope>/unbound_inputs/<name>`` in the graph (its consumers read the mapped
    tensor).
    """
    del kwargs
    meta = _meta_of(meta_graph_or_file)
    with graph.as_default() if graph is not None else contextlib.nullcontext():
        _, scope, variables = _import(
            meta, clear_devices, import_scope, input_map, unbound_inputs_col_name
        )
    return {_strip(v.name, scope): v for v in variables.values()}
