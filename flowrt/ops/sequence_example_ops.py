"""Parsing ``SequenceExample`` protos: ``parse_single_sequence_example`` and the batched
``parse_sequence_example``.

Both ops parse each record with one function (``_parse_one``), which reads the context
as ``parse_example`` reads an ``Example`` and each feature list as a sequence of steps;
the batched op stacks the records' results, padding sequences to the longest.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
from google.protobuf.message import DecodeError

from .. import dtypes as _dt
from .. import errors
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from ..protos import SequenceExample
from .common import TensorShape, in_graph_of, make_op, to_tensor
from .parsing_ops import (
    FeatureSpec,
    FixedLenSequenceFeature,
    default_tensor,
    dense_column,
    sparse_column,
    spec_of,
)
from .sparse_ops import SparseTensor

if TYPE_CHECKING:
    from .._core.typing import TensorLike

__all__ = ["parse_single_sequence_example", "parse_sequence_example"]


def parse_single_sequence_example(
    serialized: TensorLike,
    context_features: Mapping[str, FeatureSpec] | None = None,
    sequence_features: Mapping[str, FeatureSpec] | None = None,
    example_name: TensorLike | None = None,
    name: str | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Parses one serialized ``SequenceExample``: its context like an ``Example`` and its
    feature lists as sequences.

    Args:
      serialized: a scalar string tensor.
      context_features: a dict from key to ``FixedLenFeature`` or ``VarLenFeature``
        (parsed from ``context`` as by ``parse_single_example``).
      sequence_features: a dict from key to ``FixedLenSequenceFeature`` (dense
        ``[steps] + shape``; a missing list is an error unless ``allow_missing``) or
        ``VarLenFeature`` (a ``SparseTensor`` ``[steps, most values]``).
      example_name: an optional scalar string naming the example in error messages.
      name: a name scope for the ops.

    Returns:
      ``(context, sequences)``: two dicts from key to ``Tensor`` or ``SparseTensor``.

    Raises:
      ValueError: both dicts empty, or a bad spec.
      InvalidArgumentError (at run time): a record that is not a SequenceExample, a
        missing required feature or list, values of the wrong type or count.
    """
    return _build(serialized, context_features, sequence_features, example_name, name, False)


def parse_sequence_example(
    serialized: TensorLike,
    context_features: Mapping[str, FeatureSpec] | None = None,
    sequence_features: Mapping[str, FeatureSpec] | None = None,
    example_names: TensorLike | None = None,
    name: str | None = None,
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """Parses a batch of serialized ``SequenceExample`` protos (TF's
    ``tf.io.parse_sequence_example``).

    Args:
      serialized: a 1-D string tensor of serialized ``SequenceExample`` protos.
      context_features: as for ``parse_single_sequence_example``: dense context features
        are ``[batch] + shape``, sparse ones ``[batch, most values]``.
      sequence_features: as for ``parse_single_sequence_example``: a dense feature list
        is ``[batch, most steps] + shape`` (shorter ones padded with 0 or ``b""``), a
        sparse one a ``SparseTensor`` ``[batch, most steps, most values]``.
      example_names: optional 1-D strings naming the records in error messages.
      name: a name scope for the ops.

    Returns:
      ``(context, sequences, lengths)``: ``lengths`` maps each dense feature list's key
      to the int64 ``[batch]`` numbers of steps of the records.

    Raises:
      ValueError: both dicts empty, a bad spec, or ``serialized`` not a vector.
      InvalidArgumentError (at run time): as ``parse_single_sequence_example``, for the
        record named in the message.
    """
    return _build(serialized, context_features, sequence_features, example_names, name, True)


def _build(serialized, context_features, sequence_features, names, name, batched):
    from ..scopes import name_scope

    with in_graph_of([serialized]):
        if not context_features and not sequence_features:
            raise ValueError(
                "Both `context_features` and `sequence_features` argument are None, but at "
                "least one should have values."
                if batched
                else "Missing features."
            )
        ctx_spec = spec_of(context_features, sequence=True)
        for key, f in (context_features or {}).items():
            if isinstance(f, FixedLenSequenceFeature):
                raise ValueError(
                    "context_features[%r] must be a FixedLenFeature or VarLenFeature" % key
                )
        seq_spec = spec_of(sequence_features, sequence=True)
        ser = to_tensor(serialized, _dt.string)
        rank = 1 if batched else 0
        if ser.shape.ndims not in (None, rank):
            raise ValueError(
                "Shape must be rank %d but is rank %d for 'serialized' of %s"
                % (
                    rank,
                    ser.shape.ndims,
                    "parse_sequence_example" if batched else "parse_single_sequence_example",
                )
            )
        op_type = "ParseSequenceExampleV2" if batched else "ParseSingleSequenceExample"
        with name_scope(name or ("ParseSequenceExample" if batched else op_type)):
            sk, st, dk, dt, ds, _, dd = ctx_spec
            defaults = [default_tensor(k, t, s, False, d) for k, t, s, d in zip(dk, dt, ds, dd)]
            if names is not None:
                names_t = to_tensor(names, _dt.string)
            elif batched:
                names_t = to_tensor(np.array([], dtype=object), _dt.string, name="names")
            else:
                names_t = to_tensor("", _dt.string)
            attrs = {
                "context_sparse_keys": sk,
                "context_sparse_types": st,
                "context_dense_keys": dk,
                "context_dense_types": dt,
                "context_dense_shapes": ds,
                "feature_list_sparse_keys": seq_spec[0],
                "feature_list_sparse_types": seq_spec[1],
                "feature_list_dense_keys": seq_spec[2],
                "feature_list_dense_types": seq_spec[3],
                "feature_list_dense_shapes": seq_spec[4],
                "feature_list_dense_missing_assumed_empty": seq_spec[5],
            }
            op = make_op(op_type, [ser, names_t] + defaults, attrs, None, op_type)
        outs = iter(op.outputs)

        def take(sparse_keys, dense_keys):
            got = {}
            n = len(sparse_keys)
            trip = [next(outs) for _ in range(3 * n)]
            for i, key in enumerate(sparse_keys):
                got[key] = SparseTensor(trip[i], trip[n + i], trip[2 * n + i])
            for key in dense_keys:
                got[key] = next(outs)
            return got

        context = take(sk, dk)
        sequences = take(seq_spec[0], seq_spec[2])
        if not batched:
            return context, sequences
        return context, sequences, {key: next(outs) for key in seq_spec[2]}


def _seq_infer(op):
    a = op.attrs
    batched = op.type == "ParseSequenceExampleV2"
    ser = op.inputs[0].shape
    b = [ser.as_list()[0] if ser.ndims == 1 else None] if batched else []
    outs = []
    for sparse, dense, shapes, rank in (
        ("context_sparse_types", "context_dense_types", "context_dense_shapes", 1),
        ("feature_list_sparse_types", "feature_list_dense_types", "feature_list_dense_shapes", 2),
    ):
        n = len(a[sparse])
        outs += [(_dt.int64, TensorShape([None, rank + len(b)]))] * n
        outs += [(t, TensorShape([None])) for t in a[sparse]]
        outs += [(_dt.int64, TensorShape([rank + len(b)]))] * n
        lead = b + ([] if rank == 1 else [None])
        outs += [(t, TensorShape(lead + list(s))) for t, s in zip(a[dense], a[shapes])]
    if batched:
        outs += [(_dt.int64, TensorShape(b))] * len(a["feature_list_dense_keys"])
    return outs


def _parse_one(op, record, name, defaults):
    """The outputs of ``ParseSingleSequenceExample`` for one serialized record."""
    a = op.attrs

    def names(i):
        return name

    seq = SequenceExample()
    try:
        seq.ParseFromString(record)
    except (DecodeError, TypeError):
        raise errors.InvalidArgumentError(
            None,
            op,
            "Could not parse example input, value: %r (Name: %s)" % (record[:100], name),
        ) from None
    try:
        rows = [seq.context.feature]
        sparse = [
            sparse_column(k, t, rows, names)
            for k, t in zip(a["context_sparse_keys"], a["context_sparse_types"])
        ]
        out = [s[0][:, 1:] for s in sparse] + [s[1] for s in sparse] + [s[2][1:] for s in sparse]
        out += [
            dense_column(op, k, t, s, False, np.asarray(d), rows, names)[0]
            for k, t, s, d in zip(
                a["context_dense_keys"],
                a["context_dense_types"],
                a["context_dense_shapes"],
                defaults,
            )
        ]
        lists = seq.feature_lists.feature_list

        def steps(key, required):
            fl = lists.get(key)
            if fl is None:
                if required:
                    raise errors.InvalidArgumentError(
                        None,
                        None,
                        "Name: %s, Feature list '%s' is required but could not be "
                        "found.  Did you mean to include it in "
                        "feature_list_dense_missing_assumed_empty or "
                        "feature_list_dense_defaults?" % (name, key),
                    )
                return []
            return [{key: f} for f in fl.feature]

        sparse = [
            sparse_column(k, t, steps(k, False), names)
            for k, t in zip(a["feature_list_sparse_keys"], a["feature_list_sparse_types"])
        ]
        out += [s[0] for s in sparse] + [s[1] for s in sparse] + [s[2] for s in sparse]
        none = np.zeros([0])
        out += [
            dense_column(op, k, t, s, False, none, steps(k, not empty_ok), names)
            for k, t, s, empty_ok in zip(
                a["feature_list_dense_keys"],
                a["feature_list_dense_types"],
                a["feature_list_dense_shapes"],
                a["feature_list_dense_missing_assumed_empty"],
            )
        ]
    except errors.InvalidArgumentError as e:
        raise errors.InvalidArgumentError(None, op, e.message) from None
    return out


def _record(x) -> bytes:
    return bytes(x)


def _parse_seq_kernel(ctx, op, serialized, example_name, *defaults):
    name = _record(np.asarray(example_name, dtype=object)[()]).decode("utf-8", "replace")
    record = _record(np.asarray(serialized, dtype=object)[()])
    return tuple(_parse_one(op, record, name or "<unknown>", defaults))


def _sparse_batch(parts, n_dims):
    """One SparseTensor's (indices, values, shape) per record, as one with a batch
    dimension first."""
    idx = [
        np.concatenate([np.full((len(p[0]), 1), b, np.int64), p[0]], 1) for b, p in enumerate(parts)
    ]
    shape = np.max([p[2] for p in parts], axis=0) if parts else np.zeros([n_dims], np.int64)
    values = np.concatenate([p[1] for p in parts]) if parts else np.zeros([0])
    return (
        np.concatenate(idx).reshape(-1, n_dims + 1) if idx else np.zeros([0, n_dims + 1], np.int64),
        values,
        np.concatenate([[len(parts)], shape]).astype(np.int64),
    )


def _padded_batch(parts, dtype, shape):
    """Sequences ``[steps] + shape`` of each record as ``[batch, most steps] + shape``."""
    width = max((len(p) for p in parts), default=0)
    np_dtype = object if dtype is _dt.string else dtype.np
    out = np.full((len(parts), width) + tuple(shape), b"" if np_dtype is object else 0, np_dtype)
    for b, p in enumerate(parts):
        out[b, : len(p)] = p
    return out


def _parse_seq_batch_kernel(ctx, op, serialized, names, *defaults):
    a = op.attrs
    records = [_record(x) for x in np.asarray(serialized, dtype=object).reshape(-1)]
    names = np.asarray(names, dtype=object).reshape(-1)
    if names.size and names.size != len(records):
        raise errors.InvalidArgumentError(
            None,
            op,
            "Expected len(debug_name) == len(serialized), but got: %d vs. %d"
            % (names.size, len(records)),
        )
    per = [
        _parse_one(
            op,
            r,
            _record(names[b]).decode("utf-8", "replace") if names.size else "<unknown>",
            defaults,
        )
        for b, r in enumerate(records)
    ]
    out: list = []
    pos = 0
    for prefix, rank in (("context_", 1), ("feature_list_", 2)):
        ns, nd = len(a[prefix + "sparse_keys"]), len(a[prefix + "dense_keys"])
        sparse = [
            _sparse_batch([(p[pos + i], p[pos + ns + i], p[pos + 2 * ns + i]) for p in per], rank)
            for i in range(ns)
        ]
        out += [x[0] for x in sparse] + [x[1] for x in sparse] + [x[2] for x in sparse]
        pos += 3 * ns
        for i in range(nd):
            dtype = a[prefix + "dense_types"][i]
            shape = a[prefix + "dense_shapes"][i]
            col = [p[pos + i] for p in per]
            if rank == 1:
                np_dtype = object if dtype is _dt.string else dtype.np
                out.append(np.array(col, dtype=np_dtype).reshape((len(per),) + tuple(shape)))
            else:
                out.append(_padded_batch(col, dtype, shape))
        pos += nd
    n = len(a["feature_list_dense_keys"])
    lengths = [np.array([len(p[pos - n + i]) for p in per], np.int64) for i in range(n)]
    return tuple(out + lengths)


register_op(
    "ParseSingleSequenceExample",
    infer=_seq_infer,
    kernel=_parse_seq_kernel,
    grad=NOT_DIFFERENTIABLE,
)
register_op(
    "ParseSequenceExampleV2",
    infer=_seq_infer,
    kernel=_parse_seq_batch_kernel,
    grad=NOT_DIFFERENTIABLE,
)
