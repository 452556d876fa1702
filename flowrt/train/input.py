"""Queue-based input pipelines of TF1: producers of filenames / slices, and batching.

Each function builds a queue, the ops that fill it, and registers a ``QueueRunner`` in
``GraphKeys.QUEUE_RUNNERS``; ``fr.train.start_queue_runners`` (threads) or
``fr.train.queue_runners`` (trio tasks) then keep it filled. A producer limited to
``num_epochs`` counts epochs in a local variable (run
``fr.local_variables_initializer()``); after the last epoch its enqueue op fails with
``OutOfRangeError``, its runner closes the queue, and consumers downstream see
``OutOfRangeError`` once the queues are drained.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Sized
from typing import TYPE_CHECKING, Any, cast

from .. import dtypes as _dt
from .. import errors
from .._core.graph import GraphKeys, Tensor, convert_to_tensor
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from .._core.shape import TensorShape, as_shape
from ..ops.common import make_op
from ..ops.const_eval import static_value
from ..scopes import control_dependencies, name_scope
from .queue_runner import QueueRunner, add_queue_runner

if TYPE_CHECKING:
    from .._core.graph import Operation
    from .._core.typing import ShapeLike, TensorLike
    from ..ops.data_flow_ops import FIFOQueue
    from ..ops.sparse_ops import SparseTensor
    from ..variables import Variable

__all__ = [
    "limit_epochs",
    "input_producer",
    "string_input_producer",
    "range_input_producer",
    "slice_input_producer",
    "batch",
    "batch_join",
    "shuffle_batch",
    "shuffle_batch_join",
    "match_filenames_once",
    "maybe_batch",
    "maybe_batch_join",
    "maybe_shuffle_batch",
    "maybe_shuffle_batch_join",
]


# --------------------------------------------------------------------------------------
# Epoch counting
# --------------------------------------------------------------------------------------


def limit_epochs(tensor: Tensor, num_epochs: int | None = None, name: str | None = None) -> Tensor:
    """Returns ``tensor`` ``num_epochs`` times, then raises OutOfRangeError.

    Counts in a local variable ``<scope>/epochs``; run
    ``fr.local_variables_initializer()`` before using it.

    Args:
      tensor: any tensor.
      num_epochs: a positive int, or None for no limit (``tensor`` is returned as is).
      name: a name for the operations.

    Raises:
      ValueError: if ``num_epochs`` is not positive.
    """
    if num_epochs is None:
        return tensor
    if num_epochs <= 0:
        raise ValueError("num_epochs must be > 0 not %d." % num_epochs)
    from ..ops.array_ops import constant
    from ..ops.state_ops import create_exact
    from ..variables import Variable

    with name_scope(name, "limit_epochs", [tensor]) as scope:
        zero64 = constant(0, dtype=_dt.int64)
        epochs = Variable(
            zero64, name="epochs", trainable=False, collections=[GraphKeys.LOCAL_VARIABLES]
        )
        counter = epochs.count_up_to(num_epochs)
        with control_dependencies([counter]):
            return create_exact("Identity", [convert_to_tensor(tensor)], {}, scope[:-1]).outputs[0]


# --------------------------------------------------------------------------------------
# Producers
# --------------------------------------------------------------------------------------


def input_producer(
    input_tensor: TensorLike,
    element_shape: ShapeLike = None,
    num_epochs: int | None = None,
    shuffle: bool = True,
    seed: int | None = None,
    capacity: int = 32,
    shared_name: str | None = None,
    summary_name: str | None = None,
    name: str | None = None,
    cancel_op: Operation | None = None,
) -> FIFOQueue:
    """Outputs the rows (slices along the first dimension) of ``input_tensor`` to a queue.

    Args:
      input_tensor: a tensor with at least one dimension.
      element_shape: the shape of a row, if ``input_tensor``'s is not fully known.
      num_epochs: produce every row this many times, then close the queue (None:
        forever). Needs ``fr.local_variables_initializer()``.
      shuffle: shuffle the rows within each epoch.
      seed: the op seed for shuffling.
      capacity: the queue's capacity.
      shared_name: a shared name for the queue.
      summary_name: if given, a scalar summary of this name (under the op's name scope)
        shows how full the queue is, as a fraction of ``capacity``.
      name: a name for the queue.
      cancel_op: the cancel op for the ``QueueRunner``.

    Returns:
      A ``FIFOQueue`` of rows, with its ``QueueRunner`` in ``QUEUE_RUNNERS``.
    """
    from ..ops import data_flow_ops

    with name_scope(name, "input_producer", [input_tensor]):
        rows = convert_to_tensor(input_tensor, name="input_tensor")
        element_shape = _row_shape(rows.shape).merge_with(as_shape(element_shape))
        if not element_shape.is_fully_defined():
            raise ValueError(
                "Either `input_tensor` must have a fully defined shape or "
                "`element_shape` must be specified"
            )
        if shuffle:
            rows = _random_shuffle(rows, seed=seed)
        rows = limit_epochs(rows, num_epochs)
        q = data_flow_ops.FIFOQueue(
            capacity=capacity,
            dtypes=[rows.dtype],
            shapes=[element_shape],
            shared_name=shared_name,
            name=name,
        )
        enq = q.enqueue_many([rows])
        add_queue_runner(QueueRunner(q, [enq], cancel_op=cancel_op))
        if summary_name is not None:
            _fraction_full(summary_name, q.size(), 0, capacity)
        return q


def string_input_producer(
    string_tensor: TensorLike,
    num_epochs: int | None = None,
    shuffle: bool = True,
    seed: int | None = None,
    capacity: int = 32,
    shared_name: str | None = None,
    name: str | None = None,
    cancel_op: Operation | None = None,
) -> FIFOQueue:
    """Outputs strings (e.g. filenames) to a queue for an input pipeline.

    Args:
      string_tensor: a 1-D string tensor (or list) of the strings to produce.
      num_epochs: produce every string this many times, then close the queue (None:
        forever). Needs ``fr.local_variables_initializer()``.
      shuffle: shuffle the strings within each epoch.
      seed: as for ``input_producer``.
      capacity: as for ``input_producer``.
      shared_name: as for ``input_producer``.
      name: as for ``input_producer``.
      cancel_op: as for ``input_producer``.

    Returns:
      A ``FIFOQueue`` of scalar strings, with its ``QueueRunner`` in ``QUEUE_RUNNERS``.

    Raises:
      ValueError: if ``string_tensor`` is an empty list (an empty tensor fails at run
        time with InvalidArgumentError).
    """
    not_null_err = "string_input_producer requires a non-null input tensor"
    if (
        not isinstance(string_tensor, Tensor)
        and not hasattr(string_tensor, "_as_tensor")
        and not len(cast(Sized, string_tensor))
    ):
        raise ValueError(not_null_err)
    with name_scope(name, "input_producer", [string_tensor]) as scope:
        string_tensor = convert_to_tensor(string_tensor, dtype=_dt.string)
        string_tensor = _assert_not_empty(string_tensor, not_null_err)
        # As TF1: the same scope, so the summary is ``input_producer/fraction_of_32_full``.
        return input_producer(
            input_tensor=string_tensor,
            element_shape=[],
            num_epochs=num_epochs,
            shuffle=shuffle,
            seed=seed,
            capacity=capacity,
            shared_name=shared_name,
            summary_name="fraction_of_%d_full" % capacity,
            name=scope,
            cancel_op=cancel_op,
        )


def range_input_producer(
    limit: TensorLike,
    num_epochs: int | None = None,
    shuffle: bool = True,
    seed: int | None = None,
    capacity: int = 32,
    shared_name: str | None = None,
    name: str | None = None,
) -> FIFOQueue:
    """Outputs the integers 0 .. limit-1 to a queue (see ``input_producer``)."""
    from ..ops.array_ops import range as _range

    with name_scope(name, "input_producer", [limit]) as scope:
        range_tensor = _range(limit)
        return input_producer(
            range_tensor,
            [],
            num_epochs,
            shuffle,
            seed,
            capacity,
            shared_name,
            "fraction_of_%d_full" % capacity,
            scope,
        )


def slice_input_producer(
    tensor_list: Sequence[TensorLike],
    num_epochs: int | None = None,
    shuffle: bool = True,
    seed: int | None = None,
    capacity: int = 32,
    shared_name: str | None = None,
    name: str | None = None,
) -> list[Tensor]:
    """Produces a slice (row) of each tensor of ``tensor_list``, the same row of all.

    Args:
      tensor_list: tensors with the same size of the first dimension.
      num_epochs: as for ``input_producer``.
      shuffle: as for ``input_producer``.
      seed: as for ``input_producer``.
      capacity: as for ``input_producer``.
      shared_name: as for ``input_producer``.
      name: as for ``input_producer``.

    Returns:
      A list of tensors, the i-th a row of ``tensor_list[i]``.

    Raises:
      ValueError: if ``tensor_list`` is empty.
    """
    from ..ops.array_ops import shape
    from ..ops.slicing_ops import gather

    with name_scope(name, "input_producer", list(tensor_list)):
        tensor_list = [convert_to_tensor(t) for t in tensor_list]
        if not tensor_list:
            raise ValueError("Expected at least one tensor in slice_input_producer().")
        range_size = shape(tensor_list[0])[0]
        queue = range_input_producer(
            range_size,
            num_epochs=num_epochs,
            shuffle=shuffle,
            seed=seed,
            capacity=capacity,
            shared_name=shared_name,
        )
        index = queue.dequeue()
        return [gather(t, index) for t in tensor_list]


def match_filenames_once(pattern: TensorLike, name: str | None = None) -> Variable:
    """A local variable holding the file names matching ``pattern``, computed once
    (by ``fr.local_variables_initializer()``)."""
    from ..ops.io_ops import matching_files
    from ..variables import Variable

    with name_scope(name, "matching_filenames", [pattern]) as scope:
        return Variable(
            name=scope[:-1].rsplit("/", 1)[-1],
            initial_value=matching_files(pattern),
            trainable=False,
            validate_shape=False,
            collections=[GraphKeys.LOCAL_VARIABLES],
        )


def _random_shuffle(t, seed=None):
    from ..ops import random_ops

    return random_ops.random_shuffle(t, seed=seed)


def _assert_not_empty(t, message):
    """``t`` after a run-time check that it has elements (TF's Assert(size > 0))."""
    return make_op("_InputAssertNotEmpty", [t], {"message": message}, None, "Assert").outputs[0]


def _assert_not_empty_kernel(ctx, op, x):
    if x.size == 0:
        raise errors.InvalidArgumentError(None, op, "assertion failed: [%s]" % op.attrs["message"])
    return (x,)


register_op(
    "_InputAssertNotEmpty",
    infer=lambda op: [(op.inputs[0].dtype, op.inputs[0].shape)],
    kernel=_assert_not_empty_kernel,
    grad=NOT_DIFFERENTIABLE,
)


# --------------------------------------------------------------------------------------
# Batching
# --------------------------------------------------------------------------------------


def _as_tensor_list(tensors):
    if isinstance(tensors, dict):
        return [tensors[k] for k in sorted(tensors, key=str)]
    if isinstance(tensors, (Tensor,)) or hasattr(tensors, "_as_tensor"):
        raise TypeError(
            "`tensors` must be a list, tuple or dict of tensors, not a single "
            "Tensor (TF1 cannot iterate a symbolic Tensor); wrap it: [t]"
        )
    return list(tensors)


def _as_tensor_list_list(tensors_list):
    if not tensors_list:
        raise ValueError("Expected at least one set of tensors")
    if isinstance(tensors_list[0], dict):
        expected = set(tensors_list[0])
        for tensors in tensors_list[1:]:
            if set(tensors) != expected:
                raise ValueError("All dictionaries in tensors_list must have the same keys")
    return [_as_tensor_list(t) for t in tensors_list]


def _as_original_type(original, dequeued):
    if isinstance(dequeued, (list, tuple)):
        dequeued = list(dequeued)
    else:
        dequeued = [dequeued]
    if isinstance(original, dict):
        return {k: dequeued[i] for i, k in enumerate(sorted(original, key=str))}
    # TF1: a single-tensor list gives back the tensor itself.
    return dequeued[0] if len(dequeued) == 1 else dequeued


def _validate(tensor_list, fn="batch"):
    tensor_list = [convert_to_tensor(t) for t in tensor_list]
    if not tensor_list:
        raise ValueError("Expected at least one tensor in %s()." % fn)
    return tensor_list


def _dtypes(tensor_list_list):
    types = [t.dtype for t in tensor_list_list[0]]
    for tl in tensor_list_list[1:]:
        other = [t.dtype for t in tl]
        if other != types:
            raise TypeError(
                "Expected types to be consistent: %s vs. %s."
                % (", ".join(x.name for x in types), ", ".join(x.name for x in other))
            )
    return types


def _row_shape(s: TensorShape) -> TensorShape:
    """The shape of one example of a tensor whose first dimension indexes examples."""
    if s.ndims is None:
        return TensorShape(None)
    if s.ndims == 0:
        raise ValueError("Shape %s must have rank at least 1 (enqueue_many=True)" % s)
    return s[1:]


def _merge_shapes(shape_list, enqueue_many):
    """The queue's shape for one component: the first input's, once checked compatible
    with the others' (TF1 keeps the first, unrefined: ``[?]`` joined with ``[99]`` is a
    queue of ``[?]``, which both fit)."""
    shape_list = [as_shape(s) for s in shape_list]
    if enqueue_many:
        shape_list = [_row_shape(s) for s in shape_list]
    for s in shape_list[1:]:
        shape_list[0].merge_with(s)
    return shape_list[0].as_list()


def _shapes(tensor_list_list, shapes, enqueue_many):
    if shapes is not None:
        return shapes
    n = len(tensor_list_list[0])
    for tl in tensor_list_list:
        if len(tl) != n:
            raise ValueError(
                "Expected the same number of tensors in every set: %d vs. %d" % (n, len(tl))
            )
        for t in tl:
            if t.shape.ndims is None:
                raise ValueError("Cannot infer Tensor's rank: %s" % t)
    return [_merge_shapes([tl[i].shape for tl in tensor_list_list], enqueue_many) for i in range(n)]


def _fraction_full(name, size, min_after_dequeue, capacity):
    """TF1's queue-fill scalar summary: ``max(0, size - min_after_dequeue)`` as a fraction
    of ``capacity - min_after_dequeue``, tagged ``name`` under the current name scope."""
    from ..ops.math_ops import cast, maximum
    from ..summary.summary_ops import scalar

    if min_after_dequeue:
        size = maximum(0, size - min_after_dequeue)
    scalar(name, cast(size, _dt.float32) * (1.0 / (capacity - min_after_dequeue)))


def _queue_fill_summary(queue, capacity):
    """``fraction_of_<capacity>_full`` of a batching queue, or for a shuffling queue (whose
    ``min_after_dequeue`` elements are always kept) ``fraction_over_<min>_of_<rest>_full``,
    named as TF1 names them."""
    m = queue.queue_ref.op.attrs.get("min_after_dequeue")
    if m is None:
        _fraction_full("fraction_of_%d_full" % capacity, queue.size(), 0, capacity)
    else:
        _fraction_full("fraction_over_%d_of_%d_full" % (m, capacity - m), queue.size(), m, capacity)


def _dequeue(queue, batch_size, allow_smaller_final_batch, name):
    # TF1 names the batch after the scope: ``batch:0``, ``shuffle_batch:0``.
    if allow_smaller_final_batch:
        return queue.dequeue_up_to(batch_size, name=name)
    return queue.dequeue_many(batch_size, name=name)


def _validate_keep_input(keep_input, enqueue_many):
    keep_input = convert_to_tensor(keep_input)
    if keep_input.dtype is not _dt.bool:
        raise TypeError("`keep_input` must be a bool tensor, got dtype %s" % keep_input.dtype.name)
    if keep_input.shape.ndims is None:
        raise ValueError("`keep_input` dimensions must be known at graph construction.")
    if not enqueue_many and keep_input.shape.ndims == 1:
        raise ValueError("`keep_input` cannot be a vector when `enqueue_many=False`.")
    if keep_input.shape.ndims > 1:
        raise ValueError("`keep_input` must be 0 or 1 dimensions.")
    return keep_input


def _enqueue(queue, tensor_list, enqueue_many, keep_input):
    """TF1's ``_enqueue``: all of ``tensor_list``, or the examples ``keep_input`` keeps."""
    enqueue = queue.enqueue_many if enqueue_many else queue.enqueue
    if keep_input.shape.ndims == 1:
        from ..ops.indexing_ops import boolean_mask

        return enqueue([boolean_mask(t, keep_input) for t in tensor_list])
    from ..ops.array_ops import no_op
    from ..ops.control_flow_ops import cond

    kept = static_value(keep_input)
    if kept is not None:  # TF's smart_cond: a constant picks its branch now
        return enqueue(tensor_list) if kept else no_op()
    return cond(keep_input, lambda: enqueue(tensor_list), no_op)


def _store_sparse_tensors(tensor_list, enqueue_many, shared=None):
    """Replaces each SparseTensor of ``tensor_list`` by its map handle(s), expanded to
    ``[1]`` per example as TF does; returns the list and, per position, the map's name
    and the SparseTensor's rank (None for a dense tensor)."""
    from ..ops import sparse_map_ops, sparse_ops
    from ..ops.array_ops import expand_dims

    stored, info = [], []
    for i, t in enumerate(tensor_list):
        if not isinstance(t, (sparse_ops.SparseTensor, sparse_ops.SparseTensorValue)):
            stored.append(t)
            info.append(None)
            continue
        t = sparse_ops.SparseTensor.from_value(t)
        add = (
            sparse_map_ops.add_many_sparse_to_tensors_map
            if enqueue_many
            else sparse_map_ops.add_sparse_to_tensors_map
        )
        handle = add(t, shared_name=shared[i][0] if shared and shared[i] else None)
        rank = t.dense_shape.shape.as_list()[0] if t.dense_shape.shape.ndims == 1 else None
        if rank is not None and enqueue_many:
            rank -= 1
        stored.append(expand_dims(handle, -1))
        info.append((handle.op.attrs["shared_name"] or handle.op.name, t.dtype, rank))
    return stored, info


def _restore_sparse_tensors(dequeued, info):
    """The dequeued tensors with each batch of handles taken back as a SparseTensor."""
    if not any(info):
        return dequeued
    from ..ops import sparse_map_ops
    from ..ops.array_ops import squeeze

    seq = isinstance(dequeued, (list, tuple))
    parts = list(dequeued) if seq else [dequeued]
    out = []
    for t, inf in zip(parts, info):
        if inf is None:
            out.append(t)
            continue
        name, dtype, rank = inf
        out.append(
            sparse_map_ops.take_many_sparse_from_tensors_map(
                squeeze(t, [1]), dtype, name, None if rank is None else rank + 1
            )
        )
    return out if seq else out[0]


def _batch_impl(
    tensors_list,
    batch_size,
    enqueue_ops_per_list,
    capacity,
    enqueue_many,
    shapes,
    allow_smaller_final_batch,
    make_queue,
    scope_name,
    name,
    fn,
    keep_input=True,
):
    original = tensors_list[0]
    tensor_list_list = _as_tensor_list_list(tensors_list)
    flat = [t for tl in tensor_list_list for t in tl]
    with name_scope(name, scope_name, flat) as scope:
        # Always a tensor, as in TF1 (its ``Const`` is the scope's first op).
        keep_input = _validate_keep_input(keep_input, enqueue_many)
        sparse_info = None
        stored = []
        for tl in tensor_list_list:
            tl, info = _store_sparse_tensors(tl, enqueue_many, sparse_info)
            sparse_info = sparse_info or info
            stored.append(tl)
        if shapes is not None and any(sparse_info):
            shapes = [[1] if inf else s for s, inf in zip(shapes, sparse_info)]
        tensor_list_list = [_validate(tl, fn) for tl in stored]
        types = _dtypes(tensor_list_list)
        shapes = _shapes(tensor_list_list, shapes, enqueue_many)
        queue = make_queue(types, shapes)
        enqueue_ops = []
        for tl in tensor_list_list:
            enq = _enqueue(queue, tl, enqueue_many, keep_input)
            enqueue_ops.extend([enq] * enqueue_ops_per_list)
        add_queue_runner(QueueRunner(queue, enqueue_ops))
        _queue_fill_summary(queue, capacity)
        dequeued = _dequeue(queue, batch_size, allow_smaller_final_batch, scope)
        return _as_original_type(original, _restore_sparse_tensors(dequeued, sparse_info))


def _fifo_factory(capacity, dynamic_pad, shared_name):
    from ..ops import data_flow_ops

    cls = data_flow_ops.PaddingFIFOQueue if dynamic_pad else data_flow_ops.FIFOQueue
    return lambda types, shapes: cls(
        capacity=capacity, dtypes=types, shapes=shapes, shared_name=shared_name
    )


def _shuffle_factory(capacity, min_after_dequeue, seed, shared_name):
    from ..ops import data_flow_ops

    if capacity <= min_after_dequeue:
        raise ValueError(
            "capacity %d must be bigger than min_after_dequeue %d." % (capacity, min_after_dequeue)
        )
    return lambda types, shapes: data_flow_ops.RandomShuffleQueue(
        capacity=capacity,
        min_after_dequeue=min_after_dequeue,
        seed=seed,
        dtypes=types,
        shapes=shapes,
        shared_name=shared_name,
    )


def batch(
    tensors: Sequence[TensorLike | SparseTensor]
    | Mapping[Any, TensorLike | SparseTensor]
    | TensorLike,
    batch_size: TensorLike,
    num_threads: int = 1,
    capacity: int = 32,
    enqueue_many: bool = False,
    shapes: Sequence[ShapeLike] | None = None,
    dynamic_pad: bool = False,
    allow_smaller_final_batch: bool = False,
    shared_name: str | None = None,
    name: str | None = None,
) -> Any:
    """Creates batches of tensors in ``tensors``, filled by ``num_threads`` runners.

    Args:
      tensors: a list or dict of tensors to enqueue (one example, or many with
        ``enqueue_many``).
      batch_size: the number of examples per batch.
      num_threads: the number of enqueue loops (threads or tasks).
      capacity: the queue's capacity.
      enqueue_many: each tensor's first dimension indexes examples.
      shapes: the example shapes (default: the tensors' static shapes).
      dynamic_pad: pad variable-size dimensions (``None`` in ``shapes``) to the
        longest in each batch (a ``PaddingFIFOQueue``).
      allow_smaller_final_batch: after the input closes, give the remaining examples
        as a smaller final batch (the batch dimension is then None).
      shared_name: a shared name for the queue.
      name: a name for the operations.

    Returns:
      Batched tensors in the structure of ``tensors`` (a single tensor for a list of
      one).

    Raises:
      ValueError: if the shapes cannot be inferred.
    """
    return _batch_impl(
        [tensors],
        batch_size,
        num_threads,
        capacity,
        enqueue_many,
        shapes,
        allow_smaller_final_batch,
        _fifo_factory(capacity, dynamic_pad, shared_name),
        "batch",
        name,
        "batch",
    )


def batch_join(
    tensors_list: Sequence[
        Sequence[TensorLike | SparseTensor] | Mapping[Any, TensorLike | SparseTensor] | TensorLike
    ],
    batch_size: TensorLike,
    capacity: int = 32,
    enqueue_many: bool = False,
    shapes: Sequence[ShapeLike] | None = None,
    dynamic_pad: bool = False,
    allow_smaller_final_batch: bool = False,
    shared_name: str | None = None,
    name: str | None = None,
) -> Any:
    """Like ``batch``, with one enqueue loop per element of ``tensors_list`` (a list of
    tensor lists or dicts of the same structure)."""
    return _batch_impl(
        tensors_list,
        batch_size,
        1,
        capacity,
        enqueue_many,
        shapes,
        allow_smaller_final_batch,
        _fifo_factory(capacity, dynamic_pad, shared_name),
        "batch_join",
        name,
        "batch_join",
    )


def shuffle_batch(
    tensors: Sequence[TensorLike | SparseTensor]
    | Mapping[Any, TensorLike | SparseTensor]
    | TensorLike,
    batch_size: TensorLike,
    capacity: int,
    min_after_dequeue: int,
    num_threads: int = 1,
    seed: int | None = None,
    enqueue_many: bool = False,
    shapes: Sequence[ShapeLike] | None = None,
    allow_smaller_final_batch: bool = False,
    shared_name: str | None = None,
    name: str | None = None,
) -> Any:
    """Creates batches by randomly shuffling ``tensors`` in a ``RandomShuffleQueue``.

    Args:
      tensors: as for ``batch``.
      batch_size: as for ``batch``.
      capacity: the queue's capacity; must exceed ``min_after_dequeue``.
      min_after_dequeue: the fewest elements left after a dequeue (until the input
        closes), which bounds how well the examples mix.
      num_threads: as for ``batch``.
      seed: the op seed for the shuffling.
      enqueue_many: as for ``batch``.
      shapes: as for ``batch``.
      allow_smaller_final_batch: as for ``batch``.
      shared_name: as for ``batch``.
      name: as for ``batch``.

    Raises:
      ValueError: if ``capacity <= min_after_dequeue``.
    """
    return _batch_impl(
        [tensors],
        batch_size,
        num_threads,
        capacity,
        enqueue_many,
        shapes,
        allow_smaller_final_batch,
        _shuffle_factory(capacity, min_after_dequeue, seed, shared_name),
        "shuffle_batch",
        name,
        "batch",
    )


def shuffle_batch_join(
    tensors_list: Sequence[
        Sequence[TensorLike | SparseTensor] | Mapping[Any, TensorLike | SparseTensor] | TensorLike
    ],
    batch_size: TensorLike,
    capacity: int,
    min_after_dequeue: int,
    seed: int | None = None,
    enqueue_many: bool = False,
    shapes: Sequence[ShapeLike] | None = None,
    allow_smaller_final_batch: bool = False,
    shared_name: str | None = None,
    name: str | None = None,
) -> Any:
    """Like ``shuffle_batch``, with one enqueue loop per element of ``tensors_list``."""
    return _batch_impl(
        tensors_list,
        batch_size,
        1,
        capacity,
        enqueue_many,
        shapes,
        allow_smaller_final_batch,
        _shuffle_factory(capacity, min_after_dequeue, seed, shared_name),
        "shuffle_batch_join",
        name,
        "batch_join",
    )


# --------------------------------------------------------------------------------------
# maybe_*: batching that keeps only the examples ``keep_input`` selects
# --------------------------------------------------------------------------------------


def maybe_batch(
    tensors: Sequence[TensorLike | SparseTensor]
    | Mapping[Any, TensorLike | SparseTensor]
    | TensorLike,
    keep_input: TensorLike,
    batch_size: TensorLike,
    num_threads: int = 1,
    capacity: int = 32,
    enqueue_many: bool = False,
    shapes: Sequence[ShapeLike] | None = None,
    dynamic_pad: bool = False,
    allow_smaller_final_batch: bool = False,
    shared_name: str | None = None,
    name: str | None = None,
) -> Any:
    """``batch`` that enqueues an example only where ``keep_input`` is True.

    Args:
      keep_input: a bool tensor: a scalar (keep or drop the whole input) or, with
        ``enqueue_many``, a vector with one entry per example.
      tensors: as for ``batch``.
      batch_size: as for ``batch``.
      num_threads: as for ``batch``.
      capacity: as for ``batch``.
      enqueue_many: as for ``batch``.
      shapes: as for ``batch``.
      dynamic_pad: as for ``batch``.
      allow_smaller_final_batch: as for ``batch``.
      shared_name: as for ``batch``.
      name: as for ``batch``.

    Raises:
      ValueError: if ``keep_input``'s rank is unknown, above 1, or 1 without
        ``enqueue_many``.
    """
    return _batch_impl(
        [tensors],
        batch_size,
        num_threads,
        capacity,
        enqueue_many,
        shapes,
        allow_smaller_final_batch,
        _fifo_factory(capacity, dynamic_pad, shared_name),
        "batch",
        name,
        "batch",
        keep_input,
    )


def maybe_batch_join(
    tensors_list: Sequence[
        Sequence[TensorLike | SparseTensor] | Mapping[Any, TensorLike | SparseTensor] | TensorLike
    ],
    keep_input: TensorLike,
    batch_size: TensorLike,
    capacity: int = 32,
    enqueue_many: bool = False,
    shapes: Sequence[ShapeLike] | None = None,
    dynamic_pad: bool = False,
    allow_smaller_final_batch: bool = False,
    shared_name: str | None = None,
    name: str | None = None,
) -> Any:
    """``batch_join`` that enqueues only what ``keep_input`` selects (see
    ``maybe_batch``)."""
    return _batch_impl(
        tensors_list,
        batch_size,
        1,
        capacity,
        enqueue_many,
        shapes,
        allow_smaller_final_batch,
        _fifo_factory(capacity, dynamic_pad, shared_name),
        "batch_join",
        name,
        "batch_join",
        keep_input,
    )


def maybe_shuffle_batch(
    tensors: Sequence[TensorLike | SparseTensor]
    | Mapping[Any, TensorLike | SparseTensor]
    | TensorLike,
    batch_size: TensorLike,
    capacity: int,
    min_after_dequeue: int,
    keep_input: TensorLike,
    num_threads: int = 1,
    seed: int | None = None,
    enqueue_many: bool = False,
    shapes: Sequence[ShapeLike] | None = None,
    allow_smaller_final_batch: bool = False,
    shared_name: str | None = None,
    name: str | None = None,
) -> Any:
    """``shuffle_batch`` that enqueues only what ``keep_input`` selects (see
    ``maybe_batch``)."""
    return _batch_impl(
        [tensors],
        batch_size,
        num_threads,
        capacity,
        enqueue_many,
        shapes,
        allow_smaller_final_batch,
        _shuffle_factory(capacity, min_after_dequeue, seed, shared_name),
        "shuffle_batch",
        name,
        "batch",
        keep_input,
    )


def maybe_shuffle_batch_join(
    tensors_list: Sequence[
        Sequence[TensorLike | SparseTensor] | Mapping[Any, TensorLike | SparseTensor] | TensorLike
    ],
    batch_size: TensorLike,
    capacity: int,
    min_after_dequeue: int,
    keep_input: TensorLike,
    seed: int | None = None,
    enqueue_many: bool = False,
    shapes: Sequence[ShapeLike] | None = None,
    allow_smaller_final_batch: bool = False,
    shared_name: str | None = None,
    name: str | None = None,
) -> Any:
    """``shuffle_batch_join`` that enqueues only what ``keep_input`` selects (see
    ``maybe_batch``)."""
    return _batch_impl(
        tensors_list,
        batch_size,
        1,
        capacity,
        enqueue_many,
        shapes,
        allow_smaller_final_batch,
        _shuffle_factory(capacity, min_after_dequeue, seed, shared_name),
        "shuffle_batch_join",
        name,
        "batch_join",
        keep_input,
    )
