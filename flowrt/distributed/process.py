"""Worker processes for programs that start cluster tasks themselves (the pipelines'
producers, the benchmarks): a Ray actor that runs the functions it is given."""

from __future__ import annotations

from typing import Any, Callable

from . import ray_cluster

__all__ = ["process_class"]

_PROCESS: Any = None


def process_class() -> Any:
    """A worker process: a Ray actor (reserving no CPU) that keeps a state dict and
    runs the functions it is given as ``fn(state, *args)``.

    It lives in flowrt (installed, so shipped by reference) rather than in a program
    shipped by value, whose module globals would then travel with every call.
    """
    global _PROCESS
    if _PROCESS is None:
        ray = ray_cluster.ray_module()

        @ray.remote(num_cpus=0)
        class Process:
            def __init__(self) -> None:
                self.state: dict = {}

            def call(self, fn: Callable, *args: Any) -> Any:
                return fn(self.state, *args)

        _PROCESS = Process
    return _PROCESS
