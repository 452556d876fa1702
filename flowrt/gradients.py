"""``fr.gradients``: adds the gradient subgraph of ``ys`` with respect to ``xs``.

Processing order (as TF1): find the ops between ``xs`` and ``ys``; walk them from the
``ys`` backwards, each op once all of its consumers on the path have contributed;
sum the contributions to each tensor (``add_n``, or concatenated ``IndexedSlices``);
call the op's registered gradient rule under ``gradients/<op>_grad``. Gradients only
flow through floating-point tensors; unconnected ``xs`` get None.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ._core.graph import Graph, Operation, Tensor, convert_to_tensor
from ._core.registry import _NotDifferentiable, gradient_function
from .ops import array_ops, math_ops, slicing_ops
from .ops.common import in_graph_of
from .ops.control_flow_ops import zeros_for
from .ops.indexed_slices import IndexedSlices
from .ops.tensor_array_ops import TensorArray
from .ops.while_ops import while_loop

if TYPE_CHECKING:
    from ._core.typing import TensorLike

__all__ = ["gradients", "hessians", "AggregationMethod"]


class AggregationMethod:
    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


def _as_list(x: Any) -> list[Any]:
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _backprop_ok(t: Tensor) -> bool:
    # A variable's handle collects the gradients of its reads when it is differentiated
    # as a whole (a call, branch or loop takes it; see Variable._all_reads). A variant
    # (a TensorArray's flow) carries its elements' gradients, as TF's IsTrainable says.
    return _differentiable(t) or t.dtype.name in ("resource", "variant")


def _differentiable(t: Tensor) -> bool:
    return t.dtype.is_floating or t.dtype.is_complex  # TF's _IsBackpropagatable


def gradients(
    ys: TensorLike | Sequence[TensorLike],
    xs: TensorLike | Sequence[TensorLike],
    grad_ys: TensorLike | Sequence[TensorLike | None] | None = None,
    name: str | None = "gradients",
    colocate_gradients_with_ops: bool = False,
    gate_gradients: bool = False,
    aggregation_method: int | None = None,
    stop_gradients: TensorLike | Sequence[TensorLike] | None = None,
    unconnected_gradients: str = "none",
) -> list[Tensor | IndexedSlices | Any]:
    """Symbolic derivatives of ``sum(ys)`` with respect to each of ``xs``.

    Args:
      ys: a tensor or list of tensors to differentiate.
      xs: a tensor (or variable) or list of them.
      grad_ys: optional initial gradients for ``ys`` (default: ones).
      stop_gradients: tensors held constant (no gradient flows through them).
      unconnected_gradients: "none" (TF1 default) or "zero".
      colocate_gradients_with_ops: if True, the gradient ops of each op are colocated
        with it (``fr.colocate_with``), as are the initial gradient of each y and the
        sum of each x's gradients.

    Returns:
      A list with one gradient per ``x``: a Tensor, an ``IndexedSlices`` (for
      ``gather``/``embedding_lookup`` paths), or None when ``x`` is unconnected.
      Typed ``Tensor | IndexedSlices | Any`` (typeshed's convention for a result that
      is usually not None), so TF1 code passing a gradient on type-checks unchanged.
    """
    y_ts: list[Tensor] = [convert_to_tensor(y) for y in _as_list(ys)]
    # A variable's gradient sums over every read of it (its snapshot, read_value(),
    # reads made under control dependencies), as TF's does through the handle.
    given_xs = _as_list(xs)
    groups = [_reads(x) for x in given_xs]
    x_ts = [t for group in groups for t in group]
    gy_list = None if grad_ys is None else _as_list(grad_ys)
    if gy_list is not None and len(gy_list) != len(y_ts):
        raise ValueError("Passed %d grad_ys for %d ys" % (len(gy_list), len(y_ts)))
    stop_ops = {convert_to_tensor(t).op for t in _as_list(stop_gradients or [])}
    # As TF1: the gradient ops go into the graph of ys and xs, whatever the default.
    with in_graph_of([y_ts, x_ts]) as g, g.name_scope(name or "gradients"):
        between = _between(y_ts, x_ts)
        pending = _pending_counts(between)
        contribs: dict[Tensor, list] = {}
        for i, y in enumerate(y_ts):
            gy = gy_list[i] if gy_list is not None else None
            if gy is None:
                with _colocated(g, y.op, colocate_gradients_with_ops):
                    gy = (
                        array_ops.fill(
                            array_ops.shape(y), math_ops.cast(1, y.dtype), name="grad_ys_%d" % i
                        )
                        if not y.shape.is_fully_defined()
                        else array_ops.ones(y.shape.as_list(), y.dtype, name="grad_ys_%d" % i)
                    )
            else:
                gy = convert_to_tensor(gy)
                if gy.dtype is not y.dtype:
                    raise TypeError(
                        "Gradient type %s generated for y %s does not match "
                        "its type %s" % (gy.dtype.name, y.name, y.dtype.name)
                    )
            contribs.setdefault(y, []).append(gy)
        ready = [op for op in between if pending[op] == 0]
        while ready:
            op = ready.pop()
            with _colocated(g, op, colocate_gradients_with_ops):
                out_grads = [_aggregate(contribs.get(t), t) for t in op.outputs]
                if (
                    op not in stop_ops
                    and any(gr is not None for gr in out_grads)
                    and any(t.op in between for t in op.inputs)
                ):
                    in_grads = _call_grad(g, op, out_grads)
                    for t, gr in zip(op.inputs, in_grads):
                        if gr is not None and _backprop_ok(t) and t.op in between:
                            contribs.setdefault(t, []).append(gr)
            for t in op.inputs:
                p = t.op
                if p in pending:
                    pending[p] -= 1
                    if pending[p] == 0:
                        ready.append(p)
        results = []
        for x, group in zip(given_xs, groups):
            with _colocated(g, x, colocate_gradients_with_ops):
                parts = [
                    gr for gr in (_aggregate(contribs.get(r), r) for r in group) if gr is not None
                ]
                gr = _aggregate(parts, group[0])
            if gr is None and unconnected_gradients == "zero":
                gr = zeros_for(group[0])
            results.append(gr)
        return results


def hessians(
    ys: TensorLike | Sequence[TensorLike],
    xs: TensorLike | Sequence[TensorLike],
    name: str = "hessians",
    colocate_gradients_with_ops: bool = False,
    gate_gradients: bool = False,
    aggregation_method: int | None = None,
) -> list[Tensor]:
    """The second derivatives of ``sum(ys)`` with respect to each of ``xs``.

    As TF builds it: the gradient of ``sum(ys)`` with respect to each ``x``, flattened;
    a ``while_loop`` takes the gradient of each of its elements with respect to ``x``
    into a ``TensorArray``; the stacked rows are reshaped to ``shape(x) + shape(x)``.
    Only the Hessian of each ``x`` with itself is computed, not the cross terms.

    Args:
      ys: a tensor or list of tensors to differentiate twice.
      xs: a tensor or list of tensors.
      name: unused, as in TF (the ops are named by ``fr.gradients`` and the loop).
      colocate_gradients_with_ops: as for ``fr.gradients``.
      gate_gradients: as for ``fr.gradients``.
      aggregation_method: as for ``fr.gradients``.

    Returns:
      One tensor of shape ``shape(x) + shape(x)`` per ``x``.
    """
    xs = _as_list(xs)
    kwargs: dict[str, Any] = {
        "colocate_gradients_with_ops": colocate_gradients_with_ops,
        "gate_gradients": gate_gradients,
        "aggregation_method": aggregation_method,
    }
    result = []
    for gradient, x in zip(gradients(ys, xs, **kwargs), xs):
        x = convert_to_tensor(x)
        if gradient is None:
            raise ValueError(
                "hessians: %s is not connected to ys (its gradient is None); pass xs that "
                "ys depends on." % x.name
            )
        flat = array_ops.reshape(gradient, [-1])
        n = array_ops.size(x)

        def body(j: Tensor, rows: TensorArray, flat: Tensor = flat, x: Tensor = x) -> Any:
            return j + 1, rows.write(j, gradients(flat[j], x, **kwargs)[0])

        def cond(j: Tensor, rows: TensorArray, n: Tensor = n) -> Tensor:
            return j < n

        _, rows = while_loop(cond, body, [array_ops.constant(0), TensorArray(x.dtype, n)])
        shape = array_ops.shape(x)
        result.append(array_ops.reshape(rows.stack(), slicing_ops.concat([shape, shape], 0)))
    return result


def _colocated(g: Graph, x: Any, on: bool) -> contextlib.AbstractContextManager[None]:
    """``g.colocate_with(x)`` if ``on`` (``colocate_gradients_with_ops``)."""
    return g.colocate_with(x) if on else contextlib.nullcontext()


def _reads(x: TensorLike) -> list[Tensor]:
    """The tensors to differentiate for ``x``: all reads of a variable, else ``x``."""
    all_reads = getattr(x, "_all_reads", None)
    if all_reads is not None:
        return all_reads() or [convert_to_tensor(x)]
    return [convert_to_tensor(x)]


def _between(ys: list[Tensor], xs: list[Tensor]) -> list[Operation]:
    """Ops on some path from an x to a y (including xs' producers), in graph order."""
    from_x: set[Operation] = set()
    stack = [x.op for x in xs]
    while stack:
        op = stack.pop()
        if op in from_x:
            continue
        from_x.add(op)
        for t in op.outputs:
            stack.extend(c for c in t._consumers if c not in from_x)
    to_y: set[Operation] = set()
    stack = [y.op for y in ys]
    while stack:
        op = stack.pop()
        if op in to_y or op not in from_x:
            continue
        to_y.add(op)
        stack.extend(t.op for t in op.inputs)
    return sorted(to_y, key=lambda o: o._id)


def _pending_counts(between: list[Operation]) -> dict[Operation, int]:
    inside = set(between)
    pending = {op: 0 for op in between}
    for op in between:
        for t in op.inputs:
            if t.op in inside:
                pending[t.op] += 1
    return pending


def _call_grad(
    g: Graph, op: Operation, out_grads: list[Tensor | IndexedSlices | None]
) -> list[Any]:
    fn = gradient_function(op)
    if isinstance(fn, _NotDifferentiable):  # NOT_DIFFERENTIABLE, the one instance
        return [None] * len(op.inputs)
    out_grads = [
        gr if gr is not None or not _differentiable(t) else array_ops.zeros_like(t)
        for gr, t in zip(out_grads, op.outputs)
    ]
    if not getattr(fn, "accepts_indexed_slices", False):
        out_grads = [gr._as_tensor() if isinstance(gr, IndexedSlices) else gr for gr in out_grads]
    with g.name_scope(op.name + "_grad"):
        in_grads = fn(op, *out_grads)
    in_grads = list(in_grads) if isinstance(in_grads, (list, tuple)) else [in_grads]
    if len(in_grads) != len(op.inputs):
        raise ValueError(
            "Num gradients %d generated for op %s do not match num inputs %d"
            % (len(in_grads), op.describe(), len(op.inputs))
        )
    for t, gr in zip(op.inputs, in_grads):
        if isinstance(gr, Tensor) and _differentiable(t) and gr.dtype is not t.dtype:
            raise TypeError(
                "Gradient of %s for input %s has dtype %s, expected %s"
                % (op.describe(), t.name, gr.dtype.name, t.dtype.name)
            )
        if isinstance(gr, Tensor) and t.dtype.name != "resource":
            if not gr.shape.is_compatible_with(t.shape):
                raise ValueError(
                    "Incompatible shapes between op input and calculated input "
                    "gradient. Forward operation: %s. Input index: %d. Original "
                    "input shape: %s. Calculated input gradient shape: %s"
                    % (op.name, list(op.inputs).index(t), t.shape, gr.shape)
                )
            # A gradient has its input's shape; keep what is statically known of it.
            gr.set_shape(t.shape)
    return in_grads


def _aggregate(grads: list[Any] | None, t: Tensor) -> Tensor | IndexedSlices | None:
    if not grads:
        return None
    if len(grads) == 1:
        return grads[0]
    if all(isinstance(gr, IndexedSlices) for gr in grads):
        values = array_ops_concat([gr.values for gr in grads])
        indices = array_ops_concat([gr.indices for gr in grads])
        return IndexedSlices(values, indices, grads[0].dense_shape)
    dense = [gr._as_tensor() if isinstance(gr, IndexedSlices) else gr for gr in grads]
    return math_ops.add_n(dense)


def array_ops_concat(ts: list[Tensor]) -> Tensor:
    return slicing_ops.concat(ts, 0)
