"""``fr.saved_model``: TF1's SavedModel API: write a graph, its variables, signatures and
assets with ``Builder`` (or ``simple_save``), and ``load`` it into a session.

The directory layout and ``saved_model.pb`` are TF's; see ``builder`` for what of the
variables' checkpoint is flowrt's own.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._core.graph import GraphKeys, Operation
from . import (  # noqa: F401
    builder,
    constants,
    loader,
    main_op,
    signature_constants,
    signature_def_utils,
    tag_constants,
    utils,
)
from .builder import SavedModelBuilder as Builder  # noqa: F401
from .constants import *  # noqa: F403
from .loader import contains_saved_model, load, maybe_saved_model_directory  # noqa: F401
from .main_op import main_op_with_restore  # noqa: F401
from .signature_constants import *  # noqa: F403
from .signature_def_utils import *  # noqa: F403
from .tag_constants import *  # noqa: F403
from .utils import build_tensor_info, get_tensor_from_tensor_info  # noqa: F401


def simple_save(
    session: Any,
    export_dir: str,
    inputs: Mapping[str, Any],
    outputs: Mapping[str, Any],
    legacy_init_op: Operation | None = None,
) -> None:
    """Writes a SavedModel with one ``serve``-tagged meta graph whose default serving
    signature is a predict signature of ``inputs`` and ``outputs`` (dicts of keys to
    tensors), and ``session``'s variables.

    Args:
      session: the session holding the variables' values.
      export_dir: the directory to write (must not exist, or be empty).
      inputs: input keys to tensors.
      outputs: output keys to tensors.
      legacy_init_op: an op the loader runs after restoring (e.g. table initializers).

    The string constants in the ``GraphKeys.ASSET_FILEPATHS`` collection are saved as
    assets.
    """
    signature_def_map = {
        signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY: (
            signature_def_utils.predict_signature_def(inputs, outputs)
        )
    }
    b = builder.SavedModelBuilder(export_dir)
    b.add_meta_graph_and_variables(
        session,
        tags=[tag_constants.SERVING],
        signature_def_map=signature_def_map,
        assets_collection=session.graph.get_collection(GraphKeys.ASSET_FILEPATHS),
        main_op=legacy_init_op,
        clear_devices=True,
    )
    b.save()


__all__ = sorted(
    [
        "Builder",
        "build_tensor_info",
        "builder",
        "constants",
        "contains_saved_model",
        "get_tensor_from_tensor_info",
        "load",
        "loader",
        "main_op",
        "main_op_with_restore",
        "maybe_saved_model_directory",
        "signature_constants",
        "signature_def_utils",
        "simple_save",
        "tag_constants",
        "utils",
    ]
    + constants.__all__
    + signature_constants.__all__
    + signature_def_utils.__all__
    + tag_constants.__all__
)
