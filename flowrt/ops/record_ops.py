"""Record readers for queue pipelines: ``TFRecordReader``, ``FixedLengthRecordReader``,
``WholeFileReader`` and ``IdentityReader``.

Each is a reader op whose per-session state is one of the classes below; they share
the read ops of ``io_ops`` (``ReaderReadV2``, ``ReaderReadUpToV2``, the counters and
reset), which call the state's ``open`` for each work unit dequeued from the filename
queue and its ``next_line`` for each record (None when the work unit is done).
"""

from __future__ import annotations

import os
from typing import Any

from .._core.registry import NOT_DIFFERENTIABLE, register_op
from ..python_io import (
    Inflating,
    RecordFile,
    TFRecordOptions,
    compression_of,
    zlib_wbits,
)
from .common import TensorShape, make
from .io_ops import ReaderBase, ReaderState, open_error
from .state_ops import resource

__all__ = ["TFRecordReader", "FixedLengthRecordReader", "WholeFileReader", "IdentityReader"]


class _RecordState(ReaderState):
    """A TFRecord file being read; keys are ``b"<file>:<offset>"``."""

    def __init__(self, name: str, compression: str):
        super().__init__(name, 0)
        self.compression = compression

    def close_file(self):
        if self.file is not None:
            self.file.close()
        self.file = None

    on_session_close = close_file

    def open(self, op, path: bytes):
        self.file, self.path = RecordFile(path, self.compression), path

    def next_line(self):
        start = self.file.offset
        rec = self.file.read()
        if rec is None:
            self.close_file()
            self.work_units += 1
            return None
        self.records += 1
        return b"%s:%d" % (self.path, start), rec


class FixedLengthState(ReaderState):
    """A file of fixed-length records between a header and a footer; keys are
    ``b"<file>:<record number>"``."""

    def __init__(self, name: str, attrs: dict):
        super().__init__(name, 0)
        self.header = attrs["header_bytes"]
        self.size = attrs["record_bytes"]
        self.footer = attrs["footer_bytes"]
        self.hop = attrs["hop_bytes"] or attrs["record_bytes"]
        self.encoding = attrs["encoding"]
        self.data = b""
        self.pos = self.number = 0

    def close_file(self):
        self.file, self.data = None, b""

    on_session_close = close_file

    def open(self, op, path: bytes):
        fs_path = os.fsdecode(path)
        try:
            with open(fs_path, "rb") as f:
                if self.encoding:
                    z = Inflating(f, zlib_wbits(compression_of(self.encoding), None), fs_path)
                    parts = []
                    while chunk := z.read(1 << 20):
                        parts.append(chunk)
                    data = b"".join(parts)
                else:
                    data = f.read()
        except OSError as e:
            raise open_error(e, fs_path) from None
        self.data = data[: max(len(data) - self.footer, 0)]
        self.file, self.path = True, path
        self.pos, self.number = self.header, 0

    def next_line(self):
        # A trailing partial record is skipped, as TF's reader does.
        if self.pos + self.size > len(self.data):
            self.close_file()
            self.work_units += 1
            return None
        rec = self.data[self.pos : self.pos + self.size]
        key = b"%s:%d" % (self.path, self.number)
        self.pos += self.hop
        self.number += 1
        self.records += 1
        return key, rec


class _WholeFileState(ReaderState):
    """One record per file: its name and its whole contents."""

    def open(self, op, path: bytes):
        self.file, self.path = True, path

    def close_file(self):
        self.file = None

    on_session_close = close_file

    def next_line(self):
        if self.file is None:
            return None
        self.close_file()
        self.work_units += 1
        fs_path = os.fsdecode(self.path)
        try:
            with open(fs_path, "rb") as f:
                data = f.read()
        except OSError as e:
            raise open_error(e, fs_path) from None
        self.records += 1
        return self.path, data


class _IdentityState(_WholeFileState):
    """One record per work string: the string as both key and value."""

    def next_line(self):
        if self.file is None:
            return None
        self.close_file()
        self.work_units += 1
        self.records += 1
        return self.path, self.path


def _reader_op(op_type: str, make_state):
    def kernel(ctx, op):
        return (ctx.resources.get_or_create(("reader", op.name), lambda: make_state(op)),)

    register_op(
        op_type,
        infer=lambda op: [(resource, TensorShape([]))],
        kernel=kernel,
        grad=NOT_DIFFERENTIABLE,
        stateful=True,
    )


_reader_op("TFRecordReaderV2", lambda op: _RecordState(op.name, op.attrs["compression_type"]))
_reader_op("FixedLengthRecordReaderV2", lambda op: FixedLengthState(op.name, op.attrs))
_reader_op("WholeFileReaderV2", lambda op: _WholeFileState(op.name, 0))
_reader_op("IdentityReaderV2", lambda op: _IdentityState(op.name, 0))

_NO_SHARING = {"container": "", "shared_name": ""}


class TFRecordReader(ReaderBase):
    """A reader giving the records of TFRecord files.

    Args:
      name: a name for the reader op.
      options: None, a ``fr.python_io.TFRecordOptions``, or a compression type
        (``"GZIP"``, ``"ZLIB"``, ``""``).

    A record's key is ``b"<file name>:<offset>"`` (the byte offset of the record in the
    uncompressed stream). A truncated or corrupt record fails the read with
    ``DataLossError`` naming the file and offset.
    """

    def __init__(
        self, name: str | None = None, options: TFRecordOptions | str | None = None
    ) -> None:
        ctype = TFRecordOptions.get_compression_type_string(options)
        ref = make(
            "TFRecordReaderV2",
            [],
            dict(_NO_SHARING, compression_type=ctype),
            name,
            "TFRecordReaderV2",
        )
        super().__init__(ref)


class FixedLengthRecordReader(ReaderBase):
    """A reader giving fixed-length records of files.

    Args:
      record_bytes: the length of a record.
      header_bytes: bytes to skip at the start of every file.
      footer_bytes: bytes to ignore at the end of every file.
      hop_bytes: the distance between record starts (0 or None: ``record_bytes``);
        records may overlap.
      name: a name for the reader op.
      encoding: ``"GZIP"`` or ``"ZLIB"`` for compressed files, else None or ``""``.

    A record's key is ``b"<file name>:<record number>"`` (from 0). Bytes after the last
    whole record (before the footer) are skipped, as TF does.

    Note (flowrt): a file is read into memory when its first record is read.
    """

    def __init__(
        self,
        record_bytes: int,
        header_bytes: int | None = None,
        footer_bytes: int | None = None,
        hop_bytes: int | None = None,
        name: str | None = None,
        encoding: str | None = None,
    ) -> None:
        attrs: dict[str, Any] = {
            "record_bytes": int(record_bytes),
            "header_bytes": int(header_bytes or 0),
            "footer_bytes": int(footer_bytes or 0),
            "hop_bytes": int(hop_bytes or 0),
            "encoding": encoding or "",
        }
        if attrs["record_bytes"] <= 0:
            raise ValueError("record_bytes must be positive, got %d" % attrs["record_bytes"])
        for k in ("header_bytes", "footer_bytes", "hop_bytes"):
            if attrs[k] < 0:
                raise ValueError("%s must be non-negative, got %d" % (k, attrs[k]))
        compression_of(attrs["encoding"])  # ValueError unless "GZIP", "ZLIB" or ""
        ref = make(
            "FixedLengthRecordReaderV2",
            [],
            dict(_NO_SHARING, **attrs),
            name,
            "FixedLengthRecordReaderV2",
        )
        super().__init__(ref)


class WholeFileReader(ReaderBase):
    """A reader giving one record per file: key the file name, value its contents."""

    def __init__(self, name: str | None = None) -> None:
        super().__init__(
            make("WholeFileReaderV2", [], dict(_NO_SHARING), name, "WholeFileReaderV2")
        )


class IdentityReader(ReaderBase):
    """A reader giving each dequeued work string as both key and value."""

    def __init__(self, name: str | None = None) -> None:
        super().__init__(make("IdentityReaderV2", [], dict(_NO_SHARING), name, "IdentityReaderV2"))
