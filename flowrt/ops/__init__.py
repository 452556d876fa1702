"""Op definitions by family; importing this package registers every op type."""

from . import (array_ops, control_flow_ops, data_flow_ops, indexed_slices,  # noqa: F401
               io_ops, math_ops, nn_ops, random_ops, state_ops)
