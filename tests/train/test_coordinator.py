"""fr.train.Coordinator and LooperThread, as TF1's."""

import sys
import threading

import pytest

import flowrt as fr

JOIN = 5.0


def _start(target, *args, name=None):
    t = threading.Thread(target=target, args=args, name=name, daemon=True)
    t.start()
    return t


def test_request_stop_sets_should_stop_and_clear_stop_resets():
    coord = fr.train.Coordinator()
    assert not coord.should_stop()
    assert not coord.wait_for_stop(0.001)
    coord.request_stop()
    assert coord.should_stop()
    assert coord.wait_for_stop(0.001)
    coord.clear_stop()
    assert not coord.should_stop()


def test_join_waits_for_threads_that_end_by_themselves():
    coord = fr.train.Coordinator()
    go = threading.Event()
    t = _start(go.wait, JOIN)
    go.set()
    coord.join([t], stop_grace_period_secs=JOIN)
    assert not t.is_alive()
    assert coord.joined
    assert not coord.should_stop()


def test_threads_polling_should_stop_end_on_request_stop():
    coord = fr.train.Coordinator()
    running = threading.Barrier(3)

    def worker():
        running.wait(JOIN)
        while not coord.should_stop():
            coord.wait_for_stop(0.01)

    threads = [_start(worker) for _ in range(2)]
    running.wait(JOIN)
    coord.request_stop()
    coord.join(threads, stop_grace_period_secs=JOIN)
    assert not any(t.is_alive() for t in threads)


def test_join_reraises_first_reported_exception():
    coord = fr.train.Coordinator()
    first_done = threading.Event()

    def fail(msg, wait=None):
        if wait is not None:
            wait.wait(JOIN)
        try:
            raise ValueError(msg)
        except ValueError as e:
            coord.request_stop(e)
        if wait is None:
            first_done.set()

    threads = [_start(fail, "first"), _start(fail, "second", first_done)]
    with pytest.raises(ValueError, match="^first$"):
        coord.join(threads, stop_grace_period_secs=JOIN)
    assert coord.should_stop()
    with pytest.raises(ValueError, match="^first$"):
        coord.raise_requested_exception()


def test_stop_on_exception_reports_and_swallows():
    coord = fr.train.Coordinator()
    with coord.stop_on_exception():
        raise KeyError("boom")
    assert coord.should_stop()
    with pytest.raises(KeyError, match="boom"):
        coord.join([])


def test_out_of_range_is_a_clean_stop_by_default():
    coord = fr.train.Coordinator()
    with coord.stop_on_exception():
        raise fr.errors.OutOfRangeError(None, None, "end of input")
    assert coord.should_stop()
    coord.join([])  # nothing re-raised
    coord.raise_requested_exception()


def test_clean_stop_exception_types_replace_the_default():
    coord = fr.train.Coordinator(clean_stop_exception_types=(StopIteration,))
    with coord.stop_on_exception():
        raise StopIteration
    coord.join([])
    coord2 = fr.train.Coordinator(clean_stop_exception_types=(StopIteration,))
    with coord2.stop_on_exception():
        raise fr.errors.OutOfRangeError(None, None, "end")
    with pytest.raises(fr.errors.OutOfRangeError):
        coord2.join([])


def test_exc_info_tuple_is_accepted():
    coord = fr.train.Coordinator()
    try:
        raise RuntimeError("from exc_info")
    except RuntimeError:
        coord.request_stop(sys.exc_info())
    with pytest.raises(RuntimeError, match="from exc_info"):
        coord.join([])


def test_join_raises_runtime_error_naming_stragglers():
    coord = fr.train.Coordinator()
    release = threading.Event()
    laggard = _start(release.wait, JOIN, name="laggard")
    try:
        coord.request_stop()
        with pytest.raises(
            RuntimeError, match="^Coordinator stopped with threads still running: laggard$"
        ):
            coord.join([laggard], stop_grace_period_secs=0.01)
    finally:
        release.set()
        laggard.join(JOIN)
    assert not laggard.is_alive()


def test_join_ignore_live_threads():
    coord = fr.train.Coordinator()
    release = threading.Event()
    laggard = _start(release.wait, JOIN)
    try:
        coord.request_stop()
        coord.join([laggard], stop_grace_period_secs=0.01, ignore_live_threads=True)
    finally:
        release.set()
        laggard.join(JOIN)


def test_registered_threads_are_joined():
    coord = fr.train.Coordinator()
    done = threading.Event()

    def worker():
        coord.wait_for_stop(JOIN)
        done.set()

    t = threading.Thread(target=worker, daemon=True)
    coord.register_thread(t)
    t.start()
    coord.request_stop()
    coord.join(stop_grace_period_secs=JOIN)
    assert done.is_set() and not t.is_alive()


def test_request_stop_with_exception_after_join_raises_it():
    coord = fr.train.Coordinator()
    coord.request_stop()
    coord.join([])
    with pytest.raises(ValueError, match="late"):
        try:
            raise ValueError("late")
        except ValueError as e:
            coord.request_stop(e)
    coord.request_stop()  # a plain stop request after join is fine


def test_looper_thread_runs_target_until_stop_and_reports_errors():
    coord = fr.train.Coordinator()
    calls = []

    def target(x):
        calls.append(x)
        if len(calls) == 3:
            raise ValueError("third call")

    looper = fr.train.LooperThread.loop(coord, None, target, args=(7,))
    with pytest.raises(ValueError, match="third call"):
        coord.join(stop_grace_period_secs=JOIN)
    looper.join(JOIN)
    assert calls == [7, 7, 7] and not looper.is_alive()


def test_looper_thread_argument_errors():
    with pytest.raises(ValueError, match="must be a Coordinator"):
        fr.train.LooperThread(None, 1.0)
    with pytest.raises(ValueError, match="require that you also pass 'target'"):
        fr.train.LooperThread(fr.train.Coordinator(), 1.0, args=(1,))
