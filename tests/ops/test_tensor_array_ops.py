"""fr.TensorArray: values, static shapes, names, while_loop use, gradients and TF1's
errors (expected values and messages recorded from TF 2.21 with control flow v1)."""

import numpy as np
import pytest

import flowrt as fr

X = np.arange(6.0, dtype=np.float32).reshape(3, 2)


def _run(fetches, feed=None):
    with fr.Session() as sess:
        return sess.run(fetches, feed)


def test_write_read_stack_and_static_shapes():
    with fr.Graph().as_default():
        ta = fr.TensorArray(fr.float32, 3, clear_after_read=False)
        w = ta.write(0, [1.0, 2.0]).write(2, [3.0, 4.0])
        assert ta.element_shape == w.element_shape  # shared, as TF1's list
        assert w.element_shape.as_list() == [2]
        st = w.stack()
        assert st.shape.as_list() == [3, 2]
        assert st.name == "TensorArrayStack/TensorArrayGatherV3:0"
        assert w.flow.name == "TensorArrayWrite_1/TensorArrayWriteV3:0"
        assert w.flow.dtype.name == "variant" and ta.handle is None
        r = w.read(2)
        assert r.shape.as_list() == [2] and r.name == "TensorArrayReadV3:0"
        g = w.gather([2, 1])
        assert g.shape.as_list() == [2, 2]
        got = _run([st, r, g, w.size()])
    np.testing.assert_array_equal(got[0], [[1, 2], [0, 0], [3, 4]])  # unwritten: zeros
    np.testing.assert_array_equal(got[1], [3, 4])
    np.testing.assert_array_equal(got[2], [[3, 4], [0, 0]])
    assert got[3] == 3


def test_unstack_scatter_split_concat_dynamic_size():
    with fr.Graph().as_default():
        u = fr.TensorArray(fr.float32, 3).unstack(X)
        assert u.element_shape.as_list() == [2]
        assert u.flow.op.name == "TensorArrayUnstack/TensorArrayScatter/TensorArrayScatterV3"
        s = fr.TensorArray(fr.float32, 3).scatter([2, 0], [[1.0], [2.0]])
        sp = fr.TensorArray(fr.float32, 2, infer_shape=False, clear_after_read=False)
        sp = sp.split([[1.0], [2.0], [3.0], [4.0], [5.0]], [2, 3])
        c = sp.concat()
        assert c.shape.ndims is None
        d = fr.TensorArray(fr.float32, size=0, dynamic_size=True).write(3, 1.0)
        assert d.stack().shape.as_list() == [None]
        got = _run([u.stack(), s.stack(), c, sp.read(1), d.stack(), d.size()])
    np.testing.assert_array_equal(got[0], X)
    np.testing.assert_array_equal(got[1], [[2], [0], [1]])
    np.testing.assert_array_equal(got[2], [[1], [2], [3], [4], [5]])
    np.testing.assert_array_equal(got[3], [[3], [4], [5]])
    np.testing.assert_array_equal(got[4], [0, 0, 0, 1])
    assert got[5] == 4


def test_identity_and_close():
    with fr.Graph().as_default():
        ta = fr.TensorArray(fr.float32, 1).write(0, 5.0)
        i = ta.identity()
        assert i.flow.op.type == "Identity"
        close = ta.close()
        assert close.type == "TensorArrayCloseV3"
        with fr.Session() as sess:
            assert sess.run(i.read(0)) == 5.0
            sess.run(close)


def test_shape_and_dtype_errors_at_construction():
    with fr.Graph().as_default():
        ta = fr.TensorArray(fr.float32, 3).write(0, [1.0, 2.0])
        with pytest.raises(
            ValueError, match=r"^Inconsistent shapes: saw \(3,\) but expected \(2,\) $"
        ):
            ta.write(1, [1.0, 2.0, 3.0])
        with pytest.raises(
            TypeError, match="TensorArray TensorArray_1: write value has dtype int32"
        ):
            fr.TensorArray(fr.float32, 3).write(0, fr.constant(1))
        with pytest.raises(ValueError, match="Size must be provided"):
            fr.TensorArray(fr.float32)
        assert fr.TensorArray(fr.float32, 2).write(0, 1).read(0).dtype == fr.float32


_UNWRITTEN = (
    "TensorArray TensorArray: Could not read from TensorArray index 1.  Furthermore, the "
    "element shape is not fully defined: <unknown>."
)


def _read_twice():
    ta = fr.TensorArray(fr.float32, 3).write(0, 1.0)
    r = ta.read(0)
    with fr.control_dependencies([r]):
        return ta.read(0) + r


@pytest.mark.parametrize(
    "build, cls, message",
    [
        (lambda: fr.TensorArray(fr.float32, 3).read(1), fr.errors.InvalidArgumentError, _UNWRITTEN),
        (
            lambda: fr.TensorArray(fr.float32, 3, name="foo").write(0, 1.0).write(0, 2.0).read(0),
            fr.errors.InvalidArgumentError,
            "TensorArray foo: Could not write to TensorArray index 0 because it has already "
            "been written to.",
        ),
        (
            lambda: fr.TensorArray(fr.float32, 3).write(5, 1.0).read(0),
            fr.errors.InvalidArgumentError,
            "TensorArray TensorArray: Tried to write to index 5 but array is not resizeable "
            "and size is: 3",
        ),
        (
            lambda: fr.TensorArray(fr.float32, 3).read(5),
            fr.errors.InvalidArgumentError,
            "Tried to read from index 5 but array size is: 3",
        ),
        (
            _read_twice,
            fr.errors.InvalidArgumentError,
            "TensorArray TensorArray: Could not read index 0 twice because it was cleared after "
            "a previous read (perhaps try setting clear_after_read = false?).",
        ),
        (
            lambda: fr.TensorArray(fr.float32, 0, dynamic_size=True).stack(),
            fr.errors.UnimplementedError,
            "TensorArray has size zero, but element shape <unknown> is not fully defined.",
        ),
        (
            lambda: fr.TensorArray(fr.float32, 3).scatter([0, 5], fr.zeros([2, 2])).stack(),
            fr.errors.InvalidArgumentError,
            "Max scatter index must be < array size (5 vs. 3)",
        ),
        (
            lambda: fr.TensorArray(fr.float32, 2).split([1.0, 2, 3, 4, 5], [2, 4]).concat(),
            fr.errors.InvalidArgumentError,
            "Expected sum of lengths to be equal to values.shape[0], but sum of lengths is 6 "
            "and value's shape is: [5]",
        ),
        (
            lambda: fr.TensorArray(fr.float32, 2).split([1.0, 2, 3], [1, 2]).concat(),
            fr.errors.InvalidArgumentError,
            "TensorArray TensorArray: Could not write to TensorArray index 1 because the value "
            "shape is [2] which is incompatible with the TensorArray's inferred element shape: "
            "[1] (consider setting infer_shape=False).",
        ),
    ],
)
def test_run_errors_match_tf1(build, cls, message):
    with fr.Graph().as_default():
        t = build()
        with pytest.raises(cls) as info:
            _run(t)
    assert info.value.message.startswith(message)


def test_clear_after_read_false_and_known_shape_reads_zeros():
    with fr.Graph().as_default():
        ta = fr.TensorArray(fr.float32, 2, clear_after_read=False).write(0, 2.0)
        twice = ta.read(0) + ta.read(0)
        zeros = fr.TensorArray(fr.float32, 3, element_shape=[2]).read(1)
        assert zeros.shape.as_list() == [2]
        got = _run([twice, zeros])
    assert got[0] == 4.0
    np.testing.assert_array_equal(got[1], [0, 0])


def test_values_are_immutable_each_write_a_new_value():
    with fr.Graph().as_default():
        ta = fr.TensorArray(fr.float32, 2, element_shape=[], clear_after_read=False)
        a = ta.write(0, 1.0)
        b = a.write(1, 2.0)
        got = _run([a.stack(), b.stack()])
    np.testing.assert_array_equal(got[0], [1, 0])
    np.testing.assert_array_equal(got[1], [1, 2])


def _loop_graph():
    x = fr.placeholder(fr.float32, [3, 2])
    inp = fr.TensorArray(fr.float32, 3).unstack(x)

    def body(i, acc, out):
        v = inp.read(i)
        return i + 1, acc + v, out.write(i, v * acc)

    _, acc, out = fr.while_loop(
        lambda i, *a: i < 3, body, [0, fr.zeros([2]), fr.TensorArray(fr.float32, 3)]
    )
    return x, out


def test_tensor_array_as_while_loop_variable_with_gradient():
    with fr.Graph().as_default():
        x, out = _loop_graph()
        assert isinstance(out, fr.TensorArray)
        st = out.stack()
        assert st.shape.as_list() == [3, 2]  # the shape learned inside the body
        (g,) = fr.gradients(st, x)
        got = _run([st, g], {x: X})
    # Recorded from TF 2.21 (control flow v1) for the same graph.
    np.testing.assert_array_equal(got[0], [[0, 0], [0, 3], [8, 20]])
    np.testing.assert_array_equal(got[1], [[6, 8], [4, 6], [2, 4]])


def test_gradients_of_several_reads_sum():
    with fr.Graph().as_default():
        x = fr.placeholder(fr.float32, [3, 2])
        y = fr.TensorArray(fr.float32, 3, clear_after_read=False).unstack(x)
        z = y.read(1) * y.read(2) + y.stack()
        (g,) = fr.gradients(z, x)
        got = _run(g, {x: X})
    np.testing.assert_array_equal(got, [[1, 1], [13, 16], [7, 10]])


def test_tensor_array_matches_tensorflow():
    tf = pytest.importorskip("tensorflow.compat.v1")

    def build(m):
        x = m.placeholder(m.float32, [3, 2])
        ta = m.TensorArray(m.float32, 3, clear_after_read=False).unstack(x)
        w = m.TensorArray(m.float32, 2, infer_shape=False).split(x[:, 0] * 2.0, [1, 2])
        y = ta.gather([2, 0]) * ta.read(1) + m.reduce_sum(w.concat())
        return x, [y] + m.gradients(y, x)

    ours = _graph_run(fr, fr.Graph(), build)
    with tf.Graph().as_default() as g:
        tf.disable_control_flow_v2()  # TF1's TensorArrayV3 ops, whose semantics we keep
        try:
            theirs = _graph_run(tf, g, build)
        finally:
            tf.enable_control_flow_v2()
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def _graph_run(m, graph, build):
    with graph.as_default():
        x, fetch = build(m)
        with m.Session() as sess:
            return sess.run(fetch, {x: X})


def test_tensor_array_returned_from_cond():
    with fr.Graph().as_default():
        p = fr.placeholder(fr.bool, [])
        ta = fr.TensorArray(fr.float32, 2).write(0, [1.0, 2.0])
        out = fr.cond(p, lambda: ta.write(1, [3.0, 4.0]), lambda: ta.write(1, [5.0, 6.0]))
        assert isinstance(out, fr.TensorArray) and out.element_shape.as_list() == [2]
        st = out.stack()
        with fr.Session() as sess:
            np.testing.assert_array_equal(sess.run(st, {p: True}), [[1, 2], [3, 4]])
            np.testing.assert_array_equal(sess.run(st, {p: False}), [[1, 2], [5, 6]])
