"""Indexing ops: strided slice (``Tensor.__getitem__``), boolean_mask, the
index-built tensors one_hot, sequence_mask and meshgrid, and unravel_index (flat
indices to coordinates).

Each op type is registered once below its public wrapper functions, with its infer
rule, kernel and gradient together.
"""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.graph import (
    OPERATORS,
    Tensor,
    constant_op,
    convert_to_tensor,
    get_default_graph,
)
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from .._core.shape import TensorShape, unknown_shape
from .array_ops import (
    check_rank,
    expand_dims,
    gen_op,
    ones,
    ones_like,
    range,
    reshape,
    shape,
    size,
    squeeze,
    stack,
    static_dims,
)
from .common import (
    check_dtype,
    in_graph_of,
    int_list,
    is_tensor_like,
    make,
    op_scope,
    shape_str,
    to_tensor,
)
from .const_eval import partial_ints, static_value
from .slicing_ops import concat, gather

if TYPE_CHECKING:
    from .._core.typing import DTypeLike, TensorLike

# ``range`` here is TF1's (from array_ops); the builtins keep these names.
_prange, _pslice = builtins.range, builtins.slice

__all__ = [
    "strided_slice",
    "one_hot",
    "sequence_mask",
    "boolean_mask",
    "meshgrid",
    "gather_nd",
    "scatter_nd",
    "unravel_index",
]

# --------------------------------------------------------------------------------------
# StridedSlice (Tensor.__getitem__)
# --------------------------------------------------------------------------------------

_MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")


class _Unknown:
    """An index entry whose value is not known at graph construction."""

    def __init__(self, shrinks):
        self.shrinks = shrinks


def _ss_index(begin, end, strides, attrs):
    """The numpy index equivalent to a StridedSlice spec (None values: unknown)."""
    idx = []
    for i, (b, e, s) in enumerate(zip(begin, end, strides, strict=False)):
        bit = 1 << i
        if attrs["ellipsis_mask"] & bit:
            if Ellipsis in idx:
                raise ValueError("Multiple ellipses in slice spec not allowed")
            idx.append(Ellipsis)
        elif attrs["new_axis_mask"] & bit:
            idx.append(None)
        elif attrs["shrink_axis_mask"] & bit:
            idx.append(_Unknown(True) if b is None else int(b))
        else:
            if s is not None and int(s) == 0:
                raise ValueError("strides[%d] must be non-zero" % i)
            bv = None if attrs["begin_mask"] & bit else b
            ev = None if attrs["end_mask"] & bit else e
            if (
                s is None
                or (bv is None and not attrs["begin_mask"] & bit)
                or (ev is None and not attrs["end_mask"] & bit)
            ):
                idx.append(_Unknown(False))
            else:
                idx.append(
                    _pslice(
                        None if bv is None else int(bv), None if ev is None else int(ev), int(s)
                    )
                )
    return tuple(idx)


def _ss_dims(idx, dims):
    """Output dims of indexing ``dims`` with ``idx``; ValueError on a bad shrink index."""
    consumers = sum(1 for k in idx if k is not None and k is not Ellipsis)
    if consumers > len(dims):
        raise ValueError(
            "Index out of range using input dim %d; input has only %d dims" % (len(dims), len(dims))
        )
    if Ellipsis not in idx:
        idx = idx + (Ellipsis,)
    out, d = [], 0
    for k in idx:
        if k is Ellipsis:
            take = len(dims) - consumers
            out.extend(dims[d : d + take])
            d += take
        elif k is None:
            out.append(1)
        elif isinstance(k, _Unknown):
            if not k.shrinks:
                out.append(None)
            d += 1
        elif isinstance(k, int):
            n = dims[d]
            if n is not None and not -n <= k < n:
                raise ValueError("slice index %d of dimension %d out of bounds." % (k, d))
            d += 1
        else:
            n = dims[d]
            out.append(None if n is None else len(_prange(*k.indices(n))))
            d += 1
    return out


def strided_slice(
    input_: TensorLike,
    begin: TensorLike,
    end: TensorLike,
    strides: TensorLike | None = None,
    begin_mask: int = 0,
    end_mask: int = 0,
    ellipsis_mask: int = 0,
    new_axis_mask: int = 0,
    shrink_axis_mask: int = 0,
    var: Any = None,
    name: str | None = None,
) -> Tensor:
    """The strided slice of ``input_`` (what ``Tensor.__getitem__`` builds)."""
    if strides is None:
        b = convert_to_tensor(begin, dtype=None if is_tensor_like(begin) else _dt.int32)
        bv = int_list(b)
        strides = np.ones(len(bv), np.int32) if bv is not None else ones_like(b)
    masks = dict(
        zip(
            _MASKS,
            (begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask),
            strict=False,
        )
    )
    return gen_op(
        "StridedSlice",
        [
            ("input", input_, None),
            ("begin", begin, _dt.int32),
            ("end", end, _dt.int32),
            ("strides", strides, _dt.int32),
        ],
        {k: int(v) for k, v in masks.items()},
        name,
    ).outputs[0]


def _ss_infer(op):
    x, b, e, s = op.inputs
    vals = []
    for t, what in ((b, "begin"), (e, "end"), (s, "strides")):
        check_dtype(t, (_dt.int32, _dt.int64), what)
        check_rank(t, 1, what)
        vals.append(partial_ints(t))
    n = next(
        (len(v) for v in vals if v is not None),
        next((t.shape[0] for t in (b, e, s) if t.shape.ndims == 1), None),
    )
    if any(v is not None and len(v) != n for v in vals):
        raise ValueError(
            "begin, end and strides must have the same length, got %s"
            % [None if v is None else len(v) for v in vals]
        )
    if n is None or x.shape.ndims is None:
        return [(x.dtype, unknown_shape())]
    vals = [v if v is not None else [None] * n for v in vals]
    idx = _ss_index(*vals, op.attrs)
    return [(x.dtype, TensorShape(_ss_dims(idx, x.shape.as_list())))]


def _ss_kernel(ctx, op, x, b, e, s):
    idx = _ss_index(b, e, s, op.attrs)
    _ss_dims(idx, list(x.shape))
    return (np.asarray(x[idx]),)


def _ss_grad(op, g):
    x, b, e, s = op.inputs
    return [
        make("StridedSliceGrad", [static_dims(x), b, e, s, g], dict(op.attrs)),
        None,
        None,
        None,
    ]


register_op("StridedSlice", infer=_ss_infer, kernel=_ss_kernel, grad=_ss_grad)


def _ssg_infer(op):
    dims = int_list(op.inputs[0])
    dy = op.inputs[4]
    if dims is None:
        return [
            (
                dy.dtype,
                unknown_shape(op.inputs[0].shape[0] if op.inputs[0].shape.ndims == 1 else None),
            )
        ]
    return [(dy.dtype, TensorShape(dims))]


def _ssg_kernel(ctx, op, shp, b, e, s, dy):
    out = np.zeros(tuple(int(d) for d in shp), dtype=dy.dtype)
    idx = _ss_index(b, e, s, op.attrs)
    out[idx] = np.reshape(dy, np.shape(out[idx]))
    return (out,)


register_op("StridedSliceGrad", infer=_ssg_infer, kernel=_ssg_kernel, grad=None)


def _check_index(v):
    if v is None or isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
        return
    if is_tensor_like(v):
        t = convert_to_tensor(v)
        if t.dtype in (_dt.int32, _dt.int64) and t.shape.ndims in (None, 0):
            return
    raise TypeError(
        "Only integers, slices (`:`), ellipsis (`...`), fr.newaxis (`None`) and "
        "scalar fr.int32/fr.int64 tensors are valid indices, got %r" % (v,)
    )


def _pack_spec(values, g):
    if not values:
        return constant_op(np.zeros(0, np.int32), name="Const")
    if all(not is_tensor_like(v) for v in values):
        return convert_to_tensor(values, name="stack")
    return stack(values, name="stack")


def _getitem(tensor, key):
    """``tensor[key]`` with TF1's rules: ints, slices with steps, negative indices,
    ``...``, ``None`` (new axis) and scalar int tensors."""
    if not isinstance(key, tuple):
        key = (key,)
    tensor = convert_to_tensor(tensor)
    begin, end, strides = [], [], []
    masks = dict.fromkeys(_MASKS, 0)
    with in_graph_of([tensor, key]) as g, g.name_scope("strided_slice") as scope:
        for i, k in enumerate(key):
            bit = 1 << i
            if isinstance(k, _pslice):
                for v in (k.start, k.stop, k.step):
                    _check_index(v)
                begin.append(0 if k.start is None else k.start)
                end.append(0 if k.stop is None else k.stop)
                strides.append(1 if k.step is None else k.step)
                masks["begin_mask"] |= bit if k.start is None else 0
                masks["end_mask"] |= bit if k.stop is None else 0
            elif k is Ellipsis or k is None:
                begin.append(0)
                end.append(0)
                strides.append(1)
                masks["ellipsis_mask" if k is Ellipsis else "new_axis_mask"] |= bit
            else:
                _check_index(k)
                if k is None or isinstance(k, (list, tuple)):
                    _check_index(object())
                begin.append(k)
                end.append(k + 1)
                strides.append(1)
                masks["shrink_axis_mask"] |= bit
        packed = [_pack_spec(v, g) for v in (begin, end, strides)]
    return make("StridedSlice", [tensor] + packed, masks, scope)


OPERATORS["getitem"] = _getitem


# --------------------------------------------------------------------------------------
# OneHot
# --------------------------------------------------------------------------------------


def one_hot(
    indices: TensorLike,
    depth: TensorLike,
    on_value: TensorLike | None = None,
    off_value: TensorLike | None = None,
    axis: int | None = None,
    dtype: DTypeLike | None = None,
    name: str | None = None,
) -> Tensor:
    """A one-hot tensor: ``on_value`` where the last (or ``axis``) index equals ``indices``.

    The dtype is ``dtype``, else that of ``on_value``/``off_value``, else float32.
    Out-of-range indices give an all-``off_value`` row.
    """
    g = get_default_graph()
    dt = None if dtype is None else _dt.as_dtype(dtype)
    with g.name_scope(name or "one_hot") as scope:
        on = None if on_value is None else convert_to_tensor(on_value, preferred_dtype=dt)
        off = None if off_value is None else convert_to_tensor(off_value, preferred_dtype=dt)
        for v, what in ((on, "on_value"), (off, "off_value")):
            if v is not None and dt is not None and v.dtype is not dt:
                raise TypeError(
                    "dtype %s of %s does not match dtype parameter %s"
                    % (v.dtype.name, what, dt.name)
                )
        if on is not None and off is not None and on.dtype is not off.dtype:
            raise TypeError(
                "dtype %s of on_value does not match dtype %s of off_value"
                % (on.dtype.name, off.dtype.name)
            )
        dt = dt or (on.dtype if on is not None else off.dtype if off is not None else _dt.float32)
        on = convert_to_tensor(1 if on is None else on, dtype=dt, name="on_value")
        off = convert_to_tensor(0 if off is None else off, dtype=dt, name="off_value")
        idx = convert_to_tensor(indices, name="indices")
        d = convert_to_tensor(depth, dtype=_dt.int32, name="depth")
    return make("OneHot", [idx, d, on, off], {"axis": -1 if axis is None else int(axis)}, scope)


def _one_hot_infer(op):
    idx, depth, on, off = op.inputs
    check_dtype(idx, (_dt.uint8, _dt.int32, _dt.int64), "indices")
    for t, what in ((depth, "depth"), (on, "on_value"), (off, "off_value")):
        if t.shape.ndims not in (None, 0):
            raise ValueError("%s must be a scalar, but got shape %s" % (what, t.shape))
    d = static_value(depth)
    if d is not None and int(d) < 0:
        raise ValueError("depth must be non-negative, got: %d" % int(d))
    axis = op.attrs["axis"]
    if idx.shape.ndims is None:
        return [(on.dtype, unknown_shape())]
    r = idx.shape.ndims
    if not -1 <= axis <= r:
        raise ValueError("Expected axis to be -1 or between [0, %d].  But received: %d" % (r, axis))
    dims = idx.shape.as_list()
    dims.insert(r if axis == -1 else axis, None if d is None else int(d))
    return [(on.dtype, TensorShape(dims))]


def _one_hot_kernel(ctx, op, idx, depth, on, off):
    depth = int(depth)
    if depth < 0:
        raise ValueError("depth must be non-negative, got: %d" % depth)
    out = np.where(np.expand_dims(idx, -1) == np.arange(depth), on, off)
    out = out.astype(op.outputs[0].dtype.np, copy=False)
    axis = op.attrs["axis"]
    return (out if axis == -1 else np.moveaxis(out, -1, axis),)


register_op("OneHot", infer=_one_hot_infer, kernel=_one_hot_kernel, grad=NOT_DIFFERENTIABLE)


# --------------------------------------------------------------------------------------
# Compositions: sequence_mask, boolean_mask, meshgrid
# --------------------------------------------------------------------------------------


def sequence_mask(
    lengths: TensorLike,
    maxlen: TensorLike | None = None,
    dtype: DTypeLike = _dt.bool,
    name: str | None = None,
) -> Tensor:
    """``mask[i, j] = j < lengths[i]`` with ``maxlen`` columns (default: max length)."""
    from . import math_ops

    g = get_default_graph()
    with g.name_scope(name or "SequenceMask"):
        lengths = convert_to_tensor(lengths)
        if maxlen is None:
            maxlen = math_ops.reduce_max(lengths, [])
        else:
            maxlen = convert_to_tensor(maxlen)
        row = range(
            constant_op(np.zeros((), maxlen.dtype.np)),
            maxlen,
            constant_op(np.ones((), maxlen.dtype.np)),
        )
        matrix = math_ops.cast(expand_dims(lengths, -1), maxlen.dtype)
        result = math_ops.less(row, matrix)
        dtype = _dt.as_dtype(dtype)
        return result if dtype is _dt.bool else math_ops.cast(result, dtype)


def boolean_mask(
    tensor: TensorLike, mask: TensorLike, name: str | None = "boolean_mask", axis: int | None = None
) -> Tensor:
    """The elements (or slices along ``axis``) of ``tensor`` where ``mask`` is true."""
    from . import math_ops

    g = get_default_graph()
    with g.name_scope(name or "boolean_mask"):
        tensor = convert_to_tensor(tensor, name="tensor")
        mask = convert_to_tensor(mask, name="mask")
        k = mask.shape.ndims
        if k is None:
            raise ValueError(
                "Number of mask dimensions must be specified, even if some "
                "dimensions are None.  E.g. shape=[None] is ok, but shape=None "
                "is not."
            )
        if k == 0:
            raise ValueError("mask cannot be scalar.")
        a = 0 if axis is None else int(axis)
        ts = tensor.shape
        if ts.ndims is None:
            raise ValueError("boolean_mask needs a tensor of known rank, got %s" % ts)
        ts[a : a + k].assert_is_compatible_with(mask.shape)
        dims = ts.as_list()
        outer = dims[:a] + dims[a + k :]
        new: list[Any] | Tensor
        if all(d is not None for d in outer):
            new = dims[:a] + [-1] + dims[a + k :]
        else:
            s = shape(tensor)
            new = concat([s[:a], [-1], s[a + k :]], 0)
        flat = reshape(tensor, new)
        flat.set_shape(dims[:a] + [None] + dims[a + k :])
        idx = squeeze(math_ops.where(reshape(mask, [-1])), axis=[1])
        return gather(flat, idx, axis=a)


def meshgrid(*args: TensorLike, **kwargs: Any) -> list[Tensor]:
    """Coordinate grids from 1-D ``args``; ``indexing`` is "xy" (default) or "ij"."""
    from . import math_ops

    indexing = kwargs.pop("indexing", "xy")
    name = kwargs.pop("name", "meshgrid")
    if kwargs:
        raise TypeError(
            "'%s' is an invalid keyword argument for this function" % next(iter(kwargs))
        )
    if indexing not in ("xy", "ij"):
        raise ValueError(
            "Argument `indexing` parameter must be either 'xy' or 'ij', got '%s'" % indexing
        )
    g = get_default_graph()
    with g.name_scope(name):
        xs = [convert_to_tensor(x) for x in args]
        n = len(xs)
        outs = []
        for i, x in enumerate(xs):
            s = [1] * n
            s[i] = -1
            outs.append(reshape(x, s))
        sizes = [size(x) for x in xs]
        if indexing == "xy" and n > 1:
            outs[0] = reshape(xs[0], [1, -1] + [1] * (n - 2))
            outs[1] = reshape(xs[1], [-1, 1] + [1] * (n - 2))
            sizes[0], sizes[1] = sizes[1], sizes[0]
        dt = xs[0].dtype if xs else _dt.float32
        mult = ones(stack(sizes), dtype=dt) if xs else None
        return [math_ops.multiply(o, mult) for o in outs if mult is not None]  # no xs: []


# --------------------------------------------------------------------------------------
# GatherNd / ScatterNd: indexing by the last dimension of ``indices``
# --------------------------------------------------------------------------------------


def gather_nd(
    params: TensorLike, indices: TensorLike, name: str | None = None, batch_dims: int = 0
) -> Tensor:
    """Slices of ``params`` at the index tuples in the last dimension of ``indices``.

    ``out[i0, .., in] = params[indices[i0, .., in, :]]``: the output shape is
    ``indices.shape[:-1] + params.shape[indices.shape[-1]:]``.

    Note (flowrt): ``batch_dims`` other than 0 is not supported.
    """
    if batch_dims != 0:
        raise NotImplementedError(
            "gather_nd with batch_dims=%r is not supported by flowrt; "
            "fold the batch into the indices" % (batch_dims,)
        )
    return gen_op(
        "GatherNd", [("params", params, None), ("indices", indices, None)], None, name
    ).outputs[0]


def nd_depth(indices, what):
    check_dtype(indices, (_dt.int32, _dt.int64), "indices")
    s = indices.shape
    if s.ndims == 0:
        raise ValueError(
            "indices must be at least a vector (the last dimension holds the "
            "index tuples), got a scalar"
        )
    return None if s.ndims is None else s[-1]


def _gather_nd_infer(op):
    params, indices = op.inputs
    k = nd_depth(indices, "params")
    p = params.shape
    if k is not None and p.ndims is not None and k > p.ndims:
        raise ValueError(
            "indices.shape[-1] must be <= params.rank, but saw indices shape %s "
            "and params shape %s" % (indices.shape, p)
        )
    if k is None or p.ndims is None or indices.shape.ndims is None:
        return [(params.dtype, unknown_shape())]
    return [(params.dtype, TensorShape(indices.shape.as_list()[:-1] + p.as_list()[k:]))]


def nd_index(op, indices, shape, what):
    """The numpy index of a GatherNd/ScatterNd; InvalidArgumentError naming a bad tuple."""
    k = indices.shape[-1]
    flat = indices.reshape(int(np.prod(indices.shape[:-1], dtype=np.int64)), k)
    dims = np.asarray(shape[:k], dtype=np.int64)
    bad = np.nonzero(((flat < 0) | (flat >= dims)).any(axis=1))[0]
    if bad.size:
        pos = np.unravel_index(int(bad[0]), indices.shape[:-1]) if indices.ndim > 1 else ()
        raise errors.InvalidArgumentError(
            None,
            op,
            "%s: indices%s = %s does not index into %s shape %s"
            % (
                op.describe(),
                [int(i) for i in pos],
                flat[bad[0]].tolist(),
                what,
                [int(d) for d in shape],
            ),
        )
    return tuple(indices[..., i] for i in _prange(k))


def _gather_nd_kernel(ctx, op, params, indices):
    idx = nd_index(op, indices, params.shape, "param")
    if not idx:
        return (np.broadcast_to(params, indices.shape[:-1] + params.shape).copy(),)
    return (np.ascontiguousarray(params[idx]),)


def _gather_nd_grad(op, g):
    params, indices = op.inputs
    return [scatter_nd(indices, g, shape(params, out_type=indices.dtype)), None]


register_op("GatherNd", infer=_gather_nd_infer, kernel=_gather_nd_kernel, grad=_gather_nd_grad)


def scatter_nd(
    indices: TensorLike, updates: TensorLike, shape: TensorLike, name: str | None = None
) -> Tensor:
    """A zero tensor of ``shape`` with ``updates`` added at the index tuples of
    ``indices`` (duplicates add up): the inverse layout of ``gather_nd``."""
    return gen_op(
        "ScatterNd",
        [("indices", indices, None), ("updates", updates, None), ("shape", shape, _dt.int32)],
        None,
        name,
    ).outputs[0]


def _scatter_nd_infer(op):
    indices, updates, s = op.inputs
    k = nd_depth(indices, "shape")
    check_dtype(s, (_dt.int32, _dt.int64), "shape")
    if s.dtype is not indices.dtype:
        raise TypeError(
            "shape has dtype %s but indices have dtype %s; they must match"
            % (s.dtype.name, indices.dtype.name)
        )
    dims = partial_ints(s)
    out = unknown_shape() if dims is None else TensorShape(dims)
    if k is not None and out.ndims is not None and indices.shape.ndims is not None:
        if k > out.ndims:
            raise ValueError(
                "indices.shape[-1] must be <= rank of shape, got %d > %d" % (k, out.ndims)
            )
        want = TensorShape(indices.shape.as_list()[:-1] + out.as_list()[k:])
        if not want.is_compatible_with(updates.shape):
            raise ValueError(
                "updates must have shape %s (indices.shape[:-1] + shape[%d:]), "
                "got %s" % (shape_str(want), k, shape_str(updates.shape))
            )
    return [(updates.dtype, out)]


def _scatter_nd_kernel(ctx, op, indices, updates, s):
    dims = tuple(int(d) for d in s)
    idx = nd_index(op, indices, dims, "output")
    want = indices.shape[:-1] + dims[indices.shape[-1] :]
    if updates.shape != want:
        raise errors.InvalidArgumentError(
            None,
            op,
            "%s: updates must have shape %s, got %s"
            % (op.describe(), list(want), list(updates.shape)),
        )
    out = np.zeros(dims, dtype=updates.dtype)
    if idx:
        np.add.at(out, idx, updates)
    else:
        out += updates.reshape((-1,) + dims).sum(axis=0)
    return (out,)


def _scatter_nd_grad(op, g):
    indices = op.inputs[0]
    return [None, gather_nd(g, indices), None]


register_op("ScatterNd", infer=_scatter_nd_infer, kernel=_scatter_nd_kernel, grad=_scatter_nd_grad)


_INDEX = (_dt.int32, _dt.int64)


def _int_tensor(v, dtype=_dt.int32) -> Tensor:
    return v if isinstance(v, Tensor) else to_tensor(v, dtype)


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
