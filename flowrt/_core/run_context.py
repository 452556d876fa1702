"""One run's context: what its kernels see, what it dequeued, and how it is ended.

A ``RunContext`` is made per run by the session (or a cluster task). Kernels reach the
session's state through it; dequeues journal their elements in it so that a run
interrupted before it completes gives them back (``rollback``); ``cancel`` ends it
from any thread (``Session.close()``, a caller's cancel, its timeout).
"""

from __future__ import annotations

import math
import threading
import time
from typing import TYPE_CHECKING, Any, Callable

from .. import errors

if TYPE_CHECKING:
    from .waiting import Wait

__all__ = ["RunContext"]


class RunContext:
    """What kernels see of one run, and how the run is interrupted.

    Attributes:
      session, resources: the session and its state.
      step_id: the run's sequence number in its session.
      stats: a list collecting a ``Stat`` per step (and per wait) when traced, else None.
      journal: ``(queue, elements)`` for every dequeue of the run, in order: an
        interrupted run gives them back (``rollback``).
      deadline: ``time.monotonic()`` value at which a thread-side wait times out.
      timeout: the run's timeout in seconds, or None.
      timeout_from: the setting it came from, named when the run times out.
      waiter / waiting_on: the request a thread-side wait is parked on / the last
        wait of the run (``describe()`` says what it is).
      runner, since: set when the run registers as in flight (its first wait): the
        thread or task running it (``runner_name()``) and ``time.monotonic()`` then.
    """

    __slots__ = (
        "session",
        "resources",
        "step_id",
        "stats",
        "journal",
        "deadline",
        "timeout",
        "timeout_from",
        "waiter",
        "waiting_on",
        "interrupt",
        "cancel_hook",
        "_lock",
        "runner",
        "since",
    )

    def __init__(
        self,
        session: Any,
        resources: Any,
        step_id: int = 0,
        stats: list[Any] | None = None,
        timeout: float | None = None,
        timeout_from: str = "RunOptions.timeout_in_ms",
    ) -> None:
        self.session = session
        self.resources = resources
        self.step_id = step_id
        self.stats = stats
        self.journal: list[tuple[Any, Any]] = []
        self.timeout = timeout
        self.timeout_from = timeout_from
        self.deadline = math.inf if timeout is None else time.monotonic() + timeout
        self.waiter: Wait | None = None  # the wait a thread-side wait is parked on
        self.waiting_on: Wait | None = None  # the run's last wait, named when it times out
        self.interrupt: errors.OpError | None = None  # the error ending an interrupted run
        # Cancels the run's trio cancel scope, from any thread (``parker.canceller``).
        self.cancel_hook: Callable[[], object] | None = None
        self._lock = threading.Lock()
        self.runner: str | None = None  # set once the run waits: who runs it
        self.since = 0.0  # and when (time.monotonic()) it began to wait

    def cancel(self, error: errors.OpError) -> None:
        """Interrupts the run from any thread: a waiting op gives up, takes and leaves
        nothing, and the run raises ``error``."""
        with self._lock:
            if self.interrupt is None:
                self.interrupt = error
            waiter, hook = self.waiter, self.cancel_hook
        if waiter is not None:
            waiter.wake()
        if hook is not None:
            hook()

    def mark_interrupted(self, error: errors.OpError) -> None:
        """Records ``error`` as what interrupted the run, without waking it (the caller
        wakes the one wait it failed): the run then gives back what it dequeued, as a
        cancelled run does, instead of ending as a failed op."""
        with self._lock:
            if self.interrupt is None:
                self.interrupt = error

    def check_interrupted(self) -> None:
        if self.interrupt is not None:
            raise self.interrupt

    def timed_out(self, running: Any = None) -> None:
        """Ends the run with DeadlineExceededError naming what it waited for, or the op
        it was ``running`` (a loop)."""
        if running is not None:
            what = "running " + running.describe()
        else:
            w = self.waiter or self.waiting_on
            what = "waiting on " + (w.describe() if w is not None else "a blocking op")
        timeout = self.timeout
        assert timeout is not None, "only a run with a timeout times out"
        self.cancel(
            errors.DeadlineExceededError(
                None,
                running,
                "Timed out after %d ms (%s) %s." % (round(timeout * 1000), self.timeout_from, what),
            )
        )
        self.check_interrupted()

    def check_deadline(self, op: Any) -> None:
        """Ends the run if it was interrupted or its deadline passed. A kernel that loops
        (``op``, a while loop) calls it once per iteration, so a long loop ends by the
        run's timeout or cancel as a wait does."""
        if self.interrupt is not None:
            raise self.interrupt
        if time.monotonic() >= self.deadline:
            self.timed_out(op)

    def keep(self, elems: Any) -> None:
        """Takes dequeued ``elems`` out of the journal: a resource (a reader) owns them
        now, so an interrupted run must not give them back."""
        for i in range(len(self.journal) - 1, -1, -1):
            if self.journal[i][1] is elems:
                del self.journal[i]
                return

    def rollback(self) -> None:
        """Gives every element the run dequeued back to its queue's front, in order."""
        journal, self.journal = self.journal, []
        for q, elems in reversed(journal):
            q.give_back(elems)
