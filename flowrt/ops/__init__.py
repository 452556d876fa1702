"""Op definitions by family; importing this package registers every op type."""

from . import (  # noqa: F401
               array_ops,
               candidate_sampling_ops,
               control_flow_ops,
               conv_ops,
               data_flow_ops,
               embedding_ops,
               indexed_slices,
               indexing_ops,
               io_ops,
               linalg_ops,
               lrn_ops,
               math_ops,
               nn_ops,
               pool_ops,
               random_ops,
               slicing_ops,
               state_ops,
               topk_ops,
)
