"""``IndexedSlices``: a sparse row-gradient (values for some rows of a dense tensor).

``gather`` and ``embedding_lookup`` produce them as gradients so that optimizers can
update only the touched rows instead of densifying a vocabulary-sized matrix.
"""

from __future__ import annotations

import collections
from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes as _dt
from .._core.graph import Graph, Operation, Tensor, convert_to_tensor
from .._core.registry import register_op
from .._core.shape import TensorShape, unknown_shape
from ..dtypes import DType
from .common import in_graph_of, int_list, make

if TYPE_CHECKING:
    from .._core.typing import TensorLike


class IndexedSlicesValue(
    collections.namedtuple("IndexedSlicesValue", ["values", "indices", "dense_shape"])
):
    """The fetched value of an ``IndexedSlices``."""


class IndexedSlices:
    """Rows ``values[i]`` of a dense tensor at row ``indices[i]`` (duplicates add up)."""

    def __init__(self, values: Tensor, indices: Tensor, dense_shape: Tensor | None = None) -> None:
        self.values = values
        self.indices = indices
        self.dense_shape = dense_shape

    @property
    def dtype(self) -> DType:
        return self.values.dtype

    @property
    def graph(self) -> Graph:
        return self.values.graph

    @property
    def op(self) -> Operation:
        return self.values.op

    @property
    def name(self) -> str:
        return self.values.name

    @property
    def shape(self) -> TensorShape:
        if self.dense_shape is not None:
            dims = int_list(self.dense_shape)
            if dims is not None:
                return TensorShape(dims)
        vs = self.values.shape
        if vs.ndims is None:
            return unknown_shape()
        return TensorShape([None] + vs.as_list()[1:])

    def get_shape(self) -> TensorShape:
        return self.shape

    def _as_tensor(self) -> Tensor:
        """Densifies (sums duplicate rows) -- used when a dense tensor is required."""
        return to_dense(self)

    def _fetch_components(self):
        comps = [self.values, self.indices]
        if self.dense_shape is not None:
            comps.append(self.dense_shape)
        return comps

    def _fetch_rebuild(self, vals):
        return IndexedSlicesValue(vals[0], vals[1], vals[2] if len(vals) > 2 else None)

    def __repr__(self):
        return "IndexedSlices(indices=%s, values=%s%s)" % (
            self.indices,
            self.values,
            ", dense_shape=%s" % self.dense_shape if self.dense_shape is not None else "",
        )


def to_dense(s: IndexedSlices) -> Tensor:
    """The dense tensor of ``s`` (duplicate rows summed), in ``s``'s graph."""
    if s.dense_shape is None:
        raise ValueError("IndexedSlices without a dense_shape cannot be densified")
    with in_graph_of([s]):
        return _dense(s)


def _dense(s: IndexedSlices) -> Tensor:
    return make(
        "UnsortedSegmentSum",
        [s.values, s.indices, make("StridedFirst", [s.dense_shape])],
        None,
        None,
        "UnsortedSegmentSum",
    )


def _first_kernel(ctx, op, s):
    return (np.asarray(s).reshape(-1)[0].astype(s.dtype),)


register_op(
    "StridedFirst",
    infer=lambda op: [(op.inputs[0].dtype, TensorShape([]))],
    kernel=_first_kernel,
    grad=None,
)


def _uss_infer(op):
    data, ids, n = op.inputs
    rows = int_list(n)
    if data.shape.ndims is None or ids.shape.ndims is None:
        return [(data.dtype, unknown_shape())]
    tail = data.shape.as_list()[ids.shape.ndims :]
    return [(data.dtype, TensorShape([rows[0] if rows else None] + tail))]


def _uss_kernel(ctx, op, data, ids, n):
    ids, data = np.asarray(ids), np.asarray(data)
    tail = data.shape[ids.ndim :]
    flat = ids.reshape(-1)
    if flat.size and flat.max() >= int(n):
        raise ValueError("segment id %d is out of range [0, %d)" % (flat.max(), int(n)))
    out = np.zeros((int(n),) + tail, dtype=data.dtype)
    keep = flat >= 0
    np.add.at(out, flat[keep], data.reshape((flat.size,) + tail)[keep])
    return (out,)


def _uss_grad(op, g):
    # TF: rows with a negative id were dropped, so their gradient is zero.
    from .partition_ops import gather_drop_negatives

    return [gather_drop_negatives(g, op.inputs[1])[0], None, None]


register_op("UnsortedSegmentSum", infer=_uss_infer, kernel=_uss_kernel, grad=_uss_grad)


def unsorted_segment_sum(
    data: TensorLike, segment_ids: TensorLike, num_segments: TensorLike, name: str | None = None
) -> Tensor:
    """Sums rows of ``data`` into ``num_segments`` rows by ``segment_ids``."""
    with in_graph_of([data, segment_ids, num_segments]):
        return make(
            "UnsortedSegmentSum",
            [
                data,
                segment_ids,
                convert_to_tensor(num_segments, dtype=_dt.int32)
                if not isinstance(num_segments, Tensor)
                else num_segments,
            ],
            None,
            name,
        )
