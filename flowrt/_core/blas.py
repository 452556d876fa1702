"""How many threads numpy's BLAS gives one kernel: ``ConfigProto.intra_op_parallelism_threads``.

numpy's BLAS (OpenBLAS) keeps a process-wide pool whose worker threads busy-wait for
work. On cores that something else also wants (another process, a queue runner thread,
a concurrent run) a multi-threaded call waits for descheduled workers: measured on
this project's shared 2-core machine (load ~8), a 128x128x64 float32 matmul took
0.06 ms on one thread and 24 ms on two; 128x784x256 1.2 vs 94 ms; even 1000^3 86 vs
180 ms. On an idle machine two threads gain at most ~2x on large products. So when a
session's config leaves the choice to flowrt (0, TF's "system picks"), kernels get
``DEFAULT_THREADS`` (1) and parallelism comes from concurrent runs (runner threads,
trio tasks), as TF's shared op pool would give; a positive value asks for that many.
A BLAS thread count set in the environment (``OPENBLAS_NUM_THREADS``, ...) is left as
it is when the config says 0. ``docs/executor.md`` has the figures.
"""

from __future__ import annotations

import os
import threading

__all__ = ["DEFAULT_THREADS", "configure"]

DEFAULT_THREADS = 1
"""BLAS threads per kernel when a session's config says 0 (the default)."""

_ENV = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS")
_lock = threading.Lock()
_state: dict = {"applied": None, "controller": None}


def configure(intra_op_threads: int) -> None:
    """Sets numpy's BLAS pool for a session created with ``intra_op_threads``.

    The pool is process-wide: the last value applied holds for every session (and for
    numpy outside flowrt). Applying is skipped when the value is the one flowrt applied
    last (finding the BLAS libraries costs ~3 ms; a new limit on them ~10 us).
    """
    n = int(intra_op_threads or 0)
    if n <= 0:
        if any(os.environ.get(v) for v in _ENV):
            return
        n = DEFAULT_THREADS
    with _lock:
        if _state["applied"] == n:
            return
        if _state["controller"] is None:
            from threadpoolctl import ThreadpoolController

            _state["controller"] = ThreadpoolController()
        _state["controller"].limit(limits=n, user_api="blas")
        _state["applied"] = n
