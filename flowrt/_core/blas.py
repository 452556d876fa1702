"""How many threads numpy's BLAS gives one kernel: ``ConfigProto.intra_op_parallelism_threads``.

numpy's BLAS (OpenBLAS) keeps a process-wide pool whose worker threads busy-wait for
work. On cores that something else also wants (another process, a queue runner thread,
a concurrent run) a multi-threaded call waits for descheduled workers, and is many
times slower than one thread; on an idle machine two threads gain at most ~2x on large
products (``docs/executor.md`` has the measurements). So when a session's config
leaves the choice to flowrt (0, TF's "system picks"), kernels get ``DEFAULT_THREADS``
(1) and parallelism comes from concurrent runs (runner threads, trio tasks), as TF's
shared op pool would give; a positive value asks for that many. A BLAS thread count
set in the environment (``OPENBLAS_NUM_THREADS``, ...) is left as it is when the
config says 0.

flowrt's own heavy kernels (convolution, pooling, LRN) are split into blocks that the
caller and a small pool of threads take as they come free (``run_blocks``): both cores
when they are free, while a busy core only holds back the block its thread has.
``docs/kernels.md`` has the measurements.
"""

from __future__ import annotations

import itertools
import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

__all__ = ["DEFAULT_THREADS", "configure", "kernel_threads", "run_blocks"]

DEFAULT_THREADS = 1
"""BLAS threads per kernel when a session's config says 0 (the default)."""

_ENV = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS")
_lock = threading.Lock()
_state: dict = {"applied": None, "controller": None, "modules": 0, "threads": 0, "pool": None}


def configure(intra_op_threads: int) -> None:
    """Sets numpy's BLAS pool for a session created with ``intra_op_threads``.

    The pool is process-wide: the last value applied holds for every session (and for
    numpy outside flowrt). Applying is skipped when the value is the one flowrt applied
    last and no module was imported since: finding the BLAS libraries costs
    milliseconds, a new limit on them far less.
    """
    n = int(intra_op_threads or 0)
    _state["threads"] = max(n, 0)
    if n <= 0:
        if any(os.environ.get(v) for v in _ENV):
            return
        n = DEFAULT_THREADS
    with _lock:
        # A module imported since (scipy brings a BLAS of its own) may have loaded
        # another BLAS library: the controller knows the libraries loaded when made.
        loaded = len(sys.modules)
        if _state["applied"] == n and _state["modules"] == loaded:
            return
        if _state["controller"] is None or _state["modules"] != loaded:
            from threadpoolctl import ThreadpoolController

            _state["controller"] = ThreadpoolController()
            _state["modules"] = loaded
        _state["controller"].limit(limits=n, user_api="blas")
        _state["applied"] = n


def kernel_threads() -> int:
    """Threads a block-split kernel (``run_blocks``) may use: the session's
    ``intra_op_parallelism_threads`` divided among the BLAS threads each block's
    products get, or this process's cores when the config says 0 (BLAS then has one
    thread, so blocks are the only parallelism and never oversubscribe the cores)."""
    n = _state["threads"] or len(os.sched_getaffinity(0))
    return max(1, n // max(1, _state["applied"] or 1))


def run_blocks(n_blocks: int, fn: Callable[[int], Any]) -> None:
    """Calls ``fn(i)`` for every ``i < n_blocks``, on up to ``kernel_threads()`` threads:
    the caller and workers of a process-wide pool take the next block as they come
    free, so a core taken by another process slows only the blocks its thread holds
    (where OpenBLAS's threads wait for each other's share). ``fn`` runs without the GIL
    for most of its time (compiled loops, numpy's BLAS); the first exception is
    raised after every started block ended."""
    threads = min(kernel_threads(), n_blocks)
    if threads <= 1:
        for i in range(n_blocks):
            fn(i)
        return
    counter = itertools.count()

    def work() -> None:
        for i in iter(counter.__next__, None):
            if i >= n_blocks:
                return
            fn(i)

    with _lock:
        pool = _state["pool"]
        if pool is None:
            pool = _state["pool"] = ThreadPoolExecutor(
                max(1, len(os.sched_getaffinity(0)) - 1), thread_name_prefix="flowrt-kernel"
            )
    futures = [pool.submit(work) for _ in range(threads - 1)]
    try:
        work()
    finally:
        for f in futures:
            if not f.cancel():  # a worker took it: wait for its blocks
                f.result()


def _after_fork_in_child() -> None:
    _state["pool"] = None  # its threads stayed in the parent


os.register_at_fork(after_in_child=_after_fork_in_child)
