"""``fr.train.ExponentialMovingAverage``: TF1's shadow variables that follow the
exponential moving average of variables (evaluation with averaged weights) or of tensors
(smoothed losses), and ``assign_moving_average``, the update of one average (TF's
``moving_averages`` module)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, cast

from .. import dtypes as _dt
from .._core.graph import GraphKeys, Operation, Tensor, convert_to_tensor, get_default_graph
from ..init_ops import zeros_initializer
from ..ops import array_ops, math_ops, state_ops
from ..scopes import name_scope
from ..var_scope import get_variable, get_variable_scope, variable_scope
from ..variables import Variable, global_variables, moving_average_variables, trainable_variables

if TYPE_CHECKING:
    from .._core.typing import TensorLike

__all__ = ["ExponentialMovingAverage", "assign_moving_average"]

_FLOATS = (_dt.float16, _dt.float32, _dt.float64)


def _value(x: Any) -> Tensor:
    return x.read_value() if isinstance(x, Variable) else convert_to_tensor(x)


def assign_moving_average(
    variable: Variable,
    value: TensorLike,
    decay: TensorLike,
    zero_debias: bool = True,
    name: str | None = None,
) -> Tensor:
    """Moves ``variable`` toward ``value``: ``variable -= (variable - value) * (1 - decay)``.

    With ``zero_debias`` (TF's default), the average of a zero-initialized ``variable``
    is corrected for its start at zero: a ``biased`` variable takes the update and a
    ``local_step`` counts them (both non-trainable, named under ``variable``'s name), and
    ``variable`` is set to ``biased / (1 - decay ** local_step)``.

    Args:
      variable: the float variable holding the average.
      value: a tensor of ``variable``'s shape and dtype.
      decay: a float scalar (a tensor or a number), close to 1.
      zero_debias: whether to correct the zero start.
      name: the name scope (default ``AssignMovingAvg``).

    Returns:
      A tensor of the updated average.
    """
    with name_scope(name, "AssignMovingAvg", [variable, value, decay]) as scope:
        one_minus = convert_to_tensor(1.0 - cast(Any, decay), name="decay")
        dtype = variable.dtype.base_dtype
        if one_minus.dtype != dtype:
            one_minus = math_ops.cast(one_minus, dtype)
        value = _value(value)
        if not zero_debias:
            delta = (variable.read_value() - value) * one_minus
            return state_ops.assign_sub(variable, delta, name=scope)
        biased, local_step = _zero_debias_variables(variable)
        update_biased = state_ops.assign_sub(biased, (biased.read_value() - value) * one_minus)
        step = state_ops.assign_add(local_step, 1)
        bias_factor = 1 - math_ops.pow(1.0 - one_minus, step)
        return state_ops.assign(variable, update_biased / bias_factor, name=scope)


def _zero_debias_variables(variable: Variable) -> tuple[Variable, Variable]:
    """TF's ``biased`` and ``local_step`` variables of a zero-debiased average, in the
    variable scope of its name (``_1``, ``_2`` ... when those names are taken)."""
    g = variable.graph
    with g.control_dependencies(None), variable_scope(variable.op.name):
        taken = {v.op.name for v in global_variables()}
        prefix = get_variable_scope().name + "/"

        def unique(name: str) -> str:
            i, candidate = 0, name
            while prefix + candidate in taken:
                i += 1
                candidate = "%s_%d" % (name, i)
            return candidate

        with g.colocate_with(variable):
            biased = get_variable(
                unique("biased"),
                shape=variable.shape,
                dtype=variable.dtype.base_dtype,
                initializer=zeros_initializer(),
                trainable=False,
            )
            local_step = get_variable(
                unique("local_step"),
                shape=[],
                dtype=variable.dtype.base_dtype,
                initializer=zeros_initializer(),
                trainable=False,
            )
    return biased, local_step


class ExponentialMovingAverage:
    """Maintains moving averages of variables and tensors: ``apply`` makes one shadow
    variable per variable or tensor and returns the op that moves each shadow toward its
    value, ``shadow -= (1 - decay) * (shadow - value)``.

    Typical TF1 use: run ``apply``'s op after each training step (a control dependency
    of the train op), and evaluate with a ``Saver(ema.variables_to_restore())`` that
    loads the averages into the model's variables.

    Args:
      decay: the decay, close to 1 (0.999, 0.9999).
      num_updates: optional count of updates so far (an int tensor such as the global
        step); the decay used is then ``min(decay, (1 + n) / (10 + n))``.
      zero_debias: whether the averages of tensors are corrected for their start at
        zero (see ``assign_moving_average``); averages of variables start at the
        variable's value and are never corrected.
      name: the name of the update op and the suffix of the shadow variables.
    """

    def __init__(
        self,
        decay: float | TensorLike,
        num_updates: TensorLike | None = None,
        zero_debias: bool = False,
        name: str = "ExponentialMovingAverage",
    ) -> None:
        self._decay = decay
        self._num_updates = num_updates
        self._zero_debias = zero_debias
        self._name = name
        self._averages: dict[Variable | Tensor, Variable] = {}

    @property
    def name(self) -> str:
        """The name of the update op and the suffix of the shadow variables."""
        return self._name

    def apply(self, var_list: Iterable[Variable | Tensor] | None = None) -> Operation:
        """Makes the shadow variables of ``var_list`` (default: the trainable variables)
        and returns the op that updates them all.

        Each shadow is a non-trainable variable named ``<var>/<name>``: a variable's is
        initialized to the variable's initial value (and the variable joins the
        ``MOVING_AVERAGE_VARIABLES`` collection), a tensor's to zeros (CIFAR-10 averages
        its losses so).

        Raises:
          TypeError: for a variable or tensor that is not float16/32/64.
          ValueError: if one already has an average from this object.
        """
        g = get_default_graph()
        vars_ = list(trainable_variables() if var_list is None else var_list)
        for var in vars_:
            if var.dtype.base_dtype not in _FLOATS:
                raise TypeError("The variables must be half, float, or double: %s" % var.name)
            if var in self._averages:
                raise ValueError("Moving average already computed for: %s" % var.name)
        debiased = set()
        for var in vars_:
            vg = var.graph
            with vg.as_default(), vg.name_scope(None), vg.control_dependencies(None):
                if isinstance(var, Variable):
                    with vg.colocate_with(var):
                        avg = Variable(
                            var.initialized_value(),
                            name=self.average_name(var),
                            trainable=False,
                            dtype=var.dtype.base_dtype,
                            validate_shape=var.shape.is_fully_defined(),
                        )
                    g.add_to_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, var)
                else:
                    known = var.shape.is_fully_defined()
                    avg = Variable(
                        array_ops.zeros(
                            var.shape.as_list() if known else array_ops.shape(var),
                            dtype=var.dtype.base_dtype,
                        ),
                        name=self.average_name(var),
                        trainable=False,
                        validate_shape=known,
                    )
                    if self._zero_debias:
                        debiased.add(var)
            self._averages[var] = avg
        with g.name_scope(self._name) as scope:
            decay = convert_to_tensor(self._decay, dtype=_dt.float32, name="decay")
            if self._num_updates is not None:
                n = math_ops.cast(self._num_updates, _dt.float32, name="num_updates")
                decay = math_ops.minimum(decay, (1.0 + n) / (10.0 + n))
            updates = [
                assign_moving_average(self._averages[var], var, decay, zero_debias=var in debiased)
                for var in vars_
            ]
            return array_ops.group(*updates, name=scope)

    def average(self, var: Variable | Tensor) -> Variable | None:
        """The shadow variable of ``var``, or None if ``apply`` did not average it."""
        return self._averages.get(var)

    def average_name(self, var: Variable | Tensor) -> str:
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
