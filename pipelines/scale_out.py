"""A job's producers as worker processes of a cluster: ``--producers N``.

The cluster, TF1 style: ``/job:ps/task:0`` holds the shuffling queue of examples (as
``shuffle_batch`` builds it, placed on the ps task and shared by name);
``/job:worker/task:0`` is the trainer, this process: its ``MonitoredTrainingSession``
runs on that task's target and dequeues its batches from the ps queue; worker tasks
``1..N`` are the producers, each a separate process (a Ray actor) running the job's
reading and decoding subgraph in a session of its own task and enqueueing into the ps
queue. The epochs are shared out among the producers; when the last producer is done
the trainer's side closes the queue, so training stops when it runs dry, as it does
when a single-process job's input runs out.

The ps task stays in the trainer's process, a driver, whose producers' enqueues reach
it through the task's mailbox (Ray cannot call into a driver). Hosting the ps in an
actor process of its own makes each enqueue one direct call, but then every training
step's dequeue is a Ray call too: measured side by side (``digits_mlp --producers 2``,
2026-12-01, a loaded 2-core machine), that made 3.7k and 4.8k examples/s against 6.6k
and 7.3k with the ps in the trainer.

The ps and trainer tasks live in this process's Ray cluster: a local one by default
(started if none runs), or the one ``--ray-address`` names (``ray start`` on each
machine; the README shows the commands), whose nodes the producer processes spread
over (every machine needs flowrt installed, in the Python that runs ``ray start``,
and the job's data at the same path).
"""

from __future__ import annotations

import argparse
import sys
import threading
import uuid
from pathlib import Path
from typing import Any, Callable

import flowrt as fr
from flowrt.distributed import ray_cluster
from flowrt.distributed.process import process_class

__all__ = [
    "PS_DEVICE",
    "QUEUE_NAME",
    "Producers",
    "add_options",
    "enqueue_examples",
    "epochs_of",
    "run_producer",
    "shuffle_queue",
    "trainer_batches",
]

PS_DEVICE = "/job:ps/task:0"
QUEUE_NAME = "input/shuffle_batch/examples"


def add_options(p: argparse.ArgumentParser) -> None:
    """Adds ``--producers`` and ``--ray-address`` to a job's parser."""
    p.add_argument(
        "--producers",
        type=int,
        default=0,
        metavar="N",
        help="read and decode the input in N producer processes (worker tasks of a "
        "cluster, as Ray actors) feeding a queue on a ps task that this process trains "
        "from; 0 keeps everything in this process",
    )
    p.add_argument(
        "--ray-address",
        default=None,
        help="with --producers: the Ray cluster to run on ('auto': the one `ray start` "
        "made on this machine; HEAD:6379; 'local': a new private one) (default: "
        "RAY_ADDRESS, else the Ray instance on this machine, started if none runs)",
    )


def shuffle_queue(dtypes: list, shapes: list, batch_size: int, seed: int) -> fr.RandomShuffleQueue:
    """The examples queue on the ps task, sized as the single-process job's
    ``shuffle_batch`` (capacity 40 batches, 10 kept for shuffling)."""
    with fr.device(PS_DEVICE):
        return fr.RandomShuffleQueue(
            40 * batch_size,
            10 * batch_size,
            dtypes,
            shapes=shapes,
            seed=seed,
            shared_name=QUEUE_NAME,
            name="random_shuffle_queue",
        )


def trainer_batches(
    dtypes: list, shapes: list, batch_size: int, seed: int
) -> tuple[list[fr.Tensor], fr.Operation]:
    """The trainer's side: batches dequeued from the ps queue (the last one smaller),
    and the op closing the queue. Names and the queue-fill summary are those of
    ``fr.train.shuffle_batch`` (called inside the job's ``input`` scope)."""
    with fr.name_scope("shuffle_batch") as scope:
        queue = shuffle_queue(dtypes, shapes, batch_size, seed)
        keep = 10 * batch_size
        fill = fr.cast(fr.maximum(0, queue.size() - keep), fr.float32)
        fr.summary.scalar(
            "fraction_over_%d_of_%d_full" % (keep, 30 * batch_size),
            fill * (1.0 / (30 * batch_size)),
        )
        batch = queue.dequeue_up_to(batch_size, name=scope)
        close = queue.close()
    return list(batch), close


def enqueue_examples(tensors: list[fr.Tensor], batch_size: int, seed: int) -> fr.Operation:
    """A producer's side: ``enqueue_many`` of its decoded examples into the ps queue."""
    with fr.name_scope("shuffle_batch"):
        queue = shuffle_queue(
            [t.dtype for t in tensors],
            [t.shape.as_list()[1:] for t in tensors],
            batch_size,
            seed,
        )
        return queue.enqueue_many(tensors)


def epochs_of(epochs: int, producers: int, index: int) -> int:
    """The epochs producer ``index`` (0-based) of ``producers`` reads."""
    return epochs // producers + (index < epochs % producers)


def run_producer(server: fr.train.Server, enqueue: fr.Operation, rows: fr.Tensor) -> int:
    """Runs ``enqueue`` (in its graph, the default one) on ``server``'s task until its
    input runs out; returns the examples enqueued (``rows`` is their count per run)."""
    with fr.Session(server.target) as sess:
        sess.run(fr.local_variables_initializer())
        coord = fr.train.Coordinator()
        threads = fr.train.start_queue_runners(sess, coord=coord)
        done = 0
        try:
            while True:
                done += int(sess.run([enqueue, rows])[1])
        except fr.errors.OutOfRangeError:
            pass
        finally:
            coord.request_stop()
            coord.join(threads)
    return done


def _ready(state: dict, produce: Callable) -> bool:
    """Run in a producer process before its work: unpickling ``produce`` imported its
    job's module there."""
    return True


class Producers:
    """The cluster of a job run with ``--producers N``, for the life of a ``with``.

    Starts the ps task and the trainer task (worker 0) in this process and N producer
    processes, each running ``produce(state, cluster, task_index, epochs, *args)``
    (a module-level function of ``pipelines``, shipped to the processes by value).
    ``target`` is the trainer's session target. When every producer returned, the
    queue is closed with ``close_op``; a producer's error closes it too and is raised
    by ``check()``.
    """

    def __init__(
        self,
        n: int,
        epochs: int,
        produce: Callable,
        args: tuple,
        close_op: fr.Operation,
        ray_address: str | None = None,
    ) -> None:
        ray_cluster.connect(ray_address)
        tag = uuid.uuid4().hex[:8]
        self.cluster = fr.train.ClusterSpec(
            {
                "ps": ["ps0-" + tag],
                "worker": ["trainer-" + tag] + ["producer%d-%s" % (i, tag) for i in range(n)],
            }
        )
        self.ps = fr.train.Server(self.cluster, "ps", 0)
        self.trainer = fr.train.Server(self.cluster, "worker", 0)
        self.close_op = close_op
        self.error: tuple[str, BaseException] | None = None
        self._stopping = False
        # Spread over the cluster's machines; each producer's task runs where it does.
        # The jobs are not installed: a producer imports them from this checkout (the
        # same path on every machine), and the job's functions travel by reference.
        root = str(Path(sys.modules["pipelines"].__file__).resolve().parent.parent)
        Process = process_class().options(
            scheduling_strategy="SPREAD", runtime_env={"env_vars": {"PYTHONPATH": root}}
        )
        self.procs = [Process.remote() for _ in range(n)]
        # The processes are up, with the job's module imported, before training starts
        # (its clock covers training, as a single-process job's does).
        ray = ray_cluster.ray_module()
        ray.get([p.call.remote(_ready, produce) for p in self.procs])
        self.refs = [
            p.call.remote(produce, self.cluster.as_dict(), i + 1, epochs_of(epochs, n, i), *args)
            for i, p in enumerate(self.procs)
        ]
        self.examples = 0
        self._watcher = threading.Thread(target=self._watch, name="producers-watcher", daemon=True)
        self._watcher.start()

    @property
    def target(self) -> str:
        return self.trainer.target

    def _watch(self) -> None:
        ray = ray_cluster.ray_module()
        who = {ref: "producer /job:worker/task:%d" % (i + 1) for i, ref in enumerate(self.refs)}
        pending = list(self.refs)
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            try:
                self.examples += ray.get(done[0])
            except BaseException as e:  # a producer failed, or was killed by __exit__
                if not self._stopping:
                    self.error = (who[done[0]], e)
                break
        try:
            with fr.Session(self.trainer.target, graph=self.close_op.graph) as sess:
                sess.run(self.close_op)
        except fr.errors.UnavailableError as e:  # the cluster went away: training fails too
            if self.error is None and not self._stopping:
                self.error = ("closing the input queue on the ps task", e)

    def check(self) -> None:
        """Raises the error of the first producer that failed, if one did.

        Raises:
          RuntimeError: naming the producer's task, from the producer's error.
        """
        if self.error is not None:
            who, e = self.error
            raise RuntimeError("%s failed, so the input ended early: %s" % (who, e)) from e

    def __enter__(self) -> "Producers":
        return self

    def __exit__(self, *exc: Any) -> None:
        ray = ray_cluster.ray_module()
        self._stopping = True
        for p in self.procs:
            ray.kill(p)
        self._watcher.join(timeout=60)
