"""TFRecord files (``fr.python_io``): the writer, the iterator, and the record framing.

A TFRecord file is a sequence of records, each framed as::

    uint64 length          (little-endian)
    uint32 masked_crc32c(length bytes)
    byte   data[length]
    uint32 masked_crc32c(data)

where ``masked_crc32c(b) = ((c >> 15) | (c << 17)) + 0xa282ead8 (mod 2**32)`` of the
CRC-32C (Castagnoli) ``c`` of ``b``. A file may be compressed as a whole (GZIP, or ZLIB:
a zlib stream); offsets then count bytes of the uncompressed stream, as TF's do.

``RecordFile`` is the one reader of the framing; ``tf_record_iterator`` and the
``TFRecordReader`` op both use it, so a corrupt record gives the same ``DataLossError``
(naming the file and the record's offset) everywhere.
"""

from __future__ import annotations

import enum
import os
import struct
import zlib
from typing import BinaryIO, Iterator, Self, cast

from . import errors
from ._core.bounds import DEFLATE_RATIO, DeclaredSizeError, declared_bytes
from ._core.crc import masked_crc32c

__all__ = [
    "TFRecordWriter",
    "tf_record_iterator",
    "TFRecordOptions",
    "TFRecordCompressionType",
    "RecordFile",
    "encode_record",
    "masked_crc32c",
]

_U64 = struct.Struct("<Q")
_U32 = struct.Struct("<I")
_HEAD = struct.Struct("<QI")


def encode_record(data: bytes) -> bytes:
    """``data`` framed as one TFRecord record."""
    header = _U64.pack(len(data))
    return b"".join(
        (header, _U32.pack(masked_crc32c(header)), data, _U32.pack(masked_crc32c(data)))
    )


class TFRecordCompressionType(enum.IntEnum):
    """The compression of a TFRecord file as a whole."""

    NONE = 0
    ZLIB = 1
    GZIP = 2


_TYPE_STRING = {
    TFRecordCompressionType.NONE: "",
    TFRecordCompressionType.ZLIB: "ZLIB",
    TFRecordCompressionType.GZIP: "GZIP",
}
_FROM_STRING = {v: k for k, v in _TYPE_STRING.items()}


class TFRecordOptions:
    """Options of a TFRecord file: its compression and zlib's settings.

    Args:
      compression_type: a ``TFRecordCompressionType``, or ``"ZLIB"``, ``"GZIP"``, ``""``
        or None (no compression).
      flush_mode: the zlib flush mode used by ``TFRecordWriter.flush`` (default
        ``zlib.Z_SYNC_FLUSH``).
      input_buffer_size: accepted for compatibility.
      output_buffer_size: accepted for compatibility.
      window_bits: zlib's window size (8..15; default 15).
      compression_level: 0..9, or -1 for zlib's default.
      compression_method: zlib's method (only ``zlib.DEFLATED``).
      mem_level: zlib's memory level (1..9; default 8).
      compression_strategy: zlib's strategy (default ``zlib.Z_DEFAULT_STRATEGY``).

    Raises:
      ValueError: an unknown compression type.
    """

    compression_type_map = {
        TFRecordCompressionType.ZLIB: "ZLIB",
        TFRecordCompressionType.GZIP: "GZIP",
        TFRecordCompressionType.NONE: "",
    }

    def __init__(
        self,
        compression_type: TFRecordOptions | TFRecordCompressionType | int | str | None = None,
        flush_mode: int | None = None,
        input_buffer_size: int | None = None,
        output_buffer_size: int | None = None,
        window_bits: int | None = None,
        compression_level: int | None = None,
        compression_method: int | None = None,
        mem_level: int | None = None,
        compression_strategy: int | None = None,
    ) -> None:
        self.compression_type = compression_of(compression_type)
        self.flush_mode = flush_mode
        self.input_buffer_size = input_buffer_size
        self.output_buffer_size = output_buffer_size
        self.window_bits = window_bits
        self.compression_level = compression_level
        self.compression_method = compression_method
        self.mem_level = mem_level
        self.compression_strategy = compression_strategy

    @classmethod
    def get_compression_type_string(
        cls, options: TFRecordOptions | TFRecordCompressionType | int | str | None
    ) -> str:
        """``"ZLIB"``, ``"GZIP"`` or ``""`` for ``options`` (TFRecordOptions, a type, or
        a string)."""
        if options is None:
            return ""
        if isinstance(options, TFRecordOptions):
            return _TYPE_STRING[options.compression_type]
        return _TYPE_STRING[compression_of(options)]

    def __repr__(self) -> str:
        return "TFRecordOptions(compression_type=%r)" % _TYPE_STRING[self.compression_type]


def compression_of(
    value: TFRecordOptions | TFRecordCompressionType | int | str | None,
) -> TFRecordCompressionType:
    if value is None:
        return TFRecordCompressionType.NONE
    if isinstance(value, str):
        try:
            return _FROM_STRING[value]
        except KeyError:
            raise ValueError(
                'Unsupported compression type %r; expected "ZLIB", "GZIP" or ""' % value
            ) from None
    if isinstance(value, TFRecordOptions):
        return value.compression_type
    try:
        return TFRecordCompressionType(value)
    except ValueError:
        raise ValueError(
            "Unsupported compression type %r; expected a TFRecordCompressionType" % (value,)
        ) from None


def zlib_wbits(ctype: TFRecordCompressionType, window_bits: int | None) -> int:
    bits = zlib.MAX_WBITS if window_bits is None else int(window_bits)
    return bits + 16 if ctype is TFRecordCompressionType.GZIP else bits


def _open_error(e: OSError | ValueError, path: str) -> errors.OpError:
    if isinstance(e, ValueError):  # the OS's paths end at a NUL byte
        return errors.InvalidArgumentError(
            None, None, "%r: a file path cannot contain a NUL byte" % path
        )
    cls = (
        errors.NotFoundError
        if isinstance(e, (FileNotFoundError, NotADirectoryError))
        else errors.PermissionDeniedError
        if isinstance(e, PermissionError)
        else errors.UnknownError
    )
    return cls(None, None, "%s; %s" % (path, e.strerror or e))


class TFRecordWriter:
    """Writes records to a TFRecord file.

    Args:
      path: the file to write (created or truncated).
      options: None, a ``TFRecordOptions``, or a compression type (``"GZIP"``,
        ``"ZLIB"``, ``""``, or a ``TFRecordCompressionType``).

    Raises:
      NotFoundError: the file's directory does not exist.
      PermissionDeniedError: the file cannot be written.

    Use as a context manager (``with fr.python_io.TFRecordWriter(path) as w:``) or call
    ``close()``. The bytes are those TF's writer produces for the same records.
    """

    def __init__(
        self,
        path: str | bytes | os.PathLike[str] | os.PathLike[bytes],
        options: TFRecordOptions | TFRecordCompressionType | int | str | None = None,
    ) -> None:
        self._path = os.fsdecode(path)
        opts = options if isinstance(options, TFRecordOptions) else TFRecordOptions(options)
        self._ctype = opts.compression_type
        try:
            self._file: BinaryIO | None = open(self._path, "wb")
        except (OSError, ValueError) as e:
            raise _open_error(e, self._path) from None
        self._z = None
        self._flush_mode = zlib.Z_SYNC_FLUSH if opts.flush_mode is None else opts.flush_mode
        if self._ctype is not TFRecordCompressionType.NONE:
            level = -1 if opts.compression_level is None else int(opts.compression_level)
            self._z = zlib.compressobj(
                level,
                zlib.DEFLATED if opts.compression_method is None else opts.compression_method,
                zlib_wbits(self._ctype, opts.window_bits),
                8 if opts.mem_level is None else int(opts.mem_level),
                zlib.Z_DEFAULT_STRATEGY
                if opts.compression_strategy is None
                else opts.compression_strategy,
            )

    def _put(self, raw: bytes) -> None:
        if self._file is None:
            raise errors.FailedPreconditionError(
                None, None, "TFRecordWriter for %s is closed" % self._path
            )
        if self._z is not None:
            raw = self._z.compress(raw)
        self._file.write(raw)

    def write(self, record: bytes | str) -> None:
        """Appends one record (bytes, or a str encoded as UTF-8)."""
        if isinstance(record, str):
            record = record.encode("utf-8")
        self._put(encode_record(bytes(record)))

    def flush(self) -> None:
        """Pushes the records written so far to the file."""
        if self._file is None:
            raise errors.FailedPreconditionError(
                None, None, "TFRecordWriter for %s is closed" % self._path
            )
        if self._z is not None:
            self._file.write(self._z.flush(self._flush_mode))
        self._file.flush()

    def close(self) -> None:
        """Finishes the file (compression trailer included); closing twice is harmless."""
        if self._file is None:
            return
        try:
            if self._z is not None:
                self._file.write(self._z.flush(zlib.Z_FINISH))
        finally:
            self._file.close()
            self._file = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        f = getattr(self, "_file", None)
        if f is not None:
            self.close()


class Inflating:
    """A read-only stream of the decompressed bytes of a GZIP or ZLIB file.

    Each call inflates no more than it returns (plus one chunk), so a small file that
    inflates to gigabytes costs memory only as far as it is read. A stream that ends
    without its trailer (gzip's CRC and length, zlib's Adler-32) is a ``DataLossError``
    naming the file: records cut at a record boundary would otherwise pass unnoticed.
    """

    _CHUNK = 1 << 16

    def __init__(self, raw: BinaryIO, wbits: int, path: str):
        self._raw, self._path = raw, path
        self._z = zlib.decompressobj(wbits)
        self._buf, self._pos = b"", 0
        self._eof = False
        self._started = False

    def _inflate(self, want: int) -> bytes:
        """Up to ``want`` more decompressed bytes (at least one unless at the end)."""
        while not self._eof:
            chunk = self._z.unconsumed_tail or self._raw.read(self._CHUNK)
            try:
                if chunk:
                    self._started = True
                    more = self._z.decompress(chunk, min(max(want, self._CHUNK), 1 << 24))
                else:
                    more = self._z.flush()
                    self._eof = True
                    if self._started and not self._z.eof:
                        raise zlib.error("the stream ends without its trailer")
            except zlib.error as e:
                raise errors.DataLossError(
                    None, None, "%s: the compressed stream is corrupt (%s)" % (self._path, e)
                ) from None
            if more:
                return more
        return b""

    def most(self) -> int:
        """The most bytes the stream can still produce: what is inflated, and what the
        unread compressed bytes inflate to at deflate's largest ratio."""
        unread = len(self._z.unconsumed_tail)
        if not self._eof:
            unread += os.fstat(self._raw.fileno()).st_size - self._raw.tell()
        return len(self._buf) - self._pos + unread * DEFLATE_RATIO

    def read(self, n: int) -> bytes:
        buf, pos = self._buf, self._pos
        if len(buf) - pos < n and not self._eof:
            parts = [buf[pos:]]
            have = len(parts[0])
            while have < n:
                more = self._inflate(n - have)
                if not more:
                    break
                parts.append(more)
                have += len(more)
            buf, pos = b"".join(parts), 0
            self._buf = buf
        self._pos = pos + n
        out = buf[pos : pos + n]
        if self._pos >= len(buf):
            self._buf, self._pos = b"", 0
        return out

    def close(self) -> None:
        self._raw.close()


class RecordFile:
    """Reads the records of one TFRecord file in order, checking both CRCs.

    The file is read in blocks of 256 KiB; records are sliced out of the block.

    Args:
      path: the file to read.
      compression: a ``TFRecordCompressionType`` (or anything ``TFRecordOptions``
        accepts).

    Raises:
      NotFoundError, PermissionDeniedError: the file cannot be opened.
    """

    _BLOCK = 1 << 18

    def __init__(
        self,
        path: str | bytes | os.PathLike[str] | os.PathLike[bytes],
        compression: TFRecordOptions | TFRecordCompressionType | int | str | None = None,
    ) -> None:
        self.path = os.fsdecode(path)
        ctype = compression_of(compression)
        try:
            raw = open(self.path, "rb")  # closed by close()
        except (OSError, ValueError) as e:
            raise _open_error(e, self.path) from None
        self._f = (
            raw
            if ctype is TFRecordCompressionType.NONE
            else Inflating(raw, zlib_wbits(ctype, None), self.path)
        )
        # The file's size (an uncompressed file) or what the stream can produce (a
        # compressed one) bounds a record's length before its data is read: a hostile
        # length field must not make a huge allocation.
        self._size = (
            os.fstat(raw.fileno()).st_size if ctype is TFRecordCompressionType.NONE else None
        )
        self.offset = 0  # where the next record starts
        self._buf, self._pos = b"", 0

    def _loss(self, what: str) -> errors.DataLossError:
        return errors.DataLossError(
            None, None, "%s record at offset %d in %s" % (what, self.offset, self.path)
        )

    def _more(self, k: int) -> tuple[bytes, int]:
        """The buffer and position with at least ``k`` unread bytes (fewer at the end).

        Read in pieces of at most 16 MiB into one growing buffer, so a length field
        promising more than the file holds costs only what the file really holds.
        """
        out = bytearray(self._buf[self._pos :])
        while len(out) < k:
            chunk = self._f.read(min(max(k - len(out), self._BLOCK), 1 << 24))
            if not chunk:
                break
            out += chunk
            del chunk
        # Short of k, the caller only measures the buffer and raises: no bytes copy then.
        self._buf = bytes(out) if len(out) >= k else cast(bytes, out)
        self._pos = 0
        return self._buf, 0

    def read(self) -> bytes | None:
        """The next record, or None at the end of the file.

        Raises:
          DataLossError: a truncated record or a CRC mismatch, naming the file and offset.
        """
        buf, pos = self._buf, self._pos
        if len(buf) - pos < 12:
            buf, pos = self._more(12)
            if len(buf) < 12:
                if not buf:
                    return None
                raise self._loss("truncated (header of %d of 12 bytes)" % len(buf))
        n, length_crc = _HEAD.unpack_from(buf, pos)
        if length_crc != masked_crc32c(buf[pos : pos + 8]):
            raise self._loss("corrupted (length CRC mismatch)")
        if self._size is not None:
            held = self._size - self.offset - 12
        else:
            held = len(buf) - pos - 12 + cast(Inflating, self._f).most()
        try:
            declared_bytes([n + 4], 1, held)
        except DeclaredSizeError:
            if self._size is None:
                raise self._loss(
                    "truncated (the stream can inflate to at most %d of its %d data and CRC "
                    "bytes)" % (held, n + 4)
                ) from None
            raise self._loss(
                "truncated (%d of %d data and CRC bytes)" % (max(held, 0), n + 4)
            ) from None
        end = pos + 16 + n
        if len(buf) < end:
            buf, pos = self._more(16 + n)
            end = 16 + n
            if len(buf) < end:
                raise self._loss("truncated (%d of %d data and CRC bytes)" % (len(buf) - 12, n + 4))
        data = buf[pos + 12 : end - 4]
        if _U32.unpack_from(buf, end - 4)[0] != masked_crc32c(data):
            raise self._loss("corrupted (data CRC mismatch)")
        self._buf, self._pos = buf, end
        self.offset += 16 + n
        return data

    def close(self) -> None:
        self._f.close()

    def __iter__(self) -> Iterator[bytes]:
        try:
            while True:
                rec = self.read()
                if rec is None:
                    return
                yield rec
        finally:
            self.close()


def tf_record_iterator(
    path: str | bytes | os.PathLike[str] | os.PathLike[bytes],
    options: TFRecordOptions | TFRecordCompressionType | int | str | None = None,
) -> Iterator[bytes]:
    """Yields the records of the TFRecord file ``path`` in order.

    Args:
      path: the file to read.
      options: None, a ``TFRecordOptions``, or a compression type.

    Raises:
      NotFoundError: no such file (raised by this call, as TF's does).
      DataLossError: while iterating, a truncated or corrupt record, naming the file
        and the record's offset.
    """
    return iter(RecordFile(path, options))
