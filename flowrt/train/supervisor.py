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
import time

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

__all__ = ["Supervisor"]

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
      ready_op, ready_for_local_init_op, init_op, local_init_op, summary_op, saver,
        global_step, summary_writer: ``Supervisor.USE_DEFAULT`` takes each from its
        graph collection or builds TF1's default; None disables it.
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

    USE_DEFAULT = 0

    def __init__(
        self,
        graph=None,
        ready_op=USE_DEFAULT,
        ready_for_local_init_op=USE_DEFAULT,
        is_chief=True,
        init_op=USE_DEFAULT,
        init_feed_dict=None,
        local_init_op=USE_DEFAULT,
        logdir=None,
        summary_op=USE_DEFAULT,
        saver=USE_DEFAULT,
        global_step=USE_DEFAULT,
        save_summaries_secs=120,
        save_model_secs=600,
        recovery_wait_secs=30,
        stop_grace_secs=120,
        checkpoint_basename="model.ckpt",
        session_manager=None,
        summary_writer=USE_DEFAULT,
        init_fn=None,
        local_init_run_options=None,
    ):
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
            if global_step is default:
                global_step = first(GraphKeys.GLOBAL_STEP)
                if global_step is None:
                    try:
                        global_step = graph.get_tensor_by_name("global_step:0")
                    except (KeyError, ValueError):
                        global_step = None
                    if global_step is not None and not global_step.dtype.is_integer:
                        global_step = None
            self._global_step = global_step
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
            if summary_writer is default:
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

    is_chief = property(lambda self: self._is_chief)
    session_manager = property(lambda self: self._session_manager)
    coord = property(lambda self: self._coord)
    init_op = property(lambda self: self._init_op)
    init_feed_dict = property(lambda self: self._init_feed_dict)
    ready_op = property(lambda self: self._ready_op)
    ready_for_local_init_op = property(lambda self: self._ready_for_local_init_op)
    summary_writer = property(lambda self: self._summary_writer)
    summary_op = property(lambda self: self._summary_op)
    save_summaries_secs = property(lambda self: self._save_summaries_secs)
    global_step = property(lambda self: self._global_step)
    saver = property(lambda self: self._saver)
    save_model_secs = property(lambda self: self._save_model_secs)
    save_path = property(lambda self: self._save_path)

    # --- sessions ------------------------------------------------------------------------

    def _write_graph(self):
        if not self._graph_added_to_summary and self._summary_writer is not None:
            self._summary_writer.add_graph(self._graph)
            self._graph_added_to_summary = True

    def prepare_or_wait_for_session(
        self,
        master="",
        config=None,
        wait_for_checkpoint=False,
        max_wait_secs=7200,
        start_standard_services=True,
    ):
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

    def start_standard_services(self, sess) -> list:
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

    def start_queue_runners(self, sess, queue_runners=None) -> list:
        """Starts threads for the queue runners (default: the graph's), coordinated by
        ``coord``."""
        if queue_runners is None:
            queue_runners = self._graph.get_collection(GraphKeys.QUEUE_RUNNERS)
        threads = []
        for qr in queue_runners:
            threads.extend(qr.create_threads(sess, coord=self._coord, daemon=True, start=True))
        return threads

    def loop(self, timer_interval_secs, target, args=None, kwargs=None):
        """Starts a ``LooperThread`` calling ``target`` every ``timer_interval_secs``."""
        return LooperThread.loop(self._coord, timer_interval_secs, target, args, kwargs)

    def stop(self, threads=None, close_summary_writer=True, ignore_live_threads=False):
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

    def request_stop(self, ex=None):
        self._coord.request_stop(ex=ex)

    def should_stop(self) -> bool:
        return self._coord.should_stop()

    def stop_on_exception(self):
        return self._coord.stop_on_exception()

    def wait_for_stop(self):
        self._coord.wait_for_stop()

    def summary_computed(self, sess, summary, global_step=None):
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
        self, master="", config=None, start_standard_services=True, close_summary_writer=True
    ):
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
