"""Byte codecs of ``tf.io``: web-safe base64, zlib/gzip decompression, and tensors to
and from the bytes of their ``TensorProto`` (``serialize_tensor`` / ``parse_tensor``,
byte-identical to TF's so either side reads the other's), and JSON ``Example``s to
their binary form (``decode_json_example``)."""

from __future__ import annotations

import base64
import binascii
import zlib
from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.graph import Tensor
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from .._core.shape import TensorShape
from .common import in_graph_of, make, to_tensor
from .string_ops import as_bytes_list
from .text_ops import elementwise_string_op, string_input

if TYPE_CHECKING:
    from .._core.typing import DTypeLike, TensorLike

__all__ = [
    "decode_json_example",
    "encode_base64",
    "decode_base64",
    "decode_compressed",
    "serialize_tensor",
    "parse_tensor",
]


# --------------------------------------------------------------------------------------
# base64 (the web-safe alphabet, '-' and '_' for '+' and '/')
# --------------------------------------------------------------------------------------


def encode_base64(input: TensorLike, pad: bool = False, name: str | None = None) -> Tensor:
    """Encodes each string in web-safe base64 (op ``EncodeBase64``), with ``=`` padding
    to a multiple of 4 characters when ``pad``."""
    with in_graph_of([input]):
        return make("EncodeBase64", [string_input(input)], {"pad": bool(pad)}, name, "EncodeBase64")


def _encode_fn(op):
    if op.attrs["pad"]:
        return base64.urlsafe_b64encode
    return lambda s: base64.urlsafe_b64encode(s).rstrip(b"=")


elementwise_string_op("EncodeBase64", _encode_fn)


def decode_base64(input: TensorLike, name: str | None = None) -> Tensor:
    """Decodes each web-safe base64 string, padded or not (op ``DecodeBase64``).

    Raises:
      InvalidArgumentError: (at run time) for a character outside the web-safe
        alphabet or a length of 1 modulo 4.
    """
    with in_graph_of([input]):
        return make("DecodeBase64", [string_input(input)], None, name, "DecodeBase64")


_WEB_SAFE = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


def _decode_one(s: bytes) -> bytes:
    body = s[:-2].rstrip(b"=") + s[-2:].rstrip(b"=") if len(s) >= 2 else s.rstrip(b"=")
    if body.translate(None, _WEB_SAFE):
        raise errors.InvalidArgumentError(None, None, "Invalid character found in base64.")
    if len(body) % 4 == 1:
        raise errors.InvalidArgumentError(None, None, "Base64 string length cannot be 1 modulo 4.")
    try:
        return base64.urlsafe_b64decode(body + b"=" * (-len(body) % 4))
    except binascii.Error as e:
        raise errors.InvalidArgumentError(None, None, "Invalid base64: %s" % e) from None


elementwise_string_op("DecodeBase64", lambda op: _decode_one)


# --------------------------------------------------------------------------------------
# decode_compressed
# --------------------------------------------------------------------------------------

_WBITS = {"ZLIB": zlib.MAX_WBITS, "GZIP": 16 + zlib.MAX_WBITS}


def decode_compressed(
    bytes: TensorLike, compression_type: str = "", name: str | None = None
) -> Tensor:  # TF's argument name
    """Decompresses each string (op ``DecodeCompressed``).

    Args:
      bytes: a string tensor of compressed data.
      compression_type: ``"ZLIB"``, ``"GZIP"``, or ``""`` (no compression: the strings
        unchanged).
      name: a name for the op.

    Raises:
      InvalidArgumentError: (at run time, as TF) for another ``compression_type``.
      DataLossError: (at run time) for data that does not decompress.
    """
    with in_graph_of([bytes]):
        return make(
            "DecodeCompressed",
            [string_input(bytes, "bytes")],
            {"compression_type": str(compression_type)},
            name,
            "DecodeCompressed",
        )


def _decompress_fn(op):
    kind = op.attrs["compression_type"]
    if kind == "":
        return lambda s: s
    if kind not in _WBITS:
        raise errors.InvalidArgumentError(
            None, op, "Only ZLIB, GZIP or NONE are supported compressions, got %r" % kind
        )
    wbits = _WBITS[kind]

    def one(s):
        try:
            return zlib.decompress(s, wbits)
        except zlib.error as e:
            raise errors.DataLossError(None, op, "inflate() failed: %s" % e) from None

    return one


elementwise_string_op("DecodeCompressed", _decompress_fn)


# --------------------------------------------------------------------------------------
# serialize_tensor / parse_tensor
# --------------------------------------------------------------------------------------


def serialize_tensor(tensor: TensorLike, name: str | None = None) -> Tensor:
    """The bytes of ``tensor``'s ``TensorProto`` (op ``SerializeTensor``), a scalar
    string: strings in ``string_val``, other dtypes little-endian in
    ``tensor_content``, as TF writes them."""
    with in_graph_of([tensor]):
        t = to_tensor(tensor, name="tensor")
        return make("SerializeTensor", [t], {"T": t.dtype}, name, "SerializeTensor")


def _serialize_kernel(ctx, op, x):
    from ..graph_export import fill_tensor_proto
    from ..protos.tensor_pb2 import TensorProto

    proto = TensorProto()
    proto.tensor_shape.SetInParent()  # TF writes a scalar's empty shape too
    string = op.attrs["T"] is _dt.string
    arr = np.asarray(x, dtype=object) if string else np.asarray(x)
    fill_tensor_proto(
        proto, np.asarray(as_bytes_list(arr), dtype=object).reshape(arr.shape) if string else arr
    )
    return (np.array(proto.SerializeToString(), dtype=object),)


register_op(
    "SerializeTensor",
    infer=lambda op: [(_dt.string, TensorShape([]))],
    kernel=_serialize_kernel,
    grad=NOT_DIFFERENTIABLE,
    quiet=True,
)


def parse_tensor(serialized: TensorLike, out_type: DTypeLike, name: str | None = None) -> Tensor:
    """The tensor whose ``TensorProto`` bytes are the scalar string ``serialized``
    (op ``ParseTensor``), of dtype ``out_type`` and the shape the proto holds.

    Raises:
      InvalidArgumentError: (at run time) for bytes that are no ``TensorProto`` or a
        tensor of another dtype.
    """
    with in_graph_of([serialized]):
        return make(
            "ParseTensor",
            [string_input(serialized, "serialized")],
            {"out_type": _dt.as_dtype(out_type)},
            name,
            "ParseTensor",
        )


# TF's names for dtypes in its messages (DataTypeString).
_TF_NAMES = {"float32": "float", "float64": "double", "float16": "half"}
_NAME_OF = {d.as_datatype_enum: d.name for d in _dt.ALL_DTYPES}


def _parse_kernel(ctx, op, s):
    from google.protobuf.message import DecodeError

    from ..graph_import import make_ndarray
    from ..protos.tensor_pb2 import TensorProto

    if np.ndim(s) != 0:
        raise errors.InvalidArgumentError(
            None, op, "Expected `serialized` to be a scalar, got shape: %s" % list(np.shape(s))
        )
    want = op.attrs["out_type"]
    proto = TensorProto()
    try:
        proto.ParseFromString(as_bytes_list(s)[0])
    except DecodeError:
        raise errors.InvalidArgumentError(
            None, op, "Could not parse `serialized` as TensorProto"
        ) from None
    if proto.dtype != want.as_datatype_enum:
        had = _NAME_OF.get(proto.dtype, "DataType %d" % proto.dtype)
        raise errors.InvalidArgumentError(
            None,
            op,
            "Type mismatch between parsed tensor (%s) and dtype (%s)"
            % (_TF_NAMES.get(had, had), _TF_NAMES.get(want.name, want.name)),
        )
    try:
        return (make_ndarray(proto, "ParseTensor"),)
    except ValueError as e:
        raise errors.InvalidArgumentError(None, op, str(e)) from None


register_op(
    "ParseTensor",
    infer=lambda op: [(op.attrs["out_type"], TensorShape(None))],
    kernel=_parse_kernel,
    grad=NOT_DIFFERENTIABLE,
    quiet=True,
)


# --------------------------------------------------------------------------------------
# decode_json_example
# --------------------------------------------------------------------------------------


def decode_json_example(json_examples: TensorLike, name: str | None = None) -> Tensor:
    """Each string of ``json_examples``, an ``Example`` in protobuf's JSON form, as the
    serialized binary ``Example`` (op ``DecodeJSONExample``) that ``parse_example``
    reads.

    Raises:
      InvalidArgumentError: (at run time) for a string that is no JSON ``Example``.

    Note (flowrt): repeated numbers are written packed, as protobuf writes them; TF
    writes them unpacked. Both are the same ``Example`` to every parser.
    """
    with in_graph_of([json_examples]):
        return make(
            "DecodeJSONExample",
            [string_input(json_examples, "json_examples")],
            None,
            name,
            "DecodeJSONExample",
        )


def _json_example_fn(op):
    from google.protobuf import json_format

    from ..protos.example_pb2 import Example

    def one(s):
        try:
            ex = json_format.Parse(s, Example())
        except json_format.ParseError as e:
            raise errors.InvalidArgumentError(
                None, op, "Error while parsing JSON: %s" % e
            ) from None
        return ex.SerializeToString(deterministic=True)  # map keys sorted

    return one


elementwise_string_op("DecodeJSONExample", _json_example_fn)
