"""``tf.nn``'s loss helpers beyond the cross entropies: ``log_poisson_loss``, and the
per-replica loss scaling of ``compute_average_loss`` and ``scale_regularization_loss``
(one replica here), composed of ops as TF composes them."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from .._core.graph import Tensor, convert_to_tensor
from . import array_ops, math_ops
from .common import op_scope

if TYPE_CHECKING:
    from .._core.typing import TensorLike

__all__ = ["compute_average_loss", "log_poisson_loss", "scale_regularization_loss"]


def log_poisson_loss(
    targets: TensorLike,
    log_input: TensorLike,
    compute_full_loss: bool = False,
    name: str | None = None,
) -> Tensor:
    """The negative log-likelihood of ``targets`` under a Poisson distribution of rate
    ``exp(log_input)``, up to a constant: ``exp(log_input) - log_input * targets``;
    with ``compute_full_loss`` the Stirling term ``t log t - t + 0.5 log(2 pi t)`` is
    added for targets above 1.

    Raises:
      ValueError: the two shapes are incompatible.
    """
    with op_scope([targets, log_input], name, "log_poisson_loss"):
        log_input = convert_to_tensor(log_input, name="log_input")
        targets = convert_to_tensor(targets, name="targets")
        if not targets.shape.is_compatible_with(log_input.shape):
            raise ValueError(
                "log_input and targets must have the same shape (%s vs %s)"
                % (log_input.shape, targets.shape)
            )
        result = math_ops.exp(log_input) - log_input * targets
        if compute_full_loss:
            dt = targets.dtype
            half = convert_to_tensor(0.5, dt)
            two_pi = convert_to_tensor(2 * math.pi, dt)
            stirling = (
                targets * math_ops.log(targets) - targets + half * math_ops.log(two_pi * targets)
            )
            zeros = array_ops.zeros_like(targets)
            ones = array_ops.ones_like(targets)
            small = math_ops.logical_and(
                math_ops.greater_equal(targets, zeros), math_ops.less_equal(targets, ones)
            )
            result += math_ops.where(small, zeros, stirling)
        return result


def compute_average_loss(
    per_example_loss: TensorLike,
    sample_weight: TensorLike | None = None,
    global_batch_size: int | None = None,
) -> Tensor:
    """The sum of ``per_example_loss`` (times ``sample_weight``) over
    ``global_batch_size`` (by default this batch's size): the mean loss, as a
    distributed step divides it.

    Raises:
      ValueError: a non-positive ``global_batch_size``.
    """
    with op_scope([per_example_loss], None, "compute_average_loss"):
        loss = convert_to_tensor(per_example_loss)
        if sample_weight is not None:
            loss = loss * math_ops.cast(sample_weight, loss.dtype)
        if global_batch_size is None:
            size = math_ops.cast(array_ops.shape(loss)[0], loss.dtype)
        else:
            if global_batch_size <= 0:
                raise ValueError(
                    "global_batch_size must be positive. Got %s" % (global_batch_size,)
                )
            size = convert_to_tensor(float(global_batch_size), loss.dtype)
        return math_ops.div_no_nan(math_ops.reduce_sum(loss), size)


def scale_regularization_loss(regularization_loss: TensorLike) -> Tensor:
    """The (summed) regularization loss divided by the number of replicas, one here."""
    return math_ops.reduce_sum(convert_to_tensor(regularization_loss))
