"""String kernels of text pipelines: ``string_to_number``, ``substr`` and
``string_join``.

Strings are numpy object arrays of ``bytes`` (see docs/input_pipelines.md). Both
kernels lay the strings end to end once (``numparse.fields_of``) and do their
arithmetic on the offsets with numpy; only the final slicing of ``substr`` makes one
``bytes`` object per element.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.graph import Tensor
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from .._core.shape import TensorShape, broadcast_shapes
from .common import in_graph_of, make, to_tensor
from .numparse import fields_of, parse_fields

if TYPE_CHECKING:
    from .._core.typing import DTypeLike, TensorLike

__all__ = ["string_to_number", "substr", "string_join"]

_NUMBER_TYPES = (_dt.float32, _dt.float64, _dt.int32, _dt.int64)


def as_bytes_list(x) -> list:
    flat = np.asarray(x, dtype=object).reshape(-1).tolist()
    if not all(type(s) is bytes for s in flat):
        flat = [s.encode() if isinstance(s, str) else bytes(s) for s in flat]
    return flat


# --------------------------------------------------------------------------------------
# string_to_number
# --------------------------------------------------------------------------------------


def string_to_number(
    string_tensor: TensorLike | None = None,
    out_type: DTypeLike = _dt.float32,
    name: str | None = None,
    input: TensorLike | None = None,
) -> Tensor:
    """Parses each string of ``string_tensor`` as a number of ``out_type``.

    Args:
      string_tensor: a string tensor.
      out_type: float32 (default), float64, int32 or int64.
      name: a name for the op.
      input: TF1's alias of ``string_tensor``.

    Returns:
      A tensor of ``out_type`` with the shape of ``string_tensor``.

    Raises:
      TypeError: for another ``out_type``.
      InvalidArgumentError: (at run time) when a string is not a valid number of the
        type (whitespace around it is allowed; an int32 out of range is invalid).
    """
    if string_tensor is None:
        string_tensor = input
    out_type = _dt.as_dtype(out_type)
    if out_type not in _NUMBER_TYPES:
        raise TypeError(
            "Value passed to parameter 'out_type' has DataType %s not in list of "
            "allowed values: float32, float64, int32, int64" % out_type.name
        )
    return make(
        "StringToNumber",
        [to_tensor(string_tensor, _dt.string)],
        {"out_type": out_type},
        name,
        "StringToNumber",
    )


def _string_to_number_kernel(ctx, op, x):
    flat = as_bytes_list(x)
    vals, bad = parse_fields(*fields_of(flat), op.attrs["out_type"])
    if bad.any():
        s = flat[int(np.argmax(bad))]
        raise errors.InvalidArgumentError(
            None,
            None,
            "StringToNumberOp could not correctly convert string: %s"
            % s.decode("utf-8", "replace"),
        )
    return (vals.reshape(np.shape(x)),)


register_op(
    "StringToNumber",
    infer=lambda op: [(op.attrs["out_type"], op.inputs[0].shape)],
    kernel=_string_to_number_kernel,
    grad=NOT_DIFFERENTIABLE,
    quiet=True,
)


# --------------------------------------------------------------------------------------
# substr
# --------------------------------------------------------------------------------------


def substr(
    input: TensorLike, pos: TensorLike, len: TensorLike, name: str | None = None, unit: str = "BYTE"
) -> Tensor:  # TF1's argument names
    """Substrings of the strings of ``input``: ``len`` units from ``pos``.

    Args:
      input: a string tensor.
      pos: int32 or int64, the start of each substring; negative counts from the end.
        A scalar, or a tensor broadcastable against ``input``.
      len: the length of each substring, of ``pos``'s dtype and shape; a substring
        reaching past the end of its string stops there (a negative ``len`` too).
      name: a name for the op.
      unit: ``"BYTE"`` or ``"UTF8_CHAR"`` (positions and lengths in UTF-8 characters).

    Returns:
      A string tensor of the broadcast shape of ``input`` and ``pos``.

    Raises:
      ValueError: for another ``unit``, or ``pos`` and ``len`` of different shapes.
      TypeError: for ``pos``/``len`` not int32/int64, or of different dtypes.
      InvalidArgumentError: (at run time) when ``pos`` is outside a string, naming it.
    """
    with in_graph_of([input, pos, len]):
        if unit not in ("BYTE", "UTF8_CHAR"):
            raise ValueError(
                "Attr 'unit' of 'Substr' Op passed string '%s' not in: \"BYTE\", \"UTF8_CHAR\"."
                % unit
            )
        input = to_tensor(input, _dt.string, name="input")
        pos = to_tensor(pos, name="pos")
        if pos.dtype not in (_dt.int32, _dt.int64):
            raise TypeError(
                "Value passed to parameter 'pos' has DataType %s not in list of "
                "allowed values: int32, int64" % pos.dtype.name
            )
        len = to_tensor(len, dtype=pos.dtype if not hasattr(len, "dtype") else None, name="len")
        if len.dtype is not pos.dtype:
            raise TypeError(
                "Input 'len' of 'Substr' Op has type %s that does not match type %s "
                "of argument 'pos'." % (len.dtype.name, pos.dtype.name)
            )
        return make("Substr", [input, pos, len], {"T": pos.dtype, "unit": unit}, name, "Substr")


def _substr_infer(op):
    x, pos, ln = (t.shape for t in op.inputs)
    if pos.ndims is not None and ln.ndims is not None:
        if pos.ndims != ln.ndims or not pos.is_compatible_with(ln):
            raise ValueError(
                "Shape must be rank %d but is rank %d: pos and len must have the "
                "same shape, got %s and %s" % (pos.ndims, ln.ndims, pos, ln)
            )
    return [(_dt.string, broadcast_shapes(x, pos.merge_with(ln)))]


def _char_offsets(s: bytes) -> np.ndarray:
    """The byte offset of every UTF-8 character of ``s`` (and of its end)."""
    b = np.frombuffer(s, np.uint8)
    return np.append(np.flatnonzero((b & 0xC0) != 0x80), b.size)


def _substr_kernel(ctx, op, x, pos, ln):
    if np.shape(pos) != np.shape(ln):
        raise errors.InvalidArgumentError(
            None,
            None,
            "pos and len should have the same shape, got: %s vs. %s"
            % (list(np.shape(pos)), list(np.shape(ln))),
        )
    try:
        shape = np.broadcast_shapes(np.shape(x), np.shape(pos))
    except ValueError:
        raise errors.InvalidArgumentError(
            None, None, "Incompatible shapes: %s vs. %s" % (list(np.shape(x)), list(np.shape(pos)))
        ) from None
    xb = np.broadcast_to(np.asarray(x, dtype=object), shape)
    flat = as_bytes_list(xb)
    p = np.broadcast_to(np.asarray(pos, np.int64), shape).reshape(-1)
    n = np.broadcast_to(np.asarray(ln, np.int64), shape).reshape(-1)
    if op.attrs["unit"] == "UTF8_CHAR":
        offsets = [_char_offsets(s) for s in flat]
        size = np.array([o.size - 1 for o in offsets], dtype=np.int64)
    else:
        size = np.fromiter(map(bytes.__len__, flat), dtype=np.int64, count=len(flat))
    start = np.where(p < 0, p + size, p)
    bad = (start < 0) | (start > size)
    if bad.any():
        i = int(np.argmax(bad))
        raise errors.InvalidArgumentError(
            None,
            None,
            "pos %d out of range for string b'%s' at index %d"
            % (p[i], flat[i].decode("ascii", "backslashreplace"), i),
        )
    stop = np.where(n < 0, size, np.minimum(start + np.maximum(n, 0), size))
    if op.attrs["unit"] == "UTF8_CHAR":
        start = [int(o[a]) for o, a in zip(offsets, start.tolist())]
        stop = [int(o[b]) for o, b in zip(offsets, stop.tolist())]
    else:
        start, stop = start.tolist(), stop.tolist()
    out = np.empty(len(flat), dtype=object)
    out[:] = [s[a:b] for s, a, b in zip(flat, start, stop)]
    return (out.reshape(shape),)


register_op(
    "Substr", infer=_substr_infer, kernel=_substr_kernel, grad=NOT_DIFFERENTIABLE, quiet=True
)


# --------------------------------------------------------------------------------------
# string_join
# --------------------------------------------------------------------------------------


def string_join(inputs: list[TensorLike], separator: str = "", name: str | None = None) -> Tensor:
    """Joins the strings of ``inputs`` elementwise with ``separator`` (op
    ``StringJoin``), as TF1's ``tf.string_join`` / ``tf.strings.join``.

    Args:
      inputs: string tensors, all of one shape or scalars (a scalar joins with every
        element).
      separator: put between the joined strings.
      name: the op name (default ``StringJoin``).

    Returns:
      A string tensor of the inputs' shape.

    Raises:
      ValueError: for non-scalar inputs of different shapes.
    """
    with in_graph_of([inputs]):
        ts = [to_tensor(x) for x in inputs]
        sep = separator.decode() if isinstance(separator, bytes) else str(separator)
        return make("StringJoin", ts, {"separator": sep}, name, "StringJoin")


def _string_join_infer(op):
    shape = None
    for t in op.inputs:
        if t.dtype is not _dt.string:
            raise TypeError(
                "Value passed to parameter 'inputs' has DataType %s not in list of allowed "
                "values: string" % t.dtype.name
            )
        if t.shape.ndims == 0:
            continue
        if shape is None:
            shape = t.shape
        elif shape.ndims is not None and t.shape.ndims is not None:
            if shape.ndims != t.shape.ndims:
                raise ValueError(
                    "Shapes must be equal rank, but are %d and %d" % (shape.ndims, t.shape.ndims)
                )
            shape = shape.merge_with(t.shape)
        elif shape.ndims is None:
            shape = t.shape
    return [(_dt.string, TensorShape([]) if shape is None else shape)]


def _string_join_kernel(ctx, op, *xs):
    shape = None
    for x in xs:
        if np.ndim(x) and shape is None:
            shape = np.shape(x)
        elif np.ndim(x) and np.shape(x) != shape:
            raise errors.InvalidArgumentError(
                None,
                op,
                "Input shapes do not match: %s vs. %s" % (list(shape), list(np.shape(x))),
            )
    shape = shape or ()
    sep = op.attrs["separator"].encode()
    n = int(np.prod(shape))
    cols = [as_bytes_list(np.broadcast_to(np.asarray(x, dtype=object), shape)) for x in xs]
    out = np.empty(n, dtype=object)
    out[:] = [sep.join(parts) for parts in zip(*cols)] if cols else [b""] * n
    return (out.reshape(shape),)


register_op(
    "StringJoin",
    infer=_string_join_infer,
    kernel=_string_join_kernel,
    grad=NOT_DIFFERENTIABLE,
    quiet=True,
)
