"""``fr.data.Dataset``: TF1's ``tf.data.Dataset`` in graph mode.

A ``Dataset`` is a tensor of the graph (its *variant tensor*, the output of one dataset
op of ``pipeline``) and the structure of its elements (a nest of ``TensorSpec``). Each
transformation adds one dataset op whose input is the dataset's variant tensor, so a
dataset built from placeholders is made anew by each run of an iterator's initializer
with the values fed to that run. Elements are only produced by an iterator
(``iterator_ops``).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .. import dtypes as _dt
from .._core.graph import Tensor, convert_to_tensor
from .._core.shape import TensorShape
from ..function import TensorSpec
from ..ops.common import make
from ..ops.random_ops import get_seed
from . import structure as st
from .functions import trace

__all__ = ["Dataset", "DatasetV1", "AUTOTUNE"]

AUTOTUNE = -1
"""``tf.data.experimental.AUTOTUNE``: let the runtime choose (a parallelism or buffer)."""


def _int64(x: Any, what: str) -> Tensor:
    if isinstance(x, bool):
        raise TypeError("%s must be an integer, got %r" % (what, x))
    t = convert_to_tensor(x, name=what)
    if not t.dtype.is_integer:
        raise TypeError("%s must be an integer tensor, got dtype %s" % (what, t.dtype.name))
    if t.shape.ndims not in (None, 0):
        raise ValueError("%s must be a scalar, got shape %s" % (what, t.shape))
    if t.dtype is not _dt.int64:
        from ..ops.math_ops import cast

        t = cast(t, _dt.int64)
    return t


def _static_int(t: Tensor) -> int | None:
    from ..ops.common import static_value

    v = static_value(t)
    return None if v is None else int(v)


def _common_shape(a: TensorShape, b: TensorShape) -> TensorShape:
    """The most specific shape compatible with both (TF's ``most_specific_compatible_shape``)."""
    if a.ndims is None or b.ndims is None or a.ndims != b.ndims:
        return TensorShape(None)
    return TensorShape([x if x == y else None for x, y in zip(a.dims or [], b.dims or [])])


class DatasetV1:
    """A sequence of elements, each a nest of tensors (TF1 ``tf.data.Dataset``).

    Build one with a static constructor (``from_tensor_slices``, ``range``, ...) or a file
    dataset (``TextLineDataset``, ...), transform it (``map``, ``batch``, ...), and read
    it through an iterator (``make_one_shot_iterator``, ``make_initializable_iterator``).

    Note (flowrt): elements are produced one at a time by the run that asks for them
    (``num_parallel_calls``, ``prefetch`` and ``deterministic`` are accepted and change
    nothing observable); the dataset's variant tensor has dtype ``fr.resource``.
    """

    def __init__(self, variant: Tensor, specs: Any) -> None:
        self._variant_tensor = variant
        self._specs = specs

    # --- structure --------------------------------------------------------------------

    @property
    def element_spec(self) -> Any:
        """The nest of ``TensorSpec`` of one element."""
        return self._specs

    @property
    def output_types(self) -> Any:
        """The nest of dtypes of one element."""
        return st.types_of(self._specs)

    @property
    def output_shapes(self) -> Any:
        """The nest of static ``TensorShape``s of one element."""
        return st.shapes_of(self._specs)

    @property
    def output_classes(self) -> Any:
        """The nest of Python classes of the components (``fr.Tensor``)."""
        return st.classes_of(self._specs)

    def __repr__(self) -> str:
        return "<%s shapes: %s, types: %s>" % (
            type(self).__name__,
            self.output_shapes,
            self.output_types,
        )

    def __iter__(self) -> Any:
        raise RuntimeError(
            "__iter__() is only supported inside of tf.function or when eager execution "
            "is enabled; in a graph, read a dataset through an iterator "
            "(make_one_shot_iterator() or make_initializable_iterator())."
        )

    def _then(self, op_type: str, inputs: list, attrs: dict, specs: Any, name: str) -> DatasetV1:
        v = make(op_type, [self._variant_tensor] + inputs, attrs, None, name)
        return DatasetV1(v, specs)

    # --- sources ----------------------------------------------------------------------

    @staticmethod
    def from_tensor_slices(tensors: Any, name: str | None = None) -> DatasetV1:
        """A dataset of the slices of ``tensors`` along their first dimension.

        Args:
          tensors: a nest (tuples, dicts) of tensors with one first dimension; a list is
            one tensor.
          name: the op's name.

        Raises:
          ValueError: if a component is a scalar or first dimensions differ.
        """
        value = st.to_tensors(tensors, "from_tensor_slices: tensors")
        flat = st.flatten(value)
        n: int | None = None
        for t in flat:
            if t.shape.ndims == 0:
                raise ValueError(
                    "Unbatching a tensor is only supported for rank >= 1 (from_tensor_slices "
                    "got the scalar %s)" % t.name
                )
            d = t.shape[0] if t.shape.ndims is not None else None
            if d is not None:
                if n is not None and n != d:
                    raise ValueError("Dimensions %d and %d are not compatible" % (n, d))
                n = d
        specs = st.pack(
            value,
            [TensorSpec(t.shape[1:] if t.shape.ndims is not None else None, t.dtype) for t in flat],
        )
        return DatasetV1(make("TensorSliceDataset", flat, {}, name, "TensorSliceDataset"), specs)

    @staticmethod
    def from_tensors(tensors: Any, name: str | None = None) -> DatasetV1:
        """A dataset of one element, ``tensors`` (a nest of tensors)."""
        value = st.to_tensors(tensors, "from_tensors: tensors")
        flat = st.flatten(value)
        return DatasetV1(make("TensorDataset", flat, {}, name, "TensorDataset"), st.specs_of(value))

    @staticmethod
    def range(*args: Any, output_type: Any = _dt.int64, name: str | None = None) -> DatasetV1:
        """The integers of Python's ``range(*args)`` (``stop``, ``start, stop``, or
        ``start, stop, step``), as scalars of ``output_type`` (default int64)."""
        if not 1 <= len(args) <= 3:
            raise ValueError("Invalid arguments to range: %r (1 to 3 expected)" % (args,))
        full = (
            (0, args[0], 1)
            if len(args) == 1
            else (args[0], args[1], args[2] if len(args) == 3 else 1)
        )
        ts = [_int64(x, w) for x, w in zip(full, ("start", "stop", "step"))]
        dt = _dt.as_dtype(output_type)
        v = make("RangeDataset", ts, {"output_type": dt}, name, "RangeDataset")
        return DatasetV1(v, TensorSpec([], dt))

    @staticmethod
    def zip(datasets: Any, name: str | None = None) -> DatasetV1:
        """A dataset of tuples (or dicts) of elements of ``datasets``, as long as the
        shortest of them."""
        flat = st.flatten(datasets)
        for d in flat:
            if not isinstance(d, DatasetV1):
                raise TypeError("zip: datasets must be a nest of Dataset objects, got %r" % (d,))
        specs = st.pack(datasets, [d._specs for d in flat])
        v = make("ZipDataset", [d._variant_tensor for d in flat], {}, name, "ZipDataset")
        return DatasetV1(v, specs)

    @staticmethod
    def list_files(
        file_pattern: Any, shuffle: bool | None = None, seed: int | None = None
    ) -> DatasetV1:
        """The file names matching ``file_pattern`` (a glob, or a 1-D tensor of globs).

        Args:
          file_pattern: a string or strings.
          shuffle: shuffle the names (default True); unshuffled they are sorted.
          seed: the op seed of the shuffle.

        A pattern matching no file gives an empty dataset (as TF 2.21).
        """
        pattern = convert_to_tensor(file_pattern, dtype=_dt.string, name="file_pattern")
        s1, s2 = get_seed(seed)
        attrs = {
            "shuffle": True if shuffle is None else bool(shuffle),
            "seed2_pair": None if s1 is None else [s1, s2],
        }
        v = make("MatchingFilesDataset", [pattern], attrs, None, "MatchingFilesDataset")
        return DatasetV1(v, TensorSpec([], _dt.string))

    # --- transformations --------------------------------------------------------------

    def concatenate(self, dataset: DatasetV1) -> DatasetV1:
        """The elements of this dataset, then those of ``dataset`` (same types)."""
        if not isinstance(dataset, DatasetV1):
            raise TypeError("concatenate: dataset must be a Dataset, got %r" % (dataset,))
        if not st.same_structure(self._specs, dataset._specs) or [
            s.dtype for s in st.flatten(self._specs)
        ] != [s.dtype for s in st.flatten(dataset._specs)]:
            raise TypeError(
                "Two datasets to concatenate have different types %s and %s"
                % (st.describe(self._specs), st.describe(dataset._specs))
            )
        specs = st.pack(
            self._specs,
            [
                TensorSpec(_common_shape(a.shape, b.shape), a.dtype)
                for a, b in zip(st.flatten(self._specs), st.flatten(dataset._specs))
            ],
        )
        v = make(
            "ConcatenateDataset",
            [self._variant_tensor, dataset._variant_tensor],
            {},
            None,
            "ConcatenateDataset",
        )
        return DatasetV1(v, specs)

    def _with_function(
        self,
        op_type: str,
        fn: Callable[..., Any],
        args: list,
        attrs: dict,
        convert: Callable[[Any], Any] | None = None,
    ) -> tuple[DatasetV1, Any]:
        f = trace(fn, self._specs, op_type, convert)
        attrs = {"f": f, "n_args": len(args), **attrs}
        v = make(op_type, [self._variant_tensor] + args + f.captured, attrs, None, op_type)
        return DatasetV1(v, None), f

    def map(
        self,
        map_func: Callable[..., Any],
        num_parallel_calls: int | None = None,
        deterministic: bool | None = None,
        name: str | None = None,
    ) -> DatasetV1:
        """A dataset of ``map_func(element)`` for each element.

        ``map_func`` is traced once into a function (a tuple element is passed as
        positional arguments); it may build any ops, and use tensors and variables of
        the graph (computed when the dataset is made, as TF captures them).

        Args:
          map_func: a function of one element returning a nest of tensors.
          num_parallel_calls: accepted (elements are mapped in order, one at a time).
          deterministic: accepted.
          name: unused (TF2's debugging name).
        """
        ds, f = self._with_function("MapDataset", map_func, [], {})
        ds._specs = st.specs_of(f.output_structure)
        return ds

    def filter(self, predicate: Callable[..., Any], name: str | None = None) -> DatasetV1:
        """The elements for which ``predicate(element)`` (a scalar bool tensor) is True.

        Raises:
          ValueError: if ``predicate`` does not return a scalar ``fr.bool`` tensor.
        """
        ds, f = self._with_function("FilterDataset", predicate, [], {})
        out = f.outputs
        if (
            isinstance(f.output_structure, (tuple, dict))
            or out[0].dtype is not _dt.bool
            or out[0].shape.ndims not in (None, 0)
        ):
            raise ValueError(
                "Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor, "
                "but its return type is %s."
                % st.map_structure(lambda t: TensorSpec(t.shape, t.dtype), f.output_structure)
            )
        ds._specs = self._specs
        return ds

    def _dataset_fn(
        self, op_type: str, fn: Callable[..., Any], args: list, attrs: dict
    ) -> DatasetV1:
        """A transformation whose function returns a dataset (flat_map, interleave)."""
        inner: list = []

        def convert(ret: Any) -> Any:
            if not isinstance(ret, DatasetV1):
                raise TypeError(
                    "%s: the function must return a `Dataset` object, got %r" % (op_type, ret)
                )
            inner.append(ret)
            return ret._variant_tensor

        ds, _ = self._with_function(op_type, fn, args, attrs, convert)
        ds._specs = inner[0]._specs
        return ds

    def flat_map(self, map_func: Callable[..., Any], name: str | None = None) -> DatasetV1:
        """The elements of the datasets ``map_func(element)`` returns, one after another."""
        return self._dataset_fn("FlatMapDataset", map_func, [], {})

    def interleave(
        self,
        map_func: Callable[..., Any],
        cycle_length: Any = None,
        block_length: Any = None,
        num_parallel_calls: int | None = None,
        deterministic: bool | None = None,
        name: str | None = None,
    ) -> DatasetV1:
        """Interleaves the datasets ``map_func`` returns: ``cycle_length`` of them open at
        once, ``block_length`` elements from each in turn (TF's order exactly).

        Note (flowrt): ``cycle_length`` None or AUTOTUNE is the machine's CPU count (as TF).
        """
        cl = _int64(AUTOTUNE if cycle_length is None else cycle_length, "cycle_length")
        bl = _int64(1 if block_length is None else block_length, "block_length")
        return self._dataset_fn("InterleaveDataset", map_func, [cl, bl], {})

    def batch(
        self, batch_size: Any, drop_remainder: bool = False, name: str | None = None, **_: Any
    ) -> DatasetV1:
        """Stacks ``batch_size`` consecutive elements into one; the last batch may be
        smaller unless ``drop_remainder``, in which case the batch dimension is static."""
        size = _int64(batch_size, "batch_size")
        drop = convert_to_tensor(bool(drop_remainder), name="drop_remainder")
        dim = _static_int(size) if drop_remainder else None
        specs = st.map_structure(
            lambda s: TensorSpec(TensorShape([dim]).concatenate(s.shape), s.dtype), self._specs
        )
        return self._then("BatchDatasetV2", [size, drop], {}, specs, "BatchDatasetV2")

    def padded_batch(
        self,
        batch_size: Any,
        padded_shapes: Any = None,
        padding_values: Any = None,
        drop_remainder: bool = False,
        name: str | None = None,
    ) -> DatasetV1:
        """Batches elements of different shapes, padding each component to
        ``padded_shapes`` (a nest of shapes; a None dimension pads to the batch's
        longest) with ``padding_values`` (a nest of scalars; default 0 / empty string).

        A padded shape may be an int64 vector tensor (-1 for a dimension padded to the
        longest), computed or fed when the dataset is made. A padding value is converted
        without regard to its component (a Python int is int32, a float float32) and must
        have the component's dtype, as in TF.

        Raises:
          ValueError: if a padded shape has the wrong rank or is smaller than the
            component's static shape, or a padding value is not a scalar.
          TypeError: if a padded shape tensor is not int64, or a padding value's dtype
            is not its component's.
        """
        size = _int64(batch_size, "batch_size")
        drop = convert_to_tensor(bool(drop_remainder), name="drop_remainder")
        flat = st.flatten(self._specs)
        if padded_shapes is None:
            for s in flat:
                if s.shape.ndims is None:
                    raise ValueError(
                        "You must provide `padded_shapes` argument because component has "
                        "unknown rank."
                    )
            given = [s.shape for s in flat]
        else:
            given = _flatten_up_to(self._specs, padded_shapes)
        shape_tensors, shapes = zip(*[_padded_shape(p) for p in given])
        for s, p in zip(flat, shapes):
            known = s.shape.ndims is not None and p.ndims is not None
            if (
                known
                and p.ndims != s.shape.ndims
                or known
                and any(
                    a is not None and b is not None and b < a
                    for a, b in zip(s.shape.dims or [], p.dims or [])
                )
            ):
                raise ValueError(
                    "The padded shape %s is not compatible with the shape %s of the "
                    "corresponding input component." % (p, s.shape)
                )
        if padding_values is None:
            pads = [
                convert_to_tensor(np.array(b"" if s.dtype is _dt.string else 0, s.dtype.np))
                for s in flat
            ]
        else:
            pads = [
                _padding_value(v, s.dtype)
                for v, s in zip(_flatten_up_to(self._specs, padding_values), flat)
            ]
        dim = _static_int(size) if drop_remainder else None
        specs = st.pack(
            self._specs,
            [TensorSpec(TensorShape([dim]).concatenate(p), s.dtype) for s, p in zip(flat, shapes)],
        )
        return self._then(
            "PaddedBatchDatasetV2",
            [size, drop] + list(shape_tensors) + pads,
            {"n_components": len(flat)},
            specs,
            "PaddedBatchDatasetV2",
        )

    def unbatch(self, name: str | None = None) -> DatasetV1:
        """Splits each element along its first dimension into elements (inverse of
        ``batch``)."""
        flat = st.flatten(self._specs)
        for s in flat:
            if s.shape.ndims == 0:
                raise ValueError("Cannot unbatch an input with scalar components.")
        specs = st.pack(
            self._specs,
            [TensorSpec(s.shape[1:] if s.shape.ndims is not None else None, s.dtype) for s in flat],
        )
        return self._then("UnbatchDataset", [], {}, specs, "UnbatchDataset")

    def repeat(self, count: Any = None, name: str | None = None) -> DatasetV1:
        """The elements ``count`` times over (forever when None or -1)."""
        c = _int64(-1 if count is None else count, "count")
        return self._then("RepeatDataset", [c], {}, self._specs, "RepeatDataset")

    def shuffle(
        self,
        buffer_size: Any,
        seed: int | None = None,
        reshuffle_each_iteration: bool | None = None,
        name: str | None = None,
    ) -> DatasetV1:
        """Shuffles with a buffer of ``buffer_size`` elements (each output is drawn at
        random from the buffer, whose place the next input element takes).

        Args:
          buffer_size: the buffer's size; at least the dataset's size for a uniform shuffle.
          seed: the op seed, combined with the graph seed as for random ops.
          reshuffle_each_iteration: reshuffle on each pass (of ``repeat``); default True.

        Note (flowrt): with a seed the order is reproducible across sessions and iterator
        initializations, but it is not TF's order (a Philox stream of numpy's, not TF's
        generator); an iterator re-initialized in one session restarts the order.
        """
        size = _int64(buffer_size, "buffer_size")
        s1, s2 = get_seed(seed)
        attrs = {
            "seed2_pair": None if s1 is None else [s1, s2],
            "reshuffle_each_iteration": (
                True if reshuffle_each_iteration is None else bool(reshuffle_each_iteration)
            ),
        }
        return self._then("ShuffleDataset", [size], attrs, self._specs, "ShuffleDataset")

    def take(self, count: Any, name: str | None = None) -> DatasetV1:
        """The first ``count`` elements (all when -1)."""
        c = _int64(count, "count")
        return self._then("TakeDataset", [c], {}, self._specs, "TakeDataset")

    def skip(self, count: Any, name: str | None = None) -> DatasetV1:
        """All but the first ``count`` elements (none when -1)."""
        c = _int64(count, "count")
        return self._then("SkipDataset", [c], {}, self._specs, "SkipDataset")

    def prefetch(self, buffer_size: Any, name: str | None = None) -> DatasetV1:
        """The same elements (see the class note: nothing is made ahead)."""
        _int64(buffer_size, "buffer_size")
        return self._then("PrefetchDataset", [], {}, self._specs, "PrefetchDataset")

    def cache(self, filename: Any = "", name: str | None = None) -> DatasetV1:
        """Records the elements of the first complete pass and replays them on later
        passes.

        Args:
          filename: empty (the default): the elements are kept in memory, per iterator,
            for its later passes (of ``repeat``). Else the prefix of the files (a tensor
            bundle, as TF writes) that the first complete pass writes and every later
            pass, of any iterator, session or process, reads; a string or scalar string
            tensor. While a pass writes them, ``<filename>_0.lockfile`` exists.
          name: unused (TF2's debugging name).

        A pass that is not completed (a re-initialized iterator, a closed session) leaves
        no cache. A second iterator starting to write the same files while one writes
        gets ``fr.errors.AlreadyExistsError`` from its ``get_next``, as in TF.

        Note (flowrt): the elements of the writing pass are held in memory until the
        pass completes, then written at once (TF writes them as they pass).
        """
        f = convert_to_tensor(filename, dtype=_dt.string, name="filename")
        if f.shape.ndims not in (None, 0):
            raise ValueError("filename must be a scalar, got shape %s" % f.shape)
        attrs = {"n_components": len(st.flatten(self._specs))}
        return self._then("CacheDataset", [f], attrs, self._specs, "CacheDataset")

    def shard(self, num_shards: Any, index: Any, name: str | None = None) -> DatasetV1:
        """Every ``num_shards``-th element, starting from the ``index``-th: the part of
        this dataset a worker ``index`` of ``num_shards`` reads.

        Args:
          num_shards: the number of shards (an int64 scalar, > 0).
          index: this shard (an int64 scalar in ``[0, num_shards)``).
          name: unused (TF2's debugging name).

        Both are checked when the dataset is made: ``fr.errors.InvalidArgumentError``
        when out of range, as in TF.
        """
        n = _int64(num_shards, "num_shards")
        i = _int64(index, "index")
        return self._then("ShardDataset", [n, i], {}, self._specs, "ShardDataset")

    def enumerate(self, start: Any = 0, name: str | None = None) -> DatasetV1:
        """``(index, element)`` pairs, the index (int64) counting from ``start``."""
        s = _int64(start, "start")
        specs = (TensorSpec([], _dt.int64), self._specs)
        return self._then("EnumerateDataset", [s], {}, specs, "EnumerateDataset")

    def apply(self, transformation_func: Callable[[DatasetV1], DatasetV1]) -> DatasetV1:
        """``transformation_func(self)``, which must return a Dataset."""
        ds = transformation_func(self)
        if not isinstance(ds, DatasetV1):
            raise TypeError("`transformation_func` must return a Dataset. Got %r." % (ds,))
        return ds

    # --- iterators --------------------------------------------------------------------

    def make_one_shot_iterator(self) -> Any:
        """An iterator over this dataset that needs no initialization (see
        ``fr.data.Iterator``)."""
        from .iterator_ops import one_shot_iterator

        return one_shot_iterator(self)

    def make_initializable_iterator(self, shared_name: str | None = None) -> Any:
        """An iterator whose ``initializer`` (re)starts it on this dataset, computing the
        dataset with the values fed to that run (see ``fr.data.Iterator``)."""
        from .iterator_ops import Iterator

        it = Iterator.from_structure(self.output_types, self.output_shapes, shared_name)
        it._initializer = it.make_initializer(self)
        return it


Dataset = DatasetV1


def _padded_shape(p: Any) -> tuple[Tensor, TensorShape]:
    """A padded shape as the int64 vector the op reads (-1: pad to the longest) and its
    static value (TF's ``_padded_shape_to_tensor``)."""
    if isinstance(p, Tensor):
        if p.dtype is not _dt.int64:
            raise TypeError(
                "Padded shape %s must be a `tf.int64` vector tensor, but its element type "
                "was %s." % (p, p.dtype.name)
            )
        if not p.shape.is_compatible_with(TensorShape([None])):
            raise ValueError(
                "Padded shape %s must be a `tf.int64` vector tensor, but its shape was %s."
                % (p, p.shape)
            )
        from ..ops.const_eval import partial_shape

        dims = partial_shape(p)
        return p, TensorShape(dims)
    shape = TensorShape(p)
    if shape.ndims is None:
        raise ValueError("Padded shape %s must have a known rank." % shape)
    value = np.array([-1 if d is None else d for d in shape.as_list()], np.int64)
    return convert_to_tensor(value, name="padded_shape"), shape


def _padding_value(v: Any, dtype: _dt.DType) -> Tensor:
    """A padding value as TF converts it: by its own type, then checked against the
    component's (``_padding_value_to_tensor``)."""
    t = convert_to_tensor(v, name="padding_value")
    if not t.shape.is_compatible_with(TensorShape([])):
        raise ValueError(
            "Invalid `padding_values`. `padding_values` values should be scalars, but got "
            "%s." % t.shape
        )
    if t.dtype is not dtype:
        raise TypeError(
            "Invalid `padding_values`. `padding_values` values type %s does not match type "
            "%s of the corresponding input component." % (t.dtype, dtype)
        )
    return t


def _flatten_up_to(specs: Any, value: Any) -> list:
    """``value`` flattened to the structure of ``specs`` (a leaf of ``value`` that
    stands for a whole sub-structure is used for each of its leaves)."""
    if not st.is_nest(specs):
        return [value]
    if not st.is_nest(value):
        return [value] * len(st.flatten(specs))
    if not st.same_structure(st.map_structure(lambda s: 0, specs), _shallow(specs, value)):
        raise ValueError(
            "the structure of %r does not match the dataset's element structure %s"
            % (value, st.describe(specs))
        )
    keys = sorted(specs) if isinstance(specs, dict) else range(len(specs))
    out: list = []
    for k in keys:
        out.extend(_flatten_up_to(specs[k], value[k]))
    return out


def _shallow(specs: Any, value: Any) -> Any:
    if not st.is_nest(specs) or not st.is_nest(value):
        return st.map_structure(lambda s: 0, specs) if st.is_nest(specs) else 0
    if isinstance(specs, dict) and isinstance(value, dict):
        if sorted(specs) != sorted(value):
            return 0
        return {k: _shallow(specs[k], value[k]) for k in specs}
    if isinstance(specs, tuple) and isinstance(value, tuple) and len(specs) == len(value):
        return tuple(_shallow(a, b) for a, b in zip(specs, value))
    return 0
