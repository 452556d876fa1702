"""``tf.sets``: set operations along the last dimension of dense or sparse tensors
(``set_intersection``, ``set_union``, ``set_difference``) and ``set_size``.

Each row (all but the last index) of an input is a set of its values; the result of an
operation is a ``SparseTensor`` whose row ``i`` holds the result set of row ``i``,
sorted ascending, and whose last dimension is the largest result set's size (TF's
``DenseToDenseSetOperation``, ``DenseToSparseSetOperation``,
``SparseToSparseSetOperation`` and ``SetSize``). None has a gradient.

``setdiff1d`` (op type ListDiff) is the one set op of TF1's top level: the values of a
vector not in another, in order, with their positions.
"""

from __future__ import annotations

import collections
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.graph import Tensor
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from .._core.shape import TensorShape, unknown_shape
from .common import in_graph_of, make_op, op_scope, to_tensor
from .sparse_ops import SparseTensor, check_sparse_indices, is_sparse, sparse_input

if TYPE_CHECKING:
    from .._core.typing import DTypeLike, TensorLike

__all__ = ["set_difference", "set_intersection", "set_size", "set_union", "setdiff1d"]

_VALID = (_dt.int8, _dt.int16, _dt.int32, _dt.int64, _dt.uint8, _dt.uint16, _dt.string)


def _check_dtype(dtype: _dt.DType, arg: str) -> None:
    if dtype not in _VALID:
        raise TypeError(
            "'%s' has invalid dtype `%s` not in supported dtypes: `%s`."
            % (arg, dtype.name, ", ".join(d.name for d in _VALID))
        )


def _dense_rows(op, x: np.ndarray) -> tuple[tuple, dict]:
    if x.ndim < 2:
        raise errors.InvalidArgumentError(
            None, op, "Invalid rank %d: set operations need rank 2 or more" % x.ndim
        )
    group = x.shape[:-1]
    return group, {i: set(x[i].tolist()) for i in np.ndindex(*group)}


def _sparse_rows(op, idx, values, shape, validate: bool) -> tuple[tuple, dict]:
    idx, shape = np.asarray(idx, np.int64), np.asarray(shape, np.int64).reshape(-1)
    if shape.size < 2:
        raise errors.InvalidArgumentError(
            None, op, "Invalid rank %d: set operations need rank 2 or more" % shape.size
        )
    check_sparse_indices(op, idx, shape, ordered=validate)
    rows: dict = {}
    for i, v in zip(map(tuple, idx[:, :-1].tolist()), np.asarray(values).tolist(), strict=True):
        rows.setdefault(i, set()).add(v)
    return tuple(int(d) for d in shape[:-1]), rows


_COMBINE = {
    b"intersection": lambda a, b: a & b,
    b"union": lambda a, b: a | b,
    b"a-b": lambda a, b: a - b,
    b"b-a": lambda a, b: b - a,
}


def _result(op, ga, ra, gb, rb, dtype: np.dtype):
    if ga != gb:
        raise errors.InvalidArgumentError(
            None, op, "Shape mismatch: the inputs' group shapes are %s and %s" % (ga, gb)
        )
    combine = _COMBINE[op.attrs["set_operation"]]
    indices: list[list[int]] = []
    values: list = []
    width = 0
    for i in np.ndindex(*ga):
        got = sorted(combine(ra.get(i, set()), rb.get(i, set())))
        width = max(width, len(got))
        indices.extend(list(i) + [j] for j in range(len(got)))
        values.extend(got)
    rank = len(ga) + 1
    return (
        np.array(indices, np.int64).reshape(-1, rank),
        np.array(values, dtype=dtype).reshape(-1),
        np.array(list(ga) + [width], np.int64),
    )


def _dense_dense(ctx, op, a, b):
    ga, ra = _dense_rows(op, np.asarray(a))
    gb, rb = _dense_rows(op, np.asarray(b))
    return _result(op, ga, ra, gb, rb, np.asarray(a).dtype)


def _dense_sparse(ctx, op, a, b_idx, b_values, b_shape):
    v = op.attrs["validate_indices"]
    ga, ra = _dense_rows(op, np.asarray(a))
    gb, rb = _sparse_rows(op, b_idx, b_values, b_shape, v)
    return _result(op, ga, ra, gb, rb, np.asarray(a).dtype)


def _sparse_sparse(ctx, op, a_idx, a_values, a_shape, b_idx, b_values, b_shape):
    v = op.attrs["validate_indices"]
    ga, ra = _sparse_rows(op, a_idx, a_values, a_shape, v)
    gb, rb = _sparse_rows(op, b_idx, b_values, b_shape, v)
    return _result(op, ga, ra, gb, rb, np.asarray(a_values).dtype)


def _set_op_infer(op):
    first = op.inputs[0]
    if op.type == "SparseToSparseSetOperation":  # rank: the indices' second dimension
        rank = first.shape.as_list()[1] if first.shape.ndims == 2 else None
        dtype = op.inputs[1].dtype
    else:
        rank, dtype = first.shape.ndims, first.dtype
    return [
        (_dt.int64, TensorShape([None, rank])),
        (dtype, TensorShape([None])),
        (_dt.int64, TensorShape([rank])),
    ]


def _set_size_kernel(ctx, op, idx, values, shape):
    group, rows = _sparse_rows(op, idx, values, shape, op.attrs["validate_indices"])
    out = np.zeros(group, np.int32)
    for i, s in rows.items():
        out[i] = len(s)
    return (out,)


def _set_size_infer(op):
    shape = op.inputs[2]
    n = shape.shape.as_list()[0] if shape.shape.ndims == 1 else None
    return [(_dt.int32, TensorShape(None if n is None else [None] * (n - 1)))]


for _t, _k in (
    ("DenseToDenseSetOperation", _dense_dense),
    ("DenseToSparseSetOperation", _dense_sparse),
    ("SparseToSparseSetOperation", _sparse_sparse),
):
    register_op(_t, infer=_set_op_infer, kernel=_k, grad=NOT_DIFFERENTIABLE)
register_op("SetSize", infer=_set_size_infer, kernel=_set_size_kernel, grad=NOT_DIFFERENTIABLE)


def _operands(a: Any, b: Any) -> tuple[Any, Any]:
    with in_graph_of([a, b]):
        a = sparse_input(a, "a") if is_sparse(a) else to_tensor(a, name="a")
        b = sparse_input(b, "b") if is_sparse(b) else to_tensor(b, name="b")
    if a.dtype != b.dtype:
        raise TypeError("Types don't match, %s vs %s." % (a.dtype.name, b.dtype.name))
    _check_dtype(a.dtype, "a")
    return a, b


def _set_operation(a: Any, b: Any, operation: str, validate_indices: bool) -> SparseTensor:
    attrs = {"set_operation": operation.encode(), "validate_indices": bool(validate_indices)}
    if isinstance(a, SparseTensor):
        if not isinstance(b, SparseTensor):
            raise ValueError(
                "Sparse,Dense is not supported, but Dense,Sparse is. Please flip the order "
                "of your inputs."
            )
        inputs = [a.indices, a.values, a.dense_shape, b.indices, b.values, b.dense_shape]
        op_type = "SparseToSparseSetOperation"
    elif isinstance(b, SparseTensor):
        inputs, op_type = [a, b.indices, b.values, b.dense_shape], "DenseToSparseSetOperation"
    else:
        inputs, op_type = [a, b], "DenseToDenseSetOperation"
    op = make_op(op_type, inputs, attrs, None, op_type)
    return SparseTensor(op.outputs[0], op.outputs[1], op.outputs[2])


def set_size(a: SparseTensor, validate_indices: bool = True) -> Tensor:
    """The number of unique values in each row (last dimension) of a ``SparseTensor``.

    Returns:
      An int32 tensor of ``a``'s shape without its last dimension.

    Raises:
      TypeError: ``a`` is not a ``SparseTensor``, or its dtype is not supported.
    """
    if not is_sparse(a):
        raise TypeError("Expected `SparseTensor`, got %s" % (a,))
    a = sparse_input(a, "a")
    _check_dtype(a.dtype, "a")
    op = make_op(
        "SetSize",
        [a.indices, a.values, a.dense_shape],
        {"validate_indices": bool(validate_indices)},
        None,
        "SetSize",
    )
    return op.outputs[0]


def set_intersection(a: Any, b: Any, validate_indices: bool = True) -> SparseTensor:
    """The intersection of the sets in the last dimension of ``a`` and ``b`` (dense or
    ``SparseTensor``, of the same dtype and leading shape), as a ``SparseTensor``."""
    a, b = _operands(a, b)
    if isinstance(a, SparseTensor) and not isinstance(b, SparseTensor):
        a, b = b, a
    return _set_operation(a, b, "intersection", validate_indices)


def set_union(a: Any, b: Any, validate_indices: bool = True) -> SparseTensor:
    """The union of the sets in the last dimension of ``a`` and ``b`` (as
    ``set_intersection``)."""
    a, b = _operands(a, b)
    if isinstance(a, SparseTensor) and not isinstance(b, SparseTensor):
        a, b = b, a
    return _set_operation(a, b, "union", validate_indices)


def set_difference(
    a: Any, b: Any, aminusb: bool = True, validate_indices: bool = True
) -> SparseTensor:
    """``a - b`` (or ``b - a`` if not ``aminusb``) of the sets in the last dimension (as
    ``set_intersection``)."""
    a, b = _operands(a, b)
    if isinstance(a, SparseTensor) and not isinstance(b, SparseTensor):
        a, b, aminusb = b, a, not aminusb
    return _set_operation(a, b, "a-b" if aminusb else "b-a", validate_indices)


def _listdiff_infer(op):
    x, y = op.inputs
    if x.dtype is not y.dtype:
        raise TypeError("x has dtype %s, y %s" % (x.dtype.name, y.dtype.name))
    for t, n in ((x, "x"), (y, "y")):
        if t.shape.ndims not in (None, 1):
            raise ValueError("%s must be 1-dimensional, got shape %s" % (n, t.shape))
    return [(x.dtype, unknown_shape(1)), (op.attrs["out_idx"], unknown_shape(1))]


def _listdiff_kernel(ctx, op, x, y):
    idx = np.flatnonzero(~np.isin(x, y))
    return x[idx], idx.astype(op.attrs["out_idx"].np)


register_op("ListDiff", infer=_listdiff_infer, kernel=_listdiff_kernel, grad=NOT_DIFFERENTIABLE)


_ListDiff = collections.namedtuple("ListDiff", ["out", "idx"])  # type: ignore[name-match]


def setdiff1d(
    x: TensorLike, y: TensorLike, index_dtype: DTypeLike = _dt.int32, name: str | None = None
) -> tuple:
    """The values of the vector ``x`` not in ``y``, in order, and their positions in
    ``x``: ``ListDiff(out, idx)`` (op ListDiff).

    Args:
      x: a 1-D tensor.
      y: a 1-D tensor of ``x``'s dtype.
      index_dtype: the dtype of ``idx`` (int32 or int64).
      name: the op's name (default ``ListDiff``).
    """
    with op_scope([x, y], None, None):
        tx = to_tensor(x)
        ty = to_tensor(y, tx.dtype)
        op = make_op("ListDiff", [tx, ty], {"out_idx": _dt.as_dtype(index_dtype)}, name)
    return _ListDiff(*op.outputs)
