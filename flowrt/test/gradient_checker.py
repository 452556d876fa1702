"""``fr.test.compute_gradient`` and ``compute_gradient_error``: TF1's Jacobian check."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, overload

import numpy as np
import numpy.typing as npt

from .._core.graph import Tensor, get_default_session
from ..gradients import gradients

__all__ = ["compute_gradient", "compute_gradient_error"]


def _session() -> Any:
    sess = get_default_session()
    if sess is None:
        raise ValueError(
            "compute_gradient needs a default session: call it inside "
            "`with sess.as_default():` or `with self.cached_session():`"
        )
    return sess


def _theoretical(
    x: Tensor, x_value: np.ndarray, y: Tensor, y_shape: tuple[int, ...], feeds: dict[Any, Any]
) -> np.ndarray:
    sess = _session()
    dy = y.graph.as_default()
    with dy:
        grad_y = _placeholder_like(y, y_shape)
        dx = gradients(y, x, grad_ys=grad_y)[0]
    jac = np.zeros((x_value.size, int(np.prod(y_shape))), dtype=np.float64)
    if dx is None:
        return jac
    seed = np.zeros(y_shape, dtype=y.dtype.np)
    for col in range(seed.size):
        seed.flat[col] = 1
        got = sess.run(dx, {**feeds, x: x_value, grad_y: seed})
        jac[:, col] = np.asarray(got, dtype=np.float64).ravel()
        seed.flat[col] = 0
    return jac


def _placeholder_like(y: Tensor, shape: tuple[int, ...]) -> Tensor:
    from ..ops.array_ops import placeholder

    return placeholder(y.dtype, list(shape), name="compute_gradient_grad_y")


def _numerical(
    x: Tensor,
    x_value: np.ndarray,
    y: Tensor,
    y_shape: tuple[int, ...],
    delta: float,
    feeds: dict[Any, Any],
) -> np.ndarray:
    sess = _session()
    jac = np.zeros((x_value.size, int(np.prod(y_shape))), dtype=np.float64)
    probe = x_value.copy()
    for row in range(x_value.size):
        orig = probe.flat[row]
        probe.flat[row] = orig + delta
        up = np.asarray(sess.run(y, {**feeds, x: probe}), dtype=np.float64)
        probe.flat[row] = orig - delta
        down = np.asarray(sess.run(y, {**feeds, x: probe}), dtype=np.float64)
        probe.flat[row] = orig
        jac[row, :] = ((up - down) / (2 * delta)).ravel()
    return jac


@overload
def compute_gradient(
    x: Tensor,
    x_shape: Sequence[int],
    y: Tensor,
    y_shape: Sequence[int],
    x_init_value: npt.ArrayLike | None = None,
    delta: float = 1e-3,
    init_targets: Any = None,
    extra_feed_dict: dict[Any, Any] | None = None,
) -> tuple[np.ndarray, np.ndarray]: ...
@overload
def compute_gradient(
    x: list[Tensor] | tuple[Tensor, ...],
    x_shape: Sequence[Sequence[int]],
    y: Tensor,
    y_shape: Sequence[int],
    x_init_value: Sequence[npt.ArrayLike | None] | None = None,
    delta: float = 1e-3,
    init_targets: Any = None,
    extra_feed_dict: dict[Any, Any] | None = None,
) -> list[tuple[np.ndarray, np.ndarray]]: ...
def compute_gradient(
    x: Tensor | list[Tensor] | tuple[Tensor, ...],
    x_shape: Sequence[int] | Sequence[Sequence[int]],
    y: Tensor,
    y_shape: Sequence[int],
    x_init_value: Any = None,
    delta: float = 1e-3,
    init_targets: Any = None,
    extra_feed_dict: dict[Any, Any] | None = None,
) -> tuple[np.ndarray, np.ndarray] | list[tuple[np.ndarray, np.ndarray]]:
    """The theoretical and numerical Jacobians of ``y`` with respect to ``x``, as TF1's
    ``tf.test.compute_gradient``. Runs in the default session.

    Args:
      x: a tensor, or a list of tensors (then a list of results comes back).
      x_shape: the shape of ``x`` (a list of them for a list of tensors).
      y: the output tensor.
      y_shape: its shape.
      x_init_value: the point to evaluate at (random uniform in [-1, 1) if None; a list
        for a list of tensors).
      delta: the finite-difference step.
      init_targets: ops to run first (e.g. variable initializers).
      extra_feed_dict: more feeds for every run.

    Returns:
      ``(theoretical, numerical)``, each of shape ``[x.size, y.size]`` (row i is the
      gradient of every output element with respect to element i of ``x``); a list of
      such pairs when ``x`` is a list.

    Raises:
      ValueError: without a default session.
    """
    return _compute(x, x_shape, y, y_shape, x_init_value, delta, init_targets, extra_feed_dict)


def _compute(
    x: Any,
    x_shape: Any,
    y: Tensor,
    y_shape: Any,
    x_init_value: Any,
    delta: float,
    init_targets: Any,
    extra_feed_dict: dict[Any, Any] | None,
) -> Any:
    """``compute_gradient``'s body, for one tensor or (recursively) a list of them."""
    feeds = dict(extra_feed_dict or {})
    if init_targets is not None:
        _session().run(init_targets)
    if isinstance(x, (list, tuple)):
        inits = x_init_value if x_init_value is not None else [None] * len(x)
        return [
            _compute(xi, si, y, y_shape, vi, delta, None, extra_feed_dict)
            for xi, si, vi in zip(x, x_shape, inits)
        ]
    x_shape, y_shape = tuple(x_shape), tuple(y_shape)
    if x_init_value is None:
        rng = np.random.default_rng(0)
        x_value = rng.uniform(-1, 1, x_shape).astype(x.dtype.np)
    else:
        x_value = np.array(x_init_value, dtype=x.dtype.np).reshape(x_shape)
    return (
        _theoretical(x, x_value, y, y_shape, feeds),
        _numerical(x, x_value, y, y_shape, delta, feeds),
    )


def compute_gradient_error(
    x: Tensor | list[Tensor] | tuple[Tensor, ...],
    x_shape: Sequence[int] | Sequence[Sequence[int]],
    y: Tensor,
    y_shape: Sequence[int],
    x_init_value: Any = None,
    delta: float = 1e-3,
    init_targets: Any = None,
    extra_feed_dict: dict[Any, Any] | None = None,
) -> float:
    """The largest absolute difference between the theoretical and numerical Jacobians
    (``compute_gradient``), as TF1's ``tf.test.compute_gradient_error``.

    Returns:
      The maximum error over every ``x`` (``x`` may be a list).
    """
    got = _compute(x, x_shape, y, y_shape, x_init_value, delta, init_targets, extra_feed_dict)
    pairs = got if isinstance(got, list) else [got]
    return max((float(np.max(np.abs(t - n))) if t.size else 0.0) for t, n in pairs)
