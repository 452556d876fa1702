"""The execution token: one per process, held by whichever run executes kernels.

numpy releases the GIL around every ufunc or BLAS call on more than a few hundred
elements. With several threads running flowrt runs at once (runner threads, a
trainer), each such release lets a waiting thread take the GIL, and the releasing
thread then waits up to a switch interval to get it back: hundreds of GIL hand-offs
(futex wake-ups) per training step, which cost more CPU than the step's kernels. The
token serializes runs instead: a run executes its kernels holding it, and gives it up
only where it would wait or where overlapping pays (``token_policy``), so the GIL
changes hands a few times per run instead of hundreds (``docs/executor.md``).

Holding is per thread and reentrant (a kernel may run a nested plan, a py_func may
call ``sess.run`` on its own thread). Waiters are served in arrival order, in turns
(``token_policy.turn_seconds``): a thread whose run ends while only threads wait, the
first for less than a turn, may leave the token free and take it back for its next
run ahead of them. A trio task never blocks its loop on the token: it parks until a
hand-off (``acquire_async``) and holds the token only between awaits. Every waiter
parks on a ``parker.Parker``.

States (every field is read and written under ``_mutex``):

* FREE: no owner, nobody waits.
* HELD: a thread owns it ``_depth`` times over (``_depth >= 1``); waiters queue in
  arrival order.
* LEFT: no owner, threads wait: the run that ended left it free for its thread's next
  run (``_lingerer``) while the first waiter is young.

Transitions:

* ``acquire`` (a thread): FREE → HELD; its own HELD → one level deeper; HELD by
  another → it queues; LEFT → HELD if it is the lingerer and the turn is on, else it
  queues (the turn over, the first waiter gets the token first).
* ``acquire_async`` (a task, for its loop's thread): the same, but in LEFT it ends the
  turn at once, since a task cannot wait a turn out (see the invariants).
* ``release`` of the last level: HELD → LEFT (``linger``, only young threads wait),
  else the hand-off. ``release_all``/``restore`` give up and take back every level.
* The hand-off: the first waiter whose wake reaches it (a task's loop may have
  finished) becomes the owner at the depth it asked for, else FREE.
* A thread waiter's turn is up: it parks with a timeout at the end of its turn, and
  then hands a token still left free to the first waiter.
* An interrupted waiter (a cancelled task, a thread's KeyboardInterrupt): not served
  yet, it leaves the line and the admission is re-run; served meanwhile, it passes
  the token on at once.

Invariants (``_consistent``, asserted after every transition but the uncontended
fast paths, which cannot break them):

1. No owner if and only if depth 0; an owner never has a lingerer.
2. Queued waiters are not served yet (a served waiter leaves the line first).
3. No owner with waiters (LEFT) ⇒ every waiter is a thread parked with a timeout at
   most one turn away: a token left free is always taken over, and nobody waits on
   it forever.
"""

from __future__ import annotations

import collections
import threading
import time
from typing import Any

from .parker import Parker
from .token_policy import turn_seconds

__all__ = ["TOKEN", "ExecutionToken"]

_get_ident = threading.get_ident
_now = time.monotonic


class _Waiter:
    """A thread or trio task in line for the token, and the depth it asks for."""

    __slots__ = ("ident", "parker", "depth", "since", "served")

    def __init__(self, ident: int, depth: int) -> None:
        self.ident = ident  # the thread that will own the token
        self.parker = Parker()  # a thread's, or the task's loop's
        self.depth = depth
        self.since = _now()
        self.served = False  # set, under the mutex, before the parker is woken


class ExecutionToken:
    """A fair, reentrant, per-thread lock that trio tasks can await without blocking
    their loop."""

    def __init__(self) -> None:
        self._mutex = threading.Lock()
        self._owner: int | None = None  # thread ident
        self._depth = 0
        self._waiters: collections.deque[_Waiter] = collections.deque()
        self._lingerer: int | None = None  # LEFT: the thread whose run left it free

    # --- threads ----------------------------------------------------------------------

    def acquire(self, depth: int = 1) -> None:
        """Takes the token for this thread ``depth`` times over, waiting (in arrival
        order) if another thread holds it. Interruptible by a signal handler's
        exception, which leaves it not taken."""
        me = _get_ident()
        with self._mutex:
            owner = self._owner
            if owner == me:
                self._depth += depth
                return
            if owner is None:
                if self._waiters and not (self._lingerer == me and self._turn_on()):
                    self._admit()  # the turn over, the first waiter gets it first
                if self._owner is None and (not self._waiters or self._lingerer == me):
                    self._owner, self._depth, self._lingerer = me, depth, None
                    return
            w = _Waiter(me, depth)
            self._waiters.append(w)
            assert self._consistent()
        try:
            while not w.served:
                left = w.since + turn_seconds() - _now()
                if left > 0:
                    w.parker.park(left)
                    continue
                # The turn is up: a token still left free goes to the first waiter.
                with self._mutex:
                    if not w.served:
                        self._admit()
                        assert self._consistent()
                if not w.served:
                    w.parker.park()
        except BaseException:
            self._give_up(w)
            raise

    def release(self, linger: bool = False) -> None:
        """Gives up one level of this thread's hold; the last one hands the token to
        the first waiter. A thread not holding it releases nothing (a run whose wait
        was interrupted before it got the token back).

        ``linger`` (a thread's run ended): while the waiters are young threads, the
        token is left free for this thread's next run instead; the first waiter takes
        it over when its turn is up."""
        me = _get_ident()
        with self._mutex:
            if self._owner != me:
                return
            self._depth -= 1
            if self._depth == 0:
                if not self._waiters:
                    self._owner = self._lingerer = None
                    return
                if linger and self._turn_on():
                    self._owner, self._lingerer = None, me
                else:
                    self._hand_off()
                assert self._consistent()

    def release_all(self) -> int:
        """Gives up this thread's whole hold; returns its depth for ``restore``
        (0 if this thread did not hold it)."""
        with self._mutex:
            if self._owner != _get_ident():
                return 0
            depth = self._depth
            self._hand_off()
            assert self._consistent()
            return depth

    def restore(self, depth: int) -> None:
        """Takes the token back at ``depth`` (from ``release_all``), in one step: an
        interruption leaves it held ``depth`` times or not at all."""
        if depth:
            self.acquire(depth)

    def held(self) -> bool:
        """Whether this thread holds the token."""
        return self._owner == _get_ident()

    def __enter__(self) -> ExecutionToken:
        self.acquire()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.release()

    # --- trio tasks -------------------------------------------------------------------

    async def acquire_async(self) -> None:
        """Takes the token for this task's thread, awaiting a hand-off if another
        thread holds it: the loop goes on meanwhile. Hold it only until the next
        await (``release``): holding is per thread, and the loop's other tasks share
        the thread. Cancelled while waiting, it takes nothing."""
        me = _get_ident()
        with self._mutex:
            if self._owner == me:
                self._depth += 1
                return
            if self._owner is None and not self._waiters:
                self._owner, self._depth, self._lingerer = me, 1, None
                return
            w = _Waiter(me, 1)
            self._waiters.append(w)
            self._admit()  # a task in line ends a turn: it has no timeout to wait it out
            assert self._consistent()
        try:
            while not w.served:
                await w.parker.park_async()
        except BaseException:
            self._give_up(w)
            raise

    # --- hand-off ---------------------------------------------------------------------

    def _turn_on(self) -> bool:
        """With the mutex held and waiters queued: whether they are all threads and
        the first has waited less than a turn."""
        if _now() - self._waiters[0].since >= turn_seconds():
            return False
        return not any(w.parker.in_trio for w in self._waiters)

    def _admit(self) -> None:
        """With the mutex held: a token left free goes to the first waiter unless a
        turn is on."""
        if self._owner is None and self._waiters and not self._turn_on():
            self._hand_off()

    def _hand_off(self) -> None:
        """With the mutex held and the owner's hold given up: the first waiter whose
        wake reaches it becomes the owner, else the token is free."""
        self._lingerer = None
        while self._waiters:
            w = self._waiters.popleft()
            self._owner, self._depth, w.served = w.ident, w.depth, True
            if w.parker.wake():
                return
            w.served = False  # its loop has finished: serve the next
        self._owner, self._depth = None, 0

    def _give_up(self, w: _Waiter) -> None:
        """A waiter interrupted: out of the line (and the admission re-run, so the
        waiters behind it are not stranded on a free token), or, if served
        meanwhile, it passes the token on."""
        with self._mutex:
            if not w.served:
                self._waiters.remove(w)
                self._admit()
            elif self._owner == w.ident:
                # Its thread's other tasks may hold more levels meanwhile, or have
                # given them all up (``release_all``) already.
                self._depth -= w.depth
                if self._depth == 0:
                    self._hand_off()
            assert self._consistent()

    def _consistent(self) -> bool:
        """The invariants of the module docstring (with the mutex held)."""
        if self._owner is None:
            if self._depth != 0:
                return False
            if self._waiters and any(w.parker.in_trio for w in self._waiters):
                return False  # 3: a task cannot wait on a token left free
        elif self._depth < 1 or self._lingerer is not None:
            return False
        return not any(w.served for w in self._waiters)


TOKEN = ExecutionToken()
