"""``fr.layers.BatchNormalization`` / ``batch_normalization`` (TF1 semantics).

Variables ``<name>/gamma``, ``beta``, ``moving_mean`` and ``moving_variance`` (the
moving ones not trainable). In training the batch's mean and (biased) variance
normalize the input, and ``moving_x -= (moving_x - batch_x) * (1 - momentum)`` ops are
added to the ``UPDATE_OPS`` collection, which the training op must depend on, as in
TF1::

    with fr.control_dependencies(fr.get_collection(fr.GraphKeys.UPDATE_OPS)):
        train_op = optimizer.minimize(loss)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import dtypes as _dt
from .._core.graph import GraphKeys, convert_to_tensor, get_default_graph
from .._core.shape import TensorShape
from ..init_ops import ones_initializer, zeros_initializer
from ..ops import array_ops, control_flow_ops, math_ops, nn_ops, state_ops
from .base import Layer

if TYPE_CHECKING:
    from .._core.graph import Graph, Tensor
    from .._core.typing import Constraint, InitializerLike, Regularizer, TensorLike
    from ..variables import Variable

__all__ = ["BatchNormalization", "batch_normalization"]


class BatchNormalization(Layer):
    """Normalizes along ``axis`` with batch statistics (training) or moving averages.

    Args:
      axis: the feature axis (int; default -1, the channels of NHWC).
      momentum: the moving averages' decay (default 0.99).
      epsilon: added to the variance (default 1e-3).
      center: whether to add ``beta``.
      scale: whether to multiply by ``gamma``.
      beta_initializer: default zeros.
      gamma_initializer: default ones.
      moving_mean_initializer: default zeros.
      moving_variance_initializer: default ones.
      beta_regularizer: as for ``Dense``.
      gamma_regularizer: as for ``Dense``.
      beta_constraint: as for ``Dense``.
      gamma_constraint: as for ``Dense``.
      trainable: as for ``Layer``.
      name: as for ``Layer``.

    Note (flowrt): ``renorm``, ``virtual_batch_size`` and ``adjustment`` are not
    supported (NotImplementedError). ``fused`` picks the statistics as TF1 does: where
    TF1 takes its fused kernel (4-D input, ``axis`` 1 or 3, ``fused`` not False), the
    moving variance moves toward the batch variance with Bessel's correction
    (``n / (n - 1)``, ``n`` the values per channel), as TF1's fused kernel gives it;
    elsewhere toward the biased batch variance. The batch itself is normalized with the
    biased variance in both cases, as in TF1.
    """

    def __init__(
        self,
        axis: int = -1,
        momentum: float = 0.99,
        epsilon: float = 1e-3,
        center: bool = True,
        scale: bool = True,
        beta_initializer: InitializerLike = zeros_initializer(),
        gamma_initializer: InitializerLike = ones_initializer(),
        moving_mean_initializer: InitializerLike = zeros_initializer(),
        moving_variance_initializer: InitializerLike = ones_initializer(),
        beta_regularizer: Regularizer | None = None,
        gamma_regularizer: Regularizer | None = None,
        beta_constraint: Constraint | None = None,
        gamma_constraint: Constraint | None = None,
        renorm: bool = False,
        renorm_clipping: dict[str, float] | None = None,
        renorm_momentum: float = 0.99,
        fused: bool | None = None,
        trainable: bool = True,
        virtual_batch_size: int | None = None,
        adjustment: Callable[..., Any] | None = None,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(trainable=trainable, name=name, **kwargs)
        if renorm or virtual_batch_size is not None or adjustment is not None:
            raise NotImplementedError(
                "batch_normalization: renorm, virtual_batch_size and "
                "adjustment are not supported by flowrt"
            )
        if not isinstance(axis, int):
            raise TypeError("batch_normalization: axis must be an int, got %r" % (axis,))
        self.axis = axis
        self.momentum = momentum
        self.epsilon = epsilon
        self.center, self.scale = center, scale
        self.beta_initializer, self.gamma_initializer = beta_initializer, gamma_initializer
        self.moving_mean_initializer = moving_mean_initializer
        self.moving_variance_initializer = moving_variance_initializer
        self.beta_regularizer, self.gamma_regularizer = beta_regularizer, gamma_regularizer
        self.beta_constraint, self.gamma_constraint = beta_constraint, gamma_constraint
        self.fused = fused
        self.gamma: Variable | None = None
        self.beta: Variable | None = None
        self.moving_mean: Variable | None = None
        self.moving_variance: Variable | None = None

    def build(self, input_shape: TensorShape) -> None:
        s = TensorShape(input_shape)
        if s.ndims is None:
            raise ValueError("Input has undefined rank.")
        if not -s.ndims <= self.axis < s.ndims:
            raise ValueError("Invalid axis: %d" % self.axis)
        self._axis = self.axis % s.ndims
        c = s[self._axis]
        if c is None:
            raise ValueError("Input has undefined `axis` dimension. Input shape: %s" % s)
        dt = (
            self._dtype
            if self._dtype is not None and self._dtype is not _dt.float16
            else _dt.float32
        )
        if self.scale:
            self.gamma = self.add_weight(
                "gamma",
                [c],
                dtype=dt,
                initializer=self.gamma_initializer,
                regularizer=self.gamma_regularizer,
                constraint=self.gamma_constraint,
            )
        if self.center:
            self.beta = self.add_weight(
                "beta",
                [c],
                dtype=dt,
                initializer=self.beta_initializer,
                regularizer=self.beta_regularizer,
                constraint=self.beta_constraint,
            )
        self.moving_mean = self.add_weight(
            "moving_mean", [c], dtype=dt, initializer=self.moving_mean_initializer, trainable=False
        )
        self.moving_variance = self.add_weight(
            "moving_variance",
            [c],
            dtype=dt,
            initializer=self.moving_variance_initializer,
            trainable=False,
        )
        self.built = True

    def _shaped(self, v: Tensor | Variable, rank: int) -> Tensor | Variable:
        if self._axis == rank - 1:
            return v
        shape = [1] * rank
        shape[self._axis] = -1
        return array_ops.reshape(v, shape)

    def _update(self, var: Variable, value: Tensor, decay: Tensor, g: Graph) -> None:
        with g.name_scope("AssignMovingAvg"):
            delta = math_ops.multiply(math_ops.subtract(var, value), decay)
            up = state_ops.assign_sub(var, delta)
        self.add_update(up)
        g.add_to_collection(GraphKeys.UPDATE_OPS, up)

    def _moving_variance_sample(self, x: Tensor, bvar: Tensor) -> Tensor:
        """The batch variance the moving variance moves toward. TF1 takes the fused kernel
        for 4-D inputs normalized on axis 1 or 3 (unless ``fused=False``), whose batch
        variance carries Bessel's correction ``n / (n - 1)``, ``n`` the values per channel
        (Keras keeps it: ``_bessels_correction_test_only``); elsewhere the biased one."""
        if self.fused is False or x.shape.ndims != 4 or self._axis not in (1, 3):
            return bvar
        with get_default_graph().name_scope("bessel_correction"):
            n = math_ops.cast(
                math_ops.floordiv(array_ops.size(x), array_ops.size(bvar)), bvar.dtype
            )
            return bvar * (n / math_ops.maximum(n - 1.0, 1.0))

    def call(self, inputs: Tensor, training: bool | TensorLike = False) -> Tensor:
        g = get_default_graph()
        moving_mean, moving_variance = self.moving_mean, self.moving_variance
        assert moving_mean is not None and moving_variance is not None  # made by build()
        x = inputs
        rank = x.shape.ndims
        assert rank is not None  # build() rejects an unknown rank
        axes = [i for i in range(rank) if i != self._axis]
        in_dtype = x.dtype
        if in_dtype is _dt.float16:
            x = math_ops.cast(x, _dt.float32)
        static = isinstance(training, (bool, np.bool_))
        mean: Tensor | Variable
        var: Tensor | Variable
        if static and not training:
            mean, var = moving_mean, moving_variance
        else:
            bmean, bvar = nn_ops.moments(x, axes)
            if static:
                mean, var = bmean, bvar
                decay = convert_to_tensor(1.0 - self.momentum, bmean.dtype)
            else:
                t = convert_to_tensor(training, dtype=_dt.bool, name="training")
                mean, var = control_flow_ops.cond(
                    t,
                    lambda: (array_ops.identity(bmean), array_ops.identity(bvar)),
                    lambda: (moving_mean.read_value(), moving_variance.read_value()),
                )
                decay = math_ops.where(
                    t,
                    convert_to_tensor(1.0 - self.momentum, bmean.dtype),
                    convert_to_tensor(0.0, bmean.dtype),
                )
            self._update(moving_mean, bmean, decay, g)
            self._update(moving_variance, self._moving_variance_sample(x, bvar), decay, g)
        out = nn_ops.batch_normalization(
            x,
            self._shaped(mean, rank),
            self._shaped(var, rank),
            None if self.beta is None else self._shaped(self.beta, rank),
            None if self.gamma is None else self._shaped(self.gamma, rank),
            self.epsilon,
        )
        if out.dtype is not in_dtype:
            out = math_ops.cast(out, in_dtype)
        return out

    def compute_output_shape(self, input_shape: TensorShape | Sequence[int | None]) -> TensorShape:
        return TensorShape(input_shape)


def batch_normalization(
    inputs: TensorLike,
    axis: int = -1,
    momentum: float = 0.99,
    epsilon: float = 1e-3,
    center: bool = True,
    scale: bool = True,
    beta_initializer: InitializerLike = zeros_initializer(),
    gamma_initializer: InitializerLike = ones_initializer(),
    moving_mean_initializer: InitializerLike = zeros_initializer(),
    moving_variance_initializer: InitializerLike = ones_initializer(),
    beta_regularizer: Regularizer | None = None,
    gamma_regularizer: Regularizer | None = None,
    beta_constraint: Constraint | None = None,
    gamma_constraint: Constraint | None = None,
    training: bool | TensorLike = False,
    trainable: bool = True,
    name: str | None = None,
    reuse: bool | None = None,
    renorm: bool = False,
    renorm_clipping: dict[str, float] | None = None,
    renorm_momentum: float = 0.99,
    fused: bool | None = None,
    virtual_batch_size: int | None = None,
    adjustment: Callable[..., Any] | None = None,
) -> Tensor:
    """The functional form of ``BatchNormalization``.

    ``training`` is a Python bool or a bool tensor; when it may be true the moving-average
    updates go to ``UPDATE_OPS`` (run them with the train op).
    """
    layer = BatchNormalization(
        axis=axis,
        momentum=momentum,
        epsilon=epsilon,
        center=center,
        scale=scale,
        beta_initializer=beta_initializer,
        gamma_initializer=gamma_initializer,
        moving_mean_initializer=moving_mean_initializer,
        moving_variance_initializer=moving_variance_initializer,
        beta_regularizer=beta_regularizer,
        gamma_regularizer=gamma_regularizer,
        beta_constraint=beta_constraint,
        gamma_constraint=gamma_constraint,
        renorm=renorm,
        renorm_clipping=renorm_clipping,
        renorm_momentum=renorm_momentum,
        fused=fused,
        trainable=trainable,
        virtual_batch_size=virtual_batch_size,
        adjustment=adjustment,
        name=name,
        _reuse=reuse,
        _scope=name,
    )
    return layer(inputs, training=training)


BatchNorm = BatchNormalization
