"""Arithmetic on ``SparseTensor`` values: ``sparse_add`` (sparse + sparse with a
threshold, sparse + dense), ``sparse_maximum``/``sparse_minimum``, ``sparse_softmax``
and ``sparse_reduce_max``, with TF's gradients where TF has them.

As in TF's kernels, sparse + sparse (and maximum, minimum) walks both operands' entries
together in the order given (row-major order expected), and the softmax sorts the
entries into row-major order and returns its values in that order: out of order, the
results are TF's too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.graph import Tensor, get_default_graph
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from .._core.shape import TensorShape, unknown_shape
from .array_ops import zeros_like
from .common import in_graph_of, make, make_op, to_tensor
from .indexing_ops import gather_nd
from .math_ops import multiply
from .slicing_ops import concat
from .sparse_ops import (
    SparseInput,
    SparseTensor,
    SparseTensorValue,
    reduce_axes,
    row_major,
    sparse_input,
    sparse_reduce_infer,
    sparse_reduce_sum,
)

if TYPE_CHECKING:
    from .._core.typing import AxisLike, TensorLike

__all__ = [
    "sparse_add",
    "sparse_maximum",
    "sparse_minimum",
    "sparse_softmax",
    "sparse_reduce_max",
    "sparse_reduce_max_sparse",
]


# --------------------------------------------------------------------------------------
# SparseAdd (sparse + sparse) and SparseTensorDenseAdd (sparse + dense)
# --------------------------------------------------------------------------------------


def sparse_add(
    a: SparseInput | TensorLike,
    b: SparseInput | TensorLike,
    threshold: TensorLike | None = None,
    thresh: TensorLike | None = None,
) -> SparseTensor | Tensor:
    """``a + b`` where at least one operand is sparse (TF1's ``tf.sparse_add``).

    Two sparse operands give a ``SparseTensor``: values at the same index are summed and
    kept only when ``|sum| >= threshold``; entries of one operand alone are kept as
    they are. A sparse and a dense operand give a dense ``Tensor``.

    Args:
      a: a ``SparseTensor`` (or ``SparseTensorValue``) or a dense tensor.
      b: likewise; both must have the same dense shape (no broadcasting).
      threshold: the magnitude below which summed values are dropped (default 0).
      thresh: the deprecated name of ``threshold``.

    Raises:
      TypeError: neither operand is sparse.
      ValueError: both ``threshold`` and ``thresh`` are given, or the static shapes of
        two sparse operands are incompatible.
    """
    if threshold is not None and thresh is not None:
        raise ValueError("Cannot specify both 'threshold' and 'thresh'")
    if threshold is None:
        threshold = thresh if thresh is not None else 0
    sparse_types = (SparseTensor, SparseTensorValue)
    if not isinstance(a, sparse_types) and not isinstance(b, sparse_types):
        raise TypeError("At least one input should be SparseTensor; do you mean to use tf.add()?")
    with in_graph_of([a, b, threshold]):
        if isinstance(a, sparse_types) and isinstance(b, sparse_types):
            sa, sb = sparse_input(a, "a"), sparse_input(b, "b")
            th = to_tensor(threshold, sa.dtype.real_dtype, name="threshold")
            op = make_op(
                "SparseAdd",
                [sa.indices, sa.values, sa.dense_shape, sb.indices, sb.values, sb.dense_shape, th],
                {},
                None,
                "SparseAdd",
            )
            sa.shape.assert_is_compatible_with(sb.shape)
            static = sa.shape.merge_with(sb.shape)
            shape = static.as_list() if static.is_fully_defined() else op.outputs[2]
            return SparseTensor(op.outputs[0], op.outputs[1], shape)
        if isinstance(b, sparse_types):
            a, b = b, a
        sp = sparse_input(a, "a")
        return make(
            "SparseTensorDenseAdd",
            [sp.indices, sp.values, sp.dense_shape, to_tensor(b, sp.dtype)],
            {},
            None,
            "SparseTensorDenseAdd",
        )


def _check_shapes_equal(op, a_shape, b_shape):
    if a_shape.shape != b_shape.shape:
        raise errors.InvalidArgumentError(
            None,
            op,
            "Operands do not have the same ranks; got shapes: %s and %s"
            % (a_shape.tolist(), b_shape.tolist()),
        )
    if not np.array_equal(a_shape, b_shape):
        raise errors.InvalidArgumentError(
            None,
            op,
            "Operands' shapes do not match: got %s and %s for respective operands"
            % (a_shape.tolist(), b_shape.tolist()),
        )


def _walk(a_idx: np.ndarray, b_idx: np.ndarray) -> list[tuple[int, int]]:
    """The union of two operands' entries as TF's kernels walk it: ``(i, j)`` pairs of
    the rows of ``a`` and ``b`` at each output index, -1 where one has none."""
    ka, kb = [tuple(r) for r in a_idx.tolist()], [tuple(r) for r in b_idx.tolist()]
    out = []
    i = j = 0
    while i < len(ka) and j < len(kb):
        if ka[i] < kb[j]:
            out.append((i, -1))
            i += 1
        elif ka[i] > kb[j]:
            out.append((-1, j))
            j += 1
        else:
            out.append((i, j))
            i += 1
            j += 1
    return out + [(k, -1) for k in range(i, len(ka))] + [(-1, k) for k in range(j, len(kb))]


def _union(op, a_idx, a_val, a_shape, b_idx, b_val, b_shape, combine):
    """The output indices and values of a union of two sparse operands: ``combine(a, b,
    both)`` gives the value at each index (missing operands as 0) or None to drop it."""
    _check_shapes_equal(op, np.asarray(a_shape), np.asarray(b_shape))
    a_idx, b_idx = np.asarray(a_idx, np.int64), np.asarray(b_idx, np.int64)
    a_val, b_val = np.asarray(a_val), np.asarray(b_val)
    zero = np.zeros((), a_val.dtype)
    rows, vals = [], []
    for i, j in _walk(a_idx, b_idx):
        v = combine(a_val[i] if i >= 0 else zero, b_val[j] if j >= 0 else zero, i >= 0 and j >= 0)
        if v is not None:
            rows.append(a_idx[i] if i >= 0 else b_idx[j])
            vals.append(v)
    rank = int(np.asarray(a_shape).size)
    return np.array(rows, np.int64).reshape(len(rows), rank), np.array(vals, a_val.dtype)


def _sparse_add_kernel(ctx, op, a_idx, a_val, a_shape, b_idx, b_val, b_shape, thresh):
    th = np.asarray(thresh)[()]

    def combine(a, b, both):
        # Only sums of two entries are held to the threshold (TF's SparseAdd).
        return a + b if not both or th <= abs(a + b) else None

    idx, vals = _union(op, a_idx, a_val, a_shape, b_idx, b_val, b_shape, combine)
    return idx, vals, np.asarray(a_shape, np.int64)


def _sparse_add_infer(op):
    a_idx, a_val, a_shape = op.inputs[:3]
    rank = a_idx.shape[1] if a_idx.shape.ndims == 2 else None
    return [
        (_dt.int64, TensorShape([None, rank])),
        (a_val.dtype, TensorShape([None])),
        (_dt.int64, a_shape.shape),
    ]


def _sparse_add_grad(op, _g_idx, g_val, _g_shape):
    a_grad, b_grad = make_op(
        "SparseAddGrad", [g_val, op.inputs[0], op.inputs[3], op.outputs[0]], {}, None
    ).outputs
    return [None, a_grad, None, None, b_grad, None, None]


register_op("SparseAdd", infer=_sparse_add_infer, kernel=_sparse_add_kernel, grad=_sparse_add_grad)


def _sparse_add_grad_kernel(ctx, op, g, a_idx, b_idx, sum_idx):
    """Each operand entry's gradient: that of the output entry at its index, 0 when its
    sum fell below the threshold."""
    g = np.asarray(g)
    where = {tuple(r): k for k, r in enumerate(np.asarray(sum_idx).tolist())}

    def pick(idx):
        rows = [where.get(tuple(r), -1) for r in np.asarray(idx).tolist()]
        out = np.zeros(len(rows), g.dtype)
        hit = np.array(rows, np.int64) >= 0 if rows else np.zeros(0, bool)
        out[hit] = g[np.array(rows, np.int64)[hit]]
        return out

    return pick(a_idx), pick(b_idx)


register_op(
    "SparseAddGrad",
    infer=lambda op: [
        (
            op.inputs[0].dtype,
            TensorShape([op.inputs[i].shape[0] if op.inputs[i].shape.ndims else None]),
        )
        for i in (1, 2)
    ],
    kernel=_sparse_add_grad_kernel,
    grad=NOT_DIFFERENTIABLE,
)


def _stda_kernel(ctx, op, idx, values, shape, b):
    shape, b = np.asarray(shape, np.int64), np.asarray(b)
    if shape.size != b.ndim:
        raise errors.InvalidArgumentError(
            None, op, "Dimensions must match, got sparse rank %d and dense rank %d"
            % (shape.size, b.ndim),
        )  # fmt: skip
    for d in range(shape.size):
        if shape[d] != b.shape[d]:
            raise errors.InvalidArgumentError(
                None, op, "Dimension %d does not equal (no broadcasting is supported): "
                "sparse side %d vs dense side %d" % (d, shape[d], b.shape[d]),
            )  # fmt: skip
    out = b.copy()
    idx = np.asarray(idx, np.int64)
    if idx.size:
        np.add.at(out, tuple(idx.T), np.asarray(values, out.dtype))
    return (out,)


def _stda_grad(op, grad):
    return [None, gather_nd(grad, op.inputs[0]), None, grad]


register_op(
    "SparseTensorDenseAdd",
    infer=lambda op: [(op.inputs[3].dtype, op.inputs[3].shape)],
    kernel=_stda_kernel,
    grad=_stda_grad,
)


# --------------------------------------------------------------------------------------
# SparseSparseMaximum, SparseSparseMinimum
# --------------------------------------------------------------------------------------


def _elementwise(op_type, default):
    def fn(sp_a: SparseInput, sp_b: SparseInput, name: str | None = None) -> SparseTensor:
        with in_graph_of([sp_a, sp_b]):
            a, b = sparse_input(sp_a, "sp_a"), sparse_input(sp_b, "sp_b")
            with get_default_graph().name_scope(name or op_type) as scope:
                op = make_op(
                    op_type,
                    [a.indices, a.values, a.dense_shape, b.indices, b.values, b.dense_shape],
                    {},
                    scope,
                )
            return SparseTensor(op.outputs[0], op.outputs[1], a.dense_shape)

    fn.__name__ = fn.__qualname__ = default
    fn.__doc__ = (
        "The elementwise %s of two ``SparseTensor`` operands of the same shape, a missing\n"
        "value counting as 0: a ``SparseTensor`` at the union of their indices (both in\n"
        "row-major order).\n\nArgs:\n  sp_a: a ``SparseTensor``.\n  sp_b: a ``SparseTensor``"
        " of the same dtype and shape.\n  name: the name scope (default ``%s``)."
        % (default.split("_")[1], op_type)
    )
    return fn


sparse_maximum = _elementwise("SparseSparseMaximum", "sparse_maximum")
sparse_minimum = _elementwise("SparseSparseMinimum", "sparse_minimum")


def _pick_kernel(pick):
    def kernel(ctx, op, a_idx, a_val, a_shape, b_idx, b_val, b_shape):
        return _union(
            op, a_idx, a_val, a_shape, b_idx, b_val, b_shape, lambda a, b, both: pick(a, b)
        )

    return kernel


for _t, _pick in (("SparseSparseMaximum", np.maximum), ("SparseSparseMinimum", np.minimum)):
    # No gradient: TF's rule raises NotImplementedError.
    register_op(_t, infer=lambda op: _sparse_add_infer(op)[:2], kernel=_pick_kernel(_pick))


# --------------------------------------------------------------------------------------
# SparseSoftmax
# --------------------------------------------------------------------------------------


def sparse_softmax(sp_input: SparseInput, name: str | None = None) -> SparseTensor:
    """The softmax of ``sp_input``'s values over its last dimension, among the values
    present only (the missing ones count as -inf, not 0); rank 2 or more.

    Args:
      sp_input: a float ``SparseTensor`` in row-major order.
      name: the name scope (default ``SparseSoftmax``).

    Returns:
      A ``SparseTensor`` with ``sp_input``'s indices and shape.
    """
    with in_graph_of([sp_input]):
        sp = sparse_input(sp_input)
        with get_default_graph().name_scope(name or "SparseSoftmax"):
            values = make("SparseSoftmax", [sp.indices, sp.values, sp.dense_shape], {}, None)
        out = SparseTensor(sp.indices, values, sp.dense_shape)
        out._shape = sp.shape
        return out


def _runs(idx: np.ndarray) -> np.ndarray:
    """The run number of each entry: runs are consecutive entries whose coordinates
    agree except the last."""
    if len(idx) == 0:
        return np.zeros(0, np.int64)
    prefix = idx[:, :-1]
    new = np.ones(len(idx), bool)
    new[1:] = (prefix[1:] != prefix[:-1]).any(axis=1)
    return np.cumsum(new) - 1


def _softmax_kernel(ctx, op, idx, values, shape):
    shape = np.asarray(shape)
    if shape.size < 2:
        raise errors.InvalidArgumentError(
            None, op, "Input should have rank >= 2, but received shape: %s" % shape.size
        )
    idx = np.asarray(idx, np.int64)
    order = row_major(idx)
    values = np.asarray(values)[order]
    run = _runs(idx[order])
    n = int(run[-1]) + 1 if run.size else 0
    top = np.full(n, -np.inf, values.dtype)
    np.maximum.at(top, run, values)
    e = np.exp(values - top[run])
    total = np.zeros(n, values.dtype)
    np.add.at(total, run, e)
    return ((e / total[run]).astype(values.dtype),)


def _softmax_grad(op, grad):
    # TF's rule: (grad - sum(grad * softmax) over the last dimension) * softmax.
    idx, _, shape = op.inputs
    out = op.outputs[0]
    product = SparseTensor(idx, multiply(out, grad), shape)
    row_sums = -sparse_reduce_sum(product, [-1], keepdims=True)
    last = idx[:, -1:]
    at_row = concat([idx[:, :-1], zeros_like(last)], 1)
    return [None, (grad + gather_nd(row_sums, at_row)) * out, None]


register_op(
    "SparseSoftmax",
    infer=lambda op: [(op.inputs[1].dtype, op.inputs[1].shape)],
    kernel=_softmax_kernel,
    grad=_softmax_grad,
)


# --------------------------------------------------------------------------------------
# SparseReduceMax (dense and sparse results)
# --------------------------------------------------------------------------------------


def _reduce_args(sp_input, axis, keepdims, reduction_axes, keep_dims):
    sp = sparse_input(sp_input)
    if axis is None:
        axis = reduction_axes
    keep = bool(keepdims if keepdims is not None else keep_dims)
    axes = to_tensor(np.zeros([0], np.int32) if axis is None else axis, _dt.int32)
    return sp, axes, {"keep_dims": keep, "all": axis is None}


def sparse_reduce_max(
    sp_input: SparseInput,
    axis: AxisLike = None,
    keepdims: bool | None = None,
    reduction_axes: AxisLike = None,
    keep_dims: bool | None = None,
) -> Tensor:
    """The maximum of ``sp_input``'s values over ``axis`` (all axes if None), as a dense
    tensor: positions with no value reduced give 0, and missing values are ignored
    (not taken as 0); ``keepdims`` keeps reduced axes with size 1."""
    with in_graph_of([sp_input, axis, reduction_axes]):
        sp, axes, attrs = _reduce_args(sp_input, axis, keepdims, reduction_axes, keep_dims)
        return make(
            "SparseReduceMax",
            [sp.indices, sp.values, sp.dense_shape, axes],
            attrs,
            None,
            "SparseReduceMax",
        )


def sparse_reduce_max_sparse(
    sp_input: SparseInput,
    axis: AxisLike = None,
    keepdims: bool | None = None,
    reduction_axes: AxisLike = None,
    keep_dims: bool | None = None,
) -> SparseTensor:
    """``sparse_reduce_max`` as a ``SparseTensor`` holding only the reduced positions
    that had values, in row-major order."""
    with in_graph_of([sp_input, axis, reduction_axes]):
        sp, axes, attrs = _reduce_args(sp_input, axis, keepdims, reduction_axes, keep_dims)
        op = make_op(
            "SparseReduceMaxSparse",
            [sp.indices, sp.values, sp.dense_shape, axes],
            attrs,
            None,
            "SparseReduceMaxSparse",
        )
        return SparseTensor(*op.outputs)


def _max_groups(op, idx, values, shape, axes):
    """(kept shape, the reduced positions present in row-major order, their maxima)."""
    shape = np.asarray(shape, np.int64)
    idx, values = np.asarray(idx, np.int64).reshape(-1, shape.size), np.asarray(values)
    try:
        red = reduce_axes(op, axes, shape.size)
    except ValueError as e:
        raise errors.InvalidArgumentError(None, op, str(e)) from None
    out_shape = [1 if i in red else int(d) for i, d in enumerate(shape)]
    keys = idx.copy()
    keys[:, red] = 0
    uniq, inv = np.unique(keys, axis=0, return_inverse=True) if len(keys) else (keys, [])
    top = np.full(len(uniq), -np.inf if values.dtype.kind == "f" else np.iinfo(values.dtype).min)
    top = top.astype(values.dtype)
    np.maximum.at(top, np.asarray(inv).reshape(-1), values)
    return red, out_shape, uniq, top


def _srm_kernel(ctx, op, idx, values, shape, axes):
    red, out_shape, uniq, top = _max_groups(op, idx, values, shape, axes)
    out = np.zeros(out_shape, np.asarray(values).dtype)
    if len(uniq):
        out[tuple(uniq.T)] = top
    if not op.attrs["keep_dims"]:
        out = out.reshape([d for i, d in enumerate(out_shape) if i not in red])
    return (out,)


def _srms_kernel(ctx, op, idx, values, shape, axes):
    red, out_shape, uniq, top = _max_groups(op, idx, values, shape, axes)
    kept = [i for i in range(len(out_shape)) if op.attrs["keep_dims"] or i not in red]
    out_idx = uniq[:, kept].reshape(len(uniq), len(kept))
    return out_idx, top, np.array([out_shape[i] for i in kept], np.int64)


def _srms_infer(op):
    dense = sparse_reduce_infer(op)[0][1]
    rank = dense.ndims
    return [
        (_dt.int64, TensorShape([None, rank])),
        (op.inputs[1].dtype, TensorShape([None])),
        (_dt.int64, TensorShape([rank]) if rank is not None else unknown_shape()),
    ]


# No gradients, as in TF.
register_op("SparseReduceMax", infer=sparse_reduce_infer, kernel=_srm_kernel)
register_op("SparseReduceMaxSparse", infer=_srms_infer, kernel=_srms_kernel)
