"""Training step times: flowrt vs TensorFlow 2.21 (tensorflow.compat.v1, graph mode).

  python benchmarks/training.py [--steps N] [--no-tf] [--blas-threads N] [--malloc-tune]
                                [--profile mlp_adam|mlp_sgd|nce|nce_zipf] [-k TEXT]

Workloads (same graph built with ``tf = flowrt`` and ``tf = tensorflow.compat.v1``):
  * mlp_adam / mlp_sgd: a 784-256-10 MLP (relu, softmax cross entropy), batch 128 fed
    by feed_dict, one ``sess.run(train_op)`` per step.
  * nce: a skip-gram step, vocabulary 50,000, embedding 128, batch 128, 64 negative
    samples (``nce_loss``), SGD (sparse row updates of the embedding and NCE weights),
    word ids drawn uniformly.
  * nce_zipf: the same with word ids drawn from a Zipf law (exponent 1.3, as text
    gives), so a batch repeats its frequent words tens of times and the sparse updates
    sum many duplicate rows.
  * queue_adam: the MLP with Adam (sparse labels) trained on ``dequeue_many(128)`` of a
    FIFOQueue that a 2-thread QueueRunner fills with ``enqueue_many`` of
    ``random_uniform`` batches; examples/s, beside the same step fed by feed_dict and
    the ratio of the two step times (the queue's cost).
  * dequeue: ``dequeue_many(128)`` alone (the batch fetched, nothing trained) of the
    pipeline's shuffle queue (a RandomShuffleQueue of [64] float32 + int32 label rows,
    capacity 5,120, min_after_dequeue 1,280, refilled by 64-row ``enqueue_many`` runs
    between dequeues) and of a FIFOQueue of the same rows: microseconds of this
    thread's CPU per dequeue run (the low decile and the median).
  * consumer: the training side of ``benchmarks/pipeline.py`` alone: an MLP 64-128-10
    with Adam on ``dequeue_many(128)`` of a FIFOQueue filled beforehand (no producer
    running), microseconds of CPU and wall time per step, the best of several blocks of
    steps (the least disturbed by the host's load). In the pipeline this step shares
    the GIL with the producer threads, so its CPU time is what it takes from them.
Prints the median step time (ms) per framework. ``--profile`` runs cProfile on flowrt.
``--blas-threads N`` gives flowrt's kernels N BLAS threads (threadpoolctl and
``intra_op_parallelism_threads``); by default flowrt gives them one (``_core/blas.py``:
on a busy 2-core host two OpenBLAS threads spin against each other, a 128x784x256
matmul measured 1.2 ms with 1 thread and 94 ms with 2). ``--malloc-tune`` raises glibc's
mmap and trim thresholds (mallopt) so freed large arrays are reused instead of being
returned to the OS and page-faulted back in (the Adam update of a 784x256 variable:
2.9 ms -> 0.38 ms in this VM).
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import os
import pstats
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import pipeline  # this folder's CSV pipeline: its consumer step is timed here


def build_mlp(tf, opt):
    x = tf.placeholder(tf.float32, [None, 784], name="x")
    y = tf.placeholder(tf.float32, [None, 10], name="y")
    r = np.random.default_rng(0)
    w1 = tf.Variable((r.standard_normal((784, 256)) * 0.05).astype(np.float32), name="w1")
    b1 = tf.Variable(np.zeros(256, np.float32), name="b1")
    w2 = tf.Variable((r.standard_normal((256, 10)) * 0.05).astype(np.float32), name="w2")
    b2 = tf.Variable(np.zeros(10, np.float32), name="b2")
    h = tf.nn.relu(tf.matmul(x, w1) + b1)
    logits = tf.matmul(h, w2) + b2
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))
    if opt == "adam":
        train = tf.train.AdamOptimizer(1e-3).minimize(loss)
    else:
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    r = np.random.default_rng(1)
    xs = r.random((128, 784), dtype=np.float32)
    ys = np.eye(10, dtype=np.float32)[r.integers(0, 10, 128)]
    return train, {x: xs, y: ys}


def build_nce(tf, vocab=50_000, dim=128, batch=128, num_sampled=64, zipf=False):
    centers = tf.placeholder(tf.int32, [batch], name="centers")
    contexts = tf.placeholder(tf.int64, [batch, 1], name="contexts")
    r = np.random.default_rng(0)
    emb = tf.Variable(r.uniform(-1, 1, (vocab, dim)).astype(np.float32), name="emb")
    nce_w = tf.Variable(
        (r.standard_normal((vocab, dim)) / np.sqrt(dim)).astype(np.float32), name="nce_w"
    )
    nce_b = tf.Variable(np.zeros(vocab, np.float32), name="nce_b")
    embed = tf.nn.embedding_lookup(emb, centers)
    loss = tf.reduce_mean(
        tf.nn.nce_loss(
            weights=nce_w,
            biases=nce_b,
            labels=contexts,
            inputs=embed,
            num_sampled=num_sampled,
            num_classes=vocab,
        )
    )
    train = tf.train.GradientDescentOptimizer(1.0).minimize(loss)
    if zipf:
        ids = np.minimum(r.zipf(1.3, 2 * batch), vocab) - 1
        c, ctx = ids[:batch].astype(np.int32), ids[batch:].reshape(batch, 1)
    else:
        c = r.integers(0, vocab, batch).astype(np.int32)
        ctx = r.integers(0, vocab, (batch, 1)).astype(np.int64)
    return train, {centers: c, contexts: ctx}


def queue_fed_adam(tf, steps, batch=128, config=None, fed=False):
    """Examples/s of the MLP with Adam fed by a queue: a 2-thread QueueRunner
    enqueue_many's 128-row batches of ``random_uniform`` [784] float32 + label while
    the loop trains on dequeue_many(128). ``fed``: the same step with x and y fed by
    feed_dict instead (no queue, no producer threads), for the queue's cost."""
    with tf.Graph().as_default():
        r = np.random.default_rng(2)
        labels_np = r.integers(0, 10, batch).astype(np.int64)
        if fed:
            x = tf.placeholder(tf.float32, [batch, 784])
            y = tf.placeholder(tf.int64, [batch])
            feed = {x: r.random((batch, 784), dtype=np.float32), y: labels_np}
        else:
            q = tf.FIFOQueue(16 * batch, [tf.float32, tf.int64], shapes=[[784], []])
            rows = tf.random_uniform([batch, 784])
            labels = tf.constant(labels_np)
            qr = tf.train.QueueRunner(q, [q.enqueue_many([rows, labels])] * 2)
            tf.train.add_queue_runner(qr)
            x, y = q.dequeue_many(batch)
            feed = None
        r = np.random.default_rng(0)
        w1 = tf.Variable((r.standard_normal((784, 256)) * 0.05).astype(np.float32))
        b1 = tf.Variable(np.zeros(256, np.float32))
        w2 = tf.Variable((r.standard_normal((256, 10)) * 0.05).astype(np.float32))
        b2 = tf.Variable(np.zeros(10, np.float32))
        logits = tf.matmul(tf.nn.relu(tf.matmul(x, w1) + b1), w2) + b2
        loss = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits)
        )
        train = tf.train.AdamOptimizer(1e-3).minimize(loss)
        with tf.Session(config=config) as sess:
            sess.run(tf.global_variables_initializer())
            coord = tf.train.Coordinator()
            threads = [] if fed else tf.train.start_queue_runners(sess=sess, coord=coord)
            for _ in range(20):
                sess.run(train, feed)
            t0 = time.perf_counter()
            for _ in range(steps):
                sess.run(train, feed)
            dt = time.perf_counter() - t0
            coord.request_stop()
            if not fed:
                sess.run(q.close(cancel_pending_enqueues=True))
            coord.join(threads)
    return steps * batch / dt


def consumer_step(tf, steps, blocks=8, batch=128):
    """(CPU us, wall us) per step of the pipeline's MLP 64-128-10 Adam step on
    ``dequeue_many(batch)`` of a pre-filled FIFOQueue: the best of ``blocks`` blocks."""
    features = pipeline.FEATURES
    n = steps * blocks + 40
    with tf.Graph().as_default():
        q = tf.FIFOQueue(n * batch, [tf.float32, tf.int32], shapes=[[features], []])
        xp = tf.placeholder(tf.float32, [None, features])
        yp = tf.placeholder(tf.int32, [None])
        enq = q.enqueue_many([xp, yp])
        x, y = q.dequeue_many(batch)
        train = pipeline.mlp_train_op(tf, x, y)
        config = pipeline.config(tf)
        with tf.Session(config=config) as sess:
            sess.run(tf.global_variables_initializer())
            r = np.random.default_rng(0)
            chunk = 100 * batch
            for i in range(0, n * batch, chunk):
                m = min(chunk, n * batch - i)
                sess.run(
                    enq,
                    {
                        xp: r.random((m, features), dtype=np.float32),
                        yp: r.integers(0, 10, m).astype(np.int32),
                    },
                )
            for _ in range(40):
                sess.run(train)
            cpu, wall = [], []
            for _ in range(blocks):
                t0, c0 = time.perf_counter(), time.process_time()
                for _ in range(steps):
                    sess.run(train)
                cpu.append((time.process_time() - c0) / steps * 1e6)
                wall.append((time.perf_counter() - t0) / steps * 1e6)
    return min(cpu), min(wall)


def dequeue_only(tf, kind, runs=600, batch=128):
    """(low decile, median) of this thread's CPU us per ``dequeue_many(batch)`` run of a
    shuffle (``kind`` "shuffle") or FIFO queue of pipeline-sized rows, kept filled."""
    features = pipeline.FEATURES
    with tf.Graph().as_default():
        types, shapes = [tf.float32, tf.int32], [[features], []]
        if kind == "shuffle":
            q = tf.RandomShuffleQueue(40 * batch, 10 * batch, types, shapes=shapes, seed=2)
        else:
            q = tf.FIFOQueue(40 * batch, types, shapes=shapes)
        xp = tf.placeholder(tf.float32, [None, features])
        yp = tf.placeholder(tf.int32, [None])
        enq = q.enqueue_many([xp, yp])
        x, y = q.dequeue_many(batch)
        r = np.random.default_rng(0)
        feeds = [
            {
                xp: r.random((pipeline.READ, features), dtype=np.float32),
                yp: r.integers(0, 10, pipeline.READ).astype(np.int32),
            }
            for _ in range(4)
        ]
        with tf.Session() as sess:
            for i in range(30):
                sess.run(enq, feeds[i % 4])
            cpus = []
            for _ in range(runs):
                for j in range(batch // pipeline.READ):
                    sess.run(enq, feeds[j % 4])
                c0 = time.thread_time()
                sess.run([x, y])
                cpus.append(time.thread_time() - c0)
    return statistics.quantiles(cpus, n=10)[0] * 1e6, statistics.median(cpus) * 1e6


WORKLOADS = {
    "mlp_adam": lambda tf: build_mlp(tf, "adam"),
    "mlp_sgd": lambda tf: build_mlp(tf, "sgd"),
    "nce": build_nce,
    "nce_zipf": lambda tf: build_nce(tf, zipf=True),
}


def time_steps(tf, name, steps, warmup=20):
    with tf.Graph().as_default():
        train, feed = WORKLOADS[name](tf)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(warmup):
                sess.run(train, feed)
            times = []
            for _ in range(steps):
                t0 = time.perf_counter()
                sess.run(train, feed)
                times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def profile(tf, name, steps):
    with tf.Graph().as_default():
        train, feed = WORKLOADS[name](tf)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(20):
                sess.run(train, feed)
            prof = cProfile.Profile()
            prof.enable()
            for _ in range(steps):
                sess.run(train, feed)
            prof.disable()
    pstats.Stats(prof).sort_stats("tottime").print_stats(25)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=300)
    # --blas-threads N: threadpoolctl limit for flowrt's runs; --malloc-tune: see above
    ap.add_argument("--no-tf", action="store_true")
    ap.add_argument("--profile", choices=sorted(WORKLOADS))
    ap.add_argument("-k", help="only workloads containing this text")
    ap.add_argument("--blas-threads", type=int, default=None)
    ap.add_argument("--malloc-tune", action="store_true")
    args = ap.parse_args()
    if args.malloc_tune:
        import ctypes

        libc = ctypes.CDLL("libc.so.6")
        m_trim_threshold, m_top_pad, m_mmap_threshold = -1, -2, -3
        libc.mallopt(m_mmap_threshold, 256 << 20)
        libc.mallopt(m_trim_threshold, 1 << 30)
        libc.mallopt(m_top_pad, 64 << 20)
    import flowrt

    limit = contextlib.nullcontext()
    if args.blas_threads:
        from threadpoolctl import threadpool_limits

        limit = threadpool_limits(args.blas_threads, user_api="blas")

    if args.profile:
        with limit:
            profile(flowrt, args.profile, args.steps)
        return
    tf = None
    if not args.no_tf:
        try:
            os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
            import tensorflow.compat.v1 as tf

            tf.disable_eager_execution()
        except ImportError:
            tf = None
    # Median step time (ms): the better of two alternating rounds per framework, since
    # the machine is noisy and both should see the same conditions.
    print(
        "%-22s %12s %12s %8s"
        % ("workload (median ms)", "flowrt", "TF 2.21" if tf else "", "fr/TF" if tf else "")
    )
    for name in WORKLOADS:
        if args.k and args.k not in name:
            continue
        fr_ms, tf_ms = [], []
        for _ in range(2):
            with limit:
                fr_ms.append(time_steps(flowrt, name, args.steps))
            if tf is not None:
                tf_ms.append(time_steps(tf, name, args.steps))
        _row(name, min(fr_ms), min(tf_ms) if tf_ms else None)
    if not args.k or args.k in "dequeue":
        print("%-22s %12s %12s %8s" % ("dequeue_many (us/run)", "flowrt", "TF 2.21", ""))
        for kind in ("shuffle", "fifo"):
            fr_d, tf_d = [], []
            for _ in range(3):  # alternating, best of three
                fr_d.append(dequeue_only(flowrt, kind))
                if tf is not None:
                    tf_d.append(dequeue_only(tf, kind))
            for i, what in enumerate(("CPU p10", "CPU median")):
                _row(
                    "  %s %s" % (kind, what),
                    min(d[i] for d in fr_d),
                    min(d[i] for d in tf_d) if tf_d else None,
                    fmt="%12.0f",
                )
    if not args.k or args.k in "consumer":
        print("%-22s %12s %12s %8s" % ("consumer (us/step)", "flowrt", "TF 2.21", ""))
        fr_c, tf_c = [], []
        for _ in range(3):  # alternating, best of three
            with limit:
                fr_c.append(consumer_step(flowrt, 50))
            if tf is not None:
                tf_c.append(consumer_step(tf, 50))
        for i, what in enumerate(("  CPU", "  wall")):
            _row(
                what,
                min(c[i] for c in fr_c),
                min(c[i] for c in tf_c) if tf_c else None,
                fmt="%12.0f",
            )
    if not args.k or args.k in "queue_adam":
        print("%-22s %12s %12s %8s" % ("queue-fed (examples/s)", "flowrt", "TF 2.21", ""))
        fr_cfg = flowrt.ConfigProto(intra_op_parallelism_threads=args.blas_threads or 0)
        fr_x, tf_x, fr_f, tf_f = [], [], [], []
        for _ in range(3):  # alternating, best of three: the host is shared and noisy
            with limit:
                fr_x.append(queue_fed_adam(flowrt, args.steps, config=fr_cfg))
                fr_f.append(queue_fed_adam(flowrt, args.steps, config=fr_cfg, fed=True))
            if tf is not None:
                tf_x.append(queue_fed_adam(tf, args.steps))
                tf_f.append(queue_fed_adam(tf, args.steps, fed=True))
        _row("queue_adam", max(fr_x), max(tf_x) if tf_x else None, fmt="%12.0f")
        _row("  same step, feed_dict", max(fr_f), max(tf_f) if tf_f else None, fmt="%12.0f")
        print(
            "  queue-fed step / fed step (ms per 128): flowrt %.3f / %.3f = %.2f%s"
            % (
                128e3 / max(fr_x),
                128e3 / max(fr_f),
                max(fr_f) / max(fr_x),
                "; TF %.3f / %.3f = %.2f"
                % (128e3 / max(tf_x), 128e3 / max(tf_f), max(tf_f) / max(tf_x))
                if tf_x
                else "",
            )
        )


def _row(name, a, b, fmt="%12.3f"):
    print(
        ("%-22s " + fmt + " %12s %8s")
        % (name, a, (fmt % b).strip() if b else "-", "%.2f" % (a / b) if b else "-"),
        flush=True,
    )


if __name__ == "__main__":
    main()
