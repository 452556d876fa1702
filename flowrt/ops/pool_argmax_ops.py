"""``fr.nn.max_pool_with_argmax``: 2-D max pooling that also returns where each maximum
was, and its gradient op ``MaxPoolGradWithArgmax`` (which has no gradient, as in TF).

The index of an input element ``[b, y, x, c]`` is TF's flattened one,
``(y * width + x) * channels + c``, or ``((b * height + y) * width + x) * channels + c``
with ``include_batch_in_index``; a window's first maximum in row-major order wins. The
window geometry is ``conv_ops``' (shared with ``pool_ops``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import dtypes as _dt
from .._core.graph import Tensor, convert_to_tensor
from .._core.registry import register_op
from .._core.shape import TensorShape
from .common import NUMERIC, check_dtype, make_op, op_scope, shape_str
from .conv_ops import check_padding, geometry, pad_hw, spatial_arg, tap_slice

if TYPE_CHECKING:
    from .._core.typing import TensorLike

__all__ = ["max_pool_with_argmax"]

_ONES = [1, 1, 1, 1]


def _check_attrs(op):
    for what in ("ksize", "strides"):
        v = op.attrs[what]
        if len(v) != 4 or v[0] != 1 or v[3] != 1 or min(v) < 1:
            raise ValueError(
                "%s must be 4 positive ints [1, h, w, 1] (no pooling over the batch or depth), "
                "got %s" % (what, v)
            )


def _pooled_shape(op, x):
    if x.shape.ndims is None:
        return TensorShape([None] * 4)
    if x.shape.ndims != 4:
        raise ValueError(
            "Shape must be rank 4 but is rank %d for input of shape %s"
            % (x.shape.ndims, shape_str(x.shape))
        )
    n, h, w, c = x.shape.as_list()
    k = op.attrs["ksize"]
    (oh, _, _), (ow, _, _) = geometry(h, w, op, k[1], k[2])
    return TensorShape([n, oh, ow, c])


def _infer(op):
    x = op.inputs[0]
    check_dtype(x, NUMERIC, "input")
    _check_attrs(op)
    shape = _pooled_shape(op, x)
    return [(x.dtype, shape), (op.attrs["Targmax"], shape)]


def _kernel(ctx, op, x):
    if x.ndim != 4:
        raise ValueError("input must be 4-dimensional, got shape %s" % list(x.shape))
    n, h, w, c = x.shape
    k, s = op.attrs["ksize"], op.attrs["strides"]
    geo = geometry(h, w, op, k[1], k[2])
    (oh, pt, _), (ow, pl, _) = geo
    low = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    xp = pad_hw(x, geo, low)
    rows = np.arange(oh)[None, :, None, None] * s[1] - pt
    cols = np.arange(ow)[None, None, :, None] * s[2] - pl
    base = np.arange(n)[:, None, None, None] * h if op.attrs["include_batch_in_index"] else 0
    out = argmax = None
    for i in range(k[1]):
        for j in range(k[2]):
            v = xp[tap_slice(i, j, geo, s, _ONES)]
            idx = ((base + rows + i) * w + cols + j) * c + np.arange(c)
            if out is None:
                out, argmax = v.copy(), np.broadcast_to(idx, v.shape).copy()
            else:
                better = v > out  # strictly: the first maximum in row-major order stays
                out = np.where(better, v, out)
                argmax = np.where(better, idx, argmax)
    return out, np.asarray(argmax).astype(op.attrs["Targmax"].np)


def _grad_infer(op):
    x, g, argmax = op.inputs
    check_dtype(x, NUMERIC, "input")
    check_dtype(argmax, (_dt.int32, _dt.int64), "argmax")
    if g.dtype is not x.dtype:
        raise TypeError("grad must have the dtype of input (%s), got %s" % (x.dtype, g.dtype))
    _check_attrs(op)
    want = _pooled_shape(op, x)
    for t, what in ((g, "grad"), (argmax, "argmax")):
        if not want.is_compatible_with(t.shape):
            raise ValueError(
                "%s has shape %s, expected %s for input %s"
                % (what, shape_str(t.shape), shape_str(want), shape_str(x.shape))
            )
    return [(x.dtype, x.shape)]


def _grad_kernel(ctx, op, x, g, argmax):
    if g.shape != argmax.shape:
        raise ValueError(
            "grad and argmax must have the same shape, got %s and %s"
            % (list(g.shape), list(argmax.shape))
        )
    per_batch = int(np.prod(x.shape[1:]))
    idx = argmax.astype(np.int64).reshape(len(g), -1)
    if not op.attrs["include_batch_in_index"]:
        idx = idx + np.arange(len(g))[:, None] * per_batch
    dx = np.zeros(x.size, g.dtype)
    np.add.at(dx, idx.ravel(), g.ravel())
    return (dx.reshape(x.shape),)


def _max_pool_with_argmax_grad(op, g, unused_argmax_grad):
    attrs = {k: op.attrs[k] for k in ("ksize", "strides", "padding", "include_batch_in_index")}
    attrs["Targmax"] = op.attrs["Targmax"]
    grad_op = make_op("MaxPoolGradWithArgmax", [op.inputs[0], g, op.outputs[1]], attrs)
    return [grad_op.outputs[0]]


register_op("MaxPoolWithArgmax", infer=_infer, kernel=_kernel, grad=_max_pool_with_argmax_grad)
# TF registers no gradient for MaxPoolGradWithArgmax: fr.gradients raises LookupError.
register_op("MaxPoolGradWithArgmax", infer=_grad_infer, kernel=_grad_kernel)


def max_pool_with_argmax(
    input: TensorLike,
    ksize: Sequence[int],
    strides: Sequence[int],
    padding: str,
    data_format: str = "NHWC",
    Targmax: Any = None,
    name: str | None = None,
    output_dtype: Any = None,
    include_batch_in_index: bool = False,
) -> tuple[Tensor, Tensor]:
    """Max pooling of ``input`` [batch, height, width, channels] and the flattened index
    of each maximum (op type MaxPoolWithArgmax).

    Args:
      input: a real tensor, NHWC.
      ksize: 4 ints ``[1, kh, kw, 1]``.
      strides: 4 ints ``[1, sh, sw, 1]``.
      padding: ``"SAME"`` or ``"VALID"``.
      data_format: ``"NHWC"`` (TF accepts only this).
      Targmax: the index dtype, int32 or int64 (default int64).
      name: the op's name (default ``MaxPoolWithArgmax``).
      output_dtype: TF2's name for ``Targmax``; give at most one.
      include_batch_in_index: count the batch in the index.

    Returns:
      ``(output, argmax)``: the pooled values and, for each, the index of its input
      element, ``(y * width + x) * channels + c`` (``((b * height + y) * width + x) *
      channels + c`` with ``include_batch_in_index``).
    """
    if Targmax is not None and output_dtype is not None:
        raise ValueError("Cannot specify both 'Targmax' and 'output_dtype'.")
    if data_format != "NHWC":
        raise ValueError(
            "`data_format` values other  than 'NHWC' are not supported. Received: "
            "data_format=%s" % (data_format,)
        )
    index_dtype = _dt.as_dtype(Targmax or output_dtype or _dt.int64)
    if index_dtype not in (_dt.int32, _dt.int64):
        raise TypeError("Targmax must be int32 or int64, got %s" % index_dtype.name)
    for what, v in (("ksize", ksize), ("strides", strides)):
        if not isinstance(v, (list, tuple)):
            raise TypeError(
                "Expected list for '%s' argument to 'max_pool_with_argmax' Op, not %r." % (what, v)
            )
    pad, _ = check_padding(padding, "MaxPoolWithArgmax")
    attrs = {
        "ksize": spatial_arg(ksize, "ksize", "max_pool_with_argmax"),
        "strides": spatial_arg(strides, "strides", "max_pool_with_argmax"),
        "padding": pad,
        "Targmax": index_dtype,
        "include_batch_in_index": bool(include_batch_in_index),
    }
    with op_scope([input], name, "MaxPoolWithArgmax") as scope:
        x = convert_to_tensor(input, name="input")
        op = make_op("MaxPoolWithArgmax", [x], attrs, scope)
    return op.outputs[0], op.outputs[1]
