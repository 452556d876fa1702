"""``keras.optimizers.SGD`` and ``Adam``: TF2's ``apply_gradients`` on fr.train's rules.

Each wraps the matching ``fr.train`` optimizer, so updates run the same fused kernels
(``ResourceApplyGradientDescent``, ``ResourceApplyMomentum``,
``ResourceApplyAdam``) and give the same values. What differs
is TF2's bookkeeping: slots and ``beta1_power``-style accumulators belong to the
optimizer object, not to one graph, so every trace of a training function (and every
function) updates the same ones; ``iterations`` counts applied steps.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, cast

from .. import dtypes as _dt
from .._core.graph import get_default_graph
from ..train import optimizers as _tf1
from ..variables import Variable

if TYPE_CHECKING:
    from .._core.graph import Tensor
    from .._core.typing import TensorLike
    from ..ops.indexed_slices import IndexedSlices
    from ..tape import GradientTape

__all__ = ["Optimizer", "SGD", "Adam"]


class _OwnedState:
    """Slots keyed by variable object and accumulators keyed by name, for any graph."""

    def get_slot(self, var, name):
        return self._slots.get(name, {}).get(id(var))

    def _get_or_make_slot(self, var, value, slot_name, op_name):
        named = self._slot_dict(slot_name)
        if id(var) not in named:
            named[id(var)] = _tf1._create_slot_var(var, value, op_name)
        return named[id(var)]

    def _get_non_slot_variable(self, name, graph=None):
        return self._non_slot_dict.get(name)

    def _create_non_slot_variable(self, initial_value, name, colocate_with):
        v = self._non_slot_dict.get(name)
        if v is None:
            g = colocate_with.graph
            with g.as_default(), g.colocate_with(colocate_with):
                v = Variable(initial_value, name=name, trainable=False)
            self._non_slot_dict[name] = v
        return v

    def variables(self):
        out = list(self._non_slot_dict.values())
        for named in self._slots.values():
            out.extend(named.values())
        return out


class _GD(_OwnedState, _tf1.GradientDescentOptimizer):
    pass


class _Momentum(_OwnedState, _tf1.MomentumOptimizer):
    pass


class _Adam(_OwnedState, _tf1.AdamOptimizer):
    pass


class Optimizer:
    """Base of the Keras optimizers: ``apply_gradients`` and ``minimize``.

    Note (flowrt): hyperparameters are fixed when the optimizer is created (pass an
    ``fr.Variable`` to change the learning rate while training); no ``get_config``,
    schedule objects, gradient clipping arguments or ``build``.
    """

    def __init__(self, name: str, impl: _tf1.Optimizer) -> None:
        self._name = name
        self._impl = impl
        self._learning_rate = getattr(self, "_learning_rate", None)
        self._iterations: Variable | None = None

    @property
    def name(self) -> str:
        return self._name

    @property
    def learning_rate(self) -> TensorLike | Callable[[], TensorLike] | None:
        """The learning rate given at creation (a number, callable or variable)."""
        return self._learning_rate

    @learning_rate.setter
    def learning_rate(self, value: TensorLike | Callable[[], TensorLike]) -> None:
        if getattr(self, "_learning_rate", None) is not None:
            raise AttributeError(
                "flowrt's Keras optimizers take the learning rate when created; to change "
                "it while training, create the optimizer with an fr.Variable (assign to "
                "it) or a callable"
            )
        self._learning_rate = value

    @property
    def iterations(self) -> Variable:
        """The number of ``apply_gradients`` steps run (an int64 variable)."""
        if self._iterations is None:
            self._iterations = Variable(0, dtype=_dt.int64, trainable=False, name="iter")
        return self._iterations

    def apply_gradients(
        self,
        grads_and_vars: Iterable[tuple[TensorLike | IndexedSlices | None, Variable]],
        name: str | None = None,
    ) -> Tensor:
        """Updates each variable in place from its gradient; then ``iterations += 1``.

        Args:
          grads_and_vars: ``(gradient, variable)`` pairs, e.g. ``zip(grads, vars)``;
            pairs whose gradient is None are skipped.

        Returns:
          The new value of ``iterations`` (a tensor that depends on every update).

        Raises:
          ValueError: every gradient is None.
        """
        pairs = list(grads_and_vars)
        kept = [(g, v) for g, v in pairs if g is not None]
        if not kept:
            raise ValueError(
                "No gradients provided for any variable: %s." % ([v.name for _, v in pairs],)
            )
        it = self.iterations
        train_op = self._impl.apply_gradients(kept, name=name or self._name)
        with get_default_graph().control_dependencies([train_op]):
            # assign_add reads the new value back (read_value=True): a tensor.
            return cast("Tensor", it.assign_add(1))

    def minimize(
        self,
        loss: Tensor | Callable[[], Tensor],
        var_list: Sequence[Variable] | Callable[[], Sequence[Variable]],
        tape: GradientTape | None = None,
    ) -> Tensor:
        """``apply_gradients`` of ``tape.gradient(loss, var_list)``.

        Args:
          loss: a tensor computed under ``tape``, or a callable computing it.
          var_list: the variables to update.
          tape: the ``fr.GradientTape`` that recorded ``loss`` (made here for a callable).
        """
        from ..tape import GradientTape

        var_list = list(var_list() if callable(var_list) else var_list)
        if callable(loss):
            with GradientTape() as tape:
                loss = loss()
        elif tape is None:
            raise ValueError(
                "`tape` is required when a `Tensor` loss is passed. Received: "
                "loss=%s, tape=None." % (loss,)
            )
        grads = tape.gradient(loss, var_list)
        return self.apply_gradients(zip(grads, var_list))

    def variables(self) -> list[Variable]:
        """The optimizer's own variables: ``iterations``, slots and accumulators."""
        own: list = [self._iterations] if self._iterations is not None else []
        return own + self._impl.variables()


class SGD(Optimizer):
    """Gradient descent, with optional (Nesterov) momentum.

    ``var -= lr * grad``; with momentum, ``velocity = momentum * velocity - lr * grad;
    var += velocity`` (fr.train's Momentum rule with ``accum = -velocity / lr``).
    """

    def __init__(
        self,
        learning_rate: TensorLike | Callable[[], TensorLike] = 0.01,
        momentum: float = 0.0,
        nesterov: bool = False,
        name: str = "SGD",
        **kwargs: Any,
    ) -> None:
        if not 0.0 <= momentum <= 1.0:
            raise ValueError("`momentum` must be between [0, 1]. Received: momentum=%s" % momentum)
        self.learning_rate = learning_rate
        self.momentum = momentum
        self.nesterov = nesterov
        impl = (
            _Momentum(learning_rate, momentum, use_nesterov=nesterov, name=name)
            if momentum
            else _GD(learning_rate, name=name)
        )
        super().__init__(name, impl)


class Adam(Optimizer):
    """Adam, with fr.train's AdamOptimizer rule (Keras' defaults: ``epsilon=1e-7``)."""

    def __init__(
        self,
        learning_rate: TensorLike | Callable[[], TensorLike] = 0.001,
        beta_1: TensorLike | Callable[[], TensorLike] = 0.9,
        beta_2: TensorLike | Callable[[], TensorLike] = 0.999,
        epsilon: TensorLike | Callable[[], TensorLike] = 1e-7,
        amsgrad: bool = False,
        name: str = "Adam",
        **kwargs: Any,
    ) -> None:
        if amsgrad:
            raise ValueError("Adam(amsgrad=True) is not supported by flowrt")
        self.learning_rate = learning_rate
        self.beta_1, self.beta_2, self.epsilon = beta_1, beta_2, epsilon
        super().__init__(name, _Adam(learning_rate, beta_1, beta_2, epsilon, name=name))
