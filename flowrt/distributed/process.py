"""Worker processes for programs that start cluster tasks themselves (the pipelines'
producers, the benchmarks): a Ray actor that runs the functions it is given, and
serves the tasks whose ``fr.train.Server`` they started, directly (``mailbox.py``)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
from typing import Any, Callable

from . import mailbox, ray_cluster

__all__ = ["process_class"]

_PROCESS: Any = None


def process_class() -> Any:
    """A worker process: a Ray actor (reserving no CPU) that keeps a state dict and
    runs the functions it is given as ``fn(state, *args)``, one at a time in the order
    they came, on a thread of its own.

    It is an async actor: the tasks its functions start (``fr.train.Server``) are
    served directly, each caller's request (``serve``) a coroutine of the actor's event
    loop, beside a function that runs.

    It lives in flowrt (installed, so shipped by reference) rather than in a program
    shipped by value, whose module globals would then travel with every call.
    """
    global _PROCESS
    if _PROCESS is None:
        ray = ray_cluster.ray_module()

        @ray.remote(num_cpus=0, max_concurrency=mailbox.MAX_CONCURRENT_CALLS)
        class Process:
            def __init__(self) -> None:
                self.state: dict = {}
                self._thread = concurrent.futures.ThreadPoolExecutor(
                    1, thread_name_prefix="flowrt-process-call"
                )
                mailbox.HOST = ray.get_runtime_context().current_actor

            async def call(self, fn: Callable, *args: Any) -> Any:
                """Runs ``fn(state, *args)`` off the event loop and returns its result."""
                loop = asyncio.get_running_loop()
                return await loop.run_in_executor(
                    self._thread, functools.partial(fn, self.state, *args)
                )

            async def serve(self, address: str, method: str, args: tuple) -> Any:
                """A caller's request ``method(*args)`` to the task at ``address``,
                hosted here."""
                return await mailbox.serve_direct(address, method, args)

        _PROCESS = Process
    return _PROCESS
