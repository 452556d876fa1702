"""The execution token: one per process, held by whichever run executes kernels.

numpy releases the GIL around every ufunc or BLAS call on more than a few hundred
elements. With several threads running flowrt runs at once (runner threads, a
trainer), each such release lets a waiting thread take the GIL, and the releasing
thread then waits up to a switch interval to get it back: hundreds of GIL hand-offs
(futex wake-ups) per training step, which cost more CPU than the step's kernels. The
token serializes runs instead: a run executes its kernels holding it, and gives it up
only where it would wait or where overlapping pays (``docs/executor.md`` has the
measurements), so the GIL changes hands a few times per run instead of hundreds.

Holding is per thread and reentrant (a kernel may run a nested plan, a py_func may
call ``sess.run`` on its own thread). Waiters are served in arrival order, with one
exception that keeps turns long: a thread whose run ends while the waiters are threads
that have waited less than the GIL's switch interval (``sys.getswitchinterval()``,
5 ms) may take the token back for its next run ahead of them; past that interval the
first waiter gets it. Each change of hands moves the work to a thread, often a core,
whose caches hold another run's data: in the CSV pipeline of ``benchmarks/pipeline.py``
(a trainer and two runner threads) handing off at every run end cost a fifth of the
throughput (``docs/executor.md``). A thread running back-to-back runs still cannot
starve the others for longer than the interval and one run. A trio task never blocks
its loop on the token: it awaits a hand-off (``acquire_async``) and holds the token
only between awaits.
"""

from __future__ import annotations

import collections
import math
import sys
import threading
import time
from typing import Any, Callable

import numpy as np
import trio

from .registry import get_op_def

__all__ = ["TOKEN", "ExecutionToken", "released", "heavy_kernel", "HEAVY"]

_get_ident = threading.get_ident
_now = time.monotonic


class _Waiter:
    """A thread or trio task waiting for the token."""

    __slots__ = ("ident", "lock", "event", "trio_token", "granted", "since")

    def __init__(self, ident: int, lock=None, event=None, trio_token=None):
        self.ident = ident
        self.since = _now()
        self.lock = lock  # a thread's: held, released by the hand-off
        self.event = event  # a task's: set on its loop by the hand-off
        self.trio_token = trio_token
        self.granted = False


class ExecutionToken:
    """A fair, reentrant, per-thread lock that trio tasks can await without blocking
    their loop."""

    def __init__(self) -> None:
        self._mutex = threading.Lock()
        self._owner: int | None = None  # thread ident
        self._depth = 0
        self._waiters: collections.deque[_Waiter] = collections.deque()
        # The thread whose run ended leaving the token free with waiters queued: it
        # may take it back while they are young (``release(linger=True)``).
        self._lingerer: int | None = None

    # --- threads ----------------------------------------------------------------------

    def acquire(self) -> None:
        """Takes the token for this thread, waiting (in arrival order) if another
        thread holds it. Interruptible by a signal handler's exception."""
        me = _get_ident()
        with self._mutex:
            if self._owner == me:
                self._depth += 1
                return
            if self._owner is None:
                if not self._waiters or (self._lingerer == me and self._young()):
                    self._owner, self._depth, self._lingerer = me, 1, None
                    return
                if not self._young():
                    self._hand_off()
            lock = threading.Lock()
            lock.acquire()
            w = _Waiter(me, lock=lock)
            self._waiters.append(w)
        try:
            # Released by the hand-off, which made this thread the owner. A token left
            # free by a run that ended is taken over once the interval is up.
            if not lock.acquire(timeout=max(w.since + sys.getswitchinterval() - _now(), 0.0)):
                with self._mutex:
                    if self._owner is None and not w.granted:
                        self._hand_off()
                lock.acquire()
        except BaseException:
            self._give_up(w)
            raise

    def release(self, linger: bool = False) -> None:
        """Gives up one level of this thread's hold; the last one hands the token to
        the first waiter. A thread not holding it releases nothing (a run whose wait
        was interrupted before it got the token back).

        ``linger`` (a thread's run ended): while the waiters are young threads, the
        token is left free for this thread's next run instead; the first waiter takes
        it over when its switch interval is up."""
        me = _get_ident()
        with self._mutex:
            if self._owner != me:
                return
            self._depth -= 1
            if self._depth == 0:
                if linger and self._waiters and self._young():
                    self._owner, self._lingerer = None, me
                else:
                    self._hand_off()

    def _young(self) -> bool:
        """With the mutex held and waiters queued: whether all are threads and the
        first has waited less than the switch interval (a trio waiter cannot time out,
        so it is served at the next release)."""
        if _now() - self._waiters[0].since >= sys.getswitchinterval():
            return False
        return all(w.lock is not None for w in self._waiters)

    def release_all(self) -> int:
        """Gives up this thread's whole hold; returns its depth for ``restore``
        (0 if this thread did not hold it)."""
        with self._mutex:
            if self._owner != _get_ident():
                return 0
            depth = self._depth
            self._depth = 0
            self._hand_off()
            return depth

    def restore(self, depth: int) -> None:
        """Takes the token back at ``depth`` (from ``release_all``)."""
        if depth:
            self.acquire()
            self._depth = depth  # this thread owns it: no other thread writes it now

    def held(self) -> bool:
        """Whether this thread holds the token."""
        return self._owner == _get_ident()

    def __enter__(self) -> "ExecutionToken":
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
            if self._owner is None and self._waiters and not self._young():
                self._hand_off()
            if (self._owner is None and not self._waiters) or self._owner == me:
                self._owner = me
                self._depth += 1
                return
            event = trio.Event()
            w = _Waiter(me, event=event, trio_token=trio.lowlevel.current_trio_token())
            self._waiters.append(w)
        try:
            await event.wait()
        except BaseException:
            self._give_up(w)
            raise

    # --- hand-off ---------------------------------------------------------------------

    def _hand_off(self) -> None:
        """With the mutex held and depth 0: the first live waiter becomes the owner."""
        self._lingerer = None
        while self._waiters:
            w = self._waiters.popleft()
            if w.lock is not None:
                self._owner, self._depth, w.granted = w.ident, 1, True
                w.lock.release()
                return
            try:
                w.trio_token.run_sync_soon(w.event.set)
            except trio.RunFinishedError:  # its loop is gone: serve the next
                continue
            self._owner, self._depth, w.granted = w.ident, 1, True
            return
        self._owner = None

    def _give_up(self, w: _Waiter) -> None:
        """A waiter interrupted: out of the line, or, if handed the token meanwhile,
        it passes the token on."""
        with self._mutex:
            if not w.granted:
                self._waiters.remove(w)
                return
            self._depth -= 1
            if self._depth == 0:
                self._hand_off()


TOKEN = ExecutionToken()


def released(
    kernel: Callable[..., Any], heavy: Callable[..., bool] | None = None
) -> Callable[..., Any]:
    """``kernel`` run without the token: always (opaque user code), or when
    ``heavy(*inputs)`` says its GIL-free part is long enough for another run's kernels
    to overlap it."""

    def call(ctx, op, *args):
        if heavy is not None and not heavy(*args):
            return kernel(ctx, op, *args)
        depth = TOKEN.release_all()
        try:
            return kernel(ctx, op, *args)
        finally:
            TOKEN.restore(depth)

    call.__wrapped__ = kernel  # type: ignore[attr-defined]
    return call


#: Products of at least this many multiply-adds release the token (docs/executor.md).
MATMUL_RELEASE_FLOPS = 1 << 22
#: Random fills of at least this many elements release the token.
RANDOM_RELEASE_ELEMENTS = 1 << 16


def _matmul_heavy(a, b, *_rest) -> bool:
    if a.ndim < 2 or b.ndim < 2:
        return False
    return a.size * b.shape[-1] >= MATMUL_RELEASE_FLOPS


def _fill_heavy(shape, *_rest) -> bool:
    return math.prod(np.asarray(shape).tolist() or [1]) >= RANDOM_RELEASE_ELEMENTS


#: decode_csv / string_to_number of at least this many fields (~0.2 µs each, mostly in
#: numpy calls and compiled parsing loops that release the GIL) release the token.
PARSE_RELEASE_FIELDS = 1 << 14
#: Pack / ConcatV2 results of at least this many elements (copies without the GIL).
COPY_RELEASE_ELEMENTS = 1 << 17


def _size(x) -> int:
    """Elements of an array input; 1 for anything else (a handle, a scalar)."""
    return x.size if isinstance(x, np.ndarray) else 1


def _decode_heavy(records, *defaults) -> bool:
    return _size(records) * max(len(defaults), 1) >= PARSE_RELEASE_FIELDS


def _pack_heavy(*xs) -> bool:
    return len(xs) * _size(xs[0]) >= COPY_RELEASE_ELEMENTS  # Pack's inputs share a shape


def _concat_heavy(*xs) -> bool:
    return sum(map(_size, xs)) >= COPY_RELEASE_ELEMENTS


#: Op types whose kernel gives up the token when its input says it is heavy.
HEAVY: dict[str, Callable[..., bool]] = {
    "MatMul": _matmul_heavy,
    "BatchMatMulV2": _matmul_heavy,
    "RandomUniform": _fill_heavy,
    "RandomStandardNormal": _fill_heavy,
    "TruncatedNormal": _fill_heavy,
    "DecodeCSV": _decode_heavy,
    "StringToNumber": _decode_heavy,
    "Pack": _pack_heavy,
    "ConcatV2": _concat_heavy,
}


#: An elementwise kernel (or a fused chain of them) releases the token when its
#: estimated GIL-free time reaches this many nanoseconds (docs/executor.md).
ELEMENTWISE_RELEASE_NS = 25_000

#: GIL-free nanoseconds per float32 element of the elementwise ops that cost more than
#: a few tenths of one (numpy's loops, measured on this project's machine, rounded
#: down); every other elementwise op counts ``_CHEAP_NS``.
ELEMENTWISE_NS: dict[str, float] = {
    "Exp": 1.5,
    "Sin": 1.5,
    "Tanh": 3.5,
    "Sigmoid": 3.5,
    "Cos": 5.0,
    "Log": 7.0,
    "Log1p": 12.0,
    "Softplus": 12.0,
    "Expm1": 40.0,
    "Asin": 50.0,
    "Acos": 50.0,
    "Pow": 50.0,
    "Tan": 50.0,
    "Cosh": 50.0,
    "Atan": 50.0,
    "Sinh": 50.0,
    "Asinh": 50.0,
    "Acosh": 50.0,
    "Atanh": 50.0,
}
_CHEAP_NS = 0.2


def _elementwise(kernel: Callable[..., Any], ops: list, ns_per_element: float):
    """``kernel`` of elementwise ``ops`` costing ``ns_per_element`` in all, releasing the
    token when its largest operand is long to compute.

    When every output's shape is known the choice is made here, once: the plan calls
    the kernel itself (or its released form), with no check per run; an elementwise
    output is at least as large as any operand. Otherwise each call checks its inputs.
    """
    least = ELEMENTWISE_RELEASE_NS / ns_per_element
    most = _static_elements(ops)
    if most is not None:
        return released(kernel) if most >= least else kernel

    def heavy(*xs) -> bool:
        for x in xs:
            if type(x) is np.ndarray and x.size >= least:
                return True
        return False

    return released(kernel, heavy)


def _static_elements(ops: list) -> int | None:
    """The largest number of elements of any output of ``ops``, if all are known."""
    most = 0
    for op in ops:
        outputs = getattr(op, "outputs", None)
        if not outputs:
            return None
        for t in outputs:
            n = t.shape.num_elements()
            if n is None:
                return None
            most = max(most, n)
    return most


def heavy_kernel(step) -> Callable[..., Any]:
    """The kernel a plan calls for ``step``: as registered, or wrapped to run without
    the token (opaque user code always; a ``HEAVY`` op type, an elementwise op or a
    fused chain of them when its inputs are big)."""
    kernel = step.kernel
    if step.blocking:
        return kernel  # a generator: its waits give the token up (waiting.drive_*)
    op_def = get_op_def(step.op.type)
    if op_def.extra.get("opaque"):
        return released(kernel)
    heavy = HEAVY.get(step.op.type)
    if heavy is not None:
        return released(kernel, heavy)
    members = getattr(kernel, "ops", None)  # a fused chain (fusion.FusedKernel)
    if members is not None:
        ns = sum(ELEMENTWISE_NS.get(o.type, _CHEAP_NS) for o in members)
        return _elementwise(kernel, members, ns)
    if op_def.ufunc is not None or step.op.type in ELEMENTWISE_NS:
        ns = ELEMENTWISE_NS.get(step.op.type, _CHEAP_NS)
        return _elementwise(kernel, [step.op], ns)
    return kernel
