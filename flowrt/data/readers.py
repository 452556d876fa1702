"""File datasets: ``TextLineDataset``, ``TFRecordDataset``, ``FixedLengthRecordDataset``.

Each reads its files in order with the readers the queue pipelines use
(``ops/io_ops.py``, ``ops/record_ops.py``, ``python_io.RecordFile``), one element per
line or record; a file is opened when the iterator reaches it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.graph import convert_to_tensor
from ..function import TensorSpec
from ..ops.common import make
from ..ops.io_ops import TextLineState, open_error
from ..ops.record_ops import FixedLengthState
from ..python_io import (
    Inflating,
    RecordFile,
    TFRecordCompressionType,
    compression_of,
    zlib_wbits,
)
from .dataset import DatasetV1
from .pipeline import DatasetValue, Element, IterEnv, register_dataset

__all__ = ["TextLineDataset", "TFRecordDataset", "FixedLengthRecordDataset"]

# Lines taken from a text file's reader at a time.
_LINES = 1024


def _string(x: Any) -> np.ndarray:
    return np.asarray(x, dtype=object)


class _Files(DatasetValue):
    """A file dataset: its first input is the file names (a scalar or a vector)."""

    def iterate(self, env: IterEnv) -> Iterator[Element]:
        for name in np.asarray(self.inputs[0], dtype=object).reshape(-1):
            yield from self.read(bytes(name))

    def read(self, path: bytes) -> Any:
        raise NotImplementedError


class _TextLines(_Files):
    def read(self, path: bytes) -> Iterator[Element]:
        ctype = compression_of(self.op.attrs["compression_type"] or None)
        if ctype is not TFRecordCompressionType.NONE:
            yield from self._compressed(path, ctype)
            return
        state = TextLineState(self.op.name, 0)
        state.open(None, path)
        try:
            while (got := state.take(_LINES)) is not None:
                for line in got[1]:
                    yield (_string(line),)
        finally:
            state.close_file()

    def _compressed(self, path: bytes, ctype: Any) -> Iterator[Element]:
        fs_path = os.fsdecode(path)
        try:
            raw = open(fs_path, "rb")
        except OSError as e:
            raise open_error(e, fs_path) from None
        with raw:
            z = Inflating(raw, zlib_wbits(ctype, None), fs_path)
            parts = []
            while chunk := z.read(1 << 20):
                parts.append(chunk)
        lines = b"".join(parts).split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
        for line in lines:
            yield (_string(line[:-1] if line.endswith(b"\r") else line),)


class _Records(_Files):
    def read(self, path: bytes) -> Iterator[Element]:
        f = RecordFile(path, self.op.attrs["compression_type"] or None)
        try:
            while (rec := f.read()) is not None:
                yield (_string(rec),)
        finally:
            f.close()


class _FixedLength(_Files):
    def read(self, path: bytes) -> Iterator[Element]:
        attrs = self.op.attrs
        state = FixedLengthState(self.op.name, attrs)
        state.open(None, path)
        body = len(state.data) - attrs["header_bytes"]
        if body % attrs["record_bytes"]:
            raise errors.InvalidArgumentError(
                None,
                self.op,
                'Excluding the header (%d bytes) and footer (%d bytes), input file "%s" has '
                "body length %d bytes, which is not an exact multiple of the record length "
                "(%d bytes)."
                % (
                    attrs["header_bytes"],
                    attrs["footer_bytes"],
                    os.fsdecode(path),
                    body,
                    attrs["record_bytes"],
                ),
            )
        while (rec := state.next_line()) is not None:
            yield (_string(rec[1]),)


register_dataset("TextLineDataset", _TextLines)
register_dataset("TFRecordDataset", _Records)
register_dataset("FixedLengthRecordDataset", _FixedLength)


def _filenames(filenames: Any) -> Any:
    t = convert_to_tensor(filenames, dtype=_dt.string, name="filenames")
    if t.shape.ndims not in (None, 0, 1):
        raise ValueError("`filenames` must be a scalar or a vector, got shape %s" % t.shape)
    return t


def _compression(value: Any) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise TypeError("compression_type must be a string, got %r" % (value,))
    compression_of(value or None)  # ValueError naming it when unsupported
    return value


def _count(value: Any, what: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError("%s must be a Python int, got %r" % (what, value))
    if value < minimum:
        raise ValueError("%s must be at least %d, got %d" % (what, minimum, value))
    return int(value)


class TextLineDataset(DatasetV1):
    """The lines of text files, without their line endings (TF1 ``tf.data.TextLineDataset``).

    Args:
      filenames: a file name or a vector of them (a string tensor), read in order.
      compression_type: ``""``/None, ``"ZLIB"`` or ``"GZIP"``.
      buffer_size: accepted.
      num_parallel_reads: accepted (files are read one after another).

    Raises at run time NotFoundError for a missing file.
    """

    def __init__(
        self,
        filenames: Any,
        compression_type: str | None = None,
        buffer_size: int | None = None,
        num_parallel_reads: int | None = None,
        name: str | None = None,
    ) -> None:
        attrs = {"compression_type": _compression(compression_type)}
        v = make("TextLineDataset", [_filenames(filenames)], attrs, None, "TextLineDataset")
        super().__init__(v, TensorSpec([], _dt.string))


class TFRecordDataset(DatasetV1):
    """The records of TFRecord files (TF1 ``tf.data.TFRecordDataset``).

    Args:
      filenames: a file name or a vector of them (a string tensor), read in order.
      compression_type: ``""``/None, ``"ZLIB"`` or ``"GZIP"``.
      buffer_size: accepted.
      num_parallel_reads: accepted (files are read one after another).

    Raises at run time NotFoundError for a missing file and DataLossError for a
    corrupted record.
    """

    def __init__(
        self,
        filenames: Any,
        compression_type: str | None = None,
        buffer_size: int | None = None,
        num_parallel_reads: int | None = None,
        name: str | None = None,
    ) -> None:
        attrs = {"compression_type": _compression(compression_type)}
        v = make("TFRecordDataset", [_filenames(filenames)], attrs, None, "TFRecordDataset")
        super().__init__(v, TensorSpec([], _dt.string))


class FixedLengthRecordDataset(DatasetV1):
    """Records of ``record_bytes`` bytes from binary files between a header and a footer
    (TF1 ``tf.data.FixedLengthRecordDataset``).

    Args:
      filenames: a file name or a vector of them (a string tensor), read in order.
      record_bytes: the size of a record.
      header_bytes: bytes skipped at the start of each file.
      footer_bytes: bytes ignored at the end of each file.
      buffer_size: accepted.
      compression_type: ``""``/None, ``"ZLIB"`` or ``"GZIP"``.
      num_parallel_reads: accepted.

    Raises at run time InvalidArgumentError when a file's body is not a whole number
    of records (as TF).
    """

    def __init__(
        self,
        filenames: Any,
        record_bytes: int,
        header_bytes: int | None = None,
        footer_bytes: int | None = None,
        buffer_size: int | None = None,
        compression_type: str | None = None,
        num_parallel_reads: int | None = None,
        name: str | None = None,
    ) -> None:
        attrs = {
            "record_bytes": _count(record_bytes, "record_bytes", 1),
            "header_bytes": _count(header_bytes or 0, "header_bytes", 0),
            "footer_bytes": _count(footer_bytes or 0, "footer_bytes", 0),
            "hop_bytes": 0,
            "encoding": _compression(compression_type),
        }
        v = make(
            "FixedLengthRecordDataset",
            [_filenames(filenames)],
            attrs,
            None,
            "FixedLengthRecordDataset",
        )
        super().__init__(v, TensorSpec([], _dt.string))
