"""Compiled loops: the few fixed kernels whose work is a byte or element loop that
numpy can only express as many passes (a CSV table's digits, an optimizer's update
rule), compiled by numba.

``compiled(fn)`` returns a callable that compiles ``fn`` with numba the first time it
is called: nopython, ``nogil`` (the loop runs without the GIL, so another thread's
Python runs beside it), numpy's error model (a division by zero gives inf/nan as numpy
does, never an exception), no bounds checks (each kernel validates its indices
itself). numba is imported then, not with flowrt, and the machine code is cached on
disk beside the source (``cache=True``; numba falls back to a directory of the user's
when the package's is read-only, and flowrt to compiling in every process when neither
is writable), so a later process loads it instead of compiling again.

The price is paid once per process, by the first compiled kernel it runs: importing
numba (~0.4-0.5 s) and loading its numpy support on the first call (~0.4-0.5 s), with
the code cached; compiling a kernel the cache lacks adds ~1 s. The main job
(``pipelines/digits_mlp``, ~2 s of training) feels it; a job of a few minutes does not,
and the kernels then run 2-10x faster than the numpy forms they replaced. Building an op
whose kernel is compiled (``decode_csv``, an optimizer's update) calls ``warm_up``,
which loads numba on a background thread while the program goes on building its graph
and session, so the first run rarely waits for all of it.

Only fixed kernels written in this package are compiled: graph-level elementwise
chains are built at plan time and run as blocked numpy (``_core/fusion.py``), where a
compile per new expression would cost more than it saves.
"""

from __future__ import annotations

import threading
from typing import Any, Callable

__all__ = ["compiled", "inlined", "warm_up"]

_lock = threading.Lock()
_helpers: list = []  # ``inlined`` functions not yet made known to numba


def inlined(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Marks ``fn`` as a helper that compiled kernels call: it stays a Python function
    (callable as such) and is compiled into each kernel that calls it."""
    _helpers.append(fn)
    return fn


def compiled(fn: Callable[..., Any]) -> "_Compiled":
    """``fn`` compiled by numba on first call (see the module docstring)."""
    return _Compiled(fn)


class _Compiled:
    """A kernel compiled on first call; ``py`` is the Python function itself."""

    __slots__ = ("py", "_fn")

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.py = fn
        self._fn: Callable[..., Any] | None = None

    def __call__(self, *args: Any) -> Any:
        fn = self._fn
        if fn is None:
            fn = self._compile()
        return fn(*args)

    def _compile(self) -> Callable[..., Any]:
        with _lock:  # two runner threads decoding at once compile it once
            if self._fn is None:
                import numba
                from numba.extending import register_jitable

                while _helpers:
                    register_jitable(_helpers.pop())

                def make(cache: bool) -> Callable[..., Any]:
                    return numba.njit(
                        self.py, cache=cache, nogil=True, error_model="numpy", boundscheck=False
                    )

                try:
                    self._fn = make(True)
                except RuntimeError:  # no writable cache directory: compile per process
                    self._fn = make(False)
        return self._fn


_warming: list = []  # the warm-up thread, once started


def warm_up() -> None:
    """Starts loading numba on a daemon thread, once per process (see the module
    docstring). A kernel called meanwhile waits for the load to finish (the lock of
    ``_Compiled._compile``), never loads twice."""
    with _lock:
        if _warming:
            return
        t = threading.Thread(target=_warm, name="flowrt-jit-warm-up", daemon=True)
        _warming.append(t)
    t.start()


def _warm() -> None:
    import numpy as np

    try:
        _probe(np.zeros(1))
    except Exception:  # a broken numba: the first real call raises it where it is used
        pass


def _first(a):
    return a[0]


_probe = compiled(_first)
