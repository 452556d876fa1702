"""Snapshots of a session's pipeline state, for stall reports and debugging.

Reads the session's queues (size, capacity, and the queue ops waiting on each) without
waiting on anything: safe to call from any thread, at any time, while runs are blocked.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .queues import _WAITING, Queue, QueueStatistics

__all__ = ["BlockedOp", "QueueSnapshot", "queue_snapshots"]


@dataclass(frozen=True)
class BlockedOp:
    """A queue op of a run that waits on a queue.

    Attributes:
      op: who waits, as the queue op names itself (``"QueueDequeueV2 op 'q_Dequeue'"``).
      action: ``"enqueue"`` (waits for room) or ``"dequeue"`` (waits for elements).
      count: elements it still wants to put or take.
    """

    op: str
    action: str
    count: int


@dataclass(frozen=True)
class QueueSnapshot:
    """One queue of a session: its statistics and the ops blocked on it."""

    kind: str
    statistics: QueueStatistics
    blocked: tuple[BlockedOp, ...]

    def describe(self) -> str:
        """One line: ``FIFOQueue 'q' (size 0, capacity 4, closed)``."""
        s = self.statistics
        return "%s '%s' (size %d, capacity %d%s)" % (
            self.kind,
            s.name,
            s.size,
            s.capacity,
            ", closed" if s.closed else "",
        )


def _blocked(queue: Queue) -> tuple[BlockedOp, ...]:
    out = []
    # The waiting lines are read without the queue's lock: this is a snapshot that may
    # be taken while a thread holding the lock is itself stuck.
    for req in list(queue._putters):  # same package, read only
        if req.state == _WAITING:
            out.append(BlockedOp(req.who or "an enqueue", "enqueue", len(req.items)))
    for req in list(queue._getters):
        if req.state == _WAITING:
            out.append(BlockedOp(req.who or "a dequeue", "dequeue", req.n - len(req.items)))
    return tuple(out)


def queue_snapshots(resources: Iterable[tuple[Any, Any]]) -> list[QueueSnapshot]:
    """Snapshots of every queue among a session's resources, in name order.

    Args:
      resources: ``(key, resource)`` pairs, as ``ResourceManager.items()`` returns them.

    Returns:
      One ``QueueSnapshot`` per queue.
    """
    queues = [r for _, r in resources if isinstance(r, Queue)]
    return [
        QueueSnapshot(q.kind, q.statistics(), _blocked(q))
        for q in sorted(queues, key=lambda q: q.name)
    ]
