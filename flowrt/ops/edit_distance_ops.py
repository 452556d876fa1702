"""``edit_distance``: the Levenshtein distance between the sequences of two SparseTensors
(TF1's ``tf.edit_distance``, op ``EditDistance``).

Each sparse input holds one sequence per coordinate of its first ``rank - 1``
dimensions: the values of a run of consecutive entries sharing those coordinates, in the
order they are stored (the last index only sorts them; gaps in it do not count). The
kernel walks both inputs' runs together as TF's does, so inputs whose entries are out of
order give TF's result, and an entry whose coordinates fall outside the output gives
TF's ``InternalError``.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.graph import Tensor
from .._core.jit import compiled, inlined, warm_up
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from .common import TensorShape, in_graph_of, int_list, make
from .sparse_ops import SparseInput, SparseTensor, SparseTensorValue

__all__ = ["edit_distance"]


def edit_distance(
    hypothesis: SparseInput, truth: SparseInput, normalize: bool = True, name: str = "edit_distance"
) -> Tensor:
    """The Levenshtein distance between each sequence of ``hypothesis`` and of ``truth``.

    Args:
      hypothesis: a ``SparseTensor`` (or ``SparseTensorValue``) of rank ``R >= 2``; its
        last dimension holds variable-length sequences of any dtype.
      truth: a ``SparseTensor`` of the same rank and values dtype.
      normalize: divide each distance by the length of its truth sequence (an empty
        truth gives ``inf``, or 0 when the hypothesis is empty too).
      name: a name for the op.

    Returns:
      A float32 tensor of rank ``R - 1``: each dimension is the larger of the two inputs'.

    Raises:
      TypeError: an argument that is not sparse, or values of different dtypes.
      ValueError: dense shapes known at construction of different ranks, or of rank < 2.
      InvalidArgumentError: (at run time) the same, malformed components, or an empty
        output.
      InternalError: (at run time) an entry outside the output, as TF.
    """
    if not isinstance(hypothesis, (SparseTensor, SparseTensorValue)):
        raise TypeError("Hypothesis must be a SparseTensor.")
    if not isinstance(truth, (SparseTensor, SparseTensorValue)):
        raise TypeError("Truth must be a SparseTensor.")
    with in_graph_of([hypothesis, truth]):
        h, t = SparseTensor.from_value(hypothesis), SparseTensor.from_value(truth)
        if h.dtype is not t.dtype:
            raise TypeError(
                "Input 'truth_values' of 'EditDistance' Op has type %s that does not match "
                "type %s of argument 'hypothesis_values'." % (t.dtype.name, h.dtype.name)
            )
        _warm_up()
        return make(
            "EditDistance",
            [h.indices, h.values, h.dense_shape, t.indices, t.values, t.dense_shape],
            {"normalize": bool(normalize)},
            name,
            "edit_distance",
        )


def _infer(op):
    h_shape, t_shape = int_list(op.inputs[2]), int_list(op.inputs[5])
    if h_shape is None or t_shape is None:
        return [(_dt.float32, TensorShape(None))]
    if len(h_shape) != len(t_shape):
        raise ValueError(
            "Num elements of hypothesis_shape does not match truth_shape: %d vs. %d"
            % (len(h_shape), len(t_shape))
        )
    if len(h_shape) < 2:
        raise ValueError(
            "Input Hypothesis SparseTensors must have rank at least 2, but "
            "hypothesis_shape rank is: %d" % len(h_shape)
        )
    dims = [max(a, b) for a, b in zip(h_shape[:-1], t_shape[:-1])]
    return [(_dt.float32, TensorShape([d if d >= 0 else None for d in dims]))]


def _shape_str(a: np.ndarray) -> str:
    return "[%s]" % ",".join(str(d) for d in a.shape)


def _validate(op, hi, hv, hs, ti, tv, ts):
    """TF's checks, in TF's order and words."""

    def bad(msg):
        return errors.InvalidArgumentError(None, op, msg)

    for what, a, nd in (
        ("hypothesis_indices", hi, 2),
        ("truth_indices", ti, 2),
        ("hypothesis_values", hv, 1),
        ("truth_values", tv, 1),
        ("hypothesis_shape", hs, 1),
        ("truth_shape", ts, 1),
    ):
        if a.ndim != nd:
            raise bad(
                "%s should be a %s, but got shape: %s"
                % (what, "matrix" if nd == 2 else "vector", _shape_str(a))
            )
    for what, idx, vals, shape in (("hypothesis", hi, hv, hs), ("truth", ti, tv, ts)):
        if vals.size != idx.shape[0]:
            raise bad(
                "Expected %s_values.NumElements == #rows(%s_indices), their shapes are: %s and %s"
                % (what, what, _shape_str(vals), _shape_str(idx))
            )
        if shape.size != idx.shape[1]:
            raise bad(
                "Expected %s_shape.NumElements == #cols(%s_indices), their shapes are: %s and %s"
                % (what, what, _shape_str(shape), _shape_str(idx))
            )
    if ts.size < 2:
        raise bad(
            "Input SparseTensors must have rank at least 2, but truth_shape rank is: %d" % ts.size
        )
    if hs.size < 2:
        raise bad(
            "Input SparseTensors must have rank at least 2, but hypothesis_shape rank is: %d"
            % hs.size
        )
    if ts.size != hs.size:
        raise bad(
            "Expected truth and hypothesis to have matching ranks, but their shapes are: %s and %s"
            % (_shape_str(ts), _shape_str(hs))
        )
    for shape in (hs, ts):
        if (shape < 0).any():
            raise bad("Dimension %d must be >= 0" % int(shape[shape < 0][0]))


def _runs(idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The runs of consecutive entries sharing their first ``rank - 1`` coordinates:
    each run's coordinates ``[G, rank - 1]`` and the ``G + 1`` bounds of the runs."""
    prefix = idx[:, :-1]
    starts = np.flatnonzero(np.concatenate([[True], (prefix[1:] != prefix[:-1]).any(axis=1)]))
    if idx.shape[0] == 0:
        starts = starts[:0]
    bounds = np.append(starts, idx.shape[0]).astype(np.int64)
    return np.ascontiguousarray(prefix[starts], dtype=np.int64), bounds


def _codes(hv: np.ndarray, tv: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Both inputs' values as int64 codes equal where the values are equal (NaN equals
    nothing, as C++'s ``==``), so one compiled loop serves every dtype."""
    both = np.concatenate([hv, tv])
    if both.dtype.kind in "OSU":  # strings: hashing, 3x faster than sorting 30k
        items = both.tolist()  # each value's code: the position where it first occurs
        seen: dict[object, int] = {}
        first = map(seen.setdefault, items, range(len(items)))
        inverse = np.fromiter(first, np.int64, len(items))
    else:
        inverse = np.unique(both, return_inverse=True, equal_nan=False)[1]
        inverse = inverse.reshape(-1).astype(np.int64)
    return inverse[: hv.size], inverse[hv.size :]


@inlined
def _levenshtein(s, t, scratch):
    """The edit distance between int64 sequences ``s`` and ``t`` (unit costs)."""
    n, m = s.shape[0], t.shape[0]
    if n == 0:
        return m
    if m == 0:
        return n
    for j in range(m + 1):
        scratch[j] = j
    for i in range(1, n + 1):
        diag = scratch[0]
        scratch[0] = i
        for j in range(1, m + 1):
            up = scratch[j]
            best = diag if s[i - 1] == t[j - 1] else diag + 1
            if up + 1 < best:
                best = up + 1
            if scratch[j - 1] + 1 < best:
                best = scratch[j - 1] + 1
            scratch[j] = best
            diag = up
    return scratch[m]


@compiled
def _walk(h_keys, h_bounds, h_codes, t_keys, t_bounds, t_codes, strides, normalize, out):
    """TF's walk over both inputs' runs in storage order; fills ``out`` and returns
    ``(True, 0)``, or ``(False, position)`` for the first output position outside ``out``
    (TF stops there with an InternalError)."""
    n_out = out.shape[0]
    scratch = np.empty(h_codes.shape[0] + t_codes.shape[0] + 1, np.int64)
    gh, gt = h_keys.shape[0], t_keys.shape[0]
    dims = strides.shape[0]
    i = j = 0
    while i < gh or j < gt:
        order = 0  # >0: truth's run sorts after hypothesis's; <0: before
        if i >= gh:
            order = -1
        elif j >= gt:
            order = 1
        else:
            for d in range(dims):
                if t_keys[j, d] != h_keys[i, d]:
                    order = 1 if t_keys[j, d] > h_keys[i, d] else -1
                    break
        key = h_keys[i] if order >= 0 else t_keys[j]
        loc = 0
        for d in range(dims):
            loc += key[d] * strides[d]
        if loc < 0 or loc >= n_out:
            return False, loc
        if order == 0:
            hyp = h_codes[h_bounds[i] : h_bounds[i + 1]]
            tru = t_codes[t_bounds[j] : t_bounds[j + 1]]
            value = np.float32(_levenshtein(tru, hyp, scratch))
            if normalize:
                value = value / np.float32(tru.shape[0])
            out[loc] = value
            i += 1
            j += 1
        elif order > 0:  # a hypothesis with an empty truth
            length = h_bounds[i + 1] - h_bounds[i]
            out[loc] = np.inf if normalize and length != 0 else np.float32(length)
            i += 1
        else:  # a truth with an empty hypothesis
            length = t_bounds[j + 1] - t_bounds[j]
            out[loc] = np.float32(1.0) if normalize else np.float32(length)
            j += 1
    return True, 0


def _kernel(ctx, op, hi, hv, hs, ti, tv, ts):
    hi, ti = np.asarray(hi, np.int64), np.asarray(ti, np.int64)
    hs, ts = np.asarray(hs, np.int64), np.asarray(ts, np.int64)
    hv, tv = np.asarray(hv), np.asarray(tv)
    _validate(op, hi, hv, hs, ti, tv, ts)
    out_shape = np.maximum(hs[:-1], ts[:-1])
    n_out = int(np.prod(out_shape))
    if n_out == 0:
        raise errors.InvalidArgumentError(
            None, op, "Got output shape %s which has 0 elements" % _shape_str(np.empty(out_shape))
        )
    strides = np.append(np.cumprod(out_shape[:0:-1])[::-1], 1).astype(np.int64)
    h_codes, t_codes = _codes(hv, tv)
    out = np.zeros(n_out, np.float32)
    ok, bad = _walk(*_runs(hi), h_codes, *_runs(ti), t_codes, strides, op.attrs["normalize"], out)
    if not ok:
        raise errors.InternalError(
            None,
            op,
            "Got an inner product %d which would require writing to outside of the buffer "
            "for the output tensor (max elements %d)" % (bad, n_out),
        )
    return (out.reshape(out_shape),)


def _warm_up():
    def job():
        idx = np.zeros((1, 2), np.int64)
        keys, bounds = _runs(idx)
        codes = np.zeros(1, np.int64)
        out = np.zeros(1, np.float32)
        _walk(keys, bounds, codes, keys, bounds, codes, np.ones(1, np.int64), True, out)

    warm_up(job, "edit_distance")


register_op("EditDistance", infer=_infer, kernel=_kernel, grad=NOT_DIFFERENTIABLE)
