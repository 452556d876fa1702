"""Control flow: ``fr.cond``, ``fr.case`` and ``fr.while_loop`` as functional ops.

As TF 2.x builds them for ``tensorflow.compat.v1`` graphs, a conditional is one ``If``
op and a loop one ``While`` op, whose outputs reach the user through ``Identity`` ops
(``cond/Identity:0``, ``while/Identity_2:0``). Processing order:

1. **Trace.** Each branch (the loop's cond and body) is called once and the ops it
   creates are recorded. They live in the main graph under the ``cond/`` (``while/``)
   scope, as in TF1. Outside tensors they consume are *captures*: inputs of the
   functional op, fed to the branch when it runs. Control inputs on outside ops move to
   the functional op. Nothing outside consumes a branch op, so ordinary plans never
   reach one; the loop body sees its loop variables as placeholders.
2. **Run.** The kernel prunes the taken branch (the cond, the body) to a sub-``Plan``
   with the captures fed, cached on the op per graph version, and runs it with the
   step's ``RunContext``: only the taken branch runs, and its state ops share the
   session's state. A branch that may block (a queue op) makes the op a blocking one
   (``OpDef.blocks``; the op type stays TF's ``If``/``While``), whose sub-plan waits as
   its run waits. Each kernel is written once, as a generator; the registry derives the
   kernel of an op that cannot wait from it.
3. **Differentiate.** The gradient of an ``If`` is an ``If`` over the gradients of its
   branches (traced with ``fr.gradients`` inside the gradient branches). Forward-branch
   tensors that a gradient branch needs become extra outputs of the forward ``If``,
   zeros when the other branch ran, as TF's cond_v2 does.

``while_loop`` and its gradient live in while_ops.py, on the tracing helpers here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import dtypes as _dt
from .. import errors, nest
from .._core.executor import run_nested
from .._core.graph import Operation, Tensor, convert_to_tensor, get_default_graph
from .._core.plan import Plan, fuses
from .._core.registry import get_op_def, is_blocking, register_op
from .._core.shape import TensorShape, unknown_shape
from . import array_ops
from .common import make_op

if TYPE_CHECKING:
    from .._core.typing import TensorLike

__all__ = ["cond", "case", "while_loop"]

# --------------------------------------------------------------------------------------
# Nests (lists, tuples, namedtuples, dicts; None and tensors are leaves), as tf.nest
# --------------------------------------------------------------------------------------


def structure_error(a, b, check_types):
    """Why ``a`` and ``b`` are not the same nest, or None (tf.nest.assert_same_structure)."""
    if nest.is_nested(a) != nest.is_nested(b):
        seq, other = (a, b) if nest.is_nested(a) else (b, a)
        return "Substructure %r is a sequence, while substructure %r is not" % (seq, other)
    if not nest.is_nested(a):
        return None
    if check_types and type(a) is not type(b):
        return (
            "The two namedtuples don't have the same sequence type. First structure "
            "%r has type %s, while second structure %r has type %s"
            % (a, type(a).__name__, b, type(b).__name__)
        )
    if isinstance(a, dict) != isinstance(b, dict):
        return "The two structures don't have the same sequence type."
    if isinstance(a, dict) and sorted(a) != sorted(b):
        return (
            "The two dictionaries don't have the same set of keys. First structure has "
            "keys %s, while second structure has keys %s" % (sorted(a), sorted(b))
        )
    ca, cb = nest.children(a), nest.children(b)
    if len(ca) != len(cb):
        return (
            "The two structures don't have the same number of elements. First "
            "structure: %r, second structure: %r" % (a, b)
        )
    for x, y in zip(ca, cb):
        err = structure_error(x, y, check_types)
        if err:
            return err
    return None


# --------------------------------------------------------------------------------------
# Tracing
# --------------------------------------------------------------------------------------


def nested_ops(g) -> set:
    """Ops inside some branch or loop body of ``g`` (never run by an ordinary plan)."""
    return g._scratch.setdefault("control_flow_bodies", set())


class TracedBody:
    """One traced function: its ops, flat outputs, and what its sub-plan is fed.

    ``feeds[i]`` is the tensor the body's ops consume and ``providers[i]`` the outside
    tensor whose value it gets: the same tensor for a capture; a loop-var placeholder and
    the loop var; a forward branch's intermediate and the forward If's output for it.
    """

    __slots__ = (
        "all_ops",
        "ops",
        "outputs",
        "feeds",
        "providers",
        "control",
        "input_idx",
        "exports",
    )

    def __init__(self, all_ops, outputs, feeds=(), providers=()):
        self.all_ops = list(all_ops)
        self.outputs = list(outputs)
        self.feeds = list(feeds)
        self.providers = list(providers)
        self.control: list[Operation] = []
        self.input_idx: tuple = ()
        self.exports: dict[int, Tensor] = {}  # output index of the If -> branch tensor
        self.ops: list[Operation] = []

    def extend(self, new_ops):
        self.all_ops.extend(new_ops)

    def finish_captures(self, g):
        """Finds captures (outside tensors consumed) and moves outside control inputs."""
        nested = nested_ops(g)
        inside = set(self.all_ops)
        self.ops = [op for op in self.all_ops if op not in nested]
        fed = set(self.feeds)
        for op in self.ops:
            for t in op.inputs:
                if t.op not in inside and t not in fed:
                    fed.add(t)
                    self.feeds.append(t)
                    self.providers.append(t)
            for c in list(op.control_inputs):
                if c in inside or c.outputs and c.outputs[0] in fed:
                    continue  # a loop variable's placeholder: fed each time the body runs
                op.control_inputs.remove(c)
                c._control_outputs.remove(op)
                if c not in nested and c not in self.control:
                    self.control.append(c)
        for t in self.outputs:
            if t.op not in inside and t not in fed:
                fed.add(t)
                self.feeds.append(t)
                self.providers.append(t)


def tracing_body(g) -> bool:
    """True while a branch or loop body of ``g`` is being traced (its uses of a variable
    read it afresh, each time the body runs)."""
    return g._scratch.get("body_trace_depth", 0) > 0


def trace_body(g, fn, args=(), convert=None):
    """Calls ``fn(*args)`` recording the ops it creates; returns (result, ops).

    Outer control dependencies do not reach into the body (the functional op gets them).
    """
    start = len(g._ops)
    depth = g._scratch.get("body_trace_depth", 0)
    g._scratch["body_trace_depth"] = depth + 1
    try:
        with g.control_dependencies(None):
            result = fn(*args)
            if convert is not None:
                result = convert(result)
    finally:
        g._scratch["body_trace_depth"] = depth
    # A function graph's capture of a variable (made on first use, maybe in here) belongs
    # to the whole function: the body captures its handle like any outside tensor. So
    # does a variable the body creates (a cell's weights made on its first call in a
    # dynamic_rnn loop): its ops (all in its name scope) run once, as TF1's init_scope.
    new = g._ops[start:]
    owned = tuple(op.name + "/" for op in new if op.type == "VarHandleOp")
    return result, [
        op
        for op in new
        if "_resource" not in op.attrs
        and op.type != "VarHandleOp"
        and not (owned and op.name.startswith(owned))
    ]


def create_named(g, op_type, inputs, attrs, full_name):
    """Creates an op named exactly ``full_name`` (a name already taken by its scope)."""
    return g._create_op(op_type, inputs, attrs, full_name + "/")


def any_blocking(ops) -> bool:
    return any(is_blocking(op) for op in ops)


def blocks(op) -> bool:
    """Whether functional op ``op`` may wait: its branches (body, function) hold an op
    that may (``OpDef.blocks``; decided when the op is built)."""
    return op.attrs["_blocking"]


def any_stateful(ops) -> bool:
    return any(get_op_def(op.type).stateful for op in ops)


def wire_inputs(bodies, first_inputs, n_fixed=0):
    """The functional op's inputs: ``first_inputs``, then every body's unique providers.

    The first ``n_fixed`` feeds of each body (loop variables) take the last ``n_fixed``
    of ``first_inputs``.
    """
    inputs = list(first_inputs)
    base = len(inputs) - n_fixed
    index = {}
    for b in bodies:
        idx = list(range(base, base + n_fixed))
        for p in b.providers[n_fixed:]:
            k = index.get(p)
            if k is None:
                k = index[p] = len(inputs)
                inputs.append(p)
            idx.append(k)
        b.input_idx = tuple(idx)
    return inputs


def _merged_shape(shapes) -> TensorShape:
    """The most specific shape compatible with all of ``shapes``."""
    ranks = {s.ndims for s in shapes}
    if None in ranks or len(ranks) != 1:
        return unknown_shape()
    dims = []
    for ds in zip(*[s.as_list() for s in shapes]):
        dims.append(ds[0] if all(d == ds[0] for d in ds) else None)
    return TensorShape(dims)


def _filler(dtype, shape: TensorShape):
    """The value an untaken branch gives for the other branch's intermediate."""
    dims = [] if shape.ndims is None else [d or 0 for d in shape.as_list()]
    if dtype is _dt.string:
        return np.full(dims, b"", dtype=object)
    if dtype.name == "resource":
        return None
    return np.zeros(dims, dtype=dtype.np)


def specs_infer(op):
    return list(op.attrs["_specs"])


def sub_plan(op, key, build):
    """A sub-plan cached on ``op`` for the current graph version."""
    cache = op.attrs["_plans"]
    version = op.graph.version
    hit = cache.get(key)
    if hit is not None and hit[0] == version:
        return hit[1]
    entry = build()
    cache[key] = (version, entry)
    return entry


# --------------------------------------------------------------------------------------
# cond: the If op
# --------------------------------------------------------------------------------------


def cond(
    pred: TensorLike,
    true_fn: Callable[[], Any] | None = None,
    false_fn: Callable[[], Any] | None = None,
    strict: bool = False,
    name: str | None = None,
    fn1: Callable[[], Any] | None = None,
    fn2: Callable[[], Any] | None = None,
) -> Any:
    """Returns ``true_fn()`` if ``pred`` is true else ``false_fn()``; only that one runs.

    Args:
      pred: a scalar bool tensor.
      true_fn: a callable returning a nest (lists, tuples, dicts) of tensors; a
        returned op stands for ``pred`` run after it.
      false_fn: a callable returning the same nest as ``true_fn``, with matching
        dtypes.
      strict: accepted for compatibility (see the note).
      name: the name scope (default ``cond``).
      fn1: deprecated alias of ``true_fn``.
      fn2: deprecated alias of ``false_fn``.

    Returns:
      The taken branch's results, in the branches' structure; static shapes are the most
      specific shapes compatible with both branches.

    Only ops that the returned tensors depend on run: a side effect inside a branch must
    feed the result or be one of its control dependencies (as in TF1).

    Note (flowrt): as in TF 2.x graph mode, singleton lists are never unpacked, so
    ``strict`` changes nothing. A non-bool ``pred`` is a TypeError when the graph is
    built (TF fails when it runs).
    """
    if fn1 is not None:
        if true_fn is not None:
            raise TypeError("cond(): 'true_fn' and 'fn1' may not be set simultaneously.")
        true_fn = fn1
    elif true_fn is None:
        raise TypeError("cond(): 'true_fn' argument required")
    if fn2 is not None:
        if false_fn is not None:
            raise TypeError("cond(): 'false_fn' and 'fn2' may not be set simultaneously.")
        false_fn = fn2
    elif false_fn is None:
        raise TypeError("cond(): 'false_fn' argument required")
    if not callable(true_fn):
        raise TypeError("'true_fn' must be callable.")
    if not callable(false_fn):
        raise TypeError("'false_fn' must be callable.")
    if isinstance(pred, (bool, np.bool_)):
        raise TypeError("pred must not be a Python bool", pred)
    g = get_default_graph()
    with g.name_scope(name or "cond") as scope:
        pred = convert_to_tensor(pred)
        if pred.dtype is not _dt.bool:
            raise TypeError(
                "cond op '%s': pred must be a bool tensor, got %s of dtype %s; "
                "compare it first, e.g. fr.not_equal(x, 0)"
                % (scope[:-1], pred.name, pred.dtype.name)
            )
        structs, bodies, tas = [], [], []
        for fn in (true_fn, false_fn):
            found: list = []
            res, ops = trace_body(
                g, fn, convert=lambda r, found=found: _convert_branch_result(r, pred, found)
            )
            structs.append(res)
            tas.append(found)
            bodies.append(TracedBody(ops, [t for t in nest.flatten(res) if t is not None]))
        _check_same_outputs(structs[0], structs[1], "true_fn", "false_fn")
        structure = structs[0]
        outs = _build_if(g, scope[:-1], pred, bodies)
        results = [array_ops.identity(t, name="Identity") for t in outs]
    flat = iter(results)
    leaves = [None if x is None else next(flat) for x in nest.flatten(structure)]
    # A TensorArray comes back around the If's output for its flow.
    leaves = [t if ta is None else ta._with_flow(t) for ta, t in zip(tas[0], leaves)]
    return nest.pack_leaves(structure, leaves)


def _convert_branch_result(res, pred, tas):
    """The branch result with ops as ``pred`` and TensorArrays as their flows; ``tas``
    gets each leaf's TensorArray (or None)."""

    def conv(x):
        tas.append(x if hasattr(x, "_with_flow") else None)
        if x is None:
            return None
        if tas[-1] is not None:
            return x.flow
        if isinstance(x, Operation):
            g = x.graph
            with g.control_dependencies([x]):
                return array_ops.identity(pred)
        return convert_to_tensor(x)

    flat = [conv(x) for x in nest.flatten(res)]
    return nest.pack_leaves(res, flat) if nest.is_nested(res) else flat[0]


def _check_same_outputs(a, b, a_name, b_name, what="tf.cond"):
    def fail(detail):
        raise TypeError(
            "%s and %s arguments to %s must have the same number, type, and "
            "overall structure of return values.\n\n%s output: %s\n%s output: "
            "%s\n\nError details:\n%s" % (a_name, b_name, what, a_name, a, b_name, b, detail)
        )

    err = structure_error(a, b, check_types=True)
    if err:
        fail("The two structures don't have the same nested structure.\n\n" + err)
    for x, y in zip(nest.flatten(a), nest.flatten(b)):
        if (x is None) != (y is None):
            fail("%s and %s have different types" % (x, y))
        if x is not None and x.dtype is not y.dtype:
            fail("%s and %s have different types" % (x, y))


def _build_if(g, full_name, pred, bodies):
    """Creates the If op over traced ``bodies``; returns its first (user) outputs."""
    for b in bodies:
        b.finish_captures(g)
    inputs = wire_inputs(bodies, [pred])
    n = len(bodies[0].outputs)
    specs = [
        (bodies[0].outputs[i].dtype, _merged_shape([b.outputs[i].shape for b in bodies]))
        for i in range(n)
    ]
    all_ops = [op for b in bodies for op in b.ops]
    blocking = any_blocking(all_ops)
    op_type = "If" if blocking or any_stateful(all_ops) else "StatelessIf"
    attrs = {
        "Tout": [d for d, _ in specs],
        "output_shapes": [s for _, s in specs],
        "branches": bodies,
        "_specs": specs,
        "_plans": {},
        "_fillers": [None] * n,
        "_n_user": n,
        "_blocking": blocking,
    }
    op = create_named(g, op_type, inputs, attrs, full_name)
    for b in bodies:
        for c in b.control:
            op._add_control_input(c)
    nested_ops(g).update(x for b in bodies for x in b.all_ops)
    return op.outputs[:n]


def _branch_index(op, pred) -> int:
    p = np.asarray(pred)
    if p.shape != ():
        if p.size != 1:
            raise errors.InvalidArgumentError(
                None,
                op,
                "%s: the predicate must be a scalar, got shape %s" % (op.describe(), list(p.shape)),
            )
        p = p.reshape(())
    return 0 if bool(p) else 1


def _if_entry(op, b, keep, fuse):
    """Branch ``b``'s sub-plan computing the If's outputs ``keep`` (None: all), with its
    feed indices and the output slots it fills."""

    def build():
        body = op.attrs["branches"][b]
        n = op.attrs["_n_user"]
        slots = tuple(range(n)) + tuple(body.exports)
        if keep is not None:
            slots = tuple(k for k in slots if k in keep)
        fetch = [body.outputs[k] if k < n else body.exports[k] for k in slots]
        return Plan(fetch, [], body.feeds, fuse=fuse), body.input_idx, slots

    return sub_plan(op, (b, keep, fuse), build)


def _scatter(op, slots, vals):
    out = list(op.attrs["_fillers"])
    for s, v in zip(slots, vals):
        out[s] = v
    return tuple(out)


def _if_kernel(ctx, op, pred, *args, keep=None):
    """Runs the taken branch (a generator: a blocking branch waits as the run waits;
    the registry derives the kernel of an If that cannot wait from it)."""
    plan, idx, slots = _if_entry(op, _branch_index(op, pred), keep, fuses(ctx))
    vals = yield from run_nested(plan, ctx, [args[i - 1] for i in idx])
    return _scatter(op, slots, vals)


def _narrowed(kernel, keep: frozenset):
    """The If's ``kernel`` for a plan that consumes only its outputs ``keep``: the branch
    runs only the ops those outputs need (TF prunes a lowered cond with the rest of the
    graph), so fetching one output does not run the side effects of the others."""
    return lambda ctx, op, *args: kernel(ctx, op, *args, keep=keep)


def _export(op, b, t: Tensor) -> Tensor:
    """The output of forward If ``op`` carrying branch ``b``'s tensor ``t`` (added once)."""
    body = op.attrs["branches"][b]
    for k, u in body.exports.items():
        if u is t:
            return op.outputs[k]
    k = len(op.outputs)
    out = Tensor(op, k, t.dtype, t.shape)
    op.outputs.append(out)
    op.attrs["_specs"].append((t.dtype, t.shape))
    op.attrs["_fillers"].append(_filler(t.dtype, t.shape))
    body.exports[k] = t
    op.graph._version += 1
    return out


def differentiable_input(t: Tensor) -> bool:
    """Floats, variants (TensorArray flows) and variable handles a branch or body reads:
    a handle's gradient is the sum of its reads' (see Variable._all_reads)."""
    return t.dtype.is_floating or t.dtype.name == "variant" or t.op.type == "VarHandleOp"


def zeros_for(t: Tensor) -> Tensor:
    """Zeros shaped like ``t``, or like the variable whose handle ``t`` is."""
    if t.op.type != "VarHandleOp":
        return array_ops.zeros_like(t)
    dtype, shape = t.op.attrs["dtype"], t.op.attrs["shape"]
    if shape.is_fully_defined():
        return array_ops.zeros(shape.as_list(), dtype)
    read = (
        get_default_graph()
        ._create_op("ReadVariableOp", [t], {"dtype": dtype}, None, "ReadVariableOp")
        .outputs[0]
    )
    return array_ops.zeros_like(read)


def _if_grad(op, *grads):
    """The gradient of an If: an If over its branches' gradients (TF's _IfGrad)."""
    from ..gradients import gradients  # gradients imports the op layer

    g = op.graph
    n = op.attrs["_n_user"]
    # fr.gradients stands in ZerosLike(output) for a missing gradient: treat it as None.
    grads = [
        None
        if gr is None
        or (isinstance(gr, Tensor) and gr.op.type == "ZerosLike" and gr.op.inputs[0] is out)
        else gr
        for gr, out in zip(grads, op.outputs)
    ]
    fwd = op.attrs["branches"]
    wrt = [i for i in range(1, len(op.inputs)) if differentiable_input(op.inputs[i])]
    with g.name_scope(g.get_name_scope() + "/") as scope:
        bodies, results = [], []
        for body in fwd:

            def grad_fn(body=body):
                ys, gys = [], []
                pairs = list(zip(body.outputs, grads[:n]))
                pairs += [(t, grads[k]) for k, t in body.exports.items() if k < len(grads)]
                for y, gy in pairs:
                    if gy is not None and (y.dtype.is_floating or y.dtype.name == "variant"):
                        ys.append(y)
                        gys.append(gy)
                mine = {op.inputs[body.input_idx[j]]: j for j in range(len(body.feeds))}
                xs = [body.feeds[mine[op.inputs[i]]] for i in wrt if op.inputs[i] in mine]
                got = dict(
                    zip(
                        xs,
                        gradients(ys, xs, grad_ys=gys, stop_gradients=xs)
                        if ys and xs
                        else [None] * len(xs),
                    )
                )
                out = []
                for i in wrt:
                    x = op.inputs[i]
                    gr = got.get(body.feeds[mine[x]]) if x in mine else None
                    if gr is not None and not isinstance(gr, Tensor):
                        gr = gr._as_tensor()
                    out.append(gr)
                return out

            res, ops = trace_body(g, grad_fn)
            bodies.append(TracedBody(ops, []))
            results.append(res)
        keep = []
        for j, i in enumerate(wrt):
            if all(r[j] is None for r in results):
                continue
            keep.append((j, i))
            for b, r in zip(bodies, results):
                if r[j] is None:
                    z, ops = trace_body(g, zeros_for, (op.inputs[i],))
                    b.extend(ops)
                    r[j] = z
        for b, r in zip(bodies, results):
            b.outputs = [r[j] for j, _ in keep]
        # Tensors of a forward branch the gradient consumes: the branch's own feeds come
        # from the forward If's inputs, its intermediates from new forward If outputs.
        nested = nested_ops(g)
        for b, (body, fb) in enumerate(zip(bodies, fwd)):
            inside = set(body.all_ops)
            fwd_ops = set(fb.ops)
            fwd_feeds = {t: op.inputs[k] for t, k in zip(fb.feeds, fb.input_idx)}
            seen = set()
            tops = [x for x in body.all_ops if x not in nested]
            for t in [t for x in tops for t in x.inputs] + body.outputs:
                if t.op in inside or t in seen:
                    continue
                if t in fwd_feeds:
                    provider = fwd_feeds[t]
                elif t.op in fwd_ops:
                    provider = _export(op, b, t)
                else:
                    continue
                seen.add(t)
                body.feeds.append(t)
                body.providers.append(provider)
        if not keep:
            return [None] * len(op.inputs)
        outs = _build_if(g, scope[:-1], op.inputs[0], bodies)
        outs = [array_ops.identity(t, name="Identity") for t in outs]
    in_grads = [None] * len(op.inputs)
    for (_, i), t in zip(keep, outs):
        in_grads[i] = t
    return in_grads


for _t, _stateful_flag in (("StatelessIf", False), ("If", True)):
    register_op(
        _t,
        infer=specs_infer,
        kernel=_if_kernel,
        blocking=blocks,
        grad=_if_grad,
        stateful=_stateful_flag,
        differentiates_handles=True,
        narrow_outputs=_narrowed,
    )


# --------------------------------------------------------------------------------------
# case
# --------------------------------------------------------------------------------------


def case(
    pred_fn_pairs: Sequence[tuple[TensorLike, Callable[[], Any]]] | Mapping[Any, Callable[[], Any]],
    default: Callable[[], Any] | None = None,
    exclusive: bool = False,
    strict: bool = False,
    name: str | None = "case",
) -> Any:
    """Runs the function of the first true predicate, else ``default`` (TF1 ``tf.case``).

    Args:
      pred_fn_pairs: a list of ``(pred, fn)`` pairs (a dict only with ``exclusive``).
      default: a callable for when no predicate is true. Without one, the last pair's
        function is the default and running it when its predicate is false is an
        ``InvalidArgumentError``.
      exclusive: if True, more than one true predicate is an ``InvalidArgumentError``.
      strict: as in ``cond``.
      name: the name scope.

    Built as nested ``cond`` ops, as TF does.
    """
    if isinstance(pred_fn_pairs, dict):
        if not exclusive:
            raise ValueError(
                "Unordered dictionaries are not supported for the "
                "'pred_fn_pairs' argument when `exclusive=False` and "
                "eager mode is enabled."
            )
        pairs = list(pred_fn_pairs.items())
    elif isinstance(pred_fn_pairs, (list, tuple)):
        pairs = list(pred_fn_pairs)
    else:
        raise TypeError(
            "'pred_fn_pairs' must be a list, tuple, or dict. Received: %s" % type(pred_fn_pairs)
        )
    preds, fns = [], []
    for pair in pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(
                "Each entry in 'pred_fn_pairs' must be a 2-tuple. Received %s." % (pair,)
            )
        p, f = pair
        if isinstance(p, Tensor):
            if p.dtype is not _dt.bool:
                raise TypeError("pred must be Tensor of type bool: %s" % p.name)
        else:
            raise TypeError("pred must be a Tensor, got: %s" % (p,))
        if not callable(f):
            raise TypeError("fn for pred %s must be callable." % p.name)
        preds.append(p)
        fns.append(f)
    if default is not None and not callable(default):
        raise TypeError("'default' must be callable.")
    g = get_default_graph()
    with g.name_scope(name or "case"):
        check = None
        if exclusive and len(preds) > 1:
            check = _at_most_one_true(preds, "Input error: exclusive=True")
        if default is None:
            if not preds:
                raise ValueError("'pred_fn_pairs' must not be empty when there is no default.")
            last_p, last_f = preds[-1], fns[-1]
            preds, fns = preds[:-1], fns[:-1]
            others = list(preds)

            def default():
                checks = [
                    _check_op(
                        [last_p], "Input error: None of conditions evaluated as True", "none_true"
                    )
                ]
                if others:
                    checks.append(
                        _at_most_one_true(
                            others,
                            "Implementation error: selected "
                            "default action was called, but some "
                            "of other predicates are True",
                            n=0,
                        )
                    )
                with g.control_dependencies(checks):
                    return _with_deps(last_f())

        def chain(p, f, rest):
            return lambda: cond(p, f, rest, strict=strict)

        fn = default
        for p, f in reversed(list(zip(preds, fns))):
            fn = chain(p, f, fn)
        if check is not None:
            with g.control_dependencies([check]):
                return _with_deps(fn())
        return fn()


def _with_deps(res):
    """Re-emits ``res`` under the current control dependencies."""

    def conv(x):
        if isinstance(x, Operation):
            return array_ops.group(x)
        return None if x is None else array_ops.identity(x)

    flat = [conv(x) for x in nest.flatten(res)]
    return nest.pack_leaves(res, flat) if nest.is_nested(res) else flat[0]


def _check_kernel(ctx, op, *preds):
    vals = [bool(np.asarray(p)) for p in preds]
    n = op.attrs["n"]
    if op.attrs["kind"] == "none_true":
        ok = any(vals)
    else:
        ok = sum(vals) <= n
    if not ok:
        raise errors.InvalidArgumentError(
            None,
            op,
            "%s: %s (%s) -> %s"
            % (op.name, op.attrs["msg"], ", ".join(p.name for p in op.inputs), vals),
        )
    return ()


register_op("CaseCheck", infer=lambda op: [], kernel=_check_kernel, stateful=True)


def _check_op(preds, msg, kind, n=0):
    return make_op("CaseCheck", list(preds), {"msg": msg, "kind": kind, "n": n}, None, "Assert")


def _at_most_one_true(preds, msg, n=1):
    return _check_op(
        preds, "%s: more than %d conditions evaluated as True" % (msg, n), "at_most", n
    )


from .while_ops import while_loop  # noqa: E402  (the While op family)
