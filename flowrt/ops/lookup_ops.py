"""Lookup tables (TF1's ``tf.lookup``): an immutable hash table that lives in the
session, filled once by an initializer op from tensors or a text file.

A table is session state, like a variable: the ``HashTableV2`` op's kernel returns the
session's table object (``ctx.resources``, keyed by ``shared_name`` or the op name),
``LookupTableImportV2`` / ``InitializeTableFromTextFileV2`` fill it, and
``LookupTableFindV2`` / ``LookupTableSizeV2`` read it. Each initializer op is added to
the graph's ``TABLE_INITIALIZERS`` collection, which ``fr.tables_initializer()`` runs.
A lookup before the table is filled is a ``FailedPreconditionError``, as in TF.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.graph import GraphKeys, Operation, Tensor, get_default_graph
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from .._core.shape import TensorShape
from .common import in_graph_of, make, make_op, to_tensor
from .sparse_ops import SparseTensor

if TYPE_CHECKING:
    from .._core.typing import DTypeLike, TensorLike

__all__ = ["tables_initializer", "initialize_all_tables"]

_KEY_TYPES = (_dt.string, _dt.int32, _dt.int64)


class _Table:
    """One session's hash table: a dict from key (bytes or int) to value."""

    def __init__(self, name: str, value_dtype: _dt.DType) -> None:
        self.name = name
        self.value_dtype = value_dtype
        self.values: dict | None = None  # None until initialized
        self.lock = threading.Lock()

    def fill(self, op: Operation, keys: list, values: list) -> None:
        table: dict = {}
        for k, v in zip(keys, values, strict=True):
            had = table.setdefault(k, v)
            if had is not v and had != v:
                raise errors.FailedPreconditionError(
                    None,
                    op,
                    "HashTable has different value for same key. Key %s has %s and trying "
                    "to add value %s" % (_show(k), _show(had), _show(v)),
                )
        with self.lock:
            self.values = table

    def contents(self, op: Operation) -> dict:
        values = self.values
        if values is None:
            raise errors.FailedPreconditionError(None, op, "Table not initialized.")
        return values


def _show(v) -> str:
    return v.decode("utf-8", "backslashreplace") if isinstance(v, bytes) else str(v)


def _plain(arr: np.ndarray, dtype: _dt.DType) -> list:
    """Hashable Python keys/values: bytes for strings, ints and floats for numbers."""
    flat = np.asarray(arr, dtype=object if dtype is _dt.string else None).reshape(-1)
    if dtype is _dt.string:
        return [s.encode() if isinstance(s, str) else bytes(s) for s in flat.tolist()]
    return flat.tolist()


# --------------------------------------------------------------------------------------
# Ops
# --------------------------------------------------------------------------------------


def _table_of(ctx, op) -> _Table:
    a = op.attrs
    key = ("table", a["shared_name"]) if a["shared_name"] else ("table-op", op.name)
    return ctx.resources.get_or_create(key, lambda: _Table(op.name, a["value_dtype"]))


register_op(
    "HashTableV2",
    infer=lambda op: [(_dt.resource, TensorShape([]))],
    kernel=lambda ctx, op: (_table_of(ctx, op),),
    grad=NOT_DIFFERENTIABLE,
    stateful=True,
    quiet=True,
)


def _import_kernel(ctx, op, table, keys, values):
    if np.shape(keys) != np.shape(values):
        raise errors.InvalidArgumentError(
            None,
            op,
            "Expected shape %s for value, got %s" % (list(np.shape(keys)), list(np.shape(values))),
        )
    table.fill(op, _plain(keys, op.attrs["Tin"]), _plain(values, op.attrs["Tout"]))
    return ()


register_op(
    "LookupTableImportV2",
    infer=lambda op: [],
    kernel=_import_kernel,
    grad=NOT_DIFFERENTIABLE,
    stateful=True,
    quiet=True,
)


def _column(op, filename: str, lineno: int, line: bytes, index: int, dtype, offset: int = 0):
    if index == TextFileIndex.LINE_NUMBER:
        return lineno + offset
    if index == TextFileIndex.WHOLE_LINE:
        field = line
    else:
        fields = line.split(op.attrs["delimiter"].encode())
        if index >= len(fields):
            raise errors.InvalidArgumentError(
                None,
                op,
                "Invalid number of columns in %s line %d (%s) : expected %d got %d"
                % (filename, lineno, _show(line), index + 1, len(fields)),
            )
        field = fields[index]
    if dtype is _dt.string:
        return field
    try:
        return float(field) if dtype.is_floating else int(field)
    except ValueError:
        raise errors.InvalidArgumentError(
            None,
            op,
            "Field %s in line %d is not a valid %s." % (_show(field), lineno, dtype.name),
        ) from None


def _init_from_file_kernel(ctx, op, table, filename):
    a = op.attrs
    name = bytes(np.asarray(filename, dtype=object)[()]).decode()
    try:
        with open(name, "rb") as f:
            lines = f.read().split(b"\n")
    except OSError as e:
        raise errors.NotFoundError(None, op, "%s; %s" % (name, e.strerror)) from None
    if lines and lines[-1] == b"":
        lines.pop()  # the newline ending the last line
    lines = [ln[:-1] if ln.endswith(b"\r") else ln for ln in lines]
    size = a["vocab_size"]
    if size != -1:
        if len(lines) < size:
            raise errors.InvalidArgumentError(
                None,
                op,
                "Invalid vocab_size in %s: expected %d but got %d" % (name, size, len(lines)),
            )
        lines = lines[:size]
    keys = [_column(op, name, i, ln, a["key_index"], a["key_dtype"]) for i, ln in enumerate(lines)]
    values = [
        _column(op, name, i, ln, a["value_index"], a["value_dtype"], a["offset"])
        for i, ln in enumerate(lines)
    ]
    table.fill(op, keys, values)
    return ()


register_op(
    "InitializeTableFromTextFileV2",
    infer=lambda op: [],
    kernel=_init_from_file_kernel,
    grad=NOT_DIFFERENTIABLE,
    stateful=True,
    quiet=True,
)


def _find_kernel(ctx, op, table, keys, default):
    values = table.contents(op)
    dflt = np.asarray(default)
    if dflt.ndim != 0:
        raise errors.InvalidArgumentError(
            None, op, "Expected default value to be a scalar, got shape %s" % list(dflt.shape)
        )
    d = dflt[()]
    out = [values.get(k, d) for k in _plain(keys, op.attrs["Tin"])]
    dtype = op.attrs["Tout"]
    arr = np.empty(len(out), dtype=object) if dtype is _dt.string else None
    if arr is None:
        arr = np.array(out, dtype=dtype.as_numpy_dtype)
    else:
        arr[:] = out
    return (arr.reshape(np.shape(keys)),)


register_op(
    "LookupTableFindV2",
    infer=lambda op: [(op.attrs["Tout"], op.inputs[1].shape)],
    kernel=_find_kernel,
    grad=NOT_DIFFERENTIABLE,
    stateful=True,
    quiet=True,
)

register_op(
    "LookupTableSizeV2",
    infer=lambda op: [(_dt.int64, TensorShape([]))],
    kernel=lambda ctx, op, table: (np.int64(len(table.contents(op))),),
    grad=NOT_DIFFERENTIABLE,
    stateful=True,
    quiet=True,
)


# --------------------------------------------------------------------------------------
# Initializers
# --------------------------------------------------------------------------------------


class TextFileIndex:
    """Which part of a line a ``TextFileInitializer`` takes: a column number, or one of
    these two."""

    WHOLE_LINE = -2
    LINE_NUMBER = -1


class TableInitializerBase:
    """What fills a table: the key and value dtypes and ``initialize(table)``, which
    makes the initializer op."""

    def __init__(self, key_dtype: DTypeLike, value_dtype: DTypeLike) -> None:
        self._key_dtype = _dt.as_dtype(key_dtype)
        self._value_dtype = _dt.as_dtype(value_dtype)

    @property
    def key_dtype(self) -> _dt.DType:
        """The dtype of the keys."""
        return self._key_dtype

    @property
    def value_dtype(self) -> _dt.DType:
        """The dtype of the values."""
        return self._value_dtype

    def initialize(self, table: StaticHashTable) -> Operation:
        """The op that fills ``table`` (added to ``TABLE_INITIALIZERS``)."""
        raise NotImplementedError


def _check_table(init: TableInitializerBase, table: StaticHashTable) -> None:
    if table.key_dtype != init.key_dtype or table.value_dtype != init.value_dtype:
        raise TypeError(
            "Invalid table initializer: the table's types are (%s, %s), the "
            "initializer's (%s, %s)"
            % (
                table.key_dtype.name,
                table.value_dtype.name,
                init.key_dtype.name,
                init.value_dtype.name,
            )
        )


class KeyValueTensorInitializer(TableInitializerBase):
    """Fills a table from two tensors of the same shape: ``keys[i]`` maps to
    ``values[i]``.

    Args:
      keys: the keys (string or integer).
      values: the values.
      key_dtype: the keys' dtype (default: inferred from ``keys``).
      value_dtype: the values' dtype (default: inferred from ``values``).
      name: the name scope of the initializer op (default ``key_value_init``).
    """

    def __init__(
        self,
        keys: TensorLike,
        values: TensorLike,
        key_dtype: DTypeLike | None = None,
        value_dtype: DTypeLike | None = None,
        name: str | None = None,
    ) -> None:
        with in_graph_of([keys, values]) as g, g.name_scope(name or "key_value_init"):
            self._keys = to_tensor(keys, key_dtype, name="keys")
            self._values = to_tensor(values, value_dtype, name="values")
        self._name = name or "key_value_init"
        super().__init__(self._keys.dtype, self._values.dtype)

    def initialize(self, table: StaticHashTable) -> Operation:
        _check_table(self, table)
        with in_graph_of([table.resource_handle]) as g, g.name_scope(self._name):
            op = make_op(
                "LookupTableImportV2",
                [table.resource_handle, self._keys, self._values],
                {"Tin": self.key_dtype, "Tout": self.value_dtype},
                None,
                "LookupTableImportV2",
            )
            g.add_to_collection(GraphKeys.TABLE_INITIALIZERS, op)
            return op


class TextFileInitializer(TableInitializerBase):
    """Fills a table from a text file, one entry per line.

    Args:
      filename: the file's name (a string or scalar string tensor).
      key_dtype: the keys' dtype (string, or int64 for a number column or
        ``LINE_NUMBER``).
      key_index: the column of the key (split at ``delimiter``), or
        ``TextFileIndex.WHOLE_LINE`` / ``TextFileIndex.LINE_NUMBER``.
      value_dtype: the values' dtype.
      value_index: the column of the value, or one of the two ``TextFileIndex`` values.
      vocab_size: read only this many lines (an error if the file has fewer).
      delimiter: the column separator.
      name: the name scope of the initializer op (default ``text_file_init``).
      value_index_offset: added to the line number when ``value_index`` is
        ``LINE_NUMBER``.

    Raises:
      ValueError: for an index below ``WHOLE_LINE``, or a dtype that does not fit it
        (a line number is int64, a whole line a string).
    """

    def __init__(
        self,
        filename: TensorLike,
        key_dtype: DTypeLike,
        key_index: int,
        value_dtype: DTypeLike,
        value_index: int,
        vocab_size: int | None = None,
        delimiter: str = "\t",
        name: str | None = None,
        value_index_offset: int = 0,
    ) -> None:
        super().__init__(key_dtype, value_dtype)
        for what, index, dtype in [
            ("key", key_index, self.key_dtype),
            ("value", value_index, self.value_dtype),
        ]:
            if index < TextFileIndex.WHOLE_LINE:
                raise ValueError("Invalid %s index %d." % (what, index))
            if index == TextFileIndex.LINE_NUMBER and dtype != _dt.int64:
                raise ValueError(
                    "Signature mismatch. %s must be dtype int64, got %s." % (what, dtype.name)
                )
            if index == TextFileIndex.WHOLE_LINE and dtype != _dt.string:
                raise ValueError(
                    "Signature mismatch. %s must be dtype string, got %s." % (what, dtype.name)
                )
        if vocab_size is not None and vocab_size <= 0:
            raise ValueError("Invalid vocab_size %s." % vocab_size)
        self._filename = filename
        self._key_index, self._value_index = int(key_index), int(value_index)
        self._vocab_size = -1 if vocab_size is None else int(vocab_size)
        self._delimiter = delimiter
        self._offset = int(value_index_offset)
        self._name = name or "text_file_init"

    def initialize(self, table: StaticHashTable) -> Operation:
        _check_table(self, table)
        with in_graph_of([table.resource_handle]) as g, g.name_scope(self._name):
            filename = to_tensor(self._filename, _dt.string, name="asset_filepath")
            op = make_op(
                "InitializeTableFromTextFileV2",
                [table.resource_handle, filename],
                {
                    "key_index": self._key_index,
                    "value_index": self._value_index,
                    "vocab_size": self._vocab_size,
                    "delimiter": self._delimiter,
                    "offset": self._offset,
                    "key_dtype": self.key_dtype,
                    "value_dtype": self.value_dtype,
                },
                None,
                "InitializeTableFromTextFileV2",
            )
            g.add_to_collection(GraphKeys.TABLE_INITIALIZERS, op)
            return op


# --------------------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------------------


def lookup_keys(table, keys, name, fn):
    """``fn(values_tensor)`` on the keys, as a ``SparseTensor`` if ``keys`` is one."""
    sparse = isinstance(keys, SparseTensor)
    with in_graph_of([table.resource_handle, keys]) as g:
        with g.name_scope(name or "%s_Lookup" % table.name.split("/")[-1]):
            vals = keys.values if sparse else to_tensor(keys, name="keys")
            if vals.dtype != table.key_dtype:
                raise TypeError(
                    "Dtype of argument `keys` must be %r, received: %r"
                    % (table.key_dtype, vals.dtype)
                )
            out = fn(vals)
    return SparseTensor(keys.indices, out, keys.dense_shape) if sparse else out


class StaticHashTable:
    """An immutable hash table from keys to values, filled by ``initializer`` when the
    session runs ``fr.tables_initializer()`` (TF1's ``tf.lookup.StaticHashTable``,
    ``tf.contrib.lookup.HashTable``).

    Args:
      initializer: a ``KeyValueTensorInitializer`` or ``TextFileInitializer``.
      default_value: the value of a missing key (a scalar of the value dtype).
      name: the table op's name (default ``hash_table``).
      experimental_is_anonymous: must be False (flowrt's tables are named session
        resources).
    """

    def __init__(
        self,
        initializer: TableInitializerBase,
        default_value: TensorLike,
        name: str | None = None,
        experimental_is_anonymous: bool = False,
    ) -> None:
        if experimental_is_anonymous:
            raise NotImplementedError(
                "StaticHashTable: experimental_is_anonymous=True is not supported"
            )
        self._key_dtype = initializer.key_dtype
        self._value_dtype = initializer.value_dtype
        g = get_default_graph()
        self._resource_handle = make(
            "HashTableV2",
            [],
            {
                "key_dtype": self._key_dtype,
                "value_dtype": self._value_dtype,
                "shared_name": "",
                "container": "",
                "use_node_name_sharing": False,
            },
            name,
            "hash_table",
        )
        with g.name_scope(None):
            self._default_value = to_tensor(default_value, self._value_dtype)
        if self._default_value.shape.ndims not in (None, 0):
            raise ValueError(
                "default_value must be a scalar, got shape %s" % self._default_value.shape
            )
        self._initializer = initializer.initialize(self)

    @property
    def name(self) -> str:
        """The table op's name."""
        return self._resource_handle.op.name

    @property
    def resource_handle(self) -> Tensor:
        """The table's handle tensor."""
        return self._resource_handle

    @property
    def key_dtype(self) -> _dt.DType:
        """The dtype of the keys."""
        return self._key_dtype

    @property
    def value_dtype(self) -> _dt.DType:
        """The dtype of the values."""
        return self._value_dtype

    @property
    def default_value(self) -> Tensor:
        """The value of a missing key."""
        return self._default_value

    @property
    def initializer(self) -> Operation:
        """The op filling the table."""
        return self._initializer

    init = initializer

    def size(self, name: str | None = None) -> Tensor:
        """The number of entries (int64 scalar)."""
        with in_graph_of([self._resource_handle]) as g:
            with g.name_scope(name or "%s_Size" % self.name.split("/")[-1]):
                return make("LookupTableSizeV2", [self._resource_handle], None, None, "SizeV2")

    def lookup(
        self, keys: TensorLike | SparseTensor, name: str | None = None
    ) -> Tensor | SparseTensor:
        """The value of each key (the default value for a missing one), in the keys'
        shape; a ``SparseTensor`` of keys gives one of values.

        Raises:
          TypeError: for keys of another dtype than the table's.
          FailedPreconditionError: (at run time) before the table is initialized.
        """
        return lookup_keys(self, keys, name, self._find)

    def _find(self, keys: Tensor) -> Tensor:
        """The ``LookupTableFindV2`` of a dense tensor of keys of the table's dtype."""
        return make(
            "LookupTableFindV2",
            [self._resource_handle, keys, self._default_value],
            {"Tin": self._key_dtype, "Tout": self._value_dtype},
            None,
            "LookupTableFindV2",
        )


HashTable = StaticHashTable


def tables_initializer(name: str = "init_all_tables") -> Operation:
    """The op running every table initializer of the default graph (its
    ``TABLE_INITIALIZERS`` collection); a no-op when there is none."""
    from .array_ops import group, no_op

    inits = get_default_graph().get_collection(GraphKeys.TABLE_INITIALIZERS)
    return group(*inits, name=name) if inits else no_op(name=name)


initialize_all_tables = tables_initializer
