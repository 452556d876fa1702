"""Call ops: ``PartitionedCall`` / ``StatefulPartitionedCall`` run a function's graph.

A call op holds a ``CallSpec``: a plan over another graph (a ``@fr.function``'s
``FuncGraph``) from its feeds to its fetches, plus targets that always run (the
function's state ops). The kernel runs that plan, cached per output count and graph
version, with the calling step's context, so the call prunes and caches like any op;
a call whose function's plan may block is a blocking ``StatefulPartitionedCall``
(``OpDef.blocks``), its kernel a generator that waits as the run waits.

The gradient of a call op is a call op of the same graph extended with ``fr.gradients``
of the function's float outputs (weighted by placeholders for their incoming gradients)
with respect to its float inputs. Forward values those gradient ops consume become
extra fetches of the spec and extra outputs of the differentiated call op, so the
gradient never re-runs the forward ops (nor their side effects). Gradient calls are
call ops too, so higher orders compose.
"""

from __future__ import annotations

import threading

from .._core.executor import run_nested
from .._core.graph import Tensor, get_default_graph
from .._core.plan import Plan, fuses, prune
from .._core.registry import get_op_def, is_blocking, register_op
from . import array_ops
from .indexed_slices import IndexedSlices

__all__ = []


class CallSpec:
    """What a call op runs: a plan over ``graph`` fetching ``fetches`` from ``feeds``.

    ``fetches`` starts with the function's outputs; forward values the gradient needs
    are appended to it (and to each differentiated call op's outputs) by ``gradient``.
    """

    def __init__(self, graph, feeds, fetches, targets, name):
        self.graph = graph
        self.feeds = list(feeds)
        self.fetches = list(fetches)
        self.n_user = len(self.fetches)  # the function's own outputs; exports follow
        self.targets = list(targets)
        self.name = name
        self._grad = None
        self._lock = threading.Lock()

    def op_type(self) -> tuple[str, bool]:
        """TF's type of a call op running this spec, and whether it may wait."""
        ops = prune(self.fetches, self.targets, set(self.feeds))
        blocking = any(is_blocking(o) for o in ops)
        if blocking or any(get_op_def(o.type).stateful for o in ops):
            return "StatefulPartitionedCall", blocking
        return "PartitionedCall", False

    def gradient(self):
        """(grad spec, float input indices, float output indices, first export index),
        built once."""
        with self._lock:
            if self._grad is not None:
                return self._grad
            from ..gradients import gradients  # gradients imports the op layer

            g = self.graph
            outs = [i for i in range(self.n_user) if self.fetches[i].dtype.is_floating]
            # Captured variables come in as handles: their gradient is the sum over the
            # function's reads of them (fr.gradients differentiates a handle that way).
            ins = [
                j
                for j, t in enumerate(self.feeds)
                if t.dtype.is_floating or t.op.type == "VarHandleOp"
            ]
            start = len(g._ops)
            with g.as_default(), g.name_scope(None), g.control_dependencies(None):
                dys = [
                    array_ops.placeholder(
                        self.fetches[i].dtype, self.fetches[i].shape, name="grad_ys"
                    )
                    for i in outs
                ]
                grads = (
                    gradients(
                        [self.fetches[i] for i in outs], [self.feeds[j] for j in ins], grad_ys=dys
                    )
                    if outs and ins
                    else [None] * len(ins)
                )
                grads = [gr._as_tensor() if isinstance(gr, IndexedSlices) else gr for gr in grads]
            new_ops = set(g._ops[start:])
            fed = set(self.feeds) | set(dys)
            exports = []
            for op in g._ops[start:]:
                for t in op.inputs:
                    if t.op not in new_ops and t not in fed and t not in exports:
                        exports.append(t)
            for gr in grads:
                if gr is not None and gr.op not in new_ops and gr not in fed and gr not in exports:
                    exports.append(gr)
            self.fetches.extend(exports)
            kept = [(j, gr) for j, gr in zip(ins, grads) if gr is not None]
            gspec = CallSpec(
                g, self.feeds + dys + exports, [gr for _, gr in kept], [], self.name + "_grad"
            )
            self._grad = (gspec, [j for j, _ in kept], outs, len(self.fetches) - len(exports))
            return self._grad


def call_op(spec: CallSpec, inputs, name):
    """Adds a call op running ``spec`` in the default graph; returns its outputs."""
    g = get_default_graph()
    specs = [(t.dtype, t.shape) for t in spec.fetches]
    op_type, blocking = spec.op_type()
    attrs = {
        "f": spec,
        "_specs": specs,
        "_plans": {},
        "Tout": [d for d, _ in specs],
        "_blocking": blocking,
    }
    op = g._create_op(op_type, list(inputs), attrs, name)
    return op


def _call_infer(op):
    return list(op.attrs["_specs"])


def _call_plan(op, fuse) -> Plan:
    spec = op.attrs["f"]
    n = len(op.outputs)
    version = spec.graph.version
    hit = op.attrs["_plans"].get((n, fuse))
    if hit is not None and hit[0] == version:
        return hit[1]
    plan = Plan(spec.fetches[:n], spec.targets, spec.feeds, fuse=fuse)
    op.attrs["_plans"][n, fuse] = (version, plan)
    return plan


def _call_kernel(ctx, op, *args):
    """Runs the function's plan (a generator: a blocking plan waits as the run waits;
    the registry derives the kernel of a call that cannot wait from it)."""
    return tuple((yield from run_nested(_call_plan(op, fuses(ctx)), ctx, list(args))))


def _blocks(op) -> bool:
    return op.attrs["_blocking"]


def _call_grad(op, *grads):
    """A call op's gradient: a call op of the function's gradient (TF's PartitionedCall)."""
    spec = op.attrs["f"]
    gspec, ins, outs, first_export = spec.gradient()
    if not gspec.fetches:
        return [None] * len(op.inputs)
    for k in range(len(op.outputs), len(spec.fetches)):
        t = spec.fetches[k]
        op.outputs.append(Tensor(op, k, t.dtype, t.shape))
        op.attrs["_specs"].append((t.dtype, t.shape))
        op.graph._version += 1
    dys = []
    for i in outs:
        gr = grads[i] if i < len(grads) else None
        dys.append(array_ops.zeros_like(op.outputs[i]) if gr is None else gr)
    exports = op.outputs[first_export : len(spec.fetches)]
    gop = call_op(gspec, list(op.inputs) + dys + list(exports), None)
    in_grads = [None] * len(op.inputs)
    for j, t in zip(ins, gop.outputs):
        in_grads[j] = t
    return in_grads


for _t in ("PartitionedCall", "StatefulPartitionedCall"):
    register_op(
        _t,
        infer=_call_infer,
        kernel=_call_kernel,
        blocking=_blocks,
        grad=_call_grad,
        stateful=_t.startswith("Stateful"),
        differentiates_handles=True,
    )
