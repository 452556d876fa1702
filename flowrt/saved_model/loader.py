"""``fr.saved_model.loader``: loads a SavedModel's meta graph into a session: imports
the graph, restores the variables, feeds the asset paths and runs the main op."""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from google.protobuf import message, text_format

from ..logging import get_logger
from ..protos.meta_graph_pb2 import MetaGraphDef
from ..protos.saved_model_pb2 import SavedModel
from ..train.meta_graph import _prepend, import_meta_graph
from . import constants

__all__ = ["load", "maybe_saved_model_directory", "contains_saved_model"]

_log = get_logger()


def maybe_saved_model_directory(export_dir: str) -> bool:
    """Whether ``export_dir`` holds a ``saved_model.pb`` or ``saved_model.pbtxt``."""
    export_dir = os.fspath(export_dir)
    return any(
        os.path.isfile(os.path.join(export_dir, f))
        for f in (constants.SAVED_MODEL_FILENAME_PBTXT, constants.SAVED_MODEL_FILENAME_PB)
    )


contains_saved_model = maybe_saved_model_directory


def _read_saved_model(export_dir: str) -> SavedModel:
    pb = os.path.join(export_dir, constants.SAVED_MODEL_FILENAME_PB)
    pbtxt = os.path.join(export_dir, constants.SAVED_MODEL_FILENAME_PBTXT)
    saved = SavedModel()
    if os.path.isfile(pb):
        with open(pb, "rb") as f:
            data = f.read()
        try:
            saved.ParseFromString(data)
        except message.DecodeError as e:
            raise OSError("Cannot parse file %s: %s." % (pb, e)) from None
    elif os.path.isfile(pbtxt):
        with open(pbtxt, encoding="utf-8") as f:
            text = f.read()
        try:
            text_format.Merge(text, saved)
        except text_format.ParseError as e:
            raise OSError("Cannot parse file %s: %s." % (pbtxt, e)) from None
    else:
        raise OSError(
            "SavedModel file does not exist at: %s%s{%s|%s}"
            % (
                export_dir,
                os.path.sep,
                constants.SAVED_MODEL_FILENAME_PBTXT,
                constants.SAVED_MODEL_FILENAME_PB,
            )
        )
    return saved


def _meta_graph_for(saved: SavedModel, tags: Iterable[str]) -> MetaGraphDef:
    tags = list(tags)
    available = []
    for meta in saved.meta_graphs:
        available.append(set(meta.meta_info_def.tags))
        if set(meta.meta_info_def.tags) == set(tags):
            return meta
    raise RuntimeError(
        "MetaGraphDef associated with tags %s could not be found in SavedModel, with "
        "available tags '%s'. To inspect available tag-sets in the SavedModel, please use "
        "the SavedModel CLI: `saved_model_cli`." % (str(tags).strip("[]"), available)
    )


def _main_op_name(meta: MetaGraphDef) -> str | None:
    for key in (constants.MAIN_OP_KEY, constants.LEGACY_INIT_OP_KEY):
        if key in meta.collection_def:
            ops = meta.collection_def[key].node_list.value
            if len(ops) != 1:
                raise RuntimeError("Expected exactly one SavedModel main op. Found: %s" % ops)
            return ops[0]
    return None


def load(
    sess: Any,
    tags: Iterable[str],
    export_dir: str,
    import_scope: str | None = None,
    **saver_kwargs: Any,
) -> MetaGraphDef:
    """Loads the meta graph of ``tags`` from a SavedModel into ``sess`` (TF1's
    ``tf.saved_model.load``): imports its graph into ``sess.graph``, restores the
    variables from ``variables/``, then runs the main op (or legacy init op) with each
    asset constant fed the path of its file under ``assets/``.

    Args:
      sess: the session to restore into.
      tags: the tag set of the meta graph to load (e.g. ``[tag_constants.SERVING]``).
      export_dir: the SavedModel directory.
      import_scope: a name scope to import the graph under.
      **saver_kwargs: passed to ``fr.train.import_meta_graph``.

    Returns:
      The loaded ``MetaGraphDef``; its ``signature_def`` name the graph's tensors
      (``fr.saved_model.get_tensor_from_tensor_info`` finds them).

    Raises:
      OSError: ``export_dir`` holds no readable ``saved_model.pb``/``.pbtxt``.
      RuntimeError: no meta graph has exactly the tag set ``tags``.
    """
    export_dir = os.fspath(export_dir)
    meta = _meta_graph_for(_read_saved_model(export_dir), tags)
    g = sess.graph
    with g.as_default():
        # The scope the graph lands in: import_meta_graph makes it unique the same way.
        scope = g.unique_name(import_scope, mark_as_used=False) if import_scope else None
        saver = import_meta_graph(meta, import_scope=import_scope, **saver_kwargs)
        prefix = os.path.join(
            export_dir, constants.VARIABLES_DIRECTORY, constants.VARIABLES_FILENAME
        )
        if saver is None:
            _log.info("The specified SavedModel has no variables; no checkpoints were restored.")
        else:
            saver.restore(sess, prefix)
        main = _main_op_name(meta)
        if main is not None:
            assets_dir = os.path.join(export_dir, constants.ASSETS_DIRECTORY)
            feeds = {
                g.get_tensor_by_name(_prepend(a.tensor_info.name, scope)): os.path.join(
                    assets_dir, a.filename
                ).encode("utf-8")
                for a in meta.asset_file_def
            }
            sess.run([g.as_graph_element(_prepend(main, scope))], feeds)
    return meta
