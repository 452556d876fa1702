"""``fr.saved_model.builder``: ``SavedModelBuilder``, which writes a SavedModel directory
in TF's layout: ``saved_model.pb`` (a ``SavedModel`` proto holding one ``MetaGraphDef``
per tag set, each with its signatures), ``variables/variables.{index,data-...}`` (one
checkpoint of the variables, shared by every meta graph) and ``assets/``."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable, Mapping
from typing import Any

from google.protobuf import text_format

from .._core.graph import Graph, Operation, Tensor, get_default_graph
from ..logging import get_logger
from ..protos.meta_graph_pb2 import AssetFileDef, MetaGraphDef, SignatureDef
from ..protos.saved_model_pb2 import SavedModel
from ..train.saver import Saver
from . import constants
from .utils import build_tensor_info

__all__ = ["SavedModelBuilder"]

_log = get_logger()

# Signature keys TF reserves for the init and train ops of TF2 SavedModels.
_RESERVED_KEYS = ("__saved_model_init_op", "__saved_model_train_op")


def _check_signatures(signature_def_map: Mapping[str, SignatureDef] | None) -> None:
    for key, sig in (signature_def_map or {}).items():
        if key in _RESERVED_KEYS:
            raise KeyError(
                'SignatureDef map key "%s" is reserved for initialization. Please use a '
                "different key." % key
            )
        if not isinstance(sig, SignatureDef):
            raise TypeError(
                "signature_def_map[%r] must be a SignatureDef, got %s" % (key, type(sig).__name__)
            )
        for info in list(sig.inputs.values()) + list(sig.outputs.values()):
            if info.WhichOneof("encoding") is None:
                raise AssertionError(
                    "Invalid `tensor_info`: %s. All TensorInfo protos used in the "
                    "SignatureDefs must have one of the 'encoding' fields (e.g., name or "
                    "coo_sparse) set." % info
                )
            if info.dtype == 0:
                raise AssertionError(
                    "Invalid `tensor_info`: %s. All TensorInfo protos used in the "
                    "SignatureDefs must have the dtype field set." % info
                )


def _add_main_op(g: Graph, main_op: Operation | None) -> None:
    if main_op is None:
        return
    if not isinstance(main_op, Operation):
        raise TypeError(
            "Expected %s to be an Operation but got type %s instead." % (main_op, type(main_op))
        )
    for key in (constants.MAIN_OP_KEY, constants.LEGACY_INIT_OP_KEY):
        if g.get_collection(key):
            raise ValueError(
                "Graph already contains one or more main ops under the collection %s." % key
            )
    g.add_to_collection(constants.MAIN_OP_KEY, main_op)


class SavedModelBuilder:
    """Builds a SavedModel in ``export_dir`` (TF1 ``tf.saved_model.Builder``).

    Call ``add_meta_graph_and_variables`` once (it writes the variables), then
    ``add_meta_graph`` for further tag sets of the same graph, then ``save``.

    Args:
      export_dir: the directory to write; created if missing.

    Raises:
      AssertionError: ``export_dir`` exists and is not empty.

    Note (flowrt): the variables are written by ``fr.train.Saver`` in TF's checkpoint
    format (``tf.train.load_checkpoint`` reads ``variables/variables``), but the meta
    graph's ``SaverDef`` names flowrt's restore op, so TensorFlow's SavedModel loader
    cannot restore a flowrt SavedModel, nor flowrt's loader TensorFlow's.
    """

    def __init__(self, export_dir: str) -> None:
        export_dir = os.fspath(export_dir)
        if os.path.exists(export_dir):
            if os.listdir(export_dir):
                raise AssertionError(
                    "Export directory %s already exists, and isn't empty. Please choose a "
                    "different export directory, or delete all the contents of the "
                    "specified directory." % export_dir
                )
        else:
            os.makedirs(export_dir)
        self._export_dir = export_dir
        self._saved_model = SavedModel(
            saved_model_schema_version=constants.SAVED_MODEL_SCHEMA_VERSION
        )
        self._has_saved_variables = False

    def _save_assets(self, g: Graph, assets_collection: Iterable[Tensor] | None) -> list:
        """Copies each asset file into ``assets/``; its ``AssetFileDef`` names the string
        constant holding its path, which the loader feeds with the copy's path."""
        defs = []
        for t in assets_collection or ():
            if not isinstance(t, Tensor) or t.op.type != "Const":
                raise TypeError(
                    "assets_collection must hold string constants naming files, got %r" % (t,)
                )
            source = t.op.get_attr("value").item()
            source = source.decode("utf-8") if isinstance(source, bytes) else str(source)
            filename = os.path.basename(source)
            target_dir = os.path.join(self._export_dir, constants.ASSETS_DIRECTORY)
            os.makedirs(target_dir, exist_ok=True)
            target = os.path.join(target_dir, filename)
            if not os.path.exists(target):
                shutil.copyfile(source, target)
            defs.append(AssetFileDef(tensor_info=build_tensor_info(t), filename=filename))
            if t not in g.get_collection(constants.ASSETS_KEY):
                g.add_to_collection(constants.ASSETS_KEY, t)
        return defs

    def _add(
        self,
        g: Graph,
        saver: Saver | None,
        tags: Iterable[str],
        signature_def_map: Mapping[str, SignatureDef] | None,
        assets_collection: Iterable[Tensor] | None,
        main_op: Operation | None,
        clear_devices: bool,
        sess: Any = None,
    ) -> None:
        _check_signatures(signature_def_map)
        with g.as_default():
            assets = self._save_assets(g, assets_collection)
            _add_main_op(g, main_op)
            if saver is None:
                saver = Saver(allow_empty=True, write_version=2)
            if sess is not None:
                var_dir = os.path.join(self._export_dir, constants.VARIABLES_DIRECTORY)
                os.makedirs(var_dir, exist_ok=True)
                saver.save(
                    sess,
                    os.path.join(var_dir, constants.VARIABLES_FILENAME),
                    write_meta_graph=False,
                    write_state=False,
                )
            meta: MetaGraphDef = saver.export_meta_graph(clear_devices=clear_devices)
        meta.meta_info_def.tags.extend(tags)
        for key, sig in (signature_def_map or {}).items():
            meta.signature_def[key].CopyFrom(sig)
        meta.asset_file_def.extend(assets)
        self._saved_model.meta_graphs.add().CopyFrom(meta)

    def add_meta_graph_and_variables(
        self,
        sess: Any,
        tags: Iterable[str],
        signature_def_map: Mapping[str, SignatureDef] | None = None,
        assets_collection: Iterable[Tensor] | None = None,
        legacy_init_op: Operation | None = None,
        clear_devices: bool = False,
        main_op: Operation | None = None,
        strip_default_attrs: bool = False,
        saver: Saver | None = None,
    ) -> None:
        """Saves ``sess``'s variables and adds its graph as the meta graph of ``tags``.

        Args:
          sess: the session holding the variables' values.
          tags: the tag set of this meta graph (e.g. ``[tag_constants.SERVING]``).
          signature_def_map: signature keys to ``SignatureDef``s.
          assets_collection: string constants naming asset files; each file is copied
            into ``assets/`` and the loader feeds the constant with the copy's path.
          legacy_init_op: the op to run after loading, if ``main_op`` is None.
          clear_devices: drop the nodes' device placements.
          main_op: the op the loader runs after restoring the variables.
          strip_default_attrs: kept for TF1's signature (flowrt writes no default attrs).
          saver: the ``Saver`` to write the variables with (default: a new one over all
            variables).

        Raises:
          AssertionError: the variables were already saved by an earlier call.
          KeyError: a signature key is one TF reserves.
          ValueError: the graph already has a main op.
        """
        del strip_default_attrs
        if self._has_saved_variables:
            raise AssertionError(
                "Graph state including variables and assets has already been saved. "
                "Please invoke `add_meta_graph()` instead."
            )
        main = main_op if main_op is not None else legacy_init_op
        self._add(
            sess.graph, saver, tags, signature_def_map, assets_collection, main, clear_devices, sess
        )
        self._has_saved_variables = True

    def add_meta_graph(
        self,
        tags: Iterable[str],
        signature_def_map: Mapping[str, SignatureDef] | None = None,
        assets_collection: Iterable[Tensor] | None = None,
        legacy_init_op: Operation | None = None,
        clear_devices: bool = False,
        main_op: Operation | None = None,
        strip_default_attrs: bool = False,
        saver: Saver | None = None,
    ) -> None:
        """Adds the default graph as the meta graph of ``tags``, restoring the variables
        saved by ``add_meta_graph_and_variables`` (same arguments, without ``sess``).

        Raises:
          AssertionError: ``add_meta_graph_and_variables`` was not called first.
        """
        del strip_default_attrs
        if not self._has_saved_variables:
            raise AssertionError(
                "Graph state including variables and assets has not been saved yet. "
                "Please invoke `add_meta_graph_and_variables()` first."
            )
        main = main_op if main_op is not None else legacy_init_op
        self._add(
            get_default_graph(),
            saver,
            tags,
            signature_def_map,
            assets_collection,
            main,
            clear_devices,
        )

    def save(self, as_text: bool = False) -> bytes:
        """Writes ``saved_model.pb`` (``saved_model.pbtxt`` if ``as_text``); returns its
        path."""
        os.makedirs(self._export_dir, exist_ok=True)
        if as_text:
            path = os.path.join(self._export_dir, constants.SAVED_MODEL_FILENAME_PBTXT)
            data = text_format.MessageToString(self._saved_model).encode("utf-8")
        else:
            path = os.path.join(self._export_dir, constants.SAVED_MODEL_FILENAME_PB)
            data = self._saved_model.SerializeToString(deterministic=True)
        tmp = "%s.tmp%d" % (path, os.getpid())
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
        _log.info("SavedModel written to: %s", path)
        return path.encode("utf-8")
