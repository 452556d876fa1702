"""Elementwise text ops of ``tf.strings``: case, whitespace, length, regular
expressions, ``as_string``, ``reduce_join`` and the compat.v1 ``strings.split``.

Strings are numpy object arrays of ``bytes``. Regular expressions are RE2's, as TF's:
the ``google-re2`` package (the ``flowrt[text]`` extra, imported when a pattern is
first compiled) is RE2 itself, so a pattern TF rejects (a backreference, a
lookahead) is rejected here too and every match is the one TF finds.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core import extras
from .._core.graph import Tensor
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from .._core.shape import TensorShape
from .common import in_graph_of, make, make_op, reduce_args, static_value, to_tensor
from .sparse_ops import SparseTensor
from .string_ops import as_bytes_list

if TYPE_CHECKING:
    from .._core.typing import TensorLike

# TF1's top-level names; the rest are only in ``fr.strings``.
__all__ = ["regex_replace", "string_strip", "as_string", "reduce_join"]


def _like(x, values: list) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out.reshape(np.shape(x))


def elementwise_string_op(op_type: str, fn, out_dtype=_dt.string):
    """Registers ``op_type`` as ``fn(op)`` applied to each string of its first input."""

    def kernel(ctx, op, x, *rest):
        f = fn(op, *rest)
        vals = [f(s) for s in as_bytes_list(x)]
        if out_dtype is _dt.string:
            return (_like(x, vals),)
        return (np.array(vals, dtype=out_dtype.as_numpy_dtype).reshape(np.shape(x)),)

    register_op(
        op_type,
        infer=lambda op: [(out_dtype, op.inputs[0].shape)],
        kernel=kernel,
        grad=NOT_DIFFERENTIABLE,
        quiet=True,
    )


def string_input(x, name="input") -> Tensor:
    t = to_tensor(x, _dt.string if not isinstance(x, Tensor) else None, name=name)
    if t.dtype is not _dt.string:
        raise TypeError(
            "Value passed to parameter '%s' has DataType %s not in list of allowed values: "
            "string" % (name, t.dtype.name)
        )
    return t


def _scalar_string(x, name) -> bytes:
    v = np.asarray(x, dtype=object)
    if v.ndim != 0:
        raise errors.InvalidArgumentError(
            None, None, "%s must be scalar, got shape %s" % (name, list(v.shape))
        )
    s = v[()]
    return s.encode() if isinstance(s, str) else bytes(s)


# --------------------------------------------------------------------------------------
# Regular expressions (RE2)
# --------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=256)
def _compiled(pattern: bytes):
    re2 = extras.require("re2", "text", "A regular expression op (fr.strings.regex_*)")
    try:
        return re2.compile(pattern)
    except re2.error as e:
        msg = e.args[0].decode("utf-8", "replace") if e.args else str(e)
        raise errors.InvalidArgumentError(
            None,
            None,
            "Invalid pattern: %s, error: %s" % (pattern.decode("utf-8", "replace"), msg),
        ) from None


@functools.lru_cache(maxsize=256)
def _rewrite_parts(rewrite: bytes) -> tuple:
    """RE2's rewrite string as literal bytes and group numbers (``\\0`` is the whole
    match, ``\\\\`` a backslash; any other escape is invalid)."""
    parts: list = []
    lit = bytearray()
    i = 0
    while i < len(rewrite):
        c = rewrite[i]
        if c == 0x5C:  # backslash
            nxt = rewrite[i + 1 : i + 2]
            if nxt.isdigit():
                parts += [bytes(lit), int(nxt)]
                lit = bytearray()
            elif nxt == b"\\":
                lit += b"\\"
            else:
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    "Invalid rewrite pattern: %s, error: invalid rewrite pattern"
                    % rewrite.decode("utf-8", "replace"),
                )
            i += 2
        else:
            lit.append(c)
            i += 1
    return tuple(parts + [bytes(lit)])


def regex_replace(
    input: TensorLike,
    pattern: TensorLike,
    rewrite: TensorLike,
    replace_global: bool = True,
    name: str | None = None,
) -> Tensor:
    """Replaces the matches of the RE2 regular expression ``pattern`` in each string of
    ``input`` with ``rewrite`` (op ``RegexReplace``), as TF1's ``tf.regex_replace`` /
    ``tf.strings.regex_replace``.

    Args:
      input: a string tensor.
      pattern: a scalar string, the RE2 pattern.
      rewrite: a scalar string; ``\\1``..``\\9`` insert a group, ``\\0`` the whole match,
        ``\\\\`` a backslash.
      replace_global: replace every match (default) or the first only.
      name: a name for the op.

    Returns:
      A string tensor of ``input``'s shape.

    Raises:
      InvalidArgumentError: (at run time) for a pattern RE2 rejects, naming it.
    """
    with in_graph_of([input, pattern, rewrite]):
        return make(
            "RegexReplace",
            [
                string_input(input),
                string_input(pattern, "pattern"),
                string_input(rewrite, "rewrite"),
            ],
            {"replace_global": bool(replace_global)},
            name,
            "RegexReplace",
        )


def _regex_replace_fn(op, pattern, rewrite):
    rx = _compiled(_scalar_string(pattern, "Pattern"))
    parts = _rewrite_parts(_scalar_string(rewrite, "Rewrite"))
    count = 0 if op.attrs["replace_global"] else 1
    wanted = max([p for p in parts if type(p) is int], default=0)
    if wanted > rx.groups:
        raise errors.InvalidArgumentError(
            None,
            op,
            "Invalid rewrite pattern: Rewrite schema requests %d matches, but the regexp "
            "only has %d parenthesized subexpressions" % (wanted, rx.groups),
        )
    if len(parts) == 1:
        literal = parts[0]
        return lambda s: rx.sub(lambda m: literal, s, count=count)

    def expand(m):
        return b"".join(p if type(p) is bytes else (m.group(p) or b"") for p in parts)

    return lambda s: rx.sub(expand, s, count=count)


elementwise_string_op("RegexReplace", _regex_replace_fn)


def regex_full_match(input: TensorLike, pattern: TensorLike, name: str | None = None) -> Tensor:
    """Whether each string of ``input`` matches the RE2 regular expression ``pattern``
    as a whole (op ``RegexFullMatch``).

    Args:
      input: a string tensor.
      pattern: a scalar string, the RE2 pattern.
      name: a name for the op.

    Returns:
      A bool tensor of ``input``'s shape.

    Raises:
      InvalidArgumentError: (at run time) for a pattern RE2 rejects, naming it.
    """
    with in_graph_of([input, pattern]):
        return make(
            "RegexFullMatch",
            [string_input(input), string_input(pattern, "pattern")],
            None,
            name,
            "RegexFullMatch",
        )


def _full_match_fn(op, pattern):
    rx = _compiled(_scalar_string(pattern, "Pattern"))
    return lambda s: rx.fullmatch(s) is not None


elementwise_string_op("RegexFullMatch", _full_match_fn, _dt.bool)


def _static_full_match_fn(op):
    rx = _compiled(op.attrs["pattern"].encode("utf-8"))
    return lambda s: rx.fullmatch(s) is not None


# The pattern as an attr: what TF's sharded Saver writes (is the prefix on s3://?).
elementwise_string_op("StaticRegexFullMatch", _static_full_match_fn, _dt.bool)


# --------------------------------------------------------------------------------------
# Case, whitespace, length
# --------------------------------------------------------------------------------------


def _case_op(op_type: str, input, encoding: str, name):
    if encoding not in ("", "utf-8"):
        raise ValueError(
            "Attr 'encoding' of '%s' Op must be '' or 'utf-8', got %r" % (op_type, encoding)
        )
    with in_graph_of([input]):
        return make(op_type, [string_input(input)], {"encoding": encoding}, name, op_type)


def string_lower(input: TensorLike, encoding: str = "", name: str | None = None) -> Tensor:
    """Lower-cases each string (op ``StringLower``): ASCII letters only, or every
    letter when ``encoding="utf-8"``.

    Note (flowrt): with ``"utf-8"`` the mapping is Python's ``str.lower``, which agrees
    with TF's ICU mapping except for a few context-dependent letters (a final sigma).
    """
    return _case_op("StringLower", input, encoding, name)


def string_upper(input: TensorLike, encoding: str = "", name: str | None = None) -> Tensor:
    """Upper-cases each string (op ``StringUpper``): ASCII letters only, or every
    letter when ``encoding="utf-8"``.

    Note (flowrt): with ``"utf-8"`` the mapping is Python's ``str.upper``, which agrees
    with TF's ICU mapping except where one letter becomes several (``ß`` -> ``SS``).
    """
    return _case_op("StringUpper", input, encoding, name)


def _case_fn(ascii_fn, text_fn):
    def fn(op):
        if op.attrs["encoding"] == "utf-8":
            return lambda s: text_fn(s.decode("utf-8", "surrogateescape")).encode(
                "utf-8", "surrogateescape"
            )
        return ascii_fn  # bytes.lower/upper change ASCII letters only, as TF

    return fn


elementwise_string_op("StringLower", _case_fn(bytes.lower, str.lower))
elementwise_string_op("StringUpper", _case_fn(bytes.upper, str.upper))


def string_strip(input: TensorLike, name: str | None = None) -> Tensor:
    """Removes leading and trailing ASCII whitespace from each string (op
    ``StringStrip``), as TF1's ``tf.string_strip`` / ``tf.strings.strip``."""
    with in_graph_of([input]):
        return make("StringStrip", [string_input(input)], None, name, "StringStrip")


elementwise_string_op("StringStrip", lambda op: bytes.strip)


def string_length(input: TensorLike, name: str | None = None, unit: str = "BYTE") -> Tensor:
    """The length of each string (op ``StringLength``), in bytes or, with
    ``unit="UTF8_CHAR"``, in UTF-8 characters.

    Returns:
      An int32 tensor of ``input``'s shape.

    Raises:
      ValueError: for another ``unit``.
    """
    if unit not in ("BYTE", "UTF8_CHAR"):
        raise ValueError(
            "Attr 'unit' of 'StringLength' Op passed string '%s' not in: "
            '"BYTE", "UTF8_CHAR".' % unit
        )
    with in_graph_of([input]):
        return make("StringLength", [string_input(input)], {"unit": unit}, name, "StringLength")


def _length_fn(op):
    if op.attrs["unit"] == "BYTE":
        return len
    # A UTF-8 character starts at every byte that is not a continuation byte 10xxxxxx.
    return lambda s: int(np.count_nonzero((np.frombuffer(s, np.uint8) & 0xC0) != 0x80))


elementwise_string_op("StringLength", _length_fn, _dt.int32)


# --------------------------------------------------------------------------------------
# as_string
# --------------------------------------------------------------------------------------

_AS_STRING_TYPES = (
    _dt.int8,
    _dt.int16,
    _dt.int32,
    _dt.int64,
    _dt.uint8,
    _dt.uint16,
    _dt.uint32,
    _dt.uint64,
    _dt.float16,
    _dt.float32,
    _dt.float64,
    _dt.complex64,
    _dt.complex128,
    _dt.bool,
    _dt.string,
)


def as_string(
    input: TensorLike,
    precision: int = -1,
    scientific: bool = False,
    shortest: bool = False,
    width: int = -1,
    fill: str = "",
    name: str | None = None,
) -> Tensor:
    """Formats each element of ``input`` as a string (op ``AsString``) with C's
    ``printf`` rules, as TF1's ``tf.as_string``.

    Args:
      input: a numeric, bool or string tensor.
      precision: digits after the point for floats (default: printf's 6).
      scientific: ``%e`` notation for floats.
      shortest: ``%g`` notation for floats (the shorter of ``%e`` and ``%f``).
      width: pad each string to this width (with ``fill``, on the left).
      fill: the pad character: one of ``" "``, ``"0"``, or a printf flag ``+ - #``.
      name: a name for the op.

    Returns:
      A string tensor of ``input``'s shape; booleans are ``true``/``false``.

    Raises:
      TypeError: for a dtype ``AsString`` does not take.
      InvalidArgumentError: (at run time, as TF) for ``scientific`` with ``shortest``,
        a precision, ``scientific`` or ``shortest`` for a non-float, or another ``fill``.
    """
    with in_graph_of([input]):
        x = to_tensor(input, name="input")
        if x.dtype not in _AS_STRING_TYPES:
            raise TypeError(
                "Value passed to parameter 'input' has DataType %s not in list of allowed "
                "values: %s" % (x.dtype.name, ", ".join(d.name for d in _AS_STRING_TYPES))
            )
        fill = fill.decode() if isinstance(fill, bytes) else str(fill)
        attrs = {
            "T": x.dtype,
            "precision": int(precision),
            "scientific": bool(scientific),
            "shortest": bool(shortest),
            "width": int(width),
            "fill": fill,
        }
        return make("AsString", [x], attrs, name, "AsString")


def _as_string_format(op) -> str:
    a, dtype = op.attrs, op.attrs["T"]
    floating = dtype in (_dt.float16, _dt.float32, _dt.float64, _dt.complex64, _dt.complex128)

    def bad(msg):
        return errors.InvalidArgumentError(None, op, msg)

    if a["scientific"] and a["shortest"]:
        raise bad("Cannot select both scientific and shortest notation")
    if (a["scientific"] or a["shortest"]) and not floating:
        raise bad("scientific and shortest format not supported for datatype %s" % dtype.name)
    if a["precision"] > -1 and not floating:
        raise bad("precision not supported for datatype %s" % dtype.name)
    if len(a["fill"]) > 1:
        raise bad('Fill string must be one or fewer characters: "%s"' % a["fill"])
    if a["fill"] and a["fill"] not in " +-0#":
        raise bad('Fill argument not supported: "%s"' % a["fill"])
    fmt = "%" + a["fill"]
    if a["width"] > -1:
        fmt += "%d" % a["width"]
    if a["precision"] > -1:
        fmt += ".%d" % a["precision"]
    if floating:
        return fmt + ("g" if a["shortest"] else "e" if a["scientific"] else "f")
    return fmt + ("s" if dtype in (_dt.bool, _dt.string) else "d")


def _as_string_kernel(ctx, op, x):
    fmt, dtype = _as_string_format(op), op.attrs["T"]
    flat = np.asarray(x).reshape(-1)
    if dtype is _dt.string:
        fmt = fmt.encode()
        vals = [fmt % s for s in as_bytes_list(flat)]
    elif dtype is _dt.bool:
        vals = [(fmt % ("true" if v else "false")).encode() for v in flat.tolist()]
    elif dtype in (_dt.complex64, _dt.complex128):
        pair = "(%s,%s)" % (fmt, fmt)
        vals = [(pair % (v.real, v.imag)).encode() for v in flat.tolist()]
    else:
        vals = [(fmt % v).encode() for v in flat.tolist()]
    return (_like(x, vals),)


register_op(
    "AsString",
    infer=lambda op: [(_dt.string, op.inputs[0].shape)],
    kernel=_as_string_kernel,
    grad=NOT_DIFFERENTIABLE,
    quiet=True,
)


# --------------------------------------------------------------------------------------
# reduce_join
# --------------------------------------------------------------------------------------


def reduce_join(
    inputs: TensorLike,
    axis: TensorLike | None = None,
    keep_dims: bool | None = None,
    separator: str = "",
    name: str | None = None,
    reduction_indices: TensorLike | None = None,
    keepdims: bool | None = None,
) -> Tensor:
    """Joins the strings of ``inputs`` along ``axis`` with ``separator`` (op
    ``ReduceJoin``), as TF1's ``tf.reduce_join`` / ``tf.strings.reduce_join``.

    Args:
      inputs: a string tensor.
      axis: the axes to join along, negative counting from the end; they are joined in
        the order given, the first varying fastest (TF's rule). None joins all axes,
        last first (so row-major order); ``[]`` joins nothing.
      keep_dims: TF1's old name of ``keepdims``.
      separator: put between the joined strings.
      name: a name for the op.
      reduction_indices: TF1's old name of ``axis``.
      keepdims: keep the joined axes with length 1.

    Returns:
      A string tensor without the joined axes (or with them of length 1).

    Raises:
      ValueError: for an axis out of range or given twice (when the rank is known).
    """
    axis, keepdims = reduce_args(axis, keepdims, reduction_indices, keep_dims)
    with in_graph_of([inputs, axis]):
        x = string_input(inputs, "inputs")
        if axis is None:
            if x.shape.ndims is None:
                raise ValueError("reduce_join with axis=None needs an input of known rank")
            axis = list(range(x.shape.ndims - 1, -1, -1))
        ax = to_tensor(axis, _dt.int32 if not isinstance(axis, Tensor) else None, name="axis")
        sep = separator.decode() if isinstance(separator, bytes) else str(separator)
        return make(
            "ReduceJoin", [x, ax], {"keep_dims": keepdims, "separator": sep}, name, "ReduceJoin"
        )


def _reduce_dims(axes, rank) -> list:
    out = []
    for a in np.asarray(axes).reshape(-1).tolist():
        if not -rank <= a < rank:
            raise ValueError(
                "Invalid reduction dimension %d for input with %d dimensions." % (a, rank)
            )
        a = a + rank if a < 0 else a
        if a in out:
            raise ValueError("Duplicate reduction dimension %d" % a)
        out.append(a)
    return out


def _reduce_join_infer(op):
    x, ax = op.inputs
    rank = x.shape.ndims
    axes = static_value(ax)
    if rank is None or axes is None:
        return [(_dt.string, TensorShape(None))]
    dims = _reduce_dims(axes, rank)
    shape = x.shape.as_list()
    if op.attrs["keep_dims"]:
        out = [1 if i in dims else d for i, d in enumerate(shape)]
    else:
        out = [d for i, d in enumerate(shape) if i not in dims]
    return [(_dt.string, TensorShape(out))]


def _reduce_join_kernel(ctx, op, x, axes):
    x = np.asarray(x, dtype=object)
    try:
        dims = _reduce_dims(axes, x.ndim)
    except ValueError as e:
        raise errors.InvalidArgumentError(None, op, str(e)) from None
    kept = [i for i in range(x.ndim) if i not in dims]
    moved = np.transpose(x, kept + dims[::-1])
    out_shape = [x.shape[i] for i in kept]
    rows = moved.reshape([int(np.prod(out_shape, dtype=np.int64)), -1])
    sep = op.attrs["separator"].encode()
    joined = np.empty(rows.shape[0], dtype=object)
    joined[:] = [sep.join(as_bytes_list(r)) for r in rows]
    if op.attrs["keep_dims"]:
        out_shape = [1 if i in dims else d for i, d in enumerate(x.shape)]
    return (joined.reshape(out_shape),)


register_op(
    "ReduceJoin",
    infer=_reduce_join_infer,
    kernel=_reduce_join_kernel,
    grad=NOT_DIFFERENTIABLE,
    quiet=True,
)


# --------------------------------------------------------------------------------------
# strings.split (compat.v1)
# --------------------------------------------------------------------------------------


def strings_split(
    input: TensorLike | None = None,
    sep: str | None = None,
    maxsplit: int = -1,
    result_type: str = "SparseTensor",
    source: TensorLike | None = None,
    name: str | None = None,
) -> SparseTensor:
    """Splits each string of ``input`` at ``sep`` (op ``StringSplitV2``), as TF1's
    ``tf.strings.split``: Python's ``str.split`` rule per string.

    Args:
      input: a string tensor of any rank.
      sep: the separator (a whole string); None or ``""`` splits at runs of
        whitespace and drops empty tokens.
      maxsplit: at most this many splits per string (-1: no limit).
      result_type: ``"SparseTensor"``.
      source: TF1's old name of ``input``.
      name: a name for the op.

    Returns:
      A ``SparseTensor`` of one more dimension than ``input``: ``indices[i]`` is the
      index of a string followed by the token's position, ``dense_shape`` is
      ``input``'s shape followed by the most tokens of a string.

    Raises:
      NotImplementedError: for ``result_type="RaggedTensor"`` (flowrt has no
        RaggedTensor).
      ValueError: for both ``input`` and ``source``.
    """
    if input is not None and source is not None:
        raise ValueError("Cannot specify both 'input' and 'source'")
    input = source if input is None else input
    if result_type == "RaggedTensor":
        raise NotImplementedError(
            "strings.split: result_type='RaggedTensor' is not supported (flowrt has no "
            "RaggedTensor); use result_type='SparseTensor'"
        )
    if result_type != "SparseTensor":
        raise ValueError("result_type must be 'RaggedTensor' or 'SparseTensor'.")
    with in_graph_of([input]):
        src = string_input(input)
        op = make_op(
            "StringSplitV2",
            [src, to_tensor(sep or "", _dt.string)],
            {"maxsplit": int(maxsplit)},
            name,
            "StringSplit",
        )
        return SparseTensor(*op.outputs)


def _split_v2_kernel(ctx, op, src, sep):
    src = np.asarray(src, dtype=object)
    delim = _scalar_string(sep, "sep") or None
    maxsplit = op.attrs["maxsplit"]
    rows, cols, vals, width = [], [], [], 0
    for r, s in enumerate(as_bytes_list(src)):
        # TF: an empty string gives one empty token with a separator, none without.
        toks = s.split(delim, maxsplit)
        width = max(width, len(toks))
        rows.extend([r] * len(toks))
        cols.extend(range(len(toks)))
        vals.extend(toks)
    where = np.array(np.unravel_index(np.array(rows, np.int64), src.shape), np.int64).reshape(
        src.ndim, len(rows)
    )
    idx = np.concatenate([where, np.array([cols], np.int64)]).T.reshape(-1, src.ndim + 1)
    values = np.empty(len(vals), dtype=object)
    values[:] = vals
    return (idx, values, np.array(list(src.shape) + [width], np.int64))


def _split_v2_infer(op):
    rank = op.inputs[0].shape.ndims
    k = None if rank is None else rank + 1
    return [
        (_dt.int64, TensorShape([None, k])),
        (_dt.string, TensorShape([None])),
        (_dt.int64, TensorShape([k])),
    ]


register_op(
    "StringSplitV2",
    infer=_split_v2_infer,
    kernel=_split_v2_kernel,
    grad=NOT_DIFFERENTIABLE,
)
