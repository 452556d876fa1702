"""Declared sizes, checked before anything is allocated.

A file or a proto says how large a tensor, record or image is before its data: a few
bytes can declare terabytes. Every reader (checkpoint bundles, TFRecords, image
decoders, ``make_ndarray`` and the constants it fills) asks ``declared_bytes`` what a
declared shape costs, against the bytes its source really holds (or a cap where the
source legitimately expands, as a constant of one repeated value does), before it
allocates: memory then follows the input's real size. ``DeclaredSizeError`` is a
``ValueError``; each reader raises it again as its own error class, naming its file,
tensor or node (docs/limits.md lists the bounds).
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["DEFLATE_RATIO", "MAX_ELEMENTS", "DeclaredSizeError", "declared_bytes"]

MAX_ELEMENTS = (1 << 63) - 1
"""TF's bound on a tensor's element count (an int64)."""

DEFLATE_RATIO = 1032
"""The most bytes one byte of a deflate stream (zlib, gzip, PNG's pixels) inflates to:
a 258-byte match coded in 2 bits."""


class DeclaredSizeError(ValueError):
    """A declared size that cannot be allocated: ``declared`` bytes (None when the
    element count itself passes ``MAX_ELEMENTS``) against ``available``."""

    def __init__(self, message: str, declared: int | None, available: int | None):
        super().__init__(message)
        self.declared, self.available = declared, available


def declared_bytes(dims: Iterable[int], itemsize: int, available: int | None = None) -> int:
    """The bytes ``dims`` elements of ``itemsize`` bytes each take.

    Args:
      dims: the declared shape (an element count is ``[count]``).
      itemsize: bytes per element (at least what one element costs in its source:
        a serialized string takes at least its length byte).
      available: the bytes the source really holds for them, or the most it may
        expand to; None checks only the element count.

    Raises:
      DeclaredSizeError: a dimension is negative, the element count passes
        ``MAX_ELEMENTS`` (TF's "Shape ... is too large"), or the bytes pass
        ``available``.
    """
    dims = list(dims)
    count = 1
    for d in dims:
        if d < 0:
            raise DeclaredSizeError("shape %s has a negative dimension" % dims, None, available)
        count *= d
    if count > MAX_ELEMENTS:
        raise DeclaredSizeError(
            "Shape %s is too large (more than 2**63 - 1 entries)" % dims, None, available
        )
    nbytes = count * itemsize
    if available is not None and nbytes > available:
        raise DeclaredSizeError(
            "shape %s of %d-byte elements declares %d bytes, more than the %d it may take"
            % (dims, itemsize, nbytes, available),
            nbytes,
            available,
        )
    return nbytes
