"""The compiled-kernel wrapper: compiled on first call, without the GIL, cached when a
directory is writable and compiled per process when none is."""

from __future__ import annotations

import subprocess
import sys
import textwrap
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


def _python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=240,
    )


def test_importing_flowrt_and_a_plain_run_start_no_thread_and_load_no_numba():
    # A program that never builds an op with a compiled kernel never pays for numba:
    # neither the import nor a sync run of a plain plan starts a thread (counted at
    # the one place every ``threading.Thread`` starts one) or imports numba.
    got = _python(
        """
        import sys, threading
        started = []
        real = threading._start_new_thread

        def counting(*args, **kwargs):
            started.append(args)
            return real(*args, **kwargs)

        threading._start_new_thread = counting
        import flowrt as fr
        print(len(started), threading.active_count(), "numba" in sys.modules)
        p = fr.placeholder(fr.float32, [None])
        y = fr.reduce_sum(p * 2.0 + 1.0)
        with fr.Session() as sess:
            print(sess.run(y, {p: [1.0, 2.0]}))
        print(len(started), threading.active_count(), "numba" in sys.modules)
        """
    )
    assert got.returncode == 0, got.stderr
    assert got.stdout.split("\n")[:3] == ["0 1 False", "8.0", "0 1 False"]


def test_a_kernel_built_after_the_import_starts_the_warm_up():
    # The first op that needs a compiled kernel starts numba's load and its compile
    # on the background thread; its run gives the kernel's result.
    got = _python(
        """
        import sys, threading
        import flowrt as fr
        from flowrt._core import jit
        assert not jit._warming and "numba" not in sys.modules
        a, b = fr.decode_csv(fr.constant(["1,2.5", "3,4"]), [[0], [0.0]])
        (t,) = jit._warming
        assert t is not threading.current_thread() and t.daemon
        with fr.Session() as sess:
            print([v.tolist() for v in sess.run([a, b])])
        t.join(200)
        print("numba" in sys.modules, jit._probe._fn is not None)
        """
    )
    assert got.returncode == 0, got.stderr
    assert got.stdout.split("\n")[:2] == ["[[1, 3], [2.5, 4.0]]", "True True"]


def test_a_fork_during_the_warm_up_gives_a_working_child():
    # The fork waits for the warm-up thread: a child that inherited a half-imported
    # numba or a held compile lock would fail or hang on its first compiled kernel.
    got = _python(
        """
        import multiprocessing as mp
        import flowrt as fr
        from flowrt._core import jit

        a, b = fr.decode_csv(fr.constant(["1,2.5", "3,4"]), [[0], [0.0]])

        def child(q):
            with fr.Session() as sess:
                q.put([v.tolist() for v in sess.run([a, b])])

        assert jit._warming, "the fork must happen during the warm-up"
        ctx = mp.get_context("fork")
        q = ctx.Queue()
        p = ctx.Process(target=child, args=(q,), daemon=True)
        p.start()
        print(q.get(timeout=60))
        p.join(60)
        print(p.exitcode)
        """
    )
    assert got.returncode == 0, got.stderr
    assert got.stdout.split("\n")[:2] == ["[[1, 3], [2.5, 4.0]]", "0"]
