"""QueueRunner with threads and as trio tasks; add/start_queue_runners."""

import pathlib
import runpy
import time

import numpy as np
import pytest
import trio

import flowrt as fr

JOIN = 5.0


def _join_all(threads):
    for t in threads:
        t.join(JOIN)
    assert not any(t.is_alive() for t in threads), [t.name for t in threads if t.is_alive()]


def _wait_until(cond, timeout=JOIN):
    """Waits for a state another thread reaches (a run-time condition, not a sleep)."""
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, "condition not reached"
        time.sleep(0.001)


def _counter_queue(capacity=4):
    counter = fr.Variable(0, name="counter")
    inc = fr.assign_add(counter, 1)
    q = fr.FIFOQueue(capacity, fr.int32, shapes=[])
    return q, q.enqueue(inc), counter


# --- construction ----------------------------------------------------------------------


def test_constructor_defaults_and_properties():
    q, enq, _ = _counter_queue()
    qr = fr.train.QueueRunner(q, [enq])
    assert qr.queue is q and qr.enqueue_ops == [enq]
    assert qr.close_op.type.startswith("QueueClose") and qr.cancel_op is not qr.close_op
    assert qr.cancel_op.get_attr("cancel_pending_enqueues") is True
    assert qr.close_op.get_attr("cancel_pending_enqueues") is False
    assert qr.queue_closed_exception_types == (fr.errors.OutOfRangeError,)
    assert qr.name == q.name
    assert qr.exceptions_raised == []


def test_constructor_errors():
    q, enq, _ = _counter_queue()
    with pytest.raises(ValueError, match="^Must provide queue and enqueue_ops.$"):
        fr.train.QueueRunner(q, [])
    with pytest.raises(ValueError, match="^Must provide queue and enqueue_ops.$"):
        fr.train.QueueRunner(None, [enq])
    with pytest.raises(TypeError, match="must be a tuple of fr.error types"):
        fr.train.QueueRunner(q, [enq], queue_closed_exception_types=[fr.errors.OpError])
    with pytest.raises(TypeError, match="must be a tuple of fr.error types"):
        fr.train.QueueRunner(q, [enq], queue_closed_exception_types=(ValueError,))
    qr = fr.train.QueueRunner(
        q, [enq], queue_closed_exception_types=(fr.errors.OutOfRangeError, fr.errors.CancelledError)
    )
    assert qr.queue_closed_exception_types == (fr.errors.OutOfRangeError, fr.errors.CancelledError)


def test_add_queue_runner_and_module_alias():
    q, enq, _ = _counter_queue()
    qr = fr.train.QueueRunner(q, [enq])
    fr.train.add_queue_runner(qr)
    fr.train.queue_runner.add_queue_runner(qr, collection="mine")
    assert fr.get_collection(fr.GraphKeys.QUEUE_RUNNERS) == [qr]
    assert fr.get_collection("mine") == [qr]
    assert fr.train.queue_runner.QueueRunner is fr.train.QueueRunner


# --- threads -----------------------------------------------------------------------------


def test_create_threads_names_and_no_start():
    q, enq, _ = _counter_queue()
    qr = fr.train.QueueRunner(q, [enq, enq])
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        threads = qr.create_threads(sess)
        assert len(threads) == 2 and not any(t.is_alive() for t in threads)
        assert threads[0].name == "QueueRunnerThread-%s-%s" % (q.name, enq.name)
        assert not threads[0].daemon
        coord = fr.train.Coordinator()
        # Threads already created for this session and not finished: none are made.
        assert qr.create_threads(sess, coord=coord) == []
        sess.run(q.close())
        # Without a coordinator an error ends the loop by raising in its thread; run the
        # thread's body here to catch it: an enqueue on a closed queue is cancelled.
        with pytest.raises(fr.errors.CancelledError):
            threads[0].run()
        assert isinstance(qr.exceptions_raised[0], fr.errors.CancelledError)


def test_runner_fills_queue_until_request_stop_then_join_is_clean():
    q, enq, _ = _counter_queue(capacity=4)
    qr = fr.train.QueueRunner(q, [enq])
    fr.train.add_queue_runner(qr)
    batch = q.dequeue_many(3)
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        coord = fr.train.Coordinator()
        threads = fr.train.start_queue_runners(sess=sess, coord=coord)
        assert len(threads) == 2 and all(t.daemon for t in threads)
        got = [sess.run(batch) for _ in range(4)]
        np.testing.assert_array_equal(np.concatenate(got), np.arange(1, 13))
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=JOIN)
        _join_all(threads)
        assert sess.run(q.is_closed())


def test_request_stop_ends_a_runner_blocked_on_a_full_queue():
    """Without the watcher's cancel_op the enqueue stays blocked and join times out."""
    q, enq, _ = _counter_queue(capacity=2)
    qr = fr.train.QueueRunner(q, [enq])
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        coord = fr.train.Coordinator()
        threads = qr.create_threads(sess, coord=coord, start=True)
        _wait_until(lambda: sess.run(q.size()) == 2)  # the next enqueue blocks
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=JOIN)  # no RuntimeError, no error
        _join_all(threads)
        assert sess.run(q.is_closed())
        assert sess.run(q.size()) == 2  # cancel_pending_enqueues dropped the third


def test_join_reraises_a_runner_exception():
    p = fr.placeholder(fr.int32, [])
    q = fr.FIFOQueue(4, fr.int32, shapes=[])
    qr = fr.train.QueueRunner(q, [q.enqueue(p)])  # fails: p is never fed
    with fr.Session() as sess:
        coord = fr.train.Coordinator()
        threads = qr.create_threads(sess, coord=coord, start=True)
        with pytest.raises(fr.errors.InvalidArgumentError, match="placeholder"):
            coord.join(threads, stop_grace_period_secs=JOIN)
        _join_all(threads)
        assert coord.should_stop()
        assert qr.exceptions_raised == []  # with a coordinator, it went there


def test_runner_exception_without_coordinator_is_kept_and_raised_in_thread():
    p = fr.placeholder(fr.int32, [])
    q = fr.FIFOQueue(4, fr.int32, shapes=[])
    qr = fr.train.QueueRunner(q, [q.enqueue(p)])
    with fr.Session() as sess:
        threads = qr.create_threads(sess)
        with pytest.raises(fr.errors.InvalidArgumentError):
            threads[0].run()  # the thread's body, here, to catch what it raises
        assert len(qr.exceptions_raised) == 1
        assert isinstance(qr.exceptions_raised[0], fr.errors.InvalidArgumentError)


def test_exhausted_input_ends_runners_quietly_and_last_one_closes_the_queue():
    src = fr.FIFOQueue(100, fr.int32, shapes=[])
    fill = src.enqueue_many([np.arange(10, dtype=np.int32)])
    dst = fr.FIFOQueue(3, fr.int32, shapes=[])
    move = dst.enqueue(src.dequeue() * 10)
    qr = fr.train.QueueRunner(dst, [move, move])  # two threads
    got_one = dst.dequeue()
    with fr.Session() as sess:
        sess.run(fill)
        sess.run(src.close())
        coord = fr.train.Coordinator()
        threads = qr.create_threads(sess, coord=coord, start=True)
        got = []
        with pytest.raises(fr.errors.OutOfRangeError):
            while True:
                got.append(sess.run(got_one))
        assert sorted(got) == list(range(0, 100, 10))
        assert not coord.should_stop()  # an exhausted input is not a stop request
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=JOIN)
        _join_all(threads)


def test_closing_the_session_ends_runners_quietly():
    q, enq, _ = _counter_queue(capacity=2)
    qr = fr.train.QueueRunner(q, [enq])
    sess = fr.Session()
    sess.run(fr.global_variables_initializer())
    threads = qr.create_threads(sess, start=True)  # no coordinator: errors would raise
    _wait_until(lambda: sess.run(q.size()) == 2)
    sess.close()
    _join_all(threads)  # an exception in the thread would fail the test
    assert qr.exceptions_raised == []


def test_start_queue_runners_uses_default_session_and_checks_it():
    q, enq, _ = _counter_queue()
    fr.train.add_queue_runner(fr.train.QueueRunner(q, [enq]))
    with pytest.raises(ValueError, match="No default session is registered"):
        fr.train.start_queue_runners()
    with pytest.raises(TypeError, match="sess must be a `fr.Session` object"):
        fr.train.start_queue_runners(sess=object())
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        coord = fr.train.Coordinator()
        threads = fr.train.start_queue_runners(coord=coord, start=False)
        assert len(threads) == 2 and not any(t.is_alive() for t in threads)
        assert fr.train.start_queue_runners(sess, collection="other") == []
        for t in threads:
            t.start()
        assert sess.run(q.dequeue()) == 1
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=JOIN)


# --- trio tasks --------------------------------------------------------------------------


async def test_async_runners_fill_queue_and_stop_on_block_exit():
    q, enq, _ = _counter_queue(capacity=2)
    fr.train.add_queue_runner(fr.train.QueueRunner(q, [enq, enq]))
    deq = q.dequeue()
    with trio.fail_after(JOIN):
        async with fr.Session() as sess:
            await sess.arun(fr.global_variables_initializer())
            async with fr.train.queue_runners(sess) as runners:
                got = sorted([await sess.arun(deq) for _ in range(10)])
                assert got == list(range(1, 11)) or len(set(got)) == 10
                assert runners.running == 2
            # Both loops were blocked on the full queue; leaving the block closed it
            # (cancelling the pending enqueues) and ended them.
            assert runners.running == 0
            assert await sess.arun(q.is_closed())


async def test_async_runner_error_propagates_unwrapped_and_cancels_the_block():
    p = fr.placeholder(fr.int32, [])
    q = fr.FIFOQueue(4, fr.int32, shapes=[])
    fr.train.add_queue_runner(fr.train.QueueRunner(q, [q.enqueue(p)]))
    deq = q.dequeue()
    with trio.fail_after(JOIN):
        async with fr.Session() as sess:
            with pytest.raises(fr.errors.InvalidArgumentError, match="placeholder"):
                async with fr.train.queue_runners(sess):
                    await sess.arun(deq)  # blocks forever unless the error cancels it
                    pytest.fail("the block should have been cancelled")


async def test_async_body_exception_propagates_unwrapped():
    q, enq, _ = _counter_queue()
    fr.train.add_queue_runner(fr.train.QueueRunner(q, [enq]))
    with trio.fail_after(JOIN):
        async with fr.Session() as sess:
            await sess.arun(fr.global_variables_initializer())
            with pytest.raises(KeyError, match="mine"):
                async with fr.train.queue_runners(sess):
                    raise KeyError("mine")


async def test_async_exhausted_input_closes_queue_for_consumers():
    src = fr.FIFOQueue(100, fr.int32, shapes=[])
    fill = src.enqueue_many([np.arange(6, dtype=np.int32)])
    dst = fr.FIFOQueue(2, fr.int32, shapes=[])
    move = dst.enqueue(src.dequeue())
    fr.train.add_queue_runner(fr.train.QueueRunner(dst, [move, move]))
    deq = dst.dequeue()
    with trio.fail_after(JOIN):
        async with fr.Session() as sess:
            await sess.arun(fill)
            await sess.arun(src.close())
            async with fr.train.queue_runners(sess) as runners:
                got = []
                with pytest.raises(fr.errors.OutOfRangeError):
                    while True:
                        got.append(await sess.arun(deq))
                assert sorted(got) == list(range(6))
                assert runners.running == 0


async def test_start_queue_runners_async_in_own_nursery():
    q, enq, _ = _counter_queue(capacity=1)
    fr.train.add_queue_runner(fr.train.QueueRunner(q, [enq]))
    deq = q.dequeue()
    with pytest.raises(TypeError, match="needs the nursery"):
        await fr.train.start_queue_runners_async(fr.Session())
    with trio.fail_after(JOIN):
        async with fr.Session() as sess:
            await sess.arun(fr.global_variables_initializer())
            async with trio.open_nursery() as nursery:
                tasks = await fr.train.start_queue_runners_async(sess, nursery)
                assert [await sess.arun(deq) for _ in range(3)] == [1, 2, 3]
                await trio.testing.wait_all_tasks_blocked()
                await tasks.stop()
                assert tasks.running == 0


# --- examples ----------------------------------------------------------------------------

_EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


def test_example_producer_consumer():
    main = runpy.run_path(str(_EXAMPLES / "producer_consumer.py"))["main"]
    assert main(steps=5) == sum(k * k for k in range(1, 16))


async def test_example_async_producer_consumer():
    main = runpy.run_path(str(_EXAMPLES / "async_producer_consumer.py"))["main"]
    await main()


# --- QueueRunnerDef ----------------------------------------------------------------------


def test_to_proto_from_proto_round_trip_and_run():
    with fr.name_scope("input"):
        q = fr.FIFOQueue(4, fr.float32, shapes=[[]], name="q")
        enq = q.enqueue(2.0)
        qr = fr.train.QueueRunner(
            q,
            [enq],
            queue_closed_exception_types=(fr.errors.OutOfRangeError, fr.errors.CancelledError),
        )
    d = qr.to_proto()
    assert isinstance(d, fr.protos.QueueRunnerDef)
    assert (d.queue_name, list(d.enqueue_op_name)) == ("input/q", ["input/q_enqueue"])
    assert (d.close_op_name, d.cancel_op_name) == (qr.close_op.name, qr.cancel_op.name)
    assert list(d.queue_closed_exception_types) == [11, 1]  # OUT_OF_RANGE, CANCELLED
    stripped = qr.to_proto(export_scope="input")
    assert stripped.queue_name == "q" and stripped.enqueue_op_name == ["q_enqueue"]
    assert qr.to_proto(export_scope="other") is None
    back = fr.train.QueueRunner.from_proto(
        fr.protos.QueueRunnerDef.FromString(d.SerializeToString())
    )
    assert back.queue is q.queue_ref.op and back.name == "input/q"
    assert back.enqueue_ops == [enq] and back.cancel_op is qr.cancel_op
    assert back.queue_closed_exception_types == (
        fr.errors.OutOfRangeError,
        fr.errors.CancelledError,
    )
    scoped = fr.train.QueueRunner(queue_runner_def=stripped, import_scope="input")
    assert scoped.enqueue_ops == [enq]
    with fr.Session() as sess:
        coord = fr.train.Coordinator()
        threads = back.create_threads(sess, coord, start=True)
        assert sess.run(q.dequeue_many(3)).tolist() == [2.0, 2.0, 2.0]
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=JOIN)


def test_from_proto_defaults_and_conflicts():
    q = fr.FIFOQueue(4, fr.float32, name="q2")
    d = fr.train.QueueRunner(q, [q.enqueue(1.0)]).to_proto()
    del d.queue_closed_exception_types[:]
    assert fr.train.QueueRunner.from_proto(d).queue_closed_exception_types == (
        fr.errors.OutOfRangeError,
    )
    with pytest.raises(ValueError, match="mutually exclusive"):
        fr.train.QueueRunner(q, [q.enqueue(1.0)], queue_runner_def=d)


def test_queue_runner_def_is_wire_compatible_with_tensorflow():
    pb = pytest.importorskip("tensorflow.core.protobuf.queue_runner_pb2")
    q = fr.FIFOQueue(4, fr.float32, name="q3")
    d = fr.train.QueueRunner(q, [q.enqueue(1.0)]).to_proto()
    theirs = pb.QueueRunnerDef.FromString(d.SerializeToString())
    assert theirs.queue_name == "q3" and list(theirs.queue_closed_exception_types) == [11]
    assert fr.protos.QueueRunnerDef.FromString(theirs.SerializeToString()) == d
