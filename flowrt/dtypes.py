"""TF1 dtypes: ``fr.float32`` and friends, backed by numpy dtypes.

Strings are numpy object arrays holding ``bytes`` (as TF1 returns them).
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import numpy.typing as npt
from numpy import floating as _floating

if TYPE_CHECKING:
    from ._core.typing import DTypeLike

__all__ = [
    "DType",
    "as_dtype",
    "float16",
    "float32",
    "float64",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "bool",
    "string",
    "resource",
    "variant",
    "half",
    "double",
    "complex64",
    "complex128",
]


class DType:
    """A tensor element type; compares equal to its name's other spellings."""

    __slots__ = ("name", "_np", "_kind")

    def __init__(self, name: str, np_dtype: npt.DTypeLike) -> None:
        self.name = name
        self._np = np.dtype(np_dtype)
        self._kind = "string" if name == "string" else self._np.kind

    @property
    def as_numpy_dtype(self) -> type[Any]:
        return self._np.type

    @property
    def np(self) -> np.dtype:
        return self._np

    @property
    def as_datatype_enum(self) -> int:
        """TF's ``DataType`` enum value of this type (``types.proto``)."""
        return _ENUMS[self.name]

    @property
    def base_dtype(self) -> "DType":
        return self

    @property
    def real_dtype(self) -> "DType":
        """The dtype of the real and imaginary parts of a complex dtype; else itself."""
        return _REAL.get(self.name, self)

    @property
    def is_floating(self) -> builtins.bool:
        return self._kind == "f"

    @property
    def is_integer(self) -> builtins.bool:
        return self._kind in "iu"

    @property
    def is_unsigned(self) -> builtins.bool:
        return self._kind == "u"

    @property
    def is_bool(self) -> builtins.bool:
        return self._kind == "b"

    @property
    def is_numeric(self) -> builtins.bool:
        return self._kind in "fiu"

    @property
    def is_complex(self) -> builtins.bool:
        return self._kind == "c"

    @property
    def min(self) -> builtins.int | _floating[Any]:
        if self._kind not in "fiub":
            raise TypeError("Cannot find minimum value of %s." % self.name)
        return np.finfo(self._np).min if self.is_floating else np.iinfo(self._np).min

    @property
    def max(self) -> builtins.int | _floating[Any]:
        if self._kind not in "fiub":
            raise TypeError("Cannot find maximum value of %s." % self.name)
        return np.finfo(self._np).max if self.is_floating else np.iinfo(self._np).max

    @property
    def size(self) -> int:
        return self._np.itemsize

    def is_compatible_with(self, other: DTypeLike) -> builtins.bool:
        return self == as_dtype(other)

    def __eq__(self, other: object) -> builtins.bool:
        if other is self:
            return True
        if type(other) is DType:
            return False
        try:
            return self is as_dtype(cast(Any, other))  # TypeError: not a dtype, not equal
        except TypeError:
            return False

    def __ne__(self, other: object) -> builtins.bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return hash(self.name)

    def __repr__(self) -> str:
        return "tf.%s" % self.name

    def __reduce__(self) -> tuple[Callable[[str], DType], tuple[str]]:
        return as_dtype, (self.name,)


float16 = half = DType("float16", np.float16)
float32 = DType("float32", np.float32)
float64 = double = DType("float64", np.float64)
int8 = DType("int8", np.int8)
int16 = DType("int16", np.int16)
int32 = DType("int32", np.int32)
int64 = DType("int64", np.int64)
uint8 = DType("uint8", np.uint8)
uint16 = DType("uint16", np.uint16)
uint32 = DType("uint32", np.uint32)
uint64 = DType("uint64", np.uint64)
bool = DType("bool", np.bool_)  # TF1's public name
string = DType("string", object)
resource = DType("resource", object)  # handles of stateful resources (variables)
variant = DType("variant", object)  # opaque values: TensorArray flows, loop records
complex64 = DType("complex64", np.complex64)
complex128 = DType("complex128", np.complex128)

ALL_DTYPES = [
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
    bool,
    string,
    resource,
    variant,
    complex64,
    complex128,
]
_REAL = {"complex64": float32, "complex128": float64}
# TF's DataType enum values (types.proto), as ``DType.as_datatype_enum`` gives them.
_ENUMS = {
    "float32": 1,
    "float64": 2,
    "int32": 3,
    "uint8": 4,
    "int16": 5,
    "int8": 6,
    "string": 7,
    "complex64": 8,
    "int64": 9,
    "bool": 10,
    "uint16": 17,
    "complex128": 18,
    "float16": 19,
    "resource": 20,
    "variant": 21,
    "uint32": 22,
    "uint64": 23,
}
_BY_NAME = {d.name: d for d in ALL_DTYPES}
_BY_NAME.update(
    {
        "half": float16,
        "double": float64,
        "float": float32,
        "str": string,
        "bytes": string,
        "object": string,
    }
)
_BY_NP = {d.np: d for d in ALL_DTYPES if d.np.kind != "O"}
_BY_PY: dict[Any, DType] = {
    float: float32,
    int: int32,
    builtins.bool: bool,
    str: string,
    bytes: string,
    complex: complex128,
}


def as_dtype(value: DTypeLike) -> DType:
    """Converts a DType, numpy dtype, numpy type, Python type or name to a DType."""
    if isinstance(value, DType):
        return value
    if isinstance(value, str):
        try:
            return _BY_NAME[value]
        except KeyError:
            raise TypeError("Cannot convert %r to a flowrt DType" % (value,)) from None
    if value in _BY_PY:
        return _BY_PY[value]
    try:
        npd = np.dtype(value)
    except TypeError:
        raise TypeError("Cannot convert %r to a flowrt DType" % (value,)) from None
    if npd.kind in "OSU":
        return string
    try:
        return _BY_NP[npd]
    except KeyError:
        raise TypeError("Cannot convert %r to a flowrt DType" % (value,)) from None
