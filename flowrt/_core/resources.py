"""Per-session state: variables, queues, random generators, keyed by name.

Two sessions on one graph have separate state; every run of one session shares it.
"""

from __future__ import annotations

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

    def rng(self, op) -> np.random.Generator:
        """The random generator of a random op in this session.

        With a graph or op seed the stream is reproducible across sessions (each new
        session restarts it); without, it is seeded from the OS.
        """

        def make():
            seed = op.attrs.get("seed2_pair")
            return np.random.default_rng(seed)

        return self.get_or_create(("rng", op.name), make)
