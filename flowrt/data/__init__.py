"""``fr.data``: TF1's ``tf.data`` in graph mode: datasets and the iterators reading them.

``Dataset`` builds a pipeline of dataset ops (``dataset.py``, run-time values in
``pipeline.py``, files in ``readers.py``); an ``Iterator`` (``iterator_ops.py``) reads
it in a session, one element per run, ending with ``fr.errors.OutOfRangeError``.
docs/data.md has the guide.
"""

from . import experimental
from .dataset import AUTOTUNE, Dataset, DatasetV1
from .iterator_ops import (
    Iterator,
    get_output_classes,
    get_output_shapes,
    get_output_types,
    make_initializable_iterator,
    make_one_shot_iterator,
)
from .readers import FixedLengthRecordDataset, TextLineDataset, TFRecordDataset

__all__ = [
    "AUTOTUNE",
    "Dataset",
    "DatasetV1",
    "FixedLengthRecordDataset",
    "Iterator",
    "TFRecordDataset",
    "TextLineDataset",
    "experimental",
    "get_output_classes",
    "get_output_shapes",
    "get_output_types",
    "make_initializable_iterator",
    "make_one_shot_iterator",
]
