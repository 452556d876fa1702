"""Partitioned variables: parts, partitioners, reuse, checkpoints as TF1 (issue 12)."""

import os

import numpy as np
import pytest

import flowrt as fr

FULL = np.arange(40.0, dtype=np.float32).reshape(10, 4)


def test_parts_names_and_slices_as_tf():
    with fr.variable_scope("s", partitioner=fr.fixed_size_partitioner(3)):
        w = fr.get_variable("w", [10, 4], initializer=fr.ones_initializer())
    assert isinstance(w, fr.PartitionedVariable) and len(w) == 3
    assert [v.name for v in w] == ["s/w/part_0:0", "s/w/part_1:0", "s/w/part_2:0"]
    assert [v._save_slice_info.spec for v in w] == ["10 4 0,4:0,4", "10 4 4,3:0,4", "10 4 7,3:0,4"]
    assert w.name == "s/w" and w.get_shape().as_list() == [10, 4] and w.dtype == fr.float32
    t = fr.convert_to_tensor(w)
    assert t.name == "s/w:0" and t.op.inputs[0].name == "s/w/ConcatPartitions/concat:0"
    y = fr.matmul(fr.ones([2, 10]), w)
    assert y.shape.as_list() == [2, 4]
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(y), np.full((2, 4), 10.0))


def test_value_initializer_is_sliced_and_reuse_checks():
    c = fr.get_variable(
        "c", [10, 4], initializer=fr.constant(FULL), partitioner=fr.fixed_size_partitioner(4)
    )
    with fr.variable_scope("", reuse=True):
        assert fr.get_variable("c", [10, 4], partitioner=fr.fixed_size_partitioner(4)) is c
        with pytest.raises(
            ValueError, match="specified partitions \\[2, 1\\] and found partitions \\[4, 1\\]"
        ):
            fr.get_variable("c", [10, 4], partitioner=fr.fixed_size_partitioner(2))
        with pytest.raises(ValueError, match="PartitionedVariable nope does not exist"):
            fr.get_variable("nope", [10, 4], partitioner=fr.fixed_size_partitioner(2))
    with pytest.raises(ValueError, match="Partitioned variable with name c already exists"):
        fr.get_variable("c", [10, 4], partitioner=fr.fixed_size_partitioner(4))
    with pytest.raises(ValueError, match="must be fully defined, but instead was"):
        fr.get_variable("d", initializer=FULL, partitioner=fr.fixed_size_partitioner(2))
    fr.get_variable("plain", [4])
    with pytest.raises(ValueError, match="an unpartitioned version of the variable was found"):
        fr.get_variable("plain", [4], partitioner=fr.fixed_size_partitioner(2))
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(c), FULL)
        assert [sess.run(v).shape for v in c] == [(3, 4), (3, 4), (2, 4), (2, 4)]


def test_partitioners_as_tf():
    s = fr.TensorShape([10, 4])
    assert fr.fixed_size_partitioner(3)(shape=s, dtype=fr.float32) == [3, 1]
    assert fr.fixed_size_partitioner(20, axis=1)(shape=s, dtype=fr.float32) == [1, 4]
    assert fr.min_max_variable_partitioner(4, min_slice_size=16)(shape=s, dtype=fr.float32) == [
        4,
        1,
    ]
    assert fr.min_max_variable_partitioner(4)(shape=s, dtype=fr.float32) == [1, 1]
    assert fr.variable_axis_size_partitioner(40)(shape=s, dtype=fr.float32) == [5, 1]
    assert fr.variable_axis_size_partitioner(40, max_shards=2)(shape=s, dtype=fr.float32) == [2, 1]
    with pytest.raises(ValueError, match="Can only slice a variable along one dimension"):
        fr.get_variable("x", [4, 4], partitioner=lambda shape, dtype: [2, 2])
    with pytest.raises(ValueError, match="does not match the Variable's rank"):
        fr.get_variable("y", [4, 4], partitioner=lambda shape, dtype: [2])


def test_initializers_scale_by_the_whole_variable():
    with fr.variable_scope("g", partitioner=fr.fixed_size_partitioner(2)):
        w = fr.get_variable("w", [200, 100], initializer=fr.glorot_uniform_initializer(seed=1))
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        v = sess.run(w)
    limit = np.sqrt(6.0 / (200 + 100))  # the full shape's fans, not a part's
    assert np.abs(v).max() <= limit and np.abs(v).max() > 0.9 * limit


def test_checkpoint_holds_one_entry_and_restores_into_any_partitioning(tmp_path):
    with fr.Graph().as_default():
        fr.get_variable(
            "s/w", [10, 4], initializer=fr.constant(FULL), partitioner=fr.fixed_size_partitioner(3)
        )
        saver = fr.train.Saver()
        with fr.Session() as sess:
            sess.run(fr.global_variables_initializer())
            path = saver.save(sess, os.path.join(str(tmp_path), "m"))
    assert fr.train.list_variables(path) == [("s/w", [10, 4])]
    with fr.Graph().as_default():
        two = fr.get_variable("s/w", [10, 4], partitioner=fr.fixed_size_partitioner(2))
        with fr.Session() as sess:
            fr.train.Saver().restore(sess, path)
            np.testing.assert_array_equal(sess.run(two), FULL)
    with fr.Graph().as_default():
        whole = fr.get_variable("s/w", [10, 4])
        with fr.Session() as sess:
            fr.train.Saver({"s/w": whole}).restore(sess, path)
            np.testing.assert_array_equal(sess.run(whole), FULL)
    with fr.Graph().as_default():
        pv = fr.get_variable("w", [10, 4], partitioner=fr.fixed_size_partitioner(5))
        with fr.Session() as sess:
            fr.train.Saver({"s/w": pv}).restore(sess, path)
            np.testing.assert_array_equal(sess.run(pv), FULL)
            with pytest.raises(ValueError, match="Saver needs every part"):
                fr.train.Saver([list(pv)[0]])


def test_tf_reads_the_same_layout():
    tf = pytest.importorskip("tensorflow.compat.v1")
    g = tf.Graph()
    with g.as_default():
        w = tf.get_variable("w", [10, 4], partitioner=tf.fixed_size_partitioner(3))
        assert [v._save_slice_info.spec for v in w] == [
            "10 4 0,4:0,4",
            "10 4 4,3:0,4",
            "10 4 7,3:0,4",
        ]


def test_embedding_lookup_over_the_parts():
    emb = fr.get_variable(
        "emb",
        [7, 2],
        initializer=fr.constant(np.arange(14.0, dtype=np.float32).reshape(7, 2)),
        partitioner=fr.fixed_size_partitioner(3),
    )
    ids = fr.constant([6, 0, 3, 4])
    div = fr.nn.embedding_lookup(emb, ids, partition_strategy="div")
    loss = fr.reduce_sum(div)
    step = fr.train.GradientDescentOptimizer(1.0).minimize(loss)
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(div), np.arange(14.0).reshape(7, 2)[[6, 0, 3, 4]])
        sess.run(step)
        after = sess.run(emb)
    want = np.arange(14.0).reshape(7, 2)
    want[[6, 0, 3, 4]] -= 1.0
    np.testing.assert_array_equal(after, want)


def _axis0_into2(shape=None, **unused_kwargs):
    return (2,) + (1,) * (len(shape) - 1)


def test_tf_variable_scope_test_partitioning_cases():
    with fr.variable_scope("scope0", partitioner=_axis0_into2) as vs:
        v = fr.get_variable("name0", shape=(3, 1, 1))
        assert v.name == "scope0/name0" and v.as_tensor().name == "scope0/name0:0"
        assert [x.name for x in fr.global_variables()] == [
            "scope0/name0/part_0:0",
            "scope0/name0/part_1:0",
        ]
        scalar = fr.get_variable("s", shape=())  # scalars ignore the partitioner
        assert scalar.name == "scope0/s:0"
        with fr.variable_scope(vs) as vs1:
            assert vs1.partitioner is _axis0_into2
    with fr.variable_scope("scope0", reuse=True):
        assert fr.get_variable("name0") is v  # reuse needs no partitioner
    with fr.variable_scope("scope0", partitioner=lambda shape, dtype: [3, 1, 1], reuse=True):
        with pytest.raises(
            ValueError,
            match="Trying to reuse partitioned variable .* but "
            "specified partitions .* and found partitions",
        ):
            fr.get_variable("name0", shape=(3, 1, 1))
    v1 = fr.get_variable("n1", shape=(2, 2, 2), partitioner=lambda **kw: (1, 2, 1))
    assert [p.get_shape().as_list() for p in v1] == [[2, 1, 2], [2, 1, 2]]


def test_creator_scope_nesting_error():
    def creator(next_creator, **kwargs):
        return next_creator(**kwargs)

    outer = fr.variable_creator_scope(creator)
    outer.__enter__()
    with pytest.raises(RuntimeError, match="without proper nesting"):
        with fr.variable_creator_scope(creator):
            outer.__exit__(None, None, None)
    assert fr.Variable(1.0).name == "Variable:0"
