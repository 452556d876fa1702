"""Graph construction: default graphs, ops and tensors, operators, lookups, control
dependencies, devices, collections, finalize and construction errors (TF1 behaviour)."""

import os
import threading

import numpy as np
import pytest

import flowrt as fr
from flowrt._core.graph import OPERATORS

# --- default graph stack ----------------------------------------------------------------


def test_as_default_nests_and_restores():
    outer = fr.get_default_graph()
    g1, g2 = fr.Graph(), fr.Graph()
    assert fr.get_default_graph() is not g1
    with g1.as_default() as got:
        assert got is g1 and fr.get_default_graph() is g1
        with g2.as_default():
            assert fr.constant(1.0).graph is g2
        assert fr.get_default_graph() is g1
    assert fr.get_default_graph() is outer


def test_as_default_is_thread_local():
    g = fr.Graph()
    seen = []

    def other():
        seen.append(fr.get_default_graph())

    with g.as_default():
        t = threading.Thread(target=other)
        t.start()
        t.join(timeout=10)
    assert not t.is_alive()
    assert seen[0] is not g
    assert seen[0] is fr.get_default_graph()  # the global default graph, shared by threads


def test_reset_default_graph_replaces_it_and_refuses_inside_a_nesting():
    before = fr.get_default_graph()
    fr.constant(1.0)
    fr.reset_default_graph()
    after = fr.get_default_graph()
    assert after is not before and after.get_operations() == []
    with fr.Graph().as_default():
        with pytest.raises(AssertionError, match="to clear nested graphs"):
            fr.reset_default_graph()


# --- tensors and operations ---------------------------------------------------------------


def test_tensor_and_operation_attributes():
    g = fr.get_default_graph()
    a = fr.constant([1.0, 2.0], name="a")
    b = a + a
    assert a.name == "a:0" and a.op.name == "a" and a.op.type == "Const"
    assert a.value_index == 0 and a.op.outputs[0] is a and a.graph is g and a.op.graph is g
    assert a.dtype == fr.float32 and a.dtype is fr.float32
    assert a.shape.as_list() == [2] and a.get_shape() == a.shape
    assert list(a.op.inputs) == [] and a.op.control_inputs == []
    assert b.op.type == "AddV2" and b.name == "add:0"
    assert list(b.op.inputs) == [a, a]
    assert a.consumers() == [b.op, b.op]
    assert str(a) == 'Tensor("a:0", shape=(2,), dtype=float32)'
    assert g.get_operations() == [a.op, b.op]


def test_tensor_is_hashable_by_identity_and_not_a_bool():
    a = fr.constant(1.0)
    assert {a: 1}[a] == 1 and (a == a) is True and (a != a) is False
    with pytest.raises(TypeError, match="as a Python `bool` is not allowed"):
        bool(a)
    with pytest.raises(TypeError, match="only iterable when eager"):
        iter(a)


def test_partially_known_static_shapes():
    x = fr.placeholder(fr.float32, [None, 3])
    u = fr.placeholder(fr.float32)
    assert x.shape.as_list() == [None, 3] and str(x.shape) == "(None, 3)"
    assert x.shape[0] is None and x.shape[1] == 3 and x.shape.ndims == 2
    assert u.shape.ndims is None and str(u.shape) == "<unknown>"
    with pytest.raises(ValueError, match="unknown TensorShape"):
        u.shape.as_list()
    assert (x + fr.constant([1.0, 2.0, 3.0])).shape.as_list() == [None, 3]
    assert (x * u).shape.ndims is None
    x.set_shape([4, 3])
    assert x.shape.as_list() == [4, 3]
    with pytest.raises(ValueError, match="not compatible"):
        x.set_shape([4, 2])


# --- operators and conversion of Python values ----------------------------------------------

OPS = [
    (lambda a: a + 2, "AddV2", "add"),
    (lambda a: 2 + a, "AddV2", "add"),
    (lambda a: a - 2, "Sub", "sub"),
    (lambda a: 2 - a, "Sub", "sub"),
    (lambda a: a * 2, "Mul", "mul"),
    (lambda a: 2 * a, "Mul", "mul"),
    (lambda a: a // 2, "FloorDiv", "floordiv"),
    (lambda a: 7 // a, "FloorDiv", "floordiv"),
    (lambda a: a % 2, "FloorMod", "mod"),
    (lambda a: 7 % a, "FloorMod", "mod"),
    (lambda a: a**2, "Pow", "pow"),
    (lambda a: 2**a, "Pow", "pow"),
    (lambda a: -a, "Neg", "Neg"),
    (lambda a: abs(a), "Abs", "Abs"),
    (lambda a: a < 2, "Less", "Less"),
    (lambda a: 2 < a, "Greater", "Greater"),
    (lambda a: a <= 2, "LessEqual", "LessEqual"),
    (lambda a: a >= 2, "GreaterEqual", "GreaterEqual"),
]


@pytest.mark.parametrize("f,op_type,name", OPS)
def test_operators_and_reflected_operators_keep_the_tensor_dtype(f, op_type, name):
    a = fr.constant(3, name="a")
    t = f(a)
    assert t.op.type == op_type and t.name == name + ":0"
    expected_dtype = (
        fr.bool if op_type in ("Less", "Greater", "LessEqual", "GreaterEqual") else fr.int32
    )
    assert t.dtype is expected_dtype
    with fr.Session() as sess:
        assert sess.run(t) == f(np.int32(3))


def test_truediv_of_ints_is_float64_and_of_floats_keeps_dtype():
    a = fr.constant(3)
    assert (a / 2).op.type == "RealDiv" and (a / 2).dtype is fr.float64
    assert (1.0 / fr.constant(2.0)).dtype is fr.float32
    with fr.Session() as sess:
        assert sess.run(1.0 / fr.constant(2.0)) == 0.5


def test_python_scalars_take_the_other_operands_dtype():
    assert (fr.constant(1, fr.int64) + 5).dtype is fr.int64
    assert (fr.constant(1.0, fr.float64) + 1).dtype is fr.float64
    assert (fr.constant(1.0, fr.float16) * 3).dtype is fr.float16
    assert (fr.constant(1) + True).dtype is fr.int32  # TF: bool -> int is allowed
    with pytest.raises(TypeError):
        fr.constant(1) * 2.0  # float -> int is not
    with pytest.raises(TypeError, match="does not match type float32"):
        fr.constant(1.0) + fr.constant(1)


def test_out_of_range_python_ints_wrap_like_tf():
    u = fr.constant(1, fr.uint8)
    a = fr.constant(1)
    with fr.Session() as sess:
        assert sess.run(u + 300) == 45
        assert sess.run(a + 2**40) == 1


def test_logical_operators():
    t = fr.constant(True)
    assert (~t).op.type == "LogicalNot"
    assert (t & False).op.type == "LogicalAnd" and (True | t).op.type == "LogicalOr"
    with fr.Session() as sess:
        assert sess.run([~t, t & False, False | t]) == [False, False, True]


def test_logical_operator_names():
    t = fr.constant(True)
    assert [(t & t).name, (t | t).name] == ["and:0", "or:0"]


def test_python_operand_constants_are_named_inside_the_op_scope():
    a = fr.constant(1.0)
    b = a + 1.0
    c = 2.0 * a
    d = 1.0 + a
    assert [b.op.inputs[1].op.name, c.op.inputs[0].op.name, d.op.inputs[0].op.name] == [
        "add/y",
        "mul/x",
        "add_1/x",
    ]


def test_matmul_operator():
    m = fr.constant([[1.0, 2.0]]) @ fr.constant([[3.0], [4.0]])
    assert m.op.type == "MatMul" and m.shape.as_list() == [1, 1] and m.name == "matmul:0"
    with fr.Session() as sess:
        assert sess.run(m).tolist() == [[11.0]]


@pytest.mark.skipif("getitem" not in OPERATORS, reason="slicing (array_ops) not written yet")
def test_getitem_operator():
    s = fr.constant([1, 2, 3])[1:]
    assert s.op.type == "StridedSlice" and s.shape.as_list() == [2]
    with fr.Session() as sess:
        assert sess.run(s).tolist() == [2, 3]


@pytest.mark.parametrize(
    "value,dtype,expected",
    [
        (True, fr.float32, 1.0),
        ([True, 2], fr.int32, [1, 2]),
        (np.array(1.5), fr.int32, 1),
        (-1, fr.uint8, 255),
        (1, fr.float64, 1.0),
        ([], fr.int32, []),
    ],
)
def test_constant_dtype_conversion(value, dtype, expected):
    t = fr.constant(value, dtype)
    assert t.dtype is dtype
    with fr.Session() as sess:
        assert np.asarray(sess.run(t)).tolist() == expected


@pytest.mark.parametrize(
    "value,dtype,err,msg",
    [
        (2.5, fr.int32, TypeError, "Expected int32, but got 2.5 of type 'float'."),
        ([1, 2.5], fr.int32, TypeError, "Expected int32, but got 2.5 of type 'float'."),
        (1, fr.bool, TypeError, "Expected bool, but got 1 of type 'int'."),
        ("a", fr.float32, TypeError, "Expected float32, but got a of type 'str'."),
        (None, fr.float32, ValueError, "None values not supported."),
    ],
)
def test_constant_dtype_conversion_errors(value, dtype, err, msg):
    with pytest.raises(err) as info:
        fr.constant(value, dtype)
    assert str(info.value) == msg


@pytest.mark.parametrize(
    "value,dtype,shape",
    [
        (1, fr.int32, []),
        (1.5, fr.float32, []),
        (True, fr.bool, []),
        (2**31, fr.int64, []),
        ([1, 2.0], fr.float32, [2]),
        ([], fr.float32, [0]),
        ([[]], fr.float32, [1, 0]),
        (np.float64(1.5), fr.float64, []),
        (np.array(3, np.int16), fr.int16, []),
        ("ab", fr.string, []),
        (["a", "b"], fr.string, [2]),
    ],
)
def test_constant_default_dtypes(value, dtype, shape):
    t = fr.constant(value)
    assert t.dtype is dtype and t.shape.as_list() == shape


# --- lookups ------------------------------------------------------------------------------


def test_get_tensor_and_operation_by_name():
    g = fr.get_default_graph()
    a = fr.constant(1.0, name="abc")
    assert g.get_tensor_by_name("abc:0") is a
    assert g.get_operation_by_name("abc") is a.op
    assert g.as_graph_element("abc:0") is a and g.as_graph_element(a.op) is a.op


@pytest.mark.parametrize(
    "call,err,msg",
    [
        (
            lambda g: g.get_tensor_by_name("abd:0"),
            KeyError,
            "The name 'abd:0' refers to a Tensor which does not exist. The operation, 'abd', does "
            "not exist in the graph. Did you mean 'abc'?",
        ),
        (
            lambda g: g.get_operation_by_name("abd"),
            KeyError,
            "The name 'abd' refers to an Operation not in the graph. Did you mean 'abc'?",
        ),
        (lambda g: g.get_tensor_by_name("abc:1"), KeyError, "exists but only has 1 outputs"),
        (lambda g: g.get_tensor_by_name("abc"), ValueError, "refers to an Operation, not a Tensor"),
        (
            lambda g: g.get_operation_by_name("abc:0"),
            ValueError,
            "appears to refer to a Tensor, not a",
        ),
        (lambda g: g.get_tensor_by_name("abc:x"), ValueError, "is not a valid one"),
        (lambda g: g.get_tensor_by_name(3), TypeError, "not int"),
    ],
)
def test_lookup_errors_suggest_close_names(call, err, msg):
    g = fr.get_default_graph()
    fr.constant(1.0, name="abc")
    fr.constant(1.0, name="zzzzzz")
    with pytest.raises(err) as info:
        call(g)
    text = info.value.args[0]
    assert msg in text
    assert "zzzzzz" not in text  # only close names, never the whole graph


# --- control dependencies, group, no_op, identity, devices ----------------------------------


def test_control_dependencies_nest_and_none_clears():
    a, b = fr.constant(1.0, name="a"), fr.constant(2.0, name="b")
    with fr.control_dependencies([a]):
        c = fr.identity(b)
        with fr.control_dependencies([b.op]):
            d = fr.identity(b)  # b is a data input: not repeated as a control input
            e = fr.constant(3.0)
        with fr.control_dependencies(None):
            f = fr.identity(b)
            with fr.control_dependencies([c]):
                h = fr.identity(b)
        i = a + 1.0  # a is a data input
    assert c.op.control_inputs == [a.op]
    assert d.op.control_inputs == [a.op]
    assert e.op.control_inputs == [a.op, b.op]
    assert f.op.control_inputs == [] and h.op.control_inputs == [c.op]
    assert i.op.control_inputs == []


def test_control_dependencies_order_execution():
    x = fr.placeholder(fr.float32, name="x")
    with fr.control_dependencies([fr.identity(x)]):
        c = fr.constant(1.0)
    with fr.Session() as sess:
        with pytest.raises(fr.errors.InvalidArgumentError, match="must feed a value"):
            sess.run(c)
        assert sess.run(c, {x: 0.0}) == 1.0


def test_group_no_op_identity():
    a, b = fr.constant(1.0), fr.constant(2.0)
    grp = fr.group(a, [b.op], name="grp")
    assert grp.name == "grp" and grp.type == "NoOp" and grp.outputs == []
    assert sorted(c.name for c in grp.control_inputs) == ["Const", "Const_1"]
    assert fr.group().name == "group_deps"
    n = fr.no_op()
    assert (n.name, n.type) == ("NoOp", "NoOp")
    i = fr.identity(a)
    assert i.op.type == "Identity" and i.name == "Identity:0" and i.shape == a.shape
    with fr.Session() as sess:
        assert sess.run(grp) is None and sess.run(i) == 1.0


@pytest.mark.parametrize(
    "outer,inner,outer_dev,inner_dev",
    [
        ("/cpu:0", "/gpu:1", "/device:CPU:0", "/device:GPU:1"),
        ("/job:ps", "/cpu:0", "/job:ps", "/job:ps/device:CPU:0"),
        (
            "/job:w/replica:0/task:2/cpu:0",
            "/task:3",
            "/job:w/replica:0/task:2/device:CPU:0",
            "/job:w/replica:0/task:3/device:CPU:0",
        ),
        ("/cpu:0", "", "/device:CPU:0", "/device:CPU:0"),
        ("/cpu:0", None, "/device:CPU:0", ""),
    ],
)
def test_device_is_recorded_canonically_and_merged(outer, inner, outer_dev, inner_dev):
    with fr.device(outer):
        a = fr.constant(1.0)
        with fr.device(inner):
            b = fr.constant(1.0)
    assert (a.op.device, b.op.device, a.device) == (outer_dev, inner_dev, outer_dev)
    assert fr.constant(1.0).op.device == ""


def test_bad_device_spec():
    with pytest.raises(ValueError, match="Multiple device types"):
        with fr.device("/gpu:0/cpu:0"):
            pass
    with pytest.raises(ValueError, match="Unknown attribute 'bad'"):
        with fr.device("bad"):
            pass


# --- collections and finalize ---------------------------------------------------------------


def test_collections():
    g = fr.get_default_graph()
    a = fr.constant(1.0)
    fr.add_to_collection("k", a)
    fr.add_to_collection("k", 3)
    fr.add_to_collections(["k2", "k3"], a)
    with fr.name_scope("sc"):
        b = fr.constant(2.0)
        fr.add_to_collection("k", b)
    assert fr.get_collection("k") == [a, 3, b]
    assert fr.get_collection("k", "sc") == [b]
    assert sorted(g.get_all_collection_keys()) == ["k", "k2", "k3"]
    assert fr.get_collection("missing") == []
    fr.get_collection("k").append(4)  # a copy
    fr.get_collection_ref("k").append(5)  # the list itself
    assert fr.get_collection("k") == [a, 3, b, 5]
    assert fr.GraphKeys.GLOBAL_VARIABLES == "variables"
    assert fr.GraphKeys.TRAINABLE_VARIABLES == "trainable_variables"


def test_finalize():
    g = fr.Graph()
    with g.as_default():
        fr.constant(1.0)
        g.finalize()
        assert g.finalized
        with pytest.raises(RuntimeError, match="Graph is finalized and cannot be modified."):
            fr.constant(2.0)
    assert len(g.get_operations()) == 1


def test_graph_version_grows_with_ops():
    g = fr.get_default_graph()
    v0 = g.version
    fr.constant(1.0)
    assert g.version > v0


# --- construction errors ----------------------------------------------------------------------


def test_construction_error_names_op_and_user_line():
    a = fr.constant([1.0, 2.0])
    b = fr.constant([1.0, 2.0, 3.0])
    line = _line_of("a + b  # error site")
    with pytest.raises(ValueError) as info:
        a + b  # error site
    msg = str(info.value)
    assert msg.startswith(
        "AddV2 op 'add' (created at %s:%d): Dimensions must be equal"
        % (os.path.basename(__file__), line)
    )
    # as in TF, the failed op used up its name
    assert (a + a).name == "add_1:0"


def test_construction_dtype_error_is_a_type_error():
    with pytest.raises(TypeError, match=r"AddV2 op 'add' \(created at test_graph.py:\d+\)"):
        fr.constant(1.0) + fr.constant(1)


def test_inputs_from_another_graph():
    with fr.Graph().as_default():
        other = fr.constant(1.0)
    with pytest.raises(ValueError, match="must be from the same graph as"):  # TF1's words
        fr.constant(1.0) + other
    g = fr.get_default_graph()
    with pytest.raises(ValueError, match="from a different graph"):  # the graph's own check
        g.create_op("AddV2", [fr.constant(1.0), other])


def _line_of(marker: str) -> int:
    with open(__file__) as f:
        for i, line in enumerate(f, 1):
            if marker in line and "_line_of" not in line:
                return i
    raise AssertionError(marker)


# --- switch_to_thread_local -----------------------------------------------------------


def _in_thread(fn):
    out = []
    t = threading.Thread(target=lambda: out.append(fn()))
    t.start()
    t.join(timeout=10)
    assert not t.is_alive()
    return out[0]


def test_stacks_are_shared_between_threads_by_default():
    g = fr.Graph()
    with g.as_default():
        a = fr.constant(1.0, name="a")
    with g.device("/cpu:0"), g.control_dependencies([a.op]):

        def build():
            with g.as_default():
                return fr.constant(2.0, name="b").op

        op = _in_thread(build)
    assert op.device == "/device:CPU:0" and op.control_inputs == [a.op]  # TF1: shared state


def test_switch_to_thread_local():
    g = fr.Graph()
    with g.as_default():
        a = fr.constant(1.0, name="a")
    with g.device("/cpu:0"):
        g.switch_to_thread_local()
        g.switch_to_thread_local()  # again: no effect
        with g.control_dependencies([a.op]):

            def build():
                with g.as_default():
                    return fr.constant(2.0, name="b").op

            op = _in_thread(build)
            with g.as_default():
                mine = fr.constant(3.0, name="c").op
    # The other thread starts from the stacks as they were when switched: the device,
    # but not the control dependency entered here afterwards.
    assert op.device == "/device:CPU:0" and op.control_inputs == []
    assert mine.device == "/device:CPU:0" and mine.control_inputs == [a.op]
    with g.as_default():
        assert fr.constant(4.0).op.device == ""  # this thread's device block has exited


@pytest.mark.parametrize("make", [fr.constant, fr.convert_to_tensor, fr.Variable])
def test_converting_an_array_leaves_the_callers_array_alone(make):
    # TF copies the value into the graph: the caller may go on writing its array, and
    # what it writes does not reach the constant.
    arr = np.arange(6.0).reshape(2, 3)
    t = make(arr)
    assert arr.flags.writeable
    arr[0, 0] = 100.0
    with fr.Session() as s:
        s.run(fr.global_variables_initializer())
        assert s.run(t)[0, 0] == 0.0
