"""Neural-network ops (``fr.nn``): activations, softmax, losses, embeddings, sampling.

One registration per op type, with its infer rule, kernel and gradient together; the
types are TF's (``Relu``, ``BiasAdd``, ``SoftmaxCrossEntropyWithLogits``, ...) so that
``RegisterGradient`` overrides work. Gradient ops TF has (``ReluGrad``,
``BiasAddGrad``, ...) are registered too, each with its own (second-order) gradient.

Where TF composes a loss from many small ops (``sigmoid_cross_entropy_with_logits``,
the sampled-logits part of ``nce_loss``/``sampled_softmax_loss``) flowrt uses one
fused kernel with the same numerics: in an interpreter each op costs a dispatch, and
these losses sit on the training hot path.
"""

from __future__ import annotations

import collections
import math
import numbers

import numexpr as ne
import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.elementwise import NUMEXPR_MIN_SIZE, unary_kernel
from .._core.graph import Tensor, convert_to_tensor, get_default_graph
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from .._core.shape import TensorShape, unknown_shape
from . import array_ops, math_ops
from .common import FLOATS, NUMERIC, check_dtype, int_list, make, make_op

__all__ = [
    "relu", "relu6", "leaky_relu", "elu", "selu", "softplus", "sigmoid", "tanh", "softmax",
    "log_softmax", "bias_add", "l2_loss", "dropout", "softmax_cross_entropy_with_logits",
    "softmax_cross_entropy_with_logits_v2", "sparse_softmax_cross_entropy_with_logits",
    "sigmoid_cross_entropy_with_logits", "weighted_cross_entropy_with_logits",
    "embedding_lookup", "nce_loss", "sampled_softmax_loss", "log_uniform_candidate_sampler",
    "uniform_candidate_sampler", "fixed_unigram_candidate_sampler",
    "compute_accidental_hits", "moments", "l2_normalize", "xw_plus_b", "relu_layer",
    "zero_fraction",
]

sigmoid = math_ops.sigmoid
tanh = math_ops.tanh

_NE_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _big(x):
    return x.size >= NUMEXPR_MIN_SIZE and x.dtype in _NE_FLOATS


def _features(x, name="features"):
    return convert_to_tensor(x, name=name)


def _zeros_like(t):
    return array_ops.zeros_like(t)


# --------------------------------------------------------------------------------------
# Activations and their TF gradient ops
# --------------------------------------------------------------------------------------


def _act_fn(op_type, pub, doc):
    def fn(features, name=None):
        x = _features(features)
        return make(op_type, [x], None, name, op_type)
    fn.__name__ = pub
    fn.__doc__ = doc
    return fn


def _act_infer(op):
    check_dtype(op.inputs[0], NUMERIC, "features")
    x = op.inputs[0]
    return [(x.dtype, x.shape)]


def _grad_infer(op):
    g, x = op.inputs[0], op.inputs[1]
    if g.dtype is not x.dtype:
        raise TypeError("gradients and features must have the same dtype, got %s and %s"
                        % (g.dtype.name, x.dtype.name))
    if not g.shape.is_compatible_with(x.shape):
        raise ValueError("gradients and features must have the same shape, got %s and %s"
                         % (g.shape, x.shape))
    return [(g.dtype, g.shape.merge_with(x.shape))]


def _relu_grad_kernel(ctx, op, g, y):
    if _big(g) and g.dtype == y.dtype:
        return (ne.evaluate("where(y > 0, g, 0)", local_dict={"g": g, "y": y}),)
    return (np.multiply(g, y > 0),)


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
    return (np.where(y < 0, g * (y + _SELU_SCALE * _SELU_ALPHA), g * _SELU_SCALE)
            .astype(g.dtype, copy=False),)


def _softplus_kernel(ctx, op, x):
    return (np.logaddexp(x, np.zeros((), x.dtype)).astype(x.dtype, copy=False),)


def _softplus_grad_kernel(ctx, op, g, x):
    e = np.exp(-np.abs(x))
    s = np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))
    return ((g * s).astype(g.dtype, copy=False),)


register_op("Relu", infer=_act_infer,
            kernel=unary_kernel(lambda x: np.maximum(x, np.zeros((), x.dtype)),
                                "where(x > 0, x, 0)"),
            grad=lambda op, g: [make("ReluGrad", [g, op.outputs[0]])])
register_op("ReluGrad", infer=_grad_infer, kernel=_relu_grad_kernel,
            grad=lambda op, g: [make("ReluGrad", [g, op.inputs[1]]),
                                _zeros_like(op.inputs[1])])
register_op("Relu6", infer=_act_infer, kernel=_relu6_kernel,
            grad=lambda op, g: [make("Relu6Grad", [g, op.outputs[0]])])
register_op("Relu6Grad", infer=_grad_infer, kernel=_relu6_grad_kernel,
            grad=lambda op, g: [make("Relu6Grad", [g, op.inputs[1]]),
                                _zeros_like(op.inputs[1])])
register_op("LeakyRelu", infer=_act_infer, kernel=_leaky_kernel,
            grad=lambda op, g: [make("LeakyReluGrad", [g, op.inputs[0]],
                                     {"alpha": op.attrs["alpha"]})])
register_op("LeakyReluGrad", infer=_grad_infer, kernel=_leaky_grad_kernel,
            grad=lambda op, g: [make("LeakyReluGrad", [g, op.inputs[1]],
                                     {"alpha": op.attrs["alpha"]}),
                                _zeros_like(op.inputs[1])])
register_op("Elu", infer=_act_infer, kernel=_elu_kernel,
            grad=lambda op, g: [make("EluGrad", [g, op.outputs[0]])])
register_op("EluGrad", infer=_grad_infer, kernel=_elu_grad_kernel,
            grad=lambda op, g: [make("EluGrad", [g, op.inputs[1]]),
                                math_ops.where(math_ops.less(op.inputs[1], 0.0),
                                               g * op.inputs[0], _zeros_like(op.inputs[1]))])
register_op("Selu", infer=_act_infer, kernel=_selu_kernel,
            grad=lambda op, g: [make("SeluGrad", [g, op.outputs[0]])])
register_op("SeluGrad", infer=_grad_infer, kernel=_selu_grad_kernel,
            grad=lambda op, g: [make("SeluGrad", [g, op.inputs[1]]),
                                math_ops.where(math_ops.less(op.inputs[1], 0.0),
                                               g * op.inputs[0], _zeros_like(op.inputs[1]))])
register_op("Softplus", infer=_act_infer, kernel=_softplus_kernel,
            grad=lambda op, g: [make("SoftplusGrad", [g, op.inputs[0]])])
register_op("SoftplusGrad", infer=_grad_infer, kernel=_softplus_grad_kernel,
            grad=lambda op, g: [
                make("SoftplusGrad", [g, op.inputs[1]]),
                op.inputs[0] * g * math_ops.sigmoid(op.inputs[1])
                * (1.0 - math_ops.sigmoid(op.inputs[1]))])

relu = _act_fn("Relu", "relu", "Rectified linear: ``max(features, 0)``.")
relu6 = _act_fn("Relu6", "relu6", "Rectified linear 6: ``min(max(features, 0), 6)``.")
elu = _act_fn("Elu", "elu", "Exponential linear: ``exp(features) - 1`` if < 0, else "
                            "``features``.")
selu = _act_fn("Selu", "selu", "Scaled exponential linear (Klambauer et al.).")
softplus = _act_fn("Softplus", "softplus", "``log(exp(features) + 1)``, computed stably.")


def leaky_relu(features, alpha=0.2, name=None):
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


register_op("Softmax", infer=_softmax_infer,
            kernel=lambda ctx, op, x: (_softmax_np(x, op.attrs.get("axis", -1)),),
            grad=_softmax_grad)
register_op("LogSoftmax", infer=_softmax_infer,
            kernel=lambda ctx, op, x: (_log_softmax_np(x, op.attrs.get("axis", -1)),),
            grad=_log_softmax_grad)


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
            None, None, "`axis` must be in the range [%d, %d) where %d is the number of "
            "dimensions in the input. Received: axis=%d" % (-r, r, r, axis))
    attrs = {} if axis == -1 or (r is not None and axis == r - 1) else {"axis": axis}
    return make(op_type, [x], attrs, name, op_type)


def softmax(logits, axis=None, name=None, dim=None):
    """``exp(logits) / reduce_sum(exp(logits), axis)``, computed stably.

    Note (flowrt): a non-last ``axis`` is an attribute of the one ``Softmax`` op
    instead of TF's transpose / Softmax / transpose.
    """
    return _softmax_like("Softmax", logits, _axis_arg(axis, dim, "softmax"), name)


def log_softmax(logits, axis=None, name=None, dim=None):
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
        raise TypeError("Input 'bias' of 'BiasAdd' Op has type %s that does not match type "
                        "%s of argument 'value'." % (b.dtype.name, x.dtype.name))
    check_dtype(x, NUMERIC, "value")
    if b.shape.ndims is not None and b.shape.ndims != 1:
        raise ValueError("Shape must be rank 1 but is rank %d for 'bias'" % b.shape.ndims)
    if x.shape.ndims is not None and x.shape.ndims < 2:
        raise ValueError("Shape must be at least rank 2 but is rank %d for 'value'"
                         % x.shape.ndims)
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
            None, op, "Must provide as many biases as the last dimension of the input "
            "tensor: [%s] vs. [%s]" % (",".join(map(str, b.shape)),
                                       ",".join(map(str, x.shape))))
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


register_op("BiasAdd", infer=_bias_add_infer, kernel=_bias_add_kernel,
            grad=lambda op, g: [g, make("BiasAddGrad", [g],
                                        {"data_format": op.attrs["data_format"]})])
register_op("BiasAddGrad", infer=_bias_add_grad_infer, kernel=_bias_add_grad_kernel,
            grad=_bias_add_grad_grad)


def bias_add(value, bias, data_format=None, name=None):
    """Adds a 1-D ``bias`` along the channel axis of ``value`` (the last for NHWC)."""
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


register_op("L2Loss", infer=_l2_infer, kernel=_l2_kernel,
            grad=lambda op, g: [op.inputs[0] * g])


def l2_loss(t, name=None):
    """``sum(t ** 2) / 2``."""
    return make("L2Loss", [convert_to_tensor(t)], None, name, "L2Loss")


# --------------------------------------------------------------------------------------
# Naming helper: TF ops that are named exactly like the name scope they create
# --------------------------------------------------------------------------------------


class _OwnScope:
    """``with _OwnScope(name, default) as s:`` opens the scope ``s.full + '/'`` without
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
        raise ValueError("Only call `%s` with named arguments (labels=..., logits=..., ...). "
                         "Received unnamed argument: %s" % (name, sentinel))
    if labels is None or logits is None:
        raise ValueError("Both `labels` and `logits` must be provided. Received: labels=%s "
                         "and logits=%s" % (labels, logits))


def _is_zeros(t) -> bool:
    return t is None or (isinstance(t, Tensor) and t.op.type == "ZerosLike")


# --------------------------------------------------------------------------------------
# Softmax cross entropy (dense and sparse labels)
# --------------------------------------------------------------------------------------


def _xent_infer(op):
    logits, labels = op.inputs
    check_dtype(logits, FLOATS, "features")
    if labels.dtype is not logits.dtype:
        raise TypeError("Input 'labels' of 'SoftmaxCrossEntropyWithLogits' Op has type %s "
                        "that does not match type %s of argument 'features'."
                        % (labels.dtype.name, logits.dtype.name))
    if not logits.shape.is_compatible_with(labels.shape):
        raise ValueError("logits and labels must be broadcastable: logits_size=%s "
                         "labels_size=%s" % (logits.shape, labels.shape))
    s = logits.shape.merge_with(labels.shape)
    if s.ndims is None:
        return [(logits.dtype, unknown_shape()), (logits.dtype, unknown_shape())]
    if s.ndims == 0:
        raise ValueError("logits and labels must have rank >= 1, got shape %s" % s)
    return [(logits.dtype, TensorShape(s.as_list()[:-1])), (logits.dtype, s)]


def _xent_kernel(ctx, op, logits, labels):
    if logits.shape != labels.shape:
        raise errors.InvalidArgumentError(
            None, op, "logits and labels must be broadcastable: logits_size=[%s] "
            "labels_size=[%s]" % (",".join(map(str, logits.shape)),
                                  ",".join(map(str, labels.shape))))
    sh = logits - logits.max(axis=-1, keepdims=True)
    e = np.exp(sh)
    s = e.sum(axis=-1, keepdims=True)
    # loss = sum(labels * (log(sum exp) - shifted)); backprop = softmax - labels
    loss = np.einsum("...i,...i->...", labels, np.log(s) - sh)
    e /= s
    e -= labels
    return (loss.astype(logits.dtype, copy=False), e)


def _xent_grad(op, grad_loss, grad_grad):
    backprop = op.outputs[1]
    logits = op.inputs[0]
    grad = _expand_last(grad_loss) * backprop
    if not _is_zeros(grad_grad):
        sm = make("Softmax", [logits])
        grad = grad + (grad_grad - math_ops.reduce_sum(grad_grad * sm, -1, keepdims=True)) * sm
    return [grad, _expand_last(grad_loss) * -make("LogSoftmax", [logits])]


register_op("SoftmaxCrossEntropyWithLogits", infer=_xent_infer, kernel=_xent_kernel,
            grad=_xent_grad)


def _move_axis_last(t: Tensor, axis: int):
    r = t.shape.ndims
    if r is None:
        raise ValueError("softmax_cross_entropy_with_logits with axis=%d needs a known rank"
                         % axis)
    perm = [i for i in range(r) if i != axis % r] + [axis % r]
    return array_ops.transpose(t, perm)


def softmax_cross_entropy_with_logits_v2(labels, logits, axis=None, name=None, dim=None):
    """Cross entropy between ``softmax(logits)`` and the distributions ``labels``.

    Gradients flow into both ``logits`` and ``labels``. Returns a tensor with the shape
    of ``logits`` minus the class axis.

    Note (flowrt): the loss is the ``SoftmaxCrossEntropyWithLogits`` op itself (named
    ``softmax_cross_entropy_with_logits``), without TF's reshapes around it.
    """
    axis = _axis_arg(axis, dim, "softmax_cross_entropy_with_logits_v2")
    with _OwnScope(name, "softmax_cross_entropy_with_logits") as s:
        logits = convert_to_tensor(logits, name="logits")
        labels = convert_to_tensor(labels, name="labels")
        if logits.dtype is _dt.float16:
            logits = math_ops.cast(logits, _dt.float32)
        labels = math_ops.cast(labels, logits.dtype)
        r = logits.shape.ndims
        if r is not None and axis not in (-1, r - 1):
            logits = _move_axis_last(logits, axis)
            labels = _move_axis_last(labels, axis)
    return make_op("SoftmaxCrossEntropyWithLogits", [logits, labels], None,
                   s.name).outputs[0]


def softmax_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, dim=-1,
                                      name=None, axis=None):
    """TF1's deprecated form: like the ``_v2`` function but no gradient flows into
    ``labels`` (they pass through ``stop_gradient``)."""
    _ensure_xent_args("softmax_cross_entropy_with_logits", _sentinel, labels, logits)
    axis = _axis_arg(axis, dim if dim != -1 else None, "softmax_cross_entropy_with_logits")
    with _OwnScope(name, "softmax_cross_entropy_with_logits_sg") as s:
        labels = array_ops.stop_gradient(labels, name="labels_stop_gradient")
    return softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits, axis=axis,
                                                name=s.name)


def _sparse_xent_infer(op):
    logits, labels = op.inputs
    check_dtype(logits, FLOATS, "features")
    check_dtype(labels, (_dt.int32, _dt.int64), "labels")
    ls = logits.shape
    if ls.ndims is None:
        return [(logits.dtype, labels.shape), (logits.dtype, unknown_shape())]
    out = TensorShape(ls.as_list()[:-1]).merge_with(labels.shape) \
        if labels.shape.ndims is not None else TensorShape(ls.as_list()[:-1])
    return [(logits.dtype, out), (logits.dtype, TensorShape(out.as_list() + [ls.as_list()[-1]]))]


def _sparse_xent_kernel(ctx, op, logits, labels):
    n = logits.shape[-1]
    flat = labels.reshape(-1)
    if flat.size and (flat.min() < 0 or flat.max() >= n):
        raise errors.InvalidArgumentError(
            None, op, "Received a label value of %d which is outside the valid range of "
            "[0, %d).  Label values: %s" % (flat[(flat < 0) | (flat >= n)][0], n,
                                            " ".join(map(str, flat.tolist()))))
    lg = logits.reshape(-1, n)
    sh = lg - lg.max(axis=1, keepdims=True)
    e = np.exp(sh)
    s = e.sum(axis=1, keepdims=True)
    rows = np.arange(lg.shape[0])
    loss = np.log(s[:, 0]) - sh[rows, flat]
    e /= s
    e[rows, flat] -= 1
    return (loss.astype(logits.dtype, copy=False).reshape(labels.shape),
            e.reshape(logits.shape))


def _sparse_xent_grad(op, grad_loss, grad_grad):
    grad = _expand_last(grad_loss) * op.outputs[1]
    if not _is_zeros(grad_grad):
        sm = make("Softmax", [op.inputs[0]])
        grad = grad + (grad_grad - math_ops.reduce_sum(grad_grad * sm, -1, keepdims=True)) * sm
    return [grad, None]


register_op("SparseSoftmaxCrossEntropyWithLogits", infer=_sparse_xent_infer,
            kernel=_sparse_xent_kernel, grad=_sparse_xent_grad)


def sparse_softmax_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None,
                                             name=None):
    """Cross entropy of ``softmax(logits)`` against integer class ``labels``.

    ``labels`` (int32/int64) has the shape of ``logits`` minus its last axis; a label
    outside ``[0, num_classes)`` raises ``InvalidArgumentError`` at run time.
    """
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
                % (lb, lb.ndims, ls, ls.ndims))
        if (lb.is_fully_defined() and ls.ndims is not None
                and TensorShape(ls.as_list()[:-1]).is_fully_defined()
                and lb.as_list() != ls.as_list()[:-1]):
            raise ValueError("`labels.shape` must equal `logits.shape` except for the last "
                             "dimension. Received: labels.shape=%s and logits.shape=%s"
                             % (lb, ls))
        return make_op("SparseSoftmaxCrossEntropyWithLogits", [logits, labels], None,
                       "SparseSoftmaxCrossEntropyWithLogits").outputs[0]


# --------------------------------------------------------------------------------------
# Sigmoid cross entropy (fused)
# --------------------------------------------------------------------------------------


def _sig_xent_infer(op):
    x, z = op.inputs
    check_dtype(x, FLOATS, "logits")
    if z.dtype is not x.dtype:
        raise TypeError("labels must have the dtype of logits (%s), got %s"
                        % (x.dtype.name, z.dtype.name))
    return [(x.dtype, x.shape.merge_with(z.shape))]


def _sig_xent_kernel(ctx, op, x, z):
    if _big(x) and x.dtype == z.dtype:
        return (ne.evaluate("where(x > 0, x, 0) - x * z + log1p(exp(-abs(x)))",
                            local_dict={"x": x, "z": z}),)
    # max(x, 0) - x * z + log1p(exp(-|x|)): never overflows.
    out = np.maximum(x, 0)
    out -= x * z
    out += np.log1p(np.exp(-np.abs(x)))
    return (out,)


def _sig_xent_grad_kernel(ctx, op, g, x, z):
    if _big(x) and x.dtype == z.dtype == g.dtype:
        d = {"x": x, "z": z, "g": g}
        dx = ne.evaluate("g * (where(x >= 0, 1 / (1 + exp(-x)), exp(x) / (1 + exp(x))) - z)",
                         local_dict=d)
        return dx, ne.evaluate("-g * x", local_dict=d)
    e = np.exp(-np.abs(x))
    sig = np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e)).astype(x.dtype, copy=False)
    sig -= z
    sig *= g
    return sig, -(g * x)


register_op("SigmoidCrossEntropyWithLogits", infer=_sig_xent_infer, kernel=_sig_xent_kernel,
            grad=lambda op, g: list(make_op("SigmoidCrossEntropyWithLogitsGrad",
                                            [g, op.inputs[0], op.inputs[1]]).outputs))
register_op("SigmoidCrossEntropyWithLogitsGrad",
            infer=lambda op: [(op.inputs[1].dtype, op.inputs[1].shape),
                              (op.inputs[2].dtype, op.inputs[2].shape)],
            kernel=_sig_xent_grad_kernel, grad=None)


def sigmoid_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, name=None):
    """Elementwise logistic loss ``max(x, 0) - x * z + log(1 + exp(-|x|))`` of logits
    ``x`` against labels ``z`` (same shape), stable for any ``x``.

    Note (flowrt): one fused op (type ``SigmoidCrossEntropyWithLogits``, named
    ``logistic_loss`` by default) instead of TF's ten elementwise ops; the values and
    gradients (into ``logits`` and ``labels``) are TF's.
    """
    _ensure_xent_args("sigmoid_cross_entropy_with_logits", _sentinel, labels, logits)
    with _OwnScope(name, "logistic_loss") as s:
        logits = convert_to_tensor(logits, name="logits")
        labels = convert_to_tensor(labels, name="labels") if isinstance(labels, Tensor) \
            or hasattr(labels, "_as_tensor") else convert_to_tensor(labels, logits.dtype,
                                                                    name="labels")
        if not labels.shape.is_compatible_with(logits.shape):
            raise ValueError("`logits` and `labels` must have the same shape, received "
                             "(%s vs %s)." % (logits.shape, labels.shape))
    return make("SigmoidCrossEntropyWithLogits", [logits, labels], None, s.name)


def weighted_cross_entropy_with_logits(labels=None, logits=None, pos_weight=None, name=None,
                                       targets=None):
    """Sigmoid cross entropy with the positive term weighted by ``pos_weight``."""
    if targets is not None:
        if labels is not None:
            raise ValueError("Cannot specify both 'labels' and 'targets'")
        labels = targets
    g = get_default_graph()
    with g.name_scope(name or "logistic_loss"):
        logits = convert_to_tensor(logits, name="logits")
        labels = convert_to_tensor(labels, logits.dtype, name="labels") \
            if not isinstance(labels, Tensor) else labels
        log_weight = 1 + (pos_weight - 1) * labels
        return math_ops.add((1 - labels) * logits,
                            log_weight * (math_ops.log1p(math_ops.exp(-math_ops.abs(logits)))
                                          + relu(-logits)))


# --------------------------------------------------------------------------------------
# Dropout
# --------------------------------------------------------------------------------------


def dropout(x, keep_prob=None, noise_shape=None, seed=None, name=None, rate=None):
    """Zeroes elements of ``x`` with probability ``rate`` (= ``1 - keep_prob``) and
    scales the others by ``1 / (1 - rate)``.

    Exactly one of ``keep_prob`` (TF1) and ``rate`` must be given. ``noise_shape``
    (broadcastable to ``x``'s shape) shares one keep/drop decision across dimensions.
    """
    if keep_prob is not None and rate is not None:
        raise ValueError("Cannot specify both 'rate' and 'keep_prob'")
    if keep_prob is not None:
        try:
            rate = 1.0 - keep_prob
        except TypeError:
            raise ValueError("`keep_prob` must be a floating point number or Tensor. "
                             "Received: keep_prob=%s" % (keep_prob,)) from None
    if rate is None:
        raise ValueError("`rate` must be provided. Received: rate=None")
    g = get_default_graph()
    with g.name_scope(name or "dropout"):
        is_number = isinstance(rate, numbers.Real)
        if is_number and not 0 <= rate < 1:
            raise ValueError("`rate` must be a scalar tensor or a float in the range [0, 1). "
                             "Received: rate=%s" % rate)
        x = convert_to_tensor(x, name="x")
        if not x.dtype.is_floating:
            raise ValueError("`x.dtype` must be a floating point tensor as `x` will be "
                             "scaled. Received: x_dtype=%s" % x.dtype.name)
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
            ret = math_ops.realdiv(x, math_ops.subtract(
                convert_to_tensor(1, x.dtype), rate))
        if noise_shape is None:
            noise_shape = x.shape.as_list() if x.shape.is_fully_defined() \
                else array_ops.shape(x)
        r = _random_ops().random_uniform(noise_shape, seed=seed, dtype=x.dtype)
        keep = math_ops.greater_equal(r, rate if isinstance(rate, Tensor)
                                      else convert_to_tensor(rate, x.dtype))
        out = math_ops.where(keep, ret, array_ops.zeros_like(ret))
        out.set_shape(x.shape)
        return out


def _random_ops():
    from . import random_ops

    return random_ops


# --------------------------------------------------------------------------------------
# Embeddings
# --------------------------------------------------------------------------------------


def _clip_by_norm(t, clip_norm, axes):
    l2sum = math_ops.reduce_sum(t * t, axes, keepdims=True)
    pred = math_ops.greater(l2sum, 0.0)
    safe = math_ops.where(pred, l2sum, array_ops.ones_like(l2sum))
    l2norm = math_ops.where(pred, math_ops.sqrt(safe), l2sum)
    clip = convert_to_tensor(clip_norm, t.dtype)
    return array_ops.identity(t * clip / math_ops.maximum(l2norm, clip))


def embedding_lookup(params, ids, partition_strategy="mod", name=None, validate_indices=True,
                     max_norm=None):
    """Rows ``params[ids]`` (a gather on axis 0).

    ``params`` is a tensor or variable, or a list of them sharded along axis 0 by
    ``partition_strategy`` ("mod": id ``i`` lives in shard ``i % n``; "div": in
    contiguous blocks). With ``max_norm`` each looked-up row is clipped to that L2 norm.
    The gradient with respect to ``params`` is an ``IndexedSlices`` (only the looked-up
    rows), which optimizers apply as row updates.
    """
    if params is None:
        raise ValueError("params must be specified")
    if isinstance(params, (list, tuple)):
        params = list(params)
        if not params:
            raise ValueError("Need at least one param")
    else:
        params = [params]
    if partition_strategy not in ("mod", "div"):
        raise ValueError("Unrecognized partition strategy: " + partition_strategy)
    with _OwnScope(name, "embedding_lookup") as s:
        ids = convert_to_tensor(ids, name="ids")
        if len(params) > 1:
            return _sharded_lookup(params, ids, partition_strategy, max_norm)
    result = array_ops.gather(params[0], ids, name=s.name)
    with get_default_graph().name_scope(s.full + "/"):
        if max_norm is not None:
            result = _clip_rows(result, ids, max_norm)
        return array_ops.identity(result)


def _clip_rows(rows, ids, max_norm):
    ir, pr = ids.shape.ndims, rows.shape.ndims
    if ir is None or pr is None:
        raise NotImplementedError("embedding_lookup(max_norm=...) needs known ranks")
    return _clip_by_norm(rows, max_norm, list(range(ir, pr)))


def _sharded_lookup(params, ids, strategy, max_norm):
    # Gathers from each shard and stitches the rows back into ids' order.
    n = len(params)
    flat = array_ops.reshape(ids, [-1])
    parts = make_op("ShardIds", [flat] + [array_ops.shape(p, out_type=flat.dtype)
                                          for p in params],
                    {"n": n, "strategy": strategy}).outputs
    shard_rows, positions = parts[:n], parts[n:]
    rows = [array_ops.gather(p, r) for p, r in zip(params, shard_rows, strict=True)]
    stitched = make("StitchRows", list(positions) + rows, {"n": n})
    if ids.shape.is_fully_defined() and params[0].shape.ndims is not None:
        tail = params[0].shape.as_list()[1:]
        out = array_ops.reshape(stitched, ids.shape.as_list() + [-1 if t is None else t
                                                                 for t in tail])
    else:
        out = array_ops.reshape(stitched, array_ops.concat(
            [array_ops.shape(ids), array_ops.shape(stitched)[1:]], 0))
    if max_norm is not None:
        out = _clip_rows(out, ids, max_norm)
    return array_ops.identity(out)


def _shard_ids_infer(op):
    n = op.attrs["n"]
    dt = op.inputs[0].dtype
    return [(dt, unknown_shape(1))] * n + [(_dt.int32, unknown_shape(1))] * n


def _shard_ids_kernel(ctx, op, ids, *shapes):
    n = op.attrs["n"]
    sizes = [int(s[0]) for s in shapes]
    if op.attrs["strategy"] == "mod":
        shard, row = ids % n, ids // n
    else:
        total = sum(sizes)
        per, extras = total // n, total % n
        big = extras * (per + 1)
        shard = np.where(ids < big, ids // max(per + 1, 1),
                         extras + (ids - big) // max(per, 1))
        row = np.where(ids < big, ids % max(per + 1, 1), (ids - big) % max(per, 1))
    rows, pos = [], []
    for i in range(n):
        m = shard == i
        rows.append(row[m].astype(ids.dtype))
        pos.append(np.flatnonzero(m).astype(np.int32))
    return tuple(rows) + tuple(pos)


def _stitch_infer(op):
    n = op.attrs["n"]
    d = op.inputs[n]
    tail = d.shape.as_list()[1:] if d.shape.ndims is not None else None
    return [(d.dtype, TensorShape([None] + tail) if tail is not None else unknown_shape())]


def _stitch_kernel(ctx, op, *args):
    n = op.attrs["n"]
    pos, rows = args[:n], args[n:]
    total = sum(len(p) for p in pos)
    out = np.empty((total,) + rows[0].shape[1:], dtype=rows[0].dtype)
    for p, r in zip(pos, rows, strict=True):
        out[p] = r
    return (out,)


def _stitch_grad(op, g):
    n = op.attrs["n"]
    return [None] * n + [array_ops.gather(g, p) for p in op.inputs[:n]]


register_op("ShardIds", infer=_shard_ids_infer, kernel=_shard_ids_kernel,
            grad=NOT_DIFFERENTIABLE)
register_op("StitchRows", infer=_stitch_infer, kernel=_stitch_kernel, grad=_stitch_grad)


# --------------------------------------------------------------------------------------
# Candidate samplers
# --------------------------------------------------------------------------------------


def _get_seed(op_seed):
    return _random_ops().get_seed(op_seed)


def _sampler_infer(op):
    tc = op.inputs[0]
    if tc.dtype is not _dt.int64:
        raise TypeError("Value passed to parameter 'true_classes' has DataType %s not in "
                        "list of allowed values: int64" % tc.dtype.name)
    nt = op.attrs["num_true"]
    if tc.shape.ndims not in (None, 2):
        raise ValueError("Shape must be rank 2 but is rank %d for 'true_classes'"
                         % tc.shape.ndims)
    if tc.shape.ndims == 2 and tc.shape.as_list()[1] not in (None, nt):
        raise ValueError("true_classes must have num_true=%d columns, got shape %s"
                         % (nt, tc.shape))
    batch = tc.shape.as_list()[0] if tc.shape.ndims == 2 else None
    s = op.attrs["num_sampled"]
    return [(_dt.int64, TensorShape([s])), (_dt.float32, TensorShape([batch, nt])),
            (_dt.float32, TensorShape([s]))]


def _log_uniform_probs(op, ids):
    return np.log((ids + 2.0) / (ids + 1.0)) / math.log1p(op.attrs["range_max"])


def _dist(op):
    """(sample(rng, n) -> int64 ids, prob(ids) -> float64) for the op's distribution."""
    kind, rmax = op.attrs["dist"], op.attrs["range_max"]
    if kind == "log_uniform":
        log_range = math.log1p(rmax)
        return ((lambda rng, n: (np.exp(rng.random(n) * log_range).astype(np.int64) - 1)
                 % rmax),
                lambda ids: _log_uniform_probs(op, ids))
    if kind == "uniform":
        return (lambda rng, n: rng.integers(0, rmax, n, dtype=np.int64),
                lambda ids: np.full(np.shape(ids), 1.0 / rmax))
    p = op.attrs["probs"]
    cdf = np.cumsum(p)
    cdf /= cdf[-1]
    return (lambda rng, n: np.minimum(np.searchsorted(cdf, rng.random(n), side="right"),
                                      rmax - 1).astype(np.int64),
            lambda ids: p[np.clip(ids, 0, rmax - 1)])


def _expected(p, batch, tries):
    if tries == batch:
        return p * batch
    return -np.expm1(tries * np.log1p(-p))


def _sampler_kernel(ctx, op, true_classes):
    n, unique, rmax = op.attrs["num_sampled"], op.attrs["unique"], op.attrs["range_max"]
    if unique and n > rmax:
        raise errors.InvalidArgumentError(
            None, op, "Sampler's range is too small: num_sampled=%d > range_max=%d"
            % (n, rmax))
    sample, prob = _dist(op)
    rng = ctx.resources.rng(op)
    with ctx.resources.get_or_create(("sampler_lock", op.name), _new_lock):
        if not unique:
            ids = sample(rng, n)
            tries = n
        else:
            out, seen, tries = [], set(), 0
            while len(out) < n:
                for v in sample(rng, max(2 * (n - len(out)), 16)).tolist():
                    tries += 1
                    if v not in seen:
                        seen.add(v)
                        out.append(v)
                        if len(out) == n:
                            break
            ids = np.array(out, dtype=np.int64)
    tc = np.asarray(true_classes)
    return (ids, _expected(prob(tc), n, tries).astype(np.float32),
            _expected(prob(ids), n, tries).astype(np.float32))


def _new_lock():
    import threading

    return threading.Lock()


for _t in ("LogUniformCandidateSampler", "UniformCandidateSampler",
           "FixedUnigramCandidateSampler"):
    register_op(_t, infer=_sampler_infer, kernel=_sampler_kernel, grad=NOT_DIFFERENTIABLE,
                stateful=True)


def _candidate_sampler(op_type, dist, true_classes, num_true, num_sampled, unique, range_max,
                       seed, name, probs=None):
    seed1, seed2 = _get_seed(seed)
    attrs = {"num_true": int(num_true), "num_sampled": int(num_sampled),
             "unique": bool(unique), "range_max": int(range_max), "seed": seed1 or 0,
             "seed2": seed2 or 0, "dist": dist, "sampler_type": op_type,
             "seed2_pair": None if seed1 is None and seed2 is None else (seed1, seed2)}
    if probs is not None:
        attrs["probs"] = probs
    tc = convert_to_tensor(true_classes, _dt.int64) if not isinstance(true_classes, Tensor) \
        else true_classes
    op = make_op(op_type, [tc], attrs, name, op_type)
    return _SamplerResult._make(op.outputs)


_SamplerResult = collections.namedtuple(
    "CandidateSamplerResult", ["sampled_candidates", "true_expected_count",
                               "sampled_expected_count"])


def log_uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                                  seed=None, name=None):
    """Samples ``num_sampled`` classes from the log-uniform (Zipfian) distribution
    ``P(k) = (log(k + 2) - log(k + 1)) / log(range_max + 1)``.

    Returns ``(sampled_candidates, true_expected_count, sampled_expected_count)``.
    Note (flowrt): the random stream differs from TF's (Philox); a seeded op is
    reproducible per session.
    """
    return _candidate_sampler("LogUniformCandidateSampler", "log_uniform", true_classes,
                              num_true, num_sampled, unique, range_max, seed, name)


def uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                              seed=None, name=None):
    """Samples classes uniformly from ``[0, range_max)``."""
    return _candidate_sampler("UniformCandidateSampler", "uniform", true_classes, num_true,
                              num_sampled, unique, range_max, seed, name)


def fixed_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                                    vocab_file="", distortion=1.0, num_reserved_ids=0,
                                    num_shards=1, shard=0, unigrams=(), seed=None, name=None):
    """Samples classes from the given ``unigrams`` counts raised to ``distortion``."""
    if vocab_file:
        with open(vocab_file) as f:
            unigrams = [float(line.rsplit(",", 1)[-1]) for line in f if line.strip()]
    w = np.zeros(int(range_max))
    vals = np.asarray(list(unigrams), dtype=np.float64) ** float(distortion)
    w[num_reserved_ids:num_reserved_ids + len(vals)] = vals[:max(0, range_max
                                                                 - num_reserved_ids)]
    if num_shards > 1:
        w[np.arange(range_max) % num_shards != shard] = 0
    if w.sum() <= 0:
        raise ValueError("unigrams must contain positive counts")
    return _candidate_sampler("FixedUnigramCandidateSampler", "fixed", true_classes,
                              num_true, num_sampled, unique, range_max, seed, name,
                              probs=w / w.sum())


def _hits_kernel(ctx, op, true_classes, sampled):
    pos = {}
    for j, v in enumerate(sampled.tolist()):
        pos.setdefault(v, []).append(j)
    idx, ids = [], []
    for i, row in enumerate(true_classes.tolist()):
        for v in row:
            for j in pos.get(v, ()):
                idx.append(i)
                ids.append(j)
    return (np.array(idx, np.int32), np.array(ids, np.int64),
            np.full(len(idx), -np.finfo(np.float32).max, np.float32))


register_op("ComputeAccidentalHits",
            infer=lambda op: [(_dt.int32, TensorShape([None])), (_dt.int64, TensorShape([None])),
                              (_dt.float32, TensorShape([None]))],
            kernel=_hits_kernel, grad=NOT_DIFFERENTIABLE)


def compute_accidental_hits(true_classes, sampled_candidates, num_true, seed=None, name=None):
    """Finds sampled candidates equal to a true class: ``(indices, ids, weights)`` with
    the row in ``true_classes``, the position in ``sampled_candidates`` and -FLT_MAX."""
    tc = convert_to_tensor(true_classes, _dt.int64) if not isinstance(true_classes, Tensor) \
        else true_classes
    sc = convert_to_tensor(sampled_candidates, _dt.int64) \
        if not isinstance(sampled_candidates, Tensor) else sampled_candidates
    op = make_op("ComputeAccidentalHits", [tc, sc], {"num_true": int(num_true)}, name)
    return tuple(op.outputs)


# --------------------------------------------------------------------------------------
# Sampled losses: nce_loss and sampled_softmax_loss
# --------------------------------------------------------------------------------------


def _sampled_logits_infer(op):
    x, w = op.inputs[0], op.inputs[1]
    nt, ns = op.attrs["num_true"], op.attrs["num_sampled"]
    if w.dtype is not x.dtype:
        raise TypeError("weights (%s) and inputs (%s) must have the same dtype"
                        % (w.dtype.name, x.dtype.name))
    batch = x.shape.as_list()[0] if x.shape.ndims == 2 else None
    s = TensorShape([batch, nt + ns])
    return [(x.dtype, s), (x.dtype, s)]


def _sampled_logits_kernel(ctx, op, x, all_w, all_b, true_exp, sampled_exp, *hits):
    nt = op.attrs["num_true"]
    b = x.shape[0]
    bt = b * nt
    sampled_w = all_w[bt:]
    out = np.empty((b, nt + sampled_w.shape[0]), dtype=x.dtype)
    tw = all_w[:bt].reshape(b, nt, -1)
    np.einsum("bd,btd->bt", x, tw, out=out[:, :nt])
    out[:, :nt] += all_b[:bt].reshape(b, nt)
    np.matmul(x, sampled_w.T, out=out[:, nt:])
    out[:, nt:] += all_b[bt:]
    if op.attrs["remove_accidental_hits"]:
        labels, sampled = hits
        hit = (labels.reshape(b, nt, 1) == sampled.reshape(1, 1, -1)).sum(axis=1)
        out[:, nt:] += hit * x.dtype.type(-np.finfo(np.float32).max)
    if op.attrs["subtract_log_q"]:
        out[:, :nt] -= np.log(true_exp).astype(x.dtype, copy=False)
        out[:, nt:] -= np.log(sampled_exp).astype(x.dtype, copy=False)
    labels_out = np.zeros_like(out)
    labels_out[:, :nt] = x.dtype.type(1.0 / nt)
    return out, labels_out


def _sampled_logits_grad_kernel(ctx, op, g, x, all_w):
    nt = op.attrs["num_true"]
    b = x.shape[0]
    bt = b * nt
    tw, sw = all_w[:bt].reshape(b, nt, -1), all_w[bt:]
    gt, gs = g[:, :nt], g[:, nt:]
    dx = np.einsum("bt,btd->bd", gt, tw)
    dx += gs @ sw
    dw = np.empty_like(all_w)
    np.multiply(gt[:, :, None], x[:, None, :], out=dw[:bt].reshape(b, nt, -1))
    np.matmul(gs.T, x, out=dw[bt:])
    db = np.concatenate([gt.reshape(-1), gs.sum(axis=0)])
    return dx, dw, db


def _sampled_logits_grad(op, g, _g_labels):
    n_in = len(op.inputs)
    gr = make_op("SampledLogitsGrad", [g, op.inputs[0], op.inputs[1]],
                 {"num_true": op.attrs["num_true"]}).outputs
    return [gr[0], gr[1], gr[2]] + [None] * (n_in - 3)


register_op("SampledLogits", infer=_sampled_logits_infer, kernel=_sampled_logits_kernel,
            grad=_sampled_logits_grad)
register_op("SampledLogitsGrad",
            infer=lambda op: [(op.inputs[1].dtype, op.inputs[1].shape),
                              (op.inputs[2].dtype, op.inputs[2].shape),
                              (op.inputs[2].dtype, TensorShape([op.inputs[2].shape[0]])
                               if op.inputs[2].shape.ndims else unknown_shape(1))],
            kernel=_sampled_logits_grad_kernel, grad=None)


def _compute_sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes,
                            num_true=1, sampled_values=None, subtract_log_q=True,
                            remove_accidental_hits=False, partition_strategy="mod",
                            name=None, seed=None):
    """(logits, labels) over the true classes and the sampled ones (TF's helper).

    Note (flowrt): the dot products, biases, accidental-hit masking and ``log Q``
    correction are one fused ``SampledLogits`` op (gradient ``SampledLogitsGrad``).
    """
    if not isinstance(weights, (list, tuple)):
        weights = [weights]
    g = get_default_graph()
    with g.name_scope(name or "compute_sampled_logits"):
        labels = convert_to_tensor(labels)
        if labels.dtype is not _dt.int64:
            labels = math_ops.cast(labels, _dt.int64)
        inputs = convert_to_tensor(inputs)
        labels_flat = array_ops.reshape(labels, [-1])
        if sampled_values is None:
            sampled_values = log_uniform_candidate_sampler(
                true_classes=labels, num_true=num_true, num_sampled=num_sampled, unique=True,
                range_max=num_classes, seed=seed)
        sampled, true_exp, sampled_exp = (array_ops.stop_gradient(s) for s in sampled_values)
        if sampled.dtype is not _dt.int64:
            sampled = math_ops.cast(sampled, _dt.int64)
        all_ids = array_ops.concat([labels_flat, sampled], 0)
        all_w = embedding_lookup(weights, all_ids, partition_strategy=partition_strategy)
        if all_w.dtype is not inputs.dtype:
            all_w = math_ops.cast(all_w, inputs.dtype)
        all_b = embedding_lookup(biases, all_ids, partition_strategy=partition_strategy)
        if all_b.dtype is not inputs.dtype:
            all_b = math_ops.cast(all_b, inputs.dtype)
        ins = [inputs, all_w, all_b, true_exp, sampled_exp]
        if remove_accidental_hits:
            ins += [labels if labels.shape.ndims == 2 else
                    array_ops.reshape(labels, [-1, num_true]), sampled]
        out = make_op("SampledLogits", ins,
                      {"num_true": int(num_true), "num_sampled": int(num_sampled),
                       "subtract_log_q": bool(subtract_log_q),
                       "remove_accidental_hits": bool(remove_accidental_hits)},
                      "SampledLogits").outputs
        return out[0], out[1]


def nce_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1,
             sampled_values=None, remove_accidental_hits=False, partition_strategy="mod",
             name="nce_loss"):
    """Noise-contrastive estimation loss per example (shape ``[batch_size]``).

    Args:
      weights: ``[num_classes, dim]`` tensor or variable (or a list of shards).
      biases: ``[num_classes]``.
      labels: int ``[batch_size, num_true]`` target classes.
      inputs: ``[batch_size, dim]`` activations.
      num_sampled: negative classes sampled per batch (log-uniform, unique, by default).
      num_classes: number of possible classes.
      sampled_values: a ``(sampled, true_expected, sampled_expected)`` triple from a
        ``*_candidate_sampler`` to use instead of sampling here.

    Gradients into ``weights`` and ``biases`` are ``IndexedSlices`` over the true and
    sampled rows only.
    """
    logits, labels = _compute_sampled_logits(
        weights, biases, labels, inputs, num_sampled, num_classes, num_true=num_true,
        sampled_values=sampled_values, subtract_log_q=True,
        remove_accidental_hits=remove_accidental_hits, partition_strategy=partition_strategy,
        name=name)
    losses = sigmoid_cross_entropy_with_logits(labels=labels, logits=logits,
                                               name="sampled_losses")
    return math_ops.reduce_sum(losses, 1)


def sampled_softmax_loss(weights, biases, labels, inputs, num_sampled, num_classes,
                         num_true=1, sampled_values=None, remove_accidental_hits=True,
                         partition_strategy="mod", name="sampled_softmax_loss", seed=None):
    """Softmax cross entropy over the true classes and ``num_sampled`` sampled classes
    (a training-time approximation of the full softmax); shape ``[batch_size]``."""
    logits, labels = _compute_sampled_logits(
        weights, biases, labels, inputs, num_sampled, num_classes, num_true=num_true,
        sampled_values=sampled_values, subtract_log_q=True,
        remove_accidental_hits=remove_accidental_hits, partition_strategy=partition_strategy,
        name=name, seed=seed)
    labels = array_ops.stop_gradient(labels, name="labels_stop_gradient")
    return softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)


# --------------------------------------------------------------------------------------
# Small composites
# --------------------------------------------------------------------------------------


def moments(x, axes, shift=None, name=None, keep_dims=None, keepdims=None):
    """Mean and variance of ``x`` over ``axes``."""
    kd = bool(keepdims if keepdims is not None else keep_dims)
    g = get_default_graph()
    with g.name_scope(name or "moments"):
        x = convert_to_tensor(x)
        y = math_ops.cast(x, _dt.float32) if x.dtype is _dt.float16 else x
        mean = math_ops.reduce_mean(y, axes, keepdims=True, name="mean")
        variance = math_ops.reduce_mean(
            math_ops.squared_difference(y, array_ops.stop_gradient(mean)), axes,
            keepdims=True, name="variance")
        if not kd:
            mean = array_ops.squeeze(mean, axes)
            variance = array_ops.squeeze(variance, axes)
        if x.dtype is _dt.float16:
            return math_ops.cast(mean, _dt.float16), math_ops.cast(variance, _dt.float16)
        return mean, variance


def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """``x / sqrt(max(sum(x ** 2, axis), epsilon))``."""
    if dim is not None:
        axis = dim
    g = get_default_graph()
    with g.name_scope(name or "l2_normalize"):
        x = convert_to_tensor(x, name="x")
        sq = math_ops.reduce_sum(math_ops.square(x), axis, keepdims=True)
        inv = math_ops.rsqrt(math_ops.maximum(sq, convert_to_tensor(epsilon, x.dtype)))
        return math_ops.multiply(x, inv)


def xw_plus_b(x, weights, biases, name=None):
    """``matmul(x, weights) + biases`` (a ``BiasAdd``)."""
    with _OwnScope(name, "xw_plus_b") as s:
        mm = math_ops.matmul(x, weights)
    return bias_add(mm, biases, name=s.name)


def relu_layer(x, weights, biases, name=None):
    """``relu(matmul(x, weights) + biases)``."""
    with _OwnScope(name, "relu_layer") as s:
        h = bias_add(math_ops.matmul(x, weights), biases)
    return relu(h, name=s.name)


def zero_fraction(value, name=None):
    """The fraction of zeros in ``value`` (a float32 scalar)."""
    g = get_default_graph()
    with g.name_scope(name or "zero_fraction"):
        v = convert_to_tensor(value, name="value")
        z = math_ops.cast(math_ops.equal(v, array_ops.zeros_like(v)), _dt.float32)
        return math_ops.reduce_mean(z)
