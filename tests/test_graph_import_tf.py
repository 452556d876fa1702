"""What TF 2.21's ``compat.v1`` writes, imported and run by flowrt: the committed fixtures
of ``tests/fixtures/tf_graphs`` (ref and resource variables, Adam through a queue input
pipeline, a SavedModel, frozen while loops and conds), the rewrite of TF's ref forms
(``graph_import_tf``), and cross-checks with a live TF when it is installed."""

import importlib.util
import os

import numpy as np
import pytest

import flowrt as fr
from flowrt.graph_import_tf import to_flowrt_forms
from flowrt.protos.graph_pb2 import GraphDef
from flowrt.train.meta_graph import read_meta_graph_file

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "tf_graphs")
_spec = importlib.util.spec_from_file_location(
    "make_tf_graphs", os.path.join(FIXTURE, "make_fixture.py")
)
_fixture = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_fixture)
EXPECTED = dict(np.load(os.path.join(FIXTURE, "expected.npz")))

# Same float32 ops as TF's, summed in another order: a few ulps apart.
RTOL = 1e-5


def _import_and_restore(sess, directory, prefix):
    saver = fr.train.import_meta_graph(os.path.join(FIXTURE, directory, prefix + ".meta"))
    saver.restore(sess, os.path.join(FIXTURE, directory, prefix))
    return saver


@pytest.mark.parametrize("kind", ["ref", "resource"])
def test_tf_meta_graph_and_checkpoint_of_the_softmax_model_run_with_tf_values(kind):
    with fr.Graph().as_default() as g, fr.Session() as sess:
        _import_and_restore(sess, "softmax_" + kind, "model.ckpt")
        probs = sess.run("probs:0", {"x:0": _fixture.X_SOFTMAX})
        np.testing.assert_allclose(probs, EXPECTED["softmax_%s/probs" % kind], rtol=RTOL)
        # The VariableDefs became fr.Variables over resource ops, in their collections.
        names = [v.op.name for v in fr.trainable_variables()]
        assert names == ["w", "b"]
        assert g.get_operation_by_name("w").type == "VarHandleOp"
        assert g.get_operation_by_name("w/Assign").type == "AssignVariableOp"


@pytest.mark.parametrize("kind", ["ref", "resource"])
def test_tf_initializers_run_in_flowrt(kind):
    # The fixture's probs were computed right after TF ran the initializers.
    with fr.Graph().as_default(), fr.Session() as sess:
        fr.train.import_meta_graph(os.path.join(FIXTURE, "softmax_" + kind, "model.ckpt.meta"))
        assert sess.run(fr.report_uninitialized_variables()).tolist() == [b"w", b"b"]
        sess.run(fr.global_variables_initializer())
        probs = sess.run("probs:0", {"x:0": _fixture.X_SOFTMAX})
    np.testing.assert_allclose(probs, EXPECTED["softmax_%s/probs" % kind], rtol=RTOL)


def _stop(sess, g, coord, threads):
    coord.request_stop()
    sess.run(g.get_operation_by_name("input_queue_Close_1"))
    coord.join(threads)


@pytest.mark.parametrize("kind", ["ref", "resource"])
def test_tf_adam_queue_model_keeps_training_in_flowrt_as_it_would_in_tf(kind, tmp_path):
    name = "adam_queue_" + kind
    prefix = "model.ckpt-%d" % _fixture.STEPS
    with fr.Graph().as_default() as g, fr.Session() as sess:
        saver = _import_and_restore(sess, name, prefix)
        (train_op,) = set(fr.get_collection(fr.GraphKeys.TRAIN_OP))
        step = fr.train.get_global_step()
        loss, x, y = (g.get_tensor_by_name(n) for n in ("loss:0", "batch:0", "batch:1"))
        assert sess.run(step) == _fixture.STEPS
        restored = _fixture.full_loss(sess, loss, x, y)
        np.testing.assert_allclose(restored, EXPECTED[name + "/loss"], rtol=RTOL)
        assert [s.name for s in fr.get_collection(fr.GraphKeys.SUMMARIES)] == ["loss_1:0"]

        coord = fr.train.Coordinator()
        threads = fr.train.start_queue_runners(sess, coord)
        for _ in range(_fixture.STEPS):
            sess.run(train_op)
        _stop(sess, g, coord, threads)
        assert sess.run(step) == 2 * _fixture.STEPS
        trained = _fixture.full_loss(sess, loss, x, y)
        assert trained < restored
        # The same batches in the same order: the loss TF reached continuing itself.
        np.testing.assert_allclose(trained, EXPECTED[name + "/loss_continued"], rtol=RTOL)
        saved = saver.save(sess, str(tmp_path / "model.ckpt"), global_step=step)
        w = sess.run(
            g.get_tensor_by_name("w/read:0" if kind == "ref" else "w/Read/ReadVariableOp:0")
        )
    assert saved.endswith("model.ckpt-%d" % (2 * _fixture.STEPS))
    reader = fr.train.load_checkpoint(saved)
    np.testing.assert_array_equal(reader.get_tensor("w"), w)
    assert reader.get_tensor("global_step") == 2 * _fixture.STEPS
    assert sorted(reader.get_variable_to_shape_map()) == sorted(
        ["b", "b/Adam", "b/Adam_1", "beta1_power", "beta2_power", "global_step"]
        + ["w", "w/Adam", "w/Adam_1"]
    )


def test_tf_restores_flowrts_save_of_the_imported_model_and_continues(tmp_path):
    tf = pytest.importorskip("tensorflow.compat.v1")
    tf.disable_eager_execution()
    name, prefix = "adam_queue_ref", "model.ckpt-%d" % _fixture.STEPS
    with fr.Graph().as_default(), fr.Session() as sess:
        saver = _import_and_restore(sess, name, prefix)
        saved = saver.save(sess, str(tmp_path / "model.ckpt"), global_step=_fixture.STEPS)
    with tf.Graph().as_default() as g, tf.Session() as sess:
        tf_saver = tf.train.import_meta_graph(os.path.join(FIXTURE, name, prefix + ".meta"))
        tf_saver.restore(sess, saved)
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        for _ in range(_fixture.STEPS):
            sess.run("Adam")
        _stop(sess, g, coord, threads)
        assert sess.run("global_step:0") == 2 * _fixture.STEPS
        loss, x, y = (g.get_tensor_by_name(n) for n in ("loss:0", "batch:0", "batch:1"))
        trained = _fixture.full_loss(sess, loss, x, y)
    np.testing.assert_allclose(trained, EXPECTED[name + "/loss_continued"], rtol=RTOL)


# --- the rewrite of TF's ref forms, on small hand-written GraphDefs -------------------


def _graph_def(text):
    from google.protobuf import text_format

    return text_format.Parse(text, GraphDef())


_REF_GRAPH = """
node { name: "v" op: "VariableV2"
       attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "one" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } }
                                            float_val: 1.0 } } } }
node { name: "v/Assign" op: "Assign" input: "v" input: "one"
       attr { key: "T" value { type: DT_FLOAT } } }
node { name: "lr" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 0.5 } } } }
node { name: "sgd" op: "ApplyGradientDescent" input: "v" input: "lr" input: "one"
       attr { key: "T" value { type: DT_FLOAT } } }
node { name: "after" op: "Neg" input: "sgd" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "gated" op: "Mul" input: "v" input: "one" input: "^sgd"
       attr { key: "T" value { type: DT_FLOAT } } }
"""


def test_ref_ops_become_resource_ops_reading_when_tfs_would():
    gd = to_flowrt_forms(_graph_def(_REF_GRAPH))
    nodes = {n.name: n for n in gd.node}
    assert nodes["v"].op == "VarHandleOp"
    assert (nodes["v/Assign"].op, list(nodes["v/Assign"].input)) == (
        "AssignVariableOp",
        ["v", "one"],
    )
    assert nodes["sgd"].op == "ResourceApplyGradientDescent"
    # A consumer of the ref reads under its own control inputs (after the update).
    read = nodes[nodes["gated"].input[0]]
    assert (read.op, list(read.input)) == ("ReadVariableOp", ["v", "^sgd"])
    # An Apply op's output is the variable as it updated it.
    read = nodes[nodes["after"].input[0]]
    assert (read.op, list(read.input)) == ("ReadVariableOp", ["v", "^sgd"])
    with fr.Graph().as_default() as g, fr.Session() as sess:
        fr.import_graph_def(gd, name="")
        sess.run("v/Assign")
        np.testing.assert_array_equal(sess.run("gated:0"), [0.5, 0.5])
        np.testing.assert_array_equal(sess.run("after:0"), [0.0, 0.0])
        assert g.get_operation_by_name("v").type == "VarHandleOp"


def test_a_ref_passed_on_by_an_assign_orders_the_next_update_after_it():
    gd = _graph_def(
        _REF_GRAPH
        + """node { name: "again" op: "AssignAdd" input: "v/Assign" input: "one"
                    attr { key: "T" value { type: DT_FLOAT } } }"""
    )
    nodes = {n.name: n for n in to_flowrt_forms(gd).node}
    assert list(nodes["again"].input) == ["v", "one", "^v/Assign"]
    with fr.Graph().as_default(), fr.Session() as sess:
        fr.import_graph_def(gd, name="")
        np.testing.assert_array_equal(sess.run("again:0"), [2.0, 2.0])


def test_ref_variables_imported_twice_under_scopes_are_two_variables():
    gd = _graph_def(_REF_GRAPH)
    with fr.Graph().as_default() as g, fr.Session() as sess:
        fr.import_graph_def(gd, name="a")
        fr.import_graph_def(gd, name="b")
        # Named by their ops, as TF's ref kernels name them (an empty shared_name would
        # be one variable for every VarHandleOp, in TF as in flowrt).
        assert [g.get_operation_by_name(n + "/v").attrs["shared_name"] for n in "ab"] == [
            "a/v",
            "b/v",
        ]
        sess.run(["a/v/Assign", "b/v/Assign"])
        # "gated" runs one step of "sgd" (1 - 0.5 * 1) before it reads.
        np.testing.assert_array_equal(sess.run("a/gated:0"), [0.5, 0.5])
        np.testing.assert_array_equal(sess.run("a/gated:0"), [0.0, 0.0])
        np.testing.assert_array_equal(sess.run("b/gated:0"), [0.5, 0.5])


def test_a_ref_op_on_a_value_is_a_value_error_naming_the_node():
    gd = _graph_def(
        _REF_GRAPH
        + """node { name: "bad" op: "Assign" input: "one" input: "one"
                    attr { key: "T" value { type: DT_FLOAT } } }"""
    )
    with pytest.raises(
        ValueError, match=r"^Node 'bad' \(Assign\): input 0 \('one'\) must be a ref"
    ):
        to_flowrt_forms(gd)


def test_an_unknown_tf_op_is_still_not_found_naming_type_and_node():
    gd = _graph_def(_REF_GRAPH + 'node { name: "odd" op: "NoSuchTfOp" input: "v" }')
    with fr.Graph().as_default():
        with pytest.raises(
            fr.errors.NotFoundError,
            match=r"^Op type not registered 'NoSuchTfOp' in binary running flowrt \(node 'odd'\)",
        ):
            fr.import_graph_def(gd)


def test_tf_saved_model_is_served_by_its_signature_with_tf_values():
    with fr.Session(graph=fr.Graph()) as sess:
        meta = fr.saved_model.loader.load(
            sess, [fr.saved_model.tag_constants.SERVING], os.path.join(FIXTURE, "saved_model")
        )
        sig = meta.signature_def[
            fr.saved_model.signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY
        ]
        x = fr.saved_model.utils.get_tensor_from_tensor_info(sig.inputs["x"], sess.graph)
        probs = fr.saved_model.utils.get_tensor_from_tensor_info(sig.outputs["probs"], sess.graph)
        got = sess.run(probs, {x: _fixture.X_SOFTMAX})
    np.testing.assert_allclose(got, EXPECTED["saved_model/probs"], rtol=RTOL)


# --- control flow and functions -------------------------------------------------------


def _frozen(name):
    with open(os.path.join(FIXTURE, name + ".pb"), "rb") as f:
        return GraphDef.FromString(f.read())


_CONTROL_FLOW = [
    ("while", "n:0", [0, 3]),
    ("cond", "p:0", [[1.0, 2.0], [-1.0, -2.0]]),
    ("nested", "n:0", [0, 4]),
]


@pytest.mark.parametrize("form", ["v1", "v2"])
@pytest.mark.parametrize(("kind", "feed", "values"), _CONTROL_FLOW)
def test_tf_frozen_control_flow_runs_with_tf_values(kind, feed, values, form):
    name = "%s_%s" % (kind, form)
    with fr.Graph().as_default(), fr.Session() as sess:
        fr.import_graph_def(_frozen(name), name="")
        got = [sess.run("result:0", {feed: v}) for v in values]
    for g, want in zip(got, EXPECTED[name + "/result"], strict=True):
        np.testing.assert_array_equal(g, want)


def test_tf_functional_while_is_a_flowrt_while_loop_named_as_the_node():
    with fr.Graph().as_default() as g:
        (loop,) = fr.import_graph_def(_frozen("while_v2"), return_elements=["loop"], name="")
        # The node is the loop's results, in TF's output order (counter, limit, vars...).
        assert loop.name == "loop" and len(loop.outputs) == 5
        assert {op.type for op in g.get_operations()} & {"While", "StatelessWhile"}
        # flowrt's loop differentiates like one built in Python.
        (grad,) = fr.gradients(g.get_tensor_by_name("result:0"), [g.get_tensor_by_name("acc0:0")])
        with fr.Session() as sess:
            assert sess.run(grad, {"n:0": 3}) == 8.0  # d(8 a + 7)/da


@pytest.mark.parametrize("form", ["v1", "v2"])
def test_tf_tensor_arrays_of_map_fn_and_scan_run_as_flowrt_tensor_arrays(form):
    e = np.arange(12, dtype=np.float32).reshape(4, 3)
    with fr.Graph().as_default() as g, fr.Session() as sess:
        fr.import_graph_def(_frozen("lists_" + form), name="")
        arrays = [op for op in g.get_operations() if op.type == "TensorArrayV3"]
        assert arrays and all(len(op.outputs) == 1 for op in arrays)
        mapped, scanned = sess.run(["mapped:0", "scanned:0"], {"e:0": e})
    np.testing.assert_array_equal(mapped, EXPECTED["lists_%s/map" % form])
    np.testing.assert_array_equal(scanned, EXPECTED["lists_%s/scan" % form])


def test_tf1_switch_merge_loop_becomes_a_flowrt_while_keeping_the_exit_names():
    with fr.Graph().as_default() as g:
        fr.import_graph_def(_frozen("while_v1"), name="")
        types = {op.type for op in g.get_operations()}
        assert not types & {"Enter", "Merge", "Switch", "NextIteration", "Exit", "LoopCond"}
        assert g.get_operation_by_name("loop/Exit_1").type == "Identity"
        (grad,) = fr.gradients(g.get_tensor_by_name("result:0"), [g.get_tensor_by_name("acc0:0")])
        with fr.Session() as sess:
            assert sess.run(grad, {"n:0": 3}) == 8.0


def test_tf_function_calls_run_inline_with_tf_values():
    with fr.Graph().as_default(), fr.Session() as sess:
        fr.import_graph_def(_frozen("call"), name="")
        got = sess.run(["result:0", "total:0", "idx:0"], {"x:0": [-1.0, 2.0, -1.0]})
    for name, value in zip(["result", "total", "idx"], got, strict=True):
        np.testing.assert_array_equal(value, EXPECTED["call/" + name])
    assert EXPECTED["call/idx"].tolist() == [0, 1, 0]  # Unique:idx, its output 1


def test_a_calls_control_inputs_gate_every_op_of_the_inlined_function():
    gd = _frozen("call")
    gd.node.add(name="gate", op="NoOp")
    (call,) = [n for n in gd.node if n.op == "PartitionedCall"]
    call.input.append("^gate")
    with fr.Graph().as_default() as g:
        fr.import_graph_def(gd, name="")
        inner = [op for op in g.get_operations() if op.name.startswith(call.name + "/")]
        sources = [op for op in inner if not op.inputs]
        assert sources and all(
            g.get_operation_by_name("gate") in op.control_inputs for op in sources
        )


def test_a_function_missing_from_the_library_is_a_value_error_naming_it():
    gd = _frozen("call")
    del gd.library.function[:]
    with fr.Graph().as_default():
        with pytest.raises(ValueError, match=r"function '__inference_outer_\d+' is not in the"):
            fr.import_graph_def(gd, name="")


_OPTIMIZERS = [
    ("GradientDescentOptimizer", (0.1,)),
    ("MomentumOptimizer", (0.1, 0.9)),
    ("AdagradOptimizer", (0.1,)),
    ("AdamOptimizer", (0.1,)),
    ("RMSPropOptimizer", (0.1,)),
    ("AdadeltaOptimizer", (1.0,)),
    ("FtrlOptimizer", (0.1,)),
    ("ProximalAdagradOptimizer", (0.1,)),
    ("ProximalGradientDescentOptimizer", (0.1,)),
]


@pytest.mark.parametrize("resource", [False, True], ids=["ref", "resource"])
@pytest.mark.parametrize(("optimizer", "args"), _OPTIMIZERS, ids=[o for o, _ in _OPTIMIZERS])
def test_each_tf_optimizers_update_ops_continue_in_flowrt_as_in_tf(
    optimizer, args, resource, tmp_path
):
    """TF trains 2 steps, saves, trains a third; flowrt restores and trains the third with
    the imported train_op: dense (``Apply*``) and sparse (``SparseApply*``/``Scatter*``,
    from an embedding lookup) updates of every optimizer flowrt has."""
    tf = pytest.importorskip("tensorflow.compat.v1")
    tf.disable_eager_execution()
    (tf.enable_resource_variables if resource else tf.disable_resource_variables)()
    x = np.array([[1.0, -2.0, 0.5, 3.0], [0.0, 1.0, -1.0, 2.0]], np.float32)
    try:
        with tf.Graph().as_default():
            xs = tf.placeholder(tf.float32, [None, 4], name="x")
            w = tf.Variable(_fixture.W0, name="w")
            table = tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2) / 5, name="table")
            rows = tf.nn.embedding_lookup(table, tf.constant([0, 2, 0]))
            loss = tf.reduce_sum(tf.square(tf.matmul(xs, w))) + tf.reduce_sum(tf.sin(rows))
            step = tf.train.get_or_create_global_step()
            train = getattr(tf.train, optimizer)(*args).minimize(loss, global_step=step)
            tf.add_to_collection(tf.GraphKeys.TRAIN_OP, train)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                for _ in range(2):
                    sess.run(train, {xs: x})
                prefix = tf.train.Saver().save(sess, str(tmp_path / "model.ckpt"))
                sess.run(train, {xs: x})
                want = sess.run([w, table])
    finally:
        tf.enable_resource_variables()
    with fr.Graph().as_default(), fr.Session() as sess:
        fr.train.import_meta_graph(prefix + ".meta").restore(sess, prefix)
        (train_op,) = set(fr.get_collection(fr.GraphKeys.TRAIN_OP))
        sess.run(train_op, {"x:0": x})
        got = sess.run(fr.global_variables()[:2])
        assert sess.run(fr.train.get_global_step()) == 3
    for g, t in zip(got, want, strict=True):
        np.testing.assert_allclose(g, t, rtol=RTOL, atol=1e-7)


@pytest.mark.parametrize("resource", [False, True], ids=["ref", "resource"])
def test_tf_partitioned_variable_restores_through_the_imported_saver(resource, tmp_path):
    # TF's resource saver reads a sliced variable after DisableCopyOnRead (a NoOp here).
    tf = pytest.importorskip("tensorflow.compat.v1")
    tf.disable_eager_execution()
    (tf.enable_resource_variables if resource else tf.disable_resource_variables)()
    value = np.arange(12, dtype=np.float32).reshape(4, 3)
    try:
        with tf.Graph().as_default():
            part = tf.get_variable(
                "part", initializer=tf.constant(value), partitioner=tf.fixed_size_partitioner(2)
            )
            tf.reduce_sum(tf.convert_to_tensor(part) * 2.0, name="y")
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                prefix = tf.train.Saver().save(sess, str(tmp_path / "model.ckpt"))
    finally:
        tf.enable_resource_variables()
    with fr.Graph().as_default(), fr.Session() as sess:
        fr.train.import_meta_graph(prefix + ".meta").restore(sess, prefix)
        assert sess.run("y:0") == 2 * value.sum()


def test_a_saver_of_the_savers_collection_restores_the_imported_variables():
    # TF's MonitoredTrainingSession keeps its Scaffold's saver in "savers": it binds to
    # variables of the "variables" collection, which sorts after it.
    meta = read_meta_graph_file(os.path.join(FIXTURE, "softmax_ref", "model.ckpt.meta"))
    meta.collection_def["savers"].bytes_list.value.append(meta.saver_def.SerializeToString())
    with fr.Graph().as_default(), fr.Session() as sess:
        fr.train.import_meta_graph(meta)
        (saver,) = fr.get_collection(fr.GraphKeys.SAVERS)
        saver.restore(sess, os.path.join(FIXTURE, "softmax_ref", "model.ckpt"))
        probs = sess.run("probs:0", {"x:0": _fixture.X_SOFTMAX})
    np.testing.assert_allclose(probs, EXPECTED["softmax_ref/probs"], rtol=RTOL)


def test_flowrt_monitored_session_continues_tfs_checkpoint_dir(tmp_path):
    tf = pytest.importorskip("tensorflow.compat.v1")
    tf.disable_eager_execution()
    tf.disable_resource_variables()
    x = _fixture.X_SOFTMAX
    try:
        with tf.Graph().as_default():
            xs = tf.placeholder(tf.float32, [None, 4], name="x")
            w = tf.get_variable("w", initializer=tf.constant(_fixture.W0))
            loss = tf.reduce_mean(tf.square(tf.matmul(xs, w)), name="loss")
            tf.summary.scalar("loss", loss)
            step = tf.train.get_or_create_global_step()
            train = tf.train.GradientDescentOptimizer(0.01).minimize(loss, global_step=step)
            with tf.train.MonitoredTrainingSession(
                checkpoint_dir=str(tmp_path), save_checkpoint_steps=5
            ) as sess:
                for _ in range(5):
                    sess.run(train, {xs: x})
    finally:
        tf.enable_resource_variables()
    with fr.Graph().as_default():
        fr.train.import_meta_graph(fr.train.latest_checkpoint(str(tmp_path)) + ".meta")
        (train_op,) = set(fr.get_collection(fr.GraphKeys.TRAIN_OP))
        with fr.train.MonitoredTrainingSession(
            checkpoint_dir=str(tmp_path), save_checkpoint_steps=5
        ) as sess:
            losses = [sess.run(["loss:0", train_op], {"x:0": x})[0] for _ in range(5)]
            assert sess.run(fr.train.get_global_step(), {"x:0": x}) == 10
    assert losses == sorted(losses, reverse=True)
    assert fr.train.latest_checkpoint(str(tmp_path)).endswith("model.ckpt-10")


@pytest.mark.parametrize("resource", [False, True], ids=["ref", "resource"])
def test_tf_savers_var_list_names_are_the_imported_savers_checkpoint_keys(resource, tmp_path):
    tf = pytest.importorskip("tensorflow.compat.v1")
    tf.disable_eager_execution()
    (tf.enable_resource_variables if resource else tf.disable_resource_variables)()
    try:
        with tf.Graph().as_default():
            w = tf.Variable(_fixture.W0, name="w")
            tf.identity(w.read_value(), name="y")
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                saver = tf.train.Saver({"old_scope/weights": w})
                prefix = saver.save(sess, str(tmp_path / "model.ckpt"))
    finally:
        tf.enable_resource_variables()
    with fr.Graph().as_default(), fr.Session() as sess:
        fr.train.import_meta_graph(prefix + ".meta").restore(sess, prefix)
        np.testing.assert_array_equal(sess.run("y:0"), _fixture.W0)


def test_the_imported_saver_reads_the_checkpoint_keys_tfs_restore_names(tmp_path):
    # As TF's Saver({"bias": b, "weights": w}) writes it: RestoreV2 reads those keys.
    meta = read_meta_graph_file(os.path.join(FIXTURE, "softmax_ref", "model.ckpt.meta"))
    (names,) = [n for n in meta.graph_def.node if n.name == "save/RestoreV2/tensor_names"]
    assert list(names.attr["value"].tensor.string_val) == [b"b", b"w"]
    names.attr["value"].tensor.string_val[:] = [b"bias", b"weights"]
    with fr.Graph().as_default(), fr.Session() as sess:
        w = fr.Variable(np.ones((4, 3), np.float32))
        b = fr.Variable(np.full(3, 2.0, np.float32))
        sess.run(fr.global_variables_initializer())
        prefix = fr.train.Saver({"bias": b, "weights": w}).save(sess, str(tmp_path / "m"))
    with fr.Graph().as_default(), fr.Session() as sess:
        fr.train.import_meta_graph(meta).restore(sess, prefix)
        np.testing.assert_array_equal(sess.run("w/read:0"), np.ones((4, 3)))
        np.testing.assert_array_equal(sess.run("b/read:0"), np.full(3, 2.0))


_PARSE_GRAPH = """
node { name: "ser" op: "Placeholder" attr { key: "dtype" value { type: DT_STRING } }
       attr { key: "shape" value { shape {} } } }
node { name: "names" op: "Const" attr { key: "dtype" value { type: DT_STRING } }
       attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { dim {} } } } } }
node { name: "sparse_keys" op: "Const" attr { key: "dtype" value { type: DT_STRING } }
       attr { key: "value" value { tensor { dtype: DT_STRING
                                            tensor_shape { dim { size: 1 } } string_val: "s" } } } }
node { name: "dense_keys" op: "Const" attr { key: "dtype" value { type: DT_STRING } }
       attr { key: "value" value { tensor { dtype: DT_STRING
                                            tensor_shape { dim { size: 1 } } string_val: "x" } } } }
node { name: "ragged_keys" op: "Const" attr { key: "dtype" value { type: DT_STRING } }
       attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { dim {} } } } } }
node { name: "default" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim {} } } } } }
node { name: "parse" op: "ParseExampleV2"
       input: "ser" input: "names" input: "sparse_keys" input: "dense_keys"
       input: "ragged_keys" input: "default"
       attr { key: "num_sparse" value { i: 1 } }
       attr { key: "sparse_types" value { list { type: DT_INT64 } } }
       attr { key: "ragged_value_types" value { list {} } }
       attr { key: "ragged_split_types" value { list {} } }
       attr { key: "Tdense" value { list { type: DT_FLOAT } } }
       attr { key: "dense_shapes" value { list { shape { dim { size: 2 } } } } } }
"""


def test_tfs_parse_example_v2_of_one_serialized_example_imports():
    # What TF 2.21's parse_single_example writes: the keys are constant inputs, and a
    # scalar input parses one example with no batch dimension.
    from flowrt.protos.example_pb2 import Example

    ex = Example()
    ex.features.feature["x"].float_list.value.extend([1.5, -2.0])
    ex.features.feature["s"].int64_list.value.extend([7, 8, 9])
    with fr.Graph().as_default() as g, fr.Session() as sess:
        fr.import_graph_def(_graph_def(_PARSE_GRAPH), name="")
        parse = g.get_operation_by_name("parse")
        assert [o.shape.as_list() for o in parse.outputs] == [[None, 1], [None], [1], [2]]
        idx, vals, shape, x = sess.run(parse.outputs, {"ser:0": ex.SerializeToString()})
    assert idx.tolist() == [[0], [1], [2]] and vals.tolist() == [7, 8, 9]
    assert shape.tolist() == [3] and x.tolist() == [1.5, -2.0]


def test_tf1_record_pipeline_keeps_training_in_flowrt(tmp_path):
    """string_input_producer (epochs in a local variable's CountUpTo), TFRecordReader,
    parse_single_example and train.batch, written by TF; flowrt restores and goes on."""
    tf = pytest.importorskip("tensorflow.compat.v1")
    tf.disable_eager_execution()
    tf.disable_resource_variables()
    path = str(tmp_path / "data.tfrecord")
    rng = np.random.RandomState(0)
    with tf.io.TFRecordWriter(path) as w:
        for _ in range(40):
            x = rng.randn(4).astype(np.float32)
            ex = tf.train.Example()
            ex.features.feature["x"].float_list.value.extend(x)
            ex.features.feature["y"].int64_list.value.append(int(x.sum() > 0))
            w.write(ex.SerializeToString())
    try:
        with tf.Graph().as_default():
            files = tf.train.string_input_producer([path], num_epochs=4, shuffle=False)
            _, rec = tf.TFRecordReader().read(files)
            spec = {
                "x": tf.FixedLenFeature([4], tf.float32),
                "y": tf.FixedLenFeature([], tf.int64),
            }
            f = tf.parse_single_example(rec, spec)
            xb, yb = tf.train.batch([f["x"], f["y"]], batch_size=8)
            w = tf.get_variable("w", initializer=tf.zeros([4, 2]))
            logits = tf.matmul(xb, w)
            tf.reduce_mean(
                tf.nn.sparse_softmax_cross_entropy_with_logits(labels=yb, logits=logits),
                name="loss",
            )
            step = tf.train.get_or_create_global_step()
            loss = tf.get_default_graph().get_tensor_by_name("loss:0")
            train = tf.train.GradientDescentOptimizer(0.5).minimize(loss, global_step=step)
            with tf.Session() as sess:
                sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
                coord = tf.train.Coordinator()
                threads = tf.train.start_queue_runners(sess, coord)
                first = sess.run([loss, train])[0]
                for _ in range(9):
                    sess.run(train)
                prefix = tf.train.Saver().save(sess, str(tmp_path / "model.ckpt"), step)
                coord.request_stop()
                coord.join(threads, stop_grace_period_secs=5)
    finally:
        tf.enable_resource_variables()
    with fr.Graph().as_default(), fr.Session() as sess:
        fr.train.import_meta_graph(prefix + ".meta").restore(sess, prefix)
        sess.run(fr.local_variables_initializer())
        coord = fr.train.Coordinator()
        threads = fr.train.start_queue_runners(sess, coord)
        (train_op,) = set(fr.get_collection(fr.GraphKeys.TRAIN_OP))
        losses = [sess.run(["loss:0", train_op])[0] for _ in range(10)]
        assert sess.run(fr.train.get_global_step()) == 20
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=5)
    assert max(losses[-3:]) < first


@pytest.mark.parametrize("resource", [False, True], ids=["ref", "resource"])
def test_a_tf_conv_training_graph_continues_in_flowrt_as_in_tf(resource, tmp_path):
    """Conv, pooling, moments, batch_normalization, an ExponentialMovingAverage, three
    losses, exponential_decay, clip_by_global_norm, Momentum and a streaming metric:
    TF's graph and checkpoint after one step; the second step in flowrt as in TF."""
    tf = pytest.importorskip("tensorflow.compat.v1")
    tf.disable_eager_execution()
    (tf.enable_resource_variables if resource else tf.disable_resource_variables)()
    rng = np.random.RandomState(0)
    feed_x, feed_y = rng.randn(6, 28, 28, 1).astype(np.float32), rng.randint(0, 10, 6)
    try:
        with tf.Graph().as_default():
            x = tf.placeholder(tf.float32, [None, 28, 28, 1], name="x")
            y = tf.placeholder(tf.int64, [None], name="y")
            k = tf.get_variable("k", [3, 3, 1, 8])
            h = tf.nn.relu(tf.nn.conv2d(x, k, [1, 1, 1, 1], "SAME"))
            h = tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
            h = tf.nn.avg_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
            mean, var = tf.nn.moments(h, [0, 1, 2])
            h = tf.reshape(tf.nn.batch_normalization(h, mean, var, None, None, 1e-3), [-1, 392])
            ema = tf.train.ExponentialMovingAverage(0.9)
            maintain = ema.apply([k])
            w = tf.get_variable("w", [392, 10])
            logits = tf.matmul(h, w)
            onehot = tf.one_hot(y, 10)
            losses = [
                tf.nn.softmax_cross_entropy_with_logits_v2(labels=onehot, logits=logits),
                tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits),
            ]
            loss = tf.add_n(
                [tf.reduce_mean(t) for t in losses]
                + [1e-4 * tf.nn.l2_loss(w), tf.losses.sigmoid_cross_entropy(onehot, logits)],
                name="loss",
            )
            step = tf.train.get_or_create_global_step()
            opt = tf.train.MomentumOptimizer(tf.train.exponential_decay(0.1, step, 100, 0.9), 0.9)
            grads, variables = zip(*opt.compute_gradients(loss))
            grads, _ = tf.clip_by_global_norm(grads, 5.0)
            with tf.control_dependencies([maintain]):
                opt.apply_gradients(zip(grads, variables), global_step=step)
            acc, acc_update = tf.metrics.accuracy(y, tf.argmax(logits, 1), name="acc")
            tf.add_to_collection("acc", acc)
            tf.add_to_collection("acc", acc_update)
            average = ema.average(k)
            with tf.Session() as sess:
                # The average's initializer reads k: TF races them when run together.
                sess.run(k.initializer)
                sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
                feed = {x: feed_x, y: feed_y}
                (train,) = set(tf.get_collection(tf.GraphKeys.TRAIN_OP))
                sess.run(train, feed)
                prefix = tf.train.Saver().save(sess, str(tmp_path / "model.ckpt"))
                sess.run(train, feed)
                sess.run(acc_update, feed)
                want = sess.run([loss, acc, average], feed)
    finally:
        tf.enable_resource_variables()
    with fr.Graph().as_default(), fr.Session() as sess:
        fr.train.import_meta_graph(prefix + ".meta").restore(sess, prefix)
        sess.run(fr.local_variables_initializer())
        feed = {"x:0": feed_x, "y:0": feed_y}
        (train_op,) = set(fr.get_collection(fr.GraphKeys.TRAIN_OP))
        sess.run(train_op, feed)
        acc, acc_update = fr.get_collection("acc")
        sess.run(acc_update, feed)
        (ema_k,) = [v for v in fr.global_variables() if v.op.name == average.op.name]
        got = sess.run(["loss:0", acc, ema_k], feed)
    for g, t in zip(got, want, strict=True):
        np.testing.assert_allclose(g, t, rtol=RTOL, atol=1e-6)


@pytest.mark.parametrize("directory", ["softmax_ref", "softmax_resource"])
def test_tfs_saver_subgraph_saves_and_restores_by_its_saver_def_names(directory, tmp_path):
    # What TF code does with a SaverDef: run its save tensor and restore op, the
    # checkpoint prefix fed to its filename tensor.
    meta = read_meta_graph_file(os.path.join(FIXTURE, directory, "model.ckpt.meta"))
    d = meta.saver_def
    with fr.Graph().as_default(), fr.Session() as sess:
        fr.train.import_meta_graph(meta)
        sess.run(
            d.restore_op_name,
            {d.filename_tensor_name: os.path.join(FIXTURE, directory, "model.ckpt")},
        )
        want = sess.run("probs:0", {"x:0": _fixture.X_SOFTMAX})
        prefix = str(tmp_path / "again")
        assert sess.run(d.save_tensor_name, {d.filename_tensor_name: prefix}) == prefix.encode()
        sess.run(fr.global_variables_initializer())
        sess.run(d.restore_op_name, {d.filename_tensor_name: prefix})
        np.testing.assert_array_equal(sess.run("probs:0", {"x:0": _fixture.X_SOFTMAX}), want)
    np.testing.assert_allclose(want, EXPECTED["%s/probs" % directory], rtol=RTOL)


def test_a_sharded_tf_saver_subgraph_saves_through_its_shards_and_merge(tmp_path):
    pytest.importorskip("re2")  # the save path asks StaticRegexFullMatch if it is on s3://
    export_dir = os.path.join(FIXTURE, "saved_model")
    with fr.Session(graph=fr.Graph()) as sess:
        meta = fr.saved_model.loader.load(sess, ["serve"], export_dir)
        d = meta.saver_def
        assert d.sharded
        want = sess.run("probs:0", {"x:0": _fixture.X_SOFTMAX})
        prefix = str(tmp_path / "sharded")
        sess.run(d.save_tensor_name, {d.filename_tensor_name: prefix})
        assert sorted(os.listdir(tmp_path)) == ["sharded.data-00000-of-00001", "sharded.index"]
        sess.run(fr.global_variables_initializer())
        sess.run(d.restore_op_name, {d.filename_tensor_name: prefix})
        np.testing.assert_array_equal(sess.run("probs:0", {"x:0": _fixture.X_SOFTMAX}), want)


@pytest.mark.parametrize("kind", ["ref", "resource"])
def test_tf_to_flowrt_to_tf_the_adam_queue_model_keeps_training(kind, tmp_path):
    """The whole round trip: TF's files -> flowrt trains STEPS and saves its own .meta and
    checkpoint -> TF imports flowrt's files, restores and trains STEPS more."""
    tf = pytest.importorskip("tensorflow.compat.v1")
    tf.disable_eager_execution()
    name = "adam_queue_" + kind
    prefix = "model.ckpt-%d" % _fixture.STEPS
    with fr.Graph().as_default() as g, fr.Session() as sess:
        saver = _import_and_restore(sess, name, prefix)
        (train_op,) = set(fr.get_collection(fr.GraphKeys.TRAIN_OP))
        coord = fr.train.Coordinator()
        threads = fr.train.start_queue_runners(sess, coord)
        for _ in range(_fixture.STEPS):
            sess.run(train_op)
        _stop(sess, g, coord, threads)
        saved = saver.save(
            sess, str(tmp_path / "model.ckpt"), global_step=fr.train.get_global_step()
        )
    with tf.Graph().as_default() as g, tf.Session() as sess:
        tf_saver = tf.train.import_meta_graph(saved + ".meta")
        tf_saver.restore(sess, saved)
        assert sess.run(tf.train.get_global_step()) == 2 * _fixture.STEPS
        loss, x, y = (g.get_tensor_by_name(n) for n in ("loss:0", "batch:0", "batch:1"))
        np.testing.assert_allclose(
            _fixture.full_loss(sess, loss, x, y), EXPECTED[name + "/loss_continued"], rtol=RTOL
        )
        (train,) = set(tf.get_collection(tf.GraphKeys.TRAIN_OP))
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        for _ in range(_fixture.STEPS):
            sess.run(train)
        _stop(sess, g, coord, threads)
        assert sess.run(tf.train.get_global_step()) == 3 * _fixture.STEPS
        assert _fixture.full_loss(sess, loss, x, y) < EXPECTED[name + "/loss_continued"]


def test_tfs_tensor_list_scatter_split_concat_and_resizing_writes_import():
    """TF 2's TensorArray ops outside the loop fixtures: scatter into an existing list
    (growing it), split into a new list, concat, and a dynamic-size array's writes."""
    tf = pytest.importorskip("tensorflow.compat.v1")
    tf.disable_eager_execution()
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    with tf.Graph().as_default() as g:
        xs = tf.placeholder(tf.float32, [4, 3], name="x")
        scattered = tf.TensorArray(tf.float32, size=2).scatter([3, 0], xs[:2])
        parts = tf.TensorArray(tf.float32, size=2, infer_shape=False).split(xs, [1, 3])
        grow = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        grow = grow.write(0, xs[3]).write(2, xs[1])
        outs = [
            tf.identity(scattered.gather([0, 3]), name="scattered"),
            tf.identity(scattered.size(), name="n"),
            tf.identity(parts.concat(), name="concat"),
            tf.identity(grow.stack(), name="grown"),
        ]
        with tf.Session() as sess:
            want = sess.run(outs, {xs: x})
        gd = g.as_graph_def()
    assert {"TensorListScatterIntoExistingList", "TensorListSplit", "TensorListConcatV2"} <= {
        n.op for n in gd.node
    }
    with fr.Graph().as_default(), fr.Session() as sess:
        fr.import_graph_def(GraphDef.FromString(gd.SerializeToString()), name="")
        got = sess.run(["scattered:0", "n:0", "concat:0", "grown:0"], {"x:0": x})
    for a, b in zip(got, want, strict=True):
        np.testing.assert_array_equal(a, b)
