"""TF's fused gradient ops of the elementwise unary family: ``SigmoidGrad``,
``TanhGrad``, ``SqrtGrad``, ``RsqrtGrad`` and ``ReciprocalGrad``.

Each takes ``(y, dy)``, the forward op's output and the incoming gradient, as TF's ops
of the same names do, so a gradient subgraph reads the forward output once (TensorBoard
then draws the edges TF draws). Each has TF's second-order rule (math_grad.py's
``_SigmoidGradGrad`` and friends). The forward ops' gradients (``Sigmoid`` ...) live with
the forward ops in math_ops.py and build these ops by type.
"""

from __future__ import annotations

import numpy as np

from .._core.registry import register_op
from .common import COMPLEX, FLOATS, check_dtype, make

_FC = FLOATS + COMPLEX


def _infer(op):
    y, dy = op.inputs
    check_dtype(y, _FC, "y")
    if dy.dtype is not y.dtype:
        raise TypeError(
            "Input 'dy' of '%s' Op has type %s that does not match type %s of argument 'y'."
            % (op.type, dy.dtype.name, y.dtype.name)
        )
    if not y.shape.is_compatible_with(dy.shape):
        raise ValueError(
            "Shapes %s and %s of 'y' and 'dy' of '%s' Op are incompatible"
            % (y.shape, dy.shape, op.name)
        )
    return [(y.dtype, y.shape.merge_with(dy.shape))]


def _conj(a):
    return np.conj(a) if a.dtype.kind == "c" else a


# Block forms for fusion: each reads its inputs fully before writing ``out`` (which may
# share memory with an input).
def _sigmoid_grad_out(y, dy, out):
    return np.multiply(dy * y, out.dtype.type(1) - y, out=out)


def _tanh_grad_out(y, dy, out):
    return np.multiply(dy, out.dtype.type(1) - y * y, out=out)


def _rsqrt_grad_out(y, dy, out):
    c = _conj(y)
    return np.multiply(dy * out.dtype.type(-0.5), c * c * c, out=out)


def _reciprocal_grad_out(y, dy, out):
    c = _conj(y)
    return np.multiply(-dy, c * c, out=out)


def _kernel(out_fn):
    def kernel(ctx, op, y, dy):
        y, dy = np.broadcast_arrays(np.asarray(y), np.asarray(dy))
        return (out_fn(y, dy, np.empty(y.shape, y.dtype)),)

    return kernel


def _sqrt_grad_kernel(ctx, op, y, dy):
    # TF's scalar_sqrt_gradient_op: 0.5 * dy / conj(y), and 0 where dy is 0 (so a zero
    # gradient through sqrt(0) stays 0 rather than nan).
    y, dy = np.broadcast_arrays(np.asarray(y), np.asarray(dy))
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.multiply(dy, y.dtype.type(0.5)) / _conj(y)
    return (np.where(dy == 0, y.dtype.type(0), r).astype(y.dtype, copy=False),)


def _cj(t):
    from .math_ops import conj

    return conj(t) if t.dtype.is_complex else t


def _sigmoid_grad_grad(op, g):
    a, b = op.inputs
    gb = g * b
    return [gb - 2.0 * gb * a, make("SigmoidGrad", [a, g])]


def _tanh_grad_grad(op, g):
    a, b = _cj(op.inputs[0]), _cj(op.inputs[1])
    return [g * -2.0 * b * a, make("TanhGrad", [a, g])]


def _sqrt_grad_grad(op, g):
    ga = g / op.inputs[0]
    return [-_cj(ga) * op.outputs[0], 0.5 * ga]


def _rsqrt_grad_grad(op, g):
    a, b = op.inputs
    ca, cg = _cj(a), _cj(g)
    return [-1.5 * cg * b * (ca * ca), make("RsqrtGrad", [ca, g])]


def _reciprocal_grad_grad(op, g):
    a, b = op.inputs
    ca, cg = _cj(a), _cj(g)
    return [cg * -2.0 * b * ca, make("ReciprocalGrad", [ca, g])]


register_op(
    "SigmoidGrad",
    infer=_infer,
    kernel=_kernel(_sigmoid_grad_out),
    ufunc=_sigmoid_grad_out,
    grad=_sigmoid_grad_grad,
)
register_op(
    "TanhGrad",
    infer=_infer,
    kernel=_kernel(_tanh_grad_out),
    ufunc=_tanh_grad_out,
    grad=_tanh_grad_grad,
)
register_op("SqrtGrad", infer=_infer, kernel=_sqrt_grad_kernel, grad=_sqrt_grad_grad)
register_op(
    "RsqrtGrad",
    infer=_infer,
    kernel=_kernel(_rsqrt_grad_out),
    ufunc=_rsqrt_grad_out,
    grad=_rsqrt_grad_grad,
)
register_op(
    "ReciprocalGrad",
    infer=_infer,
    kernel=_kernel(_reciprocal_grad_out),
    ufunc=_reciprocal_grad_out,
    grad=_reciprocal_grad_grad,
)
