"""``fr.contrib.lookup``: TF1's ``tf.contrib.lookup``, the vocabulary-table helpers
TF1 programs build their input pipelines with (``index_table_from_file`` and friends)
and the table classes under their contrib names. Re-exports only."""

from ..ops.lookup_ops import (
    HashTable,
    KeyValueTensorInitializer,
    TableInitializerBase,
    TextFileIndex,
    TextFileInitializer,
)
from ..ops.vocab_tables import (
    FastHashSpec,
    HasherSpec,
    StrongHashSpec,
    index_table_from_file,
    index_table_from_tensor,
    index_to_string_table_from_file,
    index_to_string_table_from_tensor,
)

__all__ = [
    "HashTable",
    "KeyValueTensorInitializer",
    "TableInitializerBase",
    "TextFileIndex",
    "TextFileInitializer",
    "HasherSpec",
    "FastHashSpec",
    "StrongHashSpec",
    "index_table_from_file",
    "index_table_from_tensor",
    "index_to_string_table_from_file",
    "index_to_string_table_from_tensor",
]
