"""TFRecord input pipeline throughput: flowrt against TensorFlow 2.21 (tf.compat.v1).

Run from the project root:  python benchmarks/records.py [--quick] [--no-tf]

The pipeline TF1 programs write: ``string_input_producer`` over 4 TFRecord files of
``Example`` protos -> ``TFRecordReader.read`` -> ``shuffle_batch`` of the serialized
records (batch 128, two reader threads) -> ``parse_example`` (an int64 label, a [32]
float32 vector, a string, a variable-length int64 list) -> fetched by ``sess.run``.
Figures are records/s parsed, the best of a few timed runs after a warm-up; both
backends read the same files, written once by flowrt.

Also: records/s of ``tf_record_iterator`` alone (framing and CRC checks), and of
``parse_example`` alone on a fed batch of 128 serialized records.
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
N_PER_FILE = 1_000 if QUICK else 4_000
N_FILES = 4
BATCH = 128
N_BATCHES = 40 if QUICK else 150
REPEAT = 2 if QUICK else 3


def write_files(d):
    rng = np.random.default_rng(0)
    files = []
    for f in range(N_FILES):
        p = os.path.join(d, "part-%d.tfrecord" % f)
        with fr.python_io.TFRecordWriter(p) as w:
            for i in range(N_PER_FILE):
                ex = fr.train.Example(
                    features=fr.train.Features(
                        feature={
                            "label": fr.train.Feature(
                                int64_list=fr.train.Int64List(value=[i % 10])
                            ),
                            "x": fr.train.Feature(
                                float_list=fr.train.FloatList(
                                    value=rng.standard_normal(32).astype(np.float32)
                                )
                            ),
                            "name": fr.train.Feature(
                                bytes_list=fr.train.BytesList(value=[b"item-%d-%d" % (f, i)])
                            ),
                            "tags": fr.train.Feature(
                                int64_list=fr.train.Int64List(value=list(range(i % 5)))
                            ),
                        }
                    )
                )
                w.write(ex.SerializeToString())
        files.append(p)
    return files


def spec(tf):
    return {
        "label": tf.FixedLenFeature([], tf.int64),
        "x": tf.FixedLenFeature([32], tf.float32),
        "name": tf.FixedLenFeature([], tf.string),
        "tags": tf.VarLenFeature(tf.int64),
    }


def pipeline(tf, files):
    def run(n):
        with tf.Graph().as_default():
            names = tf.train.string_input_producer(files, shuffle=False)
            readers = [tf.TFRecordReader().read(names)[1] for _ in range(2)]
            ser = tf.train.shuffle_batch_join(
                [[r] for r in readers], BATCH, capacity=20 * BATCH, min_after_dequeue=10 * BATCH
            )
            parsed = tf.parse_example(ser, spec(tf))
            with tf.Session() as sess:
                coord = tf.train.Coordinator()
                threads = tf.train.start_queue_runners(sess, coord)
                sess.run(parsed)
                t0 = time.perf_counter()
                for _ in range(n):
                    sess.run(parsed)
                dt = time.perf_counter() - t0
                coord.request_stop()
                coord.join(threads, stop_grace_period_secs=10)
                return dt

    return best_rate(run, N_BATCHES) * BATCH


def iterate(tf, files):
    def run(n):
        t0 = time.perf_counter()
        for _ in range(n):
            for f in files:
                for _rec in tf.python_io.tf_record_iterator(f):
                    pass
        return time.perf_counter() - t0

    return best_rate(run, 3) * N_PER_FILE * N_FILES


def parse_only(tf, files):
    recs = [r for _, r in zip(range(BATCH), fr.python_io.tf_record_iterator(files[0]))]

    def run(n):
        with tf.Graph().as_default():
            ser = tf.placeholder(tf.string, [None])
            parsed = tf.parse_example(ser, spec(tf))
            with tf.Session() as sess:
                sess.run(parsed, {ser: recs})
                t0 = time.perf_counter()
                for _ in range(n):
                    sess.run(parsed, {ser: recs})
                return time.perf_counter() - t0

    return best_rate(run, N_BATCHES) * BATCH


def best_rate(fn, n):
    fn(max(n // 10, 1))
    return max(n / fn(n) for _ in range(REPEAT))


def main():
    tf = None
    if "--no-tf" not in sys.argv:
        try:
            import tensorflow.compat.v1 as tf

            tf.disable_eager_execution()
        except ImportError:
            tf = None
    d = tempfile.mkdtemp(prefix="flowrt_records_")
    try:
        files = write_files(d)
        rows = [
            ("TFRecordReader -> shuffle_batch -> parse_example (records/s)", pipeline),
            ("tf_record_iterator alone (records/s)", iterate),
            ("parse_example alone, batch of 128 (records/s)", parse_only),
        ]
        print("%-62s %12s %12s %8s" % ("benchmark", "flowrt", "TF 2.21", "ratio"))
        for title, fn in rows:
            mine = fn(fr, files)
            theirs = fn(tf, files) if tf is not None else float("nan")
            print("%-62s %12.0f %12.0f %8.2f" % (title, mine, theirs, mine / theirs))
    finally:
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
