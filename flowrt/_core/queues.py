"""Queue state machines on trio: FIFO, random-shuffle, padding and priority queues.

Independent of the graph: a queue holds elements (tuples of numpy arrays) and serves
put and get requests from any thread and any trio loop. ``enqueue``/``dequeue`` are
the blocking kernels' part: they complete at once when they can, else park a request
and yield it (``waiting.Wait``); the thread or trio task that made it parks on its
``parker.Parker``, which whoever serves it wakes. A lock guards the state.

Requests are served in arrival order by ``_flush``: waiting putters and getters form
two lines, and only the head of a line is served. Serving a waiting request is a
two-step hand-off, so that an op either completes or has no effect:

* *grant*: the head's elements are set aside for it (a getter's are moved out of
  storage and still count against capacity, a putter's room is reserved) and its task
  is woken. The head stays at the front of its line until it confirms.
* *confirm*: the woken task checks that it was not cancelled in the meantime and
  commits (a putter's elements enter storage); if it was cancelled, it gives the
  grant back and the next request is served. Nothing is lost and order is kept.

A batch that fits the capacity enters at once (a cancelled one leaves nothing); a
batch larger than the capacity streams in as room frees, ahead of every later put.
A ``get(n)`` takes ``n`` elements at once; it only gathers a partial batch when it
could never be served otherwise (``n`` exceeds the capacity, or the producers wait
for room), and gives the partial batch back to the front if cancelled or closed.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import math
import os
import threading
import time
from collections import deque
from dataclasses import dataclass

import numpy as np
import trio

from .. import errors
from .parker import Parker
from .waiting import Wait, drive_async, park_thread

__all__ = [
    "Queue",
    "RandomShuffleQueue",
    "PaddingQueue",
    "PriorityQueue",
    "QueueStatistics",
    "STALL_WARNING_SECONDS",
    "Row",
    "Rows",
    "rows",
    "batch",
]

logger = logging.getLogger("flowrt")


def _env_stall_seconds() -> float:
    raw = os.environ.get("FLOWRT_QUEUE_STALL_WARNING_SECS", "10")
    try:
        return float(raw)
    except ValueError:
        return 10.0


STALL_WARNING_SECONDS: float = _env_stall_seconds()
"""A queue op blocked this long with no progress on its queue logs one warning
(logger ``flowrt``). Set ``FLOWRT_QUEUE_STALL_WARNING_SECS`` or assign this attribute;
0 or less turns the warning off."""

_WAITING, _GRANTED, _FAILED = 0, 1, 2


@dataclass(frozen=True)
class QueueStatistics:
    """A snapshot of one queue.

    Attributes:
      name: the queue's name.
      size: elements in the queue now.
      capacity: the most elements it holds.
      closed: whether ``close()`` was called.
      waiting_enqueuers: enqueue requests blocked for room.
      waiting_dequeuers: dequeue requests blocked for elements.
    """

    name: str
    size: int
    capacity: int
    closed: bool
    waiting_enqueuers: int
    waiting_dequeuers: int


class _Request(Wait):
    """A put or get waiting in its line, parked where it was made (a thread or a trio
    task) and woken from anywhere. Both wait through the same grant/confirm protocol
    (``Queue._settle``).
    """

    __slots__ = (
        "queue",
        "putter",
        "items",
        "n",
        "up_to",
        "state",
        "error",
        "who",
        "ctx",
        "parker",
        "streaming",
    )

    def __init__(self, queue, putter, items, n, up_to, who, ctx):
        self.queue = queue
        self.putter = putter
        self.items = items  # putter: elements still to enter (a list or Rows);
        #                         getter: gathered so far (a list)
        self.n = n  # getter: elements wanted
        self.up_to = up_to
        self.streaming = False  # a putter part of whose elements entered already
        self.state = _WAITING
        self.error = None
        self.who = who
        self.ctx = ctx
        self.parker = Parker()

    def wake(self):
        """Wakes the waiter, from any thread or loop."""
        self.parker.wake()

    def _done(self) -> bool:
        return self.state != _WAITING

    def describe(self) -> str:
        q = self.queue
        return "%s%s %s '%s' (size %d, capacity %d%s)" % (
            (self.who + ": ") if self.who else "",
            "enqueue of %d element(s) into" % len(self.items)
            if self.putter
            else "dequeue of %d element(s) from" % (self.n - len(self.items)),
            q.kind,
            q.name,
            len(q),
            q.capacity,
            ", closed" if q.closed else "",
        )

    def wait_sync(self):
        q, warn = self.queue, STALL_WARNING_SECONDS
        try:
            stall_at = time.monotonic() + warn if warn > 0 else math.inf
            mark = q._progress(self.putter)
            while not park_thread(self.parker, self._done, self.ctx, self, stall_at):
                stall_at = q._stall_check(self, mark, warn)
                mark = q._progress(self.putter)
        except BaseException:
            q._abandon(self)
            raise
        return q._settle(self)

    async def wait_async(self):
        q, warn = self.queue, STALL_WARNING_SECONDS
        if self.ctx is not None:
            self.ctx.waiting_on = self
        try:
            stall_at = trio.current_time() + warn if warn > 0 else math.inf
            mark = q._progress(self.putter)
            while self.state == _WAITING:
                with trio.move_on_at(stall_at):
                    await self.parker.park_async()
                if self.state == _WAITING:
                    stall_at = q._stall_check(self, mark, warn, trio.current_time())
                    mark = q._progress(self.putter)
            if self.state == _GRANTED and trio.current_effective_deadline() == -math.inf:
                # Cancelled after the grant but before this task ran: give it back.
                await trio.lowlevel.checkpoint()
        except BaseException:
            q._abandon(self)
            raise
        return q._settle(self)


def _joined(items: list, more):
    """A getter's gathered ``items`` followed by ``more``; ``more`` itself (a ``Rows``
    stays one) when nothing was gathered before."""
    if not items:
        return more
    items.extend(more)
    return items


def _parked(req):
    """Yields a parked request to the driver; a generator closed before the request
    was waited for (its run ended) takes the request out of its line."""
    try:
        return (yield req)
    except GeneratorExit:
        req.queue._abandon(req)
        raise


class Queue:
    """A bounded FIFO queue of elements, served in order, on trio.

    Args:
      name: used in messages and statistics.
      capacity: the most elements it holds (> 0).
      kind: the TF class name used in messages (``FIFOQueue``, ...).
    """

    kind = "FIFOQueue"
    ordered = True  # dequeues in enqueue order (see ``batch``)
    # Whether stored elements are copies made as they enter (then ``enqueue`` skips its
    # caller's copy for elements that enter at once); else the queue keeps the arrays.
    stores_copies = False

    def __init__(self, name: str, capacity: int, kind: str | None = None):
        if capacity <= 0:
            raise ValueError("queue %r: capacity must be positive, got %d" % (name, capacity))
        self.name = name
        self.capacity = int(capacity)
        if kind is not None:
            self.kind = kind
        self._closed = False
        self._lock = threading.RLock()
        self._putters: deque[_Request] = deque()
        self._getters: deque[_Request] = deque()
        self._reserved = 0  # room granted to the head putter, not yet committed
        self._held = 0  # elements granted to the head getter, not yet confirmed
        self._puts = 0  # progress counters for the stall warning
        self._takes = 0
        self._init_storage()

    # --- storage policy (overridden by subclasses) -----------------------------------

    def _init_storage(self):
        # Pieces in order: a ``Rows`` run of one enqueue_many batch, or one element.
        self._items: deque = deque()
        self._len = 0

    def __len__(self) -> int:
        return self._len

    def _push(self, elems):
        if type(elems) is Rows:
            self._items.append(elems)
        else:
            self._items.extend(elems)
        self._len += len(elems)

    def _take(self, k: int):
        """The first ``k`` elements: a ``Rows`` when one run, or runs of one shape,
        hold them (no per-row objects), else a list."""
        if k <= 0:
            return []
        items = self._items
        self._len -= k
        first = items[0]
        if type(first) is Rows and len(first) >= k:
            if len(first) == k:
                return items.popleft()
            items[0] = first[k:]
            return first[:k]
        joined = self._take_runs(k)
        if joined is not None:
            return joined
        out: list = []
        while k:
            p = items[0]
            if type(p) is Rows:
                m = len(p)
                if m <= k:
                    items.popleft()
                    out.extend(p)
                    k -= m
                else:
                    items[0] = p[k:]
                    out.extend(p[:k])
                    k = 0
            else:
                out.append(items.popleft())
                k -= 1
        return out

    def _take_runs(self, k: int):
        """The first ``k`` elements as one ``Rows`` of a batch joined from the runs that
        hold them, when ``enqueue_many`` runs of one shape hold all of them (a batch
        spanning several enqueues: no per-row objects); else None, having taken nothing.
        """
        items = self._items
        pieces, got = [], 0
        for p in items:
            if type(p) is not Rows:
                return None
            pieces.append(p)
            got += len(p)
            if got >= k:
                break
        last = pieces[-1]
        cut = len(last) - (got - k)  # rows of the last run taken
        try:
            joined = tuple(
                np.concatenate(parts)
                for parts in zip(
                    *([c[p.start : p.stop] for c in p.batch] for p in pieces[:-1] + [last[:cut]]),
                    strict=True,
                )
            )
        except ValueError:  # components of differing shapes (a padding queue's)
            return None
        for _ in range(len(pieces) - 1):
            items.popleft()
        if cut == len(last):
            items.popleft()
        else:
            items[0] = last[cut:]
        return rows(joined)

    def _give_back(self, elems):
        """Returns elements taken by a request that did not complete to the front."""
        if type(elems) is Rows:
            self._items.appendleft(elems)
        else:
            self._items.extendleft(reversed(elems))
        self._len += len(elems)

    def _available(self) -> int:
        """How many elements a getter may take now."""
        return len(self)

    # --- observing --------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self._closed

    def size(self) -> int:
        return len(self)

    def statistics(self) -> QueueStatistics:
        """A frozen snapshot: size, capacity, closed, waiting enqueuers and dequeuers."""
        return QueueStatistics(
            self.name,
            len(self),
            self.capacity,
            self._closed,
            sum(r.state == _WAITING for r in list(self._putters)),
            sum(r.state == _WAITING for r in list(self._getters)),
        )

    def __repr__(self):
        return "<%s %r size=%d capacity=%d%s>" % (
            self.kind,
            self.name,
            len(self),
            self.capacity,
            " closed" if self._closed else "",
        )

    # --- errors -----------------------------------------------------------------------

    def _closed_error(self):
        return errors.CancelledError(None, None, "%s '%s' is closed." % (self.kind, self.name))

    def _insufficient(self, n, have):
        return errors.OutOfRangeError(
            None,
            None,
            "%s '%s' is closed and has insufficient elements (requested %d, "
            "current size %d)" % (self.kind, self.name, n, have),
        )

    # --- put ----------------------------------------------------------------------------

    def _room(self) -> int:
        return self.capacity - len(self) - self._reserved - self._held

    def put_nowait(self, elems: list | Rows) -> None:
        """Adds all of ``elems`` at once, or raises ``trio.WouldBlock`` and adds nothing.

        Raises fr.errors.CancelledError if the queue is closed.
        """
        with self._lock:
            if self._closed:
                raise self._closed_error()
            if self._putters or len(elems) > self._room():
                raise trio.WouldBlock
            self._commit_put(elems)

    def enqueue(self, elems: list | Rows, who: str = "", ctx=None, copy=None):
        """A blocking kernel's part (a generator, see ``waiting``): adds ``elems`` in
        order, yielding a wait while there is no room.

        A list that fits the capacity enters at once, when there is room for all of it;
        a longer one enters as room frees, ahead of every later put. Interrupted before
        it entered, it leaves nothing (a longer one leaves the part that already
        entered). ``copy``, when given, makes the elements the queue keeps from
        ``elems`` (the caller may change its arrays later); it is skipped when this
        queue copies elements itself as they enter (``stores_copies``) and they enter
        at once.
        """
        if copy is not None and not self.stores_copies:
            elems, copy = copy(elems), None
        with self._lock:
            if self._closed:
                raise self._closed_error()
            if not self._putters and len(elems) <= self._room():
                self._commit_put(elems)
                return None
            if copy is not None:  # it waits, while the caller still holds its arrays
                elems = copy(elems)
            req = _Request(
                self, True, elems if type(elems) is Rows else list(elems), 0, False, who, ctx
            )
            self._putters.append(req)
            self._flush()
        return (yield from _parked(req))

    def _commit_put(self, elems):
        if elems:
            self._push(elems)
            self._puts += 1
            self._flush()

    # --- get ----------------------------------------------------------------------------

    def get_nowait(self, n: int = 1, up_to: bool = False, ctx=None) -> list:
        """Takes ``n`` elements at once, or raises ``trio.WouldBlock`` and takes nothing.

        On a closed queue with fewer than ``n`` left: raises fr.errors.OutOfRangeError,
        or with ``up_to`` returns what is left (OutOfRangeError if nothing is).
        """
        with self._lock:
            got = self._try_get(n, up_to, ctx)
        if got is None:
            raise trio.WouldBlock
        return got

    def _try_get(self, n, up_to, ctx):
        if self._getters:
            return None
        avail = self._available()
        if n <= avail:
            return self._commit_get(self._take(n), ctx)
        if self._closed:
            if up_to and avail > 0:
                return self._commit_get(self._take(avail), ctx)
            raise self._insufficient(n, len(self))
        return None

    def dequeue(self, n: int = 1, up_to: bool = False, who: str = "", ctx=None):
        """A blocking kernel's part (a generator): takes ``n`` elements, yielding a wait
        while there are too few. An interrupted wait takes nothing.

        With a run context ``ctx`` the elements taken are recorded in its journal, so an
        interrupted run can give them back (``give_back``).
        """
        with self._lock:
            got = self._try_get(n, up_to, ctx)
            if got is not None:
                return got
            req = _Request(self, False, [], n, up_to, who, ctx)
            self._getters.append(req)
            self._flush()
        return (yield from _parked(req))

    def _commit_get(self, elems, ctx=None):
        self._takes += 1
        if ctx is not None:
            ctx.journal.append((self, elems))
        self._flush()
        return elems

    def give_back(self, elems: list) -> None:
        """Returns elements a run took to the front of the queue, in their order: the
        run was interrupted before it completed (see docs/queues.md). They may take
        the queue over its capacity until dequeued; a closed queue takes them too."""
        with self._lock:
            self._give_back(elems)
            self._flush()

    # --- the trio-task API (tests and tools; kernels use ``enqueue``/``dequeue``) -------

    async def put(self, elems: list, who: str = "") -> None:
        """``enqueue`` awaited in a trio task; a checkpoint either way."""
        await trio.lowlevel.checkpoint_if_cancelled()
        await drive_async(self.enqueue(elems, who))
        await trio.lowlevel.cancel_shielded_checkpoint()

    async def get(self, n: int = 1, up_to: bool = False, who: str = "") -> list:
        """``dequeue`` awaited in a trio task; a cancelled get takes nothing."""
        await trio.lowlevel.checkpoint_if_cancelled()
        got = await drive_async(self.dequeue(n, up_to, who))
        await trio.lowlevel.cancel_shielded_checkpoint()
        return got

    # --- close --------------------------------------------------------------------------

    def close(self, cancel_pending_enqueues: bool = False) -> None:
        """Closes the queue: later puts fail, and gets that cannot be served fail now.

        With ``cancel_pending_enqueues`` the waiting puts fail too (CancelledError).
        Closing a closed queue raises CancelledError unless ``cancel_pending_enqueues``
        (as in TF).
        """
        with self._lock:
            self._close(cancel_pending_enqueues)

    def _close(self, cancel_pending_enqueues):
        if cancel_pending_enqueues:
            self._closed = True
            for req in list(self._putters):
                if req.state == _WAITING:
                    self._putters.remove(req)
                    err = errors.CancelledError(
                        None,
                        None,
                        "Enqueue operation was cancelled: %s '%s' was closed "
                        "with cancel_pending_enqueues=True." % (self.kind, self.name),
                    )
                    # A cancelled enqueue interrupts its run: the run gives back what
                    # it dequeued (q_out.enqueue(q_in.dequeue()) loses nothing).
                    if req.ctx is not None:
                        req.ctx.mark_interrupted(err)
                    self._fail(req, err)
        elif self._closed:
            raise errors.CancelledError(None, None, "Queue '%s' is already closed." % self.name)
        self._closed = True
        self._flush()

    # --- serving the lines ----------------------------------------------------------------

    def _fail(self, req, err):
        req.state = _FAILED
        req.error = err
        req.wake()

    def _grant(self, req):
        req.state = _GRANTED
        req.wake()

    def _flush(self):
        """Serves the heads of both lines until neither can move."""
        putters, getters = self._putters, self._getters
        while True:
            moved = False
            if putters and putters[0].state == _WAITING:
                p = putters[0]
                room = self._room()
                need = len(p.items)
                if need <= room:
                    self._reserved = need
                    self._grant(p)
                    moved = True
                elif room > 0 and (p.streaming or need > self.capacity or self._getter_starved()):
                    # Stream: a batch that can never fit at once, or one a waiting
                    # getter needs to make progress, enters as room frees, and goes on
                    # doing so until all of it entered (as TF, element by element).
                    p.streaming = True
                    self._push(p.items[:room])
                    p.items = p.items[room:]
                    self._puts += 1
                    moved = True
            if getters and getters[0].state == _WAITING:
                g = getters[0]
                need = g.n - len(g.items)
                avail = self._available()
                if need <= avail:
                    g.items = _joined(g.items, self._take(need))
                    self._held = g.n
                    self._grant(g)
                    moved = True
                elif self._closed and not (putters and putters[0].state == _GRANTED):
                    if g.up_to and len(g.items) + avail > 0:
                        g.items = _joined(g.items, self._take(avail))
                        self._held = len(g.items)
                        self._grant(g)
                    else:
                        getters.popleft()
                        self._give_back(g.items)
                        g.items = []
                        self._fail(g, self._insufficient(g.n, len(self)))
                    moved = True
                elif avail > 0 and (
                    g.n > self.capacity or (putters and putters[0].state == _WAITING)
                ):
                    # Gather a partial batch: it could never be served whole otherwise.
                    g.items.extend(self._take(avail))
                    self._takes += 1
                    moved = True
            if not moved:
                return

    def _getter_starved(self) -> bool:
        return bool(self._getters) and self._getters[0].state == _WAITING and self._available() == 0

    # --- waiting (see _Request.wait_sync / wait_async) ----------------------------------

    def _progress(self, putter: bool) -> int:
        return self._takes if putter else self._puts

    def _stall_check(self, req, mark, warn, now=None) -> float:
        """After ``warn`` seconds of waiting: the next check time, warning once if the
        queue made no progress for the waiter since ``mark``."""
        now = time.monotonic() if now is None else now
        if self._progress(req.putter) != mark:
            return now + warn
        self._warn_stalled(req, warn)
        return math.inf

    def _settle(self, req):
        """Confirms a woken request (its elements enter, or are handed over) or raises
        its failure."""
        with self._lock:
            if req.state == _FAILED:
                raise req.error
            if req.putter:
                self._putters.popleft()
                self._reserved = 0
                self._commit_put(req.items)
                return None
            self._getters.popleft()
            self._held = 0
            return self._commit_get(req.items, req.ctx)

    def _abandon(self, req):
        """Undoes a request whose waiter was interrupted: it takes and leaves nothing."""
        with self._lock:
            if req.state == _FAILED:
                return
            if req.state == _GRANTED:
                if req.putter:
                    self._reserved = 0
                else:
                    self._held = 0
            (self._putters if req.putter else self._getters).remove(req)
            if not req.putter and req.items:
                self._give_back(req.items)
                req.items = []
            req.state = _FAILED
            self._flush()

    def _warn_stalled(self, req, secs):
        who = ("%s " % req.who) if req.who else ""
        if req.putter:
            logger.warning(
                "A run has been blocked for %.0f s: %swaits for room to enqueue %d "
                "element(s) in %s '%s' (size %d, capacity %d), and nothing has dequeued "
                "from it since. Run the op that consumes this queue (e.g. the training "
                "step) in another thread or task, or raise the capacity. sess.debug_dump() "
                "lists every run in flight and what it waits on.",
                secs,
                who,
                len(req.items),
                self.kind,
                self.name,
                len(self),
                self.capacity,
            )
            return
        start = (
            "run them as trio tasks with `async with fr.train.queue_runners(sess):`"
            if req.parker.in_trio
            else "start them with fr.train.start_queue_runners(sess, coord)"
        )
        logger.warning(
            "A run has been blocked for %.0f s: %swaits for %d element(s) from %s '%s' "
            "(size %d, capacity %d%s), and nothing has enqueued to it since. If queue "
            "runners feed this queue, %s before running this op (or enqueue from another "
            "thread or task). sess.debug_dump() lists every run in flight, what it waits "
            "on, and which runner threads or tasks feed the queue.",
            secs,
            who,
            req.n - len(req.items),
            self.kind,
            self.name,
            len(self),
            self.capacity,
            ", closed" if self._closed else "",
            start,
        )


class RandomShuffleQueue(Queue):
    """Dequeues in a random order, keeping ``min_after_dequeue`` elements until closed.

    Storage is columnar: one array per component holding the queued elements in rows
    ``0 .. len - 1``. A batch from ``enqueue_many`` is slice-assigned in (a copy, so a
    queued row never keeps its whole batch alive), a dequeue gathers randomly sampled
    row indices out and fills the holes from the tail. A component of a fully defined
    shape (``shapes``) is a ``(room,) + shape`` array of the first element's dtype;
    any other is a ``(room,)`` object array of the elements' own arrays. The room
    doubles as needed and halves when a quarter is used: memory follows what is queued.

    Args:
      seed: an int, a sequence of ints, or None (nondeterministic).
      shapes: per component, its fully defined shape as a tuple, or None; None for
        all components when unknown.
    """

    kind = "RandomShuffleQueue"
    ordered = False
    stores_copies = True
    _MIN_ROOM = 16

    def __init__(self, name, capacity, min_after_dequeue=0, seed=None, shapes=None):
        self.min_after_dequeue = int(min_after_dequeue)
        if seed is not None and not isinstance(seed, int):
            seed = [int(s) & 0xFFFFFFFFFFFFFFFF for s in seed]
        elif seed is not None:
            seed = int(seed) & 0xFFFFFFFFFFFFFFFF
        self._rng = np.random.default_rng(seed)
        self._shapes = None if shapes is None else [None if s is None else tuple(s) for s in shapes]
        super().__init__(name, capacity)

    def _init_storage(self):
        self._cols: list | None = None  # allocated by the first push
        self._n = 0
        self._stamp: np.ndarray | None = None  # scratch of ``_sample``
        self._ranges: dict = {}

    def __len__(self):
        return self._n

    def _resize(self, room: int, like=None):
        """Moves the queued rows to columns of ``room`` rows (the first call makes the
        columns from ``like``: per component, a sample's (dtype, shape))."""
        n, old = self._n, self._cols
        if old is None:
            self._fixed, cols = [], []
            for i, (dtype, shape) in enumerate(like):
                want = (
                    self._shapes[i] if self._shapes is not None and i < len(self._shapes) else None
                )
                if want is not None and shape == want:
                    self._fixed.append(True)
                    cols.append(np.empty((room, *want), dtype))
                else:
                    self._fixed.append(False)
                    cols.append(np.empty(room, object))
        else:
            cols = [np.empty((room,) + o.shape[1:], o.dtype) for o in old]
            for c, o in zip(cols, old, strict=True):
                c[:n] = o[:n]
        self._cols = cols

    def _push(self, elems):
        for b, a, z in _runs(elems):
            k = z - a if b is not None else 1
            n = self._n
            if self._cols is None or n + k > len(self._cols[0]):
                sample = (
                    [(c.dtype, c.shape[1:]) for c in b]
                    if b is not None
                    else [_dtype_shape(c) for c in a]
                )
                self._resize(
                    max(
                        self._MIN_ROOM, n + k, 2 * (0 if self._cols is None else len(self._cols[0]))
                    ),
                    sample,
                )
            for i, col in enumerate(self._cols):
                if self._fixed[i]:
                    col[n : n + k] = b[i][a:z] if b is not None else a[i]
                elif b is not None:  # each row an array of its own (see the class doc)
                    for j in range(a, z):
                        v = b[i][j]
                        col[n + j - a] = v.copy() if isinstance(v, np.ndarray) else v
                else:
                    col[n] = a[i]
            self._n = n + k

    def _take(self, k):
        n = self._n
        if k == 0:
            return []
        cols = self._cols
        sel = self._sample(n, k, len(cols[0]))
        out = tuple(col.take(sel, axis=0) for col in cols)
        # Fill the holes below the new end ``m`` with the rows above it not taken.
        m = n - k
        low = sel < m
        holes = sel[low]
        if len(holes):
            keep = np.ones(k, bool)
            keep[sel[~low] - m] = False
            tail = np.flatnonzero(keep)
            tail += m
            for col in cols:
                col[holes] = col.take(tail, axis=0)
        self._n = m
        room = len(cols[0])
        if room > self._MIN_ROOM and m * 4 <= room:
            self._resize(max(self._MIN_ROOM, room // 2))
        if all(self._fixed):
            return rows(out)  # rows of one fresh batch: ``batch`` slices them back
        return list(zip(*out, strict=True))

    def _sample(self, n: int, k: int, room: int) -> np.ndarray:
        """``k`` distinct row indices out of ``n``, uniformly at random and in random
        order (each is a uniform pick among the rows not picked before it).

        When ``k`` is small against ``n`` (a training batch out of a filled queue):
        ``k`` plus a few independent uniform draws, keeping one draw of each value. By
        symmetry the values kept, in draw order, are a uniformly random ordered sample
        whatever draw of a repeated value is kept; too few distinct values (rare) falls
        back to ``Generator.choice``, whose fixed cost is several times that of these
        few array operations.
        """
        rng = self._rng
        if n >= 8 * k:
            m = k + k // 8 + 8
            draws = (rng.random(m) * n).astype(np.intp)
            stamp = self._stamp
            if stamp is None or not n <= len(stamp) <= room:  # it follows the room
                stamp = self._stamp = np.empty(room, np.intp)
            at = self._arange(m)
            stamp[draws] = at  # one of the draws of a repeated value wins
            kept = draws[stamp[draws] == at]
            if len(kept) >= k:
                return kept[:k]
        return rng.choice(n, size=k, replace=False)

    def _arange(self, m: int) -> np.ndarray:
        r = self._ranges.get(m)
        if r is None:
            if len(self._ranges) >= 8:  # dequeue_up_to of many sizes: keep a few
                self._ranges.clear()
            r = self._ranges[m] = np.arange(m, dtype=np.intp)
            r.flags.writeable = False
        return r

    def _give_back(self, elems):
        self._push(elems)

    def _available(self):
        if self._closed:
            return self._n
        return max(0, self._n - self.min_after_dequeue)


def _dtype_shape(value) -> tuple:
    """A component's (dtype, shape); strings are object arrays, as flowrt keeps them."""
    v = np.asarray(value)
    return (np.dtype(object) if v.dtype.kind in "SU" else v.dtype), v.shape


class PaddingQueue(Queue):
    """A FIFO queue whose batches pad dimensions of unknown size (see ``batch``)."""

    kind = "PaddingFIFOQueue"


class PriorityQueue(Queue):
    """Dequeues the element with the smallest int64 first component first (ties FIFO)."""

    kind = "PriorityQueue"
    ordered = False

    def _init_storage(self):
        self._items = []
        self._seq = itertools.count()
        self._front = itertools.count(-1, -1)

    def __len__(self):
        return len(self._items)

    def _push(self, elems):
        items, seq = self._items, self._seq
        for e in elems:
            heapq.heappush(items, (int(e[0]), next(seq), e))

    def _take(self, k):
        pop, items = heapq.heappop, self._items
        return [pop(items)[2] for _ in range(k)]

    def _give_back(self, elems):
        for e in reversed(elems):  # ahead of equal priorities, in their old order
            heapq.heappush(self._items, (int(e[0]), next(self._front), e))


class Row:
    """Element ``j`` of a batch that ``enqueue_many`` put in: a lazy tuple of its
    components (``batch[i][j]``). Batching rows back keeps them as slices of that batch
    instead of copying row by row (see ``batch``)."""

    __slots__ = ("batch", "j")

    def __init__(self, batch: tuple, j: int):
        self.batch = batch
        self.j = j

    def __getitem__(self, i):
        return self.batch[i][self.j]

    def __len__(self):
        return len(self.batch)

    def __iter__(self):
        j = self.j
        return (c[j] for c in self.batch)


class Rows:
    """Rows ``start .. stop - 1`` of a batch (one array per component, rows along axis
    0) as a sequence of ``Row`` elements, made on demand: a queue stores, hands out and
    gives back a whole run without a Python object per row, and ``batch`` slices it
    back."""

    __slots__ = ("batch", "start", "stop")

    def __init__(self, batch: tuple, start: int, stop: int):
        self.batch = batch
        self.start = start
        self.stop = stop

    def __len__(self):
        return self.stop - self.start

    def __getitem__(self, i):
        if isinstance(i, slice):
            a, z, step = i.indices(self.stop - self.start)
            if step != 1:
                return list(self)[i]
            return Rows(self.batch, self.start + a, self.start + max(a, z))
        n = self.stop - self.start
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("Rows index out of range")
        return Row(self.batch, self.start + i)

    def __iter__(self):
        return map(Row, itertools.repeat(self.batch, len(self)), range(self.start, self.stop))

    def __add__(self, other):
        return list(self) + list(other)

    def __radd__(self, other):
        return list(other) + list(self)

    def __repr__(self):
        return "<Rows %d..%d of a batch>" % (self.start, self.stop)


def rows(components: tuple) -> Rows:
    """The elements of a batch (one array per component, rows along axis 0)."""
    return Rows(components, 0, len(components[0]))


def _runs(elems):
    """Splits elements into (batch, start, stop) runs of consecutive rows of one batch;
    an element that is not a Row is a run (None, element, 0)."""
    if type(elems) is Rows:
        return [[elems.batch, elems.start, elems.stop]]
    runs = []
    cur = None
    for e in elems:
        if type(e) is Row:
            if cur is not None and cur[0] is e.batch and cur[2] == e.j:
                cur[2] += 1
                continue
            cur = [e.batch, e.j, e.j + 1]
        else:
            cur = [None, e, 0]
        runs.append(cur)
        if cur[0] is None:
            cur = None
    return runs


def batch(elems: list | Rows, dtypes: list, pad: bool = False, ordered: bool = False) -> tuple:
    """Stacks elements into one array per component (numpy dtypes ``dtypes``); pads
    dimensions of differing size with zeros (empty strings) when ``pad``.

    ``ordered``: the elements came out of a FIFO queue, where one batch's rows stay
    contiguous and in order, so a first and last row of one batch ``n - 1`` apart
    bound a single slice of it.
    """
    if type(elems) is Rows and not pad:
        a, z = elems.start, elems.stop
        return tuple(
            c[a:z] if c.dtype == dt else c[a:z].astype(dt)
            for c, dt in zip(elems.batch, dtypes, strict=True)
        )
    first, last = elems[0], elems[-1]
    if (
        ordered
        and not pad
        and type(first) is Row
        and type(last) is Row
        and first.batch is last.batch
        and last.j - first.j == len(elems) - 1
    ):
        a, z = first.j, last.j + 1
        return tuple(
            c[a:z] if c.dtype == dt else c[a:z].astype(dt)
            for c, dt in zip(first.batch, dtypes, strict=True)
        )
    if not pad:
        runs = _runs(elems)
        if len(runs) <= 8 or len(runs) * 8 <= len(elems):
            # Rows that came in batches go out as slices of those batches.
            try:
                out = []
                for i, dt in enumerate(dtypes):
                    pieces = [
                        b[i][a:z] if b is not None else np.asarray(a[i])[None] for b, a, z in runs
                    ]
                    arr = pieces[0] if len(pieces) == 1 else np.concatenate(pieces)
                    out.append(arr if arr.dtype == dt else arr.astype(dt))
                return tuple(out)
            except ValueError:
                pass  # differing shapes: the general path says which
    out = []
    n = len(elems)
    for i, dt in enumerate(dtypes):
        parts = [e[i] for e in elems]
        first = np.shape(parts[0])
        if not all(np.shape(p) == first for p in parts):
            shapes = {np.shape(p) for p in parts}
            if not pad:
                raise ValueError(
                    "elements of component %d have different shapes %s" % (i, sorted(shapes))
                )
            shape = tuple(max(s) for s in zip(*shapes, strict=False))
            fill = b"" if np.dtype(dt).kind == "O" else 0
            arr = np.full((n,) + shape, fill, dtype=dt)
            for j, p in enumerate(parts):
                arr[(j,) + tuple(slice(0, d) for d in np.shape(p))] = p
        else:
            arr = np.empty((n,) + first, dtype=dt)
            for j, p in enumerate(parts):
                arr[j, ...] = p  # not arr[j]: that stores a 0-d object array as itself
        out.append(arr)
    return tuple(out)
