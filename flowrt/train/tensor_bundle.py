"""TF's V2 checkpoint format (a tensor bundle): what ``fr.train.Saver`` writes and every
checkpoint reader reads, byte-compatible with TensorFlow's ``BundleWriter``/``BundleReader``.

A bundle with prefix ``dir/model.ckpt-20`` is:
  ``model.ckpt-20.index``  an SSTable (``sstable.py``): key ``""`` holds a
      ``BundleHeaderProto`` (number of data shards, endianness, format version); each
      tensor's name, in sorted order, holds a ``BundleEntryProto`` (dtype, shape, shard,
      offset and size of its bytes, masked CRC-32C of them).
  ``model.ckpt-20.data-00000-of-00001``  the tensors' bytes at their offsets: numbers in
      little-endian order, C order; string tensors as the varint64 length of each
      element, a masked CRC-32C of the lengths (taken as uint32s, uint64 past 4 GiB),
      then the elements' bytes.
A tensor TF saved in slices (a partitioned variable) has an entry with its full shape
and the slices' extents; each slice's bytes are under a key that encodes the name and the
extents (TF's ``EncodeTensorNameSlice``). flowrt writes a partitioned variable as one
whole tensor, which TF reads into slices as needed.

numpy has no bfloat16: a bfloat16 tensor (TF's mixed-precision models save them) is read
as the float32 array of the same values, which is exact, reported as float32 and
restorable into a float32 variable; flowrt never writes bfloat16. TF 2.21 writes the
index uncompressed (``tf.compat.v1.train.Saver``'s and ``tf.train.Checkpoint``'s), so a
snappy-compressed block is refused as unreadable.

Reading treats both files as untrusted: sizes are checked against dtype and shape before
any data is read, every CRC is checked, and damage is a ``DataLossError`` naming the file.
"""

from __future__ import annotations

import math
import os
import re
import struct
from typing import Any, BinaryIO

import google_crc32c
import numpy as np
from google.protobuf.message import DecodeError

from .. import dtypes as _dt
from .. import errors
from .._core.bounds import DeclaredSizeError, declared_bytes
from .._core.crc import mask, masked_crc32c
from ..protos.graph_pb2 import VersionDef
from ..protos.tensor_bundle_pb2 import BundleEntryProto, BundleHeaderProto, TensorSliceProto
from .sstable import read_table, read_varint, varint, write_table

__all__ = ["write_bundle", "BundleReader", "data_path", "index_path"]

_VERSION = 1  # TF's kTensorBundleVersion; TF's min consumer is 0
# TF's DT_BFLOAT16: its bytes are read as uint16, then widened to the float32 of the same
# value (exact: a bfloat16 is the high half of a float32).
_BFLOAT16 = 14
_BY_ENUM = {d.as_datatype_enum: d for d in _dt.ALL_DTYPES if d.name not in ("resource", "variant")}
_MAX_RANK = 254


def index_path(prefix: str) -> str:
    return prefix + ".index"


def data_path(prefix: str, shard: int = 0, num_shards: int = 1) -> str:
    return "%s.data-%05d-of-%05d" % (prefix, shard, num_shards)


# --------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------


def _packed_lengths(lengths: list[int]) -> bytes:
    """The string lengths as TF's CRC covers them: uint32 each, uint64 when larger."""
    return b"".join(struct.pack("<I" if n <= 0xFFFFFFFF else "<Q", n) for n in lengths)


def _string_bytes(arr: np.ndarray) -> tuple[bytes, int]:
    """TF's encoding of a string tensor and its (unmasked) CRC-32C."""
    items = [bytes(b) if not isinstance(b, str) else b.encode() for b in arr.reshape(-1)]
    lengths = b"".join(varint(len(b)) for b in items)
    crc = google_crc32c.value(_packed_lengths([len(b) for b in items]))
    length_crc = struct.pack("<I", mask(crc))
    crc = google_crc32c.extend(crc, length_crc)
    body = b"".join(items)
    return lengths + length_crc + body, google_crc32c.extend(crc, body)


def _tensor_bytes(arr: np.ndarray) -> tuple[bytes, int]:
    if arr.dtype == object or arr.dtype.kind in "SU":
        return _string_bytes(arr)
    raw = np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("<")).tobytes()
    return raw, google_crc32c.value(raw)


def write_bundle(values: dict[str, np.ndarray], data_file: BinaryIO) -> bytes:
    """Writes the tensors of ``values`` to the open ``data_file`` (a one-shard bundle's
    data file); returns the bytes of the bundle's index file."""
    offset = 0
    header = BundleHeaderProto(
        num_shards=1, endianness=BundleHeaderProto.LITTLE, version=VersionDef(producer=_VERSION)
    )
    items = [(b"", header.SerializeToString())]
    for name in sorted(values, key=lambda n: n.encode("utf-8")):
        arr = np.asarray(values[name])
        dtype = _dt.string if arr.dtype == object else _dt.as_dtype(arr.dtype)
        raw, crc = _tensor_bytes(arr)
        enum: Any = dtype.as_datatype_enum  # protobuf takes the enum's plain int
        entry = BundleEntryProto(
            dtype=enum, shard_id=0, offset=offset, size=len(raw), crc32c=mask(crc)
        )
        for d in arr.shape:
            entry.shape.dim.add(size=d)
        data_file.write(raw)
        offset += len(raw)
        items.append((name.encode("utf-8"), entry.SerializeToString()))
    return write_table(items)


# --------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------


def _ordered_signed(n: int) -> bytes:
    """TF's ``OrderedCode::WriteSignedNumIncreasing``."""
    x = ~n if n < 0 else n
    length = (x.bit_length() + 1 + 6) // 7  # 7 value bits per byte, one for the sign
    header = [(0, 0), (0x80, 0), (0xC0, 0), (0xE0, 0), (0xF0, 0), (0xF8, 0), (0xFC, 0)]
    header += [(0xFE, 0), (0xFF, 0), (0xFF, 0x80), (0xFF, 0xC0)]
    b = bytearray((n & ((1 << (8 * length)) - 1)).to_bytes(length, "big"))
    b[0] ^= header[length][0]
    if length > 1:
        b[1] ^= header[length][1]
    return bytes(b)


def slice_key(name: str, extents: list[tuple[int, int]]) -> bytes:
    """TF's ``EncodeTensorNameSlice``: the key of one slice's entry."""

    def num(n: int) -> bytes:
        body = n.to_bytes((n.bit_length() + 7) // 8, "big") if n else b""
        return bytes([len(body)]) + body

    # OrderedCode's WriteString: 0x00 and 0xff escaped, then the terminator 0x00 0x01.
    escaped = re.sub(
        rb"[\x00\xff]",
        lambda m: m.group() + (b"\xff" if m.group() == b"\x00" else b"\x00"),
        name.encode("utf-8"),
    )
    key = num(0) + escaped + b"\x00\x01" + num(len(extents))
    return key + b"".join(_ordered_signed(s) + _ordered_signed(n) for s, n in extents)


def _data_loss(path: str, detail: str) -> errors.DataLossError:
    return errors.DataLossError(
        None, None, "Checkpoint file %s is corrupt or not a TF checkpoint: %s" % (path, detail)
    )


def _legacy(path: str) -> errors.DataLossError:
    return errors.DataLossError(
        None,
        None,
        "Checkpoint %s was written by an older flowrt (its JSON/npz checkpoint format); "
        "this flowrt reads only TF's checkpoint format. Restore it with the flowrt that "
        "wrote it and save it again, or delete it to start over" % path,
    )


class BundleReader:
    """The entries of one bundle's index, read and checked once; tensors read on demand.

    The reader holds no open file: each ``read`` opens the data shard it needs.
    """

    def __init__(self, prefix: str):
        self.prefix = prefix
        self.path = path = index_path(prefix)
        try:
            f = open(path, "rb")
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            raise errors.NotFoundError(
                None,
                None,
                "Unsuccessful TensorSliceReader constructor: Failed to find any matching "
                "files for %s" % prefix,
            ) from None
        with f:
            if f.read(1) == b"{":
                raise _legacy(prefix)
            # Read block by block: the file's size is checked, never read whole.
            entries = dict(read_table(f, path))
        header = BundleHeaderProto()
        try:
            header.ParseFromString(entries.pop(b""))
        except KeyError:
            raise _data_loss(path, "no header entry") from None
        except DecodeError as e:
            raise _data_loss(path, "bad header: %s" % e) from None
        if header.version.min_consumer > _VERSION or header.num_shards < 1:
            raise _data_loss(
                path,
                "header needs format version %d (flowrt reads %d) with %d shards"
                % (header.version.min_consumer, _VERSION, header.num_shards),
            )
        self.num_shards = header.num_shards
        self._order = "<" if header.endianness == BundleHeaderProto.LITTLE else ">"
        self.entries: dict[str, BundleEntryProto] = {}
        self._slices: dict[bytes, BundleEntryProto] = {}
        for key, value in entries.items():
            entry = BundleEntryProto()
            try:
                entry.ParseFromString(value)
            except DecodeError as e:
                raise _data_loss(path, "bad entry for %r: %s" % (key, e)) from None
            if key[:1] == b"\x00":
                self._slices[key] = entry
            else:
                try:
                    self.entries[key.decode("utf-8")] = entry
                except UnicodeDecodeError:
                    raise _data_loss(path, "tensor name %r is not UTF-8" % key) from None
        self._shapes = {name: self._shape(name, e) for name, e in self.entries.items()}

    def _shape(self, name: str, entry: BundleEntryProto) -> tuple[int, ...]:
        dims = [d.size for d in entry.shape.dim]
        if entry.shape.unknown_rank or len(dims) > _MAX_RANK or any(d < 0 for d in dims):
            raise _data_loss(self.path, "tensor %s has a bad shape %s" % (name, dims))
        if not entry.slices and not 0 <= entry.shard_id < self.num_shards:
            raise _data_loss(
                self.path,
                "tensor %s is in shard %d of %d" % (name, entry.shard_id, self.num_shards),
            )
        return tuple(dims)

    def _dtype(self, name: str, entry: BundleEntryProto) -> _dt.DType:
        """The dtype of the stored elements (uint16 for bfloat16's)."""
        if entry.dtype == _BFLOAT16:
            return _dt.uint16
        # Raised only for the tensor asked for: the checkpoint's other tensors stay readable.
        dtype = _BY_ENUM.get(entry.dtype)
        if dtype is None:
            raise errors.UnimplementedError(
                None,
                None,
                "Tensor %s of checkpoint %s has DataType %d, which flowrt does not support"
                % (name, self.prefix, entry.dtype),
            )
        return dtype

    def shape(self, name: str) -> tuple[int, ...]:
        """The shape of tensor ``name`` (KeyError if absent)."""
        return self._shapes[name]

    def info(self, name: str) -> tuple[_dt.DType, tuple[int, ...]]:
        """The ``(dtype, shape)`` of tensor ``name`` (KeyError if absent;
        UnimplementedError if its dtype is one flowrt lacks, e.g. float8; bfloat16 is
        float32, as ``read`` gives it)."""
        entry = self.entries[name]
        dtype = _dt.float32 if entry.dtype == _BFLOAT16 else self._dtype(name, entry)
        return dtype, self._shapes[name]

    def __contains__(self, name: str) -> bool:
        return name in self._shapes

    def names(self) -> list[str]:
        return sorted(self._shapes)

    def read(self, name: str) -> np.ndarray:
        """The value of tensor ``name``, checked against its entry's size and CRC."""
        entry = self.entries[name]
        dtype, shape = self._dtype(name, entry), self._shapes[name]
        if entry.slices:
            value = self._read_sliced(name, dtype, shape, entry)
        else:
            value = self._read_entry(name, dtype, shape, entry)
        if entry.dtype == _BFLOAT16:
            return (value.astype(np.uint32) << 16).view(np.float32)
        return value

    def _read_sliced(self, name, dtype, shape, entry) -> np.ndarray:
        """A tensor TF saved in slices: each slice read (so bounded by the files' real
        size) and checked to cover it exactly once before the whole is allocated."""
        parts = []
        for s in entry.slices:
            extents = self._extents(name, s, shape)
            # An extent without a length (the whole dimension) is -1 in the key.
            encoded = [(e.start, e.length if e.HasField("length") else -1) for e in s.extent]
            part = self._slices.get(slice_key(name, encoded))
            if part is None:
                raise _data_loss(
                    self.path, "tensor %s: the entry of slice %s is missing" % (name, extents)
                )
            part_shape = tuple(n for _, n in extents)
            if (self._dtype(name, part), self._shape(name, part)) != (dtype, part_shape):
                raise _data_loss(
                    self.path, "tensor %s: slice %s has another dtype or shape" % (name, extents)
                )
            parts.append((extents, self._read_entry(name, dtype, part_shape, part)))
        # Checked before the whole is allocated: a declared shape larger than its slices
        # is a forgery, whatever memory it would take.
        held = sum(p.size for _, p in parts)
        try:
            short = declared_bytes(shape, 1, held) != held
        except DeclaredSizeError:
            short = True
        if short:
            raise _data_loss(self.path, "tensor %s: its slices do not cover it exactly" % name)
        covered = np.zeros(shape, dtype=bool)
        out = np.empty(shape, dtype=object if dtype is _dt.string else dtype.np)
        # The slices' sizes add up to the whole: an overlap leaves a hole, found below.
        for extents, value in parts:
            where = tuple(slice(s, s + n) for s, n in extents)
            if covered[where].any():
                break
            covered[where] = True
            out[where] = value
        if not covered.all():
            raise _data_loss(self.path, "tensor %s: its slices do not cover it exactly" % name)
        return out

    def _extents(self, name: str, s: TensorSliceProto, shape) -> list[tuple[int, int]]:
        if len(s.extent) != len(shape):
            raise _data_loss(self.path, "tensor %s: a slice of rank %d" % (name, len(s.extent)))
        out = []
        for e, d in zip(s.extent, shape, strict=True):
            n = e.length if e.HasField("length") else d - e.start
            if e.start < 0 or n < 0 or e.start + n > d:
                raise _data_loss(
                    self.path,
                    "tensor %s: slice extent %d:%d of a dim of %d" % (name, e.start, n, d),
                )
            out.append((e.start, n))
        return out

    def _read_entry(self, name, dtype, shape, entry) -> np.ndarray:
        path = data_path(self.prefix, entry.shard_id, self.num_shards)
        count = math.prod(shape)
        # A string takes at least the byte of its length; a number exactly its size.
        itemsize = 1 if dtype is _dt.string else dtype.np.itemsize
        try:
            nbytes = declared_bytes(shape, itemsize, entry.size)
            short = dtype is not _dt.string and nbytes != entry.size
        except DeclaredSizeError:
            short = True
        if short:
            raise _data_loss(
                path,
                "tensor %s: %d bytes stored for %d elements of %s"
                % (name, entry.size, count, dtype.name),
            )
        try:
            with open(path, "rb") as f:
                f.seek(0, os.SEEK_END)
                if entry.offset < 0 or entry.offset + entry.size > f.tell():
                    raise _data_loss(
                        path,
                        "tensor %s at offset %d, size %d goes past the end of the file (%d bytes)"
                        % (name, entry.offset, entry.size, f.tell()),
                    )
                f.seek(entry.offset)
                raw = f.read(entry.size)
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            raise errors.NotFoundError(
                None, None, "Checkpoint data file %s of tensor %s not found" % (path, name)
            ) from None
        if dtype is _dt.string:
            return self._strings(path, name, raw, count, entry.crc32c).reshape(shape)
        if masked_crc32c(raw) != entry.crc32c:
            raise _data_loss(path, "checksum mismatch for tensor %s" % name)
        return (
            np.frombuffer(raw, dtype=dtype.np.newbyteorder(self._order))
            .astype(dtype.np)
            .reshape(shape)
        )

    def _strings(self, path: str, name: str, raw: bytes, count: int, crc: int) -> np.ndarray:
        """TF's string encoding; its CRC covers the lengths as integers, not as varints."""

        lengths = []
        pos = 0
        try:
            for _ in range(count):
                n, pos = read_varint(raw, pos, len(raw))
                lengths.append(n)
        except ValueError:
            raise _data_loss(path, "tensor %s: bad string lengths" % name) from None
        if pos + 4 + sum(lengths) != len(raw):
            raise _data_loss(path, "tensor %s: string lengths disagree with its size" % name)
        running = google_crc32c.value(_packed_lengths(lengths))
        if struct.pack("<I", mask(running)) != raw[pos : pos + 4]:
            raise _data_loss(path, "checksum mismatch for the string lengths of tensor %s" % name)
        if masked_crc32c(raw[pos:], running) != crc:
            raise _data_loss(path, "checksum mismatch for tensor %s" % name)
        pos += 4
        out = np.empty(count, dtype=object)
        for i, n in enumerate(lengths):
            out[i] = raw[pos : pos + n]
            pos += n
        return out
