"""fr.import_graph_def: GraphDefs rebuilt as ops, run side by side with the originals."""

import numpy as np
import pytest

import flowrt as fr
from flowrt import errors
from flowrt._core.op_signatures import op_def
from flowrt.graph_export import graph_def_proto
from flowrt.protos.graph_pb2 import GraphDef
from tests.memory_limit import run_capped

X = np.random.RandomState(0).randn(6, 4).astype(np.float32)
Y = np.array([0, 1, 1, 0, 1, 0], np.int64)


def _same(a, b):
    if type(a) is not type(b):
        return False
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def _mlp_adam():
    x = fr.placeholder(fr.float32, [None, 4], name="x")
    y = fr.placeholder(fr.int64, [None], name="y")
    h = fr.layers.dense(
        x, 5, activation=fr.nn.relu, kernel_initializer=fr.constant_initializer(0.3)
    )
    logits = fr.layers.dense(h, 2, kernel_initializer=fr.constant_initializer(-0.2), name="logits")
    loss = fr.losses.sparse_softmax_cross_entropy(y, logits)
    train = fr.train.AdamOptimizer(0.05).minimize(loss, name="train")
    return loss, train


def _import_into_new_graph(gd, **kw):
    g = fr.Graph()
    with g.as_default():
        out = fr.import_graph_def(gd, **kw)
    return g, out


def test_mlp_with_adam_trains_the_same_after_a_round_trip():
    g = fr.Graph()
    with g.as_default():
        loss, train = _mlp_adam()
        init = fr.global_variables_initializer()
    h, _ = _import_into_new_graph(g.as_graph_def(), name="")
    losses = []
    for graph, names in ((g, (loss.name, train.name, init.name)), (h, None)):
        lname, tname, iname = names or (loss.name, train.name, init.name)
        with fr.Session(graph=graph) as sess:
            sess.run(iname)
            feed = {"x:0": X, "y:0": Y}
            losses.append([sess.run([lname, tname], feed)[0] for _ in range(4)])
    np.testing.assert_array_equal(losses[0], losses[1])
    assert losses[0][3] < losses[0][0]


def test_every_attr_comes_back_with_its_value_and_type():
    from flowrt._core.lazy_constant import LazyConstant, value_of

    g = fr.Graph()
    with g.as_default():
        _mlp_adam()
        x = fr.placeholder(fr.float32, [None, 8, 8, 1], name="img")
        c = fr.layers.conv2d(x, 3, 3, padding="same", activation=fr.nn.relu)
        fr.layers.max_pooling2d(c, 2, 2)
        q = fr.FIFOQueue(4, [fr.float32, fr.string], shapes=[[2], []], name="q")
        q.enqueue([fr.constant([1.0, 2.0]), fr.constant("a")])
        q.dequeue_many(1)
        fr.decode_csv(fr.constant(["1,2.5,a"]), [[0], [0.0], ["z"]])
        fr.transpose(x[:, 1:3, ::2, 0], [0, 2, 1])
        fr.random_normal([2, 3], seed=3)
        fr.summary.scalar("s", fr.constant(1.0))
        fr.io.parse_example(
            fr.constant([b""]), {"f": fr.io.FixedLenFeature([2], fr.float32, [0.0, 1.0])}
        )
    h, _ = _import_into_new_graph(g.as_graph_def(), name="")
    for op in g.get_operations():
        new = h.get_operation_by_name(op.name)
        if op.type == "AssignMulVariableOp":  # written as TF1's read, Mul and assign
            assert new.type == "AssignVariableOp"
            continue
        assert new.type == op.type
        assert [t.name for t in new.inputs] == [t.name for t in op.inputs]
        assert [c.name for c in new.control_inputs] == [c.name for c in op.control_inputs]
        sig = op_def(op.type)
        for k, v in op.attrs.items():
            if sig is not None and k not in sig["attrs"]:
                continue  # flowrt's own attr: the GraphDef holds TF's attrs only
            if k == "dense_shapes":  # int tuples come back as TF's list(shape)
                assert [tuple(s.as_list()) for s in new.attrs[k]] == [tuple(s) for s in v]
                continue
            got = new.attrs[k]
            if k == "value":  # an imported constant is decoded when first needed
                assert isinstance(got, LazyConstant)
                got = value_of(got, new)
            assert _same(v, got), (op.name, k, v, got)
        assert [t.dtype for t in new.outputs] == [t.dtype for t in op.outputs]


def test_queue_and_decode_csv_graph_runs_after_a_round_trip():
    g = fr.Graph()
    with g.as_default():
        q = fr.FIFOQueue(5, [fr.string], shapes=[[]], name="lines")
        q.enqueue_many([fr.constant(["1,2.5,a", "3,4,bc"])], name="fill")
        q.close(name="close")
        cols = fr.decode_csv(q.dequeue_many(2), [[0], [0.0], ["z"]], name="csv")
        fr.identity(cols[0] * 10, name="ints")
    h, (fill, close, ints, s) = _import_into_new_graph(
        g.as_graph_def(), return_elements=["fill", "close", "ints:0", "csv:2"]
    )
    assert fill.name == "import/fill"
    with fr.Session(graph=h) as sess:
        sess.run([fill])
        sess.run(close)
        a, b = sess.run([ints, s])
        np.testing.assert_array_equal(a, [10, 30])
        assert list(b) == [b"a", b"bc"]
        with pytest.raises(errors.OutOfRangeError):
            sess.run(ints)


def test_py_func_nodes_import_but_their_callables_stay_with_their_graph():
    g = fr.Graph()
    with g.as_default():
        x = fr.constant([1.0, 2.0], name="x")
        y = fr.py_func(lambda v: v * 3, [x], fr.float32)
        fr.identity(y, name="out")
    token = y.op.attrs["token"]
    h, (out,) = _import_into_new_graph(g.as_graph_def(), return_elements=["out:0"])
    assert h.get_operation_by_name("import/" + y.op.name).attrs["token"] == token
    # TF's error when the callable is not registered where the graph runs.
    with fr.Session(graph=h) as sess:
        with pytest.raises(
            errors.InvalidArgumentError,
            match=r"PyFunc op 'import/PyFunc'.*callback %s is not found" % token.decode(),
        ):
            sess.run(out)


def test_conv_net_outputs_agree():
    g = fr.Graph()
    with g.as_default():
        x = fr.placeholder(fr.float32, [None, 6, 6, 2], name="x")
        init = fr.random_uniform_initializer(-1, 1, seed=4)
        c = fr.layers.conv2d(x, 3, 3, strides=2, padding="valid", kernel_initializer=init)
        out = fr.identity(fr.layers.average_pooling2d(c, 2, 1), name="out")
        vinit = fr.global_variables_initializer()
    img = np.random.RandomState(1).rand(2, 6, 6, 2).astype(np.float32)
    with fr.Session(graph=g) as sess:
        sess.run(vinit)
        want = sess.run(out, {x: img})
    h, (out2, init2) = _import_into_new_graph(
        g.as_graph_def(), return_elements=["out:0", vinit.name]
    )
    assert out2.shape.as_list() == [None, 1, 1, 3]
    with fr.Session(graph=h) as sess:
        sess.run(init2)
        np.testing.assert_array_equal(sess.run(out2, {"import/x:0": img}), want)


def test_frozen_graph_with_input_map_replaces_the_placeholder():
    g = fr.Graph()
    with g.as_default():
        x = fr.placeholder(fr.float32, [None, 2], name="x")
        w = fr.constant([[1.0, 2.0], [3.0, 4.0]], name="w")
        fr.nn.relu(fr.matmul(x, w) - 5.0, name="y")
    gd = g.as_graph_def()
    h = fr.Graph()
    with h.as_default():
        feed = fr.placeholder(fr.float32, [3, 2], name="feed")
        (y,) = fr.import_graph_def(gd, input_map={"x": feed}, return_elements=["y:0"])
        assert y.shape.as_list() == [3, 2]  # inferred again from the mapped input
        (y2,) = fr.import_graph_def(
            gd, input_map={"x:0": fr.constant([[1.0, 1.0]])}, return_elements=["y:0"]
        )
    assert y.name == "import/y:0" and y2.name == "import_1/y:0"
    with fr.Session(graph=h) as sess:
        v = np.array([[1, 1], [2, 0], [0, 3]], np.float32)
        np.testing.assert_array_equal(
            sess.run(y, {feed: v}), np.maximum(v @ [[1, 2], [3, 4]] - 5, 0)
        )
        np.testing.assert_array_equal(sess.run(y2), [[0.0, 1.0]])


def test_names_prefixes_control_inputs_and_devices():
    g = fr.Graph()
    with g.as_default():
        a = fr.constant(1.0, name="a")
        with fr.device("/cpu:0"), fr.control_dependencies([a]):
            fr.constant(2.0, name="b")
    gd = g.as_graph_def()
    h = fr.Graph()
    with h.as_default():
        fr.constant(0.0, name="b")
        fr.import_graph_def(gd, name="")
        fr.import_graph_def(gd)
        with fr.name_scope("outer"):
            fr.import_graph_def(gd, name="m")
    names = [op.name for op in h.get_operations()]
    assert names == ["b", "a", "b_1", "import/a", "import/b", "outer/m/a", "outer/m/b"]
    b = h.get_operation_by_name("outer/m/b")
    assert [c.name for c in b.control_inputs] == ["outer/m/a"]
    assert b.device == g.get_operation_by_name("b").device != ""


def test_nodes_out_of_order_are_imported_in_dependency_order():
    gd = GraphDef()
    gd.node.add(name="sum", op="AddV2", input=["a", "b"]).attr["T"].type = 1
    for n in ("a", "b"):
        node = gd.node.add(name=n, op="Const")
        node.attr["dtype"].type = 1
        node.attr["value"].tensor.dtype = 1
        node.attr["value"].tensor.float_val.append(2.5)
        node.attr["value"].tensor.tensor_shape.SetInParent()
    g, (s,) = _import_into_new_graph(gd, return_elements=["sum:0"])
    with fr.Session(graph=g) as sess:
        assert sess.run(s) == 5.0


def _small_graph_def():
    g = fr.Graph()
    with g.as_default():
        x = fr.placeholder(fr.float32, [None, 2], name="x")
        fr.identity(x * 2.0, name="y")
    return g.as_graph_def()


def test_tf_errors_for_bad_arguments():
    gd = _small_graph_def()
    with fr.Graph().as_default():
        with pytest.raises(TypeError, match=r"^Argument `graph_def` must be a GraphDef proto\.$"):
            fr.import_graph_def(b"abc")
        with pytest.raises(TypeError, match="must be a dictionary. Obtained list"):
            fr.import_graph_def(gd, input_map=[1])
        with pytest.raises(
            ValueError, match=r"^Attempted to map inputs that were not found in graph_def: \[z:0\]$"
        ):
            fr.import_graph_def(gd, input_map={"z:0": fr.constant([[1.0, 2.0]])})
        with pytest.raises(ValueError, match="^Requested return node 'q' not found in graph def$"):
            fr.import_graph_def(gd, return_elements=["q"])
        with pytest.raises(
            ValueError, match=r"^Invalid return output 3 of node 'y', which has 1 output\(s\)$"
        ):
            fr.import_graph_def(gd, return_elements=["y:3"])
        with pytest.raises(
            ValueError,
            match=r"^Input 0 of node import_\d/mul was passed int32 from c:0 incompatible with "
            r"expected float32\.$",
        ):
            fr.import_graph_def(gd, input_map={"x": fr.constant([[1, 2]], name="c")})


def _edited(edit):
    gd = GraphDef()
    gd.CopyFrom(_small_graph_def())
    edit(gd)
    return gd


def test_tf_errors_for_bad_graph_defs():
    def bad_op(gd):
        gd.node[2].op = "Mull"

    def bad_input(gd):
        gd.node[2].input[0] = "nope"

    def bad_index(gd):
        gd.node[2].input[0] = "x:5"

    def cycle(gd):
        gd.node[2].input.append("^y")

    def dup(gd):
        gd.node.add().CopyFrom(gd.node[0])

    def missing_attr(gd):
        del gd.node[0].attr["dtype"]

    with fr.Graph().as_default():
        with pytest.raises(
            errors.NotFoundError, match=r"^Op type not registered 'Mull' .*Did you mean 'Mul'"
        ):
            fr.import_graph_def(_edited(bad_op))
        with pytest.raises(ValueError, match=r"^Node 'mul': Unknown input node 'nope'$"):
            fr.import_graph_def(_edited(bad_input))
        with pytest.raises(ValueError, match="^Node 'mul': Connecting to invalid output 5 of"):
            fr.import_graph_def(_edited(bad_index))
        with pytest.raises(ValueError, match="^2 nodes in a cycle$"):
            fr.import_graph_def(_edited(cycle))
        with pytest.raises(ValueError, match="^Node 'x' is not unique$"):
            fr.import_graph_def(_edited(dup))
        with pytest.raises(ValueError, match=r"^Node 'x' \(Placeholder\): NodeDef missing attr"):
            fr.import_graph_def(_edited(missing_attr))


def test_a_node_whose_attrs_held_python_objects_is_refused_by_name():
    g = fr.Graph()
    with g.as_default():
        x = fr.constant(2.0)
        y = fr.while_loop(lambda v: v < 10.0, lambda v: [v * x], [x], name="loop")
        fr.gradients(y, x)  # the loop records its values: written in flowrt's form
    gd = graph_def_proto(g, display=True)
    (node,) = [n for n in gd.node if n.name == "loop"]
    assert sorted(node.attr["_flowrt_unencoded_attrs"].list.s) == [b"body", b"cond"]
    with fr.Graph().as_default():
        with pytest.raises(
            ValueError,
            match=r"^Node '%s' \(%s\): attr 'cond', 'body' held a Python object"
            % (node.name, node.op),
        ):
            fr.import_graph_def(gd)


def test_function_attrs_are_refused_by_name():
    gd = _small_graph_def()
    gd.node[2].attr["f"].func.name = "fn"
    with fr.Graph().as_default():
        with pytest.raises(
            ValueError, match=r"^Node 'mul' \(Mul\) attr 'f': function attrs are not supported"
        ):
            fr.import_graph_def(gd)


def test_make_ndarray_reads_every_value_form():
    g = fr.Graph()
    with g.as_default():
        consts = [
            fr.constant(np.arange(6, dtype=np.int64).reshape(2, 3)),
            fr.constant([b"a", b"\xff"]),
            fr.constant(np.array([1 + 2j], np.complex64)),
            fr.constant(np.float16(1.5)),
            fr.constant([True, False]),
        ]
    gd = g.as_graph_def()
    for c, node in zip(consts, gd.node, strict=True):
        got = fr.make_ndarray(node.attr["value"].tensor)
        want = c.op.attrs["value"]
        assert got.dtype == want.dtype and np.array_equal(got, want)
    # TF's short forms: one value fills the shape; typed fields instead of raw bytes.
    t = gd.node[0].attr["value"].tensor
    t.ClearField("tensor_content")
    t.int64_val.extend([7])
    np.testing.assert_array_equal(fr.make_ndarray(t), np.full((2, 3), 7))


def test_tensorflow_graph_def_imports_and_runs():
    tf = pytest.importorskip("tensorflow.compat.v1")
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        w = tf.constant(np.arange(6, dtype=np.float32).reshape(3, 2), name="w")
        tf.nn.softmax(tf.nn.relu(tf.matmul(x, w) - 3.0), name="y")
        with tf.Session(graph=g) as sess:
            want = sess.run("y:0", {"x:0": X[:, :3]})
    h, (y,) = _import_into_new_graph(g.as_graph_def(), return_elements=["y:0"])
    with fr.Session(graph=h) as sess:
        np.testing.assert_allclose(sess.run(y, {"import/x:0": X[:, :3]}), want, rtol=1e-6)


def _const_def(name, dims, dtype_enum=1, values=()):
    """A GraphDef of one Const node declaring ``dims`` and holding ``values`` (float
    or string ones, by ``dtype_enum``; the last repeats to fill the shape)."""
    gd = GraphDef()
    n = gd.node.add(name=name, op="Const")
    n.attr["dtype"].type = dtype_enum
    t = n.attr["value"].tensor
    t.dtype = dtype_enum
    for d in dims:
        t.tensor_shape.dim.add().size = d
    (t.string_val if dtype_enum == 7 else t.float_val).extend(values)
    return gd


def test_unused_huge_constants_import_without_expanding():
    # [60000, 60000] float32 (13.4 GiB) and [10**9] strings, values omitted (zeros, empty
    # strings): TF imports both with no growth; so does flowrt, in a child whose address
    # space could not hold either, and a run reading a corner of one gets zeros.
    out = run_capped(
        """
        import flowrt as fr
        from tests.test_graph_import import _const_def
        with fr.Graph().as_default() as g:
            fr.import_graph_def(_const_def("big", [60000, 60000]), name="")
            fr.import_graph_def(_const_def("strs", [10**9], 7), name="")
            with fr.Session() as s:
                print(s.run(g.get_tensor_by_name("big:0")[:2, :3]).tolist())
        """
    )
    assert out.strip() == "[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]"


def test_unused_constants_of_a_few_values_import_and_export_without_expanding():
    # The same shapes holding a few values, the last repeated: TF imports them with no
    # growth; so does flowrt (the constants stay TensorProtos), and writing the graph
    # back writes the protos as they came. A run that needs one fails naming it,
    # instead of numpy's MemoryError.
    out = run_capped(
        """
        import flowrt as fr
        from tests.test_graph_import import _const_def
        with fr.Graph().as_default() as g:
            fr.import_graph_def(_const_def("big", [60000, 60000], values=[1.0, 2.0]), name="")
            fr.import_graph_def(_const_def("strs", [10**9], 7, [b"a", b"b"]), name="")
            fr.import_graph_def(_const_def("zeros", [60000, 60000]), name="")
            fr.import_graph_def(_const_def("small", [2, 3], values=[1.0, 2.0]), name="")
            gd = g.as_graph_def()
            print(len(gd.node), gd.ByteSize() < 1000)
            with fr.Session() as s:
                print(s.run("small:0").tolist())
                for name in ("big", "strs"):
                    try:
                        s.run(name + ":0")
                    except fr.errors.ResourceExhaustedError as e:
                        print(e.op.name, "|", e.message)
        """
    )
    lines = out.strip().splitlines()
    assert lines[:2] == ["4 True", "[[1.0, 2.0, 2.0], [2.0, 2.0, 2.0]]"]
    assert lines[2].startswith("big | OOM when allocating tensor with shape[60000, 60000]")
    assert "Const 'big': 2 values repeated to fill it" in lines[2]
    assert lines[3].startswith("strs | OOM when allocating tensor with shape[1000000000]")


def test_const_whose_element_count_overflows_is_too_large_naming_it():
    with fr.Graph().as_default():
        with pytest.raises(ValueError, match=r"Node 'huge' \(Const\).*Shape .* is too large"):
            fr.import_graph_def(_const_def("huge", [2**33, 2**31]), name="")


def _conv_def():
    with fr.Graph().as_default() as g:
        x = fr.placeholder(fr.float32, [1, 3, 3, 1], name="x")
        fr.nn.conv2d(x, fr.ones([1, 1, 1, 1]), [1, 1, 1, 1], "SAME", name="conv")
    return g.as_graph_def()


@pytest.mark.parametrize(
    "node, attr, set_to, msg",
    [
        (
            "x",
            "shape",
            "i",
            r"NodeDef 'x' \(Placeholder\): AttrValue had value with type 'int' "
            r"when 'shape' expected for attr 'shape'",
        ),
        (
            "x",
            "dtype",
            "s",
            r"NodeDef 'x' \(Placeholder\): AttrValue had value with type "
            r"'string' when 'type' expected for attr 'dtype'",
        ),
        (
            "conv",
            "padding",
            "s",
            r"NodeDef 'conv' \(Conv2D\): value for attr 'padding' of "
            r"\"3\" is not in the list of allowed values",
        ),
    ],
)
def test_mistyped_attrs_are_value_errors_naming_node_and_attr(node, attr, set_to, msg):
    # TF's import_graph_def raises its InvalidArgumentError as a ValueError.
    gd = _conv_def()
    n = next(n for n in gd.node if n.name == node)
    n.attr[attr].Clear()
    if set_to == "i":
        n.attr[attr].i = 3
    else:
        n.attr[attr].s = b"3"
    with fr.Graph().as_default():
        with pytest.raises(ValueError, match=msg):
            fr.import_graph_def(gd)


def test_node_stripped_of_its_inputs_is_a_value_error_naming_it():
    # Identity with no input: was a raw IndexError from its shape function.
    with fr.Graph().as_default() as g:
        fr.identity(fr.placeholder(fr.float32, name="x"), name="n")
    gd = g.as_graph_def()
    del next(n for n in gd.node if n.name == "n").input[:]
    with fr.Graph().as_default():
        with pytest.raises(
            ValueError,
            match=r"^NodeDef 'n' \(Identity\): expected inputs 'input' do not match 0 inputs "
            r"specified$",
        ):
            fr.import_graph_def(gd)


def _add_n_def():
    """x, mul = x * x and addn = AddN(x, x, x) with TF's N attr (flowrt writes none)."""
    with fr.Graph().as_default() as g:
        x = fr.placeholder(fr.float32, name="x")
        fr.multiply(x, x, name="mul")
        fr.add_n([x, x, x], name="addn")
    gd = g.as_graph_def()
    next(n for n in gd.node if n.name == "addn").attr["N"].i = 3
    return gd


def _set_n(n, value):
    n.attr["N"].i = value


@pytest.mark.parametrize(
    "node, edit, msg",
    [
        ("mul", lambda n: n.input.append("x"), r"NodeDef 'mul' \(Mul\): expected inputs 'x, y' "),
        ("addn", lambda n: _set_n(n, 5), r"NodeDef 'addn' \(AddN\): expected inputs 'inputs\*5' "),
        ("addn", lambda n: n.input.append("^x"), None),  # control inputs do not count
    ],
)
def test_input_count_is_checked_against_the_op_def_at_import(node, edit, msg):
    # As TF's import_graph_def: a node has as many inputs (control inputs aside) as its
    # OpDef's arguments take, a list argument sized by its attr (AddN's N). A Mul of 3
    # inputs was numpy's "too many values to unpack"; an AddN of N=5 over 3 imported.
    gd = _add_n_def()
    edit(next(n for n in gd.node if n.name == node))
    with fr.Graph().as_default():
        if msg is None:
            fr.import_graph_def(gd)
            return
        with pytest.raises(ValueError, match="^" + msg + "do not match 3 inputs specified$"):
            fr.import_graph_def(gd)


def test_ops_whose_flowrt_inputs_differ_from_tf_import_from_flowrt_graph_defs():
    # ParseExampleV2 (keys as attrs) and TensorArray V3 ops (no flow input) take other
    # inputs than TF's OpDefs list: a graph flowrt wrote imports and runs.
    with fr.Graph().as_default() as g:
        ta = fr.TensorArray(fr.float32, size=2).write(0, 1.0).write(1, 2.0)
        fr.identity(ta.stack(), name="stacked")
        fr.io.parse_example(
            fr.constant([b""]), {"f": fr.io.FixedLenFeature([2], fr.float32, [0.0, 1.0])}
        )
    h, (stacked,) = _import_into_new_graph(g.as_graph_def(), return_elements=["stacked:0"])
    with fr.Session(graph=h) as s:
        assert s.run(stacked).tolist() == [1.0, 2.0]


def test_conv2d_padding_is_checked_at_construction_as_tf():
    with fr.Graph().as_default():
        x = fr.placeholder(fr.float32, [1, 3, 3, 1])
        with pytest.raises(
            ValueError,
            match=r"Attr 'padding' of 'Conv2D' Op passed string 'FOO' not in: "
            r'"SAME", "VALID", "EXPLICIT"\.',
        ):
            fr.nn.conv2d(x, fr.ones([1, 1, 1, 1]), [1, 1, 1, 1], "FOO")
