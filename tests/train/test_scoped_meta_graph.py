"""meta_graph.export_scoped_meta_graph / import_scoped_meta_graph as TF1's (the
literals were printed by TF 2.21's tensorflow.python.framework.meta_graph)."""

import pytest

import flowrt as fr
from flowrt.train import meta_graph


def _export():
    with fr.Graph().as_default():
        x = fr.placeholder(fr.float32, [2], name="x")
        with fr.name_scope("hidden"):
            w = fr.Variable([1.0, 2.0], name="w")
            fr.multiply(x, w, name="y")
        return meta_graph.export_scoped_meta_graph(export_scope="hidden")


def test_export_scoped_meta_graph_marks_inputs_from_outside_as_unbound():
    meta, var_list = _export()
    assert list(var_list) == ["w:0"] and var_list["w:0"].name == "hidden/w:0"
    nodes = {n.name: list(n.input) for n in meta.graph_def.node}
    assert all(not n.startswith("hidden/") for n in nodes)
    assert nodes["y"][0] == "$unbound_inputs_x"
    assert list(meta.collection_def["unbound_inputs"].bytes_list.value) == [b"$unbound_inputs_x"]
    with fr.Graph().as_default():
        x = fr.placeholder(fr.float32, name="x")
        with fr.name_scope("s"):
            fr.multiply(x, 2.0, name="y")
        with pytest.raises(ValueError, match="from outside the scope"):
            meta_graph.export_scoped_meta_graph(export_scope="s", unbound_inputs_col_name=None)


def test_import_scoped_meta_graph_under_a_new_scope_with_its_inputs_mapped():
    meta, _ = _export()
    with fr.Graph().as_default() as g:
        z = fr.constant([3.0, 4.0], name="z")
        with pytest.raises(
            ValueError,
            match=r"Graph contains unbound inputs: \$unbound_inputs_x. Must provide these "
            "inputs through input_map.",
        ):
            meta_graph.import_scoped_meta_graph(meta, import_scope="new")
        var_list = meta_graph.import_scoped_meta_graph(
            meta, import_scope="new", input_map={"$unbound_inputs_x": z}
        )
        assert list(var_list) == ["w:0"] and var_list["w:0"].name == "new/w:0"
        with fr.Session() as sess:
            sess.run(fr.global_variables_initializer())
            assert sess.run(g.get_tensor_by_name("new/y:0")).tolist() == [3.0, 8.0]
