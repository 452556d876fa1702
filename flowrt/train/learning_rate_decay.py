"""Learning-rate schedules of the global step (TF1's ``tf.train.*_decay``).

Each returns a scalar tensor of the learning rate's dtype (float32 for a Python float),
computed as TF1 computes it (the step and the other arguments cast to that dtype), so a
float64 learning rate gives a float64 schedule.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from .._core.graph import Tensor, convert_to_tensor, get_default_graph
from .._core.typing import TensorLike
from ..dtypes import DType
from ..ops import math_ops as _m
from ..ops.array_ops import identity

__all__ = [
    "exponential_decay",
    "piecewise_constant",
    "polynomial_decay",
    "natural_exp_decay",
    "inverse_time_decay",
    "cosine_decay",
    "cosine_decay_restarts",
    "linear_cosine_decay",
    "noisy_linear_cosine_decay",
    "piecewise_constant_decay",
]


def _check_step(global_step: TensorLike | None, fn: str) -> None:
    if global_step is None:
        raise ValueError("global_step is required for %s." % fn)


def _start(
    learning_rate: TensorLike, global_step: TensorLike, decay_steps: TensorLike
) -> tuple[Tensor, DType, Tensor, Tensor]:
    """(initial rate tensor, its dtype, step and decay_steps cast to it)."""
    lr = convert_to_tensor(learning_rate, name="initial_learning_rate")
    dtype = lr.dtype
    return lr, dtype, _m.cast(global_step, dtype), _m.cast(decay_steps, dtype)


def _progress(step: Tensor, steps: Tensor, staircase: bool) -> Tensor:
    """``step / steps``, floored with ``staircase`` (the exponent of the three decays)."""
    p = step / steps
    return _m.floor(p) if staircase else p


def exponential_decay(
    learning_rate: TensorLike,
    global_step: TensorLike,
    decay_steps: TensorLike,
    decay_rate: TensorLike,
    staircase: bool = False,
    name: str | None = None,
) -> Tensor:
    """``learning_rate * decay_rate ** (global_step / decay_steps)``.

    Args:
      learning_rate: a scalar (float or tensor): the initial rate.
      global_step: the step (an integer variable or tensor).
      decay_steps: steps per decay period (> 0).
      decay_rate: the factor per period.
      staircase: decay at whole periods only (``floor`` of the exponent).
      name: the op name (default scope ``ExponentialDecay``).

    Raises:
      ValueError: ``global_step`` is None.
    """
    _check_step(global_step, "exponential_decay")
    with get_default_graph().name_scope(name or "ExponentialDecay") as scope:
        lr, dtype, step, steps = _start(learning_rate, global_step, decay_steps)
        p = _progress(step, steps, staircase)
        return _m.multiply(lr, _m.pow(_m.cast(decay_rate, dtype), p), name=scope)


def natural_exp_decay(
    learning_rate: TensorLike,
    global_step: TensorLike,
    decay_steps: TensorLike,
    decay_rate: TensorLike,
    staircase: bool = False,
    name: str | None = None,
) -> Tensor:
    """``learning_rate * exp(-decay_rate * global_step / decay_steps)`` (``floor`` of the
    ratio with ``staircase``).

    Raises:
      ValueError: ``global_step`` is None.
    """
    _check_step(global_step, "natural_exp_decay")
    # TF1 builds it as an exponential decay, and names it so.
    with get_default_graph().name_scope(name or "ExponentialDecay") as scope:
        lr, dtype, step, steps = _start(learning_rate, global_step, decay_steps)
        p = _progress(step, steps, staircase)
        rate = _m.exp(_m.negative(_m.cast(decay_rate, dtype)))
        return _m.multiply(lr, _m.pow(rate, p), name=scope)


def inverse_time_decay(
    learning_rate: TensorLike,
    global_step: TensorLike,
    decay_steps: TensorLike,
    decay_rate: TensorLike,
    staircase: bool = False,
    name: str | None = None,
) -> Tensor:
    """``learning_rate / (1 + decay_rate * global_step / decay_steps)`` (``floor`` of the
    ratio with ``staircase``).

    Raises:
      ValueError: ``global_step`` is None.
    """
    _check_step(global_step, "inverse_time_decay")
    with get_default_graph().name_scope(name or "InverseTimeDecay") as scope:
        lr, dtype, step, steps = _start(learning_rate, global_step, decay_steps)
        p = _progress(step, steps, staircase)
        denom = _m.add(_m.cast(1, dtype), _m.multiply(_m.cast(decay_rate, dtype), p))
        return _m.divide(lr, denom, name=scope)


def polynomial_decay(
    learning_rate: TensorLike,
    global_step: TensorLike,
    decay_steps: TensorLike,
    end_learning_rate: TensorLike = 0.0001,
    power: TensorLike = 1.0,
    cycle: bool = False,
    name: str | None = None,
) -> Tensor:
    """Decays from ``learning_rate`` to ``end_learning_rate`` over ``decay_steps`` as
    ``(lr - end) * (1 - step / decay_steps) ** power + end``.

    Args:
      cycle: after ``decay_steps``, restart with ``decay_steps`` stretched to the next
        multiple above the step; otherwise stay at ``end_learning_rate``.

    Raises:
      ValueError: ``global_step`` is None.
    """
    _check_step(global_step, "polynomial_decay")
    with get_default_graph().name_scope(name or "PolynomialDecay") as scope:
        lr, dtype, step, steps = _start(learning_rate, global_step, decay_steps)
        end = _m.cast(end_learning_rate, dtype)
        power_t = _m.cast(power, dtype)
        if cycle:
            multiplier = _m.where(
                _m.equal(step, _m.cast(0, dtype)), _m.cast(1, dtype), _m.ceil(step / steps)
            )
            steps = _m.multiply(steps, multiplier)
        else:
            step = _m.minimum(step, steps)
        p = _m.divide(step, steps)
        return _m.add(_m.multiply(lr - end, _m.pow(1 - p, power_t)), end, name=scope)


def cosine_decay(
    learning_rate: TensorLike,
    global_step: TensorLike,
    decay_steps: TensorLike,
    alpha: TensorLike = 0.0,
    name: str | None = None,
) -> Tensor:
    """``learning_rate * ((1 - alpha) * 0.5 * (1 + cos(pi * min(step, decay_steps) /
    decay_steps)) + alpha)``.

    Raises:
      ValueError: ``global_step`` is None.
    """
    _check_step(global_step, "cosine_decay")
    with get_default_graph().name_scope(name or "CosineDecay") as scope:
        lr, dtype, step, steps = _start(learning_rate, global_step, decay_steps)
        fraction = _m.minimum(step, steps) / steps
        pi = convert_to_tensor(math.pi, dtype=dtype)
        cosine = 0.5 * (1.0 + _m.cos(pi * fraction))
        decayed = (1 - _m.cast(alpha, dtype)) * cosine + _m.cast(alpha, dtype)
        return _m.multiply(lr, decayed, name=scope)


def piecewise_constant(
    x: TensorLike,
    boundaries: Sequence[TensorLike],
    values: Sequence[TensorLike],
    name: str | None = None,
) -> Tensor:
    """``values[0]`` while ``x <= boundaries[0]``, ``values[i]`` while
    ``boundaries[i-1] < x <= boundaries[i]``, ``values[-1]`` after the last boundary.

    Args:
      x: the step (a scalar tensor).
      boundaries: increasing boundaries (cast to ``x``'s dtype).
      values: one more value than boundaries, all of one dtype.
      name: the scope name (default ``PiecewiseConstant``).

    Raises:
      ValueError: ``len(values) != len(boundaries) + 1`` or values of mixed dtypes.
    """
    boundaries, values = list(boundaries), list(values)
    if len(boundaries) != len(values) - 1:
        raise ValueError("The length of boundaries should be 1 less than the length of values")
    with get_default_graph().name_scope(name or "PiecewiseConstant") as scope:
        x = convert_to_tensor(x)
        bounds = [convert_to_tensor(b) for b in boundaries]
        bounds = [b if b.dtype == x.dtype else _m.cast(b, x.dtype) for b in bounds]
        vals = [convert_to_tensor(v) for v in values]
        if len({v.dtype for v in vals}) > 1:
            raise ValueError(
                "Values must have elements all with the same dtype (%s)."
                % ", ".join(sorted({v.dtype.name for v in vals}))
            )
        out = vals[-1]
        for b, v in reversed(list(zip(bounds, vals[:-1]))):
            out = _m.where(_m.less_equal(x, b), v, out)
        return identity(out, name=scope)


piecewise_constant_decay = piecewise_constant


def cosine_decay_restarts(
    learning_rate: TensorLike,
    global_step: TensorLike,
    first_decay_steps: TensorLike,
    t_mul: float = 2.0,
    m_mul: float = 1.0,
    alpha: TensorLike = 0.0,
    name: str | None = None,
) -> Tensor:
    """Cosine decay with warm restarts (SGDR): a cosine decay over
    ``first_decay_steps``, then over ``t_mul`` times as many steps, ..., each period
    starting from ``m_mul`` times the previous period's initial rate.

    Args:
      learning_rate: the initial learning rate.
      global_step: the step (a scalar tensor).
      first_decay_steps: the length of the first period.
      t_mul: the factor by which each period is longer than the previous one.
      m_mul: the factor applied to the initial rate at each restart.
      alpha: the floor, as a fraction of ``learning_rate``.
      name: the scope name (default ``SGDRDecay``).

    Raises:
      ValueError: ``global_step`` is None.
    """
    _check_step(global_step, "cosine_decay_restarts")
    with get_default_graph().name_scope(name or "SGDRDecay") as scope:
        lr, dtype, step, steps = _start(learning_rate, global_step, first_decay_steps)
        t = convert_to_tensor(t_mul, dtype=dtype, name="t_mul")
        m = convert_to_tensor(m_mul, dtype=dtype, name="m_mul")
        fraction = step / steps
        if t_mul == 1.0:
            i_restart = _m.floor(fraction)
            fraction = fraction - i_restart
        else:
            i_restart = _m.floor(_m.log(1.0 - fraction * (1.0 - t)) / _m.log(t))
            sum_r = (1.0 - _m.pow(t, i_restart)) / (1.0 - t)
            fraction = (fraction - sum_r) / _m.pow(t, i_restart)
        pi = convert_to_tensor(math.pi, dtype=dtype)
        cosine = 0.5 * _m.pow(m, i_restart) * (1.0 + _m.cos(pi * fraction))
        a = _m.cast(alpha, dtype)
        return _m.multiply(lr, (1 - a) * cosine + a, name=scope)


def linear_cosine_decay(
    learning_rate: TensorLike,
    global_step: TensorLike,
    decay_steps: TensorLike,
    num_periods: float = 0.5,
    alpha: float = 0.0,
    beta: float = 0.001,
    name: str | None = None,
) -> Tensor:
    """``learning_rate * ((alpha + linear) * cosine + beta)`` with
    ``linear = (decay_steps - s) / decay_steps``,
    ``cosine = 0.5 * (1 + cos(pi * 2 * num_periods * s / decay_steps))`` and
    ``s = min(global_step, decay_steps)``.

    Args:
      learning_rate: the initial learning rate.
      global_step: the step (a scalar tensor).
      decay_steps: the number of steps to decay over.
      num_periods: the number of cosine periods over ``decay_steps``.
      alpha: added to the linear factor.
      beta: added to the product.
      name: the scope name (default ``LinearCosineDecay``).

    Raises:
      ValueError: ``global_step`` is None.
    """
    _check_step(global_step, "linear_cosine_decay")
    with get_default_graph().name_scope(name or "LinearCosineDecay") as scope:
        lr, dtype, step, steps = _start(learning_rate, global_step, decay_steps)
        step = _m.minimum(step, steps)
        linear = (steps - step) / steps
        fraction = 2.0 * _m.cast(num_periods, dtype) * (step / steps)
        pi = convert_to_tensor(math.pi, dtype=dtype)
        cosine = 0.5 * (1.0 + _m.cos(pi * fraction))
        decayed = (_m.cast(alpha, dtype) + linear) * cosine + _m.cast(beta, dtype)
        return _m.multiply(lr, decayed, name=scope)


def noisy_linear_cosine_decay(
    learning_rate: TensorLike,
    global_step: TensorLike,
    decay_steps: TensorLike,
    initial_variance: float = 1.0,
    variance_decay: float = 0.55,
    num_periods: float = 0.5,
    alpha: float = 0.0,
    beta: float = 0.001,
    name: str | None = None,
) -> Tensor:
    """``linear_cosine_decay`` with Gaussian noise added to the linear factor:
    ``learning_rate * ((alpha + linear + noise) * cosine + beta)``, the noise of variance
    ``initial_variance / (1 + s) ** variance_decay`` drawn anew at each run
    (``s = min(global_step, decay_steps)``; ``linear``, ``cosine`` as there).

    Raises:
      ValueError: ``global_step`` is None.
    """
    from ..ops.random_ops import random_normal

    _check_step(global_step, "noisy_linear_cosine_decay")
    with get_default_graph().name_scope(name or "NoisyLinearCosineDecay") as scope:
        lr, dtype, step, steps = _start(learning_rate, global_step, decay_steps)
        step = _m.minimum(step, steps)
        linear = (steps - step) / steps
        variance = _m.cast(initial_variance, dtype) / _m.pow(
            1.0 + step, _m.cast(variance_decay, dtype)
        )
        noise = random_normal([], mean=0.0, stddev=_m.sqrt(variance), dtype=dtype)
        fraction = 2.0 * _m.cast(num_periods, dtype) * (step / steps)
        pi = convert_to_tensor(math.pi, dtype=dtype)
        cosine = 0.5 * (1.0 + _m.cos(pi * fraction))
        decayed = (_m.cast(alpha, dtype) + linear + noise) * cosine + _m.cast(beta, dtype)
        return _m.multiply(lr, decayed, name=scope)
