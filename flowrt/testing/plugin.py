"""The flowrt pytest plugin: fixtures, per-test seeds and a stall guard.

Registered through the ``pytest11`` entry point, so it is active wherever flowrt is
installed. See ``flowrt.testing`` for the fixtures and docs/testing.md for examples.
"""

from __future__ import annotations

import functools
import inspect
import signal
import threading
import types
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import trio

import flowrt as fr

from .._core.introspection import queue_snapshots
from .._core.parker import canceller
from ..train.queue_runner import live_runners
from .report import open_sessions, pipeline_report
from .seeds import seed_for

DEFAULT_TIMEOUT = 300.0
"""Seconds a test may run before the stall guard fails it, unless the ini option
``fr_timeout``, the ``--fr-timeout`` option or an ``fr_timeout`` mark says otherwise."""

MARKERS = {
    "fr_timeout(seconds)": "fail the test after `seconds` with a report of the runs, "
    "queues and queue runners it is stuck on (0: no guard)",
    "fr_seed(seed)": "the graph seed fr_graph/fr_session use in this test",
}
"""The plugin's marks (``@pytest.mark.fr_timeout(1)``) and what each does."""

_RUNNER_GRACE = 5.0  # seconds a leaked runner thread gets to end once its session closed
_TRIO_GRACE = 2.0  # seconds a cancelled trio test gets to end before it is signalled

_HANDLER_INSTALLED = False
_OLD_HANDLER: Any = None
_SESSIONS = 0  # pytest sessions configured in this process (pytester runs nest them)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("flowrt")
    group.addoption(
        "--fr-timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="fail a flowrt test that runs longer than this with a report of "
        "its blocked runs and queues (0: off; default: the fr_timeout ini "
        "option, else %g)" % DEFAULT_TIMEOUT,
    )
    group.addoption(
        "--fr-seed",
        type=int,
        default=None,
        metavar="SEED",
        help="use this graph seed in every test instead of one derived from the test id",
    )
    parser.addini(
        "fr_timeout",
        "default stall-guard timeout of a test, in seconds (0: off)",
        default=str(DEFAULT_TIMEOUT),
    )


def pytest_configure(config: pytest.Config) -> None:
    global _SESSIONS
    _SESSIONS += 1
    _install_signal_handler()
    for marker, doc in MARKERS.items():
        config.addinivalue_line("markers", "%s: %s" % (marker, doc))


def pytest_unconfigure(config: pytest.Config) -> None:
    global _SESSIONS
    _SESSIONS -= 1
    if _SESSIONS == 0:
        _restore_signal_handler()


# --------------------------------------------------------------------------------------
# Seeds and fixtures
# --------------------------------------------------------------------------------------


@pytest.fixture
def fr_seed(request: pytest.FixtureRequest) -> int:
    """The test's graph seed: an ``fr_seed(n)`` mark, else ``--fr-seed``, else derived
    from the test id (the same every run)."""
    mark = request.node.get_closest_marker("fr_seed")
    if mark is not None:
        return int(mark.args[0])
    opt = request.config.getoption("--fr-seed")
    if opt is not None:
        return int(opt)
    return seed_for(request.node.nodeid)


@pytest.fixture
def fr_graph(fr_seed: int) -> Iterator[fr.Graph]:
    """A fresh default graph for the test (``fr.reset_default_graph()`` before and
    after), its graph-level seed set to ``fr_seed``."""
    fr.reset_default_graph()
    graph = fr.get_default_graph()
    graph.seed = fr_seed
    yield graph
    fr.reset_default_graph()


def _check_released(sess: fr.Session, what: str) -> None:
    """Closes ``sess``; fails the test if a queue runner or a run outlived it.

    A session closed already (by the test, or by the stall guard after a stall the test
    failed for) is not checked: closing ends its runs and runner loops, which may still
    be unwinding here."""
    checked = not getattr(sess, "_closed", False)
    runners = live_runners(sess)
    inflight = len(getattr(sess, "_inflight", ()))
    sess.close()
    for r in runners:
        if r.thread is not None:
            r.thread.join(_RUNNER_GRACE)
    if checked and (runners or inflight):
        lines = ["%s was still in use when the test ended:" % what]
        lines += ["  %d run(s) in flight" % inflight] if inflight else []
        lines += ["  live queue runner: %s" % r.description for r in runners]
        lines.append(
            "Stop queue runners before the test ends (coord.request_stop(); "
            "coord.join(threads)), and let every run finish."
        )
        pytest.fail("\n".join(lines), pytrace=False)


@pytest.fixture
def fr_session(fr_graph: fr.Graph) -> Iterator[fr.Session]:
    """A ``Session`` on ``fr_graph``, also the default session during the test.

    Closed after the test; the test fails if a queue-runner thread or a run of it is
    still alive then.
    """
    sess = fr.Session(graph=fr_graph)
    with sess.as_default():
        yield sess
    _check_released(sess, "fr_session")


@pytest.fixture
def fr_tmp_logdir(tmp_path: Path) -> Path:
    """A fresh, empty directory for summaries and checkpoints of this test."""
    logdir = tmp_path / "logdir"
    logdir.mkdir()
    return logdir


try:
    from pytest_trio import trio_fixture
except ImportError:  # pragma: no cover - the plugin works without pytest-trio
    trio_fixture = None

_TRIO_FIXTURES = ("fr_asession",)  # the fixtures only a test run by pytest-trio can use

if trio_fixture is not None:

    @trio_fixture
    async def fr_asession(fr_graph: fr.Graph) -> AsyncIterator[fr.Session]:
        """A ``Session`` on ``fr_graph`` for ``async def`` tests (pytest-trio).

        Its blocking ops run on the test's trio loop. Closed after the test; the test
        fails if a queue runner or a run of it is still alive then.
        """
        sess = fr.Session(graph=fr_graph)
        yield sess
        _check_released(sess, "fr_asession")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Fails a test that uses ``fr_asession`` but that pytest-trio does not run, with
    what to add, before any fixture is set up (pytest-trio's own error would leave the
    fixture half set up, and every later test using it would fail inside pytest)."""
    used = [n for n in _TRIO_FIXTURES if n in getattr(item, "fixturenames", ())]
    if not used or item.get_closest_marker("trio") is not None:
        return
    fn = getattr(item, "obj", None)
    fn = getattr(getattr(fn, "hypothesis", None), "inner_test", fn)
    if not inspect.iscoroutinefunction(fn):
        pytest.fail(
            "%s uses %s, which is for `async def` tests; a sync test uses fr_session."
            % (item.nodeid, used[0]),
            pytrace=False,
        )
    install = "" if trio_fixture is not None else "Install pytest-trio, then add\n"
    pytest.fail(
        "%s is an `async def` test using %s, but no trio runner runs it. %s"
        "Add\n    trio_mode = true\nunder [tool.pytest.ini_options] in pyproject.toml "
        "(or under [pytest] in pytest.ini) to run every `async def` test under trio, "
        "or mark this test @pytest.mark.trio." % (item.nodeid, used[0], install),
        pytrace=False,
    )


# --------------------------------------------------------------------------------------
# The stall guard
# --------------------------------------------------------------------------------------


def _timeout(item: pytest.Item) -> float:
    mark = item.get_closest_marker("fr_timeout")
    if mark is not None:
        return float(mark.args[0] if mark.args else mark.kwargs["seconds"])
    opt = item.config.getoption("--fr-timeout")
    if opt is not None:
        return float(opt)
    return float(item.config.getini("fr_timeout"))


class _Stalled(pytest.fail.Exception):  # type: ignore[name-defined]
    """The guard's failure: pytest reports it as a plain test failure."""


class _Guard:
    """Watches one test call from a timer thread; on expiry takes the report while the
    test is still stuck, then stops the test and fails it with the report: a sync test
    by a signal to the main thread, a trio test by cancelling it (and by the signal if
    its loop is itself blocked, e.g. in a sync ``sess.run``). After the test, the
    sessions that were stuck are closed so their runner threads end."""

    active: _Guard | None = None  # the guard of the running test, for the signal handler

    def __init__(self, seconds: float, nodeid: str):
        self.seconds = seconds
        self.nodeid = nodeid
        self.report: str | None = None
        self.trio_cancel: Callable[[], bool] | None = None
        self.sessions: list[fr.Session] = []
        self._timer = threading.Timer(seconds, self._fire)
        self._timer.daemon = True
        self._lock = threading.Lock()
        self._ended = threading.Event()
        self._outer: _Guard | None = None

    def message(self) -> str:
        return (
            "flowrt stall guard: %s ran longer than fr_timeout=%gs and was stopped.\n"
            "What it was waiting on:\n%s\n(Raise the limit with "
            "@pytest.mark.fr_timeout(seconds) or the fr_timeout ini option.)"
            % (self.nodeid, self.seconds, self.report)
        )

    def start(self) -> None:
        self._outer = _Guard.active  # a test running pytest in process (pytester)
        _Guard.active = self
        self._timer.start()

    def stop(self) -> None:
        with self._lock:
            self._ended.set()
            _Guard.active = self._outer
        self._timer.cancel()

    def _interrupt(self) -> None:
        """Signals the main thread, unless the test ended (checked under the lock that
        stop() takes, so a late signal finds no active guard and is ignored)."""
        main = threading.main_thread().ident
        with self._lock:
            if not self._ended.is_set() and _HANDLER_INSTALLED and main is not None:
                signal.pthread_kill(main, signal.SIGALRM)

    def _fire(self) -> None:
        sessions = open_sessions()
        report = pipeline_report(sessions)
        # Closed after the test (ending their runner threads): the sessions stuck in a
        # run, not, e.g., a module-scoped session that other tests still use.
        self.sessions = [s for s in sessions if _stuck(s)]
        with self._lock:
            if self._ended.is_set():
                return
            self.report = report
        if self.trio_cancel is not None:
            if not self.trio_cancel():  # the test's loop has finished
                return
            if self._ended.wait(_TRIO_GRACE):
                return
        self._interrupt()


def _on_sigalrm(signum: int, frame: Any) -> None:
    __tracebackhide__ = True  # the report ends at the test's own frames, not here
    guard = _Guard.active
    if guard is not None and guard.report is not None:
        raise _Stalled(guard.message(), pytrace=True)


def _install_signal_handler() -> None:
    """Installs the SIGALRM handler for the outermost pytest session (main thread
    only), for good rather than per test: a signal arriving just after a test ended
    meets this handler, finds no stalled test, and is ignored."""
    global _HANDLER_INSTALLED, _OLD_HANDLER
    if (
        _HANDLER_INSTALLED
        or not hasattr(signal, "pthread_kill")
        or threading.current_thread() is not threading.main_thread()
    ):
        return
    _OLD_HANDLER = signal.signal(signal.SIGALRM, _on_sigalrm)
    _HANDLER_INSTALLED = True


def _restore_signal_handler() -> None:
    global _HANDLER_INSTALLED
    if _HANDLER_INSTALLED:
        signal.signal(signal.SIGALRM, _OLD_HANDLER)
        _HANDLER_INSTALLED = False


def _stuck(sess: fr.Session) -> bool:
    return bool(getattr(sess, "_inflight", ())) or any(
        snap.blocked for snap in queue_snapshots(sess.resources.items())
    )


def _test_lines(exc: BaseException, fn: Callable[..., Any]) -> types.TracebackType | None:
    """The entries of ``exc``'s traceback in the test's own file: the lines the test was
    waiting on when the guard cancelled it, down into the first task of a nursery of
    the test. The frames below them (flowrt's and trio's) say nothing about the test."""
    path = inspect.unwrap(fn).__code__.co_filename
    entries = []
    while True:
        tb = exc.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == path:
                entries.append(tb)
            tb = tb.tb_next
        if not isinstance(exc, BaseExceptionGroup):
            break
        exc = exc.exceptions[0]
    out = None
    for tb in reversed(entries):
        out = types.TracebackType(out, tb.tb_frame, tb.tb_lasti, tb.tb_lineno)
    return out


def _guard_trio(fn: Callable[..., Any], guard: _Guard) -> Callable[..., Any]:
    @functools.wraps(fn)
    async def guarded(**kwargs: Any) -> Any:
        __tracebackhide__ = True
        with trio.CancelScope() as scope:
            guard.trio_cancel = canceller(scope)
            guard.start()
            try:
                await fn(**kwargs)
            except BaseException as exc:
                if guard.report is None or isinstance(exc, _Stalled):
                    raise
                # The guard's cancellation, raised at the line the test waited on.
                where = _test_lines(exc, fn)
                raise _Stalled(guard.message(), pytrace=where is not None).with_traceback(
                    where
                ) from None
        if guard.report is not None:  # the test swallowed the cancellation
            raise _Stalled(guard.message(), pytrace=False)

    return guarded


def _leaves(exc: BaseException) -> Iterator[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        for e in exc.exceptions:
            yield from _leaves(e)
    else:
        yield exc


def _unwrap_stall(group: BaseExceptionGroup) -> BaseException | None:
    """The guard's failure inside the exception group pytest-trio's nurseries wrap an
    async test's failure in, with what else the group held as notes; None if the test
    did not stall."""
    stalled, rest = group.split(_Stalled)
    if stalled is None:
        return None
    first = next(_leaves(stalled))
    for other in _leaves(rest) if rest is not None else ():
        first.add_note("Also raised while the test was stopped: %r" % other)
    return first


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    seconds = _timeout(item)
    fn = getattr(item, "obj", None)
    is_trio = item.get_closest_marker("trio") is not None
    if seconds <= 0 or fn is None or (is_trio and not inspect.iscoroutinefunction(fn)):
        return (yield)  # e.g. a trio test under Hypothesis: pytest-trio wraps its inner test
    guard = _Guard(seconds, item.nodeid)
    if is_trio:
        item.obj = _guard_trio(fn, guard)  # type: ignore[attr-defined]
    else:
        guard.start()
    try:
        return (yield)
    except BaseExceptionGroup as group:
        stalled = _unwrap_stall(group)
        if stalled is None:
            raise
        raise stalled from None
    finally:
        guard.stop()
        if is_trio:
            item.obj = fn  # type: ignore[attr-defined]
        for sess in guard.sessions:
            sess.close()
