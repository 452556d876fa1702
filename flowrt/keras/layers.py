"""``keras.layers.Layer``, ``Dense``, and the sub-classed ``Model``/``Sequential``.

A layer is a ``fr.Module``: its weights are variables made by ``add_weight`` in
``build``, which runs once, on the first call, inside the layer's name scope. Called
inside a ``@fr.function`` the weights are created on the first trace (lifted out of the
function, TF2's rule); called in TF1 graph code they are ordinary graph variables (run
``fr.global_variables_initializer()``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from .. import dtypes as _dt
from .. import nest, nn
from .._core.graph import Tensor, convert_to_tensor
from .._core.shape import TensorShape
from ..module import Module
from ..ops import array_ops, linalg_ops, math_ops, slicing_ops
from ..variables import Variable
from . import activations, initializers

if TYPE_CHECKING:
    from .._core.typing import Constraint, DTypeLike, Regularizer, TensorLike

__all__ = ["Layer", "Dense", "Model", "Sequential"]


class Layer(Module):
    """The base layer (TF2's ``tf.keras.layers.Layer``).

    Args:
      trainable: whether its weights are trainable.
      name: the layer's name (default: class name in snake_case, made unique).
      dtype: the dtype of its weights and computations (default float32).

    Sub-classes create weights in ``build(input_shape)`` with ``add_weight`` and compute
    in ``call(inputs, ...)``; ``layer(inputs)`` builds once and calls.
    """

    def __init__(
        self,
        trainable: bool = True,
        name: str | None = None,
        dtype: DTypeLike | None = None,
        **kwargs: Any,
    ) -> None:
        allowed = {"input_shape", "input_dim", "batch_input_shape", "dynamic"}
        bad = set(kwargs) - allowed
        if bad:
            raise TypeError("Keyword argument not understood: %s" % sorted(bad)[0])
        self._weights: list = []
        super().__init__(name)
        self._name = self._scope_name.rstrip("/").rsplit("/", 1)[-1]
        self.trainable = trainable
        self._dtype = _dt.as_dtype(dtype or _dt.float32)
        self.built = False

    @property
    def dtype(self) -> _dt.DType:
        return self._dtype

    def build(self, input_shape: Any) -> None:
        """Creates the weights (override); called once, before the first ``call``."""
        self.built = True

    def call(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        """The layer's computation (override)."""
        return inputs

    def __call__(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        with self.name_scope:
            if not self.built:
                shapes = [
                    x.shape if isinstance(x, Tensor) else TensorShape(getattr(x, "shape", None))
                    for x in nest.flatten(inputs)
                ]
                self.build(shapes[0] if len(shapes) == 1 else nest.pack_leaves(inputs, shapes))
                self.built = True
            return self.call(inputs, *args, **kwargs)

    def add_weight(
        self,
        name: str,
        shape: TensorShape | Sequence[int | None] | None = None,
        dtype: DTypeLike | None = None,
        initializer: str | Callable[..., Tensor] | None = None,
        regularizer: Regularizer | None = None,
        trainable: bool = True,
        constraint: Constraint | None = None,
        **kwargs: Any,
    ) -> Variable:
        """Creates a weight variable ``<layer scope>/<name>`` and tracks it."""
        dtype = _dt.as_dtype(dtype or self._dtype)
        shape = [] if shape is None else list(shape)
        init = initializers.get(initializer)
        if init is None:
            if dtype.is_floating:
                init = initializers.get("glorot_uniform")
            elif dtype.is_integer or dtype is _dt.bool:
                init = initializers.get("zeros")
            else:
                raise ValueError(
                    "An initializer for variable %s of type %s is required for "
                    "layer %s" % (name, dtype.name, self.name)
                )
        assert init is not None  # "glorot_uniform" and "zeros" are known names
        with self.name_scope:
            v = Variable(
                lambda: init(shape, dtype=dtype),
                name=name,
                dtype=dtype,
                trainable=trainable and self.trainable,
                constraint=constraint,
            )
        self._weights.append(v)
        return v

    def _walk(self, want: Callable[[object], bool]) -> tuple[Any, ...]:
        # Keras order: each layer's weights in creation order, then sub-layers' in the
        # order they were assigned (tf.Module sorts attribute names instead).
        out, seen = [], {id(self)}

        def visit(x: object) -> None:
            if isinstance(x, (list, tuple)):
                for y in x:
                    visit(y)
            elif isinstance(x, dict):
                for y in x.values():
                    visit(y)
            elif isinstance(x, (Variable, Module)) and id(x) not in seen:
                seen.add(id(x))
                if want(x):
                    out.append(x)
                if isinstance(x, Module):
                    for y in vars(x).values():
                        visit(y)

        for y in vars(self).values():
            visit(y)
        return tuple(out)

    @property
    def weights(self) -> list:
        return list(self.variables)

    @property
    def trainable_weights(self) -> list:
        return list(self.trainable_variables)

    @property
    def non_trainable_weights(self) -> list:
        return list(self.non_trainable_variables)

    @property
    def layers(self) -> list:
        """The layers directly or indirectly inside this one."""
        return [m for m in self.submodules if isinstance(m, Layer)]


class Dense(Layer):
    """``activation(inputs @ kernel + bias)`` (TF2's ``tf.keras.layers.Dense``).

    Args:
      units: the output size.
      activation: a name ("relu", ...), a callable, or None (linear).
      use_bias: whether to add a bias.
      kernel_initializer: a name or an initializer.
      bias_initializer: a name or an initializer.
    """

    def __init__(
        self,
        units: int,
        activation: str | Callable[[Tensor], Tensor] | None = None,
        use_bias: bool = True,
        kernel_initializer: str | Callable[..., Tensor] | None = "glorot_uniform",
        bias_initializer: str | Callable[..., Tensor] | None = "zeros",
        kernel_regularizer: Regularizer | None = None,
        bias_regularizer: Regularizer | None = None,
        activity_regularizer: Regularizer | None = None,
        kernel_constraint: Constraint | None = None,
        bias_constraint: Constraint | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.units = int(units)
        if self.units <= 0:
            raise ValueError(
                "Received an invalid value for `units`, expected a positive "
                "integer. Received: units=%s" % units
            )
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)

    def build(self, input_shape: TensorShape | Sequence[int | None]) -> None:
        shape = TensorShape(input_shape)
        last = shape.as_list()[-1] if shape.ndims else None
        if last is None:
            raise ValueError(
                "The last dimension of the inputs to a Dense layer should be "
                "defined. Found None. Full input shape received: %s" % shape
            )
        self.kernel = self.add_weight(
            "kernel", [last, self.units], initializer=self.kernel_initializer
        )
        self.bias = (
            self.add_weight("bias", [self.units], initializer=self.bias_initializer)
            if self.use_bias
            else None
        )
        self.built = True

    def call(self, inputs: TensorLike) -> Tensor:
        x = convert_to_tensor(inputs)
        if x.dtype is not self.dtype and x.dtype.is_floating:
            x = math_ops.cast(x, self.dtype)
        if x.shape.ndims == 2:
            y = linalg_ops.matmul(x, self.kernel)
        else:
            lead = array_ops.shape(x)[:-1]
            flat = array_ops.reshape(x, [-1, self.kernel.shape.as_list()[0]])
            y = array_ops.reshape(
                linalg_ops.matmul(flat, self.kernel), slicing_ops.concat([lead, [self.units]], 0)
            )
        if self.use_bias:
            assert self.bias is not None  # made by build()
            y = nn.bias_add(y, self.bias)
        return self.activation(y)


class Model(Layer):
    """A sub-classed model (TF2's ``tf.keras.Model``): layers as attributes, ``call``.

    Note (flowrt): no ``compile``/``fit``/``save``; train with ``fr.GradientTape`` and
    an optimizer's ``apply_gradients`` inside an ``@fr.function``.
    """

    def call(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("Model %s: sub-classes implement call(inputs)" % self.name)


class Sequential(Model):
    """A stack of layers called in order."""

    def __init__(self, layers: Iterable[Layer] | None = None, name: str | None = None) -> None:
        super().__init__(name=name)
        self._stack: list = []
        for layer in layers or []:
            self.add(layer)

    def add(self, layer: Layer) -> None:
        if not isinstance(layer, Layer):
            raise TypeError(
                "The added layer must be an instance of class Layer. Received: "
                "layer=%r of type %s." % (layer, type(layer))
            )
        self._stack.append(layer)

    def call(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        x = inputs
        for layer in self._stack:
            x = layer(x)
        return x
