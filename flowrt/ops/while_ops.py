"""``fr.while_loop``: the While op, and its gradient by recording and replaying.

The loop is traced like a conditional (see control_flow_ops.py): ``cond`` and ``body``
become sub-plans over placeholders for the loop variables, run once per iteration.

Gradient (processing order):

1. **Trace the body's gradient once.** In a nested gradient body, ``fr.gradients`` of
   the body's outputs (weighted by placeholders for their incoming gradients) with
   respect to the loop-variable placeholders and the float captures.
2. **Record.** The forward body values that gradient consumes (loop variables and
   intermediates) are fetched on each forward iteration and kept, in order, in one
   extra output of the forward ``While`` (a Python list; dtype ``variant``). Only a
   differentiated loop records.
3. **Replay backwards.** A ``WhileGrad`` op runs the gradient body once per recorded
   iteration, last first, feeding that iteration's values and the running gradient
   of the loop variables, and sums the captures' gradients. The forward body never
   runs again, so its state ops run once. Nested loops compose: an inner loop's
   record is one more intermediate of the outer body, recorded per outer iteration.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import dtypes as _dt
from .. import errors, nest
from .._core.executor import run_nested, run_sync
from .._core.graph import Tensor, convert_to_tensor, get_default_graph
from .._core.plan import Plan, fuses
from .._core.registry import register_op
from .._core.shape import TensorShape, as_shape
from . import array_ops
from .control_flow_ops import (
    TracedBody,
    any_blocking,
    any_stateful,
    blocks,
    create_named,
    differentiable_input,
    nested_ops,
    specs_infer,
    structure_error,
    sub_plan,
    trace_body,
    wire_inputs,
    zeros_for,
)
from .state_ops import VariableResource

if TYPE_CHECKING:
    from .._core.typing import TensorLike

__all__ = ["while_loop"]


# --------------------------------------------------------------------------------------
# while_loop: the While op
# --------------------------------------------------------------------------------------


def while_loop(
    cond: Callable[..., Any],
    body: Callable[..., Any],
    loop_vars: Any,
    shape_invariants: Any = None,
    parallel_iterations: int = 10,
    back_prop: bool = True,
    swap_memory: bool = False,
    name: str | None = None,
    maximum_iterations: TensorLike | None = None,
    return_same_structure: bool = False,
) -> Any:
    """Repeats ``body`` while ``cond`` is true (TF1 ``tf.while_loop``).

    Args:
      cond: callable taking the loop variables, returning a scalar bool tensor.
      body: callable taking the loop variables, returning new values in the same nest
        (a single tensor for a single variable).
      loop_vars: a list or tuple (possibly nested) of tensors or values.
      shape_invariants: per-variable shapes the body may relax to (same nest).
      parallel_iterations: accepted for compatibility.
      swap_memory: accepted for compatibility.
      back_prop: if False the outputs stop gradients.
      name: the name scope (default ``while``).
      maximum_iterations: an optional scalar int bound on the number of iterations.
      return_same_structure: if True a single variable comes back in its nest.

    Returns:
      The final loop variables in the nest of ``loop_vars`` (a single one bare).

    Note (flowrt): ``cond``/``body`` run as sub-plans once per iteration, one after the
    other. Gradients flow to the initial loop variables and to float tensors the loop
    captures; a differentiated loop keeps the body values its gradient needs for every
    iteration (memory grows with the iteration count, as TF's stacks do). There is no
    second-order gradient through a loop. A non-bool ``cond`` result and a shape
    invariant incompatible with a variable's shape are errors at graph construction.
    """
    if not callable(cond):
        raise TypeError("'cond' must be callable.")
    if not callable(body):
        raise TypeError("'body' must be callable.")
    if parallel_iterations < 1:
        raise TypeError("'parallel_iterations' must be a positive integer.")
    if not isinstance(loop_vars, (list, tuple)):
        raise TypeError("loop_vars must be a list or tuple of tensors, got %r" % (loop_vars,))
    # A TensorArray travels as its flow (TF1's _convert_tensorarray_to_flow).
    tas = [v if hasattr(v, "_with_flow") else None for v in nest.flatten(loop_vars)]
    flat_vars = [convert_to_tensor(_flow_of(v)) for v in nest.flatten(loop_vars)]
    loop_vars = nest.pack_leaves(loop_vars, flat_vars)
    if shape_invariants is not None:
        err = structure_error(loop_vars, shape_invariants, check_types=False)
        if err:
            raise ValueError("The two structures don't have the same nested structure.\n\n" + err)
        invariants = [as_shape(s) for s in _flatten_shapes(shape_invariants)]
        for v, s in zip(flat_vars, invariants):
            if not s.is_compatible_with(v.shape):
                raise ValueError(
                    "The shape invariant specified for %s is not compatible with the "
                    "initial shape of the loop variable. It enters the loop with shape "
                    "%s, but the specified shape invariant is %s." % (v.name, v.shape, s)
                )
    else:
        invariants = [v.shape for v in flat_vars]
    g = get_default_graph()
    with g.name_scope(name or "while") as scope:
        if maximum_iterations is None:
            max_iter = array_ops.constant(-1, name="maximum_iterations")
        else:
            max_iter = convert_to_tensor(maximum_iterations, name="maximum_iterations")
            if max_iter.shape.ndims != 0:
                raise ValueError(
                    "'maximum_iterations' must be a scalar. Received shape: %s" % max_iter.shape
                )
            if not max_iter.dtype.is_integer:
                raise TypeError(
                    "'maximum_iterations' must be an integer, got dtype %s" % max_iter.dtype.name
                )
        counter = array_ops.constant(0, dtype=max_iter.dtype, name="loop_counter")
        with g.control_dependencies(None):
            phs = [
                array_ops.placeholder(v.dtype, s, name="loop_var")
                for v, s in zip(flat_vars, invariants)
            ]
        args = nest.children(nest.pack_leaves(loop_vars, _with_tas(tas, phs)))

        def conv_pred(p):
            p = convert_to_tensor(p)
            if p.dtype is not _dt.bool:
                raise TypeError(
                    "while_loop op '%s': cond must return a bool tensor, got %s "
                    "of dtype %s" % (scope[:-1], p.name, p.dtype.name)
                )
            return p

        pred, cond_ops = trace_body(g, cond, args, conv_pred)

        def conv_body(res):
            if not nest.is_nested(res):
                res = [res]
            err = structure_error(res, loop_vars, check_types=False)
            if err:
                raise ValueError(
                    "The two structures don't have the same nested structure."
                    "\n\nFirst structure: %r\n\nSecond structure: %r\n\nMore "
                    "specifically: %s" % (res, loop_vars, err)
                )
            return [convert_to_tensor(_flow_of(x)) for x in nest.flatten(res)]

        outs, body_ops = trace_body(g, body, args, conv_body)
        for v, ph, o in zip(flat_vars, phs, outs):
            if o.dtype is not v.dtype:
                raise TypeError(
                    "Loop var %s enters the loop with type %r but has type %r "
                    "after 1 iteration. %s type should remain constant."
                    % (v.name, v.dtype, o.dtype, v.name)
                )
            if not _shape_le(o.shape, ph.shape):
                raise ValueError(
                    "Input tensor `%s` enters the loop with shape %s, but has shape %s after "
                    "one iteration. To allow the shape to vary across iterations, use the "
                    "`shape_invariants` argument of tf.while_loop to specify a less-specific "
                    "shape." % (v.name, v.shape, o.shape)
                )
        cb = TracedBody(cond_ops, [pred], phs, flat_vars)
        bb = TracedBody(body_ops, outs, phs, flat_vars)
        for b in (cb, bb):
            b.finish_captures(g)
        nv = len(flat_vars)
        inputs = wire_inputs([cb, bb], [counter, max_iter] + flat_vars, nv)
        all_ops = cb.ops + bb.ops
        blocking = any_blocking(all_ops)
        op_type = "While" if blocking or any_stateful(all_ops) else "StatelessWhile"
        specs = [(max_iter.dtype, TensorShape([])), (max_iter.dtype, TensorShape([]))]
        specs += [(v.dtype, ph.shape) for v, ph in zip(flat_vars, phs)]
        attrs = {
            "T": [d for d, _ in specs],
            "output_shapes": [s for _, s in specs],
            "cond": cb,
            "body": bb,
            "_specs": specs,
            "_plans": {},
            "parallel_iterations": parallel_iterations,
            "_n_vars": nv,
            "_blocking": blocking,
        }
        op = create_named(g, op_type, inputs, attrs, scope[:-1])
        for c in cb.control + bb.control:
            op._add_control_input(c)
        nested_ops(g).update(cond_ops + body_ops + phs)
        results = [array_ops.identity(t, name="Identity") for t in op.outputs]
    results = results[2:]
    if not back_prop:
        results = [array_ops.stop_gradient(t) for t in results]
    results = _with_tas(tas, results)
    packed = nest.pack_leaves(loop_vars, results)
    if return_same_structure:
        return packed
    return results[0] if len(results) == 1 else packed


def _flow_of(x):
    """A TensorArray's flow, else ``x``."""
    return x.flow if hasattr(x, "_with_flow") else x


def _with_tas(tas, tensors):
    """Each flow rewrapped as the TensorArray it came from (other tensors as they are)."""
    return [t if ta is None else ta._with_flow(t) for ta, t in zip(tas, tensors)]


def _flatten_shapes(x):
    """Flattens a nest of shapes (a TensorShape or a list of dims is one leaf)."""
    if isinstance(x, TensorShape) or x is None:
        return [x]
    if (
        isinstance(x, (list, tuple))
        and all(d is None or isinstance(d, (int, np.integer)) for d in x)
        and not hasattr(x, "_fields")
    ):
        return [x]
    out = []
    for c in nest.children(x):
        out.extend(_flatten_shapes(c))
    return out


def _shape_le(s1: TensorShape, s2: TensorShape) -> bool:
    """True if ``s1`` is at least as specific as ``s2`` (TF's _ShapeLessThanOrEqual)."""
    if s2.ndims is None:
        return True
    if s1.ndims != s2.ndims:
        return False
    return all(b is None or a == b for a, b in zip(s1.as_list(), s2.as_list()))


def _while_entry(op, fuse):
    def build():
        cb, bb = op.attrs["cond"], op.attrs["body"]
        fetch = bb.outputs + op.attrs.get("_record", [])
        return (
            Plan(cb.outputs, [], cb.feeds, fuse=fuse),
            cb.input_idx,
            Plan(fetch, [], bb.feeds, fuse=fuse),
            bb.input_idx,
        )

    return sub_plan(op, fuse, build)


def _while_setup(op, inputs):
    nv = op.attrs["_n_vars"]
    count, limit = inputs[0], int(inputs[1])
    return nv, count, limit, list(inputs[2 : 2 + nv]), inputs


def _feeds(idx, nv, vars_, inputs):
    # Indices 2..2+nv are the loop variables; the rest are captures.
    return [vars_[i - 2] if i < 2 + nv else inputs[i] for i in idx]


def _stop(op, pred, count, limit) -> bool:
    p = np.asarray(pred)
    if p.size != 1:
        raise errors.InvalidArgumentError(
            None, op, "%s: cond must return a scalar, got shape %s" % (op.describe(), list(p.shape))
        )
    return not bool(p.reshape(())) or (limit >= 0 and count >= limit)


def _outputs(op, count, limit, vars_, record):
    out = (np.asarray(count, op.outputs[0].dtype.np), limit, *vars_)
    return out if record is None else out + (record,)


def _while_kernel(ctx, op, *inputs):
    """Runs the loop (a generator: a blocking cond or body waits as the run waits; the
    registry derives the kernel of a While that cannot wait from it)."""
    nv, count, limit, vars_, inputs = _while_setup(op, inputs)
    cplan, cidx, bplan, bidx = _while_entry(op, fuses(ctx))
    record = [] if "_record" in op.attrs else None
    # A plan that cannot wait is called directly (a generator per iteration shows).
    cfn = None if cplan.blocking else cplan.fn
    bfn = None if bplan.blocking else bplan.fn
    while True:
        ctx.check_deadline(op)
        feeds = _feeds(cidx, nv, vars_, inputs)
        if cfn is not None:
            (pred,) = cfn(ctx, feeds)
        else:
            (pred,) = yield from run_nested(cplan, ctx, feeds)
        if _stop(op, pred, count, limit):
            break
        feeds = _feeds(bidx, nv, vars_, inputs)
        vals = bfn(ctx, feeds) if bfn is not None else (yield from run_nested(bplan, ctx, feeds))
        if record is not None:
            record.append(tuple(vals[nv:]))
        vars_ = vals[:nv]
        count = count + 1
    return _outputs(op, count, inputs[1], vars_, record)


# --------------------------------------------------------------------------------------
# The gradient: record forward values, replay the body's gradient backwards
# --------------------------------------------------------------------------------------

# The dtype of a loop's record (a list of per-iteration tuples), TF's ``variant``.
variant = _dt.variant


def _record(op, tensors) -> tuple[Tensor, list[int]]:
    """Makes forward While ``op`` record ``tensors`` per iteration; returns its record
    output and each tensor's position in an iteration's tuple."""
    rec = op.attrs.setdefault("_record", [])
    if "_record_out" not in op.attrs:
        k = len(op.outputs)
        op.outputs.append(Tensor(op, k, variant, TensorShape([])))
        op.attrs["_specs"].append((variant, TensorShape([])))
        op.attrs["_record_out"] = k
    for t in tensors:
        if t not in rec:
            rec.append(t)
    op.graph._version += 1  # the cached body plan now fetches the recorded values
    return op.outputs[op.attrs["_record_out"]], [rec.index(t) for t in tensors]


def _while_grad(op, *grads):
    """The gradient of a While: a ``WhileGrad`` replaying the body's gradient."""
    from ..gradients import gradients  # gradients imports the op layer

    g = op.graph
    bb = op.attrs["body"]
    nv = op.attrs["_n_vars"]
    phs, caps = bb.feeds[:nv], bb.feeds[nv:]
    cap_inputs = [op.inputs[k] for k in bb.input_idx[nv:]]
    fv = [i for i in range(nv) if phs[i].dtype.is_floating or phs[i].dtype is variant]
    fc = [j for j, t in enumerate(caps) if differentiable_input(t)]
    if not fv or all(grads[2 + i] is None for i in fv):
        return [None] * len(op.inputs)
    with g.control_dependencies(None):
        dys = [array_ops.placeholder(phs[i].dtype, phs[i].shape, name="grad_y") for i in fv]

    def grad_fn():
        xs = [phs[i] for i in fv] + [caps[j] for j in fc]
        gs = gradients([bb.outputs[i] for i in fv], xs, grad_ys=dys, stop_gradients=xs)
        out = []
        for x, gr in zip(xs, gs):
            if gr is None:
                gr = zeros_for(x)
            elif not isinstance(gr, Tensor):
                gr = gr._as_tensor()
            out.append(gr)
        return out

    outs, ops = trace_body(g, grad_fn)
    nested = nested_ops(g)
    inside = set(ops)
    mine = [o for o in ops if o not in nested]
    body_ops = set(bb.ops)
    cap_of = dict(zip(caps, cap_inputs))
    recorded, consts, const_src = [], [], []
    for o in mine:
        for c in list(o.control_inputs):
            if c not in inside:
                o.control_inputs.remove(c)
                c._control_outputs.remove(o)
    for t in [t for o in mine for t in o.inputs] + outs:
        if t.op in inside or t in dys or t in recorded or t in consts:
            continue
        if t in phs or t.op in body_ops:
            recorded.append(t)
        else:
            consts.append(t)
            const_src.append(cap_of.get(t, t))
    nested.update(ops + [d.op for d in dys])
    record_out, positions = _record(op, recorded)
    float_caps = [cap_inputs[j] for j in fc]
    gys = [
        grads[2 + i] if grads[2 + i] is not None else array_ops.zeros_like(op.outputs[2 + i])
        for i in fv
    ]
    specs = [(phs[i].dtype, phs[i].shape) for i in fv] + [_grad_spec(t) for t in float_caps]
    attrs = {
        "_specs": specs,
        "_plans": {},
        "feeds": dys + recorded + consts,
        "fetches": outs,
        "positions": positions,
        "n_consts": len(consts),
        "n_caps": len(float_caps),
        "_n_vars": len(fv),
    }
    gop = g._create_op(
        "WhileGrad", [record_out] + const_src + float_caps + gys, attrs, None, "WhileGrad"
    )
    in_grads = [None] * len(op.inputs)
    for k, i in enumerate(fv):
        in_grads[2 + i] = gop.outputs[k]
    for k, j in enumerate(fc):
        idx = bb.input_idx[nv + j]
        prev = in_grads[idx]
        t = gop.outputs[len(fv) + k]
        in_grads[idx] = t if prev is None else prev + t
    return in_grads


def _grad_spec(t: Tensor):
    """The dtype and shape of the gradient of input ``t`` (a variable's, for a handle)."""
    if t.op.type == "VarHandleOp":
        return t.op.attrs["dtype"], t.op.attrs["shape"]
    return t.dtype, t.shape


def _zeros_of(value) -> np.ndarray:
    """Zeros like an input value (a variable's current value, for a handle)."""
    if isinstance(value, VariableResource):
        with value.lock:
            value = value.value
    return np.zeros_like(np.asarray(value))


def _while_grad_kernel(ctx, op, record, *rest):
    a = op.attrs
    n_consts, n_caps, nf = a["n_consts"], a["n_caps"], a["_n_vars"]
    consts = list(rest[:n_consts])
    caps = rest[n_consts : n_consts + n_caps]
    gys = list(rest[n_consts + n_caps :])
    fuse = fuses(ctx)
    plan = sub_plan(op, fuse, lambda: Plan(a["fetches"], [], a["feeds"], fuse=fuse))
    positions = a["positions"]
    acc = [_zeros_of(c) for c in caps]
    for vals in reversed(record):
        ctx.check_deadline(op)
        out = run_sync(plan, ctx, gys + [vals[p] for p in positions] + consts)
        gys = out[:nf]
        acc = [s + np.asarray(x) for s, x in zip(acc, out[nf:])]
    return (*gys, *acc)


for _t, _stateful_flag in (("StatelessWhile", False), ("While", True)):
    register_op(
        _t,
        infer=specs_infer,
        kernel=_while_kernel,
        blocking=blocks,
        grad=_while_grad,
        stateful=_stateful_flag,
        differentiates_handles=True,
        no_fold=True,
    )
# No second order through a loop yet: fr.gradients of a WhileGrad raises LookupError.
register_op("WhileGrad", infer=specs_infer, kernel=_while_grad_kernel)
