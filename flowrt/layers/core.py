"""``fr.layers.Dense``/``Dropout``/``Flatten`` and their functional forms (TF1 names)."""

from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from .. import dtypes as _dt
from .._core.graph import Tensor, convert_to_tensor
from .._core.shape import TensorShape
from ..init_ops import zeros_initializer
from ..ops import array_ops, control_flow_ops, linalg_ops, math_ops, nn_ops, slicing_ops
from .base import InputSpec, Layer

if TYPE_CHECKING:
    from .._core.typing import (
        Constraint,
        InitializerLike,
        Regularizer,
        TensorLike,
    )
    from ..variables import Variable


__all__ = ["Dense", "Dropout", "Flatten", "dense", "dropout", "flatten"]


class Dense(Layer):
    """``activation(inputs @ kernel + bias)`` with variables ``<name>/kernel`` [in, units]
    and ``<name>/bias`` [units].

    Args:
      units: the output size.
      activation: a function applied to the output (None: linear).
      use_bias: whether to add ``bias``.
      kernel_initializer: default: the scope's initializer, else glorot_uniform.
      bias_initializer: default zeros.
      kernel_regularizer: ``fn(variable) -> loss`` added to ``REGULARIZATION_LOSSES``.
      bias_regularizer: the same for the bias.
      activity_regularizer: ``fn(output) -> loss``, also a regularization loss.
      kernel_constraint: stored as the kernel variable's ``constraint``.
      bias_constraint: stored as the bias variable's ``constraint``.
      trainable: as for ``Layer``.
      name: as for ``Layer``.

    Inputs of rank > 2 are multiplied along their last axis.
    """

    def __init__(
        self,
        units: int,
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
        self.input_spec = InputSpec(min_ndim=2)
        self.units = int(units)
        if self.units <= 0:
            raise ValueError(
                "Received an invalid value for `units`, expected a positive "
                "integer, got %s." % units
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
        input_shape = TensorShape(input_shape)
        last = input_shape[-1] if input_shape.ndims else None
        if last is None:
            raise ValueError(
                "The last dimension of the inputs to `Dense` should be defined. Found `None`."
            )
        self.kernel = self.add_weight(
            "kernel",
            [last, self.units],
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
        )
        self.input_spec = InputSpec(min_ndim=2, axes={-1: last})
        if self.use_bias:
            self.bias = self.add_weight(
                "bias",
                [self.units],
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
            )
        self.built = True

    def call(self, inputs: Tensor) -> Tensor:
        assert self.kernel is not None  # made by build(), which __call__ runs first
        x = inputs
        if x.dtype is not self.kernel.dtype:
            x = math_ops.cast(x, self.kernel.dtype)
        r = x.shape.ndims
        if r is not None and r > 2:
            lead = x.shape.as_list()[:-1]
            flat = array_ops.reshape(x, [-1, x.shape[-1]])
            out = linalg_ops.matmul(flat, self.kernel)
            dyn = array_ops.shape(x)[:-1] if None in lead else lead
            out = array_ops.reshape(
                out,
                slicing_ops.concat([dyn, [self.units]], 0)
                if isinstance(dyn, Tensor)
                else lead + [self.units],
            )
            out.set_shape(lead + [self.units])
        else:
            out = linalg_ops.matmul(x, self.kernel)
        if self.use_bias:
            assert self.bias is not None  # made by build()
            out = nn_ops.bias_add(out, self.bias)
        if self.activation is not None:
            out = self.activation(out)
        return out

    def compute_output_shape(self, input_shape: TensorShape | Sequence[int | None]) -> TensorShape:
        s = TensorShape(input_shape).as_list()
        return TensorShape(s[:-1] + [self.units])


def dense(
    inputs: TensorLike,
    units: int,
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
    """The functional form of ``Dense``: builds the layer and applies it to ``inputs``.

    ``reuse=True`` (or an enclosing reusing scope) shares the variables of an earlier
    layer called ``name``; the variables are ``<name>/kernel`` and ``<name>/bias``.
    """
    layer = Dense(
        units,
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


class Dropout(Layer):
    """Zeroes inputs with probability ``rate`` and scales the rest by ``1 / (1 - rate)``
    when ``training`` is true; the identity otherwise.

    Args:
      rate: the drop probability in [0, 1).
      noise_shape: a shape broadcastable to the input's, sharing decisions.
      seed: the op seed.
      name: as for ``Layer``.
    """

    def __init__(
        self,
        rate: float = 0.5,
        noise_shape: TensorLike | None = None,
        seed: int | None = None,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(name=name, **kwargs)
        if isinstance(rate, numbers.Real) and not 0 <= rate < 1:
            raise ValueError(
                "Invalid value received for argument `rate`. Expected a float "
                "value between 0 and 1. Received: rate=%s" % rate
            )
        self.rate = rate
        self.noise_shape = noise_shape
        self.seed = seed

    def call(self, inputs: Tensor, training: bool | TensorLike = False) -> Tensor:
        def dropped() -> Tensor:
            return nn_ops.dropout(
                inputs, rate=self.rate, noise_shape=self.noise_shape, seed=self.seed
            )

        if isinstance(training, (bool, np.bool_)):
            return dropped() if training else array_ops.identity(inputs)
        t = convert_to_tensor(training, dtype=_dt.bool, name="training")
        return control_flow_ops.cond(t, dropped, lambda: array_ops.identity(inputs))

    def compute_output_shape(self, input_shape: TensorShape | Sequence[int | None]) -> TensorShape:
        return TensorShape(input_shape)


def dropout(
    inputs: TensorLike,
    rate: float = 0.5,
    noise_shape: TensorLike | None = None,
    seed: int | None = None,
    training: bool | TensorLike = False,
    name: str | None = None,
) -> Tensor:
    """The functional form of ``Dropout``.

    ``training`` is a Python bool or a bool tensor (then a ``cond`` picks at run time);
    the default False makes this the identity, as in TF1.
    """
    return Dropout(rate, noise_shape=noise_shape, seed=seed, name=name)(inputs, training=training)


class Flatten(Layer):
    """Reshapes [batch, d1, d2, ...] to [batch, d1 * d2 * ...].

    Args:
      data_format: ``"channels_last"`` (kept for TF1 signatures) or
        ``"channels_first"`` (the non-batch axes are moved last first, as in TF).
      name: as for ``Layer``.
    """

    def __init__(
        self, data_format: str = "channels_last", name: str | None = None, **kwargs: Any
    ) -> None:
        super().__init__(name=name, **kwargs)
        if data_format not in ("channels_last", "channels_first"):
            raise ValueError(
                'The `data_format` argument must be one of "channels_first", '
                '"channels_last". Received: %s' % data_format
            )
        self.data_format = data_format
        self.input_spec = InputSpec(min_ndim=1)

    def call(self, inputs: Tensor) -> Tensor:
        x = inputs
        r = x.shape.ndims
        if self.data_format == "channels_first" and r is not None and r > 2:
            x = array_ops.transpose(x, [0] + list(range(2, r)) + [1])
        if r == 1:
            return array_ops.expand_dims(x, 1)
        rest = x.shape.as_list()[1:] if r is not None else [None]
        if None not in rest:
            n = int(np.prod(cast("list[int]", rest)))
            out = array_ops.reshape(x, [-1, n])
            out.set_shape([x.shape[0], n])
            return out
        return array_ops.reshape(x, array_ops.stack([array_ops.shape(x)[0], -1]))

    def compute_output_shape(self, input_shape: TensorShape | Sequence[int | None]) -> TensorShape:
        s = TensorShape(input_shape).as_list()
        rest = s[1:]
        return TensorShape([s[0], None if None in rest else int(np.prod(rest))])


def flatten(
    inputs: TensorLike, name: str | None = None, data_format: str = "channels_last"
) -> Tensor:
    """The functional form of ``Flatten``: [batch, ...] -> [batch, -1]."""
    return Flatten(data_format=data_format, name=name)(inputs)
