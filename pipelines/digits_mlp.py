"""Streaming training of an MLP digit classifier, TF1 style, on the embedded digits CSV.

A producer subgraph streams the CSV through queue runners -- filenames queue ->
TextLineReader -> decode_csv -> shuffle_batch -- while the training loop runs under
``fr.train.MonitoredTrainingSession``: it restores the latest checkpoint of
``--checkpoint-dir`` (the global step continues; ``--fresh`` starts over), saves
checkpoints every ``--checkpoint-every`` steps and at the end, and stops cleanly when
the epochs run out (the input queue closes and the dequeue raises OutOfRangeError).
Ctrl-C stops at the end of the current step and saves a checkpoint before exiting.

Summaries (loss, test accuracy, the input queues' fill, examples/s) and the graph go to
``--logdir`` for TensorBoard; ``--trace-steps N`` traces N steps, adds their run metadata
to the graph tab (compute time per node) and writes them as a Chrome trace
(``<logdir>/trace.json``: open it in https://ui.perfetto.dev or chrome://tracing).

    python -m pipelines.digits_mlp                      # threads (classic TF1)
    python -m pipelines.digits_mlp --runners async      # trio tasks + await sess.arun
    python -m pipelines.digits_mlp --trace-steps 5 && tensorboard --logdir logs/digits_mlp
    python -m pipelines.digits_mlp --producers 2        # 2 producer processes, a ps queue

With ``--producers N`` the reading and decoding runs in N producer processes, worker
tasks of a cluster on Ray, feeding the shuffling queue on a ps task that this process
trains from (``pipelines/scale_out.py``); ``--ray-address`` runs them on a Ray cluster
of several machines (the README shows the commands).
"""

from __future__ import annotations

import flowrt as fr
from pipelines import scale_out
from pipelines._common import DATA, TrainingJob, base_parser, count_rows, load_csv, run

N_PIXELS, N_CLASSES = 64, 10
# A producer process reads this many lines per run: each run of a producer's session
# costs a few actor calls, which a read of 64 lines would not amortise.
PRODUCER_LINES_PER_READ = 500
__all__ = [
    "DATA",
    "N_PIXELS",
    "N_CLASSES",
    "Job",
    "input_pipeline",
    "load_csv",
    "main",
    "model",
    "parse_args",
    "produce",
    "read_examples",
]


def parse_args(argv=None):
    p = base_parser(
        __doc__.split("\n\n")[0],
        name="digits_mlp",
        epochs=30,
        batch_size=64,
        learning_rate=0.003,
        checkpoint_every=200,
        eval_every=50,
    )
    p.add_argument("--hidden", type=int, default=128, help="hidden units")
    scale_out.add_options(p)
    args = p.parse_args(argv)
    if args.producers < 0:
        p.error("--producers must be at least 0, got %d" % args.producers)
    return args


def read_examples(csv_path, epochs, lines_per_read):
    """``epochs`` passes over the CSV as ``(images [n, 64] in 0..1, labels [n])`` tensors,
    ``lines_per_read`` lines per run."""
    files = fr.train.string_input_producer([csv_path], num_epochs=epochs, shuffle=False)
    _, lines = fr.TextLineReader(skip_header_lines=1).read_up_to(files, lines_per_read)
    fields = fr.decode_csv(lines, record_defaults=[[0]] + [[0.0]] * N_PIXELS)
    return fr.stack(fields[1:], axis=1) / 16.0, fields[0]


def input_pipeline(csv_path, batch_size, epochs, seed, lines_per_read=64):
    """The producer subgraph: shuffled (images, labels) batches streamed from the CSV.

    Lines are read and decoded ``lines_per_read`` at a time (``read_up_to`` +
    ``enqueue_many``), as TF1's input-pipeline guide recommends: per-example runs
    would spend their time on per-run overhead rather than on data.
    """
    with fr.name_scope("input"):
        images, labels = read_examples(csv_path, epochs, lines_per_read)
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


def produce(state, cluster, index, epochs, csv_path, batch_size, seed):
    """A producer process (``--producers``): worker task ``index`` reads ``epochs``
    passes over the CSV and enqueues the decoded examples into the ps queue; returns
    how many."""
    if not epochs:
        return 0
    server = fr.train.Server(cluster, "worker", index)
    with fr.Graph().as_default():
        fr.set_random_seed(seed)
        with fr.name_scope("input"):
            images, labels = read_examples(csv_path, epochs, PRODUCER_LINES_PER_READ)
            enqueue = scale_out.enqueue_examples([images, labels], batch_size, seed)
        return scale_out.run_producer(server, enqueue, fr.shape(labels)[0])


class Job(TrainingJob):
    """The graph of one training job: producer, consumer, evaluation, hooks."""

    def __init__(self, args):
        super().__init__(args, count_rows(args.train_csv))
        if args.producers:
            # The producers run produce(); this process dequeues from the ps queue.
            with fr.name_scope("input"):
                (images, labels), self.close_input = scale_out.trainer_batches(
                    [fr.float32, fr.int32], [[N_PIXELS], []], args.batch_size, args.seed
                )
            self.produce = produce
            self.produce_args = (args.train_csv, args.batch_size, args.seed)
        else:
            images, labels = input_pipeline(
                args.train_csv, args.batch_size, max(self.epochs, 1), args.seed
            )
        with fr.variable_scope("model"):
            logits = model(images, args.hidden)
        self.build_training(
            fr.reduce_mean(
                fr.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
            ),
            labels,
        )
        # Evaluation reuses the same weights on fed test data.
        self.eval_x = fr.placeholder(fr.float32, [None, N_PIXELS], name="eval_x")
        self.eval_y = fr.placeholder(fr.int32, [None], name="eval_y")
        with fr.variable_scope("model", reuse=True):
            eval_logits = model(self.eval_x, args.hidden)
        self.accuracy = fr.reduce_mean(
            fr.cast(fr.equal(fr.cast(fr.argmax(eval_logits, 1), fr.int32), self.eval_y), fr.float32)
        )

    def evaluate(self, sess) -> float:
        x, y = load_csv(self.args.test_csv)
        return float(sess.run(self.accuracy, {self.eval_x: x, self.eval_y: y}))


def main(argv=None):
    return run(Job, parse_args(argv), exit_on_interrupt=__name__ == "__main__")


if __name__ == "__main__":
    main()
