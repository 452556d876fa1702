"""Event-file writing throughput (MB/s): flowrt's FileWriter against TF 2.21's (tf.compat.v1).

Run from the project root:  python benchmarks/event_writing.py [--quick] [--no-tf]

What a training loop writes: each step, the fetched value of a merged summary (two scalars
and a histogram of a [256, 64] weight matrix, about 1.4 KB serialized) goes to
``add_summary``; once, the graph of a small MLP goes to ``add_graph``. Figures are MB of
event file written per second (the file's size over the time from the first ``add_*`` to
``close()``), the best of a few runs; both backends get the same serialized summaries, so
only the writers (Event protobuf, TFRecord framing with CRC-32C, file I/O) are timed.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time

import numpy as np

import flowrt as fr

QUICK = "--quick" in sys.argv
STEPS = 2_000 if QUICK else 10_000
REPEAT = 2 if QUICK else 3


def merged_summaries(n: int) -> list[bytes]:
    rng = np.random.default_rng(0)
    with fr.Graph().as_default():
        w = fr.placeholder(fr.float32, [256, 64])
        fr.summary.scalar("loss", fr.reduce_mean(w))
        fr.summary.scalar("accuracy", fr.reduce_max(w))
        fr.summary.histogram("weights", w)
        merged = fr.summary.merge_all()
        with fr.Session() as sess:
            # Eight distinct values cycled: the writer's work does not depend on them.
            vals = [
                sess.run(merged, {w: rng.standard_normal((256, 64)).astype(np.float32)})
                for _ in range(8)
            ]
    return [vals[i % 8] for i in range(n)]


def mlp_graph(m):
    """A 64-128-10 MLP trained with Adam, built with ``m`` (flowrt or tf.compat.v1)."""
    g = m.Graph()
    with g.as_default():
        x = m.placeholder(m.float32, [None, 64], name="x")
        y = m.placeholder(m.int64, [None], name="y")
        w1 = m.Variable(m.random_normal([64, 128], stddev=0.1), name="w1")
        w2 = m.Variable(m.random_normal([128, 10], stddev=0.1), name="w2")
        logits = m.matmul(m.nn.relu(m.matmul(x, w1)), w2)
        loss = m.reduce_mean(m.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        m.train.AdamOptimizer(1e-3).minimize(loss)
    return g


def timed(write_all, d) -> float:
    best = 0.0
    for r in range(REPEAT):
        run_dir = os.path.join(d, "r%d" % r)
        t0 = time.perf_counter()
        write_all(run_dir)
        dt = time.perf_counter() - t0
        size = sum(os.path.getsize(os.path.join(run_dir, f)) for f in os.listdir(run_dir))
        best = max(best, size / dt / 1e6)
    return best


def main():
    summaries = merged_summaries(STEPS)
    graph = mlp_graph(fr)
    d = tempfile.mkdtemp()
    try:

        def flowrt_writes(run_dir):
            with fr.summary.FileWriter(run_dir) as writer:
                writer.add_graph(graph)
                for step, s in enumerate(summaries):
                    writer.add_summary(s, step)

        mb = timed(flowrt_writes, os.path.join(d, "flowrt"))
        print("event writing, %d steps of %d-byte summaries + graph" % (STEPS, len(summaries[0])))
        print("  flowrt      %7.1f MB/s" % mb)
        tf = None
        if "--no-tf" not in sys.argv:
            try:
                import tensorflow.compat.v1 as tf
            except ImportError:
                print("  tensorflow  (not importable)")
        if tf is not None:
            tf.disable_eager_execution()
            tg = mlp_graph(tf)

            def tf_writes(run_dir):
                writer = tf.summary.FileWriter(run_dir, max_queue=10)
                writer.add_graph(tg)
                for step, s in enumerate(summaries):
                    writer.add_summary(s, step)
                writer.close()

            tmb = timed(tf_writes, os.path.join(d, "tf"))
            print("  tensorflow  %7.1f MB/s   (flowrt/TF = %.2f)" % (tmb, mb / tmb))
    finally:
        shutil.rmtree(d)


if __name__ == "__main__":
    main()
