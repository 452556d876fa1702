"""Programs the distributed tests run in worker processes (``process_class()`` actors,
each called as ``fn(state, *args)``).

Each is an ordinary TF1-style worker program: it starts its task's
``fr.train.Server``, builds its graph and runs a session on the server's target.
"""

import numpy as np

import flowrt as fr


def ready(state):
    """Whether the process is up (it answers)."""
    return True


def produce(state, cluster, index, start, count, batch):
    """A producer worker: enqueues ``start .. start+count`` onto the ps queue ``q``."""
    server = fr.train.Server(cluster, "worker", index)
    with fr.Graph().as_default():
        with fr.device("/job:ps/task:0"):
            q = fr.FIFOQueue(50, [fr.int64], shapes=[[]], shared_name="q")
        x = fr.placeholder(fr.int64, [None])
        enq = q.enqueue_many([x])
        with fr.Session(server.target) as sess:
            for lo in range(start, start + count, batch):
                sess.run(enq, {x: np.arange(lo, min(lo + batch, start + count))})
    return count


def dequeue_forever(state, cluster, index):
    """A consumer that blocks in a dequeue on the ps queue ``q`` (and gets killed)."""
    server = fr.train.Server(cluster, "worker", index)
    with fr.Graph().as_default():
        with fr.device("/job:ps/task:0"):
            q = fr.FIFOQueue(50, [fr.int64], shapes=[[]], shared_name="q")
        deq = q.dequeue_many(5)
        got = []
        with fr.Session(server.target) as sess:
            while True:
                got.extend(sess.run(deq).tolist())


def model(cluster, index):
    """The between-graph replicated model of ``train_worker``: linear regression with
    its variables on the ps tasks, placed by ``replica_device_setter``."""
    with fr.device(
        fr.train.replica_device_setter(worker_device="/job:worker/task:%d" % index, cluster=cluster)
    ):
        global_step = fr.train.get_or_create_global_step()
        w = fr.get_variable("w", [3, 1], initializer=fr.zeros_initializer())
        b = fr.get_variable("b", [1], initializer=fr.zeros_initializer())
        x = fr.placeholder(fr.float32, [None, 3])
        y = fr.placeholder(fr.float32, [None, 1])
        loss = fr.reduce_mean(fr.square(fr.matmul(x, w) + b - y))
        train = fr.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=global_step)
    return x, y, w, b, loss, train, global_step


TRUE_W = np.array([[1.0], [-2.0], [0.5]], np.float32)


def train_worker(state, cluster, index, steps, seed):
    """A between-graph replicated worker: async SGD on the shared variables."""
    server = fr.train.Server(cluster, "worker", index)
    rng = np.random.default_rng(seed)
    with fr.Graph().as_default():
        x, y, w, b, loss, train, global_step = model(cluster, index)
        init = fr.global_variables_initializer()
        ready = fr.report_uninitialized_variables()
        with fr.Session(server.target) as sess:
            if index == 0:
                sess.run(init)
            else:
                while len(sess.run(ready)):
                    pass
            losses = []
            for _ in range(steps):
                xs = rng.normal(size=(32, 3)).astype(np.float32)
                ys = xs @ TRUE_W + 0.3
                losses.append(float(sess.run([loss, train], {x: xs, y: ys})[0]))
            return losses[0], losses[-1], int(sess.run(global_step))


def start_server(state, cluster, job, index, direct=True):
    """Starts a task's server in this process (it lives as long as the process).

    With ``direct=False`` the task is served through its mailbox, as a driver's task
    is (Ray cannot call into a driver), although this process is an actor.
    """
    from flowrt.distributed import mailbox

    host = mailbox.HOST
    if not direct:
        mailbox.HOST = None
    try:
        server = fr.train.Server(cluster, job, index)
    finally:
        mailbox.HOST = host
    state.setdefault("servers", {})[fr.train.ClusterSpec(cluster).task_address(job, index)] = server
    return True


def transfer_forever(state, cluster, index):
    """Moves elements from ``q1`` (ps 0) to ``q2`` (ps 1) until killed."""
    server = fr.train.Server(cluster, "worker", index)
    with fr.Graph().as_default():
        with fr.device("/job:ps/task:0"):
            q1 = fr.FIFOQueue(10, [fr.int64], shapes=[[]], shared_name="q1")
        with fr.device("/job:ps/task:1"):
            q2 = fr.FIFOQueue(1, [fr.int64], shapes=[[]], shared_name="q2")
        move = q2.enqueue([q1.dequeue()])
        with fr.Session(server.target) as sess:
            while True:
                sess.run(move)


def read_hosted(state, cluster, name):
    """Reads variable ``name`` of the ps task this process hosts, in a session of this
    process; returns its value and the mailbox calls the run made (none: the state is
    here)."""
    from flowrt.distributed import mailbox

    server = state["servers"][fr.train.ClusterSpec(cluster).task_address("ps", 0)]
    with fr.Graph().as_default():
        with fr.device("/job:ps/task:0"):
            v = fr.Variable(0.0, name=name)
        with fr.Session(server.target) as sess:
            before = mailbox.CALLS
            value = float(sess.run(v))
            return value, mailbox.CALLS - before


def add_to(state, cluster, index, name, amount):
    """A worker (task ``index``) adds ``amount`` to the ps variable ``name``."""
    return add_counting_calls(state, cluster, index, name, amount)[0]


def add_counting_calls(state, cluster, index, name, amount):
    """``add_to``, and the mailbox and direct calls this process made meanwhile."""
    from flowrt.distributed import mailbox

    before = mailbox.CALLS, mailbox.DIRECT_CALLS
    server = fr.train.Server(cluster, "worker", index)
    with fr.Graph().as_default():
        with fr.device("/job:ps/task:0"):
            v = fr.Variable(0.0, name=name)
        with fr.Session(server.target) as sess:
            value = float(sess.run(v.assign_add(amount)))
    return value, mailbox.CALLS - before[0], mailbox.DIRECT_CALLS - before[1]


def move_batches_forever(state, cluster, index):
    """Moves batches of 5 from ``in_q`` to ``out_q`` (both on ps 0), one run each,
    until killed."""
    server = fr.train.Server(cluster, "worker", index)
    with fr.Graph().as_default():
        with fr.device("/job:ps/task:0"):
            in_q = fr.FIFOQueue(1000, [fr.int64], shapes=[[]], shared_name="in_q")
            out_q = fr.FIFOQueue(1000, [fr.int64], shapes=[[]], shared_name="out_q")
        move = out_q.enqueue_many([in_q.dequeue_many(5)])
        with fr.Session(server.target) as sess:
            while True:
                sess.run(move)


def move_batches_across_forever(state, cluster, index):
    """Moves batches of 5 from ``in_q`` (ps 0) to ``out_q`` (ps 1), one run each, until
    killed."""
    server = fr.train.Server(cluster, "worker", index)
    with fr.Graph().as_default():
        with fr.device("/job:ps/task:0"):
            in_q = fr.FIFOQueue(1000, [fr.int64], shapes=[[]], shared_name="in_q")
        with fr.device("/job:ps/task:1"):
            out_q = fr.FIFOQueue(1000, [fr.int64], shapes=[[]], shared_name="out_q")
        move = out_q.enqueue_many([in_q.dequeue_many(5)])
        with fr.Session(server.target) as sess:
            while True:
                sess.run(move)
