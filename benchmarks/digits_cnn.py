"""The TFRecord-to-conv-net pipeline of pipelines/digits_cnn.py: flowrt vs TensorFlow 2.21.

  python benchmarks/digits_cnn.py [--no-tf] [--runs N] [--epochs N]

* pipeline: the job's graph written once as a TF1 program (its layers as tf.nn ops) and
  run with ``tf = flowrt`` and with ``tf = tensorflow.compat.v1``, alternating, in one
  process: the digits' TFRecord shards (written by flowrt) -> ``string_input_producer``
  -> ``TFRecordReader.read_up_to(64)`` -> ``parse_example`` -> ``decode_raw`` ->
  ``shuffle_batch(enqueue_many=True, num_threads=2)``, batch 32 -> conv 3x3x16 SAME ->
  max pool -> conv 3x3x32 -> flatten -> dense 64 -> 10, Adam, until the epochs run out.
  Examples/s per run, then the median.
* job: ``python -m pipelines.digits_cnn --quiet`` (default options): the examples/s and
  test accuracy it reports, which include its evaluations, hooks and checkpoints.

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

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from benchmarks.pipeline import examples_per_second  # noqa: E402
from pipelines import digits_cnn  # noqa: E402

BATCH = 32


def conv_relu(tf, x, name, c_in, c_out):
    """``tf.layers.conv2d(x, c_out, 3, padding="same", activation=relu)`` in tf.nn terms
    (TF 2.21's compat.v1 layers need Keras 2, which its wheel does not bring)."""
    with tf.variable_scope(name):
        k = tf.get_variable("kernel", [3, 3, c_in, c_out])
        b = tf.get_variable("bias", [c_out], initializer=tf.zeros_initializer())
        return tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, k, [1, 1, 1, 1], "SAME"), b))


def dense(tf, x, name, n_in, n_out):
    with tf.variable_scope(name):
        w = tf.get_variable("kernel", [n_in, n_out])
        b = tf.get_variable("bias", [n_out], initializer=tf.zeros_initializer())
        return tf.matmul(x, w) + b


def train_op(tf, paths, epochs):
    """The job's graph as a TF1 program; returns (train op, batch length)."""
    files = tf.train.string_input_producer(paths, num_epochs=epochs, shuffle=True, seed=1)
    _, serialized = tf.TFRecordReader().read_up_to(files, 64)
    parsed = tf.parse_example(
        serialized,
        {"image_raw": tf.FixedLenFeature([], tf.string), "label": tf.FixedLenFeature([], tf.int64)},
    )
    pixels = tf.cast(tf.decode_raw(parsed["image_raw"], tf.uint8), tf.float32) / 16.0
    images, labels = tf.train.shuffle_batch(
        [tf.reshape(pixels, [-1, 8, 8, 1]), parsed["label"]],
        batch_size=BATCH,
        capacity=40 * BATCH,
        min_after_dequeue=10 * BATCH,
        num_threads=2,
        seed=2,
        enqueue_many=True,
        allow_smaller_final_batch=True,
    )
    h = conv_relu(tf, images, "conv1", 1, 16)
    h = tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    h = tf.reshape(conv_relu(tf, h, "conv2", 16, 32), [-1, 4 * 4 * 32])
    h = tf.nn.relu(dense(tf, h, "dense", 4 * 4 * 32, 64))
    logits = dense(tf, h, "logits", 64, 10)
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
    return tf.train.AdamOptimizer(0.003).minimize(loss), tf.shape(labels)[0]


def run_pipeline(tf, paths, epochs) -> float:
    """Examples/s trained on until the epochs run out."""
    with tf.Graph().as_default():
        tf.set_random_seed(0)
        return examples_per_second(tf, train_op(tf, paths, epochs))


def job_figures() -> tuple[float, float]:
    """(examples/s, test accuracy) as ``python -m pipelines.digits_cnn --quiet`` reports."""
    with tempfile.TemporaryDirectory() as ckpt:
        out = subprocess.run(
            [sys.executable, "-m", "pipelines.digits_cnn", "--quiet", "--checkpoint-dir", ckpt],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    m = re.search(r"\(([0-9.]+) examples/s\).*test accuracy ([0-9.]+)", out)
    return float(m.group(1)), float(m.group(2))


def main():
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    p.add_argument("--no-tf", action="store_true", help="flowrt only")
    p.add_argument("--runs", type=int, default=3, help="timed runs per framework")
    p.add_argument("--epochs", type=int, default=4, help="epochs per pipeline run")
    args = p.parse_args()
    import flowrt

    backends = [("flowrt", flowrt)]
    if not args.no_tf:
        try:
            import tensorflow.compat.v1 as tf

            tf.disable_eager_execution()
            tf.logging.set_verbosity(tf.logging.ERROR)
            backends.append(("tensorflow %s" % tf.__version__, tf))
        except ImportError:
            print("(tensorflow not importable: flowrt only)")
    with tempfile.TemporaryDirectory() as data:
        paths = digits_cnn.shard_paths(data, "train", 4)
        digits_cnn.write_records(digits_cnn.DATA / "digits_train.csv", paths)
        figures = {name: [] for name, _ in backends}
        for _, tf in backends:  # warm-up
            run_pipeline(tf, paths, 1)
        for _ in range(args.runs):
            for name, tf in backends:
                figures[name].append(run_pipeline(tf, paths, args.epochs))
    print("pipeline (TFRecord -> parse_example -> shuffle_batch -> conv net), examples/s:")
    for name, runs in figures.items():
        print(
            "  %-22s %s   median %.0f"
            % (name, " ".join("%.0f" % f for f in runs), statistics.median(runs))
        )
    if len(figures) == 2:
        a, b = (statistics.median(r) for r in figures.values())
        print("  flowrt / tensorflow: %.2f" % (a / b))
    rate, acc = job_figures()
    print(
        "job (python -m pipelines.digits_cnn --quiet): %.0f examples/s, test accuracy %.3f"
        % (rate, acc)
    )


if __name__ == "__main__":
    main()
