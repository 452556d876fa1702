"""Where a run spends its time: trace one step with RunOptions(FULL_TRACE), list the
slowest ops from RunMetadata.step_stats, and write a Chrome trace to open in Perfetto.

Run: python examples/debug_slow_run.py
"""

import os
import tempfile

import numpy as np

import flowrt as fr


def main():
    x = fr.placeholder(fr.float32, [None, 784], name="x")
    labels = fr.placeholder(fr.int32, [None], name="labels")
    h = fr.nn.relu(fr.matmul(x, fr.get_variable("w1", [784, 1024])), name="hidden")
    logits = fr.matmul(h, fr.get_variable("w2", [1024, 10]), name="logits")
    loss = fr.reduce_mean(fr.nn.sparse_softmax_cross_entropy_with_logits(
        labels=labels, logits=logits), name="loss")
    train = fr.train.AdamOptimizer(1e-3).minimize(loss)

    rng = np.random.default_rng(0)
    feed = {x: rng.random((256, 784), dtype=np.float32),
            labels: rng.integers(0, 10, 256).astype(np.int32)}
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        sess.run(train, feed)  # the first run builds and caches the plan
        meta = fr.RunMetadata()
        sess.run(train, feed, options=fr.RunOptions(trace_level=fr.RunOptions.FULL_TRACE),
                 run_metadata=meta)

    stats = sorted(meta.step_stats, key=lambda s: s.end_micros - s.start_micros,
                   reverse=True)
    total = sum(s.end_micros - s.start_micros for s in stats)
    print("%d ops ran, %.1f ms in kernels; the slowest:" % (len(stats), total / 1000))
    for s in stats[:5]:
        print("  %-45s %-22s %7.2f ms" % (s.node_name, s.op_type,
                                          (s.end_micros - s.start_micros) / 1000))
    path = os.path.join(tempfile.mkdtemp(), "step.json")
    with open(path, "w") as f:
        f.write(meta.chrome_trace())
    print("chrome trace written (%d events)" % len(stats))


if __name__ == "__main__":
    main()
