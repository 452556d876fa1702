"""More of TF1's array surface: ``tensordot``, ``reverse_sequence``, ``where_v2``,
``repeat``, ``ensure_shape``, ``shape_n``, ``setdiff1d``, ``unravel_index``,
``bincount``, ``cross``, ``to_double``, ``broadcast_static_shape``,
``broadcast_dynamic_shape``, ``parallel_stack``, ``batch_gather``, ``scalar_mul``,
``accumulate_n``.

Op types are ``register_op`` rows (shape rule, numpy kernel, TF's gradient); the rest
are composed from existing ops as TF composes them, so their gradients come free.
"""

from __future__ import annotations

import collections
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.graph import Tensor
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from .._core.shape import TensorShape, as_shape, broadcast_shapes, unknown_shape
from . import array_ops, indexing_ops, linalg_ops, math_ops, slicing_ops
from .common import NUMERIC, check_dtype, make, make_op, op_scope, to_tensor
from .const_eval import static_value

if TYPE_CHECKING:
    from .._core.typing import DTypeLike, ShapeLike, TensorLike

__all__ = [
    "tensordot",
    "reverse_sequence",
    "where_v2",
    "repeat",
    "ensure_shape",
    "shape_n",
    "setdiff1d",
    "unravel_index",
    "bincount",
    "cross",
    "to_double",
    "broadcast_static_shape",
    "broadcast_dynamic_shape",
    "parallel_stack",
    "batch_gather",
    "scalar_mul",
    "accumulate_n",
]

_INDEX = (_dt.int32, _dt.int64)


def _int_tensor(v, dtype=_dt.int32) -> Tensor:
    return v if isinstance(v, Tensor) else to_tensor(v, dtype)


# --------------------------------------------------------------------------------------
# tensordot (composed: transpose, reshape, matmul -- as TF)
# --------------------------------------------------------------------------------------


def _tensordot_axes(a: Tensor, axes):
    """The contraction axes of ``a`` and of ``b`` (lists, or int32 tensors)."""
    if isinstance(axes, (int, np.integer)):
        if axes < 0:
            raise ValueError("'axes' must be at least 0.")
        if a.shape.ndims is not None:
            if axes > a.shape.ndims:
                raise ValueError(
                    "'axes' must not be larger than the number of dimensions of tensor %s." % a
                )
            n = a.shape.ndims
            return list(range(n - axes, n)), list(range(axes))
        r = array_ops.rank(a)
        return array_ops.range(r - axes, r), array_ops.range(axes)
    if isinstance(axes, (list, tuple)):
        if len(axes) != 2:
            raise ValueError("'axes' must be an integer or have length 2.")
        a_axes, b_axes = axes
        if isinstance(a_axes, (int, np.integer)) and isinstance(b_axes, (int, np.integer)):
            a_axes, b_axes = [int(a_axes)], [int(b_axes)]
        if not isinstance(a_axes, Tensor) and not isinstance(b_axes, Tensor):
            a_axes, b_axes = [int(i) for i in a_axes], [int(i) for i in b_axes]
            if len(a_axes) != len(b_axes):
                raise ValueError(
                    "Different number of contraction axes 'a' and 'b', %d != %d."
                    % (len(a_axes), len(b_axes))
                )
            return a_axes, b_axes
        return _int_tensor(a_axes), _int_tensor(b_axes)
    axes = _int_tensor(axes)
    return axes[0], axes[1]


def _static_free_dims(a: Tensor, axes):
    """``a``'s free dimensions (some maybe None) when its rank and ``axes`` are static."""
    if a.shape.ndims is None or not isinstance(axes, list):
        return None
    n = a.shape.ndims
    axes = [i + n if i < 0 else i for i in axes]
    return [d for i, d in enumerate(a.shape.as_list()) if i not in axes]


def _tensordot_reshape(a: Tensor, axes, flipped: bool):
    """``a`` transposed and reshaped to a matrix with the contracted axes on the inner
    side (the outer side when ``flipped``); and its free dimensions (list or tensor)."""
    if a.shape.is_fully_defined() and isinstance(axes, list):
        dims = a.shape.as_list()
        n = len(dims)
        axes = [i + n if i < 0 else i for i in axes]
        for i in axes:
            if not 0 <= i < n:
                raise ValueError("tensordot axis %d is out of range for %s" % (i, a))
        free = [i for i in range(n) if i not in axes]
        free_dims = [dims[i] for i in free]
        prod_free = int(np.prod(free_dims))
        prod_axes = int(np.prod([dims[i] for i in axes]))
        perm = axes + free if flipped else free + axes
        new_shape = [prod_axes, prod_free] if flipped else [prod_free, prod_axes]
        t = a if perm == list(range(n)) else array_ops.transpose(a, perm)
        if t.shape.as_list() != new_shape:
            t = array_ops.reshape(t, new_shape)
        return t, free_dims
    shape_a, rank_a = array_ops.shape(a), array_ops.rank(a)
    ax = _int_tensor(axes)
    ax = where_v2(ax >= 0, ax, ax + rank_a)
    free_t, _ = setdiff1d(array_ops.range(rank_a), ax)
    free_dims_t = slicing_ops.gather(shape_a, free_t)
    prod_free_t = math_ops.reduce_prod(free_dims_t)
    prod_axes_t = math_ops.reduce_prod(slicing_ops.gather(shape_a, ax))
    if flipped:
        perm_t = slicing_ops.concat([ax, free_t], 0)
        shape_t = array_ops.stack([prod_axes_t, prod_free_t])
    else:
        perm_t = slicing_ops.concat([free_t, ax], 0)
        shape_t = array_ops.stack([prod_free_t, prod_axes_t])
    return array_ops.reshape(array_ops.transpose(a, perm_t), shape_t), free_dims_t


def tensordot(a: TensorLike, b: TensorLike, axes: Any, name: str | None = None) -> Tensor:
    """The tensor contraction of ``a`` and ``b`` over ``axes``, composed (as TF) from
    ``transpose``, ``reshape`` and ``matmul``, so its gradient is theirs.

    Args:
      a: a float tensor.
      b: a tensor of ``a``'s dtype.
      axes: an int ``N`` (the last N axes of ``a`` against the first N of ``b``), a pair
        of axis lists ``[a_axes, b_axes]`` of equal length, or an int32 tensor of shape
        ``[2, k]`` (or a pair of int32 tensors).
      name: a name scope for the ops (default ``Tensordot``).

    Raises:
      ValueError: for negative ``axes``, more axes than ``a`` has, or axis lists of
        different lengths.
    """
    with op_scope([a, b, axes], name, "Tensordot") as scope:
        a, b = to_tensor(a, name="a"), to_tensor(b, name="b")
        a_axes, b_axes = _tensordot_axes(a, axes)
        a_m, a_free = _tensordot_reshape(a, a_axes, False)
        b_m, b_free = _tensordot_reshape(b, b_axes, True)
        ab = linalg_ops.matmul(a_m, b_m)
        if isinstance(a_free, list) and isinstance(b_free, list):
            if ab.shape.as_list() == a_free + b_free:
                return array_ops.identity(ab, name=scope)
            return array_ops.reshape(ab, a_free + b_free, name=scope)
        a_static, b_static = _static_free_dims(a, a_axes), _static_free_dims(b, b_axes)
        a_free, b_free = _int_tensor(a_free), _int_tensor(b_free)
        out = array_ops.reshape(ab, slicing_ops.concat([a_free, b_free], 0), name=scope)
        if a_static is not None and b_static is not None:
            out.set_shape(TensorShape(a_static + b_static))
        return out


# --------------------------------------------------------------------------------------
# ReverseSequence
# --------------------------------------------------------------------------------------


def _revseq_infer(op):
    x, lens = op.inputs
    check_dtype(lens, _INDEX, "seq_lengths")
    sd, bd = op.attrs["seq_dim"], op.attrs["batch_dim"]
    if lens.shape.ndims not in (None, 1):
        raise ValueError("seq_lengths must be 1-dimensional, got shape %s" % lens.shape)
    if x.shape.ndims is not None:
        n = x.shape.ndims
        if sd == bd or not (0 <= sd < n and 0 <= bd < n):
            raise ValueError(
                "seq_dim (%d) and batch_dim (%d) must be distinct axes of the input of "
                "rank %d" % (sd, bd, n)
            )
        if not TensorShape([x.shape.as_list()[bd]]).is_compatible_with(lens.shape):
            raise ValueError(
                "len(seq_lengths) (%s) != input.dims(%d) (%s)"
                % (lens.shape[0], bd, x.shape.as_list()[bd])
            )
    return [(x.dtype, x.shape)]


def _revseq_kernel(ctx, op, x, lens):
    sd, bd = op.attrs["seq_dim"], op.attrs["batch_dim"]
    if lens.shape[0] != x.shape[bd]:
        raise errors.InvalidArgumentError(
            None,
            op,
            "len(seq_lengths) (%d) != input.dims(%d) (%d)" % (lens.shape[0], bd, x.shape[bd]),
        )
    out = x.copy()
    for i, n in enumerate(lens.tolist()):
        if not 0 <= n <= x.shape[sd]:
            raise errors.InvalidArgumentError(
                None,
                op,
                "seq_lengths[%d] = %d is not in [0, input.dims(%d) = %d]" % (i, n, sd, x.shape[sd]),
            )
        src: list[Any] = [slice(None)] * x.ndim
        src[bd], src[sd] = i, slice(n - 1, None, -1) if n else slice(0, 0)
        dst: list[Any] = [slice(None)] * x.ndim
        dst[bd], dst[sd] = i, slice(0, n)
        out[tuple(dst)] = x[tuple(src)]
    return (out,)


register_op(
    "ReverseSequence",
    infer=_revseq_infer,
    kernel=_revseq_kernel,
    grad=lambda op, g: [
        make(
            "ReverseSequence",
            [g, op.inputs[1]],
            {"seq_dim": op.attrs["seq_dim"], "batch_dim": op.attrs["batch_dim"]},
        ),
        None,
    ],
)


def reverse_sequence(
    input: TensorLike,
    seq_lengths: TensorLike,
    seq_axis: int | None = None,
    batch_axis: int | None = None,
    name: str | None = None,
    seq_dim: int | None = None,
    batch_dim: int | None = None,
) -> Tensor:
    """Reverses, for each ``i`` along ``batch_axis``, the first ``seq_lengths[i]``
    elements along ``seq_axis`` (the rest stay in place).

    Args:
      input: a tensor.
      seq_lengths: an int32/int64 vector, as long as ``input``'s ``batch_axis``.
      seq_axis: the axis reversed (TF1's ``seq_dim`` is the same argument).
      batch_axis: the batch axis (default 0; TF1's ``batch_dim``).
      name: the op's name (default ``ReverseSequence``).
      seq_dim: deprecated name of ``seq_axis``.
      batch_dim: deprecated name of ``batch_axis``.

    Raises:
      InvalidArgumentError: at run time, for a length outside ``[0, input.dims(seq_axis)]``.
    """
    sd = _one_of(seq_axis, seq_dim, "seq_axis", "seq_dim")
    bd = _one_of(batch_axis, batch_dim, "batch_axis", "batch_dim")
    if sd is None:
        raise ValueError("reverse_sequence needs seq_axis")
    with op_scope([input, seq_lengths], None, None):
        x = to_tensor(input)
        bd = 0 if bd is None else int(bd)
        n = x.shape.ndims
        sd, bd = int(sd), bd
        if n is not None:
            sd, bd = sd + n if sd < 0 else sd, bd + n if bd < 0 else bd
        lens = _int_tensor(seq_lengths, _dt.int64)
        return make("ReverseSequence", [x, lens], {"seq_dim": sd, "batch_dim": bd}, name)


def _one_of(a, b, na, nb):
    if a is not None and b is not None and a != b:
        raise ValueError("Cannot specify both '%s' and '%s'" % (na, nb))
    return a if a is not None else b


# --------------------------------------------------------------------------------------
# SelectV2 (where_v2): broadcasting select
# --------------------------------------------------------------------------------------


def _select_v2_infer(op):
    c, x, y = op.inputs
    check_dtype(c, (_dt.bool,), "condition")
    if x.dtype is not y.dtype:
        raise TypeError(
            "Input 'e' of 'SelectV2' Op has type %s that does not match type %s of "
            "argument 't'." % (y.dtype.name, x.dtype.name)
        )
    return [(x.dtype, broadcast_shapes(broadcast_shapes(c.shape, x.shape), y.shape))]


def _select_v2_kernel(ctx, op, c, x, y):
    try:
        return (np.asarray(np.where(c, x, y), dtype=x.dtype),)
    except ValueError:
        raise errors.InvalidArgumentError(
            None,
            op,
            "condition %s, then %s and else %s shapes are not broadcastable"
            % (list(c.shape), list(x.shape), list(y.shape)),
        ) from None


def _sum_back(g, x: Tensor, out: Tensor):
    rx, _ = array_ops.broadcast_gradient_args(array_ops.shape(x), array_ops.shape(out))
    return array_ops.reshape(math_ops.reduce_sum(g, rx, keepdims=True), array_ops.shape(x))


def _select_v2_grad(op, g):
    c, x, y = op.inputs
    zeros = array_ops.zeros_like(g)
    gx = make("SelectV2", [c, g, zeros])
    gy = make("SelectV2", [c, zeros, g])
    out = op.outputs[0]
    return [None, _sum_back(gx, x, out), _sum_back(gy, y, out)]


register_op("SelectV2", infer=_select_v2_infer, kernel=_select_v2_kernel, grad=_select_v2_grad)


def where_v2(
    condition: TensorLike,
    x: TensorLike | None = None,
    y: TensorLike | None = None,
    name: str | None = None,
) -> Tensor:
    """``x`` where ``condition`` is true, else ``y``, with ``condition``, ``x`` and ``y``
    broadcast against each other (op SelectV2); with neither ``x`` nor ``y``, the
    coordinates of the true elements (as ``fr.where``).

    Args:
      condition: a bool tensor.
      x: values where ``condition`` is true.
      y: values where it is false (``x``'s dtype).
      name: the op's name.
    """
    if x is None and y is None:
        return math_ops.where(condition, name=name)
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    with op_scope([condition, x, y], None, None):
        tx, ty = math_ops.binary_inputs(x, y, "SelectV2")
        return make("SelectV2", [to_tensor(condition), tx, ty], None, name)


# --------------------------------------------------------------------------------------
# repeat (composed: gather of repeated indices)
# --------------------------------------------------------------------------------------


def repeat(
    input: TensorLike, repeats: TensorLike, axis: int | None = None, name: str | None = None
) -> Tensor:
    """Each slice of ``input`` along ``axis`` repeated ``repeats`` times (numpy's
    ``repeat``); composed from ``sequence_mask``, ``boolean_mask`` and ``gather``.

    Args:
      input: a tensor.
      repeats: an int32 scalar, or a vector as long as ``input``'s ``axis``.
      axis: the axis; None repeats the flattened ``input``.
      name: a name scope for the ops (default ``Repeat``).
    """
    with op_scope([input, repeats], name, "Repeat"):
        x = to_tensor(input)
        if axis is None:
            x, axis = array_ops.reshape(x, [-1]), 0
        r = _int_tensor(repeats)
        if r.shape.ndims not in (None, 0, 1):
            raise ValueError("repeats must be a scalar or a vector, got shape %s" % r.shape)
        n = array_ops.shape(x)[axis]
        r = math_ops.broadcast_to(r, array_ops.reshape(n, [1]))
        width = math_ops.maximum(math_ops.reduce_max(r), 0)
        mask = indexing_ops.sequence_mask(r, width)
        rows = math_ops.broadcast_to(
            array_ops.expand_dims(array_ops.range(n), 1), array_ops.shape(mask)
        )
        return slicing_ops.gather(x, indexing_ops.boolean_mask(rows, mask), axis=axis)


# --------------------------------------------------------------------------------------
# EnsureShape, ShapeN, ListDiff, UnravelIndex, Bincount, Cross, BroadcastArgs
# --------------------------------------------------------------------------------------


def _ensure_infer(op):
    want = op.attrs["shape"]
    x = op.inputs[0]
    if not x.shape.is_compatible_with(want):
        raise ValueError(
            "Shape of tensor %s %s is not compatible with expected shape %s."
            % (x.name, x.shape, want)
        )
    return [(x.dtype, x.shape.merge_with(want))]


def _dims_str(shape: TensorShape) -> str:
    """A shape as TF's run-time messages print it: ``[2,?,4]``."""
    if shape.ndims is None:
        return "<unknown>"
    return "[%s]" % ",".join("?" if d is None else str(d) for d in shape.as_list())


def _ensure_kernel(ctx, op, x):
    want = op.attrs["shape"]
    if not TensorShape(x.shape).is_compatible_with(want):
        raise errors.InvalidArgumentError(
            None,
            op,
            "Shape of tensor %s %s is not compatible with expected shape %s."
            % (op.inputs[0].name, _dims_str(TensorShape(x.shape)), _dims_str(want)),
        )
    return (x,)


register_op("EnsureShape", infer=_ensure_infer, kernel=_ensure_kernel, grad=lambda op, g: [g])


def ensure_shape(x: TensorLike, shape: ShapeLike, name: str | None = None) -> Tensor:
    """``x``, checked at run time to have a shape compatible with ``shape`` (and given
    that static shape).

    Args:
      x: a tensor.
      shape: a (partially known) shape.
      name: the op's name (default ``EnsureShape``).

    Raises:
      ValueError: when ``x``'s static shape already contradicts ``shape``.
      InvalidArgumentError: at run time, naming both shapes.
    """
    return make("EnsureShape", [x], {"shape": as_shape(shape)}, name)


def _shape_n_infer(op):
    out = op.attrs["out_type"]
    return [(out, TensorShape([t.shape.ndims])) for t in op.inputs]


def _shape_n_kernel(ctx, op, *xs):
    dt = op.attrs["out_type"].np
    return tuple(np.asarray(x.shape, dtype=dt) for x in xs)


register_op("ShapeN", infer=_shape_n_infer, kernel=_shape_n_kernel, grad=NOT_DIFFERENTIABLE)


def shape_n(
    input: Sequence[TensorLike], out_type: DTypeLike = _dt.int32, name: str | None = None
) -> list[Tensor]:
    """The shapes of the tensors ``input``, one int vector each (one op ShapeN).

    Args:
      input: a list of tensors.
      out_type: int32 or int64.
      name: the op's name (default ``ShapeN``).
    """
    out = _dt.as_dtype(out_type)
    if out not in _INDEX:
        raise TypeError("out_type must be int32 or int64, got %s" % out.name)
    return list(make_op("ShapeN", list(input), {"out_type": out}, name).outputs)


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


def _unravel_infer(op):
    ix, dims = op.inputs
    check_dtype(ix, _INDEX, "indices")
    if dims.dtype is not ix.dtype:
        raise TypeError("dims has dtype %s, indices %s" % (dims.dtype.name, ix.dtype.name))
    if ix.shape.ndims not in (None, 0, 1) or dims.shape.ndims not in (None, 1):
        raise ValueError(
            "indices must be a scalar or vector and dims a vector, got shapes %s and %s"
            % (ix.shape, dims.shape)
        )
    n = dims.shape[0] if dims.shape.ndims == 1 else None
    if ix.shape.ndims == 0:
        return [(ix.dtype, TensorShape([n]))]
    m = ix.shape[0] if ix.shape.ndims == 1 else None
    return [(ix.dtype, TensorShape([n, m]) if ix.shape.ndims == 1 else unknown_shape())]


def _unravel_kernel(ctx, op, ix, dims):
    size = int(np.prod(dims))
    bad = (ix < 0) | (ix >= size)
    if np.any(bad):
        raise errors.InvalidArgumentError(
            None,
            op,
            "index %d is out of bounds for array of size %d (dims %s)"
            % (int(np.asarray(ix).reshape(-1)[np.flatnonzero(bad)[0]]), size, dims.tolist()),
        )
    return (np.asarray(np.unravel_index(ix, tuple(dims.tolist())), dtype=ix.dtype),)


register_op("UnravelIndex", infer=_unravel_infer, kernel=_unravel_kernel, grad=NOT_DIFFERENTIABLE)


def unravel_index(indices: TensorLike, dims: TensorLike, name: str | None = None) -> Tensor:
    """The coordinates in an array of shape ``dims`` of the flat ``indices``: shape
    ``[len(dims)]`` for a scalar index, ``[len(dims), n]`` for ``n`` indices.

    Args:
      indices: an int32/int64 scalar or vector.
      dims: an int vector of ``indices``' dtype.
      name: the op's name (default ``UnravelIndex``).

    Raises:
      InvalidArgumentError: at run time, for an index outside the array (naming it).
    """
    with op_scope([indices, dims], None, None):
        ix = _int_tensor(indices)
        return make("UnravelIndex", [ix, _int_tensor(dims, ix.dtype)], None, name)


def _bincount_infer(op):
    arr, size, w = op.inputs
    check_dtype(arr, (_dt.int32,), "arr")
    n = static_value(size)
    return [(w.dtype, TensorShape([None if n is None else int(n)]))]


def _bincount_kernel(ctx, op, arr, size, w):
    size = int(size)
    if size < 0:
        raise errors.InvalidArgumentError(None, op, "size (%d) must be non-negative" % size)
    if arr.size and arr.min() < 0:
        raise errors.InvalidArgumentError(None, op, "Input arr must be non-negative!")
    flat = arr.reshape(-1)
    keep = flat < size
    if w.size:
        if w.shape != arr.shape:
            raise errors.InvalidArgumentError(
                None,
                op,
                "weights shape %s must match arr shape %s" % (list(w.shape), list(arr.shape)),
            )
        out = np.zeros(size, dtype=w.dtype)
        np.add.at(out, flat[keep], w.reshape(-1)[keep])
        return (out,)
    return (np.bincount(flat[keep], minlength=size)[:size].astype(w.dtype),)


register_op("Bincount", infer=_bincount_infer, kernel=_bincount_kernel, grad=NOT_DIFFERENTIABLE)


def bincount(
    arr: TensorLike,
    weights: TensorLike | None = None,
    minlength: TensorLike | None = None,
    maxlength: TensorLike | None = None,
    dtype: DTypeLike = _dt.int32,
    name: str | None = None,
) -> Tensor:
    """How often each value ``0..max(arr)`` occurs in the int32 ``arr`` (or the sum of
    ``weights`` at those places); at least ``minlength``, at most ``maxlength`` bins.

    Args:
      arr: an int32 tensor of non-negative values.
      weights: None, or a tensor of ``arr``'s shape (its dtype is the result's).
      minlength: the least number of bins.
      maxlength: the most number of bins (values beyond are ignored).
      dtype: the result's dtype when ``weights`` is None.
      name: a name scope for the ops (default ``bincount``).

    Raises:
      InvalidArgumentError: at run time, for a negative value in ``arr``.
    """
    with op_scope([arr, weights, minlength, maxlength], name, "bincount"):
        arr = _int_tensor(arr)
        nonempty = math_ops.cast(array_ops.size(arr) > 0, _dt.int32)
        size = (math_ops.reduce_max(arr) + 1) * nonempty
        if minlength is not None:
            size = math_ops.maximum(_int_tensor(minlength), size)
        if maxlength is not None:
            size = math_ops.minimum(_int_tensor(maxlength), size)
        if weights is None:
            w = array_ops.constant([], _dt.as_dtype(dtype))
        else:
            w = to_tensor(weights)
        return make("Bincount", [arr, size, w], None, None, "Bincount")


def _cross_infer(op):
    a, b = op.inputs
    check_dtype(a, NUMERIC, "a")
    if a.dtype is not b.dtype:
        raise TypeError("b has dtype %s, a %s" % (b.dtype.name, a.dtype.name))
    if not a.shape.is_compatible_with(b.shape):
        raise ValueError("a and b must be the same shape, got %s and %s" % (a.shape, b.shape))
    s = a.shape.merge_with(b.shape)
    if s.ndims == 0 or (s.ndims is not None and s.as_list()[-1] not in (None, 3)):
        raise ValueError("Dimension must be 3 but is %s for the inner axis of %s" % (s[-1], s))
    return [(a.dtype, s)]


def _cross_kernel(ctx, op, a, b):
    if a.shape != b.shape or not a.ndim or a.shape[-1] != 3:
        raise errors.InvalidArgumentError(
            None,
            op,
            "a and b must be the same shape with an inner dimension of 3, got %s and %s"
            % (list(a.shape), list(b.shape)),
        )
    return (np.cross(a, b).astype(a.dtype, copy=False),)


register_op(
    "Cross",
    infer=_cross_infer,
    kernel=_cross_kernel,
    grad=lambda op, g: [cross(op.inputs[1], g), cross(g, op.inputs[0])],
)


def cross(a: TensorLike, b: TensorLike, name: str | None = None) -> Tensor:
    """The cross product of the 3-vectors along the last axis of ``a`` and ``b``.

    Args:
      a: a numeric tensor whose last dimension is 3.
      b: a tensor of ``a``'s dtype and shape.
      name: the op's name (default ``Cross``).
    """
    with op_scope([a, b], None, None):
        ta, tb = math_ops.binary_inputs(a, b, "Cross")
        return make("Cross", [ta, tb], None, name)


def _bargs_infer(op):
    s0, s1 = op.inputs
    for t, n in ((s0, "s0"), (s1, "s1")):
        check_dtype(t, _INDEX, n)
    if s1.dtype is not s0.dtype:
        raise TypeError("s1 has dtype %s, s0 %s" % (s1.dtype.name, s0.dtype.name))
    a, b = static_value(s0), static_value(s1)
    if a is not None and b is not None:
        return [(s0.dtype, TensorShape([len(_bcast(a, b, None))]))]
    n0 = s0.shape[0] if s0.shape.ndims == 1 else None
    n1 = s1.shape[0] if s1.shape.ndims == 1 else None
    return [(s0.dtype, TensorShape([None if n0 is None or n1 is None else max(n0, n1)]))]


def _bcast(a, b, op):
    try:
        return np.broadcast_shapes(tuple(np.asarray(a).tolist()), tuple(np.asarray(b).tolist()))
    except ValueError:
        msg = "Incompatible shapes: [%s] vs. [%s]" % (
            ",".join(map(str, np.asarray(a).tolist())),
            ",".join(map(str, np.asarray(b).tolist())),
        )
        if op is None:
            raise ValueError(msg) from None
        raise errors.InvalidArgumentError(None, op, msg) from None


register_op(
    "BroadcastArgs",
    infer=_bargs_infer,
    kernel=lambda ctx, op, a, b: (np.asarray(_bcast(a, b, op), dtype=a.dtype),),
    grad=NOT_DIFFERENTIABLE,
)


def broadcast_dynamic_shape(
    shape_x: TensorLike, shape_y: TensorLike, name: str | None = None
) -> Tensor:
    """The broadcast of two shape vectors, computed at run time (op BroadcastArgs).

    Args:
      shape_x: an int32/int64 vector.
      shape_y: a vector of ``shape_x``'s dtype.
      name: the op's name.

    Raises:
      InvalidArgumentError: at run time, when the shapes do not broadcast.
    """
    with op_scope([shape_x, shape_y], None, None):
        sx = _int_tensor(shape_x)
        return make("BroadcastArgs", [sx, _int_tensor(shape_y, sx.dtype)], None, name)


def broadcast_static_shape(shape_x: ShapeLike, shape_y: ShapeLike) -> TensorShape:
    """The broadcast of two static shapes (unknown dimensions stay unknown).

    Raises:
      ValueError: when the shapes do not broadcast.
    """
    x, y = as_shape(shape_x), as_shape(shape_y)
    try:
        return broadcast_shapes(x, y)
    except ValueError:
        raise ValueError("Incompatible shapes for broadcasting: %s and %s" % (x, y)) from None


# --------------------------------------------------------------------------------------
# Composed: to_double, parallel_stack, batch_gather, scalar_mul,
# accumulate_n
# --------------------------------------------------------------------------------------


def to_double(x: TensorLike, name: str | None = "ToDouble") -> Tensor:
    """``fr.cast(x, fr.float64)`` (TF1's deprecated name)."""
    return math_ops.cast(x, _dt.float64, name=name)


def parallel_stack(values: Sequence[TensorLike], name: str | None = "parallel_stack") -> Tensor:
    """``stack(values)`` along a new first axis, for inputs of fully defined shapes.

    Note (flowrt):
      TF builds a ParallelConcat op; flowrt builds one Pack op (the same values and
      gradient; flowrt's kernels copy into the result in one pass either way).

    Raises:
      ValueError: if an input's shape is not fully defined, or the shapes differ.
    """
    with op_scope(list(values), name, "parallel_stack") as scope:
        ts = [to_tensor(v) for v in values]
        for t in ts:
            if not t.shape.is_fully_defined():
                raise ValueError("All input shapes must be fully defined, got %s" % t)
        return array_ops.stack(ts, name=scope)


def batch_gather(params: TensorLike, indices: TensorLike, name: str | None = None) -> Tensor:
    """For each batch position ``b...`` (all axes of ``indices`` but the last),
    ``params[b..., indices[b..., j]]``: TF1's ``batch_gather``, composed from reshape
    and one ``gather`` on the flattened batch.

    Args:
      params: a tensor of shape ``[B..., N, rest...]``.
      indices: an int tensor of shape ``[B..., K]`` with a known rank.
      name: a name scope for the ops (default ``BatchGather``).
    """
    with op_scope([params, indices], name, "BatchGather"):
        p, ix = to_tensor(params), _int_tensor(indices)
        k = ix.shape.ndims
        if k is None:
            raise ValueError("batch_gather does not allow indices with unknown shape.")
        if k == 0:
            raise ValueError("batch_gather does not allow indices with rank 0.")
        if k == 1:
            return slicing_ops.gather(p, ix)
        ps = array_ops.shape(p)
        batch = ps[: k - 1]
        n = math_ops.cast(ps[k - 1], ix.dtype)
        count = math_ops.reduce_prod(batch)
        offsets = math_ops.cast(array_ops.range(count), ix.dtype) * n
        offsets = array_ops.reshape(offsets, slicing_ops.concat([batch, [1]], 0))
        flat = array_ops.reshape(p, slicing_ops.concat([[-1], ps[k:]], 0))
        out = slicing_ops.gather(flat, ix + offsets)
        if p.shape.ndims is not None and ix.shape.ndims is not None:
            out.set_shape(TensorShape(ix.shape.as_list() + p.shape.as_list()[k:]))
        return out


def scalar_mul(scalar: TensorLike, x: TensorLike, name: str | None = None) -> Any:
    """``scalar * x`` for a 0-D ``scalar`` (an ``IndexedSlices`` ``x`` stays sparse).

    Raises:
      ValueError: if ``scalar`` is not 0-D.
    """
    with op_scope([scalar, x], name, "scalar_mul"):
        from .indexed_slices import IndexedSlices

        dt = x.dtype if hasattr(x, "dtype") else None
        s = to_tensor(scalar, dt if not isinstance(scalar, Tensor) else None)
        if s.shape.ndims != 0:
            raise ValueError("Only scalar multiply works, got shape %s" % s.shape)
        if isinstance(x, IndexedSlices):
            return IndexedSlices(s * x.values, x.indices, x.dense_shape)
        return s * to_tensor(x, s.dtype)


def accumulate_n(
    inputs: Sequence[TensorLike],
    shape: ShapeLike | None = None,
    tensor_dtype: DTypeLike | None = None,
    name: str | None = None,
) -> Tensor:
    """The elementwise sum of ``inputs`` (all of one shape and dtype).

    Note (flowrt):
      TF1 accumulates into a temporary variable; flowrt builds one AddN op (the
      same result and gradient).

    Raises:
      ValueError: for an empty list, mixed dtypes or shapes, or a mismatch with
        ``shape`` or ``tensor_dtype``.
    """
    if not inputs or not isinstance(inputs, (list, tuple)):
        raise ValueError(
            "inputs must be a list of at least one Tensor/IndexedSlices with the same "
            "dtype and shape"
        )
    with op_scope(list(inputs), name, "AccumulateN") as scope:
        ts = [to_tensor(t) for t in inputs]
        if any(t.dtype is not ts[0].dtype for t in ts):
            raise ValueError("inputs must be a list of at least one Tensor with the same dtype")
        s = as_shape(shape) if shape is not None else unknown_shape()
        for t in ts:
            if not t.shape.is_compatible_with(s):
                raise ValueError("Shapes %s and %s are incompatible" % (t.shape, s))
            s = s.merge_with(t.shape)
        if tensor_dtype is not None and _dt.as_dtype(tensor_dtype) is not ts[0].dtype:
            raise TypeError(
                "tensor_dtype is %s, but input is of type %s"
                % (_dt.as_dtype(tensor_dtype).name, ts[0].dtype.name)
            )
        return math_ops.add_n(ts, name=scope)
