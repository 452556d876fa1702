"""Tracing a run (``RunOptions.FULL_TRACE``, ``fr.profiler``): a record per step and
per wait, which ``fr.client.step_stats`` turns into TF1's StepStats and
``Session.explain`` into per-op times. An untraced run has none of this code in it
(``plan_body``: a traced run takes the loop, the compiled form has no tracing).
"""

from __future__ import annotations

import threading
import time

import numpy as np
import trio

from .waiting import Wait

__all__ = ["Stat", "runner_name", "record", "timed_waits"]


class Stat(tuple):
    """One entry of a traced run's ``ctx.stats``: ``(op, start, end, runner, outputs,
    wait)``. ``start``/``end`` are ``time.perf_counter()`` values; ``runner`` names the
    thread or trio task that ran it; ``outputs`` holds ``(shape, nbytes, fresh)`` per
    output of an op step (``fresh``: the value owns its buffer, so the op allocated it;
    a handle or other non-array value has shape ``()`` and 0 bytes); ``wait`` is None
    for an op step, and for a wait within a blocking op's step (a slice nested in it)
    the description of what it waited for (``end`` None while it still waits).
    """

    __slots__ = ()
    op = property(lambda s: s[0])
    start = property(lambda s: s[1])
    end = property(lambda s: s[2])
    runner = property(lambda s: s[3])
    outputs = property(lambda s: s[4])
    wait = property(lambda s: s[5])


def runner_name() -> str:
    """The trio task (``task:<name>``) or thread (``thread:<name>``) running now."""
    try:
        return "task:" + trio.lowlevel.current_task().name
    except RuntimeError:
        return "thread:" + threading.current_thread().name


def _describe_output(v) -> tuple:
    if isinstance(v, np.ndarray):
        return (v.shape, v.nbytes, v.base is None)
    if isinstance(v, np.generic):
        return ((), v.nbytes, True)
    return ((), 0, False)


def record(stats: list, op, t0: float, outs, runner: str) -> None:
    """Appends a traced step: its op, start, end now, runner and output descriptions."""
    t1 = time.perf_counter()
    stats.append(Stat((op, t0, t1, runner, tuple([_describe_output(v) for v in outs or ()]), None)))


class _TimedWait(Wait):
    """A blocking step's wait, timed into the run's stats (traced runs only)."""

    __slots__ = ("wait", "stats", "op")

    def __init__(self, wait: Wait, stats: list, op):
        self.wait, self.stats, self.op = wait, stats, op

    def _start(self) -> Stat:
        """Appends the wait's record, open (``end`` None) until it ends: a profiler
        block that ends meanwhile shows the wait as lasting until then."""
        w = self.wait  # described as the wait begins (the queue's size then)
        rec = Stat((self.op, time.perf_counter(), None, runner_name(), None, w.describe()))
        self.stats.append(rec)
        return rec

    def _record(self, rec: Stat) -> None:
        stats = self.stats  # append-only: the record is where it was put
        i = len(stats) - 1 if stats[-1] is rec else stats.index(rec)
        stats[i] = Stat((rec.op, rec.start, time.perf_counter(), rec.runner, None, rec.wait))

    def describe(self) -> str:
        return self.wait.describe()

    def wake(self) -> None:
        self.wait.wake()

    def wait_sync(self):
        rec = self._start()
        try:
            return self.wait.wait_sync()
        finally:
            self._record(rec)

    async def wait_async(self):
        rec = self._start()
        try:
            return await self.wait.wait_async()
        finally:
            self._record(rec)


def timed_waits(gen, stats: list, op):
    """Wraps a blocking kernel's generator so each wait it yields is timed into
    ``stats`` as a slice of its own (traced runs only)."""
    try:
        w = gen.send(None)
    except StopIteration as stop:
        return stop.value
    while True:
        try:
            res = yield _TimedWait(w, stats, op)
        except GeneratorExit:
            gen.close()
            raise
        except BaseException as e:
            try:
                w = gen.throw(e)
            except StopIteration as stop:
                return stop.value
        else:
            try:
                w = gen.send(res)
            except StopIteration as stop:
                return stop.value
