"""Streaming training of an MLP digit classifier, TF1 style, on the embedded digits CSV.

A producer subgraph streams the CSV through queue runners -- filenames queue ->
TextLineReader -> decode_csv -> shuffle_batch -- while the training loop runs under
``fr.train.MonitoredTrainingSession``: it restores the latest checkpoint of
``--checkpoint-dir`` (the global step continues; ``--fresh`` starts over), saves
checkpoints every ``--checkpoint-every`` steps and at the end, and stops cleanly when
the epochs run out (the input queue closes and the dequeue raises OutOfRangeError).
Ctrl-C stops at the end of the current step and saves a checkpoint before exiting.

    python -m pipelines.digits_mlp                      # threads (classic TF1)
    python -m pipelines.digits_mlp --runners async      # trio tasks + await sess.arun
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from pathlib import Path

import numpy as np
from tqdm import tqdm

import flowrt as fr

DATA = Path(__file__).parent / "data"
N_PIXELS, N_CLASSES = 64, 10


def parse_args(argv=None):
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    p.add_argument(
        "--epochs",
        type=int,
        default=30,
        help="epochs in total (a resumed run trains the epochs left)",
    )
    p.add_argument("--batch-size", type=int, default=64, help="examples per step")
    p.add_argument("--learning-rate", type=float, default=0.003, help="Adam's rate")
    p.add_argument("--hidden", type=int, default=128, help="hidden units")
    p.add_argument(
        "--checkpoint-dir",
        default="checkpoints/digits_mlp",
        help="where checkpoints and summaries go, and are resumed from",
    )
    p.add_argument(
        "--fresh",
        action="store_true",
        help="delete the checkpoints in --checkpoint-dir and start over",
    )
    p.add_argument("--checkpoint-every", type=int, default=200, help="steps between checkpoints")
    p.add_argument(
        "--eval-every",
        type=int,
        default=50,
        help="steps between test-set evaluations shown in the progress bar",
    )
    p.add_argument("--train-csv", default=str(DATA / "digits_train.csv"), help="training data")
    p.add_argument("--test-csv", default=str(DATA / "digits_test.csv"), help="test data")
    p.add_argument(
        "--runners",
        choices=["threads", "async"],
        default="threads",
        help="queue runners as Python threads, or as trio tasks using arun",
    )
    p.add_argument("--seed", type=int, default=0, help="graph-level random seed")
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


def count_rows(path) -> int:
    with open(path) as f:
        return sum(1 for _ in f) - 1  # minus the header


def saved_step(checkpoint_dir) -> int:
    """The global step of the directory's latest checkpoint (0 if none)."""
    latest = fr.train.latest_checkpoint(checkpoint_dir)
    if latest is None:
        return 0
    return int(fr.train.load_variable(latest, "global_step"))


def clear_checkpoints(checkpoint_dir):
    """Deletes what this job writes in ``checkpoint_dir`` (nothing else)."""
    if not os.path.isdir(checkpoint_dir):
        return
    for name in os.listdir(checkpoint_dir):
        if name == "checkpoint" or name.startswith(("model.ckpt-", "events.out.tfevents.")):
            os.remove(os.path.join(checkpoint_dir, name))


class Job:
    """The graph of one training job: producer, consumer, evaluation, hooks."""

    def __init__(self, args):
        self.args = args
        if args.fresh:
            clear_checkpoints(args.checkpoint_dir)
        self.rows = count_rows(args.train_csv)
        self.start_step = saved_step(args.checkpoint_dir)
        # A resumed run trains the epochs not yet completed; an interrupted epoch is read
        # again from its start.
        done_epochs = self.start_step * args.batch_size // self.rows
        self.epochs = max(args.epochs - done_epochs, 0)
        fr.set_random_seed(args.seed)
        images, labels = input_pipeline(
            args.train_csv, args.batch_size, max(self.epochs, 1), args.seed
        )
        with fr.variable_scope("model"):
            logits = model(images, args.hidden)
        self.loss = fr.reduce_mean(
            fr.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
        )
        fr.summary.scalar("loss", self.loss)
        self.global_step = fr.train.get_or_create_global_step()
        self.train_op = fr.train.AdamOptimizer(args.learning_rate).minimize(
            self.loss, global_step=self.global_step
        )
        self.batch_len = fr.shape(labels)[0]
        # Evaluation reuses the same weights on fed test data.
        self.eval_x = fr.placeholder(fr.float32, [None, N_PIXELS], name="eval_x")
        self.eval_y = fr.placeholder(fr.int32, [None], name="eval_y")
        with fr.variable_scope("model", reuse=True):
            eval_logits = model(self.eval_x, args.hidden)
        self.accuracy = fr.reduce_mean(
            fr.cast(fr.equal(fr.cast(fr.argmax(eval_logits, 1), fr.int32), self.eval_y), fr.float32)
        )
        self.scaffold = fr.train.Scaffold(saver=fr.train.Saver(max_to_keep=3))
        self.progress = ProgressHook(self)
        self.interrupted = False

    def session(self):
        """The MonitoredTrainingSession (the async form when called inside trio)."""
        saver_hook = fr.train.CheckpointSaverHook(
            self.args.checkpoint_dir,
            save_steps=self.args.checkpoint_every,
            scaffold=self.scaffold,
            listeners=[self.progress.listener],
        )
        return fr.train.MonitoredTrainingSession(
            checkpoint_dir=self.args.checkpoint_dir,
            scaffold=self.scaffold,
            save_checkpoint_steps=None,
            save_checkpoint_secs=None,
            save_summaries_steps=100,
            log_step_count_steps=None,
            chief_only_hooks=[saver_hook],
            hooks=[self.progress],
            config=CONFIG,
        )

    def evaluate(self, sess) -> float:
        x, y = load_csv(self.args.test_csv)
        return float(sess.run(self.accuracy, {self.eval_x: x, self.eval_y: y}))

    def report(self):
        p = self.progress
        secs = time.perf_counter() - p.started
        latest = fr.train.latest_checkpoint(self.args.checkpoint_dir)
        how = "interrupted" if self.interrupted else "done"
        print(
            "%s: %d steps, %d examples in %.1f s (%.0f examples/s), final loss %.4f, "
            "test accuracy %.3f, checkpoint %s"
            % (
                how,
                p.step,
                p.examples,
                secs,
                p.examples / max(secs, 1e-9),
                p.last_loss,
                p.accuracy,
                latest,
            ),
            flush=True,
        )
        return p.accuracy


class ProgressHook(fr.train.SessionRunHook):
    """The progress bar (examples, total, ETA, loss, latest test accuracy)."""

    def __init__(self, job):
        self.job = job
        self.examples = 0
        self.step = job.start_step
        self.last_loss = float("nan")
        self.accuracy = float("nan")
        self.bar = None
        self.started = time.perf_counter()
        self.saved = None
        self.listener = _SavedListener(self)

    def after_create_session(self, session, coord):
        self.step = int(session.run(self.job.global_step))
        resumed = " (resumed from %s)" % self.job.args.checkpoint_dir if self.step else ""
        print(
            "training from step %d%s: %d epochs of %d examples"
            % (self.step, resumed, self.job.epochs, self.job.rows),
            flush=True,
        )
        self.bar = tqdm(
            total=self.job.epochs * self.job.rows,
            unit="ex",
            disable=self.job.args.quiet,
            dynamic_ncols=True,
            desc="train",
            file=sys.stdout,
        )

    def before_run(self, run_context):
        return fr.train.SessionRunArgs(
            {"loss": self.job.loss, "n": self.job.batch_len, "step": self.job.global_step}
        )

    def after_run(self, run_context, run_values):
        r = run_values.results
        self.examples += int(r["n"])
        self.last_loss = float(r["loss"])
        self.step = int(r["step"]) + 1
        self.bar.update(int(r["n"]))
        if self.step % self.job.args.eval_every == 0:
            self.accuracy = self.job.evaluate(run_context.session)
        self.bar.set_postfix(
            loss="%.4f" % self.last_loss,
            acc="%.3f" % self.accuracy,
            step=self.step,
            saved=self.saved,
            refresh=False,
        )

    def end(self, session):
        self.accuracy = self.job.evaluate(session)
        self.step = int(session.run(self.job.global_step))
        if self.bar is not None:
            self.bar.close()


class _SavedListener(fr.train.CheckpointSaverListener):
    """Shows the last saved step in the bar; with --quiet, logs each save on stdout."""

    def __init__(self, progress):
        self.progress = progress

    def after_save(self, session, global_step_value):
        self.progress.saved = int(global_step_value)
        if self.progress.job.args.quiet:
            print("checkpoint saved at step %d" % global_step_value, flush=True)


# The runners and the training loop are the parallelism; BLAS threads on top of them
# only contend for the cores (see fr.ConfigProto).
CONFIG = fr.ConfigProto(intra_op_parallelism_threads=1)


class StopOnSigint:
    """Turns the first Ctrl-C into a request to stop after the current step (the session
    then closes cleanly and saves a checkpoint); a second one interrupts at once."""

    def __init__(self):
        self.requested = False

    def _handler(self, signum, frame):
        self.requested = True
        signal.signal(signal.SIGINT, signal.default_int_handler)

    def __enter__(self):
        self._old = signal.signal(signal.SIGINT, self._handler)
        return self

    def __exit__(self, *exc):
        signal.signal(signal.SIGINT, self._old)


def train_with_threads(job):
    with StopOnSigint() as sigint, job.session() as sess:
        while job.epochs and not sess.should_stop() and not sigint.requested:
            sess.run(job.train_op)
    job.interrupted = sigint.requested
    return job.report()


async def train_with_tasks(job):
    with StopOnSigint() as sigint:
        async with job.session() as sess:
            while job.epochs and not sess.should_stop() and not sigint.requested:
                await sess.arun(job.train_op)
    job.interrupted = sigint.requested
    return job.report()


def main(argv=None):
    args = parse_args(argv)
    with fr.Graph().as_default():
        job = Job(args)
        if args.runners == "threads":
            acc = train_with_threads(job)
        else:
            import trio

            acc = trio.run(train_with_tasks, job)
    if job.interrupted and __name__ == "__main__":
        sys.exit(130)  # as a shell reports a job ended by SIGINT
    return acc


if __name__ == "__main__":
    main()
