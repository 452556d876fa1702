"""``fr.sparse``: the ``tf.sparse`` names TF1 programs use, over ``flowrt.ops.sparse_ops``.

Re-exports only.
"""

from .ops.sparse_math_ops import sparse_add as add
from .ops.sparse_math_ops import sparse_maximum as maximum
from .ops.sparse_math_ops import sparse_minimum as minimum
from .ops.sparse_math_ops import sparse_reduce_max as reduce_max
from .ops.sparse_math_ops import sparse_reduce_max_sparse as reduce_max_sparse
from .ops.sparse_math_ops import sparse_softmax as softmax
from .ops.sparse_ops import SparseTensor, SparseTensorValue
from .ops.sparse_ops import sparse_concat as concat
from .ops.sparse_ops import sparse_fill_empty_rows as fill_empty_rows
from .ops.sparse_ops import sparse_placeholder as placeholder
from .ops.sparse_ops import sparse_reduce_sum as reduce_sum
from .ops.sparse_ops import sparse_reorder as reorder
from .ops.sparse_ops import sparse_retain as retain
from .ops.sparse_ops import sparse_tensor_dense_matmul as matmul
from .ops.sparse_ops import sparse_tensor_dense_matmul as sparse_dense_matmul
from .ops.sparse_ops import sparse_tensor_to_dense as to_dense
from .ops.sparse_segment_ops import sparse_segment_mean as segment_mean
from .ops.sparse_segment_ops import sparse_segment_sqrt_n as segment_sqrt_n
from .ops.sparse_segment_ops import sparse_segment_sum as segment_sum
from .ops.sparse_shape_ops import sparse_expand_dims as expand_dims
from .ops.sparse_shape_ops import sparse_eye as eye
from .ops.sparse_shape_ops import sparse_from_dense as from_dense
from .ops.sparse_shape_ops import sparse_merge as merge
from .ops.sparse_shape_ops import sparse_reset_shape as reset_shape
from .ops.sparse_shape_ops import sparse_reshape as reshape
from .ops.sparse_shape_ops import sparse_slice as slice
from .ops.sparse_shape_ops import sparse_split as split
from .ops.sparse_shape_ops import sparse_to_indicator as to_indicator
from .ops.sparse_shape_ops import sparse_transpose as transpose

__all__ = [
    "add",
    "maximum",
    "minimum",
    "reduce_max",
    "reduce_max_sparse",
    "softmax",
    "SparseTensor",
    "SparseTensorValue",
    "concat",
    "fill_empty_rows",
    "placeholder",
    "reduce_sum",
    "reorder",
    "retain",
    "matmul",
    "sparse_dense_matmul",
    "to_dense",
    "segment_mean",
    "segment_sqrt_n",
    "segment_sum",
    "expand_dims",
    "eye",
    "from_dense",
    "merge",
    "reset_shape",
    "reshape",
    "slice",
    "split",
    "to_indicator",
    "transpose",
]
