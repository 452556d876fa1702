"""Elementwise math, reductions, casts: one table row per op type.

Unary and binary elementwise ops are tables: (type, numpy kernel, block form for
fusion, gradient). Binary gradients are written in the broadcast (output) shape; the family
wrapper ``binary_grad`` sums them back to each input's shape once, centrally.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.elementwise import binary_kernel, unary_kernel
from .._core.graph import OPERATORS, Tensor, convert_to_tensor
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from .._core.shape import TensorShape, as_shape, broadcast_shapes, unknown_shape
from . import array_ops
from .common import (
    COMPLEX,
    FLOATS,
    INTS,
    NUMERIC,
    binary_args,
    check_dtype,
    in_graph_of,
    int_list,
    is_tensor_like,
    make,
    op_scope,
    reduce_args,
    shape_str,
    to_tensor,
)
from .const_eval import partial_shape

if TYPE_CHECKING:
    from .._core.typing import AxisLike, DTypeLike, ShapeLike, TensorLike

_OpFn = Callable[..., Tensor]


class UnaryOp(Protocol):
    """The signature of ``fr.exp`` and the other elementwise unary ops."""

    def __call__(self, x: TensorLike, name: str | None = None) -> Tensor: ...


class BinaryOp(Protocol):
    """The signature of ``fr.add`` and the other elementwise binary ops."""

    def __call__(self, x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor: ...


class _ReduceOp(Protocol):
    """The signature of ``fr.reduce_sum`` and the other reductions."""

    def __call__(
        self,
        input_tensor: TensorLike,
        axis: AxisLike = None,
        keepdims: bool | None = None,
        name: str | None = None,
        reduction_indices: AxisLike = None,
        keep_dims: bool | None = None,
    ) -> Tensor: ...


class _ArgOp(Protocol):
    """The signature of ``fr.argmax`` and ``fr.argmin``."""

    def __call__(
        self,
        input: TensorLike,
        axis: TensorLike | None = None,
        name: str | None = None,
        dimension: TensorLike | None = None,
        output_type: DTypeLike = _dt.int64,
    ) -> Tensor: ...


__all__ = [
    "negative",
    "abs",
    "sign",
    "square",
    "sqrt",
    "rsqrt",
    "reciprocal",
    "exp",
    "log",
    "log1p",
    "sin",
    "cos",
    "tanh",
    "sigmoid",
    "floor",
    "ceil",
    "round",
    "logical_not",
    "add",
    "subtract",
    "multiply",
    "floordiv",
    "floor_div",
    "floormod",
    "mod",
    "pow",
    "maximum",
    "minimum",
    "squared_difference",
    "equal",
    "not_equal",
    "less",
    "less_equal",
    "greater",
    "greater_equal",
    "logical_and",
    "logical_or",
    "logical_xor",
    "realdiv",
    "truediv",
    "divide",
    "div",
    "where",
    "add_n",
    "cast",
    "to_float",
    "to_int32",
    "to_int64",
    "reduce_sum",
    "reduce_mean",
    "reduce_max",
    "reduce_min",
    "reduce_prod",
    "reduce_any",
    "reduce_all",
    "broadcast_to",
    "argmax",
    "argmin",
    "arg_max",
    "arg_min",
    "clip_by_value",
    "complex",
    "real",
    "imag",
    "conj",
    "div_no_nan",
    "to_double",
    "accumulate_n",
]

_BOOL = (_dt.bool,)
_ANY = None

# --------------------------------------------------------------------------------------
# Unary elementwise
# --------------------------------------------------------------------------------------


def unary_infer(allowed, out_dtype=None):
    def infer(op):
        x = op.inputs[0]
        if allowed is not None:
            check_dtype(x, allowed)
        return [(out_dtype or x.dtype, x.shape)]

    return infer


def op_output(op):
    return op.outputs[0]


def op_input(op):
    return op.inputs[0]


def _cj(t):
    """``conj(t)`` for a complex tensor, ``t`` itself otherwise: TF's gradients of
    complex ops are conjugated (math_grad.py), which this makes one rule for both."""
    return conj(t) if t.dtype.is_complex else t


def _yc(op):
    return _cj(op.outputs[0])


def _xc(op):
    return _cj(op.inputs[0])


_FC = FLOATS + COMPLEX
_NC = NUMERIC + COMPLEX


def _round_half_even(x):
    return np.round(x)


def _rsqrt_out(x, out):
    np.sqrt(x, out=out)
    return np.divide(out.dtype.type(1), out, out=out)


def _sigmoid_out(x, out):
    """The logistic function of real ``x`` into ``out`` (which may be ``x``): the kernel
    and the fused block form both, so they agree at every size. Stable for any x: it
    never exponentiates a positive number (1 / (1 + exp(-x)) gives 0 where the result
    is a denormal, below about -88 in float32)."""
    neg = np.less(x, 0)  # before ``out`` overwrites ``x``
    np.abs(x, out=out)
    np.negative(out, out=out)
    np.exp(out, out=out)  # e = exp(-|x|) in (0, 1]
    d = np.add(out, out.dtype.type(1))
    np.divide(out, d, out=out, where=neg)  # x < 0: e / (1 + e)
    return np.divide(out.dtype.type(1), d, out=out, where=~neg)  # x >= 0: 1 / (1 + e)


# type, allowed dtypes, numpy fn (the kernel), block form for fusion (OpDef.ufunc),
# gradient(op, g) -> [dx]
_UNARY: dict[str, tuple[Any, ...]] = {
    "Neg": (_NC, operator.neg, np.negative, lambda op, g: [-g]),
    "Abs": (NUMERIC, np.abs, np.abs, lambda op, g: [g * sign(op_input(op))]),
    "Sign": (_NC, np.sign, np.sign, lambda op, g: [array_ops.zeros_like(op_input(op))]),
    "Square": (
        _NC,
        np.square,
        np.square,
        lambda op, g: [
            g * (_xc(op) * 2.0 if not op_input(op).dtype.is_integer else op_input(op) * 2)
        ],
    ),
    "Sqrt": (_FC, np.sqrt, np.sqrt, lambda op, g: [make("SqrtGrad", [op_output(op), g])]),
    "Rsqrt": (
        _FC,
        lambda x: 1.0 / np.sqrt(x),
        _rsqrt_out,
        lambda op, g: [make("RsqrtGrad", [op_output(op), g])],
    ),
    "Reciprocal": (
        _FC,
        np.reciprocal,
        np.reciprocal,
        lambda op, g: [make("ReciprocalGrad", [op_output(op), g])],
    ),
    "Exp": (_FC, np.exp, np.exp, lambda op, g: [g * _yc(op)]),
    "Log": (_FC, np.log, np.log, lambda op, g: [g / _xc(op)]),
    "Log1p": (_FC, np.log1p, np.log1p, lambda op, g: [g / (1.0 + _xc(op))]),
    "Sin": (_FC, np.sin, np.sin, lambda op, g: [g * _cj(cos(op_input(op)))]),
    "Cos": (_FC, np.cos, np.cos, lambda op, g: [-g * _cj(sin(op_input(op)))]),
    "Tanh": (_FC, np.tanh, np.tanh, lambda op, g: [make("TanhGrad", [_yc(op), g])]),
    "Sigmoid": (
        _FC,
        lambda x: _sigmoid(x),
        _sigmoid_out,
        lambda op, g: [make("SigmoidGrad", [_yc(op), g])],
    ),
    "Floor": (FLOATS, np.floor, np.floor, NOT_DIFFERENTIABLE),
    "Ceil": (FLOATS, np.ceil, np.ceil, NOT_DIFFERENTIABLE),
    "Round": (NUMERIC, _round_half_even, np.rint, NOT_DIFFERENTIABLE),
    "LogicalNot": (_BOOL, np.logical_not, None, NOT_DIFFERENTIABLE),
}


def _sigmoid(x):
    if x.dtype.kind == "c":
        return 1 / (1 + np.exp(-x))
    return _sigmoid_out(x, np.empty(np.shape(x), x.dtype))


for _t, (_allowed, _np_fn, _ufunc, _grad) in _UNARY.items():
    register_op(
        _t, infer=unary_infer(_allowed), kernel=unary_kernel(_np_fn), grad=_grad, ufunc=_ufunc
    )


def unary_fn(op_type: str, pub: str) -> UnaryOp:
    """The public function building an op of unary type ``op_type``."""

    def fn(x: TensorLike, name: str | None = None) -> Tensor:
        return make(op_type, [x], None, name, op_type)

    fn.__name__ = pub
    fn.__qualname__ = pub
    fn.__doc__ = "Elementwise %s (op type %s)." % (pub, op_type)
    return fn


negative = unary_fn("Neg", "negative")
_abs = unary_fn("Abs", "abs")
sign: _OpFn = unary_fn("Sign", "sign")
square = unary_fn("Square", "square")
sqrt = unary_fn("Sqrt", "sqrt")
rsqrt = unary_fn("Rsqrt", "rsqrt")
reciprocal = unary_fn("Reciprocal", "reciprocal")
exp = unary_fn("Exp", "exp")
log = unary_fn("Log", "log")
log1p = unary_fn("Log1p", "log1p")
sin: _OpFn = unary_fn("Sin", "sin")
cos: _OpFn = unary_fn("Cos", "cos")
tanh = unary_fn("Tanh", "tanh")
sigmoid = unary_fn("Sigmoid", "sigmoid")
floor = unary_fn("Floor", "floor")
ceil = unary_fn("Ceil", "ceil")
round = unary_fn("Round", "round")  # TF1's name
logical_not = unary_fn("LogicalNot", "logical_not")


# --------------------------------------------------------------------------------------
# Binary elementwise
# --------------------------------------------------------------------------------------


def binary_infer(allowed, out_dtype=None):
    def infer(op):
        x, y = op.inputs
        if x.dtype is not y.dtype:
            raise TypeError(
                "Input 'y' of '%s' Op has type %s that does not match type %s of "
                "argument 'x'." % (op.type, y.dtype.name, x.dtype.name)
            )
        if allowed is not None:
            check_dtype(x, allowed)
        return [(out_dtype or x.dtype, broadcast_shapes(x.shape, y.shape))]

    return infer


def sum_to(g, x: Tensor, other: Tensor, out_shape: TensorShape):
    """Sums a gradient computed in the broadcast shape back to ``x``'s shape."""
    if g is None:
        return None
    xs = x.shape
    axes = _static_reduction_axes(xs, other.shape)
    if axes is not None:
        if not axes:
            return g
        r = reduce_sum(g, axes)
        if r.shape.is_compatible_with(xs) and r.shape.ndims == xs.ndims:
            return r
        if xs.is_fully_defined():
            return array_ops.reshape(r, xs.as_list())
    sx, so = array_ops.shape(x), array_ops.shape(other)
    rx, _ = array_ops.broadcast_gradient_args(sx, so)
    return array_ops.reshape(reduce_sum(g, rx), sx)


def _static_reduction_axes(xs: TensorShape, ys: TensorShape):
    """The axes of the broadcast of shapes ``xs`` and ``ys`` to sum a gradient over to
    get back to ``xs``, when the static shapes decide it (e.g. a bias [256] against
    activations [None, 256] sums axis 0 whatever the batch size), else None."""
    if xs.ndims is None or ys.ndims is None:
        return None
    xd, yd = xs.as_list(), ys.as_list()
    n = max(len(xd), len(yd))
    lead = n - len(xd)
    yp = [1] * (n - len(yd)) + yd
    axes = list(range(lead))
    for i, d in enumerate(xd):
        other = yp[lead + i]
        if d == 1:
            if other is None:
                return None
            if other != 1:
                axes.append(lead + i)
        elif d is None and other != 1:
            return None  # x may be 1 here and broadcast against the other operand
    return axes


def _shape_or_const(x: Tensor) -> Tensor:
    """TF's ``array_ops.shape`` in graph mode: a ``Const`` when the static shape is fully
    defined, else a ``Shape`` op."""
    if x.shape.is_fully_defined():
        return array_ops.constant(x.shape.as_list(), _dt.int32, name="Shape")
    return array_ops.shape(x)


def _infer_reduction_axes(xs: TensorShape, ys: TensorShape):
    """TF's ``_InferGradientReductionAxes``: the axes of the broadcast each operand's
    gradient sums over when the static shapes decide them, else ``(None, None)``. A
    static 1 against an unknown dimension counts as broadcast (summing a size-1 axis is
    harmless when it was not)."""
    if xs.ndims is None or ys.ndims is None:
        return None, None
    xd, yd = xs.as_list(), ys.as_list()
    n = max(len(xd), len(yd))
    xp, yp = [1] * (n - len(xd)) + xd, [1] * (n - len(yd)) + yd
    x_axes, y_axes = [], []
    for axis, (a, b) in enumerate(zip(xp, yp)):
        if a == 1 and b != 1:
            x_axes.append(axis)
        elif b == 1 and a != 1:
            y_axes.append(axis)
        elif a is None or b is None:
            return None, None
    return x_axes, y_axes


def _reduce_gradient_arg(g, shape: Tensor, axes, must_reduce: bool):
    if g is None or not must_reduce:
        return g
    return array_ops.reshape(reduce_sum(g, axes, keepdims=True), shape)


def binary_grad(rule):
    """A gradient rule written in the broadcast shape, summed back per input.

    TF's ``SmartBroadcastGradientArgs``: one ``Shape`` (or ``Const``) per input; the
    reduction axes from the static shapes when they decide them, else one
    ``BroadcastGradientArgs``; then ``Sum`` + ``Reshape`` for each input that needs it.
    """

    def grad(op, g):
        x, y = op.inputs
        gx, gy = rule(op, g)
        sx, sy = _shape_or_const(x), _shape_or_const(y)
        rx, ry = _infer_reduction_axes(x.shape, y.shape)
        if rx is None or ry is None:
            rx, ry = array_ops.broadcast_gradient_args(sx, sy)
            must_x = must_y = True
        else:
            must_x = bool(rx) or x.shape.ndims < y.shape.ndims
            must_y = bool(ry) or y.shape.ndims < x.shape.ndims
        return [_reduce_gradient_arg(gx, sx, rx, must_x), _reduce_gradient_arg(gy, sy, ry, must_y)]

    grad.rule = rule
    return grad


def int_div_check(op, y):
    if np.any(y == 0):
        raise errors.InvalidArgumentError(None, op, "Integer division by zero")


def _floordiv(x, y):
    if x.dtype.kind == "f":
        # TF computes floor(x / y) for floats (1 // 0.1 == 10); numpy's fmod-based
        # floor_divide gives 9.
        return np.floor(np.true_divide(x, y))
    return np.floor_divide(x, y)


def _floordiv_kernel(ctx, op, x, y):
    if x.dtype.kind in "iu":
        int_div_check(op, y)
    return (_floordiv(x, y),)


def _floormod(x, y):
    if x.dtype.kind == "f":
        # TF: fmod, shifted by y when the signs differ (so -4 mod 2 is -0.0, as in TF).
        m = np.fmod(x, y)
        return np.where((m != 0) & ((y < 0) != (m < 0)), m + y, m).astype(m.dtype, copy=False)
    return np.mod(x, y)


def _mod_kernel(ctx, op, x, y):
    if x.dtype.kind in "iu":
        int_div_check(op, y)
    return (_floormod(x, y),)


def _pow_kernel(ctx, op, x, y):
    if x.dtype.kind in "iu" and np.any(y < 0):
        raise errors.InvalidArgumentError(
            None, op, "Integers to negative integer powers are not allowed"
        )
    return (np.power(x, y),)


def _pow_grad(op, g):
    x, y = op.inputs
    z = op.outputs[0]
    gx = g * y * pow(x, y - array_ops.ones_like(y))
    safe_x = where(greater(x, array_ops.zeros_like(x)), x, array_ops.ones_like(x))
    gy = g * z * where(greater(x, array_ops.zeros_like(x)), log(safe_x), array_ops.zeros_like(x))
    return gx, gy


def _max_min_grad(cmp):
    def rule(op, g):
        x, y = op.inputs
        mask = cmp(x, y)
        zeros = array_ops.zeros_like(g)
        return where(mask, g, zeros), where(mask, zeros, g)

    return rule


def _div_no_nan(x, y):
    safe = np.where(y == 0, np.ones((), y.dtype), y)
    return np.where(y == 0, np.zeros((), x.dtype), x / safe)


def _div_no_nan_grad(op, g):
    x, y = op.inputs
    return div_no_nan(g, _cj(y)), g * _cj(div_no_nan(div_no_nan(-x, y), y))


def _is_int(op):
    return op.inputs[0].dtype in INTS


def _sqdiff_out(x, y, out):
    np.subtract(x, y, out=out)
    return np.square(out, out=out)


def _floordiv_out(x, y, out):  # floats only (fusion): TF's floor(x / y)
    np.divide(x, y, out=out)
    return np.floor(out, out=out)


# type, allowed dtypes, out dtype, numpy fn, block form for fusion, kernel, grad rule
_BINARY: list[tuple[Any, ...]] = [
    # Python's operators, not the ufuncs: the same numpy semantics, but on numpy scalars
    # (a scalar chain) ~10x cheaper than a ufunc call.
    (
        "AddV2",
        _NC + (_dt.string,),
        None,
        operator.add,
        np.add,
        None,
        binary_grad(lambda op, g: (g, g)),
    ),
    ("Sub", _NC, None, operator.sub, np.subtract, None, binary_grad(lambda op, g: (g, -g))),
    (
        "Mul",
        _NC,
        None,
        operator.mul,
        np.multiply,
        None,
        binary_grad(lambda op, g: (g * _cj(op.inputs[1]), _cj(op.inputs[0]) * g)),
    ),
    (
        "RealDiv",
        _FC,
        None,
        operator.truediv,
        np.divide,
        None,
        binary_grad(
            lambda op, g: (
                g / _cj(op.inputs[1]),
                -g * _cj(op.inputs[0] / (op.inputs[1] * op.inputs[1])),
            )
        ),
    ),
    ("DivNoNan", _FC, None, _div_no_nan, None, None, binary_grad(_div_no_nan_grad)),
    ("FloorDiv", NUMERIC, None, _floordiv, _floordiv_out, _floordiv_kernel, NOT_DIFFERENTIABLE),
    (
        "FloorMod",
        NUMERIC,
        None,
        _floormod,
        None,
        _mod_kernel,
        binary_grad(lambda op, g: (g, -g * floor_div_(op.inputs[0], op.inputs[1]))),
    ),
    ("Pow", NUMERIC, None, np.power, np.power, _pow_kernel, binary_grad(_pow_grad)),
    (
        "Maximum",
        NUMERIC,
        None,
        np.maximum,
        np.maximum,
        None,
        binary_grad(_max_min_grad(lambda x, y: greater_equal(x, y))),
    ),
    (
        "Minimum",
        NUMERIC,
        None,
        np.minimum,
        np.minimum,
        None,
        binary_grad(_max_min_grad(lambda x, y: less_equal(x, y))),
    ),
    (
        "SquaredDifference",
        NUMERIC,
        None,
        lambda x, y: np.square(x - y),
        _sqdiff_out,
        None,
        binary_grad(
            lambda op, g: (
                g * 2.0 * (op.inputs[0] - op.inputs[1]),
                g * -2.0 * (op.inputs[0] - op.inputs[1]),
            )
        ),
    ),
    ("Equal", None, _dt.bool, np.equal, None, None, NOT_DIFFERENTIABLE),
    ("NotEqual", None, _dt.bool, np.not_equal, None, None, NOT_DIFFERENTIABLE),
    ("Less", NUMERIC, _dt.bool, np.less, None, None, NOT_DIFFERENTIABLE),
    ("LessEqual", NUMERIC, _dt.bool, np.less_equal, None, None, NOT_DIFFERENTIABLE),
    ("Greater", NUMERIC, _dt.bool, np.greater, None, None, NOT_DIFFERENTIABLE),
    ("GreaterEqual", NUMERIC, _dt.bool, np.greater_equal, None, None, NOT_DIFFERENTIABLE),
    ("LogicalAnd", _BOOL, None, np.logical_and, None, None, NOT_DIFFERENTIABLE),
    ("LogicalOr", _BOOL, None, np.logical_or, None, None, NOT_DIFFERENTIABLE),
]

for _t, _allowed_b, _out, _np_fn, _ufunc, _kernel, _grad in _BINARY:
    register_op(
        _t,
        infer=binary_infer(_allowed_b, _out),
        kernel=_kernel or binary_kernel(_np_fn),
        grad=_grad,
        ufunc=None if _out is not None else _ufunc,
    )


def scoped_op(op_type, name, default_name, build, attrs=None, operands=()):
    """Creates an op as TF's op-def library does: in the graph of its ``operands``,
    Python operands are converted inside a name scope (becoming ``add/y``,
    ``ArgMax/dimension``) and the op takes the scope's own name."""
    with op_scope(operands, name, default_name) as scope:
        inputs = build()
    return make(op_type, inputs, attrs, scope)  # named exactly like its scope


def _convert_named(v, dtype, op_type, arg):
    """A Python/numpy operand as a tensor of the other operand's dtype, named ``arg``."""
    try:
        return convert_to_tensor(v, dtype=dtype, name=arg)
    except (TypeError, ValueError):
        raise TypeError(
            "Expected %s passed to parameter '%s' of op '%s', got %r of type '%s' "
            "instead; pass a value of that dtype or fr.cast the tensor operand."
            % (dtype.name, arg, op_type, v, type(v).__name__)
        ) from None


def binary_inputs(x, y, op_type):
    if is_tensor_like(x):
        x = convert_to_tensor(x)
        y = convert_to_tensor(y) if is_tensor_like(y) else _convert_named(y, x.dtype, op_type, "y")
    elif is_tensor_like(y):
        y = convert_to_tensor(y)
        x = _convert_named(x, y.dtype, op_type, "x")
    else:
        x = convert_to_tensor(x, name="x")
        y = _convert_named(y, x.dtype, op_type, "y")
    return [x, y]


def binary_fn(op_type: str, pub: str, default_name: str | None = None) -> BinaryOp:
    def fn(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
        return scoped_op(
            op_type,
            name,
            default_name or op_type,
            lambda: binary_inputs(x, y, op_type),
            operands=(x, y),
        )

    fn.__name__ = pub
    fn.__qualname__ = pub
    fn.__doc__ = "Elementwise %s with broadcasting (op type %s)." % (pub, op_type)
    fn.op_type = op_type  # type: ignore[attr-defined]  # read by _with_default
    return fn


add = binary_fn("AddV2", "add", "Add")
subtract = binary_fn("Sub", "subtract")
multiply = binary_fn("Mul", "multiply")
floordiv = binary_fn("FloorDiv", "floordiv", "floordiv")
floor_div = binary_fn("FloorDiv", "floor_div")
floor_div_: _OpFn = floor_div
floormod = mod = binary_fn("FloorMod", "mod")
pow = binary_fn("Pow", "pow")  # TF1's name
maximum = binary_fn("Maximum", "maximum")
minimum = binary_fn("Minimum", "minimum")
squared_difference = binary_fn("SquaredDifference", "squared_difference")
equal = binary_fn("Equal", "equal")
not_equal = binary_fn("NotEqual", "not_equal")
less = binary_fn("Less", "less")
less_equal: _OpFn = binary_fn("LessEqual", "less_equal")
greater = binary_fn("Greater", "greater")
greater_equal: _OpFn = binary_fn("GreaterEqual", "greater_equal")
logical_and = binary_fn("LogicalAnd", "logical_and")
logical_or = binary_fn("LogicalOr", "logical_or")
_real_div = binary_fn("RealDiv", "realdiv")
realdiv = _real_div
div_no_nan = binary_fn("DivNoNan", "div_no_nan", "div_no_nan")  # TF names it so
div_no_nan.__doc__ = "``x / y``, or 0 where ``y`` is 0 (op type DivNoNan)."


def logical_xor(x: TensorLike, y: TensorLike, name: str | None = "LogicalXor") -> Tensor:
    """Elementwise exclusive or of two bool tensors."""
    return logical_and(logical_or(x, y), logical_not(logical_and(x, y)), name=name)


_TRUEDIV_CAST = {
    _dt.int8: _dt.float32,
    _dt.int16: _dt.float32,
    _dt.uint8: _dt.float32,
    _dt.uint16: _dt.float32,
    _dt.int32: _dt.float64,
    _dt.int64: _dt.float64,
    _dt.uint32: _dt.float64,
    _dt.uint64: _dt.float64,
}


def truediv(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """``x / y`` in floating point; integers are cast first, as in TF1 (int8/16 and
    uint8/16 to float32, int32/64 to float64)."""

    def build():
        a, b = binary_inputs(x, y, "RealDiv")
        target = _TRUEDIV_CAST.get(a.dtype)
        if target is not None:
            a, b = cast(a, target), cast(b, target)
        return [a, b]

    return scoped_op("RealDiv", name, "truediv", build, operands=(x, y))


def divide(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """Python-style division ``x / y`` (true division)."""
    return truediv(x, y, name=name)


def div(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """Division with Python 2 semantics (TF1's ``tf.div``): floor division for
    integers, true division for floats."""
    x, y = binary_args(x, y, "Div")
    if x.dtype in INTS:
        return make("FloorDiv", [x, y], None, name, "div")
    return make("RealDiv", [x, y], None, name, "div")


OPERATORS.update(
    {
        "add": lambda x, y: _with_default(add, x, y, "add"),
        "sub": lambda x, y: _with_default(subtract, x, y, "sub"),
        "mul": lambda x, y: _with_default(multiply, x, y, "mul"),
        "truediv": lambda x, y: truediv(x, y),
        "floordiv": lambda x, y: _with_default(floordiv, x, y, "floordiv"),
        "mod": lambda x, y: _with_default(mod, x, y, "mod"),
        "pow": lambda x, y: _with_default(pow, x, y, "pow"),
        "lt": lambda x, y: _with_default(less, x, y, "Less"),
        "le": lambda x, y: _with_default(less_equal, x, y, "LessEqual"),
        "gt": lambda x, y: _with_default(greater, x, y, "Greater"),
        "ge": lambda x, y: _with_default(greater_equal, x, y, "GreaterEqual"),
        "and": lambda x, y: _with_default(logical_and, x, y, "and"),
        "or": lambda x, y: _with_default(logical_or, x, y, "or"),
        "xor": lambda x, y: logical_xor(x, y),
        "neg": lambda x: make("Neg", [convert_to_tensor(x)], None, None, "Neg"),
        "abs": lambda x: abs(x),
        "invert": lambda x: logical_not(x),
    }
)


def _with_default(fn, x, y, default):
    """Operators name their op like TF1's Python wrappers (``add``, ``mul``, ...)."""
    return scoped_op(
        fn.op_type, None, default, lambda: binary_inputs(x, y, fn.op_type), operands=(x, y)
    )


# --------------------------------------------------------------------------------------
# Select (where), add_n, cast
# --------------------------------------------------------------------------------------


def _select_infer(op):
    c, x, y = op.inputs
    if c.dtype is not _dt.bool:
        raise TypeError("condition must be bool, got %s" % c.dtype.name)
    if x.dtype is not y.dtype:
        raise TypeError(
            "x and y must have the same dtype, got %s and %s" % (x.dtype.name, y.dtype.name)
        )
    s = broadcast_shapes(x.shape, y.shape)
    if c.shape.ndims is not None and s.ndims is not None and c.shape.ndims == s.ndims:
        s = broadcast_shapes(c.shape, s)
    return [(x.dtype, s)]


def _select_kernel(ctx, op, c, x, y):
    if c.ndim == 1 and np.ndim(x) > 1:
        c = c.reshape((-1,) + (1,) * (np.ndim(x) - 1))
    return (np.where(c, x, y),)


def _select_grad(op, g):
    c, x, y = op.inputs
    zeros = array_ops.zeros_like(g)
    return [None, where(c, g, zeros), where(c, zeros, g)]


register_op("Select", infer=_select_infer, kernel=_select_kernel, grad=_select_grad)


def _where_infer(op):
    x = op.inputs[0]
    return [(_dt.int64, TensorShape([None, x.shape.ndims]))]


register_op(
    "Where",
    infer=_where_infer,
    kernel=lambda ctx, op, c: (np.argwhere(c).astype(np.int64),),
    grad=NOT_DIFFERENTIABLE,
)


def where(
    condition: TensorLike,
    x: TensorLike | None = None,
    y: TensorLike | None = None,
    name: str | None = None,
) -> Tensor:
    """Elementwise select (``x`` where ``condition``, else ``y``), or with only a
    condition the int64 coordinates of its true elements."""
    c = convert_to_tensor(condition)
    if x is None and y is None:
        return make("Where", [c], None, name)
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    x, y = binary_args(x, y, "Select")
    return make("Select", [c, x, y], None, name)


def add_n(inputs: Sequence[TensorLike], name: str | None = None) -> Tensor:
    """Adds all input tensors elementwise."""
    if not inputs or not isinstance(inputs, (list, tuple)):
        raise ValueError("inputs must be a non-empty list of tensors")
    tensors = [convert_to_tensor(x) for x in inputs]
    if len(tensors) == 1:
        return tensors[0] if name is None else array_ops.identity(tensors[0], name=name)
    return make("AddN", tensors, None, name)


def _add_n_infer(op):
    xs = op.inputs
    s = xs[0].shape
    for x in xs[1:]:
        if x.dtype is not xs[0].dtype:
            raise TypeError(
                "AddN inputs must all have the same dtype, got %s" % [t.dtype.name for t in xs]
            )
        if not s.is_compatible_with(x.shape):
            raise ValueError(
                "AddN inputs must all have the same shape, got %s" % [str(t.shape) for t in xs]
            )
        s = s.merge_with(x.shape)
    return [(xs[0].dtype, s)]


def _add_n_kernel(ctx, op, *xs):
    acc = xs[0] + xs[1]
    for x in xs[2:]:
        acc = acc + x
    return (acc,)


register_op(
    "AddN", infer=_add_n_infer, kernel=_add_n_kernel, grad=lambda op, g: [g] * len(op.inputs)
)


def cast(x: TensorLike, dtype: DTypeLike, name: str | None = None) -> Tensor:
    """Casts ``x`` to ``dtype`` (floats to ints truncate toward zero)."""
    dtype = _dt.as_dtype(dtype)
    comps = getattr(x, "_cast", None)
    if comps is not None:
        return comps(dtype)
    x = convert_to_tensor(x)
    if x.dtype is dtype:
        return x
    return make("Cast", [x], {"DstT": dtype}, name)


def _cast_grad(op, g):
    src, dst = op.inputs[0].dtype, op.outputs[0].dtype
    if (src.is_floating or src.is_complex) and (dst.is_floating or dst.is_complex):
        return [cast(g, src)]
    return [None]


def _cast_kernel(ctx, op, x):
    x = np.asarray(x)
    dst = op.attrs["DstT"].np
    if x.dtype.kind == "c" and dst.kind != "c":
        x = x.real  # TF keeps the real part (numpy would warn and do the same)
    return (x.astype(dst),)


register_op(
    "Cast",
    infer=lambda op: [(op.attrs["DstT"], op.inputs[0].shape)],
    kernel=_cast_kernel,
    grad=_cast_grad,
)


def to_float(x: TensorLike, name: str | None = "ToFloat") -> Tensor:
    return cast(x, _dt.float32, name=name)


def to_int32(x: TensorLike, name: str | None = "ToInt32") -> Tensor:
    return cast(x, _dt.int32, name=name)


def to_int64(x: TensorLike, name: str | None = "ToInt64") -> Tensor:
    return cast(x, _dt.int64, name=name)


# --------------------------------------------------------------------------------------
# Complex numbers: Complex, Real, Imag, Conj, ComplexAbs (gradients as TF's math_grad)
# --------------------------------------------------------------------------------------


def _complex_infer(op):
    re, im = op.inputs
    check_dtype(re, (_dt.float32, _dt.float64), "real")
    if im.dtype is not re.dtype:
        raise TypeError(
            "Input 'imag' of 'Complex' Op has type %s that does not match type %s "
            "of argument 'real'." % (im.dtype.name, re.dtype.name)
        )
    out = _dt.complex64 if re.dtype is _dt.float32 else _dt.complex128
    return [(out, broadcast_shapes(re.shape, im.shape))]


def _part_infer(op):
    z = op.inputs[0]
    check_dtype(z, COMPLEX, "input")
    return [(z.dtype.real_dtype, z.shape)]


def _conj_infer(op):
    check_dtype(op.inputs[0], COMPLEX, "input")
    return [(op.inputs[0].dtype, op.inputs[0].shape)]


def _zeros(g):
    return array_ops.zeros_like(g)


register_op(
    "Complex",
    infer=_complex_infer,
    kernel=lambda ctx, op, re, im: (
        np.asarray(re + 1j * im.astype(op.outputs[0].dtype.np), op.outputs[0].dtype.np),
    ),
    grad=binary_grad(lambda op, g: (real(g), imag(g))),
)
register_op(
    "Real",
    infer=_part_infer,
    kernel=lambda ctx, op, z: (np.real(z).copy(),),
    grad=lambda op, g: [complex(g, _zeros(g))],
)
register_op(
    "Imag",
    infer=_part_infer,
    kernel=lambda ctx, op, z: (np.imag(z).copy(),),
    grad=lambda op, g: [complex(_zeros(g), g)],
)
register_op(
    "Conj", infer=_conj_infer, kernel=lambda ctx, op, z: (np.conj(z),), grad=lambda op, g: [conj(g)]
)
register_op(
    "ComplexAbs",
    infer=_part_infer,
    kernel=lambda ctx, op, z: (np.abs(z),),
    grad=lambda op, g: [
        make(
            "DivNoNan",
            [complex(g, _zeros(g)) * op.inputs[0], complex(op.outputs[0], _zeros(op.outputs[0]))],
        )
    ],
)


def complex(real: TensorLike, imag: TensorLike, name: str | None = None) -> Tensor:  # TF1's name
    """The complex tensor ``real + imag * 1j`` (complex64 from float32, complex128 from
    float64)."""
    return scoped_op(
        "Complex",
        name,
        "Complex",
        lambda: [convert_to_tensor(real, name="real"), convert_to_tensor(imag, name="imag")],
        operands=(real, imag),
    )


def real(input: TensorLike, name: str | None = None) -> Tensor:  # TF1's name
    """The real part of a complex tensor; a real tensor is returned as it is (TF1)."""
    with in_graph_of([input]):
        x = convert_to_tensor(input)
        return make("Real", [x], None, name, "Real") if x.dtype.is_complex else x


def imag(input: TensorLike, name: str | None = None) -> Tensor:  # TF1's name
    """The imaginary part of a complex tensor; zeros for a real tensor (TF1)."""
    with in_graph_of([input]):
        x = convert_to_tensor(input)
        if x.dtype.is_complex:
            return make("Imag", [x], None, name, "Imag")
        return array_ops.zeros_like(x, name=name)


def conj(x: TensorLike, name: str | None = None) -> Tensor:
    """The complex conjugate; a real tensor is returned as it is (TF1)."""
    with in_graph_of([x]):
        t = convert_to_tensor(x)
        return make("Conj", [t], None, name, "Conj") if t.dtype.is_complex else t


def abs(x: TensorLike, name: str | None = None) -> Tensor:  # TF1's name
    """Elementwise absolute value; of a complex tensor, its magnitude as a real tensor
    (op type ComplexAbs), else op type Abs."""
    with in_graph_of([x]):
        t = convert_to_tensor(x)
        if t.dtype.is_complex:
            return make("ComplexAbs", [t], None, name, "ComplexAbs")
        return _abs(t, name=name)


# --------------------------------------------------------------------------------------
# Reductions
# --------------------------------------------------------------------------------------


def _axis_tensor(x: Tensor, axis):
    if axis is None:
        r = x.shape.ndims
        if r is not None:
            return convert_to_tensor(np.arange(r, dtype=np.int32))
        return array_ops.range(0, array_ops.rank(x))
    if isinstance(axis, Tensor):
        return axis
    return convert_to_tensor(axis, dtype=_dt.int32)


def reduce_infer(allowed):
    def infer(op):
        x, axis = op.inputs
        if allowed is not None:
            check_dtype(x, allowed, "input")
        kd = op.attrs["keep_dims"]
        axes = int_list(axis)
        r = x.shape.ndims
        if axes is None or r is None:
            if kd and r is not None:
                return [(x.dtype, unknown_shape(r))]
            return [(x.dtype, unknown_shape())]
        norm = set()
        for a in axes:
            if not -r <= a < max(r, 1):
                raise ValueError(
                    "Invalid reduction dimension %d for input with %d dimensions." % (a, r)
                )
            norm.add(a % r if r else 0)
        dims = x.shape.as_list()
        if kd:
            out = [1 if i in norm else d for i, d in enumerate(dims)]
        else:
            out = [d for i, d in enumerate(dims) if i not in norm]
        return [(x.dtype, TensorShape(out))]

    return infer


def reduction_axes(x, axis) -> tuple:
    """The reduction axes ``axis`` (a 0-d or 1-d tensor value) names, normalized and
    sorted. Training steps reduce small arrays, so the common forms are cheap."""
    nd = x.ndim if type(x) is np.ndarray else np.ndim(x)
    if not nd:
        return ()
    if type(axis) is np.ndarray:
        axis = axis.tolist() if axis.ndim < 2 else axis.reshape(-1).tolist()
    elif isinstance(axis, np.generic):
        axis = int(axis)
    if type(axis) is int:
        return (axis % nd,)
    if len(axis) == 1:
        return (int(axis[0]) % nd,)
    return tuple(sorted({int(a) % nd for a in axis}))


def _sum_kernel(ctx, op, x, axis):
    return (
        np.add.reduce(
            x, axis=reduction_axes(x, axis), dtype=x.dtype, keepdims=op.attrs["keep_dims"]
        ),
    )


def _mean_kernel(ctx, op, x, axis):
    ax = reduction_axes(x, axis)
    kd = op.attrs["keep_dims"]
    if x.dtype.kind in "iu":
        n = int(np.prod([np.shape(x)[a] for a in ax])) if ax else 1
        s = np.sum(x, axis=ax, dtype=np.int64, keepdims=kd)
        q = np.abs(s) // max(n, 1) * np.sign(s)
        return (np.asarray(q).astype(x.dtype),)
    if x.size == 0:  # NaN (0 / 0) where nothing is averaged, without numpy's warning
        s = np.sum(x, axis=ax, dtype=x.dtype, keepdims=kd)
        return (np.asarray(s / x.dtype.type(0) if s.size else s),)
    return (np.mean(x, axis=ax, dtype=x.dtype, keepdims=kd).astype(x.dtype, copy=False),)


def _extreme_kernel(np_fn, float_init, int_init):
    def kernel(ctx, op, x, axis):
        ax = reduction_axes(x, axis)
        kd = op.attrs["keep_dims"]
        if x.size == 0:
            init = float_init if x.dtype.kind == "f" else int_init(x.dtype)
            return (np.asarray(np_fn(x, axis=ax, keepdims=kd, initial=init)),)
        return (np.asarray(np_fn(x, axis=ax, keepdims=kd)),)

    return kernel


def _prod_kernel(ctx, op, x, axis):
    return (
        np.prod(x, axis=reduction_axes(x, axis), dtype=x.dtype, keepdims=op.attrs["keep_dims"]),
    )


def _bool_kernel(np_fn):
    return lambda ctx, op, x, axis: (
        np.asarray(np_fn(x, axis=reduction_axes(x, axis), keepdims=op.attrs["keep_dims"])),
    )


def _reduced_shape_kernel(ctx, op, s, axis):
    s = np.array(s, dtype=np.int32)
    if s.size:
        s[np.reshape(axis, -1) % s.size] = 1
    return (s,)


register_op(
    "ReducedShape",
    infer=lambda op: [(_dt.int32, unknown_shape(1))],
    kernel=_reduced_shape_kernel,
    grad=NOT_DIFFERENTIABLE,
)


def kept_shape_grad(op, g):
    """``g`` reshaped so that it broadcasts against the reduction's input."""
    x, axis = op.inputs
    if op.attrs["keep_dims"]:
        return g
    if x.shape.ndims is not None and int_list(axis) is not None:
        r = x.shape.ndims
        axes = {a % r for a in int_list(axis)} if r else set()
        dims = x.shape.as_list()
        # Statically known when every kept dim is (always so for a full reduction).
        if all(d is not None for i, d in enumerate(dims) if i not in axes):
            return array_ops.reshape(g, [1 if i in axes else d for i, d in enumerate(dims)])
    kept = make("ReducedShape", [array_ops.shape(x), axis])
    return array_ops.reshape(g, kept)


def _sum_grad(op, g):
    x = op.inputs[0]
    return [broadcast_to_like(kept_shape_grad(op, g), x), None]


def _mean_grad(op, g):
    x = op.inputs[0]
    gs = _sum_grad(op, g)[0]
    y = op.outputs[0]
    if x.shape.is_fully_defined() and y.shape.is_fully_defined():
        factor = max(x.shape.num_elements() // max(y.shape.num_elements(), 1), 1)
        return [gs / np.asarray(factor, dtype=x.dtype.np), None]
    if y.shape.num_elements() == 1:  # a full reduction: divide by the input's size
        return [gs / cast(array_ops.size(x), x.dtype), None]
    n = cast(array_ops.size(x), x.dtype) / cast(maximum(array_ops.size(y), 1), x.dtype)
    return [gs / n, None]


def _extreme_grad(op, g):
    x = op.inputs[0]
    y = kept_shape_grad(op, op.outputs[0])
    gk = kept_shape_grad(op, g)
    ind = cast(equal(broadcast_to_like(y, x), x), g.dtype)
    num = reduce_sum(ind, op.inputs[1], keepdims=True)
    return [ind / num * gk, None]


def _prod_grad(op, g):
    # Product of all other elements, computed without dividing by x (safe for zeros).
    x, axis = op.inputs
    gk = broadcast_to_like(kept_shape_grad(op, g), x)
    return [gk * make("ProdOthers", [x, axis]), None]


def _prod_others_kernel(ctx, op, x, axis):
    ax = reduction_axes(x, axis)
    xt = np.moveaxis(x, ax, tuple(range(len(ax))))
    lead = xt.shape[: len(ax)]
    flat = xt.reshape((int(np.prod(lead)) if lead else 1,) + xt.shape[len(ax) :])
    ones = np.ones((1,) + flat.shape[1:], dtype=x.dtype)
    left = np.concatenate([ones, np.cumprod(flat, axis=0)[:-1]], axis=0)
    right = np.concatenate([np.cumprod(flat[::-1], axis=0)[::-1][1:], ones], axis=0)
    out = (left * right).reshape(xt.shape)
    return (np.moveaxis(out, tuple(range(len(ax))), ax),)


register_op(
    "ProdOthers",
    infer=lambda op: [(op.inputs[0].dtype, op.inputs[0].shape)],
    kernel=_prod_others_kernel,
    grad=None,
)


_REDUCTIONS: list[tuple[Any, ...]] = [
    # type, allowed, kernel, gradient
    ("Sum", _NC, _sum_kernel, _sum_grad),
    ("Mean", _NC, _mean_kernel, _mean_grad),
    ("Max", NUMERIC, _extreme_kernel(np.max, -np.inf, lambda d: np.iinfo(d).min), _extreme_grad),
    ("Min", NUMERIC, _extreme_kernel(np.min, np.inf, lambda d: np.iinfo(d).max), _extreme_grad),
    ("Prod", NUMERIC, _prod_kernel, _prod_grad),
    ("Any", _BOOL, _bool_kernel(np.any), NOT_DIFFERENTIABLE),
    ("All", _BOOL, _bool_kernel(np.all), NOT_DIFFERENTIABLE),
]


def reduce_fn(op_type: str, pub: str) -> _ReduceOp:
    def fn(
        input_tensor: TensorLike,
        axis: AxisLike = None,
        keepdims: bool | None = None,
        name: str | None = None,
        reduction_indices: AxisLike = None,
        keep_dims: bool | None = None,
    ) -> Tensor:
        axis, kd = reduce_args(axis, keepdims, reduction_indices, keep_dims)
        with in_graph_of([input_tensor, axis]):
            x = convert_to_tensor(input_tensor)
            if axis is None or is_tensor_like(axis):
                ax = _axis_tensor(x, axis)  # TF builds the all-axes range outside the scope
                return scoped_op(op_type, name, op_type, lambda: [x, ax], {"keep_dims": kd})
            return scoped_op(
                op_type,
                name,
                op_type,
                lambda: [x, convert_to_tensor(axis, dtype=_dt.int32, name="reduction_indices")],
                {"keep_dims": kd},
            )

    fn.__name__ = pub
    fn.__qualname__ = pub
    fn.__doc__ = (
        "Reduces ``input_tensor`` along ``axis`` (all axes if None) with %s; "
        "``keepdims`` keeps reduced axes with length 1 (op type %s)." % (pub[7:], op_type)
    )
    return fn


for _t, _allowed, _kernel, _grad in _REDUCTIONS:
    register_op(_t, infer=reduce_infer(_allowed), kernel=_kernel, grad=_grad)

reduce_sum = reduce_fn("Sum", "reduce_sum")
reduce_mean = reduce_fn("Mean", "reduce_mean")
reduce_max = reduce_fn("Max", "reduce_max")
reduce_min = reduce_fn("Min", "reduce_min")
reduce_prod = reduce_fn("Prod", "reduce_prod")
reduce_any = reduce_fn("Any", "reduce_any")
reduce_all = reduce_fn("All", "reduce_all")


# --------------------------------------------------------------------------------------
# BroadcastTo (used by reduction gradients)
# --------------------------------------------------------------------------------------


def broadcast_to(input: TensorLike, shape: TensorLike, name: str | None = None) -> Tensor:
    """``input`` broadcast to ``shape``."""
    s = shape if isinstance(shape, Tensor) else convert_to_tensor(shape, dtype=_dt.int32)
    return make("BroadcastTo", [input, s], None, name)


def broadcast_to_like(x, like: Tensor):
    """``x`` broadcast to the shape of ``like`` (static shape when known)."""
    if x.shape == like.shape and like.shape.is_fully_defined():
        return x
    if like.shape.is_fully_defined():
        return broadcast_to(x, like.shape.as_list())
    return broadcast_to(x, array_ops.shape(like))


def _broadcast_to_infer(op):
    x, s = op.inputs
    dims = partial_shape(s)
    if dims is None:
        return [(x.dtype, unknown_shape())]
    out = TensorShape(dims)
    merged = broadcast_shapes(x.shape, out)
    if None in dims and merged.ndims == len(dims):
        # a dim the input fixes (not 1) is the output's too, as TF infers it
        out = TensorShape(
            [
                d if d is not None else (m if m != 1 else None)
                for d, m in zip(dims, merged.as_list(), strict=True)
            ]
        )
    return [(x.dtype, out)]


def _broadcast_to_grad(op, g):
    x = op.inputs[0]
    return [sum_to(g, x, op.outputs[0], op.outputs[0].shape), None]


def _broadcast_to_kernel(ctx, op, x, s):
    # One allocation and one broadcasting copy: np.broadcast_to(...).copy() costs ~10 us
    # of Python around it (a reduction gradient's per-step scalar to [batch]).
    shape = s.tolist()
    if np.ndim(x) > len(shape):  # copyto would drop leading 1s; TF refuses
        raise errors.InvalidArgumentError(
            None,
            op,
            "Rank of input (%d) must be no greater than rank of output shape (%d)."
            % (np.ndim(x), len(shape)),
        )
    out = np.empty(shape, x.dtype)
    np.copyto(out, x)
    return (out,)


register_op(
    "BroadcastTo",
    infer=_broadcast_to_infer,
    kernel=_broadcast_to_kernel,
    grad=_broadcast_to_grad,
)


# --------------------------------------------------------------------------------------
# ArgMax / ArgMin
# --------------------------------------------------------------------------------------


def _arg_infer(op):
    x, dim = op.inputs
    check_dtype(x, NUMERIC + (_dt.bool,), "input")
    if dim.dtype not in (_dt.int32, _dt.int64):
        raise TypeError("dimension must be int32 or int64, got %s" % dim.dtype.name)
    out = op.attrs["output_type"]
    r = x.shape.ndims
    axes = int_list(dim)
    if r is None or axes is None:
        return [(out, unknown_shape(None if r is None else max(r - 1, 0)))]
    a = axes[0]
    if not -max(r, 1) <= a < max(r, 1):
        raise ValueError(
            "Dimension (%d) must be in the range [%d, %d), where %d is the "
            "number of dimensions in the input." % (a, -r, r, r)
        )
    a %= max(r, 1)
    dims = x.shape.as_list()
    return [(out, TensorShape(dims[:a] + dims[a + 1 :]))]


def _arg_kernel(np_arg, nan_fill):
    def kernel(ctx, op, x, dim):
        x = np.asarray(x)
        a = int(dim) % max(x.ndim, 1)
        if x.ndim and x.shape[a] == 0:
            raise errors.InvalidArgumentError(
                None, op, "Reduction axis %d is empty in shape %s" % (a, list(x.shape))
            )
        if x.dtype.kind == "f" and np.isnan(x).any():
            # TF never picks a NaN (all-NaN gives 0); numpy picks the first NaN.
            x = np.where(np.isnan(x), nan_fill, x)
        return (np_arg(x, axis=a if x.ndim else None).astype(op.attrs["output_type"].np),)

    return kernel


register_op(
    "ArgMax", infer=_arg_infer, kernel=_arg_kernel(np.argmax, -np.inf), grad=NOT_DIFFERENTIABLE
)
register_op(
    "ArgMin", infer=_arg_infer, kernel=_arg_kernel(np.argmin, np.inf), grad=NOT_DIFFERENTIABLE
)


def _arg_fn(op_type: str, pub: str) -> _ArgOp:
    def fn(
        input: TensorLike,
        axis: TensorLike | None = None,
        name: str | None = None,
        dimension: TensorLike | None = None,
        output_type: DTypeLike = _dt.int64,
    ) -> Tensor:
        if axis is not None and dimension is not None:
            raise ValueError("Cannot specify both 'dimension' and 'axis'.")
        axis = dimension if axis is None else axis
        out = _dt.as_dtype(output_type)
        if out not in (_dt.int32, _dt.int64):
            raise TypeError(
                "Value passed to parameter 'output_type' has DataType %s not in "
                "list of allowed values: int32, int64" % out.name
            )

        def build():
            x = convert_to_tensor(input, name="input")
            d = convert_to_tensor(0 if axis is None else axis, name="dimension")
            return [x, d]

        return scoped_op(
            op_type, name, op_type, build, {"output_type": out}, operands=(input, axis)
        )

    fn.__name__ = pub
    fn.__qualname__ = pub
    fn.__doc__ = (
        "Index of the %s value along ``axis`` (default 0), as ``output_type`` "
        "(int64 by default); NaNs never win (op type %s)."
        % ("largest" if op_type == "ArgMax" else "smallest", op_type)
    )
    return fn


argmax = arg_max = _arg_fn("ArgMax", "argmax")
argmin = arg_min = _arg_fn("ArgMin", "argmin")


# --------------------------------------------------------------------------------------
# clip_by_value (TF2 builds it from Minimum and Maximum)
# --------------------------------------------------------------------------------------


def clip_by_value(
    t: TensorLike, clip_value_min: TensorLike, clip_value_max: TensorLike, name: str | None = None
) -> Tensor:
    """Clips ``t`` elementwise to ``[clip_value_min, clip_value_max]``.

    Built as ``Maximum(Minimum(t, max), min)`` like TF2, so gradients flow to all three
    arguments. Raises ValueError if the clip bounds would broadcast ``t`` to a larger shape.
    """
    with op_scope([t, clip_value_min, clip_value_max], name, "clip_by_value") as scope:
        values = convert_to_tensor(t, name="t")
        t_min = minimum(values, clip_value_max)
    # The Maximum takes the scope's own name, as in TF ("clip_by_value", "clip_by_value/y").
    t_max = scoped_op(
        "Maximum",
        scope,
        None,
        lambda: binary_inputs(t_min, clip_value_min, "Maximum"),
        operands=(t_min, clip_value_min),
    )
    if not values.shape.is_compatible_with(t_max.shape):
        raise ValueError(
            "clip_by_value: Shapes %s and %s are incompatible: the clip bounds "
            "must not broadcast t to a larger shape."
            % (shape_str(values.shape), shape_str(t_max.shape))
        )
    return t_max


def to_double(x: TensorLike, name: str | None = "ToDouble") -> Tensor:
    """``fr.cast(x, fr.float64)`` (TF1's deprecated name)."""
    return cast(x, _dt.float64, name=name)


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
        return add_n(ts, name=scope)
