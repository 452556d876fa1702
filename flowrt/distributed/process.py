"""Worker processes for programs that start cluster tasks themselves (the pipelines'
producers, the benchmarks): a Ray actor that runs the functions it is given, and
serves the tasks whose ``fr.train.Server`` they started, directly (``mailbox.py``)."""

from __future__ import annotations

from typing import Any, Callable

from . import mailbox, ray_cluster

__all__ = ["process_class"]

_PROCESS: Any = None


def process_class() -> Any:
    """A worker process: a Ray actor (reserving no CPU) that keeps a state dict and
    runs the functions it is given as ``fn(state, *args)``, one at a time, on a thread
    of its own.

    It is a threaded actor, not an async one: the tasks its functions start
    (``fr.train.Server``) are served directly, each caller's request one call of
    ``serve``, which runs on the actor's own thread, the way Ray runs a plain actor
    method fastest (an async actor's call hops to its event loop's thread and back:
    1.3 to 1.6 times the latency here, ``docs/distributed.md``). A request that may
    wait (``task.ON_THREAD``: a part with a dequeue) is a call of ``serve_thread``
    instead, on one of ``mailbox.MAX_WAITING_REQUESTS`` threads, so it holds up no
    other request.

    It lives in flowrt (installed, so shipped by reference) rather than in a program
    shipped by value, whose module globals would then travel with every call.
    """
    global _PROCESS
    if _PROCESS is None:
        ray = ray_cluster.ray_module()

        @ray.remote(
            num_cpus=0,
            concurrency_groups={"call": 1, "waiting": mailbox.MAX_WAITING_REQUESTS},
        )
        class Process:
            def __init__(self) -> None:
                self.state: dict = {}
                mailbox.HOST = ray.get_runtime_context().current_actor

            @ray.method(concurrency_group="call")
            def call(self, fn: Callable, *args: Any) -> Any:
                """Runs ``fn(state, *args)`` on the thread for functions, beside the
                requests the process serves, and returns its result."""
                return fn(self.state, *args)

            def serve(self, request: tuple) -> Any:
                """A caller's request ``(address, method, args)``: ``method(*args)`` of
                the task at ``address``, hosted here, on the actor's own thread (the
                quick lane). One argument: Ray serializes each argument on its own."""
                return mailbox.serve_direct(request, False)

            @ray.method(concurrency_group="waiting")
            def serve_thread(self, request: tuple) -> Any:
                """``serve`` for a request that may wait, on a thread of its own."""
                return mailbox.serve_direct(request, True)

        _PROCESS = Process
    return _PROCESS
