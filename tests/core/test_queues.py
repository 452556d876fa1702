"""The queue state machines on trio, without a graph: order, atomicity, cancellation,
closing, stall warnings, statistics."""

import dataclasses
import logging

import pytest
import trio
import trio.testing
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flowrt import errors
from flowrt._core import queues
from flowrt._core.queues import PriorityQueue, Queue, RandomShuffleQueue


def els(*xs):
    return [(x,) for x in xs]


def vals(elems):
    return [e[0] for e in elems]


async def test_fifo_order_and_nowait_twins():
    q = Queue("q", 3)
    q.put_nowait(els(1, 2))
    await q.put(els(3))
    with pytest.raises(trio.WouldBlock):
        q.put_nowait(els(4))
    assert vals(q.get_nowait(2)) == [1, 2]
    assert vals(await q.get(1)) == [3]
    with pytest.raises(trio.WouldBlock):
        q.get_nowait(1)


async def test_blocked_get_is_woken_by_put():
    q = Queue("q", 2)
    got = []

    async def consumer():
        got.extend(vals(await q.get(1)))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(consumer)
        await trio.testing.wait_all_tasks_blocked()
        assert q.statistics().waiting_dequeuers == 1
        await q.put(els(7))
    assert got == [7]
    assert q.statistics() == queues.QueueStatistics("q", 0, 2, False, 0, 0)


def test_statistics_is_frozen():
    s = Queue("q", 2).statistics()
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.size = 3


async def test_cancelled_get_takes_nothing_and_queue_keeps_working():
    q = Queue("q", 4)
    async with trio.open_nursery() as nursery:
        cs = trio.CancelScope()

        async def consumer():
            with cs:
                await q.get(2)

        nursery.start_soon(consumer)
        await trio.testing.wait_all_tasks_blocked()
        q.put_nowait(els(1))  # not enough for get(2): it keeps waiting
        cs.cancel()
    assert q.statistics().waiting_dequeuers == 0
    assert len(q) == 1
    q.put_nowait(els(2))
    assert vals(await q.get(2)) == [1, 2]


async def test_get_cancelled_between_grant_and_wakeup_gives_elements_back():
    # The put hands the element to the blocked getter, and the getter's run is cancelled
    # before it runs again: the element must stay in the queue, in order.
    q = Queue("q", 4)
    result = []
    async with trio.open_nursery() as nursery:
        cs = trio.CancelScope()

        async def consumer():
            with cs:
                result.append(await q.get(1))

        nursery.start_soon(consumer)
        await trio.testing.wait_all_tasks_blocked()
        q.put_nowait(els(1, 2))  # grants 1 to the consumer ...
        cs.cancel()  # ... which is cancelled before it confirms
    assert result == []
    assert vals(q.get_nowait(2)) == [1, 2]


async def test_put_cancelled_between_grant_and_wakeup_leaves_nothing():
    q = Queue("q", 1)
    q.put_nowait(els(0))
    async with trio.open_nursery() as nursery:
        cs = trio.CancelScope()

        async def producer():
            with cs:
                await q.put(els(1))

        nursery.start_soon(producer)
        await trio.testing.wait_all_tasks_blocked()
        assert vals(q.get_nowait(1)) == [0]  # grants the room to the producer ...
        cs.cancel()  # ... which is cancelled before it commits
    assert len(q) == 0
    q.put_nowait(els(2))
    assert vals(q.get_nowait(1)) == [2]


async def test_batch_that_fits_enters_at_once_and_cancelled_leaves_nothing():
    q = Queue("q", 4)
    q.put_nowait(els(0, 0))
    with trio.move_on_after(1):
        await q.put(els(1, 2, 3))  # needs 3 slots, only 2 free: waits, enters nothing
    assert len(q) == 2
    assert q.statistics().waiting_enqueuers == 0
    q.get_nowait(2)
    await q.put(els(1, 2, 3))
    assert vals(q.get_nowait(3)) == [1, 2, 3]


async def test_batch_larger_than_capacity_streams_contiguously():
    q = Queue("q", 2)
    got = []

    async def big():
        await q.put(els(*range(6)))

    async def small():
        await q.put(els(100))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(big)
        await trio.testing.wait_all_tasks_blocked()
        nursery.start_soon(small)
        await trio.testing.wait_all_tasks_blocked()
        assert q.statistics().waiting_enqueuers == 2
        for _ in range(7):
            got.extend(vals(await q.get(1)))
    assert got == [0, 1, 2, 3, 4, 5, 100]


async def test_get_many_is_atomic_and_cancelled_takes_nothing():
    q = Queue("q", 10)
    q.put_nowait(els(1, 2, 3))
    with trio.move_on_after(1):
        await q.get(5)
    assert len(q) == 3
    assert vals(q.get_nowait(3)) == [1, 2, 3]


async def test_get_more_than_capacity_gathers_and_gives_back_in_order():
    q = Queue("q", 2)
    async with trio.open_nursery() as nursery:
        cs = trio.CancelScope()

        async def consumer():
            with cs:
                await q.get(5)

        nursery.start_soon(consumer)
        await q.put(els(1, 2))
        await q.put(els(3, 4))
        await trio.testing.wait_all_tasks_blocked()
        cs.cancel()
    assert vals(q.get_nowait(2)) == [1, 2]
    assert vals(q.get_nowait(2)) == [3, 4]


async def test_full_queue_batch_put_and_batch_get_do_not_deadlock():
    # 3 of 4 slots used; get(4) needs one more, put of 2 needs two slots.
    q = Queue("q", 4)
    q.put_nowait(els(1, 2, 3))
    got = []
    with trio.fail_after(1):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(q.put, els(4, 5))

            async def consumer():
                got.extend(vals(await q.get(4)))

            nursery.start_soon(consumer)
    assert got == [1, 2, 3, 4]
    assert vals(q.get_nowait(1)) == [5]


async def test_close_wakes_every_dequeuer_at_once(autojump_clock):
    q = Queue("q", 4)
    q.put_nowait(els(1))
    outcomes = {}

    async def consumer(n, up_to):
        key = len(outcomes)
        outcomes[key] = "waiting"
        try:
            outcomes[key] = vals(await q.get(n, up_to=up_to))
        except errors.OutOfRangeError as e:
            outcomes[key] = type(e).__name__

    async with trio.open_nursery() as nursery:
        nursery.start_soon(consumer, 3, False)
        await trio.testing.wait_all_tasks_blocked()
        nursery.start_soon(consumer, 3, True)
        await trio.testing.wait_all_tasks_blocked()
        nursery.start_soon(consumer, 1, False)
        await trio.testing.wait_all_tasks_blocked()
        assert q.statistics().waiting_dequeuers == 3
        t0 = trio.current_time()
        q.close()
    assert trio.current_time() == t0
    # get(3) fails and leaves the element; up_to(3) takes it; the last finds none.
    # (Keyed by consumer: trio may run the woken tasks in either order.)
    assert outcomes == {0: "OutOfRangeError", 1: [1], 2: "OutOfRangeError"}


async def test_close_cancel_pending_enqueues_wakes_every_enqueuer(autojump_clock):
    q = Queue("q", 1)
    q.put_nowait(els(0))
    outcomes = []

    async def producer(x):
        try:
            await q.put(els(x))
            outcomes.append("ok")
        except errors.CancelledError as e:
            outcomes.append(str(e))

    async with trio.open_nursery() as nursery:
        for x in range(3):
            nursery.start_soon(producer, x)
        await trio.testing.wait_all_tasks_blocked()
        assert q.statistics().waiting_enqueuers == 3
        t0 = trio.current_time()
        q.close(cancel_pending_enqueues=True)
    assert trio.current_time() == t0
    assert len(outcomes) == 3
    assert all(o.startswith("Enqueue operation was cancelled") for o in outcomes)
    assert vals(q.get_nowait(1)) == [0]


async def test_close_keeps_pending_enqueues_without_cancel():
    q = Queue("q", 1)
    q.put_nowait(els(0))
    async with trio.open_nursery() as nursery:
        nursery.start_soon(q.put, els(1))
        await trio.testing.wait_all_tasks_blocked()
        q.close()
        assert vals(await q.get(1)) == [0]
    assert vals(await q.get(1)) == [1]


async def test_closed_queue_errors():
    q = Queue("q", 2)
    q.close()
    with pytest.raises(errors.CancelledError, match=r"^FIFOQueue 'q' is closed\.$"):
        await q.put(els(1))
    with pytest.raises(
        errors.OutOfRangeError,
        match=r"is closed and has insufficient "
        r"elements \(requested 1, current size 0\)",
    ):
        await q.get(1)
    with pytest.raises(errors.CancelledError, match=r"Queue 'q' is already closed\."):
        q.close()
    q.close(cancel_pending_enqueues=True)  # no error, as in TF


async def test_stall_warning_logged_once(autojump_clock, caplog, monkeypatch):
    monkeypatch.setattr(queues, "STALL_WARNING_SECONDS", 10.0)
    q = Queue("input_queue", 5)
    with caplog.at_level(logging.WARNING, logger="flowrt"):
        with trio.move_on_after(100):
            await q.get(1, who="QueueDequeueV2 op 'deq'")
    msgs = [r.getMessage() for r in caplog.records if r.name == "flowrt"]
    assert len(msgs) == 1
    assert "FIFOQueue 'input_queue'" in msgs[0]
    assert "size 0, capacity 5" in msgs[0]
    assert "fr.train.queue_runners(sess)" in msgs[0]  # a trio waiter: the async form
    assert "QueueDequeueV2 op 'deq'" in msgs[0]
    assert q.statistics().waiting_dequeuers == 0


async def test_no_stall_warning_while_the_queue_is_fed(autojump_clock, caplog, monkeypatch):
    monkeypatch.setattr(queues, "STALL_WARNING_SECONDS", 10.0)
    q = Queue("q", 10)

    async def slow_producer():
        for i in range(5):
            await trio.sleep(6)
            await q.put(els(i))

    with caplog.at_level(logging.WARNING, logger="flowrt"):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(slow_producer)
            assert vals(await q.get(5)) == [0, 1, 2, 3, 4]  # takes 30 s
    assert not [r for r in caplog.records if r.name == "flowrt"]


async def test_stall_warning_for_enqueue_on_full_queue(autojump_clock, caplog, monkeypatch):
    monkeypatch.setattr(queues, "STALL_WARNING_SECONDS", 2.0)
    q = Queue("q", 1)
    q.put_nowait(els(0))
    with caplog.at_level(logging.WARNING, logger="flowrt"):
        with trio.move_on_after(30):
            await q.put(els(1))
    (rec,) = [r for r in caplog.records if r.name == "flowrt"]
    assert "waits for room" in rec.getMessage() and "size 1, capacity 1" in rec.getMessage()


async def test_random_shuffle_keeps_min_after_dequeue_until_closed():
    q = RandomShuffleQueue("r", 10, min_after_dequeue=3, seed=1)
    q.put_nowait(els(*range(4)))
    q.get_nowait(1)
    with pytest.raises(trio.WouldBlock):
        q.get_nowait(1)
    q.close()
    assert len(q.get_nowait(3)) == 3
    with pytest.raises(errors.OutOfRangeError):
        q.get_nowait(1)


def test_random_shuffle_is_reproducible_with_a_seed():
    def order(seed):
        q = RandomShuffleQueue("r", 100, 0, seed=seed)
        q.put_nowait(els(*range(50)))
        return vals(q.get_nowait(50))

    assert order((5, 7)) == order((5, 7))
    assert order((5, 7)) != order((5, 8))
    assert sorted(order(3)) == list(range(50))


def test_priority_queue_orders_by_priority_then_arrival():
    q = PriorityQueue("p", 10)
    q.put_nowait([(3, "c"), (1, "a"), (2, "b"), (1, "a2")])
    assert [e[1] for e in q.get_nowait(4)] == ["a", "a2", "b", "c"]


# --- FIFO order under random interleavings ----------------------------------------------


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    capacity=st.integers(1, 6),
    producers=st.lists(st.lists(st.integers(1, 6), min_size=1, max_size=5), min_size=1, max_size=3),
    takes=st.lists(
        st.tuples(st.integers(0, 6), st.booleans(), st.integers(0, 3)), min_size=1, max_size=12
    ),
    seed=st.integers(0, 2**32 - 1),
)
def test_fifo_order_under_random_interleavings(capacity, producers, takes, seed):
    """Producers put batches (streaming the ones larger than the capacity); consumers
    take batches, some cancelled at random times. Everything taken comes out in the
    order it went in, each batch contiguous, and cancelled requests take nothing."""
    import random

    rnd = random.Random(seed)

    async def main():
        q = Queue("q", capacity)
        put_log, got_log = [], []
        counter = iter(range(10**6))

        async def producer(sizes):
            for n in sizes:
                batch = [(p, next(counter)) for p in range(n)]
                await trio.sleep(rnd.random())
                await q.put(batch)
                put_log.append(batch)

        async def consumer(n, up_to, cancel_after):
            await trio.sleep(rnd.random())
            with trio.move_on_after(cancel_after if cancel_after else 1e9):
                try:
                    got = await q.get(n, up_to=up_to)
                except errors.OutOfRangeError:
                    return
                got_log.append(got)

        async with trio.open_nursery() as nursery:
            for sizes in producers:
                nursery.start_soon(producer, sizes)
            async with trio.open_nursery() as consumers:
                for n, up_to, cancel_after in takes:
                    consumers.start_soon(consumer, n, up_to, cancel_after)
            await trio.sleep(20)  # producers finish or stay blocked on a full queue
            rest = len(q)
            nursery.cancel_scope.cancel()
        taken = [e for g in got_log for e in g] + q.get_nowait(rest)
        # Puts commit right before they return, so put_log is the commit order; a batch
        # larger than the capacity may have been cut off midway by the final cancel.
        committed = [e for b in put_log for e in b]
        assert taken[: len(committed)] == committed, "elements came out of order"
        tail = taken[len(committed) :]
        assert [e[0] for e in tail] == list(range(len(tail)))
        assert len({e[1] for e in tail}) == len(tail) and (
            not tail or tail[-1][1] - tail[0][1] == len(tail) - 1
        )

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))


def test_batch_of_rows_is_a_slice_or_a_concatenation_with_the_right_values():
    import numpy as np

    from flowrt._core.queues import batch, rows

    a = (np.arange(12, dtype=np.float32).reshape(4, 3),)
    b = (np.arange(12, 24, dtype=np.float32).reshape(4, 3),)
    ra, rb = rows(a), rows(b)
    whole = batch(ra[1:4], [np.float32], ordered=True)[0]
    assert np.shares_memory(whole, a[0]) and whole.tolist() == a[0][1:4].tolist()
    mixed = batch(ra[2:] + rb[:3], [np.float32], ordered=True)[0]
    assert mixed.tolist() == a[0][2:].tolist() + b[0][:3].tolist()
    # Unordered queues (shuffle, priority) never take the first/last shortcut.
    shuffled = batch([ra[0], rb[1], ra[3]], [np.float32], ordered=False)[0]
    assert shuffled.tolist() == [a[0][0].tolist(), b[0][1].tolist(), a[0][3].tolist()]


async def test_a_batch_larger_than_the_capacity_keeps_streaming_as_room_frees():
    # TF enqueues such a batch element by element: its tail must not wait for the
    # queue to drain completely (the queue stays full while a consumer takes one).
    q = Queue("q", 4)
    sizes = []
    async with trio.open_nursery() as nursery:
        nursery.start_soon(q.put, els(*range(10)))
        await trio.testing.wait_all_tasks_blocked()
        for _ in range(10):
            sizes.append(len(q))
            (e,) = q.get_nowait(1)
            await trio.testing.wait_all_tasks_blocked()
    assert sizes == [4, 4, 4, 4, 4, 4, 4, 3, 2, 1]


def test_random_shuffle_queue_memory_follows_what_is_queued():
    # One row left of a large enqueue_many batch must not keep the batch alive.
    import gc
    import weakref

    import numpy as np

    q = RandomShuffleQueue("rsq", 2000, seed=3)
    big = np.zeros((1000, 256), np.float32)
    ref = weakref.ref(big)
    q.put_nowait(queues.rows((big,)))
    q.get_nowait(999)
    del big
    gc.collect()
    assert ref() is None and len(q) == 1
    (e,) = q.get_nowait(1)
    assert e[0].shape == (256,)


# --- storage: runs of enqueue_many batches, columnar shuffle queue ------------------------


def test_fifo_hands_out_a_whole_run_of_one_batch_as_a_slice_and_gives_it_back_in_front():
    import numpy as np

    q = Queue("q", 100)
    a = np.arange(20, dtype=np.int32).reshape(10, 2)
    q.put_nowait(queues.rows((a,)))
    q.put_nowait(els(np.array([7, 7], np.int32)))
    got = q.get_nowait(4)
    assert type(got) is queues.Rows and len(q) == 7
    out = queues.batch(got, [np.int32], ordered=True)[0]
    assert np.shares_memory(out, a) and out.tolist() == a[:4].tolist()
    q.give_back(got)
    assert len(q) == 11
    rest = queues.batch(q.get_nowait(11), [np.int32], ordered=True)[0]
    assert rest.tolist() == a.tolist() + [[7, 7]]


def test_random_shuffle_columns_gather_each_element_once_and_room_follows_size():
    import numpy as np

    q = RandomShuffleQueue("r", 1000, 0, seed=7, shapes=[(3,), ()])
    xs = np.arange(600, dtype=np.float32).reshape(200, 3)
    ys = np.arange(200, dtype=np.int64)
    for k in range(0, 200, 50):
        q.put_nowait(queues.rows((xs[k : k + 50], ys[k : k + 50])))
    q.put_nowait([(np.array([-3, -2, -1], np.float32), np.int64(-1))])
    assert len(q) == 201 and len(q._cols[0]) >= 201
    seen = []
    while len(q):
        got = q.get_nowait(min(16, len(q)))
        x, y = queues.batch(got, [np.float32, np.int64])
        assert not np.shares_memory(x, xs)  # gathered out of the columns, copies
        assert x[:, 0].tolist() == [3.0 * v if v >= 0 else -3.0 for v in y.tolist()]
        seen += y.tolist()
    assert sorted(seen) == [-1] + list(range(200))
    assert len(q._cols[0]) <= 32  # the room halved as the queue drained


def test_random_shuffle_gives_back_and_keeps_unknown_shapes_and_strings():
    import numpy as np

    q = RandomShuffleQueue("r", 10, 0, seed=1, shapes=[None, ()])
    q.put_nowait([(np.arange(k, dtype=np.int32), b"s%d" % k) for k in range(4)])
    got = q.get_nowait(4)
    assert sorted(e[1] for e in got) == [b"s0", b"s1", b"s2", b"s3"]
    assert all(e[0].tolist() == list(range(int(e[1][1:]))) for e in got)
    q.give_back(got)
    again = q.get_nowait(4)
    assert sorted((e[1], e[0].tolist()) for e in again) == sorted(
        (e[1], e[0].tolist()) for e in got
    )


async def test_a_run_larger_than_the_capacity_streams_in_order_and_a_waiting_get_takes_a_run():
    import numpy as np

    q = Queue("q", 4)
    a = np.arange(10, dtype=np.int64)
    got = []
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(q.put, queues.rows((a,)))
            await trio.testing.wait_all_tasks_blocked()
            assert len(q) == 4
            for _ in range(5):
                got += queues.batch(await q.get(2), [np.int64], ordered=True)[0].tolist()
    assert got == list(range(10))

    async def waiting_get():
        waited.append(await q.get(3))

    waited: list = []
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(waiting_get)
            await trio.testing.wait_all_tasks_blocked()
            q.put_nowait(queues.rows((a[:4],)))
    assert type(waited[0]) is queues.Rows and [e[0] for e in waited[0]] == [0, 1, 2]


def test_random_shuffle_string_columns_keep_strings_of_any_length():
    import numpy as np

    q = RandomShuffleQueue("r", 10, 0, seed=2, shapes=[()])
    q.put_nowait(queues.rows((np.array([b"a", b"bb"], dtype=object),)))
    q.put_nowait([(np.array(b"a much longer string", dtype=object),)])
    q.put_nowait([(b"raw bytes too",)])
    (out,) = queues.batch(q.get_nowait(4), [np.dtype(object)])
    assert out.dtype == object and sorted(out.tolist()) == [
        b"a",
        b"a much longer string",
        b"bb",
        b"raw bytes too",
    ]


def test_random_shuffle_many_is_a_uniform_sample_in_a_uniform_order():
    # A dequeue_many of 8 out of 64 (the few-draws sampler) and of 40 out of 64
    # (Generator.choice): every value equally likely at every position of the batch,
    # no value twice in one batch. Seeded: the counts are the same on every run.
    import numpy as np

    for k, rounds in ((8, 3000), (40, 600)):
        q = RandomShuffleQueue("r", 64, 0, seed=11, shapes=[()])
        q.put_nowait(queues.rows((np.arange(64, dtype=np.int64),)))
        counts = np.zeros((k, 64))
        for _ in range(rounds):
            got = q.get_nowait(k)
            (batch,) = queues.batch(got, [np.int64])
            assert len(set(batch.tolist())) == k
            counts[np.arange(k), batch] += 1
            q.give_back(got)
        assert len(q) == 64
        expected = rounds / 64
        chi2 = ((counts - expected) ** 2 / expected).sum(axis=1)
        # 63 degrees of freedom: mean 63, sd 11.2; 130 is beyond p = 1e-6.
        assert chi2.max() < 130, (k, chi2.round(1).tolist())


def test_fifo_get_spanning_several_runs_joins_them_into_one_batch():
    import numpy as np

    q = Queue("q", 100)
    a = np.arange(24, dtype=np.float32).reshape(12, 2)
    for k in range(0, 12, 4):
        q.put_nowait(queues.rows((a[k : k + 4], np.arange(k, k + 4))))
    got = q.get_nowait(6)
    assert type(got) is queues.Rows and len(q) == 6  # no Row object per element
    x, i = queues.batch(got, [np.float32, np.int64], ordered=True)
    assert x.tolist() == a[:6].tolist() and i.tolist() == list(range(6))
    q.give_back(got)
    x, i = queues.batch(q.get_nowait(12), [np.float32, np.int64], ordered=True)
    assert x.tolist() == a.tolist() and i.tolist() == list(range(12))


def test_padding_queue_get_spanning_runs_of_different_shapes_keeps_each_element():
    import numpy as np

    q = queues.PaddingQueue("p", 10)
    q.put_nowait(queues.rows((np.ones((2, 2), np.int32),)))
    q.put_nowait(queues.rows((np.full((2, 3), 2, np.int32),)))
    (out,) = queues.batch(q.get_nowait(3), [np.int32], pad=True)
    assert out.tolist() == [[1, 1, 0], [1, 1, 0], [2, 2, 2]] and len(q) == 1
