"""Rank-generic convolution and pooling, as TF's ``nn_ops`` builds them on the 1-, 2- and
3-D ops: ``convolution``, ``conv_transpose``, ``conv1d_transpose``, ``pool``,
``max_pool_v2`` and ``avg_pool_v2``. Each picks the op by the number of spatial axes
(the input's rank minus 2, or the length of ``output_shape``/``window_shape``); the 1-D
forms are the 2-D ops over a height of 1, as in TF.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .._core.graph import Tensor, convert_to_tensor
from . import array_ops, slicing_ops
from .common import in_graph_of, op_scope
from .conv3d_ops import conv3d, conv3d_transpose
from .conv_ops import conv1d, conv2d, conv2d_backprop_input, conv2d_transpose
from .pool3d_ops import avg_pool3d, max_pool3d
from .pool_ops import avg_pool, avg_pool1d, avg_pool2d, max_pool, max_pool1d, max_pool2d

if TYPE_CHECKING:
    from .._core.typing import TensorLike

__all__ = [
    "convolution",
    "conv_transpose",
    "conv1d_transpose",
    "pool",
    "max_pool_v2",
    "avg_pool_v2",
]

_CHANNELS_FIRST = ("NCW", "NCHW", "NCDHW")


def _spatial_rank(x: Tensor, fn: str) -> int:
    r = x.shape.ndims
    if r is None:
        raise ValueError("%s: the input must have a known rank (3, 4 or 5), got %s" % (fn, x))
    if not 3 <= r <= 5:
        raise ValueError(
            "%s: the input must be of rank 3, 4 or 5 (1 to 3 spatial dimensions), got rank "
            "%d" % (fn, r)
        )
    return r - 2


def _sequence(value, n, what, fn):
    """TF's ``_get_sequence`` for ``n`` spatial axes: None (all 1), an int, or ``n`` ints
    (or ``n + 2`` with 1 in the batch and channel places) -> ``n`` ints."""
    if value is None:
        return [1] * n
    if isinstance(value, int):
        return [value] * n
    v = [int(t) for t in value]
    if len(v) == 1:
        return v * n
    if len(v) == n:
        return v
    if len(v) == n + 2 and v[0] == v[-1] == 1:
        return v[1:-1]
    raise ValueError(
        "%s: %s should be of length 1, %d or %d but was %d" % (fn, what, n, n + 2, len(v))
    )


def _no_channels_first(data_format, fn):
    if data_format in _CHANNELS_FIRST:
        raise ValueError(
            "%s: data_format %r is not supported; flowrt's kernels are channels-last "
            "(transpose first)" % (fn, data_format)
        )


def convolution(
    input: TensorLike,
    filter: TensorLike | None = None,
    padding: str | None = None,
    strides: int | Sequence[int] | None = None,
    dilation_rate: int | Sequence[int] | None = None,
    name: str | None = None,
    data_format: str | None = None,
    filters: TensorLike | None = None,
    dilations: int | Sequence[int] | None = None,
) -> Tensor:
    """N-D convolution: ``conv1d``, ``conv2d`` or ``conv3d`` by the rank of ``input``
    (3, 4 or 5), named ``convolution``.

    Args:
      input: [batch, spatial..., in_channels].
      filter: [spatial..., in_channels, out_channels] (``filters`` is the TF2 spelling).
      padding: ``"SAME"`` or ``"VALID"``.
      strides: an int or one per spatial axis (default 1).
      dilation_rate: an int or one per spatial axis (default 1); ``dilations`` is its
        TF2 spelling.
      name: the name (default ``convolution``).
      data_format: channels-last (``"NWC"``, ``"NHWC"``, ``"NDHWC"``) or None.

    Note (flowrt): a dilated convolution is the convolution op with its ``dilations``
    attribute (the same values as TF's ``SpaceToBatchND`` / ``BatchToSpaceND`` pair);
    channels-first formats are not supported.
    """
    fn = "convolution"
    if filter is not None and filters is not None:
        raise ValueError("%s: give only one of `filter` and `filters`" % fn)
    if dilation_rate is not None and dilations is not None:
        raise ValueError("%s: give only one of `dilation_rate` and `dilations`" % fn)
    f = filter if filter is not None else filters
    with op_scope([input, f], name, "convolution") as scope:
        x = convert_to_tensor(input, name="input")
        n = _spatial_rank(x, fn)
        _no_channels_first(data_format, fn)
        s = _sequence(strides, n, "strides", fn)
        d = _sequence(dilation_rate if dilation_rate is not None else dilations, n, "dilations", fn)
        if any(a > 1 for a in s) and any(b > 1 for b in d):
            raise ValueError(
                "%s: strides > 1 not supported in conjunction with dilation_rate > 1, got "
                "strides %s and dilation_rate %s" % (fn, s, d)
            )
        if n == 1:
            return conv1d(x, f, s, padding, dilations=d, name=scope)
        if n == 2:
            return conv2d(x, f, s, padding, dilations=d, name=scope)
        return conv3d(x, f, [1, *s, 1], padding, dilations=[1, *d, 1], name=scope)


def conv1d_transpose(
    input: TensorLike,
    filters: TensorLike,
    output_shape: TensorLike,
    strides: int | Sequence[int],
    padding: str = "SAME",
    data_format: str = "NWC",
    dilations: int | Sequence[int] | None = None,
    name: str | None = None,
) -> Tensor:
    """The transpose of ``conv1d``, as TF builds it: a ``Conv2DBackpropInput`` over a
    height of 1 named ``conv1d_transpose``, then a squeeze.

    Args:
      input: [batch, width, in_channels].
      filters: [width, output_channels, in_channels].
      output_shape: the 3-vector output shape.
      strides: an int or a list of 1 or 3 ints.
      padding: ``"SAME"`` or ``"VALID"``.
      data_format: ``"NWC"``.
      dilations: an int or a list of 1 or 3 ints.
      name: the name scope (default ``conv1d_transpose``).
    """
    fn = "conv1d_transpose"
    with op_scope([input, filters, output_shape], name, "conv1d_transpose") as scope:
        if data_format not in (None, "NWC"):
            raise ValueError("%s: data_format must be NWC, got %r" % (fn, data_format))
        s = _sequence(strides, 1, "strides", fn)
        d = _sequence(dilations, 1, "dilations", fn)
        x = array_ops.expand_dims(convert_to_tensor(input, name="input"), 1)
        f = array_ops.expand_dims(convert_to_tensor(filters, name="filters"), 0)
        if isinstance(output_shape, Tensor):
            shape = slicing_ops.concat([output_shape[:1], [1], output_shape[1:]], 0)
        else:
            o = list(output_shape)  # type: ignore[arg-type]
            shape = slicing_ops.concat([o[:1], [1], o[1:]], 0)
        y = conv2d_backprop_input(
            shape, f, x, [1, 1, *s, 1], padding, dilations=[1, 1, *d, 1], name=scope
        )
        return array_ops.squeeze(y, [1])


def conv_transpose(
    input: TensorLike,
    filters: TensorLike,
    output_shape: TensorLike,
    strides: int | Sequence[int],
    padding: str = "SAME",
    data_format: str | None = None,
    dilations: int | Sequence[int] | None = None,
    name: str | None = None,
) -> Tensor:
    """The transpose of ``convolution``: ``conv1d_transpose``, ``conv2d_transpose`` or
    ``conv3d_transpose`` by the length of ``output_shape`` (3, 4 or 5).

    Args:
      input: [batch, spatial..., in_channels].
      filters: [spatial..., output_channels, in_channels].
      output_shape: the output shape (a list or a 1-D tensor of known length).
      strides: an int or one per spatial axis.
      padding: ``"SAME"`` or ``"VALID"``.
      data_format: channels-last or None.
      dilations: an int or one per spatial axis.
      name: the name scope (default ``conv_transpose``).
    """
    fn = "conv_transpose"
    with op_scope([input, filters, output_shape], name, "conv_transpose") as scope:
        if isinstance(output_shape, Tensor):
            length = output_shape.shape[0] if output_shape.shape.ndims == 1 else None
        elif isinstance(output_shape, Sequence):
            length = len(output_shape)
        else:
            raise ValueError("`output_shape` must be a tensor or sized collection")
        if length is None or not 3 <= length <= 5:
            raise ValueError(
                "`output_shape` must be of length 3, 4 or 5. Received: output_shape=%r"
                % (output_shape,)
            )
        n = length - 2
        _no_channels_first(data_format, fn)
        s = _sequence(strides, n, "strides", fn)
        d = _sequence(dilations, n, "dilations", fn)
        if n == 1:
            return conv1d_transpose(
                input, filters, output_shape, s, padding, dilations=d, name=scope
            )
        full_s, full_d = [1, *s, 1], [1, *d, 1]
        if n == 2:
            return conv2d_transpose(
                input, filters, output_shape, full_s, padding, name=scope, dilations=full_d
            )
        return conv3d_transpose(
            input, filters, output_shape, full_s, padding, name=scope, dilations=full_d
        )


def pool(
    input: TensorLike,
    window_shape: Sequence[int],
    pooling_type: str,
    padding: str,
    dilation_rate: Sequence[int] | None = None,
    strides: Sequence[int] | None = None,
    name: str | None = None,
    data_format: str | None = None,
    dilations: Sequence[int] | None = None,
) -> Tensor:
    """N-D max or average pooling over ``len(window_shape)`` (1, 2 or 3) spatial axes.

    Args:
      input: [batch, spatial..., channels].
      window_shape: the window size per spatial axis.
      pooling_type: ``"MAX"`` or ``"AVG"``.
      padding: ``"SAME"`` or ``"VALID"``.
      dilation_rate: must be all 1 in flowrt (see the note).
      strides: the step per spatial axis (default 1).
      name: the name scope (default ``max_pool`` or ``avg_pool``).
      data_format: channels-last or None.
      dilations: TF2's spelling of ``dilation_rate``.

    Note (flowrt): dilated pooling (``dilation_rate`` above 1) raises ValueError.
    """
    fn = "pool"
    if pooling_type not in ("MAX", "AVG"):
        raise ValueError("Invalid pooling_type: %s" % (pooling_type,))
    if dilation_rate is not None and dilations is not None:
        raise ValueError("%s: give only one of `dilation_rate` and `dilations`" % fn)
    with op_scope([input], name, "%s_pool" % pooling_type.lower()) as scope:
        n = len(window_shape)
        if not 1 <= n <= 3:
            raise ValueError(
                "`len(window_shape)` must be 1, 2, or 3. Received: %s" % (window_shape,)
            )
        x = convert_to_tensor(input, name="input")
        if x.shape.ndims is not None and x.shape.ndims != n + 2:
            raise ValueError(
                "Shape %s must have rank %d (window_shape has %d axes)" % (x.shape, n + 2, n)
            )
        _no_channels_first(data_format, fn)
        k = [int(w) for w in window_shape]
        s = [1] * n if strides is None else [int(t) for t in strides]
        rate = dilation_rate if dilation_rate is not None else dilations
        d = [1] * n if rate is None else [int(t) for t in rate]
        if min(k) < 1 or min(s) < 1 or min(d) < 1:
            raise ValueError("window_shape, strides and dilation_rate must be positive")
        if any(a > 1 for a in s) and any(b > 1 for b in d):
            raise ValueError("strides > 1 not supported in conjunction with dilation_rate > 1")
        if any(b > 1 for b in d):
            raise ValueError(
                "pool: dilation_rate %s is not supported by flowrt (dilated pooling); "
                "pass dilation_rate=None" % (d,)
            )
        if n == 1:
            op = max_pool if pooling_type == "MAX" else avg_pool
            y = op(array_ops.expand_dims(x, 1), [1, 1, *k, 1], [1, 1, *s, 1], padding, name=scope)
            return array_ops.squeeze(y, [1])
        if n == 2:
            op = max_pool if pooling_type == "MAX" else avg_pool
            return op(x, [1, *k, 1], [1, *s, 1], padding, name=scope)
        op3 = max_pool3d if pooling_type == "MAX" else avg_pool3d
        return op3(x, [1, *k, 1], [1, *s, 1], padding, name=scope)


def _pool_v2(ops, input, ksize, strides, padding, data_format, name, fn):
    with in_graph_of([input]):
        x = convert_to_tensor(input, name="input")
        n = _spatial_rank(x, fn)
        _no_channels_first(data_format, fn)
        default = ("NWC", "NHWC", "NDHWC")[n - 1]
        return ops[n - 1](x, ksize, strides, padding, data_format or default, name)


def max_pool_v2(
    input: TensorLike,
    ksize: int | Sequence[int],
    strides: int | Sequence[int],
    padding: str,
    data_format: str | None = None,
    name: str | None = None,
) -> Tensor:
    """Max pooling over 1, 2 or 3 spatial axes by the rank of ``input`` (TF2's
    ``tf.nn.max_pool``): ``max_pool1d``, ``max_pool2d`` or ``max_pool3d``.

    Args:
      input: [batch, spatial..., channels].
      ksize: an int or one per spatial axis (or ``rank`` ints).
      strides: an int or one per spatial axis (or ``rank`` ints).
      padding: ``"SAME"`` or ``"VALID"``.
      data_format: channels-last or None.
      name: the name (the per-rank op's default if None).
    """
    ops: Any = (max_pool1d, max_pool2d, max_pool3d)
    return _pool_v2(ops, input, ksize, strides, padding, data_format, name, "max_pool_v2")


def avg_pool_v2(
    input: TensorLike,
    ksize: int | Sequence[int],
    strides: int | Sequence[int],
    padding: str,
    data_format: str | None = None,
    name: str | None = None,
) -> Tensor:
    """Average pooling over 1, 2 or 3 spatial axes by the rank of ``input`` (TF2's
    ``tf.nn.avg_pool``); arguments as for ``max_pool_v2``."""
    ops: Any = (avg_pool1d, avg_pool2d, avg_pool3d)
    return _pool_v2(ops, input, ksize, strides, padding, data_format, name, "avg_pool_v2")
