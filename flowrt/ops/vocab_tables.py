"""Vocabulary tables: string (or integer) keys to ids, with out-of-vocabulary keys
hashed into extra buckets after the vocabulary (``StaticVocabularyTable``,
``index_table_from_tensor`` / ``_from_file``), and ids back to strings
(``index_to_string_table_from_tensor`` / ``_from_file``).

These compose the hash table of ``lookup_ops`` with the hash-bucket ops, as TF does:
a key's id is its vocabulary id if it has one, else ``vocab size + hash % buckets``.
"""

from __future__ import annotations

from collections import namedtuple
from typing import TYPE_CHECKING

from .. import dtypes as _dt
from .._core.graph import Operation, Tensor, get_default_graph
from .array_ops import range as _range
from .common import in_graph_of, to_tensor
from .hash_bucket_ops import string_to_hash_bucket_fast, string_to_hash_bucket_strong
from .lookup_ops import (
    KeyValueTensorInitializer,
    StaticHashTable,
    TableInitializerBase,
    TextFileIndex,
    TextFileInitializer,
    lookup_keys,
)
from .math_ops import add, cast, equal, where
from .sparse_ops import SparseTensor
from .text_ops import as_string

if TYPE_CHECKING:
    from .._core.typing import DTypeLike, TensorLike

__all__: list[str] = []


class HasherSpec(namedtuple("HasherSpec", ["hasher", "key"])):
    """How out-of-vocabulary keys are hashed: ``"fasthash"`` (FarmHash Fingerprint64)
    or ``"stronghash"`` with a two-integer ``key`` (SipHash)."""

    __slots__ = ()


FastHashSpec = HasherSpec("fasthash", None)


class StrongHashSpec(HasherSpec):
    """A ``HasherSpec`` for keyed SipHash: ``StrongHashSpec([k0, k1])``."""

    __slots__ = ()

    def __new__(cls, key):
        if len(key) != 2:
            raise ValueError("key must have size 2, got %s." % len(key))
        if not isinstance(key[0], int) or not isinstance(key[1], int):
            raise TypeError("Invalid key %s. Must be unsigned integer values." % (key,))
        return super().__new__(cls, "stronghash", key)


def _hash_buckets(keys: Tensor, n: int, spec: HasherSpec) -> Tensor:
    if keys.dtype != _dt.string:
        keys = as_string(keys)
    if spec.hasher == "fasthash":
        return string_to_hash_bucket_fast(keys, n)
    if spec.hasher == "stronghash":
        return string_to_hash_bucket_strong(keys, n, spec.key)
    raise ValueError("Unknown hasher %s" % spec.hasher)


class StaticVocabularyTable:
    """Ids of keys from a vocabulary (``initializer``'s keys to int64 ids), with
    ``num_oov_buckets`` hash buckets for keys outside it: a missing key's id is
    ``vocabulary size + hash(key) % num_oov_buckets`` (TF1's
    ``tf.lookup.StaticVocabularyTable``).

    Args:
      initializer: a ``KeyValueTensorInitializer`` or ``TextFileInitializer`` with
        int64 values, or None for buckets only.
      num_oov_buckets: the number of buckets (at least 0).
      lookup_key_dtype: the dtype of looked-up keys (default the initializer's; int32
        keys of an int64 table are cast).
      name: the name scope of the table.
      experimental_is_anonymous: must be False.
      hasher_spec: ``FastHashSpec`` (TF's only choice here) or a ``StrongHashSpec``
        (used by ``index_table_from_*``).

    Raises:
      TypeError: for values other than int64.
      ValueError: for a negative ``num_oov_buckets``, or no initializer and no buckets.
    """

    def __init__(
        self,
        initializer: TableInitializerBase | None,
        num_oov_buckets: int,
        lookup_key_dtype: DTypeLike | None = None,
        name: str | None = None,
        experimental_is_anonymous: bool = False,
        hasher_spec: HasherSpec = FastHashSpec,
        default_value: int = -1,
    ) -> None:
        if experimental_is_anonymous:
            raise NotImplementedError(
                "StaticVocabularyTable: experimental_is_anonymous=True is not supported"
            )
        if num_oov_buckets < 0:
            raise ValueError("oov_buckets must be >= 0, got %d." % num_oov_buckets)
        if initializer is None and num_oov_buckets == 0:
            raise ValueError("oov_buckets must be > 0 if no initializer is given.")
        if initializer is not None and initializer.value_dtype != _dt.int64:
            raise TypeError(
                "Invalid `value_dtype`, expected %r but got %r."
                % (_dt.int64, initializer.value_dtype)
            )
        self._num_oov_buckets = int(num_oov_buckets)
        self._hasher_spec = hasher_spec
        key_dtype = _dt.string if initializer is None else initializer.key_dtype
        self._key_dtype = _dt.as_dtype(lookup_key_dtype or key_dtype)
        self._table = None
        g = get_default_graph()
        with g.name_scope(name or "hash_table") as scope:
            self._name = scope.rstrip("/")
            if initializer is not None:
                self._table = StaticHashTable(initializer, default_value)

    @property
    def name(self) -> str:
        """The table's name scope."""
        return self._name

    @property
    def resource_handle(self) -> Tensor | None:
        """The handle of the vocabulary's hash table (None for buckets only)."""
        return None if self._table is None else self._table.resource_handle

    @property
    def key_dtype(self) -> _dt.DType:
        """The dtype of looked-up keys."""
        return self._key_dtype

    @property
    def value_dtype(self) -> _dt.DType:
        """int64."""
        return _dt.int64

    @property
    def initializer(self) -> Operation | None:
        """The op filling the vocabulary's table (None for buckets only)."""
        return None if self._table is None else self._table.initializer

    def size(self, name: str | None = None) -> Tensor:
        """The vocabulary's size plus the number of buckets (int64 scalar)."""
        if self._table is None:
            return to_tensor(self._num_oov_buckets, _dt.int64, name=name)
        return add(self._table.size(), self._num_oov_buckets, name=name)

    def lookup(
        self, keys: TensorLike | SparseTensor, name: str | None = None
    ) -> Tensor | SparseTensor:
        """The id of each key, in the keys' shape (a ``SparseTensor`` for one).

        Raises:
          TypeError: for keys of another dtype than ``key_dtype``.
          FailedPreconditionError: (at run time) before the table is initialized.
        """
        return lookup_keys(self, keys, name, self._ids)

    def _ids(self, keys: Tensor) -> Tensor:
        if self._table is not None and keys.dtype != self._table.key_dtype:
            keys = cast(keys, self._table.key_dtype)
        if self._table is None:
            return _hash_buckets(keys, self._num_oov_buckets, self._hasher_spec)
        ids = self._table._find(keys)
        if not self._num_oov_buckets:
            return ids
        buckets = _hash_buckets(keys, self._num_oov_buckets, self._hasher_spec)
        buckets = add(buckets, self._table.size())
        return where(equal(ids, self._table.default_value), buckets, ids)


def _vocab_tensor(vocabulary_list, dtype) -> Tensor:
    if vocabulary_list is None:
        raise ValueError("vocabulary_list must be specified.")
    vocab = to_tensor(vocabulary_list, name="vocabulary_list")
    if vocab.dtype.is_integer != _dt.as_dtype(dtype).is_integer:
        raise ValueError(
            "Invalid `dtype`: Expected %s, got %s."
            % ("integer" if _dt.as_dtype(dtype).is_integer else "non-integer", vocab.dtype.name)
        )
    return vocab if vocab.dtype == _dt.as_dtype(dtype) else cast(vocab, dtype)


def index_table_from_tensor(
    vocabulary_list: TensorLike,
    num_oov_buckets: int = 0,
    default_value: int = -1,
    hasher_spec: HasherSpec = FastHashSpec,
    dtype: DTypeLike = _dt.string,
    name: str | None = None,
) -> StaticVocabularyTable:
    """A table from the strings (or integers) of the 1-D ``vocabulary_list`` to their
    int64 positions; other keys get ``default_value``, or with ``num_oov_buckets`` a
    hash bucket after the vocabulary.

    Raises:
      ValueError: for no vocabulary, a negative ``num_oov_buckets``, or a
        vocabulary whose dtype does not fit ``dtype``.
    """
    if num_oov_buckets < 0:
        raise ValueError(
            "num_oov_buckets must be greater or equal than 0, got %d." % num_oov_buckets
        )
    with in_graph_of([vocabulary_list]) as g, g.name_scope(name or "string_to_index"):
        vocab = _vocab_tensor(vocabulary_list, dtype)
        with g.name_scope("hash_table"):
            ids = _range(0, _size(vocab), dtype=_dt.int64)
            init = KeyValueTensorInitializer(vocab, ids, name="table_init")
        return StaticVocabularyTable(
            init,
            num_oov_buckets,
            _dt.as_dtype(dtype),
            "hash_table",
            False,
            hasher_spec,
            default_value,
        )


def _size(t: Tensor):
    from .array_ops import size

    n = t.shape.num_elements()
    return n if n is not None else size(t, out_type=_dt.int64)


def index_table_from_file(
    vocabulary_file: TensorLike | None = None,
    num_oov_buckets: int = 0,
    vocab_size: int | None = None,
    default_value: int = -1,
    hasher_spec: HasherSpec = FastHashSpec,
    key_dtype: DTypeLike = _dt.string,
    name: str | None = None,
    key_column_index: int = TextFileIndex.WHOLE_LINE,
    value_column_index: int = TextFileIndex.LINE_NUMBER,
    delimiter: str = "\t",
) -> StaticVocabularyTable:
    """A table from the lines (or a column) of ``vocabulary_file`` to their int64
    line numbers (or another column); other keys get ``default_value``, or with
    ``num_oov_buckets`` a hash bucket after the vocabulary.

    Raises:
      ValueError: for no file name, a negative ``num_oov_buckets`` or a ``vocab_size``
        below 1.
    """
    if vocabulary_file is None or (
        isinstance(vocabulary_file, (str, bytes)) and not vocabulary_file
    ):
        raise ValueError("vocabulary_file must be specified and must not be empty.")
    if num_oov_buckets < 0:
        raise ValueError(
            "num_oov_buckets must be greater or equal than 0, got %d." % num_oov_buckets
        )
    if vocab_size is not None and vocab_size < 1:
        raise ValueError("vocab_size must be greater than 0, got %d." % vocab_size)
    key_dtype = _dt.as_dtype(key_dtype)
    with in_graph_of([vocabulary_file]) as g, g.name_scope(name or "string_to_index"):
        with g.name_scope("hash_table"):
            init = TextFileInitializer(
                vocabulary_file,
                _dt.int64 if key_dtype.is_integer else key_dtype,
                key_column_index,
                _dt.int64,
                value_column_index,
                vocab_size=vocab_size,
                delimiter=delimiter,
            )
        return StaticVocabularyTable(
            init, num_oov_buckets, key_dtype, "hash_table", False, hasher_spec, default_value
        )


def index_to_string_table_from_tensor(
    vocabulary_list: TensorLike, default_value: str = "UNK", name: str | None = None
) -> StaticHashTable:
    """A table from int64 positions in the 1-D ``vocabulary_list`` to its strings;
    other ids give ``default_value``."""
    if vocabulary_list is None:
        raise ValueError("vocabulary_list must be specified.")
    with in_graph_of([vocabulary_list]) as g, g.name_scope(name or "index_to_string"):
        vocab = to_tensor(vocabulary_list, _dt.string, name="vocabulary_list")
        ids = _range(0, _size(vocab), dtype=_dt.int64)
        init = KeyValueTensorInitializer(ids, vocab, _dt.int64, _dt.string, name="table_init")
        return StaticHashTable(init, default_value)


def index_to_string_table_from_file(
    vocabulary_file: TensorLike,
    vocab_size: int | None = None,
    default_value: str = "UNK",
    name: str | None = None,
    key_column_index: int = TextFileIndex.LINE_NUMBER,
    value_column_index: int = TextFileIndex.WHOLE_LINE,
    delimiter: str = "\t",
) -> StaticHashTable:
    """A table from int64 line numbers (or a column) of ``vocabulary_file`` to its
    lines (or another column); other ids give ``default_value``."""
    if vocabulary_file is None or (
        isinstance(vocabulary_file, (str, bytes)) and not vocabulary_file
    ):
        raise ValueError("vocabulary_file must be specified and must not be empty.")
    if vocab_size is not None and vocab_size < 1:
        raise ValueError("vocab_size must be greater than 0, got %d." % vocab_size)
    with in_graph_of([vocabulary_file]) as g, g.name_scope(name or "index_to_string"):
        init = TextFileInitializer(
            vocabulary_file,
            _dt.int64,
            key_column_index,
            _dt.string,
            value_column_index,
            vocab_size=vocab_size,
            delimiter=delimiter,
        )
        return StaticHashTable(init, default_value)
