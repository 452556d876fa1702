"""Local response normalization (``fr.nn.lrn``, op ``LRN``) and its gradient op
``LRNGrad``, as in TF (the CIFAR-10 tutorial's normalization).

``sqr_sum[..., d] = sum(input[..., d - r : d + r + 1] ** 2)`` over the last axis and
``output = input / (bias + alpha * sqr_sum) ** beta``. Both kernels are one compiled
pass per pixel (``window_kernels.lrn``/``lrn_grad``): window sums are running sums in
float64, so each costs O(depth) whatever the radius; the pixels are split among the
kernel threads (``blas.run_blocks``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes as _dt
from .._core import blas
from .._core.graph import Tensor, convert_to_tensor
from .._core.registry import register_op
from . import window_kernels
from .common import check_dtype, make, shape_str

if TYPE_CHECKING:
    from .._core.typing import TensorLike

__all__ = ["lrn", "local_response_normalization"]

_LRN_DTYPES = (_dt.float16, _dt.float32, _dt.float64)


def _run(kernel, op, arrays, like):
    """``kernel`` over the pixels of ``arrays`` (viewed as [pixels, depth], float16
    widened to float32) into a new array shaped as ``like``, in blocks per thread."""
    flat = [
        np.ascontiguousarray(v, np.float32 if v.dtype == np.float16 else v.dtype) for v in arrays
    ]
    flat = [v.reshape(-1, v.shape[-1]) if v.size else v.reshape(0, 1) for v in flat]
    out = np.empty(flat[0].shape, flat[0].dtype)
    a = op.attrs
    attrs = (a["depth_radius"], a["bias"], a["alpha"], a["beta"], out)
    pixels = out.shape[0]
    per = max(1, -(-pixels // blas.kernel_threads()))
    bounds = list(range(0, pixels, per)) + [pixels]
    blas.run_blocks(len(bounds) - 1, lambda i: kernel(*flat, bounds[i], bounds[i + 1], *attrs))
    return out.reshape(like.shape).astype(like.dtype, copy=False)


def _lrn_infer(op):
    x = op.inputs[0]
    check_dtype(x, _LRN_DTYPES, "input")
    if x.shape.ndims not in (None, 4):
        raise ValueError(
            "Shape must be rank 4 but is rank %d for input of shape %s"
            % (x.shape.ndims, shape_str(x.shape))
        )
    return [(x.dtype, x.shape)]


def _lrn_kernel(ctx, op, x):
    if x.ndim != 4:
        raise ValueError("input must be 4-dimensional, got shape %s" % list(x.shape))
    return (_run(window_kernels.lrn, op, [x], x),)


def _lrn_grad_infer(op):
    g, x, y = op.inputs
    for t, what in ((x, "input_image"), (y, "output_image")):
        if t.dtype is not g.dtype:
            raise TypeError(
                "%s must have the dtype of input_grads (%s), got %s"
                % (what, g.dtype.name, t.dtype.name)
            )
        if not t.shape.is_compatible_with(g.shape):
            raise ValueError(
                "%s has shape %s but input_grads has %s"
                % (what, shape_str(t.shape), shape_str(g.shape))
            )
    check_dtype(g, _LRN_DTYPES, "input_grads")
    return [(g.dtype, g.shape.merge_with(x.shape))]


def _lrn_grad_kernel(ctx, op, g, x, y):
    if not g.shape == x.shape == y.shape:
        raise ValueError(
            "input_grads, input_image and output_image must have one shape, "
            "got %s, %s and %s" % (list(g.shape), list(x.shape), list(y.shape))
        )
    return (_run(window_kernels.lrn_grad, op, [g, x], g),)


def _lrn_attrs(op):
    return {k: op.attrs[k] for k in ("depth_radius", "bias", "alpha", "beta")}


register_op(
    "LRN",
    infer=_lrn_infer,
    kernel=_lrn_kernel,
    grad=lambda op, g: [make("LRNGrad", [g, op.inputs[0], op.outputs[0]], _lrn_attrs(op))],
)
# TF registers no gradient for LRNGrad either ("No gradient defined").
register_op("LRNGrad", infer=_lrn_grad_infer, kernel=_lrn_grad_kernel)


def lrn(
    input: TensorLike,
    depth_radius: int = 5,
    bias: float = 1.0,
    alpha: float = 1.0,
    beta: float = 0.5,
    name: str | None = None,
) -> Tensor:
    """Local response normalization over the last axis of a 4-D ``input``.

    Args:
      input: a float tensor [batch, height, width, depth].
      depth_radius: half-width of the window over the depth axis.
      bias: the offset in ``output = input / (bias + alpha * sqr_sum) ** beta``.
      alpha: the scale of ``sqr_sum`` in that formula.
      beta: the exponent in that formula.
      name: the op name (default ``LRN``).

    Note (flowrt): float64 is accepted too (TF: float16/bfloat16/float32).
    """
    window_kernels.warm()
    if int(depth_radius) < 0:
        raise ValueError("depth_radius must be non-negative, got %d" % depth_radius)
    x = convert_to_tensor(input, name="input")
    return make(
        "LRN",
        [x],
        {
            "depth_radius": int(depth_radius),
            "bias": float(bias),
            "alpha": float(alpha),
            "beta": float(beta),
        },
        name,
        "LRN",
    )


local_response_normalization = lrn
