"""Array and special-math ops added for TF1 models: one ``Session.run`` per op, flowrt
and, when importable, TensorFlow 2.21 (``tf.compat.v1`` graph mode) side by side.

Run from the project root:  python benchmarks/array_ops.py [--quick] [--no-tf]

Each case builds the same graph in both (inputs are fed placeholders, so the run is the
op, its feeds and fetching its result), times runs in alternating rounds and prints the median wall
time (ms) of each and the ratio TF / flowrt (above 1: flowrt faster). Figures are noisy
on a shared host: run it a few times and compare ratios.
"""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np

import flowrt as fr

QUICK = "--quick" in sys.argv
ROUNDS = 3 if QUICK else 7

_r = np.random.default_rng(0)
A = _r.standard_normal((64, 128, 256)).astype(np.float32)
B = _r.standard_normal((256, 512)).astype(np.float32)
DATA = _r.standard_normal((100_000, 32)).astype(np.float32)
IDS = _r.integers(0, 1000, 100_000).astype(np.int32)
PARTS = _r.integers(0, 4, 100_000).astype(np.int32)
SEQ = _r.standard_normal((64, 100, 128)).astype(np.float32)
LENS = _r.integers(0, 101, 64).astype(np.int64)
X1M = _r.uniform(0.1, 5.0, 1_000_000).astype(np.float32)
T = np.zeros((10_000, 64), np.float32)
SIX = _r.integers(0, 10_000, (50_000, 1)).astype(np.int32)
SUP = _r.standard_normal((50_000, 64)).astype(np.float32)
IMG = _r.standard_normal((16, 64, 64, 32)).astype(np.float32)


_FEED: dict = {}


def _in(m, v):
    """A placeholder fed ``v`` at each run (TF's grappler folds ops on constants, and
    on placeholders with a default); both frameworks pay the same feed."""
    ph = m.placeholder(m.as_dtype(v.dtype), v.shape)
    _FEED[ph] = v
    return ph


# name -> build(module) returning the tensor to fetch; ``m`` is fr or tf.compat.v1
CASES = {
    "tensordot [64,128,256]x[256,512]": lambda m: m.tensordot(_in(m, A), _in(m, B), 1),
    "unsorted_segment_max 100k x 32": lambda m: m.unsorted_segment_max(
        _in(m, DATA), _in(m, IDS), 1000
    ),
    "dynamic_partition 100k x 32 / 4": lambda m: m.dynamic_partition(
        _in(m, DATA), _in(m, PARTS), 4
    ),
    "tensor_scatter_nd_add 50k rows": lambda m: m.tensor_scatter_nd_add(
        _in(m, T), _in(m, SIX), _in(m, SUP)
    ),
    "reverse_sequence [64,100,128]": lambda m: m.reverse_sequence(_in(m, SEQ), _in(m, LENS), 1, 0),
    "lgamma 1M": lambda m: m.lgamma(_in(m, X1M)),
    "erf 1M": lambda m: m.erf(_in(m, X1M)),
    "space_to_batch_nd [16,64,64,32]": lambda m: m.space_to_batch_nd(
        _in(m, IMG), [2, 2], [[0, 0], [0, 0]]
    ),
}


def _session(m, build):
    g = m.Graph()
    _FEED.clear()
    with g.as_default():
        y = build(m)
    feed = dict(_FEED)
    s = m.Session(graph=g)
    s.run(y, feed)  # warm up (plan compile, first allocation)
    return lambda: s.run(y, feed), s


def _time(fn, n):
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def main() -> None:
    tf = None
    if "--no-tf" not in sys.argv:
        try:
            import tensorflow.compat.v1 as tf

            tf.disable_eager_execution()
        except ImportError:
            tf = None
    print("%-36s %10s %10s %8s" % ("op (median ms)", "flowrt", "TF", "TF/fr"))
    for name, build in CASES.items():
        runs = {"fr": _session(fr, build)}
        if tf is not None:
            runs["tf"] = _session(tf, build)
        times: dict[str, list[float]] = {k: [] for k in runs}
        for _ in range(ROUNDS):
            for k, (fn, _s) in runs.items():
                times[k] += _time(fn, 3)
        med = {k: statistics.median(v) * 1e3 for k, v in times.items()}
        if "tf" in med:
            print("%-36s %10.2f %10.2f %8.2f" % (name, med["fr"], med["tf"], med["tf"] / med["fr"]))
        else:
            print("%-36s %10.2f %10s %8s" % (name, med["fr"], "-", "-"))
        for _fn, s in runs.values():
            s.close()


if __name__ == "__main__":
    main()
