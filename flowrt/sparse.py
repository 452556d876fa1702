"""``fr.sparse``: the ``tf.sparse`` names TF1 programs use, over ``flowrt.ops.sparse_ops``.

Re-exports only.
"""

from .ops.sparse_math_ops import sparse_add as add
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

__all__ = [
    "add",
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
]
