"""Dataset ops: one op per dataset transformation, whose value is a dataset description.

A dataset op's kernel computes nothing per element: it returns a ``DatasetValue``
holding its input values (tensors, and the values of its input datasets) and its traced
function, if any. An iterator (``iterator_ops``) draws elements from a value's
``iterate(env)``, a generator of flat element tuples (numpy values), one at a time,
while ``env`` holds the iterator's run context and per-iterator state (shuffle
streams, caches). Each op type is one ``register_op`` row of the table at the end.

An element whose computation fails (a map function's run error) is a ``Failure`` in
the stream, in the element's place: each transformation passes it on (a batch drops
the elements it had gathered, as TF's does), and the iterator raises its error from the
``get_next`` that draws it, then goes on with the next element, as TF's iterators do.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any, Union

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from .._core.shape import TensorShape

__all__ = ["DatasetValue", "Element", "Failure", "IterEnv", "Stream", "register_dataset"]

Element = tuple


class Failure:
    """The run error of one element, standing in the stream where the element would."""

    __slots__ = ("error",)

    def __init__(self, error: errors.OpError) -> None:
        self.error = error


Stream = Iterator[Union[Element, Failure]]
"""What ``DatasetValue.iterate`` yields: elements, and failures in their places."""


class IterEnv:
    """One iterator's run context (the run drawing the current element) and state."""

    __slots__ = ("ctx", "state")

    def __init__(self, ctx: Any) -> None:
        self.ctx = ctx
        self.state: dict = {}


class DatasetValue:
    """A dataset at run time: ``iterate(env)`` yields its elements (flat tuples)."""

    def __init__(self, op: Any, inputs: tuple) -> None:
        self.op = op
        self.inputs = inputs
        self.check()

    def check(self) -> None:
        """Raises InvalidArgumentError for bad arguments when the dataset is made (TF
        reports them from the dataset op, in the iterator initializer's run)."""

    def iterate(self, env: IterEnv) -> Stream:
        raise NotImplementedError


def _scalar(x: Any, what: str, op: Any) -> int:
    a = np.asarray(x)
    if a.ndim != 0:
        raise errors.InvalidArgumentError(
            None, op, "%s must be a scalar, got shape %s" % (what, list(a.shape))
        )
    return int(a)


def _item(c: np.ndarray, i: int) -> np.ndarray:
    v = c[i]
    return v if isinstance(v, np.ndarray) else np.asarray(v, dtype=c.dtype)


class _TensorSlices(DatasetValue):
    def check(self) -> None:
        comps = [np.asarray(c) for c in self.inputs]
        n = comps[0].shape[0] if comps[0].ndim else 0
        for c in comps:
            if c.ndim == 0 or c.shape[0] != n:
                raise errors.InvalidArgumentError(
                    None,
                    self.op,
                    "All components must have the same size in the 0th dimension, got "
                    "shapes %s" % [list(x.shape) for x in comps],
                )
        self.comps, self.n = comps, n

    def iterate(self, env: IterEnv) -> Stream:
        comps = self.comps
        for i in range(self.n):
            yield tuple(_item(c, i) for c in comps)


class _Tensors(DatasetValue):
    def iterate(self, env: IterEnv) -> Stream:
        yield tuple(self.inputs)


class _Range(DatasetValue):
    def check(self) -> None:
        self.args = [_scalar(x, w, self.op) for x, w in zip(self.inputs, ("start", "stop", "step"))]
        if self.args[2] == 0:
            raise errors.InvalidArgumentError(None, self.op, "step must be a non-zero integer.")

    def iterate(self, env: IterEnv) -> Stream:
        start, stop, step = self.args
        dt = self.op.attrs["output_type"].np
        for v in range(start, stop, step):
            yield (np.asarray(v, dtype=dt),)


class _Zip(DatasetValue):
    def iterate(self, env: IterEnv) -> Stream:
        its = [d.iterate(env) for d in self.inputs]
        while True:
            parts = [next(it, None) for it in its]  # all drawn, one failing or not (as TF)
            out: Any = ()
            for e in parts:
                if e is None:
                    return
                if type(e) is Failure:
                    out = e
                    break
                out += e
            yield out


class _Concatenate(DatasetValue):
    def iterate(self, env: IterEnv) -> Stream:
        for d in self.inputs:
            yield from d.iterate(env)


class _WithFunction(DatasetValue):
    """A dataset applying a traced function: inputs are the input dataset, the op's own
    arguments (``n_args``), then the function's captured values."""

    def __init__(self, op: Any, inputs: tuple) -> None:
        n = 1 + op.attrs.get("n_args", 0)
        self.args = inputs[1:n]
        self.captured = inputs[n:]
        self.f = op.attrs["f"]
        super().__init__(op, inputs)

    def call(self, env: IterEnv, element: Any) -> Any:
        """The function's outputs (a tuple) on ``element``, or the ``Failure`` of its run
        error (or the failure ``element`` is)."""
        if type(element) is Failure:
            return element
        try:
            return tuple(self.f(env.ctx, element, self.captured))
        except errors.OpError as err:
            return Failure(err)


class _Map(_WithFunction):
    def iterate(self, env: IterEnv) -> Stream:
        for e in self.inputs[0].iterate(env):
            yield self.call(env, e)


class _Filter(_WithFunction):
    def iterate(self, env: IterEnv) -> Stream:
        for e in self.inputs[0].iterate(env):
            out = self.call(env, e)
            if type(out) is Failure:
                yield out
            elif np.asarray(out[0]).shape != ():
                yield Failure(
                    errors.InvalidArgumentError(
                        None, self.op, "Filter predicate `predicate` must return a scalar bool."
                    )
                )
            elif out[0]:
                yield e


class _FlatMap(_WithFunction):
    def iterate(self, env: IterEnv) -> Stream:
        for e in self.inputs[0].iterate(env):
            out = self.call(env, e)
            if type(out) is Failure:
                yield out
            else:
                yield from out[0].iterate(env)


class _Interleave(_WithFunction):
    def check(self) -> None:
        cycle_length = _scalar(self.args[0], "cycle_length", self.op)
        block_length = _scalar(self.args[1], "block_length", self.op)
        if cycle_length == -1:
            cycle_length = os.cpu_count() or 1
        if cycle_length <= 0 or block_length <= 0:
            raise errors.InvalidArgumentError(
                None, self.op, "cycle_length and block_length must be greater than zero."
            )
        self.lengths = cycle_length, block_length

    def iterate(self, env: IterEnv) -> Stream:
        cycle_length, block_length = self.lengths
        # TF's InterleaveDataset: visit slots in turn, block_length elements each; an
        # empty slot takes the next input element's dataset before moving on.
        source = self.inputs[0].iterate(env)
        slots: list = [None] * cycle_length
        open_, index, block, input_done = 0, 0, 0, False
        while not input_done or open_ > 0:
            it = slots[index]
            if it is not None:
                e = next(it, None)
                if e is not None:
                    block += 1
                    if block == block_length:
                        block, index = 0, (index + 1) % cycle_length
                    yield e
                    continue
                slots[index] = None
                open_ -= 1
                block, index = 0, (index + 1) % cycle_length
            elif not input_done:
                x = next(source, None)
                if x is None:
                    input_done = True
                else:
                    out = self.call(env, x)
                    if type(out) is Failure:
                        yield out
                        continue
                    slots[index] = out[0].iterate(env)
                    open_ += 1
            else:
                block, index = 0, (index + 1) % cycle_length


def _batch_error(op: Any, k: int, first: tuple, i: int, shape: tuple) -> errors.OpError:
    return errors.InvalidArgumentError(
        None,
        op,
        "Cannot batch tensors with different shapes in component %d. First element had "
        "shape %s and element %d had shape %s." % (k, list(first), i, list(shape)),
    )


def _stack(op: Any, elems: list) -> Element:
    out = []
    for k in range(len(elems[0])):
        parts = [e[k] for e in elems]
        try:
            out.append(np.stack(parts))
        except ValueError:  # shapes differ: name the first element that differs
            first = np.shape(parts[0])
            i = next(i for i, p in enumerate(parts) if np.shape(p) != first)
            raise _batch_error(op, k, first, i, np.shape(parts[i])) from None
    return tuple(out)


class _Batch(DatasetValue):
    def check(self) -> None:
        self.size = _scalar(self.inputs[1], "batch_size", self.op)
        if self.size <= 0:
            raise errors.InvalidArgumentError(
                None, self.op, "Batch size must be greater than zero."
            )

    def iterate(self, env: IterEnv) -> Stream:
        size = self.size
        drop = bool(np.asarray(self.inputs[2]))
        # TF fuses a map followed by a batch (map_and_batch_fusion): a failed element
        # fails its whole batch, drawn to its end; a batch of any other input fails as
        # soon as one element does, losing the elements it had gathered.
        fused = self.op.type == "BatchDatasetV2" and self.op.inputs[0].op.type == "MapDataset"
        buf: list = []
        failed = None
        for e in self.inputs[0].iterate(env):
            if type(e) is Failure:
                if not fused:
                    buf = []
                    yield e
                    continue
                failed = failed or e
            buf.append(e)
            if len(buf) == size:
                yield failed or self._made(buf)
                buf, failed = [], None
        if buf and not drop:
            yield failed or self._made(buf)

    def _made(self, elems: list) -> Any:
        try:
            return self.make(elems)
        except errors.OpError as err:
            return Failure(err)

    def make(self, elems: list) -> Element:
        return _stack(self.op, elems)


class _PaddedBatch(_Batch):
    def check(self) -> None:
        super().check()
        n = self.op.attrs["n_components"]
        self.shapes = [np.asarray(x).reshape(-1) for x in self.inputs[3 : 3 + n]]
        self.pads = self.inputs[3 + n :]

    def make(self, elems: list) -> Element:
        out = []
        for k, shape in enumerate(self.shapes):
            parts = [np.asarray(e[k]) for e in elems]
            rank = parts[0].ndim
            for i, p in enumerate(parts):
                if p.ndim != rank:
                    raise _batch_error(self.op, k, parts[0].shape, i, p.shape)
            if len(shape) != rank:
                raise errors.InvalidArgumentError(
                    None,
                    self.op,
                    "Number of padded shape dimensions (%d) must match the rank of "
                    "component %d (%d)." % (len(shape), k, rank),
                )
            dims = []
            for d in range(rank):
                biggest = max(p.shape[d] for p in parts)
                want = int(shape[d])
                if want >= 0 and want < biggest:
                    raise errors.DataLossError(
                        None,
                        self.op,
                        "Attempted to pad to a smaller size than the input element "
                        "(component %d, dimension %d: %d < %d)." % (k, d, want, biggest),
                    )
                dims.append(biggest if want < 0 else want)
            res = np.full([len(parts)] + dims, np.asarray(self.pads[k]), dtype=parts[0].dtype)
            for i, p in enumerate(parts):
                res[(i,) + tuple(slice(0, s) for s in p.shape)] = p
            out.append(res)
        return tuple(out)


class _Unbatch(DatasetValue):
    def iterate(self, env: IterEnv) -> Stream:
        for e in self.inputs[0].iterate(env):
            if type(e) is Failure:
                yield e
                continue
            arrs = [np.asarray(c) for c in e]
            if any(a.ndim == 0 for a in arrs):
                raise errors.InvalidArgumentError(
                    None, self.op, "Input element must have a non-scalar value in each component."
                )
            n = arrs[0].shape[0]
            if any(a.shape[0] != n for a in arrs):
                raise errors.InvalidArgumentError(
                    None,
                    self.op,
                    "Input element must have the same batch size in each component. "
                    "Component 0 had size %d but another component had size %d."
                    % (n, next(a.shape[0] for a in arrs if a.shape[0] != n)),
                )
            for i in range(n):
                yield tuple(_item(a, i) for a in arrs)


class _Repeat(DatasetValue):
    def iterate(self, env: IterEnv) -> Stream:
        count = _scalar(self.inputs[1], "count", self.op)
        done = 0
        while count < 0 or done < count:
            produced = False
            for e in self.inputs[0].iterate(env):
                produced = True
                yield e
            done += 1
            if not produced:  # an empty dataset repeated forever is empty (as TF)
                return


class _Take(DatasetValue):
    def iterate(self, env: IterEnv) -> Stream:
        count = _scalar(self.inputs[1], "count", self.op)
        if count == 0:
            return
        taken = 0
        for e in self.inputs[0].iterate(env):
            yield e
            if type(e) is not Failure:  # a failed element is not counted (as TF)
                taken += 1
                if taken == count:
                    return


class _Skip(DatasetValue):
    def iterate(self, env: IterEnv) -> Stream:
        count = _scalar(self.inputs[1], "count", self.op)
        skipped = 0
        for e in self.inputs[0].iterate(env):
            if type(e) is Failure:
                yield e
            elif count >= 0 and skipped >= count:
                yield e
            else:
                skipped += 1


class _Enumerate(DatasetValue):
    def iterate(self, env: IterEnv) -> Stream:
        i = _scalar(self.inputs[1], "start", self.op)
        for e in self.inputs[0].iterate(env):
            # A failed element uses up its index (TF's enumerate zips a range with it).
            yield e if type(e) is Failure else (np.asarray(i, dtype=np.int64),) + e
            i += 1


class _Passthrough(DatasetValue):
    """``prefetch``: elements are made on demand by the run that asks, so prefetching
    changes nothing observable."""

    def iterate(self, env: IterEnv) -> Stream:
        yield from self.inputs[0].iterate(env)


class _Shard(DatasetValue):
    def check(self) -> None:
        n = _scalar(self.inputs[1], "num_shards", self.op)
        i = _scalar(self.inputs[2], "index", self.op)
        if n <= 0:
            raise errors.InvalidArgumentError(
                None,
                self.op,
                "Number of shards must be greater than zero (currently num_shards = %d)." % n,
            )
        if not 0 <= i < n:
            raise errors.InvalidArgumentError(
                None,
                self.op,
                "Index must be between 0 and %d (currently index = %d)." % (n - 1, i),
            )
        self.n, self.i = n, i

    def iterate(self, env: IterEnv) -> Stream:
        for k, e in enumerate(self.inputs[0].iterate(env)):
            if k % self.n == self.i:
                yield e


class _Cache(DatasetValue):
    """The first complete pass recorded and replayed on later passes: in memory, per
    iterator, when ``filename`` is empty; else in files (``cache_files``), for every
    later pass of any iterator, session or process."""

    def check(self) -> None:
        name = np.asarray(self.inputs[1], dtype=object)
        if name.shape != ():
            raise errors.InvalidArgumentError(
                None, self.op, "filename must be a scalar, got shape %s" % list(name.shape)
            )
        self.filename = os.fsdecode(bytes(name[()]))

    def iterate(self, env: IterEnv) -> Stream:
        if self.filename:
            from .cache_files import cached

            yield from cached(self.op, self.filename, self.inputs[0].iterate(env))
            return
        key = ("cache", self.op.name)
        done = env.state.get(key)
        if done is not None:
            yield from done
            return
        seen = []
        for e in self.inputs[0].iterate(env):
            if type(e) is not Failure:  # a failed element is not replayed (as TF)
                seen.append(e)
            yield e
        env.state[key] = seen


class _Uniforms:
    """Uniform draws from ``rng`` taken in blocks (one numpy call per 1024 draws)."""

    __slots__ = ("rng", "block", "pos")

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self.block: list = []
        self.pos = 0

    def index(self, n: int) -> int:
        """A uniform index below ``n``."""
        if self.pos == len(self.block):
            self.block = self.rng.random(1024).tolist()
            self.pos = 0
        u = self.block[self.pos]
        self.pos += 1
        return min(int(u * n), n - 1)


class _Shuffle(DatasetValue):
    def check(self) -> None:
        self.size = _scalar(self.inputs[1], "buffer_size", self.op)
        if self.size <= 0:
            raise errors.InvalidArgumentError(
                None, self.op, "buffer_size must be greater than zero."
            )

    def iterate(self, env: IterEnv) -> Stream:
        size = self.size
        draws = _Uniforms(self._rng(env))
        buf: list = []
        for e in self.inputs[0].iterate(env):
            if type(e) is Failure:
                yield e
                continue
            if len(buf) < size:
                buf.append(e)
                continue
            i = draws.index(len(buf))
            out, buf[i] = buf[i], e
            yield out
        while buf:
            i = draws.index(len(buf))
            buf[i], buf[-1] = buf[-1], buf[i]
            yield buf.pop()

    def _rng(self, env: IterEnv) -> np.random.Generator:
        """Each pass continues one Philox stream per iterator when reshuffling, else
        every pass restarts it from the same key."""
        key = ("shuffle", self.op.name)
        pair = env.state.get(key)
        if pair is None:
            pair = self.op.attrs["seed2_pair"]
            if pair is None:  # no graph or op seed: one random key per iterator
                pair = [int.from_bytes(os.urandom(8), "little"), 0]
            env.state[key] = pair
        if not self.op.attrs["reshuffle_each_iteration"]:
            return np.random.Generator(np.random.Philox(key=pair))
        rng = env.state.get(key + ("rng",))
        if rng is None:
            rng = env.state[key + ("rng",)] = np.random.Generator(np.random.Philox(key=pair))
        return rng


class _ListFiles(DatasetValue):
    def iterate(self, env: IterEnv) -> Stream:
        import glob

        found: set = set()
        for p in np.asarray(self.inputs[0], dtype=object).reshape(-1):
            found.update(glob.glob(os.fsdecode(bytes(p))))
        names = [os.fsencode(f) for f in sorted(found)]
        if self.op.attrs["shuffle"]:
            pair = self.op.attrs["seed2_pair"]
            rng = np.random.default_rng(pair)
            rng.shuffle(names)
        for n in names:
            yield (np.asarray(n, dtype=object),)


def _dataset_infer(op: Any) -> list:
    return [(_dt.resource, TensorShape([]))]


def register_dataset(op_type: str, cls: type) -> None:
    """Registers a dataset op type whose kernel wraps its inputs in ``cls``."""
    register_op(
        op_type,
        infer=_dataset_infer,
        kernel=lambda ctx, op, *inputs: (cls(op, inputs),),
        grad=NOT_DIFFERENTIABLE,
        quiet=True,
    )


_DATASETS = [
    # op type (TF's)            value class
    ("TensorSliceDataset", _TensorSlices),
    ("TensorDataset", _Tensors),
    ("RangeDataset", _Range),
    ("ZipDataset", _Zip),
    ("ConcatenateDataset", _Concatenate),
    ("MapDataset", _Map),
    ("FilterDataset", _Filter),
    ("FlatMapDataset", _FlatMap),
    ("InterleaveDataset", _Interleave),
    ("BatchDatasetV2", _Batch),
    ("PaddedBatchDatasetV2", _PaddedBatch),
    ("UnbatchDataset", _Unbatch),
    ("RepeatDataset", _Repeat),
    ("TakeDataset", _Take),
    ("SkipDataset", _Skip),
    ("EnumerateDataset", _Enumerate),
    ("PrefetchDataset", _Passthrough),
    ("CacheDataset", _Cache),
    ("ShardDataset", _Shard),
    ("ShuffleDataset", _Shuffle),
    ("MatchingFilesDataset", _ListFiles),
]
for _op_type, _cls in _DATASETS:
    register_dataset(_op_type, _cls)
