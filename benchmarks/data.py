"""tf.data pipelines read through an iterator: flowrt vs TensorFlow 2.21 side by side.

Run from the project root:  python benchmarks/data.py [--quick]

Each pipeline is read with ``sess.run(get_next)`` in a loop (one batch per run); the
figure is examples per second, best of a few timed stretches. TF (tf.compat.v1 graph
mode) runs in the same process when importable. The machine is shared and noisy:
compare the ratios of one run.

Pipelines:
  slices      from_tensor_slices((x, y)).shuffle(10000).batch(128).repeat()
  slices+map  ... .map(scale, per element).batch(128)
  csv         TextLineDataset -> batch(128) -> map(decode_csv)  (batched parsing)
  csv/elem    TextLineDataset -> map(decode_csv) -> batch(128)  (one line per call)
"""

from __future__ import annotations

import os
import sys
import tempfile
import time

import numpy as np

import flowrt as fr

BATCH = 128


def _scale(x, y):
    return x * (1.0 / 255.0), y


def pipelines(m, csv_path):
    r = np.random.default_rng(0)
    x = r.integers(0, 255, (20000, 64)).astype(np.float32)
    y = r.integers(0, 10, 20000).astype(np.int64)

    def slices():
        return m.data.Dataset.from_tensor_slices((x, y)).shuffle(10000, seed=1)

    def parse(line):
        cols = m.decode_csv(line, [[0.0]] * 8 + [[0]])
        return m.stack(cols[:8], axis=-1), cols[8]

    return {
        "slices": lambda: slices().batch(BATCH).repeat(),
        "slices+map": lambda: slices().map(_scale, num_parallel_calls=2).batch(BATCH).repeat(),
        "csv": lambda: m.data.TextLineDataset(csv_path).batch(BATCH).map(parse).repeat(),
        "csv/elem": lambda: m.data.TextLineDataset(csv_path).map(parse).batch(BATCH).repeat(),
    }


def measure(m, make, seconds, repeat):
    with m.Graph().as_default():
        nxt = m.data.make_one_shot_iterator(make()).get_next()
        with m.Session() as sess:
            for _ in range(5):
                sess.run(nxt)
            best = 0.0
            for _ in range(repeat):
                n, t0 = 0, time.perf_counter()
                while time.perf_counter() - t0 < seconds:
                    sess.run(nxt)
                    n += 1
                best = max(best, n * BATCH / (time.perf_counter() - t0))
    return best


def main() -> None:
    quick = "--quick" in sys.argv
    seconds, repeat = (0.3, 2) if quick else (1.0, 3)
    try:
        import tensorflow.compat.v1 as tf

        tf.disable_eager_execution()
    except ImportError:
        tf = None
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "data.csv")
        r = np.random.default_rng(1)
        rows = r.random((20000, 8))
        with open(path, "w") as f:
            for i, row in enumerate(rows):
                f.write(",".join("%.4f" % v for v in row) + ",%d\n" % (i % 10))
        print("%-12s %14s %14s %8s" % ("pipeline", "flowrt ex/s", "TF ex/s", "fr/TF"))
        fr_p = pipelines(fr, path)
        tf_p = pipelines(tf, path) if tf is not None else {}
        for name, make in fr_p.items():
            a = measure(fr, make, seconds, repeat)
            b = measure(tf, tf_p[name], seconds, repeat) if tf is not None else float("nan")
            print("%-12s %14.0f %14.0f %8.2f" % (name, a, b, a / b))


if __name__ == "__main__":
    main()
