"""``fr.layers.Conv2D``/``MaxPooling2D``/``AveragePooling2D`` and their functional forms."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from .._core.shape import TensorShape
from ..init_ops import zeros_initializer
from ..ops import array_ops, nn_ops, pool_ops
from ..ops.conv_ops import conv1d as _conv1d_op
from ..ops.conv_ops import conv2d as _conv2d_op
from ..ops.conv_ops import conv2d_transpose as _conv2d_transpose_op
from ..ops.conv_ops import window_geometry
from .base import InputSpec, Layer

if TYPE_CHECKING:
    from .._core.graph import Tensor
    from .._core.typing import Constraint, InitializerLike, Regularizer, TensorLike
    from ..variables import Variable


__all__ = [
    "Conv2D",
    "MaxPooling2D",
    "AveragePooling2D",
    "conv2d",
    "max_pooling2d",
    "average_pooling2d",
    "Convolution2D",
    "MaxPool2D",
    "AveragePool2D",
    "Conv2DTranspose",
    "Convolution2DTranspose",
    "conv2d_transpose",
    "Conv1D",
    "Convolution1D",
    "conv1d",
    "MaxPooling1D",
    "AveragePooling1D",
    "MaxPool1D",
    "AveragePool1D",
    "max_pooling1d",
    "average_pooling1d",
]


def _pair(v: int | Sequence[int], what: str) -> tuple[int, int]:
    if isinstance(v, int):
        return (v, v)
    t = tuple(int(a) for a in v)
    if len(t) != 2:
        raise ValueError(
            "The `%s` argument must be a tuple of 2 integers. Received: %s" % (what, v)
        )
    return t


def _padding(p: object) -> str:
    if not isinstance(p, str) or p.lower() not in ("same", "valid"):
        raise ValueError(
            'The `padding` argument must be one of "valid", "same". Received: %s' % (p,)
        )
    return p.upper()


def _channels_last(data_format: str) -> None:
    if data_format != "channels_last":
        raise ValueError(
            "data_format %r is not supported: flowrt's kernels are NHWC "
            '("channels_last")' % (data_format,)
        )


def _window_args(
    filters: int,
    kernel_size: int | Sequence[int],
    strides: int | Sequence[int],
    padding: str,
    data_format: str,
    dilation_rate: int | Sequence[int],
) -> tuple[int, tuple[int, int], tuple[int, int], str, tuple[int, int]]:
    """A 2-D convolution layer's arguments checked: ``(filters, kernel_size, strides,
    padding, dilation_rate)`` as its attributes hold them (NHWC only)."""
    _channels_last(data_format)
    if int(filters) <= 0:
        raise ValueError(
            "Invalid value for argument `filters`. Expected a strictly "
            "positive value. Received filters=%s." % filters
        )
    return (
        int(filters),
        _pair(kernel_size, "kernel_size"),
        _pair(strides, "strides"),
        _padding(padding),
        _pair(dilation_rate, "dilation_rate"),
    )


class Conv2D(Layer):
    """A 2-D convolution layer: ``activation(conv2d(inputs, kernel) + bias)``, variables
    ``<name>/kernel`` [kh, kw, in, filters] and ``<name>/bias`` [filters].

    Args:
      filters: the number of output channels.
      kernel_size: an int or a pair (height, width).
      strides: an int or a pair; default 1.
      padding: ``"valid"`` (default) or ``"same"``, case-insensitive.
      data_format: ``"channels_last"`` (NHWC).
      dilation_rate: an int or a pair; default 1.
      activation: as for ``Dense``; so are the arguments below.
      use_bias: whether to add ``bias``.
      kernel_initializer: the kernel's initializer.
      bias_initializer: the bias' initializer.
      kernel_regularizer: the kernel's regularizer.
      bias_regularizer: the bias' regularizer.
      activity_regularizer: a regularizer of the output.
      kernel_constraint: the kernel's constraint.
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
        activation: Callable[[Tensor], Tensor] | None = None,
        use_bias: bool = True,
        kernel_initializer: InitializerLike = None,
        bias_initializer: InitializerLike = zeros_initializer(),
        kernel_regularizer: Regularizer | None = None,
        bias_regularizer: Regularizer | None = None,
        activity_regularizer: Regularizer | None = None,
        kernel_constraint: Constraint | None = None,
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
        self.activation = activation
        self.use_bias = use_bias
        self.kernel_initializer = kernel_initializer
        self.bias_initializer = bias_initializer
        self.kernel_regularizer = kernel_regularizer
        self.bias_regularizer = bias_regularizer
        self.kernel_constraint = kernel_constraint
        self.bias_constraint = bias_constraint
        self.kernel: Variable | None = None
        self.bias: Variable | None = None

    def build(self, input_shape: TensorShape) -> None:
        s = TensorShape(input_shape)
        c = s[-1] if s.ndims else None
        if c is None:
            raise ValueError("The channel dimension of the inputs should be defined. Found `None`.")
        self.kernel = self.add_weight(
            "kernel",
            list(self.kernel_size) + [c, self.filters],
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
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
        out = _conv2d_op(
            inputs,
            self.kernel,
            strides=list(self.strides),
            padding=self.padding,
            dilations=list(self.dilation_rate),
        )
        if self.use_bias:
            assert self.bias is not None  # made by build()
            out = nn_ops.bias_add(out, self.bias)
        if self.activation is not None:
            out = self.activation(out)
        return out

    def compute_output_shape(self, input_shape: TensorShape | Sequence[int | None]) -> TensorShape:
        n, h, w, _ = TensorShape(input_shape).as_list()
        oh = window_geometry(
            h, self.kernel_size[0], self.strides[0], self.dilation_rate[0], self.padding
        )[0]
        ow = window_geometry(
            w, self.kernel_size[1], self.strides[1], self.dilation_rate[1], self.padding
        )[0]
        return TensorShape([n, oh, ow, self.filters])


Convolution2D = Conv2D


def conv2d(
    inputs: TensorLike,
    filters: int,
    kernel_size: int | Sequence[int],
    strides: int | Sequence[int] = (1, 1),
    padding: str = "valid",
    data_format: str = "channels_last",
    dilation_rate: int | Sequence[int] = (1, 1),
    activation: Callable[[Tensor], Tensor] | None = None,
    use_bias: bool = True,
    kernel_initializer: InitializerLike = None,
    bias_initializer: InitializerLike = zeros_initializer(),
    kernel_regularizer: Regularizer | None = None,
    bias_regularizer: Regularizer | None = None,
    activity_regularizer: Regularizer | None = None,
    kernel_constraint: Constraint | None = None,
    bias_constraint: Constraint | None = None,
    trainable: bool = True,
    name: str | None = None,
    reuse: bool | None = None,
) -> Tensor:
    """The functional form of ``Conv2D`` (variables ``<name>/kernel``, ``<name>/bias``)."""
    layer = Conv2D(
        filters,
        kernel_size,
        strides=strides,
        padding=padding,
        data_format=data_format,
        dilation_rate=dilation_rate,
        activation=activation,
        use_bias=use_bias,
        kernel_initializer=kernel_initializer,
        bias_initializer=bias_initializer,
        kernel_regularizer=kernel_regularizer,
        bias_regularizer=bias_regularizer,
        activity_regularizer=activity_regularizer,
        kernel_constraint=kernel_constraint,
        bias_constraint=bias_constraint,
        trainable=trainable,
        name=name,
        _reuse=reuse,
        _scope=name,
    )
    return layer(inputs)


class Conv2DTranspose(Conv2D):
    """The transpose of ``Conv2D`` (a ``Conv2DBackpropInput``): kernel
    ``<name>/kernel`` [kh, kw, filters, in_channels], bias [filters]. The output is
    ``in * stride`` (SAME) or ``(in - 1) * stride + k`` (VALID) along each spatial axis.
    Arguments as for ``Conv2D``; ``dilation_rate`` must be 1.
    """

    def __init__(
        self,
        filters: int,
        kernel_size: int | Sequence[int],
        strides: int | Sequence[int] = (1, 1),
        padding: str = "valid",
        data_format: str = "channels_last",
        activation: Callable[[Tensor], Tensor] | None = None,
        use_bias: bool = True,
        kernel_initializer: InitializerLike = None,
        bias_initializer: InitializerLike = zeros_initializer(),
        kernel_regularizer: Regularizer | None = None,
        bias_regularizer: Regularizer | None = None,
        activity_regularizer: Regularizer | None = None,
        kernel_constraint: Constraint | None = None,
        bias_constraint: Constraint | None = None,
        trainable: bool = True,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            filters,
            kernel_size,
            strides=strides,
            padding=padding,
            data_format=data_format,
            activation=activation,
            use_bias=use_bias,
            kernel_initializer=kernel_initializer,
            bias_initializer=bias_initializer,
            kernel_regularizer=kernel_regularizer,
            bias_regularizer=bias_regularizer,
            activity_regularizer=activity_regularizer,
            kernel_constraint=kernel_constraint,
            bias_constraint=bias_constraint,
            trainable=trainable,
            name=name,
            **kwargs,
        )

    def build(self, input_shape: TensorShape) -> None:
        s = TensorShape(input_shape)
        c = s[-1] if s.ndims else None
        if c is None:
            raise ValueError("The channel dimension of the inputs should be defined. Found `None`.")
        self.kernel = self.add_weight(
            "kernel",
            list(self.kernel_size) + [self.filters, c],
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
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

    def _out_size(self, size: int | None, i: int) -> int | None:
        if size is None:
            return None
        if self.padding == "SAME":
            return size * self.strides[i]
        return (size - 1) * self.strides[i] + self.kernel_size[i]

    def call(self, inputs: Tensor) -> Tensor:
        static = inputs.shape.as_list()
        oh, ow = self._out_size(static[1], 0), self._out_size(static[2], 1)
        out_shape: Tensor | list[int | None]
        if None in (static[0], oh, ow):
            dyn = array_ops.shape(inputs)
            size = [
                dyn[0] if static[0] is None else static[0],
                dyn[1] * self.strides[0]
                if self.padding == "SAME"
                else (dyn[1] - 1) * self.strides[0] + self.kernel_size[0],
                dyn[2] * self.strides[1]
                if self.padding == "SAME"
                else (dyn[2] - 1) * self.strides[1] + self.kernel_size[1],
                self.filters,
            ]
            out_shape = array_ops.stack(size)
        else:
            out_shape = [static[0], oh, ow, self.filters]
        out = _conv2d_transpose_op(
            inputs, self.kernel, out_shape, [1, *self.strides, 1], self.padding
        )
        out.set_shape([static[0], oh, ow, self.filters])
        if self.use_bias:
            assert self.bias is not None  # made by build()
            out = nn_ops.bias_add(out, self.bias)
        if self.activation is not None:
            out = self.activation(out)
        return out

    def compute_output_shape(self, input_shape: TensorShape | Sequence[int | None]) -> TensorShape:
        n, h, w, _ = TensorShape(input_shape).as_list()
        return TensorShape([n, self._out_size(h, 0), self._out_size(w, 1), self.filters])


Convolution2DTranspose = Conv2DTranspose


def conv2d_transpose(
    inputs: TensorLike,
    filters: int,
    kernel_size: int | Sequence[int],
    strides: int | Sequence[int] = (1, 1),
    padding: str = "valid",
    data_format: str = "channels_last",
    activation: Callable[[Tensor], Tensor] | None = None,
    use_bias: bool = True,
    kernel_initializer: InitializerLike = None,
    bias_initializer: InitializerLike = zeros_initializer(),
    kernel_regularizer: Regularizer | None = None,
    bias_regularizer: Regularizer | None = None,
    activity_regularizer: Regularizer | None = None,
    kernel_constraint: Constraint | None = None,
    bias_constraint: Constraint | None = None,
    trainable: bool = True,
    name: str | None = None,
    reuse: bool | None = None,
) -> Tensor:
    """The functional form of ``Conv2DTranspose``."""
    layer = Conv2DTranspose(
        filters,
        kernel_size,
        strides=strides,
        padding=padding,
        data_format=data_format,
        activation=activation,
        use_bias=use_bias,
        kernel_initializer=kernel_initializer,
        bias_initializer=bias_initializer,
        kernel_regularizer=kernel_regularizer,
        bias_regularizer=bias_regularizer,
        activity_regularizer=activity_regularizer,
        kernel_constraint=kernel_constraint,
        bias_constraint=bias_constraint,
        trainable=trainable,
        name=name,
        _reuse=reuse,
        _scope=name,
    )
    return layer(inputs)


class _Pooling2D(Layer):
    # (window, strides, padding) -> the pooling of a tensor; set by each subclass.
    _pool: Callable[[list[int], list[int], str], Callable[[Tensor], Tensor]] | None = None

    def __init__(
        self,
        pool_size: int | Sequence[int],
        strides: int | Sequence[int] | None,
        padding: str = "valid",
        data_format: str = "channels_last",
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(name=name, **kwargs)
        _channels_last(data_format)
        self.input_spec = InputSpec(ndim=4)
        self.pool_size = _pair(pool_size, "pool_size")
        self.strides = _pair(strides if strides is not None else pool_size, "strides")
        self.padding = _padding(padding)
        self.data_format = data_format

    def call(self, inputs: Tensor) -> Tensor:
        pool = type(self)._pool
        assert pool is not None  # each pooling subclass sets it
        return pool([1, *self.pool_size, 1], [1, *self.strides, 1], self.padding)(inputs)

    def compute_output_shape(self, input_shape: TensorShape | Sequence[int | None]) -> TensorShape:
        n, h, w, c = TensorShape(input_shape).as_list()
        oh = window_geometry(h, self.pool_size[0], self.strides[0], 1, self.padding)[0]
        ow = window_geometry(w, self.pool_size[1], self.strides[1], 1, self.padding)[0]
        return TensorShape([n, oh, ow, c])


def _pool_fn(fn: Callable[[Tensor, list[int], list[int], str], Tensor]) -> Any:
    return staticmethod(lambda k, s, p: lambda x: fn(x, k, s, p))


class MaxPooling2D(_Pooling2D):
    """Max pooling over ``pool_size`` windows (op ``<name>/MaxPool``).

    Args:
      pool_size: an int or a pair.
      strides: an int or a pair.
      padding: ``"valid"`` (default) or ``"same"``.
      data_format: ``"channels_last"``.
      name: the layer's scope name (default ``max_pooling2d``).
    """

    _pool = _pool_fn(pool_ops.max_pool)


class AveragePooling2D(_Pooling2D):
    """Average pooling over ``pool_size`` windows (op ``<name>/AvgPool``); arguments as
    for ``MaxPooling2D``."""

    _pool = _pool_fn(pool_ops.avg_pool)


MaxPool2D = MaxPooling2D
AveragePool2D = AveragePooling2D


def max_pooling2d(
    inputs: TensorLike,
    pool_size: int | Sequence[int],
    strides: int | Sequence[int] | None,
    padding: str = "valid",
    data_format: str = "channels_last",
    name: str | None = None,
) -> Tensor:
    """The functional form of ``MaxPooling2D``."""
    return MaxPooling2D(pool_size, strides, padding, data_format, name=name)(inputs)


def average_pooling2d(
    inputs: TensorLike,
    pool_size: int | Sequence[int],
    strides: int | Sequence[int] | None,
    padding: str = "valid",
    data_format: str = "channels_last",
    name: str | None = None,
) -> Tensor:
    """The functional form of ``AveragePooling2D``."""
    return AveragePooling2D(pool_size, strides, padding, data_format, name=name)(inputs)


def _single(v: int | Sequence[int], what: str) -> int:
    if isinstance(v, int):
        return v
    t = tuple(int(a) for a in v)
    if len(t) != 1:
        raise ValueError("The `%s` argument must be a tuple of 1 integer. Received: %s" % (what, v))
    return t[0]


class Conv1D(Conv2D):
    """A 1-D convolution layer over [batch, width, channels]: kernel ``<name>/kernel``
    [k, in, filters], bias [filters]; the op is TF's ``conv1d`` composite. Arguments
    as for ``Conv2D`` with single ints (``kernel_size``, ``strides``,
    ``dilation_rate``)."""

    def __init__(
        self,
        filters: int,
        kernel_size: int | Sequence[int],
        strides: int | Sequence[int] = 1,
        padding: str = "valid",
        data_format: str = "channels_last",
        dilation_rate: int | Sequence[int] = 1,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            filters,
            (1, _single(kernel_size, "kernel_size")),
            strides=(1, _single(strides, "strides")),
            padding=padding,
            data_format=data_format,
            dilation_rate=(1, _single(dilation_rate, "dilation_rate")),
            **kwargs,
        )
        self.input_spec = InputSpec(ndim=3)

    def build(self, input_shape: TensorShape) -> None:
        s = TensorShape(input_shape)
        c = s[-1] if s.ndims else None
        if c is None:
            raise ValueError("The channel dimension of the inputs should be defined. Found `None`.")
        self.kernel = self.add_weight(
            "kernel",
            [self.kernel_size[1], c, self.filters],
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
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
        out = _conv1d_op(
            inputs, self.kernel, self.strides[1], self.padding, dilations=self.dilation_rate[1]
        )
        if self.use_bias:
            assert self.bias is not None  # made by build()
            out = nn_ops.bias_add(out, self.bias)
        if self.activation is not None:
            out = self.activation(out)
        return out

    def compute_output_shape(self, input_shape: TensorShape | Sequence[int | None]) -> TensorShape:
        n, w, _ = TensorShape(input_shape).as_list()
        ow = window_geometry(
            w, self.kernel_size[1], self.strides[1], self.dilation_rate[1], self.padding
        )[0]
        return TensorShape([n, ow, self.filters])


Convolution1D = Conv1D


def conv1d(
    inputs: TensorLike,
    filters: int,
    kernel_size: int | Sequence[int],
    strides: int | Sequence[int] = 1,
    padding: str = "valid",
    data_format: str = "channels_last",
    dilation_rate: int | Sequence[int] = 1,
    activation: Callable[[Tensor], Tensor] | None = None,
    use_bias: bool = True,
    kernel_initializer: InitializerLike = None,
    bias_initializer: InitializerLike = zeros_initializer(),
    kernel_regularizer: Regularizer | None = None,
    bias_regularizer: Regularizer | None = None,
    activity_regularizer: Regularizer | None = None,
    kernel_constraint: Constraint | None = None,
    bias_constraint: Constraint | None = None,
    trainable: bool = True,
    name: str | None = None,
    reuse: bool | None = None,
) -> Tensor:
    """The functional form of ``Conv1D``."""
    layer = Conv1D(
        filters,
        kernel_size,
        strides=strides,
        padding=padding,
        data_format=data_format,
        dilation_rate=dilation_rate,
        activation=activation,
        use_bias=use_bias,
        kernel_initializer=kernel_initializer,
        bias_initializer=bias_initializer,
        kernel_regularizer=kernel_regularizer,
        bias_regularizer=bias_regularizer,
        activity_regularizer=activity_regularizer,
        kernel_constraint=kernel_constraint,
        bias_constraint=bias_constraint,
        trainable=trainable,
        name=name,
        _reuse=reuse,
        _scope=name,
    )
    return layer(inputs)


class _Pooling1D(_Pooling2D):
    """Pools [batch, width, channels] by a 2-D pool over [batch, 1, width, channels]."""

    def __init__(
        self,
        pool_size: int | Sequence[int],
        strides: int | Sequence[int] | None,
        padding: str = "valid",
        data_format: str = "channels_last",
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        p = _single(pool_size, "pool_size")
        st = _single(strides if strides is not None else pool_size, "strides")
        super().__init__((1, p), (1, st), padding, data_format, name=name, **kwargs)
        self.input_spec = InputSpec(ndim=3)

    def call(self, inputs: Tensor) -> Tensor:
        x = array_ops.expand_dims(inputs, 1)
        pool = type(self)._pool
        assert pool is not None  # each pooling subclass sets it
        out = pool([1, *self.pool_size, 1], [1, *self.strides, 1], self.padding)(x)
        return array_ops.squeeze(out, [1])

    def compute_output_shape(self, input_shape: TensorShape | Sequence[int | None]) -> TensorShape:
        n, w, c = TensorShape(input_shape).as_list()
        ow = window_geometry(w, self.pool_size[1], self.strides[1], 1, self.padding)[0]
        return TensorShape([n, ow, c])


class MaxPooling1D(_Pooling1D):
    """1-D max pooling over [batch, width, channels]; arguments are single ints."""

    _pool = _pool_fn(pool_ops.max_pool)


class AveragePooling1D(_Pooling1D):
    """1-D average pooling over [batch, width, channels]; arguments are single ints."""

    _pool = _pool_fn(pool_ops.avg_pool)


MaxPool1D = MaxPooling1D
AveragePool1D = AveragePooling1D


def max_pooling1d(
    inputs: TensorLike,
    pool_size: int | Sequence[int],
    strides: int | Sequence[int] | None,
    padding: str = "valid",
    data_format: str = "channels_last",
    name: str | None = None,
) -> Tensor:
    """The functional form of ``MaxPooling1D``."""
    return MaxPooling1D(pool_size, strides, padding, data_format, name=name)(inputs)


def average_pooling1d(
    inputs: TensorLike,
    pool_size: int | Sequence[int],
    strides: int | Sequence[int] | None,
    padding: str = "valid",
    data_format: str = "channels_last",
    name: str | None = None,
) -> Tensor:
    """The functional form of ``AveragePooling1D``."""
    return AveragePooling1D(pool_size, strides, padding, data_format, name=name)(inputs)
