"""Placing and staging a run's ops over a cluster (no Ray needed)."""

import numpy as np
import pytest

import flowrt as fr
from flowrt._core.plan import prune
from flowrt.distributed.partition import LOCAL, PartSpec, build_part_graph, partition

CLUSTER = fr.train.ClusterSpec({"ps": ["a", "b"], "worker": ["w0", "w1"]})
OWN = ("worker", 0)


def _stages(fetches, targets=(), feeds=()):
    ops = prune(list(fetches), list(targets), set(feeds))
    return partition(ops, set(feeds), list(fetches), OWN, CLUSTER)


def _layout(stages):
    return [sorted((p.task, sorted(op.type for op in p.ops)) for p in st) for st in stages]


def test_a_training_step_reads_on_ps_computes_locally_and_applies_on_ps():
    with fr.device("/job:ps/task:1"):
        v = fr.Variable(np.ones(2, np.float32), name="v")
    x = fr.placeholder(fr.float32, [2])
    loss = fr.reduce_sum(v * v * x)
    train = fr.train.GradientDescentOptimizer(0.1).minimize(loss)
    stages = _stages([], [train], [x])
    tasks = [[p.task for p in st] for st in stages]
    # read on the ps; the gradient in the client; the update on the ps, with the train
    # op's NoOp (it waits only on the update there).
    assert [sorted(t) for t in tasks] == [[LOCAL, ("ps", 1)], [LOCAL], [("ps", 1)]]
    # The variable's handle op is made again by each part that needs it.
    (read,) = [p for p in stages[0] if p.task != LOCAL]
    assert "ReadVariableOp" in [op.type for op in read.ops]
    applies = [op.type for op in stages[2][0].ops]
    assert "VarHandleOp" in applies and "ResourceApplyGradientDescent" in applies
    assert applies[-1] == "NoOp"


def test_a_global_step_update_after_the_updates_joins_their_part():
    with fr.device("/job:ps/task:0"):
        v = fr.Variable(np.ones(2, np.float32), name="v")
        step = fr.train.get_or_create_global_step()
    x = fr.placeholder(fr.float32, [2])
    loss = fr.reduce_sum(v * v * x)
    train = fr.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
    stages = _stages([loss], [train], [x])
    # The update NoOp waits only on the ps: the global step's AssignAdd follows it in
    # the same part (one call, not two).
    assert [sorted(p.task for p in st) for st in stages] == [
        [LOCAL, ("ps", 0)],
        [LOCAL],
        [("ps", 0)],
    ]
    assert "AssignAddVariableOp" in [op.type for op in stages[2][0].ops]


def test_a_no_input_op_waiting_on_two_tasks_stays_in_the_client():
    with fr.device("/job:ps/task:0"):
        a = fr.Variable(1.0, name="a")
    with fr.device("/job:ps/task:1"):
        b = fr.Variable(2.0, name="b")
    both = fr.group(a.assign_add(1.0), b.assign_add(1.0))
    (last,) = [p for p in _stages([], [both])[-1] if both in p.ops]
    assert last.task == LOCAL


def test_ops_placed_on_the_own_task_run_in_the_client_and_others_on_their_task():
    a = fr.placeholder(fr.float32, [])
    with fr.device("/job:worker/task:0"):
        b = a * 2.0
    with fr.device("/job:worker/task:1"):
        c = b + 1.0
    d = c - 3.0
    stages = _stages([d], feeds=[a])
    assert [[p.task for p in st] for st in stages] == [[LOCAL], [("worker", 1)], [LOCAL]]
    # Values cross stages as inputs and outputs of the parts.
    assert stages[1][0].inputs == [b] and stages[1][0].outputs == [c]


def test_constants_go_with_their_consumer_and_cost_no_stage():
    with fr.device("/job:ps/task:0"):
        v = fr.Variable(0.0, name="v")
    inc = v.assign_add(1.0)
    stages = _stages([inc])
    assert len(stages) == 1 and stages[0][0].task == ("ps", 0)
    assert "Const" in [op.type for op in stages[0][0].ops]


def test_a_resource_op_runs_where_its_handle_is():
    with fr.device("/job:ps/task:0"):
        q = fr.FIFOQueue(3, [fr.float32], shapes=[[]])
    with fr.device("/job:worker/task:1"):
        deq = q.dequeue()  # TF's placer colocates it with the queue
    stages = _stages([deq])
    assert [[p.task for p in st] for st in stages] == [[("ps", 0)]]


def test_placement_errors_name_the_op():
    one = fr.constant(1.0)
    with fr.device("/job:nope/task:0"):
        c = one + 1.0
    with pytest.raises(fr.errors.InvalidArgumentError, match="operation add.*job:nope"):
        _stages([c])
    with fr.device("/job:ps/task:5"):
        d = one + 1.0
    with pytest.raises(fr.errors.InvalidArgumentError, match="task:5"):
        _stages([d])


def test_a_shipped_part_rebuilds_and_runs_alike():
    from flowrt._core.plan import Plan
    from flowrt._core.resources import ResourceManager
    from flowrt._core.run_context import RunContext

    x = fr.placeholder(fr.float32, [None])
    with fr.device("/job:ps/task:0"):
        y = fr.reduce_sum(fr.exp(x) * 2.0)
    (st,) = [s for s in _stages([y], feeds=[x]) if s[0].task != LOCAL]
    part = st[0]
    g, ops, ins, outs = build_part_graph(PartSpec(part).dumps())
    plan = Plan(outs, [], ins, ops=ops)
    got = plan.fn(RunContext(None, ResourceManager()), [np.array([0.0, 1.0], np.float32)])
    np.testing.assert_allclose(got[0], 2 * (1 + np.e), rtol=1e-6)
    assert [op.name for op in ops] == [op.name for op in part.ops]


def test_a_py_func_placed_on_another_task_is_refused():
    x = fr.placeholder(fr.float32, [])
    with fr.device("/job:ps/task:0"):
        y = fr.py_func(lambda a: a * 2, [x], fr.float32)
    (st,) = [s for s in _stages([y], feeds=[x]) if s[0].task != LOCAL]
    with pytest.raises(fr.errors.UnimplementedError, match="client process"):
        PartSpec(st[0]).dumps()


def test_cluster_spec_as_tf1():
    spec = fr.train.ClusterSpec({"ps": ["h:1"], "worker": {1: "h:3", 0: "h:2"}})
    assert spec.jobs == ["ps", "worker"]
    assert spec.num_tasks("worker") == 2 and spec.task_indices("worker") == [0, 1]
    assert spec.task_address("worker", 1) == "h:3"
    assert spec.job_tasks("worker") == ["h:2", "h:3"]
    assert spec.as_dict() == {"ps": ["h:1"], "worker": ["h:2", "h:3"]}
    assert fr.train.ClusterSpec({"w": {2: "x"}}).as_dict() == {"w": {2: "x"}}
    assert spec == fr.train.ClusterSpec(spec) and bool(spec)
    with pytest.raises(ValueError):
        spec.num_tasks("chief")
    with pytest.raises(ValueError):
        spec.task_address("ps", 3)
    with pytest.raises(TypeError):
        fr.train.ClusterSpec({"ps": "h:1"})
    with pytest.raises(ValueError, match="unique"):
        fr.train.ClusterSpec({"ps": ["h:1"], "worker": ["h:1"]})
