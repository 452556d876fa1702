"""SparseTensor: feeding and fetching through Session.run, sparse_placeholder, and the
sparse ops, with TF1's shapes, values and errors."""

import numpy as np
import pytest
import trio

import flowrt as fr


def _run(fetches, feed=None):
    with fr.Session() as sess:
        return sess.run(fetches, feed)


def _eq(v, indices, values, shape):
    assert isinstance(v, fr.SparseTensorValue)
    np.testing.assert_array_equal(
        v.indices,
        np.array(indices, np.int64).reshape(-1, 2)
        if np.size(indices)
        else np.zeros([0, len(shape)]),
    )
    np.testing.assert_array_equal(v.values, values)
    np.testing.assert_array_equal(v.dense_shape, shape)


def test_sparse_tensor_components_shape_and_fetch():
    sp = fr.SparseTensor([[0, 1], [2, 3]], [1.5, 2.5], [3, 4])
    assert sp.indices.dtype == fr.int64 and sp.dense_shape.dtype == fr.int64
    assert sp.dtype == fr.float32 and sp.shape.as_list() == [3, 4]
    assert sp.op is sp.values.op and sp.graph is fr.get_default_graph()
    v = _run(sp)
    _eq(v, [[0, 1], [2, 3]], [1.5, 2.5], [3, 4])
    assert v.indices.dtype == np.int64 and v.values.dtype == np.float32
    nested = _run({"a": [sp, sp.values], "b": (sp,)})
    _eq(nested["a"][0], [[0, 1], [2, 3]], [1.5, 2.5], [3, 4])
    _eq(nested["b"][0], [[0, 1], [2, 3]], [1.5, 2.5], [3, 4])
    with fr.Session():
        _eq(sp.eval(), [[0, 1], [2, 3]], [1.5, 2.5], [3, 4])


def test_sparse_tensor_rejects_bad_component_ranks():
    with pytest.raises(ValueError, match="indices must be a matrix"):
        fr.SparseTensor([0, 1], [1.0], [3])
    with pytest.raises(ValueError, match="values must be a vector"):
        fr.SparseTensor([[0]], [[1.0]], [3])
    with pytest.raises(ValueError, match="dense_shape must be a vector"):
        fr.SparseTensor([[0]], [1.0], 3)


@pytest.mark.parametrize(
    "indices, values, dense_shape, message",
    [
        ([[0, 0]], [1.0], [2, 3, 4], "Dimensions 2 and 3 are not compatible"),  # TF 2.21's
        ([[0, 0], [1, 1]], [1.0], [2, 3], "Dimensions 2 and 1 are not compatible"),
    ],
)
def test_sparse_tensor_rejects_components_of_disagreeing_sizes(
    indices, values, dense_shape, message
):
    with pytest.raises(ValueError, match=message):
        fr.SparseTensor(indices, values, dense_shape)


def test_sparse_tensor_sizes_unknown_until_run_are_not_checked_at_construction():
    sp = fr.SparseTensor(fr.placeholder(fr.int64, [None, None]), [1.0], [2, 3])
    assert sp.dense_shape.shape.as_list() == [2]


def test_sparse_placeholder_names_shapes_and_feeds():
    sp = fr.sparse_placeholder(fr.float32, name="sp")
    assert sp.indices.op.name == "sp/indices" and sp.values.op.name == "sp/values"
    assert sp.dense_shape.op.name == "sp/shape" and sp.shape.ndims is None
    dense = fr.sparse_tensor_to_dense(sp)
    value = fr.SparseTensorValue([[0, 0], [1, 2]], [1.0, 2.0], [2, 3])
    got_sp, got_dense = _run([sp, dense], {sp: value})
    _eq(got_sp, [[0, 0], [1, 2]], [1.0, 2.0], [2, 3])
    np.testing.assert_array_equal(got_dense, [[1, 0, 0], [0, 0, 2]])
    # A plain (indices, values, shape) triple feeds it too, as in TF1.
    got = _run(dense, {sp: ([[1, 1]], [7.0], [2, 2])})
    np.testing.assert_array_equal(got, [[0, 0], [0, 7]])


def test_sparse_placeholder_with_partial_shape_defaults_its_dense_shape():
    sp = fr.sparse_placeholder(fr.int64, shape=[None, 3], name="p")
    assert sp.shape.as_list() == [None, 3]
    assert sp.dense_shape.op.type == "PlaceholderWithDefault"
    np.testing.assert_array_equal(_run(sp.dense_shape), [-1, 3])
    v = _run(sp, {sp: fr.SparseTensorValue([[4, 2]], [9], [5, 3])})
    _eq(v, [[4, 2]], [9], [5, 3])


def test_feeding_a_sparse_tensor_needs_a_triple():
    sp = fr.sparse_placeholder(fr.float32)
    with pytest.raises(
        TypeError, match="SparseTensorValue or an \\(indices, values, dense_shape\\) triple"
    ):
        _run(sp.values, {sp: np.zeros([2, 2])})


async def test_sparse_feed_and_fetch_with_arun():
    sp = fr.sparse_placeholder(fr.int32, name="a")
    total = fr.sparse_reduce_sum(sp)
    async with fr.Session() as sess:
        with trio.fail_after(10):
            v, s = await sess.arun([sp, total], {sp: fr.SparseTensorValue([[0], [3]], [4, 5], [6])})
    assert s == 9
    np.testing.assert_array_equal(v.indices, [[0], [3]])


def test_sparse_to_dense_forms_and_defaults():
    np.testing.assert_array_equal(
        _run(fr.sparse_to_dense([1, 3], [5], [7, 8], -1)), [-1, 7, -1, 8, -1]
    )
    np.testing.assert_array_equal(_run(fr.sparse_to_dense(2, [4], 5)), [0, 0, 5, 0])
    out = fr.sparse_to_dense([[0, 1], [1, 0]], [2, 2], 1.0)
    assert out.shape.as_list() == [2, 2] and out.op.type == "SparseToDense"
    np.testing.assert_array_equal(_run(out), [[0, 1], [1, 0]])
    s = fr.SparseTensor([[0, 0], [1, 1]], [b"a", b"b"], [2, 2])
    assert _run(fr.sparse_tensor_to_dense(s)).tolist() == [[b"a", b""], [b"", b"b"]]
    assert _run(fr.sparse_tensor_to_dense(s, b"z")).tolist() == [[b"a", b"z"], [b"z", b"b"]]


@pytest.mark.parametrize(
    "indices, message",
    [
        (
            [[1, 0], [0, 1]],
            r"indices\[1\] = \[0,1\] is out of order. Many sparse ops require "
            r"sorted indices.\n    Use `tf.sparse.reorder`",
        ),
        ([[0, 1], [0, 1]], r"indices\[1\] = \[0,1\] is repeated"),
        ([[0, 5]], r"indices\[0\] = \[0,5\] is out of bounds: need 0 <= index < \[2,3\]"),
    ],
)
def test_sparse_tensor_to_dense_validates_indices_like_tf(indices, message):
    sp = fr.sparse_placeholder(fr.float32)
    dense = fr.sparse_tensor_to_dense(sp)
    value = fr.SparseTensorValue(indices, [1.0] * len(indices), [2, 3])
    with pytest.raises(fr.errors.InvalidArgumentError, match=message) as e:
        _run(dense, {sp: value})
    assert e.value.op is dense.op


def test_unvalidated_to_dense_still_checks_bounds():
    sp = fr.SparseTensor([[1, 0], [0, 1]], [1, 2], [2, 2])
    np.testing.assert_array_equal(
        _run(fr.sparse_tensor_to_dense(sp, validate_indices=False)), [[0, 2], [1, 0]]
    )
    bad = fr.SparseTensor([[3, 0]], [1], [2, 2])
    with pytest.raises(fr.errors.InvalidArgumentError, match="out of bounds"):
        _run(fr.sparse_tensor_to_dense(bad, validate_indices=False))


def test_reorder_then_to_dense():
    sp = fr.SparseTensor([[1, 0], [0, 2], [0, 1]], [1, 2, 3], [2, 3])
    r = fr.sparse_reorder(sp)
    assert r.shape.as_list() == [2, 3]
    v = _run(r)
    _eq(v, [[0, 1], [0, 2], [1, 0]], [3, 2, 1], [2, 3])
    np.testing.assert_array_equal(_run(fr.sparse_tensor_to_dense(r)), [[0, 3, 2], [1, 0, 0]])


def test_reduce_sum_axes_and_keepdims():
    sp = fr.SparseTensor([[0, 0], [0, 2], [1, 1], [1, 1]], [1.0, 2.0, 3.0, 4.0], [2, 3])
    assert _run(fr.sparse_reduce_sum(sp)) == 10.0
    r1 = fr.sparse_reduce_sum(sp, axis=1)
    assert r1.shape.as_list() == [2]
    np.testing.assert_array_equal(_run(r1), [3, 7])
    k = fr.sparse_reduce_sum(sp, axis=0, keepdims=True)
    assert k.shape.as_list() == [1, 3]
    np.testing.assert_array_equal(_run(k), [[1, 7, 2]])
    np.testing.assert_array_equal(_run(fr.sparse_reduce_sum(sp, axis=-1)), [3, 7])
    with pytest.raises(ValueError, match="Invalid reduction dimension 2"):
        fr.sparse_reduce_sum(sp, axis=2)


def test_fill_empty_rows_groups_by_row_and_keeps_the_order_within_a_row():
    # As TF's kernel: a stable sort on the row only (values from TF 2.21).
    sp = fr.SparseTensor([[2, 0], [0, 1], [0, 0]], [1, 2, 3], [4, 2])
    filled, empty = _run(fr.sparse_fill_empty_rows(sp, -1))
    _eq(filled, [[0, 1], [0, 0], [1, 0], [2, 0], [3, 0]], [2, 3, -1, 1, -1], [4, 2])
    np.testing.assert_array_equal(empty, [False, True, False, True])


def test_retain_concat_fill_empty_rows():
    sp = fr.SparseTensor([[0, 0], [1, 1], [3, 0]], [1, 2, 3], [4, 2])
    v = _run(fr.sparse_retain(sp, [True, False, True]))
    _eq(v, [[0, 0], [3, 0]], [1, 3], [4, 2])
    filled, empty = _run(fr.sparse_fill_empty_rows(sp, -1))
    _eq(filled, [[0, 0], [1, 1], [2, 0], [3, 0]], [1, 2, -1, 3], [4, 2])
    np.testing.assert_array_equal(empty, [False, False, True, False])
    a = fr.SparseTensor([[0, 0], [1, 1]], [1, 2], [2, 2])
    b = fr.SparseTensor([[0, 2]], [3], [2, 3])
    _eq(_run(fr.sparse_concat(1, [a, b])), [[0, 0], [0, 4], [1, 1]], [1, 3, 2], [2, 5])
    with pytest.raises(fr.errors.InvalidArgumentError, match="Input shapes must match"):
        _run(fr.sparse_concat(0, [a, b]))
    _eq(
        _run(fr.sparse_concat(0, [a, b], expand_nonconcat_dim=True)),
        [[0, 0], [1, 1], [2, 2]],
        [1, 2, 3],
        [4, 3],
    )


@pytest.mark.parametrize(
    "adj_a, adj_b", [(False, False), (True, False), (False, True), (True, True)]
)
def test_sparse_dense_matmul_matches_dense(adj_a, adj_b):
    rng = np.random.default_rng(0)
    idx = np.array([[0, 0], [0, 2], [1, 1], [2, 3], [2, 3]])
    vals = rng.standard_normal(5).astype(np.float32)
    dense_a = np.zeros([3, 4], np.float32)
    np.add.at(dense_a, tuple(idx.T), vals)
    b = rng.standard_normal((3 if adj_a else 4, 2)).astype(np.float32)
    if adj_b:
        b = b.T.copy()
    out = fr.sparse_tensor_dense_matmul(
        fr.SparseTensor(idx, vals, [3, 4]), b, adjoint_a=adj_a, adjoint_b=adj_b
    )
    a_used = dense_a.T if adj_a else dense_a
    b_used = b.T if adj_b else b
    assert out.shape.as_list() == [a_used.shape[0], 2]
    np.testing.assert_allclose(_run(out), a_used @ b_used, rtol=1e-5, atol=1e-6)


def test_string_split_tokens_delimiters_and_empty():
    sp = fr.string_split(["a b  c", "de", ""])
    assert sp.dtype == fr.string and sp.indices.shape.as_list() == [None, 2]
    _eq(_run(sp), [[0, 0], [0, 1], [0, 2], [1, 0]], [b"a", b"b", b"c", b"de"], [3, 3])
    v = _run(fr.string_split(["a,b;;c", ""], ",;", skip_empty=False))
    _eq(v, [[0, 0], [0, 1], [0, 2], [0, 3]], [b"a", b"b", b"", b"c"], [2, 4])
    _eq(
        _run(fr.string_split(["ab c"], "")),
        [[0, 0], [0, 1], [0, 2], [0, 3]],
        [b"a", b"b", b" ", b"c"],
        [1, 4],
    )
    _eq(_run(fr.string_split(["x-y"], delimiter="-")), [[0, 0], [0, 1]], [b"x", b"y"], [1, 2])
    with pytest.raises(ValueError, match="Shape must be rank 1"):
        fr.string_split("a b")


def test_convert_to_tensor_or_sparse_tensor():
    sp = fr.SparseTensor([[0]], [1.0], [2])
    assert fr.convert_to_tensor_or_sparse_tensor(sp) is sp
    from_value = fr.convert_to_tensor_or_sparse_tensor(fr.SparseTensorValue([[1]], [2.0], [3]))
    assert isinstance(from_value, fr.SparseTensor)
    assert isinstance(fr.convert_to_tensor_or_sparse_tensor([1, 2]), fr.Tensor)
    with pytest.raises(ValueError, match="Sparse dtype: requested = int32, actual = float32"):
        fr.convert_to_tensor_or_sparse_tensor(sp, fr.int32)


# --- batching SparseTensors (the SparseTensorsMap handles, as TF) ---------------------


def _run_with_runners(fetches, n):
    with fr.Session() as sess:
        sess.run(fr.local_variables_initializer())
        coord = fr.train.Coordinator()
        threads = fr.train.start_queue_runners(sess, coord)
        try:
            return [sess.run(fetches) for _ in range(n)]
        finally:
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=10)


def test_batch_of_single_sparse_examples_gains_a_batch_dimension():
    counter = fr.train.range_input_producer(100, shuffle=False).dequeue()
    values = fr.cast(fr.stack([counter, counter + 1]), fr.float32)
    sp = fr.SparseTensor(indices=[[0], [2]], values=values, dense_shape=[4])
    got_sp, got_n = fr.train.batch([sp, counter], 3)
    assert isinstance(got_sp, fr.SparseTensor)
    assert got_sp.indices.shape.as_list() == [None, 2]
    assert got_sp.dense_shape.shape.as_list() == [2]
    ((v, n),) = _run_with_runners([got_sp, got_n], 1)
    np.testing.assert_array_equal(n, [0, 1, 2])
    np.testing.assert_array_equal(v.indices, [[0, 0], [0, 2], [1, 0], [1, 2], [2, 0], [2, 2]])
    np.testing.assert_array_equal(v.values, [0, 1, 1, 2, 2, 3])
    np.testing.assert_array_equal(v.dense_shape, [3, 4])


def test_shuffle_batch_enqueue_many_keeps_sparse_rows_with_their_labels():
    sp = fr.SparseTensor(
        indices=[[0, 0], [1, 1], [1, 3], [3, 0]], values=[1, 2, 3, 4], dense_shape=[4, 5]
    )
    out = fr.train.shuffle_batch(
        {"s": sp, "y": fr.constant([0, 1, 2, 3])},
        4,
        capacity=10,
        min_after_dequeue=0,
        enqueue_many=True,
        seed=3,
    )
    (got,) = _run_with_runners(out, 1)
    rows = {0: [(0, 1)], 1: [(1, 2), (3, 3)], 2: [], 3: [(0, 4)]}  # row -> (col, value)
    np.testing.assert_array_equal(got["s"].dense_shape, [4, 5])
    for b, y in enumerate(got["y"]):
        mine = [(int(i[1]), int(v)) for i, v in zip(got["s"].indices, got["s"].values) if i[0] == b]
        assert mine == rows[int(y)]


def test_batch_join_of_sparse_shares_one_map_and_final_smaller_batch():
    parts = []
    for k in range(2):
        n = fr.train.limit_epochs(fr.constant(k, fr.int64), num_epochs=2)
        parts.append([fr.SparseTensor([[0, 0]], fr.reshape(n, [1]), [1, 1])])
    batched = fr.train.batch_join(parts, 3, allow_smaller_final_batch=True)
    with fr.Session() as sess:
        sess.run(fr.local_variables_initializer())
        coord = fr.train.Coordinator()
        threads = fr.train.start_queue_runners(sess, coord)
        seen, sizes = [], []
        try:
            while True:
                v = sess.run(batched)
                sizes.append(int(v.dense_shape[0]))
                seen.extend(v.values.tolist())
        except fr.errors.OutOfRangeError:
            pass
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=10)
    assert sorted(seen) == [0, 0, 1, 1] and sizes == [3, 1]


def test_taking_an_unknown_handle_fails():
    from flowrt.ops.sparse_map_ops import take_many_sparse_from_tensors_map

    sp = take_many_sparse_from_tensors_map([5], fr.float32, "nowhere", rank=2)
    with pytest.raises(
        fr.errors.InvalidArgumentError, match="Unable to find SparseTensor: 5 in map: nowhere"
    ):
        _run(sp)


def test_tf_sparse_names():
    sp = fr.sparse.placeholder(fr.float32, shape=[2, 2])
    dense = fr.sparse.to_dense(fr.sparse.reorder(sp))
    total = fr.sparse.reduce_sum(sp, axis=0)
    got = _run(
        [dense, total], {sp: fr.sparse.SparseTensorValue([[1, 0], [0, 1]], [3.0, 4.0], [2, 2])}
    )
    np.testing.assert_array_equal(got[0], [[0, 4], [3, 0]])
    np.testing.assert_array_equal(got[1], [3, 4])
    assert fr.sparse.matmul is fr.sparse_tensor_dense_matmul


def test_dense_ops_reject_a_sparse_tensor_with_a_hint():
    sp = fr.SparseTensor([[0]], [1.0], [2])
    with pytest.raises(
        TypeError, match="a SparseTensor is not a dense tensor; use fr.sparse.to_dense"
    ):
        fr.add(sp, 1.0)
    with pytest.raises(TypeError, match="is not a dense tensor"):
        fr.identity(sp)


def test_sparse_tensor_operators_and_with_values_as_tf():
    # TF 2.21: SparseTensor has __mul__, __div__, __truediv__ (by a dense tensor, values
    # only) and with_values; no +, - or unary minus.
    sp = fr.SparseTensor([[0, 0], [1, 2]], [2.0, 4.0], [2, 3])
    d = fr.constant([[1.0, 2, 3], [4, 5, 6]])
    ints = fr.SparseTensor([[0, 0]], [7], [1, 1])
    got = {
        "mul": sp * d,
        "scalar": sp * 2.0,
        "div": sp / d,
        "row": sp * fr.constant([1.0, 10, 100]),
        "int_div": ints / fr.constant([[2]]),
        "with_values": sp.with_values(sp.values * 10),
    }
    assert all(isinstance(v, fr.SparseTensor) for v in got.values())
    assert got["mul"].shape == fr.TensorShape([2, 3])
    with fr.Session() as sess:
        out = sess.run(got)
    assert out["mul"].values.tolist() == [2.0, 24.0]
    np.testing.assert_array_equal(out["mul"].indices, [[0, 0], [1, 2]])
    assert out["scalar"].values.tolist() == [4.0, 8.0]
    np.testing.assert_allclose(out["div"].values, [2.0, 4.0 / 6.0], rtol=1e-6)
    assert out["row"].values.tolist() == [2.0, 400.0]
    assert out["int_div"].values.tolist() == [3.5] and out["int_div"].values.dtype == np.float64
    assert out["with_values"].values.tolist() == [20.0, 40.0]
    with pytest.raises(ValueError, match="Dimensions 2 and 3 are not compatible"):
        sp.with_values([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="requested dtype float32 for Tensor with dtype int32"):
        _ = sp * fr.constant([[1]])
    with pytest.raises(TypeError):
        _ = sp + d
    with pytest.raises(TypeError):
        _ = -sp
    grad = fr.gradients(fr.reduce_sum((sp * d).values), [d])[0]
    with fr.Session() as sess:
        assert sess.run(grad).tolist() == [[2.0, 0, 0], [0, 0, 4.0]]


def test_dense_times_sparse_is_sparse_as_tf():
    # TF's Tensor.__mul__ dispatches a SparseTensor right operand to sparse * dense; a
    # Python number or numpy array times a SparseTensor, and dense / sparse, stay errors.
    sp = fr.SparseTensor([[0, 0], [1, 2]], [2.0, 4.0], [2, 3])
    d = fr.constant([[1.0, 2, 3], [4, 5, 6]])
    v = fr.Variable([[1.0, 1, 1], [1, 1, 10]])
    got = {"dense": d * sp, "scalar": fr.constant(3.0) * sp, "variable": v * sp}
    assert all(isinstance(x, fr.SparseTensor) for x in got.values())
    with fr.Session() as sess:
        sess.run(v.initializer)
        out = sess.run(got)
    assert out["dense"].values.tolist() == [2.0, 24.0]
    np.testing.assert_array_equal(out["dense"].indices, [[0, 0], [1, 2]])
    assert out["scalar"].values.tolist() == [6.0, 12.0]
    assert out["variable"].values.tolist() == [2.0, 40.0]
    with pytest.raises(TypeError, match="unsupported operand"):
        _ = 2.0 * sp
    with pytest.raises(TypeError):
        _ = d / sp
    with pytest.raises(TypeError):
        _ = d + sp
