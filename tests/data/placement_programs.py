"""TF1 programs whose op placement flowrt must reproduce: each builds into the default
graph with ``tf`` = ``tensorflow.compat.v1`` (record_placement.py, run by hand) or
``flowrt`` (tests/test_placement_tf1.py), so both build the very same program.

Each builds into a new graph entered with ``as_default()``, as TF1 programs and tests
usually do. There, TF 2.x creates a variable in an ``init_scope`` that brings back the
device functions from outside ``colocate_with``: a slot made inside one takes a ps task
of the round robin, then gets its primary's device from the colocation. (In the global
default graph TF does this only for nested ``init_scope``s, e.g. optimizer slots, not for
a variable a program makes inside its own ``colocate_with``.)
"""

CLUSTER = {"ps": ["ps0:2222", "ps1:2222"], "worker": ["worker0:2222", "worker1:2222"]}


def _two_layer_loss(tf):
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    y = tf.placeholder(tf.float32, [None, 3], name="y")
    with tf.variable_scope("layer1"):
        w1 = tf.get_variable(
            "weights", [4, 8], initializer=tf.random_normal_initializer(stddev=0.1, seed=1)
        )
        b1 = tf.get_variable("biases", [8], initializer=tf.zeros_initializer())
        h = tf.nn.relu(tf.matmul(x, w1) + b1)
    with tf.variable_scope("layer2"):
        w2 = tf.get_variable(
            "weights", [8, 3], initializer=tf.random_normal_initializer(stddev=0.1, seed=2)
        )
        b2 = tf.Variable(tf.zeros([3]), name="biases")
        logits = tf.matmul(h, w2) + b2
    return tf.reduce_mean(tf.square(logits - y), name="loss")


def variables_ps_tasks(tf):
    with tf.device(tf.train.replica_device_setter(ps_tasks=2)):
        a = tf.Variable(1.0, name="a")
        b = tf.Variable(tf.zeros([2, 3]), name="b")
        tf.get_variable("c", [5], initializer=tf.ones_initializer())
        with tf.device("/cpu:0"):
            tf.Variable([1.0, 2.0], name="d")
        with tf.device("/job:ps/task:1"):
            tf.Variable(3.0, name="e")  # keeps task 1; the round robin still advances
        with tf.device("/job:local/task:3"):
            tf.Variable(4.0, name="f")  # another job: kept, no task taken
        tf.add(a, 1.0, name="s")
        tf.reduce_sum(b * 2.0, name="t")
        tf.Variable(5.0, name="g")
    return {}


def adam_cluster(tf):
    setter = tf.train.replica_device_setter(cluster=CLUSTER, worker_device="/job:worker/task:1")
    with tf.device(setter):
        loss = _two_layer_loss(tf)
        step = tf.train.get_or_create_global_step()
        tf.train.AdamOptimizer(0.01).minimize(loss, global_step=step)
        tf.Variable(0.0, name="after")  # slots and beta powers took no ps task
    return {}


def momentum_ps_tasks(tf):
    with tf.device(tf.train.replica_device_setter(ps_tasks=2)):
        loss = _two_layer_loss(tf)
        step = tf.train.get_or_create_global_step()
        tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss, global_step=step)
        tf.Variable(0.0, name="after")
    return {}


def adagrad_step_first(tf):
    with tf.device(tf.train.replica_device_setter(ps_tasks=3, worker_device="/job:worker/task:0")):
        step = tf.train.get_or_create_global_step()
        loss = _two_layer_loss(tf)
        tf.train.AdagradOptimizer(0.1).minimize(loss, global_step=step)
        tf.Variable(0.0, name="after")
    return {}


def rmsprop_cpu_devices(tf):
    setter = tf.train.replica_device_setter(
        cluster=CLUSTER,
        ps_device="/job:ps/device:CPU:0",
        worker_device="/job:worker/task:0/device:CPU:0",
    )
    with tf.device(setter):
        loss = _two_layer_loss(tf)
        tf.train.RMSPropOptimizer(0.01, momentum=0.5, centered=True).minimize(loss)
    return {}


def partitioned_and_scoped(tf):
    with tf.device(tf.train.replica_device_setter(ps_tasks=2)):
        with tf.variable_scope("emb", partitioner=tf.fixed_size_partitioner(3)):
            emb = tf.get_variable("table", [9, 4], initializer=tf.ones_initializer())
        ids = tf.constant([0, 4, 8], name="ids")
        rows = tf.nn.embedding_lookup(emb, ids, name="rows")
        with tf.variable_scope("head"):
            w = tf.get_variable("w", [4, 2], initializer=tf.ones_initializer())
        loss = tf.reduce_sum(tf.matmul(rows, w), name="loss")
        tf.train.AdagradOptimizer(0.1).minimize(loss)
        tf.Variable(0.0, name="after")
    return {}


def colocate_gradients(tf):
    with tf.device(tf.train.replica_device_setter(ps_tasks=2, worker_device="/job:worker/task:0")):
        loss = _two_layer_loss(tf)
        opt = tf.train.GradientDescentOptimizer(0.1)
        opt.minimize(loss, colocate_gradients_with_ops=True)
    return {}


def colocation(tf):
    with tf.device("/job:worker/task:0"):
        with tf.device(tf.train.replica_device_setter(ps_tasks=2)):
            v = tf.Variable(tf.ones([2]), name="v")
            w = tf.Variable(tf.ones([2]), name="w")
            with tf.colocate_with(v):
                c1 = tf.constant(1.0, name="c1")
                tf.Variable(tf.zeros([2]), name="u")  # with v: takes no ps task
                with tf.device("/job:worker/task:7"):
                    tf.constant(2.0, name="c2")
                with tf.colocate_with(w):
                    tf.add(v, w, name="c3")
                with tf.colocate_with(w, ignore_existing=True):
                    tf.identity(w, name="c4")
                with tf.colocate_with(None, ignore_existing=True):
                    tf.constant(5.0, name="c5")
            tf.Variable(tf.ones([2]), name="x")
            with tf.colocate_with(c1.op):
                tf.constant(6.0, name="c6")
            with tf.colocate_with(c1):
                tf.constant(7.0, name="c7")
        with tf.device(None):
            tf.constant(8.0, name="c8")
    return {}


def variables_inside_colocation(tf):
    with tf.device("/job:x"):
        with tf.colocate_with(None, ignore_existing=True):
            tf.Variable(1.0, name="v")  # the init_scope brings /job:x back
            tf.constant(1.0, name="k")
        with tf.device("/job:y/task:2"):
            b = tf.constant(1.0, name="b")
        with tf.colocate_with(b):
            with tf.device("/cpu:0"):
                tf.Variable(1.0, name="w")
            tf.Variable(1.0, name="u")
    return {}


def merge_devices_false(tf):
    setter = tf.train.replica_device_setter(
        ps_tasks=2, worker_device="/job:worker/task:2", merge_devices=False
    )
    with tf.device(setter):
        tf.Variable(1.0, name="a")
        with tf.device("/cpu:0"):
            tf.Variable(2.0, name="b")  # has a device: kept as is
            tf.constant(3.0, name="k")
        tf.Variable(3.0, name="c")
        tf.constant(4.0, name="k2")
    return {}


def no_ps_job(tf):
    setter = tf.train.replica_device_setter(cluster={"worker": ["w0:1", "w1:1"]})
    zero = tf.train.replica_device_setter(ps_tasks=0)
    with tf.device("/job:outer"):
        with tf.device(setter):  # None: clears the outer device
            tf.Variable(1.0, name="a")
    return {"setter_is_none": setter is None, "zero_tasks_is_none": zero is None}


PROGRAMS = {
    f.__name__: f
    for f in (
        variables_ps_tasks,
        adam_cluster,
        momentum_ps_tasks,
        adagrad_step_first,
        rmsprop_cpu_devices,
        partitioned_and_scoped,
        colocate_gradients,
        colocation,
        variables_inside_colocation,
        merge_devices_false,
        no_ps_job,
    )
}


def placement(graph) -> dict:
    """``{op name: [type, device, colocation groups or None]}`` of every op of ``graph``."""
    out = {}
    for op in graph.get_operations():
        try:
            groups = [g.decode() for g in op.get_attr("_class")]
        except ValueError:
            groups = None
        out[op.name] = [op.type, op.device, groups]
    return out
