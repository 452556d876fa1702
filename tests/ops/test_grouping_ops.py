"""fr.tuple: gated identities named as TF 2.21's compat.v1 names them."""

import pytest

import flowrt as fr


def test_tuple_gates_every_tensor_on_all_of_them():
    a = fr.constant(1.0, name="a")
    b = fr.add(a, a, name="b")
    t = fr.tuple([a, None, b])
    t2 = fr.tuple([a], name="gt", control_inputs=[b.op])
    assert isinstance(t, list) and t[1] is None
    assert [t[0].name, t[2].name, t2[0].name] == [
        "tuple/control_dependency:0",
        "tuple/control_dependency_1:0",
        "gt/control_dependency:0",
    ]
    assert [o.name for o in t[0].op.control_inputs] == ["tuple/group_deps"]
    with fr.Session() as s:
        assert s.run([t[0], t[2], t2[0]]) == [1.0, 2.0, 1.0]
    with pytest.raises(TypeError, match="Control input must be Operation or Tensor"):
        fr.tuple([a], control_inputs=[3])
