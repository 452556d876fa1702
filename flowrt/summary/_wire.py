"""Protocol-buffer wire format and TFRecord framing, by hand: only what event files need.

Encoders return ``bytes`` for one field (tag + payload); a message is the concatenation of
its fields in field-number order, which is how protobuf serializes (so the bytes match
TF's). Proto3 rules: a plain scalar field equal to zero is left out; a member of a
``oneof`` is always written when set (the ``opt_*`` helpers are for the plain fields).
"""

from __future__ import annotations

import struct
from typing import Any, BinaryIO, Iterator

import numpy as np

VARINT, I64, LEN, I32 = 0, 1, 2, 5

# --------------------------------------------------------------------------------------
# Encoding
# --------------------------------------------------------------------------------------


def varint(n: int) -> bytes:
    """Base-128 varint; a negative int64 is its 64-bit two's complement (ten bytes)."""
    n = int(n)
    if n < 0:
        n += 1 << 64
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def key(field: int, wire: int) -> bytes:
    return varint(field << 3 | wire)


def int_field(field: int, n: int) -> bytes:
    return key(field, VARINT) + varint(n)


def double_field(field: int, x: float) -> bytes:
    return key(field, I64) + struct.pack("<d", x)


def float_field(field: int, x: float) -> bytes:
    # Rounds like C's (float)x, as TF does: out-of-range values become +-inf, silently.
    with np.errstate(over="ignore"):
        return key(field, I32) + np.float32(x).tobytes()


def bytes_field(field: int, data) -> bytes:
    """A length-delimited field: bytes, a str (UTF-8), or an already-encoded message."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    return key(field, LEN) + varint(len(data)) + data


def packed_doubles(field: int, xs) -> bytes:
    xs = np.asarray(xs, dtype="<f8")
    return bytes_field(field, xs.tobytes()) if xs.size else b""


def packed_varints(field: int, ns) -> bytes:
    return bytes_field(field, b"".join(varint(n) for n in ns)) if len(ns) else b""


def opt_int(field: int, n: int) -> bytes:
    return int_field(field, n) if n else b""


def opt_double(field: int, x: float) -> bytes:
    # -0.0 is not the default either: proto3 compares the bits.
    return double_field(field, x) if x or np.signbit(x) else b""


def opt_bytes(field: int, data) -> bytes:
    return bytes_field(field, data) if data else b""


# --------------------------------------------------------------------------------------
# Decoding
# --------------------------------------------------------------------------------------


def _read_varint(data: bytes, pos: int) -> tuple[int, int]:
    n = shift = 0
    while True:
        if pos >= len(data):
            raise ValueError("truncated varint")
        b = data[pos]
        pos += 1
        n |= (b & 0x7F) << shift
        if not b & 0x80:
            return n, pos
        shift += 7
        if shift >= 70:
            raise ValueError("varint longer than ten bytes")


def fields(data: bytes) -> Iterator[tuple[int, int, Any]]:
    """Yields ``(field, wire_type, value)`` of a message: an int for a varint, ``bytes`` for
    the others (8 or 4 raw bytes for fixed-size fields). Raises ValueError if malformed."""
    pos, end = 0, len(data)
    while pos < end:
        k, pos = _read_varint(data, pos)
        field, wire = k >> 3, k & 7
        if field == 0:
            raise ValueError("field number 0")
        value: int | bytes
        if wire == VARINT:
            value, pos = _read_varint(data, pos)
        elif wire in (I64, I32):
            size = 8 if wire == I64 else 4
            if pos + size > end:
                raise ValueError("truncated fixed-size field")
            value, pos = data[pos : pos + size], pos + size
        elif wire == LEN:
            size, pos = _read_varint(data, pos)
            if pos + size > end:
                raise ValueError("truncated length-delimited field")
            value, pos = data[pos : pos + size], pos + size
        else:
            raise ValueError("unsupported wire type %d" % wire)
        yield field, wire, value


def as_double(raw: bytes) -> float:
    return struct.unpack("<d", raw)[0]


def as_float(raw: bytes) -> float:
    return struct.unpack("<f", raw)[0]


def as_int64(n: int) -> int:
    return n - (1 << 64) if n >= 1 << 63 else n


def unpack_doubles(wire: int, value) -> list[float]:
    """A repeated double field's entry: packed (LEN) or a single fixed64."""
    if wire == LEN:
        if len(value) % 8:
            raise ValueError("packed doubles of %d bytes" % len(value))
        return np.frombuffer(value, dtype="<f8").tolist()
    return [as_double(value)]


# --------------------------------------------------------------------------------------
# crc32c (Castagnoli) and TFRecord framing
# --------------------------------------------------------------------------------------


def _crc_table() -> list[int]:
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_CRC_TABLE = _crc_table()


def crc32c(data: bytes) -> int:
    """CRC-32C of ``data`` (reflected polynomial 0x82F63B78); ``b"123456789"`` -> 0xE3069283."""
    crc, table = 0xFFFFFFFF, _CRC_TABLE
    for b in data:
        crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked_crc32c(data: bytes) -> int:
    """TFRecord's mask: rotate right by 15 bits and add a constant."""
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def record(data: bytes) -> bytes:
    """One TFRecord: length (u64), masked crc of the length, data, masked crc of the data."""
    header = struct.pack("<Q", len(data))
    return (
        header
        + struct.pack("<I", masked_crc32c(header))
        + data
        + struct.pack("<I", masked_crc32c(data))
    )


def read_records(f: BinaryIO) -> Iterator[bytes]:
    """The records of a TFRecord stream; ValueError on a bad checksum or a truncated record."""
    while True:
        header = f.read(12)
        if not header:
            return
        if len(header) < 12:
            raise ValueError("truncated record header")
        (length,), (crc,) = struct.unpack("<Q", header[:8]), struct.unpack("<I", header[8:])
        if crc != masked_crc32c(header[:8]):
            raise ValueError("corrupted record: bad checksum of the length")
        body = f.read(length + 4)
        if len(body) < length + 4:
            raise ValueError("truncated record: expected %d bytes of data" % length)
        data, (crc,) = body[:length], struct.unpack("<I", body[length:])
        if crc != masked_crc32c(data):
            raise ValueError("corrupted record: bad checksum of the data")
        yield data
