"""Partitioned variables (TF1): ``PartitionedVariable`` and the partitioners.

``get_variable(..., partitioner=p)`` asks ``p(shape=, dtype=)`` for a partition count
per axis (at most one above 1) and creates one variable per slice, ``<name>/part_<i>``,
each knowing its place in the whole (``_save_slice_info``). The ``PartitionedVariable``
returned stands for the concatenation wherever a tensor is expected. ``Saver`` stores
the parts as one checkpoint entry under ``<name>`` with the full shape, as TF1 does, so
a checkpoint restores into any other partitioning of the same variable.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, cast

from . import dtypes as _dt
from ._core.shape import TensorShape, as_shape

if TYPE_CHECKING:
    import numpy as np

    from ._core.graph import Graph, Operation, Tensor
    from ._core.typing import DTypeLike, Partitioner, ShapeLike, TensorLike
    from .variables import Variable

__all__ = [
    "PartitionedVariable",
    "fixed_size_partitioner",
    "variable_axis_size_partitioner",
    "min_max_variable_partitioner",
]


class SaveSliceInfo:
    """Where a part lies in its partitioned variable (TF's ``Variable.SaveSliceInfo``)."""

    def __init__(
        self,
        full_name: str,
        full_shape: Sequence[int],
        var_offset: Sequence[int],
        var_shape: Sequence[int],
    ) -> None:
        self.full_name = full_name
        self.full_shape = list(full_shape)
        self.var_offset = list(var_offset)
        self.var_shape = list(var_shape)

    @property
    def spec(self) -> str:
        """TF's slice spec: ``"10 4 0,5:0,4"`` (full shape, then offset,length per dim)."""
        full = " ".join(str(d) for d in self.full_shape)
        sl = ":".join(
            "%d,%d" % (o, n) for o, n in zip(self.var_offset, self.var_shape, strict=True)
        )
        return "%s %s" % (full, sl)


class PartitionInfo:
    """What an initializer learns about the part it initializes (``partition_info=``)."""

    def __init__(self, full_shape: Sequence[int], var_offset: Sequence[int]) -> None:
        self.full_shape = list(full_shape)
        self.var_offset = list(var_offset)

    def single_offset(self, shape: Sequence[int]) -> int:
        axis = self.single_slice_dim(shape)
        return 0 if axis is None else self.var_offset[axis]

    def single_slice_dim(self, shape: Sequence[int]) -> int | None:
        for i, (d, f) in enumerate(zip(shape, self.full_shape, strict=True)):
            if d != f:
                return i
        return None


class PartitionedVariable:
    """A variable stored as slices along one axis (TF1 ``tf.PartitionedVariable``).

    Iterating gives the part variables in order; as a tensor it is their concatenation
    (``<name>/ConcatPartitions/concat``, then an identity named ``<name>``).
    """

    def __init__(
        self,
        name: str,
        shape: ShapeLike,
        dtype: DTypeLike,
        variable_list: Sequence[Variable],
        partitions: Sequence[int],
    ) -> None:
        if not variable_list:
            raise ValueError("variable_list may not be empty")
        self._name = name
        self._shape = as_shape(shape)
        self._dtype = _dt.as_dtype(dtype)
        self._variable_list = sorted(variable_list, key=lambda v: v._save_slice_info.var_offset)
        self._partitions = list(partitions)
        self._as_tensor_cache: dict[str, Any] = {}

    def __iter__(self) -> Iterator[Variable]:
        return iter(self._variable_list)

    def __len__(self) -> int:
        return len(self._variable_list)

    @property
    def name(self) -> str:
        return self._name

    @property
    def dtype(self) -> _dt.DType:
        return self._dtype

    @property
    def shape(self) -> TensorShape:
        return self._shape

    def get_shape(self) -> TensorShape:
        return self._shape

    @property
    def graph(self) -> Graph:
        return self._variable_list[0].graph

    def _get_variable_list(self) -> list:
        return list(self._variable_list)

    def _get_partitions(self) -> list:
        return list(self._partitions)

    def _partition_axes(self) -> list:
        axes = [i for i, p in enumerate(self._partitions) if p > 1]
        return axes or [0]

    def as_tensor(self) -> Tensor:
        """The concatenated parts (a new read each call)."""
        from .ops.array_ops import identity
        from .ops.slicing_ops import concat

        g = self.graph
        with g.as_default():
            if len(self._variable_list) == 1:
                with g.name_scope(None):
                    return identity(self._variable_list[0], name=self._name)
            with g.name_scope(self._name + "/ConcatPartitions/"):
                whole = concat(list(self._variable_list), self._partition_axes()[0])
            with g.name_scope(None):
                return identity(whole, name=self._name)

    def _as_tensor(self) -> Tensor:
        # One concatenation per graph version of control-dependency context is enough:
        # outside control_dependencies, reuse it (as a variable reuses its snapshot).
        g = self.graph
        if any(ctrl for ctrl in g._control_stack):
            return self.as_tensor()
        t = self._as_tensor_cache.get("t")
        if t is None:
            t = self._as_tensor_cache["t"] = self.as_tensor()
        return t

    def assign(
        self,
        value: TensorLike,
        use_locking: bool = False,
        name: str | None = None,
        read_value: bool = True,
    ) -> list[Tensor | Operation]:
        """Assigns the slices of ``value`` to the parts; returns their new values."""
        from .ops.slicing_ops import slice as slice_

        g = self.graph
        outs = []
        with g.as_default():
            for v in self._variable_list:
                info = v._save_slice_info
                outs.append(
                    v.assign(slice_(value, info.var_offset, info.var_shape), read_value=read_value)
                )
        return outs

    def __repr__(self) -> str:
        return "<fr.PartitionedVariable '%s' shape=%s dtype=%s partitions=%s>" % (
            self._name,
            self._shape,
            self._dtype.name,
            self._partitions,
        )


def slices(full_shape: list[int], partitions: list[int]) -> list[tuple[list[int], list[int]]]:
    """``(offset, shape)`` of each part: TF's split, the first ``n % k`` parts one longer."""
    axes = [i for i, p in enumerate(partitions) if p > 1]
    axis = axes[0] if axes else 0
    k = partitions[axis] if axes else 1
    n = full_shape[axis]
    offset = [0] * len(full_shape)
    out = []
    for i in range(k):
        shape = list(full_shape)
        shape[axis] = n // k + (1 if i < n % k else 0)
        out.append((list(offset), shape))
        offset[axis] += shape[axis]
    return out


def check_partitions(partitions: Any, shape: TensorShape, name: str) -> list[int]:
    """TF's checks of a partitioner's result; returns it as a list of ints."""
    if not isinstance(partitions, (list, tuple)) or not all(isinstance(p, int) for p in partitions):
        raise ValueError(
            "Partitioner for variable %s returned %r; it must return a list of "
            "ints, one per dimension" % (name, partitions)
        )
    partitions = list(partitions)
    if len(partitions) != shape.ndims:
        raise ValueError(
            "Partitioner returned a partition list that does not match the "
            "Variable's rank: %s vs. %s" % (partitions, shape)
        )
    if any(p < 1 for p in partitions):
        raise ValueError("Partitioner returned zero partitions for some axes: %s" % partitions)
    if sum(p > 1 for p in partitions) > 1:
        raise ValueError(
            "Can only slice a variable along one dimension: shape: %s, "
            "partitioning: %s" % (shape, partitions)
        )
    for p, d in zip(partitions, shape.as_list(), strict=True):
        if p > d:
            raise ValueError(
                "Partitioner for variable %s asked for %d parts of a dimension "
                "of size %d (shape %s)" % (name, p, d, shape)
            )
    return partitions


# --------------------------------------------------------------------------------------
# Partitioners: ``fn(shape=TensorShape, dtype=DType) -> [partitions per axis]``
# --------------------------------------------------------------------------------------


def _element_bytes(dtype: DTypeLike, bytes_per_string_element: int) -> int:
    dtype = _dt.as_dtype(dtype)
    return bytes_per_string_element if dtype is _dt.string else dtype.size


def fixed_size_partitioner(num_shards: int, axis: int = 0) -> Partitioner:
    """A partitioner giving ``num_shards`` parts along ``axis`` (fewer for a shorter axis)."""

    def _partitioner(shape: ShapeLike, dtype: DTypeLike) -> list[int]:
        shape = as_shape(shape)
        if shape.ndims is None or axis >= shape.ndims:
            raise ValueError(
                "Can not partition variable along axis %d when shape is only %s" % (axis, shape)
            )
        parts = [1] * shape.ndims
        parts[axis] = min(num_shards, shape.as_list()[axis])
        return parts

    return _partitioner


def variable_axis_size_partitioner(
    max_shard_bytes: int,
    axis: int = 0,
    bytes_per_string_element: int = 16,
    max_shards: int | None = None,
) -> Partitioner:
    """A partitioner keeping each part under ``max_shard_bytes`` (at least one slice of
    ``axis`` per part; at most ``max_shards`` parts)."""
    if max_shard_bytes < 1 or bytes_per_string_element < 1:
        raise ValueError(
            "Both max_shard_bytes and bytes_per_string_element must be "
            "positive. Currently, max_shard_bytes is %s and "
            "bytes_per_string_element is %s" % (max_shard_bytes, bytes_per_string_element)
        )
    if max_shards and max_shards < 1:
        raise ValueError("max_shards must be positive.")

    def _partitioner(shape: ShapeLike, dtype: DTypeLike) -> list[int]:
        if not isinstance(shape, TensorShape):
            raise ValueError("shape is not a TensorShape: %s" % shape)
        if not shape.is_fully_defined():
            raise ValueError("shape is not fully defined: %s" % shape)
        dims = shape.as_list()
        per_slice = (
            shape.num_elements() / dims[axis] * _element_bytes(dtype, bytes_per_string_element)
        )
        slices_per_shard = max(1, math.floor(max_shard_bytes / per_slice))
        shards = int(math.ceil(dims[axis] / slices_per_shard))
        if max_shards:
            shards = min(max_shards, shards)
        parts = [1] * len(dims)
        parts[axis] = shards
        return parts

    return _partitioner


def min_max_variable_partitioner(
    max_partitions: int = 1,
    axis: int = 0,
    min_slice_size: int = 256 << 10,
    bytes_per_string_element: int = 16,
) -> Partitioner:
    """A partitioner giving parts of at least ``min_slice_size`` bytes, at most
    ``max_partitions`` of them, along ``axis``."""

    def _partitioner(shape: ShapeLike, dtype: DTypeLike) -> list[int]:
        shape = as_shape(shape)
        if shape.ndims is None or axis >= shape.ndims:
            raise ValueError(
                "Can not partition variable along axis %d when shape is only %s" % (axis, shape)
            )
        n = cast(int, shape.num_elements())  # None (partly unknown): TypeError, as in TF
        total = n * _element_bytes(dtype, bytes_per_string_element)
        parts = [1] * shape.ndims
        parts[axis] = max(
            1, min(shape.as_list()[axis], max_partitions, int(math.ceil(total / min_slice_size)))
        )
        return parts

    return _partitioner


class SavedSlices:
    """The parts of one partitioned variable as ``Saver`` stores them: one checkpoint
    entry with the full shape (``shape``, ``dtype`` and ``name`` as for a variable)."""

    def __init__(self, key: str, parts: list):
        infos = [p._save_slice_info for p in parts]
        full = infos[0].full_shape
        if any(i.full_shape != full for i in infos):
            raise ValueError(
                "The parts given for %s disagree on its full shape: %s"
                % (key, sorted({tuple(i.full_shape) for i in infos}))
            )
        self.parts = sorted(parts, key=lambda p: p._save_slice_info.var_offset)
        self.name = key
        self.shape = TensorShape(full)
        self.dtype = parts[0].dtype
        diff = [a for a in range(len(full)) if any(i.var_shape[a] != full[a] for i in infos)]
        self.axis = diff[0] if diff else 0
        covered = sum(p._save_slice_info.var_shape[self.axis] for p in self.parts)
        if covered != full[self.axis] or len(diff) > 1:
            raise ValueError(
                "Saver needs every part of partitioned variable %s (full shape "
                "%s); got parts %s" % (key, full, [p.name for p in self.parts])
            )

    def join(self, values: list[np.ndarray]) -> np.ndarray:
        import numpy as np

        return np.concatenate(values, axis=self.axis)

    def split(self, value: np.ndarray) -> list[np.ndarray]:
        import numpy as np

        cuts = [p._save_slice_info.var_offset[self.axis] for p in self.parts[1:]]
        return np.split(value, cuts, axis=self.axis)


def group_for_saving(items: Iterable[tuple[str | None, Any]]) -> dict[str, Any]:
    """``{checkpoint key: Variable or SavedSlices}`` from ``(key or None, value)`` pairs;
    parts of partitioned variables are grouped under their full name, as TF1 saves them.
    """
    from .variables import Variable

    single: dict = {}
    sliced: dict = {}
    for key, v in items:
        if isinstance(v, PartitionedVariable):
            sliced.setdefault(key or v.name, []).extend(v)
        elif isinstance(v, (list, tuple)) and key is not None:
            sliced.setdefault(key, []).extend(v)
        elif isinstance(v, Variable) and v._save_slice_info is not None:
            sliced.setdefault(key or v._save_slice_info.full_name, []).append(v)
        else:
            if key is None:
                op = getattr(v, "op", None)
                key = op.name if op is not None else v.name.split(":")[0]
            if key in single and single[key] is not v:
                raise ValueError("At least two variables have the same name: %s" % key)
            single[key] = v
    out = dict(single)
    for key, parts in sliced.items():
        if key in out:
            raise ValueError("At least two variables have the same name: %s" % key)
        unique = list({id(p): p for p in parts}.values())
        out[key] = SavedSlices(key, unique)
    return out
