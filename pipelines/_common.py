"""What the pipeline jobs share: the CLI conventions, resuming, the progress bar, Ctrl-C.

Summaries (loss, test accuracy, the input queues' fill, examples/s) and the graph go to
``--logdir`` for TensorBoard; ``--trace-steps N`` adds N steps' run metadata there and
writes them as a Chrome trace (``pipelines/trace.py``).

A job subclasses ``TrainingJob``: its ``__init__`` builds the producer subgraph and the
model, then calls ``build_training(loss, labels)``; it defines ``evaluate(sess)`` (test
accuracy). ``run(Job, args)`` builds and trains it with thread or trio-task queue runners under
``fr.train.MonitoredTrainingSession`` and prints one summary line.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from pathlib import Path

import numpy as np

import flowrt as fr
from flowrt._core import extras
from pipelines.trace import TraceHook

tqdm = extras.require("tqdm", "jobs", "The jobs' progress bar").tqdm

DATA = Path(__file__).parent / "data"

# The runners and the training loop are the parallelism; BLAS threads on top of them
# only contend for the cores (see fr.ConfigProto).
CONFIG = fr.ConfigProto(intra_op_parallelism_threads=1)


def positive_int(text: str) -> int:
    """An argparse type: an integer of at least 1."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1, got %d" % value)
    return value


class _HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows every option's default, after its help unless the help says it already."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if "(default:" in (action.help or ""):
            return action.help
        return super()._get_help_string(action)


def base_parser(
    description: str,
    *,
    name: str,
    epochs: int,
    batch_size: int,
    learning_rate: float,
    checkpoint_every: int,
    eval_every: int,
) -> argparse.ArgumentParser:
    """The options every job has, with the job's defaults (all shown by ``--help``).

    Args:
      description: the first line of the job's docstring.
      name: the job's name; the default checkpoint directory is ``checkpoints/<name>``.
      epochs, batch_size, learning_rate, checkpoint_every, eval_every: the defaults of
        ``--epochs``, ``--batch-size``, ``--learning-rate``, ``--checkpoint-every`` and
        ``--eval-every``.

    Returns:
      A parser the job may add its own options to.
    """
    p = argparse.ArgumentParser(
        prog="python -m pipelines." + name, description=description, formatter_class=_HelpFormatter
    )
    p.add_argument(
        "--epochs",
        type=int,
        default=epochs,
        help="epochs in total (a resumed run trains the epochs left)",
    )
    p.add_argument("--batch-size", type=positive_int, default=batch_size, help="examples per step")
    p.add_argument("--learning-rate", type=float, default=learning_rate, help="Adam's rate")
    p.add_argument(
        "--checkpoint-dir",
        default="checkpoints/" + name,
        help="where checkpoints go, and are resumed from",
    )
    p.add_argument(
        "--fresh",
        action="store_true",
        help="delete the checkpoints in --checkpoint-dir (and the event files in --logdir) "
        "and start over",
    )
    p.add_argument(
        "--logdir",
        default="logs/" + name,
        help="where summaries (loss, accuracy, queue fill, examples/s) and the graph go, "
        "for TensorBoard",
    )
    p.add_argument("--summary-every", type=positive_int, default=20, help="steps between summaries")
    p.add_argument(
        "--trace-steps",
        type=int,
        default=0,
        metavar="N",
        help="trace N steps (after the first): their run metadata goes to --logdir and a "
        "Chrome trace to <logdir>/trace.json",
    )
    p.add_argument(
        "--checkpoint-every",
        type=positive_int,
        default=checkpoint_every,
        help="steps between checkpoints",
    )
    p.add_argument(
        "--eval-every",
        type=positive_int,
        default=eval_every,
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
    return p


def load_csv(path) -> tuple[np.ndarray, np.ndarray]:
    """A digits CSV as ``(pixels / 16 float32 [n, 64], labels int32 [n])``."""
    data = np.loadtxt(path, delimiter=",", skiprows=1, dtype=np.float32)
    return data[:, 1:] / 16.0, data[:, 0].astype(np.int32)


def count_rows(path) -> int:
    """The examples in a digits CSV (its lines minus the header)."""
    with open(path) as f:
        return sum(1 for _ in f) - 1


def saved_step(checkpoint_dir) -> int:
    """The global step of the directory's latest checkpoint (0 if none).

    A checkpoint the job cannot read (damaged, or an older flowrt's format) is a
    ``DataLossError`` that says so and that ``--fresh`` starts over.
    """
    latest = fr.train.latest_checkpoint(checkpoint_dir)
    if latest is None:
        return 0
    try:
        return int(fr.train.load_variable(latest, "global_step"))
    except fr.errors.DataLossError as e:
        raise fr.errors.DataLossError(
            None, None, "%s (or run the job with --fresh to start over)" % e.message
        ) from None


def clear_checkpoints(checkpoint_dir) -> None:
    """Deletes what a job writes in ``checkpoint_dir`` (nothing else)."""
    if not os.path.isdir(checkpoint_dir):
        return
    for name in os.listdir(checkpoint_dir):
        if name == "checkpoint" or name.startswith(("model.ckpt-", "events.out.tfevents.")):
            os.remove(os.path.join(checkpoint_dir, name))


class TrainingJob:
    """The graph of one training job: producer, consumer, evaluation, hooks.

    Args:
      args: the parsed options (``base_parser``'s at least).
      rows: the examples in one epoch.
    """

    def __init__(self, args: argparse.Namespace, rows: int):
        self.args = args
        if args.fresh:
            clear_checkpoints(args.checkpoint_dir)
            clear_checkpoints(args.logdir)
        if rows < 1:
            raise ValueError("no training examples in %s" % args.train_csv)
        self.rows = rows
        self.start_step = saved_step(args.checkpoint_dir)
        # A resumed run trains the epochs not yet completed; an interrupted epoch is read
        # again from its start.
        done_epochs = self.start_step * args.batch_size // self.rows
        self.epochs = max(args.epochs - done_epochs, 0)
        self.interrupted = False
        # The trainer's session target: '' (this process), or with producer processes
        # (``--producers``) its task on the cluster; such a job also sets ``produce``,
        # ``produce_args`` and ``close_input`` (``pipelines/scale_out.py``).
        self.master = ""
        fr.set_random_seed(args.seed)

    def build_training(self, loss: fr.Tensor, labels: fr.Tensor) -> None:
        """Adds the loss summary, the global step, Adam's train op, the saver and the
        progress hook; ``labels`` is the training batch's (its length counts examples)."""
        self.loss = loss
        fr.summary.scalar("loss", loss)
        self.global_step = fr.train.get_or_create_global_step()
        self.train_op = fr.train.AdamOptimizer(self.args.learning_rate).minimize(
            loss, global_step=self.global_step
        )
        self.batch_len = fr.shape(labels)[0]
        self.scaffold = fr.train.Scaffold(saver=fr.train.Saver(max_to_keep=3))
        self.progress = ProgressHook(self)
        self.trace = TraceHook(self) if self.args.trace_steps > 0 else None

    def evaluate(self, sess) -> float:
        """The test-set accuracy with the current weights."""
        raise NotImplementedError

    def session(self):
        """The MonitoredTrainingSession (the async form when entered inside trio)."""
        saver_hook = fr.train.CheckpointSaverHook(
            self.args.checkpoint_dir,
            save_steps=self.args.checkpoint_every,
            scaffold=self.scaffold,
            listeners=[self.progress.listener],
        )
        return fr.train.MonitoredTrainingSession(
            master=self.master,
            checkpoint_dir=self.args.checkpoint_dir,
            scaffold=self.scaffold,
            save_checkpoint_steps=None,
            save_checkpoint_secs=None,
            save_summaries_steps=self.args.summary_every,
            summary_dir=self.args.logdir,
            log_step_count_steps=None,
            chief_only_hooks=[saver_hook],
            hooks=[self.progress] + ([self.trace] if self.trace else []),
            config=CONFIG,
        )

    def report(self) -> float:
        """Prints the summary line; returns the final test accuracy.

        The rate is the training's from the end of the first step on, as the progress
        bar shows it; the set-up before it (building the graph, creating the session,
        the first step with its one-off kernel compilation) is timed separately.
        """
        p = self.progress
        latest = fr.train.latest_checkpoint(self.args.checkpoint_dir)
        how = "interrupted" if self.interrupted else "done"
        if p.examples:
            train_secs = p.last_at - p.first_at
            rate = (
                "%.0f examples/s" % ((p.examples - p.first_examples) / train_secs)
                if train_secs > 0
                else "- examples/s (one step)"
            )
            timing = "%s in %.1f s after the first step, set-up %.1f s, final loss %.4f" % (
                rate,
                train_secs,
                p.first_at - p.started,
                p.last_loss,
            )
        else:  # stopped (Ctrl-C) before its first step
            timing = "no step ran"
        print(
            "%s: %d steps, %d examples, %s, test accuracy %.3f, checkpoint %s"
            % (how, p.step, p.examples, timing, p.accuracy, latest),
            flush=True,
        )
        return p.accuracy

    def report_finished(self) -> float:
        """For a run with no epochs left: says so and how to train more or start over
        (no session of the training is created); returns the checkpoint's test
        accuracy."""
        latest = fr.train.latest_checkpoint(self.args.checkpoint_dir)
        with fr.Session(config=CONFIG) as sess:
            if latest is None:  # --epochs 0 on a fresh start
                sess.run(fr.global_variables_initializer())
            else:
                self.scaffold.saver.restore(sess, latest)
            accuracy = self.evaluate(sess)
        print(
            "all epochs done (--epochs %d, step %d, test accuracy %.3f, checkpoint %s): "
            "--epochs N with N > %d trains on to N epochs, --fresh starts over"
            % (self.args.epochs, self.start_step, accuracy, latest, self.args.epochs),
            flush=True,
        )
        return accuracy


class ProgressHook(fr.train.SessionRunHook):
    """The progress bar (examples, total, ETA, loss, latest test accuracy)."""

    def __init__(self, job: TrainingJob):
        self.job = job
        self.examples = 0
        self.step = job.start_step
        self.last_loss = float("nan")
        self.accuracy = float("nan")
        self.bar = None
        self.started = time.perf_counter()
        # When the first and the last step of this run ended, and the examples of the
        # first: the training rate is timed from the first step's end (report()).
        self.first_at = self.last_at = self.started
        self.first_examples = 0
        self.saved = None
        self.listener = _SavedListener(self)
        self.writer = None
        self._rate_from = (self.started, 0)  # (time, examples) of the last examples/s

    def restart_clock(self) -> None:
        """Times the set-up from now (a cluster's start before it not counted)."""
        self.started = time.perf_counter()

    def begin(self):
        # MonitoredTrainingSession's summary hook shares this writer (and wrote the graph).
        self.writer = fr.summary.FileWriterCache.get(self.job.args.logdir)

    def _scalar(self, tag, value, step):
        self.writer.add_summary(
            fr.summary.Summary(value=[fr.summary.Summary.Value(tag=tag, simple_value=value)]),
            step,
        )

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
        first = not self.examples
        self.examples += int(r["n"])
        self.last_loss = float(r["loss"])
        self.last_at = time.perf_counter()
        if first:  # the set-up ends here; the rates are the training's from now on
            self.first_at, self.first_examples = self.last_at, self.examples
            self._rate_from = (self.last_at, self.examples)
        self.step = int(r["step"]) + 1
        self.bar.update(int(r["n"]))
        if self.step % self.job.args.eval_every == 0:
            self.accuracy = self.job.evaluate(run_context.session)
            self._scalar("accuracy", self.accuracy, self.step)
        if self.step % self.job.args.summary_every == 0:
            now, (then, before) = time.perf_counter(), self._rate_from
            rate = (self.examples - before) / max(now - then, 1e-9)
            self._scalar("examples_per_sec", rate, self.step)
            self._rate_from = (now, self.examples)
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
        self._scalar("accuracy", self.accuracy, self.step)
        self.writer.flush()
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


def train_with_threads(job: TrainingJob) -> float:
    """Trains with thread queue runners and ``sess.run``; returns the test accuracy."""
    with StopOnSigint() as sigint, job.session() as sess:
        while job.epochs and not sess.should_stop() and not sigint.requested:
            sess.run(job.train_op)
    job.interrupted = sigint.requested
    return job.report()


async def train_with_tasks(job: TrainingJob) -> float:
    """Trains with trio-task queue runners and ``await sess.arun``; returns the test
    accuracy."""
    with StopOnSigint() as sigint:
        async with job.session() as sess:
            while job.epochs and not sess.should_stop() and not sigint.requested:
                await sess.arun(job.train_op)
    job.interrupted = sigint.requested
    return job.report()


def _train(job: TrainingJob) -> float:
    if job.args.runners == "threads":
        return train_with_threads(job)
    import trio

    return trio.run(train_with_tasks, job)


def run(
    job_class: type[TrainingJob], args: argparse.Namespace, *, exit_on_interrupt: bool
) -> float:
    """Builds ``job_class(args)`` in a new graph and trains it with the runners
    ``--runners`` names (and with ``--producers N``, N producer processes feeding it
    through a queue on a ps task: ``pipelines/scale_out.py``); returns the final test
    accuracy.

    With ``exit_on_interrupt`` (the job runs as a program), a Ctrl-C'd run exits with
    status 130 after its checkpoint is saved, as a shell reports a job ended by SIGINT.
    """
    with fr.Graph().as_default():
        job = job_class(args)
        if not job.epochs:
            return job.report_finished()
        if getattr(args, "producers", 0):
            from pipelines.scale_out import Producers

            started = time.perf_counter()
            with Producers(
                args.producers,
                job.epochs,
                job.produce,
                job.produce_args,
                job.close_input,
                args.ray_address,
            ) as producers:
                print(
                    "cluster up in %.1f s: the ps task and the trainer in this process, "
                    "%d producer processes" % (time.perf_counter() - started, args.producers),
                    flush=True,
                )
                job.master = producers.target
                job.progress.restart_clock()  # the set-up excludes the cluster's start
                acc = _train(job)
            producers.check()
        else:
            acc = _train(job)
    if job.interrupted and exit_on_interrupt:
        sys.exit(130)
    return acc
