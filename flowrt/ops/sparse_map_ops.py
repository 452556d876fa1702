"""The SparseTensorsMap ops: SparseTensors through dense queues, as int64 handles.

``batch``/``shuffle_batch`` of a ``SparseTensor`` store it (or each of its rows, with
``enqueue_many``) in a per-session map and queue the handle; the dequeued handles are
taken out of the map and stacked into one ``SparseTensor`` with a batch dimension.
These are TF's ops of the same names and the same mechanism.
"""

from __future__ import annotations

import threading

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.graph import Tensor
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from .common import TensorShape, make, make_op, to_tensor
from .sparse_ops import SparseTensor, sparse_input

__all__ = [
    "add_sparse_to_tensors_map",
    "add_many_sparse_to_tensors_map",
    "take_many_sparse_from_tensors_map",
]


class _SparseMap:
    """A session's stored SparseTensors by int64 handle; a take removes them."""

    def __init__(self, name: str):
        self.name = name
        self.items: dict = {}
        self.next = 1
        self.lock = threading.Lock()

    def add(self, parts: list) -> np.ndarray:
        with self.lock:
            first = self.next
            self.next += len(parts)
            for k, part in enumerate(parts):
                self.items[first + k] = part
        return np.arange(first, first + len(parts), dtype=np.int64)

    def take(self, op, handles: np.ndarray) -> list:
        with self.lock:
            missing = [int(h) for h in handles if int(h) not in self.items]
            if missing:
                raise errors.InvalidArgumentError(
                    None, op, "Unable to find SparseTensor: %d in map: %s" % (missing[0], self.name)
                )
            return [self.items.pop(int(h)) for h in handles]


def _map_name(op) -> str:
    return op.attrs["shared_name"] or op.name


def _sparse_map(ctx, name: str) -> _SparseMap:
    return ctx.resources.get_or_create(("sparse_tensors_map", name), lambda: _SparseMap(name))


def add_sparse_to_tensors_map(sp_input, shared_name=None, name=None) -> Tensor:
    """Stores ``sp_input`` in the session's map; the int64 scalar handle to take it."""
    sp = sparse_input(sp_input)
    return make(
        "AddSparseToTensorsMap",
        [sp.indices, sp.values, sp.dense_shape],
        {"container": "", "shared_name": shared_name or ""},
        name,
        "AddSparseToTensorsMap",
    )


def add_many_sparse_to_tensors_map(sp_input, shared_name=None, name=None) -> Tensor:
    """Stores each row (first dimension) of ``sp_input`` as its own SparseTensor of one
    rank less; the int64 ``[rows]`` handles."""
    sp = sparse_input(sp_input)
    return make(
        "AddManySparseToTensorsMap",
        [sp.indices, sp.values, sp.dense_shape],
        {"container": "", "shared_name": shared_name or ""},
        name,
        "AddManySparseToTensorsMap",
    )


def take_many_sparse_from_tensors_map(
    sparse_handles, dtype, shared_name, rank=None, name=None
) -> SparseTensor:
    """Takes the SparseTensors of the handles ``[n]`` out of the map ``shared_name`` and
    stacks them: row ``i`` of the result (one rank more, dense shape ``[n] +`` the
    largest of theirs) is the ``i``-th one."""
    op = make_op(
        "TakeManySparseFromTensorsMap",
        [to_tensor(sparse_handles, _dt.int64)],
        {"dtype": _dt.as_dtype(dtype), "container": "", "shared_name": shared_name, "rank": rank},
        name,
        "TakeManySparseFromTensorsMap",
    )
    return SparseTensor(*op.outputs)


def _add_kernel(ctx, op, idx, values, shape):
    part = (np.asarray(idx, np.int64), np.asarray(values), np.asarray(shape, np.int64))
    return (_sparse_map(ctx, _map_name(op)).add([part]).reshape([]),)


def _add_many_kernel(ctx, op, idx, values, shape):
    idx, values, shape = np.asarray(idx, np.int64), np.asarray(values), np.asarray(shape)
    if shape.size < 2:
        raise errors.InvalidArgumentError(
            None, op, "Rank of input SparseTensor should be > 1, but saw rank: %d" % shape.size
        )
    rows = int(shape[0])
    if idx.size and (idx[:, 0] >= rows).any():
        raise errors.InvalidArgumentError(
            None, op, "SparseTensor has an index out of its first dimension (%d rows)" % rows
        )
    order = np.argsort(idx[:, 0], kind="stable")
    idx, values = idx[order], values[order]
    cuts = np.searchsorted(idx[:, 0], np.arange(rows + 1))
    parts = [
        (idx[a:z, 1:], values[a:z], shape[1:].astype(np.int64)) for a, z in zip(cuts[:-1], cuts[1:])
    ]
    return (_sparse_map(ctx, _map_name(op)).add(parts),)


def _take_kernel(ctx, op, handles):
    handles = np.asarray(handles, np.int64)
    if handles.ndim != 1:
        raise errors.InvalidArgumentError(
            None,
            op,
            "sparse_handles should be a vector but received shape %s" % list(handles.shape),
        )
    parts = _sparse_map(ctx, op.attrs["shared_name"]).take(op, handles)
    dtype = op.attrs["dtype"]
    if not parts:
        rank = (op.attrs["rank"] or 1) - 1
        return (
            np.zeros([0, rank + 1], np.int64),
            np.zeros([0], dtype.np),
            np.zeros([rank + 1], np.int64),
        )
    ranks = {p[2].size for p in parts}
    if len(ranks) != 1:
        raise errors.InvalidArgumentError(
            None,
            op,
            "Inconsistent rank across SparseTensors: rank prior to SparseTensor "
            "were %s" % sorted(ranks),
        )
    idx = np.concatenate(
        [
            np.concatenate([np.full((len(p[0]), 1), i, np.int64), p[0]], 1)
            for i, p in enumerate(parts)
        ]
    )
    values = np.concatenate([p[1] for p in parts])
    shape = np.concatenate([[len(parts)], np.max([p[2] for p in parts], axis=0)])
    return (idx, values.astype(dtype.np, copy=False), shape.astype(np.int64))


def _take_infer(op):
    r = op.attrs["rank"]
    return [
        (_dt.int64, TensorShape([None, r])),
        (op.attrs["dtype"], TensorShape([None])),
        (_dt.int64, TensorShape([r])),
    ]


register_op(
    "AddSparseToTensorsMap",
    infer=lambda op: [(_dt.int64, TensorShape([]))],
    kernel=_add_kernel,
    grad=NOT_DIFFERENTIABLE,
    stateful=True,
)
register_op(
    "AddManySparseToTensorsMap",
    infer=lambda op: [(_dt.int64, TensorShape([None]))],
    kernel=_add_many_kernel,
    grad=NOT_DIFFERENTIABLE,
    stateful=True,
)
register_op(
    "TakeManySparseFromTensorsMap",
    infer=_take_infer,
    kernel=_take_kernel,
    grad=NOT_DIFFERENTIABLE,
    stateful=True,
)
