"""A readable account of what a pipeline is waiting on: blocked queue ops, the queues
they wait on (size/capacity) and the runner loops feeding those queues."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterable

from .._core.introspection import queue_snapshots
from .._core.queues import _WAITING
from ..session import Session
from ..train.queue_runner import live_runners

__all__ = ["open_sessions", "pipeline_report"]


def open_sessions() -> list[Session]:
    """Every ``fr.Session`` of this process not yet closed (found through the garbage
    collector: meant for failure reports, not hot paths)."""
    return [
        o for o in gc.get_objects() if isinstance(o, Session) and not getattr(o, "_closed", True)
    ]


def _runs_in_progress(sess: Session) -> list[str]:
    """One line per run of ``sess`` in progress: its step and the wait it is parked in."""
    with getattr(sess, "_inflight_lock", contextlib.nullcontext()):
        contexts = list(getattr(sess, "_inflight", ()))
    lines = []
    for ctx in sorted(contexts, key=lambda c: getattr(c, "step_id", 0)):
        wait = getattr(ctx, "waiter", None) or getattr(ctx, "waiting_on", None)
        if wait is not None and getattr(wait, "state", None) == _WAITING:
            doing = "waits on " + wait.describe()
        else:
            doing = "running (not parked in a queue wait)"
        lines.append("run %d: %s" % (getattr(ctx, "step_id", 0), doing))
    return lines


def pipeline_report(sessions: Iterable[Session] | None = None) -> str:
    """Describes what the runs of ``sessions`` are blocked on.

    For each session: each run in progress and the queue wait it is parked in, each
    queue with its size and capacity, the queue ops blocked on it (enqueues waiting for
    room, dequeues waiting for elements), and the queue-runner threads or tasks that
    fill it.

    Args:
      sessions: the sessions to describe; every open session if None.

    Returns:
      A multi-line report (``"no open session"`` when there is none).

    Note (flowrt): not in TF1. The stall guard of the ``flowrt.testing`` pytest plugin
    prints this when a test hangs; call it yourself from a debugger or a signal handler.
    """
    sessions = open_sessions() if sessions is None else list(sessions)
    if not sessions:
        return "no open session"
    out = []
    for sess in sessions:
        runs = _runs_in_progress(sess)
        out.append(
            "Session %#x on %r: %d run(s) in progress%s"
            % (
                id(sess),
                sess.graph,
                len(runs),
                " (closed)" if getattr(sess, "_closed", False) else "",
            )
        )
        out += ["  %s" % r for r in runs]
        runners = live_runners(sess)
        fed: set[int] = set()
        for snap in queue_snapshots(sess.resources.items()):
            out.append("  %s" % snap.describe())
            for b in snap.blocked:
                out.append("    blocked: %s waits to %s %d element(s)" % (b.op, b.action, b.count))
            feeding = [r for r in runners if snap.statistics.name in r.queues]
            fed.update(id(r) for r in feeding)
            for r in feeding:
                out.append("    fed by: %s" % r.description)
            if not feeding:
                out.append("    fed by: no live queue runner")
        others = [r for r in runners if id(r) not in fed]
        for r in others:
            out.append("  runner: %s" % r.description)
    return "\n".join(out)
