"""TensorBoard as TF1 users know it: run metadata, queue-fill summaries, the graph tab's
grouping and edge counts; cross-checked with TensorBoard's own readers."""

import collections
import sys
import types

import numpy as np
import pytest

import flowrt as fr
from flowrt.graph_export import graph_def_proto
from flowrt.summary.run_metadata import CPU_DEVICE, run_metadata_proto
from flowrt.summary.writer import read_events


@pytest.fixture
def event_accumulator(monkeypatch):
    pytest.importorskip("tensorboard")
    # Have tensorboard.compat use its TF stub rather than import TensorFlow.
    monkeypatch.setitem(
        sys.modules, "tensorboard.compat.notf", types.ModuleType("tensorboard.compat.notf")
    )
    from tensorboard.backend.event_processing import event_accumulator

    return event_accumulator


def _traced_run():
    x = fr.placeholder(fr.float32, [None, 3], name="x")
    y = fr.reduce_sum(fr.nn.relu(x * 2.0, name="relu"), name="total")
    meta = fr.RunMetadata()
    with fr.Session() as sess:
        sess.run(
            y,
            {x: np.ones((4, 3), np.float32)},
            options=fr.RunOptions(trace_level=fr.RunOptions.FULL_TRACE),
            run_metadata=meta,
        )
    return meta


# --------------------------------------------------------------------------------------
# add_run_metadata
# --------------------------------------------------------------------------------------


def test_run_metadata_of_a_traced_run_becomes_step_stats():
    meta = _traced_run()
    proto = run_metadata_proto(meta)
    (dev,) = proto.step_stats.dev_stats
    assert dev.device == CPU_DEVICE
    names = [n.node_name for n in dev.node_stats]
    assert {"relu", "total"} <= set(names)
    assert names.index("relu") < names.index("total")  # as the run ordered them
    for n in dev.node_stats:
        assert n.all_start_micros > 1e15  # microseconds since the epoch
        assert n.all_end_rel_micros >= 0 and n.op_end_rel_micros == n.all_end_rel_micros
    relu = dev.node_stats[names.index("relu")]
    assert relu.timeline_label == "relu = Relu(mul)"  # as TF1 labels it


def test_run_metadata_in_tfs_structure_is_copied_field_by_field():
    node = types.SimpleNamespace(
        node_name="a",
        all_start_micros=10,
        op_start_rel_micros=1,
        op_end_rel_micros=4,
        all_end_rel_micros=5,
        timeline_label="a = Add(x, y)",
        thread_id=(1 << 40) + 7,
        output=[
            types.SimpleNamespace(
                slot=0,
                tensor_description=types.SimpleNamespace(
                    dtype=fr.float32,
                    shape=fr.TensorShape([None, 3]),
                    allocation_description=types.SimpleNamespace(requested_bytes=48),
                ),
            )
        ],
        memory=[{"allocator_name": "cpu", "total_bytes": 48}],
        not_a_field=object(),
    )
    stats = types.SimpleNamespace(
        dev_stats=[
            types.SimpleNamespace(device="/cpu:0", node_stats=[node], thread_names={7: "runner"})
        ]
    )
    proto = run_metadata_proto(types.SimpleNamespace(step_stats=stats))
    (n,) = proto.step_stats.dev_stats[0].node_stats
    assert (
        n.node_name,
        n.all_start_micros,
        n.op_start_rel_micros,
        n.op_end_rel_micros,
        n.all_end_rel_micros,
        n.thread_id,
    ) == ("a", 10, 1, 4, 5, 7)
    desc = n.output[0].tensor_description
    assert desc.dtype == 1 and [d.size for d in desc.shape.dim] == [-1, 3]
    assert desc.allocation_description.requested_bytes == 48
    assert n.memory[0].total_bytes == 48
    assert dict(proto.step_stats.dev_stats[0].thread_names) == {7: "runner"}
    with pytest.raises(TypeError, match="run_metadata must be a RunMetadata"):
        run_metadata_proto(object())


def test_add_run_metadata_writes_tagged_run_metadata(tmp_path):
    meta = _traced_run()
    with fr.summary.FileWriter(tmp_path) as writer:
        writer.add_run_metadata(meta, "step7", global_step=7)
        with pytest.raises(ValueError, match="tag was already used"):
            writer.add_run_metadata(meta, "step7")
    (event,) = [e for e in read_events(writer.path) if e.HasField("tagged_run_metadata")]
    assert event.step == 7 and event.tagged_run_metadata.tag == "step7"
    got = fr.summary.RunMetadata.FromString(event.tagged_run_metadata.run_metadata)
    assert got == run_metadata_proto(meta)


def test_event_accumulator_reads_scalars_graph_and_run_metadata(tmp_path, event_accumulator):
    ea = event_accumulator
    meta = _traced_run()
    with fr.summary.FileWriter(tmp_path, fr.get_default_graph()) as writer:
        writer.add_run_metadata(meta, "traced", 3)
        for step in range(3):
            writer.add_summary(
                fr.summary.Summary(
                    value=[fr.summary.Summary.Value(tag="loss", simple_value=1.0 / (step + 1))]
                ),
                step,
            )
    acc = ea.EventAccumulator(str(tmp_path))
    acc.Reload()
    assert acc.Tags()["run_metadata"] == ["traced"] and acc.Tags()["graph"]
    assert [(e.step, e.value) for e in acc.Scalars("loss")] == [
        (0, 1.0),
        (1, 0.5),
        (2, pytest.approx(1 / 3)),
    ]
    names = {
        n.node_name for d in acc.RunMetadata("traced").step_stats.dev_stats for n in d.node_stats
    }
    assert {"relu", "total"} <= names <= {n.name for n in acc.Graph().node}


# --------------------------------------------------------------------------------------
# Queue-fill summaries
# --------------------------------------------------------------------------------------


def test_fill_summaries_are_named_as_tf1s():
    x = fr.constant([1.0, 2.0])
    fr.train.string_input_producer(["a", "b"])
    fr.train.batch([x], 4)
    fr.train.shuffle_batch([x], 4, capacity=50, min_after_dequeue=10)
    fr.train.batch_join([[x], [x]], 4, capacity=20)
    # The names tensorflow.compat.v1 gives the same calls.
    assert [t.name for t in fr.get_collection(fr.GraphKeys.SUMMARIES)] == [
        "input_producer/fraction_of_32_full:0",
        "batch/fraction_of_32_full:0",
        "shuffle_batch/fraction_over_10_of_40_full:0",
        "batch_join/fraction_of_20_full:0",
    ]
    ops = {op.name: op for op in fr.get_default_graph().get_operations()}
    assert [t.op.name for t in ops["input_producer/Cast"].inputs] == [
        "input_producer/input_producer_Size"
    ]


def _fill(summary, sess) -> float:
    (v,) = fr.summary.Summary.FromString(sess.run(summary)).value
    return v.simple_value


def test_fill_summaries_report_the_queue_fill():
    x = fr.constant([1.0, 2.0])
    fr.train.batch([x], 2, capacity=4)
    fr.train.shuffle_batch([x], 2, capacity=6, min_after_dequeue=2)
    (fifo_fill, shuffle_fill) = fr.get_collection(fr.GraphKeys.SUMMARIES)
    (fifo_runner, shuffle_runner) = fr.get_collection(fr.GraphKeys.QUEUE_RUNNERS)
    with fr.Session() as sess:
        assert _fill(fifo_fill, sess) == 0.0 and _fill(shuffle_fill, sess) == 0.0
        for n in range(1, 5):
            sess.run(fifo_runner.enqueue_ops[0])
            sess.run(shuffle_runner.enqueue_ops[0])
            assert _fill(fifo_fill, sess) == n / 4
            assert _fill(shuffle_fill, sess) == max(0, n - 2) / 4


# --------------------------------------------------------------------------------------
# The graph tab: gradient groups and edge counts
# --------------------------------------------------------------------------------------


def _tensorboard_edges(graph_def):
    """The metaedges TensorBoard's graph tab draws between top-level groups (name scopes):
    each input of a node, data or control, is one base edge from the group holding its
    source to the group holding the node; an edge's label counts its base edges
    ("12 tensors"). Sources missing from the graph are dropped, as TensorBoard does."""
    top = {n.name: n.name.split("/")[0] for n in graph_def.node}
    edges = collections.defaultdict(list)
    for n in graph_def.node:
        for inp in n.input:
            src = inp.lstrip("^").split(":")[0]
            if src in top and top[src] != top[n.name]:
                edges[top[src], top[n.name]].append((inp, n.name))
    return edges


def _seed_question_model():
    # The model of "Understanding tensorboard: why 12 tensors sent to optimizer?".
    n = 4 * 4 * 3
    x = fr.placeholder(fr.float32, shape=(None, 4, 4, 3), name="x")
    with fr.name_scope("perceptron"):
        w = fr.Variable(fr.random_normal([n, n], stddev=1), name="W")
        b = fr.Variable(fr.random_normal([], stddev=1), name="b")
        y = fr.add(fr.matmul(fr.reshape(x, [-1, n]), w), b, name="y")
        yhat = fr.reshape(fr.nn.sigmoid(y, name="sigmoid"), [-1, 4, 4, 3], name="yhat")
    with fr.name_scope("mse"):
        cost = fr.reduce_mean(fr.reduce_mean(fr.square(x - yhat), axis=1), name="cost")
        fr.summary.scalar("cost", cost)
    with fr.name_scope("conv_opt"):
        fr.train.AdamOptimizer(0.005).minimize(cost, name="train_op")


def test_gradients_are_grouped_under_gradients():
    _seed_question_model()
    gd = graph_def_proto(fr.get_default_graph())
    grad_ops = [n.name for n in gd.node if "_grad/" in n.name]
    assert grad_ops and all(g.startswith("conv_opt/gradients/") for g in grad_ops)


def test_seed_question_edge_from_perceptron_to_the_optimizer():
    _seed_question_model()
    edges = _tensorboard_edges(graph_def_proto(fr.get_default_graph()))
    into_updates = sorted(
        src for src, dst in edges["perceptron", "conv_opt"] if dst.startswith("conv_opt/train_op/")
    )
    # What TF draws too: each ResourceApplyAdam takes its variable and the two Adam slots,
    # which live beside the variable under perceptron/.
    assert into_updates == [
        "perceptron/W",
        "perceptron/W/Adam",
        "perceptron/W/Adam_1",
        "perceptron/b",
        "perceptron/b/Adam",
        "perceptron/b/Adam_1",
    ]
    # The rest feed the gradient subgraph, with TF's gradient structure: one fused
    # SigmoidGrad(y, dy) reads sigmoid once; the Sub gradient reads each input's shape once
    # (Shape(x), Shape(yhat), BroadcastGradientArgs); the Add gradient takes Shape(MatMul)
    # as TF's SmartBroadcastGradientArgs does; the Reshape gradient uses the static shape
    # with one -1 rather than Shape(sigmoid).
    into_grads = sorted(
        (src, dst)
        for src, dst in edges["perceptron", "conv_opt"]
        if dst.startswith("conv_opt/gradients/")
    )
    assert into_grads == [
        ("perceptron/MatMul", "conv_opt/gradients/perceptron/y_grad/Shape"),
        ("perceptron/Reshape", "conv_opt/gradients/perceptron/MatMul_grad/MatMul_1"),
        ("perceptron/W/Read/ReadVariableOp", "conv_opt/gradients/perceptron/MatMul_grad/MatMul"),
        ("perceptron/sigmoid", "conv_opt/gradients/perceptron/sigmoid_grad/SigmoidGrad"),
        ("perceptron/yhat", "conv_opt/gradients/mse/sub_grad/Shape_1"),
    ]
    assert len(edges["perceptron", "conv_opt"]) == 11  # as TF's
    assert len(edges["mse", "conv_opt"]) == 8  # as TF's


def test_seed_question_edges_against_tensorflow():
    tf = pytest.importorskip("tensorflow.compat.v1")
    tf.disable_eager_execution()
    with tf.Graph().as_default() as g:
        n = 4 * 4 * 3
        x = tf.placeholder(tf.float32, shape=(None, 4, 4, 3), name="x")
        with tf.name_scope("perceptron"):
            w = tf.Variable(tf.random_normal([n, n], stddev=1), name="W")
            b = tf.Variable(tf.random_normal([], stddev=1), name="b")
            y = tf.add(tf.matmul(tf.reshape(x, [-1, n]), w), b, name="y")
            yhat = tf.reshape(tf.nn.sigmoid(y, name="sigmoid"), [-1, 4, 4, 3], name="yhat")
        with tf.name_scope("mse"):
            cost = tf.reduce_mean(tf.reduce_mean(tf.square(x - yhat), axis=1), name="cost")
        with tf.name_scope("conv_opt"):
            tf.train.AdamOptimizer(0.005).minimize(cost, name="train_op")
    theirs = _tensorboard_edges(g.as_graph_def())
    _seed_question_model()
    ours = _tensorboard_edges(graph_def_proto(fr.get_default_graph()))
    assert set(ours) == set(theirs)

    def updates(edges):
        return sorted(
            s for s, d in edges["perceptron", "conv_opt"] if d.startswith("conv_opt/train_op/")
        )

    assert updates(ours) == updates(theirs)
    assert len(ours["mse", "conv_opt"]) == len(theirs["mse", "conv_opt"])
    assert len(ours["perceptron", "conv_opt"]) == len(theirs["perceptron", "conv_opt"])

    def into_grads(edges):
        # (source, gradient op) pairs; TF names the variable read after its consumer.
        return sorted(
            (s.replace("W/Read/ReadVariableOp", "MatMul/ReadVariableOp"), d)
            for s, d in edges["perceptron", "conv_opt"]
            if d.startswith("conv_opt/gradients/")
        )

    assert into_grads(ours) == into_grads(theirs)
