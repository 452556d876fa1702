"""Candidate sampling (``fr.nn``): the candidate samplers, compute_accidental_hits, and
the sampled losses nce_loss and sampled_softmax_loss.

One registration per op type, with its infer rule, kernel and gradient together. The
sampled-logits part of ``nce_loss``/``sampled_softmax_loss`` is one fused kernel
(``SampledLogits``) with TF's numerics: in an interpreter each op costs a dispatch, and
these losses sit on the training hot path.
"""

from __future__ import annotations

import collections
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.graph import Tensor, convert_to_tensor
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from .._core.shape import TensorShape, unknown_shape
from . import array_ops, math_ops, random_ops, slicing_ops
from .common import in_graph_of, make_op
from .embedding_ops import embedding_lookup
from .nn_ops import (
    sigmoid_cross_entropy_with_logits,
    softmax_cross_entropy_with_logits_v2,
)

if TYPE_CHECKING:
    from .._core.typing import TensorLike

__all__ = [
    "nce_loss",
    "sampled_softmax_loss",
    "log_uniform_candidate_sampler",
    "uniform_candidate_sampler",
    "fixed_unigram_candidate_sampler",
    "compute_accidental_hits",
]


# --------------------------------------------------------------------------------------
# Candidate samplers
# --------------------------------------------------------------------------------------


def _get_seed(op_seed):
    return random_ops.get_seed(op_seed)


def _sampler_infer(op):
    tc = op.inputs[0]
    if tc.dtype is not _dt.int64:
        raise TypeError(
            "Value passed to parameter 'true_classes' has DataType %s not in "
            "list of allowed values: int64" % tc.dtype.name
        )
    nt = op.attrs["num_true"]
    if tc.shape.ndims not in (None, 2):
        raise ValueError("Shape must be rank 2 but is rank %d for 'true_classes'" % tc.shape.ndims)
    if tc.shape.ndims == 2 and tc.shape.as_list()[1] not in (None, nt):
        raise ValueError(
            "true_classes must have num_true=%d columns, got shape %s" % (nt, tc.shape)
        )
    batch = tc.shape.as_list()[0] if tc.shape.ndims == 2 else None
    s = op.attrs["num_sampled"]
    return [
        (_dt.int64, TensorShape([s])),
        (_dt.float32, TensorShape([batch, nt])),
        (_dt.float32, TensorShape([s])),
    ]


def _dist(op):
    """(sample(rng, n) -> int64 ids, prob(ids) -> float64) for the op's distribution."""
    kind, rmax = op.attrs["dist"], op.attrs["range_max"]
    if kind == "log_uniform":
        log_range = math.log1p(rmax)

        def sample(rng, n):
            # TF's LogUniformSampler: int64(exp(u * log(range_max + 1))) - 1, mod range_max.
            u = rng.random(n)
            u *= log_range
            ids = np.exp(u, out=u).astype(np.int64)
            ids -= 1
            return np.remainder(ids, rmax, out=ids)

        # P(k) = (log(k + 2) - log(k + 1)) / log(range_max + 1), as log1p(1 / (k + 1)).
        def prob(ids):
            p = ids + 1.0
            np.log1p(np.reciprocal(p, out=p), out=p)
            p /= log_range
            return p

        return sample, prob
    if kind == "uniform":
        return (
            lambda rng, n: rng.integers(0, rmax, n, dtype=np.int64),
            lambda ids: np.full(np.shape(ids), 1.0 / rmax),
        )
    p = op.attrs["probs"]
    cdf = np.cumsum(p)
    cdf /= cdf[-1]
    return (
        lambda rng, n: np.minimum(
            np.searchsorted(cdf, rng.random(n), side="right"), rmax - 1
        ).astype(np.int64),
        lambda ids: p[np.clip(ids, 0, rmax - 1)],
    )


def _unique_draws(sample, rng, n: int) -> tuple[np.ndarray, int]:
    """TF's unique sampling: draws until ``n`` distinct values came up; returns them in
    order of first appearance and the number of draws that took (``num_tries``).

    Values are drawn in blocks and scanned in order, so the result is that of drawing
    one at a time; the unscanned rest of a block is discarded (the next run draws
    afresh), which leaves the distribution TF's. A block is ``2 n + 16`` draws, then as
    many as drawn so far (few distinct values in the range need many tries).
    """
    seen: dict = {}
    tries = 0
    block = 2 * n + 16
    while True:
        for v in sample(rng, block).tolist():
            tries += 1
            if v not in seen:
                seen[v] = None
                if len(seen) == n:
                    return np.fromiter(seen, np.int64, n), tries
        block = tries


def _sampler_kernel(ctx, op, true_classes):
    n, unique, rmax = op.attrs["num_sampled"], op.attrs["unique"], op.attrs["range_max"]
    if unique and n > rmax:
        raise errors.InvalidArgumentError(
            None, op, "Sampler's range is too small: num_sampled=%d > range_max=%d" % (n, rmax)
        )
    sample, prob = _dist(op)
    rng = ctx.resources.rng(op)
    if unique and n > 0:
        with ctx.resources.get_or_create(("sampler_lock", op.name), _new_lock):
            ids, tries = _unique_draws(sample, rng, n)
    else:
        ids, tries = sample(rng, n), n
    tc = np.asarray(true_classes)
    # The true and the sampled classes' expected counts in one pass (elementwise), as
    # TF: p * num_sampled when every try was kept, else 1 - (1 - p) ** num_tries.
    p = prob(np.concatenate([tc.reshape(-1).astype(np.int64, copy=False), ids]))
    if tries == n:
        p *= n
    else:
        np.negative(p, out=p)
        np.log1p(p, out=p)
        p *= tries
        np.expm1(p, out=p)
        np.negative(p, out=p)
    exp = p.astype(np.float32)
    return ids, exp[: tc.size].reshape(tc.shape), exp[tc.size :]


def _new_lock():
    import threading

    return threading.Lock()


for _t in ("LogUniformCandidateSampler", "UniformCandidateSampler", "FixedUnigramCandidateSampler"):
    register_op(
        _t, infer=_sampler_infer, kernel=_sampler_kernel, grad=NOT_DIFFERENTIABLE, stateful=True
    )


def _candidate_sampler(
    op_type, dist, true_classes, num_true, num_sampled, unique, range_max, seed, name, probs=None
):
    with in_graph_of([true_classes]):
        return _candidate_sampler_in_graph(
            op_type, dist, true_classes, num_true, num_sampled, unique, range_max, seed, name, probs
        )


def _candidate_sampler_in_graph(
    op_type, dist, true_classes, num_true, num_sampled, unique, range_max, seed, name, probs
):
    seed1, seed2 = _get_seed(seed)
    attrs = {
        "num_true": int(num_true),
        "num_sampled": int(num_sampled),
        "unique": bool(unique),
        "range_max": int(range_max),
        "seed": seed1 or 0,
        "seed2": seed2 or 0,
        "dist": dist,
        "sampler_type": op_type,
        "seed2_pair": None if seed1 is None and seed2 is None else (seed1, seed2),
    }
    if probs is not None:
        attrs["probs"] = probs
    tc = (
        convert_to_tensor(true_classes, _dt.int64)
        if not isinstance(true_classes, Tensor)
        else true_classes
    )
    op = make_op(op_type, [tc], attrs, name, op_type)
    return _SamplerResult._make(op.outputs)


_SamplerResult = collections.namedtuple(  # type: ignore[name-match]  # TF's class name
    "CandidateSamplerResult",
    ["sampled_candidates", "true_expected_count", "sampled_expected_count"],
)


def log_uniform_candidate_sampler(
    true_classes: TensorLike,
    num_true: int,
    num_sampled: int,
    unique: bool,
    range_max: int,
    seed: int | None = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor, Tensor]:
    """Samples ``num_sampled`` classes from the log-uniform (Zipfian) distribution
    ``P(k) = (log(k + 2) - log(k + 1)) / log(range_max + 1)``.

    Returns ``(sampled_candidates, true_expected_count, sampled_expected_count)``.
    Note (flowrt): the random stream differs from TF's (Philox); a seeded op is
    reproducible per session.
    """
    return _candidate_sampler(
        "LogUniformCandidateSampler",
        "log_uniform",
        true_classes,
        num_true,
        num_sampled,
        unique,
        range_max,
        seed,
        name,
    )


def uniform_candidate_sampler(
    true_classes: TensorLike,
    num_true: int,
    num_sampled: int,
    unique: bool,
    range_max: int,
    seed: int | None = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor, Tensor]:
    """Samples classes uniformly from ``[0, range_max)``."""
    return _candidate_sampler(
        "UniformCandidateSampler",
        "uniform",
        true_classes,
        num_true,
        num_sampled,
        unique,
        range_max,
        seed,
        name,
    )


def fixed_unigram_candidate_sampler(
    true_classes: TensorLike,
    num_true: int,
    num_sampled: int,
    unique: bool,
    range_max: int,
    vocab_file: str = "",
    distortion: float = 1.0,
    num_reserved_ids: int = 0,
    num_shards: int = 1,
    shard: int = 0,
    unigrams: Sequence[float] = (),
    seed: int | None = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor, Tensor]:
    """Samples classes from the given ``unigrams`` counts raised to ``distortion``."""
    if vocab_file:
        with open(vocab_file) as f:
            unigrams = [float(line.rsplit(",", 1)[-1]) for line in f if line.strip()]
    w = np.zeros(int(range_max))
    vals = np.asarray(list(unigrams), dtype=np.float64) ** float(distortion)
    w[num_reserved_ids : num_reserved_ids + len(vals)] = vals[
        : max(0, range_max - num_reserved_ids)
    ]
    if num_shards > 1:
        w[np.arange(range_max) % num_shards != shard] = 0
    if w.sum() <= 0:
        raise ValueError("unigrams must contain positive counts")
    return _candidate_sampler(
        "FixedUnigramCandidateSampler",
        "fixed",
        true_classes,
        num_true,
        num_sampled,
        unique,
        range_max,
        seed,
        name,
        probs=w / w.sum(),
    )


def _hits_kernel(ctx, op, true_classes, sampled):
    pos = {}
    for j, v in enumerate(sampled.tolist()):
        pos.setdefault(v, []).append(j)
    idx, ids = [], []
    for i, row in enumerate(true_classes.tolist()):
        for v in row:
            for j in pos.get(v, ()):
                idx.append(i)
                ids.append(j)
    return (
        np.array(idx, np.int32),
        np.array(ids, np.int64),
        np.full(len(idx), -np.finfo(np.float32).max, np.float32),
    )


register_op(
    "ComputeAccidentalHits",
    infer=lambda op: [
        (_dt.int32, TensorShape([None])),
        (_dt.int64, TensorShape([None])),
        (_dt.float32, TensorShape([None])),
    ],
    kernel=_hits_kernel,
    grad=NOT_DIFFERENTIABLE,
)


def compute_accidental_hits(
    true_classes: TensorLike,
    sampled_candidates: TensorLike,
    num_true: int,
    seed: int | None = None,
    name: str | None = None,
) -> tuple[Tensor, ...]:
    """Finds sampled candidates equal to a true class: ``(indices, ids, weights)`` with
    the row in ``true_classes``, the position in ``sampled_candidates`` and -FLT_MAX."""
    with in_graph_of([true_classes, sampled_candidates]):
        return _accidental_hits(true_classes, sampled_candidates, num_true, name)


def _accidental_hits(true_classes, sampled_candidates, num_true, name):
    tc = (
        convert_to_tensor(true_classes, _dt.int64)
        if not isinstance(true_classes, Tensor)
        else true_classes
    )
    sc = (
        convert_to_tensor(sampled_candidates, _dt.int64)
        if not isinstance(sampled_candidates, Tensor)
        else sampled_candidates
    )
    op = make_op("ComputeAccidentalHits", [tc, sc], {"num_true": int(num_true)}, name)
    return tuple(op.outputs)


# --------------------------------------------------------------------------------------
# Sampled losses: nce_loss and sampled_softmax_loss
# --------------------------------------------------------------------------------------


def _sampled_logits_infer(op):
    x, w = op.inputs[0], op.inputs[1]
    nt, ns = op.attrs["num_true"], op.attrs["num_sampled"]
    if w.dtype is not x.dtype:
        raise TypeError(
            "weights (%s) and inputs (%s) must have the same dtype" % (w.dtype.name, x.dtype.name)
        )
    batch = x.shape.as_list()[0] if x.shape.ndims == 2 else None
    s = TensorShape([batch, nt + ns])
    return [(x.dtype, s), (x.dtype, s)]


def _sampled_logits_kernel(ctx, op, x, all_w, all_b, true_exp, sampled_exp, *hits):
    # TF's order: dot products, + biases, (hits masked), - log Q; true columns first.
    nt = op.attrs["num_true"]
    b = x.shape[0]
    bt = b * nt
    sampled = np.matmul(x, all_w[bt:].T)
    sampled += all_b[bt:]
    if nt == 1:
        true = np.einsum("bd,bd->b", x, all_w[:bt]).reshape(b, 1)
    else:
        true = np.einsum("bd,btd->bt", x, all_w[:bt].reshape(b, nt, -1))
    true += all_b[:bt].reshape(b, nt)
    if op.attrs["remove_accidental_hits"]:
        labels, ids = hits
        hit = (labels.reshape(b, nt, 1) == ids.reshape(1, 1, -1)).sum(axis=1)
        sampled += hit * x.dtype.type(-np.finfo(np.float32).max)
    if op.attrs["subtract_log_q"]:
        true -= np.log(true_exp).astype(x.dtype, copy=False)
        sampled -= np.log(sampled_exp).astype(x.dtype, copy=False)
    return np.concatenate((true, sampled), axis=1), _labels(op, x.dtype, b, sampled.shape[1])


def _labels(op, dtype, b, ns):
    """The ``[b, num_true + num_sampled]`` labels: 1 / num_true on the true columns."""
    nt = op.attrs["num_true"]
    z = np.zeros((b, nt + ns), dtype)
    z[:, :nt] = dtype.type(1.0 / nt)
    return z


def _sampled_logits_grad_kernel(ctx, op, g, x, all_w):
    nt = op.attrs["num_true"]
    b = x.shape[0]
    bt = b * nt
    gt, gs = g[:, :nt], g[:, nt:]
    tw, sw = all_w[:bt], all_w[bt:]
    dx = np.matmul(gs, sw)
    dw = np.empty_like(all_w)
    np.matmul(gs.T, x, out=dw[bt:])
    if nt == 1:
        np.multiply(gt, tw, out=dw[:bt])  # d(true logit)/dx, reused: gt * tw
        dx += dw[:bt]
        np.multiply(gt, x, out=dw[:bt])
    else:
        dx += np.einsum("bt,btd->bd", gt, tw.reshape(b, nt, -1))
        np.multiply(gt[:, :, None], x[:, None, :], out=dw[:bt].reshape(b, nt, -1))
    db = np.empty(all_w.shape[0], dtype=g.dtype)
    db[:bt] = gt.reshape(-1)
    np.sum(gs, axis=0, out=db[bt:])
    return dx, dw, db


def _sampled_logits_grad(op, g, _g_labels):
    n_in = len(op.inputs)
    gr = make_op(
        "SampledLogitsGrad", [g, op.inputs[0], op.inputs[1]], {"num_true": op.attrs["num_true"]}
    ).outputs
    return [gr[0], gr[1], gr[2]] + [None] * (n_in - 3)


register_op(
    "SampledLogits",
    infer=_sampled_logits_infer,
    kernel=_sampled_logits_kernel,
    grad=_sampled_logits_grad,
)
register_op(
    "SampledLogitsGrad",
    infer=lambda op: [
        (op.inputs[1].dtype, op.inputs[1].shape),
        (op.inputs[2].dtype, op.inputs[2].shape),
        (
            op.inputs[2].dtype,
            TensorShape([op.inputs[2].shape[0]]) if op.inputs[2].shape.ndims else unknown_shape(1),
        ),
    ],
    kernel=_sampled_logits_grad_kernel,
    grad=None,
)


def _compute_sampled_logits(
    weights,
    biases,
    labels,
    inputs,
    num_sampled,
    num_classes,
    num_true=1,
    sampled_values=None,
    subtract_log_q=True,
    remove_accidental_hits=False,
    partition_strategy="mod",
    name=None,
    seed=None,
):
    """(logits, labels) over the true classes and the sampled ones (TF's helper).

    Note (flowrt): the dot products, biases, accidental-hit masking and ``log Q``
    correction are one fused ``SampledLogits`` op (gradient ``SampledLogitsGrad``).
    """
    if not isinstance(weights, (list, tuple)):
        weights = [weights]
    with (
        in_graph_of([weights, biases, labels, inputs, sampled_values]) as g,
        g.name_scope(name or "compute_sampled_logits"),
    ):
        labels = convert_to_tensor(labels)
        if labels.dtype is not _dt.int64:
            labels = math_ops.cast(labels, _dt.int64)
        inputs = convert_to_tensor(inputs)
        labels_flat = array_ops.reshape(labels, [-1])
        if sampled_values is None:
            sampled_values = log_uniform_candidate_sampler(
                true_classes=labels,
                num_true=num_true,
                num_sampled=num_sampled,
                unique=True,
                range_max=num_classes,
                seed=seed,
            )
        sampled, true_exp, sampled_exp = (array_ops.stop_gradient(s) for s in sampled_values)
        if sampled.dtype is not _dt.int64:
            sampled = math_ops.cast(sampled, _dt.int64)
        all_ids = slicing_ops.concat([labels_flat, sampled], 0)
        all_w = embedding_lookup(weights, all_ids, partition_strategy=partition_strategy)
        if all_w.dtype is not inputs.dtype:
            all_w = math_ops.cast(all_w, inputs.dtype)
        all_b = embedding_lookup(biases, all_ids, partition_strategy=partition_strategy)
        if all_b.dtype is not inputs.dtype:
            all_b = math_ops.cast(all_b, inputs.dtype)
        ins = [inputs, all_w, all_b, true_exp, sampled_exp]
        if remove_accidental_hits:
            ins += [
                labels if labels.shape.ndims == 2 else array_ops.reshape(labels, [-1, num_true]),
                sampled,
            ]
        out = make_op(
            "SampledLogits",
            ins,
            {
                "num_true": int(num_true),
                "num_sampled": int(num_sampled),
                "subtract_log_q": bool(subtract_log_q),
                "remove_accidental_hits": bool(remove_accidental_hits),
            },
            "SampledLogits",
        ).outputs
        return out[0], out[1]


def nce_loss(
    weights: TensorLike | Sequence[TensorLike],
    biases: TensorLike,
    labels: TensorLike,
    inputs: TensorLike,
    num_sampled: int,
    num_classes: int,
    num_true: int = 1,
    sampled_values: tuple[TensorLike, TensorLike, TensorLike] | None = None,
    remove_accidental_hits: bool = False,
    partition_strategy: str = "mod",
    name: str | None = "nce_loss",
) -> Tensor:
    """Noise-contrastive estimation loss per example (shape ``[batch_size]``).

    Args:
      weights: ``[num_classes, dim]`` tensor or variable (or a list of shards).
      biases: ``[num_classes]``.
      labels: int ``[batch_size, num_true]`` target classes.
      inputs: ``[batch_size, dim]`` activations.
      num_sampled: negative classes sampled per batch (log-uniform, unique, by default).
      num_classes: number of possible classes.
      sampled_values: a ``(sampled, true_expected, sampled_expected)`` triple from a
        ``*_candidate_sampler`` to use instead of sampling here.

    Gradients into ``weights`` and ``biases`` are ``IndexedSlices`` over the true and
    sampled rows only.
    """
    logits, labels = _compute_sampled_logits(
        weights,
        biases,
        labels,
        inputs,
        num_sampled,
        num_classes,
        num_true=num_true,
        sampled_values=sampled_values,
        subtract_log_q=True,
        remove_accidental_hits=remove_accidental_hits,
        partition_strategy=partition_strategy,
        name=name,
    )
    losses = sigmoid_cross_entropy_with_logits(labels=labels, logits=logits, name="sampled_losses")
    return math_ops.reduce_sum(losses, 1)


def sampled_softmax_loss(
    weights: TensorLike | Sequence[TensorLike],
    biases: TensorLike,
    labels: TensorLike,
    inputs: TensorLike,
    num_sampled: int,
    num_classes: int,
    num_true: int = 1,
    sampled_values: tuple[TensorLike, TensorLike, TensorLike] | None = None,
    remove_accidental_hits: bool = True,
    partition_strategy: str = "mod",
    name: str | None = "sampled_softmax_loss",
    seed: int | None = None,
) -> Tensor:
    """Softmax cross entropy over the true classes and ``num_sampled`` sampled classes
    (a training-time approximation of the full softmax); shape ``[batch_size]``."""
    logits, labels = _compute_sampled_logits(
        weights,
        biases,
        labels,
        inputs,
        num_sampled,
        num_classes,
        num_true=num_true,
        sampled_values=sampled_values,
        subtract_log_q=True,
        remove_accidental_hits=remove_accidental_hits,
        partition_strategy=partition_strategy,
        name=name,
        seed=seed,
    )
    labels = array_ops.stop_gradient(labels, name="labels_stop_gradient")
    return softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)
