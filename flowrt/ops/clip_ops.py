"""Gradient clipping: ``clip_by_norm``, ``global_norm``, ``clip_by_global_norm``,
``clip_by_average_norm`` (``clip_by_value`` lives with the math ops).

Built from differentiable ops exactly as TF1 builds them (same formulas, so the same
float results and gradients); ``IndexedSlices`` are clipped through their values.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .._core.graph import Tensor, convert_to_tensor, get_default_graph
from . import math_ops as _m
from .array_ops import identity, ones_like, size, stack
from .common import in_graph_of, op_scope
from .indexed_slices import IndexedSlices
from .nn_ops import l2_loss

if TYPE_CHECKING:
    from .._core.typing import AxisLike, TensorLike

__all__ = ["clip_by_norm", "global_norm", "clip_by_global_norm", "clip_by_average_norm"]


def _values(t, name):
    return convert_to_tensor(t.values if isinstance(t, IndexedSlices) else t, name=name)


def _like(t, clipped):
    if isinstance(t, IndexedSlices):
        return IndexedSlices(clipped, t.indices, t.dense_shape)
    return clipped


def _check_list(t_list):
    if not isinstance(t_list, Sequence) or isinstance(t_list, str):
        raise TypeError("`t_list` should be a sequence of tensors. Received %s." % type(t_list))
    return list(t_list)


def clip_by_norm(
    t: TensorLike, clip_norm: TensorLike, axes: AxisLike = None, name: str | None = None
) -> Tensor | IndexedSlices:
    """``t * clip_norm / max(l2norm(t), clip_norm)``: rescales ``t`` so its L2 norm (over
    ``axes``, default all) is at most ``clip_norm``.

    Args:
      t: a tensor or ``IndexedSlices``.
      clip_norm: a positive scalar.
      axes: the dimensions to take the norm over (None: all).
      name: the scope name (default ``clip_by_norm``).

    Raises:
      ValueError: ``clip_norm`` would broadcast ``t`` to a larger shape.
    """
    with in_graph_of([t, clip_norm, axes]):
        g = get_default_graph()
        with g.name_scope(name or "clip_by_norm") as scope:
            values = _values(t, "t")
            l2sum = _m.reduce_sum(values * values, axes, keepdims=True)
            pred = l2sum > 0
            # The two wheres keep the gradient finite where the norm is zero (as TF1).
            l2sum_safe = _m.where(pred, l2sum, ones_like(l2sum))
            l2norm = _m.where(pred, _m.sqrt(l2sum_safe), l2sum)
            intermediate = values * clip_norm
            if not values.shape.is_compatible_with(intermediate.shape):
                raise ValueError(
                    "clip_by_norm: Shapes %s and %s are incompatible: clip_norm "
                    "must not broadcast t" % (values.shape, intermediate.shape)
                )
            clipped = identity(intermediate / _m.maximum(l2norm, clip_norm), name=scope)
        return _like(t, clipped)


def global_norm(t_list: Sequence[TensorLike | None], name: str | None = None) -> Tensor:
    """``sqrt(sum(l2norm(t) ** 2 for t in t_list))`` (None entries are skipped).

    Raises:
      TypeError: ``t_list`` is not a sequence.
    """
    with in_graph_of([t_list]):
        t_list = _check_list(t_list)
        g = get_default_graph()
        with g.name_scope(name or "global_norm"):
            values = [
                _values(t, "t_%d" % i) if t is not None else None for i, t in enumerate(t_list)
            ]
            half_squared = [l2_loss(v) for v in values if v is not None]
            total = _m.reduce_sum(stack(half_squared))
            return _m.sqrt(total * convert_to_tensor(2.0, dtype=total.dtype), name="global_norm")


def clip_by_global_norm(
    t_list: Sequence[TensorLike | None],
    clip_norm: TensorLike,
    use_norm: Tensor | None = None,
    name: str | None = None,
) -> tuple[list, Tensor]:
    """Scales every tensor of ``t_list`` by ``clip_norm / max(global_norm, clip_norm)``.

    Args:
      t_list: tensors, ``IndexedSlices`` or None.
      clip_norm: a positive scalar.
      use_norm: the global norm, if already computed.
      name: the scope name (default ``clip_by_global_norm``).

    Returns:
      ``(clipped list, global_norm)``. A non-finite global norm makes every entry NaN.

    Raises:
      TypeError: ``t_list`` is not a sequence.
    """
    with in_graph_of([t_list, clip_norm, use_norm]):
        t_list = _check_list(t_list)
        if use_norm is None:
            use_norm = global_norm(t_list, name)
        g = get_default_graph()
        with g.name_scope(name or "clip_by_global_norm") as scope:
            one = convert_to_tensor(1.0, dtype=use_norm.dtype)
            scale_for_finite = clip_norm * _m.minimum(1.0 / use_norm, one / clip_norm)
            # A no-op for a finite norm; an inf/NaN norm makes the scale NaN (TF1).
            scale = scale_for_finite + (use_norm - use_norm)
            out: list = []
            for i, t in enumerate(t_list):
                if t is None:
                    out.append(None)
                    continue
                v = _values(t, "t_%d" % i)
                clipped = identity(v * _m.cast(scale, v.dtype), name="%s_%d" % (scope, i))
                out.append(_like(t, clipped))
        return out, use_norm


def clip_by_average_norm(t: TensorLike, clip_norm: TensorLike, name: str | None = None) -> Tensor:
    """``t * clip_norm / max(l2norm(t) / size(t), clip_norm)``."""
    with op_scope([t, clip_norm], name, "clip_by_average_norm") as scope:
        t = convert_to_tensor(t, name="t")
        n_element = _m.cast(size(t), t.dtype)
        l2norm_inv = _m.rsqrt(_m.reduce_sum(t * t, None))
        return identity(
            t
            * clip_norm
            * _m.minimum(l2norm_inv * n_element, convert_to_tensor(1.0, t.dtype) / clip_norm),
            name=scope,
        )
