"""Training a small conv net on the embedded digits, read as TFRecord files of tf.train.Example.

On its first run the job writes the digits CSVs as sharded TFRecord files of
``tf.train.Example`` (``image_raw``: the 64 pixels as bytes, ``label``: int64) into
``--data-dir``; later runs read the shards already there (a missing shard is written
again). A producer subgraph streams them through queue runners -- shard names queue ->
TFRecordReader.read_up_to -> parse_example -> decode_raw -> shuffle_batch -- into a conv
net (conv 3x3x16 SAME -> max pool -> conv 3x3x32 -> flatten -> dense -> 10) trained
under ``fr.train.MonitoredTrainingSession``, with digits_mlp's conventions: resume from
``--checkpoint-dir`` (``--fresh`` starts over), a checkpoint on Ctrl-C, a progress bar.

    python -m pipelines.digits_cnn                      # threads (classic TF1)
    python -m pipelines.digits_cnn --runners async      # trio tasks + await sess.arun
    python -m pipelines.digits_cnn --producers 2        # 2 producer processes, a ps queue

With ``--producers N`` the reading and parsing runs in N producer processes, worker
tasks of a cluster feeding a shuffling queue on a ps task that this process hosts and
trains from (``pipelines/scale_out.py``), as ``digits_mlp`` does.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import numpy as np

import flowrt as fr
from pipelines import scale_out
from pipelines._common import DATA, TrainingJob, base_parser, positive_int, run

SIDE, N_CLASSES = 8, 10
DEFAULT_DATA_DIR = "<checkpoint-dir>/data"
# Records a producer process reads and parses per run (--producers): larger than the
# threads' reads, since each run's enqueue crosses processes.
PRODUCER_RECORDS_PER_READ = 256
__all__ = [
    "DATA",
    "Job",
    "decode",
    "input_pipeline",
    "main",
    "model",
    "parse_args",
    "produce",
    "read_records",
    "shard_paths",
    "to_example",
    "write_records",
]
FEATURES = {
    "image_raw": fr.FixedLenFeature([], fr.string),
    "label": fr.FixedLenFeature([], fr.int64),
}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The job's options (``--data-dir`` resolved against ``--checkpoint-dir``)."""
    p = base_parser(
        __doc__.split("\n\n")[0],
        name="digits_cnn",
        epochs=10,
        batch_size=32,
        learning_rate=0.003,
        checkpoint_every=200,
        eval_every=50,
    )
    p.add_argument(
        "--data-dir",
        default=DEFAULT_DATA_DIR,
        help="where the TFRecord "
        "shards are written on first run and read from (a missing shard is "
        "written again; delete them to rewrite all)",
    )
    p.add_argument("--shards", type=positive_int, default=4, help="training shards to write")
    scale_out.add_options(p)
    args = p.parse_args(argv)
    if args.producers < 0:
        p.error("--producers must be at least 0, got %d" % args.producers)
    if args.data_dir == DEFAULT_DATA_DIR:
        args.data_dir = os.path.join(args.checkpoint_dir, "data")
    return args


def load_pixels(path) -> tuple[np.ndarray, np.ndarray]:
    """A digits CSV as ``(pixels uint8 [n, 64] in 0..16, labels int64 [n])``."""
    data = np.loadtxt(path, delimiter=",", skiprows=1, dtype=np.int64)
    return data[:, 1:].astype(np.uint8), data[:, 0]


def to_example(pixels: np.ndarray, label: int) -> fr.train.Example:
    """One digit as a ``tf.train.Example``: ``image_raw`` (64 bytes) and ``label``."""
    return fr.train.Example(
        features=fr.train.Features(
            feature={
                "image_raw": fr.train.Feature(
                    bytes_list=fr.train.BytesList(value=[pixels.tobytes()])
                ),
                "label": fr.train.Feature(int64_list=fr.train.Int64List(value=[int(label)])),
            }
        )
    )


def shard_paths(data_dir, split: str, shards: int) -> list[str]:
    """The shard files of a split: ``<split>-00000-of-00004.tfrecord`` and so on."""
    return [
        os.path.join(data_dir, "%s-%05d-of-%05d.tfrecord" % (split, i, shards))
        for i in range(shards)
    ]


def write_records(csv_path, paths: list[str]) -> int:
    """Writes the CSV's examples round-robin into the shards in ``paths`` that are missing.

    A shard is written to a temporary name and renamed when complete, so an interrupted
    first run leaves no partial shard behind. Returns the shards written.
    """
    missing = [i for i, p in enumerate(paths) if not os.path.exists(p)]
    if not missing:
        return 0
    pixels, labels = load_pixels(csv_path)
    Path(paths[0]).parent.mkdir(parents=True, exist_ok=True)
    for i in missing:
        tmp = paths[i] + ".tmp"
        with fr.python_io.TFRecordWriter(tmp) as writer:
            for j in range(i, len(labels), len(paths)):
                writer.write(to_example(pixels[j], labels[j]).SerializeToString())
        os.replace(tmp, paths[i])
    return len(missing)


def read_records(paths: list[str]) -> list[bytes]:
    """Every serialized record of the files, in order."""
    return [r for p in paths for r in fr.python_io.tf_record_iterator(p)]


def decode(serialized: fr.Tensor) -> tuple[fr.Tensor, fr.Tensor]:
    """Serialized Examples to ``(images float32 [n, 8, 8, 1] in 0..1, labels int64 [n])``."""
    parsed = fr.parse_example(serialized, FEATURES)
    pixels = fr.cast(fr.decode_raw(parsed["image_raw"], fr.uint8), fr.float32)
    return fr.reshape(pixels / 16.0, [-1, SIDE, SIDE, 1]), parsed["label"]


def input_pipeline(
    paths: list[str], batch_size: int, epochs: int, seed: int, records_per_read: int = 64
) -> list[fr.Tensor]:
    """The producer subgraph: shuffled (images, labels) batches streamed from the shards.

    Records are read and parsed ``records_per_read`` at a time (``read_up_to`` +
    ``enqueue_many``), as TF1's input-pipeline guide recommends.
    """
    with fr.name_scope("input"):
        files = fr.train.string_input_producer(paths, num_epochs=epochs, shuffle=True, seed=seed)
        _, serialized = fr.TFRecordReader().read_up_to(files, records_per_read)
        images, labels = decode(serialized)
        return fr.train.shuffle_batch(
            [images, labels],
            batch_size=batch_size,
            capacity=40 * batch_size,
            min_after_dequeue=10 * batch_size,
            num_threads=2,
            seed=seed,
            enqueue_many=True,
            allow_smaller_final_batch=True,
        )


def produce(
    state: dict,
    cluster: dict,
    index: int,
    epochs: int,
    paths: list[str],
    batch_size: int,
    seed: int,
) -> int:
    """A producer process (``--producers``): worker task ``index`` reads ``epochs``
    shuffled passes over the shards and enqueues the parsed examples into the ps queue;
    returns how many."""
    if not epochs:
        return 0
    server = fr.train.Server(cluster, "worker", index)
    with fr.Graph().as_default():
        fr.set_random_seed(seed)
        with fr.name_scope("input"):
            files = fr.train.string_input_producer(
                paths, num_epochs=epochs, shuffle=True, seed=seed + index
            )
            _, serialized = fr.TFRecordReader().read_up_to(files, PRODUCER_RECORDS_PER_READ)
            images, labels = decode(serialized)
            enqueue = scale_out.enqueue_examples([images, labels], batch_size, seed)
        return scale_out.run_producer(server, enqueue, fr.shape(labels)[0])


def model(images: fr.Tensor) -> fr.Tensor:
    """conv 3x3x16 SAME -> 2x2 max pool -> conv 3x3x32 SAME -> flatten -> dense 64 -> 10;
    returns logits."""
    h = fr.layers.conv2d(images, 16, 3, padding="same", activation=fr.nn.relu, name="conv1")
    h = fr.layers.max_pooling2d(h, 2, 2, name="pool1")
    h = fr.layers.conv2d(h, 32, 3, padding="same", activation=fr.nn.relu, name="conv2")
    h = fr.layers.dense(fr.layers.flatten(h), 64, activation=fr.nn.relu, name="dense")
    return fr.layers.dense(h, N_CLASSES, name="logits")


class Job(TrainingJob):
    """The conv net's training job: writes missing shards, then builds the producer,
    the model, the evaluation on the test records, and the hooks."""

    def __init__(self, args):
        self.train_paths = shard_paths(args.data_dir, "train", args.shards)
        self.test_paths = shard_paths(args.data_dir, "test", 1)
        self.written = write_records(args.train_csv, self.train_paths) + write_records(
            args.test_csv, self.test_paths
        )
        super().__init__(args, sum(1 for _ in read_records(self.train_paths)))
        if args.producers:
            # The producers run produce(); this process dequeues from the ps queue.
            with fr.name_scope("input"):
                (images, labels), self.close_input = scale_out.trainer_batches(
                    [fr.float32, fr.int64], [[SIDE, SIDE, 1], []], args.batch_size, args.seed
                )
            self.produce = produce
            self.produce_args = ([os.path.abspath(p) for p in self.train_paths],)
            self.produce_args += (args.batch_size, args.seed)
        else:
            images, labels = input_pipeline(
                self.train_paths, args.batch_size, max(self.epochs, 1), args.seed
            )
        with fr.variable_scope("model"):
            logits = model(images)
        self.build_training(fr.losses.sparse_softmax_cross_entropy(labels, logits), labels)
        # Evaluation parses the test records, fed serialized, with the same weights.
        self.eval_records = fr.placeholder(fr.string, [None], name="eval_records")
        eval_images, eval_labels = decode(self.eval_records)
        with fr.variable_scope("model", reuse=True):
            eval_logits = model(eval_images)
        self.accuracy = fr.reduce_mean(
            fr.cast(fr.equal(fr.argmax(eval_logits, 1), eval_labels), fr.float32)
        )
        self.test_records = read_records(self.test_paths)
        if self.written:
            print("wrote %d TFRecord shards to %s" % (self.written, args.data_dir), flush=True)

    def evaluate(self, sess) -> float:
        return float(sess.run(self.accuracy, {self.eval_records: self.test_records}))


def main(argv: list[str] | None = None) -> float:
    """Runs the job with ``argv``'s options; returns the final test accuracy."""
    return run(Job, parse_args(argv), exit_on_interrupt=__name__ == "__main__")


if __name__ == "__main__":
    main()
