"""How other processes reach a task: its mailbox, a named Ray actor, and, when the
task's process is itself a Ray actor, that actor directly.

A task's state (``task.TaskRuntime``) lives in the process that started its
``fr.train.Server``, as a TF1 server serves from its own process. Sessions in that
process run the task's parts in place (``client.py``); every other process finds the
task by its *mailbox*: a small asyncio Ray actor named ``flowrt-task:ADDRESS`` in the
``flowrt`` namespace that holds no state of the task. Callers ask it once ``where`` the
task is served (``find``), and then:

* **direct**: the hosting process is a ``process.process_class()`` actor (the worker
  processes that pipelines, benchmarks and tests start): each request is one call of
  that actor, ``serve`` on its own thread (the quick lane) or ``serve_thread`` on one
  of its threads for requests that may wait (``task.ON_THREAD``), both through
  ``serve_direct``;
* **mailbox**: the hosting process is a driver, which Ray cannot call into: a caller's
  ``call(method, args)`` waits in the mailbox until the owning process, which
  long-polls the mailbox for requests (``next``) from a serving thread, posts the
  answer (``answer``). That thread's event loop is the quick lane; a request that may
  wait runs on a thread of its own.

The mailbox is created by the Server's process, so Ray ends it when that process ends
(a non-detached actor shares its owner's fate): calls in flight and later ones fail
with ``RayActorError``, which callers report as ``UnavailableError`` naming the task,
and the name is free for a new Server of the same address.

Arrays do not pass through the mailbox: arguments holding large arrays travel as an
``ObjectRef`` nested in a list (Ray does not resolve nested references), which the
mailbox hands on untouched and the owner reads from the object store. A direct call
passes its arguments as they are: Ray itself moves an argument of more than 100 KiB
through the object store.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

import numpy as np
import outcome
import trio

from . import ray_cluster
from .task import ON_THREAD

__all__ = [
    "BOX_BYTES",
    "POLL_SECONDS",
    "TaskStub",
    "mailbox_class",
    "serve",
    "serve_direct",
    "box",
    "find",
    "MAX_WAITING_REQUESTS",
]

# Arguments with at least this many bytes of arrays travel through the object store.
BOX_BYTES = 64 * 1024

# How long the owner's poll for requests waits in the mailbox before it asks again.
POLL_SECONDS = 30.0

# Calls waiting in one mailbox at once (each is a coroutine of its event loop).
MAX_CONCURRENT_CALLS = 100000

# Requests of the thread lane (parts that may wait) that one process serves at once;
# more wait for a thread, behind the others of that lane only. A process_class()
# actor makes these threads when it starts (Ray's concurrency group); a driver's
# serving loop takes them from trio's thread cache as needed.
MAX_WAITING_REQUESTS = 256

_MAILBOX: Any = None

# What a mailbox's callers may ask of the task (``TaskRuntime``'s coroutines).
SERVED = frozenset(
    [
        "hello",
        "run_part",
        "run_waiting_part",
        "finish",
        "part_state",
        "cancel",
        "drop_client",
        "ping",
        "stats",
        "join",
    ]
)

# Mailbox calls and direct calls this process made (tests check which path was taken).
CALLS = 0
DIRECT_CALLS = 0

# This process's own actor handle when it is a ``process.process_class()`` actor,
# which serves the tasks it hosts directly (set by that actor when it starts).
HOST: Any = None


def mailbox_class() -> Any:
    """The mailbox as a Ray actor class (Ray is imported on first use)."""
    global _MAILBOX
    if _MAILBOX is None:
        ray = ray_cluster.ray_module()

        @ray.remote(num_cpus=0)
        class Mailbox:
            def __init__(self, direct: Any = None) -> None:
                self._direct = direct
                self._requests: list = []
                self._ready: asyncio.Event | None = None
                self._answers: dict[int, asyncio.Future] = {}
                self._next_id = 0

            def _event(self) -> asyncio.Event:
                if self._ready is None:
                    self._ready = asyncio.Event()
                return self._ready

            async def where(self) -> Any:
                """The actor that serves the task directly, or None: ask the mailbox."""
                return self._direct

            async def call(self, method: str, args: list) -> Any:
                """A caller's request: waits for the owner's answer and returns it."""
                rid = self._next_id = self._next_id + 1
                fut = asyncio.get_running_loop().create_future()
                self._answers[rid] = fut
                self._requests.append((rid, method, args))
                self._event().set()
                try:
                    ok, value = await fut
                finally:
                    self._answers.pop(rid, None)
                if not ok:
                    raise RuntimeError(value)
                return value

            async def next(self, timeout: float) -> list:
                """The owner's long poll: the requests waiting (none after ``timeout``)."""
                ready = self._event()
                if not self._requests:
                    try:
                        await asyncio.wait_for(ready.wait(), timeout)
                    except asyncio.TimeoutError:
                        return []
                ready.clear()
                got, self._requests = self._requests, []
                return got

            async def answer(self, rid: int, ok: bool, value: Any) -> None:
                """The owner's answer to request ``rid``."""
                fut = self._answers.get(rid)
                if fut is not None and not fut.done():
                    fut.set_result((ok, value))

        _MAILBOX = Mailbox
    return _MAILBOX


def box(args: list) -> list:
    """``args`` as sent to a mailbox: itself, or ``[ObjectRef]`` when it holds large
    arrays (the mailbox then never deserializes them)."""
    size = 0
    for a in args:
        if isinstance(a, list):
            size += sum(x.nbytes for x in a if isinstance(x, np.ndarray))
        elif isinstance(a, np.ndarray):
            size += a.nbytes
    if size < BOX_BYTES:
        return ["inline", args]
    return ["boxed", ray_cluster.ray_module().put(args)]


class _Method:
    __slots__ = ("stub", "name")

    def __init__(self, stub: "TaskStub", name: str) -> None:
        self.stub, self.name = stub, name

    def remote(self, *args: Any) -> Any:
        global CALLS, DIRECT_CALLS
        stub = self.stub
        if stub.direct is not None:
            DIRECT_CALLS += 1
            # One argument for all (Ray serializes each argument on its own).
            lane = stub.direct.serve_thread if self.name in ON_THREAD else stub.direct.serve
            return lane.remote((stub.address, self.name, args))
        CALLS += 1
        return stub.actor.call.remote(self.name, box(list(args)))


class TaskStub:
    """A remote task's methods as ``stub.METHOD.remote(*args)`` -> ``ObjectRef`` (of
    the answer): each one call of the actor that hosts the task (``direct``), or of
    its mailbox when a driver hosts it.

    Attributes:
      actor: the task's mailbox.
      direct: the ``process_class()`` actor hosting the task, or None.
      address: the task's address.
    """

    __slots__ = ("actor", "direct", "address")

    def __init__(self, actor: Any, direct: Any = None, address: str = "") -> None:
        self.actor, self.direct, self.address = actor, direct, address

    def __getattr__(self, name: str) -> _Method:
        return _Method(self, name)


def find(actor: Any, address: str) -> TaskStub:
    """The stub of the task whose mailbox is ``actor``: asks the mailbox once where the
    task is served (raises Ray's error if the mailbox died)."""
    direct = ray_cluster.ray_module().get(actor.where.remote())
    return TaskStub(actor, direct, address)


def serve_direct(request: tuple[str, str, tuple], on_thread: bool) -> Any:
    """A direct call's request ``(address, method, args)``: ``method(*args)`` of the
    task at ``address``, run on the hosting actor's thread of its lane (``on_thread``:
    a thread of its own, for the requests of ``task.ON_THREAD``).

    Raises:
      AttributeError: ``method`` is not one a task serves, or not on this lane.
      LookupError: this process hosts no task at ``address``.
    """
    from ..train import server

    address, method, args = request
    if method not in SERVED:
        raise AttributeError("a task serves no method %r" % (method,))
    if (method in ON_THREAD) != on_thread:
        lanes = ("its thread lane (serve_thread)", "its quick lane (serve)")
        if not on_thread:
            lanes = lanes[::-1]
        raise AttributeError("a task serves %r on %s, not on %s" % (method, lanes[1], lanes[0]))
    runtime = server.HOSTED.get(address)
    if runtime is None:
        raise LookupError("this process hosts no task at %r" % (address,))
    return getattr(runtime, method)(*args)


async def _on_daemon_thread(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` on a thread of trio's thread cache (daemon threads, reused), for
    this asyncio loop to await.

    Not ``concurrent.futures.ThreadPoolExecutor``: its threads are joined when the
    interpreter exits, so a part parked for good on a queue (its client gone without
    cancelling it) would keep the process from ever exiting. A task hosted in a
    process ends with it, as TF's in-process server does.
    """
    loop = asyncio.get_running_loop()
    done: asyncio.Future[Any] = loop.create_future()

    def settle(result: outcome.Outcome[Any]) -> None:
        if not done.done():
            if isinstance(result, outcome.Value):
                done.set_result(result.value)
            elif isinstance(result, outcome.Error):
                done.set_exception(result.error)

    def deliver(result: outcome.Outcome[Any]) -> None:
        try:
            loop.call_soon_threadsafe(settle, result)
        except RuntimeError:  # the loop closed (interpreter shutdown): nobody awaits
            pass

    trio.lowlevel.start_thread_soon(lambda: fn(*args), deliver)
    return await done


def serve(mailbox: Any, runtime: Any, name: str) -> threading.Thread:
    """Starts the thread that serves ``runtime``'s mailbox in this process.

    The thread runs an asyncio loop: it polls the mailbox for requests and runs each
    ``TaskRuntime`` method in its loop (the quick lane) or, for one that may wait
    (``task.ON_THREAD``), on a thread of its own (``_on_daemon_thread``), so a part
    that waits holds up no other request; each answer is posted back without waiting.
    The thread ends when the mailbox or Ray goes away.
    """
    lane = asyncio.Semaphore(MAX_WAITING_REQUESTS)

    async def handle(rid: int, method: str, args: list) -> None:
        try:
            if method not in SERVED:
                raise AttributeError("a task serves no method %r" % (method,))
            kind, payload = args
            if kind == "boxed":
                payload = await payload
            fn = getattr(runtime, method)
            if method in ON_THREAD:
                async with lane:
                    value = await _on_daemon_thread(fn, *payload)
            else:
                value = fn(*payload)
            ok = True
        except Exception as e:  # a bug, or a request this flowrt does not know
            value, ok = "%s failed on %s: %s: %s" % (method, name, type(e).__name__, e), False
        try:
            mailbox.answer.remote(rid, ok, value)
        except Exception:  # Ray is shutting down: no one waits any more
            pass

    async def loop() -> None:
        tasks: set = set()
        while True:
            try:
                requests = await mailbox.next.remote(POLL_SECONDS)
            except Exception:  # the mailbox or Ray ended: so does the task's serving
                return
            for rid, method, args in requests:
                t = asyncio.ensure_future(handle(rid, method, args))
                tasks.add(t)
                t.add_done_callback(tasks.discard)

    def main() -> None:
        try:
            asyncio.run(loop())
        except BaseException:  # interpreter shutdown: nothing left to serve
            pass

    thread = threading.Thread(target=main, name="flowrt-task-server " + name, daemon=True)
    thread.start()
    return thread
