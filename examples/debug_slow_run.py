"""Where a run spends its time: trace steps with RunOptions(FULL_TRACE), list the ops
with the largest median time from RunMetadata.step_stats (a median over several steps,
so that one step preempted by another process does not mislead), and write a Chrome
trace to open in Perfetto. Then the same with two BLAS threads per kernel
(``intra_op_parallelism_threads=2``; flowrt's default is one), which loses on a machine
whose cores are busy with other work.

Run: python examples/debug_slow_run.py
"""

import collections
import json
import os
import statistics
import tempfile

import numpy as np

import flowrt as fr

STEPS = 7


def build():
    x = fr.placeholder(fr.float32, [None, 784], name="x")
    labels = fr.placeholder(fr.int32, [None], name="labels")
    h = fr.nn.relu(fr.matmul(x, fr.get_variable("w1", [784, 256])), name="hidden")
    logits = fr.matmul(h, fr.get_variable("w2", [256, 10]), name="logits")
    loss = fr.reduce_mean(
        fr.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits), name="loss"
    )
    rng = np.random.default_rng(0)
    feed = {
        x: rng.random((128, 784), dtype=np.float32),
        labels: rng.integers(0, 10, 128).astype(np.int32),
    }
    return fr.train.AdamOptimizer(1e-3).minimize(loss), feed


def profile(train, feed, config=None):
    with fr.Session(config=config) as sess:
        sess.run(fr.global_variables_initializer())
        for _ in range(3):  # the first runs build, cache and compile the plan
            sess.run(train, feed)
        traced = []
        for _ in range(STEPS):
            meta = fr.RunMetadata()
            sess.run(
                train,
                feed,
                run_metadata=meta,
                options=fr.RunOptions(trace_level=fr.RunOptions.FULL_TRACE),
            )
            traced.append(meta)
    times = collections.defaultdict(list)
    for meta in traced:
        for s in meta.step_stats.dev_stats[0].node_stats:
            if not s.wait_for:  # an op's own record, not one of its queue waits
                times[(s.node_name, s.op_type)].append(s.all_end_rel_micros / 1000)
    median = {k: statistics.median(v) for k, v in times.items()}
    print(
        "%d ops per step, median %.2f ms in kernels over %d steps; the slowest:"
        % (len(median), sum(median.values()), STEPS)
    )
    for (name, op_type), ms in sorted(median.items(), key=lambda kv: -kv[1])[:3]:
        print("  %-34s %-18s %7.3f ms" % (name[-34:], op_type[:18], ms))
    return traced[-1]


def main():
    train, feed = build()
    print("default (one BLAS thread per kernel):")
    meta = profile(train, feed)
    path = os.path.join(tempfile.mkdtemp(), "step.json")
    trace = fr.client.timeline.Timeline(meta.step_stats).generate_chrome_trace_format()
    with open(path, "w") as f:
        f.write(trace)
    events = len(json.loads(trace)["traceEvents"])
    print(
        "chrome trace (%d events) written to %s: open it at https://ui.perfetto.dev"
        % (events, path)
    )
    print("intra_op_parallelism_threads=2:")
    profile(train, feed, fr.ConfigProto(intra_op_parallelism_threads=2))


if __name__ == "__main__":
    main()
