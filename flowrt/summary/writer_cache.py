"""``FileWriterCache``: one shared ``FileWriter`` per log directory (TF1's cache)."""

from __future__ import annotations

import os
import threading

from .._core.graph import get_default_graph
from .writer import FileWriter

__all__ = ["FileWriterCache"]


class FileWriterCache:
    """The ``FileWriter`` of each directory, shared by the hooks that write there
    (``MonitoredTrainingSession``'s step counter and summary saver). What they hold is
    flushed at interpreter exit, as for every open ``FileWriter``."""

    _cache: dict[str, FileWriter] = {}
    _lock = threading.RLock()

    @staticmethod
    def get(logdir: str | os.PathLike[str]) -> FileWriter:
        """The cached ``FileWriter`` for ``logdir``, created (with the default graph) the
        first time."""
        key = os.path.abspath(os.fspath(logdir))
        with FileWriterCache._lock:
            writer = FileWriterCache._cache.get(key)
            if writer is None:
                writer = FileWriter(logdir, graph=get_default_graph())
                FileWriterCache._cache[key] = writer
            return writer

    @staticmethod
    def clear() -> None:
        """Closes (flushing them) and forgets every cached writer."""
        with FileWriterCache._lock:
            writers = list(FileWriterCache._cache.values())
            FileWriterCache._cache.clear()
        for w in writers:
            w.close()
