"""Neural-network ops (``fr.nn``): activations, softmax, bias_add, losses, dropout.

One registration per op type, with its infer rule, kernel and gradient together; the
types are TF's (``Relu``, ``BiasAdd``, ``SoftmaxCrossEntropyWithLogits``, ...) so that
``RegisterGradient`` overrides work. Gradient ops TF has (``ReluGrad``,
``BiasAddGrad``, ...) are registered too, each with its own (second-order) gradient.

Where TF composes a loss from many small ops (``sigmoid_cross_entropy_with_logits``)
flowrt uses one fused kernel with the same numerics: in an interpreter each op costs a
dispatch, and these losses sit on the training hot path. Embedding lookup lives in
``embedding_ops``, candidate sampling and the sampled losses in ``candidate_sampling_ops``.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol, cast

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.graph import Tensor, convert_to_tensor, get_default_graph
from .._core.registry import register_op
from .._core.shape import TensorShape, unknown_shape
from . import array_ops, linalg_ops, math_ops, xent_kernels
from .common import FLOATS, NUMERIC, check_dtype, in_graph_of, int_list, make, make_op, op_scope

if TYPE_CHECKING:
    from .._core.typing import AxisLike, TensorLike, TensorValue

__all__ = [
    "relu",
    "relu6",
    "leaky_relu",
    "elu",
    "selu",
    "softplus",
    "sigmoid",
    "tanh",
    "softmax",
    "log_softmax",
    "bias_add",
    "l2_loss",
    "dropout",
    "softmax_cross_entropy_with_logits",
    "softmax_cross_entropy_with_logits_v2",
    "sparse_softmax_cross_entropy_with_logits",
    "sigmoid_cross_entropy_with_logits",
    "weighted_cross_entropy_with_logits",
    "moments",
    "l2_normalize",
    "xw_plus_b",
    "relu_layer",
    "zero_fraction",
    "batch_normalization",
]

sigmoid = math_ops.sigmoid
tanh = math_ops.tanh


def _features(x, name="features"):
    return convert_to_tensor(x, name=name)


def _zeros_like(t):
    return array_ops.zeros_like(t)


# --------------------------------------------------------------------------------------
# Activations and their TF gradient ops
# --------------------------------------------------------------------------------------


class _ActivationOp(Protocol):
    """The signature of ``fr.nn.relu`` and the other activations."""

    def __call__(self, features: TensorLike, name: str | None = None) -> Tensor: ...


def _act_fn(op_type: str, pub: str, doc: str) -> _ActivationOp:
    def fn(features: TensorLike, name: str | None = None) -> Tensor:
        x = _features(features)
        return make(op_type, [x], None, name, op_type)

    fn.__name__ = fn.__qualname__ = pub
    fn.__doc__ = doc
    return fn


def _act_infer(op):
    check_dtype(op.inputs[0], NUMERIC, "features")
    x = op.inputs[0]
    return [(x.dtype, x.shape)]


def _grad_infer(op):
    g, x = op.inputs[0], op.inputs[1]
    if g.dtype is not x.dtype:
        raise TypeError(
            "gradients and features must have the same dtype, got %s and %s"
            % (g.dtype.name, x.dtype.name)
        )
    if not g.shape.is_compatible_with(x.shape):
        raise ValueError(
            "gradients and features must have the same shape, got %s and %s" % (g.shape, x.shape)
        )
    return [(g.dtype, g.shape.merge_with(x.shape))]


def _relu_grad_kernel(ctx, op, g, y):
    return (np.multiply(g, y > 0),)


_ZERO_BLOCK = 1 << 16
_zero_blocks: dict = {}


def _relu_out(x, out):
    # numpy's maximum runs its SIMD loop against an array, a loop ~3x slower against a
    # 0-d zero (128x128 float32: 5 vs 15 us; 1024x1024: 0.3 vs 0.6 ms). So contiguous
    # inputs meet a shared read-only block of zeros, block by block.
    if not (x.flags.c_contiguous and out.flags.c_contiguous and x.shape == out.shape):
        return np.maximum(x, out.dtype.type(0), out=out)
    zeros = _zero_blocks.get(x.dtype)
    if zeros is None:
        zeros = np.zeros(_ZERO_BLOCK, x.dtype)
        zeros.flags.writeable = False
        _zero_blocks[x.dtype] = zeros
    n = x.size
    xs, outs = x.reshape(-1), out.reshape(-1)
    if n <= _ZERO_BLOCK:
        np.maximum(xs, zeros[:n], out=outs)
        return out
    for lo in range(0, n, _ZERO_BLOCK):
        hi = min(n, lo + _ZERO_BLOCK)
        np.maximum(xs[lo:hi], zeros[: hi - lo], out=outs[lo:hi])
    return out


def _relu_kernel(ctx, op, x):
    return (_relu_out(x, np.empty_like(x)),)


def _relu_grad_out(g, y, out):
    return np.multiply(g, y > 0, out=out)


def _relu6_kernel(ctx, op, x):
    return (np.clip(x, 0, 6).astype(x.dtype, copy=False),)


def _relu6_grad_kernel(ctx, op, g, x):
    return (np.multiply(g, (x > 0) & (x < 6)),)


def _leaky_kernel(ctx, op, x):
    a = op.attrs["alpha"]
    return (np.where(x > 0, x, x * np.asarray(a, x.dtype)),)


def _leaky_grad_kernel(ctx, op, g, x):
    a = op.attrs["alpha"]
    return (np.where(x > 0, g, g * np.asarray(a, g.dtype)),)


def _elu_kernel(ctx, op, x):
    return (np.where(x < 0, np.expm1(np.minimum(x, 0)), x).astype(x.dtype, copy=False),)


def _elu_grad_kernel(ctx, op, g, y):
    return (np.where(y < 0, g * (y + 1), g).astype(g.dtype, copy=False),)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _selu_kernel(ctx, op, x):
    neg = _SELU_SCALE * _SELU_ALPHA * np.expm1(np.minimum(x, 0))
    return (np.where(x < 0, neg, _SELU_SCALE * x).astype(x.dtype, copy=False),)


def _selu_grad_kernel(ctx, op, g, y):
    return (
        np.where(y < 0, g * (y + _SELU_SCALE * _SELU_ALPHA), g * _SELU_SCALE).astype(
            g.dtype, copy=False
        ),
    )


def _softplus_kernel(ctx, op, x):
    return (np.logaddexp(x, np.zeros((), x.dtype)).astype(x.dtype, copy=False),)


def _softplus_grad_kernel(ctx, op, g, x):
    e = np.exp(-np.abs(x))
    s = np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))
    return ((g * s).astype(g.dtype, copy=False),)


register_op(
    "Relu",
    infer=_act_infer,
    kernel=_relu_kernel,
    ufunc=_relu_out,
    grad=lambda op, g: [make("ReluGrad", [g, op.outputs[0]])],
)
register_op(
    "ReluGrad",
    infer=_grad_infer,
    kernel=_relu_grad_kernel,
    ufunc=_relu_grad_out,
    grad=lambda op, g: [make("ReluGrad", [g, op.inputs[1]]), _zeros_like(op.inputs[1])],
)
register_op(
    "Relu6",
    infer=_act_infer,
    kernel=_relu6_kernel,
    grad=lambda op, g: [make("Relu6Grad", [g, op.outputs[0]])],
)
register_op(
    "Relu6Grad",
    infer=_grad_infer,
    kernel=_relu6_grad_kernel,
    grad=lambda op, g: [make("Relu6Grad", [g, op.inputs[1]]), _zeros_like(op.inputs[1])],
)
register_op(
    "LeakyRelu",
    infer=_act_infer,
    kernel=_leaky_kernel,
    grad=lambda op, g: [make("LeakyReluGrad", [g, op.inputs[0]], {"alpha": op.attrs["alpha"]})],
)
register_op(
    "LeakyReluGrad",
    infer=_grad_infer,
    kernel=_leaky_grad_kernel,
    grad=lambda op, g: [
        make("LeakyReluGrad", [g, op.inputs[1]], {"alpha": op.attrs["alpha"]}),
        _zeros_like(op.inputs[1]),
    ],
)


def _exp_grad_grad(grad_type):
    """The gradient of EluGrad/SeluGrad (whose second input is the activation's output)."""
    return lambda op, g: [
        make(grad_type, [g, op.inputs[1]]),
        math_ops.where(
            math_ops.less(op.inputs[1], 0.0), g * op.inputs[0], _zeros_like(op.inputs[1])
        ),
    ]


register_op(
    "Elu",
    infer=_act_infer,
    kernel=_elu_kernel,
    grad=lambda op, g: [make("EluGrad", [g, op.outputs[0]])],
)
register_op("EluGrad", infer=_grad_infer, kernel=_elu_grad_kernel, grad=_exp_grad_grad("EluGrad"))
register_op(
    "Selu",
    infer=_act_infer,
    kernel=_selu_kernel,
    grad=lambda op, g: [make("SeluGrad", [g, op.outputs[0]])],
)
register_op(
    "SeluGrad", infer=_grad_infer, kernel=_selu_grad_kernel, grad=_exp_grad_grad("SeluGrad")
)
register_op(
    "Softplus",
    infer=_act_infer,
    kernel=_softplus_kernel,
    grad=lambda op, g: [make("SoftplusGrad", [g, op.inputs[0]])],
)
register_op(
    "SoftplusGrad",
    infer=_grad_infer,
    kernel=_softplus_grad_kernel,
    grad=lambda op, g: [
        make("SoftplusGrad", [g, op.inputs[1]]),
        op.inputs[0] * g * math_ops.sigmoid(op.inputs[1]) * (1.0 - math_ops.sigmoid(op.inputs[1])),
    ],
)

relu = _act_fn("Relu", "relu", "Rectified linear: ``max(features, 0)``.")
relu6 = _act_fn("Relu6", "relu6", "Rectified linear 6: ``min(max(features, 0), 6)``.")
elu = _act_fn("Elu", "elu", "Exponential linear: ``exp(features) - 1`` if < 0, else ``features``.")
selu = _act_fn("Selu", "selu", "Scaled exponential linear (Klambauer et al.).")
softplus = _act_fn("Softplus", "softplus", "``log(exp(features) + 1)``, computed stably.")


def leaky_relu(features: TensorLike, alpha: float = 0.2, name: str | None = None) -> Tensor:
    """Leaky rectified linear: ``features`` if > 0, else ``alpha * features``.

    Integer features are cast to float32 first, as in TF.
    """
    x = _features(features)
    if x.dtype.is_integer:
        x = math_ops.cast(x, _dt.float32)
    return make("LeakyRelu", [x], {"alpha": float(alpha)}, name, "LeakyRelu")


# --------------------------------------------------------------------------------------
# Softmax and log-softmax
# --------------------------------------------------------------------------------------


def _softmax_np(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    e /= e.sum(axis=axis, keepdims=True)
    return e


def _log_softmax_np(x, axis):
    sh = x - x.max(axis=axis, keepdims=True)
    sh -= np.log(np.exp(sh).sum(axis=axis, keepdims=True))
    return sh


def _softmax_infer(op):
    x = op.inputs[0]
    check_dtype(x, FLOATS, "logits")
    r = x.shape.ndims
    if r is not None and r < 1:
        raise ValueError("logits must have >= 1 dimension, got shape %s" % x.shape)
    a = op.attrs.get("axis", -1)
    if r is not None and not -r <= a < r:
        raise ValueError("axis %d is out of range for logits of rank %d" % (a, r))
    return [(x.dtype, x.shape)]


def _softmax_grad(op, g):
    # TF: (g - sum(g * y, axis)) * y
    y = op.outputs[0]
    a = op.attrs.get("axis", -1)
    return [(g - math_ops.reduce_sum(g * y, a, keepdims=True)) * y]


def _log_softmax_grad(op, g):
    # TF: g - sum(g, axis) * exp(y)
    a = op.attrs.get("axis", -1)
    return [g - math_ops.reduce_sum(g, a, keepdims=True) * math_ops.exp(op.outputs[0])]


register_op(
    "Softmax",
    infer=_softmax_infer,
    kernel=lambda ctx, op, x: (_softmax_np(x, op.attrs.get("axis", -1)),),
    grad=_softmax_grad,
)
register_op(
    "LogSoftmax",
    infer=_softmax_infer,
    kernel=lambda ctx, op, x: (_log_softmax_np(x, op.attrs.get("axis", -1)),),
    grad=_log_softmax_grad,
)


def _axis_arg(axis, dim, fn):
    if dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'dim'")
        axis = dim
    if axis is None:
        return -1
    if isinstance(axis, Tensor):
        v = int_list(axis)
        if v is None:
            raise NotImplementedError("%s: axis must be known at graph construction" % fn)
        axis = v[0]
    return int(axis)


def _softmax_like(op_type, logits, axis, name):
    x = convert_to_tensor(logits, name="logits")
    r = x.shape.ndims
    if r is not None and axis not in (-1, r - 1) and not -r <= axis < r:
        raise errors.InvalidArgumentError(
            None,
            None,
            "`axis` must be in the range [%d, %d) where %d is the number of "
            "dimensions in the input. Received: axis=%d" % (-r, r, r, axis),
        )
    attrs = {} if axis == -1 or (r is not None and axis == r - 1) else {"axis": axis}
    return make(op_type, [x], attrs, name, op_type)


def softmax(
    logits: TensorLike, axis: int | None = None, name: str | None = None, dim: int | None = None
) -> Tensor:
    """``exp(logits) / reduce_sum(exp(logits), axis)``, computed stably.

    Note (flowrt): a non-last ``axis`` is an attribute of the one ``Softmax`` op
    instead of TF's transpose / Softmax / transpose.
    """
    return _softmax_like("Softmax", logits, _axis_arg(axis, dim, "softmax"), name)


def log_softmax(
    logits: TensorLike, axis: int | None = None, name: str | None = None, dim: int | None = None
) -> Tensor:
    """``logits - log(reduce_sum(exp(logits), axis))``, computed stably.

    Note (flowrt): a non-last ``axis`` is an attribute of the one ``LogSoftmax`` op.
    """
    return _softmax_like("LogSoftmax", logits, _axis_arg(axis, dim, "log_softmax"), name)


# --------------------------------------------------------------------------------------
# BiasAdd
# --------------------------------------------------------------------------------------


def _bias_axis(op):
    x = op.inputs[0]
    if op.attrs["data_format"] == "NCHW":
        return 1
    return -1 if x.shape.ndims is None else x.shape.ndims - 1


def _bias_add_infer(op):
    x, b = op.inputs
    if x.dtype is not b.dtype:
        raise TypeError(
            "Input 'bias' of 'BiasAdd' Op has type %s that does not match type "
            "%s of argument 'value'." % (b.dtype.name, x.dtype.name)
        )
    check_dtype(x, NUMERIC, "value")
    if b.shape.ndims is not None and b.shape.ndims != 1:
        raise ValueError("Shape must be rank 1 but is rank %d for 'bias'" % b.shape.ndims)
    if x.shape.ndims is not None and x.shape.ndims < 2:
        raise ValueError("Shape must be at least rank 2 but is rank %d for 'value'" % x.shape.ndims)
    if x.shape.ndims is not None and b.shape.ndims == 1:
        c = x.shape.as_list()[_bias_axis(op)]
        n = b.shape.as_list()[0]
        if c is not None and n is not None and c != n:
            raise ValueError("Dimensions must be equal, but are %d and %d" % (c, n))
        dims = x.shape.as_list()
        dims[_bias_axis(op)] = c if c is not None else n
        return [(x.dtype, TensorShape(dims))]
    return [(x.dtype, x.shape)]


def _bias_add_kernel(ctx, op, x, b):
    if op.attrs["data_format"] == "NCHW":
        b = b.reshape((-1,) + (1,) * (x.ndim - 2))
    elif x.shape[-1] != b.shape[0]:
        raise errors.InvalidArgumentError(
            None,
            op,
            "Must provide as many biases as the last dimension of the input "
            "tensor: [%s] vs. [%s]" % (",".join(map(str, b.shape)), ",".join(map(str, x.shape))),
        )
    return (x + b,)


def _bias_add_grad_infer(op):
    g = op.inputs[0]
    if g.shape.ndims is None:
        return [(g.dtype, unknown_shape(1))]
    ax = 1 if op.attrs["data_format"] == "NCHW" else g.shape.ndims - 1
    return [(g.dtype, TensorShape([g.shape.as_list()[ax]]))]


def _bias_add_grad_kernel(ctx, op, g):
    ax = 1 if op.attrs["data_format"] == "NCHW" else g.ndim - 1
    axes = tuple(i for i in range(g.ndim) if i != ax)
    return (g.sum(axis=axes, dtype=g.dtype),)


def _bias_add_grad_grad(op, gg):
    g = op.inputs[0]
    if op.attrs["data_format"] == "NCHW" and g.shape.ndims is not None and g.shape.ndims > 2:
        gg = array_ops.reshape(gg, [-1] + [1] * (g.shape.ndims - 2))
    return [math_ops.broadcast_to_like(gg, g)]


register_op(
    "BiasAdd",
    infer=_bias_add_infer,
    kernel=_bias_add_kernel,
    grad=lambda op, g: [g, make("BiasAddGrad", [g], {"data_format": op.attrs["data_format"]})],
)
register_op(
    "BiasAddGrad",
    infer=_bias_add_grad_infer,
    kernel=_bias_add_grad_kernel,
    grad=_bias_add_grad_grad,
)


def bias_add(
    value: TensorLike, bias: TensorLike, data_format: str | None = None, name: str | None = None
) -> Tensor:
    """Adds a 1-D ``bias`` along the channel axis of ``value`` (the last for NHWC)."""
    with in_graph_of([value]):
        fmt = data_format or "NHWC"
        if fmt not in ("NHWC", "NCHW", "N..C", "NC.."):
            raise ValueError("data_format must be NHWC or NCHW, got %r" % data_format)
        fmt = "NCHW" if fmt in ("NCHW", "NC..") else "NHWC"
        x = convert_to_tensor(value, name="input")
        if isinstance(bias, Tensor) or hasattr(bias, "_as_tensor"):
            b = convert_to_tensor(bias)
        else:
            b = convert_to_tensor(bias, dtype=x.dtype, name="bias")
        return make("BiasAdd", [x, b], {"data_format": fmt}, name, "BiasAdd")


# --------------------------------------------------------------------------------------
# L2Loss
# --------------------------------------------------------------------------------------


def _l2_infer(op):
    check_dtype(op.inputs[0], FLOATS, "t")
    return [(op.inputs[0].dtype, TensorShape([]))]


def _l2_kernel(ctx, op, x):
    f = x.reshape(-1)
    return (np.asarray(np.dot(f, f) / 2, dtype=x.dtype),)


register_op("L2Loss", infer=_l2_infer, kernel=_l2_kernel, grad=lambda op, g: [op.inputs[0] * g])


def l2_loss(t: TensorLike, name: str | None = None) -> Tensor:
    """``sum(t ** 2) / 2``."""
    return make("L2Loss", [convert_to_tensor(t)], None, name, "L2Loss")


# --------------------------------------------------------------------------------------
# Naming helper: TF ops that are named exactly like the name scope they create
# --------------------------------------------------------------------------------------


class OwnScope:
    """``with OwnScope(name, default) as s:`` opens the scope ``s.full + '/'`` without
    claiming ``s.full``, so that the op created afterwards with ``name=s.name`` gets
    exactly that name (TF's ``name_scope(...) as name`` / ``op(name=name)`` idiom)."""

    def __init__(self, name, default):
        self.g = get_default_graph()
        self.name = name or default
        self.full = self.g.unique_name(self.name, mark_as_used=False)
        self._cm = None

    def __enter__(self):
        self._cm = self.g.name_scope(self.full + "/")
        self._cm.__enter__()
        return self

    def __exit__(self, *exc):
        return self._cm.__exit__(*exc)


def _expand_last(v: Tensor) -> Tensor:
    """``v[..., None]`` (TF's ``_BroadcastMul`` helper shape)."""
    s = v.shape
    if s.ndims == 1:
        return array_ops.reshape(v, [-1, 1])
    if s.is_fully_defined():
        return array_ops.reshape(v, s.as_list() + [1])
    return array_ops.expand_dims(v, -1)


def _ensure_xent_args(name, sentinel, labels, logits):
    if sentinel is not None:
        raise ValueError(
            "Only call `%s` with named arguments (labels=..., logits=..., ...). "
            "Received unnamed argument: %s" % (name, sentinel)
        )
    if labels is None or logits is None:
        raise ValueError(
            "Both `labels` and `logits` must be provided. Received: labels=%s "
            "and logits=%s" % (labels, logits)
        )


def _is_zeros(t) -> bool:
    return t is None or (isinstance(t, Tensor) and t.op.type == "ZerosLike")


# --------------------------------------------------------------------------------------
# Softmax cross entropy (dense and sparse labels)
# --------------------------------------------------------------------------------------


def _xent_infer(op):
    logits, labels = op.inputs
    check_dtype(logits, FLOATS, "features")
    if labels.dtype is not logits.dtype:
        raise TypeError(
            "Input 'labels' of 'SoftmaxCrossEntropyWithLogits' Op has type %s "
            "that does not match type %s of argument 'features'."
            % (labels.dtype.name, logits.dtype.name)
        )
    if not logits.shape.is_compatible_with(labels.shape):
        raise ValueError(
            "logits and labels must be broadcastable: logits_size=%s "
            "labels_size=%s" % (logits.shape, labels.shape)
        )
    s = logits.shape.merge_with(labels.shape)
    if s.ndims is None:
        return [(logits.dtype, unknown_shape()), (logits.dtype, unknown_shape())]
    if s.ndims == 0:
        raise ValueError("logits and labels must have rank >= 1, got shape %s" % s)
    return [(logits.dtype, TensorShape(s.as_list()[:-1])), (logits.dtype, s)]


def _xent_kernel(ctx, op, logits, labels):
    if logits.shape != labels.shape:
        raise errors.InvalidArgumentError(
            None,
            op,
            "logits and labels must be broadcastable: logits_size=[%s] "
            "labels_size=[%s]"
            % (",".join(map(str, logits.shape)), ",".join(map(str, labels.shape))),
        )
    return xent_kernels.softmax_xent(logits, labels)


def _xent_grad(op, grad_loss, grad_grad):
    backprop = op.outputs[1]
    logits = op.inputs[0]
    grad = _expand_last(grad_loss) * backprop
    if not _is_zeros(grad_grad):
        sm = make("Softmax", [logits])
        grad = grad + (grad_grad - math_ops.reduce_sum(grad_grad * sm, -1, keepdims=True)) * sm
    return [grad, _expand_last(grad_loss) * -make("LogSoftmax", [logits])]


register_op(
    "SoftmaxCrossEntropyWithLogits", infer=_xent_infer, kernel=_xent_kernel, grad=_xent_grad
)


def _move_axis_last(t: Tensor, axis: int):
    r = t.shape.ndims
    if r is None:
        raise ValueError("softmax_cross_entropy_with_logits with axis=%d needs a known rank" % axis)
    perm = [i for i in range(r) if i != axis % r] + [axis % r]
    return array_ops.transpose(t, perm)


def softmax_cross_entropy_with_logits_v2(
    labels: TensorLike,
    logits: TensorLike,
    axis: int | None = None,
    name: str | None = None,
    dim: int | None = None,
) -> Tensor:
    """Cross entropy between ``softmax(logits)`` and the distributions ``labels``.

    Gradients flow into both ``logits`` and ``labels``. Returns a tensor with the shape
    of ``logits`` minus the class axis.

    Note (flowrt): the loss is the ``SoftmaxCrossEntropyWithLogits`` op itself (named
    ``softmax_cross_entropy_with_logits``), without TF's reshapes around it.
    """
    with in_graph_of([labels, logits, axis, dim]):
        axis = _axis_arg(axis, dim, "softmax_cross_entropy_with_logits_v2")
        with OwnScope(name, "softmax_cross_entropy_with_logits") as s:
            logits = convert_to_tensor(logits, name="logits")
            labels = convert_to_tensor(labels, name="labels")
            if logits.dtype is _dt.float16:
                logits = math_ops.cast(logits, _dt.float32)
            labels = math_ops.cast(labels, logits.dtype)
            r = logits.shape.ndims
            if r is not None and axis not in (-1, r - 1):
                logits = _move_axis_last(logits, axis)
                labels = _move_axis_last(labels, axis)
        op = make_op("SoftmaxCrossEntropyWithLogits", [logits, labels], None, s.name)
        xent_kernels.prepare(op.inputs[0].dtype.np)
        return op.outputs[0]


def softmax_cross_entropy_with_logits(
    _sentinel: None = None,
    labels: TensorLike | None = None,
    logits: TensorLike | None = None,
    dim: int = -1,
    name: str | None = None,
    axis: int | None = None,
) -> Tensor:
    """TF1's deprecated form: like the ``_v2`` function but no gradient flows into
    ``labels`` (they pass through ``stop_gradient``)."""
    with in_graph_of([labels, logits, dim, axis]):
        _ensure_xent_args("softmax_cross_entropy_with_logits", _sentinel, labels, logits)
        assert labels is not None and logits is not None  # _ensure_xent_args checked them
        axis = _axis_arg(axis, dim if dim != -1 else None, "softmax_cross_entropy_with_logits")
        with OwnScope(name, "softmax_cross_entropy_with_logits_sg") as s:
            labels = array_ops.stop_gradient(labels, name="labels_stop_gradient")
        return softmax_cross_entropy_with_logits_v2(
            labels=labels, logits=logits, axis=axis, name=s.name
        )


def _sparse_xent_infer(op):
    logits, labels = op.inputs
    check_dtype(logits, FLOATS, "features")
    check_dtype(labels, (_dt.int32, _dt.int64), "labels")
    ls = logits.shape
    if ls.ndims is None:
        return [(logits.dtype, labels.shape), (logits.dtype, unknown_shape())]
    out = (
        TensorShape(ls.as_list()[:-1]).merge_with(labels.shape)
        if labels.shape.ndims is not None
        else TensorShape(ls.as_list()[:-1])
    )
    return [(logits.dtype, out), (logits.dtype, TensorShape(out.as_list() + [ls.as_list()[-1]]))]


def _sparse_xent_kernel(ctx, op, logits, labels):
    out = xent_kernels.sparse_softmax_xent(logits, labels)
    if type(out) is int:
        flat = labels.reshape(-1)
        raise errors.InvalidArgumentError(
            None,
            op,
            "Received a label value of %d which is outside the valid range of "
            "[0, %d).  Label values: %s"
            % (flat[out], logits.shape[-1], " ".join(map(str, flat.tolist()))),
        )
    return out


def _sparse_xent_grad(op, grad_loss, grad_grad):
    grad = _expand_last(grad_loss) * op.outputs[1]
    if not _is_zeros(grad_grad):
        sm = make("Softmax", [op.inputs[0]])
        grad = grad + (grad_grad - math_ops.reduce_sum(grad_grad * sm, -1, keepdims=True)) * sm
    return [grad, None]


register_op(
    "SparseSoftmaxCrossEntropyWithLogits",
    infer=_sparse_xent_infer,
    kernel=_sparse_xent_kernel,
    grad=_sparse_xent_grad,
)


def sparse_softmax_cross_entropy_with_logits(
    _sentinel: None = None,
    labels: TensorLike | None = None,
    logits: TensorLike | None = None,
    name: str | None = None,
) -> Tensor:
    """Cross entropy of ``softmax(logits)`` against integer class ``labels``.

    ``labels`` (int32/int64) has the shape of ``logits`` minus its last axis; a label
    outside ``[0, num_classes)`` raises ``InvalidArgumentError`` at run time.
    """
    with in_graph_of([labels, logits]):
        _ensure_xent_args("sparse_softmax_cross_entropy_with_logits", _sentinel, labels, logits)
        g = get_default_graph()
        with g.name_scope(name or "SparseSoftmaxCrossEntropyWithLogits"):
            labels = convert_to_tensor(labels)
            logits = convert_to_tensor(logits)
            if logits.dtype is _dt.float16:
                logits = math_ops.cast(logits, _dt.float32)
            ls, lb = logits.shape, labels.shape
            if ls.ndims == 0:
                raise ValueError("`logits` cannot be a scalar. Received logits=%s`" % logits)
            if ls.ndims is not None and lb.ndims is not None and lb.ndims != ls.ndims - 1:
                raise ValueError(
                    "`labels.shape.rank` must equal `logits.shape.rank - 1`. Received: "
                    "labels.shape=%s of rank %d and logits.shape=%s of rank %d"
                    % (lb, lb.ndims, ls, ls.ndims)
                )
            if (
                lb.is_fully_defined()
                and ls.ndims is not None
                and TensorShape(ls.as_list()[:-1]).is_fully_defined()
                and lb.as_list() != ls.as_list()[:-1]
            ):
                raise ValueError(
                    "`labels.shape` must equal `logits.shape` except for the last "
                    "dimension. Received: labels.shape=%s and logits.shape=%s" % (lb, ls)
                )
            op = make_op(
                "SparseSoftmaxCrossEntropyWithLogits",
                [logits, labels],
                None,
                "SparseSoftmaxCrossEntropyWithLogits",
            )
            xent_kernels.prepare(logits.dtype.np, labels.dtype.np)
            return op.outputs[0]


# --------------------------------------------------------------------------------------
# Sigmoid cross entropy (fused)
# --------------------------------------------------------------------------------------


def _sig_xent_infer(op):
    x, z = op.inputs
    check_dtype(x, FLOATS, "logits")
    if z.dtype is not x.dtype:
        raise TypeError(
            "labels must have the dtype of logits (%s), got %s" % (x.dtype.name, z.dtype.name)
        )
    return [(x.dtype, x.shape.merge_with(z.shape))]


def _sig_xent_kernel(ctx, op, x, z):
    # max(x, 0) - x * z + log1p(exp(-|x|)): never overflows.
    out = np.maximum(x, 0)
    out -= x * z
    out += np.log1p(np.exp(-np.abs(x)))
    return (out,)


def _sig_xent_grad_kernel(ctx, op, g, x, z):
    # d/dx = sigmoid(x) - z, with sigmoid(x) = 1 / (1 + e) for x >= 0 and e / (1 + e)
    # below, e = exp(-|x|): one division of the selected numerator (never overflows).
    e = np.abs(x)
    np.negative(e, out=e)
    np.exp(e, out=e)
    sig = np.where(x < 0, e, x.dtype.type(1))
    e += 1
    sig /= e
    sig -= z
    sig *= g
    return (sig,)


def _sig_xent_grad(op, g):
    # The labels' gradient, -g * x, is its own (elementwise) ops: pruned from a run
    # that does not need it, as the labels of a training loss never do.
    x = op.inputs[0]
    dx = make_op("SigmoidCrossEntropyWithLogitsGrad", [g, x, op.inputs[1]]).outputs[0]
    return [dx, -(g * x)]


register_op(
    "SigmoidCrossEntropyWithLogits",
    infer=_sig_xent_infer,
    kernel=_sig_xent_kernel,
    grad=_sig_xent_grad,
)
register_op(
    "SigmoidCrossEntropyWithLogitsGrad",
    infer=lambda op: [(op.inputs[1].dtype, op.inputs[1].shape)],
    kernel=_sig_xent_grad_kernel,
    grad=None,
)


def sigmoid_cross_entropy_with_logits(
    _sentinel: None = None,
    labels: TensorLike | None = None,
    logits: TensorLike | None = None,
    name: str | None = None,
) -> Tensor:
    """Elementwise logistic loss ``max(x, 0) - x * z + log(1 + exp(-|x|))`` of logits
    ``x`` against labels ``z`` (same shape), stable for any ``x``.

    Note (flowrt): one fused op (type ``SigmoidCrossEntropyWithLogits``, named
    ``logistic_loss`` by default) instead of TF's ten elementwise ops; the values and
    gradients (into ``logits`` and ``labels``) are TF's.
    """
    with in_graph_of([labels, logits]):
        _ensure_xent_args("sigmoid_cross_entropy_with_logits", _sentinel, labels, logits)
        with OwnScope(name, "logistic_loss") as s:
            logits = convert_to_tensor(logits, name="logits")
            labels = (
                convert_to_tensor(labels, name="labels")
                if isinstance(labels, Tensor) or hasattr(labels, "_as_tensor")
                else convert_to_tensor(labels, logits.dtype, name="labels")
            )
            if not labels.shape.is_compatible_with(logits.shape):
                raise ValueError(
                    "`logits` and `labels` must have the same shape, received "
                    "(%s vs %s)." % (logits.shape, labels.shape)
                )
        return make("SigmoidCrossEntropyWithLogits", [logits, labels], None, s.name)


def weighted_cross_entropy_with_logits(
    labels: TensorLike | None = None,
    logits: TensorLike | None = None,
    pos_weight: TensorLike | None = None,
    name: str | None = None,
    targets: TensorLike | None = None,
) -> Tensor:
    """Sigmoid cross entropy with the positive term weighted by ``pos_weight``."""
    with in_graph_of([labels, logits, pos_weight, targets]):
        if targets is not None:
            if labels is not None:
                raise ValueError("Cannot specify both 'labels' and 'targets'")
            labels = targets
        g = get_default_graph()
        with g.name_scope(name or "logistic_loss"):
            logits = convert_to_tensor(logits, name="logits")
            labels = (
                convert_to_tensor(labels, logits.dtype, name="labels")
                if not isinstance(labels, Tensor)
                else labels
            )
            log_weight = 1 + (cast(Any, pos_weight) - 1) * labels  # None: TypeError, as TF1
            return math_ops.add(
                (1 - labels) * logits,
                log_weight * (math_ops.log1p(math_ops.exp(-math_ops.abs(logits))) + relu(-logits)),
            )


# --------------------------------------------------------------------------------------
# Dropout
# --------------------------------------------------------------------------------------


def dropout(
    x: TensorLike,
    keep_prob: TensorValue | None = None,
    noise_shape: TensorLike | None = None,
    seed: int | None = None,
    name: str | None = None,
    rate: TensorValue | None = None,
) -> Tensor:
    """Zeroes elements of ``x`` with probability ``rate`` (= ``1 - keep_prob``) and
    scales the others by ``1 / (1 - rate)``.

    Exactly one of ``keep_prob`` (TF1) and ``rate`` must be given. ``noise_shape``
    (broadcastable to ``x``'s shape) shares one keep/drop decision across dimensions.
    """
    with in_graph_of([x, keep_prob, noise_shape, rate]):
        if keep_prob is not None and rate is not None:
            raise ValueError("Cannot specify both 'rate' and 'keep_prob'")
        if keep_prob is not None:
            try:
                rate = 1.0 - keep_prob
            except TypeError:
                raise ValueError(
                    "`keep_prob` must be a floating point number or Tensor. "
                    "Received: keep_prob=%s" % (keep_prob,)
                ) from None
        if rate is None:
            raise ValueError("`rate` must be provided. Received: rate=None")
        g = get_default_graph()
        with g.name_scope(name or "dropout"):
            is_number = isinstance(rate, numbers.Real)
            if is_number and not 0 <= rate < 1:
                raise ValueError(
                    "`rate` must be a scalar tensor or a float in the range [0, 1). "
                    "Received: rate=%s" % rate
                )
            x = convert_to_tensor(x, name="x")
            if not x.dtype.is_floating:
                raise ValueError(
                    "`x.dtype` must be a floating point tensor as `x` will be "
                    "scaled. Received: x_dtype=%s" % x.dtype.name
                )
            if is_number:
                if rate == 0:
                    return array_ops.identity(x)
                ret = math_ops.multiply(x, convert_to_tensor(1.0 / (1.0 - rate), x.dtype))
            else:
                rate = convert_to_tensor(rate)
                if rate.shape.ndims not in (None, 0):
                    raise ValueError("Shape must be rank 0 but is rank %d" % rate.shape.ndims)
                if rate.dtype is not x.dtype:
                    rate = math_ops.cast(rate, x.dtype, name="rate")
                ret = math_ops.realdiv(x, math_ops.subtract(convert_to_tensor(1, x.dtype), rate))
            if noise_shape is None:
                noise_shape = (
                    x.shape.as_list() if x.shape.is_fully_defined() else array_ops.shape(x)
                )
            r = _random_ops().random_uniform(noise_shape, seed=seed, dtype=x.dtype)
            keep = math_ops.greater_equal(
                r, rate if isinstance(rate, Tensor) else convert_to_tensor(rate, x.dtype)
            )
            out = math_ops.where(keep, ret, array_ops.zeros_like(ret))
            out.set_shape(x.shape)
            return out


def _random_ops():
    from . import random_ops

    return random_ops


# --------------------------------------------------------------------------------------
# Small composites
# --------------------------------------------------------------------------------------


def moments(
    x: TensorLike,
    axes: int | Sequence[int],
    shift: TensorLike | None = None,
    name: str | None = None,
    keep_dims: bool | None = None,
    keepdims: bool | None = None,
) -> tuple[Tensor, Tensor]:
    """Mean and variance of ``x`` over ``axes``."""
    with in_graph_of([x, axes, shift]):
        kd = bool(keepdims if keepdims is not None else keep_dims)
        g = get_default_graph()
        with g.name_scope(name or "moments"):
            x = convert_to_tensor(x)
            y = math_ops.cast(x, _dt.float32) if x.dtype is _dt.float16 else x
            mean = math_ops.reduce_mean(y, axes, keepdims=True, name="mean")
            variance = math_ops.reduce_mean(
                math_ops.squared_difference(y, array_ops.stop_gradient(mean)),
                axes,
                keepdims=True,
                name="variance",
            )
            if not kd:
                mean = array_ops.squeeze(mean, axes)
                variance = array_ops.squeeze(variance, axes)
            if x.dtype is _dt.float16:
                return math_ops.cast(mean, _dt.float16), math_ops.cast(variance, _dt.float16)
            return mean, variance


def batch_normalization(
    x: TensorLike,
    mean: TensorValue,
    variance: TensorValue,
    offset: TensorValue | None,
    scale: TensorValue | None,
    variance_epsilon: float,
    name: str | None = None,
) -> Tensor:
    """``(x - mean) * scale / sqrt(variance + variance_epsilon) + offset``, with
    ``offset``/``scale`` optional (None), computed as TF does (``x * inv + (offset -
    mean * inv)``)."""
    with op_scope([x, mean, variance, offset, scale], name, "batchnorm"):
        x = convert_to_tensor(x, name="x")
        inv = math_ops.rsqrt(variance + variance_epsilon)
        if scale is not None:
            inv = inv * scale
        shift = offset - mean * inv if offset is not None else -mean * inv
        if inv.dtype is not x.dtype:
            inv, shift = math_ops.cast(inv, x.dtype), math_ops.cast(shift, x.dtype)
        return x * inv + shift


def l2_normalize(
    x: TensorLike,
    axis: AxisLike = None,
    epsilon: float = 1e-12,
    name: str | None = None,
    dim: AxisLike = None,
) -> Tensor:
    """``x / sqrt(max(sum(x ** 2, axis), epsilon))``."""
    with in_graph_of([x, axis, dim]):
        if dim is not None:
            axis = dim
        g = get_default_graph()
        with g.name_scope(name or "l2_normalize"):
            x = convert_to_tensor(x, name="x")
            sq = math_ops.reduce_sum(math_ops.square(x), axis, keepdims=True)
            inv = math_ops.rsqrt(math_ops.maximum(sq, convert_to_tensor(epsilon, x.dtype)))
            return math_ops.multiply(x, inv)


def xw_plus_b(
    x: TensorLike, weights: TensorLike, biases: TensorLike, name: str | None = None
) -> Tensor:
    """``matmul(x, weights) + biases`` (a ``BiasAdd``)."""
    with in_graph_of([x, weights, biases]):
        with OwnScope(name, "xw_plus_b") as s:
            mm = linalg_ops.matmul(x, weights)
        return bias_add(mm, biases, name=s.name)


def relu_layer(
    x: TensorLike, weights: TensorLike, biases: TensorLike, name: str | None = None
) -> Tensor:
    """``relu(matmul(x, weights) + biases)``."""
    with in_graph_of([x, weights, biases]):
        with OwnScope(name, "relu_layer") as s:
            h = bias_add(linalg_ops.matmul(x, weights), biases)
        return relu(h, name=s.name)


def zero_fraction(value: TensorLike, name: str | None = None) -> Tensor:
    """The fraction of zeros in ``value`` (a float32 scalar)."""
    with op_scope([value], name, "zero_fraction"):
        v = convert_to_tensor(value, name="value")
        z = math_ops.cast(math_ops.equal(v, array_ops.zeros_like(v)), _dt.float32)
        return math_ops.reduce_mean(z)
