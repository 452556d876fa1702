"""The standard ``SessionRunHook``s of TF1, with its timers.

Each hook fetches what it needs through ``SessionRunArgs`` in the caller's own run (the
global step through one shared read tensor, see ``training_util``), and reads the true
value again only when the stale one says an action may be due, as TF1 does.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import errors
from .._core.graph import get_default_graph
from ..summary.protos import SessionLog, Summary
from ..summary.writer_cache import FileWriterCache
from . import training_util
from .meta_graph import export_meta_graph
from .session_run_hook import SessionRunArgs, SessionRunContext, SessionRunHook, SessionRunValues

if TYPE_CHECKING:
    from .._core.graph import Operation, Tensor
    from ..session import Session
    from ..summary.writer import FileWriter
    from .coordinator import Coordinator
    from .saver import Saver
    from .scaffold import Scaffold

__all__ = [
    "SecondOrStepTimer",
    "StopAtStepHook",
    "CheckpointSaverListener",
    "CheckpointSaverHook",
    "SummarySaverHook",
    "LoggingTensorHook",
    "NanTensorHook",
    "NanLossDuringTrainingError",
    "StepCounterHook",
    "FinalOpsHook",
    "FeedFnHook",
    "GlobalStepWaiterHook",
    "ProfilerHook",
]

_log = logging.getLogger("flowrt.train")


# --------------------------------------------------------------------------------------
# Timers
# --------------------------------------------------------------------------------------


class SecondOrStepTimer:
    """Triggers every ``every_secs`` seconds or every ``every_steps`` steps (exactly one).

    Raises:
      ValueError: neither or both of ``every_secs`` and ``every_steps`` are given.
    """

    def __init__(self, every_secs: float | None = None, every_steps: int | None = None) -> None:
        self.reset()
        self._every_secs = every_secs
        self._every_steps = every_steps
        if every_secs is None and every_steps is None:
            raise ValueError("Either every_secs or every_steps should be provided.")
        if every_secs is not None and every_steps is not None:
            raise ValueError("Can not provide both every_secs and every_steps.")

    def reset(self) -> None:
        """Forgets the last trigger: the next step seen triggers."""
        self._last_triggered_step: int | None = None
        self._last_triggered_time: float | None = None

    def should_trigger_for_step(self, step: int) -> bool:
        """Whether the timer triggers at ``step`` (always at the first step seen)."""
        if self._last_triggered_step is None:
            return True
        if self._last_triggered_step == step:
            return False
        if (
            self._every_secs is not None
            and self._last_triggered_time is not None
            and time.time() >= self._last_triggered_time + self._every_secs
        ):
            return True
        return (
            self._every_steps is not None and step >= self._last_triggered_step + self._every_steps
        )

    def update_last_triggered_step(self, step: int) -> tuple[float | None, int | None]:
        """Records a trigger at ``step``; returns ``(elapsed_secs, elapsed_steps)`` since
        the last one (Nones the first time)."""
        now = time.time()
        elapsed: tuple[float | None, int | None]
        if self._last_triggered_time is None or self._last_triggered_step is None:
            elapsed = (None, None)
        else:
            elapsed = (now - self._last_triggered_time, step - self._last_triggered_step)
        self._last_triggered_time = now
        self._last_triggered_step = step
        return elapsed

    def last_triggered_step(self) -> int | None:
        """The step of the last trigger (None before the first)."""
        return self._last_triggered_step


class _NeverTriggerTimer(SecondOrStepTimer):
    def __init__(self):
        self.reset()

    def should_trigger_for_step(self, step) -> bool:
        return False


def _global_step_read(hook_name: str):
    step = training_util._get_or_create_global_step_read()
    if step is None:
        raise RuntimeError("Global step should be created to use %s." % hook_name)
    return step


def _as_graph_element(obj):
    """A tensor of the default graph from a tensor or a name (``"loss"`` = ``"loss:0"``)."""
    graph = get_default_graph()
    if not isinstance(obj, str):
        if getattr(obj, "graph", None) is not graph:
            raise ValueError(
                "Passed %s should have graph attribute that is equal to current "
                "graph %s." % (obj, graph)
            )
        return obj
    if ":" in obj:
        return graph.as_graph_element(obj)
    element = graph.as_graph_element(obj + ":0")
    try:
        graph.as_graph_element(obj + ":1")
    except (KeyError, ValueError):
        return element
    raise ValueError(
        "Name %s is ambiguous, as this `Operation` has multiple outputs (at least 2)." % obj
    )


# --------------------------------------------------------------------------------------
# Stopping
# --------------------------------------------------------------------------------------


class StopAtStepHook(SessionRunHook):
    """Requests a stop when the global step reaches ``last_step`` (or after ``num_steps``
    more steps than it had when the session was created).

    Args:
      num_steps: how many steps to run from the session's start.
      last_step: the global step at which to stop.

    Raises:
      ValueError: neither or both arguments are given.
    """

    def __init__(self, num_steps: int | None = None, last_step: int | None = None) -> None:
        if num_steps is None and last_step is None:
            raise ValueError("One of num_steps or last_step must be specified.")
        if num_steps is not None and last_step is not None:
            raise ValueError("Only one of num_steps or last_step can be specified.")
        self._num_steps = num_steps
        self._last_step = last_step

    def begin(self) -> None:
        self._global_step_tensor = _global_step_read("StopAtStepHook")

    def after_create_session(self, session: Session, coord: Coordinator) -> None:
        if self._last_step is None:
            assert self._num_steps is not None  # __init__ requires exactly one
            self._last_step = int(session.run(self._global_step_tensor)) + self._num_steps

    def before_run(self, run_context: SessionRunContext) -> SessionRunArgs:
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context: SessionRunContext, run_values: SessionRunValues) -> None:
        if run_values.results + 1 >= self._last_step:
            # The fetched value was read before this run's increment: read it again.
            if run_context.session.run(self._global_step_tensor) >= self._last_step:
                run_context.request_stop()


class FinalOpsHook(SessionRunHook):
    """Evaluates ``final_ops`` (any fetch structure) when the session ends; the values are
    in ``final_ops_values``."""

    def __init__(self, final_ops: Any, final_ops_feed_dict: dict[Any, Any] | None = None) -> None:
        self._final_ops = final_ops
        self._final_ops_feed_dict = final_ops_feed_dict
        self._final_ops_values = None

    @property
    def final_ops_values(self) -> Any:
        """The values of ``final_ops`` (same structure), None before ``end``."""
        return self._final_ops_values

    def end(self, session: Session) -> None:
        if self._final_ops is not None:
            try:
                self._final_ops_values = session.run(
                    self._final_ops, feed_dict=self._final_ops_feed_dict
                )
            except (errors.OutOfRangeError, StopIteration):
                _log.warning(
                    "An OutOfRangeError or StopIteration exception is raised by the "
                    "code in FinalOpsHook. This typically means the Ops running "
                    "by the FinalOpsHook have a dependency back to some input "
                    "source, which should not happen."
                )
                raise


class FeedFnHook(SessionRunHook):
    """Adds ``feed_fn()`` (a feed dict) to every run."""

    def __init__(self, feed_fn: Callable[[], dict[Any, Any]]) -> None:
        self.feed_fn = feed_fn

    def before_run(self, run_context: SessionRunContext) -> SessionRunArgs:
        return SessionRunArgs(fetches=None, feed_dict=self.feed_fn())


class NanLossDuringTrainingError(RuntimeError):
    """Raised by ``NanTensorHook`` when the loss is NaN."""

    def __str__(self) -> str:
        return "NaN loss during training."


class NanTensorHook(SessionRunHook):
    """Fails (``NanLossDuringTrainingError``) or requests a stop when the loss is NaN.

    Args:
      loss_tensor: the loss tensor.
      fail_on_nan_loss: raise (True) or only stop (False).
    """

    def __init__(self, loss_tensor: Tensor, fail_on_nan_loss: bool = True) -> None:
        self._loss_tensor = loss_tensor
        self._fail_on_nan_loss = fail_on_nan_loss

    def before_run(self, run_context: SessionRunContext) -> SessionRunArgs:
        return SessionRunArgs(self._loss_tensor)

    def after_run(self, run_context: SessionRunContext, run_values: SessionRunValues) -> None:
        if np.isnan(run_values.results):
            message = "Model diverged with loss = NaN."
            if self._fail_on_nan_loss:
                _log.error(message)
                raise NanLossDuringTrainingError
            _log.warning(message)
            run_context.request_stop()


# --------------------------------------------------------------------------------------
# Logging and counting
# --------------------------------------------------------------------------------------


class LoggingTensorHook(SessionRunHook):
    """Logs tensors (at INFO, logger ``flowrt.train``) every N steps, every N seconds,
    and/or at the end.

    Args:
      tensors: a dict tag -> tensor (or name), or a list of tensors or names.
      every_n_iter: log every N local runs.
      every_n_secs: log every N seconds.
      at_end: log at the end (with ``end``).
      formatter: ``f(dict tag -> value) -> str``.

    Raises:
      ValueError: unless ``at_end`` and/or exactly one of the periods is given.
    """

    def __init__(
        self,
        tensors: dict[str, Tensor | str] | Sequence[Tensor | str],
        every_n_iter: int | None = None,
        every_n_secs: float | None = None,
        at_end: bool = False,
        formatter: Callable[[dict[Any, Any]], str] | None = None,
    ) -> None:
        only_at_end = at_end and every_n_iter is None and every_n_secs is None
        if not only_at_end and (every_n_iter is None) == (every_n_secs is None):
            raise ValueError(
                "either at_end and/or exactly one of every_n_iter and "
                "every_n_secs must be provided."
            )
        if every_n_iter is not None and every_n_iter <= 0:
            raise ValueError("invalid every_n_iter=%s." % every_n_iter)
        self._tensors: dict[Any, Tensor | str]
        if not isinstance(tensors, dict):
            self._tag_order: list[Any] = list(tensors)
            self._tensors = {item: item for item in tensors}
        else:
            self._tag_order = sorted(tensors)
            self._tensors = tensors
        self._formatter = formatter
        self._timer = (
            _NeverTriggerTimer()
            if only_at_end
            else SecondOrStepTimer(every_secs=every_n_secs, every_steps=every_n_iter)
        )
        self._log_at_end = at_end

    def begin(self) -> None:
        self._timer.reset()
        self._iter_count = 0
        self._current_tensors = {tag: _as_graph_element(t) for tag, t in self._tensors.items()}

    def before_run(self, run_context: SessionRunContext) -> SessionRunArgs | None:
        self._should_trigger = self._timer.should_trigger_for_step(self._iter_count)
        return SessionRunArgs(self._current_tensors) if self._should_trigger else None

    def _log_tensors(self, values):
        elapsed, _ = self._timer.update_last_triggered_step(self._iter_count)
        with np.printoptions(suppress=True):
            if self._formatter:
                _log.info(self._formatter(values))
                return
            stats = ", ".join("%s = %s" % (tag, values[tag]) for tag in self._tag_order)
        if elapsed is not None:
            _log.info("%s (%.3f sec)", stats, elapsed)
        else:
            _log.info("%s", stats)

    def after_run(self, run_context: SessionRunContext, run_values: SessionRunValues) -> None:
        if self._should_trigger:
            self._log_tensors(run_values.results)
        self._iter_count += 1

    def end(self, session: Session) -> None:
        if self._log_at_end:
            self._log_tensors(session.run(self._current_tensors))


class StepCounterHook(SessionRunHook):
    """Logs, and writes as the summary ``global_step/sec``, the global steps per second.

    Args:
      every_n_steps: measure every N global steps.
      every_n_secs: or every N seconds (exactly one of the two).
      output_dir: write the summaries to this directory's cached ``FileWriter``.
      summary_writer: or to this writer.
    """

    def __init__(
        self,
        every_n_steps: int | None = 100,
        every_n_secs: float | None = None,
        output_dir: str | None = None,
        summary_writer: FileWriter | None = None,
    ) -> None:
        if (every_n_steps is None) == (every_n_secs is None):
            raise ValueError("exactly one of every_n_steps and every_n_secs should be provided.")
        self._timer = SecondOrStepTimer(every_steps=every_n_steps, every_secs=every_n_secs)
        self._summary_writer = summary_writer
        self._output_dir = output_dir
        self._last_global_step = None
        self._warned = 0

    def begin(self) -> None:
        if self._summary_writer is None and self._output_dir:
            self._summary_writer = FileWriterCache.get(self._output_dir)
        self._global_step_tensor = _global_step_read("StepCounterHook")
        step_variable = training_util.get_global_step()
        assert step_variable is not None  # _global_step_read found it
        self._summary_tag = step_variable.op.name + "/sec"

    def before_run(self, run_context: SessionRunContext) -> SessionRunArgs:
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context: SessionRunContext, run_values: SessionRunValues) -> None:
        stale = run_values.results
        if self._timer.should_trigger_for_step(stale + 1):
            step = run_context.session.run(self._global_step_tensor)
            if self._timer.should_trigger_for_step(step):
                secs, steps = self._timer.update_last_triggered_step(step)
                if secs is not None and steps is not None:
                    rate = steps / secs if secs > 0 else float("inf")
                    if self._summary_writer is not None:
                        self._summary_writer.add_summary(
                            Summary(
                                value=[Summary.Value(tag=self._summary_tag, simple_value=rate)]
                            ),
                            step,
                        )
                    _log.info("%s: %g", self._summary_tag, rate)
        if stale == self._last_global_step and self._warned < 5:
            self._warned += 1
            _log.warning(
                "It seems that global step (fr.train.get_global_step) has not been "
                "increased. Current value (could be stable): %s vs previous value: "
                "%s. You could increase the global step by passing "
                "fr.train.get_global_step() to Optimizer.apply_gradients or "
                "Optimizer.minimize.",
                stale,
                self._last_global_step,
            )
        self._last_global_step = stale


# --------------------------------------------------------------------------------------
# Saving
# --------------------------------------------------------------------------------------


class CheckpointSaverListener:
    """Called by ``CheckpointSaverHook`` around each save: ``begin()``,
    ``before_save(session, step)``, ``after_save(session, step)`` (a True result requests
    a stop), ``end(session, step)``."""

    def begin(self) -> None:
        """Called once, from ``CheckpointSaverHook.begin``."""

    def before_save(self, session: Session, global_step_value: int) -> None:
        """Called before each save of the step ``global_step_value``."""

    def after_save(self, session: Session, global_step_value: int) -> bool | None:
        """Called after each save; a True result requests a stop."""
        return None

    def end(self, session: Session, global_step_value: int) -> None:
        """Called at the end of the session, after the last save."""


class CheckpointSaverHook(SessionRunHook):
    """Saves a checkpoint when the session is created, every N steps or seconds, and at
    the end.

    Args:
      checkpoint_dir: where to save.
      save_secs: save every N seconds...
      save_steps: ...or every N global steps (exactly one).
      saver: the ``Saver`` to use; else the scaffold's, else the one in ``SAVERS``.
      checkpoint_basename: the checkpoint prefix inside ``checkpoint_dir``.
      scaffold: a ``Scaffold`` whose saver to use.
      listeners: ``CheckpointSaverListener``s.
      save_graph_def: whether to write ``graph.pbtxt`` in ``checkpoint_dir`` and each
        checkpoint's ``.meta``; the graph and meta graph events are written either way,
        as in TF.

    Raises:
      ValueError: both ``saver`` and ``scaffold`` are given, or not exactly one period.
    """

    def __init__(
        self,
        checkpoint_dir: str,
        save_secs: float | None = None,
        save_steps: int | None = None,
        saver: Saver | None = None,
        checkpoint_basename: str = "model.ckpt",
        scaffold: Scaffold | None = None,
        listeners: Sequence[CheckpointSaverListener] | None = None,
        save_graph_def: bool = True,
    ) -> None:
        if saver is not None and scaffold is not None:
            raise ValueError("You cannot provide both saver and scaffold.")
        self._saver = saver
        self._checkpoint_dir = checkpoint_dir
        self._save_path = os.path.join(checkpoint_dir, checkpoint_basename)
        self._scaffold = scaffold
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)
        self._listeners = list(listeners or [])
        self._save_graph_def = save_graph_def

    def begin(self) -> None:
        self._summary_writer = FileWriterCache.get(self._checkpoint_dir)
        self._global_step_tensor = _global_step_read("CheckpointSaverHook")
        for listener in self._listeners:
            listener.begin()

    def after_create_session(self, session: Session, coord: Coordinator) -> None:
        step = int(session.run(self._global_step_tensor))
        # Written now, not in begin: other hooks' begin may still add to the graph.
        # ``save_graph_def`` gates the files only: TF writes the events either way.
        graph = get_default_graph()
        if self._save_graph_def:
            training_util.write_graph(graph, self._checkpoint_dir, "graph.pbtxt")
        saver = self._get_saver()
        meta = export_meta_graph(saver_def=saver.as_saver_def() if saver else None)
        self._summary_writer.add_graph(graph)
        self._summary_writer.add_meta_graph(meta)
        # The checkpoint saved here is the state at step `step` (restored or initial).
        self._save(session, step)
        self._timer.update_last_triggered_step(step)

    def before_run(self, run_context: SessionRunContext) -> SessionRunArgs:
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context: SessionRunContext, run_values: SessionRunValues) -> None:
        if self._timer.should_trigger_for_step(run_values.results + 1):
            step = int(run_context.session.run(self._global_step_tensor))
            if self._timer.should_trigger_for_step(step):
                self._timer.update_last_triggered_step(step)
                if self._save(run_context.session, step):
                    run_context.request_stop()

    def end(self, session: Session) -> None:
        last_step = int(session.run(self._global_step_tensor))
        if last_step != self._timer.last_triggered_step():
            self._save(session, last_step)
        for listener in self._listeners:
            listener.end(session, last_step)

    def _save(self, session, step) -> bool:
        for listener in self._listeners:
            listener.before_save(session, step)
        _log.info("Saving checkpoints for %d into %s.", step, self._save_path)
        self._get_saver().save(
            session, self._save_path, global_step=step, write_meta_graph=self._save_graph_def
        )
        self._summary_writer.add_session_log(
            SessionLog(status=SessionLog.CHECKPOINT, checkpoint_path=self._save_path), step
        )
        should_stop = False
        for listener in self._listeners:
            if listener.after_save(session, step):
                should_stop = True
        return should_stop

    def _get_saver(self):
        if self._saver is not None:
            return self._saver
        if self._scaffold is not None:
            return self._scaffold.saver
        savers = get_default_graph().get_collection("savers")
        if not savers:
            raise RuntimeError(
                "No items in collection savers. Please add a saver to the "
                "collection or provide a saver or scaffold."
            )
        if len(savers) > 1:
            raise RuntimeError(
                "More than one item in collection savers. Please indicate "
                "which one to use by passing it to the constructor."
            )
        self._saver = savers[0]
        return self._saver


class SummarySaverHook(SessionRunHook):
    """Writes the summary op's value every N steps or seconds.

    Args:
      save_steps: every N global steps...
      save_secs: ...or every N seconds (exactly one).
      output_dir: write to this directory's cached ``FileWriter``...
      summary_writer: ...or to this writer.
      scaffold: take the summary op from this ``Scaffold``...
      summary_op: ...or use this op (or list of ops) (exactly one of the two).
    """

    def __init__(
        self,
        save_steps: int | None = None,
        save_secs: float | None = None,
        output_dir: str | None = None,
        summary_writer: FileWriter | None = None,
        scaffold: Scaffold | None = None,
        summary_op: Tensor | Operation | list[Tensor] | None = None,
    ) -> None:
        if (scaffold is None) == (summary_op is None):
            raise ValueError("Exactly one of scaffold or summary_op must be provided.")
        self._summary_op = summary_op
        self._summary_writer = summary_writer
        self._output_dir = output_dir
        self._scaffold = scaffold
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)

    def begin(self) -> None:
        if self._summary_writer is None and self._output_dir:
            self._summary_writer = FileWriterCache.get(self._output_dir)
        self._next_step: int | None = None
        self._global_step_tensor = _global_step_read("SummarySaverHook")

    def before_run(self, run_context: SessionRunContext) -> SessionRunArgs:
        self._request_summary = self._next_step is None or self._timer.should_trigger_for_step(
            self._next_step
        )
        requests = {"global_step": self._global_step_tensor}
        if self._request_summary and self._get_summary_op() is not None:
            requests["summary"] = self._get_summary_op()
        return SessionRunArgs(requests)

    def after_run(self, run_context: SessionRunContext, run_values: SessionRunValues) -> None:
        if not self._summary_writer:
            return
        step = run_values.results["global_step"] + 1
        if self._next_step is None or self._request_summary:
            step = int(run_context.session.run(self._global_step_tensor))
        if self._next_step is None:
            self._summary_writer.add_session_log(SessionLog(status=SessionLog.START), step)
        if self._request_summary:
            self._timer.update_last_triggered_step(step)
            for summary in run_values.results.get("summary", ()):
                self._summary_writer.add_summary(summary, step)
        self._next_step = step + 1

    def end(self, session: Session | None = None) -> None:
        if self._summary_writer:
            self._summary_writer.flush()

    def _get_summary_op(self):
        op = self._summary_op if self._summary_op is not None else self._scaffold.summary_op
        if op is None:
            return None
        return op if isinstance(op, list) else [op]


class GlobalStepWaiterHook(SessionRunHook):
    """Delays a worker's first step until the global step reaches ``wait_until_step``
    (TF1's way of starting replicas one after another, so that the chief's first
    updates land before the others train). Polls the step every half second, as TF.

    Raises (at ``begin``):
      RuntimeError: the graph has no global step.
    """

    def __init__(self, wait_until_step: int) -> None:
        self._wait_until_step = wait_until_step

    def begin(self) -> None:
        self._worker_is_started = False
        self._global_step_tensor = training_util._get_or_create_global_step_read()
        if self._global_step_tensor is None:
            raise RuntimeError("Global step should be created to use _GlobalStepWaiterHook.")

    def before_run(self, run_context: SessionRunContext) -> None:
        if self._worker_is_started:
            return None
        if self._wait_until_step <= 0:
            self._worker_is_started = True
            return None
        _log.info("Waiting for global step %d before starting training.", self._wait_until_step)
        last_logged = None
        while True:
            step = run_context.session.run(self._global_step_tensor)
            if step >= self._wait_until_step:
                self._worker_is_started = True
                return None
            if step != last_logged:
                _log.info(
                    "Waiting for global step %d before starting training. Current step is %d.",
                    self._wait_until_step,
                    step,
                )
                last_logged = step
            time.sleep(0.5)


class ProfilerHook(SessionRunHook):
    """Every ``save_steps`` steps or ``save_secs`` seconds (exactly one), traces a step
    (``RunOptions(trace_level=FULL_TRACE)``) and writes its Chrome trace to
    ``<output_dir>/timeline-<step>.json`` (open it in chrome://tracing or Perfetto) and
    its run metadata to the event file of ``output_dir`` (TensorBoard).

    Raises (at ``begin``):
      RuntimeError: the graph has no global step.
    """

    def __init__(
        self,
        save_steps: int | None = None,
        save_secs: float | None = None,
        output_dir: str = "",
        show_dataflow: bool = True,
        show_memory: bool = False,
    ) -> None:
        self._output_dir = output_dir
        self._output_file = os.path.join(output_dir, "timeline-{}.json")
        self._show_dataflow = show_dataflow
        self._show_memory = show_memory
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)

    def begin(self) -> None:
        self._next_step: int | None = None
        self._global_step_tensor = training_util._get_or_create_global_step_read()
        if self._global_step_tensor is None:
            raise RuntimeError("Global step should be created to use ProfilerHook.")
        self._file_writer = FileWriterCache.get(self._output_dir)

    def before_run(self, run_context: SessionRunContext) -> SessionRunArgs:
        from ..session_options import RunOptions

        self._request = self._next_step is not None and self._timer.should_trigger_for_step(
            self._next_step
        )
        options = RunOptions(trace_level=RunOptions.FULL_TRACE) if self._request else None
        return SessionRunArgs({"global_step": self._global_step_tensor}, options=options)

    def after_run(self, run_context: SessionRunContext, run_values: SessionRunValues) -> None:
        stale = int(run_values.results["global_step"])
        if self._next_step is None:
            self._timer.update_last_triggered_step(stale)
        step = stale + 1
        if self._request:
            step = int(run_context.session.run(self._global_step_tensor))
            self._timer.update_last_triggered_step(step)
            self._save(step, run_values.run_metadata)
        self._next_step = step + 1

    def _save(self, step: int, run_metadata: Any) -> None:
        from ..client.timeline import Timeline

        path = self._output_file.format(step)
        _log.info("Saving timeline for %d into '%s'.", step, path)
        trace = Timeline(run_metadata.step_stats).generate_chrome_trace_format(
            show_dataflow=self._show_dataflow, show_memory=self._show_memory
        )
        with open(path, "w", encoding="utf-8") as f:
            f.write(trace)
        self._file_writer.add_run_metadata(run_metadata, "step_%d" % step)
