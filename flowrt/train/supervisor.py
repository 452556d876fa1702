"""``fr.train.Supervisor``: TF1's older training-loop helper (``managed_session``).

It initializes or restores the model from ``logdir`` through a ``SessionManager``, starts
the queue runners and, for the chief, its "standard services": threads that save a
checkpoint every ``save_model_secs`` and write the summary op and ``global_step/sec``
every ``save_summaries_secs``. TF1 deprecates it in favour of
``MonitoredTrainingSession``; it is here so programs written for it port unchanged.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Final, Literal

from .. import errors
from .._core.graph import GraphKeys, get_default_graph
from ..ops.array_ops import group
from ..summary.protos import Summary
from ..summary.summary_ops import merge_all
from ..summary.writer import FileWriter
from ..variables import (
    global_variables,
    global_variables_initializer,
    local_variables_initializer,
    report_uninitialized_variables,
)
from . import training_util
from .coordinator import Coordinator, LooperThread
from .saver import Saver
from .session_manager import SessionManager

if TYPE_CHECKING:
    from typing_extensions import TypeIs

    from .._core.graph import Graph, Tensor
    from .._core.typing import OpOrTensor
    from ..session import Session
    from ..session_options import ConfigProto, RunOptions
    from ..variables import Variable
    from .queue_runner import QueueRunner


def _is_default(arg: object) -> TypeIs[Literal[0]]:
    return arg is Supervisor.USE_DEFAULT


__all__ = ["Supervisor", "basic_train_loop"]

_log = logging.getLogger("flowrt.train")


class Supervisor:
    """Initializes or restores a model, runs its queue runners and periodic services.

    Example:
      sv = fr.train.Supervisor(logdir="logs")
      with sv.managed_session() as sess:
          while not sv.should_stop():
              sess.run(train_op)

    Args:
      graph: the graph (default: the default graph); finalized by the constructor.
      ready_op: the readiness check. This and the next seven arguments:
        ``Supervisor.USE_DEFAULT`` takes each from its graph collection or builds
        TF1's default; None disables it.
      ready_for_local_init_op: the readiness check before ``local_init_op``.
      init_op: initializes the model when nothing is restored.
      local_init_op: run in every new session.
      summary_op: the summary service's op.
      saver: the checkpoint service's ``Saver``.
      global_step: the global step.
      summary_writer: the writer of the summaries.
      is_chief: a chief initializes or restores, and runs the standard services.
      init_feed_dict: feeds for ``init_op``.
      logdir: checkpoints and event files go here (and are restored from).
      save_summaries_secs: seconds between summaries (None or 0: none).
      save_model_secs: seconds between checkpoints (None or 0: none).
      recovery_wait_secs: seconds between readiness checks of a non-chief.
      stop_grace_secs: how long threads get to end on ``stop()``.
      checkpoint_basename: the checkpoint prefix in ``logdir``.
      session_manager: a ``SessionManager`` to use instead of a new one.
      init_fn: ``init_fn(sess)`` called after ``init_op``.

    Note (flowrt): no ``SessionLog`` events and no ``graph.pbtxt`` are written; the
    graph goes to the event file.
    """

    USE_DEFAULT: Final = 0

    def __init__(
        self,
        graph: Graph | None = None,
        ready_op: Tensor | None | Literal[0] = USE_DEFAULT,
        ready_for_local_init_op: Tensor | None | Literal[0] = USE_DEFAULT,
        is_chief: bool = True,
        init_op: OpOrTensor | None | Literal[0] = USE_DEFAULT,
        init_feed_dict: dict[Any, Any] | None = None,
        local_init_op: OpOrTensor | None | Literal[0] = USE_DEFAULT,
        logdir: str | None = None,
        summary_op: Tensor | None | Literal[0] = USE_DEFAULT,
        saver: Saver | None | Literal[0] = USE_DEFAULT,
        global_step: Variable | Tensor | None | Literal[0] = USE_DEFAULT,
        save_summaries_secs: float | None = 120,
        save_model_secs: float | None = 600,
        recovery_wait_secs: float = 30,
        stop_grace_secs: float = 120,
        checkpoint_basename: str = "model.ckpt",
        session_manager: SessionManager | None = None,
        summary_writer: FileWriter | None | Literal[0] = USE_DEFAULT,
        init_fn: Callable[[Session], Any] | None = None,
        local_init_run_options: RunOptions | None = None,
    ) -> None:
        graph = graph if graph is not None else get_default_graph()
        default = Supervisor.USE_DEFAULT
        with graph.as_default():

            def first(key):
                found = graph.get_collection(key)
                return found[0] if found else None

            def pick(arg, key, build):
                if arg is not default:
                    return arg
                value = first(key)
                if value is None and build is not None:
                    value = build()
                    if value is not None:
                        graph.add_to_collection(key, value)
                return value

            self._ready_op = pick(ready_op, GraphKeys.READY_OP, report_uninitialized_variables)
            self._ready_for_local_init_op = pick(
                ready_for_local_init_op, GraphKeys.READY_FOR_LOCAL_INIT_OP, None
            )
            self._init_op = pick(init_op, GraphKeys.INIT_OP, global_variables_initializer)
            self._init_feed_dict = init_feed_dict
            tables = graph.get_collection(GraphKeys.TABLE_INITIALIZERS)
            self._local_init_op = pick(
                local_init_op,
                GraphKeys.LOCAL_INIT_OP,
                lambda: group(local_variables_initializer(), *tables),
            )
            self._saver = pick(
                saver, GraphKeys.SAVERS, lambda: Saver() if global_variables() else None
            )
            self._summary_op = pick(summary_op, GraphKeys.SUMMARY_OP, merge_all)
            step: Variable | Tensor | None
            if _is_default(global_step):
                step = first(GraphKeys.GLOBAL_STEP)
                if step is None:
                    try:
                        step = graph.get_tensor_by_name("global_step:0")
                    except (KeyError, ValueError):
                        step = None
                    if step is not None and not step.dtype.is_integer:
                        step = None
            else:
                step = global_step
            self._global_step = step
        self._graph = graph
        self._is_chief = is_chief
        self._coord = Coordinator()
        self._recovery_wait_secs = recovery_wait_secs
        self._stop_grace_secs = stop_grace_secs
        self._init_fn = init_fn
        self._logdir = self._save_path = self._summary_writer = None
        self._save_summaries_secs = self._save_model_secs = None
        if is_chief:
            self._logdir = logdir
            self._save_summaries_secs = save_summaries_secs
            self._save_model_secs = save_model_secs
            if logdir:
                self._save_path = os.path.join(logdir, checkpoint_basename)
            if _is_default(summary_writer):
                if logdir:
                    self._summary_writer = FileWriter(logdir)
            else:
                self._summary_writer = summary_writer
        self._graph_added_to_summary = False
        self._session_manager = session_manager or SessionManager(
            local_init_op=self._local_init_op,
            ready_op=self._ready_op,
            ready_for_local_init_op=self._ready_for_local_init_op,
            graph=graph,
            recovery_wait_secs=recovery_wait_secs,
        )
        graph.finalize()

    # --- properties ----------------------------------------------------------------------

    @property
    def is_chief(self) -> bool:
        """Whether this supervisor is the chief."""
        return self._is_chief

    @property
    def session_manager(self) -> SessionManager:
        """The ``SessionManager`` that makes the sessions."""
        return self._session_manager

    @property
    def coord(self) -> Coordinator:
        """The ``Coordinator`` of the threads."""
        return self._coord

    @property
    def init_op(self) -> OpOrTensor | None:
        """The op initializing the model (None: none)."""
        return self._init_op

    @property
    def init_feed_dict(self) -> dict[Any, Any] | None:
        """The feeds of ``init_op``."""
        return self._init_feed_dict

    @property
    def ready_op(self) -> Tensor | None:
        """The names of the uninitialized variables (empty when ready)."""
        return self._ready_op

    @property
    def ready_for_local_init_op(self) -> Tensor | None:
        """The readiness check run before ``local_init_op``."""
        return self._ready_for_local_init_op

    @property
    def summary_writer(self) -> FileWriter | None:
        """The writer of the summaries (None: none)."""
        return self._summary_writer

    @property
    def summary_op(self) -> Tensor | None:
        """The summary op the summary service runs."""
        return self._summary_op

    @property
    def save_summaries_secs(self) -> float | None:
        """Seconds between summaries (None on a non-chief)."""
        return self._save_summaries_secs

    @property
    def global_step(self) -> Variable | Tensor | None:
        """The global step."""
        return self._global_step

    @property
    def saver(self) -> Saver | None:
        """The ``Saver`` of the checkpoint service."""
        return self._saver

    @property
    def save_model_secs(self) -> float | None:
        """Seconds between checkpoints (None on a non-chief)."""
        return self._save_model_secs

    @property
    def save_path(self) -> str | None:
        """The checkpoint prefix (``logdir/checkpoint_basename``)."""
        return self._save_path

    # --- sessions ------------------------------------------------------------------------

    def _write_graph(self):
        if not self._graph_added_to_summary and self._summary_writer is not None:
            self._summary_writer.add_graph(self._graph)
            self._graph_added_to_summary = True

    def prepare_or_wait_for_session(
        self,
        master: str = "",
        config: ConfigProto | None = None,
        wait_for_checkpoint: bool = False,
        max_wait_secs: float = 7200,
        start_standard_services: bool = True,
    ) -> Session:
        """A ready session: the chief restores ``logdir``'s latest checkpoint or runs the
        init ops (and starts the standard services); others wait until ready. Starts the
        queue runners when ``start_standard_services``."""
        self._coord.clear_stop()
        if self._summary_writer is not None:
            self._summary_writer.reopen()
        if self._is_chief:
            sess = self._session_manager.prepare_session(
                master,
                init_op=self._init_op,
                saver=self._saver,
                checkpoint_dir=self._logdir,
                wait_for_checkpoint=wait_for_checkpoint,
                max_wait_secs=max_wait_secs,
                config=config,
                init_feed_dict=self._init_feed_dict,
                init_fn=self._init_fn,
            )
            self._write_graph()
            if start_standard_services:
                self.start_standard_services(sess)
        else:
            sess = self._session_manager.wait_for_session(
                master, config=config, max_wait_secs=max_wait_secs
            )
        if start_standard_services:
            self.start_queue_runners(sess)
        return sess

    def start_standard_services(self, sess: Session) -> list[LooperThread]:
        """Starts the checkpoint, summary and step-counter threads (chief only).

        Raises:
          RuntimeError: not the chief.
        """
        if not self._is_chief:
            raise RuntimeError(
                "Only chief supervisor can start standard services. Because "
                "only chief supervisors can write events."
            )
        if not self._logdir:
            _log.warning("Standard services need a 'logdir' passed to the SessionManager")
            return []
        threads: list[LooperThread] = []
        if self._save_summaries_secs and self._summary_writer is not None:
            if self._summary_op is not None:
                threads.append(_SummaryThread(self, sess))
            if self._global_step is not None:
                threads.append(_StepCounterThread(self, sess))
        if self._saver is not None and self._save_model_secs:
            threads.append(_CheckpointThread(self, sess))
        for t in threads:
            t.start()
        return threads

    def start_queue_runners(
        self, sess: Session, queue_runners: Iterable[QueueRunner] | None = None
    ) -> list[threading.Thread]:
        """Starts threads for the queue runners (default: the graph's), coordinated by
        ``coord``."""
        if queue_runners is None:
            queue_runners = self._graph.get_collection(GraphKeys.QUEUE_RUNNERS)
        threads: list[threading.Thread] = []
        for qr in queue_runners:
            threads.extend(qr.create_threads(sess, coord=self._coord, daemon=True, start=True))
        return threads

    def loop(
        self,
        timer_interval_secs: float | None,
        target: Callable[..., Any],
        args: Iterable[Any] | None = None,
        kwargs: dict[str, Any] | None = None,
    ) -> LooperThread:
        """Starts a ``LooperThread`` calling ``target`` every ``timer_interval_secs``."""
        return LooperThread.loop(self._coord, timer_interval_secs, target, args, kwargs)

    def stop(
        self,
        threads: Iterable[threading.Thread] | None = None,
        close_summary_writer: bool = True,
        ignore_live_threads: bool = False,
    ) -> None:
        """Stops the threads and waits for them; re-raises an error one reported."""
        self._coord.request_stop()
        try:
            self._coord.join(
                threads,
                stop_grace_period_secs=self._stop_grace_secs,
                ignore_live_threads=ignore_live_threads,
            )
        finally:
            if close_summary_writer and self._summary_writer is not None:
                self._summary_writer.close()
                self._graph_added_to_summary = False

    def request_stop(self, ex: BaseException | tuple[Any, Any, Any] | None = None) -> None:
        self._coord.request_stop(ex=ex)

    def should_stop(self) -> bool:
        return self._coord.should_stop()

    def stop_on_exception(self) -> AbstractContextManager[None]:
        return self._coord.stop_on_exception()

    def wait_for_stop(self) -> None:
        self._coord.wait_for_stop()

    def summary_computed(
        self, sess: Session, summary: Summary | bytes, global_step: int | None = None
    ) -> None:
        """Writes a computed summary (at ``global_step``, default the current one).

        Raises:
          RuntimeError: there is no summary writer.
        """
        if self._summary_writer is None:
            raise RuntimeError("Writing a summary requires a summary writer.")
        if global_step is None and self._global_step is not None:
            global_step = training_util.global_step(sess, self._global_step)
        self._summary_writer.add_summary(summary, global_step)

    @contextlib.contextmanager
    def managed_session(
        self,
        master: str = "",
        config: ConfigProto | None = None,
        start_standard_services: bool = True,
        close_summary_writer: bool = True,
    ) -> Iterator[Session]:
        """A ready session for the block; on leaving, the threads are stopped (an error
        one reported is raised) and the session closed. ``OutOfRangeError`` from the
        block ends it cleanly; other errors are raised after the stop."""
        sess = None
        try:
            sess = self.prepare_or_wait_for_session(
                master=master, config=config, start_standard_services=start_standard_services
            )
            yield sess
        except Exception as e:  # reported to the coordinator, as TF1
            self.request_stop(e)
        finally:
            try:
                self.stop(close_summary_writer=close_summary_writer)
            finally:
                if sess is not None:
                    try:
                        sess.close()
                    except Exception as e:  # must not mask the cause
                        _log.debug("Ignored exception while closing a session: %s", e)


class _CheckpointThread(LooperThread):
    def __init__(self, sv, sess):
        super().__init__(sv.coord, sv.save_model_secs)
        self._sv, self._sess = sv, sess

    def run_loop(self):
        step = self._sv.global_step
        self._sv.saver.save(
            self._sess,
            self._sv.save_path,
            global_step=None if step is None else training_util.global_step(self._sess, step),
        )


class _SummaryThread(LooperThread):
    def __init__(self, sv, sess):
        super().__init__(sv.coord, sv.save_summaries_secs)
        self._sv, self._sess = sv, sess

    def run_loop(self):
        if self._sv.global_step is not None:
            summary, step = self._sess.run([self._sv.summary_op, self._sv.global_step])
        else:
            summary, step = self._sess.run(self._sv.summary_op), None
        self._sv.summary_writer.add_summary(summary, step)


class _StepCounterThread(LooperThread):
    def __init__(self, sv, sess):
        super().__init__(sv.coord, sv.save_summaries_secs)
        self._sv, self._sess = sv, sess
        self._tag = "%s/sec" % sv.global_step.op.name

    def start_loop(self):
        self._last_time = time.time()
        self._last_step = training_util.global_step(self._sess, self._sv.global_step)

    def run_loop(self):
        now = time.time()
        step = training_util.global_step(self._sess, self._sv.global_step)
        elapsed = now - self._last_time
        rate = (step - self._last_step) / elapsed if elapsed > 0 else float("inf")
        self._last_time, self._last_step = now, step
        self._sv.summary_writer.add_summary(
            Summary(value=[Summary.Value(tag=self._tag, simple_value=rate)]), step
        )
        _log.info("%s: %g", self._tag, rate)


def basic_train_loop(
    supervisor: Supervisor,
    train_step_fn: Callable[..., Any],
    args: Sequence[Any] | None = None,
    kwargs: dict | None = None,
    master: str = "",
) -> None:
    """TF1's basic training loop: ``train_step_fn(sess, *args, **kwargs)`` in a
    ``supervisor.managed_session(master)`` until the supervisor says stop; a session
    ended by ``fr.errors.AbortedError`` is opened again and the loop goes on."""
    args = list(args or [])
    kwargs = dict(kwargs or {})
    retry = True
    while retry:
        retry = False
        try:
            with supervisor.managed_session(master) as sess:
                while not supervisor.should_stop():
                    train_step_fn(sess, *args, **kwargs)
        except errors.AbortedError:
            retry = True
