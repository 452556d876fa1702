"""Queue runners: loops that keep a queue filled, as threads (TF1) or as trio tasks.

``QueueRunner`` holds a queue's enqueue ops. ``create_threads`` starts one thread per
enqueue op, each running its op with ``sess.run`` until the coordinator asks to stop or
the op reports that its input is exhausted (``OutOfRangeError``); the last one to end
closes the queue, so consumers drain it and then get ``OutOfRangeError`` too. With a
coordinator, one more thread waits for the stop request and closes the queue with
``cancel_pending_enqueues=True``, which ends enqueues blocked on a full queue.

``queue_runners`` / ``start_queue_runners_async`` are the same loops for trio
programs: each enqueue op is a task awaiting ``sess.arun``; stopping closes the queues
the same way and cancels the tasks.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import threading
import weakref
from collections.abc import AsyncIterator, Iterable, Sequence
from typing import TYPE_CHECKING, Any

import trio

from .. import errors
from .._core.graph import GraphKeys, get_default_graph, get_default_session

if TYPE_CHECKING:
    from .._core.graph import Operation, Tensor
    from ..ops.data_flow_ops import QueueBase
    from ..protos import QueueRunnerDef
    from ..session import Session
    from .coordinator import Coordinator

__all__ = [
    "QueueRunner",
    "add_queue_runner",
    "start_queue_runners",
    "queue_runners",
    "start_queue_runners_async",
    "QueueRunnerTasks",
]

_log = logging.getLogger("flowrt.train")

# Every runner started, a thread or a QueueRunnerTasks, for live_runners(): runner ->
# (session, description). Weak keys: a runner that ended and was dropped leaves.
_LOOPS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _session_closed(sess) -> bool:
    return bool(getattr(sess, "_closed", False))


class QueueRunner:
    """Holds a list of enqueue ops for a queue, each to be run in a thread (or task).

    Args:
      queue: the queue the ops fill.
      enqueue_ops: the ops to run in a loop, one thread each.
      close_op: closes the queue, keeping pending enqueues; run when the last loop ends.
        Defaults to ``queue.close()``.
      cancel_op: closes the queue and cancels pending enqueues; run on a stop request.
        Defaults to ``queue.close(cancel_pending_enqueues=True)``.
      queue_closed_exception_types: a non-empty tuple of ``fr.errors`` classes that,
        raised by an enqueue op, mean its input is closed and the loop ends quietly.
        Defaults to ``(fr.errors.OutOfRangeError,)``.
      queue_runner_def: a ``QueueRunnerDef`` proto naming the ops in the default graph
        (from ``to_proto``); excludes the arguments above.
      import_scope: a name scope prepended to the names of ``queue_runner_def``.

    Raises:
      ValueError: if ``queue`` or ``enqueue_ops`` is missing, or given together with
        ``queue_runner_def``.
      TypeError: if ``queue_closed_exception_types`` is not a tuple of error classes.
    """

    def __init__(
        self,
        queue: QueueBase | None = None,
        enqueue_ops: Sequence[Operation | Tensor] | None = None,
        close_op: Operation | None = None,
        cancel_op: Operation | None = None,
        queue_closed_exception_types: tuple[type[errors.OpError], ...] | None = None,
        queue_runner_def: QueueRunnerDef | None = None,
        import_scope: str | None = None,
    ) -> None:
        if queue_runner_def is not None:
            if queue or enqueue_ops:
                raise ValueError("queue_runner_def and queue are mutually exclusive.")
            self._init_from_proto(queue_runner_def, import_scope)
            return
        if not queue or not enqueue_ops:
            raise ValueError("Must provide queue and enqueue_ops.")
        if queue_closed_exception_types is not None:
            if (
                not isinstance(queue_closed_exception_types, tuple)
                or not queue_closed_exception_types
                or not all(
                    isinstance(t, type) and issubclass(t, errors.OpError)
                    for t in queue_closed_exception_types
                )
            ):
                raise TypeError(
                    "queue_closed_exception_types, when provided, must be a "
                    "tuple of fr.error types, but saw: %s" % (queue_closed_exception_types,)
                )
        self._queue = queue
        self._enqueue_ops = list(enqueue_ops)
        self._close_op = close_op if close_op is not None else queue.close()
        self._cancel_op = (
            cancel_op if cancel_op is not None else queue.close(cancel_pending_enqueues=True)
        )
        self._queue_closed_exception_types = (
            tuple(queue_closed_exception_types)
            if queue_closed_exception_types
            else (errors.OutOfRangeError,)
        )
        self._lock = threading.Lock()
        self._runs_per_session: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._exceptions_raised: list = []

    def _init_from_proto(self, queue_runner_def, import_scope):
        g = get_default_graph()

        def element(name):
            return g.as_graph_element(_prepend_scope(name, import_scope))

        self._queue = element(queue_runner_def.queue_name)
        self._enqueue_ops = [element(n) for n in queue_runner_def.enqueue_op_name]
        self._close_op = element(queue_runner_def.close_op_name)
        self._cancel_op = element(queue_runner_def.cancel_op_name)
        codes = list(queue_runner_def.queue_closed_exception_types)
        self._queue_closed_exception_types = (
            tuple(errors.exception_type_from_error_code(c) for c in codes)
            if codes
            else (errors.OutOfRangeError,)
        )
        self._lock = threading.Lock()
        self._runs_per_session = weakref.WeakKeyDictionary()
        self._exceptions_raised = []

    def to_proto(self, export_scope: str | None = None) -> QueueRunnerDef | None:
        """This runner as a ``QueueRunnerDef`` protocol buffer.

        Args:
          export_scope: a name scope stripped from the names; a runner whose queue is
            outside it gives None.

        Returns:
          A ``QueueRunnerDef`` (wire-compatible with TF's), or None.
        """
        if (
            export_scope is not None
            and not self.name.startswith(export_scope + "/")
            and self.name != export_scope
        ):
            return None
        from ..protos import QueueRunnerDef

        def strip(name):
            return _strip_scope(name, export_scope)

        # TF's error codes; the proto stubs type them as their enum, which an int is.
        codes: list[Any] = [
            errors.error_code_from_exception_type(t) for t in self._queue_closed_exception_types
        ]
        return QueueRunnerDef(
            queue_name=strip(self.name),
            enqueue_op_name=[strip(op.name) for op in self._enqueue_ops],
            close_op_name=strip(self._close_op.name),
            cancel_op_name=strip(self._cancel_op.name),
            queue_closed_exception_types=codes,
        )

    @staticmethod
    def from_proto(
        queue_runner_def: QueueRunnerDef, import_scope: str | None = None
    ) -> QueueRunner:
        """A ``QueueRunner`` for the ops a ``QueueRunnerDef`` names in the default graph
        (under ``import_scope``, if given)."""
        return QueueRunner(queue_runner_def=queue_runner_def, import_scope=import_scope)

    @property
    def queue(self) -> QueueBase | Operation:
        """The queue (for a runner made from a proto: the queue's op, as in TF)."""
        return self._queue

    @property
    def enqueue_ops(self) -> list[Operation | Tensor]:
        return self._enqueue_ops

    @property
    def close_op(self) -> Operation:
        return self._close_op

    @property
    def cancel_op(self) -> Operation:
        return self._cancel_op

    @property
    def queue_closed_exception_types(self) -> tuple[type[errors.OpError], ...]:
        return self._queue_closed_exception_types

    @property
    def exceptions_raised(self) -> list[BaseException]:
        """Exceptions of threads started without a coordinator (with one, they go to it)."""
        return self._exceptions_raised

    @property
    def name(self) -> str:
        """The name of the queue."""
        return self._queue.name

    # --- threads --------------------------------------------------------------------

    def _end_run(self, sess) -> bool:
        """Counts one loop of ``sess`` as ended; True if it was the last one."""
        with self._lock:
            self._runs_per_session[sess] -= 1
            return self._runs_per_session[sess] == 0

    def _run(self, sess, enqueue_op, coord=None):
        """One thread: runs ``enqueue_op`` until a stop or a closed input."""
        ended = False
        try:
            enqueue = sess.make_callable(enqueue_op)
            while not (coord is not None and coord.should_stop()):
                try:
                    enqueue()
                except self._queue_closed_exception_types:
                    ended = True
                    if self._end_run(sess):
                        try:
                            sess.run(self._close_op)
                        except Exception as e:  # TF1 ignores it too
                            _log.debug("Ignored exception: %s", e)
                    return
        except Exception as e:  # reported to the coordinator
            if _ended_by_stop(sess, coord, e):
                return
            if coord is not None:
                coord.request_stop(e)
            else:
                _log.error("Exception in QueueRunner: %s", e)
                with self._lock:
                    self._exceptions_raised.append(e)
                raise
        finally:
            if not ended:
                self._end_run(sess)

    def _close_on_stop(self, sess, cancel_op, coord):
        """The watcher thread: on a stop request, closes the queue and cancels pending
        enqueues, so loops blocked on a full queue end."""
        coord.wait_for_stop()
        try:
            sess.run(cancel_op)
        except Exception as e:  # e.g. the session closed first
            _log.debug("Ignored exception: %s", e)

    def create_threads(
        self,
        sess: Session,
        coord: Coordinator | None = None,
        daemon: bool = False,
        start: bool = False,
    ) -> list[threading.Thread]:
        """Creates (and optionally starts) a thread per enqueue op for ``sess``.

        With a coordinator, the threads report errors to it and stop on its request,
        and one more thread closes the queue (cancelling pending enqueues) when a stop
        is requested. While threads made earlier for ``sess`` still run, returns [].

        Args:
          sess: the ``Session`` to run the ops in.
          coord: an optional ``Coordinator``; the threads register with it.
          daemon: make the threads daemon threads.
          start: start the threads (else the caller calls ``start()``).

        Returns:
          The list of threads.
        """
        with self._lock:
            if self._runs_per_session.get(sess, 0) > 0:
                return []
            self._runs_per_session[sess] = len(self._enqueue_ops)
            self._exceptions_raised = []
        threads = [
            threading.Thread(
                target=self._run,
                args=(sess, op, coord),
                name="QueueRunnerThread-%s-%s" % (self.name, op.name),
            )
            for op in self._enqueue_ops
        ]
        if coord is not None:
            threads.append(
                threading.Thread(
                    target=self._close_on_stop,
                    args=(sess, self._cancel_op, coord),
                    name="QueueRunnerThread-%s-close_on_stop" % self.name,
                )
            )
        for t, op in zip(threads, self._enqueue_ops):
            _LOOPS[t] = (
                weakref.ref(sess),
                (self.name,),
                "runs '%s' to fill queue '%s'" % (op.name, self.name),
            )
        for t in threads:
            if coord is not None:
                coord.register_thread(t)
            if daemon:
                t.daemon = True
            if start:
                t.start()
        return threads

    def __repr__(self) -> str:
        return "<fr.train.QueueRunner queue=%r enqueue_ops=%d>" % (
            self.name,
            len(self._enqueue_ops),
        )


def _strip_scope(name: str, scope: str | None) -> str:
    if scope and name.startswith(scope + "/"):
        return name[len(scope) + 1 :]
    return name


def _prepend_scope(name: str, scope: str | None) -> str:
    return "%s/%s" % (scope, name) if scope else name


@dataclasses.dataclass(frozen=True)
class LiveRunner:
    """A queue-runner loop still running: a thread, or a set of trio tasks.

    Attributes:
      description: e.g. ``"thread QueueRunnerThread-q-enqueue: runs 'enqueue' to fill
        queue 'q'"``.
      queues: the names of the queues it fills.
      thread: the thread, for a thread loop; None for trio tasks.
    """

    description: str
    queues: tuple[str, ...]
    thread: threading.Thread | None


def live_runners(sess: object = None) -> list[LiveRunner]:
    """The queue-runner loops (threads and trio tasks) still running, in start order.

    Args:
      sess: only the loops running ops in this session; all of them if None.

    Returns:
      One ``LiveRunner`` per thread, and one per running ``QueueRunnerTasks``.

    Note (flowrt): not in TF1; ``flowrt.testing`` uses it to report what feeds a
    stalled queue and to fail a test that leaks a runner.
    """
    out = []
    for loop, (sess_ref, queues, what) in list(_LOOPS.items()):
        if sess is not None and sess_ref() is not sess:
            continue
        if isinstance(loop, threading.Thread):
            if loop.is_alive():
                out.append(LiveRunner("thread %s: %s" % (loop.name, what), queues, loop))
        elif loop.running:
            out.append(LiveRunner("%d trio task(s): %s" % (loop.running, what), queues, None))
    return out


def _ended_by_stop(sess, coord, e) -> bool:
    """An enqueue cut short by the stop itself ends its loop quietly.

    Note (flowrt): TF1 reports these to the coordinator, which ignores them once a stop
    was requested; a closed session also ends the loops quietly here, where TF1 logs an
    error from each thread.
    """
    if _session_closed(sess):
        return isinstance(e, (errors.CancelledError, RuntimeError))
    return coord is not None and coord.should_stop() and isinstance(e, errors.CancelledError)


def add_queue_runner(qr: QueueRunner, collection: str = GraphKeys.QUEUE_RUNNERS) -> None:
    """Adds ``qr`` to a graph collection (default ``GraphKeys.QUEUE_RUNNERS``), where
    ``start_queue_runners`` finds it."""
    get_default_graph().add_to_collection(collection, qr)


def _session_or_default(sess, fn_name):
    if sess is None:
        sess = get_default_session()
        if sess is None:
            raise ValueError(
                "Cannot start queue runners: No default session is registered. "
                "Use `with sess.as_default()` or pass an explicit session to "
                "fr.train.%s(sess=sess)" % fn_name
            )
    from ..session import Session

    if not isinstance(sess, Session):
        raise TypeError("sess must be a `fr.Session` object. Given class: %s" % sess.__class__)
    return sess


def start_queue_runners(
    sess: Session | None = None,
    coord: Coordinator | None = None,
    daemon: bool = True,
    start: bool = True,
    collection: str = GraphKeys.QUEUE_RUNNERS,
) -> list[threading.Thread]:
    """Starts threads for all queue runners in ``collection`` of the session's graph.

    Args:
      sess: the ``Session`` to run the enqueue ops in; the default session if None.
      coord: an optional ``Coordinator`` for stopping the threads and their errors.
      daemon: make the threads daemon threads (they don't keep the program alive).
      start: start the threads; False only creates them.
      collection: the collection holding the queue runners.

    Returns:
      All the threads (join them with ``coord.join(threads)``).

    Raises:
      ValueError: with no ``sess`` and no default session.
      TypeError: if ``sess`` is not a ``fr.Session``.
    """
    sess = _session_or_default(sess, "start_queue_runners")
    runners = sess.graph.get_collection(collection)
    if not runners:
        _log.warning(
            "`fr.train.start_queue_runners()` was called when no queue runners "
            "were defined. You can safely remove the call to this function."
        )
    threads = []
    with sess.graph.as_default():
        for qr in runners:
            threads.extend(qr.create_threads(sess, coord=coord, daemon=daemon, start=start))
    return threads


# --------------------------------------------------------------------------------------
# The async form, for trio programs
# --------------------------------------------------------------------------------------


class QueueRunnerTasks:
    """The running enqueue loops of a set of queue runners, as trio tasks.

    Made by ``start_queue_runners_async`` or ``queue_runners``. ``await stop()`` closes
    every runner's queue with ``cancel_pending_enqueues=True`` and cancels the loops.
    """

    def __init__(self, sess: Session, runners: Iterable[QueueRunner]) -> None:
        self._sess = sess
        self._runners = list(runners)
        self._left = {qr: len(qr.enqueue_ops) for qr in self._runners}
        self._scope = trio.CancelScope()
        self._stopping = False
        self._error: BaseException | None = None
        self._done = trio.Event()
        names = tuple(qr.name for qr in self._runners)
        _LOOPS[self] = (
            weakref.ref(sess),
            names,
            "run the enqueue ops of queue(s) %s" % ", ".join("'%s'" % n for n in names),
        )

    @property
    def queue_runners(self) -> list[QueueRunner]:
        return list(self._runners)

    @property
    def running(self) -> int:
        """How many enqueue loops are still running."""
        return sum(self._left.values())

    async def _serve(self, task_status=trio.TASK_STATUS_IGNORED):
        try:
            with self._scope:
                async with trio.open_nursery() as nursery:
                    for qr in self._runners:
                        for op in qr.enqueue_ops:
                            nursery.start_soon(
                                self._loop,
                                qr,
                                op,
                                name="QueueRunnerTask-%s-%s" % (qr.name, op.name),
                            )
                    task_status.started(self)
        finally:
            self._done.set()
        if self._error is not None:
            raise self._error

    async def _loop(self, qr, op):
        sess = self._sess
        ended = False
        try:
            while True:
                await sess.arun(op)
        except qr.queue_closed_exception_types:
            ended = True
            self._left[qr] -= 1
            if self._left[qr] == 0:
                try:
                    await sess.arun(qr.close_op)
                except Exception as e:  # as the threads do
                    _log.debug("Ignored exception: %s", e)
        except Exception as e:  # surfaces from the block
            if not (self._stopping or _ended_by_stop(sess, None, e)):
                if self._error is None:
                    self._error = e
                self._scope.cancel()
        finally:
            if not ended:
                self._left[qr] -= 1

    async def stop(self) -> None:
        """Closes the queues (cancelling pending enqueues) and ends the loops."""
        self._stopping = True
        with trio.CancelScope(shield=True):
            for qr in self._runners:
                if _session_closed(self._sess):
                    break
                try:
                    await self._sess.arun(qr.cancel_op)
                except Exception as e:  # e.g. the session closed first
                    _log.debug("Ignored exception: %s", e)
            self._scope.cancel()
            await self._done.wait()


async def start_queue_runners_async(
    sess: Session | None = None,
    nursery: trio.Nursery | None = None,
    collection: str = GraphKeys.QUEUE_RUNNERS,
) -> QueueRunnerTasks:
    """Starts the queue runners of ``collection`` as trio tasks in ``nursery``.

    Each enqueue op loops as a task awaiting ``sess.arun(op)``. A loop whose input is
    exhausted ends (the last one of a runner closes its queue); any other error
    cancels the loops and is raised into ``nursery``. Call ``await tasks.stop()`` to
    close the queues (cancelling pending enqueues) and end the loops.

    Example:
      async with trio.open_nursery() as nursery:
          tasks = await fr.train.start_queue_runners_async(sess, nursery)
          for _ in range(100):
              await sess.arun(train_op)
          await tasks.stop()

    Returns:
      A ``QueueRunnerTasks``.
    """
    if nursery is None:
        raise TypeError(
            "start_queue_runners_async() needs the nursery to run the tasks in; "
            "or use `async with fr.train.queue_runners(sess) as tasks:`"
        )
    sess = _session_or_default(sess, "start_queue_runners_async")
    tasks = QueueRunnerTasks(sess, sess.graph.get_collection(collection))
    return await nursery.start(tasks._serve)


@contextlib.asynccontextmanager
async def queue_runners(
    sess: Session | None = None, collection: str = GraphKeys.QUEUE_RUNNERS
) -> AsyncIterator[QueueRunnerTasks]:
    """Runs the queue runners of ``collection`` as trio tasks for the block.

    On leaving the block (normally or by an exception) the queues are closed with
    ``cancel_pending_enqueues=True`` and the loops are cancelled. If a loop fails, the
    block is cancelled and the loop's exception is raised from the ``async with``.

    Example:
      async with fr.train.queue_runners(sess):
          for _ in range(100):
              await sess.arun(train_op)

    Yields:
      A ``QueueRunnerTasks``.
    """
    try:
        async with trio.open_nursery() as nursery:
            tasks = await start_queue_runners_async(sess, nursery, collection)
            try:
                yield tasks
            finally:
                await tasks.stop()
    except BaseExceptionGroup as eg:
        raise _single(eg) from None


def _single(eg: BaseExceptionGroup):
    """The one exception in a group (the nursery wraps even a single one), else the
    group."""
    leaves = []

    def walk(e):
        if isinstance(e, BaseExceptionGroup):
            for x in e.exceptions:
                walk(x)
        else:
            leaves.append(e)

    walk(eg)
    return leaves[0] if len(leaves) == 1 else eg
