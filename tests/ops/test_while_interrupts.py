"""A running while loop ends by its run's timeout and by signal handlers, and is
never run ahead of the run (constant folding) where none of them reach it."""

import signal

import flowrt as fr
from tests.signals import ctrl_c_after

# Each test is guarded by a Ctrl-C (KeyboardInterrupt) 20 s in: a loop that ignores
# what should end it fails its test instead of hanging the suite.
GUARD_SECONDS = 20


def _endless(start):
    return fr.while_loop(lambda i: i >= 0, lambda i: i + 1, [start])


def _run_guarded(fn):
    """What ``fn()`` raised (the guard's KeyboardInterrupt if nothing ended it)."""
    with ctrl_c_after(GUARD_SECONDS):
        try:
            fn()
        except BaseException as e:
            return e
    raise AssertionError("the endless loop returned")


def test_timeout_ends_a_running_loop():
    start = fr.placeholder(fr.int32, [])
    loop = _endless(start)
    with fr.Session() as sess:
        opts = fr.RunOptions(timeout_in_ms=100)
        err = _run_guarded(lambda: sess.run(loop, {start: 0}, options=opts))
        assert isinstance(err, fr.errors.DeadlineExceededError), err
        assert "Timed out after 100 ms (RunOptions.timeout_in_ms) running " in str(err)
        assert err.op is loop.op.inputs[0].op  # the While, named
        assert sess.run(loop, {start: -5}) == -5  # the session goes on


def test_session_timeout_ends_a_loop_of_constants():
    # A loop over constants runs in the run (TF folds no loop), under its deadline.
    loop = _endless(fr.constant(0))
    with fr.Session(config=fr.ConfigProto(operation_timeout_in_ms=100)) as sess:
        err = _run_guarded(lambda: sess.run(loop))
    assert isinstance(err, fr.errors.DeadlineExceededError), err
    assert "(ConfigProto.operation_timeout_in_ms) running StatelessWhile op" in str(err)


class _AlarmError(Exception):
    pass


def test_a_signal_handlers_exception_ends_a_loop_of_constants():
    loop = _endless(fr.constant(0))

    def alarm(signum, frame):
        raise _AlarmError("the handler's")

    previous = signal.signal(signal.SIGALRM, alarm)
    try:
        with fr.Session() as sess:
            signal.setitimer(signal.ITIMER_REAL, 0.2)
            err = _run_guarded(lambda: sess.run(loop))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    # It surfaces from the run (as the cause of the error of the op it interrupted),
    # never swallowed.
    assert isinstance(err, _AlarmError) or isinstance(err.__context__, _AlarmError), repr(err)
    assert "the handler's" in str(err)
