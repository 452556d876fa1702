"""Sources and structural array ops: constants, placeholders, identity, shapes, reshape.

Each op type is registered once below its public wrapper functions, with its infer
rule, kernel and gradient together.
"""

from __future__ import annotations

import builtins

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.graph import (
    OPERATORS,
    Tensor,
    constant_op,
    constant_value,
    convert_to_tensor,
    get_default_graph,
)
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from .._core.shape import TensorShape, as_shape, unknown_shape
from .common import axis_value, check_dtype, int_list, make, make_op, same_as, to_tensor
from .indexed_slices import IndexedSlices, unsorted_segment_sum

# This module defines TF1's ``range`` and ``slice``; the builtins keep these names.
_prange, _pslice = builtins.range, builtins.slice

__all__ = ["constant", "placeholder", "placeholder_with_default", "identity", "no_op", "group",
           "stop_gradient", "shape", "size", "rank", "reshape", "fill", "zeros", "ones",
           "zeros_like", "ones_like", "stack", "range", "one_hot", "transpose",
           "invert_permutation", "concat", "unstack", "split", "expand_dims", "squeeze",
           "gather", "slice", "strided_slice", "tile", "pad", "reverse", "reverse_v2",
           "sequence_mask", "boolean_mask", "meshgrid"]

# --------------------------------------------------------------------------------------
# Sources
# --------------------------------------------------------------------------------------


def constant(value, dtype=None, shape=None, name="Const", verify_shape=False):
    """A tensor with a fixed value (TF1 ``tf.constant``)."""
    return constant_op(value, dtype, shape, name)


def _const_infer(op):
    v = op.attrs["value"]
    return [(op.attrs["dtype"], TensorShape(v.shape))]


register_op("Const", infer=_const_infer, kernel=lambda ctx, op: (op.attrs["value"],),
            grad=NOT_DIFFERENTIABLE)


def placeholder(dtype, shape=None, name=None):
    """A tensor that must be fed at run time."""
    return make("Placeholder", [], {"dtype": _dt.as_dtype(dtype),
                                    "shape": as_shape(shape) if shape is not None
                                    else unknown_shape()}, name)


def _placeholder_kernel(ctx, op):
    shape = op.attrs["shape"]
    desc = "" if shape.ndims is None else " and shape [%s]" % ",".join(
        "?" if d is None else str(d) for d in shape.as_list())
    raise errors.InvalidArgumentError(
        None, op, "You must feed a value for placeholder tensor '%s' with dtype %s%s"
        % (op.name, op.attrs["dtype"].name, desc))


register_op("Placeholder", infer=lambda op: [(op.attrs["dtype"], op.attrs["shape"])],
            kernel=_placeholder_kernel, grad=NOT_DIFFERENTIABLE)


def placeholder_with_default(input, shape, name=None):  # noqa: A002 - TF1's argument name
    """A tensor that is ``input`` unless fed."""
    x = to_tensor(input)
    shape = as_shape(shape)
    if not shape.is_compatible_with(x.shape):
        raise ValueError("Shapes %s and %s are incompatible" % (shape, x.shape))
    return make("PlaceholderWithDefault", [x], {"shape": shape}, name)


register_op("PlaceholderWithDefault",
            infer=lambda op: [(op.inputs[0].dtype, op.attrs["shape"])],
            kernel=lambda ctx, op, x: (x,), grad=lambda op, g: [g])


# --------------------------------------------------------------------------------------
# Identity, no_op, group, stop_gradient
# --------------------------------------------------------------------------------------


def identity(input, name=None):  # noqa: A002
    """Returns a tensor with the same value as ``input``."""
    return make("Identity", [input], None, name)


register_op("Identity", infer=same_as(0), kernel=lambda ctx, op, x: (x,),
            grad=lambda op, g: [g])


def no_op(name=None):
    """An op that does nothing; useful as a control dependency target."""
    return make_op("NoOp", [], None, name)


register_op("NoOp", infer=lambda op: [], kernel=lambda ctx, op: (), grad=NOT_DIFFERENTIABLE,
            quiet=True)


def group(*inputs, **kwargs):
    """An op that runs after all of ``inputs`` (ops or tensors)."""
    name = kwargs.pop("name", None)
    if kwargs:
        raise TypeError("Unknown keyword arguments: " + ", ".join(kwargs))
    flat = []

    def add(x):
        if isinstance(x, (list, tuple)):
            for y in x:
                add(y)
        elif isinstance(x, dict):
            for y in x.values():
                add(y)
        elif x is not None:
            op = getattr(x, "_as_control_op", None)
            flat.append(op() if op is not None else (x.op if isinstance(x, Tensor) else x))

    add(inputs)
    g = get_default_graph()
    with g.control_dependencies(flat):
        return no_op(name=name or "group_deps")


def stop_gradient(input, name=None):  # noqa: A002
    """Passes ``input`` through; gradients do not flow back through it."""
    return make("StopGradient", [input], None, name)


register_op("StopGradient", infer=same_as(0), kernel=lambda ctx, op, x: (x,),
            grad=NOT_DIFFERENTIABLE)


# --------------------------------------------------------------------------------------
# Shapes
# --------------------------------------------------------------------------------------


def _out_type(out_type):
    return _dt.as_dtype(out_type)


def shape(input, name=None, out_type=_dt.int32):  # noqa: A002
    """The dynamic shape of ``input`` as a 1-D int tensor."""
    return make("Shape", [input], {"out_type": _out_type(out_type)}, name)


def _shape_infer(op):
    s = op.inputs[0].shape
    return [(op.attrs["out_type"], TensorShape([s.ndims]))]


register_op("Shape", infer=_shape_infer,
            kernel=lambda ctx, op, x: (np.array(np.shape(x), dtype=op.attrs["out_type"].np),),
            grad=NOT_DIFFERENTIABLE)


def size(input, name=None, out_type=_dt.int32):  # noqa: A002
    """The number of elements of ``input`` as a scalar int tensor."""
    return make("Size", [input], {"out_type": _out_type(out_type)}, name)


register_op("Size", infer=lambda op: [(op.attrs["out_type"], TensorShape([]))],
            kernel=lambda ctx, op, x: (np.array(np.size(x), dtype=op.attrs["out_type"].np),),
            grad=NOT_DIFFERENTIABLE)


def rank(input, name=None):  # noqa: A002
    """The number of dimensions of ``input`` as a scalar int32 tensor."""
    return make("Rank", [input], None, name)


register_op("Rank", infer=lambda op: [(_dt.int32, TensorShape([]))],
            kernel=lambda ctx, op, x: (np.array(np.ndim(x), dtype=np.int32),),
            grad=NOT_DIFFERENTIABLE)


def reshape(tensor, shape, name=None):
    """``tensor`` with its elements laid out in ``shape`` (one dim may be -1)."""
    return make("Reshape", [tensor, to_tensor(shape, _dt.int32)
                            if not isinstance(shape, Tensor) else shape], None, name)


def _reshape_infer(op):
    x, s = op.inputs
    if s.shape.ndims is not None and s.shape.ndims > 1:
        raise ValueError("Shape must be rank 1 but is rank %d" % s.shape.ndims)
    dims = int_list(s)
    if dims is None:
        part = _partial_shape(s)
        if part is None:
            n = s.shape[0] if s.shape.ndims == 1 else None
            return [(x.dtype, unknown_shape(n))]
        return [(x.dtype, TensorShape([None if d == -1 else d for d in part]))]
    if sum(d == -1 for d in dims) > 1:
        raise ValueError("Cannot infer multiple unknown dimensions in shape %s" % dims)
    total = x.shape.num_elements()
    if -1 in dims:
        known = int(np.prod([d for d in dims if d != -1]))
        if total is not None:
            if known == 0 or total % known:
                raise ValueError("Cannot reshape a tensor with %d elements to shape %s"
                                 % (total, dims))
            dims = [total // known if d == -1 else d for d in dims]
        else:
            dims = [None if d == -1 else d for d in dims]
    elif total is not None and total != int(np.prod(dims)):
        raise ValueError("Cannot reshape a tensor with %d elements to shape %s (%d elements)"
                         % (total, dims, int(np.prod(dims))))
    return [(x.dtype, TensorShape(dims))]


def _partial_shape(s: Tensor):
    """The known entries of a shape vector (None where unknown), TF1's
    ``constant_value_as_shape``: through Shape, Pack and ConcatV2; None if nothing is known."""
    v = int_list(s)
    if v is not None:
        return v
    op = s.op
    if op.type == "Shape" and op.inputs[0].shape.ndims is not None:
        return op.inputs[0].shape.as_list()
    if op.type == "Pack" and all(x.shape.ndims == 0 for x in op.inputs):
        return [None if (c := constant_value(x)) is None else int(c) for x in op.inputs]
    if op.type == "ConcatV2":
        parts = [_partial_shape(x) for x in op.inputs[:-1]]
        if all(p is not None for p in parts):
            return [d for p in parts for d in p]
    return None


def _reshape_kernel(ctx, op, x, s):
    try:
        return (np.reshape(x, s),)
    except ValueError:
        raise errors.InvalidArgumentError(
            None, op, "Input to reshape is a tensor with %d values, but the requested shape "
            "%s has %d" % (np.size(x), list(s), int(np.prod(s)))) from None


def _reshape_grad(op, g):
    return [reshape(g, shape(op.inputs[0])), None]


register_op("Reshape", infer=_reshape_infer, kernel=_reshape_kernel, grad=_reshape_grad)


def fill(dims, value, name=None):
    """A tensor of shape ``dims`` filled with the scalar ``value``."""
    return make("Fill", [to_tensor(dims, _dt.int32) if not isinstance(dims, Tensor) else dims,
                         value], None, name)


def _fill_infer(op):
    d, v = op.inputs
    if v.shape.ndims not in (None, 0):
        raise ValueError("value must be a scalar, got shape %s" % v.shape)
    dims = int_list(d)
    if dims is None:
        return [(v.dtype, unknown_shape(d.shape[0] if d.shape.ndims == 1 else None))]
    return [(v.dtype, TensorShape(dims))]


register_op("Fill", infer=_fill_infer,
            kernel=lambda ctx, op, d, v: (np.full(tuple(d), v, dtype=op.outputs[0].dtype.np),),
            grad=lambda op, g: [None, OPERATORS["reduce_sum"](g)])


def zeros(shape, dtype=_dt.float32, name=None):
    """A tensor of zeros."""
    dtype = _dt.as_dtype(dtype)
    if not isinstance(shape, Tensor):
        dims = list(as_shape(shape).as_list())
        if all(d is not None for d in dims):
            return constant_op(np.zeros(dims, dtype=dtype.np), dtype, name=name or "zeros")
    return fill(shape, constant_op(0, dtype), name=name or "zeros")


def ones(shape, dtype=_dt.float32, name=None):
    """A tensor of ones."""
    dtype = _dt.as_dtype(dtype)
    if not isinstance(shape, Tensor):
        dims = list(as_shape(shape).as_list())
        if all(d is not None for d in dims):
            return constant_op(np.ones(dims, dtype=dtype.np), dtype, name=name or "ones")
    return fill(shape, constant_op(1, dtype), name=name or "ones")


def zeros_like(tensor, dtype=None, name=None, optimize=True):
    """Zeros with the shape (and dtype, unless given) of ``tensor``."""
    t = convert_to_tensor(tensor)
    if dtype is not None and _dt.as_dtype(dtype) is not t.dtype:
        return zeros(shape(t), dtype, name)
    return make("ZerosLike", [t], None, name)


def ones_like(tensor, dtype=None, name=None, optimize=True):
    """Ones with the shape (and dtype, unless given) of ``tensor``."""
    t = convert_to_tensor(tensor)
    if dtype is not None and _dt.as_dtype(dtype) is not t.dtype:
        return ones(shape(t), dtype, name)
    return make("OnesLike", [t], None, name)


register_op("ZerosLike", infer=same_as(0), kernel=lambda ctx, op, x: (np.zeros_like(x),),
            grad=NOT_DIFFERENTIABLE)
register_op("OnesLike", infer=same_as(0), kernel=lambda ctx, op, x: (np.ones_like(x),),
            grad=NOT_DIFFERENTIABLE)


# --------------------------------------------------------------------------------------
# Pack (stack) -- needed to convert nested lists of tensors
# --------------------------------------------------------------------------------------


def stack(values, axis=0, name="stack"):
    """Stacks a list of rank-R tensors into one rank-(R+1) tensor along ``axis``."""
    if not isinstance(values, (list, tuple)) or not values:
        raise ValueError("stack expects a non-empty list of tensors, got %r" % (values,))
    vals = [convert_to_tensor(v) for v in values]
    base = vals[0].dtype
    vals = [v if v.dtype is base else v for v in vals]
    return make("Pack", vals, {"axis": int(axis), "N": len(vals)}, name)


def _pack_infer(op):
    xs = op.inputs
    dt = xs[0].dtype
    s = xs[0].shape
    for i, x in enumerate(xs[1:], 1):
        if x.dtype is not dt:
            raise TypeError("Tensors in list passed to 'values' of 'Pack' Op have types "
                            "[%s] that don't all match." % ", ".join(t.dtype.name for t in xs))
        if not s.is_compatible_with(x.shape):
            raise ValueError("Shapes must be equal rank, and all dims compatible, but are %s "
                             "and %s (input %d)" % (s, x.shape, i))
        s = s.merge_with(x.shape)
    if s.ndims is None:
        return [(dt, unknown_shape())]
    axis = op.attrs["axis"]
    r = s.ndims + 1
    if not -r <= axis < r:
        raise ValueError("axis %d is out of range [%d, %d)" % (axis, -r, r))
    if axis < 0:
        axis += r
    op.attrs["axis"] = axis
    dims = s.as_list()
    dims.insert(axis, len(xs))
    return [(dt, TensorShape(dims))]


def _pack_grad(op, g):
    return OPERATORS["unstack"](g, num=len(op.inputs), axis=op.attrs["axis"])


register_op("Pack", infer=_pack_infer,
            kernel=lambda ctx, op, *xs: (np.stack(xs, axis=op.attrs["axis"]),),
            grad=_pack_grad)


def _pack_nested(value, dtype, name):
    def conv(v):
        if isinstance(v, (list, tuple)):
            return stack([conv(x) for x in v])
        return convert_to_tensor(v, dtype=dtype)

    return stack([conv(x) for x in value], name=name or "packed")


OPERATORS["pack"] = _pack_nested


# --------------------------------------------------------------------------------------
# Broadcast gradient helper
# --------------------------------------------------------------------------------------


def _bga_infer(op):
    return [(op.inputs[0].dtype, unknown_shape(1)), (op.inputs[0].dtype, unknown_shape(1))]


def _bga_kernel(ctx, op, sx, sy):
    sx, sy = [int(d) for d in sx], [int(d) for d in sy]
    n = max(len(sx), len(sy))
    px, py = [1] * (n - len(sx)) + sx, [1] * (n - len(sy)) + sy
    rx = [i for i in _prange(n) if px[i] == 1 and py[i] != 1]
    ry = [i for i in _prange(n) if py[i] == 1 and px[i] != 1]
    rx += [i for i in _prange(n) if px[i] == 1 and py[i] == 1 and i < n - len(sx)]
    ry += [i for i in _prange(n) if py[i] == 1 and px[i] == 1 and i < n - len(sy)]
    dt = op.outputs[0].dtype.np
    return np.array(sorted(set(rx)), dtype=dt), np.array(sorted(set(ry)), dtype=dt)


register_op("BroadcastGradientArgs", infer=_bga_infer, kernel=_bga_kernel,
            grad=NOT_DIFFERENTIABLE)


def broadcast_gradient_args(s0, s1, name=None):
    """The axes to sum a broadcast result's gradient over, for each of two shapes."""
    return make("BroadcastGradientArgs", [s0, s1], None, name)


# --------------------------------------------------------------------------------------
# Naming as TF's wrappers do
# --------------------------------------------------------------------------------------


def _is_tensor(x):
    return isinstance(x, Tensor) or hasattr(x, "_as_tensor")


def _gen_op(op_type, args, attrs=None, name=None, default=None):
    """Creates an op like TF's generated wrappers: non-tensor arguments become Consts
    named after the argument inside the op's name scope; the op takes the scope's name.

    ``args`` is a list of ``(arg_name, value, dtype_or_None)``.
    """
    g = get_default_graph()
    with g.name_scope(name or default or op_type) as scope:
        ins = [convert_to_tensor(v) if _is_tensor(v) else convert_to_tensor(v, dtype=dt, name=a)
               for a, v, dt in args]
    return g._create_op(op_type, ins, attrs or {}, scope)


def _index_arg(v):
    """An int argument: tensors pass through, Python values become int32 (int64 if big)."""
    return v if _is_tensor(v) else None


def _static_dims(t: Tensor):
    """``t``'s shape as a constant list when fully known, else the dynamic ``shape(t)``."""
    if t.shape.is_fully_defined():
        return constant_op(np.array(t.shape.as_list(), dtype=np.int32))
    return shape(t)


def _zeros_for_none(grads, outputs):
    return [g if g is not None else zeros_like(t) for g, t in zip(grads, outputs, strict=False)]


def _check_rank(t: Tensor, rank: int, what: str):
    if t.shape.ndims is not None and t.shape.ndims != rank:
        raise ValueError("%s must be rank %d but is rank %d (shape %s)"
                         % (what, rank, t.shape.ndims, t.shape))


# --------------------------------------------------------------------------------------
# Range and OneHot
# --------------------------------------------------------------------------------------

_RANGE_ORDER = (_dt.int32, _dt.int64, _dt.float32, _dt.float64)


def range(start, limit=None, delta=1, dtype=None, name="range"):  # noqa: A001 - TF1's name
    """The sequence ``start, start + delta, ...`` up to (excluding) ``limit``.

    As in TF1, ``range(n)`` counts from 0; the dtype is int32 unless ``dtype`` is given or
    an argument is a float (then the widest argument dtype wins).
    """
    if limit is None:
        start, limit = 0, start
    g = get_default_graph()
    dt = None if dtype is None else _dt.as_dtype(dtype)
    with g.name_scope(name or "range") as scope:
        vals = [convert_to_tensor(v, dtype=dt, name=n)
                for n, v in (("start", start), ("limit", limit), ("delta", delta))]
        if dt is None:
            dt = max((v.dtype for v in vals),
                     key=lambda d: _RANGE_ORDER.index(d) if d in _RANGE_ORDER else -1)
            from .math_ops import cast

            vals = [v if v.dtype is dt else cast(v, dt) for v in vals]
    return make("Range", vals, {"Tidx": dt}, scope)


def _range_size(start, limit, delta):
    if delta == 0:
        raise ValueError("Requires delta != 0")
    if delta > 0 and start > limit:
        raise ValueError("Requires start <= limit when delta > 0: %s/%s" % (start, limit))
    if delta < 0 and start < limit:
        raise ValueError("Requires start >= limit when delta < 0: %s/%s" % (start, limit))
    if isinstance(start, (int, np.integer)) and isinstance(delta, (int, np.integer)):
        return (builtins.abs(int(limit) - int(start)) + builtins.abs(int(delta)) - 1) \
            // builtins.abs(int(delta))
    return int(np.ceil(builtins.abs((float(limit) - float(start)) / float(delta))))


def _const_through_cast(t):
    """``t``'s constant value, also when it is a Cast of a constant (range's promotion)."""
    if t.op.type == "Cast":
        v = constant_value(t.op.inputs[0])
        return None if v is None else np.asarray(v).astype(t.dtype.np)
    return constant_value(t)


def _range_infer(op):
    dt = op.inputs[0].dtype
    for t, n in zip(op.inputs, ("start", "limit", "delta"), strict=False):
        if t.dtype is not dt:
            raise TypeError("Range arguments must all have dtype %s, but %s has %s"
                            % (dt.name, n, t.dtype.name))
        if t.shape.ndims not in (None, 0):
            raise ValueError("%s must be a scalar, not shape %s" % (n, t.shape))
    if dt not in _RANGE_ORDER:
        raise TypeError("Value passed to parameter 'start' has DataType %s not in list of "
                        "allowed values: %s" % (dt.name, ", ".join(d.name for d in _RANGE_ORDER)))
    vals = [_const_through_cast(t) for t in op.inputs]
    if any(v is None for v in vals):
        return [(dt, TensorShape([None]))]
    return [(dt, TensorShape([_range_size(*(v.item() for v in map(np.asarray, vals)))]))]


def _range_kernel(ctx, op, start, limit, delta):
    n = _range_size(start.item(), limit.item(), delta.item())
    dt = op.outputs[0].dtype.np
    return ((start + np.arange(n, dtype=dt) * delta).astype(dt, copy=False),)


register_op("Range", infer=_range_infer, kernel=_range_kernel, grad=NOT_DIFFERENTIABLE)
OPERATORS["range"] = lambda start, limit=None, delta=1: range(start, limit, delta)


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
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
                raise TypeError("dtype %s of %s does not match dtype parameter %s"
                                % (v.dtype.name, what, dt.name))
        if on is not None and off is not None and on.dtype is not off.dtype:
            raise TypeError("dtype %s of on_value does not match dtype %s of off_value"
                            % (on.dtype.name, off.dtype.name))
        dt = dt or (on.dtype if on is not None else off.dtype if off is not None
                    else _dt.float32)
        on = convert_to_tensor(1 if on is None else on, dtype=dt, name="on_value")
        off = convert_to_tensor(0 if off is None else off, dtype=dt, name="off_value")
        idx = convert_to_tensor(indices, name="indices")
        d = convert_to_tensor(depth, dtype=_dt.int32, name="depth")
    return make("OneHot", [idx, d, on, off], {"axis": -1 if axis is None else int(axis)},
                scope)


def _one_hot_infer(op):
    idx, depth, on, off = op.inputs
    check_dtype(idx, (_dt.uint8, _dt.int32, _dt.int64), "indices")
    for t, what in ((depth, "depth"), (on, "on_value"), (off, "off_value")):
        if t.shape.ndims not in (None, 0):
            raise ValueError("%s must be a scalar, but got shape %s" % (what, t.shape))
    d = constant_value(depth)
    if d is not None and int(d) < 0:
        raise ValueError("depth must be non-negative, got: %d" % int(d))
    axis = op.attrs["axis"]
    if idx.shape.ndims is None:
        return [(on.dtype, unknown_shape())]
    r = idx.shape.ndims
    if not -1 <= axis <= r:
        raise ValueError("Expected axis to be -1 or between [0, %d].  But received: %d"
                         % (r, axis))
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
# Transpose, InvertPermutation
# --------------------------------------------------------------------------------------


def transpose(a, perm=None, name="transpose", conjugate=False):
    """Permutes the dimensions of ``a`` by ``perm`` (default: reversed)."""
    g = get_default_graph()
    with g.name_scope(name or "transpose") as scope:
        a = convert_to_tensor(a, name="a")
        if perm is None:
            r = a.shape.ndims
            if r is None:
                rk = rank(a)
                perm = (rk - 1) - range(0, rk, 1)
            else:
                perm = np.arange(r - 1, -1, -1, dtype=np.int32)
        if not _is_tensor(perm):
            perm = convert_to_tensor(perm, dtype=_dt.int32, name="perm")
    return make("Transpose", [a, perm], None, scope)


def _check_perm(p, n):
    if sorted(p) != list(_prange(n)):
        raise ValueError("perm %s is not a permutation of [0 .. %d)" % (list(p), n))


def _transpose_infer(op):
    x, perm = op.inputs
    check_dtype(perm, (_dt.int32, _dt.int64), "perm")
    _check_rank(perm, 1, "perm")
    p = int_list(perm)
    if p is None:
        n = x.shape.ndims if x.shape.ndims is not None else (
            perm.shape[0] if perm.shape.ndims == 1 else None)
        return [(x.dtype, unknown_shape(n))]
    if x.shape.ndims is None:
        return [(x.dtype, unknown_shape(len(p)))]
    if len(p) != x.shape.ndims:
        raise ValueError("Dimension must be %d but is %d: perm %s does not fit input shape %s"
                         % (x.shape.ndims, len(p), p, x.shape))
    _check_perm(p, len(p))
    dims = x.shape.as_list()
    return [(x.dtype, TensorShape([dims[i] for i in p]))]


def _transpose_kernel(ctx, op, x, perm):
    if len(perm) != x.ndim:
        raise ValueError("transpose expects a vector of size %d. But input(1) is a vector of "
                         "size %d" % (x.ndim, len(perm)))
    _check_perm([int(i) for i in perm], x.ndim)
    return (np.transpose(x, perm),)


def _transpose_grad(op, g):
    p = int_list(op.inputs[1])
    inv = np.argsort(p).astype(np.int32) if p is not None else invert_permutation(op.inputs[1])
    return [transpose(g, inv), None]


register_op("Transpose", infer=_transpose_infer, kernel=_transpose_kernel, grad=_transpose_grad)


def invert_permutation(x, name=None):
    """The inverse permutation of the int vector ``x``."""
    return _gen_op("InvertPermutation", [("x", x, _dt.int32)], None, name).outputs[0]


def _invert_permutation_kernel(ctx, op, x):
    _check_perm([int(i) for i in x], len(x))
    return (np.argsort(x).astype(x.dtype),)


register_op("InvertPermutation", infer=same_as(0), kernel=_invert_permutation_kernel,
            grad=NOT_DIFFERENTIABLE)


# --------------------------------------------------------------------------------------
# Concat, Unpack (unstack), Split, SplitV
# --------------------------------------------------------------------------------------


def _convert_list(values, what):
    """Converts a list of tensors/values to tensors of the first tensor's dtype."""
    first = next((v for v in values if _is_tensor(v)), None)
    dt = convert_to_tensor(first).dtype if first is not None else None
    return [convert_to_tensor(v) if _is_tensor(v) else convert_to_tensor(v, dtype=dt)
            for v in values]


def concat(values, axis, name="concat"):
    """Concatenates tensors along ``axis`` (op type ConcatV2)."""
    if not isinstance(values, (list, tuple)):
        values = [values]
    g = get_default_graph()
    if len(values) == 1:
        with g.name_scope(name):
            ax = convert_to_tensor(axis, dtype=_dt.int32, name="concat_dim")
            _check_rank(ax, 0, "concat axis")
            return identity(values[0], name=name)
    with g.name_scope(name or "concat") as scope:
        xs = _convert_list(values, "values")
        ax = axis if _is_tensor(axis) else convert_to_tensor(axis, dtype=_dt.int32,
                                                              name="axis")
    return make("ConcatV2", xs + [convert_to_tensor(ax)], {"N": len(xs)},
                scope)


def _concat_infer(op):
    xs, axis = op.inputs[:-1], op.inputs[-1]
    dt = xs[0].dtype
    if any(x.dtype is not dt for x in xs):
        raise TypeError("Tensors in list passed to 'values' of 'ConcatV2' Op have types [%s] "
                        "that don't all match." % ", ".join(x.dtype.name for x in xs))
    _check_rank(axis, 0, "axis")
    ranks = {x.shape.ndims for x in xs} - {None}
    if len(ranks) > 1:
        raise ValueError("Shapes %s must all have the same rank to be concatenated"
                         % ", ".join(str(x.shape) for x in xs))
    if not ranks:
        return [(dt, unknown_shape())]
    r = ranks.pop()
    a = constant_value(axis)
    if a is None:
        return [(dt, unknown_shape(r))]
    a = int(a)
    if not -r <= a < r:
        raise ValueError("ConcatOp : Expected concatenating dimensions in the range [%d, %d), "
                         "but got %d" % (-r, r, a))
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
                raise ValueError("Dimension %d in both shapes must be equal, but are %d and %d. "
                                 "Shapes are %s and %s." % (i, out[i], d, known[0].shape,
                                                           x.shape))
    if len(known) < len(xs):
        out[a] = None
    return [(dt, TensorShape(out))]


def _concat_kernel(ctx, op, *args):
    xs, a = args[:-1], int(args[-1])
    r = xs[0].ndim
    if not -r <= a < r:
        raise ValueError("ConcatOp : Expected concatenating dimensions in the range [%d, %d), "
                         "but got %d" % (-r, r, a))
    for i, x in enumerate(xs[1:], 1):
        if x.ndim != r or any(x.shape[j] != xs[0].shape[j] for j in _prange(r) if j != a % r):
            raise ValueError("ConcatOp : Dimensions of inputs should match: shape[0] = %s vs. "
                             "shape[%d] = %s" % (list(xs[0].shape), i, list(x.shape)))
    return (np.concatenate(xs, axis=a),)


def _concat_grad(op, g):
    xs, axis = op.inputs[:-1], op.inputs[-1]
    a = constant_value(axis)
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
OPERATORS["concat"] = lambda ts, axis: concat(ts, axis)


def unstack(value, num=None, axis=0, name="unstack"):
    """Splits ``value`` along ``axis`` into a list of ``num`` tensors (op type Unpack)."""
    value = convert_to_tensor(value)
    s = value.shape
    if num is None:
        if s.ndims is None:
            raise ValueError("Cannot infer argument `num` from shape %s" % s)
        if not -s.ndims <= axis < s.ndims:
            raise ValueError("Argument `axis` = %d not in range [%d, %d)"
                             % (axis, -s.ndims, s.ndims))
        num = s[axis]
        if num is None:
            raise ValueError("Cannot infer argument `num` from shape %s" % s)
    return _gen_op("Unpack", [("value", value, None)], {"num": int(num), "axis": int(axis)},
                   name, "unstack").outputs


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
        raise ValueError("Dimension must be %d but is %d: cannot unstack shape %s into %d "
                         "tensors along axis %d" % (n, dims[axis], x.shape, n, axis))
    del dims[axis]
    return [(x.dtype, TensorShape(dims))] * n


def _unpack_kernel(ctx, op, x):
    n, axis = op.attrs["num"], op.attrs["axis"]
    if x.shape[axis] != n:
        raise ValueError("Input shape axis %d must equal %d, got shape %s"
                         % (axis, n, list(x.shape)))
    lead = (_pslice(None),) * axis
    return tuple(x[lead + (i,)] for i in _prange(n))


def _unpack_grad(op, *grads):
    return [stack(_zeros_for_none(grads, op.outputs), axis=op.attrs["axis"])]


register_op("Unpack", infer=_unpack_infer, kernel=_unpack_kernel, grad=_unpack_grad)
OPERATORS["unstack"] = unstack


def split(value, num_or_size_splits, axis=0, num=None, name="split"):
    """Splits ``value`` along ``axis`` into equal pieces (an int) or pieces of the given
    sizes (a list; one size may be -1). Returns a list of tensors."""
    if isinstance(num_or_size_splits, (int, np.integer)) and not isinstance(
            num_or_size_splits, bool):
        return _gen_op("Split", [("split_dim", axis, _dt.int32), ("value", value, None)],
                       {"num_split": int(num_or_size_splits)}, name, "split").outputs
    sizes = num_or_size_splits if _is_tensor(num_or_size_splits) else convert_to_tensor(
        np.asarray(num_or_size_splits, dtype=np.int32) if not isinstance(
            num_or_size_splits, np.ndarray) else num_or_size_splits)
    sizes = convert_to_tensor(sizes)
    if num is None:
        if sizes.shape.ndims != 1 or sizes.shape[0] is None:
            raise ValueError("Cannot infer argument `num` from shape %s" % sizes.shape)
        num = sizes.shape[0]
    return _gen_op("SplitV", [("value", value, None), ("size_splits", sizes, None),
                              ("split_dim", axis, _dt.int32)],
                   {"num_split": int(num)}, name, "split").outputs


def _split_axis(axis_t, r):
    a = constant_value(axis_t)
    if a is None or r is None:
        return None
    return axis_value(int(a), r)


def _split_infer(op):
    axis_t, x = op.inputs
    n = op.attrs["num_split"]
    if n < 1:
        raise ValueError("num_split must be >= 1, got %d" % n)
    _check_rank(axis_t, 0, "split_dim")
    r = x.shape.ndims
    a = _split_axis(axis_t, r)
    if a is None:
        return [(x.dtype, unknown_shape(r))] * n
    dims = x.shape.as_list()
    if dims[a] is not None:
        if dims[a] % n:
            raise ValueError("Dimension size must be evenly divisible by %d but is %d: cannot "
                             "split shape %s into %d equal pieces along axis %d"
                             % (n, dims[a], x.shape, n, a))
        dims[a] //= n
    return [(x.dtype, TensorShape(dims))] * n


def _split_kernel(ctx, op, axis, x):
    n = op.attrs["num_split"]
    a = axis_value(int(axis), x.ndim)
    if x.shape[a] % n:
        raise ValueError("Number of ways to split should evenly divide the split dimension, "
                         "but got split_dim %d (size = %d) and num_split %d"
                         % (a, x.shape[a], n))
    return tuple(np.split(x, n, axis=a))


def _split_grad(op, *grads):
    return [None, concat(_zeros_for_none(grads, op.outputs), op.inputs[0])]


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
            raise ValueError("can't split axis of size %d into pieces of size %s"
                             % (dim, sizes))
        sizes = [dim - known if s == -1 else s for s in sizes]
    elif known != dim or any(s < 0 for s in sizes):
        raise ValueError("can't split axis of size %d into pieces of size %s" % (dim, sizes))
    return sizes


def _splitv_infer(op):
    x, sizes_t, axis_t = op.inputs
    n = op.attrs["num_split"]
    check_dtype(sizes_t, (_dt.int32, _dt.int64), "size_splits")
    _check_rank(axis_t, 0, "split_dim")
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
    return [concat(_zeros_for_none(grads, op.outputs), op.inputs[2]), None, None]


register_op("SplitV", infer=_splitv_infer, kernel=_splitv_kernel, grad=_splitv_grad)


# --------------------------------------------------------------------------------------
# ExpandDims, Squeeze, Reverse
# --------------------------------------------------------------------------------------


def expand_dims(input, axis=None, name=None, dim=None):  # noqa: A002
    """``input`` with a length-1 dimension inserted at ``axis``."""
    if axis is not None and dim is not None:
        raise ValueError("Cannot specify both 'axis' and 'dim'")
    if axis is None:
        axis = dim
    if axis is None:
        raise ValueError("Must specify an axis argument to tf.expand_dims()")
    return _gen_op("ExpandDims", [("input", input, None), ("dim", axis, _dt.int32)], None,
                   name).outputs[0]


def _expand_dims_infer(op):
    x, d = op.inputs
    check_dtype(d, (_dt.int32, _dt.int64), "dim")
    if d.shape.num_elements() not in (None, 1):
        raise ValueError("'dim' must be a tensor with a single value, got shape %s" % d.shape)
    a = constant_value(d)
    if x.shape.ndims is None:
        return [(x.dtype, unknown_shape())]
    r = x.shape.ndims
    if a is None:
        return [(x.dtype, unknown_shape(r + 1))]
    a = int(np.asarray(a).reshape(-1)[0])
    if not -r - 1 <= a <= r:
        raise ValueError("dim %d not in the interval [%d, %d]." % (a, -r - 1, r))
    if a < 0:
        a += r + 1
    dims = x.shape.as_list()
    dims.insert(a, 1)
    return [(x.dtype, TensorShape(dims))]


def _expand_dims_kernel(ctx, op, x, d):
    a = int(np.asarray(d).reshape(-1)[0])
    r = x.ndim
    if not -r - 1 <= a <= r:
        raise ValueError("Tried to expand dim index %d for tensor with %d dimensions." % (a, r))
    return (np.expand_dims(x, a),)


def _reshape_to_input_grad(op, g):
    return [reshape(g, _static_dims(op.inputs[0]))] + [None] * (len(op.inputs) - 1)


register_op("ExpandDims", infer=_expand_dims_infer, kernel=_expand_dims_kernel,
            grad=_reshape_to_input_grad)


def squeeze(input, axis=None, name=None, squeeze_dims=None):  # noqa: A002
    """``input`` without its length-1 dimensions (all, or those in ``axis``)."""
    if axis is not None and squeeze_dims is not None:
        raise ValueError("Cannot specify both 'squeeze_dims' and 'axis'")
    if axis is None:
        axis = squeeze_dims
    if axis is None:
        axis = []
    elif np.isscalar(axis):
        axis = [axis]
    return _gen_op("Squeeze", [("input", input, None)],
                   {"squeeze_dims": [int(a) for a in axis]}, name).outputs[0]


def _squeeze_dims(dims, axes):
    r = len(dims)
    norm = []
    for a in axes:
        if not -r <= a < r:
            raise ValueError("Tried to squeeze dim index %d for tensor with %d dimensions."
                             % (a, r))
        a %= r
        if dims[a] is not None and dims[a] != 1:
            raise ValueError("Can not squeeze dim[%d], expected a dimension of 1, got %d"
                             % (a, dims[a]))
        norm.append(a)
    return norm


def _squeeze_infer(op):
    x = op.inputs[0]
    axes = op.attrs["squeeze_dims"]
    if x.shape.ndims is None:
        return [(x.dtype, unknown_shape())]
    dims = x.shape.as_list()
    if not axes:
        if any(d is None for d in dims):
            return [(x.dtype, unknown_shape())]
        return [(x.dtype, TensorShape([d for d in dims if d != 1]))]
    norm = _squeeze_dims(dims, axes)
    return [(x.dtype, TensorShape([d for i, d in enumerate(dims) if i not in norm]))]


def _squeeze_kernel(ctx, op, x):
    axes = op.attrs["squeeze_dims"]
    if not axes:
        return (np.squeeze(x),)
    return (np.squeeze(x, axis=tuple(_squeeze_dims(list(x.shape), axes))),)


register_op("Squeeze", infer=_squeeze_infer, kernel=_squeeze_kernel,
            grad=_reshape_to_input_grad)


def reverse(tensor, axis, name=None):
    """``tensor`` with the dimensions in ``axis`` reversed (op type ReverseV2)."""
    return _gen_op("ReverseV2", [("tensor", tensor, None), ("axis", axis, _dt.int32)], None,
                   name).outputs[0]


reverse_v2 = reverse


def _reverse_infer(op):
    x, axis = op.inputs
    check_dtype(axis, (_dt.int32, _dt.int64), "axis")
    _check_rank(axis, 1, "axis")
    axes = int_list(axis)
    if axes is not None and x.shape.ndims is not None:
        norm = [axis_value(a, x.shape.ndims) for a in axes]
        if len(set(norm)) != len(norm):
            raise ValueError("axis %s specifies a dimension more than once" % axes)
    return [(x.dtype, x.shape)]


def _reverse_kernel(ctx, op, x, axis):
    return (np.flip(x, tuple(axis_value(int(a), x.ndim) for a in axis)),)


register_op("ReverseV2", infer=_reverse_infer, kernel=_reverse_kernel,
            grad=lambda op, g: [reverse(g, op.inputs[1]), None])


# --------------------------------------------------------------------------------------
# GatherV2
# --------------------------------------------------------------------------------------

_INDEX_DTYPES = (_dt.int16, _dt.int32, _dt.int64)


def gather(params, indices, validate_indices=None, name=None, axis=None, batch_dims=0):
    """Rows (or slices along ``axis``) of ``params`` at ``indices``: the result has shape
    ``params.shape[:axis] + indices.shape + params.shape[axis + 1:]``.

    Note (flowrt): only ``batch_dims=0`` is supported.
    """
    if batch_dims != 0:
        raise ValueError("gather: flowrt supports batch_dims=0 only, got batch_dims=%r"
                         % (batch_dims,))
    return _gen_op("GatherV2", [("params", params, None), ("indices", indices, None),
                                ("axis", 0 if axis is None else axis, _dt.int32)],
                   {"batch_dims": 0}, name).outputs[0]


def _gather_infer(op):
    params, indices, axis = op.inputs
    check_dtype(indices, _INDEX_DTYPES, "indices")
    check_dtype(axis, (_dt.int32, _dt.int64), "axis")
    _check_rank(axis, 0, "axis")
    a = constant_value(axis)
    pr, ir = params.shape.ndims, indices.shape.ndims
    if a is None or pr is None or ir is None:
        n = pr + ir - 1 if pr is not None and ir is not None else None
        return [(params.dtype, unknown_shape(n))]
    a = int(a)
    if not -pr <= a < pr:
        raise ValueError("Shape must be at least rank %d but is rank %d: axis %d is out of "
                         "range for params of shape %s" % (a + 1 if a >= 0 else -a, pr, a,
                                                            params.shape))
    a %= pr
    p = params.shape.as_list()
    return [(params.dtype, TensorShape(p[:a] + indices.shape.as_list() + p[a + 1:]))]


def _gather_kernel(ctx, op, params, indices, axis):
    a = axis_value(int(axis), params.ndim)
    n = params.shape[a]
    bad = (indices < 0) | (indices >= n)
    if np.any(bad):
        pos = np.unravel_index(int(np.argmax(bad)), np.shape(indices))
        raise errors.InvalidArgumentError(
            None, op, "%s: indices[%s] = %d is not in [0, %d)"
            % (op.describe(), ",".join(map(str, pos)), int(np.asarray(indices)[pos]), n))
    return (np.take(params, indices, axis=a),)


def _gather_grad(op, g):
    params, indices, axis = op.inputs
    a = constant_value(axis)
    pr, ir = params.shape.ndims, indices.shape.ndims
    if a is None or pr is None:
        raise ValueError("the gradient of %s needs a constant axis and params of known rank"
                         % op.describe())
    a = int(a) % pr
    dense_shape = _static_dims(params)
    if a == 0:
        # Rows of params that were gathered: a sparse gradient, as in TF1.
        n, tail = indices.shape.num_elements(), params.shape[1:]
        if n is not None and tail.is_fully_defined():
            vshape = [n] + tail.as_list()
        else:
            vshape = concat([expand_dims(size(indices), 0), slice(dense_shape, [1], [-1])], 0)
        return [IndexedSlices(reshape(g, vshape), reshape(indices, [-1]), dense_shape),
                None, None]
    if ir is None:
        raise ValueError("the gradient of %s needs indices of known rank" % op.describe())
    # Move the gathered dims to the front, sum rows by index, move the axis back.
    perm = list(_prange(a, a + ir)) + list(_prange(a)) + list(_prange(a + ir, pr + ir - 1))
    num = params.shape[a] if params.shape[a] is not None else gather(shape(params), a)
    summed = unsorted_segment_sum(transpose(g, perm), indices, num)
    back = list(_prange(1, a + 1)) + [0] + list(_prange(a + 1, pr))
    return [transpose(summed, back), None, None]


register_op("GatherV2", infer=_gather_infer, kernel=_gather_kernel, grad=_gather_grad)
OPERATORS["gather"] = lambda params, indices, axis=None: gather(params, indices, axis=axis)


# --------------------------------------------------------------------------------------
# Slice
# --------------------------------------------------------------------------------------


def slice(input_, begin, size, name=None):  # noqa: A001 - TF1's name
    """The ``size``-shaped block of ``input_`` starting at ``begin`` (size -1: to the end)."""
    return _gen_op("Slice", [("input", input_, None), ("begin", begin, _dt.int32),
                             ("size", size, _dt.int32)], None, name).outputs[0]


def _slice_bounds(begin, sizes, dims):
    """Output dims of a Slice; raises ValueError on out-of-bounds (known dims only)."""
    out = []
    for i, (b, s, d) in enumerate(zip(begin, sizes, dims, strict=False)):
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
        _check_rank(t, 1, what)
    bv, sv = int_list(b), int_list(s)
    r = x.shape.ndims
    for v, what in ((bv, "begin"), (sv, "size")):
        if v is not None and r is not None and len(v) != r:
            raise ValueError("Length of %s (%d) must equal the rank of the input %s (%d)"
                             % (what, len(v), x.shape, r))
    if r is None:
        n = len(bv) if bv is not None else len(sv) if sv is not None else None
        return [(x.dtype, unknown_shape(n))]
    if sv is None:
        return [(x.dtype, unknown_shape(r))]
    if bv is None:
        return [(x.dtype, TensorShape([None if v == -1 else v for v in sv]))]
    return [(x.dtype, TensorShape(_slice_bounds(bv, sv, x.shape.as_list())))]


def _slice_kernel(ctx, op, x, b, s):
    if len(b) != x.ndim or len(s) != x.ndim:
        raise ValueError("Expected begin and size arguments to be 1-D tensors of size %d, but "
                         "got shapes %s and %s instead." % (x.ndim, list(b.shape),
                                                            list(s.shape)))
    dims = _slice_bounds([int(v) for v in b], [int(v) for v in s], list(x.shape))
    return (x[tuple(_pslice(int(bi), int(bi) + d) for bi, d in zip(b, dims, strict=False))],)


def _slice_grad(op, g):
    x, b, _ = op.inputs
    bv, y = int_list(b), op.outputs[0]
    if bv is not None and x.shape.is_fully_defined() and y.shape.is_fully_defined():
        pads = [[bi, d - bi - n]
                for bi, d, n in zip(bv, x.shape.as_list(), y.shape.as_list(), strict=True)]
    else:
        pads = stack([b, shape(x) - b - shape(y)], axis=1)
    return [pad(g, pads), None, None]


register_op("Slice", infer=_slice_infer, kernel=_slice_kernel, grad=_slice_grad)


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
            if s is None or (bv is None and not attrs["begin_mask"] & bit) or (
                    ev is None and not attrs["end_mask"] & bit):
                idx.append(_Unknown(False))
            else:
                idx.append(_pslice(None if bv is None else int(bv),
                                   None if ev is None else int(ev), int(s)))
    return tuple(idx)


def _ss_dims(idx, dims):
    """Output dims of indexing ``dims`` with ``idx``; ValueError on a bad shrink index."""
    consumers = sum(1 for k in idx if k is not None and k is not Ellipsis)
    if consumers > len(dims):
        raise ValueError("Index out of range using input dim %d; input has only %d dims"
                         % (len(dims), len(dims)))
    if Ellipsis not in idx:
        idx = idx + (Ellipsis,)
    out, d = [], 0
    for k in idx:
        if k is Ellipsis:
            take = len(dims) - consumers
            out.extend(dims[d:d + take])
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


def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0,
                  new_axis_mask=0, shrink_axis_mask=0, var=None, name=None):
    """The strided slice of ``input_`` (what ``Tensor.__getitem__`` builds)."""
    if strides is None:
        b = convert_to_tensor(begin, dtype=None if _is_tensor(begin) else _dt.int32)
        bv = int_list(b)
        strides = np.ones(len(bv), np.int32) if bv is not None else ones_like(b)
    masks = dict(zip(_MASKS, (begin_mask, end_mask, ellipsis_mask, new_axis_mask,
                              shrink_axis_mask), strict=False))
    return _gen_op("StridedSlice", [("input", input_, None), ("begin", begin, _dt.int32),
                                    ("end", end, _dt.int32), ("strides", strides, _dt.int32)],
                   {k: int(v) for k, v in masks.items()}, name).outputs[0]


def _partial_ints(t):
    """A constant int vector's values; for a Pack of scalars, the known ones (else None)."""
    v = int_list(t)
    if v is not None or t.op.type != "Pack":
        return v
    return [None if (c := constant_value(x)) is None else int(c) for x in t.op.inputs]


def _ss_infer(op):
    x, b, e, s = op.inputs
    vals = []
    for t, what in ((b, "begin"), (e, "end"), (s, "strides")):
        check_dtype(t, (_dt.int32, _dt.int64), what)
        _check_rank(t, 1, what)
        vals.append(_partial_ints(t))
    n = next((len(v) for v in vals if v is not None),
             next((t.shape[0] for t in (b, e, s) if t.shape.ndims == 1), None))
    if any(v is not None and len(v) != n for v in vals):
        raise ValueError("begin, end and strides must have the same length, got %s"
                         % [None if v is None else len(v) for v in vals])
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
    return [make("StridedSliceGrad", [_static_dims(x), b, e, s, g], dict(op.attrs)),
            None, None, None]


register_op("StridedSlice", infer=_ss_infer, kernel=_ss_kernel, grad=_ss_grad)


def _ssg_infer(op):
    dims = int_list(op.inputs[0])
    dy = op.inputs[4]
    if dims is None:
        return [(dy.dtype, unknown_shape(op.inputs[0].shape[0]
                                         if op.inputs[0].shape.ndims == 1 else None))]
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
    if _is_tensor(v):
        t = convert_to_tensor(v)
        if t.dtype in (_dt.int32, _dt.int64) and t.shape.ndims in (None, 0):
            return
    raise TypeError("Only integers, slices (`:`), ellipsis (`...`), fr.newaxis (`None`) and "
                    "scalar fr.int32/fr.int64 tensors are valid indices, got %r" % (v,))


def _pack_spec(values, g):
    if not values:
        return constant_op(np.zeros(0, np.int32), name="Const")
    if all(not _is_tensor(v) for v in values):
        return convert_to_tensor(values, name="stack")
    return stack(values, name="stack")


def _getitem(tensor, key):
    """``tensor[key]`` with TF1's rules: ints, slices with steps, negative indices,
    ``...``, ``None`` (new axis) and scalar int tensors."""
    if not isinstance(key, tuple):
        key = (key,)
    tensor = convert_to_tensor(tensor)
    g = get_default_graph()
    begin, end, strides = [], [], []
    masks = dict.fromkeys(_MASKS, 0)
    with g.name_scope("strided_slice") as scope:
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
# Tile
# --------------------------------------------------------------------------------------


def tile(input, multiples, name=None):  # noqa: A002
    """``input`` repeated ``multiples[i]`` times along each dimension ``i``."""
    return _gen_op("Tile", [("input", input, None), ("multiples", multiples, _dt.int32)],
                   None, name).outputs[0]


def _tile_infer(op):
    x, m = op.inputs
    check_dtype(m, (_dt.int32, _dt.int64), "multiples")
    _check_rank(m, 1, "multiples")
    mv = int_list(m)
    r = x.shape.ndims
    n = len(mv) if mv is not None else (m.shape[0] if m.shape.ndims == 1 else None)
    if r is not None and n is not None and r != n:
        raise ValueError("multiples has length %d but the input has shape %s (rank %d); pass "
                         "one multiple per input dimension" % (n, x.shape, r))
    if r is None:
        return [(x.dtype, unknown_shape(n))]
    if mv is None:
        return [(x.dtype, unknown_shape(r))]
    if any(v < 0 for v in mv):
        raise ValueError("Expected multiples to be non-negative, got %s" % mv)
    return [(x.dtype, TensorShape([None if d is None else d * v
                                   for d, v in zip(x.shape.as_list(), mv, strict=False)]))]


def _tile_kernel(ctx, op, x, m):
    if len(m) != x.ndim:
        raise ValueError("Expected multiples argument to be a vector of length %d but got "
                         "length %d" % (x.ndim, len(m)))
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


def pad(tensor, paddings, mode="CONSTANT", name=None, constant_values=0):  # noqa: A002
    """``tensor`` padded by ``paddings[i] = [before, after]`` in each dimension ``i``.

    ``mode`` is "CONSTANT" (with ``constant_values``), "REFLECT" (mirror without the edge)
    or "SYMMETRIC" (mirror with the edge), case-insensitive.
    """
    m = str(mode).upper()
    if m == "CONSTANT":
        if not _is_tensor(constant_values) and np.all(np.asarray(constant_values) == 0):
            return _gen_op("Pad", [("input", tensor, None), ("paddings", paddings, _dt.int32)],
                           None, name).outputs[0]
        t = convert_to_tensor(tensor)
        return _gen_op("PadV2", [("input", t, None), ("paddings", paddings, _dt.int32),
                                 ("constant_values", constant_values, t.dtype)],
                       None, name).outputs[0]
    if m in ("REFLECT", "SYMMETRIC"):
        return _gen_op("MirrorPad", [("input", tensor, None), ("paddings", paddings, _dt.int32)],
                       {"mode": m}, name).outputs[0]
    raise ValueError('Value of argument `mode` expected to be one of "CONSTANT", "REFLECT", '
                     'or "SYMMETRIC". Received `mode` = %s' % mode)


def _pad_dims(x_dims, pads, mirror=None):
    out = []
    for i, (d, (b, a)) in enumerate(zip(x_dims, pads, strict=False)):
        if b < 0 or a < 0:
            raise ValueError("Paddings must be non-negative: %d %d" % (b, a))
        if mirror == "REFLECT" and d is not None and (b >= d or a >= d):
            raise ValueError("paddings must be less than the dimension size: %d, %d not less "
                             "than %d (dimension %d)" % (b, a, d, i))
        if mirror == "SYMMETRIC" and d is not None and (b > d or a > d):
            raise ValueError("paddings must be no greater than the dimension size: %d, %d "
                             "greater than %d (dimension %d)" % (b, a, d, i))
        out.append(None if d is None else d + b + a)
    return out


def _pad_infer(op):
    x, p = op.inputs[:2]
    check_dtype(p, (_dt.int32, _dt.int64), "paddings")
    if len(op.inputs) == 3 and op.inputs[2].dtype is not x.dtype:
        raise TypeError("constant_values has dtype %s but the input has dtype %s"
                        % (op.inputs[2].dtype.name, x.dtype.name))
    r = x.shape.ndims
    ps = p.shape
    if ps.ndims is not None and (ps.ndims != 2 or ps[1] not in (None, 2)
                                 or (r is not None and ps[0] not in (None, r))):
        raise ValueError("paddings must have shape [%s, 2] (one [before, after] pair per "
                         "input dimension), got %s" % ("?" if r is None else r, ps))
    pv = int_list(p)
    if r is None:
        return [(x.dtype, unknown_shape(ps[0] if ps.ndims == 2 else None))]
    if pv is None:
        return [(x.dtype, unknown_shape(r))]
    pairs = np.reshape(pv, (-1, 2)).tolist()
    return [(x.dtype, TensorShape(_pad_dims(x.shape.as_list(), pairs, op.attrs.get("mode"))))]


def _pad_pairs(x, p):
    if np.shape(p) != (x.ndim, 2):
        raise ValueError("The first dimension of paddings must be the rank of inputs %s, got "
                         "paddings of shape %s" % (list(p.shape)[:1], list(np.shape(p))))
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
    return [slice(g, begin, _static_dims(x))] + rest


register_op("Pad", infer=_pad_infer, kernel=_pad_kernel, grad=_pad_grad)
register_op("PadV2", infer=_pad_infer, kernel=_pad_kernel, grad=_pad_grad)
register_op("MirrorPad", infer=_pad_infer, kernel=_mirror_pad_kernel,
            grad=lambda op, g: [make("MirrorPadGrad", [g, op.inputs[1]],
                                     {"mode": op.attrs["mode"]}), None])


def _mirror_pad_grad_infer(op):
    g, p = op.inputs
    pv = int_list(p)
    if pv is None or g.shape.ndims is None:
        return [(g.dtype, unknown_shape(g.shape.ndims))]
    pairs = np.reshape(pv, (-1, 2)).tolist()
    return [(g.dtype, TensorShape([None if d is None else d - b - a
                                   for d, (b, a) in zip(g.shape.as_list(), pairs, strict=False)]))]


def _mirror_pad_grad_kernel(ctx, op, g, p):
    mode = op.attrs["mode"].lower()
    out = g
    for ax, (b, a) in enumerate(_pad_pairs(g, p)):
        n = out.shape[ax] - b - a
        src = np.pad(np.arange(n), (b, a), mode=mode)
        acc = np.zeros(out.shape[:ax] + (n,) + out.shape[ax + 1:], dtype=g.dtype)
        np.add.at(np.moveaxis(acc, ax, 0), src, np.moveaxis(out, ax, 0))
        out = acc
    return (out,)


register_op("MirrorPadGrad", infer=_mirror_pad_grad_infer, kernel=_mirror_pad_grad_kernel,
            grad=None)


# --------------------------------------------------------------------------------------
# Compositions: sequence_mask, boolean_mask, meshgrid
# --------------------------------------------------------------------------------------


def sequence_mask(lengths, maxlen=None, dtype=_dt.bool, name=None):
    """``mask[i, j] = j < lengths[i]`` with ``maxlen`` columns (default: max length)."""
    from . import math_ops

    g = get_default_graph()
    with g.name_scope(name or "SequenceMask"):
        lengths = convert_to_tensor(lengths)
        if maxlen is None:
            maxlen = math_ops.reduce_max(lengths, [])
        else:
            maxlen = convert_to_tensor(maxlen)
        row = range(constant_op(np.zeros((), maxlen.dtype.np)), maxlen,
                    constant_op(np.ones((), maxlen.dtype.np)))
        matrix = math_ops.cast(expand_dims(lengths, -1), maxlen.dtype)
        result = math_ops.less(row, matrix)
        dtype = _dt.as_dtype(dtype)
        return result if dtype is _dt.bool else math_ops.cast(result, dtype)


def boolean_mask(tensor, mask, name="boolean_mask", axis=None):
    """The elements (or slices along ``axis``) of ``tensor`` where ``mask`` is true."""
    from . import math_ops

    g = get_default_graph()
    with g.name_scope(name or "boolean_mask"):
        tensor = convert_to_tensor(tensor, name="tensor")
        mask = convert_to_tensor(mask, name="mask")
        k = mask.shape.ndims
        if k is None:
            raise ValueError("Number of mask dimensions must be specified, even if some "
                             "dimensions are None.  E.g. shape=[None] is ok, but shape=None "
                             "is not.")
        if k == 0:
            raise ValueError("mask cannot be scalar.")
        a = 0 if axis is None else int(axis)
        ts = tensor.shape
        if ts.ndims is None:
            raise ValueError("boolean_mask needs a tensor of known rank, got %s" % ts)
        ts[a:a + k].assert_is_compatible_with(mask.shape)
        dims = ts.as_list()
        outer = dims[:a] + dims[a + k:]
        if all(d is not None for d in outer):
            new = dims[:a] + [-1] + dims[a + k:]
        else:
            s = shape(tensor)
            new = concat([s[:a], [-1], s[a + k:]], 0)
        flat = reshape(tensor, new)
        flat.set_shape(dims[:a] + [None] + dims[a + k:])
        idx = squeeze(math_ops.where(reshape(mask, [-1])), axis=[1])
        return gather(flat, idx, axis=a)


def meshgrid(*args, **kwargs):
    """Coordinate grids from 1-D ``args``; ``indexing`` is "xy" (default) or "ij"."""
    from . import math_ops

    indexing = kwargs.pop("indexing", "xy")
    name = kwargs.pop("name", "meshgrid")
    if kwargs:
        raise TypeError("'%s' is an invalid keyword argument for this function"
                        % next(iter(kwargs)))
    if indexing not in ("xy", "ij"):
        raise ValueError("Argument `indexing` parameter must be either 'xy' or 'ij', got '%s'"
                         % indexing)
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
        return [math_ops.multiply(o, mult) for o in outs]
