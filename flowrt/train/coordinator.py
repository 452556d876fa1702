"""``fr.train.Coordinator``: stops a set of threads together and reports their errors.

Behaves as TF1's ``tf.train.Coordinator``: threads poll ``should_stop()``; any of them
may ``request_stop(ex)``; ``join()`` waits for them, gives laggards a grace period after
the stop request and re-raises the first exception reported.
"""

from __future__ import annotations

import contextlib
import logging
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from .. import errors

__all__ = ["Coordinator", "LooperThread"]

_log = logging.getLogger("flowrt.train")


class Coordinator:
    """A coordinator for threads: one stop flag, the first error, and ``join``.

    Thread code::

        with coord.stop_on_exception():
            while not coord.should_stop():
                ...do some work...

    Main code::

        coord = fr.train.Coordinator()
        threads = fr.train.start_queue_runners(sess, coord)
        ...
        coord.request_stop()
        coord.join(threads)  # re-raises an exception a thread reported

    Args:
      clean_stop_exception_types: exception types that, reported to
        ``request_stop(ex)``, count as a clean stop (as if ``request_stop()``).
        Defaults to ``(fr.errors.OutOfRangeError,)``, which input queues raise at the
        end of their input.
    """

    def __init__(
        self, clean_stop_exception_types: Iterable[type[BaseException]] | None = None
    ) -> None:
        if clean_stop_exception_types is None:
            clean_stop_exception_types = (errors.OutOfRangeError,)
        self._clean_stop_exception_types = tuple(clean_stop_exception_types)
        self._lock = threading.Lock()
        self._stop_event = threading.Event()
        self._exc_info_to_raise: tuple[Any, Any, Any] | None = None
        self._joined = False
        self._registered_threads: set = set()

    def _filter_exception(
        self, ex: BaseException | tuple[Any, Any, Any] | None
    ) -> BaseException | tuple[Any, Any, Any] | None:
        """``ex`` unless it is one of the clean-stop types (then None)."""
        ex2 = ex[1] if isinstance(ex, tuple) else ex
        if isinstance(ex2, self._clean_stop_exception_types):
            return None
        return ex

    def request_stop(self, ex: BaseException | tuple[Any, Any, Any] | None = None) -> None:
        """Asks all threads to stop; ``should_stop()`` is True from now on.

        Args:
          ex: an exception being handled (call this from an ``except`` block) or a
            ``sys.exc_info()`` tuple. The first one reported is re-raised by ``join()``.
            After ``join()`` has returned, reporting an exception raises it here.
        """
        with self._lock:
            ex = self._filter_exception(ex)
            if self._joined:
                if isinstance(ex, tuple):
                    raise ex[1]
                if ex is not None:
                    raise sys.exc_info()[1] or ex
            if self._stop_event.is_set():
                return
            if ex and self._exc_info_to_raise is None:
                if isinstance(ex, tuple):
                    info = ex
                else:
                    info = sys.exc_info()
                    if info[1] is None:
                        # TF1 requires the exception being handled; flowrt also accepts
                        # an exception instance passed from elsewhere.
                        info = (type(ex), ex, ex.__traceback__)
                if len(info) != 3 or not info[0] or not info[1]:
                    try:
                        raise ValueError(
                            "ex must be a tuple or sys.exc_info must return "
                            "the current exception: %s" % (info,)
                        )
                    except ValueError:
                        info = sys.exc_info()
                _log.info("Error reported to Coordinator: %s, %s", info[0], info[1])
                self._exc_info_to_raise = info
            self._stop_event.set()

    def clear_stop(self) -> None:
        """Clears the stop flag and the recorded exception; ``should_stop()`` is False."""
        with self._lock:
            self._joined = False
            self._exc_info_to_raise = None
            self._stop_event.clear()

    def should_stop(self) -> bool:
        """True if a stop was requested."""
        return self._stop_event.is_set()

    @contextlib.contextmanager
    def stop_on_exception(self) -> Iterator[None]:
        """Requests a stop, reporting the exception, if the block raises.

        Equivalent to ``try: ...body... except: coord.request_stop(sys.exc_info())``;
        the exception does not propagate out of the block.
        """
        try:
            yield
        except:  # noqa: E722 - TF1 catches everything here, as documented
            self.request_stop(ex=sys.exc_info())

    def wait_for_stop(self, timeout: float | None = None) -> bool:
        """Waits until a stop is requested; False if ``timeout`` seconds passed first."""
        return self._stop_event.wait(timeout)

    def register_thread(self, thread: threading.Thread) -> None:
        """Adds ``thread`` to the threads that ``join()`` waits for."""
        with self._lock:
            self._registered_threads.add(thread)

    def join(
        self,
        threads: Iterable[threading.Thread] | None = None,
        stop_grace_period_secs: float = 120,
        ignore_live_threads: bool = False,
    ) -> None:
        """Waits for the threads (given and registered) to end.

        Returns when all have ended, or when a stop was requested and then
        ``stop_grace_period_secs`` passed. Then re-raises the first exception
        reported to ``request_stop``, if any.

        Args:
          threads: started threads to wait for, besides the registered ones.
          stop_grace_period_secs: how long threads get to end after ``request_stop``.
          ignore_live_threads: if True, only log threads still alive after the grace
            period instead of raising.

        Raises:
          RuntimeError: ``Coordinator stopped with threads still running: <names>``
            when a thread outlived the grace period (and no exception was reported).
        """
        with self._lock:
            if threads is None:
                threads = self._registered_threads
            else:
                threads = self._registered_threads.union(set(threads))
            threads = list(threads)
        # Until a stop is requested, wait for the threads to end by themselves. Joining
        # one thread at a time would miss a stop requested meanwhile, so wait on the
        # stop event in short slices instead.
        while any(t.is_alive() for t in threads) and not self.wait_for_stop(0.05):
            pass
        deadline = time.monotonic() + max(stop_grace_period_secs, 0.0)
        for t in threads:
            if t is threading.current_thread() or not t.is_alive():
                continue
            t.join(max(deadline - time.monotonic(), 0.0))
        stragglers = [t.name for t in threads if t.is_alive()]
        with self._lock:
            self._joined = True
            self._registered_threads = set()
            if self._exc_info_to_raise:
                raise self._exc_info_to_raise[1]
            if stragglers:
                if ignore_live_threads:
                    _log.info(
                        "Coordinator stopped with threads still running: %s", " ".join(stragglers)
                    )
                else:
                    raise RuntimeError(
                        "Coordinator stopped with threads still running: %s" % " ".join(stragglers)
                    )

    @property
    def joined(self) -> bool:
        """True once ``join()`` has finished waiting."""
        return self._joined

    def raise_requested_exception(self) -> None:
        """Raises the exception passed to ``request_stop``, if any."""
        with self._lock:
            if self._exc_info_to_raise:
                raise self._exc_info_to_raise[1]


class LooperThread(threading.Thread):
    """A daemon thread that runs code repeatedly (optionally on a timer) until the
    coordinator requests a stop; an exception is reported to the coordinator.

    Args:
      coord: a ``Coordinator``; the thread registers itself with it.
      timer_interval_secs: run at these time boundaries, or back to back if None.
      target: the function to run; else override ``run_loop``.
      args: its positional arguments.
      kwargs: its keyword arguments.
    """

    def __init__(
        self,
        coord: Coordinator,
        timer_interval_secs: float | None,
        target: Callable[..., Any] | None = None,
        args: Iterable[Any] | None = None,
        kwargs: dict[str, Any] | None = None,
    ) -> None:
        if not isinstance(coord, Coordinator):
            raise ValueError("'coord' argument must be a Coordinator: %s" % coord)
        super().__init__()
        self.daemon = True
        self._coord = coord
        self._timer_interval_secs = timer_interval_secs
        self._target = target
        if self._target:
            self._args = args or ()
            self._kwargs = kwargs or {}
        elif args or kwargs:
            raise ValueError("'args' and 'kwargs' argument require that you also pass 'target'")
        self._coord.register_thread(self)

    @staticmethod
    def loop(
        coord: Coordinator,
        timer_interval_secs: float | None,
        target: Callable[..., Any],
        args: Iterable[Any] | None = None,
        kwargs: dict[str, Any] | None = None,
    ) -> LooperThread:
        """Starts a LooperThread calling ``target`` repeatedly; returns it."""
        looper = LooperThread(coord, timer_interval_secs, target=target, args=args, kwargs=kwargs)
        looper.start()
        return looper

    def run(self) -> None:
        with self._coord.stop_on_exception():
            self.start_loop()
            if self._timer_interval_secs is None:
                while not self._coord.should_stop():
                    self.run_loop()
            else:
                next_time = time.time()
                while not self._coord.wait_for_stop(next_time - time.time()):
                    next_time += self._timer_interval_secs
                    self.run_loop()
            self.stop_loop()

    def start_loop(self) -> None:
        """Called when the thread starts."""

    def stop_loop(self) -> None:
        """Called when the thread stops."""

    def run_loop(self) -> None:
        """Called at each ``timer_interval_secs`` boundary (or back to back)."""
        if self._target:
            self._target(*self._args, **self._kwargs)
