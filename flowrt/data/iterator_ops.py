"""``fr.data.Iterator``: reading a dataset in a session, one element per run.

An iterator is per-session state (``IteratorResource``, in ``ctx.resources``): the
generator of the dataset value it was last initialized with. ``MakeIterator`` (an
initializable iterator's ``initializer``) computes the dataset in its run, with that
run's feeds, and restarts the iterator on it; a one-shot iterator does so in the first
run that uses it. ``IteratorGetNext`` draws one element under the iterator's lock, so
threads and tasks reading one iterator each get distinct elements; the end of the
dataset is ``OutOfRangeError("End of sequence")``, as in TF, and an element that failed
(``pipeline.Failure``) raises its error.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.executor import run_sync
from .._core.graph import Operation, Tensor, convert_to_tensor, get_default_graph
from .._core.plan import Plan
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from .._core.shape import TensorShape
from .._core.token import TOKEN
from ..ops.common import make, make_op
from . import structure as st
from .dataset import DatasetV1
from .pipeline import Failure, IterEnv

__all__ = [
    "Iterator",
    "IteratorResource",
    "one_shot_iterator",
    "make_one_shot_iterator",
    "make_initializable_iterator",
    "get_output_types",
    "get_output_shapes",
    "get_output_classes",
]


class IteratorResource:
    """One iterator's state in one session: the element generator and its lock."""

    def __init__(self, name: str, types: list) -> None:
        self.name = name
        self.types = types
        self.lock = threading.Lock()
        self.env: IterEnv | None = None
        self.gen: Any = None
        self.started = False  # a one-shot iterator made its dataset

    def _acquire(self) -> None:
        # Another run may hold the lock while its map function gives up the execution
        # token (a heavy kernel): wait without the token, or that run could not finish.
        if self.lock.acquire(blocking=False):
            return
        depth = TOKEN.release_all()
        try:
            self.lock.acquire()
        finally:
            TOKEN.restore(depth)

    def reset(self, ctx: Any, value: Any) -> None:
        self._acquire()
        try:
            self._close()
            self.env = IterEnv(ctx)
            self.gen = value.iterate(self.env)
            self.started = True
        finally:
            self.lock.release()

    def _close(self) -> None:
        gen, self.gen = self.gen, None
        if gen is not None:
            gen.close()  # closes the files its readers hold open

    def on_session_close(self) -> None:
        """Closes the files of the dataset being read (no run reads it any more)."""
        if self.lock.acquire(blocking=False):
            try:
                self._close()
            finally:
                self.lock.release()

    def get_next(self, ctx: Any, op: Operation) -> tuple:
        self._acquire()
        try:
            if self.gen is None:
                raise errors.FailedPreconditionError(
                    None,
                    op,
                    "GetNext() failed because the iterator has not been initialized. Ensure "
                    "that you have run the initializer operation for this iterator before "
                    "getting the next element.",
                )
            assert self.env is not None
            self.env.ctx = ctx
            try:
                e = next(self.gen)
            except StopIteration:
                raise errors.OutOfRangeError(None, op, "End of sequence") from None
            if type(e) is Failure:
                raise e.error
            return e
        finally:
            self.lock.release()


def _key(name: str) -> tuple:
    return ("iterator", name)


def _resource(ctx: Any, op: Operation) -> IteratorResource:
    name = op.attrs.get("shared_name") or op.name
    types = [s.dtype for s in op.attrs["_specs"]]
    return ctx.resources.get_or_create(_key(name), lambda: IteratorResource(name, types))


def _handle_infer(op: Operation) -> list:
    return [(_dt.resource, TensorShape([]))]


def _get_next_infer(op: Operation) -> list:
    return [(s.dtype, s.shape) for s in op.attrs["_specs"]]


def _make_iterator_kernel(ctx: Any, op: Operation, value: Any, handle: IteratorResource) -> tuple:
    handle.reset(ctx, value)
    return ()


def _one_shot_kernel(ctx: Any, op: Operation) -> tuple:
    res = _resource(ctx, op)
    if not res.started:
        with op.attrs["_init_lock"]:
            if not res.started:
                plan = op.attrs.get("_plan")
                if plan is None:
                    plan = op.attrs["_plan"] = Plan([op.attrs["dataset"]], [], [])
                (value,) = run_sync(plan, ctx, [])
                res.reset(ctx, value)
    return (res,)


def _get_next_kernel(ctx: Any, op: Operation, handle: IteratorResource) -> tuple:
    return handle.get_next(ctx, op)


def _to_string_kernel(ctx: Any, op: Operation, handle: IteratorResource) -> tuple:
    return (np.asarray(handle.name.encode(), dtype=object),)


def _from_string_kernel(ctx: Any, op: Operation, string: Any) -> tuple:
    name = bytes(np.asarray(string, dtype=object)[()]).decode()
    res = ctx.resources.get(_key(name))
    if res is None:
        raise errors.NotFoundError(
            None,
            op,
            "Resource %r of an iterator does not exist in this session; feed the "
            "string_handle() of an iterator of this session" % name,
        )
    want = [s.dtype for s in op.attrs["_specs"]]
    if want != res.types:
        raise errors.InvalidArgumentError(
            None,
            op,
            "Expected types %s but the iterator %r has types %s"
            % ([t.name for t in want], name, [t.name for t in res.types]),
        )
    return (res,)


register_op(
    "IteratorV2",
    infer=_handle_infer,
    kernel=lambda ctx, op: (_resource(ctx, op),),
    grad=NOT_DIFFERENTIABLE,
    stateful=True,
    default_name="Iterator",
)
register_op(
    "OneShotIterator",
    infer=_handle_infer,
    kernel=_one_shot_kernel,
    grad=NOT_DIFFERENTIABLE,
    stateful=True,
)
register_op(
    "MakeIterator",
    infer=lambda op: [],
    kernel=_make_iterator_kernel,
    grad=NOT_DIFFERENTIABLE,
    stateful=True,
)
register_op(
    "IteratorGetNext",
    infer=_get_next_infer,
    kernel=_get_next_kernel,
    grad=NOT_DIFFERENTIABLE,
    stateful=True,
)
register_op(
    "IteratorToStringHandle",
    infer=lambda op: [(_dt.string, TensorShape([]))],
    kernel=_to_string_kernel,
    grad=NOT_DIFFERENTIABLE,
    stateful=True,
)
register_op(
    "IteratorFromStringHandleV2",
    infer=_handle_infer,
    kernel=_from_string_kernel,
    grad=NOT_DIFFERENTIABLE,
    stateful=True,
    default_name="IteratorFromStringHandle",
)


class Iterator:
    """Reads the elements of a dataset in a session (TF1 ``tf.data.Iterator``).

    Made by ``Dataset.make_one_shot_iterator()``, ``Dataset.make_initializable_iterator()``,
    ``Iterator.from_structure`` or ``Iterator.from_string_handle``. ``get_next()`` is an op
    giving the next element each time a run computes it (once per run, however many of
    its tensors are fetched); past the end it raises ``fr.errors.OutOfRangeError``.

    A run error computing one element (a failing map function, a ``py_func`` that
    raises) is raised by the ``get_next`` run that asked for that element; the next run
    goes on with the following element, as in TF.
    """

    def __init__(self, handle: Tensor, specs: Any, initializer: Operation | None = None):
        self._iterator_resource = handle
        self._specs = specs
        self._initializer = initializer

    @staticmethod
    def from_structure(
        output_types: Any,
        output_shapes: Any = None,
        shared_name: str | None = None,
        output_classes: Any = None,
    ) -> Iterator:
        """An uninitialized iterator for datasets of this element structure; each
        ``make_initializer(dataset)`` op (re)starts it on ``dataset``.

        Args:
          output_types: the nest of element dtypes.
          output_shapes: the nest of element shapes (default: unknown).
          shared_name: the iterator's name in the session's state (default: its op's).
          output_classes: accepted (components are tensors).
        """
        specs = st.specs_from(output_types, output_shapes)
        attrs = {"shared_name": shared_name or "", "_specs": st.flatten(specs)}
        handle = make("IteratorV2", [], attrs, None, "Iterator")
        return Iterator(handle, specs)

    @staticmethod
    def from_string_handle(
        string_handle: Any,
        output_types: Any,
        output_shapes: Any = None,
        output_classes: Any = None,
    ) -> Iterator:
        """A feedable iterator: reads from whichever iterator's ``string_handle()`` value
        ``string_handle`` (a scalar string tensor, usually a placeholder) has in a run.

        Raises at run time NotFoundError for an unknown handle and InvalidArgumentError
        when that iterator's types are not ``output_types``.
        """
        specs = st.specs_from(output_types, output_shapes)
        s = convert_to_tensor(string_handle, dtype=_dt.string, name="string_handle")
        attrs = {"_specs": st.flatten(specs)}
        handle = make("IteratorFromStringHandleV2", [s], attrs, None, "IteratorFromStringHandle")
        return Iterator(handle, specs)

    @property
    def initializer(self) -> Operation:
        """The op (re)starting an initializable iterator on its dataset.

        Raises:
          ValueError: for an iterator without one (one-shot, or from a structure).
        """
        if self._initializer is None:
            raise ValueError("Iterator does not have an initializer.")
        return self._initializer

    def make_initializer(self, dataset: DatasetV1, name: str | None = None) -> Operation:
        """An op that (re)starts this iterator on ``dataset`` (of this element structure).

        Raises:
          TypeError: if ``dataset``'s structure, types or shapes do not fit the iterator's.
        """
        if not isinstance(dataset, DatasetV1):
            raise TypeError("make_initializer: dataset must be a Dataset, got %r" % (dataset,))
        mine, theirs = self._specs, dataset._specs
        if not st.same_structure(mine, theirs):
            raise TypeError(
                "The two structures don't have the same sequence type. Expected %s but got "
                "dataset with structure %s" % (st.describe(mine), st.describe(theirs))
            )
        if [s.dtype for s in st.flatten(mine)] != [s.dtype for s in st.flatten(theirs)]:
            raise TypeError(
                "Expected output types %s but got dataset with output types %s."
                % (_types_str(mine), _types_str(theirs))
            )
        for a, b in zip(st.flatten(mine), st.flatten(theirs)):
            if not a.shape.is_compatible_with(b.shape):
                raise TypeError(
                    "Expected output shapes compatible with %s but got dataset with output "
                    "shapes %s." % (st.shapes_of(mine), st.shapes_of(theirs))
                )
        return make_op(
            "MakeIterator",
            [dataset._variant_tensor, self._iterator_resource],
            {},
            name,
            "MakeIterator",
        )

    def get_next(self, name: str | None = None) -> Any:
        """The next element (a nest of tensors with the iterator's static shapes)."""
        flat = st.flatten(self._specs)
        op = make_op(
            "IteratorGetNext", [self._iterator_resource], {"_specs": flat}, name, "IteratorGetNext"
        )
        return st.pack(self._specs, list(op.outputs))

    def string_handle(self, name: str | None = None) -> Tensor:
        """A scalar string naming this iterator in the session, to feed a
        ``from_string_handle`` iterator."""
        return make(
            "IteratorToStringHandle",
            [self._iterator_resource],
            {},
            name,
            "IteratorToStringHandle",
        )

    @property
    def element_spec(self) -> Any:
        """The nest of ``TensorSpec`` of one element."""
        return self._specs

    @property
    def output_types(self) -> Any:
        """The nest of element dtypes."""
        return st.types_of(self._specs)

    @property
    def output_shapes(self) -> Any:
        """The nest of element shapes."""
        return st.shapes_of(self._specs)

    @property
    def output_classes(self) -> Any:
        """The nest of component classes (``fr.Tensor``)."""
        return st.classes_of(self._specs)


def _types_str(specs: Any) -> str:
    flat = [s.dtype for s in st.flatten(specs)]
    return (
        "fr.%s" % flat[0].name
        if len(flat) == 1 and not st.is_nest(specs)
        else repr(st.types_of(specs))
    )


def _placeholder_above(t: Tensor) -> Operation | None:
    seen: set = set()
    stack = [t.op]
    while stack:
        op = stack.pop()
        if op in seen:
            continue
        seen.add(op)
        if op.type == "Placeholder":
            return op
        stack.extend(x.op for x in op.inputs)
        stack.extend(op.control_inputs)
    return None


def one_shot_iterator(dataset: DatasetV1) -> Iterator:
    """An iterator that makes its dataset in the first run using it (TF1's
    ``make_one_shot_iterator``).

    Raises:
      ValueError: if the dataset depends on a placeholder (it could not be fed).
    """
    if not isinstance(dataset, DatasetV1):
        raise TypeError("make_one_shot_iterator: expected a Dataset, got %r" % (dataset,))
    ph = _placeholder_above(dataset._variant_tensor)
    if ph is not None:
        raise ValueError(
            "Cannot capture a placeholder (name:%s, type:%s) by value." % (ph.name, ph.type)
        )
    g = get_default_graph()
    attrs = {
        "dataset": dataset._variant_tensor,
        "_specs": st.flatten(dataset._specs),
        "_init_lock": threading.Lock(),
    }
    with g.control_dependencies(None):
        handle = make("OneShotIterator", [], attrs, None, "OneShotIterator")
    return Iterator(handle, dataset._specs)


def make_one_shot_iterator(dataset: DatasetV1) -> Iterator:
    """``dataset.make_one_shot_iterator()`` (TF1 ``tf.data.make_one_shot_iterator``)."""
    return one_shot_iterator(dataset)


def make_initializable_iterator(dataset: DatasetV1, shared_name: str | None = None) -> Iterator:
    """``dataset.make_initializable_iterator()`` (TF1
    ``tf.data.make_initializable_iterator``)."""
    return dataset.make_initializable_iterator(shared_name)


def get_output_types(dataset_or_iterator: DatasetV1 | Iterator) -> Any:
    """The nest of element dtypes of a dataset or iterator."""
    return dataset_or_iterator.output_types


def get_output_shapes(dataset_or_iterator: DatasetV1 | Iterator) -> Any:
    """The nest of element shapes of a dataset or iterator."""
    return dataset_or_iterator.output_shapes


def get_output_classes(dataset_or_iterator: DatasetV1 | Iterator) -> Any:
    """The nest of component classes of a dataset or iterator."""
    return dataset_or_iterator.output_classes
