"""Why is my pipeline stuck: a dump of every run in flight and what feeds its queue.

``Session.debug_dump()`` lists, per run in flight (a run registers once one of its steps
waits), the thread or trio task running it, how long it has waited, the op and request
it waits on (a queue's enqueue or dequeue, with the queue's size and capacity), and,
for that queue, the queue-runner loops of this session that fill it
(``train.queue_runner.live_runners``) or, when none runs, the graph's queue runners for
it, named as not running. ``install_dump_handler`` makes a signal (``SIGUSR1``)
write the dump of every open session, as ``faulthandler.register`` does for stacks.
"""

from __future__ import annotations

import signal
import sys
import threading
import time
import weakref
from types import FrameType
from typing import TYPE_CHECKING, TextIO

from .._core.queues import Queue

if TYPE_CHECKING:
    from ..session import Session

__all__ = ["debug_dump", "install_dump_handler", "uninstall_dump_handler"]

_sessions: weakref.WeakSet = weakref.WeakSet()
_previous: dict = {}


def track(sess: Session) -> None:
    """Lists ``sess`` for the signal handler's dump (``Session.__init__`` calls it)."""
    _sessions.add(sess)


def _queue_of_request(req: object) -> Queue | None:
    return getattr(req, "queue", None)


def _runners_feeding(sess: Session, q: Queue) -> list[str]:
    """Lines naming the queue-runner loops of ``sess`` that fill ``q`` (alive), and the
    graph's queue runners for ``q`` with no loop running for this session."""
    from ..train import queue_runner as _qr  # the train layer sits above the session

    name = getattr(q, "op_name", q.name)  # runners name the queue by its op
    lines = []
    for r in _qr.live_runners(sess):
        if name in r.queues:
            lines.append("    %s: alive" % r.description)
    if lines:
        return lines
    for qr in sess.graph.get_collection(_qr.GraphKeys.QUEUE_RUNNERS):
        if qr.queue is not None and qr.queue.name == name:
            lines.append(
                "    runner %s (%d enqueue op(s)): NOT RUNNING for this session (never "
                "started, or its loops ended; start it with "
                "fr.train.start_queue_runners(sess, coord), or `async with "
                "fr.train.queue_runners(sess):` under trio)" % (qr.name, len(qr.enqueue_ops))
            )
    return lines


def _dump_session(sess: Session, now: float) -> list[str]:
    # A signal handler may run on the thread that holds the lock: never wait long on it,
    # read without it then (a snapshot of a set being changed may need a second try).
    locked = sess._inflight_lock.acquire(timeout=0.2)
    try:
        for _ in range(3):
            try:
                runs = sorted(sess._inflight, key=lambda c: c.step_id)
                break
            except RuntimeError:  # "set changed size during iteration"
                runs = []
        closed = sess._closed
    finally:
        if locked:
            sess._inflight_lock.release()
    lines = [
        "Session %#x%s: %d run(s) in flight" % (id(sess), " (closed)" if closed else "", len(runs))
    ]
    inflight_puts: dict = {}
    for ctx in runs:
        w = ctx.waiter or ctx.waiting_on
        q = _queue_of_request(w)
        if q is not None and getattr(w, "putter", False):
            inflight_puts.setdefault(id(q), []).append(ctx)
    for ctx in runs:
        w = ctx.waiter or ctx.waiting_on
        lines.append(
            "  run #%d in %s, waiting %.1f s"
            % (ctx.step_id, ctx.runner or "?", max(0.0, now - ctx.since))
        )
        if w is None:
            lines.append("    on: nothing now (computing between waits)")
            continue
        lines.append("    on: %s" % w.describe() if hasattr(w, "describe") else "    on: %r" % (w,))
        q = _queue_of_request(w)
        if q is None:
            continue
        st = q.statistics()
        lines.append(
            "    queue %s '%s': size %d, capacity %d%s; %d enqueuer(s) and %d "
            "dequeuer(s) waiting"
            % (
                q.kind,
                q.name,
                st.size,
                st.capacity,
                ", closed" if st.closed else "",
                st.waiting_enqueuers,
                st.waiting_dequeuers,
            )
        )
        if getattr(w, "putter", False):
            continue
        feeders = _runners_feeding(sess, q)
        puts = [c for c in inflight_puts.get(id(q), ()) if c is not ctx]
        for c in puts:
            feeders.append("    run #%d in %s waits to enqueue into it" % (c.step_id, c.runner))
        if not feeders:
            feeders = [
                "    no queue runner of this graph feeds it and no run in flight enqueues into it"
            ]
        lines.append("    fed by:")
        lines.extend(feeders)
    return lines


def debug_dump(sess: Session | None = None, file: TextIO | None = None) -> str:
    """Describes every run in flight of ``sess`` (all open sessions if None).

    Args:
      sess: a Session, or None for every session of the process.
      file: also written here (a text stream) if given.

    Returns:
      The dump as text.
    """
    now = time.monotonic()
    sessions = [sess] if sess is not None else list(_sessions)
    lines = []
    for s in sessions:
        lines.extend(_dump_session(s, now))
    if not sessions:
        lines.append("No open sessions.")
    text = "\n".join(lines) + "\n"
    if file is not None:
        file.write(text)
        file.flush()
    return text


def install_dump_handler(
    signum: int = getattr(signal, "SIGUSR1", 10), file: TextIO | None = None
) -> None:
    """Makes signal ``signum`` (``SIGUSR1``) write ``debug_dump()`` of every open session
    to ``file`` (stderr), like ``faulthandler.register`` for stacks: ``kill -USR1 <pid>``
    on a stuck program shows what it waits for. Call from the main thread.

    Note (flowrt): TF1 has no such hook.
    """
    if threading.current_thread() is not threading.main_thread():
        raise ValueError(
            "install_dump_handler must be called from the main thread "
            "(Python runs signal handlers there)"
        )

    def handler(_signum: int, _frame: FrameType | None) -> None:
        debug_dump(None, file if file is not None else sys.stderr)

    _previous.setdefault(signum, signal.getsignal(signum))
    signal.signal(signum, handler)


def uninstall_dump_handler(signum: int = getattr(signal, "SIGUSR1", 10)) -> None:
    """Restores the handler ``signum`` had before ``install_dump_handler``."""
    prev = _previous.pop(signum, None)
    if prev is not None:
        signal.signal(signum, prev)
