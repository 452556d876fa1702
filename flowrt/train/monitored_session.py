"""``MonitoredSession`` and ``MonitoredTrainingSession``: a session with hooks, queue runners,
initialize-or-restore and recovery, as TF1 runs its training loops; sync or async.

What one ``run`` does, in TF1's order (TF1 layers this as Recoverable(Coordinated(Hooked))
sessions; here it is one loop):
  1. a session is created if there is none: the creator initializes or restores it, the
     queue runners start (threads, or trio tasks in the async form) and every hook's
     ``after_create_session`` runs;
  2. each hook's ``before_run`` adds its ``SessionRunArgs``; the caller's fetches and the
     hooks' go to the session in *one* run; each hook's ``after_run`` gets its results;
  3. an ``AbortedError``/``UnavailableError`` (from the run or the coordinator) closes the
     session and goes back to 1 (a ``MonitoredSession`` recovers; a
     ``SingularMonitoredSession`` does not).

The async form (``async with fr.train.MonitoredTrainingSession(...) as sess`` inside
trio, then ``await sess.arun(...)``) is the same loop: hooks may be ``async def`` (they
are awaited); plain hook methods, the session creator and the savers run on a worker
thread so file I/O never blocks the loop; queue runners are trio tasks.
"""

from __future__ import annotations

import contextlib
import enum
import inspect
import logging
from collections.abc import Callable, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any, Final, Literal, NoReturn, Self

import trio

from .. import errors
from .._core.graph import GraphKeys, get_default_graph
from ..session_options import RunMetadata, RunOptions
from . import basic_session_run_hooks as _hooks
from .coordinator import Coordinator
from .queue_runner import QueueRunnerTasks, _single, start_queue_runners, start_queue_runners_async
from .scaffold import ChiefSessionCreator, Scaffold, SessionCreator, WorkerSessionCreator
from .session_run_hook import SessionRunArgs, SessionRunContext, SessionRunHook, SessionRunValues

__all__ = ["MonitoredSession", "SingularMonitoredSession", "MonitoredTrainingSession"]

_log = logging.getLogger("flowrt.train")

if TYPE_CHECKING:
    from .._core.graph import Graph
    from ..session import Session
    from ..session_options import ConfigProto

_PREEMPTION_ERRORS = (errors.AbortedError, errors.UnavailableError)


class UseDefault(enum.Enum):
    """The type of ``USE_DEFAULT``: an argument left to its TF1 default."""

    USE_DEFAULT = "USE_DEFAULT"


USE_DEFAULT: Final = UseDefault.USE_DEFAULT


# --------------------------------------------------------------------------------------
# How hooks are called and runs are made: synchronously, or on trio
# --------------------------------------------------------------------------------------


class _Sync:
    """Hooks called in place, ``sess.run``; its coroutines never suspend (see _drive)."""

    is_async = False

    @staticmethod
    async def call(graph, fn, *args):
        result = _carry_stop(fn, *args)
        if (
            result is not None
            and type(result) is not SessionRunArgs
            and inspect.isawaitable(result)
        ):
            if inspect.iscoroutine(result):
                result.close()
            raise TypeError(
                "%s returned an awaitable: async hooks work only in the async "
                "form, `async with fr.train.MonitoredTrainingSession(...) as "
                "sess:` with `await sess.arun(...)`" % getattr(fn, "__qualname__", fn)
            )
        return result

    async def call_each(self, graph, calls):
        return [None if _is_noop(fn) else await self.call(graph, fn, *args) for fn, args in calls]

    @staticmethod
    async def run(sess, fetches, feed_dict, options, run_metadata):
        return sess.run(fetches, feed_dict, options, run_metadata)


class _Async:
    """``async def`` hooks awaited; plain ones (and creators) on a worker thread, in order,
    consecutive plain calls in one thread hop; ``await sess.arun``."""

    is_async = True

    @staticmethod
    def _in_graph(graph, calls):
        with graph.as_default():
            return [_carry_stop(fn, *args) for fn, args in calls]

    async def call(self, graph, fn, *args):
        return (await self.call_each(graph, [(fn, args)]))[0]

    async def call_each(self, graph, calls):
        out, batch = [], []
        for fn, args in calls + [(None, None)]:
            if fn is not None and _is_noop(fn):
                if batch:
                    batch.append((_none, ()))
                else:
                    out.append(None)
                continue
            if fn is not None and not inspect.iscoroutinefunction(fn):
                batch.append((fn, args))
                continue
            if batch:
                out.extend(await trio.to_thread.run_sync(self._in_graph, graph, batch))
                batch = []
            if fn is not None:
                out.append(await fn(*args))
        return out

    @staticmethod
    async def run(sess, fetches, feed_dict, options, run_metadata):
        return await sess.arun(fetches, feed_dict, options, run_metadata)


# SessionRunHook's own (empty) methods: calls to them are skipped, so a hook that does not
# override a method costs nothing there (no thread hop in the trio form).
_NOOPS = frozenset(
    getattr(SessionRunHook, n)
    for n in ("begin", "after_create_session", "before_run", "after_run", "end")
)


def _is_noop(fn) -> bool:
    return getattr(fn, "__func__", None) in _NOOPS


def _none():
    return None


def _drive(coro):
    """Runs a coroutine of the _Sync mode to its end (it never suspends); a StopIteration
    a hook or step_fn raised comes out as itself."""
    try:
        coro.send(None)
    except StopIteration as done:
        return done.value
    except _StepStopError as e:
        raise StopIteration(*e.args) from None
    coro.close()
    raise RuntimeError("a synchronous MonitoredSession step tried to wait on trio")


class _StepStopError(Exception):
    """StopIteration raised by a hook or step_fn, carried out of a coroutine (PEP 479
    would make it a RuntimeError) and raised again as StopIteration to the caller."""


def _carry_stop(fn, *args):
    """``fn(*args)``, its StopIteration carried as _StepStopError."""
    try:
        return fn(*args)
    except StopIteration as e:
        raise _StepStopError(*e.args) from None


def _merge_options(options, extra):
    return RunOptions(
        timeout_in_ms=max(
            getattr(options, "timeout_in_ms", 0) or 0, getattr(extra, "timeout_in_ms", 0) or 0
        ),
        trace_level=max(
            getattr(options, "trace_level", 0) or 0, getattr(extra, "trace_level", 0) or 0
        ),
    )


def _check_disjoint(feeds1, feeds2, message):
    both = set(feeds1) & set(feeds2)
    if both:
        raise RuntimeError(message + " Conflict(s): " + str(list(both)))


# --------------------------------------------------------------------------------------
# MonitoredSession
# --------------------------------------------------------------------------------------


class _MonitoredSession:
    """The shared body of ``MonitoredSession`` and ``SingularMonitoredSession``."""

    def __init__(
        self,
        session_creator: SessionCreator,
        hooks: Sequence[SessionRunHook] | None,
        should_recover: bool,
        stop_grace_period_secs: float = 120,
    ) -> None:
        self._graph = get_default_graph()
        self._graph_was_finalized = self._graph.finalized
        self._hooks = list(hooks or [])
        self._creator = session_creator
        self._should_recover = should_recover
        self._grace = stop_grace_period_secs
        self._tf_sess: Session | None = None
        self._coord: Coordinator | None = None
        self._threads: list = []
        self._tasks: QueueRunnerTasks | None = None
        self._hooks_stop = False
        self._needs_recovery = False
        self._closed = False
        self._nursery: trio.Nursery | None = None
        self._stack: contextlib.AsyncExitStack[bool | None] | None = None
        self._mode: _Async | _Sync = _Async() if trio.lowlevel.in_trio_run() else _Sync()
        if not self._mode.is_async:
            _drive(self._open())

    # --- creating and closing ------------------------------------------------------------

    async def _open(self):
        await self._mode.call_each(self._graph, [(h.begin, ()) for h in self._hooks])
        await self._create()

    async def _create(self):
        while True:
            try:
                return await self._create_once()
            except _PREEMPTION_ERRORS as e:
                if not self._should_recover:
                    await self._discard_session()
                    raise
                _log.info(
                    "An error was raised while a session was being created: %s. "
                    "Creating a new session.",
                    e,
                )
                await self._close_session(recovering=True)
            except BaseException:
                await self._discard_session()
                raise

    async def _discard_session(self):
        """Closes a session whose creation failed half-way (its error is the one raised)."""
        try:
            await self._close_session(recovering=True)
        except Exception as e:  # the creation error is what matters
            _log.debug("Ignored exception while discarding a session: %s", e)

    async def _create_once(self):
        self._tf_sess = await self._mode.call(self._graph, self._creator.create_session)
        self._coord = Coordinator(clean_stop_exception_types=[])
        self._hooks_stop = False
        if self._graph.get_collection(GraphKeys.QUEUE_RUNNERS):
            if self._mode.is_async:
                self._tasks = await start_queue_runners_async(self._tf_sess, self._nursery)
            else:
                self._threads = start_queue_runners(self._tf_sess, self._coord)
        await self._mode.call_each(
            self._graph,
            [(h.after_create_session, (self._tf_sess, self._coord)) for h in self._hooks],
        )

    async def _close_session(self, recovering=False):
        """Stops the queue runners and closes the raw session (the coordinator's error,
        if any, is raised after, unless recovering from a preemption)."""
        sess, coord, tasks, threads = self._tf_sess, self._coord, self._tasks, self._threads
        self._tf_sess, self._tasks, self._threads = None, None, []
        self._needs_recovery = False
        if sess is None:
            return
        # Closing completes even when the task is being cancelled (trio form).
        shield = trio.CancelScope(shield=True) if self._mode.is_async else contextlib.nullcontext()
        try:
            with shield:
                await self._stop_runners(coord, tasks, threads)
        except _PREEMPTION_ERRORS as e:
            if not recovering:
                raise
            _log.error("An error occurred while closing the session for recovery: %s", e)
        finally:
            try:
                sess.close()
            except Exception as e:  # as TF1, closing must not mask the cause
                _log.debug("Ignored exception while closing a session: %s", e)

    async def _stop_runners(self, coord, tasks, threads):
        coord.request_stop()
        if tasks is not None:
            await tasks.stop()
        await self._mode.call(self._graph, coord.join, threads, self._grace, True)

    async def _close_internal(self, exception_type=None):
        if self._closed:
            raise RuntimeError("Session is already closed.")
        try:
            if exception_type is None and self._tf_sess is not None:
                await self._mode.call_each(
                    self._graph, [(h.end, (self._tf_sess,)) for h in self._hooks]
                )
        finally:
            try:
                await self._close_session()
            finally:
                self._closed = True
                if not self._graph_was_finalized:
                    self._graph._unsafe_unfinalize()

    # --- stopping ------------------------------------------------------------------------

    def should_stop(self) -> bool:
        """True when a hook or the coordinator asked to stop, or the session is closed.

        A preemption error reported to the coordinator gives False, with the session
        recreated (``MonitoredSession`` only; in the trio form the next run recreates it).
        """
        if self._closed or (self._tf_sess is None and not self._needs_recovery):
            return True
        if self._needs_recovery:
            return False
        try:
            coord = self._coord
            assert coord is not None  # made with the session
            coord.raise_requested_exception()
            if coord.should_stop():
                return True
        except _PREEMPTION_ERRORS:
            if not self._should_recover:
                return True
            self._needs_recovery = True
            if not self._mode.is_async:
                _drive(self._ensure_session())
            return False
        except Exception:  # TF1: should_stop() answers True, never raises
            return True
        return self._hooks_stop

    # --- running -------------------------------------------------------------------------

    async def _ensure_session(self):
        if self._closed:
            raise RuntimeError("Attempted to use a closed MonitoredSession.")
        if self._needs_recovery:
            await self._close_session(recovering=True)
        if self._tf_sess is None:
            await self._create()

    async def _recovering(self, attempt):
        """Calls ``await attempt()`` until it succeeds, recreating the session after each
        preemption error (when this session recovers)."""
        while True:
            await self._ensure_session()
            try:
                return await attempt()
            except _PREEMPTION_ERRORS as e:
                if not self._should_recover:
                    raise
                _log.info(
                    "An error was raised. This may be due to a preemption in a "
                    "connected worker or parameter server. The current session will "
                    "be closed and a new session will be created: %s",
                    e,
                )
                self._needs_recovery = True

    async def _coordinated(self, attempt):
        try:
            return await attempt()
        except _PREEMPTION_ERRORS:
            raise
        except Exception:
            # The error may come from a preemption a queue runner reported: raise that.
            try:
                self._coord.raise_requested_exception()
            except _PREEMPTION_ERRORS:
                raise
            except Exception:  # the run's own error is raised below
                pass
            raise

    async def _hooked_run(self, fetches, feed_dict, options, run_metadata):
        if self._hooks_stop:
            raise RuntimeError("Run called even after should_stop requested.")
        hooks = self._hooks
        run_context = SessionRunContext(SessionRunArgs(fetches, feed_dict), self._tf_sess)
        # The session sees options/run_metadata only when the caller or a hook asked for
        # options; the hooks always get objects (as TF1 hands them).
        traced = options is not None or run_metadata is not None
        options = options if options is not None else RunOptions()
        requests = await self._mode.call_each(
            self._graph, [(h.before_run, (run_context,)) for h in hooks]
        )
        # One flat list: a run of plain elements (the common case) hits the session's
        # cached fetch path.
        actual_fetches, owners = [fetches], [None]
        hook_feeds: dict = {}
        for hook, request in zip(hooks, requests):
            if request is None:
                continue
            if request.fetches is not None:
                actual_fetches.append(request.fetches)
                owners.append(hook)
            if request.feed_dict:
                _check_disjoint(hook_feeds, request.feed_dict, "Same tensor is fed by two hooks.")
                hook_feeds.update(request.feed_dict)
            if request.options is not None:
                options = _merge_options(options, request.options)
                traced = True
        if hook_feeds:
            if feed_dict:
                _check_disjoint(
                    feed_dict, hook_feeds, "Same tensor is fed by a SessionRunHook and user."
                )
                feed_dict = {**feed_dict, **hook_feeds}
            else:
                feed_dict = hook_feeds
        run_metadata = run_metadata if run_metadata is not None else RunMetadata()
        outputs = await self._mode.run(
            self._tf_sess,
            actual_fetches,
            feed_dict,
            options if traced else None,
            run_metadata if traced else None,
        )
        results = dict(zip(owners, outputs))
        await self._mode.call_each(
            self._graph,
            [
                (
                    h.after_run,
                    (run_context, SessionRunValues(results.get(h), options, run_metadata)),
                )
                for h in hooks
            ],
        )
        self._hooks_stop = self._hooks_stop or run_context.stop_requested
        return outputs[0]

    async def _unrecovered_run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """A step_fn's ``run_with_hooks``: a preemption error reaches ``_run_step_fn``,
        which recreates the session and calls the step_fn again (as TF1)."""
        return await self._coordinated(
            lambda: self._hooked_run(fetches, feed_dict, options, run_metadata)
        )

    async def _run(self, fetches, feed_dict, options, run_metadata):
        return await self._recovering(
            lambda: self._unrecovered_run(fetches, feed_dict, options, run_metadata)
        )

    async def _run_step_fn(self, step_fn, run_with_hooks):
        async def attempt():
            result = _carry_stop(step_fn, _StepContext(self._tf_sess, run_with_hooks))
            if inspect.isawaitable(result):
                result = await result
            return result

        return await self._recovering(lambda: self._coordinated(attempt))

    # --- the sync form -------------------------------------------------------------------

    def _check_sync(self, what):
        if self._mode.is_async:
            raise RuntimeError(
                "This MonitoredSession was created inside trio: use `async "
                "with` and `await sess.%s(...)`." % what
            )

    def run(
        self,
        fetches: Any,
        feed_dict: dict[Any, Any] | None = None,
        options: RunOptions | None = None,
        run_metadata: RunMetadata | None = None,
    ) -> Any:
        """Runs ``fetches`` with the hooks' ``SessionRunArgs`` in the same ``Session.run``.

        Returns:
          The caller's fetches' values (the hooks' go to their ``after_run``).

        Raises:
          RuntimeError: a hook requested a stop before (``should_stop()`` was True).
        """
        self._check_sync("arun")
        return _drive(self._run(fetches, feed_dict, options, run_metadata))

    def run_step_fn(self, step_fn: Callable[[_StepContext], Any]) -> Any:
        """Calls ``step_fn(step_context)`` (recovering as ``run`` does) and returns its
        result; ``step_context.run_with_hooks(...)`` is ``run``, ``step_context.session``
        the raw session, ``step_context.request_stop()`` ends the loop."""
        self._check_sync("arun_step_fn")

        def run_with_hooks(fetches, feed_dict=None, options=None, run_metadata=None):
            return _drive(self._unrecovered_run(fetches, feed_dict, options, run_metadata))

        return _drive(self._run_step_fn(step_fn, run_with_hooks))

    def close(self) -> None:
        """Calls the hooks' ``end``, stops the queue runners and closes the session."""
        self._check_sync("aclose")
        _drive(self._close_internal())

    def __enter__(self) -> Self:
        self._check_sync("arun")
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool:
        if exc_type is not None and issubclass(exc_type, (errors.OutOfRangeError, StopIteration)):
            exc_type = None  # the input is exhausted / a step_fn stopped: a clean end
        _drive(self._close_internal(exc_type))
        return exc_type is None

    # --- the async form ------------------------------------------------------------------

    def _check_async(self, what):
        if not self._mode.is_async:
            raise RuntimeError(
                "This MonitoredSession was created outside trio: use `with` "
                "and `sess.%s(...)`." % what
            )

    async def arun(
        self,
        fetches: Any,
        feed_dict: dict[Any, Any] | None = None,
        options: RunOptions | None = None,
        run_metadata: RunMetadata | None = None,
    ) -> Any:
        """``run`` for trio programs (inside ``async with``)."""
        self._check_async("run")
        if self._stack is None:
            raise RuntimeError("Use the async MonitoredSession as `async with ... as sess:`.")
        try:
            return await self._run(fetches, feed_dict, options, run_metadata)
        except _StepStopError as e:
            raise StopIteration(*e.args) from None

    async def arun_step_fn(self, step_fn: Callable[[_StepContext], Any]) -> Any:
        """``run_step_fn`` for trio programs: ``step_fn`` may be ``async def``; its
        ``step_context.run_with_hooks`` is ``arun``."""
        self._check_async("run_step_fn")
        try:
            return await self._run_step_fn(step_fn, self._unrecovered_run)
        except _StepStopError as e:
            raise StopIteration(*e.args) from None

    async def aclose(self) -> None:
        """``close`` for trio programs."""
        self._check_async("close")
        await self._close_internal()

    async def __aenter__(self) -> Self:
        self._check_async("__enter__")
        self._stack = contextlib.AsyncExitStack()
        await self._stack.__aenter__()
        try:
            self._nursery = await self._stack.enter_async_context(trio.open_nursery())
            await self._open()
        except BaseException as e:
            await self._exit_stack(e)
            raise
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool:
        clean = exc_type is None or issubclass(exc_type, (errors.OutOfRangeError, StopIteration))
        pending = None if clean else exc
        try:
            if not self._closed:
                await self._close_internal(None if clean else exc_type)
        except BaseException as e:
            pending = e
        await self._exit_stack(pending)
        if pending is None:
            return True
        if pending is exc:
            return False
        raise pending

    async def _exit_stack(self, pending):
        stack, self._stack = self._stack, None
        try:
            if pending is None:
                await stack.__aexit__(None, None, None)
            else:
                await stack.__aexit__(type(pending), pending, pending.__traceback__)
        except BaseExceptionGroup as eg:
            raise _single(eg) from None

    # --- misc ----------------------------------------------------------------------------

    @property
    def graph(self) -> Graph:
        """The graph this session runs."""
        return self._graph


class _StepContext:
    """What ``run_step_fn``'s ``step_fn`` gets: the raw ``session``, ``run_with_hooks``
    and ``request_stop()``."""

    def __init__(self, session: Session, run_with_hooks: Callable[..., Any]) -> None:
        self._session = session
        self._run_with_hooks = run_with_hooks

    @property
    def session(self) -> Session:
        return self._session

    def run_with_hooks(self, *args: Any, **kwargs: Any) -> Any:
        return self._run_with_hooks(*args, **kwargs)

    def request_stop(self) -> NoReturn:
        """Ends the loop: raises StopIteration, which the ``with`` block treats as a clean
        end."""
        raise StopIteration("step_fn has requested the iterations to stop.")


class MonitoredSession(_MonitoredSession):
    """A session that calls hooks, runs queue runners, and recovers from preemptions.

    Example:
      with fr.train.MonitoredSession(hooks=[fr.train.StopAtStepHook(last_step=100)]) as s:
          while not s.should_stop():
              s.run(train_op)

    Args:
      session_creator: a ``SessionCreator`` (default ``ChiefSessionCreator()``).
      hooks: ``SessionRunHook``s.
      stop_grace_period_secs: how long queue-runner threads get to end on close.

    Note (flowrt): created inside a trio run, it is the async form: use
    ``async with``, ``await sess.arun(...)``; hook methods may then be ``async def``.
    """

    def __init__(
        self,
        session_creator: SessionCreator | None = None,
        hooks: Sequence[SessionRunHook] | None = None,
        stop_grace_period_secs: float = 120,
    ) -> None:
        super().__init__(
            session_creator or ChiefSessionCreator(),
            hooks,
            should_recover=True,
            stop_grace_period_secs=stop_grace_period_secs,
        )


class SingularMonitoredSession(_MonitoredSession):
    """A ``MonitoredSession`` for one process, without recovery, with ``raw_session()``.

    Args:
      hooks: ``SessionRunHook``s.
      scaffold: the ``Scaffold``.
      master: the session target ('' in-process, or ``server.target`` of a cluster task).
      config: the session's ``ConfigProto``.
      checkpoint_dir: restore from its latest checkpoint when there is one.
      stop_grace_period_secs: how long queue-runner threads get to end on close.
      checkpoint_filename_with_path: restore from this checkpoint.
    """

    def __init__(
        self,
        hooks: Sequence[SessionRunHook] | None = None,
        scaffold: Scaffold | None = None,
        master: str = "",
        config: ConfigProto | None = None,
        checkpoint_dir: str | None = None,
        stop_grace_period_secs: float = 120,
        checkpoint_filename_with_path: str | None = None,
    ) -> None:
        creator = ChiefSessionCreator(
            scaffold=scaffold,
            master=master,
            config=config,
            checkpoint_dir=checkpoint_dir,
            checkpoint_filename_with_path=checkpoint_filename_with_path,
        )
        super().__init__(
            creator, hooks, should_recover=False, stop_grace_period_secs=stop_grace_period_secs
        )

    def raw_session(self) -> Session | None:
        """The underlying ``fr.Session``."""
        return self._tf_sess


def _periods(
    steps: int | None | Literal[UseDefault.USE_DEFAULT],
    secs: float | None | Literal[UseDefault.USE_DEFAULT],
    default_steps: int | None,
    default_secs: float | None,
) -> tuple[int | None, float | None]:
    """A hook's (every N steps, every N seconds): the defaults when both are left to
    ``USE_DEFAULT``, else the one given (the other None)."""
    if steps is USE_DEFAULT and secs is USE_DEFAULT:
        return default_steps, default_secs
    return (None if steps is USE_DEFAULT else steps, None if secs is USE_DEFAULT else secs)


def MonitoredTrainingSession(
    master: str = "",
    is_chief: bool = True,
    checkpoint_dir: str | None = None,
    scaffold: Scaffold | None = None,
    hooks: Sequence[SessionRunHook] | None = None,
    chief_only_hooks: Sequence[SessionRunHook] | None = None,
    save_checkpoint_secs: float | None | Literal[UseDefault.USE_DEFAULT] = USE_DEFAULT,
    save_summaries_steps: int | None | Literal[UseDefault.USE_DEFAULT] = USE_DEFAULT,
    save_summaries_secs: float | None | Literal[UseDefault.USE_DEFAULT] = USE_DEFAULT,
    config: ConfigProto | None = None,
    stop_grace_period_secs: float = 120,
    log_step_count_steps: int | None = 100,
    max_wait_secs: float = 7200,
    save_checkpoint_steps: int | None | Literal[UseDefault.USE_DEFAULT] = USE_DEFAULT,
    summary_dir: str | None = None,
    save_graph_def: bool = True,
) -> MonitoredSession:
    """A ``MonitoredSession`` set up for training, as TF1's.

    The chief restores from ``checkpoint_dir`` (or initializes) and gets, besides
    ``hooks`` and ``chief_only_hooks``: a ``StepCounterHook`` (every
    ``log_step_count_steps``) and a ``SummarySaverHook`` (default every 100 steps)
    writing to ``summary_dir`` (default ``checkpoint_dir``), and a
    ``CheckpointSaverHook`` (default every 600 seconds) when ``checkpoint_dir`` is set.

    Args:
      master: the session target ('' in-process, or ``server.target`` of a cluster task).
      is_chief: a chief initializes or restores and saves; others wait for readiness.
      checkpoint_dir: where to restore from and save to.
      scaffold: the ``Scaffold``.
      hooks: hooks for every worker.
      chief_only_hooks: hooks for the chief only.
      save_checkpoint_secs: seconds between checkpoints (default 600 unless
        ``save_checkpoint_steps`` is given); None or 0 disables.
      save_summaries_steps: steps between summaries (default 100 unless
        ``save_summaries_secs`` is given); None or 0 disables.
      save_summaries_secs: seconds between summaries.
      config: the session's ``ConfigProto``.
      stop_grace_period_secs: how long queue-runner threads get to end on close.
      log_step_count_steps: steps between ``global_step/sec`` logs; None or 0 disables.
      max_wait_secs: how long a non-chief waits for the model to be ready.
      save_checkpoint_steps: steps between checkpoints.
      summary_dir: where summaries go (default ``checkpoint_dir``).
      save_graph_def: passed to the ``CheckpointSaverHook``: whether it writes the graph
        with the checkpoints.

    Returns:
      A ``MonitoredSession`` (the async form when called inside trio).
    """
    save_summaries_steps, save_summaries_secs = _periods(
        save_summaries_steps, save_summaries_secs, 100, None
    )
    save_checkpoint_steps, save_checkpoint_secs = _periods(
        save_checkpoint_steps, save_checkpoint_secs, None, 600
    )
    scaffold = scaffold or Scaffold()
    if not is_chief:
        creator: ChiefSessionCreator | WorkerSessionCreator = WorkerSessionCreator(
            scaffold=scaffold, master=master, config=config, max_wait_secs=max_wait_secs
        )
        return MonitoredSession(
            creator, hooks=hooks or [], stop_grace_period_secs=stop_grace_period_secs
        )
    all_hooks = list(chief_only_hooks or [])
    creator = ChiefSessionCreator(
        scaffold=scaffold, checkpoint_dir=checkpoint_dir, master=master, config=config
    )
    summary_dir = summary_dir or checkpoint_dir
    if summary_dir:
        if log_step_count_steps and log_step_count_steps > 0:
            all_hooks.append(
                _hooks.StepCounterHook(output_dir=summary_dir, every_n_steps=log_step_count_steps)
            )
        if (save_summaries_steps and save_summaries_steps > 0) or (
            save_summaries_secs and save_summaries_secs > 0
        ):
            all_hooks.append(
                _hooks.SummarySaverHook(
                    scaffold=scaffold,
                    save_steps=save_summaries_steps,
                    save_secs=save_summaries_secs,
                    output_dir=summary_dir,
                )
            )
    if checkpoint_dir and (
        (save_checkpoint_secs and save_checkpoint_secs > 0)
        or (save_checkpoint_steps and save_checkpoint_steps > 0)
    ):
        all_hooks.append(
            _hooks.CheckpointSaverHook(
                checkpoint_dir,
                save_steps=save_checkpoint_steps,
                save_secs=save_checkpoint_secs,
                scaffold=scaffold,
                save_graph_def=save_graph_def,
            )
        )
    all_hooks.extend(hooks or [])
    return MonitoredSession(creator, hooks=all_hooks, stop_grace_period_secs=stop_grace_period_secs)
