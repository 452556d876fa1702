from flowrt.protos import graph_pb2 as _graph_pb2
from flowrt.protos import tensor_pb2 as _tensor_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class VariableSynchronization(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    VARIABLE_SYNCHRONIZATION_AUTO: _ClassVar[VariableSynchronization]
    VARIABLE_SYNCHRONIZATION_NONE: _ClassVar[VariableSynchronization]
    VARIABLE_SYNCHRONIZATION_ON_WRITE: _ClassVar[VariableSynchronization]
    VARIABLE_SYNCHRONIZATION_ON_READ: _ClassVar[VariableSynchronization]

class VariableAggregation(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    VARIABLE_AGGREGATION_NONE: _ClassVar[VariableAggregation]
    VARIABLE_AGGREGATION_SUM: _ClassVar[VariableAggregation]
    VARIABLE_AGGREGATION_MEAN: _ClassVar[VariableAggregation]
    VARIABLE_AGGREGATION_ONLY_FIRST_REPLICA: _ClassVar[VariableAggregation]
VARIABLE_SYNCHRONIZATION_AUTO: VariableSynchronization
VARIABLE_SYNCHRONIZATION_NONE: VariableSynchronization
VARIABLE_SYNCHRONIZATION_ON_WRITE: VariableSynchronization
VARIABLE_SYNCHRONIZATION_ON_READ: VariableSynchronization
VARIABLE_AGGREGATION_NONE: VariableAggregation
VARIABLE_AGGREGATION_SUM: VariableAggregation
VARIABLE_AGGREGATION_MEAN: VariableAggregation
VARIABLE_AGGREGATION_ONLY_FIRST_REPLICA: VariableAggregation

class MetaGraphDef(_message.Message):
    __slots__ = ("meta_info_def", "graph_def", "saver_def", "collection_def", "signature_def", "asset_file_def")
    class MetaInfoDef(_message.Message):
        __slots__ = ("meta_graph_version", "tags", "tensorflow_version", "tensorflow_git_version", "stripped_default_attrs")
        META_GRAPH_VERSION_FIELD_NUMBER: _ClassVar[int]
        TAGS_FIELD_NUMBER: _ClassVar[int]
        TENSORFLOW_VERSION_FIELD_NUMBER: _ClassVar[int]
        TENSORFLOW_GIT_VERSION_FIELD_NUMBER: _ClassVar[int]
        STRIPPED_DEFAULT_ATTRS_FIELD_NUMBER: _ClassVar[int]
        meta_graph_version: str
        tags: _containers.RepeatedScalarFieldContainer[str]
        tensorflow_version: str
        tensorflow_git_version: str
        stripped_default_attrs: bool
        def __init__(self, meta_graph_version: _Optional[str] = ..., tags: _Optional[_Iterable[str]] = ..., tensorflow_version: _Optional[str] = ..., tensorflow_git_version: _Optional[str] = ..., stripped_default_attrs: _Optional[bool] = ...) -> None: ...
    class CollectionDefEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: CollectionDef
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[CollectionDef, _Mapping]] = ...) -> None: ...
    class SignatureDefEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: SignatureDef
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[SignatureDef, _Mapping]] = ...) -> None: ...
    META_INFO_DEF_FIELD_NUMBER: _ClassVar[int]
    GRAPH_DEF_FIELD_NUMBER: _ClassVar[int]
    SAVER_DEF_FIELD_NUMBER: _ClassVar[int]
    COLLECTION_DEF_FIELD_NUMBER: _ClassVar[int]
    SIGNATURE_DEF_FIELD_NUMBER: _ClassVar[int]
    ASSET_FILE_DEF_FIELD_NUMBER: _ClassVar[int]
    meta_info_def: MetaGraphDef.MetaInfoDef
    graph_def: _graph_pb2.GraphDef
    saver_def: SaverDef
    collection_def: _containers.MessageMap[str, CollectionDef]
    signature_def: _containers.MessageMap[str, SignatureDef]
    asset_file_def: _containers.RepeatedCompositeFieldContainer[AssetFileDef]
    def __init__(self, meta_info_def: _Optional[_Union[MetaGraphDef.MetaInfoDef, _Mapping]] = ..., graph_def: _Optional[_Union[_graph_pb2.GraphDef, _Mapping]] = ..., saver_def: _Optional[_Union[SaverDef, _Mapping]] = ..., collection_def: _Optional[_Mapping[str, CollectionDef]] = ..., signature_def: _Optional[_Mapping[str, SignatureDef]] = ..., asset_file_def: _Optional[_Iterable[_Union[AssetFileDef, _Mapping]]] = ...) -> None: ...

class TensorInfo(_message.Message):
    __slots__ = ("name", "coo_sparse", "dtype", "tensor_shape")
    class CooSparse(_message.Message):
        __slots__ = ("values_tensor_name", "indices_tensor_name", "dense_shape_tensor_name")
        VALUES_TENSOR_NAME_FIELD_NUMBER: _ClassVar[int]
        INDICES_TENSOR_NAME_FIELD_NUMBER: _ClassVar[int]
        DENSE_SHAPE_TENSOR_NAME_FIELD_NUMBER: _ClassVar[int]
        values_tensor_name: str
        indices_tensor_name: str
        dense_shape_tensor_name: str
        def __init__(self, values_tensor_name: _Optional[str] = ..., indices_tensor_name: _Optional[str] = ..., dense_shape_tensor_name: _Optional[str] = ...) -> None: ...
    NAME_FIELD_NUMBER: _ClassVar[int]
    COO_SPARSE_FIELD_NUMBER: _ClassVar[int]
    DTYPE_FIELD_NUMBER: _ClassVar[int]
    TENSOR_SHAPE_FIELD_NUMBER: _ClassVar[int]
    name: str
    coo_sparse: TensorInfo.CooSparse
    dtype: _tensor_pb2.DataType
    tensor_shape: _tensor_pb2.TensorShapeProto
    def __init__(self, name: _Optional[str] = ..., coo_sparse: _Optional[_Union[TensorInfo.CooSparse, _Mapping]] = ..., dtype: _Optional[_Union[_tensor_pb2.DataType, str]] = ..., tensor_shape: _Optional[_Union[_tensor_pb2.TensorShapeProto, _Mapping]] = ...) -> None: ...

class SignatureDef(_message.Message):
    __slots__ = ("inputs", "outputs", "method_name", "defaults")
    class InputsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: TensorInfo
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[TensorInfo, _Mapping]] = ...) -> None: ...
    class OutputsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: TensorInfo
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[TensorInfo, _Mapping]] = ...) -> None: ...
    class DefaultsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: _tensor_pb2.TensorProto
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[_tensor_pb2.TensorProto, _Mapping]] = ...) -> None: ...
    INPUTS_FIELD_NUMBER: _ClassVar[int]
    OUTPUTS_FIELD_NUMBER: _ClassVar[int]
    METHOD_NAME_FIELD_NUMBER: _ClassVar[int]
    DEFAULTS_FIELD_NUMBER: _ClassVar[int]
    inputs: _containers.MessageMap[str, TensorInfo]
    outputs: _containers.MessageMap[str, TensorInfo]
    method_name: str
    defaults: _containers.MessageMap[str, _tensor_pb2.TensorProto]
    def __init__(self, inputs: _Optional[_Mapping[str, TensorInfo]] = ..., outputs: _Optional[_Mapping[str, TensorInfo]] = ..., method_name: _Optional[str] = ..., defaults: _Optional[_Mapping[str, _tensor_pb2.TensorProto]] = ...) -> None: ...

class AssetFileDef(_message.Message):
    __slots__ = ("tensor_info", "filename")
    TENSOR_INFO_FIELD_NUMBER: _ClassVar[int]
    FILENAME_FIELD_NUMBER: _ClassVar[int]
    tensor_info: TensorInfo
    filename: str
    def __init__(self, tensor_info: _Optional[_Union[TensorInfo, _Mapping]] = ..., filename: _Optional[str] = ...) -> None: ...

class CollectionDef(_message.Message):
    __slots__ = ("node_list", "bytes_list", "int64_list", "float_list")
    class NodeList(_message.Message):
        __slots__ = ("value",)
        VALUE_FIELD_NUMBER: _ClassVar[int]
        value: _containers.RepeatedScalarFieldContainer[str]
        def __init__(self, value: _Optional[_Iterable[str]] = ...) -> None: ...
    class BytesList(_message.Message):
        __slots__ = ("value",)
        VALUE_FIELD_NUMBER: _ClassVar[int]
        value: _containers.RepeatedScalarFieldContainer[bytes]
        def __init__(self, value: _Optional[_Iterable[bytes]] = ...) -> None: ...
    class Int64List(_message.Message):
        __slots__ = ("value",)
        VALUE_FIELD_NUMBER: _ClassVar[int]
        value: _containers.RepeatedScalarFieldContainer[int]
        def __init__(self, value: _Optional[_Iterable[int]] = ...) -> None: ...
    class FloatList(_message.Message):
        __slots__ = ("value",)
        VALUE_FIELD_NUMBER: _ClassVar[int]
        value: _containers.RepeatedScalarFieldContainer[float]
        def __init__(self, value: _Optional[_Iterable[float]] = ...) -> None: ...
    NODE_LIST_FIELD_NUMBER: _ClassVar[int]
    BYTES_LIST_FIELD_NUMBER: _ClassVar[int]
    INT64_LIST_FIELD_NUMBER: _ClassVar[int]
    FLOAT_LIST_FIELD_NUMBER: _ClassVar[int]
    node_list: CollectionDef.NodeList
    bytes_list: CollectionDef.BytesList
    int64_list: CollectionDef.Int64List
    float_list: CollectionDef.FloatList
    def __init__(self, node_list: _Optional[_Union[CollectionDef.NodeList, _Mapping]] = ..., bytes_list: _Optional[_Union[CollectionDef.BytesList, _Mapping]] = ..., int64_list: _Optional[_Union[CollectionDef.Int64List, _Mapping]] = ..., float_list: _Optional[_Union[CollectionDef.FloatList, _Mapping]] = ...) -> None: ...

class SaverDef(_message.Message):
    __slots__ = ("filename_tensor_name", "save_tensor_name", "restore_op_name", "max_to_keep", "sharded", "keep_checkpoint_every_n_hours", "version")
    class CheckpointFormatVersion(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        LEGACY: _ClassVar[SaverDef.CheckpointFormatVersion]
        V1: _ClassVar[SaverDef.CheckpointFormatVersion]
        V2: _ClassVar[SaverDef.CheckpointFormatVersion]
    LEGACY: SaverDef.CheckpointFormatVersion
    V1: SaverDef.CheckpointFormatVersion
    V2: SaverDef.CheckpointFormatVersion
    FILENAME_TENSOR_NAME_FIELD_NUMBER: _ClassVar[int]
    SAVE_TENSOR_NAME_FIELD_NUMBER: _ClassVar[int]
    RESTORE_OP_NAME_FIELD_NUMBER: _ClassVar[int]
    MAX_TO_KEEP_FIELD_NUMBER: _ClassVar[int]
    SHARDED_FIELD_NUMBER: _ClassVar[int]
    KEEP_CHECKPOINT_EVERY_N_HOURS_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    filename_tensor_name: str
    save_tensor_name: str
    restore_op_name: str
    max_to_keep: int
    sharded: bool
    keep_checkpoint_every_n_hours: float
    version: SaverDef.CheckpointFormatVersion
    def __init__(self, filename_tensor_name: _Optional[str] = ..., save_tensor_name: _Optional[str] = ..., restore_op_name: _Optional[str] = ..., max_to_keep: _Optional[int] = ..., sharded: _Optional[bool] = ..., keep_checkpoint_every_n_hours: _Optional[float] = ..., version: _Optional[_Union[SaverDef.CheckpointFormatVersion, str]] = ...) -> None: ...

class VariableDef(_message.Message):
    __slots__ = ("variable_name", "initial_value_name", "initializer_name", "snapshot_name", "save_slice_info_def", "is_resource", "trainable", "synchronization", "aggregation")
    VARIABLE_NAME_FIELD_NUMBER: _ClassVar[int]
    INITIAL_VALUE_NAME_FIELD_NUMBER: _ClassVar[int]
    INITIALIZER_NAME_FIELD_NUMBER: _ClassVar[int]
    SNAPSHOT_NAME_FIELD_NUMBER: _ClassVar[int]
    SAVE_SLICE_INFO_DEF_FIELD_NUMBER: _ClassVar[int]
    IS_RESOURCE_FIELD_NUMBER: _ClassVar[int]
    TRAINABLE_FIELD_NUMBER: _ClassVar[int]
    SYNCHRONIZATION_FIELD_NUMBER: _ClassVar[int]
    AGGREGATION_FIELD_NUMBER: _ClassVar[int]
    variable_name: str
    initial_value_name: str
    initializer_name: str
    snapshot_name: str
    save_slice_info_def: SaveSliceInfoDef
    is_resource: bool
    trainable: bool
    synchronization: VariableSynchronization
    aggregation: VariableAggregation
    def __init__(self, variable_name: _Optional[str] = ..., initial_value_name: _Optional[str] = ..., initializer_name: _Optional[str] = ..., snapshot_name: _Optional[str] = ..., save_slice_info_def: _Optional[_Union[SaveSliceInfoDef, _Mapping]] = ..., is_resource: _Optional[bool] = ..., trainable: _Optional[bool] = ..., synchronization: _Optional[_Union[VariableSynchronization, str]] = ..., aggregation: _Optional[_Union[VariableAggregation, str]] = ...) -> None: ...

class SaveSliceInfoDef(_message.Message):
    __slots__ = ("full_name", "full_shape", "var_offset", "var_shape")
    FULL_NAME_FIELD_NUMBER: _ClassVar[int]
    FULL_SHAPE_FIELD_NUMBER: _ClassVar[int]
    VAR_OFFSET_FIELD_NUMBER: _ClassVar[int]
    VAR_SHAPE_FIELD_NUMBER: _ClassVar[int]
    full_name: str
    full_shape: _containers.RepeatedScalarFieldContainer[int]
    var_offset: _containers.RepeatedScalarFieldContainer[int]
    var_shape: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, full_name: _Optional[str] = ..., full_shape: _Optional[_Iterable[int]] = ..., var_offset: _Optional[_Iterable[int]] = ..., var_shape: _Optional[_Iterable[int]] = ...) -> None: ...
