"""TF1's ``tf.nn`` moment helpers beyond ``moments``: ``sufficient_statistics``,
``normalize_moments`` and ``weighted_moments``, and ``fused_batch_norm``, composed of
ops (so their gradients are the ops' own)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .. import dtypes as _dt
from .._core.graph import Tensor, convert_to_tensor
from . import array_ops, math_ops, slicing_ops
from .common import op_scope
from .nn_ops import batch_normalization

if TYPE_CHECKING:
    from .._core.typing import TensorLike

__all__ = [
    "sufficient_statistics",
    "normalize_moments",
    "weighted_moments",
    "fused_batch_norm",
    "batch_norm_with_global_normalization",
]


def _keep(keepdims: bool | None, keep_dims: bool | None) -> bool:
    if keepdims is not None and keep_dims is not None:
        raise ValueError("Can not specify both 'keepdims' and 'keep_dims'.")
    return bool(keepdims if keepdims is not None else keep_dims)


def sufficient_statistics(
    x: TensorLike,
    axes: Sequence[int],
    shift: TensorLike | None = None,
    keep_dims: bool | None = None,
    name: str | None = None,
    keepdims: bool | None = None,
) -> tuple[Tensor, Tensor, Tensor, Tensor | None]:
    """The sufficient statistics of ``x`` over ``axes``, from which
    ``normalize_moments`` computes the mean and variance.

    Args:
      x: a float tensor.
      axes: the axes to reduce.
      shift: optional value subtracted from ``x`` first, for numerical stability.
      keep_dims: TF1's old name for ``keepdims``.
      name: the name scope (default ``sufficient_statistics``).
      keepdims: keep reduced axes with length 1.

    Returns:
      ``(count, mean_ss, var_ss, shift)``: the number of values reduced, the sum of the
      (shifted) values and of their squares, and ``shift`` as a tensor (or None).
    """
    kd = _keep(keepdims, keep_dims)
    axes = list(axes)
    with op_scope([x, shift], name, "sufficient_statistics"):
        x = convert_to_tensor(x, name="x")
        dims = x.shape.as_list() if x.shape.ndims is not None else None
        if dims is not None and all(dims[d] is not None for d in axes):
            n = 1
            for d in axes:
                n *= dims[d]
            counts = convert_to_tensor(n, dtype=x.dtype)
        else:
            sizes = slicing_ops.gather(math_ops.cast(array_ops.shape(x), x.dtype), axes)
            counts = math_ops.reduce_prod(sizes, name="count")
        if shift is not None:
            shift = convert_to_tensor(shift, name="shift")
            m_ss = math_ops.subtract(x, shift)
            v_ss = math_ops.squared_difference(x, shift)
        else:
            m_ss, v_ss = x, math_ops.square(x)
        m_ss = math_ops.reduce_sum(m_ss, axes, keepdims=kd, name="mean_ss")
        v_ss = math_ops.reduce_sum(v_ss, axes, keepdims=kd, name="var_ss")
    return counts, m_ss, v_ss, shift


def normalize_moments(
    counts: TensorLike,
    mean_ss: TensorLike,
    variance_ss: TensorLike,
    shift: TensorLike | None,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    """The mean and variance from ``sufficient_statistics``' sums.

    Args:
      counts: the number of values summed.
      mean_ss: the sum of the (shifted) values.
      variance_ss: the sum of their squares.
      shift: the shift the sums were taken with, or None.
      name: the name scope (default ``normalize``).

    Returns:
      ``(mean, variance)``.
    """
    with op_scope([counts, mean_ss, variance_ss, shift], name, "normalize"):
        divisor = math_ops.reciprocal(convert_to_tensor(counts), name="divisor")
        if shift is not None:
            shifted_mean = math_ops.multiply(mean_ss, divisor, name="shifted_mean")
            mean = math_ops.add(shifted_mean, shift, name="mean")
        else:
            shifted_mean = math_ops.multiply(mean_ss, divisor, name="mean")
            mean = shifted_mean
        variance = math_ops.subtract(
            math_ops.multiply(variance_ss, divisor),
            math_ops.square(shifted_mean),
            name="variance",
        )
    return mean, variance


def weighted_moments(
    x: TensorLike,
    axes: Sequence[int],
    frequency_weights: TensorLike,
    name: str | None = None,
    keep_dims: bool | None = None,
    keepdims: bool | None = None,
) -> tuple[Tensor, Tensor]:
    """The mean and variance of ``x`` over ``axes``, each value counted
    ``frequency_weights`` times (the weights broadcast against ``x``).

    Args:
      x: a float tensor.
      axes: the axes to reduce.
      frequency_weights: weights broadcastable to ``x``.
      name: the name scope (default ``weighted_moments``).
      keep_dims: TF1's old name for ``keepdims``.
      keepdims: keep reduced axes with length 1.

    Returns:
      ``(weighted_mean, weighted_variance)``; 0 where the weights sum to 0.
    """
    kd = _keep(keepdims, keep_dims)
    axes = list(axes)
    with op_scope([x, frequency_weights], name, "weighted_moments"):
        x = convert_to_tensor(x, name="x")
        fw = convert_to_tensor(frequency_weights, name="frequency_weights")
        half = x.dtype is _dt.float16
        if half:
            x = math_ops.cast(x, _dt.float32)
        if fw.dtype is not x.dtype:
            fw = math_ops.cast(fw, x.dtype)
        wsum = math_ops.reduce_sum(fw * x, axes, name="weighted_input_sum", keepdims=True)
        wtotal = math_ops.reduce_sum(
            fw + array_ops.zeros_like(x), axes, name="sum_of_weights", keepdims=True
        )
        mean = math_ops.div_no_nan(wsum, wtotal)  # TF 2's form: zero weights give 0
        distsq = math_ops.reduce_sum(
            fw * math_ops.squared_difference(x, array_ops.stop_gradient(mean)),
            axes,
            name="weighted_distsq",
            keepdims=True,
        )
        variance = math_ops.div_no_nan(distsq, wtotal)
        if not kd:
            mean = array_ops.squeeze(mean, axes)
            variance = array_ops.squeeze(variance, axes)
        if half:
            mean, variance = math_ops.cast(mean, _dt.float16), math_ops.cast(variance, _dt.float16)
        return mean, variance


def fused_batch_norm(
    x: TensorLike,
    scale: TensorLike,
    offset: TensorLike,
    mean: TensorLike | None = None,
    variance: TensorLike | None = None,
    epsilon: float = 0.001,
    data_format: str = "NHWC",
    is_training: bool = True,
    name: str | None = None,
    exponential_avg_factor: float = 1.0,
) -> tuple[Tensor, Tensor, Tensor]:
    """Batch normalization of a 4-D ``x`` over its batch and spatial axes, per channel
    (the last axis for ``NHWC``, axis 1 for ``NCHW``): ``(y, batch_mean,
    batch_variance)``.

    Training (``is_training``): ``y`` is normalized with the batch's own mean and
    (biased) variance; the returned variance is the unbiased one (``n / (n - 1)``
    times), what a moving average should track, as TF returns it. With
    ``exponential_avg_factor`` below 1 the returned statistics are already averaged
    with ``mean``/``variance``: ``(1 - f) * old + f * batch``. Inference: ``mean`` and
    ``variance`` (required) normalize ``x`` and are returned as they are. A float16
    ``x`` is normalized in float32 and ``y`` cast back; statistics are float32.

    Raises:
      ValueError: ``x`` not 4-D, an unknown ``data_format``, or inference without
        ``mean``/``variance``.
    """
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError("data_format must be NHWC or NCHW, got %r" % (data_format,))
    with op_scope([x, scale, offset], name, "FusedBatchNormV3"):
        x = convert_to_tensor(x, name="x")
        if x.shape.ndims not in (None, 4):
            raise ValueError("x must be 4-D, got shape %s" % x.shape)
        if not is_training and (mean is None or variance is None):
            raise ValueError(
                "Both 'mean' and 'variance' must be a 1D tensor when is_training is False"
            )
        compute = _dt.float32 if x.dtype is _dt.float16 else x.dtype
        xc = math_ops.cast(x, compute) if compute is not x.dtype else x
        axes = [0, 1, 2] if data_format == "NHWC" else [0, 2, 3]
        shape = [1, 1, 1, -1] if data_format == "NHWC" else [1, -1, 1, 1]

        def channel(t):
            return array_ops.reshape(math_ops.cast(convert_to_tensor(t), compute), shape)

        if is_training:
            from .nn_ops import moments

            m, v = moments(xc, axes)
            n = math_ops.cast(array_ops.size(xc) // array_ops.size(m), compute)
            unbiased = v * n / math_ops.maximum(n - 1.0, 1.0)
            if exponential_avg_factor != 1.0 and mean is not None and variance is not None:
                f = convert_to_tensor(exponential_avg_factor, compute)
                out_m = (1.0 - f) * math_ops.cast(mean, compute) + f * m
                out_v = (1.0 - f) * math_ops.cast(variance, compute) + f * unbiased
            else:
                out_m, out_v = m, unbiased
        else:
            m = math_ops.cast(convert_to_tensor(mean), compute)
            v = math_ops.cast(convert_to_tensor(variance), compute)
            out_m, out_v = array_ops.identity(m), array_ops.identity(v)
        inv = math_ops.rsqrt(channel(v) + epsilon) * channel(scale)
        y = (xc - channel(m)) * inv + channel(offset)
        if compute is not x.dtype:
            y = math_ops.cast(y, x.dtype)
        return array_ops.identity(y, name="y"), out_m, out_v


def batch_norm_with_global_normalization(
    t: TensorLike | None = None,
    m: Any = None,
    v: Any = None,
    beta: Any = None,
    gamma: Any = None,
    variance_epsilon: float | None = None,
    scale_after_normalization: bool | None = None,
    name: str | None = None,
    input: TensorLike | None = None,
    mean: Any = None,
    variance: Any = None,
) -> Tensor:
    """TF1's batch normalization with given statistics: ``batch_normalization(t, m, v,
    beta, gamma if scale_after_normalization else None, variance_epsilon)``.

    Args:
      t: the input (``input`` is its newer name; give one).
      m: the mean (or ``mean``).
      v: the variance (or ``variance``).
      beta: the offset.
      gamma: the scale, used only if ``scale_after_normalization``.
      variance_epsilon: added to the variance.
      scale_after_normalization: multiply by ``gamma``.
      name: the name scope (default ``batchnorm``).
    """

    def pick(new, old, new_name, old_name):
        if new is not None and old is not None:
            raise ValueError("Cannot specify both '%s' and '%s'" % (new_name, old_name))
        return new if new is not None else old

    return batch_normalization(
        pick(input, t, "input", "t"),
        pick(mean, m, "mean", "m"),
        pick(variance, v, "variance", "v"),
        beta,
        gamma if scale_after_normalization else None,
        variance_epsilon,  # type: ignore[arg-type]
        name,
    )
