"""``fr.compat``: TF's ``tf.compat`` helpers, and ``fr.compat.v1``, the TF1 API under the
name TF2 programs import it by (``import flowrt.compat.v1 as tf``)."""

from __future__ import annotations

import importlib
import numbers
import os
from typing import Any

import numpy as np

from .._core.shape import dimension_at_index, dimension_value

__all__ = [
    "as_bytes",
    "as_str",
    "as_str_any",
    "as_text",
    "bytes_or_text_types",
    "complex_types",
    "dimension_at_index",
    "dimension_value",
    "forward_compatible",
    "integral_types",
    "path_to_str",
    "real_types",
]

bytes_or_text_types = (bytes, str)
integral_types = (numbers.Integral, np.integer)
real_types = (numbers.Real, np.integer, np.floating)
complex_types = (numbers.Complex, np.number)


def as_bytes(bytes_or_text: bytes | bytearray | str, encoding: str = "utf-8") -> bytes:
    """``bytes_or_text`` as bytes (text encoded with ``encoding``); TypeError for any
    other type, naming it, as TF."""
    if isinstance(bytes_or_text, bytearray):
        return bytes(bytes_or_text)
    if isinstance(bytes_or_text, str):
        return bytes_or_text.encode(encoding)
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text
    raise TypeError("Expected binary or unicode string, got %r" % (bytes_or_text,))


def as_text(bytes_or_text: bytes | str, encoding: str = "utf-8") -> str:
    """``bytes_or_text`` as str (bytes decoded with ``encoding``); TypeError otherwise."""
    if isinstance(bytes_or_text, str):
        return bytes_or_text
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text.decode(encoding)
    raise TypeError("Expected binary or unicode string, got %r" % (bytes_or_text,))


as_str = as_text


def as_str_any(value: Any, encoding: str = "utf-8") -> str:
    """``str(value)``, bytes decoded with ``encoding`` instead."""
    if isinstance(value, bytes):
        return as_str(value, encoding=encoding)
    return str(value)


def path_to_str(path: Any) -> Any:
    """A path-like object's string (``os.fspath``); anything else unchanged."""
    if hasattr(path, "__fspath__"):
        path = as_str_any(os.fspath(path))
    return path


def forward_compatible(year: int, month: int, day: int) -> bool:
    """True: flowrt has no forward-compatibility horizon (every op form it has is
    the current one)."""
    return True


def __getattr__(name: str) -> Any:
    if name == "v1":
        return importlib.import_module(__name__ + ".v1")
    raise AttributeError("module %r has no attribute %r" % (__name__, name))
