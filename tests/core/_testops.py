"""Test-only op types for the core tests: a counting op and a blocking op.

``_TestCount`` counts its kernel invocations (to prove pruning); ``_TestWaitGate``
blocks its run on a ``Gate`` the test opens (blocking behaviour without queues).
Both pass through their first input (or yield 0.0 without inputs).
"""

from __future__ import annotations

import threading

import numpy as np
import trio

import flowrt as fr
from flowrt._core.parker import Parker
from flowrt._core.registry import NOT_DIFFERENTIABLE, register_op
from flowrt._core.shape import TensorShape
from flowrt._core.waiting import Wait, park_thread


def _infer(op):
    if op.inputs:
        return [(op.inputs[0].dtype, op.inputs[0].shape)]
    return [(fr.float32, TensorShape([]))]


def _first(inputs):
    return inputs[0] if inputs else np.float32(0.0)


class Counter:
    """Counts kernel invocations per op name (thread-safe)."""

    def __init__(self):
        self._lock = threading.Lock()
        self.calls: dict[str, int] = {}

    def hit(self, name):
        with self._lock:
            self.calls[name] = self.calls.get(name, 0) + 1

    @property
    def total(self) -> int:
        return sum(self.calls.values())


def _count_kernel(ctx, op, *inputs):
    op.attrs["counter"].hit(op.name)
    return (_first(inputs),)


class Gate:
    """A one-shot gate that ops in threads or in any trio loop wait on, opened from any
    thread."""

    def __init__(self):
        self._lock = threading.Lock()
        self._open = False
        self._waiters: list = []  # wake functions of blocked kernels
        self._entered = 0
        self._entered_cond = threading.Condition(self._lock)
        self.cancelled = 0
        self.loops: list = []  # trio token (None for a thread) each waiting kernel ran in
        self._entered_waiters: list = []  # (Parker, n) of async watchers

    @property
    def entered(self) -> int:
        with self._lock:
            return self._entered

    def _enter(self, wake):
        """Counts a waiter in; False if the gate is open already."""
        with self._lock:
            in_trio = trio.lowlevel.in_trio_run()
            self.loops.append(trio.lowlevel.current_trio_token() if in_trio else None)
            self._entered += 1
            self._entered_cond.notify_all()
            for parker, n in self._entered_waiters:
                if self._entered >= n:
                    parker.wake()
            if self._open:
                return False
            self._waiters.append(wake)
            return True

    def _cancelled(self):
        with self._lock:
            self.cancelled += 1

    def open(self):
        with self._lock:
            self._open = True
            waiters, self._waiters = self._waiters, []
        for wake in waiters:
            wake()

    async def wait_entered_async(self, n: int = 1):
        """Waits in a trio task until ``n`` kernels (in any loop or thread) are waiting."""
        parker = Parker()
        with self._lock:
            self._entered_waiters.append((parker, n))
        while self.entered < n:
            await parker.park_async()

    def wait_entered(self, n: int = 1, timeout: float = 10.0):
        """Blocks this (non-trio) thread until ``n`` kernels are waiting."""
        with self._lock:
            if not self._entered_cond.wait_for(lambda: self._entered >= n, timeout):
                raise AssertionError("only %d of %d gate waiters arrived" % (self._entered, n))


class _GateWait(Wait):
    """The wait of a ``_TestWaitGate`` op: a thread parks, a task awaits."""

    def __init__(self, gate: Gate, ctx, op):
        self.gate, self.ctx, self.op = gate, ctx, op

    def wake(self):
        self.parker.wake()

    def describe(self):
        return "%s op '%s'" % (self.op.type, self.op.name)

    def wait_sync(self):
        self.parker = Parker()
        if not self.gate._enter(self.parker.wake):
            return None
        try:
            park_thread(self.parker, lambda: self.gate._open, self.ctx, self)
        except BaseException:
            self.gate._cancelled()
            raise

    async def wait_async(self):
        if self.ctx is not None:
            self.ctx.waiting_on = self
        parker = Parker()
        if not self.gate._enter(parker.wake):
            return
        try:
            while not self.gate._open:
                await parker.park_async()
        except trio.Cancelled:
            self.gate._cancelled()
            raise


def _wait_kernel(ctx, op, *inputs):
    yield _GateWait(op.attrs["gate"], ctx, op)
    return (_first(inputs),)


# Stateful: its count is a side effect, so a plan never computes it ahead (folding).
register_op(
    "_TestCount", infer=_infer, kernel=_count_kernel, grad=NOT_DIFFERENTIABLE, stateful=True
)
register_op(
    "_TestWaitGate",
    infer=_infer,
    kernel=_wait_kernel,
    blocking=True,
    grad=NOT_DIFFERENTIABLE,
    stateful=True,
)


def count(inputs, counter: Counter, name=None, graph=None) -> fr.Tensor:
    g = graph or fr.get_default_graph()
    return g.create_op("_TestCount", list(inputs), {"counter": counter}, name).outputs[0]


def wait_gate(gate: Gate, x=None, name=None) -> fr.Tensor:
    g = fr.get_default_graph()
    inputs = [] if x is None else [x]
    return g.create_op("_TestWaitGate", inputs, {"gate": gate}, name).outputs[0]
