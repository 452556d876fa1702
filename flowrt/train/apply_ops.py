"""The optimizers' update ops: one ``register_op`` row per TF ``Resource[Sparse]Apply*``
op (TF's input names and order), and ``apply_op``, which builds one.

Each update is ONE kernel that reads, computes and writes the variable and its slots
under their locks (``state_ops.update_variables_inplace``), so concurrent runs never
lose an update. Dense rules are compiled loops, one pass over the arrays without the GIL
(``update_rules``); a sparse rule gathers the touched rows, updates them, and scatters
them back. ``IndexedSlices`` gradients (from ``gather``/``embedding_lookup``) are
deduplicated (duplicate rows summed, as TF) and applied to the touched rows only; Adam
follows TF1's non-lazy sparse rule, which decays all of ``m`` and ``v``.
"""

from __future__ import annotations

import math
from functools import partial

import numpy as np

from .. import errors
from .._core.jit import warm_up
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from ..ops import state_ops
from ..ops.common import make_op
from . import update_rules

__all__ = ["apply_op"]

# --------------------------------------------------------------------------------------
# Update kernels: one op type per (optimizer, dense|sparse), TF's types and input order.
# --------------------------------------------------------------------------------------


def _dedup(op, indices, values, nrows):
    """Unique indices and their summed values (TF's ``_deduplicate_indexed_slices``).

    Without duplicates (the common case for a batch of embedding rows) the slices are
    returned as given: the update rules only need each row once. With them, the rows
    come back sorted and each row's values are summed in order of occurrence, as TF's
    ``unsorted_segment_sum`` does (``_segment_sums``).
    """
    indices = np.asarray(indices)
    idx = indices.reshape(-1)  # int32 or int64: both index numpy arrays as they are
    vals = values.reshape((idx.size,) + values.shape[indices.ndim :])
    if idx.size == 0:
        return idx, vals
    sidx = np.sort(idx)
    if sidx[0] < 0 or sidx[-1] >= nrows:  # the sorted ends are the min and max
        bad = idx[(idx < 0) | (idx >= nrows)][0]
        raise errors.InvalidArgumentError(
            None, op, "indices has values outside [0, %d): got %d" % (nrows, int(bad))
        )
    first = np.empty(sidx.size, dtype=bool)
    first[0] = True
    np.not_equal(sidx[1:], sidx[:-1], out=first[1:])
    if first.all():  # no duplicates (the common case): three numpy calls, no argsort
        return idx, vals
    order = idx.argsort(kind="stable")
    starts = np.flatnonzero(first)
    return sidx[starts], _segment_sums(vals, order, first, starts)


def _segment_sums(vals, order, first, starts):
    """Per run of equal sorted indices, the sum of its values in order of occurrence:
    ``((v0 + v1) + v2) ...``, TF's accumulation order (``unsorted_segment_sum``).

    Rows: when every run is a pair (most batches), one vectorized add; else each run
    with duplicates is one numpy sum of its rows, which adds them one after another
    along axis 0 (the frequent words of a Zipf-distributed batch repeat tens of times,
    where ``np.add.at`` on rows cost a third of a skip-gram step). Scalars: one
    ``np.add.at``, which numpy runs in order and, on a flat array, faster than any
    other exact form measured. ``docs/kernels.md`` has the measurements.
    """
    out = vals.take(order[starts], axis=0)
    rest = np.flatnonzero(~first)  # the second and later members of the runs
    seg = np.searchsorted(starts, rest, side="right") - 1  # the run of each
    if out[0].size == 1:
        np.add.at(out.reshape(-1), seg, vals.reshape(-1)[order[rest]])
        return out
    rank = rest - starts[seg]  # position within its run, from 1
    if rank.max() == 1:  # pairs only: one round
        out[seg] += vals.take(order[rest], axis=0)
        return out
    ends = np.empty_like(starts)
    ends[:-1], ends[-1] = starts[1:], first.size
    lens = ends - starts
    pairs = lens[seg] == 2
    out[seg[pairs]] += vals.take(order[rest[pairs]], axis=0)
    ordered = vals.take(order, axis=0)  # rows in sorted order: each run is a slice
    for r in np.flatnonzero(lens > 2).tolist():
        np.add.reduce(ordered[starts[r] : ends[r]], axis=0, out=out[r])
    return out


# Update rules mutate the arrays they are given, ``arrs`` = [var, slot, ...]:
# private copies of the stored values (copy-on-write) or, with state_ops' in-place
# helper, the stored arrays themselves when no run holds a read of them. ``s`` holds the
# scalar hyperparameters as numpy scalars of the variable's dtype. Dense rules get the
# gradient ``g`` and run the compiled loops of ``update_rules``; sparse rules get the
# deduplicated ``rows`` and their gradient rows.


def _sgd_dense(arrs, s, g):
    update_rules.run(update_rules.sgd, arrs, g, s["alpha"])


def _sgd_sparse(arrs, s, rows, g):
    w = arrs[0]
    sub = w.take(rows, axis=0)  # ``w[rows] -= ...`` without fancy-index reads
    sub -= s["alpha"] * g
    w[rows] = sub


def _momentum_dense(arrs, s, g):
    update_rules.run(update_rules.momentum, arrs, g, s["lr"], s["momentum"], s["use_nesterov"])


def _momentum_sparse(arrs, s, rows, g):
    w, acc = arrs
    lr, mom = s["lr"], s["momentum"]
    a = acc[rows] * mom + g
    acc[rows] = a
    if s["use_nesterov"]:
        w[rows] -= g * lr + a * mom * lr
    else:
        w[rows] -= lr * a


def _adam_alpha(s, dt):
    # In the variable's dtype, as TF. The square root is taken in double and rounded
    # once to ``dt``: the correctly rounded root (float32 and float16 have under half
    # of double's bits), as np.sqrt gives, without a ufunc call on a scalar (~2 us).
    one = dt(1)
    return s["lr"] * dt(math.sqrt(one - s["beta2_power"])) / (one - s["beta1_power"])


def _adam_dense(arrs, s, g):
    alpha = _adam_alpha(s, arrs[0].dtype.type)
    c1, c2 = 1 - s["beta1"], 1 - s["beta2"]
    update_rules.run(update_rules.adam, arrs, g, c1, c2, s["epsilon"], alpha)


def _adam_sparse(arrs, s, rows, g):
    # TF1's AdamOptimizer._apply_sparse_shared: m = m * b1 (all rows), m[rows] += (1-b1) g;
    # v likewise with g * g; then the dense var update.
    w, m, v = arrs
    alpha = _adam_alpha(s, w.dtype.type)
    b1, b2, eps = s["beta1"], s["beta2"], s["epsilon"]
    m *= b1
    m[rows] += g * (1 - b1)
    v *= b2
    v[rows] += (g * g) * (1 - b2)
    t = np.sqrt(v)
    t += eps
    np.divide(m, t, out=t)
    t *= alpha
    w -= t


def _adagrad_dense(arrs, s, g):
    update_rules.run(update_rules.adagrad, arrs, g, s["lr"])


def _adagrad_sparse(arrs, s, rows, g):
    w, acc = arrs
    a = acc[rows] + g * g
    acc[rows] = a
    w[rows] -= g * s["lr"] / np.sqrt(a)


def _rms(w, ms, mom, mg, g, s):
    """RMSProp's rule (centered when ``mg`` is given) on whole arrays of one shape."""
    centered = mg is not None
    if not centered:
        mg = np.empty(0, w.dtype)  # not read
    args = (1 - s["rho"], s["momentum"], s["epsilon"], s["lr"], centered)
    update_rules.run(update_rules.rms_prop, [w, ms, mom, mg], g, *args)


def _rms_dense(arrs, s, g):
    w, ms, mom = arrs
    _rms(w, ms, mom, None, g, s)


def _crms_dense(arrs, s, g):
    w, mg, ms, mom = arrs
    _rms(w, ms, mom, mg, g, s)


def _adadelta_dense(arrs, s, g):
    rho = s["rho"]
    update_rules.run(update_rules.adadelta, arrs, g, s["lr"], rho, 1 - rho, s["epsilon"])


def _proximal_sgd_dense(arrs, s, g):
    dt = arrs[0].dtype.type
    alpha = s["alpha"]
    args = (alpha, s["l1"], s["l2"] * alpha, dt(1), dt(0))
    update_rules.run(update_rules.proximal_sgd, arrs, g, *args)


def _proximal_adagrad_dense(arrs, s, g):
    dt = arrs[0].dtype.type
    args = (s["lr"], s["l1"], s["l2"], dt(1), dt(0))
    update_rules.run(update_rules.proximal_adagrad, arrs, g, *args)


def _ftrl_dense(arrs, s, g):
    shrinkage = s.get("l2_shrinkage", arrs[0].dtype.type(0))
    args = (s["lr"], s["l1"], 2 * s["l2"], 2 * shrinkage, s["lr_power"])
    update_rules.run(update_rules.ftrl, arrs, g, *args)


def _on_rows(dense):
    """The sparse form of a rule whose rows update independently (TF's sparse kernels
    of RMSProp, Adadelta, Ftrl and the proximal rules): the touched rows of the variable and its
    slots gathered, updated by the dense rule, and scattered back."""

    def sparse(arrs, s, rows, g):
        sub = [a[rows] for a in arrs]
        dense(sub, s, g)
        for a, b in zip(arrs, sub, strict=True):
            a[rows] = b

    return sparse


# op type, inputs in TF's order (handles first; "grad" the gradient; "indices" for
# sparse), number of variable handles, rule.
_APPLY = [
    ("ResourceApplyGradientDescent", ("var", "alpha", "grad"), 1, _sgd_dense),
    ("ResourceApplyMomentum", ("var", "accum", "lr", "grad", "momentum"), 2, _momentum_dense),
    (
        "ResourceApplyAdam",
        ("var", "m", "v", "beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon", "grad"),
        3,
        _adam_dense,
    ),
    ("ResourceApplyAdagrad", ("var", "accum", "lr", "grad"), 2, _adagrad_dense),
    (
        "ResourceApplyRMSProp",
        ("var", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad"),
        3,
        _rms_dense,
    ),
    (
        "ResourceApplyCenteredRMSProp",
        ("var", "mg", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad"),
        4,
        _crms_dense,
    ),
    (
        "ResourceApplyAdadelta",
        ("var", "accum", "accum_update", "lr", "rho", "epsilon", "grad"),
        3,
        _adadelta_dense,
    ),
    (
        "ResourceSparseApplyAdadelta",
        ("var", "accum", "accum_update", "lr", "rho", "epsilon", "grad", "indices"),
        3,
        _on_rows(_adadelta_dense),
    ),
    # TF names the gradient of the proximal descent "delta"; the table calls it "grad".
    (
        "ResourceApplyProximalGradientDescent",
        ("var", "alpha", "l1", "l2", "grad"),
        1,
        _proximal_sgd_dense,
    ),
    (
        "ResourceSparseApplyProximalGradientDescent",
        ("var", "alpha", "l1", "l2", "grad", "indices"),
        1,
        _on_rows(_proximal_sgd_dense),
    ),
    (
        "ResourceApplyProximalAdagrad",
        ("var", "accum", "lr", "l1", "l2", "grad"),
        2,
        _proximal_adagrad_dense,
    ),
    (
        "ResourceSparseApplyProximalAdagrad",
        ("var", "accum", "lr", "l1", "l2", "grad", "indices"),
        2,
        _on_rows(_proximal_adagrad_dense),
    ),
    (
        "ResourceApplyFtrl",
        ("var", "accum", "linear", "grad", "lr", "l1", "l2", "lr_power"),
        3,
        _ftrl_dense,
    ),
    (
        "ResourceApplyFtrlV2",
        ("var", "accum", "linear", "grad", "lr", "l1", "l2", "l2_shrinkage", "lr_power"),
        3,
        _ftrl_dense,
    ),
    (
        "ResourceSparseApplyFtrl",
        ("var", "accum", "linear", "grad", "indices", "lr", "l1", "l2", "lr_power"),
        3,
        _on_rows(_ftrl_dense),
    ),
    (
        "ResourceSparseApplyFtrlV2",
        (
            "var",
            "accum",
            "linear",
            "grad",
            "indices",
            "lr",
            "l1",
            "l2",
            "l2_shrinkage",
            "lr_power",
        ),
        3,
        _on_rows(_ftrl_dense),
    ),
    # flowrt's one-kernel forms of TF's composite sparse updates (scatter_add for SGD,
    # assign + scatter_add + assign_sub for Adam):
    ("ResourceSparseApplyGradientDescent", ("var", "alpha", "grad", "indices"), 1, _sgd_sparse),
    (
        "ResourceSparseApplyAdam",
        (
            "var",
            "m",
            "v",
            "beta1_power",
            "beta2_power",
            "lr",
            "beta1",
            "beta2",
            "epsilon",
            "grad",
            "indices",
        ),
        3,
        _adam_sparse,
    ),
    (
        "ResourceSparseApplyMomentum",
        ("var", "accum", "lr", "grad", "indices", "momentum"),
        2,
        _momentum_sparse,
    ),
    ("ResourceSparseApplyAdagrad", ("var", "accum", "lr", "grad", "indices"), 2, _adagrad_sparse),
    (
        "ResourceSparseApplyRMSProp",
        ("var", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad", "indices"),
        3,
        _on_rows(_rms_dense),
    ),
    (
        "ResourceSparseApplyCenteredRMSProp",
        ("var", "mg", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad", "indices"),
        4,
        _on_rows(_crms_dense),
    ),
]


def _apply_infer(op):
    return []


def _apply_kernel(names, n_handles, rule, sparse):
    gi = names.index("grad")
    ii = names.index("indices") if sparse else -1
    scalar_pos = tuple(
        (n, i) for i, n in enumerate(names) if i >= n_handles and n not in ("grad", "indices")
    )
    apply = state_ops.update_variables_inplace

    def kernel(ctx, op, *args):
        grad = args[gi]

        def fn(arrs):
            w = arrs[0]
            dtype = w.dtype
            dt = dtype.type
            s = {n: dt(args[i]) for n, i in scalar_pos}
            s["use_nesterov"] = op.attrs.get("use_nesterov", False)
            g = np.asarray(grad, dtype=dtype)
            if sparse:
                rows, gv = _dedup(op, args[ii], g, w.shape[0])
                rule(arrs, s, rows, gv)
            elif g.shape != w.shape:
                raise errors.InvalidArgumentError(
                    None,
                    op,
                    "var and grad do not have the same shape%s %s" % (list(w.shape), list(g.shape)),
                )
            else:
                rule(arrs, s, g)

        apply(ctx, op, args[:n_handles], fn)
        return ()

    return kernel


for _t, _names, _nh, _rule in _APPLY:
    register_op(
        _t,
        infer=_apply_infer,
        kernel=_apply_kernel(_names, _nh, _rule, "indices" in _names),
        grad=NOT_DIFFERENTIABLE,
        stateful=True,
    )


def _assign_mul_kernel(ctx, op, handle, factor):
    state_ops.update_variable(ctx, op, handle, lambda old: old * factor.astype(old.dtype))
    return ()


# beta1_power *= beta1, atomically (TF assigns a product read earlier in the step).
register_op(
    "AssignMulVariableOp",
    infer=_apply_infer,
    kernel=_assign_mul_kernel,
    grad=NOT_DIFFERENTIABLE,
    stateful=True,
)


_INPUT_NAMES = {t: names for t, names, _, _ in _APPLY}
_DENSE = {t: (names, nh, rule) for t, names, nh, rule in _APPLY if "indices" not in names}


def apply_op(op_type: str, inputs: dict, attrs: dict | None = None):
    """Creates an update op from a dict of inputs keyed by the names in ``_APPLY``, and
    has its dense rule compiled in the background for the variable's dtype."""
    ins = [inputs[n] for n in _INPUT_NAMES[op_type]]
    op = make_op(op_type, ins, attrs or {}, None, op_type)
    dtype = op.inputs[_INPUT_NAMES[op_type].index("grad")].dtype.np
    if op_type in _DENSE:
        warm_up(partial(_rule_on_zeros, op_type, dtype, attrs or {}), (op_type, dtype.str))
    else:
        warm_up()
    return op


def _rule_on_zeros(op_type, dtype, attrs):
    """A dense rule run as its kernel runs it, on one-element arrays of ``dtype``."""
    names, n_handles, rule = _DENSE[op_type]
    dt = dtype.type
    s = {n: dt(0.5) for n in names[n_handles:] if n != "grad"}
    s["use_nesterov"] = bool(attrs.get("use_nesterov", False))
    rule([np.zeros(1, dtype) for _ in range(n_handles)], s, np.zeros(1, dtype))
