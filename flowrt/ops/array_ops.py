"""Sources and structural array ops: constants, placeholders, identity, shapes, reshape.

Each op type is registered once below its public wrapper functions, with its infer
rule, kernel and gradient together.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.graph import OPERATORS, Tensor, constant_op, convert_to_tensor, get_default_graph
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from .._core.shape import TensorShape, as_shape, unknown_shape
from .common import int_list, make, make_op, same_as, to_tensor

__all__ = ["constant", "placeholder", "placeholder_with_default", "identity", "no_op", "group",
           "stop_gradient", "shape", "size", "rank", "reshape", "fill", "zeros", "ones",
           "zeros_like", "ones_like", "stack"]

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


register_op("NoOp", infer=lambda op: [], kernel=lambda ctx, op: (), grad=NOT_DIFFERENTIABLE)


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
        n = s.shape[0] if s.shape.ndims == 1 else None
        return [(x.dtype, unknown_shape(n))]
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
    rx = [i for i in range(n) if px[i] == 1 and py[i] != 1]
    ry = [i for i in range(n) if py[i] == 1 and px[i] != 1]
    rx += [i for i in range(n) if px[i] == 1 and py[i] == 1 and i < n - len(sx)]
    ry += [i for i in range(n) if py[i] == 1 and px[i] == 1 and i < n - len(sy)]
    dt = op.outputs[0].dtype.np
    return np.array(sorted(set(rx)), dtype=dt), np.array(sorted(set(ry)), dtype=dt)


register_op("BroadcastGradientArgs", infer=_bga_infer, kernel=_bga_kernel,
            grad=NOT_DIFFERENTIABLE)


def broadcast_gradient_args(s0, s1, name=None):
    """The axes to sum a broadcast result's gradient over, for each of two shapes."""
    return make("BroadcastGradientArgs", [s0, s1], None, name)
