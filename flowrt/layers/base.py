"""The TF1 ``tf.layers.Layer`` base: a variable scope per layer, created on first call.

A layer without a name takes a unique variable scope from its snake-case class name
(``dense``, ``dense_1``, ...); with ``name=`` or ``reuse=`` it opens exactly that scope,
so ``reuse=True`` (or an enclosing reusing scope) shares ``<scope>/kernel`` and
``<scope>/bias`` with an earlier layer of the same name. Every call of one layer object
builds its ops in the name scope opened by its first call and reuses its variables.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .. import dtypes as _dt
from .._core.graph import GraphKeys, Tensor, convert_to_tensor, get_default_graph
from .._core.shape import TensorShape
from ..ops.common import in_graph_of
from ..var_scope import get_variable, variable_scope

if TYPE_CHECKING:
    from .._core.typing import (
        Constraint,
        DTypeLike,
        InitializerLike,
        OpOrTensor,
        Regularizer,
        ShapeLike,
        TensorLike,
    )
    from ..dtypes import DType
    from ..var_scope import VariableScope
    from ..variables import Variable

__all__ = ["Layer", "InputSpec"]


def _snake(name: str) -> str:
    s = re.sub(r"(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", s).lower()


class InputSpec:
    """What a layer accepts: ``ndim``, ``min_ndim``, ``max_ndim`` and fixed sizes of
    some ``axes`` ({axis: size}); checked on every call when set as ``input_spec``."""

    def __init__(
        self,
        dtype: DTypeLike | None = None,
        shape: ShapeLike = None,
        ndim: int | None = None,
        max_ndim: int | None = None,
        min_ndim: int | None = None,
        axes: dict[int, int | None] | None = None,
    ) -> None:
        self.dtype, self.shape, self.ndim = dtype, shape, ndim
        self.max_ndim, self.min_ndim, self.axes = max_ndim, min_ndim, axes or {}


class Layer:
    """Base class of the TF1 layers (``fr.layers.Dense``, ``Conv2D``, ...).

    Args:
      trainable: whether the layer's variables go to ``TRAINABLE_VARIABLES``.
      name: the variable scope name (default: the snake-case class name, made unique).
      dtype: the variables' dtype (default: the inputs' floating dtype, else float32).

    Subclasses implement ``build(input_shape)`` (creating variables with
    ``add_weight``) and ``call(inputs, ...)``.
    """

    def __init__(
        self,
        trainable: bool = True,
        name: str | None = None,
        dtype: DTypeLike | None = None,
        _reuse: bool | None = None,
        _scope: VariableScope | str | None = None,
        **kwargs: Any,
    ) -> None:
        unknown = set(kwargs) - {
            "activity_regularizer",
            "input_shape",
            "batch_input_shape",
            "batch_size",
            "weights",
            "autocast",
        }
        if unknown:
            raise TypeError("Keyword argument not understood: %s" % ", ".join(sorted(unknown)))
        self.trainable = trainable
        self._name = name
        self._base_name = name or _snake(type(self).__name__)
        self._reuse = _reuse
        # The functional forms name their variable scope exactly (``_scope=name``); a layer
        # object's scope is made unique from its name (``my_dense``, ``my_dense_1``), as TF1.
        self._scope_name = _scope if isinstance(_scope, str) else None
        self._scope = None if isinstance(_scope, str) else _scope
        self._dtype = None if dtype is None else _dt.as_dtype(dtype)
        self.activity_regularizer = kwargs.get("activity_regularizer")
        self.built = False
        self.input_spec: InputSpec | None = None
        self._trainable_weights: list = []
        self._non_trainable_weights: list = []
        self._updates: list = []
        self._losses: list = []

    # --- properties ------------------------------------------------------------------

    @property
    def name(self) -> str:
        return self._scope.name.split("/")[-1] if self._scope is not None else self._base_name

    @property
    def scope_name(self) -> str:
        if self._scope is None:
            raise ValueError(
                'No name available for layer scope because the layer "%s" '
                "has not been used yet. The scope name is determined the "
                "first time the layer instance is called." % self._base_name
            )
        return self._scope.name

    @property
    def dtype(self) -> DType | None:
        return self._dtype

    @property
    def trainable_weights(self) -> list[Variable]:
        return list(self._trainable_weights) if self.trainable else []

    @property
    def non_trainable_weights(self) -> list[Variable]:
        if self.trainable:
            return list(self._non_trainable_weights)
        return list(self._trainable_weights) + list(self._non_trainable_weights)

    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights

    @property
    def weights(self) -> list[Variable]:
        return self.trainable_weights + self.non_trainable_weights

    variables = weights

    @property
    def updates(self) -> list[OpOrTensor]:
        return list(self._updates)

    @property
    def losses(self) -> list[Tensor]:
        return list(self._losses)

    # --- building --------------------------------------------------------------------

    def add_weight(
        self,
        name: str,
        shape: ShapeLike,
        dtype: DTypeLike | None = None,
        initializer: InitializerLike = None,
        regularizer: Regularizer | None = None,
        trainable: bool = True,
        constraint: Constraint | None = None,
        collections: Sequence[str] | None = None,
        **kwargs: Any,
    ) -> Variable:
        """Creates (or, under reuse, gets) the variable ``<layer scope>/<name>``."""
        trainable = trainable and self.trainable
        v = get_variable(
            name,
            shape=shape,
            dtype=dtype or self._dtype or _dt.float32,
            initializer=initializer,
            regularizer=regularizer,
            trainable=trainable,
            constraint=constraint,
            collections=collections,
        )
        (self._trainable_weights if trainable else self._non_trainable_weights).append(v)
        if regularizer is not None:
            self._losses.extend(
                t
                for t in get_default_graph().get_collection(GraphKeys.REGULARIZATION_LOSSES)
                if t.name.startswith(v.op.name + "/Regularizer/")
            )
        return v

    add_variable = add_weight

    def add_update(self, updates: OpOrTensor | Sequence[OpOrTensor], inputs: Any = None) -> None:
        self._updates.extend(updates if isinstance(updates, (list, tuple)) else [updates])

    def add_loss(self, losses: Tensor | Sequence[Tensor], inputs: Any = None) -> None:
        self._losses.extend(losses if isinstance(losses, (list, tuple)) else [losses])

    def build(self, input_shape: Any) -> None:
        self.built = True

    def call(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        """The layer's computation (the identity here): subclasses override it with
        their own arguments (``training=``, ...)."""
        return inputs

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        raise NotImplementedError("%s does not compute output shapes" % type(self).__name__)

    # --- calling ---------------------------------------------------------------------

    def _set_scope(self) -> None:
        if self._scope is not None:
            return
        if self._scope_name or self._reuse:
            cm = variable_scope(self._scope_name or self._name or self._base_name)
        else:
            cm = variable_scope(None, default_name=self._base_name)
        with cm as scope:
            self._scope = scope

    def __call__(self, inputs: TensorLike | Sequence[TensorLike], *args: Any, **kwargs: Any) -> Any:
        """Builds the layer on first call (creating its variables), then applies it.

        Both happen in the graph of ``inputs`` (TF1), whatever graph is the default.
        """
        with in_graph_of([inputs, args]):
            x: Tensor | list[Tensor]
            if isinstance(inputs, (list, tuple)):
                x = [convert_to_tensor(t) for t in inputs]
                first = x[0]
            else:
                x = first = convert_to_tensor(inputs)
            if self._dtype is None and isinstance(first, Tensor):
                self._dtype = first.dtype if first.dtype.is_floating else _dt.float32
            self._set_scope()
            scope = self._scope
            assert scope is not None  # set by _set_scope
            g = get_default_graph()
            reuse = True if self.built else self._reuse
            for t in x if isinstance(x, list) else [x]:
                check_input_spec(self, t)
            with variable_scope(scope, reuse=reuse, auxiliary_name_scope=False):
                with g.name_scope(scope.original_name_scope):
                    if not self.built:
                        self.build(first.shape if not isinstance(x, list) else [t.shape for t in x])
                        self.built = True
                    out = self.call(x, *args, **kwargs)
                    if self.activity_regularizer is not None:
                        with g.name_scope("ActivityRegularizer"):
                            reg = self.activity_regularizer(out)
                        if reg is not None:
                            self._losses.append(reg)
                            g.add_to_collection(GraphKeys.REGULARIZATION_LOSSES, reg)
            return out

    apply = __call__


def check_input_spec(layer: Layer, x: Tensor) -> None:
    """TF's InputSpec check of ``layer.input_spec``: ValueError naming the layer."""
    spec = layer.input_spec
    r = x.shape.ndims
    if spec is None or r is None:
        return
    what = "Input 0 of layer %s is incompatible with the layer: " % layer.name
    full = " Full shape received: %s" % TensorShape(x.shape)
    if spec.ndim is not None and r != spec.ndim:
        raise ValueError(what + "expected ndim=%d, found ndim=%d." % (spec.ndim, r) + full)
    if spec.min_ndim is not None and r < spec.min_ndim:
        raise ValueError(what + "expected min_ndim=%d, found ndim=%d." % (spec.min_ndim, r) + full)
    if spec.max_ndim is not None and r > spec.max_ndim:
        raise ValueError(what + "expected max_ndim=%d, found ndim=%d." % (spec.max_ndim, r) + full)
    for axis, size in spec.axes.items():
        got = x.shape[axis]
        if got is not None and size is not None and got != size:
            raise ValueError(
                what + "expected axis %d of input shape to have value %d, got "
                "%d." % (axis, size, got) + full
            )
