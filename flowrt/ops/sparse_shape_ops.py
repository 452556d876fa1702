"""``SparseTensor`` layout: building one from a dense tensor or as an identity matrix,
reshaping (``SparseReshape``), slicing and splitting (``SparseSlice``, ``SparseSplit``),
transposing, adding a dimension, resetting the dense shape, and the indicator/merge
constructions of TF1's ``tf.sparse_to_indicator`` and ``tf.sparse_merge``. The others
are compositions, as in TF 2.21: the values pass through unchanged, so gradients reach
them through ordinary ops."""

from __future__ import annotations

import numbers
from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.graph import Tensor, constant_value, convert_to_tensor, get_default_graph
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from .._core.shape import TensorShape
from .array_ops import expand_dims, fill, identity, ones, shape, stack, transpose
from .common import in_graph_of, make_op, to_tensor
from .indexing_ops import gather_nd
from .math_ops import add, cast, maximum, minimum, not_equal, reduce_max, where
from .slicing_ops import concat, gather
from .sparse_ops import (
    SparseInput,
    SparseTensor,
    sparse_input,
    sparse_reorder,
    sparse_tensor_to_dense,
)

if TYPE_CHECKING:
    from .._core.typing import DTypeLike, ShapeLike, TensorLike

# TF1's top-level names; fr.sparse also has from_dense, eye and expand_dims.
__all__ = [
    "sparse_reshape",
    "sparse_transpose",
    "sparse_reset_shape",
    "sparse_merge",
    "sparse_to_indicator",
    "sparse_slice",
    "sparse_split",
]


def sparse_from_dense(tensor: TensorLike, name: str | None = None) -> SparseTensor:
    """The ``SparseTensor`` of the nonzero (non-empty, for strings) elements of
    ``tensor``, in row-major order (TF's ``tf.sparse.from_dense``).

    Args:
      tensor: a dense tensor.
      name: the name scope (default ``dense_to_sparse``).
    """
    from .array_ops import zeros_like

    with in_graph_of([tensor]):
        with get_default_graph().name_scope(name or "dense_to_sparse"):
            t = convert_to_tensor(tensor)
            indices = where(not_equal(t, zeros_like(t)))
            values = gather_nd(t, indices)
            out = SparseTensor(indices, values, shape(t, out_type=_dt.int64))
            out._shape = t.shape
            return out


def sparse_eye(
    num_rows: TensorLike,
    num_columns: TensorLike | None = None,
    dtype: DTypeLike = _dt.float32,
    name: str | None = None,
) -> SparseTensor:
    """A sparse ``[num_rows, num_columns]`` matrix with ones on its diagonal.

    Args:
      num_rows: the number of rows.
      num_columns: the number of columns (default ``num_rows``).
      dtype: the values' dtype.
      name: the name scope (default ``eye``).
    """
    from .array_ops import range as _range

    with in_graph_of([num_rows, num_columns]):
        with get_default_graph().name_scope(name or "eye"):
            rows = to_tensor(num_rows, _dt.int64, name="num_rows")
            cols = (
                rows
                if num_columns is None
                else to_tensor(num_columns, _dt.int64, name="num_columns")
            )
            diag = minimum(rows, cols)
            r = _range(diag, dtype=_dt.int64)
            values = ones(expand_dims(diag, 0), dtype)
            return SparseTensor(stack([r, r], axis=1), values, stack([rows, cols]))


def sparse_reshape(
    sp_input: SparseInput, shape: TensorLike, name: str | None = None
) -> SparseTensor:
    """``sp_input`` with dense shape ``shape`` (one dimension may be -1), its entries
    keeping their row-major positions.

    Raises:
      ValueError: a statically known ``shape`` holds another number of elements, or
        more than one -1.
    """
    with in_graph_of([sp_input, shape]):
        sp = sparse_input(sp_input)
        given = to_tensor(shape)
        new = cast(given, _dt.int64)
        with get_default_graph().name_scope(name or "SparseReshape") as scope:
            op = make_op("SparseReshape", [sp.indices, sp.dense_shape, new], {}, scope)
            out_shape: Tensor | list[int] = op.outputs[1]
            wanted = constant_value(given)
            if wanted is not None and sp.shape.is_fully_defined():
                out_shape = _static_reshape(sp.shape.as_list(), [int(d) for d in wanted])
            return SparseTensor(op.outputs[0], identity(sp.values), out_shape)


def _static_reshape(old: list[int], new: list[int]) -> list[int]:
    size = int(np.prod(old))
    if new.count(-1) > 1:
        raise ValueError("At most one dimension can be inferred (-1). Found: %s" % new)
    out = list(new)
    if -1 in new:
        rest = int(np.prod([d for d in new if d != -1]))
        out[new.index(-1)] = size // rest if rest else 0
    if int(np.prod(out)) != size:
        raise ValueError(
            "Cannot reshape a tensor with %d elements to shape %s (%d elements)."
            % (size, new, int(np.prod(out)))
        )
    return out


def _reshape_kernel(ctx, op, idx, old, new):
    idx, old, new = np.asarray(idx, np.int64), np.asarray(old, np.int64), np.asarray(new, np.int64)
    size = int(np.prod(old))
    unknown = np.flatnonzero(new == -1)
    if len(unknown) > 1:
        raise errors.InvalidArgumentError(
            None, op, "only one output dimension may be -1, not both %d and %d"
            % (unknown[0], unknown[1]),
        )  # fmt: skip
    out = new.copy()
    if len(unknown):
        rest = int(np.prod(new[new != -1]))
        out[unknown[0]] = size // rest if rest else 0
    if int(np.prod(out)) != size:
        raise errors.InvalidArgumentError(
            None, op, "Input to reshape is a SparseTensor with %d dense values, but the "
            "requested shape has %d. input_shape=%s output_shape=%s"
            % (size, int(np.prod(out)), old.tolist(), out.tolist()),
        )  # fmt: skip
    if len(idx) == 0 or size == 0:
        return np.zeros((len(idx), out.size), np.int64), out
    linear = np.ravel_multi_index(tuple(idx.T), tuple(old))
    return np.stack(np.unravel_index(linear, tuple(out)), axis=1).astype(np.int64), out


def _reshape_infer(op):
    idx, _, new = op.inputs
    rank = new.shape.as_list()[0] if new.shape.ndims == 1 else None
    n = idx.shape[0] if idx.shape.ndims == 2 else None
    return [(_dt.int64, TensorShape([n, rank])), (_dt.int64, TensorShape([rank]))]


register_op("SparseReshape", infer=_reshape_infer, kernel=_reshape_kernel, grad=NOT_DIFFERENTIABLE)


def sparse_transpose(
    sp_input: SparseInput, perm: TensorLike | None = None, name: str | None = None
) -> SparseTensor:
    """``sp_input`` with its dimensions permuted by ``perm`` (default: reversed), its
    entries reordered to row-major order.

    Args:
      sp_input: a ``SparseTensor``.
      perm: a permutation of the dimensions.
      name: the name scope (default ``SparseTranspose``).
    """
    from .array_ops import range as _range
    from .math_ops import subtract

    with in_graph_of([sp_input, perm]):
        sp = sparse_input(sp_input)
        with get_default_graph().name_scope(name or "SparseTranspose"):
            if perm is None:
                if sp.shape.ndims is not None:
                    perm = list(range(sp.shape.ndims - 1, -1, -1))
                else:
                    r = gather(shape(sp.dense_shape), 0)
                    perm = subtract(r - 1, _range(0, r, 1))
            perm_t = to_tensor(perm, _dt.int32 if not isinstance(perm, Tensor) else None)
            indices = transpose(gather(transpose(sp.indices), perm_t))
            known = constant_value(perm_t)
            dense_shape: Tensor | list[int]
            if known is not None and sp.shape.is_fully_defined():
                old = sp.shape.as_list()
                dense_shape = [old[int(p)] for p in np.asarray(known).reshape(-1)]
            else:
                dense_shape = gather(sp.dense_shape, perm_t)
            return sparse_reorder(SparseTensor(indices, sp.values, dense_shape))


def sparse_expand_dims(
    sp_input: SparseInput, axis: int | Tensor | None = None, name: str | None = None
) -> SparseTensor:
    """``sp_input`` with a dimension of size 1 inserted at ``axis`` (default -1: last).

    Raises:
      TypeError: ``axis`` is neither an int nor a tensor.
    """
    from .slicing_ops import slice as _slice

    with in_graph_of([sp_input, axis]):
        sp = sparse_input(sp_input)
        rank = sp.dense_shape.shape.as_list()[0] if sp.dense_shape.shape.ndims == 1 else None
        rank_t = gather(shape(sp.dense_shape), 0) if rank is None else rank
        axis = -1 if axis is None else axis
        with get_default_graph().name_scope(name or "expand_dims"):
            if isinstance(axis, numbers.Integral):
                axis = convert_to_tensor(int(axis), _dt.int32, name="axis")
            elif not isinstance(axis, Tensor):
                raise TypeError("axis must be an int or tensor, got %s" % type(axis).__name__)
            axis = where(axis >= 0, axis, axis + rank_t + 1)
            n = gather(shape(sp.indices), 0)
            new_index = fill(stack([n, 1]), to_tensor(0, _dt.int64))
            before = _slice(sp.indices, stack([0, 0]), stack([-1, axis]))
            after = _slice(sp.indices, stack([0, axis]), [-1, -1])
            indices = concat([before, new_index, after], 1)
            shape_before = _slice(sp.dense_shape, [0], expand_dims(axis, 0))
            shape_after = _slice(sp.dense_shape, expand_dims(axis, 0), [-1])
            dense_shape = concat([shape_before, ones([1], _dt.int64), shape_after], 0)
            return SparseTensor(indices, sp.values, dense_shape)


def sparse_reset_shape(sp_input: SparseInput, new_shape: ShapeLike | None = None) -> SparseTensor:
    """``sp_input`` with dense shape ``new_shape`` (each dimension at least the old
    one), or without ``new_shape`` the tightest shape holding its indices.

    Raises:
      ValueError: a statically known ``new_shape`` of another rank or smaller than the
        input's shape (``InvalidArgumentError`` at run time when not known statically).
    """
    with in_graph_of([sp_input, new_shape]):
        sp = sparse_input(sp_input)
        indices, values, in_shape = (
            identity(sp.indices), identity(sp.values), identity(sp.dense_shape)
        )  # fmt: skip
        if new_shape is None:
            low = reduce_max(indices, axis=0)
            out = maximum(to_tensor(0, _dt.int64), add(low, ones(shape(in_shape), _dt.int64)))
            return SparseTensor(indices, values, out)
        given = to_tensor(new_shape)
        out_t = cast(given, _dt.int64)
        if out_t.shape.ndims != 1:
            raise ValueError(
                "Shape must be rank 1 but is rank %s for new_shape" % out_t.shape.ndims
            )
        out_t.shape[:1].assert_is_compatible_with(in_shape.shape[:1])
        known = constant_value(given)
        if known is None or not sp.shape.is_fully_defined():
            from ..scopes import control_dependencies
            from . import check_ops

            with control_dependencies(
                [
                    check_ops.assert_equal(shape(in_shape), shape(out_t)),
                    check_ops.assert_less_equal(in_shape, out_t),
                ]
            ):
                return SparseTensor(indices, values, identity(out_t))
        old = np.array(sp.shape.as_list())
        if not np.all(old <= known):
            raise ValueError(
                "Requested new_shape should have dimension sizes >= sp_input.shape.  "
                "Found new_shape (%s), sp_input.shape (%s)." % (known, old)
            )
        return SparseTensor(indices, values, np.asarray(known, np.int64))


def sparse_merge(
    sp_ids: SparseInput | list,
    sp_values: SparseInput,
    vocab_size: TensorLike | list,
    name: str | None = None,
    already_sorted: bool = False,
) -> SparseTensor:
    """Moves ``sp_values`` into a new last dimension (or several) indexed by the ids of
    ``sp_ids``: entry ``[..., k]`` of ``sp_values`` goes to ``[..., sp_ids.values[k]]``
    in a ``[..., vocab_size]`` shape (TF1's ``tf.sparse_merge``).

    Args:
      sp_ids: an int ``SparseTensor`` of ids, or a list of them (one per new dimension).
      sp_values: a ``SparseTensor`` with the same indices as ``sp_ids``.
      vocab_size: the size of the new last dimension (a list with a list of ids).
      name: the name scope (default ``SparseMerge``).
      already_sorted: skip the reordering when the ids are known to be sorted.

    Raises:
      TypeError, ValueError: arguments of the wrong kind or mismatched lengths.
    """
    ids_list: list
    sizes: list
    if isinstance(sp_ids, SparseTensor) or hasattr(sp_ids, "dense_shape"):
        if not isinstance(vocab_size, (Tensor, numbers.Integral)):
            raise TypeError(
                "vocab_size has to be a Tensor or Python int. Found %s" % type(vocab_size)
            )
        ids_list, sizes = [sp_ids], [vocab_size]
    else:
        if not isinstance(sp_ids, Iterable):
            raise TypeError(
                "sp_ids has to be a SparseTensor or list thereof. Found %s" % type(sp_ids)
            )
        if not isinstance(vocab_size, Iterable):
            raise TypeError(
                "vocab_size has to be a list of Tensors or Python ints. Found %s" % type(vocab_size)
            )
        ids_list, sizes = list(sp_ids), list(vocab_size)
        if len(ids_list) != len(sizes):
            raise ValueError("sp_ids and vocab_size have to have equal lengths.")
    with in_graph_of([sp_values, *ids_list]):
        with get_default_graph().name_scope(name or "SparseMerge"):
            vals = sparse_input(sp_values, "sp_values")
            ids = [
                expand_dims(cast(sparse_input(s, "sp_ids").values, _dt.int64), 1) for s in ids_list
            ]
            sizes_t = [cast(to_tensor(v), _dt.int64) for v in sizes]
            new_indices = concat([vals.indices[:, :-1], *ids], 1)
            new_shape = concat([vals.dense_shape[:-1], stack(sizes_t)], 0)
            result = SparseTensor(new_indices, vals.values, new_shape)
            if already_sorted:
                return result
            ordered = sparse_reorder(result)
            return SparseTensor(ordered.indices, ordered.values, new_shape)


def sparse_to_indicator(
    sp_input: SparseInput, vocab_size: TensorLike, name: str | None = None
) -> Tensor:
    """A dense bool tensor of shape ``[..., vocab_size]``: ``[..., i]`` is True when id
    ``i`` is among the ids of ``sp_input``'s last dimension at ``[...]``.

    Args:
      sp_input: an int ``SparseTensor`` of ids (its last dimension lists them).
      vocab_size: the number of ids.
      name: the name scope (default ``SparseToIndicator``).
    """
    with in_graph_of([sp_input, vocab_size]):
        sp = sparse_input(sp_input)
        with get_default_graph().name_scope(name or "SparseToIndicator") as scope:
            n = gather(shape(sp.indices), 0)
            present = SparseTensor(sp.indices, fill(expand_dims(n, 0), True), sp.dense_shape)
            merged = sparse_merge(sp, present, vocab_size)
            # Repeated ids give repeated indices: allowed in an indicator.
            return sparse_tensor_to_dense(merged, False, validate_indices=False, name=scope)


# --------------------------------------------------------------------------------------
# SparseSlice and SparseSplit
# --------------------------------------------------------------------------------------


def sparse_slice(
    sp_input: SparseInput, start: TensorLike, size: TensorLike, name: str | None = None
) -> SparseTensor:
    """The part of ``sp_input`` in the box from ``start`` of extent ``size`` (clipped
    to the dense shape), with indices relative to ``start``, in the input's order.

    Args:
      sp_input: a ``SparseTensor``.
      start: the box's first coordinate (one per dimension).
      size: the box's extent (one per dimension).
      name: the name scope (default ``SparseSlice``).
    """
    with in_graph_of([sp_input, start, size]):
        sp = sparse_input(sp_input)
        start_t, size_t = to_tensor(start, _dt.int64), to_tensor(size, _dt.int64)
        with get_default_graph().name_scope(name or "SparseSlice") as scope:
            op = make_op(
                "SparseSlice", [sp.indices, sp.values, sp.dense_shape, start_t, size_t], {}, scope
            )
            return SparseTensor(*op.outputs)


def _slice_kernel(ctx, op, idx, values, shape, start, size):
    idx, shape = np.asarray(idx, np.int64), np.asarray(shape, np.int64)
    start, size = np.asarray(start, np.int64), np.asarray(size, np.int64)
    if start.shape != shape.shape or size.shape != shape.shape:
        raise errors.InvalidArgumentError(
            None, op, "Expected start and size of length %d (the input's rank), got %d and %d"
            % (shape.size, start.size, size.size),
        )  # fmt: skip
    end = np.minimum(start + size, shape)
    keep = np.all((idx >= start) & (idx < end), axis=1) if idx.size else np.zeros(len(idx), bool)
    out_shape = np.maximum(end - start, 0)
    return (idx[keep] - start).reshape(-1, shape.size), np.asarray(values)[keep], out_shape


def _slice_infer(op):
    idx, values, shape = op.inputs[:3]
    rank = idx.shape[1] if idx.shape.ndims == 2 else None
    return [
        (_dt.int64, TensorShape([None, rank])),
        (values.dtype, TensorShape([None])),
        (_dt.int64, shape.shape),
    ]


def _slice_grad(op, _g_idx, g_val, _g_shape):
    idx, _, _, start, _ = op.inputs
    g = make_op("SparseSliceGrad", [g_val, idx, start, op.outputs[0]], {}, None).outputs[0]
    return [None, g, None, None, None]


register_op("SparseSlice", infer=_slice_infer, kernel=_slice_kernel, grad=_slice_grad)


def _slice_grad_kernel(ctx, op, g, idx, start, out_idx):
    """Each input entry's gradient: that of the output entry it became, else 0."""
    g = np.asarray(g)
    where = {tuple(r): k for k, r in enumerate(np.asarray(out_idx).tolist())}
    rel = np.asarray(idx, np.int64) - np.asarray(start, np.int64)
    rows = np.array([where.get(tuple(r), -1) for r in rel.tolist()], np.int64)
    out = np.zeros(len(rows), g.dtype)
    out[rows >= 0] = g[rows[rows >= 0]]
    return (out,)


register_op(
    "SparseSliceGrad",
    infer=lambda op: [(op.inputs[0].dtype, TensorShape([op.inputs[1].shape[0]]))],
    kernel=_slice_grad_kernel,
    grad=NOT_DIFFERENTIABLE,
)


def sparse_split(
    *args: object,
    sp_input: SparseInput | None = None,
    num_split: int | None = None,
    axis: int | None = None,
    name: str | None = None,
    split_dim: int | None = None,
) -> list[SparseTensor]:
    """``sp_input`` split along ``axis`` into ``num_split`` ``SparseTensor`` pieces; the
    first ``size % num_split`` pieces are one longer. Keyword arguments only, as TF's.

    Args:
      sp_input: a ``SparseTensor``.
      num_split: the number of pieces (a Python int).
      axis: the dimension to split (a Python int, may be negative).
      name: the name scope (default ``SparseSplit``).
      split_dim: the deprecated name of ``axis``.

    Raises:
      ValueError: positional arguments, a missing argument, or both ``axis`` and
        ``split_dim``.
    """
    if args:
        raise ValueError("Keyword arguments are required for this function.")
    if axis is not None and split_dim is not None:
        raise ValueError("Cannot specify both 'axis' and 'split_dim'")
    axis = split_dim if axis is None else axis
    if sp_input is None:
        raise ValueError("Argument `sp_input` is required.")
    if num_split is None:
        raise ValueError("Argument `num_split` is required.")
    if axis is None:
        raise ValueError("Argument `axis` is required.")
    with in_graph_of([sp_input]):
        sp = sparse_input(sp_input)
        with get_default_graph().name_scope(name or "SparseSplit") as scope:
            dim = to_tensor(axis, _dt.int64, name="split_dim")
            op = make_op(
                "SparseSplit",
                [dim, sp.indices, sp.values, sp.dense_shape],
                {"num_split": int(num_split)},
                scope,
            )
            n = int(num_split)
            outs = op.outputs
            return [SparseTensor(outs[i], outs[n + i], outs[2 * n + i]) for i in range(n)]


def _split_kernel(ctx, op, dim, idx, values, shape):
    idx, shape, values = np.asarray(idx, np.int64), np.asarray(shape, np.int64), np.asarray(values)
    n, rank = op.attrs["num_split"], shape.size
    d = int(dim)
    if not -rank <= d < rank:
        raise errors.InvalidArgumentError(
            None, op, "Input split_dim should be between -%d and %d, got %d" % (rank, rank, d)
        )
    d %= rank
    if n < 1 or n > shape[d]:
        raise errors.InvalidArgumentError(
            None, op, "Input num_split should be between 1 and %d, got %d" % (shape[d], n)
        )
    base, extra = divmod(int(shape[d]), n)
    sizes = [base + 1 if i < extra else base for i in range(n)]
    starts = np.cumsum([0] + sizes[:-1])
    out_idx, out_val, out_shape = [], [], []
    for lo, sz in zip(starts, sizes):
        keep = (idx[:, d] >= lo) & (idx[:, d] < lo + sz) if idx.size else np.zeros(len(idx), bool)
        piece = idx[keep].reshape(-1, rank).copy()
        piece[:, d] -= lo
        out_idx.append(piece)
        out_val.append(values[keep])
        s = shape.copy()
        s[d] = sz
        out_shape.append(s)
    return (*out_idx, *out_val, *out_shape)


def _split_infer(op):
    idx, values, shape = op.inputs[1:]
    n = op.attrs["num_split"]
    rank = idx.shape[1] if idx.shape.ndims == 2 else None
    return (
        [(_dt.int64, TensorShape([None, rank]))] * n
        + [(values.dtype, TensorShape([None]))] * n
        + [(_dt.int64, shape.shape)] * n
    )


register_op("SparseSplit", infer=_split_infer, kernel=_split_kernel)  # no gradient, as TF
