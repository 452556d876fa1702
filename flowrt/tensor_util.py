"""``fr.make_tensor_proto``: a value as a ``TensorProto``, field by field as TF writes it
(``fr.make_ndarray``, in ``graph_import``, reads it back)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from . import dtypes as _dt
from ._core.graph import _numpy_value
from .graph_import import VAL_FIELDS
from .protos.tensor_pb2 import TensorProto

__all__ = ["make_tensor_proto"]


def make_tensor_proto(
    values: Any,
    dtype: Any = None,
    shape: Sequence[int] | None = None,
    verify_shape: bool = False,
    allow_broadcast: bool = False,
) -> TensorProto:
    """``values`` as a ``TensorProto`` (TF1's ``tf.make_tensor_proto``).

    Args:
      values: a Python or numpy value (or a ``TensorProto``, returned as it is).
      dtype: the tensor's dtype; by default inferred as for ``fr.constant``.
      shape: the tensor's shape; fewer elements than it holds are written as TF does
        (the last one repeats when the proto is read, ``fr.make_ndarray``).
      verify_shape: require ``values`` to have exactly ``shape``.
      allow_broadcast: accepted (TF's switch between two shape checks).

    As TF: a tensor of more than one element with all its elements is written in
    ``tensor_content`` (little-endian bytes), strings in ``string_val``, anything else
    element by element in the dtype's typed field (``float_val``, ``int_val``, ...).

    Raises:
      TypeError: a value that does not fit ``dtype`` (``Expected int32, but got 1.5 of
        type 'float'.``), or a shape other than ``shape`` under ``verify_shape``.
      ValueError: more elements than ``shape`` holds.
    """
    if isinstance(values, TensorProto) or type(values).__name__ == "TensorProto":
        return values
    dt = None if dtype is None else _dt.as_dtype(dtype)
    arr = _numpy_value(values, dt)
    if dt is None:
        dt = _dt.string if arr.dtype == object else _dt.as_dtype(arr.dtype)
    if shape is None:
        dims = list(arr.shape)
    else:
        dims = [int(d) for d in shape]
        if verify_shape and tuple(dims) != arr.shape:
            raise TypeError("Expected Tensor's shape: %s, but got %s." % (tuple(dims), arr.shape))
        n = int(np.prod(dims, dtype=np.int64))
        if arr.size > n:
            raise ValueError(
                "Too many elements provided. Takes at most %d, but got %d." % (n, arr.size)
            )
    proto = TensorProto()
    enum: Any = dt.as_datatype_enum  # protobuf takes the enum's plain int
    proto.dtype = enum
    proto.tensor_shape.SetInParent()
    for d in dims:
        proto.tensor_shape.dim.add(size=d)
    if dt is _dt.string:
        proto.string_val.extend(
            x.encode("utf-8") if isinstance(x, str) else bytes(x) for x in arr.reshape(-1)
        )
        return proto
    size = int(np.prod(dims, dtype=np.int64))
    if size == arr.size and size > 1:
        proto.tensor_content = arr.astype(arr.dtype.newbyteorder("<")).tobytes()
        return proto
    field = VAL_FIELDS.get(dt.name)
    if field is None:
        raise TypeError("make_tensor_proto: dtype %s has no TensorProto form" % dt.name)
    flat = arr.reshape(-1)
    if field == "half_val":
        getattr(proto, field).extend(int(x) for x in flat.view(np.uint16))
    elif field in ("scomplex_val", "dcomplex_val"):
        getattr(proto, field).extend(v for x in flat for v in (x.real, x.imag))
    else:
        getattr(proto, field).extend(flat.tolist())
    return proto
