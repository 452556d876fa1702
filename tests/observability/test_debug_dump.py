"""Session.debug_dump: a stuck pipeline names its queue and the runner that is missing."""

import io
import logging
import os
import signal

import pytest
import trio
import trio.testing

import flowrt as fr
from flowrt._core import queues as _core_queues


def _pipeline():
    """raw (fed by nothing) -> runner -> ready -> the consumer's dequeue."""
    raw = fr.FIFOQueue(4, [fr.float32], shapes=[[]], name="raw")
    ready = fr.FIFOQueue(4, [fr.float32], shapes=[[]], name="ready")
    move = ready.enqueue([raw.dequeue(name="take_raw") * 2.0], name="move")
    runner = fr.train.QueueRunner(ready, [move])
    fr.train.add_queue_runner(runner)
    return raw, ready, fr.add(ready.dequeue(name="take"), 1.0, name="step")


async def test_dump_names_the_queue_and_a_runner_not_running():
    _, _, step = _pipeline()
    async with fr.Session() as sess:
        with trio.fail_after(10):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(sess.arun, step, name="training-loop")
                await trio.testing.wait_all_tasks_blocked()
                text = sess.debug_dump()
                nursery.cancel_scope.cancel()
        assert "0 run(s) in flight" in sess.debug_dump()
    assert "1 run(s) in flight" in text
    assert "in task:training-loop" in text
    assert "on: QueueDequeueV2 op 'take': dequeue of 1 element(s) from FIFOQueue 'ready'" in text
    assert "queue FIFOQueue 'ready': size 0, capacity 4; 0 enqueuer(s) and 1 dequeuer(s)" in text
    assert "runner ready (1 enqueue op(s)): NOT RUNNING for this session" in text


async def test_dump_shows_live_runner_tasks_and_what_they_wait_on():
    _, _, step = _pipeline()
    async with fr.Session() as sess:
        with trio.fail_after(10):
            async with fr.train.queue_runners(sess):
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(sess.arun, step, name="training-loop")
                    await trio.testing.wait_all_tasks_blocked()
                    out = io.StringIO()
                    text = sess.debug_dump(out)
                    nursery.cancel_scope.cancel()
            after = sess.debug_dump()
    assert out.getvalue() == text and "2 run(s) in flight" in text
    assert "1 trio task(s): run the enqueue ops of queue(s) 'ready': alive" in text
    # The runner's own run waits on 'raw', which nothing feeds.
    assert "on: QueueDequeueV2 op 'take_raw': dequeue of 1 element(s) from FIFOQueue 'raw'" in text
    assert "no queue runner of this graph feeds it and no run in flight enqueues" in text
    assert "0 run(s) in flight" in after


def test_dump_of_threads_that_were_never_started_and_the_signal_hook():
    _, _, step = _pipeline()
    (runner,) = fr.get_collection(fr.GraphKeys.QUEUE_RUNNERS)
    with fr.Session() as sess:
        threads = runner.create_threads(sess, start=False)
        assert len(threads) == 1
        with pytest.raises(fr.errors.DeadlineExceededError, match="FIFOQueue 'ready'"):
            sess.run(step, options=fr.RunOptions(timeout_in_ms=1))
        text = _dump_while_stuck(sess, step)
        assert "runner ready (1 enqueue op(s)): NOT RUNNING for this session" in text
        if hasattr(signal, "SIGUSR1"):
            out = io.StringIO()
            fr.client.debug.install_dump_handler(signal.SIGUSR1, out)
            try:
                os.kill(os.getpid(), signal.SIGUSR1)  # the handler runs before kill returns
            finally:
                fr.client.debug.uninstall_dump_handler(signal.SIGUSR1)
            assert "Session %#x: 0 run(s) in flight" % id(sess) in out.getvalue()
            assert signal.getsignal(signal.SIGUSR1) is signal.SIG_DFL


def _dump_while_stuck(sess, step) -> str:
    """Runs ``step`` in a trio task of its own loop and dumps once it is stuck."""

    async def main():
        with trio.fail_after(10):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(sess.arun, step)
                await trio.testing.wait_all_tasks_blocked()
                text = sess.debug_dump()
                nursery.cancel_scope.cancel()
        return text

    return trio.run(main)


async def test_stall_warning_points_to_debug_dump(autojump_clock, caplog, monkeypatch):
    monkeypatch.setattr(_core_queues, "STALL_WARNING_SECONDS", 10.0)
    _, _, step = _pipeline()
    async with fr.Session() as sess:
        with caplog.at_level(logging.WARNING, logger="flowrt"):
            with trio.move_on_after(60):
                await sess.arun(step)
    (rec,) = [r for r in caplog.records if r.name == "flowrt"]
    assert "sess.debug_dump() lists every run in flight" in rec.getMessage()
    assert "async with fr.train.queue_runners(sess)" in rec.getMessage()


def test_dump_does_not_wait_forever_on_a_lock_its_own_thread_holds():
    # A signal handler runs on the main thread, which may hold the in-flight lock.
    with fr.Session() as sess:
        with sess._inflight_lock:
            assert "0 run(s) in flight" in sess.debug_dump()
