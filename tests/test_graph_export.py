"""flowrt's GraphDefs, MetaGraphDefs and SavedModels as TF 2.21 reads them: every exported
node checked against TF's OpDefs (``op_defs.json``), without TF; with TF installed, the
exports loaded and run in ``tensorflow.compat.v1``."""

import importlib.util
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import flowrt as fr
from flowrt._core.op_signatures import check_graph_def
from flowrt.graph_export import graph_def_proto
from flowrt.protos.graph_pb2 import GraphDef

# --------------------------------------------------------------------------------------
# Graphs
# --------------------------------------------------------------------------------------


def _needs_tensorflow() -> None:
    # Looked up, not imported: TF runs in a child (its bundled BLAS must not join this
    # process, whose BLAS threads other tests check).
    if importlib.util.find_spec("tensorflow") is None:
        pytest.skip("TensorFlow is not installed")


def _softmax_4_3():
    x = fr.placeholder(fr.float32, [None, 4], name="x")
    w = fr.Variable(np.random.RandomState(1).randn(4, 3).astype(np.float32), name="w")
    b = fr.Variable(np.random.RandomState(2).randn(3).astype(np.float32), name="b")
    return x, fr.nn.softmax(fr.nn.relu(fr.matmul(x, w) + b), name="y")


_X = np.random.RandomState(0).rand(64, 4).astype(np.float32)
_Y = (_X.sum(1) > 2).astype(np.int32)


def _adam_queue_model():
    """A softmax classifier trained by Adam on batches a queue runner feeds."""
    q = fr.FIFOQueue(256, [fr.float32, fr.int32], shapes=[[4], []], name="input_queue")
    enq = q.enqueue_many([fr.constant(_X), fr.constant(_Y)])
    fr.train.add_queue_runner(fr.train.QueueRunner(q, [enq]))
    xb, yb = q.dequeue_many(16)
    w = fr.Variable(np.zeros((4, 2), np.float32), name="w")
    b = fr.Variable(np.zeros(2, np.float32), name="b")
    xent = fr.nn.sparse_softmax_cross_entropy_with_logits(labels=yb, logits=fr.matmul(xb, w) + b)
    loss = fr.reduce_mean(xent, name="loss")
    step = fr.train.get_or_create_global_step()
    train = fr.train.AdamOptimizer(0.1).minimize(loss, global_step=step, name="train")
    fr.add_to_collection("train_op", train)
    fr.add_to_collection("loss", loss)
    return loss, train, step


def _optimizers_with_slots():
    x = fr.placeholder(fr.float32, [None, 3], name="x")
    for i, opt in enumerate(
        [
            fr.train.GradientDescentOptimizer(0.1),
            fr.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
            fr.train.AdagradOptimizer(0.1),
            fr.train.RMSPropOptimizer(0.1, momentum=0.5, centered=True),
            fr.train.AdamOptimizer(0.1),
        ]
    ):
        w = fr.Variable(np.ones((3, 2), np.float32), name="w%d" % i)
        opt.minimize(fr.reduce_sum(fr.square(fr.matmul(x, w))))


def _conv_net_with_summaries():
    img = fr.placeholder(fr.float32, [None, 8, 8, 1], name="img")
    c = fr.layers.conv2d(img, 3, 3, padding="same", activation=fr.nn.relu)
    p = fr.layers.max_pooling2d(c, 2, 2)
    logits = fr.layers.dense(fr.layers.flatten(p), 2)
    loss = fr.losses.softmax_cross_entropy(fr.one_hot([0, 1], 2), logits[:2])
    fr.train.GradientDescentOptimizer(0.1).minimize(loss)
    fr.summary.scalar("loss", loss)
    fr.summary.histogram("logits", logits)
    fr.summary.image("img", img)
    fr.summary.merge_all()


def _queues_and_batching():
    q = fr.RandomShuffleQueue(10, 2, [fr.string], shapes=[[]], name="shuffle")
    q.enqueue([fr.constant("a")])
    q.close()
    q.size()
    fr.train.batch([q.dequeue()], 4)
    p = fr.PaddingFIFOQueue(5, [fr.int32], shapes=[[None]])
    p.enqueue([fr.constant([1, 2])])
    p.dequeue_many(1)
    fr.decode_csv(fr.constant(["1,2.5,a"]), [[0], [0.0], ["z"]])


def _array_and_math():
    x = fr.placeholder(fr.float32, [None, 4, 5], name="x")
    fr.transpose(x[:, 1:3, ::2], [0, 2, 1])
    fr.concat([x, x], axis=2)
    fr.reduce_max(x, axis=[1], keepdims=True)
    fr.argmax(x, axis=2)
    fr.cast(fr.shape(x), fr.float32)
    fr.random_normal([2, 3], seed=3)
    fr.gather(x, [0, 0])
    fr.where(x > 0, x, -x)
    fr.gradients(fr.reduce_mean(fr.square(x), axis=[1, 2]), x)


def _flowrt_only_ops_written_as_tf_compositions():
    x = fr.placeholder(fr.float32, [None, 3], name="x")
    emb = fr.Variable(np.ones((5, 3), np.float32), name="emb")
    rows = fr.nn.embedding_lookup(emb, [0, 2, 2])
    loss = fr.reduce_sum(fr.nn.sigmoid_cross_entropy_with_logits(labels=rows, logits=x[:3]))
    fr.train.GradientDescentOptimizer(0.1).minimize(loss)  # sparse update of emb
    fr.assert_variables_initialized([emb])
    fr.train.shuffle_batch([fr.constant([1.0])], 2, capacity=4, min_after_dequeue=1)
    fr.train.string_input_producer(["a", "b"])


def _conds_with_gradients():
    x = fr.placeholder(fr.float32, [3], name="x")
    w = fr.Variable(np.array([1.0, 2.0, 3.0], np.float32), name="w")
    inner = lambda: fr.cond(x[0] < -5, lambda: x - 1, lambda: x + 100.0)
    y = fr.identity(fr.cond(fr.reduce_sum(x) > 0, lambda: x * w, inner), name="y")
    fr.identity(fr.gradients(fr.reduce_sum(y * y), x)[0], name="gx")
    fr.case([(x[1] > 0, lambda: x), (x[2] > 0, lambda: -x)], default=lambda: x * 0)


def _loops():
    x = fr.placeholder(fr.float32, [], name="x")
    w = fr.Variable(2.0, name="w")
    _, s = fr.while_loop(lambda i, s: i < 5, lambda i, s: (i + 1, s * w + x), [0, 1.0])
    fr.identity(s, name="y")

    def body(j, t):
        return j + 1, fr.cond(t > 10, lambda: t * x, lambda: t + x)

    j, t = fr.while_loop(lambda j, t: t < 1000.0, body, [0, 1.0], maximum_iterations=7)
    fr.identity(t * fr.cast(j, fr.float32), name="gx")  # 7 iterations: the limit stops it


def _function_calls():
    x = fr.placeholder(fr.float32, [3], name="x")
    w = fr.Variable(np.array([1.0, 2.0, 3.0], np.float32), name="w")

    @fr.function
    def f(a):
        return fr.reduce_sum(a * w) + fr.cond(a[0] > 0, lambda: a[1], lambda: a[2])

    y = fr.identity(f(x), name="y")
    fr.identity(fr.gradients(y, x)[0], name="gx")


def _tensor_arrays():
    """A dynamic_rnn of an LSTM, map_fn and scan (TensorArrays in While loops) and every
    TensorArray op outside loops, with values TF and flowrt compute alike."""
    x = fr.placeholder(fr.float32, [2, 4, 3], name="x")
    kernel = np.linspace(-1.0, 1.0, 8 * 20, dtype=np.float32).reshape(8, 20)
    with fr.variable_scope("lstm", initializer=fr.constant_initializer(kernel)):
        out, _ = fr.nn.dynamic_rnn(fr.nn.rnn_cell.BasicLSTMCell(5), x, dtype=fr.float32)
    fr.identity(out, name="y")
    fr.identity(fr.map_fn(lambda e: e * 2.0 + 1.0, x[0]), name="m")
    fr.identity(fr.scan(lambda a, e: a * e + 1.0, x[1]), name="sc")
    ta = fr.TensorArray(fr.float32, size=4, element_shape=[3]).unstack(x[0])
    grow = fr.TensorArray(fr.float32, size=0, dynamic_size=True)
    grow = grow.write(0, ta.read(3)).write(1, ta.read(0))
    parts = fr.TensorArray(fr.float32, size=2, infer_shape=False).split(x[1], [1, 3])
    unstacked = fr.TensorArray(fr.float32, size=0, dynamic_size=True).unstack(x[1])
    stacked = [grow.stack(), ta.gather([2, 1]), parts.concat(), unstacked.stack()]
    fr.identity(fr.concat(stacked, 0), name="ta")
    fr.identity(grow.size() + ta.size(), name="n")


def _parsing():
    """parse_example of every feature kind and parse_single_example, their outputs named."""
    s = fr.placeholder(fr.string, [None], name="s")
    spec = {
        "a": fr.FixedLenFeature([2], fr.float32, default_value=[1.0, 2.0]),
        "b": fr.VarLenFeature(fr.int64),
        "c": fr.FixedLenSequenceFeature([], fr.int64, allow_missing=True),
        "d": fr.FixedLenFeature([], fr.string),
    }
    f = fr.parse_example(s, spec)
    one = fr.parse_single_example(s[0], {"a": spec["a"], "b": spec["b"]})
    outs = [f["a"], f["b"].indices, f["b"].values, f["b"].dense_shape, f["c"], f["d"]]
    outs += [one["a"], one["b"].indices, one["b"].values, one["b"].dense_shape]
    return [fr.identity(t, name="p%d" % i).name for i, t in enumerate(outs)]


def _examples() -> list:
    """Two serialized Examples for ``_parsing``: the second lacks the defaulted ``a``."""
    from flowrt.protos.example_pb2 import Example

    out = []
    for k in range(2):
        ex = Example()
        if k == 0:
            ex.features.feature["a"].float_list.value.extend([0.5, -1.5])
        ex.features.feature["b"].int64_list.value.extend(range(k + 2))
        ex.features.feature["c"].int64_list.value.extend([7] * (3 - k))
        ex.features.feature["d"].bytes_list.value.append(b"ex%d" % k)
        out.append(ex.SerializeToString())
    return out


def _sparse_adam_and_prod_grad():
    """Adam's sparse update of an embedding (repeated rows) and reduce_prod's gradient."""
    x = fr.placeholder(fr.float32, [2, 3], name="x")
    emb = fr.Variable(np.arange(15, dtype=np.float32).reshape(5, 3) / 10, name="emb")
    rows = fr.nn.embedding_lookup(emb, [0, 2, 2, 4])
    loss = fr.reduce_sum(fr.square(rows[1:3] - x)) + fr.reduce_sum(rows)
    fr.train.AdamOptimizer(0.1).minimize(loss, name="train")
    fr.identity(emb, name="emb_out")
    g1 = fr.gradients(fr.reduce_prod(x, axis=1), x)[0]
    g2 = fr.gradients(fr.reduce_prod(x * x, axis=[0, -1]), x)[0]
    fr.identity(fr.stack([g1, g2]), name="gprod")


GRAPHS = {
    "sparse_adam_prod": _sparse_adam_and_prod_grad,
    "parsing": _parsing,
    "tensor_arrays": _tensor_arrays,
    "function_calls": _function_calls,
    "loops": _loops,
    "cond": _conds_with_gradients,
    "rewrites": _flowrt_only_ops_written_as_tf_compositions,
    "softmax_4_3": _softmax_4_3,
    "adam_queue": _adam_queue_model,
    "optimizers": _optimizers_with_slots,
    "conv_summaries": _conv_net_with_summaries,
    "queues": _queues_and_batching,
    "array_math": _array_and_math,
}


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_every_exported_node_validates_against_tf_op_defs(name):
    with fr.Graph().as_default() as g:
        GRAPHS[name]()
        fr.Variable(0.0, name="saved")  # something for the Saver in every graph
        saver = fr.train.Saver()
        meta = fr.train.export_meta_graph(saver_def=saver.as_saver_def())
    check_graph_def(g.as_graph_def())
    check_graph_def(meta.graph_def)
    types = {n.op for n in meta.graph_def.node}
    assert {"SaveV2", "RestoreV2"} <= types
    assert not types & {
        "AssignMulVariableOp",
        "ReducedShape",
        "SigmoidCrossEntropyWithLogits",
        "SigmoidCrossEntropyWithLogitsGrad",
        "StridedFirst",
        "_InputAssertNotEmpty",
        "AssertVariablesInitialized",
        "ResourceSparseApplyGradientDescent",
        "ResourceSparseApplyAdam",
        "ProdOthers",
    }
    assert not any(t.startswith("TensorArray") for t in types)


def test_nodes_carry_tf_attrs_with_opdef_defaults():
    with fr.Graph().as_default() as g:
        _softmax_4_3()
    nodes = {n.name: n for n in g.as_graph_def().node}
    mm = nodes["MatMul"]
    assert mm.attr["T"].type == fr.float32.as_datatype_enum
    assert not mm.attr["grad_a"].b and not mm.attr["transpose_b"].b
    assert nodes["w"].op == "VarHandleOp" and nodes["w"].attr["allowed_devices"].HasField("list")
    # TF's AssignVariableOp has no output, so no _output_shapes.
    assert "_output_shapes" not in nodes["w/Assign"].attr
    assert [d.size for d in nodes["y"].attr["_output_shapes"].list.shape[0].dim] == [-1, 3]


def test_an_op_without_a_tf_counterpart_fails_the_export_naming_it():
    # A loop's gradient: TF records iterations in TensorLists, flowrt in one WhileGrad.
    with fr.Graph().as_default() as g:
        x = fr.placeholder(fr.float32, [], name="x")
        _, y = fr.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s * x), [0, 1.0])
        fr.gradients(y, x)
    with pytest.raises(
        ValueError,
        match="WhileGrad op 'gradients/while_grad/WhileGrad' has no TensorFlow counterpart",
    ):
        g.as_graph_def()
    # TensorBoard's form writes it under flowrt's type.
    assert "WhileGrad" in {n.op for n in graph_def_proto(g, display=True).node}


def test_a_cond_is_an_if_over_two_functions_of_the_library():
    with fr.Graph().as_default() as g:
        _conds_with_gradients()
    gd = g.as_graph_def()
    fns = {f.signature.name: f for f in gd.library.function}
    (outer,) = [n for n in gd.node if n.name == "cond"]
    assert outer.op == "If"  # its true branch reads a variable
    then_fn = fns[outer.attr["then_branch"].func.name]
    assert {"ReadVariableOp", "Mul"} <= {n.op for n in then_fn.node_def}
    assert then_fn.ret["output_0"] == "cond/mul:z:0"
    # The forward tensors the gradient needs are extra outputs; the branch that does not
    # make one returns zeros for it.
    assert len(then_fn.signature.output_arg) > 1 and "Const" in {n.op for n in then_fn.node_def}
    # The inner cond lives in the outer's false branch, not in the graph.
    else_fn = fns[outer.attr["else_branch"].func.name]
    assert [n.op for n in else_fn.node_def if "If" in n.op] == ["StatelessIf"]
    assert not [n for n in gd.node if n.name.startswith("cond/cond")]
    gd.library.function.pop()
    with pytest.raises(ValueError, match="names function '.*', not in the library"):
        check_graph_def(gd)


def test_a_function_call_is_a_partitioned_call_of_a_library_function():
    with fr.Graph().as_default() as g:
        _function_calls()
    gd = g.as_graph_def()
    fns = {f.signature.name: f for f in gd.library.function}
    (call,) = [n for n in gd.node if n.name == "f"]
    assert call.op == "StatefulPartitionedCall"  # it reads a variable
    body = fns[call.attr["f"].func.name]
    assert [a.type for a in body.signature.input_arg] == list(call.attr["Tin"].list.type)
    assert "StatelessIf" in {n.op for n in body.node_def}  # its cond is inside it


def test_the_validator_refuses_what_tf_refuses():
    with fr.Graph().as_default() as g:
        _softmax_4_3()
    good = g.as_graph_def()

    def broken(edit):
        gd = GraphDef()
        gd.CopyFrom(good)
        edit({n.name: n for n in gd.node})
        return gd

    with pytest.raises(ValueError, match=r"NodeDef 'MatMul' \(MatMul\): NodeDef missing attr 'T'"):
        check_graph_def(broken(lambda n: n["MatMul"].attr.pop("T")))
    with pytest.raises(ValueError, match="mentions attr 'foo' not in its OpDef"):
        check_graph_def(broken(lambda n: n["Relu"].attr["foo"].CopyFrom(n["Relu"].attr["T"])))
    with pytest.raises(ValueError, match="expected inputs 'a, b' do not match 1 inputs specified"):
        check_graph_def(broken(lambda n: n["MatMul"].input.pop()))
    with pytest.raises(ValueError, match="input 0 'x' has DataType 3, TF's OpDef expects 1"):
        check_graph_def(broken(lambda n: setattr(n["x"].attr["dtype"], "type", 3)))
    with pytest.raises(ValueError, match="Op type not registered 'Frob'"):
        check_graph_def(broken(lambda n: setattr(n["Relu"], "op", "Frob")))
    with pytest.raises(
        ValueError,
        match="Node 'Relu' has 1 outputs but the _output_shapes attribute specifies shapes for 2",
    ):
        check_graph_def(broken(lambda n: n["Relu"].attr["_output_shapes"].list.shape.add()))


def test_the_saver_subgraph_saves_and_restores_when_run_by_its_saver_def(tmp_path):
    """The SaverDef's filename and save tensors and restore op run as TF's Saver runs
    them, here in flowrt after importing the meta graph."""
    with fr.Graph().as_default():
        x, y = _softmax_4_3()
        saver = fr.train.Saver()
        with fr.Session() as s:
            s.run(fr.global_variables_initializer())
            want = s.run(y, {x: _X})
            meta = saver.export_meta_graph()
    sd = meta.saver_def
    assert (sd.filename_tensor_name, sd.save_tensor_name, sd.restore_op_name) == (
        "save/Const:0",
        "save/control_dependency:0",
        "save/restore_all",
    )
    prefix = str(tmp_path / "model")
    with fr.Graph().as_default() as g:
        fr.train.import_meta_graph(meta)
        with fr.Session() as s:
            s.run(fr.global_variables_initializer())
            assert s.run(sd.save_tensor_name, {sd.filename_tensor_name: prefix}) == prefix.encode()
        with fr.Session() as s:
            s.run(sd.restore_op_name, {sd.filename_tensor_name: prefix})
            np.testing.assert_array_equal(s.run(g.get_tensor_by_name("y:0"), {"x:0": _X}), want)
    assert fr.train.load_variable(prefix, "w").shape == (4, 3)


# --------------------------------------------------------------------------------------
# Loaded and run by TensorFlow (optional: skipped without TF)
# --------------------------------------------------------------------------------------


def _run_tf(script: str, tmp_path) -> str:
    """Runs ``script`` in a TF 2.21 process (TF is never imported into the test's own)."""
    _needs_tensorflow()
    src = "import numpy as np, tensorflow.compat.v1 as tf\ntf.disable_eager_execution()\n"
    path = tmp_path / "tf_side.py"
    path.write_text(src + textwrap.dedent(script))
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    out = subprocess.run(
        [sys.executable, str(path)], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def test_tf_loads_the_saved_model_and_the_meta_graph_and_gets_the_same_values(tmp_path):
    _needs_tensorflow()
    with fr.Graph().as_default():
        x, y = _softmax_4_3()
        saver = fr.train.Saver()
        with fr.Session() as s:
            s.run(fr.global_variables_initializer())
            np.save(tmp_path / "want.npy", s.run(y, {x: _X}))
            saver.save(s, str(tmp_path / "ckpt" / "model"))
            fr.saved_model.simple_save(s, str(tmp_path / "sm"), {"x": x}, {"y": y})
    np.save(tmp_path / "x.npy", _X)
    out = _run_tf(
        """
        X, want = np.load("x.npy"), np.load("want.npy")
        with tf.Graph().as_default(), tf.Session() as s:
            meta = tf.saved_model.loader.load(s, ["serve"], "sm")
            sig = meta.signature_def["serving_default"]
            got = s.run(sig.outputs["y"].name, {sig.inputs["x"].name: X})
            print("saved_model", np.abs(got - want).max())
        with tf.Graph().as_default(), tf.Session() as s:
            saver = tf.train.import_meta_graph("ckpt/model.meta")
            saver.restore(s, "ckpt/model")
            print("meta", np.abs(s.run("y:0", {"x:0": X}) - want).max())
        """,
        tmp_path,
    )
    # One float32 matmul and softmax, computed by both in the same order up to a few ulp.
    diffs = dict(line.split() for line in out.splitlines())
    assert set(diffs) == {"saved_model", "meta"}
    assert all(float(v) < 1e-6 for v in diffs.values()), out


@pytest.mark.parametrize("build", [_conds_with_gradients, _loops, _function_calls])
def test_tf_runs_flowrts_conds_and_loops(tmp_path, build):
    _needs_tensorflow()
    with fr.Graph().as_default() as g:
        build()
        x = g.get_tensor_by_name("x:0")
        feeds = [[1, 2, 3], [-1, -2, -3]] if x.shape.ndims else [3.0, -2.0]
        with fr.Session() as s:
            s.run(fr.global_variables_initializer())
            want = [s.run(["y:0", "gx:0"], {x: v}) for v in feeds]
    (tmp_path / "feeds.txt").write_text(repr(feeds))
    (tmp_path / "g.pb").write_bytes(g.as_graph_def().SerializeToString())
    out = _run_tf(
        """
        gd = tf.GraphDef()
        gd.ParseFromString(open("g.pb", "rb").read())
        with tf.Graph().as_default() as g, tf.Session() as s:
            tf.import_graph_def(gd, name="")
            s.run("w/Assign")
            for v in eval(open("feeds.txt").read()):
                y, gx = s.run(["y:0", "gx:0"], {"x:0": v})
                print(" ".join(map(repr, np.append(y, gx).tolist())))
        """,
        tmp_path,
    )
    got = [[float(v) for v in line.split()] for line in out.splitlines()]
    # Products and sums of small integers: exact in float32 in both runtimes.
    assert got == [np.append(y, gx).tolist() for y, gx in want]


@pytest.mark.parametrize("form", ["meta", "saved_model"])
def test_tf_keeps_training_flowrts_adam_queue_model_after_restoring_its_save(tmp_path, form):
    _needs_tensorflow()
    with fr.Graph().as_default():
        loss, train, step = _adam_queue_model()
        saver = fr.train.Saver()
        with fr.Session() as s:
            s.run(fr.global_variables_initializer())
            coord = fr.train.Coordinator()
            threads = fr.train.start_queue_runners(s, coord)
            losses = [s.run([loss, train])[0] for _ in range(20)]
            if form == "meta":
                saver.save(s, str(tmp_path / "model"))
            else:
                b = fr.saved_model.builder.SavedModelBuilder(str(tmp_path / "sm"))
                b.add_meta_graph_and_variables(s, ["train"])
                b.save()
            coord.request_stop()
            coord.join(threads)
    load = {
        "meta": ['saver = tf.train.import_meta_graph("model.meta")', 'saver.restore(s, "model")'],
        "saved_model": [
            'tf.saved_model.loader.load(s, ["train"], "sm")',
            "saver = tf.train.Saver()",
        ],
    }[form]
    out = _run_tf(
        """
        with tf.Graph().as_default(), tf.Session() as s:
            %s
            train, loss = tf.get_collection("train_op")[0], tf.get_collection("loss")[0]
            step = tf.train.get_global_step()
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(s, coord)
            print("step", s.run(step))
            losses = [s.run([loss, train])[0] for _ in range(30)]
            print("first", losses[0])
            print("last", losses[-1])
            print("step", s.run(step))
            saver.save(s, "tf_model")
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=5)
        """
        % ("\n" + " " * 12).join(load),
        tmp_path,
    )
    lines = [line.split() for line in out.splitlines()]
    vals = {k: float(v) for k, v in lines[1:3]}
    assert [int(v) for k, v in lines if k == "step"] == [20, 50]
    # Training goes on from flowrt's state: no jump back to the untrained loss (ln 2).
    assert vals["first"] < losses[0] and vals["last"] < vals["first"]
    assert fr.train.load_variable(str(tmp_path / "tf_model"), "global_step") == 50


def test_tensor_arrays_are_tf_tensor_lists_and_flowrt_reads_them_back():
    x = np.arange(24, dtype=np.float32).reshape(2, 4, 3) / 10
    fetches = ["y:0", "m:0", "sc:0", "ta:0", "n:0"]
    with fr.Graph().as_default() as g:
        _tensor_arrays()
        fr.global_variables_initializer()
        with fr.Session() as s:
            s.run("init")
            want = s.run(fetches, {"x:0": x})
    gd = g.as_graph_def()
    assert {"TensorListReserve", "TensorListScatterIntoExistingList", "TensorListStack"} <= {
        n.op for n in gd.node
    }
    body = next(f for f in gd.library.function if f.signature.name.endswith("rnn_while_body"))
    assert {"TensorListGetItem", "TensorListSetItem"} <= {n.op for n in body.node_def}
    # The LSTM's loop reads its variables through handles passed through the While.
    with fr.Graph().as_default():
        fr.import_graph_def(gd, name="")
        with fr.Session() as s:
            s.run("init")
            got = s.run(fetches, {"x:0": x})
    for a, b in zip(got, want, strict=True):
        np.testing.assert_array_equal(a, b)


def test_tf_runs_flowrts_tensor_arrays(tmp_path):
    _needs_tensorflow()
    x = np.arange(24, dtype=np.float32).reshape(2, 4, 3) / 10
    fetches = ["y:0", "m:0", "sc:0", "ta:0", "n:0"]
    with fr.Graph().as_default() as g:
        _tensor_arrays()
        with fr.Session() as s:
            s.run(fr.global_variables_initializer())
            want = s.run(fetches, {"x:0": x})
    np.save(tmp_path / "x.npy", x)
    (tmp_path / "g.pb").write_bytes(g.as_graph_def().SerializeToString())
    out = _run_tf(
        """
        gd = tf.GraphDef()
        gd.ParseFromString(open("g.pb", "rb").read())
        with tf.Graph().as_default(), tf.Session() as s:
            tf.import_graph_def(gd, name="")
            s.run("init")
            got = s.run(%r, {"x:0": np.load("x.npy")})
            np.savez("got.npz", *got)
        """
        % fetches,
        tmp_path,
    )
    got = np.load(tmp_path / "got.npz")
    # map_fn, scan and the TensorArray ops move values and add/multiply small numbers:
    # exact. The LSTM's matmul, sigmoid and tanh may differ by a few float32 ulp between
    # the two runtimes' kernels (values in [-1, 1]).
    np.testing.assert_allclose(got["arr_0"], want[0], rtol=0, atol=1e-5, err_msg=out)
    for k in range(1, 5):
        np.testing.assert_array_equal(got["arr_%d" % k], want[k])


def test_parse_example_is_tfs_with_its_keys_as_constant_inputs_and_flowrt_reads_it_back():
    with fr.Graph().as_default() as g:
        fetches = _parsing()
        with fr.Session() as s:
            want = s.run(fetches, {"s:0": _examples()})
    gd = g.as_graph_def()
    nodes = {n.name: n for n in gd.node}
    parse = next(n for n in gd.node if n.op == "ParseExampleV2")
    assert parse.attr["num_sparse"].i == 1 and "sparse_keys" not in parse.attr
    dense_keys = nodes[parse.input[3]].attr["value"].tensor.string_val
    assert list(dense_keys) == [b"a", b"c", b"d"]
    assert [d.size for d in parse.attr["dense_shapes"].list.shape[1].dim] == [-1]
    with fr.Graph().as_default():
        fr.import_graph_def(gd, name="")
        with fr.Session() as s:
            got = s.run(fetches, {"s:0": _examples()})
    for a, b in zip(got, want, strict=True):
        np.testing.assert_array_equal(a, b)


def test_tf_parses_the_same_examples_with_flowrts_parse_example(tmp_path):
    _needs_tensorflow()
    with fr.Graph().as_default() as g:
        fetches = _parsing()
        with fr.Session() as s:
            want = s.run(fetches, {"s:0": _examples()})
    np.save(tmp_path / "examples.npy", np.array(_examples(), dtype=object))
    (tmp_path / "g.pb").write_bytes(g.as_graph_def().SerializeToString())
    _run_tf(
        """
        gd = tf.GraphDef()
        gd.ParseFromString(open("g.pb", "rb").read())
        with tf.Graph().as_default(), tf.Session() as s:
            tf.import_graph_def(gd, name="")
            got = s.run(%r, {"s:0": np.load("examples.npy", allow_pickle=True)})
            np.savez("got.npz", *got)
        """
        % fetches,
        tmp_path,
    )
    got = np.load(tmp_path / "got.npz", allow_pickle=True)
    assert len(got.files) == len(want)
    for k, w in enumerate(want):
        np.testing.assert_array_equal(got["arr_%d" % k], w)


_PROD_X = np.array([[0.5, -2.0, 1.5], [0.0, 3.0, -1.0]], np.float32)  # a zero for ProdOthers


def _adam_steps_and_prod_grad(s) -> tuple:
    """Three training steps of ``_sparse_adam_and_prod_grad`` (the embedding after each)
    and reduce_prod's gradient, in session ``s`` (flowrt's or TF's)."""
    s.run("init")
    steps = []
    for _ in range(3):
        s.run("train", {"x:0": _PROD_X})
        steps.append(s.run("emb_out:0"))
    return np.stack(steps), s.run("gprod:0", {"x:0": _PROD_X})


def _sparse_adam_graph():
    with fr.Graph().as_default() as g:
        _sparse_adam_and_prod_grad()
        fr.global_variables_initializer()
        with fr.Session() as s:
            want = _adam_steps_and_prod_grad(s)
    return g, want


def _check_adam_and_prod(got, want):
    # flowrt's Adam kernel and the composition round differently (lr_t * m / d against
    # alpha * (m / d)): a few float32 ulp on values below 2. Products of floats: exact.
    np.testing.assert_allclose(got[0], want[0], rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(got[1], want[1])


def test_sparse_adam_and_prod_others_compositions_compute_flowrts_values():
    g, want = _sparse_adam_graph()
    gd = g.as_graph_def()
    assert {"Unique", "UnsortedSegmentSum", "ResourceScatterAdd", "Cumprod"} <= {
        n.op for n in gd.node
    }
    with fr.Graph().as_default():
        fr.import_graph_def(gd, name="")
        with fr.Session() as s:
            _check_adam_and_prod(_adam_steps_and_prod_grad(s), want)


def test_tf_runs_flowrts_sparse_adam_and_prod_gradient(tmp_path):
    _needs_tensorflow()
    g, want = _sparse_adam_graph()
    np.save(tmp_path / "x.npy", _PROD_X)
    (tmp_path / "g.pb").write_bytes(g.as_graph_def().SerializeToString())
    _run_tf(
        """
        gd = tf.GraphDef()
        gd.ParseFromString(open("g.pb", "rb").read())
        x = np.load("x.npy")
        with tf.Graph().as_default(), tf.Session() as s:
            tf.import_graph_def(gd, name="")
            s.run("init")
            got = []
            for _ in range(3):
                s.run("train", {"x:0": x})
                got.append(s.run("emb_out:0"))
            np.savez("got.npz", np.stack(got), s.run("gprod:0", {"x:0": x}))
        """,
        tmp_path,
    )
    got = np.load(tmp_path / "got.npz")
    _check_adam_and_prod((got["arr_0"], got["arr_1"]), want)
