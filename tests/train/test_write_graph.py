"""fr.train.write_graph (also fr.io.write_graph): the GraphDef as text or binary."""

from google.protobuf import text_format

import flowrt as fr


def test_write_graph_text_and_binary(tmp_path):
    a = fr.constant(1.0, name="a")
    fr.add(a, a, name="b")
    p = fr.train.write_graph(fr.get_default_graph(), str(tmp_path), "g.pbtxt")
    assert p == str(tmp_path / "g.pbtxt")
    gd = fr.GraphDef()
    text_format.Parse((tmp_path / "g.pbtxt").read_text(), gd)
    assert [(n.name, n.op, list(n.input)) for n in gd.node] == [
        ("a", "Const", []),
        ("b", "AddV2", ["a", "a"]),
    ]
    p2 = fr.io.write_graph(gd, str(tmp_path / "sub"), "g.pb", as_text=False)  # makes the dir
    gd2 = fr.GraphDef()
    with open(p2, "rb") as f:
        gd2.ParseFromString(f.read())
    assert gd2 == gd
    assert sorted(x.name for x in tmp_path.iterdir()) == ["g.pbtxt", "sub"]  # no temp left
