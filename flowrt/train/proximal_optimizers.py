"""TF1's proximal optimizers, whose update ends with the proximal step of L1/L2
regularization (the L1 part sets small weights to exactly zero, as sparse linear
models want): ``FtrlOptimizer`` (FTRL-Proximal, McMahan et al.),
``ProximalGradientDescentOptimizer`` and ``ProximalAdagradOptimizer``. Their update
ops are rows of ``apply_ops``' table; their rules are compiled loops in
``update_rules``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from .apply_ops import apply_op
from .optimizers import Optimizer

if TYPE_CHECKING:
    from .._core.typing import TensorLike

__all__ = [
    "FtrlOptimizer",
    "ProximalAdagradOptimizer",
    "ProximalGradientDescentOptimizer",
]


def _check_not_negative(name: str, value: float) -> None:
    if value < 0.0:
        raise ValueError("%s %f needs to be positive or zero" % (name, value))


class ProximalGradientDescentOptimizer(Optimizer):
    """Gradient descent with a proximal L1/L2 step: ``v = var - learning_rate * grad``;
    ``var = sign(v) * max(|v| - learning_rate * l1, 0) / (1 + learning_rate * l2)``."""

    def __init__(
        self,
        learning_rate: TensorLike | Callable[[], TensorLike],
        l1_regularization_strength: float = 0.0,
        l2_regularization_strength: float = 0.0,
        use_locking: bool = False,
        name: str = "ProximalGradientDescent",
    ) -> None:
        super().__init__(use_locking, name)
        self._lr = learning_rate
        self._l1 = l1_regularization_strength
        self._l2 = l2_regularization_strength

    def _prepare(self):
        self._make_tensors(learning_rate=self._lr, l1=self._l1, l2=self._l2)

    def _inputs(self, var):
        return {
            "var": var.handle,
            "alpha": self._hyper("learning_rate", var),
            "l1": self._hyper("l1", var),
            "l2": self._hyper("l2", var),
        }

    def _apply_dense(self, grad, var):
        return apply_op("ResourceApplyProximalGradientDescent", {**self._inputs(var), "grad": grad})

    def _apply_sparse(self, grad, var):
        return apply_op(
            "ResourceSparseApplyProximalGradientDescent",
            {**self._inputs(var), "grad": grad.values, "indices": grad.indices},
        )


class ProximalAdagradOptimizer(Optimizer):
    """Adagrad with a proximal L1/L2 step: ``accum += grad ** 2``;
    ``lr_t = learning_rate / sqrt(accum)``; ``v = var - lr_t * grad``;
    ``var = sign(v) * max(|v| - lr_t * l1, 0) / (1 + lr_t * l2)``. Slot
    ``accumulator`` (variable ``<var>/ProximalAdagrad``) starting at
    ``initial_accumulator_value``."""

    def __init__(
        self,
        learning_rate: TensorLike | Callable[[], TensorLike],
        initial_accumulator_value: float = 0.1,
        l1_regularization_strength: float = 0.0,
        l2_regularization_strength: float = 0.0,
        use_locking: bool = False,
        name: str = "ProximalAdagrad",
    ) -> None:
        if initial_accumulator_value <= 0.0:
            raise ValueError(
                "initial_accumulator_value must be positive: %s" % initial_accumulator_value
            )
        super().__init__(use_locking, name)
        self._lr = learning_rate
        self._initial_accumulator_value = initial_accumulator_value
        self._l1 = l1_regularization_strength
        self._l2 = l2_regularization_strength

    def _create_slots(self, var_list):
        for v in var_list:
            self._get_or_make_slot(v, self._initial_accumulator_value, "accumulator", self._name)

    def _prepare(self):
        self._make_tensors(learning_rate=self._lr, l1=self._l1, l2=self._l2)

    def _inputs(self, var):
        return {
            "var": var.handle,
            "accum": self.get_slot(var, "accumulator").handle,
            "lr": self._hyper("learning_rate", var),
            "l1": self._hyper("l1", var),
            "l2": self._hyper("l2", var),
        }

    def _apply_dense(self, grad, var):
        return apply_op("ResourceApplyProximalAdagrad", {**self._inputs(var), "grad": grad})

    def _apply_sparse(self, grad, var):
        return apply_op(
            "ResourceSparseApplyProximalAdagrad",
            {**self._inputs(var), "grad": grad.values, "indices": grad.indices},
        )


class FtrlOptimizer(Optimizer):
    """FTRL-Proximal, TF1's ``tf.train.FtrlOptimizer``: per weight an accumulator
    ``accum`` of squared gradients and a ``linear`` term; each step
    ``linear += grad - (accum_new ** -p - accum ** -p) / learning_rate * var`` and
    ``var = (clip(linear, -l1, l1) - linear) / (accum_new ** -p / learning_rate + 2 * l2)``
    (``p = learning_rate_power``). With ``l2_shrinkage_regularization_strength`` the
    gradient in ``linear`` is ``grad + 2 * shrinkage * var`` (TF's ``ApplyFtrlV2``);
    ``beta`` adds ``beta / (2 * learning_rate)`` to ``l2``.

    Slots ``accum`` (starting at ``initial_accumulator_value``) and ``linear`` (zero):
    variables ``<var>/<accum_name or name>`` and ``<var>/<linear_name or name>``
    (``w/Ftrl``, ``w/Ftrl_1``).
    """

    def __init__(
        self,
        learning_rate: TensorLike | Callable[[], TensorLike],
        learning_rate_power: float = -0.5,
        initial_accumulator_value: float = 0.1,
        l1_regularization_strength: float = 0.0,
        l2_regularization_strength: float = 0.0,
        use_locking: bool = False,
        name: str = "Ftrl",
        accum_name: str | None = None,
        linear_name: str | None = None,
        l2_shrinkage_regularization_strength: float = 0.0,
        beta: float | None = None,
    ) -> None:
        super().__init__(use_locking, name)
        if initial_accumulator_value < 0.0:
            raise ValueError(
                "initial_accumulator_value %f needs to be be positive or zero"
                % initial_accumulator_value
            )
        if learning_rate_power > 0.0:
            raise ValueError(
                "learning_rate_power %f needs to be negative or zero" % learning_rate_power
            )
        _check_not_negative("l1_regularization_strength", l1_regularization_strength)
        _check_not_negative("l2_regularization_strength", l2_regularization_strength)
        _check_not_negative(
            "l2_shrinkage_regularization_strength", l2_shrinkage_regularization_strength
        )
        self._lr = learning_rate
        self._lr_power = learning_rate_power
        self._initial_accumulator_value = initial_accumulator_value
        self._l1 = l1_regularization_strength
        self._l2 = l2_regularization_strength
        self._beta = 0.0 if beta is None else beta
        self._l2_shrinkage = l2_shrinkage_regularization_strength
        self._accum_name = accum_name
        self._linear_name = linear_name

    def _create_slots(self, var_list):
        for v in var_list:
            self._get_or_make_slot(
                v, self._initial_accumulator_value, "accum", self._accum_name or self._name
            )
            self._zeros_slot(v, "linear", self._linear_name or self._name)

    def _prepare(self):
        self._make_tensors(
            learning_rate=self._lr,
            l1=self._l1,
            l2=self._l2,
            lr_power=self._lr_power,
            l2_shrinkage=self._l2_shrinkage,
        )
        if self._beta:  # TF's adjusted l2: l2 + beta / (2 * learning_rate)
            t = self._tensors
            t["l2"] = t["l2"] + self._beta / (2.0 * t["learning_rate"])

    def _inputs(self, var):
        return {
            "var": var.handle,
            "accum": self.get_slot(var, "accum").handle,
            "linear": self.get_slot(var, "linear").handle,
            "lr": self._hyper("learning_rate", var),
            "l1": self._hyper("l1", var),
            "l2": self._hyper("l2", var),
            "lr_power": self._hyper("lr_power", var),
        }

    def _apply(self, var, extra):
        if self._l2_shrinkage <= 0.0:
            kind = "Ftrl"
            inputs = self._inputs(var)
        else:
            kind = "FtrlV2"
            inputs = {**self._inputs(var), "l2_shrinkage": self._hyper("l2_shrinkage", var)}
        sparse = "indices" in extra
        return apply_op(
            ("ResourceSparseApply" if sparse else "ResourceApply") + kind, {**inputs, **extra}
        )

    def _apply_dense(self, grad, var):
        return self._apply(var, {"grad": grad})

    def _apply_sparse(self, grad, var):
        return self._apply(var, {"grad": grad.values, "indices": grad.indices})
