"""Operation.node_def: TF's NodeDef field names and value types."""

import numpy as np

import flowrt as fr


def test_node_def_fields():
    a = fr.placeholder(fr.float32, [None, 3], name="a")
    parts = fr.split(a, [1, 2], axis=1)
    with fr.control_dependencies([a.op]):
        with fr.device("/cpu:0"):
            y = fr.add(parts[0], parts[1][:, :1], name="y")
    nd = y.op.node_def
    assert (nd.name, nd.op, nd.device) == ("y", "AddV2", "/device:CPU:0")
    assert nd.input[0] == parts[0].op.name and nd.input[1].startswith("strided_slice")
    assert nd.input[-1] == "^a"
    assert parts[1].op.node_def is not None
    assert fr.identity(parts[1]).op.node_def.input == [parts[1].op.name + ":1"]
    pd = a.op.node_def
    assert pd.attr["dtype"].type == fr.float32.as_datatype_enum == 1
    assert [d.size for d in pd.attr["shape"].shape.dim] == [-1, 3]
    assert pd.attr["dtype"].WhichOneof("value") == "type"


def test_queue_shared_name_and_const_value():
    q = fr.FIFOQueue(4, [fr.int32, fr.string], shared_name="shared_q", name="q")
    attr = q.queue_ref.op.node_def.attr
    assert attr["shared_name"].s == b"shared_q" and attr["capacity"].i == 4
    assert list(attr["component_types"].list.type) == [3, 7]
    c = fr.constant([1, 2], name="c")
    np.testing.assert_array_equal(c.op.node_def.attr["value"].tensor, [1, 2])
    assert not c.op.node_def.attr["value"].HasField("s")


def test_unsigned_dtypes():
    assert fr.uint32.as_datatype_enum == 22 and fr.uint64.as_datatype_enum == 23
    assert fr.as_dtype(np.uint64) is fr.uint64 and fr.as_dtype("uint32") is fr.uint32
    assert fr.uint32.max == 2**32 - 1 and fr.uint64.is_unsigned
    for dt in (fr.uint32, fr.uint64):
        a = fr.constant([1, 2], dt)
        v = fr.Variable(a)
        p = fr.placeholder(dt, [2])
        with fr.Session() as sess:
            sess.run(v.initializer)
            s, d, t, got = sess.run([fr.reduce_sum(a + p), a // a, a / a, v.value()], {p: [3, 4]})
        assert s == 10 and s.dtype == dt.np and d.dtype == dt.np and got.dtype == dt.np
        assert t.dtype == np.float64  # TF's truediv of 32/64-bit ints
