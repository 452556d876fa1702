"""``fr.train.ExponentialMovingAverage``: TF1's shadow variables that follow the
exponential moving average of other variables (evaluation with averaged weights)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from .. import dtypes as _dt
from .._core.graph import GraphKeys, Operation, convert_to_tensor, get_default_graph
from ..ops import array_ops, math_ops, state_ops
from ..variables import Variable, global_variables, moving_average_variables, trainable_variables

if TYPE_CHECKING:
    from .._core.graph import Tensor
    from .._core.typing import TensorLike

__all__ = ["ExponentialMovingAverage"]

_FLOATS = (_dt.float16, _dt.float32, _dt.float64)


def _assign_moving_average(variable: Variable, value: Variable, decay: Tensor) -> Tensor:
    """``variable -= (variable - value) * (1 - decay)``, in a scope ``AssignMovingAvg``."""
    with get_default_graph().name_scope("AssignMovingAvg"):
        delta = math_ops.multiply(
            math_ops.subtract(variable.read_value(), value.read_value()), 1.0 - decay
        )
        return state_ops.assign_sub(variable, delta)


class ExponentialMovingAverage:
    """Maintains moving averages of variables: ``apply`` makes one shadow variable per
    variable and returns the op that moves each shadow toward its variable,
    ``shadow -= (1 - decay) * (shadow - variable)``.

    Typical TF1 use: run ``apply``'s op after each training step (a control dependency
    of the train op), and evaluate with a ``Saver(ema.variables_to_restore())`` that
    loads the averages into the model's variables.

    Args:
      decay: the decay, close to 1 (0.999, 0.9999).
      num_updates: optional count of updates so far (an int tensor such as the global
        step); the decay used is then ``min(decay, (1 + n) / (10 + n))``.
      zero_debias: TF's bias correction for averages of tensors (see the note).
      name: the name of the update op and the suffix of the shadow variables.

    Note (flowrt): only variables can be averaged (TF also averages tensors, through
    zero-debiased shadows); ``apply`` on a tensor raises TypeError, and
    ``zero_debias=True`` raises NotImplementedError.
    """

    def __init__(
        self,
        decay: float | TensorLike,
        num_updates: TensorLike | None = None,
        zero_debias: bool = False,
        name: str = "ExponentialMovingAverage",
    ) -> None:
        if zero_debias:
            raise NotImplementedError(
                "zero_debias is not supported by flowrt's ExponentialMovingAverage (it only "
                "matters for averages of tensors, which flowrt does not support)"
            )
        self._decay = decay
        self._num_updates = num_updates
        self._zero_debias = zero_debias
        self._name = name
        self._averages: dict[Variable, Variable] = {}

    @property
    def name(self) -> str:
        """The name of the update op and the suffix of the shadow variables."""
        return self._name

    def apply(self, var_list: Iterable[Variable] | None = None) -> Operation:
        """Makes the shadow variables of ``var_list`` (default: the trainable variables)
        and returns the op that updates them all.

        Each shadow is a non-trainable variable named ``<var>/<name>``, initialized to
        its variable's initial value; each variable joins the
        ``MOVING_AVERAGE_VARIABLES`` collection.

        Raises:
          TypeError: for a variable that is not float16/32/64, or a tensor.
          ValueError: if a variable already has an average from this object.
        """
        g = get_default_graph()
        vars_ = list(trainable_variables() if var_list is None else var_list)
        for var in vars_:
            if not isinstance(var, Variable):
                raise TypeError(
                    "flowrt's ExponentialMovingAverage averages variables only, got %r" % (var,)
                )
            if var.dtype.base_dtype not in _FLOATS:
                raise TypeError("The variables must be half, float, or double: %s" % var.name)
            if var in self._averages:
                raise ValueError("Moving average already computed for: %s" % var.name)
        for var in vars_:
            vg = var.graph
            with vg.as_default(), vg.name_scope(None), vg.control_dependencies(None):
                with vg.colocate_with(var):
                    self._averages[var] = Variable(
                        var.initialized_value(),
                        name=var.op.name + "/" + self._name,
                        trainable=False,
                        dtype=var.dtype.base_dtype,
                        validate_shape=var.shape.is_fully_defined(),
                    )
            g.add_to_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, var)
        with g.name_scope(self._name) as scope:
            decay = convert_to_tensor(self._decay, dtype=_dt.float32, name="decay")
            if self._num_updates is not None:
                n = math_ops.cast(self._num_updates, _dt.float32, name="num_updates")
                decay = math_ops.minimum(decay, (1.0 + n) / (10.0 + n))
            updates = []
            for var in vars_:
                d = (
                    decay
                    if var.dtype.base_dtype is _dt.float32
                    else math_ops.cast(decay, var.dtype)
                )
                updates.append(_assign_moving_average(self._averages[var], var, d))
            return array_ops.group(*updates, name=scope)

    def average(self, var: Variable) -> Variable | None:
        """The shadow variable of ``var``, or None if ``apply`` did not average it."""
        return self._averages.get(var)

    def average_name(self, var: Variable) -> str:
        """The name of ``var``'s shadow variable: ``<var.op.name>/<name>`` (also before
        ``apply``; the key of ``variables_to_restore``)."""
        return var.op.name + "/" + self._name

    def variables_to_restore(
        self, moving_avg_variables: Iterable[Variable] | None = None
    ) -> dict[str, Variable]:
        """``{checkpoint name: variable}`` for a ``Saver`` that restores the averages
        into the variables themselves: each averaged variable under its shadow's name,
        every other global variable under its own.

        Args:
          moving_avg_variables: the averaged variables (default: the trainable and
            ``MOVING_AVERAGE_VARIABLES`` variables).
        """
        if moving_avg_variables is None:
            moving = list(trainable_variables()) + list(moving_average_variables())
        else:
            moving = list(moving_avg_variables)
        name_map = {self.average_name(v): v for v in moving}
        seen = set(moving)
        for v in global_variables():
            if v not in seen and v.op.name not in name_map:
                name_map[v.op.name] = v
        return name_map
