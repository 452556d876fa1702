"""Queues (TF1's data_flow_ops): FIFOQueue, RandomShuffleQueue, PaddingFIFOQueue,
PriorityQueue, and their ops.

A queue lives in the session (``ctx.resources``, keyed by ``shared_name`` or the queue
op's name), so every run of the session, from threads through ``sess.run`` or tasks
through ``await sess.arun``, shares it. The state machine is ``_core/queues.py``; the
ops here check and convert values and call it. Queue ops that may block are blocking
kernels (generators, see ``_core/waiting.py``): a blocked op parks only its own run,
a thread on a threading primitive or a task on a trio one.
"""

from __future__ import annotations

import functools
import hashlib
import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core import queues as _q
from .._core.graph import Operation, Tensor, convert_to_tensor, get_default_graph
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from .._core.shape import TensorShape, as_shape, unknown_shape
from ..dtypes import DType
from . import array_ops, slicing_ops
from .common import int_list

if TYPE_CHECKING:
    from .._core.typing import DTypeLike, ShapeLike, TensorLike
    from ..session import Session

__all__ = ["QueueBase", "FIFOQueue", "RandomShuffleQueue", "PaddingFIFOQueue", "PriorityQueue"]

_T = TypeVar("_T")

_resource_dtype = _dt.resource  # a queue handle, as in TF


# --------------------------------------------------------------------------------------
# Python API
# --------------------------------------------------------------------------------------


def _as_type_list(dtypes: Any) -> list[DType]:
    if isinstance(dtypes, (list, tuple)):
        return [_dt.as_dtype(d) for d in dtypes]
    return [_dt.as_dtype(dtypes)]


@overload
def _as_shape_list(
    shapes: Any, dtypes: list[DType], unknown_dim_allowed: Literal[True]
) -> list[TensorShape]: ...


@overload
def _as_shape_list(
    shapes: Any,
    dtypes: list[DType],
    unknown_dim_allowed: bool = False,
    unknown_rank_allowed: bool = False,
) -> list[TensorShape] | None: ...


def _as_shape_list(
    shapes: Any,
    dtypes: list[DType],
    unknown_dim_allowed: bool = False,
    unknown_rank_allowed: bool = False,
) -> list[TensorShape] | None:
    """TF1's rule: None, one shape for one dtype, or one shape per dtype; partial shapes
    (``unknown_dim_allowed``) only as a list of shapes."""
    if unknown_dim_allowed and (
        not isinstance(shapes, (list, tuple))
        or not shapes
        or any(s is None or isinstance(s, int) for s in shapes)
    ):
        raise ValueError("When providing partial shapes, a list of shapes must be provided.")
    if shapes is None:
        return None
    if isinstance(shapes, TensorShape):
        shapes = [shapes]
    if not isinstance(shapes, (tuple, list)):
        raise TypeError("Shapes must be a TensorShape or a list or tuple of TensorShapes.")
    if all(s is None or isinstance(s, int) for s in shapes):
        shapes = [shapes]  # a single shape given as a list of dims
    shapes = [as_shape(s) for s in shapes]
    if not unknown_dim_allowed and any(not s.is_fully_defined() for s in shapes):
        raise ValueError("All shapes must be fully defined: %s" % shapes)
    if not unknown_rank_allowed and any(s.ndims is None for s in shapes):
        raise ValueError("All shapes must have a defined rank: %s" % shapes)
    return shapes


class QueueBase:
    """Base class of the queues: the ops that enqueue, dequeue, close and measure one.

    A queue is created in a session when one of its ops first runs there; every run of
    that session shares it.

    Args:
      dtypes: one DType per component of an element.
      shapes: one TensorShape per component, or None (unknown).
      names: one name per component (elements are then dicts), or None.
      queue_ref: the queue's handle tensor.
    """

    def __init__(
        self,
        dtypes: Sequence[DType],
        shapes: Sequence[ShapeLike] | None,
        names: Sequence[str] | None,
        queue_ref: Tensor,
    ) -> None:
        self._dtypes = list(dtypes)
        if shapes is not None:
            if len(shapes) != len(dtypes):
                raise ValueError(
                    "Queue shapes must have the same length as dtypes, received "
                    "len(shapes)=%d, len(dtypes)=%d" % (len(shapes), len(dtypes))
                )
            self._shapes = [as_shape(s) for s in shapes]
        else:
            self._shapes = [unknown_shape() for _ in self._dtypes]
        if names is not None:
            if len(names) != len(dtypes):
                raise ValueError(
                    "List of names must have the same length as the list of "
                    "dtypes, received len(names)=%d,len(dtypes)=%d" % (len(names), len(dtypes))
                )
            self._names: list[str] | None = list(names)
        else:
            self._names = None
        self._queue_ref = queue_ref
        self._name = queue_ref.op.name.split("/")[-1]

    # --- properties -------------------------------------------------------------------

    @property
    def queue_ref(self) -> Tensor:
        """The queue's handle tensor."""
        return self._queue_ref

    @property
    def name(self) -> str:
        """The name of the queue op."""
        return self._queue_ref.op.name

    @property
    def dtypes(self) -> list[DType]:
        return self._dtypes

    @property
    def shapes(self) -> list[TensorShape]:
        return self._shapes

    @property
    def names(self) -> list[str] | None:
        return self._names

    # --- building ops -----------------------------------------------------------------

    def _scoped(
        self, name: str | None, default: str, make_inputs: Callable[[], _T]
    ) -> tuple[_T, str]:
        """Creates inputs under ``<op name>/`` and returns (inputs, op name): TF names an
        enqueue ``fifo_queue_enqueue`` with its constants under ``fifo_queue_enqueue/``."""
        g = self._queue_ref.graph
        with g.as_default():
            if name and name.endswith("/"):  # a scope (``name_scope(...) as scope``)
                scope = name  # names the op itself: its inputs go under it, as in TF
            else:
                scope = g.unique_name(name or default, mark_as_used=False) + "/"
            with g.name_scope(scope):
                inputs = make_inputs()
            return inputs, (name or default)

    def _check_enqueue_dtypes(self, vals: Any) -> list[Tensor]:
        if isinstance(vals, dict):
            if not self._names:
                raise ValueError("Queue must have names to enqueue a dictionary")
            if sorted(self._names, key=str) != sorted(vals.keys(), key=str):
                raise ValueError(
                    "Keys in dictionary to enqueue do not match names of Queue.  "
                    "Dictionary: %s,Queue: %s"
                    % (sorted(vals.keys(), key=str), sorted(self._names, key=str))
                )
            vals = [vals[k] for k in self._names]
        else:
            if self._names:
                raise ValueError("You must enqueue a dictionary in a Queue with names")
            if not isinstance(vals, (list, tuple)):
                vals = [vals]
        tensors = []
        for i, (val, dtype) in enumerate(zip(vals, self._dtypes, strict=False)):
            try:
                tensors.append(convert_to_tensor(val, dtype=dtype, name="component_%d" % i))
            except (TypeError, ValueError) as e:
                raise type(e)("component_%d: %s" % (i, e)) from None
        return tensors

    def _op(self, op_type, inputs, attrs, name):
        g = self._queue_ref.graph
        with g.as_default():
            return g._create_op(op_type, [self._queue_ref] + list(inputs), attrs, name)

    def _component_attrs(self):
        return {
            "component_types": list(self._dtypes),
            "shapes": list(self._shapes),
            "names": self._names,
            "timeout_ms": -1,
        }

    def enqueue(
        self, vals: TensorLike | Mapping[str, TensorLike], name: str | None = None
    ) -> Operation:
        """An op that adds one element (a tensor, a list/tuple of them, or a dict when the
        queue has names). When the queue is full, the op waits for room.

        Returns:
          The enqueue ``Operation``; running it returns None.
        """
        tensors, name = self._scoped(
            name, "%s_enqueue" % self._name, lambda: self._check_enqueue_dtypes(vals)
        )
        for val, shape in zip(tensors, self._shapes, strict=False):
            val.shape.assert_is_compatible_with(shape)
        return self._op("QueueEnqueueV2", tensors, self._component_attrs(), name)

    def enqueue_many(
        self, vals: TensorLike | Mapping[str, TensorLike], name: str | None = None
    ) -> Operation:
        """An op that adds the rows of ``vals`` (split along dimension 0) as elements.

        Note (flowrt): a batch that fits the capacity enters at once when there is room
        for all of it (a cancelled or timed-out run leaves nothing); a longer batch
        enters as room frees, ahead of every later enqueue.
        """
        tensors, name = self._scoped(
            name, "%s_EnqueueMany" % self._name, lambda: self._check_enqueue_dtypes(vals)
        )
        batch_dim = None
        for val, shape in zip(tensors, self._shapes, strict=False):
            s = val.shape
            if s.ndims is not None:
                if s.ndims < 1:
                    raise ValueError("Shape %s must have rank at least 1" % s)
                d = s.as_list()[0]
                if d is not None:
                    if batch_dim is not None and batch_dim != d:
                        raise ValueError("Dimensions %d and %d are not compatible" % (batch_dim, d))
                    batch_dim = d
                TensorShape(s.as_list()[1:]).assert_is_compatible_with(shape)
        return self._op("QueueEnqueueManyV2", tensors, self._component_attrs(), name)

    def _dequeue_return_value(self, outputs):
        if self._names:
            return dict(zip(self._names, outputs, strict=False))
        if len(outputs) == 1:
            return outputs[0]
        return list(outputs)

    def dequeue(self, name: str | None = None) -> Tensor | Any:
        """An op that removes one element; it waits while the queue is empty.

        Running it on a closed queue with no element left raises
        ``fr.errors.OutOfRangeError``.

        Returns:
          A tensor (one component), a list of tensors, or a dict (a queue with names).
        """
        op = self._op(
            "QueueDequeueV2", [], self._component_attrs(), name or "%s_Dequeue" % self._name
        )
        return self._dequeue_return_value(op.outputs)

    def _many(self, op_type, n, name, default):
        n, name = self._scoped(
            name, default, lambda: convert_to_tensor(n, dtype=_dt.int32, name="n")
        )
        nv = int_list(n)
        if nv is not None and nv[0] < 0:
            raise ValueError(
                "Input 'n' must be >= 0, but is %d for %s op '%s'" % (nv[0], op_type, name)
            )
        return self._op(op_type, [n], self._component_attrs(), name)

    def dequeue_many(self, n: TensorLike, name: str | None = None) -> Tensor | Any:
        """An op that removes ``n`` elements at once and stacks them along a new first
        dimension; it waits until ``n`` are there. A cancelled run takes nothing.

        Running it on a closed queue with fewer than ``n`` left raises
        ``fr.errors.OutOfRangeError`` and leaves them in the queue.
        """
        op = self._many("QueueDequeueManyV2", n, name, "%s_DequeueMany" % self._name)
        return self._dequeue_return_value(op.outputs)

    def dequeue_up_to(self, n: TensorLike, name: str | None = None) -> Tensor | Any:
        """Like ``dequeue_many``, but on a closed queue returns the fewer than ``n``
        elements that are left (OutOfRangeError when none is)."""
        op = self._many("QueueDequeueUpToV2", n, name, "%s_DequeueUpTo" % self._name)
        return self._dequeue_return_value(op.outputs)

    def close(self, cancel_pending_enqueues: bool = False, name: str | None = None) -> Operation:
        """An op that closes the queue: later enqueues fail (CancelledError), and
        dequeues that cannot be served by what is left fail (OutOfRangeError), at once.

        With ``cancel_pending_enqueues=True`` the enqueues waiting for room fail too.
        """
        return self._op(
            "QueueCloseV2",
            [],
            {"cancel_pending_enqueues": bool(cancel_pending_enqueues)},
            name or "%s_Close" % self._name,
        )

    def size(self, name: str | None = None) -> Tensor:
        """A scalar int32 tensor: the number of elements in the queue."""
        return self._op("QueueSizeV2", [], {}, name or "%s_Size" % self._name).outputs[0]

    def is_closed(self, name: str | None = None) -> Tensor:
        """A scalar bool tensor: whether the queue is closed."""
        return self._op("QueueIsClosedV2", [], {}, name or "%s_Is_Closed" % self._name).outputs[0]

    def statistics(self, session: Session) -> _q.QueueStatistics:
        """A frozen snapshot of this queue in ``session``: size, capacity, closed, and
        how many enqueues and dequeues are waiting.

        Note (flowrt): not in TF1; for tests and monitoring. Safe from any thread.
        """
        return queue_of(session.resources, self._queue_ref.op).statistics()

    @staticmethod
    def from_list(index: TensorLike, queues: Sequence[QueueBase]) -> QueueBase:
        """A queue that is ``queues[index]``, chosen when an op of it runs (TF1).

        Args:
          index: an int32 scalar tensor (or int) selecting the queue.
          queues: a list of ``QueueBase`` with the same dtypes and names.

        Returns:
          A ``QueueBase`` whose shapes are the most specific shapes all of ``queues``
          share.

        Raises:
          TypeError: if ``queues`` is not a non-empty list of queues, or their dtypes or
            names differ.
        """
        if (
            not queues
            or not isinstance(queues, list)
            or not all(isinstance(q, QueueBase) for q in queues)
        ):
            raise TypeError("A list of queues expected")
        dtypes = queues[0].dtypes
        if not all(dtypes == q.dtypes for q in queues[1:]):
            raise TypeError("Queues do not have matching component dtypes.")
        names = queues[0].names
        if not all(names == q.names for q in queues[1:]):
            raise TypeError("Queues do not have matching component names.")
        shapes = [functools.reduce(_shape_common, s) for s in zip(*[q.shapes for q in queues])]
        refs = array_ops.stack([q.queue_ref for q in queues])
        return QueueBase(dtypes, shapes, names, slicing_ops.gather(refs, index))


class FIFOQueue(QueueBase):
    """A queue that gives elements back in the order they were enqueued (TF1).

    Args:
      capacity: the most elements it holds.
      dtypes: a DType or a list of them, one per component.
      shapes: None, or one (fully defined) shape per component; needed by
        ``dequeue_many`` and ``dequeue_up_to``.
      names: None, or one name per component (elements are then dicts).
      shared_name: if set, the queue is shared under this name by every queue op with
        the same ``shared_name`` in a session.
      name: the name of the queue op.
    """

    def __init__(
        self,
        capacity: int,
        dtypes: DTypeLike | Sequence[DTypeLike],
        shapes: ShapeLike | Sequence[ShapeLike] = None,
        names: str | Sequence[str] | None = None,
        shared_name: str | None = None,
        name: str | None = "fifo_queue",
    ) -> None:
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes, dtypes)
        names = _as_name_list(names, dtypes)
        ref = _handle("FIFOQueueV2", capacity, dtypes, shapes, shared_name, name)
        super().__init__(dtypes, shapes, names, ref)


class PaddingFIFOQueue(QueueBase):
    """A FIFO queue whose ``dequeue_many`` pads each unknown (None) dimension with zeros
    (empty strings) to the largest in the batch (TF1)."""

    def __init__(
        self,
        capacity: int,
        dtypes: DTypeLike | Sequence[DTypeLike],
        shapes: ShapeLike | Sequence[ShapeLike],
        names: str | Sequence[str] | None = None,
        shared_name: str | None = None,
        name: str | None = "padding_fifo_queue",
    ) -> None:
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes, dtypes, unknown_dim_allowed=True)
        names = _as_name_list(names, dtypes)
        if len(dtypes) != len(shapes):
            raise ValueError(
                "Shapes must be provided for all components, but received %d "
                "dtypes and %d shapes." % (len(dtypes), len(shapes))
            )
        ref = _handle("PaddingFIFOQueueV2", capacity, dtypes, shapes, shared_name, name)
        super().__init__(dtypes, shapes, names, ref)


class RandomShuffleQueue(QueueBase):
    """A queue that dequeues elements in a random order (TF1).

    A dequeue waits until more than ``min_after_dequeue`` elements are in the queue,
    unless it is closed. With a graph or op ``seed`` the order is reproducible (each
    session restarts it). A queue with a ``shared_name`` and a graph seed but no op
    seed takes its op seed from a hash of the graph seed and the name, as TF does, so
    the graphs sharing it agree.
    """

    def __init__(
        self,
        capacity: int,
        min_after_dequeue: int,
        dtypes: DTypeLike | Sequence[DTypeLike],
        shapes: ShapeLike | Sequence[ShapeLike] = None,
        names: str | Sequence[str] | None = None,
        seed: int | None = None,
        shared_name: str | None = None,
        name: str | None = "random_shuffle_queue",
    ) -> None:
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes, dtypes)
        names = _as_name_list(names, dtypes)
        seed1, seed2 = _get_seed(seed)
        if seed1 is None and seed2 is None:
            seed1, seed2 = 0, 0
        elif seed is None and shared_name is not None:
            # As TF: seed2 follows the graph seed and the shared name, not the op's
            # position in its graph, so every graph sharing the queue agrees on it.
            digest = hashlib.md5((str(seed1) + shared_name).encode("utf-8")).hexdigest()
            seed2 = int(digest[:8], 16) & 0x7FFFFFFF
        ref = _handle(
            "RandomShuffleQueueV2",
            capacity,
            dtypes,
            shapes,
            shared_name,
            name,
            min_after_dequeue=int(min_after_dequeue),
            seed=seed1,
            seed2=seed2,
        )
        super().__init__(dtypes, shapes, names, ref)


class PriorityQueue(QueueBase):
    """A queue that dequeues the element with the smallest priority first (TF1).

    Elements are ``(priority, *components)``: the first component is a scalar int64.
    """

    def __init__(
        self,
        capacity: int,
        types: DTypeLike | Sequence[DTypeLike],
        shapes: ShapeLike | Sequence[ShapeLike] = None,
        names: str | Sequence[str] | None = None,
        shared_name: str | None = None,
        name: str | None = "priority_queue",
    ) -> None:
        types = _as_type_list(types)
        shapes = _as_shape_list(shapes, types)
        ref = _handle("PriorityQueueV2", capacity, types, shapes, shared_name, name)
        dtypes = [_dt.int64] + types
        shapes = [TensorShape([])] + shapes if shapes else shapes
        super().__init__(dtypes, shapes, _as_name_list(names, dtypes), ref)


def _shape_common(s1: TensorShape, s2: TensorShape) -> TensorShape:
    """The most specific shape compatible with both (TF1's ``_shape_common``)."""
    if s1.ndims is None or s2.ndims is None or s1.ndims != s2.ndims:
        return unknown_shape()
    return TensorShape(
        [
            a if a is not None and a == b else None
            for a, b in zip(s1.as_list(), s2.as_list(), strict=True)
        ]
    )


def _as_name_list(names: Any, dtypes: list[DType]) -> list[str] | None:
    if names is None:
        return None
    if not isinstance(names, (list, tuple)):
        names = [names]
    if len(names) != len(dtypes):
        raise ValueError("List of names must have the same length as the list of dtypes")
    return list(names)


def _get_seed(seed):
    from . import random_ops

    return random_ops.get_seed(seed)


def _handle(op_type, capacity, dtypes, shapes, shared_name, name, **extra):
    attrs = {
        "component_types": list(dtypes),
        "shapes": list(shapes or []),
        "capacity": int(capacity),
        "container": "",
        "shared_name": shared_name or "",
    }
    attrs.update(extra)
    return get_default_graph()._create_op(op_type, [], attrs, name).outputs[0]


# --------------------------------------------------------------------------------------
# Ops: the handle creates the session's queue; the rest await it.
# --------------------------------------------------------------------------------------

_KINDS = {
    "FIFOQueueV2": lambda name, a: _q.Queue(name, a["capacity"]),
    "PaddingFIFOQueueV2": lambda name, a: _q.PaddingQueue(name, a["capacity"]),
    "PriorityQueueV2": lambda name, a: _q.PriorityQueue(name, a["capacity"]),
    "RandomShuffleQueueV2": lambda name, a: _q.RandomShuffleQueue(
        name,
        a["capacity"],
        a["min_after_dequeue"],
        None if a["seed"] == 0 and a["seed2"] == 0 else (a["seed"], a["seed2"]),
        [s.as_tuple() if s.is_fully_defined() else None for s in a["shapes"]] or None,
    ),
}


def queue_of(resources, op) -> _q.Queue:
    """The queue of handle op ``op`` in a session's resources, created on first use."""
    a = op.attrs
    key = ("queue", a["shared_name"]) if a["shared_name"] else ("queue-op", op.name)
    q = resources.get_or_create(key, lambda: _make_queue(op))
    if q.attrs is not a:
        problem = _mismatch(q, op)
        if problem:
            raise errors.InvalidArgumentError(
                None, op, "Shared queue '%s' %s" % (a["shared_name"], problem)
            )
    return q


# TF's names for dtypes in its messages (DataTypeString).
_TF_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "half"}


def _types_str(op_type, types) -> str:
    types = ([_dt.int64] if op_type == "PriorityQueueV2" else []) + list(types)
    return ", ".join(_TF_TYPE_NAMES.get(d.name, d.name) for d in types)


def _shapes_str(shapes) -> str:
    def one(s):
        return (
            "<unknown>"
            if s.ndims is None
            else "[%s]" % ",".join("?" if d is None else str(d) for d in s.as_list())
        )

    return "[%s]" % ",".join(one(s) for s in shapes)


def _mismatch(q, op) -> str | None:
    """How handle op ``op`` asks for another queue than the shared one ``q`` (TF's
    checks and words, in TF's order), or None when it matches."""
    had, want = q.attrs, op.attrs
    if q.op_type != op.type:
        return "has type '%s' that does not match type of Node '%s': %s" % (
            q.op_type,
            op.name,
            op.type,
        )
    if had["capacity"] != want["capacity"]:
        return "has capacity %d but requested capacity was %d" % (had["capacity"], want["capacity"])
    if op.type == "RandomShuffleQueueV2":
        if had["min_after_dequeue"] != want["min_after_dequeue"]:
            return "has min_after_dequeue %d but requested min_after_dequeue was %d." % (
                had["min_after_dequeue"],
                want["min_after_dequeue"],
            )
        if (had["seed"], had["seed2"]) != (want["seed"], want["seed2"]):
            return "has random seeds (%d, %d) but requested seeds are (%d, %d)." % (
                had["seed"],
                had["seed2"],
                want["seed"],
                want["seed2"],
            )
    if list(had["component_types"]) != list(want["component_types"]):
        return "has component types %s but requested component types were %s" % (
            _types_str(op.type, had["component_types"]),
            _types_str(op.type, want["component_types"]),
        )
    if [s.as_tuple() for s in had["shapes"]] != [s.as_tuple() for s in want["shapes"]]:
        return "has component shapes %s but requested component shapes were %s" % (
            _shapes_str(had["shapes"]),
            _shapes_str(want["shapes"]),
        )
    return None


def _make_queue(op):
    a = op.attrs
    q = _KINDS[op.type](a["shared_name"] or op.name, a)
    q.op_type, q.op_name, q.attrs = op.type, op.name, a
    q.ncomp = len(a["component_types"]) + (1 if op.type == "PriorityQueueV2" else 0)
    return q


def _handle_infer(op):
    return [(_resource_dtype, TensorShape([]))]


def _handle_kernel(ctx, op):
    return (queue_of(ctx.resources, op),)


for _t in _KINDS:
    register_op(
        _t,
        infer=_handle_infer,
        kernel=_handle_kernel,
        grad=NOT_DIFFERENTIABLE,
        stateful=True,
        quiet=True,
    )


# --- enqueue ----------------------------------------------------------------------------


def _frozen(v: np.ndarray) -> np.ndarray:
    """A read-only copy the queue can keep: later writes to the fed array don't reach it,
    and fetching it hands out a copy."""
    if v.flags.writeable or not v.flags.owndata:
        v = np.array(v, copy=True)
    v.flags.writeable = False
    return v


def _shape_str(shape):
    return "[%s]" % ",".join("?" if d is None else str(d) for d in shape)


def _elem_shapes(op):
    """An enqueue's or dequeue's component shapes: its own ``shapes`` attr (flowrt's
    builder sets it), else its queue's, as TF's shape function reads them from the queue
    (a GraphDef's node carries only TF's attrs)."""
    shapes = op.attrs.get("shapes")
    if shapes is None:
        shapes = op.inputs[0].op.attrs.get("shapes") or []
    return shapes


def _component_types(op):
    """An enqueue's or dequeue's component types: its ``component_types`` attr, else
    (a TF enqueue node, whose ``Tcomponents`` are its inputs' types) its queue's."""
    types = op.attrs.get("component_types")
    if types is None:
        types = op.inputs[0].op.attrs.get("component_types") or []
    return types


_EXPECTED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _expected_dims(op) -> list:
    """Per component of ``op``'s queue, its element dims (None for an unknown one) as a
    tuple, or None when its shape is unknown (cached per op)."""
    got = _EXPECTED.get(op)
    if got is None:
        shapes = _elem_shapes(op)
        got = _EXPECTED[op] = [
            tuple(shapes[i].as_list())
            if i < len(shapes) and shapes[i] is not None and shapes[i].ndims is not None
            else None
            for i in range(len(_component_types(op)))
        ]
    return got


def _check_component(q, op, i, v, shape, batch=None):
    exp = _expected_dims(op)[i]
    if exp is not None:
        got = v.shape[1:] if batch is not None else v.shape
        if got == exp:
            return
        if len(got) != len(exp) or any(
            e is not None and e != d for e, d in zip(exp, got, strict=False)
        ):
            exp = list(exp)
            full = ([batch if batch is not None else "?"] + exp) if batch is not None else exp
            raise errors.InvalidArgumentError(
                None,
                op,
                "Shape mismatch in tuple component %d. Expected %s, got %s "
                "(%s '%s', enqueued by %s op '%s')"
                % (i, _shape_str(full), _shape_str(v.shape), q.kind, q.name, op.type, op.name),
            )


def _check_priority(q, op, prio, batch):
    want = 1 if batch else 0
    if prio.ndim != want:
        raise errors.InvalidArgumentError(
            None,
            op,
            "Expected the priority element to be a scalar, but received shape: "
            "%s (%s '%s')" % (_shape_str(prio.shape[1:] if batch else prio.shape), q.kind, q.name),
        )


def _element_values(q, op, comps):
    types = _component_types(op)
    if len(comps) != len(types):
        raise errors.InvalidArgumentError(
            None,
            op,
            "%s '%s' expects %d components, got %d" % (q.kind, q.name, len(types), len(comps)),
        )
    out = []
    for i, (v, dt) in enumerate(zip(comps, types, strict=False)):
        v = np.asarray(v)
        if dt is not _dt.string and v.dtype != dt.np:
            raise errors.InvalidArgumentError(
                None,
                op,
                "Type mismatch in tuple component %d. Expected %s, got %s "
                "(%s '%s')" % (i, dt.name, _dt.as_dtype(v.dtype).name, q.kind, q.name),
            )
        out.append(v)
    return out


def _enqueue_elems(op, q, comps):
    vals = _element_values(q, op, comps)
    for i, v in enumerate(vals):
        _check_component(q, op, i, v, v.shape)
    if _component_types(op)[0] is _dt.int64 and q.op_type == "PriorityQueueV2":
        _check_priority(q, op, vals[0], False)
    return [tuple(_frozen(v) for v in vals)]


def _enqueue_kernel(ctx, op, q, *comps):
    yield from q.enqueue(_enqueue_elems(op, q, comps), _who(op), ctx)
    return ()


def _enqueue_many_elems(op, q, comps):
    vals = _element_values(q, op, comps)
    if any(v.ndim == 0 for v in vals):
        bad = next(i for i, v in enumerate(vals) if v.ndim == 0)
        raise errors.InvalidArgumentError(
            None,
            op,
            "Shape mismatch in tuple component %d. Expected a batch (rank >= 1), "
            "got [] (%s '%s', EnqueueMany)" % (bad, q.kind, q.name),
        )
    n = vals[0].shape[0]
    for i, v in enumerate(vals):
        if v.shape[0] != n:
            raise errors.InvalidArgumentError(
                None,
                op,
                "EnqueueMany requires the same number of elements in each "
                "component: component 0 has %d, component %d has %d (%s '%s')"
                % (n, i, v.shape[0], q.kind, q.name),
            )
        _check_component(q, op, i, v, v.shape, batch=n)
    if q.op_type == "PriorityQueueV2":
        _check_priority(q, op, vals[0], True)
    return vals


def _enqueue_many_kernel(ctx, op, q, *comps):
    vals = _enqueue_many_elems(op, q, comps)
    yield from q.enqueue(_q.rows(tuple(vals)), _who(op), ctx, copy=_frozen_rows)
    return ()


def _frozen_rows(rows: _q.Rows) -> _q.Rows:
    return _q.rows(tuple(_frozen(v) for v in rows.batch))


def _who(op):
    return "%s op '%s'" % (op.type, op.name)


register_op(
    "QueueEnqueueV2",
    infer=lambda op: [],
    kernel=_enqueue_kernel,
    blocking=True,
    grad=NOT_DIFFERENTIABLE,
    stateful=True,
    quiet=True,
)
register_op(
    "QueueEnqueueManyV2",
    infer=lambda op: [],
    kernel=_enqueue_many_kernel,
    blocking=True,
    grad=NOT_DIFFERENTIABLE,
    stateful=True,
    quiet=True,
)


# --- dequeue ----------------------------------------------------------------------------


def _dequeue_infer(op):
    return [(dt, s) for dt, s in zip(_component_types(op), _elem_shapes(op), strict=False)]


def _many_infer(op, up_to):
    n = None if up_to else int_list(op.inputs[1])
    batch = TensorShape([None if n is None else n[0]])
    return [
        (dt, batch.concatenate(s))
        for dt, s in zip(_component_types(op), _elem_shapes(op), strict=False)
    ]


def _dequeue_kernel(ctx, op, q):
    (elem,) = yield from q.dequeue(1, False, _who(op), ctx)
    return tuple(elem)


def _many_kernel(up_to):
    def check(op, q, n):
        n = int(n)
        if n < 0:
            raise errors.InvalidArgumentError(
                None, op, "Request failed: n = %d, but must be >= 0 (%s '%s')" % (n, q.kind, q.name)
            )
        shapes = _elem_shapes(op)
        pad = q.op_type == "PaddingFIFOQueueV2"
        if not pad and (len(shapes) != q.ncomp or any(not s.is_fully_defined() for s in shapes)):
            raise errors.InvalidArgumentError(
                None,
                op,
                "%s's DequeueMany and DequeueUpTo require the components to have "
                "specified shapes." % q.kind,
            )
        return n, pad

    def result(op, q, elems, pad):
        if not elems:
            return tuple(
                np.zeros([0] + [d or 0 for d in s.as_list()], dtype=dt.np)
                for dt, s in zip(_component_types(op), _elem_shapes(op), strict=False)
            )
        return _q.batch(elems, [dt.np for dt in _component_types(op)], pad=pad, ordered=q.ordered)

    def kernel(ctx, op, q, n):
        n, pad = check(op, q, n)
        elems = yield from q.dequeue(n, up_to, _who(op), ctx)
        return result(op, q, elems, pad)

    return kernel


register_op(
    "QueueDequeueV2",
    infer=_dequeue_infer,
    kernel=_dequeue_kernel,
    blocking=True,
    grad=NOT_DIFFERENTIABLE,
    stateful=True,
    quiet=True,
)
register_op(
    "QueueDequeueManyV2",
    infer=lambda op: _many_infer(op, False),
    kernel=_many_kernel(False),
    blocking=True,
    grad=NOT_DIFFERENTIABLE,
    stateful=True,
    quiet=True,
)
register_op(
    "QueueDequeueUpToV2",
    infer=lambda op: _many_infer(op, True),
    kernel=_many_kernel(True),
    blocking=True,
    grad=NOT_DIFFERENTIABLE,
    stateful=True,
    quiet=True,
)


# --- close, size, is_closed -------------------------------------------------------------


def _close_kernel(ctx, op, q):
    q.close(op.attrs["cancel_pending_enqueues"])
    return ()


# Closing never waits: a plain kernel, so a run of only a close stays on its thread.
register_op(
    "QueueCloseV2",
    infer=lambda op: [],
    kernel=_close_kernel,
    grad=NOT_DIFFERENTIABLE,
    stateful=True,
    quiet=True,
)

# Size and IsClosed only read the queue (a read of one int is atomic).
register_op(
    "QueueSizeV2",
    infer=lambda op: [(_dt.int32, TensorShape([]))],
    kernel=lambda ctx, op, q: (np.int32(len(q)),),
    grad=NOT_DIFFERENTIABLE,
    stateful=True,
)
register_op(
    "QueueIsClosedV2",
    infer=lambda op: [(_dt.bool, TensorShape([]))],
    kernel=lambda ctx, op, q: (np.bool_(q.closed),),
    grad=NOT_DIFFERENTIABLE,
    stateful=True,
)
