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

Nothing of this is paid at ``import flowrt``, and a program that never builds an op
whose kernel is compiled never imports numba nor starts a thread. The price is paid
once per process, on first need: importing numba and loading its numpy support, plus a
compile for each kernel signature the disk cache lacks (``docs/kernels.md`` has the
figures). Building such an op (``decode_csv``, a cross entropy, an optimizer's update,
a random fill) calls ``warm_up`` with a job that runs the kernel on tiny inputs of the
op's types: the first call starts a background thread that loads numba and compiles
(or loads) those signatures while the program goes on building its graph and session,
so the first run waits only for what is not done by then. A fork waits for that thread
to finish (``os.register_at_fork``): the child gets a whole numba or none.

Only fixed kernels written in this package are compiled: graph-level elementwise
chains are built at plan time and run as blocked numpy (``_core/fusion.py``), where a
compile per new expression would cost more than it saves.
"""

from __future__ import annotations

import collections
import os
import threading
from typing import Any, Callable

__all__ = ["compiled", "inlined", "warm_up"]

_lock = threading.Lock()
_helpers: list = []  # ``inlined`` functions not yet made known to numba


def inlined(fn: Callable[..., Any] | None = None, *, always: bool = False) -> Callable[..., Any]:
    """Marks ``fn`` as a helper that compiled kernels call: it stays a Python function
    (callable as such) and is compiled into each kernel that calls it.

    By default numba compiles it as a function of its own that kernels call (numba links
    it after optimizing each, so every call stays a call). ``@inlined(always=True)``
    has numba inline its code into each caller, where a helper called per element costs
    nothing (Philox's rounds: 4x); numba cannot do that for a helper with a loop or a
    variable assigned in a branch (its SSA check warns), so write such helpers straight.
    """
    if fn is None:
        return lambda f: inlined(f, always=always)
    _helpers.append((fn, always))
    return fn


def compiled(fn: Callable[..., Any] | None = None, *, reassociate: bool = False) -> Any:
    """``fn`` compiled by numba on first call (see the module docstring); as
    ``@compiled(reassociate=True)``, its float additions may be regrouped (LLVM's
    ``reassoc`` flag only: no FMA, NaN and inf as usual), which lets a float sum
    run in SIMD lanes. Only for a sum whose order the kernel does not promise."""
    if fn is None:
        return lambda f: _Compiled(f, reassociate)
    return _Compiled(fn, reassociate)


class _Compiled:
    """A kernel compiled on first call; ``py`` is the Python function itself."""

    __slots__ = ("py", "_fn", "_fastmath")

    def __init__(self, fn: Callable[..., Any], reassociate: bool = False) -> None:
        self.py = fn
        self._fn: Callable[..., Any] | None = None
        self._fastmath: Any = {"reassoc"} if reassociate else False

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
                    helper, always = _helpers.pop()
                    register_jitable(inline="always" if always else "never")(helper)

                def make(cache: bool) -> Callable[..., Any]:
                    return numba.njit(
                        self.py,
                        cache=cache,
                        nogil=True,
                        error_model="numpy",
                        boundscheck=False,
                        fastmath=self._fastmath,
                    )

                try:
                    self._fn = make(True)
                except RuntimeError:  # no writable cache directory: compile per process
                    self._fn = make(False)
        return self._fn


_warming: list = []  # the warm-up thread while it runs
_jobs: collections.deque = collections.deque()  # compiles it has yet to make
_queued: set = set()  # the keys of every job ever queued


def warm_up(job: Callable[[], Any] | None = None, key: Any = None) -> None:
    """Starts loading numba on a daemon thread unless it is loaded or loading (see the
    module docstring), which then runs ``job``: a call of a kernel's Python wrapper on
    tiny inputs of the types a graph will feed it, so that the signature is compiled
    (or loaded from the cache) before the first run needs it. A job is queued once per
    ``key``. The thread ends when it has nothing left to do; a kernel called meanwhile
    waits for the load or the compile of its signature (numba's own lock), never makes
    them twice.
    """
    with _lock:
        if job is not None and key not in _queued:
            _queued.add(key)
            _jobs.append(job)
        elif _probe._fn is not None:
            return  # numba is loaded and there is nothing to compile
        if _warming:
            return
        t = threading.Thread(target=_warm, name="flowrt-jit-warm-up", daemon=True)
        _warming.append(t)
    t.start()


def _warm() -> None:
    import numpy as np

    job: Callable[[], Any] | None = lambda: _probe(np.zeros(1))
    while job is not None:
        try:
            job()
        except Exception:  # a broken numba or kernel: its first real call raises it
            pass
        with _lock:
            if _jobs:
                job = _jobs.popleft()
            else:
                _warming.clear()
                job = None


def _before_fork() -> None:
    """A forked child gets only the forking thread: were the warm-up thread loading
    numba or compiling then, the child would inherit half-imported modules and a lock
    no thread of its own will release. A fork waits for the warm-up to end (a bounded
    wait, for a warm-up stuck behind the forking thread itself)."""
    for t in list(_warming):
        if t is not threading.current_thread():
            t.join(timeout=30)


def _after_fork_in_child() -> None:
    _warming.clear()  # its thread did not come along: a later warm_up starts another


os.register_at_fork(before=_before_fork, after_in_child=_after_fork_in_child)


def _first(a):
    return a[0]


_probe = compiled(_first)
