"""Random ops: flowrt's Philox fills against numpy's generators and TensorFlow.

Run from the project root:  python benchmarks/random_ops.py [--quick] [--no-tf]

1. Raw fills, no session: flowrt's compiled Philox fill (``flowrt/ops/philox.py``, the
   values TF's CPU kernels give) against numpy's ``Generator`` drawing the same count
   (what flowrt's random ops drew before, and a fair floor for a C sampler).
2. ``Session.run`` of one op: a ``[128, 784]`` float32 ``random_uniform`` (a queue
   producer's batch of noise) and a ``[1000, 1000]`` float32 ``random_normal`` and
   ``truncated_normal``; flowrt and, when importable, TensorFlow 2.21
   (``tf.compat.v1`` graph mode) in alternating rounds. Each row gives wall time (min,
   median, ms) and the ratio TF / flowrt of the medians (above 1: flowrt faster).

Figures are noisy on a shared host: run it a few times and compare ratios.
"""

from __future__ import annotations

import statistics
import sys
import time
import timeit

import numpy as np

import flowrt as fr
from flowrt.ops import philox

QUICK = "--quick" in sys.argv
ROUNDS = 3 if QUICK else 7


def best(fn, repeat=5):
    fn()
    t = timeit.timeit(fn, number=1)
    number = max(1, int(0.05 / max(t, 1e-7)))
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e3


def raw_fills():
    print("1. Raw fills (ms, best of 5)")
    print("%-34s %10s %10s %8s" % ("draw", "philox", "numpy", "ratio"))
    rng = np.random.default_rng(1)
    cases = [
        (
            "uniform f32 [128, 784]",
            128 * 784,
            np.float32,
            philox.UNIFORM,
            lambda n: rng.random(n, np.float32),
        ),
        ("uniform f32 1M", 10**6, np.float32, philox.UNIFORM, lambda n: rng.random(n, np.float32)),
        (
            "normal f32 1M",
            10**6,
            np.float32,
            philox.NORMAL,
            lambda n: rng.standard_normal(n, np.float32),
        ),
        ("truncated f32 1M", 10**6, np.float32, philox.TRUNCATED, None),
        ("normal f64 1M", 10**6, np.float64, philox.NORMAL, lambda n: rng.standard_normal(n)),
    ]
    for name, n, dtype, kind, ref in cases:
        out = np.empty(n, dtype)
        t_philox = best(lambda out=out, kind=kind: philox.fill_float(out, kind, 1, 0))
        if ref is None:
            print("%-34s %10.3f %10s %8s" % (name, t_philox, "-", "-"))
            continue
        t_np = best(lambda ref=ref, n=n: ref(n))
        print("%-34s %10.3f %10.3f %7.2fx" % (name, t_philox, t_np, t_np / t_philox))


def graphs(m):
    """The three benchmark ops built in a fresh graph of ``m`` (flowrt or TF)."""
    g = m.Graph()
    with g.as_default():
        ops = {
            "random_uniform f32 [128, 784]": m.random_uniform([128, 784], seed=1),
            "random_normal f32 [1000, 1000]": m.random_normal([1000, 1000], seed=2),
            "truncated_normal f32 [1000, 1000]": m.truncated_normal([1000, 1000], seed=3),
        }
    return g, ops


def timed_runs(sess, t, runs):
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        sess.run(t)
        times.append((time.perf_counter() - t0) * 1e3)
    return times


def session_runs(tf):
    print("\n2. Session.run of one op (ms: min / median; TF/flowrt of medians)")
    backends = [("flowrt", fr)] + ([("tf", tf)] if tf is not None else [])
    sessions = {}
    for label, m in backends:
        g, ops = graphs(m)
        sess = m.Session(graph=g)
        for t in ops.values():
            sess.run(t)  # warm: compile/load, first allocation
        sessions[label] = (sess, ops)
    runs = 20 if QUICK else 40
    times: dict = {}
    for _ in range(ROUNDS):
        for label, (sess, ops) in sessions.items():
            for name, t in ops.items():
                times.setdefault((label, name), []).extend(timed_runs(sess, t, runs))
    print("%-36s %18s %18s %8s" % ("op", "flowrt", "tf", "ratio"))
    for name in sessions["flowrt"][1]:
        f = times[("flowrt", name)]
        row = "%-36s %8.3f / %7.3f" % (name, min(f), statistics.median(f))
        if tf is not None:
            t = times[("tf", name)]
            ratio = statistics.median(t) / statistics.median(f)
            row += " %8.3f / %7.3f %7.2fx" % (min(t), statistics.median(t), ratio)
        print(row)
    for sess, _ in sessions.values():
        sess.close()


def main():
    tf = None
    if "--no-tf" not in sys.argv:
        try:
            import tensorflow.compat.v1 as tf

            tf.disable_eager_execution()
        except ImportError:
            tf = None
    raw_fills()
    session_runs(tf)


if __name__ == "__main__":
    main()
