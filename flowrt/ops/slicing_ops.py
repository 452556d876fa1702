"""Slicing and joining ops: gather, slice, concat/unstack/split, tile, pad and mirror pad.

These share a module because their gradients are each other (GatherV2 <-> ConcatV2,
Split <-> ConcatV2, Slice <-> Pad). Each op type is registered once below its public
wrapper functions, with its infer rule, kernel and gradient together.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.graph import (
    Tensor,
    convert_to_tensor,
    get_default_graph,
)
from .._core.registry import register_op
from .._core.shape import Dimension, TensorShape, unknown_shape
from .array_ops import (
    check_rank,
    expand_dims,
    gen_op,
    identity,
    range,
    reshape,
    shape,
    size,
    stack,
    static_dims,
    transpose,
    zeros_for_none,
)
from .common import axis_value, check_dtype, in_graph_of, int_list, is_tensor_like, make
from .const_eval import partial_ints, static_value
from .indexed_slices import IndexedSlices, unsorted_segment_sum

if TYPE_CHECKING:
    from .._core.typing import TensorLike

# ``range`` and ``slice`` here are TF1's (``range`` from array_ops); the builtins keep
# these names.
_prange, _pslice = builtins.range, builtins.slice

__all__ = ["gather", "slice", "concat", "unstack", "split", "tile", "pad"]

# --------------------------------------------------------------------------------------
# GatherV2
# --------------------------------------------------------------------------------------

_INDEX_DTYPES = (_dt.int16, _dt.int32, _dt.int64)


def gather(
    params: TensorLike,
    indices: TensorLike,
    validate_indices: bool | None = None,
    name: str | None = None,
    axis: TensorLike | None = None,
    batch_dims: int = 0,
) -> Tensor:
    """Rows (or slices along ``axis``) of ``params`` at ``indices``: the result has shape
    ``params.shape[:axis] + indices.shape + params.shape[axis + 1:]``.

    Note (flowrt): only ``batch_dims=0`` is supported.
    """
    with in_graph_of([params, indices, axis]):
        if batch_dims != 0:
            raise ValueError(
                "gather: flowrt supports batch_dims=0 only, got batch_dims=%r" % (batch_dims,)
            )
        return gen_op(
            "GatherV2",
            [
                ("params", params, None),
                ("indices", indices, None),
                ("axis", 0 if axis is None else axis, _dt.int32),
            ],
            {"batch_dims": 0},
            name,
        ).outputs[0]


def _gather_infer(op):
    params, indices, axis = op.inputs
    check_dtype(indices, _INDEX_DTYPES, "indices")
    check_dtype(axis, (_dt.int32, _dt.int64), "axis")
    check_rank(axis, 0, "axis")
    a = static_value(axis)
    pr, ir = params.shape.ndims, indices.shape.ndims
    if a is None or pr is None or ir is None:
        n = pr + ir - 1 if pr is not None and ir is not None else None
        return [(params.dtype, unknown_shape(n))]
    a = int(a)
    if not -pr <= a < pr:
        raise ValueError(
            "Shape must be at least rank %d but is rank %d: axis %d is out of "
            "range for params of shape %s" % (a + 1 if a >= 0 else -a, pr, a, params.shape)
        )
    a %= pr
    p = params.shape.as_list()
    return [(params.dtype, TensorShape(p[:a] + indices.shape.as_list() + p[a + 1 :]))]


def _gather_kernel(ctx, op, params, indices, axis):
    a = axis_value(int(axis), params.ndim)
    # np.take checks the upper bound itself (IndexError) but wraps negative indices:
    # one min() and the take, instead of a mask over all the indices, on the hot path.
    try:
        if not (np.size(indices) and indices.min() < 0):
            return (np.take(params, indices, axis=a),)
    except IndexError:
        pass
    n = params.shape[a]
    bad = (indices < 0) | (indices >= n)
    pos = np.unravel_index(int(np.argmax(bad)), np.shape(indices))
    raise errors.InvalidArgumentError(
        None,
        op,
        "%s: indices[%s] = %d is not in [0, %d)"
        % (op.describe(), ",".join(map(str, pos)), int(np.asarray(indices)[pos]), n),
    )


def _gather_grad(op, g):
    params, indices, axis = op.inputs
    a = static_value(axis)
    pr, ir = params.shape.ndims, indices.shape.ndims
    if a is None or pr is None:
        raise ValueError(
            "the gradient of %s needs a constant axis and params of known rank" % op.describe()
        )
    a = int(a) % pr
    dense_shape = static_dims(params)
    if a == 0:
        # Rows of params that were gathered: a sparse gradient, as in TF1.
        n, tail = indices.shape.num_elements(), params.shape[1:]
        if n is not None and tail.is_fully_defined():
            vshape = [n] + tail.as_list()
        else:
            vshape = concat([expand_dims(size(indices), 0), slice(dense_shape, [1], [-1])], 0)
        return [IndexedSlices(reshape(g, vshape), reshape(indices, [-1]), dense_shape), None, None]
    if ir is None:
        raise ValueError("the gradient of %s needs indices of known rank" % op.describe())
    # Move the gathered dims to the front, sum rows by index, move the axis back.
    perm = list(_prange(a, a + ir)) + list(_prange(a)) + list(_prange(a + ir, pr + ir - 1))
    num = params.shape[a] if params.shape[a] is not None else gather(shape(params), a)
    summed = unsorted_segment_sum(transpose(g, perm), indices, num)
    back = list(_prange(1, a + 1)) + [0] + list(_prange(a + 1, pr))
    return [transpose(summed, back), None, None]


register_op("GatherV2", infer=_gather_infer, kernel=_gather_kernel, grad=_gather_grad)


# --------------------------------------------------------------------------------------
# Slice
# --------------------------------------------------------------------------------------


def slice(
    input_: TensorLike, begin: TensorLike, size: TensorLike, name: str | None = None
) -> Tensor:  # TF1's name
    """The ``size``-shaped block of ``input_`` starting at ``begin`` (size -1: to the end)."""
    with in_graph_of([input_, begin, size]):
        return gen_op(
            "Slice",
            [("input", input_, None), ("begin", begin, _dt.int32), ("size", size, _dt.int32)],
            None,
            name,
        ).outputs[0]


def _slice_bounds(begin, sizes, dims):
    """Output dims of a Slice; raises ValueError on out-of-bounds (known values only)."""
    out = []
    for i, (b, s, d) in enumerate(zip(begin, sizes, dims, strict=False)):
        if s is None or (b is None and s == -1):
            out.append(None)
            continue
        if b is None:
            if s < -1:
                raise ValueError("Expected size[%d] >= -1, but got %d" % (i, s))
            out.append(s)
            continue
        if d is not None and not 0 <= b <= d:
            raise ValueError("Expected begin[%d] in [0, %d], but got %d" % (i, d, b))
        if s == -1:
            out.append(None if d is None else d - b)
            continue
        if d is not None and not 0 <= s <= d - b:
            raise ValueError("Expected size[%d] in [0, %d], but got %d" % (i, d - b, s))
        if s < -1:
            raise ValueError("Expected size[%d] >= -1, but got %d" % (i, s))
        out.append(s)
    return out


def _slice_infer(op):
    x, b, s = op.inputs
    for t, what in ((b, "begin"), (s, "size")):
        check_dtype(t, (_dt.int32, _dt.int64), what)
        check_rank(t, 1, what)
    bv, sv = partial_ints(b), partial_ints(s)
    r = x.shape.ndims
    for v, what in ((bv, "begin"), (sv, "size")):
        if v is not None and r is not None and len(v) != r:
            raise ValueError(
                "Length of %s (%d) must equal the rank of the input %s (%d)"
                % (what, len(v), x.shape, r)
            )
    if r is None:
        n = len(bv) if bv is not None else len(sv) if sv is not None else None
        return [(x.dtype, unknown_shape(n))]
    if sv is None:
        return [(x.dtype, unknown_shape(r))]
    bv = bv if bv is not None else [None] * r
    return [(x.dtype, TensorShape(_slice_bounds(bv, sv, x.shape.as_list())))]


def _slice_kernel(ctx, op, x, b, s):
    if len(b) != x.ndim or len(s) != x.ndim:
        raise ValueError(
            "Expected begin and size arguments to be 1-D tensors of size %d, but "
            "got shapes %s and %s instead." % (x.ndim, list(b.shape), list(s.shape))
        )
    dims = _slice_bounds([int(v) for v in b], [int(v) for v in s], list(x.shape))
    return (x[tuple(_pslice(int(bi), int(bi) + d) for bi, d in zip(b, dims, strict=False))],)


def _slice_grad(op, g):
    x, b, _ = op.inputs
    bv, y = int_list(b), op.outputs[0]
    if bv is not None and x.shape.is_fully_defined() and y.shape.is_fully_defined():
        pads = [
            [bi, d - bi - n]
            for bi, d, n in zip(bv, x.shape.as_list(), y.shape.as_list(), strict=True)
        ]
    else:
        pads = stack([b, shape(x) - b - shape(y)], axis=1)
    return [pad(g, pads), None, None]


register_op("Slice", infer=_slice_infer, kernel=_slice_kernel, grad=_slice_grad)


# --------------------------------------------------------------------------------------
# Concat, Unpack (unstack), Split, SplitV
# --------------------------------------------------------------------------------------


def _convert_list(values, what):
    """Converts a list of tensors/values to tensors of the first tensor's dtype."""
    first = next((v for v in values if is_tensor_like(v)), None)
    dt = convert_to_tensor(first).dtype if first is not None else None
    return [
        convert_to_tensor(v) if is_tensor_like(v) else convert_to_tensor(v, dtype=dt)
        for v in values
    ]


def concat(
    values: Sequence[TensorLike] | TensorLike, axis: TensorLike, name: str | None = "concat"
) -> Tensor:
    """Concatenates tensors along ``axis`` (op type ConcatV2)."""
    with in_graph_of([values, axis]):
        if not isinstance(values, (list, tuple)):
            values = [values]
        g = get_default_graph()
        if len(values) == 1:
            with g.name_scope(name):
                ax = convert_to_tensor(axis, dtype=_dt.int32, name="concat_dim")
                check_rank(ax, 0, "concat axis")
                return identity(values[0], name=name)
        with g.name_scope(name or "concat") as scope:
            xs = _convert_list(values, "values")
            ax = (
                cast(Tensor, axis)  # or a variable: converted below
                if is_tensor_like(axis)
                else convert_to_tensor(axis, dtype=_dt.int32, name="axis")
            )
        return make("ConcatV2", xs + [convert_to_tensor(ax)], {"N": len(xs)}, scope)


def _concat_infer(op):
    xs, axis = op.inputs[:-1], op.inputs[-1]
    dt = xs[0].dtype
    if any(x.dtype is not dt for x in xs):
        raise TypeError(
            "Tensors in list passed to 'values' of 'ConcatV2' Op have types [%s] "
            "that don't all match." % ", ".join(x.dtype.name for x in xs)
        )
    check_rank(axis, 0, "axis")
    ranks = {x.shape.ndims for x in xs} - {None}
    if len(ranks) > 1:
        raise ValueError(
            "Shapes %s must all have the same rank to be concatenated"
            % ", ".join(str(x.shape) for x in xs)
        )
    if not ranks:
        return [(dt, unknown_shape())]
    r = ranks.pop()
    a = static_value(axis)
    if a is None:
        return [(dt, unknown_shape(r))]
    a = int(a)
    if not -r <= a < r:
        raise ValueError(
            "ConcatOp : Expected concatenating dimensions in the range [%d, %d), "
            "but got %d" % (-r, r, a)
        )
    a %= r
    known = [x for x in xs if x.shape.ndims is not None]
    out = list(known[0].shape.as_list())
    out[a] = 0
    for x in known:
        dims = x.shape.as_list()
        for i, d in enumerate(dims):
            if i == a:
                out[a] = None if out[a] is None or d is None else out[a] + d
            elif out[i] is None:
                out[i] = d
            elif d is not None and d != out[i]:
                raise ValueError(
                    "Dimension %d in both shapes must be equal, but are %d and %d. "
                    "Shapes are %s and %s." % (i, out[i], d, known[0].shape, x.shape)
                )
    if len(known) < len(xs):
        out[a] = None
    return [(dt, TensorShape(out))]


def _concat_kernel(ctx, op, *args):
    xs, a = args[:-1], int(args[-1])
    r = xs[0].ndim
    if not -r <= a < r:
        raise ValueError(
            "ConcatOp : Expected concatenating dimensions in the range [%d, %d), "
            "but got %d" % (-r, r, a)
        )
    for i, x in enumerate(xs[1:], 1):
        if x.ndim != r or any(x.shape[j] != xs[0].shape[j] for j in _prange(r) if j != a % r):
            raise ValueError(
                "ConcatOp : Dimensions of inputs should match: shape[0] = %s vs. "
                "shape[%d] = %s" % (list(xs[0].shape), i, list(x.shape))
            )
    return (np.concatenate(xs, axis=a),)


def _concat_grad(op, g):
    xs, axis = op.inputs[:-1], op.inputs[-1]
    a = static_value(axis)
    r = g.shape.ndims
    if a is not None and r is not None:
        a = int(a) % r
        sizes = [x.shape[a] if x.shape.ndims is not None else None for x in xs]
        if all(s is not None for s in sizes):
            size_splits = sizes
        else:
            size_splits = stack([gather(shape(x), a) for x in xs])
    else:
        a = axis
        size_splits = stack([gather(shape(x), axis) for x in xs])
    return list(split(g, size_splits, axis=a)) + [None]


register_op("ConcatV2", infer=_concat_infer, kernel=_concat_kernel, grad=_concat_grad)


def unstack(
    value: TensorLike, num: int | None = None, axis: int = 0, name: str | None = "unstack"
) -> list[Tensor]:
    """Splits ``value`` along ``axis`` into a list of ``num`` tensors (op type Unpack)."""
    with in_graph_of([value, num, axis]):
        value = convert_to_tensor(value)
        s = value.shape
        if num is None:
            if s.ndims is None:
                raise ValueError("Cannot infer argument `num` from shape %s" % s)
            if not -s.ndims <= axis < s.ndims:
                raise ValueError(
                    "Argument `axis` = %d not in range [%d, %d)" % (axis, -s.ndims, s.ndims)
                )
            num = s[axis]
            if num is None:
                raise ValueError("Cannot infer argument `num` from shape %s" % s)
        return gen_op(
            "Unpack",
            [("value", value, None)],
            {"num": int(num), "axis": int(axis)},
            name,
            "unstack",
        ).outputs


def _unpack_infer(op):
    x = op.inputs[0]
    n, axis = op.attrs["num"], op.attrs["axis"]
    if x.shape.ndims is None:
        return [(x.dtype, unknown_shape())] * n
    r = x.shape.ndims
    if not -r <= axis < r:
        raise ValueError("axis = %d not in [%d, %d)" % (axis, -r, r))
    axis %= r
    op.attrs["axis"] = axis
    dims = x.shape.as_list()
    if dims[axis] is not None and dims[axis] != n:
        raise ValueError(
            "Dimension must be %d but is %d: cannot unstack shape %s into %d "
            "tensors along axis %d" % (n, dims[axis], x.shape, n, axis)
        )
    del dims[axis]
    return [(x.dtype, TensorShape(dims))] * n


def _unpack_kernel(ctx, op, x):
    n, axis = op.attrs["num"], op.attrs["axis"]
    if x.shape[axis] != n:
        raise ValueError(
            "Input shape axis %d must equal %d, got shape %s" % (axis, n, list(x.shape))
        )
    lead = (_pslice(None),) * axis
    return tuple(x[lead + (i,)] for i in _prange(n))


def _unpack_grad(op, *grads):
    return [stack(zeros_for_none(grads, op.outputs), axis=op.attrs["axis"])]


register_op("Unpack", infer=_unpack_infer, kernel=_unpack_kernel, grad=_unpack_grad)


def split(
    value: TensorLike,
    num_or_size_splits: TensorLike,
    axis: TensorLike = 0,
    num: int | None = None,
    name: str | None = "split",
) -> list[Tensor]:
    """Splits ``value`` along ``axis`` into equal pieces (an int) or pieces of the given
    sizes (a list; one size may be -1). Returns a list of tensors."""
    if isinstance(num_or_size_splits, Dimension):  # x.shape[1] under TF1 shapes
        num_or_size_splits = cast(int, num_or_size_splits.value)
    with in_graph_of([value, num_or_size_splits, axis, num]):
        if isinstance(num_or_size_splits, (int, np.integer)) and not isinstance(
            num_or_size_splits, bool
        ):
            return gen_op(
                "Split",
                [("split_dim", axis, _dt.int32), ("value", value, None)],
                {"num_split": int(num_or_size_splits)},
                name,
                "split",
            ).outputs
        if is_tensor_like(num_or_size_splits) or isinstance(num_or_size_splits, np.ndarray):
            sizes = convert_to_tensor(num_or_size_splits)
        elif any(is_tensor_like(v) for v in cast(Sequence[Any], num_or_size_splits)):
            sizes = convert_to_tensor(list(cast(Sequence[Any], num_or_size_splits)))  # mixed
        else:
            sizes = convert_to_tensor(np.asarray(num_or_size_splits, dtype=np.int32))
        if num is None:
            if sizes.shape.ndims != 1 or sizes.shape[0] is None:
                raise ValueError("Cannot infer argument `num` from shape %s" % sizes.shape)
            num = sizes.shape[0]
        return gen_op(
            "SplitV",
            [("value", value, None), ("size_splits", sizes, None), ("split_dim", axis, _dt.int32)],
            {"num_split": int(num)},
            name,
            "split",
        ).outputs


def _split_axis(axis_t, r):
    a = static_value(axis_t)
    if a is None or r is None:
        return None
    return axis_value(int(a), r)


def _split_infer(op):
    axis_t, x = op.inputs
    n = op.attrs["num_split"]
    if n < 1:
        raise ValueError("num_split must be >= 1, got %d" % n)
    check_rank(axis_t, 0, "split_dim")
    r = x.shape.ndims
    a = _split_axis(axis_t, r)
    if a is None:
        return [(x.dtype, unknown_shape(r))] * n
    dims = x.shape.as_list()
    if dims[a] is not None:
        if dims[a] % n:
            raise ValueError(
                "Dimension size must be evenly divisible by %d but is %d: cannot "
                "split shape %s into %d equal pieces along axis %d" % (n, dims[a], x.shape, n, a)
            )
        dims[a] //= n
    return [(x.dtype, TensorShape(dims))] * n


def _split_kernel(ctx, op, axis, x):
    n = op.attrs["num_split"]
    a = axis_value(int(axis), x.ndim)
    if x.shape[a] % n:
        raise ValueError(
            "Number of ways to split should evenly divide the split dimension, "
            "but got split_dim %d (size = %d) and num_split %d" % (a, x.shape[a], n)
        )
    return tuple(np.split(x, n, axis=a))


def _split_grad(op, *grads):
    return [None, concat(zeros_for_none(grads, op.outputs), op.inputs[0])]


register_op("Split", infer=_split_infer, kernel=_split_kernel, grad=_split_grad)


def _resolve_sizes(sizes, dim):
    sizes = [int(s) for s in sizes]
    if sizes.count(-1) > 1:
        raise ValueError("size_splits %s may contain at most one -1" % sizes)
    if dim is None:
        return [None if s == -1 else s for s in sizes]
    known = sum(s for s in sizes if s != -1)
    if -1 in sizes:
        if known > dim:
            raise ValueError("can't split axis of size %d into pieces of size %s" % (dim, sizes))
        sizes = [dim - known if s == -1 else s for s in sizes]
    elif known != dim or any(s < 0 for s in sizes):
        raise ValueError("can't split axis of size %d into pieces of size %s" % (dim, sizes))
    return sizes


def _splitv_infer(op):
    x, sizes_t, axis_t = op.inputs
    n = op.attrs["num_split"]
    check_dtype(sizes_t, (_dt.int32, _dt.int64), "size_splits")
    check_rank(axis_t, 0, "split_dim")
    r = x.shape.ndims
    a = _split_axis(axis_t, r)
    sizes = int_list(sizes_t)
    if sizes is not None and len(sizes) != n:
        raise ValueError("size_splits has %d entries but num_split is %d" % (len(sizes), n))
    if a is None:
        return [(x.dtype, unknown_shape(r))] * n
    dims = x.shape.as_list()
    sizes = _resolve_sizes(sizes, dims[a]) if sizes is not None else [None] * n
    out = []
    for s in sizes:
        d = list(dims)
        d[a] = s
        out.append((x.dtype, TensorShape(d)))
    return out


def _splitv_kernel(ctx, op, x, sizes, axis):
    a = axis_value(int(axis), x.ndim)
    sizes = _resolve_sizes(sizes, x.shape[a])
    return tuple(np.split(x, np.cumsum(sizes)[:-1], axis=a))


def _splitv_grad(op, *grads):
    return [concat(zeros_for_none(grads, op.outputs), op.inputs[2]), None, None]


register_op("SplitV", infer=_splitv_infer, kernel=_splitv_kernel, grad=_splitv_grad)


# --------------------------------------------------------------------------------------
# Tile
# --------------------------------------------------------------------------------------


def tile(input: TensorLike, multiples: TensorLike, name: str | None = None) -> Tensor:
    """``input`` repeated ``multiples[i]`` times along each dimension ``i``."""
    with in_graph_of([input, multiples]):
        return gen_op(
            "Tile", [("input", input, None), ("multiples", multiples, _dt.int32)], None, name
        ).outputs[0]


def _tile_infer(op):
    x, m = op.inputs
    check_dtype(m, (_dt.int32, _dt.int64), "multiples")
    check_rank(m, 1, "multiples")
    mv = partial_ints(m)
    r = x.shape.ndims
    n = len(mv) if mv is not None else None
    if r is not None and n is not None and r != n:
        raise ValueError(
            "multiples has length %d but the input has shape %s (rank %d); pass "
            "one multiple per input dimension" % (n, x.shape, r)
        )
    if r is None:
        return [(x.dtype, unknown_shape(n))]
    if mv is None:
        return [(x.dtype, unknown_shape(r))]
    if any(v is not None and v < 0 for v in mv):
        raise ValueError("Expected multiples to be non-negative, got %s" % mv)
    return [
        (
            x.dtype,
            TensorShape(
                [
                    None if d is None or v is None else d * v
                    for d, v in zip(x.shape.as_list(), mv, strict=False)
                ]
            ),
        )
    ]


def _tile_kernel(ctx, op, x, m):
    if len(m) != x.ndim:
        raise ValueError(
            "Expected multiples argument to be a vector of length %d but got "
            "length %d" % (x.ndim, len(m))
        )
    if np.any(m < 0):
        raise ValueError("Expected multiples to be non-negative, got %s" % list(m))
    return (np.tile(x, tuple(int(v) for v in m)) if x.ndim else x.copy(),)


def _tile_grad(op, g):
    from .math_ops import reduce_sum

    x, m = op.inputs
    mv = int_list(m)
    if mv is not None and x.shape.is_fully_defined():
        split_shape = [v for pair in zip(mv, x.shape.as_list(), strict=False) for v in pair]
        axes = list(_prange(0, 2 * len(mv), 2))
    else:
        split_shape = reshape(transpose(stack([m, shape(x, out_type=m.dtype)])), [-1])
        axes = range(0, size(split_shape), 2)
    return [reduce_sum(reshape(g, split_shape), axes), None]


register_op("Tile", infer=_tile_infer, kernel=_tile_kernel, grad=_tile_grad)


# --------------------------------------------------------------------------------------
# Pad, PadV2, MirrorPad
# --------------------------------------------------------------------------------------


def pad(
    tensor: TensorLike,
    paddings: TensorLike,
    mode: str = "CONSTANT",
    name: str | None = None,
    constant_values: TensorLike = 0,
) -> Tensor:
    """``tensor`` padded by ``paddings[i] = [before, after]`` in each dimension ``i``.

    ``mode`` is "CONSTANT" (with ``constant_values``), "REFLECT" (mirror without the edge)
    or "SYMMETRIC" (mirror with the edge), case-insensitive.
    """
    with in_graph_of([tensor, paddings, constant_values]):
        m = str(mode).upper()
        if m == "CONSTANT":
            if not is_tensor_like(constant_values) and np.all(np.asarray(constant_values) == 0):
                return gen_op(
                    "Pad", [("input", tensor, None), ("paddings", paddings, _dt.int32)], None, name
                ).outputs[0]
            t = convert_to_tensor(tensor)
            return gen_op(
                "PadV2",
                [
                    ("input", t, None),
                    ("paddings", paddings, _dt.int32),
                    ("constant_values", constant_values, t.dtype),
                ],
                None,
                name,
            ).outputs[0]
        if m in ("REFLECT", "SYMMETRIC"):
            return gen_op(
                "MirrorPad",
                [("input", tensor, None), ("paddings", paddings, _dt.int32)],
                {"mode": m},
                name,
            ).outputs[0]
        raise ValueError(
            'Value of argument `mode` expected to be one of "CONSTANT", "REFLECT", '
            'or "SYMMETRIC". Received `mode` = %s' % mode
        )


def _pad_dims(x_dims, pads, mirror=None):
    out = []
    for i, (d, (b, a)) in enumerate(zip(x_dims, pads, strict=False)):
        if b < 0 or a < 0:
            raise ValueError("Paddings must be non-negative: %d %d" % (b, a))
        if mirror == "REFLECT" and d is not None and (b >= d or a >= d):
            raise ValueError(
                "paddings must be less than the dimension size: %d, %d not less "
                "than %d (dimension %d)" % (b, a, d, i)
            )
        if mirror == "SYMMETRIC" and d is not None and (b > d or a > d):
            raise ValueError(
                "paddings must be no greater than the dimension size: %d, %d "
                "greater than %d (dimension %d)" % (b, a, d, i)
            )
        out.append(None if d is None else d + b + a)
    return out


def _pad_infer(op):
    x, p = op.inputs[:2]
    check_dtype(p, (_dt.int32, _dt.int64), "paddings")
    if len(op.inputs) == 3 and op.inputs[2].dtype is not x.dtype:
        raise TypeError(
            "constant_values has dtype %s but the input has dtype %s"
            % (op.inputs[2].dtype.name, x.dtype.name)
        )
    r = x.shape.ndims
    ps = p.shape
    if ps.ndims is not None and (
        ps.ndims != 2 or ps[1] not in (None, 2) or (r is not None and ps[0] not in (None, r))
    ):
        raise ValueError(
            "paddings must have shape [%s, 2] (one [before, after] pair per "
            "input dimension), got %s" % ("?" if r is None else r, ps)
        )
    pv = int_list(p)
    if r is None:
        return [(x.dtype, unknown_shape(ps[0] if ps.ndims == 2 else None))]
    if pv is None:
        rows = [partial_ints(t) for t in p.op.inputs] if p.op.type == "Pack" else []
        if len(rows) != r or any(row is None or len(row) != 2 for row in rows):
            return [(x.dtype, unknown_shape(r))]
        known = _pad_dims(
            x.shape.as_list(), [[b or 0, a or 0] for b, a in rows], op.attrs.get("mode")
        )
        return [
            (
                x.dtype,
                TensorShape(
                    [None if None in row else d for d, row in zip(known, rows, strict=True)]
                ),
            )
        ]
    pairs = np.reshape(pv, (-1, 2)).tolist()
    return [(x.dtype, TensorShape(_pad_dims(x.shape.as_list(), pairs, op.attrs.get("mode"))))]


def _pad_pairs(x, p):
    if np.shape(p) != (x.ndim, 2):
        raise ValueError(
            "The first dimension of paddings must be the rank of inputs %s, got "
            "paddings of shape %s" % (list(p.shape)[:1], list(np.shape(p)))
        )
    return [tuple(int(v) for v in row) for row in p]


def _pad_kernel(ctx, op, x, p, c=0):
    pairs = _pad_pairs(x, p)
    _pad_dims(list(x.shape), pairs)
    return (np.pad(x, pairs, mode="constant", constant_values=c),)


def _mirror_pad_kernel(ctx, op, x, p):
    pairs = _pad_pairs(x, p)
    _pad_dims(list(x.shape), pairs, op.attrs["mode"])
    return (np.pad(x, pairs, mode=op.attrs["mode"].lower()),)


def _pad_grad(op, g):
    x, p = op.inputs[:2]
    pv = int_list(p)
    if pv is not None:
        begin = pv[0::2]
    else:
        begin = reshape(slice(p, [0, 0], [-1, 1]), [-1])
    rest = [None] * (len(op.inputs) - 1)
    return [slice(g, begin, static_dims(x))] + rest


register_op("Pad", infer=_pad_infer, kernel=_pad_kernel, grad=_pad_grad)
register_op("PadV2", infer=_pad_infer, kernel=_pad_kernel, grad=_pad_grad)
register_op(
    "MirrorPad",
    infer=_pad_infer,
    kernel=_mirror_pad_kernel,
    grad=lambda op, g: [make("MirrorPadGrad", [g, op.inputs[1]], {"mode": op.attrs["mode"]}), None],
)


def _mirror_pad_grad_infer(op):
    g, p = op.inputs
    pv = int_list(p)
    if pv is None or g.shape.ndims is None:
        return [(g.dtype, unknown_shape(g.shape.ndims))]
    pairs = np.reshape(pv, (-1, 2)).tolist()
    return [
        (
            g.dtype,
            TensorShape(
                [
                    None if d is None else d - b - a
                    for d, (b, a) in zip(g.shape.as_list(), pairs, strict=False)
                ]
            ),
        )
    ]


def _mirror_pad_grad_kernel(ctx, op, g, p):
    mode = op.attrs["mode"].lower()
    out = g
    for ax, (b, a) in enumerate(_pad_pairs(g, p)):
        n = out.shape[ax] - b - a
        src = np.pad(np.arange(n), (b, a), mode=mode)
        acc = np.zeros(out.shape[:ax] + (n,) + out.shape[ax + 1 :], dtype=g.dtype)
        np.add.at(np.moveaxis(acc, ax, 0), src, np.moveaxis(out, ax, 0))
        out = acc
    return (out,)


register_op(
    "MirrorPadGrad", infer=_mirror_pad_grad_infer, kernel=_mirror_pad_grad_kernel, grad=None
)
