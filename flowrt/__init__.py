"""flowrt: a TF1-style dataflow runtime in Python, async-native on trio.

``import flowrt as fr`` gives the TF1 graph API (see ../shared/API.md for the surface).
This module only re-exports.
"""

from . import dtypes, errors  # noqa: F401
from ._core.graph import (Graph, GraphKeys, Operation, Tensor, convert_to_tensor,  # noqa: F401
                          get_default_graph, get_default_session, reset_default_graph)
from ._core.registry import NotDifferentiable, NoGradient, RegisterGradient  # noqa: F401
from ._core.shape import TensorShape  # noqa: F401
from .dtypes import *  # noqa: F401,F403
from .dtypes import as_dtype  # noqa: F401
from .ops.array_ops import *  # noqa: F401,F403
from .ops.control_flow_ops import *  # noqa: F401,F403
from .ops.data_flow_ops import *  # noqa: F401,F403
from .ops.indexed_slices import (IndexedSlices, IndexedSlicesValue,  # noqa: F401
                                 unsorted_segment_sum)
from .ops.indexing_ops import *  # noqa: F401,F403
from .ops.io_ops import *  # noqa: F401,F403
from .ops.math_ops import *  # noqa: F401,F403
from .ops.random_ops import *  # noqa: F401,F403
from .ops.slicing_ops import *  # noqa: F401,F403
from .ops.state_ops import *  # noqa: F401,F403
from .init_ops import *  # noqa: F401,F403
from .variables import *  # noqa: F401,F403
from .var_scope import *  # noqa: F401,F403
from .gradients import AggregationMethod, gradients  # noqa: F401
from .session import (ConfigProto, GPUOptions, InteractiveSession, RunMetadata,  # noqa: F401
                      RunOptions, Session)
from .scopes import (add_to_collection, add_to_collections, control_dependencies,  # noqa
                     device, get_collection, get_collection_ref, name_scope)
from . import nn, train  # noqa: F401,E402
from . import summary  # noqa: F401

__version__ = "0.1.0"
