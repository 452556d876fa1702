"""fr.data iterators: one-shot, initializable, reinitializable, feedable; end of
sequence; one element per run; concurrent readers each get distinct elements."""

import threading

import numpy as np
import pytest
import trio

import flowrt as fr

Dataset = fr.data.Dataset


def test_tf1_training_loop_ends_on_out_of_range():
    x = np.arange(20, dtype=np.float32).reshape(10, 2)
    y = np.arange(10, dtype=np.int64)

    def parse(a, b):
        return a * 2.0, b + 1

    ds = Dataset.from_tensor_slices((x, y)).shuffle(1000, seed=1).map(parse, 2).batch(4)
    it = ds.make_one_shot_iterator()
    images, labels = it.get_next()
    assert images.shape.as_list() == [None, 2] and labels.shape.as_list() == [None]
    w = fr.Variable(np.zeros([2, 1], np.float32))
    loss = fr.reduce_mean(fr.matmul(images, w))
    train = fr.train.GradientDescentOptimizer(0.1).minimize(loss)
    seen, steps = [], 0
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        try:
            while True:
                _, lab = sess.run([train, labels])
                seen.extend(lab.tolist())
                steps += 1
        except fr.errors.OutOfRangeError as e:
            assert e.message == "End of sequence"
            assert e.op.type == "IteratorGetNext"
        # Past the end it stays at the end.
        with pytest.raises(fr.errors.OutOfRangeError):
            sess.run(labels)
    assert steps == 3  # 4 + 4 + 2
    assert sorted(seen) == list(range(1, 11))


def test_one_element_per_run_whatever_is_fetched():
    a, b = Dataset.from_tensor_slices(([1, 2, 3], [10, 20, 30])).make_one_shot_iterator().get_next()
    with fr.Session() as sess:
        assert [int(v) for v in sess.run([a, b, a, a + b])] == [1, 10, 1, 11]
        assert [int(v) for v in sess.run([b, a])] == [20, 2]


def test_one_shot_iterator_restarts_per_session_and_refuses_placeholders():
    nxt = fr.data.make_one_shot_iterator(Dataset.range(3)).get_next()
    for _ in range(2):
        with fr.Session() as sess:
            assert [int(sess.run(nxt)) for _ in range(3)] == [0, 1, 2]
    ph = fr.placeholder(fr.int32, [None])
    with pytest.raises(ValueError, match=r"Cannot capture a placeholder \(name:Placeholder"):
        Dataset.from_tensor_slices(ph).make_one_shot_iterator()
    with pytest.raises(ValueError, match="does not have an initializer"):
        _ = Dataset.range(3).make_one_shot_iterator().initializer


def test_initializable_iterator_refed_with_a_new_placeholder_value():
    ph = fr.placeholder(fr.int64, [None])
    it = Dataset.from_tensor_slices(ph).map(lambda v: v * 10).make_initializable_iterator()
    nxt = it.get_next()
    with fr.Session() as sess:
        with pytest.raises(
            fr.errors.FailedPreconditionError, match="iterator has not been initialized"
        ):
            sess.run(nxt)
        sess.run(it.initializer, {ph: [1, 2, 3]})
        assert int(sess.run(nxt)) == 10
        sess.run(it.initializer, {ph: [7, 8]})  # restarts on the new value
        assert [int(sess.run(nxt)) for _ in range(2)] == [70, 80]
        with pytest.raises(fr.errors.OutOfRangeError):
            sess.run(nxt)
        with pytest.raises(fr.errors.InvalidArgumentError, match="ph|Placeholder"):
            sess.run(it.initializer)  # the placeholder must be fed


def test_reinitializable_iterator_from_structure():
    train = Dataset.range(5).batch(2)
    val = Dataset.range(100, 103).batch(2)
    it = fr.data.Iterator.from_structure(train.output_types, train.output_shapes)
    nxt = it.get_next()
    train_init, val_init = it.make_initializer(train), it.make_initializer(val)
    assert fr.data.get_output_types(it) == fr.int64
    assert fr.data.get_output_shapes(it) == fr.TensorShape([None])
    with fr.Session() as sess:
        sess.run(train_init)
        assert sess.run(nxt).tolist() == [0, 1]
        sess.run(val_init)
        assert sess.run(nxt).tolist() == [100, 101]
        assert sess.run(nxt).tolist() == [102]
        sess.run(train_init)
        assert sess.run(nxt).tolist() == [0, 1]
    # TF 2.21's message:
    with pytest.raises(TypeError, match="Expected output types fr.int64 but got dataset with"):
        it.make_initializer(Dataset.from_tensors(1.0))
    with pytest.raises(TypeError, match="output shapes"):
        it.make_initializer(Dataset.range(3).batch(2).batch(2))


def test_feedable_iterator_from_string_handle():
    train = Dataset.range(10).make_one_shot_iterator()
    val = Dataset.range(100, 110).make_initializable_iterator()
    handle = fr.placeholder(fr.string, [])
    it = fr.data.Iterator.from_string_handle(handle, fr.int64, fr.TensorShape([]))
    nxt = it.get_next()
    other = fr.data.Iterator.from_string_handle(handle, fr.float32)
    with fr.Session() as sess:
        th, vh = sess.run([train.string_handle(), val.string_handle()])
        sess.run(val.initializer)
        assert int(sess.run(nxt, {handle: th})) == 0
        assert int(sess.run(nxt, {handle: vh})) == 100
        assert int(sess.run(nxt, {handle: th})) == 1
        with pytest.raises(fr.errors.NotFoundError):
            sess.run(nxt, {handle: b"no such iterator"})
        with pytest.raises(fr.errors.InvalidArgumentError, match="Expected types"):
            sess.run(other.get_next(), {handle: th})


def _drain_in_threads(nxt, n_threads):
    got = [[] for _ in range(n_threads)]
    errors = []
    sess = fr.Session()

    def reader(k):
        try:
            while True:
                got[k].append(int(sess.run(nxt)))
        except fr.errors.OutOfRangeError:
            pass
        except BaseException as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=reader, args=(k,), daemon=True) for k in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    # A stuck reader fails the test here; the session is then left open (closing it
    # would wait for the stuck run).
    assert not any(t.is_alive() for t in threads), "a reader is stuck"
    sess.close()
    assert not errors, errors
    return got


def test_two_threads_drain_one_iterator_exactly_once():
    n = 400
    nxt = Dataset.range(n).map(lambda x: x * 1).make_one_shot_iterator().get_next()
    got = _drain_in_threads(nxt, 2)
    flat = sorted(got[0] + got[1])
    assert flat == list(range(n))


def test_threads_whose_map_gives_up_the_token_do_not_deadlock():
    # A 256x256 matmul releases the execution token inside the map function while the
    # iterator's lock is held; the other reader must wait without the token.
    m = np.eye(256, dtype=np.float32)

    def f(x):
        big = fr.matmul(fr.fill([256, 256], fr.cast(x, fr.float32)), m)
        return fr.cast(big[0, 0], fr.int64)

    nxt = Dataset.range(40).map(f).make_one_shot_iterator().get_next()
    got = _drain_in_threads(nxt, 3)
    assert sorted(got[0] + got[1] + got[2]) == list(range(40))


async def test_trio_tasks_drain_one_iterator_exactly_once():
    nxt = Dataset.range(50).make_one_shot_iterator().get_next()
    got = []
    with fr.Session() as sess:

        async def reader():
            try:
                while True:
                    got.append(int(await sess.arun(nxt)))
            except fr.errors.OutOfRangeError:
                pass

        with trio.fail_after(60):
            async with trio.open_nursery() as nursery:
                for _ in range(3):
                    nursery.start_soon(reader)
    assert sorted(got) == list(range(50))


def _drain(ds, limit=20):
    """Each run's outcome: an element, the class name of its error, or "end"."""
    nxt = ds.make_one_shot_iterator().get_next()
    out = []
    with fr.Session() as sess:
        for _ in range(limit):
            try:
                v = sess.run(nxt)
                out.append([int(x) for x in v] if isinstance(v, tuple) else v.tolist())
            except fr.errors.OutOfRangeError:
                out.append("end")
                break
            except fr.errors.OpError as e:
                out.append(type(e).__name__)
    return out


def test_map_error_surfaces_as_the_run_error_and_the_iterator_goes_on():
    ds = Dataset.from_tensor_slices([1.0, -1.0, 4.0]).map(
        lambda x: fr.check_numerics(fr.sqrt(x), "sqrt")
    )
    nxt = ds.make_one_shot_iterator().get_next()
    with fr.Session() as sess:
        assert float(sess.run(nxt)) == 1.0
        with pytest.raises(fr.errors.InvalidArgumentError, match="sqrt"):
            sess.run(nxt)
        assert float(sess.run(nxt)) == 2.0  # TF 2.21
        with pytest.raises(fr.errors.OutOfRangeError):
            sess.run(nxt)


def _fails_on_1_mod_3(x):
    if x % 3 == 1:
        raise ValueError("bad %d" % x)
    return x


def _py(ds):
    return ds.map(lambda x: fr.py_func(_fails_on_1_mod_3, [x], fr.int64))


def test_py_func_raising_in_map_fails_its_element_only_as_tf():
    bad = "InvalidArgumentError"
    # Each literal printed by TF 2.21 for the same pipeline.
    assert _drain(_py(Dataset.range(6))) == [0, bad, 2, 3, bad, 5, "end"]
    # A batch loses the elements it had gathered; the next batch starts afresh...
    assert _drain(_py(Dataset.range(8)).take(9).batch(2)) == [bad, [2, 3], bad, [5, 6], bad, "end"]
    # ... but TF fuses map and batch: a failed element fails its whole batch.
    assert _drain(_py(Dataset.range(8)).batch(2)) == [bad, [2, 3], bad, bad, "end"]
    assert _drain(_py(Dataset.range(6)).padded_batch(2, [])) == [bad, [2, 3], bad, [5], "end"]
    assert _drain(_py(Dataset.range(6)).take(3)) == [0, bad, 2, 3, "end"]
    assert _drain(_py(Dataset.range(3)).repeat(2)) == [0, bad, 2, 0, bad, 2, "end"]
    assert _drain(_py(Dataset.range(3)).cache().repeat(2)) == [0, bad, 2, 0, 2, "end"]
    assert _drain(_py(Dataset.range(3)).enumerate()) == [[0, 0], bad, [2, 2], "end"]
    assert _drain(_py(Dataset.range(3)).batch(1).unbatch()) == [0, bad, 2, "end"]
    zipped = Dataset.zip((_py(Dataset.range(4)), Dataset.range(4)))
    assert _drain(zipped) == [[0, 0], bad, [2, 2], [3, 3], "end"]
    odd = Dataset.range(6).filter(lambda x: fr.py_func(lambda v: v % 3 != 1, [x], fr.bool))
    assert _drain(odd) == [0, 2, 3, 5, "end"]
    pred = Dataset.range(6).filter(lambda x: fr.equal(_fails_on_1_mod_3_tensor(x), x))
    assert _drain(pred) == [0, bad, 2, 3, bad, 5, "end"]


def _fails_on_1_mod_3_tensor(x):
    return fr.py_func(_fails_on_1_mod_3, [x], fr.int64)


def test_monitored_training_session_stops_at_the_end_of_the_data():
    nxt = Dataset.range(5).batch(2).make_one_shot_iterator().get_next()
    fr.train.get_or_create_global_step()
    got = []
    with fr.train.MonitoredTrainingSession() as sess:
        while not sess.should_stop():
            got.append(sess.run(nxt).tolist())
    assert got == [[0, 1], [2, 3], [4]]


def test_iterator_ops_are_named_as_tf():
    ds = Dataset.range(3).map(lambda x: x).batch(2)
    assert ds._variant_tensor.op.type == "BatchDatasetV2"
    it = ds.make_initializable_iterator()
    nxt = it.get_next()
    assert it.initializer.type == "MakeIterator"
    assert nxt.op.name == "IteratorGetNext"
    assert it._iterator_resource.op.name == "Iterator"
