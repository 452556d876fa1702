"""Streaming training of an MLP digit classifier, TF1 style, on the embedded digits CSV.

A producer subgraph streams the CSV through queue runners -- filenames queue ->
TextLineReader -> decode_csv -> shuffle_batch -- while the consumer run trains a
64-128-10 MLP with Adam on the batches it dequeues; both share the session's queues.
Checkpoints are written periodically; the job stops cleanly when the epochs run out
(the input queue closes and the dequeue raises OutOfRangeError).

    python -m pipelines.digits_mlp                      # threads (classic TF1)
    python -m pipelines.digits_mlp --runners async      # trio tasks + await sess.arun
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
from tqdm import tqdm

import flowrt as fr

DATA = Path(__file__).parent / "data"
N_PIXELS, N_CLASSES = 64, 10


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--learning-rate", type=float, default=0.003)
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--checkpoint-dir", default="checkpoints/digits_mlp")
    p.add_argument("--checkpoint-every", type=int, default=200, help="steps")
    p.add_argument("--train-csv", default=str(DATA / "digits_train.csv"))
    p.add_argument("--test-csv", default=str(DATA / "digits_test.csv"))
    p.add_argument("--runners", choices=["threads", "async"], default="threads",
                   help="queue runners as Python threads, or as trio tasks using arun")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return p.parse_args(argv)


def input_pipeline(csv_path, batch_size, epochs, seed, lines_per_read=64):
    """The producer subgraph: shuffled (images, labels) batches streamed from the CSV.

    Lines are read and decoded ``lines_per_read`` at a time (``read_up_to`` +
    ``enqueue_many``), as TF1's input-pipeline guide recommends: per-example runs
    would spend their time on per-run overhead rather than on data.
    """
    with fr.name_scope("input"):
        files = fr.train.string_input_producer([csv_path], num_epochs=epochs, shuffle=False)
        _, lines = fr.TextLineReader(skip_header_lines=1).read_up_to(files, lines_per_read)
        fields = fr.decode_csv(lines, record_defaults=[[0]] + [[0.0]] * N_PIXELS)
        images = fr.stack(fields[1:], axis=1) / 16.0
        labels = fields[0]
        return fr.train.shuffle_batch([images, labels], batch_size=batch_size,
                                      capacity=40 * batch_size,
                                      min_after_dequeue=10 * batch_size, num_threads=2,
                                      seed=seed, enqueue_many=True,
                                      allow_smaller_final_batch=True)


def model(images, hidden):
    """A 64-hidden-10 MLP; returns logits."""
    with fr.variable_scope("mlp"):
        w1 = fr.get_variable("w1", [N_PIXELS, hidden])
        b1 = fr.get_variable("b1", [hidden], initializer=fr.zeros_initializer())
        w2 = fr.get_variable("w2", [hidden, N_CLASSES])
        b2 = fr.get_variable("b2", [N_CLASSES], initializer=fr.zeros_initializer())
        h = fr.nn.relu(fr.matmul(images, w1) + b1)
        return fr.matmul(h, w2) + b2


def load_csv(path):
    data = np.loadtxt(path, delimiter=",", skiprows=1, dtype=np.float32)
    return data[:, 1:] / 16.0, data[:, 0].astype(np.int32)


class Job:
    """The graph of one training job: producer, consumer, evaluation, checkpoints."""

    def __init__(self, args):
        self.args = args
        fr.set_random_seed(args.seed)
        images, labels = input_pipeline(args.train_csv, args.batch_size, args.epochs,
                                        args.seed)
        with fr.variable_scope("model"):
            logits = model(images, args.hidden)
        self.loss = fr.reduce_mean(fr.nn.sparse_softmax_cross_entropy_with_logits(
            labels=labels, logits=logits))
        self.global_step = fr.train.get_or_create_global_step()
        self.train_op = fr.train.AdamOptimizer(args.learning_rate).minimize(
            self.loss, global_step=self.global_step)
        self.batch_len = fr.shape(labels)[0]
        # Evaluation reuses the same weights on fed test data.
        self.eval_x = fr.placeholder(fr.float32, [None, N_PIXELS], name="eval_x")
        self.eval_y = fr.placeholder(fr.int32, [None], name="eval_y")
        with fr.variable_scope("model", reuse=True):
            eval_logits = model(self.eval_x, args.hidden)
        self.accuracy = fr.reduce_mean(fr.cast(fr.equal(
            fr.cast(fr.argmax(eval_logits, 1), fr.int32), self.eval_y), fr.float32))
        self.init = fr.group(fr.global_variables_initializer(),
                             fr.local_variables_initializer())
        self.saver = fr.train.Saver(max_to_keep=3)
        self.ckpt_prefix = os.path.join(args.checkpoint_dir, "model.ckpt")
        os.makedirs(args.checkpoint_dir, exist_ok=True)
        self.progress = tqdm(unit="ex", disable=args.quiet, dynamic_ncols=True,
                             desc="train", file=sys.stdout)
        self.examples = 0
        self.last_loss = float("nan")
        self.started = time.perf_counter()

    def after_step(self, loss, n, step) -> bool:
        """Updates the progress bar; True when a checkpoint is due."""
        self.examples += int(n)
        self.last_loss = float(loss)
        self.progress.update(int(n))
        rate = self.examples / max(time.perf_counter() - self.started, 1e-9)
        self.progress.set_postfix(loss="%.4f" % loss, ex_s="%.0f" % rate, step=int(step),
                                  refresh=False)
        return step % self.args.checkpoint_every == 0

    def save(self, sess, step):
        self.saver.save(sess, self.ckpt_prefix, global_step=int(step))

    def finish(self, sess):
        self.progress.close()
        step = int(sess.run(self.global_step))
        path = self.saver.save(sess, self.ckpt_prefix, global_step=step)
        x, y = load_csv(self.args.test_csv)
        acc = float(sess.run(self.accuracy, {self.eval_x: x, self.eval_y: y}))
        secs = time.perf_counter() - self.started
        print("done: %d steps, %d examples in %.1f s (%.0f examples/s), final loss %.4f, "
              "test accuracy %.3f, checkpoint %s"
              % (step, self.examples, secs, self.examples / max(secs, 1e-9), self.last_loss,
                 acc, path))
        return acc


# The runners and the training loop are the parallelism; BLAS threads on top of them
# only contend for the cores (see fr.ConfigProto).
CONFIG = fr.ConfigProto(intra_op_parallelism_threads=1)


def train_with_threads(job):
    with fr.Session(config=CONFIG) as sess:
        sess.run(job.init)
        coord = fr.train.Coordinator()
        threads = fr.train.start_queue_runners(sess=sess, coord=coord)
        try:
            while not coord.should_stop():
                _, loss, n, step = sess.run([job.train_op, job.loss, job.batch_len,
                                             job.global_step])
                if job.after_step(loss, n, step):
                    job.save(sess, step)
        except fr.errors.OutOfRangeError:
            pass  # the epochs are done: the input queue closed and drained
        finally:
            coord.request_stop()
            coord.join(threads)
        return job.finish(sess)


async def train_with_tasks(job):
    import trio

    async with fr.Session(config=CONFIG) as sess:
        await sess.arun(job.init)
        async with fr.train.queue_runners(sess):
            try:
                while True:
                    _, loss, n, step = await sess.arun([job.train_op, job.loss,
                                                        job.batch_len, job.global_step])
                    if job.after_step(loss, n, step):
                        # Saver is synchronous: run it off the loop (sess.run works from
                        # any thread while the loop serves the producers).
                        await trio.to_thread.run_sync(job.save, sess, step)
            except fr.errors.OutOfRangeError:
                pass  # the epochs are done
        return await trio.to_thread.run_sync(job.finish, sess)


def main(argv=None):
    args = parse_args(argv)
    with fr.Graph().as_default():
        job = Job(args)
        if args.runners == "threads":
            return train_with_threads(job)
        import trio

        return trio.run(train_with_tasks, job)


if __name__ == "__main__":
    main()
