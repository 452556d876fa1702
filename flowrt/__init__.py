"""flowrt: a TF1-style dataflow runtime in Python, async-native on trio.

``import flowrt as fr`` gives the TF1 graph API; docs/reference lists every public name
and docs/porting.md what is not supported. This module only re-exports.
"""

import sys as _sys
import types as _types

from . import (  # noqa: F401
    bitwise,
    client,
    compat,
    contrib,
    data,
    debugging,
    dtypes,
    errors,
    gfile,
    graph_util,
    image,
    io,
    keras,
    layers,
    linalg,
    logging,
    lookup,
    losses,
    manip,
    math,
    metrics,
    nest,
    nn,
    profiler,
    protos,
    python_io,
    random,
    saved_model,
    sets,
    sparse,
    strings,
    summary,
    test,
    train,
)
from ._core.device_spec import DeviceSpec  # noqa: F401
from ._core.graph import (  # noqa: F401
    Graph,
    GraphKeys,
    Operation,
    Tensor,
    convert_to_tensor,
    get_default_graph,
    get_default_session,
    get_static_value,
    register_tensor_conversion_function,
    reset_default_graph,
)
from ._core.registry import NoGradient, NotDifferentiable, RegisterGradient  # noqa: F401
from ._core.registry import NotDifferentiable as no_gradient  # noqa: F401, N813  (TF2 name)
from ._core.shape import Dimension, TensorShape, dimension_at_index, dimension_value  # noqa: F401
from ._unsupported import install_missing_name_messages as _install_missing_name_messages
from .behavior import *  # noqa: F403
from .client.explain import explain  # noqa: F401
from .dtypes import *  # noqa: F403
from .dtypes import as_dtype  # noqa: F401
from .errors import OpError  # noqa: F401
from .function import ConcreteFunction, TensorSpec, function  # noqa: F401
from .gradients import AggregationMethod, gradients, hessians  # noqa: F401
from .graph_import import import_graph_def, make_ndarray  # noqa: F401
from .init_ops import *  # noqa: F403
from .logging import get_logger  # noqa: F401
from .module import Module  # noqa: F401
from .ops.activation_ops import *  # noqa: F403
from .ops.array_ops import *  # noqa: F403
from .ops.batch_space_ops import *  # noqa: F403
from .ops.binning_ops import *  # noqa: F403
from .ops.bitcast_ops import *  # noqa: F403
from .ops.check_ops import *  # noqa: F403
from .ops.clip_ops import *  # noqa: F403
from .ops.codec_ops import decode_base64, decode_json_example, encode_base64  # noqa: F401
from .ops.confusion_matrix_ops import *  # noqa: F403
from .ops.control_flow_ops import *  # noqa: F403
from .ops.csv_ops import *  # noqa: F403
from .ops.custom_gradient_ops import *  # noqa: F403
from .ops.cwise_math_ops import *  # noqa: F403
from .ops.data_flow_ops import *  # noqa: F403
from .ops.decomposition_ops import *  # noqa: F403
from .ops.edit_distance_ops import *  # noqa: F403
from .ops.einsum_ops import *  # noqa: F403
from .ops.extra_check_ops import *  # noqa: F403
from .ops.functional_loops import *  # noqa: F403
from .ops.grouping_ops import *  # noqa: F403
from .ops.hash_bucket_ops import *  # noqa: F403
from .ops.image_color import saturate_cast  # noqa: F401
from .ops.image_geometry import random_crop  # noqa: F401
from .ops.image_ops import extract_image_patches  # noqa: F401
from .ops.indexed_slices import IndexedSlices, IndexedSlicesValue, unsorted_segment_sum  # noqa: F401
from .ops.indexing_ops import *  # noqa: F403
from .ops.io_ops import *  # noqa: F403
from .ops.linalg_ops import *  # noqa: F403
from .ops.logging_ops import print  # noqa: F401
from .ops.lookup_ops import *  # noqa: F403
from .ops.manip_ops import *  # noqa: F403
from .ops.math_ops import *  # noqa: F403
from .ops.matrix_ops import *  # noqa: F403
from .ops.parsing_ops import *  # noqa: F403
from .ops.partition_ops import *  # noqa: F403
from .ops.product_ops import *  # noqa: F403
from .ops.random_ops import *  # noqa: F403
from .ops.record_ops import *  # noqa: F403
from .ops.reduction_ops import *  # noqa: F403
from .ops.scan_ops import *  # noqa: F403
from .ops.scatter_nd_ops import *  # noqa: F403
from .ops.script_ops import *  # noqa: F403
from .ops.segment_ops import *  # noqa: F403
from .ops.selection_ops import *  # noqa: F403
from .ops.set_ops import setdiff1d  # noqa: F401
from .ops.shape_ops import *  # noqa: F403
from .ops.slicing_ops import *  # noqa: F403
from .ops.solve_ops import *  # noqa: F403
from .ops.sort_ops import *  # noqa: F403
from .ops.space_depth_ops import *  # noqa: F403
from .ops.sparse_math_ops import *  # noqa: F403
from .ops.sparse_ops import *  # noqa: F403
from .ops.sparse_segment_ops import *  # noqa: F403
from .ops.sparse_shape_ops import *  # noqa: F403
from .ops.special_math_ops import (  # noqa: F401  (the rest are only in fr.math)
    betainc,
    digamma,
    erf,
    erfc,
    igamma,
    igammac,
    lbeta,
    lgamma,
    polygamma,
    zeta,
)
from .ops.state_ops import *  # noqa: F403
from .ops.string_ops import *  # noqa: F403
from .ops.tensor_array_ops import TensorArray  # noqa: F401
from .ops.text_ops import *  # noqa: F403
from .partitioned_variables import *  # noqa: F403
from .scopes import (  # noqa
    add_to_collection,
    add_to_collections,
    colocate_with,
    control_dependencies,
    device,
    get_collection,
    get_collection_ref,
    name_scope,
)
from .session import InteractiveSession, Session  # noqa: F401
from .session_options import (  # noqa: F401
    ConfigProto,
    GPUOptions,
    GraphOptions,
    OptimizerOptions,
    RunMetadata,
    RunOptions,
)
from .summary import (  # noqa: F401  (TF1's top-level tf.Summary, tf.Event, ...)
    Event,
    GraphDef,
    HistogramProto,
    SessionLog,
    Summary,
    SummaryMetadata,
)
from .tape import GradientTape, UnconnectedGradients  # noqa: F401
from .templates import make_template  # noqa: F401
from .tensor_util import make_tensor_proto  # noqa: F401
from .var_scope import *  # noqa: F403
from .variables import *  # noqa: F403

newaxis = None
"""Indexing with ``x[:, fr.newaxis]`` inserts a dimension of size 1 (as ``tf.newaxis``)."""

__version__ = "0.1.0"
VERSION = __version__
"""flowrt's version (TF1 programs print ``tf.VERSION``; this is not a TensorFlow version)."""

# Submodules that only implement names re-exported here; every other submodule imported
# here (nn, train, summary, errors, test, ...) is public, as TF1's tf.nn, tf.train, ...
# isidentifier(): pytest's assertion rewriting adds globals such as "@py_builtins".
_IMPLEMENTATION_MODULES = (
    "behavior",
    "distributed",
    "func_graph",
    "graph_import",
    "init_ops",
    "module",
    "ops",
    "protos",
    "scopes",
    "session",
    "tape",
    "templates",
    "var_scope",
    "variables",
)
__all__ = sorted(
    _name
    for _name, _value in globals().items()
    if _name.isidentifier()
    and not _name.startswith("_")
    and not (isinstance(_value, _types.ModuleType) and _name in _IMPLEMENTATION_MODULES)
)
"""Every public name: what ``from flowrt import *`` gives and the API reference lists."""


def __getattr__(name: str) -> object:
    if name in ("app", "flags"):  # absl, imported when a program uses them (~0.1 s)
        import importlib

        return importlib.import_module("%s.%s" % (__name__, name))
    raise AttributeError("module 'flowrt' has no attribute %r" % name)


# A TF1 name missing here or in a public namespace says so (``flowrt/_unsupported.py``).
_install_missing_name_messages(_sys.modules[__name__])
