"""The masked CRC-32C that TF's file formats store: TFRecord framing (``python_io``),
and a checkpoint's LevelDB tables and tensor bundles (``train/sstable.py``,
``train/tensor_bundle.py``). A stored CRC is masked so that the CRC of bytes that
themselves hold CRCs stays strong."""

from __future__ import annotations

import google_crc32c

__all__ = ["mask", "masked_crc32c"]

_MASK_DELTA = 0xA282EAD8


def mask(crc: int) -> int:
    """``crc`` (an unmasked CRC-32C) masked as TF stores it."""
    return (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & 0xFFFFFFFF


def masked_crc32c(data: bytes, crc: int | None = None) -> int:
    """The masked CRC-32C of ``data``; ``crc``: a running unmasked CRC to extend."""
    return mask(google_crc32c.value(data) if crc is None else google_crc32c.extend(crc, data))
