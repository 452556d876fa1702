"""Scatters by index tuples: ``tensor_scatter_nd_update``/``_add``/``_sub``/``_max``/
``_min`` (and TF1's ``tensor_scatter_update``/``_add``/``_sub``) on tensors, with TF's
gradients; ``scatter_nd_update``/``_add``/``_sub`` on variables; and the row scatters
``scatter_mul``/``_div``/``_max``/``_min`` on variables (whose op rows are in
``state_ops.py`` beside ``scatter_add``).

Indices follow ``gather_nd``: the last dimension of ``indices`` holds index tuples
into the leading dimensions of the tensor; ``updates`` has shape
``indices.shape[:-1] + tensor.shape[indices.shape[-1]:]``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.graph import Tensor, convert_to_tensor
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from .._core.shape import TensorShape
from . import array_ops, math_ops, state_ops
from .common import check_dtype, in_graph_of, make, make_op, op_scope, to_tensor
from .indexing_ops import gather_nd, nd_depth, nd_index, scatter_nd
from .partition_ops import reduce_rows_into

if TYPE_CHECKING:
    from .._core.typing import TensorLike
    from ..variables import Variable

__all__ = [
    "tensor_scatter_nd_update",
    "tensor_scatter_nd_add",
    "tensor_scatter_nd_sub",
    "tensor_scatter_nd_max",
    "tensor_scatter_nd_min",
    "tensor_scatter_update",
    "tensor_scatter_add",
    "tensor_scatter_sub",
    "scatter_nd_update",
    "scatter_nd_add",
    "scatter_nd_sub",
    "scatter_mul",
    "scatter_div",
    "scatter_max",
    "scatter_min",
]

_INDEX = (_dt.int32, _dt.int64)


def _check_updates(shape: TensorShape, indices: Tensor, updates: Tensor, what: str):
    """Static check: ``updates.shape == indices.shape[:-1] + shape[k:]``."""
    k = nd_depth(indices, what)
    if k is None or shape.ndims is None or indices.shape.ndims is None:
        return
    if k > shape.ndims:
        raise ValueError(
            "indices.shape[-1] must be <= the rank of %s, got %d > %d" % (what, k, shape.ndims)
        )
    want = TensorShape(indices.shape.as_list()[:-1] + shape.as_list()[k:])
    if not want.is_compatible_with(updates.shape):
        raise ValueError(
            "updates must have shape indices.shape[:-1] + %s.shape[%d:] = %s, got %s"
            % (what, k, want, updates.shape)
        )


def _apply(op, out, indices, updates, mode):
    """Writes ``updates`` into ``out`` (a fresh array) at the tuples of ``indices``."""
    idx = nd_index(op, indices, out.shape, "tensor")
    want = indices.shape[:-1] + out.shape[indices.shape[-1] :]
    if updates.shape != want:
        raise errors.InvalidArgumentError(
            None,
            op,
            "updates must have shape %s (indices.shape[:-1] + tensor.shape[%d:]), got %s"
            % (list(want), indices.shape[-1], list(updates.shape)),
        )
    if not idx:  # indices.shape[-1] == 0: every update applies to the whole tensor
        for u in updates.reshape((-1,) + out.shape):
            _apply_one(out, Ellipsis, u, mode)
        return out
    _apply_one(out, idx, updates, mode)
    return out


def _apply_one(out, idx, upd, mode):
    if mode == "update":
        out[idx] = upd  # a repeated index: the last update wins
        return
    if idx is Ellipsis:
        _UFUNC[mode](out, upd, out=out)
        return
    k = len(idx)
    lead = out.shape[:k]
    rows = np.ravel_multi_index(tuple(np.asarray(i).reshape(-1) for i in idx), lead)
    flat = out.reshape((int(np.prod(lead, dtype=np.int64)),) + out.shape[k:])  # a view
    vals = upd.reshape((rows.size,) + out.shape[k:])
    if mode == "sub":
        reduce_rows_into(flat, rows, -vals, np.add)
    else:
        reduce_rows_into(flat, rows, vals, _UFUNC[mode])


_UFUNC = {"add": np.add, "max": np.maximum, "min": np.minimum}

# --------------------------------------------------------------------------------------
# TensorScatterUpdate, TensorScatterAdd, TensorScatterSub, TensorScatterMax, ...Min
# --------------------------------------------------------------------------------------


def _tscatter_infer(op):
    t, indices, updates = op.inputs
    if updates.dtype is not t.dtype:
        raise TypeError(
            "updates have dtype %s but tensor has dtype %s" % (updates.dtype.name, t.dtype.name)
        )
    _check_updates(t.shape, indices, updates, "tensor")
    return [(t.dtype, t.shape)]


def _tscatter_kernel(mode):
    def kernel(ctx, op, t, indices, updates):
        return (_apply(op, t.copy(), indices, updates, mode),)

    return kernel


def _tscatter_update_grad(op, g):
    indices, updates = op.inputs[1], op.inputs[2]
    gt = tensor_scatter_nd_update(g, indices, array_ops.zeros_like(updates))
    return [gt, None, gather_nd(g, indices)]


def _tscatter_add_grad(op, g):
    return [g, None, gather_nd(g, op.inputs[1])]


def _tscatter_sub_grad(op, g):
    return [g, None, -gather_nd(g, op.inputs[1])]


def _tscatter_min_max_grad(op, g):
    # TF: the gradient is shared equally among the tensor element and the updates that
    # equal the result at each position.
    x, indices, updates = op.inputs
    out = op.outputs[0]
    x_ind = math_ops.cast(math_ops.equal(x, out), g.dtype)
    y_ind = math_ops.cast(math_ops.equal(updates, gather_nd(out, indices)), g.dtype)
    ys_ind = scatter_nd(indices, y_ind, array_ops.shape(x, out_type=indices.dtype))
    ind = x_ind + ys_ind
    return [g * x_ind / ind, None, gather_nd(g / ind, indices) * y_ind]


for _t, _mode, _grad in (
    ("TensorScatterUpdate", "update", _tscatter_update_grad),
    ("TensorScatterAdd", "add", _tscatter_add_grad),
    ("TensorScatterSub", "sub", _tscatter_sub_grad),
    ("TensorScatterMax", "max", _tscatter_min_max_grad),
    ("TensorScatterMin", "min", _tscatter_min_max_grad),
):
    register_op(_t, infer=_tscatter_infer, kernel=_tscatter_kernel(_mode), grad=_grad)


def _tscatter(op_type, tensor, indices, updates, name):
    with op_scope([tensor, indices, updates], None, None):
        t = to_tensor(tensor)
        ix = indices if isinstance(indices, Tensor) else to_tensor(indices, _dt.int32)
        return make(op_type, [t, ix, to_tensor(updates, t.dtype)], None, name)


_TSCATTER_DOC = """A copy of ``tensor`` with ``updates`` %s at the index tuples of
``indices`` (op type %s).

Args:
  tensor: a tensor.
  indices: an int32/int64 tensor whose last dimension holds index tuples.
  updates: a tensor of ``tensor``'s dtype and shape
    ``indices.shape[:-1] + tensor.shape[indices.shape[-1]:]``.
  name: the op's name.

Raises:
  InvalidArgumentError: at run time, for an index tuple outside ``tensor`` (naming it).
"""


def tensor_scatter_nd_update(
    tensor: TensorLike, indices: TensorLike, updates: TensorLike, name: str | None = None
) -> Tensor:
    return _tscatter("TensorScatterUpdate", tensor, indices, updates, name)


def tensor_scatter_nd_add(
    tensor: TensorLike, indices: TensorLike, updates: TensorLike, name: str | None = None
) -> Tensor:
    return _tscatter("TensorScatterAdd", tensor, indices, updates, name)


def tensor_scatter_nd_sub(
    tensor: TensorLike, indices: TensorLike, updates: TensorLike, name: str | None = None
) -> Tensor:
    return _tscatter("TensorScatterSub", tensor, indices, updates, name)


def tensor_scatter_nd_max(
    tensor: TensorLike, indices: TensorLike, updates: TensorLike, name: str | None = None
) -> Tensor:
    return _tscatter("TensorScatterMax", tensor, indices, updates, name)


def tensor_scatter_nd_min(
    tensor: TensorLike, indices: TensorLike, updates: TensorLike, name: str | None = None
) -> Tensor:
    return _tscatter("TensorScatterMin", tensor, indices, updates, name)


tensor_scatter_nd_update.__doc__ = _TSCATTER_DOC % (
    "written (a repeated tuple: the last wins)",
    "TensorScatterUpdate",
)
tensor_scatter_nd_add.__doc__ = _TSCATTER_DOC % ("added", "TensorScatterAdd")
tensor_scatter_nd_sub.__doc__ = _TSCATTER_DOC % ("subtracted", "TensorScatterSub")
tensor_scatter_nd_max.__doc__ = _TSCATTER_DOC % ("maxed in", "TensorScatterMax")
tensor_scatter_nd_min.__doc__ = _TSCATTER_DOC % ("minned in", "TensorScatterMin")

# TF1's names
tensor_scatter_update = tensor_scatter_nd_update
tensor_scatter_add = tensor_scatter_nd_add
tensor_scatter_sub = tensor_scatter_nd_sub

# --------------------------------------------------------------------------------------
# ResourceScatterNdUpdate, ResourceScatterNdAdd, ResourceScatterNdSub (variables)
# --------------------------------------------------------------------------------------


def _var_scatter_nd_infer(op):
    dtype, shape = state_ops.var_spec(op.inputs[0])
    indices, updates = op.inputs[1], op.inputs[2]
    check_dtype(indices, _INDEX, "indices")
    if updates.dtype is not dtype:
        raise TypeError(
            "updates have dtype %s but the variable has dtype %s" % (updates.dtype.name, dtype.name)
        )
    _check_updates(shape, indices, updates, "variable")
    return [(dtype, shape)]


def _var_scatter_nd_kernel(mode):
    def kernel(ctx, op, handle, indices, updates):
        upd = np.asarray(updates)
        return (
            state_ops.update_variable(
                ctx, op, handle, lambda old: _apply(op, old.copy(), indices, upd, mode)
            ),
        )

    return kernel


for _t, _mode in (
    ("ResourceScatterNdUpdate", "update"),
    ("ResourceScatterNdAdd", "add"),
    ("ResourceScatterNdSub", "sub"),
):
    register_op(
        _t,
        infer=_var_scatter_nd_infer,
        kernel=_var_scatter_nd_kernel(_mode),
        grad=NOT_DIFFERENTIABLE,
        stateful=True,
    )


def _var_scatter(op_type, ref, indices, updates, use_locking, name):
    with in_graph_of([ref, indices, updates]):
        handle = getattr(ref, "handle", None)
        if handle is None:
            raise TypeError(
                "%s needs a variable as its first argument (`ref`), got %r" % (op_type, ref)
            )
        ix = indices if isinstance(indices, Tensor) else convert_to_tensor(indices, _dt.int32)
        upd = state_ops.value_for(handle, updates, "update")
        return make_op(op_type, [handle, ix, upd], {"dtype": upd.dtype}, name, op_type).outputs[0]


_VAR_ND_DOC = """%s the variable ``ref`` at the index tuples of ``indices``; returns
the new value (op type %s).

Args:
  ref: a variable.
  indices: an int32/int64 tensor whose last dimension holds index tuples.
  updates: values of shape ``indices.shape[:-1] + ref.shape[indices.shape[-1]:]``.
  use_locking: accepted for TF1 compatibility (every update takes the variable's lock).
  name: the op's name.

Raises:
  InvalidArgumentError: at run time, for an index tuple outside ``ref`` (naming it).
"""


def scatter_nd_update(
    ref: Variable,
    indices: TensorLike,
    updates: TensorLike,
    use_locking: bool = True,
    name: str | None = None,
) -> Tensor:
    return _var_scatter("ResourceScatterNdUpdate", ref, indices, updates, use_locking, name)


def scatter_nd_add(
    ref: Variable,
    indices: TensorLike,
    updates: TensorLike,
    use_locking: bool = False,
    name: str | None = None,
) -> Tensor:
    return _var_scatter("ResourceScatterNdAdd", ref, indices, updates, use_locking, name)


def scatter_nd_sub(
    ref: Variable,
    indices: TensorLike,
    updates: TensorLike,
    use_locking: bool = False,
    name: str | None = None,
) -> Tensor:
    return _var_scatter("ResourceScatterNdSub", ref, indices, updates, use_locking, name)


scatter_nd_update.__doc__ = _VAR_ND_DOC % ("Writes ``updates`` into", "ResourceScatterNdUpdate")
scatter_nd_add.__doc__ = _VAR_ND_DOC % ("Adds ``updates`` to", "ResourceScatterNdAdd")
scatter_nd_sub.__doc__ = _VAR_ND_DOC % ("Subtracts ``updates`` from", "ResourceScatterNdSub")

# --------------------------------------------------------------------------------------
# Row scatters on variables: scatter_mul, scatter_div, scatter_max, scatter_min
# --------------------------------------------------------------------------------------

_ROW_DOC = """%s rows ``ref[indices]`` by ``updates``; returns the new value (op type %s,
defined in ``state_ops.py`` beside ``scatter_add``).

Args:
  ref: a variable.
  indices: an int32/int64 tensor of row indices.
  updates: values of shape ``indices.shape + ref.shape[1:]`` (or a scalar).
  use_locking: accepted for TF1 compatibility (every update takes the variable's lock).
  name: the op's name.
"""


def _row_scatter(op_type, ref, indices, updates, name):
    with in_graph_of([ref, indices, updates]):
        return state_ops.scatter_op(op_type, ref, indices, updates, False, name)


def scatter_mul(
    ref: Variable,
    indices: TensorLike,
    updates: TensorLike,
    use_locking: bool = False,
    name: str | None = None,
) -> Tensor:
    return _row_scatter("ResourceScatterMul", ref, indices, updates, name)


def scatter_div(
    ref: Variable,
    indices: TensorLike,
    updates: TensorLike,
    use_locking: bool = False,
    name: str | None = None,
) -> Tensor:
    return _row_scatter("ResourceScatterDiv", ref, indices, updates, name)


def scatter_max(
    ref: Variable,
    indices: TensorLike,
    updates: TensorLike,
    use_locking: bool = False,
    name: str | None = None,
) -> Tensor:
    return _row_scatter("ResourceScatterMax", ref, indices, updates, name)


def scatter_min(
    ref: Variable,
    indices: TensorLike,
    updates: TensorLike,
    use_locking: bool = False,
    name: str | None = None,
) -> Tensor:
    return _row_scatter("ResourceScatterMin", ref, indices, updates, name)


scatter_mul.__doc__ = _ROW_DOC % ("Multiplies", "ResourceScatterMul")
scatter_div.__doc__ = _ROW_DOC % ("Divides", "ResourceScatterDiv")
scatter_max.__doc__ = _ROW_DOC % ("Takes the maximum of", "ResourceScatterMax")
scatter_min.__doc__ = _ROW_DOC % ("Takes the minimum of", "ResourceScatterMin")
