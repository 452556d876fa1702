"""Placement as TF1: ``fr.DeviceSpec``, ``fr.colocate_with``, ``replica_device_setter``
and the ps strategies (expected values checked against TF 2.21's compat.v1; the whole
programs are compared in test_placement_tf1.py)."""

import logging
import threading

import numpy as np
import pytest

import flowrt as fr
from flowrt.contrib.training import GreedyLoadBalancingStrategy, byte_size_load_fn

D = fr.DeviceSpec


@pytest.fixture(autouse=True)
def _graph():
    with fr.Graph().as_default() as g:
        yield g


# --- DeviceSpec -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "spec, canonical",
    [
        ("/job:ps/replica:0/task:1/device:CPU:0", "/job:ps/replica:0/task:1/device:CPU:0"),
        ("/cpu:0", "/device:CPU:0"),
        ("GPU:1", "/device:GPU:1"),
        ("/gpu", "/device:GPU:*"),
        ("cpu", "/device:CPU:*"),
        ("/job:w/device:CPU:*", "/job:w/device:CPU:*"),
        ("/job:ps/task:3/CPU:2", "/job:ps/task:3/device:CPU:2"),
        ("/task:2/job:x", "/job:x/task:2"),
        ("/device:XLA_CPU:0", "/device:XLA_CPU:0"),
        ("", ""),
    ],
)
def test_device_spec_parses_and_prints_as_tf(spec, canonical):
    assert D.from_string(spec).to_string() == canonical
    with fr.device(spec):
        assert fr.constant(1.0).op.device == canonical


@pytest.mark.parametrize(
    "spec, message",
    [
        ("/job:ps/gpu:0/cpu:0", "Multiple device types are not allowed"),
        ("/foo:1", "Unknown attribute 'foo' is encountered while parsing the device spec"),
        ("/JOB:ps", "Unknown attribute 'JOB'"),
        ("/device:CPU", "Unknown attribute 'device'"),
        ("/task:1:2", "Unknown attribute 'task'"),
        ("/job:ps/task:a", "The task must be an integer, got 'a' in the device spec"),
    ],
)
def test_bad_device_specs_raise_value_error(spec, message):
    with pytest.raises(ValueError, match=message):
        D.from_string(spec)
    with pytest.raises(ValueError, match=message):
        with fr.device(spec):
            pass


def test_device_spec_fields_merge_and_replace():
    d = D(job="ps", task=1)
    assert (d.job, d.replica, d.task, d.device_type, d.device_index) == ("ps", None, 1, None, None)
    d.merge_from(D(device_type="cpu", device_index=0))  # in place, as TF1's
    assert d.to_string() == "/job:ps/task:1/device:CPU:0" and d.device_type == "CPU"
    merged = D(job="a", task=1).make_merged_spec(D(job="b"))
    assert merged.to_string() == "/job:b/task:1"
    assert D(job="ps").replace(task=2).to_string() == "/job:ps/task:2"
    d.task = "3"
    assert d.to_string() == "/job:ps/task:3/device:CPU:0"
    assert d.parse_from_string("/job:w") is d and d.to_string() == "/job:w"
    assert D(job="ps") == D.from_string("/job:ps") and D(job="ps") != D(job="w")
    assert len({D(job="ps"), D.from_string("/job:ps")}) == 1
    assert repr(D(job="ps", task=0)) == (
        "<DeviceSpec(job=ps, replica=None, task=0, device_type=None, device_index=None)>"
    )
    with pytest.raises(ValueError, match="The task must be an integer, got 'x'"):
        D(task="x")


def test_device_accepts_a_device_spec_and_functions_may_return_one():
    with fr.device(D(job="ps", task=1)):
        a = fr.constant(1.0)
    with fr.device(lambda op: D(job="w", device_type="CPU", device_index=0)):
        b = fr.constant(1.0)
    assert (a.op.device, b.op.device) == ("/job:ps/task:1", "/job:w/device:CPU:0")


# --- colocate_with ----------------------------------------------------------------------


def test_colocated_ops_get_the_group_and_device_and_ignore_outer_devices():
    with fr.device("/job:ps/task:1"):
        a = fr.constant(1.0, name="a")
    calls = []

    def fn(op):
        calls.append(op.name)
        return "/job:worker"

    with fr.device(fn), fr.colocate_with(a):
        b = fr.constant(2.0, name="b")
        with fr.device("/job:worker/task:7"):  # a device block inside: a's device wins
            c = fr.constant(3.0, name="c")
    assert calls == []  # TF1 clears the device stack inside colocate_with
    assert b.op.device == c.op.device == "/job:ps/task:1"
    assert b.op.colocation_groups() == c.op.colocation_groups() == [b"loc:@a"]
    assert b.op.get_attr("_class") == [b"loc:@a"]
    assert a.op.colocation_groups() == [b"loc:@a"]  # its own group
    assert list(b.op.node_def.attr["_class"].list.s) == [b"loc:@a"]


def test_an_op_without_device_keeps_the_inner_device():
    nodev = fr.constant(0.0, name="nodev")
    with fr.device("/job:outer"), fr.colocate_with(nodev):
        a = fr.constant(1.0)
        with fr.device("/job:inner"):
            b = fr.constant(1.0)
    assert (a.op.device, b.op.device) == ("", "/job:inner")
    assert b.op.colocation_groups() == [b"loc:@nodev"]


def test_nested_colocation_merges_groups_unless_ignore_existing():
    with fr.device("/job:ps/task:0"):
        v = fr.constant(1.0, name="v")
    with fr.device("/job:ps/task:1"):
        w = fr.constant(1.0, name="w")
    with fr.colocate_with(v):
        with fr.colocate_with(w):
            both = fr.add(v, w, name="both")
        with fr.colocate_with(w, ignore_existing=True):
            only_w = fr.identity(w, name="only_w")
        with fr.colocate_with(None, ignore_existing=True):
            free = fr.constant(5.0, name="free")
        inherited = fr.constant(0.0, name="inherited")
    with fr.colocate_with(both.op):  # its groups, not its name
        via = fr.constant(0.0, name="via")
    assert both.op.device == "/job:ps/task:1"  # the innermost colocation's device
    assert both.op.colocation_groups() == [b"loc:@v", b"loc:@w"]
    assert (only_w.op.device, only_w.op.colocation_groups()) == ("/job:ps/task:1", [b"loc:@w"])
    assert (free.op.device, free.op.colocation_groups()) == ("", [b"loc:@free"])
    assert "_class" not in free.op.attrs
    assert inherited.op.colocation_groups() == [b"loc:@v"]
    assert via.op.colocation_groups() == [b"loc:@v", b"loc:@w"]


def test_colocate_with_a_variable_a_tensor_or_the_graph_method(_graph):
    with fr.device("/job:ps/task:1"):
        v = fr.Variable(1.0, name="v")
    with fr.colocate_with(v):
        a = fr.constant(1.0)
    with _graph.colocate_with(v.value()):  # a tensor: its op (the read)
        b = fr.constant(1.0)
    assert a.op.colocation_groups() == [b"loc:@v"] and a.op.device == "/job:ps/task:1"
    assert b.op.colocation_groups() == [b"loc:@v/Read/ReadVariableOp"]


def test_reset_colocation_needs_ignore_existing():
    with pytest.raises(
        ValueError,
        match=r"^Trying to reset colocation \(op is None\) but ignore_existing is not True$",
    ):
        with fr.colocate_with(None):
            pass


def test_colocation_is_per_thread_after_switch_to_thread_local(_graph):
    with fr.device("/job:ps/task:1"):
        a = fr.constant(1.0, name="a")
    _graph.switch_to_thread_local()
    got = {}

    def other():
        got["op"] = fr.constant(2.0, name="other").op

    with fr.colocate_with(a):
        t = threading.Thread(target=lambda: _run_in(_graph, other))
        t.start()
        t.join(timeout=30)
        mine = fr.constant(3.0, name="mine")
    assert not t.is_alive()
    assert mine.op.colocation_groups() == [b"loc:@a"]
    assert got["op"].device == "" and "_class" not in got["op"].attrs


def _run_in(graph, fn):
    with graph.as_default():
        fn()


def test_a_colocated_program_runs():
    with fr.device(fr.train.replica_device_setter(ps_tasks=2)):
        x = fr.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
        w = fr.Variable(fr.ones([3, 1]), name="w")
        loss = fr.reduce_mean(fr.square(fr.matmul(x, w) - 1.0))
        step = fr.train.get_or_create_global_step()
        train = fr.train.AdamOptimizer(0.1).minimize(loss, global_step=step)
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        first = sess.run(loss)
        for _ in range(5):
            sess.run(train)
        assert sess.run(loss) < first and sess.run(step) == 5


# --- replica_device_setter --------------------------------------------------------------


def test_variables_round_robin_and_other_ops_on_the_worker():
    setter = fr.train.replica_device_setter(ps_tasks=3, worker_device="/job:worker/task:1")
    with fr.device(setter):
        vs = [fr.Variable(float(i), name="v%d" % i) for i in range(4)]
        y = vs[0] * 2.0
    assert [v.device for v in vs] == ["/job:ps/task:%d" % i for i in (0, 1, 2, 0)]
    assert y.op.device == "/job:worker/task:1"
    assert vs[1].initializer.device == vs[1].value().op.device == "/job:ps/task:1"


def test_inner_devices_merge_and_another_job_keeps_its_task():
    with fr.device(fr.train.replica_device_setter(ps_tasks=2)):
        a = fr.Variable(1.0, name="a")
        with fr.device("/job:ps/task:1"):
            b = fr.Variable(1.0, name="b")  # its task wins, the round robin advances
        with fr.device("/job:local/task:3"):
            c = fr.Variable(1.0, name="c")  # no ps task taken
        with fr.device("/cpu:0"):
            d = fr.Variable(1.0, name="d")
    assert [v.device for v in (a, b, c, d)] == [
        "/job:ps/task:0",
        "/job:ps/task:1",
        "/job:local/task:3",
        "/job:ps/task:0/device:CPU:0",
    ]


def test_cluster_gives_the_number_of_ps_tasks():
    jobs = {"ps": ["a:1", "b:1", "c:1"], "worker": ["w:1"]}
    for cluster in (fr.train.ClusterSpec(jobs), jobs):
        with fr.device(fr.train.replica_device_setter(ps_tasks=9, cluster=cluster)):
            vs = [fr.Variable(1.0) for _ in range(4)]
        assert [v.device[-1] for v in vs] == ["0", "1", "2", "0"]
    assert fr.train.replica_device_setter(cluster={"worker": ["w:1"]}) is None
    assert fr.train.replica_device_setter() is None
    other_job = fr.train.replica_device_setter(cluster={"params": ["p:1"]}, ps_device="/job:params")
    with fr.device(other_job):
        assert fr.Variable(1.0).device == "/job:params/task:0"


def test_bad_arguments_raise_type_error():
    with pytest.raises(TypeError, match="`cluster` must be a dictionary mapping"):
        fr.train.replica_device_setter(cluster=["ps:1"])
    for tasks in ("p:1", None):
        with pytest.raises(TypeError, match="The tasks for job 'ps' must be a list or a dict"):
            fr.train.replica_device_setter(cluster={"ps": tasks})
    with pytest.raises(TypeError, match="ps_strategy must be callable"):
        fr.train.replica_device_setter(ps_tasks=1, ps_strategy=3)


def test_ps_ops_strategy_and_no_merge(caplog):
    seen = []

    def strategy(op):
        seen.append(op.name)
        return 5

    setter = fr.train.replica_device_setter(ps_tasks=1, ps_ops=["Const"], ps_strategy=strategy)
    with fr.device(setter):
        k = fr.constant(1.0, name="k")
        v = fr.Variable(fr.zeros([2]), name="v")  # VarHandleOp is not in ps_ops here
    assert k.op.device == "/job:ps/task:5" and seen == ["k", "zeros"]
    assert v.device == "/job:worker"
    with caplog.at_level(logging.WARNING, logger="flowrt.train"):
        setter = fr.train.replica_device_setter(ps_tasks=2, merge_devices=False)
    assert "It is recommended to set merge_devices=true" in caplog.text
    with fr.device(setter):
        with fr.device("/cpu:0"):
            kept = fr.Variable(1.0, name="kept")
        placed = fr.Variable(1.0, name="placed")
    assert (kept.device, placed.device) == ("/device:CPU:0", "/job:ps/task:0")
    no_ps = fr.train.replica_device_setter(ps_tasks=2, ps_device="")
    with fr.device(no_ps):
        assert fr.Variable(1.0).device == "/job:worker"


def test_slots_follow_their_variable_but_take_a_ps_task_as_in_tf():
    # TF creates a slot in an init_scope that restores the device functions from outside
    # colocate_with: the round robin runs for it, colocation then sets its device.
    with fr.device(fr.train.replica_device_setter(ps_tasks=3)):
        v = fr.Variable(fr.ones([2]), name="v")
        w = fr.Variable(fr.ones([2]), name="w")
        opt = fr.train.MomentumOptimizer(0.1, 0.9)
        opt.minimize(fr.reduce_sum(v * w))
        after = fr.Variable(1.0, name="after")
    assert [x.device for x in (v, w)] == ["/job:ps/task:0", "/job:ps/task:1"]
    assert opt.get_slot(v, "momentum").device == "/job:ps/task:0"
    assert opt.get_slot(w, "momentum").device == "/job:ps/task:1"
    assert opt.get_slot(w, "momentum").op.colocation_groups() == [b"loc:@w"]
    assert after.device == "/job:ps/task:1"  # v, w, 2 slots, then after: 4 % 3


def test_keras_optimizer_slots_are_colocated():
    with fr.device(fr.train.replica_device_setter(ps_tasks=2)):
        a = fr.Variable(fr.ones([2]), name="a")
        b = fr.Variable(fr.ones([2]), name="b")
        opt = fr.keras.optimizers.Adam(0.1)
        opt.apply_gradients(zip(fr.gradients(fr.reduce_sum(a * b), [a, b]), [a, b]))
    slots = {v.op.name: v for v in opt.variables()}
    assert slots["b/Adam"].device == b.device == "/job:ps/task:1"
    assert slots["b/Adam_1"].op.colocation_groups() == [b"loc:@b"]
    assert slots["beta1_power"].op.colocation_groups() == [b"loc:@a"]


# --- GreedyLoadBalancingStrategy and byte_size_load_fn ----------------------------------


def test_greedy_load_balancing_by_byte_size():
    strategy = GreedyLoadBalancingStrategy(2, byte_size_load_fn)
    with fr.device(fr.train.replica_device_setter(ps_tasks=2, ps_strategy=strategy)):
        sizes = [100, 10, 10, 100, 10]
        vs = [fr.Variable(fr.zeros([n]), name="v%d" % i) for i, n in enumerate(sizes)]
    # loads in bytes: ps0 400; ps1 40, 80, 480; then ps0 (400 < 480)
    assert [v.device[-1] for v in vs] == ["0", "1", "1", "1", "0"]


def test_byte_size_load_fn():
    v = fr.Variable(fr.zeros([3, 4], fr.float64), name="v")
    assert byte_size_load_fn(v.op) == 96  # the variable's value, not its handle
    assert byte_size_load_fn(fr.constant([1, 2, 3]).op) == 12
    with pytest.raises(ValueError, match="must have a single output"):
        byte_size_load_fn(fr.no_op())
    p = fr.placeholder(fr.float32, [None, 2], name="p")
    with pytest.raises(ValueError, match=r"shape \(None, 2\) of the output of Placeholder op 'p'"):
        byte_size_load_fn(p.op)


def test_colocate_gradients_with_ops():
    with fr.device("/job:worker"):
        x = fr.constant(np.ones((2, 3), np.float32), name="x")
        with fr.device("/job:ps/task:1"):
            w = fr.Variable(fr.ones([3, 1]), name="w")
        y = fr.matmul(x, w, name="y")
        loss = fr.reduce_sum(y, name="loss")
        (free,) = fr.gradients(loss, [w])
        with fr.device("/job:other"):
            (placed,) = fr.gradients(loss, [w], colocate_gradients_with_ops=True)
    assert free.op.device == "/job:worker" and "_class" not in free.op.attrs
    assert placed.op.colocation_groups() == [b"loc:@y"]
    assert placed.op.device == "/job:worker"  # y's device, not the enclosing /job:other


def test_embedding_lookup_gathers_where_each_shard_is():
    with fr.device(fr.train.replica_device_setter(ps_tasks=2)):
        single = fr.Variable(fr.ones([5, 2]), name="single")
        shards = [fr.Variable(fr.ones([3, 2]), name="shard%d" % i) for i in range(2)]
        ids = fr.constant([0, 3, 4])
        one = fr.nn.embedding_lookup(single, ids, name="one")
        many = fr.nn.embedding_lookup(shards, ids, name="many")
    gathers = [op for op in fr.get_default_graph().get_operations() if op.type == "GatherV2"]
    assert [(op.device, op.colocation_groups()) for op in gathers] == [
        ("/job:ps/task:0", [b"loc:@single"]),
        ("/job:ps/task:1", [b"loc:@shard0"]),
        ("/job:ps/task:0", [b"loc:@shard1"]),
    ]
    assert one.op.device == many.op.device == "/job:worker"  # the result, off the ps
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        assert sess.run(many).shape == (3, 2) and sess.run(one).shape == (3, 2)
