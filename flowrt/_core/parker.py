"""The one boundary primitive: a waiter parks where it runs, anyone wakes it.

flowrt's waiters live in two kinds of places, plain threads (a sync ``Session.run``, a
queue runner) and trio tasks (``arun``, a concurrent plan's steps, each on the thread
of its loop), and the one who wakes a waiter may be in either kind, on any thread or
any loop. Every cross-thread, cross-loop wake-up in the runtime goes through this
module, as every trio sync primitive parks its tasks in one ``ParkingLot``:

* ``Parker`` is one waiter's wake-up permit (the shape of ``LockSupport.park`` and
  Rust's ``thread::park``). It is made where the waiter will wait: in a trio task it
  belongs to that task's loop, elsewhere to the calling thread. ``wake()`` from
  anywhere gives the permit; ``park()`` (a thread) or ``await park_async()`` (a task)
  consumes it, waiting for it if it is not there yet. A permit is a bit, not a count:
  wakes before a park add up to one. The waiter re-checks what it waits for after each
  return (a wake may be spurious or early), so nothing it waits for can be lost
  between its check and its park.
* ``canceller(scope)`` is a function that cancels a trio cancel scope from anywhere
  (a session closed from another thread, a run's interruption reaching the loop that
  runs it).

Both are built on ``_call_on``: a function run on a loop's own thread, directly when
the caller is already there, else through the loop's ``TrioToken.run_sync_soon``. A
loop that has finished (``trio.RunFinishedError``) has nobody left to wake: the call
is dropped and reported, never raised at the waker, who is often in the middle of
serving someone else (a hand-off, ``Session.close()`` cancelling several runs).

Cancelling a parked waiter: a task's ``park_async`` is a trio checkpoint and cancelled
as any (it then takes nothing: a wake after it leaves the permit for a later park); a
thread's ``park`` ends with the exception a signal handler raises (KeyboardInterrupt)
or at its timeout. Cancelling the *reason* a waiter waits (a run interrupted) is its
owner's job: it records why, then wakes the parker, and the waiter's re-check sees it.
"""

from __future__ import annotations

import math
import threading
from typing import Callable

import trio

__all__ = ["Parker", "canceller"]

_get_ident = threading.get_ident
_Abort = trio.lowlevel.Abort


def _call_on(loop: trio.lowlevel.TrioToken, thread: int, fn: Callable[[], object]) -> bool:
    """Calls ``fn`` on ``loop`` (running on ``thread``): now when called in that loop,
    else soon through the loop's token. False (nothing called) when the loop has
    finished."""
    if _get_ident() == thread:
        # On the loop's thread, outside that loop: the loop is over (a thread runs
        # one loop at a time, and this one ran there).
        try:
            here = trio.lowlevel.current_trio_token()
        except RuntimeError:
            return False
        if here is not loop:
            return False
        fn()
        return True
    try:
        loop.run_sync_soon(fn)
    except trio.RunFinishedError:
        return False
    return True


class Parker:
    """One waiter's wake-up permit: made where it waits, woken from anywhere.

    Made in a trio task, it is parked on with ``await park_async()`` by a task of that
    loop; made elsewhere, with ``park()`` by the thread that made it. ``wake()`` may be
    called from any thread or trio loop, any number of times.
    """

    __slots__ = ("_loop", "_thread", "_lock", "_task", "_permit")

    def __init__(self) -> None:
        self._thread = _get_ident()
        self._permit = False  # a loop's: a wake not consumed yet
        self._task: trio.lowlevel.Task | None = None  # the task parked now
        self._loop: trio.lowlevel.TrioToken | None
        if trio.lowlevel.in_trio_run():
            self._loop = trio.lowlevel.current_trio_token()
            self._lock = None
        else:
            self._loop = None
            # A thread's permit: the lock is free when a wake is pending.
            self._lock = threading.Lock()
            self._lock.acquire()

    @property
    def in_trio(self) -> bool:
        """Whether the waiter is a trio task (``park_async``), not a thread (``park``)."""
        return self._loop is not None

    def wake(self) -> bool:
        """Gives the waiter its permit, from any thread or loop, waking it if parked.
        Returns False when the waiter's loop has finished (nobody is left to wake);
        never raises."""
        if self._lock is not None:
            try:
                self._lock.release()
            except RuntimeError:  # released already: the permit is pending
                pass
            return True
        assert self._loop is not None
        return _call_on(self._loop, self._thread, self._wake_here)

    def _wake_here(self) -> None:
        """On the parker's loop: reschedules the parked task, or leaves the permit."""
        task = self._task
        if task is None:
            self._permit = True
        else:
            self._task = None
            trio.lowlevel.reschedule(task)

    def park(self, timeout: float = math.inf) -> bool:
        """Blocks this thread (the one that made the parker) until woken or until
        ``timeout`` seconds have passed; True when woken (the permit is consumed).
        A signal handler's exception (KeyboardInterrupt) ends it, taking nothing."""
        lock = self._lock
        if lock is None:
            raise RuntimeError(
                "this Parker was made in a trio task: a task of its loop waits on it "
                "with 'await park_async()', not park()"
            )
        if timeout == math.inf:
            return lock.acquire()
        return lock.acquire(timeout=max(timeout, 0.0))

    async def park_async(self) -> None:
        """Waits in this task (of the loop that made the parker) until woken; returns
        at once, without a schedule point, when a wake is already pending. Cancelled
        while parked (a trio checkpoint), it takes nothing."""
        if self._loop is None:
            raise RuntimeError(
                "this Parker was made outside trio: the thread that made it waits on "
                "it with park(), not park_async()"
            )
        if self._permit:
            self._permit = False
            return
        assert self._task is None, "a Parker has one waiter"
        self._task = trio.lowlevel.current_task()

        def abort(_: object) -> _Abort:
            self._task = None
            return _Abort.SUCCEEDED

        await trio.lowlevel.wait_task_rescheduled(abort)


def canceller(scope: trio.CancelScope) -> Callable[[], bool]:
    """A function that cancels ``scope`` (of the calling task's loop) from any thread
    or loop. It returns False, having done nothing, once the loop has finished."""
    loop = trio.lowlevel.current_trio_token()
    thread = _get_ident()

    def cancel() -> bool:
        return _call_on(loop, thread, scope.cancel)

    return cancel
