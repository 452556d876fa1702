"""flowrt on a cluster of Ray actors: scaling an input pipeline out, and a remote run's cost.

  python benchmarks/distributed.py [--no-tf] [--runs N] [--only pipeline|overhead]
                                   [--producer csv|python|record|all]
                                   [--producer-threads N] [--rows N] [--batches N]
                                   [--ray-address ADDRESS]

Sections (every measurement is printed, then the median and the ratio):

* pipeline: a CPU-bound producer -- CSV lines of ``FIELDS`` float fields picked at
  random from a pool, preprocessed, ``enqueue_many`` into a ``FIFOQueue`` of examples
  -- drained by ``dequeue_many(ROWS)``; examples/s, and CPU microseconds per example,
  for three producer workloads (``--producer``, all by default, in this order):

  csv: ``ROWS`` lines per run, ``decode_csv``, then a few elementwise ops on each
  decoded column (normalized by its own constants). Most of a 2,048-row run is big
  kernels that give up the GIL and the execution token, so the threads variant's two
  runner threads already keep both cores busy most of the time; only the ~1,200 small
  per-column ops take turns. Processes can only add the part of a run the threads
  serialize, and pay for it with a Ray call per enqueued batch. Smaller runs
  (``--rows 128``) make the per-column ops small and GIL-bound, but the Ray call then
  weighs more per example. Measured: processes/threads 0.5 to 1.3 at 128 to 2,048
  rows, medians 0.57 to 0.99 (0.6 or so at 128 and 256 rows).

  python: a ``py_func`` over the batch of lines doing what a text pipeline's user code
  does, per line in Python: split into fields, hash each field's text (to 2 decimals)
  with its column into a feature id (``featurize``); int32 ids go into the queue, the
  same 1.6 MB per 2048 rows as csv. The function holds the GIL for the whole run
  (~100 ms at 2048 rows), so two threads of one process take turns, while two
  processes run it side by side. Processes win here when both cores are free:
  processes/threads about 1.4 to 2.9 at load about 2; with another job on one core,
  about 0.7 to 1.1 (one free core is all either variant gets).

  record: TF1's "Reading data" form (``record_producer``): each run reads ONE line
  (``TextLineReader.read`` from a ``string_input_producer``), decodes one record and
  preprocesses its fields (the csv workload's ops on the fields stacked into one
  vector) into ``fr.train.batch`` (2 runner threads); the measured producer op moves a
  whole batch of ``ROWS`` examples from that batch queue into the examples queue. In
  the processes variant the batch queue is on each producer's own task, so the
  per-record runs stay in the process (no Ray call) and only whole batches cross to
  the ps queue. A record run is a dozen small ops that hold the GIL (~330 us on one
  thread), so processes win: processes/threads about 1.6 to 2.2 at load 4 or less
  (1.05 to 1.4 at load 6). It is also 20 to 60 times slower than the batched csv
  form on the same lines: in flowrt decode many lines per run (``read_up_to``,
  ``decode_csv`` of a batch).

  A 1.6 MB batch costs Ray about 1.6 to 2.3 ms of CPU to ``ray.put`` on this host
  (at load 2 to 3), where a numpy copy of it takes 65 us: flowrt passes its arrays
  out of band (pickle protocol 5, no copy) and Ray copies them once into its object
  store; the cost is Ray's per-object protocol with its store (0.9 ms of CPU and ~25
  context switches for a 120 KiB put) plus page faults on the object's fresh pages
  (``docs/distributed.md``).

  The two variants, on the same machine:
  threads: one process, a plain ``fr.Session()``, a ``QueueRunner`` of 2 threads running
  the producer while the main thread drains (after 2 untimed batches);
  processes: a trainer process (a Ray actor, as a real deployment runs its ps) hosts
  the ps task and drains its queue in place (a session on the ps task's target); 2
  producer processes (Ray actors), each a worker task (``fr.train.Server(cluster,
  "worker", i)`` + ``fr.Session(server.target)``), run the same producer into the ps
  queue (``shared_name``) from ``--producer-threads`` threads (default 2: as a TF1
  worker's queue runner threads, one run's remote enqueue overlaps the next run's
  decode); each enqueue is one direct Ray call of the trainer process, served on one
  of its threads for requests that may wait. The trainer drains one untimed batch per
  producer first. This process only starts them and waits.
  CPU per example counts the variant's own processes (threads: this one; processes:
  the trainer and the producers), not Ray's daemons (the raylet, ~2.5 ms of CPU per
  1.6 MB enqueue).
* overhead: the per-run cost of a remote partition: ``sess.run(v)`` from a worker
  session in this process of a small variable placed on the ps task, which another
  process hosts (a Ray actor that started its ``Server``, so each run is one direct
  call of that actor), of a [128, 784] float32 one, and a run that stays in the client
  (``x * 2`` fed), measured in turn (``interleaved_us``) with TensorFlow 2.21's own
  in-process gRPC cluster (a ps and a worker ``tf.train.Server`` in this process, graph
  mode) when ``tensorflow`` is importable, and with the floor Ray sets: a bare call of
  a plain (threaded) Ray actor returning the same array, the fastest plain call here
  (``Ray``), and of an async actor (``Ray async``, what the ps process was before).
  Microseconds per run.

``--ray-address`` joins a running Ray cluster (``ray start --head`` prints its address);
the default, ``local``, starts a private Ray instance for the run (about 10 s here),
whose worker processes run at this process's priority (``RAY_worker_niceness=0``; Ray's
default, nice 15, makes them yield the cores to every other process on a shared machine,
which the threads variant, in this process, does not). The
host's 2 cores are shared and noisy: read the ratios of one run, not the digits.
"""

from __future__ import annotations

import argparse
import atexit
import os
import socket
import statistics
import sys
import tempfile
import threading
import time
import uuid
import zlib

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import flowrt as fr  # noqa: E402
from flowrt.distributed import ray_cluster  # noqa: E402
from flowrt.distributed.process import process_class  # noqa: E402

FIELDS, ROWS, POOL = 200, 2048, 4096
CAPACITY = 8 * ROWS


def set_rows(rows: int) -> None:
    """Lines per producer run (``--rows``): small runs make the producer's per-column
    ops small, so they hold the GIL; large ones spend their time in GIL-free kernels.
    The processes get the value with the functions, which go by value."""
    global ROWS, CAPACITY
    ROWS, CAPACITY = rows, 8 * rows


QUEUE = "bench_examples"


# --------------------------------------------------------------------------------------
# The producer (the same graph in both variants)
# --------------------------------------------------------------------------------------


def csv_pool(seed: int = 0) -> np.ndarray:
    """``POOL`` CSV lines of ``FIELDS`` floats with 4 decimals."""
    rng = np.random.default_rng(seed)
    values = rng.random((POOL, FIELDS))
    return np.array([",".join("%.4f" % v for v in row) for row in values], dtype=object)


def examples_queue(workload: str = "csv") -> fr.FIFOQueue:
    """The queue the producers fill: ``FIELDS`` floats (``csv``) or feature ids
    (``python``) per example, shared by name on the ps task."""
    dtype = WORKLOADS[workload][1]
    return fr.FIFOQueue(CAPACITY, [dtype], shapes=[[FIELDS]], shared_name=QUEUE)


def column_constants() -> tuple[np.ndarray, np.ndarray]:
    """Each column's mean and scale (the csv and record workloads normalize alike)."""
    rng = np.random.default_rng(1)
    mean = rng.random(FIELDS)
    return mean, 1.0 + rng.random(FIELDS)


def producer(queue: fr.FIFOQueue, pool: np.ndarray) -> fr.Operation:
    """ROWS random lines -> decode_csv -> per-column preprocessing -> enqueue_many.

    Each decoded column is normalized by its own constants and transformed (as feature
    columns are), a few small elementwise ops per column: Python-bound work that holds
    the GIL, which is what a producer thread competes for.
    """
    picks = fr.random_uniform([ROWS], 0, POOL, dtype=fr.int32)
    lines = fr.gather(fr.constant(pool), picks)
    columns = fr.decode_csv(lines, record_defaults=[[0.0]] * FIELDS)
    features = []
    for col, mean, scale in zip(columns, *column_constants()):
        z = fr.tanh((col - float(mean)) * float(scale))
        features.append(z * z + fr.log1p(fr.abs(z)))
    return queue.enqueue_many([fr.stack(features, axis=1)])


def lines_file(pool: np.ndarray) -> str:
    """The pool's lines as a CSV file of this process (written once; a TextLineReader
    reads files), removed when the process exits or ``remove_lines_file`` is called."""
    path = os.path.join(tempfile.gettempdir(), "flowrt-bench-lines-%d.csv" % os.getpid())
    if not os.path.exists(path):
        with open(path + ".tmp", "w") as f:
            f.write("\n".join(pool) + "\n")
        os.replace(path + ".tmp", path)
        atexit.register(remove_lines_file)
    return path


def remove_lines_file() -> None:
    path = os.path.join(tempfile.gettempdir(), "flowrt-bench-lines-%d.csv" % os.getpid())
    if os.path.exists(path):
        os.remove(path)


def record_producer(queue: fr.FIFOQueue, pool: np.ndarray) -> fr.Operation:
    """TF1's "Reading data" form: ``reader.read()`` of ONE line per run -> decode_csv of
    one record -> per-field preprocessing -> ``fr.train.batch`` (its own queue, filled by
    2 runner threads, placed on the session's own task); the returned op moves one
    whole batch of ROWS examples into ``queue`` (``enqueue_many`` of a ``dequeue_many``).

    The per-field steps are the csv workload's, on the record's fields stacked into one
    vector (each field with its own constants), as a TF1 user writes them; a run is a
    few dozen small ops, all holding the GIL.
    """
    files = fr.train.string_input_producer([lines_file(pool)])
    _, line = fr.TextLineReader().read(files)
    fields = fr.decode_csv(line, record_defaults=[[0.0]] * FIELDS)
    mean, scale = (c.astype(np.float32) for c in column_constants())
    z = fr.tanh((fr.stack(fields) - mean) * scale)
    example = z * z + fr.log1p(fr.abs(z))
    batch = fr.train.batch([example], ROWS, num_threads=2, capacity=ROWS)
    return queue.enqueue_many([batch])


# Feature hashing (the python workload): a field's text to 2 decimals, crossed with its
# column, hashed into one of ID_BUCKETS feature ids.
ID_BUCKETS = 1 << 20
COLUMN_SEEDS = [zlib.crc32(b"column %d" % j) for j in range(FIELDS)]


def featurize(lines: np.ndarray) -> np.ndarray:
    """Per line, in Python: split into fields, each field's text (to 2 decimals)
    hashed with its column into a feature id, as a text pipeline's tokenizer and
    hashing vectorizer do. Returns int32 ids ``[len(lines), FIELDS]``."""
    crc32, mask = zlib.crc32, ID_BUCKETS - 1
    ids = np.empty((len(lines), len(COLUMN_SEEDS)), np.int32)
    for i, line in enumerate(lines):
        ids[i] = [crc32(f[:4], seed) & mask for f, seed in zip(line.split(b","), COLUMN_SEEDS)]
    return ids


def python_producer(queue: fr.FIFOQueue, pool: np.ndarray) -> fr.Operation:
    """ROWS random lines -> ``featurize`` (a ``py_func``) -> enqueue_many.

    The preprocessing a user writes in Python: the per-line work holds the GIL from
    start to end (the run's only GIL-free work is the gather and the enqueue), so a
    process's producer threads take turns, and only processes run it side by side.
    """
    picks = fr.random_uniform([ROWS], 0, POOL, dtype=fr.int32)
    lines = fr.gather(fr.constant(pool), picks)
    ids = fr.py_func(featurize, [lines], fr.int32, stateful=False)
    ids.set_shape([ROWS, FIELDS])
    return queue.enqueue_many([ids])


# workload -> (producer graph, queue dtype, what a run does)
WORKLOADS = {
    "csv": (
        producer,
        fr.float32,
        "decode_csv -> per column tanh/square/log1p/abs (numpy kernels, mostly GIL-free)",
    ),
    "python": (
        python_producer,
        fr.int32,
        "py_func: per line split + per field crc32 feature hashing (pure Python, holds the GIL)",
    ),
    "record": (
        record_producer,
        fr.float32,
        "per run ONE line read + decode_csv + per-field ops into fr.train.batch (2 "
        "threads); a batch moved per enqueue_many",
    ),
}


# --------------------------------------------------------------------------------------
# Producer processes and the trainer process: process_class() actors run these
# --------------------------------------------------------------------------------------


def start_runners(sess: fr.Session, coord: fr.train.Coordinator) -> list:
    """The threads of the graph's queue runners (the record workload's batching)."""
    if not sess.graph.get_collection(fr.GraphKeys.QUEUE_RUNNERS):
        return []
    return fr.train.start_queue_runners(sess, coord)


def remote_producer_setup(
    state: dict, cluster: dict, index: int, pool: np.ndarray, workload: str
) -> int:
    """In a producer process: start worker task ``index``, build the ``workload``'s
    producer on the ps queue, start its queue runners (the record workload's batching),
    run it once (compiling and shipping its parts)."""
    state["server"] = server = fr.train.Server(cluster, "worker", index)
    graph = fr.Graph()
    with graph.as_default():
        with fr.device("/job:ps/task:0"):
            queue = examples_queue(workload)
        state["enqueue"] = WORKLOADS[workload][0](queue, pool)
    state["sess"] = sess = fr.Session(server.target, graph=graph)
    state["coord"] = coord = fr.train.Coordinator()
    state["runners"] = start_runners(sess, coord)
    sess.run(state["enqueue"])
    return ROWS


def remote_producer_run(state: dict, runs: int, threads: int) -> float:
    """In a producer process: ``runs`` producer runs shared by ``threads`` threads (a
    TF1 worker's queue runner threads: one run's remote enqueue overlaps the next
    run's decode); returns the CPU seconds the process used meanwhile."""
    cpu = time.process_time()
    sess, enqueue = state["sess"], state["enqueue"]
    left = [runs]
    lock = threading.Lock()
    failures: list = []

    def loop() -> None:
        try:
            while True:
                with lock:
                    if left[0] == 0:
                        return
                    left[0] -= 1
                sess.run(enqueue)
        except BaseException as e:  # reported by the call
            failures.append(e)

    workers = [threading.Thread(target=loop) for _ in range(threads)]
    for t in workers:
        t.start()
    for t in workers:
        t.join()
    if failures:
        raise failures[0]
    return time.process_time() - cpu


def remote_producer_close(state: dict) -> None:
    state["coord"].request_stop()
    state["coord"].join(state["runners"], stop_grace_period_secs=30)
    state.pop("sess").close()
    remove_lines_file()


def trainer_setup(state: dict, cluster: dict, workload: str) -> bool:
    """In the trainer process: host the ps task (its queue) and build the drain, a
    session on the ps task's target, so its dequeues run in place."""
    state["server"] = server = fr.train.Server(cluster, "ps", 0)
    graph = fr.Graph()
    with graph.as_default():
        with fr.device("/job:ps/task:0"):
            queue = examples_queue(workload)
        state["dequeue"] = queue.dequeue_many(ROWS)
    state["sess"] = fr.Session(server.target, graph=graph)
    return True


def trainer_drain(state: dict, batches: int, warm: int = 0) -> tuple[float, float]:
    """In the trainer process: dequeue ``warm`` batches, then ``batches`` batches;
    returns the seconds the latter took and the CPU seconds the process used meanwhile
    (its serving of the enqueues included)."""
    sess, dequeue = state["sess"], state["dequeue"]
    for _ in range(warm):
        sess.run(dequeue)
    start, cpu = time.perf_counter(), time.process_time()
    for _ in range(batches):
        sess.run(dequeue)
    return time.perf_counter() - start, time.process_time() - cpu


# --------------------------------------------------------------------------------------
# (a) threads vs processes
# --------------------------------------------------------------------------------------


def pipeline_threads(pool: np.ndarray, batches: int, workload: str = "csv") -> tuple[float, float]:
    """Examples/s of one process with a 2-thread QueueRunner, and its CPU microseconds
    per example."""
    with fr.Graph().as_default():
        queue = examples_queue(workload)
        enqueue = WORKLOADS[workload][0](queue, pool)
        dequeue = queue.dequeue_many(ROWS)
        runner = fr.train.QueueRunner(queue, [enqueue] * 2)
        with fr.Session() as sess:
            coord = fr.train.Coordinator()
            threads = runner.create_threads(sess, coord=coord, start=True)
            threads += start_runners(sess, coord)
            sess.run(dequeue)  # both threads running, their plans compiled
            sess.run(dequeue)
            start, cpu = time.perf_counter(), time.process_time()
            for _ in range(batches):
                sess.run(dequeue)
            secs, cpu = time.perf_counter() - start, time.process_time() - cpu
            coord.request_stop()
            sess.run(queue.close(cancel_pending_enqueues=True))
            coord.join(threads, stop_grace_period_secs=30)
    return batches * ROWS / secs, cpu / (batches * ROWS) * 1e6


class ProcessPipeline:
    """The processes variant's set-up, kept across runs: a trainer process (a
    ``process_class()`` actor) hosting the ps task and draining its queue in place, and
    ``n`` producer processes, each with its worker task, enqueueing into the ps queue
    with direct calls of the trainer process."""

    def __init__(self, pool: np.ndarray, workload: str = "csv", n: int = 2, threads: int = 2):
        ray = ray_cluster.ray_module()
        tag = uuid.uuid4().hex[:8]
        self.threads = threads
        self.cluster = fr.train.ClusterSpec(
            {"ps": ["bench-ps-" + tag], "worker": ["bench-w%d-%s" % (i, tag) for i in range(n)]}
        )
        Process = process_class()
        self.trainer = Process.remote()
        ray.get(self.trainer.call.remote(trainer_setup, self.cluster.as_dict(), workload))
        self.procs = [Process.remote() for _ in range(n)]
        ray.get(
            [
                p.call.remote(remote_producer_setup, self.cluster.as_dict(), i, pool, workload)
                for i, p in enumerate(self.procs)
            ]
        )
        ray.get(self.trainer.call.remote(trainer_drain, n))  # the set-up runs' batches

    def measure(self, batches: int) -> tuple[float, float]:
        """Examples/s of ``batches`` batches drained by the trainer, the producers
        sharing the work, after one untimed batch per producer (as the threads variant
        drains 2 first: both start running, and a record producer's batch queue may
        hold a batch made since the last measurement); and the CPU microseconds per
        example of the trainer and producer processes (Ray's own daemons not counted)."""
        ray = ray_cluster.ray_module()
        n = len(self.procs)
        each = batches // n
        refs = [p.call.remote(remote_producer_run, each + 1, self.threads) for p in self.procs]
        secs, cpu = ray.get(self.trainer.call.remote(trainer_drain, each * n, n))
        timed = each * n * ROWS
        cpu_us = cpu / timed + sum(ray.get(refs)) / ((each + 1) * n * ROWS)
        return timed / secs, cpu_us * 1e6

    def close(self) -> None:
        ray = ray_cluster.ray_module()
        ray.get([p.call.remote(remote_producer_close) for p in self.procs])
        for p in self.procs + [self.trainer]:
            ray.kill(p)


def bench_pipeline(runs: int, batches: int, threads: int, workload: str) -> None:
    pool = csv_pool()
    print(
        "\n(a, %s) CPU-bound producer: %d CSV lines x %d float fields -> %s -> "
        "enqueue_many, drained by dequeue_many(%d); examples/s"
        % (workload, ROWS, FIELDS, WORKLOADS[workload][2], ROWS)
    )
    print("  threads:   1 process, plain fr.Session(), QueueRunner with 2 threads")
    print(
        "  processes: a trainer process (Ray actor) hosts the ps task and drains its "
        "queue in place; 2 producer processes (Ray actors, each fr.train.Server(cluster, "
        "'worker', i) + fr.Session(server.target), running the producer from %d "
        "thread%s) enqueue into the ps queue with direct calls of the trainer process"
        % (threads, "s" if threads > 1 else "")
    )
    start = time.perf_counter()
    procs = ProcessPipeline(pool, workload, threads=threads)
    print("  (cluster and producer processes set up in %.1f s)" % (time.perf_counter() - start))
    in_threads, in_processes, ratios = [], [], []
    try:
        for r in range(runs):
            (t, t_cpu), (p, p_cpu) = (
                pipeline_threads(pool, batches, workload),
                procs.measure(batches),
            )
            in_threads.append(t)
            in_processes.append(p)
            ratios.append(p / t)
            print(
                "  run %d: threads %8.0f (%5.1f us CPU/example)   processes %8.0f (%5.1f us "
                "CPU/example)   processes/threads %.2f" % (r + 1, t, t_cpu, p, p_cpu, p / t)
            )
    finally:
        procs.close()
    t, p = statistics.median(in_threads), statistics.median(in_processes)
    print(
        "  median: threads %8.0f   processes %8.0f   processes/threads %.2f (median of "
        "the runs' ratios %.2f)" % (t, p, p / t, statistics.median(ratios))
    )


# --------------------------------------------------------------------------------------
# (b) the per-run overhead of a remote partition, flowrt vs TF's gRPC runtime
# --------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


def interleaved_us(calls: dict, min_runs: int = 50, min_time: float = 1.0) -> dict:
    """Median microseconds per call of each ``calls[name]()``, over batches of
    ``min_runs`` taken in turn (one batch of each, then again), so that every contender
    sees the same moments of a shared machine (measured one after the other, for half
    a second each, flowrt/Ray moved between 0.99 and 1.54 from run to run)."""
    for run in calls.values():
        for _ in range(5):
            run()
    batches: dict = {name: [] for name in calls}
    start = time.perf_counter()
    while len(batches[next(iter(calls))]) < 5 or time.perf_counter() - start < min_time:
        for name, run in calls.items():
            t = time.perf_counter()
            for _ in range(min_runs):
                run()
            batches[name].append((time.perf_counter() - t) / min_runs * 1e6)
    return {name: statistics.median(got) for name, got in batches.items()}


CASES = [
    ("sess.run(v), v a [10] float32 variable on the ps", "small"),
    ("sess.run(v), v a [128, 784] float32 variable on the ps", "big"),
    ("sess.run(x * 2, {x: 1.0}), local to the worker", "local"),
]


def overhead_graph(tf):
    rng = np.random.default_rng(0)
    with tf.device("/job:ps/task:0"):
        small = tf.Variable(np.arange(10, dtype=np.float32), name="small")
        big = tf.Variable(rng.random((128, 784), dtype=np.float32), name="big")
    with tf.device("/job:worker/task:0"):
        x = tf.placeholder(tf.float32, [], name="x")
        y = x * 2.0
    init = tf.group(small.initializer, big.initializer)
    return {
        "small": ((small.value(),), {}),
        "big": ((big.value(),), {}),
        "local": ((y,), {x: 1.0}),
    }, init


def host_task(state: dict, cluster: dict, job: str, index: int) -> str:
    """In a worker process: start task ``job:index`` there (its state lives in that
    process) and keep it for as long as the process lives."""
    state["server"] = server = fr.train.Server(cluster, job, index)
    return server.target


def flowrt_overhead():
    """A worker session in this process and the ps task hosted by another process,
    so every run of a ps variable crosses processes (a ps hosted by this process
    would run in place, with no Ray call)."""
    ray = ray_cluster.ray_module()
    tag = uuid.uuid4().hex[:8]
    cluster = fr.train.ClusterSpec({"ps": ["ovh-ps-" + tag], "worker": ["ovh-w0-" + tag]})
    ps = process_class().remote()
    ray.get(ps.call.remote(host_task, cluster.as_dict(), "ps", 0))
    worker = fr.train.Server(cluster, "worker", 0)
    graph = fr.Graph()
    with graph.as_default():
        runs, init = overhead_graph(fr)
    sess = fr.Session(worker.target, graph=graph)
    sess.run(init)
    return sess, runs, (ps, worker)


def ray_floor():
    """Bare actors returning the overhead cases' arrays: ``flavour -> case -> call``.

    ``Ray``: a plain actor method, run on the actor's own thread (the fastest plain
    call measured here, as ``process_class()`` serves a quick request); ``Ray async``:
    an ``async def`` method, which Ray runs on the actor's event loop thread."""
    ray = ray_cluster.ray_module()
    rng = np.random.default_rng(0)
    values = {
        "small": np.arange(10, dtype=np.float32),
        "big": rng.random((128, 784), dtype=np.float32),
    }

    @ray.remote(num_cpus=0)
    class Floor:
        def __init__(self, values: dict) -> None:
            self.values = values

        def value(self, key: str) -> np.ndarray:
            return self.values[key]

    @ray.remote(num_cpus=0, max_concurrency=1000)
    class AsyncFloor:
        def __init__(self, values: dict) -> None:
            self.values = values

        async def value(self, key: str) -> np.ndarray:
            return self.values[key]

    flavours = {}
    for name, cls in (("Ray", Floor), ("Ray async", AsyncFloor)):
        actor = cls.remote(values)
        ray.get(actor.value.remote("small"))
        flavours[name] = {
            key: (lambda key=key, actor=actor: ray.get(actor.value.remote(key))) for key in values
        }
    return flavours


def tf_overhead():
    try:
        import tensorflow.compat.v1 as tf
    except ImportError:
        return None
    tf.disable_eager_execution()
    tf.get_logger().setLevel("ERROR")
    ports = [free_port(), free_port()]
    cluster = tf.train.ClusterSpec(
        {"ps": ["localhost:%d" % ports[0]], "worker": ["localhost:%d" % ports[1]]}
    )
    ps = tf.train.Server(cluster, job_name="ps", task_index=0)
    worker = tf.train.Server(cluster, job_name="worker", task_index=0)
    graph = tf.Graph()
    with graph.as_default():
        runs, init = overhead_graph(tf)
    sess = tf.Session(worker.target, graph=graph)
    sess.run(init)
    return sess, runs, (ps, worker)


def bench_overhead(runs: int, with_tf: bool) -> None:
    print("\n(b) per-run overhead of a remote partition, a worker session; us per run")
    fr_side = flowrt_overhead()
    floors = ray_floor()
    tf_side = tf_overhead() if with_tf else None
    if with_tf and tf_side is None:
        print("  (tensorflow is not importable: flowrt only)")
    figures: dict = {key: {} for _, key in CASES}

    def session_run(side, key: str):
        sess, (fetches, feeds) = side[0], side[1][key]
        return lambda: sess.run(fetches, feeds)

    def measure(key: str) -> str:
        calls = {"flowrt": session_run(fr_side, key)}
        calls.update((name, by_key[key]) for name, by_key in floors.items() if key in by_key)
        if tf_side is not None:
            calls["TF"] = session_run(tf_side, key)
        got = interleaved_us(calls)
        f = got["flowrt"]
        line = "flowrt %6.0f" % f
        for name, us in got.items():
            figures[key].setdefault(name, []).append(us)
            if name != "flowrt":
                line += "   %s %6.0f (flowrt/%s %.2f)" % (name, us, name, f / us)
        return line

    for r in range(runs):
        for title, key in CASES:
            print("  run %d %-56s %s" % (r + 1, title, measure(key)))
    for title, key in CASES:
        f = statistics.median(figures[key]["flowrt"])
        line = "  median %-55s flowrt %6.0f" % (title, f)
        for name, got in figures[key].items():
            if name != "flowrt":
                us = statistics.median(got)
                line += "   %s %6.0f (flowrt/%s %.2f)" % (name, us, name, f / us)
        print(line)
    fr_side[0].close()
    if tf_side is not None:
        tf_side[0].close()


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--no-tf", action="store_true", help="flowrt only")
    p.add_argument("--runs", type=int, default=3, help="measurements per figure")
    p.add_argument("--batches", type=int, default=12, help="batches per pipeline measurement")
    p.add_argument("--only", choices=["pipeline", "overhead"], help="one section")
    p.add_argument(
        "--producer-threads",
        type=int,
        default=2,
        help="threads running the producer in each producer process",
    )
    p.add_argument(
        "--rows",
        type=int,
        default=ROWS,
        help="CSV lines per producer run and per drained batch (pipeline section)",
    )
    p.add_argument(
        "--producer",
        choices=[*WORKLOADS, "all"],
        default="all",
        help="the pipeline's producer workload (all: csv, python, record in turn)",
    )
    p.add_argument("--ray-address", default="local", help="a running Ray cluster, or local")
    args = p.parse_args(argv)
    set_rows(args.rows)
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    ray = ray_cluster.ray_module()
    # The worker processes may not have this tree on their path: ship code by value.
    if __name__ != "__main__":  # (a script's own functions always go by value)
        ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    if args.ray_address == "local":
        # Ray starts its worker processes at nice 15 (RAY_worker_niceness): on a machine
        # shared with other jobs they would then yield the cores to every other process,
        # which this process's threads (nice 0) do not. The private instance runs them
        # at this process's priority, so both variants compete alike.
        os.environ.setdefault("RAY_worker_niceness", "0")
    start = time.perf_counter()
    ray_cluster.connect(args.ray_address)
    print(
        "Ray up in %.1f s; %d CPUs; Ray workers at nice %s"
        % (
            time.perf_counter() - start,
            os.cpu_count() or 0,
            os.environ.get("RAY_worker_niceness", "15 (Ray's default)"),
        )
    )
    if args.only in (None, "overhead"):
        bench_overhead(args.runs, not args.no_tf)
    if args.only in (None, "pipeline"):
        for workload in WORKLOADS if args.producer == "all" else (args.producer,):
            bench_pipeline(args.runs, args.batches, args.producer_threads, workload)


if __name__ == "__main__":
    main()
