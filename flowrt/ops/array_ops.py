"""Sources and structural array ops: constants, placeholders, identity, shapes, reshape,
stack (and parallel_stack), range and lin_space, transpose, expand_dims, squeeze and
reverse; ``is_tensor``.

Each op type is registered once below its public wrapper functions, with its infer
rule, kernel and gradient together.
"""

from __future__ import annotations

import builtins
import math
import operator
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.graph import (
    Operation,
    Tensor,
    constant_op,
    convert_to_tensor,
    get_default_graph,
    register_tensor_conversion_function,
)
from .._core.lazy_constant import value_of
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from .._core.shape import TensorShape, as_shape, unknown_shape
from . import math_ops
from .common import (
    FLOATS,
    axis_value,
    check_dtype,
    in_graph_of,
    int_list,
    is_tensor_like,
    make,
    make_op,
    op_scope,
    same_as,
    shape_str,
    to_tensor,
)
from .const_eval import partial_ints, partial_shape, static_value

if TYPE_CHECKING:
    from .._core.typing import DTypeLike, ShapeLike, TensorLike

# This module defines TF1's ``range``; the builtin keeps this name.
_prange = builtins.range

__all__ = [
    "constant",
    "placeholder",
    "placeholder_with_default",
    "identity",
    "no_op",
    "group",
    "stop_gradient",
    "shape",
    "size",
    "rank",
    "reshape",
    "fill",
    "zeros",
    "ones",
    "zeros_like",
    "ones_like",
    "stack",
    "range",
    "lin_space",
    "linspace",
    "transpose",
    "invert_permutation",
    "expand_dims",
    "squeeze",
    "reverse",
    "reverse_v2",
    "is_tensor",
    "parallel_stack",
]

# --------------------------------------------------------------------------------------
# Sources
# --------------------------------------------------------------------------------------


def constant(
    value: TensorLike,
    dtype: DTypeLike | None = None,
    shape: ShapeLike = None,
    name: str | None = "Const",
    verify_shape: bool = False,
) -> Tensor:
    """A tensor with a fixed value (TF1 ``tf.constant``)."""
    return constant_op(value, dtype, shape, name)


def _const_infer(op):
    v = op.attrs["value"]
    return [(op.attrs["dtype"], TensorShape(v.shape))]


register_op(
    "Const",
    infer=_const_infer,
    kernel=lambda ctx, op: (value_of(op.attrs["value"], op),),
    grad=NOT_DIFFERENTIABLE,
)


def placeholder(dtype: DTypeLike, shape: ShapeLike = None, name: str | None = None) -> Tensor:
    """A tensor that must be fed at run time."""
    return make(
        "Placeholder",
        [],
        {
            "dtype": _dt.as_dtype(dtype),
            "shape": as_shape(shape) if shape is not None else unknown_shape(),
        },
        name,
    )


def _placeholder_kernel(ctx, op):
    shape = op.attrs["shape"]
    desc = (
        ""
        if shape.ndims is None
        else " and shape [%s]" % ",".join("?" if d is None else str(d) for d in shape.as_list())
    )
    raise errors.InvalidArgumentError(
        None,
        op,
        "You must feed a value for placeholder tensor '%s' with dtype %s%s"
        % (op.name, op.attrs["dtype"].name, desc),
    )


register_op(
    "Placeholder",
    infer=lambda op: [(op.attrs["dtype"], op.attrs["shape"])],
    kernel=_placeholder_kernel,
    grad=NOT_DIFFERENTIABLE,
)


def placeholder_with_default(
    input: TensorLike, shape: ShapeLike, name: str | None = None
) -> Tensor:  # TF1's argument name
    """A tensor that is ``input`` unless fed."""
    x = to_tensor(input)
    shape = as_shape(shape)
    if not shape.is_compatible_with(x.shape):
        raise ValueError("Shapes %s and %s are incompatible" % (shape, x.shape))
    return make("PlaceholderWithDefault", [x], {"shape": shape}, name)


register_op(
    "PlaceholderWithDefault",
    infer=lambda op: [(op.inputs[0].dtype, op.attrs["shape"])],
    kernel=lambda ctx, op, x: (x,),
    grad=lambda op, g: [g],
)


# --------------------------------------------------------------------------------------
# Identity, no_op, group, stop_gradient
# --------------------------------------------------------------------------------------


def identity(input: TensorLike, name: str | None = None) -> Tensor:
    """Returns a tensor with the same value as ``input``."""
    return make("Identity", [input], None, name)


# ``aliases``: the output may be (a view of) the input (see plan_body._leases).
register_op(
    "Identity",
    infer=same_as(0),
    kernel=lambda ctx, op, x: (x,),
    grad=lambda op, g: [g],
    aliases=True,
)


def no_op(name: str | None = None) -> Operation:
    """An op that does nothing; useful as a control dependency target."""
    return make_op("NoOp", [], None, name)


register_op(
    "NoOp", infer=lambda op: [], kernel=lambda ctx, op: (), grad=NOT_DIFFERENTIABLE, quiet=True
)


def group(*inputs: Any, **kwargs: Any) -> Operation:
    """An op that runs after all of ``inputs`` (ops or tensors)."""
    with in_graph_of([inputs]):
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


def stop_gradient(input: TensorLike, name: str | None = None) -> Tensor:
    """Passes ``input`` through; gradients do not flow back through it."""
    return make("StopGradient", [input], None, name)


register_op(
    "StopGradient",
    infer=same_as(0),
    kernel=lambda ctx, op, x: (x,),
    grad=NOT_DIFFERENTIABLE,
    aliases=True,
)


# --------------------------------------------------------------------------------------
# Shapes
# --------------------------------------------------------------------------------------


def _out_type(out_type):
    return _dt.as_dtype(out_type)


def shape(input: TensorLike, name: str | None = None, out_type: DTypeLike = _dt.int32) -> Tensor:
    """The dynamic shape of ``input`` as a 1-D int tensor."""
    return make("Shape", [input], {"out_type": _out_type(out_type)}, name)


def _shape_infer(op):
    s = op.inputs[0].shape
    return [(op.attrs["out_type"], TensorShape([s.ndims]))]


register_op(
    "Shape",
    infer=_shape_infer,
    kernel=lambda ctx, op, x: (np.array(np.shape(x), dtype=op.attrs["out_type"].np),),
    grad=NOT_DIFFERENTIABLE,
)


def size(input: TensorLike, name: str | None = None, out_type: DTypeLike = _dt.int32) -> Tensor:
    """The number of elements of ``input`` as a scalar int tensor."""
    return make("Size", [input], {"out_type": _out_type(out_type)}, name)


register_op(
    "Size",
    infer=lambda op: [(op.attrs["out_type"], TensorShape([]))],
    kernel=lambda ctx, op, x: (np.array(np.size(x), dtype=op.attrs["out_type"].np),),
    grad=NOT_DIFFERENTIABLE,
)


def rank(input: TensorLike, name: str | None = None) -> Tensor:
    """The number of dimensions of ``input`` as a scalar int32 tensor."""
    return make("Rank", [input], None, name)


register_op(
    "Rank",
    infer=lambda op: [(_dt.int32, TensorShape([]))],
    kernel=lambda ctx, op, x: (np.array(np.ndim(x), dtype=np.int32),),
    grad=NOT_DIFFERENTIABLE,
)


def reshape(tensor: TensorLike, shape: TensorLike, name: str | None = None) -> Tensor:
    """``tensor`` with its elements laid out in ``shape`` (one dim may be -1)."""
    with in_graph_of([tensor, shape]):
        return make(
            "Reshape",
            [tensor, to_tensor(shape, _dt.int32) if not isinstance(shape, Tensor) else shape],
            None,
            name,
        )


def _reshape_infer(op):
    x, s = op.inputs
    if s.shape.ndims is not None and s.shape.ndims > 1:
        raise ValueError("Shape must be rank 1 but is rank %d" % s.shape.ndims)
    dims = partial_ints(s)
    if dims is None:
        return [(x.dtype, unknown_shape())]
    if None in dims:
        return [(x.dtype, TensorShape([None if d is None or d == -1 else d for d in dims]))]
    if sum(d == -1 for d in dims) > 1:
        raise ValueError("Cannot infer multiple unknown dimensions in shape %s" % dims)
    total = x.shape.num_elements()
    if -1 in dims:
        known = int(np.prod([d for d in dims if d != -1]))
        if total is not None:
            if known == 0 or total % known:
                raise ValueError(
                    "Cannot reshape a tensor with %d elements to shape %s" % (total, dims)
                )
            dims = [total // known if d == -1 else d for d in dims]
        else:
            dims = [None if d == -1 else d for d in dims]
    elif total is not None and total != int(np.prod(dims)):
        raise ValueError(
            "Cannot reshape a tensor with %d elements to shape %s (%d elements)"
            % (total, dims, int(np.prod(dims)))
        )
    elif total is None and x.shape.ndims is not None:
        # TF: the known dimensions of a partially known input must divide the target size
        known = int(np.prod([d for d in x.shape.as_list() if d is not None]))
        want = int(np.prod(dims))
        if known and want % known:
            raise ValueError(
                "Dimension size must be evenly divisible by %d but is %d: cannot reshape "
                "a tensor of shape %s to shape %s" % (known, want, shape_str(x.shape), dims)
            )
    return [(x.dtype, TensorShape(dims))]


def _reshape_kernel(ctx, op, x, s):
    # The shape as a list: numpy converts an int array shape ~6x slower (2.3 vs 0.4 us).
    shape = s.tolist() if type(s) is np.ndarray else s
    try:
        return ((x if type(x) is np.ndarray else np.asarray(x)).reshape(shape),)
    except ValueError:
        raise errors.InvalidArgumentError(
            None,
            op,
            "Input to reshape is a tensor with %d values, but the requested shape "
            "%s has %d" % (np.size(x), list(s), int(np.prod(s))),
        ) from None


def _reshape_grad(op, g):
    # TF's _ReshapeGrad: the input's static shape as a constant when it is known but for
    # at most one dimension (that one as -1, when no dimension is 0), so the gradient does
    # not read the forward input just for its shape; else a dynamic Shape.
    xs = op.inputs[0].shape
    if xs.ndims is not None:
        dims = xs.as_list()
        unknown = [i for i, d in enumerate(dims) if d is None]
        if not unknown:
            return [reshape(g, dims), None]
        if len(unknown) == 1 and 0 not in dims:
            dims[unknown[0]] = -1
            return [reshape(g, dims), None]
    return [reshape(g, shape(op.inputs[0])), None]


register_op(
    "Reshape", infer=_reshape_infer, kernel=_reshape_kernel, grad=_reshape_grad, aliases=True
)


def fill(dims: TensorLike, value: TensorLike, name: str | None = None) -> Tensor:
    """A tensor of shape ``dims`` filled with the scalar ``value``."""
    with in_graph_of([dims, value]):
        # int32 unless ``dims`` holds int64 tensors (TF's ``index_type`` attr).
        d = convert_to_tensor(dims, dtype_hint=_dt.int32)
        if d.dtype not in (_dt.int32, _dt.int64):
            raise TypeError(
                "Value passed to parameter 'dims' has DataType %s not in list of allowed "
                "values: int32, int64" % d.dtype.name
            )
        return make("Fill", [d, value], None, name)


def _fill_infer(op):
    d, v = op.inputs
    if v.shape.ndims not in (None, 0):
        raise ValueError("value must be a scalar, got shape %s" % v.shape)
    if d.shape.ndims not in (None, 1):
        raise ValueError("dims must be a vector, got shape %s" % d.shape)
    known = int_list(d)
    if known is not None and any(x < 0 for x in known):
        raise ValueError("Fill dimensions must be >= 0, got %s" % known)
    dims = partial_shape(d)
    return [(v.dtype, unknown_shape() if dims is None else TensorShape(dims))]


def _fill_kernel(ctx, op, d, v):
    bad = [int(x) for x in np.reshape(d, -1) if x < 0]
    if bad:
        raise errors.InvalidArgumentError(None, op, "Dimension %d must be >= 0" % bad[0])
    return (np.full(tuple(d), v, dtype=op.outputs[0].dtype.np),)


register_op(
    "Fill",
    infer=_fill_infer,
    kernel=_fill_kernel,
    grad=lambda op, g: [None, math_ops.reduce_sum(g)],
)


#: TF's ``zeros``/``ones`` make a Const below this many elements and a ``Fill`` from it
#: on, so a graph (and its GraphDef) never holds a large constant of one value.
_FILLED_CONST_MAX = 1000


def _filled(shape, value, dtype, name, default):
    """TF1's ``zeros``/``ones``: a Const for a known shape of fewer than 1,000 elements,
    else ``Fill`` named after the scope; ``shape`` may be a tensor or a list mixing ints
    and scalar tensors."""
    dtype = _dt.as_dtype(dtype)
    g = get_default_graph()
    with g.name_scope(name or default) as scope:
        if not is_tensor_like(shape):
            dims = None
            if not any(is_tensor_like(d) for d in _flat_shape(shape)):
                dims = list(as_shape(shape).as_list())
            if dims is not None and all(d is not None for d in dims):
                if math.prod(dims) < _FILLED_CONST_MAX:
                    return constant_op(
                        np.full(dims, value, dtype=dtype.np), dtype, name=scope[:-1] + "/"
                    )
                wide = any(d > np.iinfo(np.int32).max for d in dims)
                shape = constant_op(
                    np.array(dims, np.int64 if wide else np.int32), name="shape_as_tensor"
                )
            else:
                shape = convert_to_tensor(shape)  # its tensors' dtype: int32 or int64
        return fill(shape, constant_op(value, dtype), name=scope)


def _flat_shape(shape):
    if hasattr(shape, "as_list") or shape is None:
        return []
    return list(shape) if isinstance(shape, (list, tuple)) else [shape]


def zeros(shape: TensorLike, dtype: DTypeLike = _dt.float32, name: str | None = None) -> Tensor:
    """A tensor of zeros; ``shape`` may mix ints and scalar tensors
    (``fr.zeros([fr.shape(x)[0], 4])`` has the static shape ``[None, 4]``)."""
    with in_graph_of([shape]):
        zero = b"" if _dt.as_dtype(dtype) is _dt.string else 0  # TF: strings are b""
        return _filled(shape, zero, dtype, name, "zeros")


def ones(shape: TensorLike, dtype: DTypeLike = _dt.float32, name: str | None = None) -> Tensor:
    """A tensor of ones; ``shape`` may mix ints and scalar tensors."""
    with in_graph_of([shape]):
        return _filled(shape, 1, dtype, name, "ones")


def zeros_like(
    tensor: TensorLike,
    dtype: DTypeLike | None = None,
    name: str | None = None,
    optimize: bool = True,
) -> Tensor:
    """Zeros with the shape (and dtype, unless given) of ``tensor``."""
    t = convert_to_tensor(tensor)
    if dtype is not None and _dt.as_dtype(dtype) is not t.dtype:
        return zeros(shape(t), dtype, name)
    return make("ZerosLike", [t], None, name)


def ones_like(
    tensor: TensorLike,
    dtype: DTypeLike | None = None,
    name: str | None = None,
    optimize: bool = True,
) -> Tensor:
    """Ones with the shape (and dtype, unless given) of ``tensor``."""
    t = convert_to_tensor(tensor)
    if dtype is not None and _dt.as_dtype(dtype) is not t.dtype:
        return ones(shape(t), dtype, name)
    return make("OnesLike", [t], None, name)


def _zeros_like(x: np.ndarray) -> np.ndarray:
    # A string tensor's zero is b"" (numpy's zeros_like of an object array gives 0s).
    return np.full(x.shape, b"", object) if x.dtype == object else np.zeros_like(x)


register_op(
    "ZerosLike",
    infer=same_as(0),
    kernel=lambda ctx, op, x: (_zeros_like(np.asarray(x)),),
    grad=NOT_DIFFERENTIABLE,
)
register_op(
    "OnesLike",
    infer=same_as(0),
    kernel=lambda ctx, op, x: (np.ones_like(x),),
    grad=NOT_DIFFERENTIABLE,
)


# --------------------------------------------------------------------------------------
# Pack (stack) -- needed to convert nested lists of tensors
# --------------------------------------------------------------------------------------


def stack(values: Sequence[TensorLike], axis: int = 0, name: str | None = "stack") -> Tensor:
    """Stacks a list of rank-R tensors into one rank-(R+1) tensor along ``axis``."""
    with in_graph_of([values, axis]):
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
            raise TypeError(
                "Tensors in list passed to 'values' of 'Pack' Op have types "
                "[%s] that don't all match." % ", ".join(t.dtype.name for t in xs)
            )
        if not s.is_compatible_with(x.shape):
            raise ValueError(
                "Shapes must be equal rank, and all dims compatible, but are %s "
                "and %s (input %d)" % (s, x.shape, i)
            )
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
    from .slicing_ops import unstack  # slicing_ops builds on this module's ops

    return unstack(g, num=len(op.inputs), axis=op.attrs["axis"])


_SHAPE = operator.attrgetter("shape")
_DTYPE = operator.attrgetter("dtype")


def _pack_kernel(ctx, op, *xs):
    # For numbers the inputs are copied into one new array in C: np.stack's per-input
    # Python work (asarray, expand_dims, a shape set) costs more for the many small
    # columns of an input pipeline (tf.stack of decode_csv's outputs). C-contiguous
    # inputs of one dtype are laid end to end by one bytearray.join (a memcpy each,
    # half the cost of np.concatenate's per-input assignment); others by concatenate.
    shape = np.shape(xs[0])
    try:
        same = builtins.list(builtins.map(_SHAPE, xs)).count(shape) == len(xs)
    except AttributeError:  # a Python scalar
        same = False
    for i, x in enumerate(() if same else xs):
        if np.shape(x) != shape:
            raise errors.InvalidArgumentError(
                None,
                op,
                "Shapes of all inputs must match: values[0].shape = %s != values[%d].shape = %s"
                % (list(shape), i, list(np.shape(x))),
            )
    axis = op.attrs["axis"]
    dtype = getattr(xs[0], "dtype", None)
    if dtype is None or dtype.kind == "O":
        # Strings and handles: np.array would nest 0-d object arrays, not their values.
        return (np.stack(xs, axis=axis),)
    if shape and same:
        flat = None
        if builtins.list(builtins.map(_DTYPE, xs)).count(dtype) == len(xs):
            try:  # a buffer of raw bytes: only C-contiguous arrays export one
                flat = np.frombuffer(bytearray().join(xs), dtype)
            except (TypeError, BufferError, ValueError):
                flat = None
        if flat is None:
            flat = np.concatenate(xs, axis=None, dtype=dtype)  # each read in C order
        out = flat.reshape((len(xs),) + shape)
    else:
        out = np.array(xs, dtype=dtype)
    if axis < 0:  # left as given when the inputs' rank was unknown at graph time
        axis += out.ndim
    if axis:
        perm = builtins.list(builtins.range(1, out.ndim))
        perm.insert(axis, 0)
        out = out.transpose(perm).copy()
    return (out,)


register_op("Pack", infer=_pack_infer, kernel=_pack_kernel, grad=_pack_grad)


def _autopacking(value, dtype=None, name=None, as_ref=False):
    """TF1's conversion of a (nested) list holding tensors: one ``Pack`` per level."""
    if not any(isinstance(v, Tensor) or hasattr(v, "_as_tensor") for v in _flat(value)):
        return NotImplemented
    if dtype is None:  # TF's autopacking: Python values take the first tensor's dtype
        first = next(v for v in _flat(value) if isinstance(v, Tensor) or hasattr(v, "_as_tensor"))
        dtype = convert_to_tensor(first).dtype

    def conv(v):
        if isinstance(v, (list, tuple)):
            return stack([conv(x) for x in v])
        return convert_to_tensor(v, dtype=dtype)

    return stack([conv(x) for x in value], name=name or "packed")


def _flat(x):
    for v in x:
        if isinstance(v, (list, tuple)):
            yield from _flat(v)
        else:
            yield v


register_tensor_conversion_function((list, tuple), _autopacking, 99)


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


register_op("BroadcastGradientArgs", infer=_bga_infer, kernel=_bga_kernel, grad=NOT_DIFFERENTIABLE)


def broadcast_gradient_args(s0, s1, name=None):
    """The axes to sum a broadcast result's gradient over, for each of two shapes."""
    return make("BroadcastGradientArgs", [s0, s1], None, name)


# --------------------------------------------------------------------------------------
# Naming as TF's wrappers do
# --------------------------------------------------------------------------------------


def gen_op(op_type, args, attrs=None, name=None, default=None):
    """Creates an op like TF's generated wrappers: non-tensor arguments become Consts
    named after the argument inside the op's name scope; the op takes the scope's name.

    ``args`` is a list of ``(arg_name, value, dtype_or_None)``.
    """
    g = get_default_graph()
    with g.name_scope(name or default or op_type) as scope:
        ins = [
            convert_to_tensor(v) if is_tensor_like(v) else convert_to_tensor(v, dtype=dt, name=a)
            for a, v, dt in args
        ]
    return g._create_op(op_type, ins, attrs or {}, scope)


def _index_arg(v):
    """An int argument: tensors pass through, Python values become int32 (int64 if big)."""
    return v if is_tensor_like(v) else None


def static_dims(t: Tensor):
    """``t``'s shape as a constant list when fully known, else the dynamic ``shape(t)``."""
    if t.shape.is_fully_defined():
        return constant_op(np.array(t.shape.as_list(), dtype=np.int32))
    return shape(t)


def zeros_for_none(grads, outputs):
    return [g if g is not None else zeros_like(t) for g, t in zip(grads, outputs, strict=False)]


def check_rank(t: Tensor, rank: int, what: str):
    if t.shape.ndims is not None and t.shape.ndims != rank:
        raise ValueError(
            "%s must be rank %d but is rank %d (shape %s)" % (what, rank, t.shape.ndims, t.shape)
        )


# --------------------------------------------------------------------------------------
# Range, LinSpace
# --------------------------------------------------------------------------------------


_RANGE_ORDER = (_dt.int32, _dt.int64, _dt.float32, _dt.float64)


def range(
    start: TensorLike,
    limit: TensorLike | None = None,
    delta: TensorLike = 1,
    dtype: DTypeLike | None = None,
    name: str | None = "range",
) -> Tensor:  # TF1's name
    """The sequence ``start, start + delta, ...`` up to (excluding) ``limit``.

    As in TF1, ``range(n)`` counts from 0; the dtype is int32 unless ``dtype`` is given or
    an argument is a float (then the widest argument dtype wins).
    """
    with in_graph_of([start, limit, delta]):
        if limit is None:
            start, limit = 0, start
        g = get_default_graph()
        dt = None if dtype is None else _dt.as_dtype(dtype)
        with g.name_scope(name or "range") as scope:
            vals = [
                convert_to_tensor(v, dtype=dt, name=n)
                for n, v in (("start", start), ("limit", limit), ("delta", delta))
            ]
            if dt is None:
                dt = max(
                    (v.dtype for v in vals),
                    key=lambda d: _RANGE_ORDER.index(d) if d in _RANGE_ORDER else -1,
                )
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
        return (
            builtins.abs(int(limit) - int(start)) + builtins.abs(int(delta)) - 1
        ) // builtins.abs(int(delta))
    return int(np.ceil(builtins.abs((float(limit) - float(start)) / float(delta))))


def _const_through_cast(t):
    """``t``'s constant value, also when it is a Cast of a constant (range's promotion)."""
    if t.op.type == "Cast":
        v = static_value(t.op.inputs[0])
        return None if v is None else np.asarray(v).astype(t.dtype.np)
    return static_value(t)


def _range_infer(op):
    dt = op.inputs[0].dtype
    for t, n in zip(op.inputs, ("start", "limit", "delta"), strict=False):
        if t.dtype is not dt:
            raise TypeError(
                "Range arguments must all have dtype %s, but %s has %s" % (dt.name, n, t.dtype.name)
            )
        if t.shape.ndims not in (None, 0):
            raise ValueError("%s must be a scalar, not shape %s" % (n, t.shape))
    if dt not in _RANGE_ORDER:
        raise TypeError(
            "Value passed to parameter 'start' has DataType %s not in list of "
            "allowed values: %s" % (dt.name, ", ".join(d.name for d in _RANGE_ORDER))
        )
    vals = [_const_through_cast(t) for t in op.inputs]
    if any(v is None for v in vals):
        return [(dt, TensorShape([None]))]
    return [(dt, TensorShape([_range_size(*(v.item() for v in map(np.asarray, vals)))]))]


def _range_kernel(ctx, op, start, limit, delta):
    n = _range_size(start.item(), limit.item(), delta.item())
    dt = op.outputs[0].dtype.np
    return ((start + np.arange(n, dtype=dt) * delta).astype(dt, copy=False),)


register_op("Range", infer=_range_infer, kernel=_range_kernel, grad=NOT_DIFFERENTIABLE)


def _linspace_infer(op):
    start, stop, num = op.inputs
    check_dtype(start, FLOATS, "start")
    if stop.dtype is not start.dtype:
        raise TypeError("stop has dtype %s, start %s" % (stop.dtype.name, start.dtype.name))
    check_dtype(num, (_dt.int32, _dt.int64), "num")
    n = static_value(num)
    return [(start.dtype, TensorShape([None if n is None else int(n)]))]


def _linspace_kernel(ctx, op, start, stop, num):
    if int(num) <= 0:
        raise errors.InvalidArgumentError(None, op, "Requires num > 0: %d" % int(num))
    return (np.linspace(start, stop, int(num), dtype=start.dtype),)


register_op("LinSpace", infer=_linspace_infer, kernel=_linspace_kernel, grad=NOT_DIFFERENTIABLE)


def lin_space(
    start: TensorLike, stop: TensorLike, num: TensorLike, name: str | None = None
) -> Tensor:
    """``num`` evenly spaced values from ``start`` to ``stop``, both included.

    Args:
      start: a float scalar.
      stop: a float scalar of ``start``'s dtype.
      num: int32/int64 scalar, the number of values (> 0).
      name: the op's name (default ``LinSpace``).
    """
    with in_graph_of([start, stop, num]):
        a = convert_to_tensor(start, name="start")
        b = convert_to_tensor(stop, dtype=a.dtype, name="stop")
        n = num if isinstance(num, Tensor) else convert_to_tensor(num, dtype=_dt.int32)
        return make("LinSpace", [a, b, n], None, name)


linspace = lin_space


# --------------------------------------------------------------------------------------
# Transpose, InvertPermutation
# --------------------------------------------------------------------------------------


def transpose(
    a: TensorLike,
    perm: TensorLike | None = None,
    name: str | None = "transpose",
    conjugate: bool = False,
) -> Tensor:
    """Permutes the dimensions of ``a`` by ``perm`` (default: reversed)."""
    with in_graph_of([a, perm]):
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
            if not is_tensor_like(perm):
                perm = convert_to_tensor(perm, dtype=_dt.int32, name="perm")
        return make("Transpose", [a, perm], None, scope)


def _check_perm(p, n):
    if sorted(p) != list(_prange(n)):
        raise ValueError("perm %s is not a permutation of [0 .. %d)" % (list(p), n))


def _transpose_infer(op):
    x, perm = op.inputs
    check_dtype(perm, (_dt.int32, _dt.int64), "perm")
    check_rank(perm, 1, "perm")
    p = int_list(perm)
    if p is None:
        n = (
            x.shape.ndims
            if x.shape.ndims is not None
            else (perm.shape[0] if perm.shape.ndims == 1 else None)
        )
        return [(x.dtype, unknown_shape(n))]
    if x.shape.ndims is None:
        return [(x.dtype, unknown_shape(len(p)))]
    if len(p) != x.shape.ndims:
        raise ValueError(
            "Dimension must be %d but is %d: perm %s does not fit input shape %s"
            % (x.shape.ndims, len(p), p, x.shape)
        )
    _check_perm(p, len(p))
    dims = x.shape.as_list()
    return [(x.dtype, TensorShape([dims[i] for i in p]))]


def _transpose_kernel(ctx, op, x, perm):
    if len(perm) != x.ndim:
        raise ValueError(
            "transpose expects a vector of size %d. But input(1) is a vector of "
            "size %d" % (x.ndim, len(perm))
        )
    _check_perm([int(i) for i in perm], x.ndim)
    return (np.transpose(x, perm),)


def _transpose_grad(op, g):
    p = int_list(op.inputs[1])
    inv = np.argsort(p).astype(np.int32) if p is not None else invert_permutation(op.inputs[1])
    return [transpose(g, inv), None]


register_op("Transpose", infer=_transpose_infer, kernel=_transpose_kernel, grad=_transpose_grad)


def invert_permutation(x: TensorLike, name: str | None = None) -> Tensor:
    """The inverse permutation of the int vector ``x``."""
    with in_graph_of([x]):
        return gen_op("InvertPermutation", [("x", x, _dt.int32)], None, name).outputs[0]


def _invert_permutation_kernel(ctx, op, x):
    _check_perm([int(i) for i in x], len(x))
    return (np.argsort(x).astype(x.dtype),)


register_op(
    "InvertPermutation",
    infer=same_as(0),
    kernel=_invert_permutation_kernel,
    grad=NOT_DIFFERENTIABLE,
)


# --------------------------------------------------------------------------------------
# ExpandDims, Squeeze, Reverse
# --------------------------------------------------------------------------------------


def expand_dims(
    input: TensorLike,
    axis: TensorLike | None = None,
    name: str | None = None,
    dim: TensorLike | None = None,
) -> Tensor:
    """``input`` with a length-1 dimension inserted at ``axis``."""
    with in_graph_of([input, axis, dim]):
        if axis is not None and dim is not None:
            raise ValueError("Cannot specify both 'axis' and 'dim'")
        if axis is None:
            axis = dim
        if axis is None:
            raise ValueError("Must specify an axis argument to tf.expand_dims()")
        return gen_op(
            "ExpandDims", [("input", input, None), ("dim", axis, _dt.int32)], None, name
        ).outputs[0]


def _expand_dims_infer(op):
    x, d = op.inputs
    check_dtype(d, (_dt.int32, _dt.int64), "dim")
    if d.shape.num_elements() not in (None, 1):
        raise ValueError("'dim' must be a tensor with a single value, got shape %s" % d.shape)
    a = static_value(d)
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
    return [reshape(g, static_dims(op.inputs[0]))] + [None] * (len(op.inputs) - 1)


register_op(
    "ExpandDims",
    infer=_expand_dims_infer,
    kernel=_expand_dims_kernel,
    grad=_reshape_to_input_grad,
    aliases=True,
)


def squeeze(
    input: TensorLike,
    axis: int | Sequence[int] | None = None,
    name: str | None = None,
    squeeze_dims: int | Sequence[int] | None = None,
) -> Tensor:
    """``input`` without its length-1 dimensions (all, or those in ``axis``)."""
    with in_graph_of([input, axis, squeeze_dims]):
        if axis is not None and squeeze_dims is not None:
            raise ValueError("Cannot specify both 'squeeze_dims' and 'axis'")
        dims: Any = squeeze_dims if axis is None else axis
        if dims is None:
            dims = []
        elif np.isscalar(dims):
            dims = [dims]
        return gen_op(
            "Squeeze", [("input", input, None)], {"squeeze_dims": [int(a) for a in dims]}, name
        ).outputs[0]


def _squeeze_dims(dims, axes):
    r = len(dims)
    norm = []
    for a in axes:
        if not -r <= a < r:
            raise ValueError(
                "Tried to squeeze dim index %d for tensor with %d dimensions." % (a, r)
            )
        a %= r
        if dims[a] is not None and dims[a] != 1:
            raise ValueError(
                "Can not squeeze dim[%d], expected a dimension of 1, got %d" % (a, dims[a])
            )
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


register_op(
    "Squeeze",
    infer=_squeeze_infer,
    kernel=_squeeze_kernel,
    grad=_reshape_to_input_grad,
    aliases=True,
)


def reverse(tensor: TensorLike, axis: TensorLike, name: str | None = None) -> Tensor:
    """``tensor`` with the dimensions in ``axis`` reversed (op type ReverseV2)."""
    with in_graph_of([tensor, axis]):
        return gen_op(
            "ReverseV2", [("tensor", tensor, None), ("axis", axis, _dt.int32)], None, name
        ).outputs[0]


reverse_v2 = reverse


def _reverse_infer(op):
    x, axis = op.inputs
    check_dtype(axis, (_dt.int32, _dt.int64), "axis")
    check_rank(axis, 1, "axis")
    axes = int_list(axis)
    if axes is not None and x.shape.ndims is not None:
        norm = [axis_value(a, x.shape.ndims) for a in axes]
        if len(set(norm)) != len(norm):
            raise ValueError("axis %s specifies a dimension more than once" % axes)
    return [(x.dtype, x.shape)]


def _reverse_kernel(ctx, op, x, axis):
    return (np.flip(x, tuple(axis_value(int(a), x.ndim) for a in axis)),)


register_op(
    "ReverseV2",
    infer=_reverse_infer,
    kernel=_reverse_kernel,
    grad=lambda op, g: [reverse(g, op.inputs[1]), None],
)


def is_tensor(x: Any) -> bool:
    """Whether ``x`` is a graph tensor (a ``Tensor``, ``Variable``, ``SparseTensor`` or
    ``IndexedSlices``) rather than a Python or NumPy value.

    Args:
      x: any object.
    """
    from ..variables import Variable  # variables builds on the ops package
    from .indexed_slices import IndexedSlices
    from .sparse_ops import SparseTensor

    return isinstance(x, (Tensor, Variable, SparseTensor, IndexedSlices))


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
        return stack(ts, name=scope)
