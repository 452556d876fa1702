"""LevelDB's table format (an SSTable), which a TF checkpoint's ``.index`` file is.

A table is sorted ``key -> value`` pairs of bytes, laid out as::

  data block 0 | data block 1 | ... | metaindex block | index block | footer (48 bytes)

Each block is its entries, then its restart offsets (uint32 each) and their count
(uint32), then a 5-byte trailer: the compression type (0 = none) and a masked CRC-32C of
the block and that type byte. An entry stores how many bytes its key shares with the
previous key, the rest of the key and the value (three varints, then the bytes); the
entry at each restart point shares nothing, so a reader can start there. The index block
maps, for each data block, a key >= its last key to the block's handle (varint offset
and size); the footer holds the handles of the metaindex and index blocks, padded, then
the magic number.

The reader treats the file as untrusted: every offset, length and checksum is checked,
and damage is a ``DataLossError`` naming the file.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Iterable
from typing import BinaryIO

from .. import errors
from .._core.bounds import DeclaredSizeError, declared_bytes
from .._core.crc import masked_crc32c

__all__ = ["write_table", "read_table"]

_MAGIC = 0xDB4775248B80FB57
_FOOTER_SIZE = 48
_TRAILER_SIZE = 5
_NO_COMPRESSION = 0
_SNAPPY = 1


def varint(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def read_varint(buf: bytes, pos: int, end: int) -> tuple[int, int]:
    """The varint64 at ``buf[pos:end]`` and the position after it; ValueError if bad."""
    result = shift = 0
    while pos < end and shift < 64:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7
    raise ValueError("truncated or overlong varint")


# --------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------


class _BlockBuilder:
    def __init__(self, restart_interval: int):
        self.interval = restart_interval
        self.buf = bytearray()
        self.restarts = [0]
        self.count = 0
        self.last = b""

    def add(self, key: bytes, value: bytes) -> None:
        shared = 0
        if self.count < self.interval:
            n = min(len(key), len(self.last))
            while shared < n and key[shared] == self.last[shared]:
                shared += 1
        else:
            self.restarts.append(len(self.buf))
            self.count = 0
        self.buf += varint(shared) + varint(len(key) - shared) + varint(len(value))
        self.buf += key[shared:] + value
        self.last = key
        self.count += 1

    def size(self) -> int:
        return len(self.buf) + 4 * len(self.restarts) + 4

    def finish(self) -> bytes:
        tail = struct.pack("<%dI" % len(self.restarts), *self.restarts)
        return bytes(self.buf) + tail + struct.pack("<I", len(self.restarts))


def write_table(
    items: Iterable[tuple[bytes, bytes]], block_size: int = 262144, restart_interval: int = 16
) -> bytes:
    """The table of ``items`` (sorted by key, keys unique), uncompressed, as TF writes it.

    ``block_size`` and ``restart_interval`` are TF's defaults; tests make them small to
    spread few keys over many blocks and restart points.
    """
    out = bytearray()
    index = _BlockBuilder(1)

    def flush(block: _BlockBuilder) -> bytes:
        contents = block.finish() + bytes([_NO_COMPRESSION])
        handle = varint(len(out)) + varint(len(contents) - 1)
        out.extend(contents + struct.pack("<I", masked_crc32c(contents)))
        return handle

    block = _BlockBuilder(restart_interval)
    prev = None
    for key, value in items:
        if prev is not None and key <= prev:
            raise ValueError(
                "table keys must be added in increasing order: %r after %r" % (key, prev)
            )
        prev = key
        block.add(key, value)
        if block.size() >= block_size:
            index.add(key, flush(block))
            block = _BlockBuilder(restart_interval)
    if block.count or not index.count:
        index.add(prev if prev is not None else b"", flush(block))
    meta_handle = flush(_BlockBuilder(restart_interval))
    index_handle = flush(index)
    footer = meta_handle + index_handle
    footer += b"\0" * (_FOOTER_SIZE - 8 - len(footer)) + struct.pack("<Q", _MAGIC)
    return bytes(out + footer)


# --------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------


def _data_loss(path: str, detail: str) -> errors.DataLossError:
    return errors.DataLossError(
        None,
        None,
        "Unable to read table file %s: it is corrupt or not a table: %s" % (path, detail),
    )


class _Source:
    """The table's bytes, held (``bytes``) or read on demand from an open file, so an
    index file is read block by block and a block's size is checked against the file's
    before it is read."""

    def __init__(self, data: bytes | BinaryIO):
        if isinstance(data, (bytes, bytearray, memoryview)):
            self._buf: bytes | None = bytes(data)
            self._file = None
            self.size = len(self._buf)
        else:
            self._buf, self._file = None, data
            self.size = os.fstat(data.fileno()).st_size

    def read(self, offset: int, n: int) -> bytes:
        if self._buf is not None:
            return self._buf[offset : offset + n]
        assert self._file is not None
        self._file.seek(offset)
        return self._file.read(n)


def _block(src: _Source, handle: bytes, path: str, what: str) -> tuple[bytes, int, int]:
    """The contents of the block at ``handle`` (checked), the position after the handle
    and the offset just past the block."""
    try:
        offset, pos = read_varint(handle, 0, len(handle))
        size, pos = read_varint(handle, pos, len(handle))
    except ValueError as e:
        raise _data_loss(path, "bad %s handle: %s" % (what, e)) from None
    end = offset + size + _TRAILER_SIZE
    try:
        declared_bytes([size + _TRAILER_SIZE], 1, src.size - _FOOTER_SIZE - offset)
    except DeclaredSizeError:
        raise _data_loss(
            path, "%s at offset %d, size %d goes past the end of the file" % (what, offset, size)
        ) from None
    raw = src.read(offset, size + _TRAILER_SIZE)
    contents = raw[: size + 1]
    (stored,) = struct.unpack_from("<I", raw, size + 1)
    if masked_crc32c(contents) != stored:
        raise _data_loss(path, "block checksum mismatch in %s at offset %d" % (what, offset))
    kind = contents[-1]
    if kind == _SNAPPY:
        raise _data_loss(
            path,
            "%s at offset %d is snappy-compressed; flowrt reads uncompressed tables only "
            "(TF writes checkpoints uncompressed)" % (what, offset),
        )
    if kind != _NO_COMPRESSION:
        raise _data_loss(
            path, "%s at offset %d: unknown compression type %d" % (what, offset, kind)
        )
    return contents[:-1], pos, end


def _entries(block: bytes, path: str, what: str, budget: list[int]) -> list[tuple[bytes, bytes]]:
    """The ``(key, value)`` pairs of one block's contents; ``budget[0]`` is how many key
    bytes the table may still build (prefix sharing lets a few bytes of file declare
    quadratically many bytes of keys)."""
    if len(block) < 4:
        raise _data_loss(path, "%s is %d bytes, too short for a block" % (what, len(block)))
    (num_restarts,) = struct.unpack_from("<I", block, len(block) - 4)
    limit = len(block) - 4 - 4 * num_restarts
    if num_restarts == 0 or limit < 0:
        raise _data_loss(path, "%s has a bad restart count %d" % (what, num_restarts))
    restarts = set(struct.unpack_from("<%dI" % num_restarts, block, limit))
    if any(r > limit for r in restarts):
        raise _data_loss(path, "%s has a restart point past its entries" % what)
    out: list[tuple[bytes, bytes]] = []
    key = bytearray()
    last = b""
    pos = 0
    try:
        while pos < limit:
            shared, pos = read_varint(block, pos, limit)
            unshared, pos = read_varint(block, pos, limit)
            vlen, pos = read_varint(block, pos, limit)
            if shared > len(key) or pos + unshared + vlen > limit:
                raise ValueError("entry at %d overruns the block" % pos)
            if pos in restarts and shared:
                raise ValueError("the entry at restart point %d shares a prefix" % pos)
            budget[0] -= shared + unshared
            if budget[0] < 0:
                raise ValueError(
                    "its keys add up to more than %d times the file's size" % _KEY_RATIO
                )
            del key[shared:]
            key += block[pos : pos + unshared]
            pos += unshared
            if out and key <= last:
                raise ValueError("keys out of order: %r after %r" % (bytes(key), last))
            last = bytes(key)
            out.append((last, block[pos : pos + vlen]))
            pos += vlen
    except ValueError as e:
        raise _data_loss(path, "%s: %s" % (what, e)) from None
    return out


_KEY_RATIO = 64
"""How many times the file's size its keys may add up to: TF's tensor names share
prefixes a few times over; "a", "aa", "aaa", ... in 284 KB would be 1.25 GB."""


def read_table(data: bytes | BinaryIO, path: str) -> list[tuple[bytes, bytes]]:
    """Every ``(key, value)`` of the table in ``data`` (the bytes of file ``path``, or
    the file open for reading: then only its blocks are read), in order.

    Raises:
      DataLossError: naming ``path``, if the footer, a block, a checksum or an entry
        is damaged, data blocks overlap, the keys add up to more than 64 times the
        file's size, or a block is compressed.
    """
    src = _Source(data)
    if src.size < _FOOTER_SIZE:
        raise _data_loss(path, "the file is %d bytes, shorter than a table footer" % src.size)
    footer = src.read(src.size - _FOOTER_SIZE, _FOOTER_SIZE)
    if struct.unpack_from("<Q", footer, _FOOTER_SIZE - 8)[0] != _MAGIC:
        raise _data_loss(path, "bad magic number in the footer")
    budget = [_KEY_RATIO * src.size]
    _, pos, _ = _block(src, footer, path, "the metaindex block")
    index, _, _ = _block(src, footer[pos:], path, "the index block")
    out: list[tuple[bytes, bytes]] = []
    start = 0
    for n, (_, handle) in enumerate(_entries(index, path, "the index block", budget)):
        what = "data block %d" % n
        offset, _ = _handle_offset(handle)
        if offset < start:
            # Blocks are laid out in order: a handle pointing back re-reads bytes already
            # read (10,000 handles to one block cost 10,000 reads of it).
            raise _data_loss(path, "%s at offset %d overlaps the block before it" % (what, offset))
        block, _, start = _block(src, handle, path, what)
        entries = _entries(block, path, what, budget)
        if out and entries and entries[0][0] <= out[-1][0]:
            raise _data_loss(path, "%s: keys out of order across blocks" % what)
        out.extend(entries)
    return out


def _handle_offset(handle: bytes) -> tuple[int, int]:
    try:
        return read_varint(handle, 0, len(handle))
    except ValueError:
        return 0, 0  # _block reports the bad handle
