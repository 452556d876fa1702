"""Session overhead: graph construction, first run and steady-state runs, flowrt vs TF1.

Run: ``python benchmarks/session_overhead.py [--profile] [--first-runs]``. The
``construct per
wrapper`` row is one call of a mix of wrappers (reshape, concat, transpose, bias_add,
clip_by_norm) that build in their inputs' graph. With tensorflow importable,
the same figures for ``tensorflow.compat.v1`` (graph mode) are printed side by side
with the ratio flowrt/TF. ``--profile`` prints cProfile summaries of flowrt's
construction path and its steady-state 100-op chain run.

The ``function 100 chain`` row is a steady call of ``@fr.function`` computing the
100-op chain from its argument, next to TF 2.x's ``tf.function`` called eagerly (in a
child process: the TF1 figures need eager execution disabled); compare it with the
``run 100 chain, fed`` row, the same graph through ``sess.run``. The ``FULL_TRACE``
row is that run with ``RunOptions(trace_level=FULL_TRACE)`` and a ``RunMetadata``.

The ``N-op chain`` rows build a fed chain of N adds with an identity every 10 ops in a
new graph (build time per op, the first run, a steady run; best of three graphs for
flowrt, one for TF); ``1000 dependent adds`` is a steady run of ``y = y + x`` a
thousand times from a fed ``x`` (nothing folds). ``--first-runs`` prints only these.
"""

from __future__ import annotations

import cProfile
import os
import pstats
import statistics
import subprocess
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import flowrt as fr


def _chain(m, n):
    x = m.constant(1.0)
    for _ in range(n):
        x = x + 1.0
    return x


def _median_run(fn, min_runs=30, min_time=0.5):
    fn()
    times = []
    start = time.perf_counter()
    while len(times) < min_runs or time.perf_counter() - start < min_time:
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
        if len(times) >= 20000:
            break
    return statistics.median(times)


def measure(m, is_tf: bool) -> dict:
    """All figures in seconds for module ``m`` (flowrt or tensorflow.compat.v1)."""
    out = {}
    # construction: 1000 scalar adds
    with m.Graph().as_default():
        c = m.constant(1.0)
        t0 = time.perf_counter()
        x = c
        for _ in range(1000):
            x = x + c
        out["construct per op"] = (time.perf_counter() - t0) / 1000
    # construction through wrappers that enter their inputs' graph (each makes 1-10 ops)
    with m.Graph().as_default():
        x = m.placeholder(m.float32, [4, 3])
        bias = m.constant([1.0, 2.0, 3.0])
        t0 = time.perf_counter()
        for _ in range(200):
            m.reshape(x, [3, 4])
            m.concat([x, x], 0)
            m.transpose(x)
            m.nn.bias_add(x, bias)
            m.clip_by_norm(x, 1.0)
        out["construct per wrapper"] = (time.perf_counter() - t0) / 1000
    # first run of a new 1000-op graph fetching 10 ops
    with m.Graph().as_default():
        c = m.constant(1.0)
        x, fetches = c, []
        for i in range(1000):
            x = x + c
            if i % 100 == 99:
                fetches.append(x)
        with m.Session() as sess:
            t0 = time.perf_counter()
            sess.run(fetches)
            out["first run 1000-op"] = time.perf_counter() - t0
    # steady state
    with m.Graph().as_default() as g:
        const = m.constant(1.0)
        c100 = _chain(m, 100)
        c1000 = _chain(m, 1000)
        with m.Session(graph=g) as sess:
            out["run const"] = _median_run(lambda: sess.run(const))
            out["run 100 chain"] = _median_run(lambda: sess.run(c100))
            out["run 1000 chain"] = _median_run(lambda: sess.run(c1000), min_runs=20)
    # the same chains from a fed placeholder: TF's grappler cannot constant-fold them
    with m.Graph().as_default() as g:
        p = m.placeholder(m.float32, [])
        f1 = p + 1.0
        f100, f1000 = p, p
        for i in range(1000):
            f1000 = f1000 + 1.0
            if i == 99:
                f100 = f1000
        with m.Session(graph=g) as sess:
            out["run 1 op, fed"] = _median_run(lambda: sess.run(f1, {p: 1.0}))
            out["run 100 chain, fed"] = _median_run(lambda: sess.run(f100, {p: 1.0}))
            out["run 1000 chain, fed"] = _median_run(lambda: sess.run(f1000, {p: 1.0}), min_runs=20)
            # The same run traced (RunOptions FULL_TRACE, reading the RunMetadata's
            # step_stats): what tracing costs when on. Off, the compiled body has no
            # tracing code at all (compare the untraced rows with main's).
            opts = m.RunOptions(trace_level=m.RunOptions.FULL_TRACE)

            def traced():
                md = m.RunMetadata()
                sess.run(f100, {p: 1.0}, options=opts, run_metadata=md)
                return md.step_stats.dev_stats  # flowrt builds StepStats when first read

            out["run 100 chain, fed, FULL_TRACE"] = _median_run(traced)
    if not is_tf:
        import trio

        async def main():
            with m.Graph().as_default() as g:
                const = m.constant(1.0)
                c100 = _chain(m, 100)
                c1000 = _chain(m, 1000)
                p = m.placeholder(m.float32, [])
                f1 = p + 1.0
            async with m.Session(graph=g) as sess:
                res = {}
                for key, t, feed in (
                    ("arun const", const, None),
                    ("arun 1 op, fed", f1, {p: 1.0}),
                    ("arun 100 chain", c100, None),
                    ("arun 1000 chain", c1000, None),
                ):
                    await sess.arun(t, feed)
                    times = []
                    for _ in range(3000 if "1000" not in key else 50):
                        t0 = time.perf_counter()
                        await sess.arun(t, feed)
                        times.append(time.perf_counter() - t0)
                    res[key] = statistics.median(times)
                return res

        out.update(trio.run(main))
    return out


def _quiet():
    """Waits for flowrt's background threads (the jit warm-up) to end: they hold the GIL
    in bursts and would be measured as build or first-run time."""
    import threading

    for t in threading.enumerate():
        if t.name.startswith("flowrt-") and t is not threading.current_thread():
            t.join(60)


def measure_first_runs(m, n: int, repeats: int = 3) -> dict:
    """A fed chain of ``n`` adds with an identity every 10 ops, in a new graph each time:
    build time per op, first run and a steady run (best of ``repeats`` graphs, wall)."""
    _quiet()
    build, first, steady = [], [], []
    for _ in range(repeats):
        with m.Graph().as_default():
            p = m.placeholder(m.float32, [])
            t0 = time.perf_counter()
            x = p
            for i in range(n):
                x = x + 1.0
                if i % 10 == 9:
                    x = m.identity(x)
            build.append((time.perf_counter() - t0) / n)
            with m.Session() as sess:
                t0 = time.perf_counter()
                sess.run(x, {p: 1.0})
                first.append(time.perf_counter() - t0)
                for _ in range(100):  # hot: flowrt compiles a plan's body after its first runs
                    sess.run(x, {p: 1.0})
                run = lambda s=sess, x=x, p=p: s.run(x, {p: 1.0})
                steady.append(_median_run(run, min_runs=20, min_time=0))
    return {
        "build per op, %d-op chain" % n: min(build),
        "first run %d-op chain" % n: min(first),
        "steady run %d-op chain" % n: min(steady),
    }


def measure_dependent_adds(m, n: int = 1000) -> float:
    """A steady run of a fed chain of ``n`` data-dependent scalar adds (``y = y + x``):
    nothing is constant, so nothing folds."""
    with m.Graph().as_default():
        x = m.placeholder(m.float32, [])
        y = x
        for _ in range(n):
            y = y + x
        with m.Session() as sess:
            return _median_run(lambda: sess.run(y, {x: 1.0}), min_runs=200, min_time=1.0)


def measure_function(m, tf_function) -> float:
    """A steady call of a traced function of the 100-op chain of its argument."""
    import numpy as np

    @tf_function
    def chain(x):
        for _ in range(100):
            x = x + 1.0
        return x

    x = np.float32(1.0)
    assert float(chain(x)) == 101.0
    return _median_run(lambda: chain(x))


def _tf_function_figure():
    """TF 2.x's eager ``tf.function`` figure, measured in a child process."""
    try:
        out = subprocess.run(
            [sys.executable, os.path.abspath(__file__), "--tf-function"],
            capture_output=True,
            text=True,
            timeout=600,
            check=True,
        )
        return float(out.stdout.strip().splitlines()[-1])
    except (subprocess.SubprocessError, ValueError, IndexError):
        return None


def profile_flowrt(n_lines=18):
    print("\n== cProfile: flowrt construction of 1000 scalar adds ==")
    with fr.Graph().as_default():
        c = fr.constant(1.0)
        pr = cProfile.Profile()
        pr.enable()
        x = c
        for _ in range(1000):
            x = x + c
        pr.disable()
    pstats.Stats(pr).sort_stats("tottime").print_stats(n_lines)
    print("\n== cProfile: flowrt steady-state run of a 100-op chain (x2000) ==")
    with fr.Graph().as_default() as g:
        c100 = _chain(fr, 100)
        with fr.Session(graph=g) as sess:
            for _ in range(5):
                sess.run(c100)
            pr = cProfile.Profile()
            pr.enable()
            for _ in range(2000):
                sess.run(c100)
            pr.disable()
    pstats.Stats(pr).sort_stats("tottime").print_stats(n_lines)


def _fmt(s):
    return "%9.1f us" % (s * 1e6) if s < 0.1 else "%9.1f ms" % (s * 1e3)


def main():
    if "--tf-function" in sys.argv:
        import tensorflow as tf

        print(measure_function(tf, tf.function))
        return
    first_runs_only = "--first-runs" in sys.argv
    res_fr = {} if first_runs_only else measure(fr, False)
    for n in (2000, 20000):
        res_fr.update(measure_first_runs(fr, n))
    res_fr["run 1000 dependent adds, fed"] = measure_dependent_adds(fr)
    if not first_runs_only:
        res_fr["function 100 chain"] = measure_function(fr, fr.function)
    try:
        import tensorflow.compat.v1 as tf

        tf.disable_eager_execution()
        res_tf = {} if first_runs_only else measure(tf, True)
        for n in (2000, 20000):
            res_tf.update(measure_first_runs(tf, n, repeats=1))
        res_tf["run 1000 dependent adds, fed"] = measure_dependent_adds(tf)
        if not first_runs_only:
            res_tf["function 100 chain"] = _tf_function_figure()
    except ImportError:
        res_tf = {}
    print("%-36s %12s %12s %8s" % ("figure", "flowrt", "TF", "fr/TF"))
    for key, v in res_fr.items():
        t = res_tf.get(key)
        if key.startswith("arun"):
            t = res_tf.get("run" + key[4:])
            key += " (vs TF run)"
        if key.startswith("function"):
            key += " (vs tf.function)"
        ratio = "%8.2f" % (v / t) if t else ""
        print("%-36s %12s %12s %s" % (key, _fmt(v), _fmt(t) if t else "-", ratio))
    if not first_runs_only:
        print(
            "await sess.arun / sess.run of the 1-op fed plan: %.2f"
            % (res_fr["arun 1 op, fed"] / res_fr["run 1 op, fed"])
        )
        print(
            "fr.function call / sess.run of the same fed chain: %.2f"
            % (res_fr["function 100 chain"] / res_fr["run 100 chain, fed"])
        )
    if "--profile" in sys.argv:
        profile_flowrt()


if __name__ == "__main__":
    main()
