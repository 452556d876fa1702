"""``decode_raw``: the bytes of strings reinterpreted as numbers (``DecodeRaw``, and
``DecodePaddedRaw`` when each string is cut or padded to a ``fixed_length``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.graph import Tensor
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from .common import TensorShape, make, to_tensor

if TYPE_CHECKING:
    from .._core.typing import DTypeLike, TensorLike

__all__ = ["decode_raw"]

_RAW_TYPES = (
    _dt.float16,
    _dt.float32,
    _dt.float64,
    _dt.int8,
    _dt.int16,
    _dt.int32,
    _dt.int64,
    _dt.uint8,
    _dt.uint16,
    _dt.bool,
)
_TF_NAME = {_dt.float32: "float", _dt.float64: "double", _dt.float16: "half"}


def decode_raw(
    input_bytes: TensorLike | None = None,
    out_type: DTypeLike | None = None,
    little_endian: bool = True,
    name: str | None = None,
    bytes: TensorLike | None = None,
    fixed_length: TensorLike | None = None,
) -> Tensor:
    """Reinterprets the bytes of each string as a vector of ``out_type``.

    Args:
      input_bytes: a string tensor; every element must have the same length, a multiple
        of ``out_type``'s size (unless ``fixed_length`` is given).
      out_type: the element dtype (float16/32/64, int8/16/32/64, uint8/16, bool).
      little_endian: the byte order of the data.
      name: a name for the op.
      bytes: the deprecated name of ``input_bytes``.
      fixed_length: (TF2's ``tf.io.decode_raw``) an int32 scalar: each string is cut or
        zero-padded to this many bytes, a positive multiple of ``out_type``'s size
        (``DecodePaddedRaw``; bool is not allowed).

    Returns:
      A tensor of shape ``input_bytes.shape + [length // itemsize]``.
    """
    if input_bytes is None:
        input_bytes = bytes
    if out_type is None:
        raise TypeError("decode_raw() missing the required argument 'out_type'")
    out_type = _dt.as_dtype(out_type)
    if fixed_length is not None:
        return _decode_padded_raw(input_bytes, out_type, little_endian, name, fixed_length)
    if out_type not in _RAW_TYPES:
        raise TypeError(
            "Value passed to parameter 'out_type' has DataType %s not in list of "
            "allowed values: %s" % (out_type.name, ", ".join(t.name for t in _RAW_TYPES))
        )
    return make(
        "DecodeRaw",
        [to_tensor(input_bytes, _dt.string)],
        {"out_type": out_type, "little_endian": bool(little_endian)},
        name,
        "DecodeRaw",
    )


def _decode_raw_infer(op):
    s = op.inputs[0].shape
    if s.ndims is None:
        return [(op.attrs["out_type"], TensorShape(None))]
    return [(op.attrs["out_type"], TensorShape(s.as_list() + [None]))]


def _decode_raw_kernel(ctx, op, x):
    t = op.attrs["out_type"]
    arr = np.asarray(x, dtype=object)
    flat = arr.reshape(-1)
    dt = np.dtype(t.np).newbyteorder("<" if op.attrs["little_endian"] else ">")
    size = dt.itemsize
    n = len(flat[0]) if flat.size else 0
    if n % size:
        raise errors.InvalidArgumentError(
            None,
            op,
            "Input to DecodeRaw has length %d that is not a multiple of %d, the "
            "size of %s" % (n, size, _TF_NAME.get(t, t.name)),
        )
    for i, s in enumerate(flat):
        if len(s) != n:
            raise errors.InvalidArgumentError(
                None,
                op,
                "DecodeRaw requires input strings to all be the same size, but "
                "element %d has size %d != %d" % (i, len(s), n),
            )
    out = np.frombuffer(b"".join(flat), dtype=dt).astype(t.np, copy=True)
    return (out.reshape(arr.shape + (n // size,)),)


register_op(
    "DecodeRaw", infer=_decode_raw_infer, kernel=_decode_raw_kernel, grad=NOT_DIFFERENTIABLE
)


def _decode_padded_raw(input_bytes, out_type, little_endian, name, fixed_length):
    allowed = [t for t in _RAW_TYPES if t is not _dt.bool]
    if out_type not in allowed:
        raise TypeError(
            "Value passed to parameter 'out_type' has DataType %s not in list of "
            "allowed values: %s" % (out_type.name, ", ".join(t.name for t in allowed))
        )
    return make(
        "DecodePaddedRaw",
        [to_tensor(input_bytes, _dt.string), to_tensor(fixed_length, _dt.int32)],
        {"out_type": out_type, "little_endian": bool(little_endian)},
        name,
        "DecodePaddedRaw",
    )


def _decode_padded_raw_infer(op):
    from .const_eval import static_value

    s, t = op.inputs[0].shape, op.attrs["out_type"]
    n = static_value(op.inputs[1])
    dim = None
    if n is not None:
        n, size = int(n), np.dtype(t.np).itemsize
        if n < 0:
            raise ValueError(
                "Dimension size, given by scalar input 1, must be non-negative but is %d" % n
            )
        if n % size:
            raise ValueError("Dimension size must be evenly divisible by %d but is %d" % (size, n))
        dim = n // size
    return [(t, TensorShape(None) if s.ndims is None else TensorShape(s.as_list() + [dim]))]


def _decode_padded_raw_kernel(ctx, op, x, fixed_length):
    t = op.attrs["out_type"]
    n = int(fixed_length)
    dt = np.dtype(t.np).newbyteorder("<" if op.attrs["little_endian"] else ">")
    if n <= 0:
        raise errors.InvalidArgumentError(
            None, op, "fixed_length (%d) must be greater than zero." % n
        )
    if n % dt.itemsize:
        raise errors.InvalidArgumentError(
            None,
            op,
            "fixed_length (%d) must be a multiple of the size of out_type (%d)" % (n, dt.itemsize),
        )
    arr = np.asarray(x, dtype=object)
    raw = b"".join(bytes(s)[:n].ljust(n, b"\0") for s in arr.reshape(-1))
    out = np.frombuffer(raw, dtype=dt).astype(t.np, copy=True)
    return (out.reshape(arr.shape + (n // dt.itemsize,)),)


register_op(
    "DecodePaddedRaw",
    infer=_decode_padded_raw_infer,
    kernel=_decode_padded_raw_kernel,
    grad=NOT_DIFFERENTIABLE,
)
