"""``fr.saved_model.utils``: ``TensorInfo`` messages, the signature entries naming a
graph's tensors, and the tensors they name."""

from __future__ import annotations

from typing import Any

from .._core.graph import Graph, Tensor, get_default_graph
from ..graph_export import datatype, fill_shape
from ..ops.sparse_ops import SparseTensor
from ..protos.meta_graph_pb2 import TensorInfo
from ..train.meta_graph import _prepend

__all__ = ["build_tensor_info", "get_tensor_from_tensor_info"]


def build_tensor_info(tensor: Tensor | SparseTensor) -> TensorInfo:
    """The ``TensorInfo`` of a tensor or ``SparseTensor``: its name(s), dtype and shape.

    Raises:
      TypeError: ``tensor`` is neither a ``Tensor`` nor a ``SparseTensor``.
    """
    info = TensorInfo(dtype=datatype(tensor.dtype))
    if isinstance(tensor, SparseTensor):
        info.coo_sparse.values_tensor_name = tensor.values.name
        info.coo_sparse.indices_tensor_name = tensor.indices.name
        info.coo_sparse.dense_shape_tensor_name = tensor.dense_shape.name
    elif isinstance(tensor, Tensor):
        info.name = tensor.name
    else:
        raise TypeError(
            "build_tensor_info takes a Tensor or SparseTensor, got %s" % type(tensor).__name__
        )
    fill_shape(info.tensor_shape, tensor.shape)
    return info


def get_tensor_from_tensor_info(
    tensor_info: TensorInfo, graph: Graph | None = None, import_scope: str | None = None
) -> Any:
    """The ``Tensor`` or ``SparseTensor`` a ``TensorInfo`` names, in ``graph`` (default:
    the default graph), under ``import_scope`` when the graph was imported under one.

    Raises:
      KeyError: a named tensor is not in the graph.
      ValueError: the ``TensorInfo`` has no name and is not a sparse tensor's.
    """
    g = graph if graph is not None else get_default_graph()

    def get(name: str) -> Tensor:
        return g.get_tensor_by_name(_prepend(name, import_scope))

    encoding = tensor_info.WhichOneof("encoding")
    if encoding == "name":
        return get(tensor_info.name)
    if encoding == "coo_sparse":
        coo = tensor_info.coo_sparse
        return SparseTensor(
            get(coo.indices_tensor_name),
            get(coo.values_tensor_name),
            get(coo.dense_shape_tensor_name),
        )
    raise ValueError(
        "Invalid TensorInfo.encoding: %s. Expected `coo_sparse` or `name` for a dense tensor."
        % encoding
    )
