"""py_func overhead and shape-argument construction, flowrt vs TF1 side by side.

Run: ``python benchmarks/py_func.py``. Prints the median seconds of

- a run of ``py_func(f, [x], float32) + 1`` on a small array (the op's overhead);
- the same with 8 py_funcs in one run;
- building ``zeros([shape(x)[0], 4])`` (a mixed shape argument, static shape evaluated);

for flowrt and, when ``tensorflow`` is importable, for ``tensorflow.compat.v1`` in the
same process, with the ratio flowrt/TF. The machine is shared: run it a few times.
"""

from __future__ import annotations

import os
import statistics
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np

import flowrt as fr


def _median(fn, min_runs=50, min_time=0.5):
    fn()
    times = []
    start = time.perf_counter()
    while len(times) < min_runs or time.perf_counter() - start < min_time:
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def measure(m) -> dict:
    out = {}
    arr = np.arange(16, dtype=np.float32)
    with m.Graph().as_default():
        x = m.placeholder(m.float32, [16])
        one = m.py_func(lambda v: v * 2, [x], m.float32) + 1.0
        many = [m.py_func(lambda v: v * 2, [x], m.float32) for _ in range(8)]
        with m.Session() as sess:
            out["run: 1 py_func"] = _median(lambda: sess.run(one, {x: arr}))
            out["run: 8 py_funcs"] = _median(lambda: sess.run(many, {x: arr}))
    with m.Graph().as_default():
        x = m.placeholder(m.float32, [None, 3])

        def build():
            m.zeros([m.shape(x)[0], 4])

        out["build zeros([shape(x)[0], 4])"] = _median(build, min_runs=200)
    return out


def main():
    rows = {"flowrt": measure(fr)}
    try:
        import tensorflow.compat.v1 as tf

        tf.disable_eager_execution()
        rows["tf"] = measure(tf)
    except ImportError:
        pass
    keys = list(rows["flowrt"])
    print("%-34s %12s %12s %8s" % ("figure (median s)", "flowrt", "tf", "fr/tf"))
    for k in keys:
        f = rows["flowrt"][k]
        t = rows.get("tf", {}).get(k)
        print(
            "%-34s %12.2e %12s %8s"
            % (k, f, "%.2e" % t if t else "-", "%.2f" % (f / t) if t else "-")
        )


if __name__ == "__main__":
    main()
