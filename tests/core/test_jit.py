"""The compiled-kernel wrapper: compiled on first call, without the GIL, cached when a
directory is writable and compiled per process when none is."""

from __future__ import annotations

import threading

import numpy as np

from flowrt._core import jit


def _double(a):
    for i in range(a.size):
        a[i] *= 2


def test_compiles_on_first_call_without_the_gil():
    f = jit.compiled(_double)
    assert f._fn is None  # nothing compiled (numba not even needed) until called
    a = np.arange(4.0)
    f(a)
    assert a.tolist() == [0.0, 2.0, 4.0, 6.0]
    assert f._fn.targetoptions["nogil"]
    assert f.py is _double


def test_compiles_without_a_cache_when_no_directory_is_writable(monkeypatch):
    import numba

    real = numba.njit

    def njit(*args, cache=False, **kwargs):
        if cache:  # what numba raises when no cache directory is writable
            raise RuntimeError("cannot cache function '_double': no locator available")
        return real(*args, **kwargs)

    monkeypatch.setattr(numba, "njit", njit)
    f = jit.compiled(_double)
    a = np.ones(3)
    f(a)
    assert a.tolist() == [2.0, 2.0, 2.0]


def test_warm_up_compiles_a_kernel_once_on_a_background_thread():
    # Building a decode_csv, a cross entropy or an optimizer update queues the compile
    # of its kernel's signature; the same key again queues nothing; the thread ends
    # when it has nothing left to do.
    f = jit.compiled(_double)
    calls = []
    inspected = threading.Event()

    def job():
        calls.append(threading.current_thread())
        inspected.wait(60)
        f(np.zeros(2))

    jit.warm_up(job, key=("double", "float64"))
    jit.warm_up(job, key=("double", "float64"))
    with jit._lock:
        (t,) = jit._warming
    assert t.daemon and t.name == "flowrt-jit-warm-up"
    inspected.set()
    t.join(120)
    assert not t.is_alive() and not jit._warming
    assert calls == [t] and jit._probe._fn is not None
    assert f._fn is not None and f._fn.signatures  # compiled before any run called it
