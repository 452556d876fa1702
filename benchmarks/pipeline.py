"""The CSV input pipeline: flowrt vs TensorFlow 2.21 (tensorflow.compat.v1, graph mode).

  python benchmarks/pipeline.py [--no-tf] [--runs N] [--epochs N]
                                [--only pipeline|decode|threads|step|digits]
                                [--profile] [--digits-tree DIR ...]

Sections (each framework runs the same code with ``tf = flowrt`` or ``tf = tf.compat.v1``,
alternating, in one process; every run is printed, then the median):

* pipeline: 8 CSV files x 500 rows of 64 integer features + a label (written to a temp
  dir) -> ``string_input_producer`` -> ``TextLineReader.read_up_to(64)`` ->
  ``decode_csv`` -> ``shuffle_batch(enqueue_many=True, num_threads=2)``, batch 128 ->
  an MLP 64-128-10 trained with Adam until the epochs run out. Examples/s, and the
  process's CPU time per example (all threads), which the host's load disturbs less.
* decode: ``decode_csv`` of 64 records x 65 fields alone (one ``sess.run`` with the
  records fed), microseconds per call, wall and CPU.
* threads: the producer side alone (``dequeue_many(128)`` of the shuffle queue, no
  training) with 1 and with 2 runner threads, flowrt only: examples/s.
* step: one producer run alone (read_up_to -> decode_csv -> stack -> the shuffle
  queue's enqueue_many), run in the main thread, microseconds per run (median
  wall, and the low decile of the thread's CPU time), flowrt and TF side by side; ``--profile``
  prints flowrt's cProfile of those runs (``PSORT``/``PTOP``: sort key, rows).
* digits: ``python -m pipelines.digits_mlp --quiet`` examples/s as it reports them, for
  this tree and every ``--digits-tree`` given (e.g. a checkout of an older commit).

The host's cores are shared, so the figures are noisy: compare within one run.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

N_FILES, ROWS, FEATURES, BATCH, READ = 8, 500, 64, 128, 64


def write_csvs(folder: str) -> list:
    rng = np.random.default_rng(0)
    paths = []
    for f in range(N_FILES):
        data = np.column_stack([rng.integers(0, 10, ROWS), rng.integers(0, 17, (ROWS, FEATURES))])
        path = os.path.join(folder, "part%d.csv" % f)
        np.savetxt(path, data, fmt="%d", delimiter=",")
        paths.append(path)
    return paths


def producer(tf, paths, epochs, threads):
    files = tf.train.string_input_producer(paths, num_epochs=epochs, shuffle=True, seed=1)
    _, lines = tf.TextLineReader().read_up_to(files, READ)
    fields = tf.decode_csv(lines, record_defaults=[[0]] + [[0.0]] * FEATURES)
    images = tf.stack(fields[1:], axis=1) / 16.0
    return tf.train.shuffle_batch(
        [images, fields[0]],
        batch_size=BATCH,
        capacity=40 * BATCH,
        min_after_dequeue=10 * BATCH,
        num_threads=threads,
        seed=2,
        enqueue_many=True,
        allow_smaller_final_batch=True,
    )


def mlp_train_op(tf, images, labels):
    rng = np.random.default_rng(0)
    w1 = tf.Variable((rng.standard_normal((FEATURES, 128)) * 0.1).astype(np.float32))
    b1 = tf.Variable(np.zeros(128, np.float32))
    w2 = tf.Variable((rng.standard_normal((128, 10)) * 0.1).astype(np.float32))
    b2 = tf.Variable(np.zeros(10, np.float32))
    logits = tf.matmul(tf.nn.relu(tf.matmul(images, w1) + b1), w2) + b2
    loss = tf.reduce_mean(
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    )
    return tf.train.AdamOptimizer(1e-3).minimize(loss)


def config(tf):
    if tf.__name__.startswith("flowrt"):
        # As pipelines/digits_mlp.py: runner threads are the parallelism, not BLAS.
        return tf.ConfigProto(intra_op_parallelism_threads=1)
    return None


def run_pipeline(tf, paths, epochs, threads=2, train=True, cpu=None) -> float:
    """Examples/s through the pipeline (trained on, unless ``train`` is False); appends
    the process's CPU seconds per example to the list ``cpu`` when given."""
    with tf.Graph().as_default():
        images, labels = producer(tf, paths, epochs, threads)
        fetch = (
            [mlp_train_op(tf, images, labels), tf.shape(labels)[0]]
            if train
            else [images, tf.shape(labels)[0]]
        )
        return examples_per_second(tf, fetch, cpu)


def examples_per_second(tf, fetch, cpu=None) -> float:
    """Runs ``fetch`` (anything, then a batch length) with queue runners until the input
    runs out; returns the examples/s of those runs (and appends the CPU seconds per
    example, all threads of the process, to the list ``cpu`` when given)."""
    init = [tf.global_variables_initializer(), tf.local_variables_initializer()]
    with tf.Session(config=config(tf)) as sess:
        sess.run(init)
        coord = tf.train.Coordinator()
        runner_threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        examples = 0
        t0, c0 = time.perf_counter(), time.process_time()
        try:
            while True:
                examples += int(sess.run(fetch)[1])
        except tf.errors.OutOfRangeError:
            pass
        secs = time.perf_counter() - t0
        if cpu is not None:
            cpu.append((time.process_time() - c0) / examples)
        coord.request_stop()
        coord.join(runner_threads)
    return examples / secs


def time_decode(tf, n=300) -> tuple:
    """Microseconds per decode_csv of 64 records x 65 fields, wall and the process's
    CPU (best of 3 rounds each)."""
    rng = np.random.default_rng(0)
    recs = np.array(
        [b",".join(b"%d" % v for v in rng.integers(0, 17, FEATURES + 1)) for _ in range(READ)],
        dtype=object,
    )
    with tf.Graph().as_default():
        ph = tf.placeholder(tf.string, [None])
        out = tf.decode_csv(ph, [[0]] + [[0.0]] * FEATURES)
        with tf.Session() as sess:
            sess.run(out, {ph: recs})
            best = best_cpu = float("inf")
            for _ in range(3):
                t0, c0 = time.perf_counter(), time.process_time()
                for _ in range(n):
                    sess.run(out, {ph: recs})
                best = min(best, (time.perf_counter() - t0) / n)
                best_cpu = min(best_cpu, (time.process_time() - c0) / n)
    return best * 1e6, best_cpu * 1e6


def time_step(tf, paths, runs=400, profile=False) -> tuple:
    """Microseconds per producer run (the shuffle queue's enqueue op, run in this
    thread; a dequeue every other run keeps the queue from filling): the median of
    the runs' wall time and the low decile of this thread's CPU time (which the
    host's load disturbs least); with ``profile`` prints the cProfile of the enqueue runs."""
    with tf.Graph().as_default():
        images, labels = producer(tf, paths, None, 1)
        runner = [
            r
            for r in tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)
            if "shuffle_batch" in r.queue.name
        ][0]
        enqueue = runner.enqueue_ops[0]
        with tf.Session(config=config(tf)) as sess:
            sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
            coord = tf.train.Coordinator()
            # Only the filename queue's runner: this thread runs the enqueues.
            others = [r for r in tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS) if r is not runner]
            threads = [t for r in others for t in r.create_threads(sess, coord, start=True)]
            prof = None
            if profile:
                import cProfile

                prof = cProfile.Profile()
            for _ in range(45):  # past min_after_dequeue, with room for short reads
                sess.run(enqueue)
            walls, cpus = [], []
            for i in range(runs):
                t0, c0 = time.perf_counter(), time.thread_time()
                if prof is not None:
                    prof.enable()
                sess.run(enqueue)
                if prof is not None:
                    prof.disable()
                walls.append(time.perf_counter() - t0)
                cpus.append(time.thread_time() - c0)
                if i % 2:
                    sess.run(images)
            coord.request_stop()
            coord.join(threads)
    if prof is not None:
        import pstats

        pstats.Stats(prof).sort_stats(os.environ.get("PSORT", "tottime")).print_stats(
            int(os.environ.get("PTOP", "25"))
        )
    # The CPU figure is the low decile: the runs least disturbed by other processes.
    return statistics.median(walls) * 1e6, statistics.quantiles(cpus, n=10)[0] * 1e6


def digits_rate(tree: str) -> float:
    with tempfile.TemporaryDirectory() as ckpt:
        env = dict(os.environ, PYTHONPATH=tree)
        out = subprocess.run(
            [sys.executable, "-m", "pipelines.digits_mlp", "--quiet", "--checkpoint-dir", ckpt],
            cwd=tree,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    return float(re.search(r"\(([0-9.]+) examples/s\)", out).group(1))


def show(label, figures, unit, fmt="%.0f"):
    print(
        "  %-34s %s   median %s %s"
        % (label, " ".join(fmt % f for f in figures), fmt % statistics.median(figures), unit)
    )


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--no-tf", action="store_true")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--only", choices=["pipeline", "decode", "threads", "step", "digits"])
    p.add_argument("--profile", action="store_true", help="cProfile flowrt's step runs")
    p.add_argument(
        "--digits-tree",
        action="append",
        default=[],
        help="another source tree to run pipelines.digits_mlp from",
    )
    args = p.parse_args(argv)
    import flowrt

    frameworks = [("flowrt", flowrt)]
    if not args.no_tf:
        try:
            os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
            import tensorflow.compat.v1 as tf

            tf.disable_eager_execution()
            tf.logging.set_verbosity(tf.logging.ERROR)
            frameworks.append(("tf " + tf.VERSION, tf))
        except ImportError:
            print("(tensorflow not importable: flowrt only)")
    want = lambda s: args.only in (None, s)
    with tempfile.TemporaryDirectory() as folder:
        paths = write_csvs(folder)
        if want("pipeline"):
            print(
                "pipeline, examples/s (%d files x %d rows, %d epochs, batch %d, 2 threads):"
                % (N_FILES, ROWS, args.epochs, BATCH)
            )
            rates = {name: [] for name, _ in frameworks}
            cpu = {name: [] for name, _ in frameworks}
            for _ in range(args.runs):
                for name, m in frameworks:
                    rates[name].append(run_pipeline(m, paths, args.epochs, cpu=cpu[name]))
            for name, r in rates.items():
                show(name, r, "ex/s")
            print("  CPU time per example (all threads; steadier than ex/s on a shared host):")
            for name, c in cpu.items():
                show(name, [x * 1e6 for x in c], "us", "%.1f")
        if want("decode"):
            print("decode_csv of %d x %d fields, us per run:" % (READ, FEATURES + 1))
            times = {name: [] for name, _ in frameworks}
            for _ in range(args.runs):
                for name, m in frameworks:
                    times[name].append(time_decode(m))
            for name, t in times.items():
                show(name, [w for w, _ in t], "us")
            print("  CPU time per run:")
            for name, t in times.items():
                show(name, [c for _, c in t], "us")
        if want("threads"):
            print("flowrt producer alone (no training), examples/s:")
            rates = {1: [], 2: []}
            cpu = {1: [], 2: []}
            for _ in range(args.runs):
                for k in rates:
                    rates[k].append(
                        run_pipeline(flowrt, paths, args.epochs, k, train=False, cpu=cpu[k])
                    )
            for k, r in rates.items():
                show("%d runner thread%s" % (k, "s" if k > 1 else ""), r, "ex/s")
            for k, c in cpu.items():
                show(
                    "  CPU per example, %d thread%s" % (k, "s" if k > 1 else ""),
                    [x * 1e6 for x in c],
                    "us",
                    "%.1f",
                )
        if want("step"):
            print("one producer run (enqueue of %d decoded records), us per run:" % READ)
            times = {name: [] for name, _ in frameworks}
            for r in range(args.runs):
                for name, m in frameworks:
                    prof = args.profile and r == 0 and m is flowrt
                    times[name].append(time_step(m, paths, profile=prof))
            for name, t in times.items():
                show(name, [w for w, _ in t], "us")
            print("  this thread's CPU time per run (low decile):")
            for name, t in times.items():
                show(name, [c for _, c in t], "us")
    if want("digits"):
        print("python -m pipelines.digits_mlp, examples/s:")
        for tree in [ROOT] + args.digits_tree:
            show(
                os.path.basename(os.path.abspath(tree)),
                [digits_rate(tree) for _ in range(args.runs)],
                "ex/s",
            )


if __name__ == "__main__":
    main()
