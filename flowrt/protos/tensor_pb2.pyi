from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class DataType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DT_INVALID: _ClassVar[DataType]
    DT_FLOAT: _ClassVar[DataType]
    DT_DOUBLE: _ClassVar[DataType]
    DT_INT32: _ClassVar[DataType]
    DT_UINT8: _ClassVar[DataType]
    DT_INT16: _ClassVar[DataType]
    DT_INT8: _ClassVar[DataType]
    DT_STRING: _ClassVar[DataType]
    DT_COMPLEX64: _ClassVar[DataType]
    DT_INT64: _ClassVar[DataType]
    DT_BOOL: _ClassVar[DataType]
    DT_QINT8: _ClassVar[DataType]
    DT_QUINT8: _ClassVar[DataType]
    DT_QINT32: _ClassVar[DataType]
    DT_BFLOAT16: _ClassVar[DataType]
    DT_QINT16: _ClassVar[DataType]
    DT_QUINT16: _ClassVar[DataType]
    DT_UINT16: _ClassVar[DataType]
    DT_COMPLEX128: _ClassVar[DataType]
    DT_HALF: _ClassVar[DataType]
    DT_RESOURCE: _ClassVar[DataType]
    DT_VARIANT: _ClassVar[DataType]
    DT_UINT32: _ClassVar[DataType]
    DT_UINT64: _ClassVar[DataType]
DT_INVALID: DataType
DT_FLOAT: DataType
DT_DOUBLE: DataType
DT_INT32: DataType
DT_UINT8: DataType
DT_INT16: DataType
DT_INT8: DataType
DT_STRING: DataType
DT_COMPLEX64: DataType
DT_INT64: DataType
DT_BOOL: DataType
DT_QINT8: DataType
DT_QUINT8: DataType
DT_QINT32: DataType
DT_BFLOAT16: DataType
DT_QINT16: DataType
DT_QUINT16: DataType
DT_UINT16: DataType
DT_COMPLEX128: DataType
DT_HALF: DataType
DT_RESOURCE: DataType
DT_VARIANT: DataType
DT_UINT32: DataType
DT_UINT64: DataType

class TensorShapeProto(_message.Message):
    __slots__ = ("dim", "unknown_rank")
    class Dim(_message.Message):
        __slots__ = ("size", "name")
        SIZE_FIELD_NUMBER: _ClassVar[int]
        NAME_FIELD_NUMBER: _ClassVar[int]
        size: int
        name: str
        def __init__(self, size: _Optional[int] = ..., name: _Optional[str] = ...) -> None: ...
    DIM_FIELD_NUMBER: _ClassVar[int]
    UNKNOWN_RANK_FIELD_NUMBER: _ClassVar[int]
    dim: _containers.RepeatedCompositeFieldContainer[TensorShapeProto.Dim]
    unknown_rank: bool
    def __init__(self, dim: _Optional[_Iterable[_Union[TensorShapeProto.Dim, _Mapping]]] = ..., unknown_rank: _Optional[bool] = ...) -> None: ...

class TensorProto(_message.Message):
    __slots__ = ("dtype", "tensor_shape", "version_number", "tensor_content", "half_val", "float_val", "double_val", "int_val", "string_val", "scomplex_val", "int64_val", "bool_val", "dcomplex_val", "uint32_val", "uint64_val", "float8_val")
    DTYPE_FIELD_NUMBER: _ClassVar[int]
    TENSOR_SHAPE_FIELD_NUMBER: _ClassVar[int]
    VERSION_NUMBER_FIELD_NUMBER: _ClassVar[int]
    TENSOR_CONTENT_FIELD_NUMBER: _ClassVar[int]
    HALF_VAL_FIELD_NUMBER: _ClassVar[int]
    FLOAT_VAL_FIELD_NUMBER: _ClassVar[int]
    DOUBLE_VAL_FIELD_NUMBER: _ClassVar[int]
    INT_VAL_FIELD_NUMBER: _ClassVar[int]
    STRING_VAL_FIELD_NUMBER: _ClassVar[int]
    SCOMPLEX_VAL_FIELD_NUMBER: _ClassVar[int]
    INT64_VAL_FIELD_NUMBER: _ClassVar[int]
    BOOL_VAL_FIELD_NUMBER: _ClassVar[int]
    DCOMPLEX_VAL_FIELD_NUMBER: _ClassVar[int]
    UINT32_VAL_FIELD_NUMBER: _ClassVar[int]
    UINT64_VAL_FIELD_NUMBER: _ClassVar[int]
    FLOAT8_VAL_FIELD_NUMBER: _ClassVar[int]
    dtype: DataType
    tensor_shape: TensorShapeProto
    version_number: int
    tensor_content: bytes
    half_val: _containers.RepeatedScalarFieldContainer[int]
    float_val: _containers.RepeatedScalarFieldContainer[float]
    double_val: _containers.RepeatedScalarFieldContainer[float]
    int_val: _containers.RepeatedScalarFieldContainer[int]
    string_val: _containers.RepeatedScalarFieldContainer[bytes]
    scomplex_val: _containers.RepeatedScalarFieldContainer[float]
    int64_val: _containers.RepeatedScalarFieldContainer[int]
    bool_val: _containers.RepeatedScalarFieldContainer[bool]
    dcomplex_val: _containers.RepeatedScalarFieldContainer[float]
    uint32_val: _containers.RepeatedScalarFieldContainer[int]
    uint64_val: _containers.RepeatedScalarFieldContainer[int]
    float8_val: bytes
    def __init__(self, dtype: _Optional[_Union[DataType, str]] = ..., tensor_shape: _Optional[_Union[TensorShapeProto, _Mapping]] = ..., version_number: _Optional[int] = ..., tensor_content: _Optional[bytes] = ..., half_val: _Optional[_Iterable[int]] = ..., float_val: _Optional[_Iterable[float]] = ..., double_val: _Optional[_Iterable[float]] = ..., int_val: _Optional[_Iterable[int]] = ..., string_val: _Optional[_Iterable[bytes]] = ..., scomplex_val: _Optional[_Iterable[float]] = ..., int64_val: _Optional[_Iterable[int]] = ..., bool_val: _Optional[_Iterable[bool]] = ..., dcomplex_val: _Optional[_Iterable[float]] = ..., uint32_val: _Optional[_Iterable[int]] = ..., uint64_val: _Optional[_Iterable[int]] = ..., float8_val: _Optional[bytes] = ...) -> None: ...
