"""Binning values: ``fr.searchsorted`` (ops ``LowerBound`` and ``UpperBound``),
``fr.histogram_fixed_width`` (op ``HistogramFixedWidth``),
``fr.histogram_fixed_width_bins`` (composed, as TF's) and ``fr.bincount`` (op
``Bincount``: how often each integer occurs). None is differentiable."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.graph import Tensor, convert_to_tensor
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from .._core.shape import TensorShape
from . import array_ops, math_ops
from .common import check_dtype, in_graph_of, int_list, make, op_scope, shape_str, to_tensor
from .const_eval import static_value

if TYPE_CHECKING:
    from .._core.typing import DTypeLike, TensorLike

__all__ = ["searchsorted", "histogram_fixed_width", "histogram_fixed_width_bins", "bincount"]

_REAL = (
    _dt.float16,
    _dt.float32,
    _dt.float64,
    _dt.int8,
    _dt.uint8,
    _dt.int16,
    _dt.int32,
    _dt.int64,
)


# --------------------------------------------------------------------------------------
# LowerBound / UpperBound
# --------------------------------------------------------------------------------------


def _bound_infer(op):
    seq, values = op.inputs
    check_dtype(seq, _REAL, "sorted_inputs")
    if values.dtype is not seq.dtype:
        raise TypeError(
            "Input 'values' of '%s' Op has type %s that does not match type %s of argument "
            "'sorted_inputs'." % (op.type, values.dtype.name, seq.dtype.name)
        )
    for t, what in ((seq, "sorted_inputs"), (values, "values")):
        if t.shape.ndims is not None and t.shape.ndims != 2:
            raise ValueError("Shape must be rank 2 but is rank %d for '%s'" % (t.shape.ndims, what))
    if seq.shape.ndims == 2 and values.shape.ndims == 2:
        a, b = seq.shape[0], values.shape[0]
        if a is not None and b is not None and a != b:
            raise ValueError(
                "Dimensions must be equal, but are %d and %d (the first dimensions of "
                "sorted_inputs %s and values %s)"
                % (a, b, shape_str(seq.shape), shape_str(values.shape))
            )
    return [(op.attrs["out_type"], values.shape)]


def _bound_kernel(side):
    def kernel(ctx, op, seq, values):
        if seq.ndim != 2 or values.ndim != 2 or seq.shape[0] != values.shape[0]:
            raise errors.InvalidArgumentError(
                None,
                op,
                "Leading dim_size of both tensors must match, got sorted_inputs %s and values "
                "%s" % (list(seq.shape), list(values.shape)),
            )
        out = np.empty(values.shape, op.attrs["out_type"].np)
        for i in range(seq.shape[0]):
            out[i] = np.searchsorted(seq[i], values[i], side=side)
        return (out,)

    return kernel


register_op("LowerBound", infer=_bound_infer, kernel=_bound_kernel("left"), grad=NOT_DIFFERENTIABLE)
register_op(
    "UpperBound", infer=_bound_infer, kernel=_bound_kernel("right"), grad=NOT_DIFFERENTIABLE
)


def searchsorted(
    sorted_sequence: TensorLike,
    values: TensorLike,
    side: str = "left",
    out_type: DTypeLike = _dt.int32,
    name: str | None = None,
) -> Tensor:
    """For each of ``values``, its insertion index into ``sorted_sequence`` along the
    innermost axis (numpy's ``searchsorted`` per row), as TF1's ``tf.searchsorted``.

    Args:
      sorted_sequence: [..., N], sorted ascending along the last axis.
      values: [..., M], with the leading dimensions of ``sorted_sequence``.
      side: ``"left"`` (the first such index, op ``LowerBound``) or ``"right"`` (the
        last, op ``UpperBound``).
      out_type: int32 or int64.
      name: the bound op's name.

    Returns:
      A tensor of ``values``' shape and dtype ``out_type``.

    Raises:
      ValueError: for another ``side``.
    """
    if side not in ("left", "right"):
        raise ValueError(
            "Argument `side` must be either 'right' or 'left'. Received: `side` = '%s'." % side
        )
    with in_graph_of([sorted_sequence, values]):
        seq = convert_to_tensor(sorted_sequence)
        v = convert_to_tensor(values, dtype=None if isinstance(values, Tensor) else seq.dtype)
        out_dt = _dt.as_dtype(out_type)
        if out_dt not in (_dt.int32, _dt.int64):
            raise TypeError("out_type must be int32 or int64, got %s" % out_dt.name)
        seq_size = _last_dim(seq)
        v_size = _last_dim(v)
        seq2 = array_ops.reshape(seq, [-1, seq_size])
        v2 = array_ops.reshape(v, [-1, v_size])
        op_type = "UpperBound" if side == "right" else "LowerBound"
        out = make(op_type, [seq2, v2], {"out_type": out_dt}, name, op_type)
        return array_ops.reshape(out, _shape_of(v))


def _last_dim(t: Tensor) -> Tensor | int:
    if t.shape.ndims is not None and t.shape.ndims > 0 and t.shape[-1] is not None:
        return t.shape[-1]
    return array_ops.shape(t)[-1]


def _shape_of(t: Tensor) -> Tensor | list[int]:
    return t.shape.as_list() if t.shape.is_fully_defined() else array_ops.shape(t)


# --------------------------------------------------------------------------------------
# HistogramFixedWidth
# --------------------------------------------------------------------------------------


def _histogram_infer(op):
    values, value_range, nbins = op.inputs
    check_dtype(values, (_dt.int32, _dt.int64, _dt.float32, _dt.float64), "values")
    if value_range.dtype is not values.dtype:
        raise TypeError(
            "Input 'value_range' of 'HistogramFixedWidth' Op has type %s that does not match "
            "type %s of argument 'values'." % (value_range.dtype.name, values.dtype.name)
        )
    check_dtype(nbins, (_dt.int32,), "nbins")
    if value_range.shape.ndims not in (None, 1) or value_range.shape.num_elements() not in (
        None,
        2,
    ):
        raise ValueError(
            "value_range must be a vector of 2 elements, got shape %s"
            % shape_str(value_range.shape)
        )
    n = int_list(nbins)
    if n is not None:
        if n[0] <= 0:
            raise ValueError("Requires nbins > 0: %d" % n[0])
        return [(op.attrs["dtype"], TensorShape([n[0]]))]
    return [(op.attrs["dtype"], TensorShape([None]))]


def _histogram_kernel(ctx, op, values, value_range, nbins):
    nbins = int(nbins)
    lo, hi = value_range.tolist()
    if nbins <= 0:
        raise errors.InvalidArgumentError(
            None, op, "nbins should be a positive number, but got '%d'" % nbins
        )
    if not lo < hi:
        raise errors.InvalidArgumentError(
            None,
            op,
            "value_range should satisfy value_range[0] < value_range[1], but got '[%s, %s]'"
            % (lo, hi),
        )
    # TF's kernel: the slot of each value in double, clamped to [0, nbins - 1].
    step = (float(hi) - float(lo)) / nbins
    v = np.maximum(values.astype(np.float64).ravel(), float(lo)) - float(lo)
    idx = np.minimum(v / step, nbins - 1).astype(np.int64)
    return (np.bincount(idx, minlength=nbins).astype(op.attrs["dtype"].np),)


register_op(
    "HistogramFixedWidth",
    infer=_histogram_infer,
    kernel=_histogram_kernel,
    grad=NOT_DIFFERENTIABLE,
)


def histogram_fixed_width(
    values: TensorLike,
    value_range: TensorLike,
    nbins: TensorLike = 100,
    dtype: DTypeLike = _dt.int32,
    name: str | None = None,
) -> Tensor:
    """Counts ``values`` in ``nbins`` equal-width bins spanning ``value_range``, as TF1's
    ``tf.histogram_fixed_width``: values below the range count in the first bin, values
    at or above its end in the last.

    Args:
      values: a numeric tensor of any shape.
      value_range: ``[low, high]`` of ``values``' dtype, ``low < high``.
      nbins: the number of bins (a positive int32 scalar).
      dtype: int32 or int64, the counts' dtype.
      name: the op name (default ``histogram_fixed_width``).

    Returns:
      A [nbins] tensor of counts.
    """
    with op_scope([values, value_range, nbins], name, "histogram_fixed_width") as scope:
        v = convert_to_tensor(values, name="values")
        r = convert_to_tensor(
            value_range,
            dtype=None if isinstance(value_range, Tensor) else v.dtype,
            name="value_range",
        )
        n = convert_to_tensor(
            nbins, dtype=None if isinstance(nbins, Tensor) else _dt.int32, name="nbins"
        )
        out_dt = _dt.as_dtype(dtype)
        if out_dt not in (_dt.int32, _dt.int64):
            raise TypeError("dtype must be int32 or int64, got %s" % out_dt.name)
        return make("HistogramFixedWidth", [v, r, n], {"dtype": out_dt}, scope)


def histogram_fixed_width_bins(
    values: TensorLike,
    value_range: TensorLike,
    nbins: TensorLike = 100,
    dtype: DTypeLike = _dt.int32,
    name: str | None = None,
) -> Tensor:
    """The bin of each of ``values`` among ``nbins`` equal-width bins spanning
    ``value_range``, as TF1's ``tf.histogram_fixed_width_bins``: values below the range
    go to bin 0, values at or above its end to bin ``nbins - 1``.

    Args:
      values: a numeric tensor of any shape.
      value_range: ``[low, high]`` of ``values``' dtype, ``low < high``.
      nbins: the number of bins (a positive int32 scalar).
      dtype: accepted and ignored, as in TF: the bins are int32.
      name: the name scope (default ``histogram_fixed_width_bins``).

    Returns:
      An int32 tensor of ``values``' shape.
    """
    with op_scope([values, value_range, nbins], name, "histogram_fixed_width_bins"):
        values = convert_to_tensor(values, name="values")
        shape = array_ops.shape(values)
        flat = array_ops.reshape(values, [-1])
        value_range = convert_to_tensor(value_range, name="value_range")
        nbins = convert_to_tensor(nbins, dtype=_dt.int32, name="nbins")
        nbins_float = math_ops.cast(nbins, flat.dtype)
        scaled = math_ops.truediv(
            flat - value_range[0], value_range[1] - value_range[0], name="scaled_values"
        )
        indices = math_ops.floor(nbins_float * scaled, name="indices")
        indices = math_ops.cast(math_ops.clip_by_value(indices, 0, nbins_float - 1), _dt.int32)
        return array_ops.reshape(indices, shape)


def _int_tensor(v, dtype=_dt.int32) -> Tensor:
    return v if isinstance(v, Tensor) else to_tensor(v, dtype)


def _bincount_infer(op):
    arr, size, w = op.inputs
    check_dtype(arr, (_dt.int32,), "arr")
    n = static_value(size)
    return [(w.dtype, TensorShape([None if n is None else int(n)]))]


def _bincount_kernel(ctx, op, arr, size, w):
    size = int(size)
    if size < 0:
        raise errors.InvalidArgumentError(None, op, "size (%d) must be non-negative" % size)
    if arr.size and arr.min() < 0:
        raise errors.InvalidArgumentError(None, op, "Input arr must be non-negative!")
    flat = arr.reshape(-1)
    keep = flat < size
    if w.size:
        if w.shape != arr.shape:
            raise errors.InvalidArgumentError(
                None,
                op,
                "weights shape %s must match arr shape %s" % (list(w.shape), list(arr.shape)),
            )
        out = np.zeros(size, dtype=w.dtype)
        np.add.at(out, flat[keep], w.reshape(-1)[keep])
        return (out,)
    return (np.bincount(flat[keep], minlength=size)[:size].astype(w.dtype),)


register_op("Bincount", infer=_bincount_infer, kernel=_bincount_kernel, grad=NOT_DIFFERENTIABLE)


def bincount(
    arr: TensorLike,
    weights: TensorLike | None = None,
    minlength: TensorLike | None = None,
    maxlength: TensorLike | None = None,
    dtype: DTypeLike = _dt.int32,
    name: str | None = None,
) -> Tensor:
    """How often each value ``0..max(arr)`` occurs in the int32 ``arr`` (or the sum of
    ``weights`` at those places); at least ``minlength``, at most ``maxlength`` bins.

    Args:
      arr: an int32 tensor of non-negative values.
      weights: None, or a tensor of ``arr``'s shape (its dtype is the result's).
      minlength: the least number of bins.
      maxlength: the most number of bins (values beyond are ignored).
      dtype: the result's dtype when ``weights`` is None.
      name: a name scope for the ops (default ``bincount``).

    Raises:
      InvalidArgumentError: at run time, for a negative value in ``arr``.
    """
    with op_scope([arr, weights, minlength, maxlength], name, "bincount"):
        arr = _int_tensor(arr)
        nonempty = math_ops.cast(array_ops.size(arr) > 0, _dt.int32)
        size = (math_ops.reduce_max(arr) + 1) * nonempty
        if minlength is not None:
            size = math_ops.maximum(_int_tensor(minlength), size)
        if maxlength is not None:
            size = math_ops.minimum(_int_tensor(maxlength), size)
        if weights is None:
            w = array_ops.constant([], _dt.as_dtype(dtype))
        else:
            w = to_tensor(weights)
        return make("Bincount", [arr, size, w], None, None, "Bincount")
