"""Queue ops through sessions: TF1's API and semantics, runs from trio tasks and from
threads sharing one queue, timeouts and cancellation, Session.close, statistics."""

import dataclasses
import logging
import threading

import numpy as np
import pytest
import trio
import trio.testing

import flowrt as fr
from flowrt._core import queues as _core_queues

# --- construction: TF1's names, shapes and return structures ---------------------------


def test_names_shapes_and_dtypes_as_tf1():
    q = fr.FIFOQueue(3, fr.float32, shapes=[[2]])
    assert q.name == "fifo_queue" and q.queue_ref.dtype.name == "resource"
    assert q.dtypes == [fr.float32] and q.shapes[0].as_list() == [2] and q.names is None
    enq = q.enqueue([[1.0, 2.0]])
    assert enq.type == "QueueEnqueueV2" and enq.name == "fifo_queue_enqueue"
    assert enq.inputs[1].name == "fifo_queue_enqueue/component_0:0"
    assert q.enqueue([[1.0, 2.0]]).name == "fifo_queue_enqueue_1"
    assert q.enqueue_many([[[1.0, 2.0]]]).name == "fifo_queue_EnqueueMany"
    d = q.dequeue()
    assert isinstance(d, fr.Tensor) and d.name == "fifo_queue_Dequeue:0"
    assert d.shape.as_list() == [2]
    assert q.dequeue_many(4).shape.as_list() == [4, 2]
    assert q.dequeue_up_to(4).shape.as_list() == [None, 2]
    assert q.close().name == "fifo_queue_Close"
    assert q.size().name == "fifo_queue_Size:0" and q.size().dtype is fr.int32
    assert q.is_closed().name == "fifo_queue_Is_Closed:0"


def test_named_components_and_multi_component_dequeue():
    q = fr.FIFOQueue(3, [fr.int32, fr.float32], names=["a", "b"])
    d = q.dequeue()
    assert set(d) == {"a", "b"} and d["b"].dtype is fr.float32
    with pytest.raises(ValueError, match="You must enqueue a dictionary in a Queue with names"):
        q.enqueue([1, 2.0])
    with pytest.raises(ValueError, match="Keys in dictionary to enqueue do not match"):
        q.enqueue({"a": 1})
    q2 = fr.FIFOQueue(3, [fr.int32, fr.float32])
    assert isinstance(q2.dequeue(), list)


def test_construction_errors():
    q = fr.FIFOQueue(3, fr.float32, shapes=[[2]])
    with pytest.raises(ValueError, match=r"Shapes \(3,\) and \(2,\) are incompatible"):
        q.enqueue([[1.0, 2.0, 3.0]])
    with pytest.raises(ValueError, match="component_0: Tensor conversion requested dtype float32"):
        q.enqueue(fr.placeholder(fr.int32))
    with pytest.raises(ValueError, match="Queue shapes must have the same length as dtypes"):
        fr.FIFOQueue(10, [fr.int32, fr.int32], shapes=[[]])


def test_other_queue_types_as_tf1():
    p = fr.PaddingFIFOQueue(10, [fr.int32], shapes=[[None, 2]])
    assert p.queue_ref.op.type == "PaddingFIFOQueueV2"
    assert p.dequeue_many(3).shape.as_list() == [3, None, 2]
    pr = fr.PriorityQueue(10, [fr.string], shapes=[[]])
    assert pr.dtypes == [fr.int64, fr.string] and len(pr.dequeue()) == 2
    r = fr.RandomShuffleQueue(10, 2, fr.int32, shapes=[[]], seed=3)
    assert r.name == "random_shuffle_queue"
    assert (r.queue_ref.op.get_attr("seed"), r.queue_ref.op.get_attr("seed2")) == (87654321, 3)


def test_shared_random_shuffle_queue_seed_follows_graph_seed_and_name_as_tf():
    def seeds(q):
        return q.queue_ref.op.get_attr("seed"), q.queue_ref.op.get_attr("seed2")

    with fr.Graph().as_default():
        fr.set_random_seed(7)
        fr.constant(1.0)  # an op before the queue: its position does not matter
        shared = fr.RandomShuffleQueue(10, 0, fr.float32, shared_name="shared_q")
        # TF 2.21: (7, 1824587023) = md5("7shared_q") & 0x7FFFFFFF; an op seed wins.
        assert seeds(shared) == (7, 1824587023)
        own = fr.RandomShuffleQueue(10, 0, fr.float32, shared_name="shared_q", seed=3)
        assert seeds(own) == (7, 3)
    with fr.Graph().as_default():
        fr.set_random_seed(7)
        assert seeds(fr.RandomShuffleQueue(10, 0, fr.float32, shared_name="shared_q")) == (
            7,
            1824587023,
        )


# --- running: TF1 semantics ----------------------------------------------------------------


def test_closed_queue_semantics_and_messages():
    q = fr.FIFOQueue(10, fr.float32, shapes=[])
    with fr.Session() as sess:
        assert sess.run(q.enqueue_many([[1.0, 2.0]])) is None
        sess.run(q.close())
        with pytest.raises(
            fr.errors.OutOfRangeError,
            match=r"FIFOQueue 'fifo_queue' is "
            r"closed and has insufficient elements \(requested 3, current "
            r"size 2\)",
        ):
            sess.run(q.dequeue_many(3))
        assert sess.run(q.size()) == 2
        with pytest.raises(fr.errors.CancelledError, match="FIFOQueue 'fifo_queue' is closed."):
            sess.run(q.enqueue(3.0))
        np.testing.assert_array_equal(sess.run(q.dequeue_up_to(5)), [1.0, 2.0])
        with pytest.raises(fr.errors.OutOfRangeError):
            sess.run(q.dequeue_up_to(5))
        with pytest.raises(fr.errors.CancelledError, match="Queue 'fifo_queue' is already closed."):
            sess.run(q.close())
        assert sess.run(q.is_closed())


def test_runtime_shape_check_names_the_queue():
    q = fr.FIFOQueue(3, fr.float32, shapes=[[2]], name="rows")
    p = fr.placeholder(fr.float32)
    with fr.Session() as sess:
        with pytest.raises(
            fr.errors.InvalidArgumentError,
            match=r"Shape mismatch in tuple component 0\. Expected \[2\], got "
            r"\[3\] \(FIFOQueue 'rows'",
        ):
            sess.run(q.enqueue(p), {p: [1.0, 2.0, 3.0]})
        assert sess.run(q.size()) == 0


def test_dequeue_many_needs_shapes():
    q = fr.FIFOQueue(3, fr.int32)
    with fr.Session() as sess:
        with pytest.raises(
            fr.errors.InvalidArgumentError,
            match="FIFOQueue's DequeueMany and DequeueUpTo require the "
            "components to have specified shapes.",
        ):
            sess.run(q.dequeue_many(1))


def test_fed_array_is_copied_on_enqueue():
    q = fr.FIFOQueue(3, fr.float32, shapes=[[2]])
    p = fr.placeholder(fr.float32, [2])
    with fr.Session() as sess:
        a = np.array([1.0, 2.0], np.float32)
        sess.run(q.enqueue(p), {p: a})
        a[:] = 9
        out = sess.run(q.dequeue())
        np.testing.assert_array_equal(out, [1.0, 2.0])
        out[:] = 5  # the fetched value is the caller's own


def test_padding_priority_and_shuffle_queues():
    p = fr.PaddingFIFOQueue(10, [fr.int32], shapes=[[None, 2]])
    pr = fr.PriorityQueue(10, [fr.string], shapes=[[]])
    fr.set_random_seed(1)
    r = fr.RandomShuffleQueue(100, 0, fr.int32, shapes=[], seed=4)
    with fr.Session() as sess:
        sess.run(p.enqueue([[[1, 2]]]))
        sess.run(p.enqueue([[[1, 2], [3, 4], [5, 6]]]))
        np.testing.assert_array_equal(
            sess.run(p.dequeue_many(2)), [[[1, 2], [0, 0], [0, 0]], [[1, 2], [3, 4], [5, 6]]]
        )
        sess.run(pr.enqueue_many([[5, 1, 3], [b"a", b"b", b"c"]]))
        prio, s = sess.run(pr.dequeue_many(3))
        assert list(prio) == [1, 3, 5] and list(s) == [b"b", b"c", b"a"]
        sess.run(r.enqueue_many([list(range(20))]))
        first = list(sess.run(r.dequeue_many(20)))
    with fr.Session() as sess:
        sess.run(r.enqueue_many([list(range(20))]))
        assert list(sess.run(r.dequeue_many(20))) == first  # seeded: reproducible
    assert sorted(first) == list(range(20)) and first != list(range(20))


@pytest.mark.parametrize("kind", ["fifo", "padding", "priority", "shuffle"])
def test_string_batches_spanning_many_enqueues_hold_bytes(kind):
    # A batch gathered from more than 8 separate enqueues is stacked element by element:
    # each string must stay bytes (not a 0-d object array) for every queue type.
    x = fr.placeholder(fr.string, [])
    if kind == "priority":
        q = fr.PriorityQueue(40, [fr.string], shapes=[[]])
        enq = q.enqueue((fr.constant(1, fr.int64), x))
    elif kind == "padding":
        q = fr.PaddingFIFOQueue(40, fr.string, shapes=[[]])
        enq = q.enqueue(x)
    elif kind == "shuffle":
        q = fr.RandomShuffleQueue(40, 0, fr.string, shapes=[], seed=1)
        enq = q.enqueue(x)
    else:
        q = fr.FIFOQueue(40, fr.string, shapes=[])
        enq = q.enqueue(x)
    names = [b"file%d.csv" % i for i in range(24)]
    with fr.Session() as sess:
        for name in names:
            sess.run(enq, {x: name})
        many = sess.run(q.dequeue_many(10))
        sess.run(q.close())
        up_to = sess.run(q.dequeue_up_to(20))  # the 14 left
    many, up_to = (many[1], up_to[1]) if kind == "priority" else (many, up_to)
    got = list(many) + list(up_to)
    assert all(type(v) is bytes for v in got), [type(v) for v in got]
    assert sorted(got) == sorted(names)


def test_shared_name_shares_one_queue_per_session():
    a = fr.FIFOQueue(5, fr.int32, shapes=[], shared_name="shared")
    b = fr.FIFOQueue(5, fr.int32, shapes=[], shared_name="shared")
    with fr.Session() as sess:
        sess.run(a.enqueue(7))
        assert sess.run(b.dequeue()) == 7
    with fr.Session() as sess:
        assert sess.run(b.size()) == 0  # a new session has its own


def test_statistics_record():
    q = fr.FIFOQueue(4, fr.int32, shapes=[])
    with fr.Session() as sess:
        sess.run(q.enqueue_many([[1, 2]]))
        s = q.statistics(sess)
        assert (s.size, s.capacity, s.closed, s.waiting_enqueuers, s.waiting_dequeuers) == (
            2,
            4,
            False,
            0,
            0,
        )
        with pytest.raises(dataclasses.FrozenInstanceError):
            s.size = 0


# --- concurrency: trio tasks ----------------------------------------------------------


async def test_producer_and_consumer_aruns_share_a_queue():
    q = fr.FIFOQueue(2, fr.int32, shapes=[])
    p = fr.placeholder(fr.int32, [])
    enq, deq = q.enqueue(p), q.dequeue()
    got = []
    async with fr.Session() as sess:

        async def produce():
            for k in range(20):
                await sess.arun(enq, {p: k})

        with trio.fail_after(5):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(produce)
                for _ in range(20):
                    got.append(int(await sess.arun(deq)))
    assert got == list(range(20))


async def test_blocked_dequeue_blocks_only_its_run():
    q = fr.FIFOQueue(2, fr.int32, shapes=[])
    deq = q.dequeue()
    x = fr.constant(3) * 2
    async with fr.Session() as sess:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(sess.arun, deq)
            await trio.testing.wait_all_tasks_blocked()
            assert q.statistics(sess).waiting_dequeuers == 1
            assert await sess.arun(x) == 6  # other runs go on
            await sess.arun(q.enqueue(5))
    assert q.statistics(sess).waiting_dequeuers == 0


async def test_timed_out_dequeue_loses_nothing_and_queue_keeps_working(autojump_clock):
    q = fr.FIFOQueue(4, fr.int32, shapes=[])
    deq, deq_many = q.dequeue(), q.dequeue_many(3)
    async with fr.Session() as sess:
        await sess.arun(q.enqueue_many([[1, 2]]))
        opts = fr.RunOptions(timeout_in_ms=500)
        with pytest.raises(fr.errors.DeadlineExceededError, match="timeout_in_ms"):
            await sess.arun(deq_many, options=opts)
        assert await sess.arun(q.size()) == 2
        await sess.arun(q.enqueue(3))
        assert list(await sess.arun(deq_many, options=opts)) == [1, 2, 3]
        with pytest.raises(fr.errors.DeadlineExceededError):
            await sess.arun(deq, options=opts)
        await sess.arun(q.enqueue(4))
        assert await sess.arun(deq) == 4


async def test_timed_out_enqueue_many_leaves_nothing(autojump_clock):
    q = fr.FIFOQueue(4, fr.int32, shapes=[])
    async with fr.Session() as sess:
        await sess.arun(q.enqueue_many([[1, 2, 3]]))
        with pytest.raises(fr.errors.DeadlineExceededError):
            await sess.arun(q.enqueue_many([[4, 5]]), options=fr.RunOptions(timeout_in_ms=100))
        assert await sess.arun(q.size()) == 3
        assert list(await sess.arun(q.dequeue_many(3))) == [1, 2, 3]


async def test_cancelled_arun_takes_nothing(autojump_clock):
    q = fr.FIFOQueue(4, fr.int32, shapes=[])
    deq_many = q.dequeue_many(2)
    async with fr.Session() as sess:
        await sess.arun(q.enqueue(1))
        with trio.move_on_after(1):
            await sess.arun(deq_many)
        await sess.arun(q.enqueue(2))
        assert list(await sess.arun(deq_many)) == [1, 2]


async def test_close_wakes_blocked_aruns_at_once(autojump_clock):
    q = fr.FIFOQueue(1, fr.int32, shapes=[])
    errors_seen = []

    async def run(op):
        try:
            await sess.arun(op)
        except fr.errors.OpError as e:
            errors_seen.append(type(e).__name__)

    async with fr.Session() as sess:
        await sess.arun(q.enqueue(0))
        async with trio.open_nursery() as nursery:
            for _ in range(2):
                nursery.start_soon(run, q.enqueue(1))
            await trio.testing.wait_all_tasks_blocked()
            t0 = trio.current_time()
            await sess.arun(q.close(cancel_pending_enqueues=True))
        assert trio.current_time() == t0
        assert errors_seen == ["CancelledError", "CancelledError"]
        assert await sess.arun(q.dequeue()) == 0
        async with trio.open_nursery() as nursery:
            for _ in range(3):
                nursery.start_soon(run, q.dequeue())
            await trio.testing.wait_all_tasks_blocked()
    assert errors_seen[2:] == ["OutOfRangeError"] * 3


async def test_session_close_cancels_runs_blocked_on_queues():
    q = fr.FIFOQueue(1, fr.int32, shapes=[])
    outcomes = []
    sess = fr.Session()

    async def run(op):
        try:
            await sess.arun(op)
        except fr.errors.CancelledError as e:
            outcomes.append(str(e))

    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(run, q.dequeue())
            nursery.start_soon(run, q.dequeue_many(1))
            await trio.testing.wait_all_tasks_blocked()
            sess.close()
    assert len(outcomes) == 2 and all("closed" in o for o in outcomes)


async def test_stall_warning_for_a_run_nothing_feeds(autojump_clock, caplog, monkeypatch):
    monkeypatch.setattr(_core_queues, "STALL_WARNING_SECONDS", 10.0)
    q = fr.FIFOQueue(8, fr.int32, shapes=[], name="input_queue")
    deq = q.dequeue()
    async with fr.Session() as sess:
        with caplog.at_level(logging.WARNING, logger="flowrt"):
            with trio.move_on_after(60):
                await sess.arun(deq)
    (rec,) = [r for r in caplog.records if r.name == "flowrt"]
    msg = rec.getMessage()
    assert "FIFOQueue 'input_queue' (size 0, capacity 8)" in msg
    assert "QueueDequeueV2 op 'input_queue_Dequeue'" in msg
    assert "async with fr.train.queue_runners(sess)" in msg  # the trio form, for a task


def test_stall_warning_for_a_thread_names_start_queue_runners(caplog, monkeypatch):
    monkeypatch.setattr(_core_queues, "STALL_WARNING_SECONDS", 0.05)
    q = fr.FIFOQueue(8, fr.int32, shapes=[], name="input_queue")
    deq = q.dequeue()
    with fr.Session() as sess:
        with caplog.at_level(logging.WARNING, logger="flowrt"):
            with pytest.raises(fr.errors.DeadlineExceededError, match="input_queue"):
                sess.run(deq, options=fr.RunOptions(timeout_in_ms=300))
    (rec,) = [r for r in caplog.records if r.name == "flowrt"]
    assert "fr.train.start_queue_runners(sess, coord)" in rec.getMessage()


# --- concurrency: threads through sess.run ---------------------------------------------


def test_producer_thread_and_consumer_thread_share_a_queue():
    q = fr.FIFOQueue(2, fr.int32, shapes=[])
    p = fr.placeholder(fr.int32, [])
    enq, deq = q.enqueue(p), q.dequeue_many(2)
    got, errs = [], []
    with fr.Session() as sess:

        def produce(base):
            try:
                for k in range(50):
                    sess.run(enq, {p: base + k})
            except Exception as e:
                errs.append(e)

        threads = [threading.Thread(target=produce, args=(b,)) for b in (0, 1000)]
        for t in threads:
            t.start()
        for _ in range(50):
            got.extend(int(v) for v in sess.run(deq))
        for t in threads:
            t.join(10)
        assert not any(t.is_alive() for t in threads) and not errs
    assert sorted(got) == list(range(50)) + list(range(1000, 1050))
    for base in (0, 1000):  # each producer's elements come out in its order
        mine = [v for v in got if base <= v < base + 1000]
        assert mine == sorted(mine)


def test_session_close_ends_thread_blocked_in_run():
    q = fr.FIFOQueue(1, fr.int32, shapes=[])
    deq = q.dequeue()
    sess = fr.Session()
    sess.run(q.size())
    box = []
    started = threading.Event()

    def consume():
        started.set()
        try:
            sess.run(deq)
        except Exception as e:
            box.append(e)

    t = threading.Thread(target=consume)
    t.start()
    started.wait(5)
    # wait until the run is parked on the queue
    for _ in range(500):
        res = sess.resources.items()
        if res and any(
            getattr(v, "statistics", None) and v.statistics().waiting_dequeuers for _, v in res
        ):
            break
        threading.Event().wait(0.01)
    sess.close()
    t.join(10)
    assert not t.is_alive()
    assert len(box) == 1 and isinstance(box[0], fr.errors.CancelledError)


def test_thread_timeout_loses_nothing():
    q = fr.FIFOQueue(2, fr.int32, shapes=[])
    with fr.Session() as sess:
        sess.run(q.enqueue(1))
        with pytest.raises(fr.errors.DeadlineExceededError):
            sess.run(q.dequeue_many(2), options=fr.RunOptions(timeout_in_ms=50))
        sess.run(q.enqueue(2))
        assert list(sess.run(q.dequeue_many(2))) == [1, 2]


async def test_arun_cancelled_right_after_its_dequeue_was_served_loses_nothing():
    # The element is handed to the blocked run and the run is cancelled before its task
    # runs again: the run raises Cancelled and the element stays in the queue.
    from flowrt.ops.data_flow_ops import queue_of

    q = fr.FIFOQueue(4, fr.int32, shapes=[])
    deq = q.dequeue()
    got = []
    async with fr.Session() as sess:
        await sess.arun(q.size())
        core = queue_of(sess.resources, q.queue_ref.op)
        async with trio.open_nursery() as nursery:
            cs = trio.CancelScope()

            async def consumer():
                with cs:
                    got.append(await sess.arun(deq))

            nursery.start_soon(consumer)
            await trio.testing.wait_all_tasks_blocked()
            core.put_nowait([(np.int32(1),)])
            cs.cancel()
        assert got == [] and await sess.arun(q.size()) == 1
        assert await sess.arun(deq) == 1


async def test_enqueue_many_copies_once_and_never_aliases_the_fed_batch(monkeypatch):
    # A RandomShuffleQueue copies rows in as they enter: a batch that enters at once is
    # not copied first (no _frozen), one that must wait is (the run still holds it), and
    # a FIFOQueue, which keeps the arrays it is given, always copies. Either way, writing
    # to the fed array afterwards changes nothing queued.
    from flowrt.ops import data_flow_ops

    copies = []
    real = data_flow_ops._frozen
    monkeypatch.setattr(data_flow_ops, "_frozen", lambda v: copies.append(v.shape) or real(v))
    x = fr.placeholder(fr.float32, [None, 2])
    shuffled = fr.RandomShuffleQueue(4, 0, fr.float32, shapes=[[2]], seed=1)
    fifo = fr.FIFOQueue(4, fr.float32, shapes=[[2]])
    batch = np.arange(6, dtype=np.float32).reshape(3, 2)
    async with fr.Session() as sess:
        await sess.arun(shuffled.enqueue_many([x]), {x: batch})
        assert copies == []
        await sess.arun(fifo.enqueue_many([x]), {x: batch})
        assert copies == [(3, 2)]
        batch += 100
        got = await sess.arun(shuffled.dequeue_many(3))
        assert sorted(got.tolist()) == [[0, 1], [2, 3], [4, 5]]
        assert (await sess.arun(fifo.dequeue_many(3))).tolist() == [[0, 1], [2, 3], [4, 5]]

        await sess.arun(shuffled.enqueue_many([x]), {x: batch[:2]})
        copies.clear()
        with trio.fail_after(5):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(sess.arun, shuffled.enqueue_many([x]), {x: batch})
                await trio.testing.wait_all_tasks_blocked()
                assert shuffled.statistics(sess).waiting_enqueuers == 1  # no room for 3
                assert copies == [(3, 2)]
                got = await sess.arun(shuffled.dequeue_many(2))
        assert sorted(got.tolist()) == [[100, 101], [102, 103]]
        assert sorted((await sess.arun(shuffled.dequeue_many(3))).tolist()) == batch.tolist()


async def test_cancelled_pending_enqueue_gives_its_dequeued_elements_back(autojump_clock):
    # Runners of q_out.enqueue(q_in.dequeue()) wait on a full q_out; closing it with
    # cancel_pending_enqueues fails them with CancelledError, and the elements they
    # took from q_in are back in q_in, in order, none lost.
    q_in = fr.FIFOQueue(10, fr.int32, shapes=[])
    q_out = fr.FIFOQueue(1, fr.int32, shapes=[])
    move = q_out.enqueue(q_in.dequeue())
    errors_seen = []

    async def run():
        try:
            await sess.arun(move)
        except fr.errors.OpError as e:
            errors_seen.append(type(e).__name__)

    async with fr.Session() as sess:
        await sess.arun(q_in.enqueue_many([[1, 2, 3, 4]]))
        await sess.arun(move)  # fills q_out with 1
        async with trio.open_nursery() as nursery:
            for _ in range(2):
                nursery.start_soon(run)
            await trio.testing.wait_all_tasks_blocked()
            await sess.arun(q_out.close(cancel_pending_enqueues=True))
        assert errors_seen == ["CancelledError", "CancelledError"]
        assert await sess.arun(q_in.size()) == 3
        assert sorted(await sess.arun(q_in.dequeue_many(3))) == [2, 3, 4]
