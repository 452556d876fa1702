"""TF1's special functions: ``erf``, ``erfc``, ``lgamma``, ``digamma``, ``erfinv``,
``erfcinv`` (composed, as TF), ``ndtri``, ``bessel_i0e``/``bessel_i1e`` (and
``bessel_i0``/``bessel_i1`` composed from them, as TF), ``igamma``/``igammac``,
``betainc``, ``polygamma``, ``zeta`` and ``lbeta`` (composed, as TF).

Kernels are ``scipy.special``'s (the ``flowrt[special]`` extra); each op type is one
``register_op`` row whose gradient is TF's (``math_grad.py``). Binary ops broadcast like
every binary elementwise op (the gradient is written in the broadcast shape and summed
back per input).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import dtypes as _dt
from .._core import extras
from .._core.elementwise import unary_kernel
from .._core.graph import Tensor
from .._core.registry import register_op
from . import array_ops, math_ops
from .common import FLOATS, check_dtype, make, op_scope, to_tensor
from .math_ops import binary_grad, binary_infer, op_input, op_output, unary_infer

if TYPE_CHECKING:
    from .._core.typing import TensorLike

__all__ = [
    "erf",
    "erfc",
    "lgamma",
    "digamma",
    "erfinv",
    "erfcinv",
    "ndtri",
    "bessel_i0e",
    "bessel_i1e",
    "bessel_i0",
    "bessel_i1",
    "igamma",
    "igammac",
    "betainc",
    "polygamma",
    "zeta",
    "lbeta",
]

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def _sp():
    """``scipy.special``, imported when a special function first runs (the
    ``flowrt[special]`` extra: most graphs never need it)."""
    return extras.require("scipy.special", "special", "A special function (fr.math.erf, ...)")


def _typed(fn):
    """A kernel function applying ``fn`` -- a ``scipy.special`` function's name or a
    function -- computing in float32 when the input is float16 (scipy has no half
    kernels), its result in the input's dtype."""

    def k(*xs):
        f = getattr(_sp(), fn) if isinstance(fn, str) else fn
        dt = xs[0].dtype
        if dt == np.float16:
            xs = tuple(x.astype(np.float32) for x in xs)
        return np.asarray(f(*xs)).astype(dt, copy=False)

    return k


def _bessel_i1e_grad(op, g):
    # TF: dy/dx = i0e(x) - y * (sign(x) + 1/x), and 0.5 at x == 0.
    x, y = op_input(op), op_output(op)
    eps = np.finfo(x.dtype.np).eps
    zeros = array_ops.zeros_like(x)
    not_tiny = math_ops.abs(x) > eps
    safe_x = math_ops.where(not_tiny, x, eps + zeros)
    dy_dx = bessel_i0e(safe_x) - y * (math_ops.sign(safe_x) + math_ops.reciprocal(safe_x))
    return [g * math_ops.where(not_tiny, dy_dx, 0.5 + zeros)]


# type, scipy kernel, gradient(op, g) -> [dx] (TF's math_grad.py)
_UNARY: dict[str, tuple[Any, Any]] = {
    "Erf": (
        "erf",
        lambda op, g: [g * _TWO_OVER_SQRT_PI * math_ops.exp(-math_ops.square(op_input(op)))],
    ),
    "Erfc": (
        "erfc",
        lambda op, g: [g * -_TWO_OVER_SQRT_PI * math_ops.exp(-math_ops.square(op_input(op)))],
    ),
    "Lgamma": ("gammaln", lambda op, g: [g * make("Digamma", [op_input(op)])]),
    "Digamma": (
        "digamma",
        lambda op, g: [g * make("Polygamma", [array_ops.ones_like(op_input(op)), op_input(op)])],
    ),
    "Erfinv": (
        "erfinv",
        lambda op, g: [g * (math.sqrt(math.pi) / 2) * math_ops.exp(math_ops.square(op_output(op)))],
    ),
    "Ndtri": (
        "ndtri",
        lambda op, g: [
            g * math.sqrt(2 * math.pi) * math_ops.exp(math_ops.square(op_output(op)) / 2.0)
        ],
    ),
    "BesselI0e": (
        "i0e",
        lambda op, g: [
            g * (make("BesselI1e", [op_input(op)]) - math_ops.sign(op_input(op)) * op_output(op))
        ],
    ),
    "BesselI1e": ("i1e", _bessel_i1e_grad),
}

for _t, (_fn, _grad) in _UNARY.items():
    register_op(_t, infer=unary_infer(FLOATS), kernel=unary_kernel(_typed(_fn)), grad=_grad)


_UNARY_DOC = """%s, elementwise (op type %s).

Args:
  x: a float tensor.
  name: the op's name.
"""


def _unary_fn(op_type: str, pub: str, doc: str):
    def fn(x: TensorLike, name: str | None = None) -> Tensor:
        return make(op_type, [x], None, name, op_type)

    fn.__name__ = fn.__qualname__ = pub
    fn.__doc__ = _UNARY_DOC % (doc, op_type)
    return fn


erf = _unary_fn("Erf", "erf", "The error function")
erfc = _unary_fn("Erfc", "erfc", "The complementary error function ``1 - erf(x)``")
lgamma = _unary_fn("Lgamma", "lgamma", "The log of the absolute value of ``Gamma(x)``")
digamma = _unary_fn("Digamma", "digamma", "The derivative of ``lgamma``, Psi")
erfinv = _unary_fn("Erfinv", "erfinv", "The inverse of ``erf``")
ndtri = _unary_fn("Ndtri", "ndtri", "The inverse of the standard normal CDF")


def erfcinv(x: TensorLike, name: str | None = None) -> Tensor:
    """The inverse of ``erfc`` on (0, 2), as TF composes it: ``-ndtri(x / 2) / sqrt(2)``.

    Args:
      x: a float tensor.
      name: the name scope (default ``erfcinv``).
    """
    with op_scope([x], name, "erfcinv"):
        x = to_tensor(x, name="start")
        return -ndtri(0.5 * x) * np.sqrt(0.5)


bessel_i0e = _unary_fn("BesselI0e", "bessel_i0e", "``exp(-|x|) * I0(x)``, scaled Bessel I0")
bessel_i1e = _unary_fn("BesselI1e", "bessel_i1e", "``exp(-|x|) * I1(x)``, scaled Bessel I1")


def bessel_i0(x: TensorLike, name: str | None = None) -> Tensor:
    """The modified Bessel function of order 0, ``exp(|x|) * bessel_i0e(x)`` (as TF).

    Args:
      x: a float tensor.
      name: a name scope for the ops (default ``bessel_i0``).
    """
    with op_scope([x], name, "bessel_i0"):
        x = to_tensor(x)
        return math_ops.exp(math_ops.abs(x)) * bessel_i0e(x)


def bessel_i1(x: TensorLike, name: str | None = None) -> Tensor:
    """The modified Bessel function of order 1, ``exp(|x|) * bessel_i1e(x)`` (as TF).

    Args:
      x: a float tensor.
      name: a name scope for the ops (default ``bessel_i1``).
    """
    with op_scope([x], name, "bessel_i1"):
        x = to_tensor(x)
        return math_ops.exp(math_ops.abs(x)) * bessel_i1e(x)


# --------------------------------------------------------------------------------------
# Binary and ternary: Igamma, Igammac, IgammaGradA, Polygamma, Zeta, Betainc
# --------------------------------------------------------------------------------------


def _igamma_grad_a(a, x):
    """d/da of the regularized lower incomplete gamma ``P(a, x)``.

    From the series ``P(a, x) = sum_n exp((a + n) log x - x - lgamma(a + n + 1))``,
    differentiated term by term: each term times ``log x - digamma(a + n + 1)``. The
    series converges for every ``x >= 0``; it runs until the terms stop mattering.
    """
    a, x = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
    out = np.zeros(a.shape)
    ok = (a > 0) & (x > 0)
    out[~ok] = np.nan
    out[(a > 0) & (x == 0)] = 0.0
    if not ok.any():
        return out
    av, xv = a[ok], x[ok]
    logx = np.log(xv)
    total = np.zeros_like(av)
    n_max = int(np.max(xv) + 12 * np.sqrt(np.max(xv)) + 60)
    for n in range(n_max):
        an = av + n
        term = np.exp(an * logx - xv - _sp().gammaln(an + 1)) * (logx - _sp().digamma(an + 1))
        total += term
        if n > np.max(xv) and np.all(np.abs(term) <= 1e-17 * np.maximum(np.abs(total), 1e-300)):
            break
    out[ok] = total
    return out


def _igamma_x_grad(op):
    a, x = op.inputs
    # d/dx P(a, x) = exp(-x + (a - 1) log x - lgamma(a))
    return math_ops.exp(-x + (a - 1) * math_ops.log(x) - lgamma(a))


def _igamma_grad(op, g):
    a, x = op.inputs
    return [g * make("IgammaGradA", [a, x]), g * _igamma_x_grad(op)]


def _igammac_grad(op, g):
    a, x = op.inputs
    return [-g * make("IgammaGradA", [a, x]), -g * _igamma_x_grad(op)]


def _polygamma_grad(op, g):
    n, x = op.inputs
    return [None, g * polygamma(n + 1, x)]


def _zeta_grad(op, g):
    x, q = op.inputs
    return [None, g * -x * zeta(x + 1, q)]


_BINARY: dict[str, tuple[Any, Any]] = {
    "Igamma": ("gammainc", binary_grad(_igamma_grad)),
    "Igammac": ("gammaincc", binary_grad(_igammac_grad)),
    "IgammaGradA": (_igamma_grad_a, None),
    "Polygamma": ("polygamma", binary_grad(_polygamma_grad)),
    "Zeta": ("zeta", binary_grad(_zeta_grad)),
}

for _t, (_fn, _grad) in _BINARY.items():
    register_op(
        _t,
        infer=binary_infer(FLOATS),
        kernel=lambda ctx, op, a, b, _f=_typed(_fn): (_f(a, b),),
        grad=_grad,
    )


def _binary(op_type, a, b, name):
    return math_ops.scoped_op(
        op_type, name, op_type, lambda: math_ops.binary_inputs(a, b, op_type), operands=(a, b)
    )


def igamma(a: TensorLike, x: TensorLike, name: str | None = None) -> Tensor:
    """The regularized lower incomplete gamma function ``P(a, x)`` (op type Igamma);
    ``a`` and ``x`` broadcast.

    Args:
      a: a float tensor of positive values.
      x: a float tensor of ``a``'s dtype, non-negative.
      name: the op's name.
    """
    return _binary("Igamma", a, x, name)


def igammac(a: TensorLike, x: TensorLike, name: str | None = None) -> Tensor:
    """The regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)`` (op
    type Igammac); ``a`` and ``x`` broadcast.

    Args:
      a: a float tensor of positive values.
      x: a float tensor of ``a``'s dtype, non-negative.
      name: the op's name.
    """
    return _binary("Igammac", a, x, name)


def polygamma(a: TensorLike, x: TensorLike, name: str | None = None) -> Tensor:
    """The ``a``-th derivative of ``digamma`` at ``x`` (op type Polygamma); ``a`` and
    ``x`` broadcast.

    Args:
      a: a float tensor of non-negative integer values.
      x: a float tensor of ``a``'s dtype.
      name: the op's name.
    """
    return _binary("Polygamma", a, x, name)


def zeta(x: TensorLike, q: TensorLike, name: str | None = None) -> Tensor:
    """The Hurwitz zeta function ``sum_n (n + q) ** -x`` (op type Zeta); ``x`` and
    ``q`` broadcast.

    Args:
      x: a float tensor, greater than 1.
      q: a float tensor of ``x``'s dtype.
      name: the op's name.
    """
    return _binary("Zeta", x, q, name)


def _betainc_infer(op):
    a, b, x = op.inputs
    for t, arg in ((a, "a"), (b, "b"), (x, "x")):
        check_dtype(t, (_dt.float32, _dt.float64), arg)
        if t.dtype is not a.dtype:
            raise TypeError(
                "Input '%s' of 'Betainc' Op has type %s that does not match type %s of "
                "argument 'a'." % (arg, t.dtype.name, a.dtype.name)
            )
    shape = x.shape
    for t in (a, b):  # TF: each of a, b, x is a scalar or of the one common shape
        if t.shape.ndims == 0:
            continue
        if shape.ndims == 0:
            shape = t.shape
        elif not shape.is_compatible_with(t.shape):
            raise ValueError(
                "Shapes of a, b and x are inconsistent: %s vs. %s vs. %s"
                % (a.shape, b.shape, x.shape)
            )
        else:
            shape = shape.merge_with(t.shape)
    return [(a.dtype, shape)]


def _betainc_kernel(ctx, op, a, b, x):
    from .. import errors

    shapes = {v.shape for v in (a, b, x) if v.ndim}
    if len(shapes) > 1:
        raise errors.InvalidArgumentError(
            None,
            op,
            "Shapes of a, b and x are inconsistent: %s vs. %s vs. %s"
            % (list(a.shape), list(b.shape), list(x.shape)),
        )
    return (np.asarray(_sp().betainc(a, b, x)).astype(a.dtype, copy=False),)


def _betainc_grad(op, g):
    # TF: the gradient only with respect to x.
    a, b, x = op.inputs
    log_beta = lgamma(a) + lgamma(b) - lgamma(a + b)
    partial_x = math_ops.exp(math_ops.log1p(-x) * (b - 1) + math_ops.log(x) * (a - 1) - log_beta)
    gx = g * partial_x
    if x.shape.ndims == 0 and op.outputs[0].shape.ndims != 0:
        gx = math_ops.reduce_sum(gx)
    return [None, None, gx]


register_op("Betainc", infer=_betainc_infer, kernel=_betainc_kernel, grad=_betainc_grad)


def betainc(a: TensorLike, b: TensorLike, x: TensorLike, name: str | None = None) -> Tensor:
    """The regularized incomplete beta function ``I_x(a, b)`` (op type Betainc).

    Args:
      a: a float32/float64 tensor.
      b: a tensor of ``a``'s dtype.
      x: a tensor of ``a``'s dtype; each of ``a``, ``b``, ``x`` is a scalar or all the
        non-scalars have one shape (TF does not broadcast them further).
      name: the op's name.

    Note (flowrt):
      As TF, only the gradient with respect to ``x`` is defined (None for a and b).
    """
    with op_scope([a, b, x], None, None):
        ta = to_tensor(a)
        return make("Betainc", [ta, to_tensor(b, ta.dtype), to_tensor(x, ta.dtype)], None, name)


def lbeta(x: TensorLike, name: str | None = None) -> Tensor:
    """The log of the multivariate beta function over the last axis of ``x``:
    ``sum(lgamma(x), -1) - lgamma(sum(x, -1))`` (as TF; an empty last axis gives 0).

    Args:
      x: a float tensor of rank >= 1.
      name: a name scope for the ops (default ``lbeta``).
    """
    with op_scope([x], name, "lbeta"):
        x = to_tensor(x)
        log_prod_gamma_x = math_ops.reduce_sum(lgamma(x), axis=[-1])
        sum_x = math_ops.reduce_sum(x, axis=[-1])
        return log_prod_gamma_x - lgamma(sum_x)
