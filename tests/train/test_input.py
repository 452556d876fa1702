"""Input producers and batching (fr.train.batch, shuffle_batch, *_input_producer,
limit_epochs), run by queue runner threads and trio tasks."""

import numpy as np
import pytest
import trio

import flowrt as fr

JOIN = 5.0


class _Runners:
    """Starts the graph's queue runners with a coordinator; stops and joins on exit."""

    def __init__(self, sess, init_local=True):
        self.sess = sess
        self.init_local = init_local

    def __enter__(self):
        if self.init_local:
            self.sess.run([fr.global_variables_initializer(), fr.local_variables_initializer()])
        self.coord = fr.train.Coordinator()
        self.threads = fr.train.start_queue_runners(self.sess, self.coord)
        return self.coord

    def __exit__(self, *exc):
        self.coord.request_stop()
        self.coord.join(self.threads, stop_grace_period_secs=JOIN)
        assert not any(t.is_alive() for t in self.threads)


def _drain(sess, fetch):
    out = []
    with pytest.raises(fr.errors.OutOfRangeError):
        while True:
            out.append(sess.run(fetch))
    return out


# --- limit_epochs ------------------------------------------------------------------------


def test_limit_epochs_counts_in_a_local_variable():
    t = fr.train.limit_epochs(fr.constant([1, 2]), num_epochs=2)
    assert t.op.name == "limit_epochs"
    (epochs,) = fr.local_variables()
    assert epochs.name == "limit_epochs/epochs:0" and epochs.dtype == fr.int64
    assert fr.global_variables() == []
    with fr.Session() as sess:
        with pytest.raises(fr.errors.FailedPreconditionError, match="epochs"):
            sess.run(t)
        sess.run(fr.local_variables_initializer())
        assert list(sess.run(t)) == [1, 2]
        assert list(sess.run(t)) == [1, 2]
        with pytest.raises(fr.errors.OutOfRangeError, match="Reached limit of 2"):
            sess.run(t)


def test_limit_epochs_none_and_bad_values():
    c = fr.constant(1)
    assert fr.train.limit_epochs(c) is c
    with pytest.raises(ValueError, match="^num_epochs must be > 0 not 0.$"):
        fr.train.limit_epochs(c, 0)


# --- producers ---------------------------------------------------------------------------


def test_string_input_producer_epochs_then_out_of_range():
    q = fr.train.string_input_producer(["a", "b", "c"], num_epochs=2, shuffle=False)
    (qr,) = fr.get_collection(fr.GraphKeys.QUEUE_RUNNERS)
    assert qr.queue is q
    deq = q.dequeue()
    assert deq.dtype == fr.string and deq.shape.as_list() == []
    with fr.Session() as sess, _Runners(sess) as coord:
        assert _drain(sess, deq) == [b"a", b"b", b"c"] * 2
        assert not coord.should_stop()


def test_string_input_producer_shuffles_each_epoch_with_a_seed():
    names = [b"f%d" % i for i in range(20)]
    q = fr.train.string_input_producer(names, num_epochs=2, seed=3)
    deq = q.dequeue()
    with fr.Session() as sess, _Runners(sess):
        got = _drain(sess, deq)
    assert sorted(got[:20]) == sorted(names) and sorted(got[20:]) == sorted(names)
    assert got[:20] != names


def test_string_input_producer_argument_checks():
    with pytest.raises(ValueError, match="requires a non-null input tensor"):
        fr.train.string_input_producer([])
    q = fr.train.string_input_producer(fr.constant([], fr.string))
    with fr.Session() as sess:
        coord = fr.train.Coordinator()
        threads = fr.train.start_queue_runners(sess, coord)
        with pytest.raises(fr.errors.InvalidArgumentError, match="non-null input tensor"):
            coord.join(threads, stop_grace_period_secs=JOIN)
    assert q is not None


def test_missing_local_initializer_is_reported_to_the_coordinator():
    q = fr.train.string_input_producer(["a"], num_epochs=1)
    with fr.Session() as sess:
        coord = fr.train.Coordinator()
        threads = fr.train.start_queue_runners(sess, coord)
        with pytest.raises(fr.errors.FailedPreconditionError, match="epochs"):
            coord.join(threads, stop_grace_period_secs=JOIN)
    assert q is not None


def test_slice_input_producer_gives_matching_rows():
    xs = fr.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    ys = fr.constant(["a", "b", "c"])
    x, y = fr.train.slice_input_producer([xs, ys], num_epochs=1, shuffle=False)
    assert x.shape.as_list() == [2] and y.shape.as_list() == []
    with fr.Session() as sess, _Runners(sess):
        got = _drain(sess, [x, y])
    assert [list(a) for a, _ in got] == [[1, 2], [3, 4], [5, 6]]
    assert [b for _, b in got] == [b"a", b"b", b"c"]


def test_range_and_input_producer_shapes():
    q = fr.train.range_input_producer(5, shuffle=False, num_epochs=1)
    with pytest.raises(ValueError, match="fully defined shape or `element_shape`"):
        fr.train.input_producer(fr.placeholder(fr.float32, [None, None]))
    with fr.Session() as sess, _Runners(sess):
        assert _drain(sess, q.dequeue()) == [0, 1, 2, 3, 4]


# --- batching ----------------------------------------------------------------------------


def test_batch_structures_and_static_shapes():
    x = fr.constant([1.0, 2.0])
    assert fr.train.batch([x], 4).shape.as_list() == [4, 2]
    d = fr.train.batch({"b": fr.constant(1), "a": x}, 4)
    assert sorted(d) == ["a", "b"] and d["b"].shape.as_list() == [4]
    one = fr.train.batch({"a": x}, 4)
    assert list(one) == ["a"] and one["a"].shape.as_list() == [4, 2]
    lst = fr.train.batch((x, fr.constant(1)), 4, allow_smaller_final_batch=True)
    assert isinstance(lst, list) and lst[0].shape.as_list() == [None, 2]
    many = fr.train.batch([fr.constant([[1, 2], [3, 4]])], 3, enqueue_many=True)
    assert many.shape.as_list() == [3, 2]
    padded = fr.train.batch([fr.placeholder(fr.float32, [None])], 4, dynamic_pad=True)
    assert padded.shape.as_list() == [4, None]
    with pytest.raises(ValueError, match="Cannot infer Tensor's rank"):
        fr.train.batch([fr.placeholder(fr.float32)], 4)
    with pytest.raises(ValueError, match="^capacity 5 must be bigger than min_after_dequeue 5.$"):
        fr.train.shuffle_batch([x], 4, 5, 5)
    with pytest.raises(TypeError, match="not a single Tensor"):
        fr.train.batch(x, 4)
    assert len(fr.get_collection(fr.GraphKeys.QUEUE_RUNNERS)) == 6


def test_batch_with_smaller_final_batch_then_out_of_range():
    (i,) = fr.train.slice_input_producer([fr.range(7)], num_epochs=1, shuffle=False)
    b = fr.train.batch([i], 3, num_threads=1, allow_smaller_final_batch=True)
    with fr.Session() as sess, _Runners(sess):
        got = _drain(sess, b)
    assert [list(x) for x in got] == [[0, 1, 2], [3, 4, 5], [6]]


def test_batch_enqueue_many_with_several_threads():
    rows = fr.train.limit_epochs(fr.reshape(fr.range(12), [6, 2]), num_epochs=2)
    b = fr.train.batch([rows], 4, num_threads=2, enqueue_many=True)
    (qr,) = fr.get_collection(fr.GraphKeys.QUEUE_RUNNERS)
    assert len(qr.enqueue_ops) == 2
    with fr.Session() as sess, _Runners(sess):
        got = np.concatenate(_drain(sess, b))
    assert got.shape == (12, 2)  # two runs of the enqueue op in all, one per epoch
    rows = [tuple(r) for r in np.arange(12).reshape(6, 2)]
    assert sorted(map(tuple, got)) == sorted(rows * 2)


def test_batch_join_and_shuffle_batch_move_whole_string_batches():
    # Two enqueue loops of whole [3]-row batches (numbers and strings), as a reader's
    # read_up_to + decode_csv would give them.
    def source(k):
        nums = fr.train.limit_epochs(fr.constant([k, k + 1, k + 2]), num_epochs=1)
        return [nums, fr.constant([b"r%d" % (k + j) for j in range(3)])]

    joined = fr.train.batch_join(
        [source(0), source(10)], 2, enqueue_many=True, allow_smaller_final_batch=True
    )
    (qr,) = fr.get_collection(fr.GraphKeys.QUEUE_RUNNERS)
    assert len(qr.enqueue_ops) == 2
    with fr.Session() as sess, _Runners(sess):
        got = _drain(sess, joined)
    nums = np.concatenate([g[0] for g in got])
    assert sorted(nums) == [0, 1, 2, 10, 11, 12]
    rows = [(int(n), s) for g in got for n, s in zip(g[0], g[1], strict=True)]
    assert all(s == b"r%d" % n for n, s in rows)  # rows stay paired across components


def test_batch_dynamic_pad_pads_to_the_longest():
    p = fr.placeholder(fr.int32, [None])
    q = fr.PaddingFIFOQueue(10, fr.int32, shapes=[[None]])
    enq = q.enqueue([p])
    (item,) = [q.dequeue()]
    b = fr.train.batch([item], 3, dynamic_pad=True)
    with fr.Session() as sess:
        for v in ([1], [1, 2, 3], [4, 5]):
            sess.run(enq, {p: v})
        sess.run(q.close())  # else the runner stays blocked on q after the third item
        with _Runners(sess):
            np.testing.assert_array_equal(sess.run(b), [[1, 0, 0], [1, 2, 3], [4, 5, 0]])


def test_batch_join_keeps_the_first_inputs_shape_when_others_refine_it():
    # TF1 makes the queue of the first input's shape, [?]: the [99] input fits it too.
    short = fr.placeholder_with_default(fr.zeros([3], fr.int32), [None])
    long = fr.ones([99], fr.int32)
    b = fr.train.batch_join([[short], [long]], batch_size=4, dynamic_pad=True)
    assert b.shape.as_list() == [4, None]
    with fr.Session() as sess, _Runners(sess):
        rows = np.concatenate([sess.run(b).sum(axis=1) for _ in range(20)])
    assert set(rows) == {0, 99}  # zeros from the [?] input and ones from the [99] input


def test_shuffle_batch_mixes_examples():
    (i,) = fr.train.slice_input_producer([fr.range(100)], shuffle=False, num_epochs=1)
    b = fr.train.shuffle_batch(
        [i], 10, capacity=60, min_after_dequeue=40, seed=7, allow_smaller_final_batch=True
    )
    with fr.Session() as sess, _Runners(sess):
        got = np.concatenate(_drain(sess, b))
    assert sorted(got) == list(range(100))


def test_batching_ops_under_a_name_scope_are_named_as_tf1_names_them():
    # TF 2.21 (compat.v1) names these ops so; the dequeue's ``n`` sits in the batch's scope
    # (not under a repeated ``input/shuffle_batch/input/shuffle_batch/``), and the
    # ``keep_input`` constant is the scope's first op.
    with fr.name_scope("input"):
        fr.train.shuffle_batch(
            [fr.constant([1.0, 2.0]), fr.constant(1)], 4, capacity=40, min_after_dequeue=10
        )
    names = [op.name for op in fr.get_default_graph().get_operations()]
    assert [n for n in names if n.startswith("input/shuffle_batch")] == [
        "input/shuffle_batch/Const",
        "input/shuffle_batch/random_shuffle_queue",
        "input/shuffle_batch/random_shuffle_queue_enqueue",
        "input/shuffle_batch/random_shuffle_queue_Close",
        "input/shuffle_batch/random_shuffle_queue_Close_1",
        "input/shuffle_batch/random_shuffle_queue_Size",
        "input/shuffle_batch/sub/y",
        "input/shuffle_batch/sub",
        "input/shuffle_batch/Maximum/x",
        "input/shuffle_batch/Maximum",
        "input/shuffle_batch/Cast",
        "input/shuffle_batch/mul/y",
        "input/shuffle_batch/mul",
        "input/shuffle_batch/fraction_over_10_of_30_full/tags",
        "input/shuffle_batch/fraction_over_10_of_30_full",
        "input/shuffle_batch/n",
        "input/shuffle_batch",
    ]


# --- CSV files -> shuffled batches -------------------------------------------------------


def _write_csvs(tmp_path, n_files=3, rows=10):
    paths, expected = [], []
    for f in range(n_files):
        lines = ["x,label,name"]
        for r in range(rows):
            v = f * rows + r
            lines.append("%d.5,%d,n%d" % (v, v % 3, v))
            expected.append((v + 0.5, v % 3, b"n%d" % v))
        p = tmp_path / ("part%d.csv" % f)
        p.write_text("\n".join(lines) + "\n")
        paths.append(str(p))
    return paths, expected


def _csv_pipeline(paths, batch_size):
    filenames = fr.train.string_input_producer(paths, num_epochs=2, seed=1)
    _, line = fr.TextLineReader(skip_header_lines=1).read(filenames)
    x, label, name = fr.decode_csv(line, record_defaults=[[0.0], [0], [""]])
    return fr.train.shuffle_batch(
        [x, label, name],
        batch_size,
        capacity=40,
        min_after_dequeue=10,
        num_threads=2,
        seed=2,
        allow_smaller_final_batch=True,
    )


def _check_rows(batches, expected):
    rows = [
        (float(x), int(lab), n)
        for xb, lb, nb in batches
        for x, lab, n in zip(xb, lb, nb, strict=True)
    ]
    assert sorted(rows) == sorted(expected * 2)  # every row, once per epoch


def test_csv_files_stream_into_shuffled_batches_until_the_epochs_end(tmp_path):
    paths, expected = _write_csvs(tmp_path)
    xb, lb, nb = batch = _csv_pipeline(paths, 8)
    assert (xb.dtype, lb.dtype, nb.dtype) == (fr.float32, fr.int32, fr.string)
    assert xb.shape.as_list() == [None]
    with fr.Session() as sess, _Runners(sess) as coord:
        batches = _drain(sess, batch)
        assert not coord.should_stop()
    assert all(len(b[0]) == 8 for b in batches[:-1])
    _check_rows(batches, expected)


async def test_csv_pipeline_with_async_queue_runners(tmp_path):
    paths, expected = _write_csvs(tmp_path, n_files=2, rows=7)
    batch = _csv_pipeline(paths, 5)
    batches = []
    with trio.fail_after(JOIN):
        async with fr.Session() as sess:
            await sess.arun([fr.global_variables_initializer(), fr.local_variables_initializer()])
            async with fr.train.queue_runners(sess) as runners:
                with pytest.raises(fr.errors.OutOfRangeError):
                    while True:
                        batches.append(await sess.arun(batch))
                assert runners.running == 0
    _check_rows(batches, expected)


async def test_async_runners_stop_a_pipeline_midway(tmp_path):
    paths, _ = _write_csvs(tmp_path)
    batch = fr.train.batch([fr.train.string_input_producer(paths).dequeue()], 2)
    with trio.fail_after(JOIN):
        async with fr.Session() as sess:
            async with fr.train.queue_runners(sess) as runners:
                assert (await sess.arun(batch)).shape == (2,)
                await trio.testing.wait_all_tasks_blocked()
                assert runners.running == 2  # both loops blocked on full queues
            assert runners.running == 0
