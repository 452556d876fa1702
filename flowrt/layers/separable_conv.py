"""``fr.layers.SeparableConv2D`` and its functional form ``separable_conv2d``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from .._core.shape import TensorShape
from ..init_ops import zeros_initializer
from ..ops import nn_ops
from ..ops.conv_ops import window_geometry
from ..ops.depthwise_conv_ops import separable_conv2d as _separable_conv2d_op
from .base import InputSpec, Layer
from .convolutional import _window_args

if TYPE_CHECKING:
    from .._core.graph import Tensor
    from .._core.typing import Constraint, InitializerLike, Regularizer, TensorLike
    from ..variables import Variable

__all__ = ["SeparableConv2D", "SeparableConvolution2D", "separable_conv2d"]


class SeparableConv2D(Layer):
    """A depthwise separable 2-D convolution layer: a depthwise convolution, a 1x1
    convolution mixing the channels, a bias and an activation; variables
    ``<name>/depthwise_kernel`` [kh, kw, in, depth_multiplier],
    ``<name>/pointwise_kernel`` [1, 1, in * depth_multiplier, filters] and
    ``<name>/bias`` [filters], as TF1's ``tf.layers.SeparableConv2D``.

    Args:
      filters: the number of output channels.
      kernel_size: an int or a pair (height, width).
      strides: an int or a pair; default 1.
      padding: ``"valid"`` (default) or ``"same"``, case-insensitive.
      data_format: ``"channels_last"`` (NHWC).
      dilation_rate: an int or a pair; default 1 (strides must then be 1).
      depth_multiplier: depthwise filters per input channel.
      activation: applied to the output, or None.
      use_bias: whether to add ``bias``.
      depthwise_initializer: the depthwise kernel's initializer.
      pointwise_initializer: the pointwise kernel's initializer.
      bias_initializer: the bias' initializer.
      depthwise_regularizer: the depthwise kernel's regularizer.
      pointwise_regularizer: the pointwise kernel's regularizer.
      bias_regularizer: the bias' regularizer.
      activity_regularizer: a regularizer of the output.
      depthwise_constraint: the depthwise kernel's constraint.
      pointwise_constraint: the pointwise kernel's constraint.
      bias_constraint: the bias' constraint.
      trainable: as for ``Layer``.
      name: as for ``Layer``.

    Note (flowrt): ``"channels_first"`` raises ValueError (NHWC kernels only).
    """

    def __init__(
        self,
        filters: int,
        kernel_size: int | Sequence[int],
        strides: int | Sequence[int] = (1, 1),
        padding: str = "valid",
        data_format: str = "channels_last",
        dilation_rate: int | Sequence[int] = (1, 1),
        depth_multiplier: int = 1,
        activation: Callable[[Tensor], Tensor] | None = None,
        use_bias: bool = True,
        depthwise_initializer: InitializerLike = None,
        pointwise_initializer: InitializerLike = None,
        bias_initializer: InitializerLike = zeros_initializer(),
        depthwise_regularizer: Regularizer | None = None,
        pointwise_regularizer: Regularizer | None = None,
        bias_regularizer: Regularizer | None = None,
        activity_regularizer: Regularizer | None = None,
        depthwise_constraint: Constraint | None = None,
        pointwise_constraint: Constraint | None = None,
        bias_constraint: Constraint | None = None,
        trainable: bool = True,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            trainable=trainable, name=name, activity_regularizer=activity_regularizer, **kwargs
        )
        self.input_spec = InputSpec(ndim=4)
        self.data_format = data_format
        self.filters, self.kernel_size, self.strides, self.padding, self.dilation_rate = (
            _window_args(filters, kernel_size, strides, padding, data_format, dilation_rate)
        )
        self.depth_multiplier = int(depth_multiplier)
        self.activation = activation
        self.use_bias = use_bias
        self.depthwise_initializer = depthwise_initializer
        self.pointwise_initializer = pointwise_initializer
        self.bias_initializer = bias_initializer
        self.depthwise_regularizer = depthwise_regularizer
        self.pointwise_regularizer = pointwise_regularizer
        self.bias_regularizer = bias_regularizer
        self.depthwise_constraint = depthwise_constraint
        self.pointwise_constraint = pointwise_constraint
        self.bias_constraint = bias_constraint
        self.depthwise_kernel: Variable | None = None
        self.pointwise_kernel: Variable | None = None
        self.bias: Variable | None = None

    def build(self, input_shape: TensorShape) -> None:
        s = TensorShape(input_shape)
        c = s[-1] if s.ndims else None
        if c is None:
            raise ValueError(
                "The channel dimension of the inputs to `SeparableConv2D` should be defined. "
                "Found `None`."
            )
        self.depthwise_kernel = self.add_weight(
            "depthwise_kernel",
            list(self.kernel_size) + [c, self.depth_multiplier],
            initializer=self.depthwise_initializer,
            regularizer=self.depthwise_regularizer,
            constraint=self.depthwise_constraint,
        )
        self.pointwise_kernel = self.add_weight(
            "pointwise_kernel",
            [1, 1, c * self.depth_multiplier, self.filters],
            initializer=self.pointwise_initializer,
            regularizer=self.pointwise_regularizer,
            constraint=self.pointwise_constraint,
        )
        if self.use_bias:
            self.bias = self.add_weight(
                "bias",
                [self.filters],
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
            )
        self.built = True

    def call(self, inputs: Tensor) -> Tensor:
        assert self.depthwise_kernel is not None and self.pointwise_kernel is not None
        out = _separable_conv2d_op(
            inputs,
            self.depthwise_kernel,
            self.pointwise_kernel,
            strides=[1, self.strides[0], self.strides[1], 1],
            padding=self.padding,
            rate=list(self.dilation_rate),
        )
        if self.use_bias:
            assert self.bias is not None  # made by build()
            out = nn_ops.bias_add(out, self.bias)
        if self.activation is not None:
            out = self.activation(out)
        return out

    def compute_output_shape(self, input_shape: TensorShape | Sequence[int | None]) -> TensorShape:
        n, h, w, _ = TensorShape(input_shape).as_list()
        k, st, d = self.kernel_size, self.strides, self.dilation_rate
        oh = window_geometry(h, k[0], st[0], d[0], self.padding)[0]
        ow = window_geometry(w, k[1], st[1], d[1], self.padding)[0]
        return TensorShape([n, oh, ow, self.filters])


SeparableConvolution2D = SeparableConv2D


def separable_conv2d(
    inputs: TensorLike,
    filters: int,
    kernel_size: int | Sequence[int],
    strides: int | Sequence[int] = (1, 1),
    padding: str = "valid",
    data_format: str = "channels_last",
    dilation_rate: int | Sequence[int] = (1, 1),
    depth_multiplier: int = 1,
    activation: Callable[[Tensor], Tensor] | None = None,
    use_bias: bool = True,
    depthwise_initializer: InitializerLike = None,
    pointwise_initializer: InitializerLike = None,
    bias_initializer: InitializerLike = zeros_initializer(),
    depthwise_regularizer: Regularizer | None = None,
    pointwise_regularizer: Regularizer | None = None,
    bias_regularizer: Regularizer | None = None,
    activity_regularizer: Regularizer | None = None,
    depthwise_constraint: Constraint | None = None,
    pointwise_constraint: Constraint | None = None,
    bias_constraint: Constraint | None = None,
    trainable: bool = True,
    name: str | None = None,
    reuse: bool | None = None,
) -> Tensor:
    """The functional form of ``SeparableConv2D`` (variables
    ``<name>/depthwise_kernel``, ``<name>/pointwise_kernel``, ``<name>/bias``)."""
    layer = SeparableConv2D(
        filters,
        kernel_size,
        strides=strides,
        padding=padding,
        data_format=data_format,
        dilation_rate=dilation_rate,
        depth_multiplier=depth_multiplier,
        activation=activation,
        use_bias=use_bias,
        depthwise_initializer=depthwise_initializer,
        pointwise_initializer=pointwise_initializer,
        bias_initializer=bias_initializer,
        depthwise_regularizer=depthwise_regularizer,
        pointwise_regularizer=pointwise_regularizer,
        bias_regularizer=bias_regularizer,
        activity_regularizer=activity_regularizer,
        depthwise_constraint=depthwise_constraint,
        pointwise_constraint=pointwise_constraint,
        bias_constraint=bias_constraint,
        trainable=trainable,
        name=name,
        _reuse=reuse,
        _scope=name,
    )
    return layer(inputs)
