"""Queue throughput: flowrt against TensorFlow 2.21 (tf.compat.v1 graph mode).

Run from the project root:  python benchmarks/queues.py [--quick] [--no-tf] [-k TEXT]

1. Scalar items/s: a producer thread runs ``enqueue`` and a consumer thread runs
   ``dequeue`` through ``sess.run`` (FIFOQueue of capacity 100, int32 scalars).
2. The same with two trio tasks awaiting ``sess.arun`` (flowrt only; compare with 1.).
3. Batches/s: ``dequeue_many(128)`` of [784] float32 rows, fed by two producer threads
   running ``enqueue_many`` of 128-row batches (a QueueRunner with two enqueue ops).
4. The same through issue 11's set-up: a ``FIFOQueue(64)`` (smaller than one batch, so
   every batch streams in as room frees and every dequeue gathers across batches),
   filled by a 2-thread ``QueueRunner`` of ``enqueue_many`` of random ``[128, 784]``
   batches (``random_uniform``), drained by ``dequeue_many(128)``.

Each figure is the best of a few timed runs after a warm-up, in one process.
"""

from __future__ import annotations

import sys
import threading
import time

import numpy as np
import trio

import flowrt as fr

QUICK = "--quick" in sys.argv
N_ITEMS = 5_000 if QUICK else 20_000
N_BATCHES = 200 if QUICK else 1_000
REPEAT = 2 if QUICK else 3


def best_rate(fn, n):
    fn(n // 10)
    return max(n / fn(n) for _ in range(REPEAT))


# --------------------------------------------------------------------------------------
# 1 + 3: threads through sess.run (works for both backends)
# --------------------------------------------------------------------------------------


def scalar_threads(tf):
    def run(n):
        with tf.Graph().as_default():
            q = tf.FIFOQueue(100, tf.int32, shapes=[])
            enq = q.enqueue(tf.constant(1))
            deq = q.dequeue()
            with tf.Session() as sess:

                def produce():
                    for _ in range(n):
                        sess.run(enq)

                th = threading.Thread(target=produce)
                t0 = time.perf_counter()
                th.start()
                for _ in range(n):
                    sess.run(deq)
                th.join()
                return time.perf_counter() - t0

    return best_rate(run, N_ITEMS)


def batches_threads(tf):
    def run(n):
        with tf.Graph().as_default():
            q = tf.FIFOQueue(1024, tf.float32, shapes=[[784]])
            rows = np.random.default_rng(0).random((128, 784), dtype=np.float32)
            src = tf.constant(rows)
            enqs = [q.enqueue_many([src]), q.enqueue_many([src])]
            deq = q.dequeue_many(128)
            with tf.Session() as sess:
                stop = threading.Event()

                def produce(op):
                    try:
                        while not stop.is_set():
                            sess.run(op)
                    except tf.errors.CancelledError:
                        pass

                threads = [threading.Thread(target=produce, args=(e,)) for e in enqs]
                for th in threads:
                    th.start()
                sess.run(deq)
                t0 = time.perf_counter()
                for _ in range(n):
                    sess.run(deq)
                dt = time.perf_counter() - t0
                stop.set()
                sess.run(q.close(cancel_pending_enqueues=True))
                for th in threads:
                    th.join()
                return dt

    return best_rate(run, N_BATCHES)


def batches_runner_small_queue(tf):
    def run(n):
        with tf.Graph().as_default():
            q = tf.FIFOQueue(64, tf.float32, shapes=[[784]])
            enq = q.enqueue_many([tf.random_uniform([128, 784])])
            qr = tf.train.QueueRunner(q, [enq] * 2)
            deq = q.dequeue_many(128)
            with tf.Session() as sess:
                coord = tf.train.Coordinator()
                threads = qr.create_threads(sess, coord=coord, start=True)
                sess.run(deq)
                t0 = time.perf_counter()
                for _ in range(n):
                    sess.run(deq)
                dt = time.perf_counter() - t0
                coord.request_stop()
                sess.run(q.close(cancel_pending_enqueues=True))
                coord.join(threads)
                return dt

    return best_rate(run, N_BATCHES)


# --------------------------------------------------------------------------------------
# 2: trio tasks through await sess.arun (flowrt)
# --------------------------------------------------------------------------------------


def scalar_tasks():
    def run(n):
        async def main():
            with fr.Graph().as_default():
                q = fr.FIFOQueue(100, fr.int32, shapes=[])
                enq = q.enqueue(fr.constant(1))
                deq = q.dequeue()
                async with fr.Session() as sess:

                    async def produce():
                        for _ in range(n):
                            await sess.arun(enq)

                    t0 = time.perf_counter()
                    async with trio.open_nursery() as nursery:
                        nursery.start_soon(produce)
                        for _ in range(n):
                            await sess.arun(deq)
                    return time.perf_counter() - t0

        return trio.run(main)

    return best_rate(run, N_ITEMS)


def core_tasks():
    """The queue alone (no graph, no session): the ceiling for path 2."""
    from flowrt._core.queues import Queue

    def run(n):
        async def main():
            q = Queue("q", 100)
            elem = [(np.int32(1),)]

            async def produce():
                for _ in range(n):
                    await q.put(elem)

            t0 = time.perf_counter()
            async with trio.open_nursery() as nursery:
                nursery.start_soon(produce)
                for _ in range(n):
                    await q.get(1)
            return time.perf_counter() - t0

        return trio.run(main)

    return best_rate(run, N_ITEMS * 5)


def main():
    tf = None
    if "--no-tf" not in sys.argv:
        try:
            import os

            os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
            import tensorflow.compat.v1 as tf

            tf.disable_eager_execution()
            tf.logging.set_verbosity(tf.logging.ERROR)
        except ImportError:
            tf = None
    rows = [
        (
            "scalar items/s, producer + consumer threads (sess.run)",
            lambda: scalar_threads(fr),
            (lambda: scalar_threads(tf)) if tf else None,
        ),
        ("scalar items/s, producer + consumer trio tasks (arun)", scalar_tasks, None),
        ("  (the bare _core queue, two trio tasks)", core_tasks, None),
        (
            "dequeue_many(128) x [784] f32 batches/s, 2 producer threads",
            lambda: batches_threads(fr),
            (lambda: batches_threads(tf)) if tf else None,
        ),
        (
            "  FIFOQueue(64), 2-thread QueueRunner of random_uniform batches",
            lambda: batches_runner_small_queue(fr),
            (lambda: batches_runner_small_queue(tf)) if tf else None,
        ),
    ]
    print("%-62s %12s %12s" % ("benchmark", "flowrt", "TF 2.21" if tf else "(no TF)"))
    only = sys.argv[sys.argv.index("-k") + 1] if "-k" in sys.argv else None
    for label, f_fr, f_tf in rows:
        if only and only not in label:
            continue
        a = f_fr()
        b = f_tf() if f_tf is not None else None
        print("%-62s %12.0f %12s" % (label, a, "%.0f" % b if b is not None else "-"), flush=True)


if __name__ == "__main__":
    main()
