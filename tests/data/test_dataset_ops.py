"""fr.data.Dataset: each transformation's elements against Python's, structures, errors.

Literals marked "TF 2.21" were printed by tensorflow.compat.v1 for the same program.
"""

import collections

import numpy as np
import pytest

import flowrt as fr

Dataset = fr.data.Dataset


def elements(ds, limit=1000):
    """Every element of ``ds`` (numpy), read through a one-shot iterator to the end."""
    nxt = fr.data.make_one_shot_iterator(ds).get_next()
    out = []
    with fr.Session() as sess:
        with pytest.raises(fr.errors.OutOfRangeError, match="End of sequence"):
            for _ in range(limit):
                out.append(sess.run(nxt))
    return out


def ints(xs):
    return [int(x) for x in xs]


def test_from_tensor_slices_tuple_and_static_shapes():
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    ds = Dataset.from_tensor_slices((x, [7, 8, 9]))
    assert ds.output_types == (fr.float32, fr.int32)
    assert ds.output_shapes == (fr.TensorShape([2]), fr.TensorShape([]))
    got = elements(ds)
    assert len(got) == 3
    for i, (a, b) in enumerate(got):
        np.testing.assert_array_equal(a, x[i])
        assert b == 7 + i


def test_from_tensor_slices_dict_structure():
    ds = Dataset.from_tensor_slices({"a": [1, 2], "b": [[1.0, 2.0], [3.0, 4.0]]}).batch(2)
    # TF 2.21: {'a': tf.int32, 'b': tf.float32} {'a': (None,), 'b': (None, 2)}
    assert ds.output_types == {"a": fr.int32, "b": fr.float32}
    assert ds.output_shapes == {"a": fr.TensorShape([None]), "b": fr.TensorShape([None, 2])}
    assert ds.output_classes == {"a": fr.Tensor, "b": fr.Tensor}
    (el,) = elements(ds)
    np.testing.assert_array_equal(el["a"], [1, 2])
    np.testing.assert_array_equal(el["b"], [[1.0, 2.0], [3.0, 4.0]])


def test_from_tensors_is_one_element_and_element_spec():
    ds = Dataset.from_tensors(([1, 2], "x"))
    spec = ds.element_spec
    # TF 2.21: (TensorSpec(shape=(2,), dtype=tf.int32), TensorSpec(shape=(), dtype=tf.string))
    assert [s.dtype for s in spec] == [fr.int32, fr.string]
    assert [s.shape for s in spec] == [fr.TensorShape([2]), fr.TensorShape([])]
    got = elements(ds)
    assert len(got) == 1
    np.testing.assert_array_equal(got[0][0], [1, 2])
    assert got[0][1] == b"x"


def test_range_forms_and_dtype():
    assert ints(elements(Dataset.range(4))) == [0, 1, 2, 3]
    assert ints(elements(Dataset.range(2, 5))) == [2, 3, 4]
    assert ints(elements(Dataset.range(5, 0, -2))) == [5, 3, 1]
    ds = Dataset.range(3, output_type=fr.int32)
    assert ds.output_types == fr.int32
    assert elements(ds)[0].dtype == np.int32
    assert Dataset.range(3).element_spec.dtype == fr.int64


def test_zip_stops_at_the_shortest():
    ds = Dataset.zip((Dataset.range(3), Dataset.range(10, 12)))
    # TF 2.21: [(0, 10), (1, 11)]
    assert [ints(e) for e in elements(ds)] == [[0, 10], [1, 11]]
    d = Dataset.zip({"x": Dataset.range(2), "y": Dataset.from_tensor_slices([5.0, 6.0])})
    assert d.output_types == {"x": fr.int64, "y": fr.float32}
    assert [(int(e["x"]), float(e["y"])) for e in elements(d)] == [(0, 5.0), (1, 6.0)]


def test_map_function_builds_several_ops_and_captures_outer_tensors():
    scale = fr.constant(10, fr.int64)

    def f(x):
        sq = fr.square(x)
        return {
            "sq": sq + scale,
            "neg": -x,
            "s": fr.strings.join([fr.constant("n"), fr.constant("x")]),
        }

    ds = Dataset.range(3).map(f, num_parallel_calls=2)
    assert ds.output_types == {"neg": fr.int64, "s": fr.string, "sq": fr.int64}
    got = elements(ds)
    assert [int(e["sq"]) for e in got] == [10, 11, 14]
    assert [int(e["neg"]) for e in got] == [0, -1, -2]
    assert [e["s"] for e in got] == [b"nx"] * 3


def test_map_unpacks_tuples_not_dicts_and_list_returns_are_tuples():
    ds = Dataset.from_tensor_slices(([1, 2], [3, 4])).map(lambda a, b: [a * b, a + b])
    assert isinstance(ds.output_types, tuple)
    assert [ints(e) for e in elements(ds)] == [[3, 4], [8, 6]]
    # TF 2.21: a dict element is one argument (output type int32).
    ds = Dataset.from_tensor_slices({"a": [1, 2]}).map(lambda d: d["a"] * 2)
    assert ds.output_types == fr.int32
    assert ints(elements(ds)) == [2, 4]


def test_map_reads_the_sessions_variable_value():
    v = fr.Variable(5, dtype=fr.int64)
    nxt = Dataset.range(2).map(lambda x: x + v).make_initializable_iterator()
    with fr.Session() as sess:
        sess.run(v.initializer)
        sess.run(fr.assign(v, 100))
        sess.run(nxt.initializer)
        got = nxt.get_next()
        assert int(sess.run(got)) == 100


def test_batch_last_partial_and_drop_remainder():
    assert [list(b) for b in elements(Dataset.range(5).batch(2))] == [[0, 1], [2, 3], [4]]
    ds = Dataset.range(5).batch(2, drop_remainder=True)
    assert ds.output_shapes == fr.TensorShape([2])  # TF 2.21: (2,)
    assert [list(b) for b in elements(ds)] == [[0, 1], [2, 3]]
    assert Dataset.range(5).batch(2).output_shapes == fr.TensorShape([None])


def test_repeat_then_batch_differs_from_batch_then_repeat():
    # TF 2.21: [[0,1,2],[3,4,0],[1,2,3],[4]] and [[0,1,2],[3,4],[0,1,2],[3,4]]
    rb = [list(b) for b in elements(Dataset.range(5).repeat(2).batch(3))]
    assert rb == [[0, 1, 2], [3, 4, 0], [1, 2, 3], [4]]
    br = [list(b) for b in elements(Dataset.range(5).batch(3).repeat(2))]
    assert br == [[0, 1, 2], [3, 4], [0, 1, 2], [3, 4]]


def test_repeat_forever_and_empty_repeat_ends():
    nxt = Dataset.range(2).repeat().make_one_shot_iterator().get_next()
    with fr.Session() as sess:
        assert [int(sess.run(nxt)) for _ in range(7)] == [0, 1, 0, 1, 0, 1, 0]
    assert elements(Dataset.range(0).repeat()) == []


def test_take_skip():
    # TF 2.21: [3, 4, 5, 6]
    assert ints(elements(Dataset.range(10).skip(3).take(4))) == [3, 4, 5, 6]
    assert ints(elements(Dataset.range(3).take(-1))) == [0, 1, 2]
    assert elements(Dataset.range(3).skip(-1)) == []
    assert elements(Dataset.range(3).take(0)) == []


def test_filter_and_its_predicate_type():
    assert ints(elements(Dataset.range(10).filter(lambda x: fr.equal(x % 3, 0)))) == [0, 3, 6, 9]
    # TF 2.21 message and class:
    with pytest.raises(ValueError, match="`predicate` must return a `tf.bool` scalar tensor"):
        Dataset.range(3).filter(lambda x: x)
    with pytest.raises(ValueError, match="must return a `tf.bool` scalar"):
        Dataset.range(3).filter(lambda x: fr.constant([True]))


def test_shuffle_is_a_permutation_reproducible_with_a_seed():
    def run(seed):
        return ints(elements(Dataset.range(20).shuffle(7, seed=seed)))

    a, b = run(3), run(3)
    assert sorted(a) == list(range(20))
    assert a == b
    assert a != list(range(20))


def test_shuffle_reshuffles_each_pass_unless_told_not_to():
    ds = Dataset.range(10).shuffle(10, seed=1)
    passes = ints(elements(ds.repeat(2)))
    assert sorted(passes[:10]) == sorted(passes[10:]) == list(range(10))
    assert passes[:10] != passes[10:]
    fixed = ints(
        elements(Dataset.range(10).shuffle(10, seed=1, reshuffle_each_iteration=False).repeat(2))
    )
    assert fixed[:10] == fixed[10:]


def test_shuffle_follows_the_graph_seed():
    fr.set_random_seed(42)
    a = ints(elements(Dataset.range(30).shuffle(30)))
    fr.reset_default_graph()
    fr.set_random_seed(42)
    b = ints(elements(Dataset.range(30).shuffle(30)))
    assert a == b and sorted(a) == list(range(30))


def test_prefetch_and_cache():
    assert ints(elements(Dataset.range(3).prefetch(fr.data.AUTOTUNE))) == [0, 1, 2]
    # Cached: the second pass replays the first, even though the shuffle would reshuffle.
    got = ints(elements(Dataset.range(8).shuffle(8, seed=5).cache().repeat(3)))
    assert got[:8] == got[8:16] == got[16:]


def test_concatenate_types_and_shapes():
    a = Dataset.from_tensor_slices([[1, 2]])
    b = Dataset.from_tensor_slices([[3, 4, 5]])
    ds = a.concatenate(b)
    assert ds.output_shapes == fr.TensorShape([None])
    assert [list(x) for x in elements(ds)] == [[1, 2], [3, 4, 5]]
    with pytest.raises(TypeError, match="different types"):
        Dataset.range(3).concatenate(Dataset.from_tensors(1.0))


def test_padded_batch_as_tf():
    ds = Dataset.range(1, 5).map(lambda x: fr.fill([fr.cast(x, fr.int32)], x))
    got = elements(ds.padded_batch(2, padded_shapes=[None]))
    # TF 2.21: [[1, 0], [2, 2]] then [[3, 3, 3, 0], [4, 4, 4, 4]]
    assert [b.tolist() for b in got] == [[[1, 0], [2, 2]], [[3, 3, 3, 0], [4, 4, 4, 4]]]
    got = elements(ds.padded_batch(3, padded_shapes=[5], padding_values=fr.constant(-1, fr.int64)))
    # TF 2.21:
    assert [b.tolist() for b in got] == [
        [[1, -1, -1, -1, -1], [2, 2, -1, -1, -1], [3, 3, 3, -1, -1]],
        [[4, 4, 4, 4, -1]],
    ]
    assert ds.padded_batch(3, [5], drop_remainder=True).output_shapes == fr.TensorShape([3, 5])
    small = ds.padded_batch(2, padded_shapes=[2])
    with pytest.raises(fr.errors.DataLossError, match="pad to a smaller size"):  # TF 2.21
        elements(small)


def test_padded_batch_dtypes_of_padded_shapes_and_padding_values_as_tf():
    # fill's dims hold an int64 tensor: an int64 shape, as TF packs it.
    ds = Dataset.range(1, 4).map(lambda x: fr.fill([x], fr.cast(x, fr.int32)))
    assert ds.output_types == fr.int32
    got = elements(ds.padded_batch(3, padded_shapes=fr.constant([4], fr.int64), padding_values=-1))
    # TF 2.21: [[1, -1, -1, -1], [2, 2, -1, -1], [3, 3, 3, -1]]
    assert [b.tolist() for b in got] == [[[1, -1, -1, -1], [2, 2, -1, -1], [3, 3, 3, -1]]]
    assert elements(ds.padded_batch(3, np.array([4], np.int32)))[0].shape == (3, 4)
    # TF 2.21's messages: a padding value keeps its own dtype, which must be the
    # component's; a padded shape tensor must be int64.
    for value in (fr.constant(-1, fr.int64), np.int64(-1), -1.0):
        with pytest.raises(TypeError, match=r"values type tf.\w+ does not match type tf.int32"):
            ds.padded_batch(2, [4], padding_values=value)
    with pytest.raises(TypeError, match="type tf.int32 does not match type tf.int64"):
        Dataset.range(3).batch(2).padded_batch(2, [4], padding_values=-1)
    with pytest.raises(ValueError, match=r"values should be scalars, but got \(1,\)"):
        ds.padded_batch(2, [4], padding_values=[-1])
    with pytest.raises(TypeError, match="must be a `tf.int64` vector tensor, but its element"):
        ds.padded_batch(2, fr.constant([4]))
    with pytest.raises(ValueError, match="must be a `tf.int64` vector tensor, but its shape"):
        ds.padded_batch(2, fr.constant([[4]], fr.int64))


def test_padded_shapes_fed_when_the_dataset_is_made():
    shape = fr.placeholder(fr.int64, [1])
    ds = Dataset.from_tensor_slices(np.ones([2, 2], np.int32)).padded_batch(2, shape)
    assert ds.output_shapes == fr.TensorShape([None, None])  # TF 2.21
    it = ds.make_initializable_iterator()
    nxt = it.get_next()
    with fr.Session() as sess:
        sess.run(it.initializer, {shape: [3]})
        assert sess.run(nxt).tolist() == [[1, 1, 0], [1, 1, 0]]
        sess.run(it.initializer, {shape: [-1]})  # -1: the longest
        assert sess.run(nxt).tolist() == [[1, 1], [1, 1]]
        sess.run(it.initializer, {shape: [1]})
        with pytest.raises(fr.errors.DataLossError, match="pad to a smaller size"):
            sess.run(nxt)


def test_shard_as_tf():
    assert ints(elements(Dataset.range(10).shard(3, 1))) == [1, 4, 7]
    assert ints(elements(Dataset.range(10).shard(fr.constant(2, fr.int64), 0))) == [0, 2, 4, 6, 8]
    assert Dataset.range(10).batch(3).shard(2, 1).output_shapes == fr.TensorShape([None])
    # TF 2.21: the arguments are checked when the dataset is made, in every run trying to.
    for args, message in [
        ((3, 3), r"Index must be between 0 and 2 \(currently index = 3\)."),
        ((3, -1), r"Index must be between 0 and 2 \(currently index = -1\)."),
        ((0, 0), r"Number of shards must be greater than zero \(currently num_shards = 0\)."),
    ]:
        nxt = Dataset.range(10).shard(*args).make_one_shot_iterator().get_next()
        with fr.Session() as sess:
            for _ in range(2):
                with pytest.raises(fr.errors.InvalidArgumentError, match=message):
                    sess.run(nxt)
    with pytest.raises(TypeError, match="index must be an integer"):
        Dataset.range(10).shard(3, 1.5)


def test_map_function_returning_none_is_a_value_error():
    with pytest.raises(ValueError, match="returned None"):
        Dataset.range(3).map(lambda x: None)


def test_flat_map():
    ds = Dataset.range(1, 4).flat_map(lambda x: Dataset.from_tensors(x).repeat(x))
    assert ints(elements(ds)) == [1, 2, 2, 3, 3, 3]
    with pytest.raises(TypeError, match="must return a `Dataset`"):
        Dataset.range(3).flat_map(lambda x: x)


def test_interleave_order_as_tf():
    ds = Dataset.range(1, 4).interleave(
        lambda x: Dataset.from_tensors(x).repeat(x + 1), cycle_length=2, block_length=2
    )
    # TF 2.21: [1, 1, 2, 2, 2, 3, 3, 3, 3]
    assert ints(elements(ds)) == [1, 1, 2, 2, 2, 3, 3, 3, 3]
    ds = Dataset.range(3).interleave(lambda x: Dataset.range(x * 10, x * 10 + 3), cycle_length=3)
    assert ints(elements(ds)) == [0, 10, 20, 1, 11, 21, 2, 12, 22]


def test_enumerate_and_unbatch():
    # TF 2.21: [(3, 7), (4, 8)] and [1, 2, 3, 4]
    got = elements(Dataset.from_tensor_slices([7, 8]).enumerate(3))
    assert [ints(e) for e in got] == [[3, 7], [4, 8]]
    assert ints(elements(Dataset.from_tensor_slices([[1, 2], [3, 4]]).unbatch())) == [1, 2, 3, 4]
    ds = Dataset.range(7).batch(3).unbatch()
    assert ds.output_shapes == fr.TensorShape([])
    assert ints(elements(ds)) == list(range(7))


def test_namedtuple_elements_keep_their_type():
    Point = collections.namedtuple("Point", "x y")
    ds = Dataset.from_tensor_slices(Point([1, 2], [3, 4])).map(lambda p: Point(p.y, p.x))
    got = elements(ds)
    assert isinstance(got[0], Point) and (int(got[0].x), int(got[0].y)) == (3, 1)


def test_experimental_transformations():
    ds = Dataset.range(4).apply(fr.data.experimental.shuffle_and_repeat(4, count=2, seed=1))
    got = ints(elements(ds))
    assert sorted(got[:4]) == sorted(got[4:]) == [0, 1, 2, 3]
    ds = Dataset.range(5).apply(fr.data.experimental.map_and_batch(lambda x: x * 2, 2))
    assert [list(b) for b in elements(ds)] == [[0, 2], [4, 6], [8]]
    assert fr.data.experimental.AUTOTUNE == -1
    ds = Dataset.range(6).batch(4).apply(fr.data.experimental.unbatch())
    assert ds.output_shapes == fr.TensorShape([])
    assert ints(elements(ds)) == [0, 1, 2, 3, 4, 5]


def test_build_errors_name_the_argument():
    with pytest.raises(ValueError, match="Dimensions 3 and 2 are not compatible"):
        Dataset.from_tensor_slices(([1, 2, 3], [1, 2]))
    with pytest.raises(ValueError, match="rank >= 1"):
        Dataset.from_tensor_slices(3)
    with pytest.raises(TypeError, match="batch_size"):
        Dataset.range(3).batch(2.5)
    with pytest.raises(TypeError, match="must be callable"):
        Dataset.range(3).map(3)
    with pytest.raises(RuntimeError, match="iterator"):
        iter(Dataset.range(3))


def test_run_errors_are_invalid_argument():
    with pytest.raises(
        fr.errors.InvalidArgumentError, match="Batch size must be greater than zero"
    ):
        elements(Dataset.range(3).batch(0))
    ds = Dataset.range(1, 4).map(lambda x: fr.fill([fr.cast(x, fr.int32)], x)).batch(2)
    with pytest.raises(
        fr.errors.InvalidArgumentError,
        match=r"Cannot batch tensors with different shapes in component 0. First element "
        r"had shape \[1\] and element 1 had shape \[2\]",
    ):
        elements(ds)
    ph = fr.placeholder(fr.int32, [None])
    it = Dataset.from_tensor_slices((ph, [1, 2])).make_initializable_iterator()
    with fr.Session() as sess:
        with pytest.raises(fr.errors.InvalidArgumentError, match="same size in the 0th"):
            sess.run(it.initializer, {ph: [1, 2, 3]})
            sess.run(it.get_next())


def test_bad_arguments_fail_in_the_initializers_run_naming_the_dataset_op():
    size = fr.placeholder(fr.int64, [])
    it = Dataset.range(5).batch(size).make_initializable_iterator()
    with fr.Session() as sess:
        with pytest.raises(fr.errors.InvalidArgumentError, match="Batch size must be") as e:
            sess.run(it.initializer, {size: 0})
        assert e.value.op.type == "BatchDatasetV2"
        sess.run(it.initializer, {size: 2})
        assert sess.run(it.get_next()).tolist() == [0, 1]
    with pytest.raises(fr.errors.InvalidArgumentError, match="buffer_size must be greater"):
        elements(Dataset.range(3).shuffle(0))
    with pytest.raises(fr.errors.InvalidArgumentError, match="step must be a non-zero"):
        elements(Dataset.range(0, 3, 0))


def test_map_may_return_an_outer_tensor_or_its_argument():
    outer = fr.constant(7, fr.int64)
    assert ints(elements(Dataset.range(2).map(lambda x: outer))) == [7, 7]
    got = elements(Dataset.range(2).map(lambda x: (x, outer)))
    assert [ints(e) for e in got] == [[0, 7], [1, 7]]


def test_nested_functions_capture_through_both_levels():
    base = fr.placeholder(fr.int64, [])
    ds = Dataset.range(1, 3).flat_map(lambda x: Dataset.range(x).map(lambda y: y * 10 + base))
    it = ds.make_initializable_iterator()
    nxt = it.get_next()
    with fr.Session() as sess:
        sess.run(it.initializer, {base: 1000})
        assert [int(sess.run(nxt)) for _ in range(3)] == [1000, 1000, 1010]


def test_padded_shapes_are_checked_against_static_shapes():
    ds = Dataset.from_tensor_slices(np.zeros([4, 3], np.float32))
    with pytest.raises(ValueError, match=r"The padded shape \(2,\) is not compatible"):
        ds.padded_batch(2, padded_shapes=[2])
    with pytest.raises(ValueError, match="not compatible"):
        ds.padded_batch(2, padded_shapes=[3, 1])
    assert ds.padded_batch(2).output_shapes == fr.TensorShape([None, 3])
    got = elements(
        Dataset.from_tensor_slices({"a": [[1], [2]], "b": ["x", "y"]}).padded_batch(
            2, {"a": [3], "b": []}, {"a": 9, "b": "-"}
        )
    )
    assert got[0]["a"].tolist() == [[1, 9, 9], [2, 9, 9]] and got[0]["b"].tolist() == [b"x", b"y"]
