"""The softmax cross-entropy kernels (``SoftmaxCrossEntropyWithLogits`` and its sparse
form) as compiled loops without the GIL (``_core/jit.py``) around one numpy ``exp``.

A training step's loss is small (a batch of 128 rows of 10 classes) and written as
numpy it is a dozen calls, each paying its dispatch (``docs/kernels.md`` has the
measurements, from a [128, 10] batch to 50,000 classes). Per row: the maximum and the
shifted logits; then numpy's SIMD exponentials over the whole batch; then the sum, the
loss (``log(sum) - shifted[label]``, or its dot with the dense labels) and the backprop
(``softmax - labels``). Sums and the loss are accumulated in float64 (their additions
may be regrouped into SIMD lanes) and every result is computed in float64 and rounded
once to the logits' type: a row of many classes (a vocabulary) loses no precision to
the order of its additions. float16 logits are computed in float32 and the results
rounded to float16.
"""

from __future__ import annotations

import math

import numpy as np

from .._core.jit import compiled, inlined, warm_up

__all__ = ["sparse_softmax_xent", "softmax_xent", "prepare"]


@compiled
def _shift_sparse(lg, labels, shifted, part):
    """``shifted = lg - max`` per row, ``part[r] = -shifted[r, label]``; returns the
    first row whose label is out of ``[0, classes)`` (nothing written then), else -1."""
    m, n = lg.shape
    for r in range(m):
        k = labels[r]
        if k < 0 or k >= n:
            return r
    for r in range(m):
        top = _row_max(lg, r)
        for j in range(n):
            shifted[r, j] = lg[r, j] - top
        part[r] = -shifted[r, labels[r]]
    return -1


@compiled(reassociate=True)
def _finish_sparse(e, labels, part, loss):
    """From ``e = exp(shifted)``: ``loss = log(sum e) + part`` and, in place,
    ``e = e / sum e - onehot(label)``."""
    m, n = e.shape
    for r in range(m):
        s = _row_sum(e, r)
        loss[r] = math.log(s) + part[r]
        k = labels[r]
        ek = e[r, k]
        for j in range(n):
            e[r, j] = e[r, j] / s
        e[r, k] = ek / s - 1.0


@compiled(reassociate=True)
def _shift_dense(lg, labels, shifted, part):
    """``shifted = lg - max`` per row; ``part[r] = (sum(labels), -sum(labels *
    shifted))`` of the row."""
    m, n = lg.shape
    for r in range(m):
        top = _row_max(lg, r)
        total = 0.0
        dot = 0.0
        for j in range(n):
            x = lg[r, j] - top
            shifted[r, j] = x
            total += labels[r, j]
            dot += labels[r, j] * x
        part[r, 0] = total
        part[r, 1] = -dot


@compiled(reassociate=True)
def _finish_dense(e, labels, part, loss):
    """From ``e = exp(shifted)``: ``loss = log(sum e) * sum(labels) - sum(labels *
    shifted)`` and, in place, ``e = e / sum e - labels``."""
    m, n = e.shape
    for r in range(m):
        s = _row_sum(e, r)
        loss[r] = math.log(s) * part[r, 0] + part[r, 1]
        for j in range(n):
            e[r, j] = e[r, j] / s - labels[r, j]


@inlined
def _row_max(x, r):
    """The largest value of row ``r`` (NaN when its first value is NaN; a later NaN
    makes its exponential, hence the sum and the row's results, NaN)."""
    top = x[r, 0]
    for j in range(1, x.shape[1]):
        if x[r, j] > top:
            top = x[r, j]
    return top


@inlined
def _row_sum(x, r):
    """Row ``r``'s sum, accumulated in float64."""
    s = 0.0
    for j in range(x.shape[1]):
        s += x[r, j]
    return s


def _wide(x: np.ndarray, n: int) -> np.ndarray:
    """``x`` as a C-ordered [rows, n] array the loops take (float16 widened)."""
    dtype = np.float32 if x.dtype.char == "e" else x.dtype
    return np.ascontiguousarray(x, dtype=dtype).reshape(math.prod(x.shape[:-1]), n)


def sparse_softmax_xent(logits: np.ndarray, labels: np.ndarray):
    """``(loss, backprop)`` of logits [..., classes] against integer ``labels`` [...];
    or the flat index of the first label out of range, as an int."""
    n = logits.shape[-1]
    lg = _wide(logits, n)
    flat = labels.reshape(-1)
    loss = np.empty(lg.shape[0], lg.dtype)
    back = np.empty_like(lg)
    if lg.shape[0] and not n:  # no classes: every label is out of range
        return 0
    if lg.size:
        part = np.empty(lg.shape[0])
        bad = _shift_sparse(lg, flat, back, part)
        if bad >= 0:
            return int(bad)
        np.exp(back, out=back)
        _finish_sparse(back, flat, part, loss)
    dt = logits.dtype
    return loss.astype(dt, copy=False).reshape(labels.shape), back.astype(dt, copy=False).reshape(
        logits.shape
    )


def softmax_xent(logits: np.ndarray, labels: np.ndarray):
    """``(loss, backprop)`` of logits against dense ``labels`` of the same shape."""
    n = logits.shape[-1]
    lg = _wide(logits, n)
    loss = np.empty(lg.shape[0], lg.dtype)
    back = np.empty_like(lg)
    if lg.size:
        lab = _wide(labels, n)
        part = np.empty((lg.shape[0], 2))
        _shift_dense(lg, lab, back, part)
        np.exp(back, out=back)
        _finish_dense(back, lab, part, loss)
    dt = logits.dtype
    return loss.astype(dt, copy=False).reshape(logits.shape[:-1]), back.astype(
        dt, copy=False
    ).reshape(logits.shape)


def prepare(logits_dtype: np.dtype, labels_dtype: np.dtype | None = None) -> None:
    """Has the loops compiled in the background (``jit.warm_up``) for a graph's op:
    sparse when ``labels_dtype`` (an integer type) is given, dense otherwise."""
    lg = np.zeros((1, 2), logits_dtype)
    if labels_dtype is None:
        warm_up(lambda: softmax_xent(lg, lg), ("softmax_xent", lg.dtype.str))
    else:
        labels = np.zeros(1, labels_dtype)
        key = ("sparse_softmax_xent", lg.dtype.str, labels.dtype.str)
        warm_up(lambda: sparse_softmax_xent(lg, labels), key)
