"""How a blocking kernel waits, in a thread or in a trio task.

A blocking kernel is a generator function. It does its work without blocking when it
can and returns; when it would have to wait, it yields a ``Wait`` (a queue's parked
request, a sub-plan to run concurrently, ...) and is sent the wait's result. The
driver decides how to wait: ``drive_sync`` parks the calling thread, ``drive_async``
the calling trio task, both on the wait's ``parker.Parker``. One kernel, one
grant/confirm protocol, two ways to park (trio's ``_channel.py`` shape, with
``queue.Queue``'s thread half beside it).
"""

from __future__ import annotations

import math
import time
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, Callable, Generator

import trio

from .token import TOKEN

if TYPE_CHECKING:
    from .parker import Parker
    from .run_context import RunContext

__all__ = ["Wait", "drive_sync", "drive_async", "park_thread", "on_worker_thread"]

#: What a blocking kernel's generator is: it yields waits, is sent their results.
KernelGen = Generator["Wait", Any, Any]


class Wait(ABC):
    """Something a blocking kernel waits for.

    ``wait_sync()`` blocks the calling (non-trio) thread and ``await wait_async()``
    the calling trio task until the wait completes, and return its result. Either
    one, interrupted, undoes the wait (it takes and leaves nothing) and raises.

    ``wake()`` is how the run's interruption (``RunContext.cancel``, from any thread)
    reaches a thread parked in ``wait_sync``; ``describe()`` names the wait in a
    timeout's message and in a trace.
    """

    __slots__ = ()

    @abstractmethod
    def wait_sync(self) -> Any: ...

    @abstractmethod
    async def wait_async(self) -> Any: ...

    def describe(self) -> str:
        """What the run waits on, for messages and traces: by default the kind of
        wait."""
        return type(self).__name__

    def wake(self) -> None:  # noqa: B027 (a deliberate default: nothing to wake)
        """Wakes a thread parked in ``wait_sync``, from any thread, so that it sees
        the run's interruption. A wait whose thread side parks nothing of its own (a
        sub-plan in its own loop, which the run's ``cancel_hook`` cancels) has
        nothing to wake."""


class _CallOnThread(Wait):
    """A kernel call as a wait: a trio task runs it on a worker thread (so calls of
    several tasks overlap); a thread waiting on it just makes the call."""

    __slots__ = ("call",)

    def __init__(self, call: Callable[[], Any]) -> None:
        self.call = call

    def wait_sync(self) -> Any:
        return self.call()

    async def wait_async(self) -> Any:
        return await trio.to_thread.run_sync(self.call)

    def describe(self) -> str:
        return "a py_func call on a worker thread"


def on_worker_thread(kernel: Callable[..., Any]) -> Callable[..., KernelGen]:
    """``kernel`` as a blocking (generator) kernel whose one wait is the call itself:
    in a concurrent plan, independent calls of opaque user code (py_funcs) run at
    once on worker threads, as TF's executor runs them on its inter-op threads."""

    def call(ctx: Any, op: Any, *args: Any) -> KernelGen:
        return (yield _CallOnThread(lambda: kernel(ctx, op, *args)))

    return call


def park_thread(
    parker: Parker,
    ready: Callable[[], bool],
    ctx: RunContext | None,
    waiter: Wait,
    until: float = math.inf,
) -> bool:
    """Parks this thread on ``parker`` (made by it) until ``ready()``.

    The parker is woken after whatever makes ``ready()`` true, and by ``ctx.cancel``.
    Returns True once ready, False at ``until`` (a ``time.monotonic()`` value). With a
    run context ``ctx``, the run's interruption (``ctx.cancel``: close, a caller's
    cancel) and its deadline end the wait by raising their error; ``waiter`` is what
    ``ctx.cancel`` wakes. A signal handler's exception (KeyboardInterrupt) ends it too.
    """
    if ctx is not None:
        ctx.waiter = waiter
    try:
        while not ready():
            if ctx is not None:
                ctx.check_interrupted()
                end = min(until, ctx.deadline)
            else:
                end = until
            # A wake between the check and the park is kept as the parker's permit.
            parker.park(end - time.monotonic() if end != math.inf else math.inf)
            if ready():
                break
            now = time.monotonic()
            if ctx is not None and now >= ctx.deadline:
                ctx.timed_out()
            if now >= until:
                return False
        return True
    finally:
        if ctx is not None:
            ctx.waiter = None


def drive_sync(gen: KernelGen, meter: Any = None, first: Wait | None = None) -> Any:
    """Runs a kernel generator to its end on this thread, parking it on each wait.

    The execution token (``token.TOKEN``), if this thread holds it, is given up for
    each wait and taken back after it. ``meter``, if given, has a ``seconds``
    attribute: a running average of the time spent computing (outside waits), updated
    when the generator ends. ``first`` is the wait a started generator yielded.
    """
    clock = time.perf_counter
    busy = 0.0
    try:
        t = clock()
        w = gen.send(None) if first is None else first
        while True:
            busy += clock() - t
            depth = TOKEN.release_all()
            try:
                res = w.wait_sync()
            except Exception as e:  # delivered to the kernel (it names the op)
                TOKEN.restore(depth)
                t = clock()
                w = gen.throw(e)
            except BaseException:
                TOKEN.restore(depth)
                raise
            else:
                TOKEN.restore(depth)
                t = clock()
                w = gen.send(res)
    except StopIteration as stop:
        if meter is not None:
            meter.seconds = 0.8 * meter.seconds + 0.2 * (busy + clock() - t)
        return stop.value
    except BaseException:
        gen.close()
        raise


async def drive_async(gen: KernelGen, meter: Any = None, first: Wait | None = None) -> Any:
    """Runs a kernel generator to its end in this trio task, awaiting each wait.

    The caller does not hold the execution token: each stretch of the kernel between
    waits runs holding it (``TOKEN.acquire_async``), and no await happens while held.
    """
    clock = time.perf_counter
    busy = 0.0
    token = TOKEN
    try:
        if first is None:
            await token.acquire_async()
            t = clock()
            try:
                w = gen.send(None)
            finally:
                busy += clock() - t
                token.release()
        else:
            w = first
        while True:
            error: Exception | None = None
            try:
                res = await w.wait_async()
            except Exception as e:
                error = e
            # Shielded: the wait's outcome (a grant) must reach the kernel; the token
            # comes within one run's stretch, and a cancel acts at the next wait.
            with trio.CancelScope(shield=True):
                await token.acquire_async()
            t = clock()
            try:
                w = gen.send(res) if error is None else gen.throw(error)
            finally:
                busy += clock() - t
                token.release()
    except StopIteration as stop:
        if meter is not None:
            meter.seconds = 0.8 * meter.seconds + 0.2 * busy
        return stop.value
    except BaseException:
        gen.close()
        raise
