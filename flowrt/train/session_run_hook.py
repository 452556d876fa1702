"""``SessionRunHook`` and the records passed to hooks around each ``MonitoredSession.run``.

A hook sees a run in this order (TF1's): ``begin()`` once while the graph can still be
changed; ``after_create_session(session, coord)`` each time a session is created (again
after a recovery); then for every ``run``: ``before_run(run_context)``, whose
``SessionRunArgs`` are fetched and fed *in the same run* as the caller's, then
``after_run(run_context, run_values)`` with those results; ``end(session)`` on a clean
close.
"""

from __future__ import annotations

import collections
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..session import Session
    from ..session_options import RunOptions
    from .coordinator import Coordinator

__all__ = ["SessionRunHook", "SessionRunArgs", "SessionRunContext", "SessionRunValues"]


class SessionRunHook:
    """Hook to extend calls to ``MonitoredSession.run()`` (TF1 ``tf.train.SessionRunHook``).

    Subclass it and override any of the methods; the defaults do nothing.

    Note (flowrt): inside ``async with fr.train.MonitoredTrainingSession(...)`` a hook
    method may be a coroutine function (``async def``); it is awaited on the trio loop.
    Plain methods there run on a worker thread, so they may call ``session.run`` and do
    file I/O without blocking the loop.
    """

    def begin(self) -> None | Awaitable[None]:
        """Called once before the session is created; the graph may still be changed."""

    def after_create_session(self, session: Session, coord: Coordinator) -> None | Awaitable[None]:
        """Called when a session was created (and initialized or restored).

        Args:
          session: the raw ``fr.Session`` (run ops in it without calling hooks).
          coord: the ``Coordinator`` of the session's threads.
        """

    def before_run(
        self, run_context: SessionRunContext
    ) -> SessionRunArgs | None | Awaitable[SessionRunArgs | None]:
        """Called before each run; may return ``SessionRunArgs`` to add to it (or None).

        Args:
          run_context: a ``SessionRunContext``.
        """
        return None

    def after_run(
        self, run_context: SessionRunContext, run_values: SessionRunValues
    ) -> None | Awaitable[None]:
        """Called after each run, with the results of this hook's ``SessionRunArgs``.

        Args:
          run_context: the same ``SessionRunContext`` passed to ``before_run``.
          run_values: a ``SessionRunValues``.
        """

    def end(self, session: Session) -> None | Awaitable[None]:
        """Called when the session is closed without an error (or on ``OutOfRangeError``)."""


class SessionRunArgs(collections.namedtuple("SessionRunArgs", ["fetches", "feed_dict", "options"])):
    """What a hook adds to a run: ``fetches`` (any fetch structure), ``feed_dict``,
    ``options`` (``fr.RunOptions``)."""

    __slots__ = ()

    def __new__(
        cls,
        fetches: Any,
        feed_dict: dict[Any, Any] | None = None,
        options: RunOptions | None = None,
    ) -> SessionRunArgs:
        return super().__new__(cls, fetches, feed_dict, options)


class SessionRunContext:
    """The run being made: ``original_args`` (the caller's ``SessionRunArgs``) and the raw
    ``session``; a hook may ``request_stop()``.

    Args:
      original_args: the caller's ``SessionRunArgs``.
      session: the raw ``fr.Session``.
    """

    def __init__(self, original_args: SessionRunArgs, session: Session) -> None:
        self._original_args = original_args
        self._session = session
        self._stop_requested = False

    @property
    def original_args(self) -> SessionRunArgs:
        return self._original_args

    @property
    def session(self) -> Session:
        return self._session

    @property
    def stop_requested(self) -> bool:
        return self._stop_requested

    def request_stop(self) -> None:
        """Asks the ``MonitoredSession`` to stop: ``should_stop()`` becomes True after
        this run."""
        self._stop_requested = True


class SessionRunValues(
    collections.namedtuple("SessionRunValues", ["results", "options", "run_metadata"])
):
    """The results of a hook's ``SessionRunArgs.fetches`` (same structure), the run's
    ``options`` and ``run_metadata``."""

    __slots__ = ()
