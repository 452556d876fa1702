"""Parsing ``Example`` protos: ``parse_example``, ``parse_single_example``, the
``SequenceExample`` parsers and the feature specs (``FixedLenFeature``, ``VarLenFeature``,
``FixedLenSequenceFeature``, ``SparseFeature``); ``decode_raw`` (``decode_raw_ops``) is
re-exported here, its TF module.

One op, ``ParseExampleV2``, parses a vector of serialized ``Example`` protos with the
compiled ``flowrt.protos.Example`` (wire-compatible with TF's); ``parse_single_example``
feeds it a one-element vector and drops the batch dimension, so both follow one set of
rules and messages (TF's wording: ``Name: <unknown>, Key: id, Index: 0. ...``).
"""

from __future__ import annotations

import collections
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from google.protobuf.message import DecodeError

from .. import dtypes as _dt
from .. import errors
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from ..dtypes import DType
from ..protos import Example
from .array_ops import expand_dims, reshape, squeeze
from .common import TensorShape, as_shape, in_graph_of, make_op, to_tensor
from .decode_raw_ops import decode_raw
from .slicing_ops import gather
from .sparse_ops import SparseTensor

if TYPE_CHECKING:
    from .._core.typing import TensorLike

__all__ = [
    "FixedLenFeature",
    "VarLenFeature",
    "FixedLenSequenceFeature",
    "SparseFeature",
    "parse_example",
    "parse_single_example",
    "parse_single_sequence_example",
    "decode_raw",
]


class FixedLenFeature(
    collections.namedtuple("FixedLenFeature", ["shape", "dtype", "default_value"])
):
    """A feature with a fixed number of values, parsed to a dense tensor of ``shape``.

    Attributes:
      shape: the feature's shape (a list of ints).
      dtype: ``fr.float32``, ``fr.int64`` or ``fr.string``.
      default_value: the value when an Example lacks the feature (reshaped to
        ``shape``); None makes the feature required.
    """

    def __new__(
        cls, shape: Sequence[int], dtype: DType, default_value: Any = None
    ) -> FixedLenFeature:
        return super().__new__(cls, shape, dtype, default_value)


class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """A feature with any number of values, parsed to a ``SparseTensor``."""


class FixedLenSequenceFeature(
    collections.namedtuple(
        "FixedLenSequenceFeature", ["shape", "dtype", "allow_missing", "default_value"]
    )
):
    """A feature holding any number of items of ``shape``, parsed to a dense tensor
    ``[batch, most items] + shape``, padded with ``default_value`` (0 or ``b""``).

    Attributes:
      shape: the shape of one item.
      dtype: ``fr.float32``, ``fr.int64`` or ``fr.string``.
      allow_missing: must be True for ``parse_example`` (a missing feature has no items).
      default_value: a scalar used for padding.
    """

    def __new__(
        cls,
        shape: Sequence[int],
        dtype: DType,
        allow_missing: bool = False,
        default_value: Any = None,
    ) -> FixedLenSequenceFeature:
        return super().__new__(cls, shape, dtype, allow_missing, default_value)


class SparseFeature(
    collections.namedtuple(
        "SparseFeature", ["index_key", "value_key", "dtype", "size", "already_sorted"]
    )
):
    """A sparse feature stored as two features of each Example: the indices (int64,
    under ``index_key``) and the values (under ``value_key``), parsed to a
    ``SparseTensor`` of dense shape ``[batch, size]`` (``[size]`` for one Example).

    Attributes:
      index_key: the key of the indices; a list of keys for several dimensions (then
        ``size`` is a list as long).
      value_key: the key of the values.
      dtype: ``fr.float32``, ``fr.int64`` or ``fr.string``.
      size: the size of the dimension(s) the indices index.
      already_sorted: the indices of each Example are in increasing order (no sort).
    """

    def __new__(
        cls,
        index_key: str | Sequence[str],
        value_key: str,
        dtype: DType,
        size: int | Sequence[int],
        already_sorted: bool = False,
    ) -> SparseFeature:
        return super().__new__(cls, index_key, value_key, dtype, size, already_sorted)


FeatureSpec = FixedLenFeature | VarLenFeature | FixedLenSequenceFeature | SparseFeature
"""A feature of ``parse_example``'s ``features`` dict."""


def _split_sparse_features(features: Any) -> tuple[Any, dict]:
    """``features`` with each ``SparseFeature`` replaced by the ``VarLenFeature``s of
    its index and value keys, and the ``SparseFeature``s by key."""
    if not features:
        return features, {}
    plain: dict = {}
    sparse: dict = {}
    for key, f in features.items():
        if not isinstance(f, SparseFeature):
            plain[key] = f
            continue
        for what, k in (("index_key", f.index_key), ("value_key", f.value_key)):
            if not k:
                raise ValueError("Missing %s for SparseFeature %s." % (what, f))
        if f.dtype is None:
            raise ValueError("Missing type for feature %s. Received feature=%s" % (key, f))
        sparse[key] = f
    for key, f in sparse.items():
        parts = [(k, _dt.int64) for k in _keys(f.index_key)] + [(f.value_key, f.dtype)]
        for k, dtype in parts:
            spec = VarLenFeature(_dt.as_dtype(dtype))
            if plain.get(k, spec) != spec:
                raise ValueError(
                    "Feature %r of SparseFeature %r is also given as %s" % (k, key, plain[k])
                )
            plain.setdefault(k, spec)
    return plain, sparse


def _keys(index_key: Any) -> list:
    return [index_key] if isinstance(index_key, str) else list(index_key)


def _merge_sparse_features(out: dict, sparse: dict, requested: Any) -> dict:
    """Builds each ``SparseFeature``'s tensor from its keys' parsed values, keeping only
    the keys asked for."""
    from .sparse_shape_ops import sparse_merge

    for key, f in sparse.items():
        ids = [out[k] for k in _keys(f.index_key)]
        out[key] = sparse_merge(
            ids[0] if isinstance(f.index_key, str) else ids,
            out[f.value_key],
            f.size,
            already_sorted=bool(f.already_sorted),
        )
    return {k: v for k, v in out.items() if k in requested}


_KINDS = {
    _dt.int64: ("int64_list", "int64"),
    _dt.float32: ("float_list", "float"),
    _dt.string: ("bytes_list", "string"),
}
_KIND_NAME = {"int64_list": "int64", "float_list": "float", "bytes_list": "string"}


def _check_dtype(dtype, arg):
    dtype = _dt.as_dtype(dtype)
    if dtype not in _KINDS:
        raise TypeError(
            "Value passed to parameter '%s' has DataType %s not in list of "
            "allowed values: float32, int64, string" % (arg, dtype.name)
        )
    return dtype


def spec_of(features: Mapping[str, Any] | None, sequence: bool = False):
    """(sparse keys, sparse types, dense keys, dense types, dense shapes, var-len flags,
    default values) from a ``features`` dict, keys sorted as TF sorts them.

    With ``sequence`` (the feature lists of a SequenceExample) the flag is
    ``allow_missing`` instead, and FixedLenFeature means a required list."""
    if not features and not sequence:
        raise ValueError("Argument `features` cannot be None or falsy. Got %s" % (features,))
    features = features or {}
    sk, st, dk, dt, ds, dv, dd = [], [], [], [], [], [], []
    for key in sorted(features):
        f = features[key]
        if isinstance(f, VarLenFeature):
            sk.append(key)
            st.append(_check_dtype(f.dtype, "sparse_types"))
        elif isinstance(f, (FixedLenFeature, FixedLenSequenceFeature)):
            if f.shape is None:
                raise ValueError("Missing shape for feature %s. Received feature=%s." % (key, f))
            seq = isinstance(f, FixedLenSequenceFeature)
            allow_missing = isinstance(f, FixedLenSequenceFeature) and bool(f.allow_missing)
            if sequence:
                seq = seq and allow_missing
            elif seq and not allow_missing:
                raise ValueError(
                    "Unsupported: FixedLenSequenceFeature requires allow_missing to be True."
                )
            dtype = _check_dtype(f.dtype, "dense_defaults")
            shape = as_shape(f.shape)
            if not shape.is_fully_defined():
                raise ValueError(
                    "All dimensions of shape for feature %s need to be known but "
                    "received %s." % (key, shape)
                )
            dk.append(key)
            dt.append(dtype)
            ds.append(tuple(shape.as_list()))
            dv.append(seq)
            dd.append(f.default_value)
        else:
            raise ValueError(
                "Unsupported feature type %s for key %r; use FixedLenFeature, "
                "VarLenFeature or FixedLenSequenceFeature" % (type(f).__name__, key)
            )
    return sk, st, dk, dt, ds, dv, dd


def default_tensor(key, dtype, shape, seq, value):
    """The default input of one dense key, as TF builds it: when there is none, an empty
    tensor, or for a ``FixedLenSequenceFeature`` the scalar padding (0 or ``b""``), which
    TF's kernel requires."""
    np_dtype = object if dtype is _dt.string else dtype.np
    if value is None:
        if seq:
            pad = np.array(b"" if dtype is _dt.string else 0, dtype=np_dtype)
            return to_tensor(pad, dtype, name="key_" + key)
        return to_tensor(
            np.zeros([0], np_dtype) if dtype is not _dt.string else np.array([], dtype=object),
            dtype,
            name="key_" + key,
        )
    arr = (
        np.asarray(value, dtype=np_dtype)
        if dtype is not _dt.string
        else np.asarray(value, dtype=object)
    )
    if seq:
        if arr.size != 1:
            raise ValueError(
                "The default value of FixedLenSequenceFeature %r must be a "
                "scalar, got shape %s" % (key, list(arr.shape))
            )
        arr = arr.reshape([])
    else:
        n = int(np.prod(shape, dtype=np.int64))
        if arr.size != n:
            raise ValueError(
                "Cannot reshape a tensor with %d elements to shape [%s] (%d "
                "elements) for the default of feature %r"
                % (arr.size, ",".join(map(str, shape)), n, key)
            )
        arr = arr.reshape(shape)
    return to_tensor(arr, dtype, name="key_" + key)


def parse_example(
    serialized: TensorLike,
    features: Mapping[str, FeatureSpec],
    name: str | None = None,
    example_names: TensorLike | None = None,
) -> dict:
    """Parses a batch of serialized ``Example`` protos.

    Args:
      serialized: a 1-D string tensor of serialized ``Example`` protos.
      features: a dict from feature key to ``FixedLenFeature``, ``VarLenFeature``,
        ``FixedLenSequenceFeature`` or ``SparseFeature``.
      name: a name scope for the ops.
      example_names: optional 1-D strings naming the examples in error messages.

    Returns:
      A dict from key to a dense ``Tensor`` (``[batch] + shape``, or ``[batch, items] +
      shape`` for a sequence feature) or a ``SparseTensor`` (``[batch, values]``).

    Raises:
      ValueError, TypeError: a bad ``features`` spec.
      InvalidArgumentError (at run time): a record that is not an Example, a value of
        the wrong type or count, a required feature missing, naming key and example.
    """
    with in_graph_of([serialized]):
        ser = to_tensor(serialized, _dt.string)
        if ser.shape.ndims not in (None, 1):
            raise ValueError(
                "Shape must be rank 1 but is rank %d for 'serialized' of "
                "parse_example" % ser.shape.ndims
            )
        return _parse(ser, features, name or "ParseExample", example_names, single=False)


def parse_single_example(
    serialized: TensorLike,
    features: Mapping[str, FeatureSpec],
    name: str | None = None,
    example_names: TensorLike | None = None,
) -> dict:
    """Parses one serialized ``Example`` proto: like ``parse_example`` without the batch
    dimension (dense ``shape``; sparse ``[values]`` with 1-column indices).

    Args:
      serialized: a scalar string tensor.
      features: a dict from key to a feature spec, as for ``parse_example``.
      name: a name scope for the ops.
      example_names: an optional scalar string naming the example in error messages.
    """
    with in_graph_of([serialized]):
        ser = to_tensor(serialized, _dt.string)
        if ser.shape.ndims not in (None, 0):
            raise ValueError(
                "Shape must be rank 0 but is rank %d for 'serialized' of "
                "parse_single_example" % ser.shape.ndims
            )
        names = (
            None if example_names is None else expand_dims(to_tensor(example_names, _dt.string), 0)
        )
        return _parse(ser, features, name or "ParseSingleExample", names, single=True)


def _parse(ser, features, scope, example_names, single):
    from ..scopes import name_scope

    requested = features
    features, sparse = _split_sparse_features(features)
    sk, st, dk, dt, ds, dv, dd = spec_of(features)
    with name_scope(scope):
        defaults = [default_tensor(k, t, s, v, d) for k, t, s, v, d in zip(dk, dt, ds, dv, dd)]
        batch = expand_dims(ser, 0) if single else ser
        names = (
            to_tensor(example_names, _dt.string)
            if example_names is not None
            else to_tensor(np.array([], dtype=object), _dt.string, name="names")
        )
        attrs = {
            "sparse_keys": sk,
            "sparse_types": st,
            "dense_keys": dk,
            "Tdense": dt,
            "dense_shapes": ds,
            "ragged": dv,
            "single": single,
        }
        op = make_op("ParseExampleV2", [batch, names] + defaults, attrs, None, "ParseExampleV2")
        ns = len(sk)
        out = {}
        for i, key in enumerate(sk):
            idx, vals, shp = op.outputs[i], op.outputs[ns + i], op.outputs[2 * ns + i]
            if single:
                idx = gather(idx, [1], axis=1)
                shp = gather(shp, [1])
            out[key] = SparseTensor(idx, vals, shp)
        for i, key in enumerate(dk):
            t = op.outputs[3 * ns + i]
            if single:
                t = squeeze(t, [0]) if not dv[i] else reshape(t, [-1] + list(ds[i]))
            out[key] = t
        if sparse:
            out = _merge_sparse_features(out, sparse, requested)
    return out


def _parse_infer(op):
    # A scalar ``serialized`` is one example without a batch dimension (TF's V2 op).
    a = op.attrs
    ser = op.inputs[0]
    scalar = ser.shape.ndims == 0
    b = ser.shape.as_list()[0] if ser.shape.ndims == 1 else None
    batch = [] if scalar else [b]
    ns = len(a["sparse_keys"])
    outs = [(_dt.int64, TensorShape([None, 1 if scalar else 2]))] * ns
    outs += [(t, TensorShape([None])) for t in a["sparse_types"]]
    outs += [(_dt.int64, TensorShape([1 if scalar else 2]))] * ns
    for t, s, seq in zip(a["Tdense"], a["dense_shapes"], a["ragged"]):
        outs.append((t, TensorShape(batch + ([None] if seq else []) + list(s))))
    return outs


def _type_error(kind, want, key, name, index, sparse):
    # TF words the two cases differently; users match on these messages.
    what = (
        "Expected type: %s, Actual type: %s" % (_KIND_NAME[want], _KIND_NAME[kind])
        if sparse
        else "Data type: %s but expected type: %s" % (_KIND_NAME[kind], _KIND_NAME[want])
    )
    return errors.InvalidArgumentError(
        None,
        None,
        "Name: %s, Key: %s, Index: %d.  Data types don't match. %s" % (name, key, index, what),
    )


def _column_values(key, dtype, rows, names, sparse):
    """Per example, the values of feature ``key`` (a protobuf repeated field), or None
    where the example lacks it (or holds a Feature with no kind)."""
    want = _KINDS[dtype][0]
    out = []
    for i, fmap in enumerate(rows):
        f = fmap.get(key)
        if f is None:
            out.append(None)
            continue
        vals = getattr(f, want).value
        if not vals:  # empty, or unset, or another kind: only now ask which
            kind = f.WhichOneof("kind")
            if kind is None:
                vals = None
            elif kind != want:
                raise _type_error(kind, want, key, names(i), i, sparse)
        out.append(vals)
    return out


def dense_column(op, key, dtype, shape, seq, default, rows, names):
    n_item = int(np.prod(shape, dtype=np.int64))
    np_dtype = object if dtype is _dt.string else dtype.np
    tname = _KINDS[dtype][1]
    got = _column_values(key, dtype, rows, names, sparse=False)
    if seq:
        lengths = []
        for i, v in enumerate(got):
            k = 0 if v is None else len(v)
            if n_item and k % n_item:
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    "Name: %s, Key: %s, Index: %d.  Number of %s values is not a "
                    "multiple of stride length. Saw %d values but output shape is: [?,%s]"
                    % (names(i), key, i, tname, k, ",".join(map(str, shape))),
                )
            lengths.append(k)
        width = max(lengths, default=0)
        pad = default[()] if default.size else (b"" if dtype is _dt.string else 0)
        out = np.full((len(rows), width), pad, dtype=np_dtype)
        for i, v in enumerate(got):
            if lengths[i]:
                out[i, : lengths[i]] = list(v)
        return out.reshape((len(rows), width // max(n_item, 1)) + tuple(shape))
    flat = []
    fill = default.reshape(-1).tolist()
    for i, v in enumerate(got):
        if v is None:
            if default.size == 0:
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    "Name: %s, Feature: %s (data type: %s) is required but "
                    "could not be found." % (names(i), key, tname),
                )
            flat.extend(fill)
        elif len(v) != n_item:
            raise errors.InvalidArgumentError(
                None,
                None,
                "Name: %s, Key: %s, Index: %d.  Number of %s values != expected. "
                " Values size: %d but output shape: [%s]"
                % (names(i), key, i, tname, len(v), ",".join(map(str, shape))),
            )
        else:
            flat.extend(v)
    if np_dtype is object:
        out = np.empty(len(flat), dtype=object)
        out[:] = flat
    else:
        out = np.array(flat, dtype=np_dtype)
    return out.reshape((len(rows),) + tuple(shape))


def sparse_column(key, dtype, rows, names):
    np_dtype = object if dtype is _dt.string else dtype.np
    got = _column_values(key, dtype, rows, names, sparse=True)
    lengths = np.array([0 if v is None else len(v) for v in got], np.int64)
    flat = []
    for v in got:
        if v:
            flat.extend(v)
    n = int(lengths.sum())
    rows_idx = np.repeat(np.arange(len(got), dtype=np.int64), lengths)
    starts = np.repeat(np.cumsum(lengths) - lengths, lengths)
    idx = np.stack([rows_idx, np.arange(n, dtype=np.int64) - starts], axis=1)
    if np_dtype is object:
        values = np.empty(n, dtype=object)
        values[:] = flat
    else:
        values = np.array(flat, dtype=np_dtype)
    return idx, values, np.array([len(rows), int(lengths.max(initial=0))], np.int64)


def _parse_kernel(ctx, op, serialized, names, *defaults):
    a = op.attrs
    flat = np.asarray(serialized, dtype=object).reshape(-1)
    names = np.asarray(names, dtype=object).reshape(-1)
    if names.size and names.size != flat.size:
        raise errors.InvalidArgumentError(
            None,
            op,
            "Expected len(names) == len(serialized), but got: %d vs. %d" % (names.size, flat.size),
        )

    def name_of(i):
        return names[i].decode("utf-8", "replace") if names.size else "<unknown>"

    rows = []
    for i, s in enumerate(flat):
        ex = Example()
        try:
            ex.ParseFromString(s)
        except (DecodeError, TypeError):
            raise errors.InvalidArgumentError(
                None,
                op,
                "Could not parse example input, value: %r (Name: %s, Index: %d)"
                % (bytes(s)[:100], name_of(i), i),
            ) from None
        rows.append(ex.features.feature)
    try:
        sparse = [
            sparse_column(k, t, rows, name_of) for k, t in zip(a["sparse_keys"], a["sparse_types"])
        ]
        dense = [
            dense_column(op, k, t, s, seq, np.asarray(d), rows, name_of)
            for k, t, s, seq, d in zip(
                a["dense_keys"], a["Tdense"], a["dense_shapes"], a["ragged"], defaults
            )
        ]
    except errors.InvalidArgumentError as e:
        raise errors.InvalidArgumentError(None, op, e.message) from None
    if np.ndim(serialized) == 0:
        sparse = [(idx[:, 1:], vals, shape[1:]) for idx, vals, shape in sparse]
        dense = [d[0] for d in dense]
    return (
        tuple(s[0] for s in sparse)
        + tuple(s[1] for s in sparse)
        + tuple(s[2] for s in sparse)
        + tuple(dense)
    )


register_op("ParseExampleV2", infer=_parse_infer, kernel=_parse_kernel, grad=NOT_DIFFERENTIABLE)


from .sequence_example_ops import (  # noqa: E402, F401  (TF's module holds them)
    parse_sequence_example,
    parse_single_sequence_example,
)
