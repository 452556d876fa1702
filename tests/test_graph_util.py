"""fr.graph_util: freezing, subgraph extraction and inference cleanup of GraphDefs, as
TF1's tf.graph_util does them."""

import numpy as np
import pytest

import flowrt as fr
from flowrt import graph_util as gu
from flowrt.protos.graph_pb2 import GraphDef, NodeDef


def _frozen(whitelist=None, blacklist=None):
    g = fr.Graph()
    with g.as_default():
        x = fr.placeholder(fr.float32, [None, 2], name="x")
        w = fr.Variable([[1.0], [2.0]], name="w")
        b = fr.Variable(0.5, name="b")
        fr.Variable(9.0, name="unused")
        y = fr.identity(fr.matmul(x, w) + b, name="y")
        with fr.Session() as s:
            s.run(fr.global_variables_initializer())
            s.run(w.assign([[3.0], [4.0]]))
            want = s.run(y, {x: [[1.0, 1.0], [2.0, -1.0]]})
            gd = gu.convert_variables_to_constants(s, g.as_graph_def(), ["y"], whitelist, blacklist)
    return gd, want


def test_frozen_graph_round_trips_through_import_graph_def():
    gd, want = _frozen()
    ops = {n.name: n.op for n in gd.node}
    assert ops["w"] == ops["b"] == "Const"
    assert ops["w/Read/ReadVariableOp"] == "Identity"
    assert "unused" not in ops and "w/Assign" not in ops  # only what "y" needs
    assert not any(n.op in ("VarHandleOp", "ReadVariableOp", "AssignVariableOp") for n in gd.node)
    with fr.Graph().as_default():
        (y,) = fr.import_graph_def(gd, return_elements=["y:0"], name="")
        with fr.Session() as s:
            got = s.run(y, {"x:0": [[1.0, 1.0], [2.0, -1.0]]})
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got, [[7.5], [2.5]])


def test_whitelist_and_blacklist_choose_the_frozen_variables():
    gd, _ = _frozen(whitelist=["w"])
    assert {n.name: n.op for n in gd.node}["b"] == "VarHandleOp"
    gd, _ = _frozen(blacklist=["w"])
    ops = {n.name: n.op for n in gd.node}
    assert ops["w"] == "VarHandleOp" and ops["w/Read/ReadVariableOp"] == "ReadVariableOp"
    assert ops["b"] == "Const"


def test_freezing_refuses_a_variable_used_other_than_by_reads():
    g = fr.Graph()
    with g.as_default():
        v = fr.Variable(1.0, name="v")
        inc = fr.assign_add(v, 1.0, name="inc")
        with fr.Session() as s:
            s.run(fr.global_variables_initializer())
            with pytest.raises(ValueError, match="node 'inc' \\(AssignAddVariableOp\\)"):
                gu.convert_variables_to_constants(s, g.as_graph_def(), [inc.op.name])


def _gd(*nodes):
    gd = GraphDef()
    for name, op, inputs in nodes:
        gd.node.add(name=name, op=op, input=inputs)
    return gd


def test_extract_sub_graph_keeps_data_and_control_inputs_in_order():
    gd = _gd(
        ("a", "Const", []),
        ("b", "Const", []),
        ("c", "Identity", ["a:0"]),
        ("d", "NoOp", ["^b"]),
        ("e", "AddV2", ["c", "a"]),
        ("f", "Identity", ["e", "^d"]),
        ("g", "Identity", ["b"]),
    )
    assert [n.name for n in gu.extract_sub_graph(gd, ["e"]).node] == ["a", "c", "e"]
    assert [n.name for n in gu.extract_sub_graph(gd, ["f"]).node] == ["a", "b", "c", "d", "e", "f"]
    with pytest.raises(AssertionError, match="zz is not in graph"):
        gu.extract_sub_graph(gd, ["zz"])
    with pytest.raises(TypeError, match="dest_nodes must be an iterable of strings"):
        gu.extract_sub_graph(gd, "e")
    with pytest.raises(TypeError, match="graph_def must be a graph_pb2.GraphDef proto"):
        gu.extract_sub_graph([], ["e"])


def test_remove_training_nodes_splices_identities_and_drops_check_numerics():
    gd = _gd(
        ("a", "Const", []),
        ("id1", "Identity", ["a"]),
        ("id2", "Identity", ["id1"]),
        ("chk", "CheckNumerics", ["id2"]),
        ("keep", "Identity", ["a"]),
        ("ctl", "Identity", ["a"]),
        ("m", "Mul", ["id2", "keep", "^ctl", "^chk"]),
    )
    out = gu.remove_training_nodes(gd, protected_nodes=["keep"])
    # TF 2.21's result for this graph.
    assert [(n.name, list(n.input)) for n in out.node] == [
        ("a", []),
        ("keep", ["a"]),
        ("ctl", ["a"]),
        ("m", ["a", "keep", "^ctl"]),
    ]


def test_must_run_on_cpu_and_tensor_shape_from_node_def_name():
    with fr.Graph().as_default() as g:
        i = fr.constant([1, 2], name="i")
        f = fr.constant([1.0], name="f")
        c = fr.cast(i, fr.float32, name="c")
        assert gu.must_run_on_cpu(i.op) and gu.must_run_on_cpu(c.op)
        assert not gu.must_run_on_cpu(f.op)
        assert gu.tensor_shape_from_node_def_name(g, "i").as_list() == [2]
        assert gu.tensor_shape_from_node_def_name(g, "c:0").as_list() == [2]
    n = NodeDef(name="v", op="VariableV2")
    assert gu.must_run_on_cpu(n, pin_variables_on_cpu=True) and not gu.must_run_on_cpu(n)
    s = NodeDef(name="s", op="Const")
    s.attr["dtype"].type = fr.string.as_datatype_enum
    assert gu.must_run_on_cpu(s)
