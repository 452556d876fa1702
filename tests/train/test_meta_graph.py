"""Meta graphs: export_meta_graph / import_meta_graph, Saver's .meta, collections."""

import logging
import os

import numpy as np
import pytest
import trio

import flowrt as fr
from flowrt.protos.meta_graph_pb2 import MetaGraphDef, VariableDef

X = np.random.RandomState(0).randn(16, 4).astype(np.float32)
Y = (X.sum(1) > 0).astype(np.int64)
FEED = {"x:0": X, "y:0": Y}


def _model():
    x = fr.placeholder(fr.float32, [None, 4], name="x")
    y = fr.placeholder(fr.int64, [None], name="y")
    h = fr.layers.dense(
        x, 6, activation=fr.nn.relu, kernel_initializer=fr.constant_initializer(0.1)
    )
    logits = fr.layers.dense(h, 2, kernel_initializer=fr.constant_initializer(0.05), name="logits")
    loss = fr.losses.sparse_softmax_cross_entropy(y, logits)
    step = fr.train.get_or_create_global_step()
    ema = fr.train.ExponentialMovingAverage(0.9)
    with fr.control_dependencies([fr.train.AdamOptimizer(0.02).minimize(loss, global_step=step)]):
        train = ema.apply(fr.trainable_variables())
    fr.add_to_collection("train_op", train)
    fr.add_to_collection("loss", loss)
    fr.add_to_collection("note", "mlp")
    fr.add_to_collection("sizes", 6)
    return loss, train


def _train_and_save(tmp_path, steps_before=3, steps_after=3):
    """Trains, saves with a .meta, trains on; returns the checkpoint and later losses."""
    with fr.Graph().as_default():
        loss, train = _model()
        saver = fr.train.Saver()
        with fr.Session() as sess:
            sess.run(fr.global_variables_initializer())
            for _ in range(steps_before):
                sess.run(train, FEED)
            path = saver.save(sess, str(tmp_path / "model.ckpt"), global_step=steps_before)
            later = [sess.run([loss, train], FEED)[0] for _ in range(steps_after)]
    return path, later


def test_import_meta_graph_restore_and_train_on_as_if_never_stopped(tmp_path):
    path, later = _train_and_save(tmp_path)
    assert os.path.exists(path + ".meta")
    with fr.Graph().as_default() as g:
        saver = fr.train.import_meta_graph(path + ".meta")
        assert isinstance(saver, fr.train.Saver)
        train = fr.get_collection("train_op")[0]
        loss = g.get_tensor_by_name(fr.get_collection("loss")[0].name)
        with fr.Session() as sess:
            saver.restore(sess, path)
            got = [sess.run([loss, train], FEED)[0] for _ in range(3)]
            assert sess.run(fr.train.get_global_step()) == 6
    np.testing.assert_array_equal(got, later)


def test_imported_variables_are_bound_to_the_imported_ops(tmp_path):
    path, _ = _train_and_save(tmp_path, steps_after=0)
    with fr.Graph().as_default() as g:
        saver = fr.train.import_meta_graph(path + ".meta")
        trainable = fr.trainable_variables()
        assert [v.name for v in trainable] == [
            "dense/kernel:0",
            "dense/bias:0",
            "logits/kernel:0",
            "logits/bias:0",
        ]
        # One object per variable, shared by its collections.
        assert all(any(v is w for w in fr.global_variables()) for v in trainable)
        assert [v.name for v in fr.moving_average_variables()] == [v.name for v in trainable]
        assert fr.train.get_global_step().name == "global_step:0"
        w = trainable[0]
        assert w.op is g.get_operation_by_name("dense/kernel")
        assert w.initializer is g.get_operation_by_name("dense/kernel/Assign")
        assert w.trainable and w.dtype == fr.float32 and w.shape.as_list() == [4, 6]
        assert fr.get_collection("note") == [b"mlp"] and fr.get_collection("sizes") == [6]
        # A new optimizer trains the imported variables.
        loss = fr.get_collection("loss")[0]
        sgd = fr.train.GradientDescentOptimizer(0.5).minimize(loss, var_list=[w])
        with fr.Session() as sess:
            saver.restore(sess, path)
            before = sess.run(w)
            sess.run(sgd, FEED)
            assert not np.array_equal(sess.run(w), before)
            sess.run(fr.variables_initializer([w]))
            np.testing.assert_array_equal(sess.run(w), np.full((4, 6), 0.1, np.float32))


def test_import_scope_prefixes_names_and_restores(tmp_path):
    path, later = _train_and_save(tmp_path)
    with fr.Graph().as_default() as g:
        fr.constant(0.0, name="other")
        saver = fr.train.import_meta_graph(path + ".meta", import_scope="run2")
        assert g.get_operation_by_name("run2/dense/kernel").type == "VarHandleOp"
        assert fr.train.get_global_step().name == "run2/global_step:0"
        with fr.Session() as sess:
            saver.restore(sess, path)
            loss = g.get_tensor_by_name("run2/" + fr.get_collection("loss")[0].name[5:])
            train = fr.get_collection("train_op")[0]
            feed = {"run2/x:0": X, "run2/y:0": Y}
            got = [sess.run([loss, train], feed)[0] for _ in range(3)]
    np.testing.assert_array_equal(got, later)


def test_saver_save_writes_meta_only_when_asked(tmp_path):
    with fr.Graph().as_default():
        v = fr.Variable(1.0, name="v")
        saver = fr.train.Saver()
        with fr.Session() as sess:
            sess.run(v.initializer)
            saver.save(sess, str(tmp_path / "a"), write_meta_graph=False)
            saver.save(sess, str(tmp_path / "b"), meta_graph_suffix="mg")
    files = sorted(os.listdir(tmp_path))
    assert "a.meta" not in files and "b.mg" in files
    meta = MetaGraphDef.FromString((tmp_path / "b.mg").read_bytes())
    assert meta.saver_def.restore_op_name == "save/restore_all"
    assert meta.saver_def.version == meta.saver_def.V2
    (raw,) = meta.collection_def["variables"].bytes_list.value
    d = VariableDef.FromString(raw)
    assert (d.variable_name, d.initializer_name, d.snapshot_name) == (
        "v:0",
        "v/Assign",
        "v/Read/ReadVariableOp:0",
    )


def test_text_and_binary_meta_graphs_and_export_options(tmp_path):
    with fr.Graph().as_default():
        with fr.device("/cpu:0"):
            v = fr.Variable([1.0, 2.0], name="v")
        out = fr.identity(v * 3.0, name="out")
        fr.add_to_collection("outs", out)
        fr.add_to_collection("weird", object())
        saver = fr.train.Saver()
        text = str(tmp_path / "g.pbtxt")
        saver.export_meta_graph(text, as_text=True, clear_devices=True)
        with open(text) as f:
            assert f.read().startswith("meta_info_def {")
        fr.train.export_meta_graph(str(tmp_path / "g.meta"), collection_list=["outs"])
    for name, devices in (("g.pbtxt", False), ("g.meta", True)):
        with fr.Graph().as_default() as g:
            saver = fr.train.import_meta_graph(str(tmp_path / name))
            # g.meta holds no SaverDef and no variable collection: no saver.
            assert isinstance(saver, fr.train.Saver) is not devices
            assert (g.get_operation_by_name("v").device != "") is devices
            with fr.Session() as sess:
                sess.run(fr.global_variables_initializer() if not devices else "v/Assign")
                np.testing.assert_array_equal(sess.run("out:0"), [3.0, 6.0])
                if devices:
                    assert fr.get_collection("outs")[0] is g.get_tensor_by_name("out:0")


def test_collections_without_a_proto_form_are_left_out_with_a_log_warning(caplog):
    with fr.Graph().as_default():
        fr.add_to_collection("weird", object())
        fr.constant(1.0)
        with caplog.at_level(logging.WARNING, logger="flowrt.train"):
            meta = fr.train.export_meta_graph()
    assert "weird" not in meta.collection_def
    assert "collection 'weird' is left out: it holds object" in caplog.text
    with fr.Graph().as_default():
        assert fr.train.import_meta_graph(meta) is None  # no variables, no saver


def test_missing_or_damaged_files_are_errors(tmp_path):
    with pytest.raises(OSError, match="^File .*nope.meta does not exist.$"):
        fr.train.import_meta_graph(str(tmp_path / "nope.meta"))
    bad = tmp_path / "bad.meta"
    bad.write_bytes(b"\xff\xfe not a proto")
    with pytest.raises(OSError, match="neither a binary nor a text MetaGraphDef"):
        fr.train.import_meta_graph(str(bad))
    with pytest.raises(TypeError, match="must be a MetaGraphDef or a file name"):
        fr.train.import_meta_graph(3)


async def test_queue_runners_come_back_and_feed_the_queue():
    with fr.Graph().as_default():
        q = fr.FIFOQueue(4, [fr.float32], shapes=[[]], name="q")
        fr.train.add_queue_runner(fr.train.QueueRunner(q, [q.enqueue(fr.constant(7.0))]))
        q.dequeue(name="take")
        meta = fr.train.export_meta_graph()
    with fr.Graph().as_default() as g:
        fr.train.import_meta_graph(meta, import_scope="in")
        (qr,) = fr.get_collection(fr.GraphKeys.QUEUE_RUNNERS)
        assert qr.name == "in/q"
        with fr.Session() as sess:
            coord = fr.train.Coordinator()
            threads = fr.train.start_queue_runners(sess, coord=coord)
            with trio.fail_after(10):
                got = await trio.to_thread.run_sync(sess.run, g.get_tensor_by_name("in/take:0"))
            assert got == 7.0
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=10)


def test_write_graph_text_round_trip(tmp_path):
    from google.protobuf import text_format

    with fr.Graph().as_default() as g:
        a = fr.placeholder(fr.int32, [2], name="a")
        fr.reduce_sum(a * 2, name="s")
    path = fr.train.write_graph(g, str(tmp_path), "graph.pbtxt", as_text=True)
    with open(path) as f:
        gd = text_format.Parse(f.read(), fr.GraphDef())
    with fr.Graph().as_default():
        fr.import_graph_def(gd, name="")
        with fr.Session() as sess:
            assert sess.run("s:0", {"a:0": [1, 2]}) == 6


def test_tensorflow_reads_the_meta_graph_fields(tmp_path):
    tf = pytest.importorskip("tensorflow.compat.v1")
    path, _ = _train_and_save(tmp_path, steps_before=1, steps_after=0)
    variable_pb2 = pytest.importorskip("tensorflow.core.framework.variable_pb2")
    with open(path + ".meta", "rb") as f:
        data = f.read()
    meta = tf.MetaGraphDef.FromString(data)
    assert meta.saver_def.restore_op_name == "save/restore_all"
    assert len(meta.collection_def["trainable_variables"].bytes_list.value) == 4
    v = variable_pb2.VariableDef.FromString(meta.collection_def["global_step"].bytes_list.value[0])
    assert v.variable_name == "global_step:0" and v.is_resource
    ours = MetaGraphDef.FromString(data)
    assert meta.collection_def["train_op"].node_list.value == (
        ours.collection_def["train_op"].node_list.value
    )
    assert len(meta.graph_def.node) == len(ours.graph_def.node)


def test_a_tensorflow_meta_graph_imports_with_its_variables(tmp_path):
    tf = pytest.importorskip("tensorflow.compat.v1")
    path = str(tmp_path / "tf.meta")
    ones = np.ones((2, 3), np.float32)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        w = tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2), name="w")
        y = tf.nn.relu(tf.matmul(x, w) - 3.0, name="y")
        tf.add_to_collection("out", y)
        tf.train.export_meta_graph(path)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            want = sess.run(y, {x: ones})
    with fr.Graph().as_default():
        saver = fr.train.import_meta_graph(path)
        assert isinstance(saver, fr.train.Saver)  # no SaverDef: one over all variables
        assert [v.name for v in fr.trainable_variables()] == ["w:0"]
        with fr.Session() as sess:
            sess.run(fr.global_variables_initializer())
            np.testing.assert_array_equal(
                sess.run(fr.get_collection("out")[0], {"x:0": ones}), want
            )


def test_a_char_rnn_graph_with_dynamic_rnn_saves_and_is_written(tmp_path):
    # Char-RNN: the TensorArrays and loop of dynamic_rnn hold variant tensors, which
    # crashed Saver.save's meta graph and FileWriter(graph=...) with KeyError: 'variant'.
    x = fr.placeholder(fr.float32, [2, 5, 3])
    out, _ = fr.nn.dynamic_rnn(fr.nn.rnn_cell.LSTMCell(4), x, dtype=fr.float32)
    with fr.summary.FileWriter(tmp_path / "logs", graph=fr.get_default_graph()):
        pass
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        path = fr.train.Saver().save(sess, str(tmp_path / "model"))
    meta = fr.train.export_meta_graph()
    variants = [
        n.name
        for n in meta.graph_def.node
        if any(a.type == fr.variant.as_datatype_enum for a in n.attr.values())
    ]
    assert variants and os.path.exists(path + ".meta") and fr.variant.as_datatype_enum == 21
    assert fr.train.latest_checkpoint(str(tmp_path)) == path


def _meta_with_collections():
    with fr.Graph().as_default():
        v = fr.Variable(1.0, name="v")
        fr.add_to_collection("mine", v.op)
        q = fr.FIFOQueue(3, fr.float32)
        fr.train.add_queue_runner(fr.train.QueueRunner(q, [q.enqueue(1.0)]))
        return fr.train.export_meta_graph()


@pytest.mark.parametrize(
    "key, damage, msg",
    [
        ("variables", "garbage", "collection 'variables' holds bytes that are not a VariableDef"),
        (
            "queue_runners",
            "garbage",
            "collection 'queue_runners' holds bytes that are not a QueueRunnerDef",
        ),
        ("trainable_variables", "missing", "collection 'trainable_variables': variable 'nope:0'"),
        ("mine", "missing", "collection 'mine' names 'nope', which is not in the imported"),
    ],
)
def test_damaged_collections_name_the_collection_and_item(key, damage, msg):
    meta = _meta_with_collections()
    c = meta.collection_def[key]
    if damage == "garbage":
        c.bytes_list.value[0] = b"\xff\xff\xff"
    elif c.WhichOneof("kind") == "node_list":
        c.node_list.value[0] = "nope"
    else:
        d = VariableDef.FromString(c.bytes_list.value[0])
        d.variable_name = "nope:0"
        c.bytes_list.value[0] = d.SerializeToString()
    with fr.Graph().as_default():
        with pytest.raises(ValueError, match=msg):
            fr.train.import_meta_graph(meta)
