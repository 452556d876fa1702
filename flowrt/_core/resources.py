"""Per-session state: variables, queues, random generators, keyed by name.

Two sessions on one graph have separate state; every run of one session shares it.
A cluster task serves many sessions: variables and queues with a shared name are
shared by all of them, everything else is private to its session (``scoped``), as a
TF1 server shares variables by name but not an unnamed queue or a reader.
"""

from __future__ import annotations

import os
import threading
from typing import Any, Callable

import numpy as np


class ResourceManager:
    """A thread-safe map from resource keys to stateful objects of one session."""

    def __init__(self):
        self._items: dict[Any, Any] = {}
        self._lock = threading.Lock()

    def get(self, key, default=None):
        return self._items.get(key, default)

    def get_or_create(self, key, factory: Callable[[], Any]):
        item = self._items.get(key)
        if item is None:
            with self._lock:
                item = self._items.get(key)
                if item is None:
                    item = self._items[key] = factory()
        return item

    def set(self, key, value):
        with self._lock:
            self._items[key] = value

    def items(self):
        return list(self._items.items())

    def scoped(self, scope: str) -> "ScopedResources":
        """The view of one client session of a shared task's state (module docstring)."""
        return ScopedResources(self, scope)

    def close(self) -> None:
        """Tells each resource its session closed (queues wake their waiters)."""
        for _, res in self.items():
            closer = getattr(res, "on_session_close", None)
            if closer is not None:
                closer()

    def philox(self, op) -> "PhiloxState":
        """The Philox stream of a random op of TF's (``RandomUniform``,
        ``RandomStandardNormal``, ``TruncatedNormal``, ``RandomUniformInt``) in this
        session, from the op's ``seed`` and ``seed2`` attrs: each new session restarts it,
        every run of one session continues it."""
        return self.get_or_create(
            ("philox", op.name),
            lambda: PhiloxState(op.attrs.get("seed", 0), op.attrs.get("seed2", 0)),
        )

    def rng(self, op) -> np.random.Generator:
        """The numpy generator of a random op that draws numpy's streams, not TF's
        (``RandomShuffle``, ``Multinomial``, the candidate samplers) in this session.

        With a graph or op seed the stream is reproducible across sessions (each new
        session restarts it); without, it is seeded from the OS.
        """

        def make():
            seed = op.attrs.get("seed2_pair")
            return np.random.default_rng(seed)

        return self.get_or_create(("rng", op.name), make)


class PhiloxState:
    """One op's Philox4x32-10 stream in one session, as TF's ``GuardedPhiloxRandom``:
    a 64-bit ``key`` and a 128-bit ``counter``, both from the op's seeds (``seed`` is the
    key, ``seed2`` the counter's upper half; both 0 means fresh random seeds from the OS).
    A kernel run reserves its counters under a lock and draws outside it, so two runs
    at once never share a counter."""

    __slots__ = ("key", "counter", "_lock")

    def __init__(self, seed: int, seed2: int) -> None:
        if seed == 0 and seed2 == 0:
            seed = int.from_bytes(os.urandom(8), "little")
            seed2 = int.from_bytes(os.urandom(8), "little")
        self.key = int(seed) & _MASK64
        self.counter = (int(seed2) & _MASK64) << 64
        self._lock = threading.Lock()

    def reserve(self, calls: int) -> tuple[int, int]:
        """Reserves ``calls`` Philox calls (counter values); returns the key and the
        first counter of the reservation."""
        with self._lock:
            start = self.counter
            self.counter = (start + calls) & _MASK128
        return self.key, start


_MASK64 = (1 << 64) - 1
_MASK128 = (1 << 128) - 1

# Resource kinds keyed by a shared name: one per task whatever session asks.
SHARED_KINDS = frozenset({"var", "queue"})


class ScopedResources(ResourceManager):
    """A client session's view of a task's ``ResourceManager``: shared kinds go to the
    task's map, the rest to keys of the session's own."""

    def __init__(self, base: ResourceManager, scope: str):
        super().__init__()
        self._base = base
        self._scope = scope

    def _where(self, key):
        if isinstance(key, tuple) and key and key[0] in SHARED_KINDS:
            return self._base
        return None

    def get(self, key, default=None):
        base = self._where(key)
        return base.get(key, default) if base is not None else super().get(key, default)

    def get_or_create(self, key, factory: Callable[[], Any]):
        base = self._where(key)
        if base is not None:
            return base.get_or_create(key, factory)
        return super().get_or_create(key, factory)

    def set(self, key, value):
        base = self._where(key)
        if base is not None:
            base.set(key, value)
        else:
            super().set(key, value)
