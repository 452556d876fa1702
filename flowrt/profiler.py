"""``fr.profiler.trace``: trace every run for a while and write one Chrome trace.

Inside ``with fr.profiler.trace(logdir) as prof:`` every ``Session.run``/``arun`` of
every session that starts is traced as with ``RunOptions(trace_level=FULL_TRACE)`` (a
run's own ``RunMetadata`` is still filled when it asks): the caller's, and those of queue
runner threads and trio tasks, each on the track of its thread or task. On leaving the
block the steps recorded so far (a run still going shows the steps it finished) are
merged into one ``Timeline`` and written to ``prof.path``
(``logdir/flowrt_trace_<n>.json``), which ``chrome://tracing`` and Perfetto open.
Outside the block runs pay nothing.
"""

from __future__ import annotations

import os
import threading
import time

from .client import step_stats as _ss
from .client.timeline import Timeline

__all__ = ["trace", "Trace"]

_lock = threading.Lock()
_active: list[Trace] = []


def active() -> bool:
    """Whether some ``trace`` block is open (``Session`` then traces every run)."""
    return bool(_active)


def collect(stats: list) -> None:
    """Hands a starting run's record list to every open ``trace`` block: the run appends
    to it as it goes, and a block reads what is there when it ends (converted to
    StepStats then, off the runs' path)."""
    with _lock:
        for t in _active:
            t._raw.append(stats)
            t.runs += 1


class Trace:
    """An open profiling block: ``runs`` traced so far; once closed, their merged
    ``step_stats`` and the ``path`` of the trace file written."""

    def __init__(self, logdir: str, show_memory: bool = False, filename: str | None = None):
        self.logdir = os.fspath(logdir)
        self.show_memory = show_memory
        self.filename = filename
        self.step_stats = _ss.StepStats()
        self._raw: list = []
        self.runs = 0
        self.path: str | None = None

    def __enter__(self) -> Trace:
        os.makedirs(self.logdir, exist_ok=True)
        with _lock:
            _active.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        with _lock:
            _active.remove(self)
            raw, self._raw = self._raw, []
        for stats in raw:
            # A copy: a run still going on another thread may append meanwhile.
            self.step_stats.MergeFrom(_ss.step_stats_from(list(stats)))
        text = Timeline(self.step_stats).generate_chrome_trace_format(show_memory=self.show_memory)
        name = self.filename or "flowrt_trace_%d.json" % time.time_ns()
        path = os.path.join(self.logdir, name)
        with open(path, "w") as f:
            f.write(text)
        self.path = path


def trace(logdir: str, show_memory: bool = False, filename: str | None = None) -> Trace:
    """Traces every run inside the block into one Chrome trace file in ``logdir``.

    Args:
      logdir: the directory for the trace file (created if missing).
      show_memory: add the output-bytes counter track (``Timeline``).
      filename: the file's name in ``logdir`` (default ``flowrt_trace_<ns>.json``).

    Returns:
      A context manager; its ``path`` names the written file after the block.

    Note (flowrt): TF1's ``tf.profiler`` writes ``.pb`` profiles for its own tools;
    flowrt writes the Chrome trace JSON that Perfetto opens.
    """
    return Trace(logdir, show_memory, filename)
