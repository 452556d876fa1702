"""``fr.Session``: prunes the graph to a run's fetches, caches the plan, and runs it.

Runs come from threads (``sess.run``) or trio tasks in any trio loop (``await
sess.arun``) and share the session's variables and queues. A straight plan (every plan
whose blocking ops are ordered by its dependencies) runs its compiled body where it is
called: a waiting op parks the calling thread, or awaits in the calling task. The
session has no thread or loop of its own. See ``_core/executor.py``.
"""

from __future__ import annotations

import collections
import functools
import threading
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import trio

from . import errors
from . import profiler as _profiler
from ._core import blas as _blas
from ._core import executor
from ._core import graph as _graph
from ._core.executor import Runnable
from ._core.graph import Graph
from ._core.plan import Plan, PlanCache
from ._core.resources import ResourceManager
from ._core.run_context import RunContext
from ._core.token import TOKEN
from ._core.tracing import runner_name
from .client import debug as _debug
from .client import explain as _explain
from .distributed import ray_cluster
from .fetch_structures import Fetches, fetch_key, fetch_value, resolve_feeds
from .session_options import CallableOptions, ConfigProto, RunMetadata, RunOptions, fuses

__all__ = ["Session", "InteractiveSession"]


_CLOSED_MSG = "Session was closed while this run was in progress; the run was cancelled."


# --------------------------------------------------------------------------------------
# Session
# --------------------------------------------------------------------------------------


class Session:
    """An environment in which a graph's ops run, holding their state.

    Args:
      target: '' to run in this process; a ``fr.train.Server``'s ``.target`` (or
        ``"grpc://ADDRESS"`` of any task of a running cluster) to run on that cluster:
        each run is partitioned by the tasks its ops are placed on, and the state of
        every task is shared by all sessions on the cluster (``docs/distributed.md``).
      graph: the graph to run; the default graph if None.
      config: a ``ConfigProto``.

    Use as ``with fr.Session() as sess:`` or ``async with fr.Session() as sess:``.
    """

    def __init__(
        self, target: str = "", graph: Graph | None = None, config: ConfigProto | None = None
    ) -> None:
        self._graph = graph if graph is not None else _graph.get_default_graph()
        self._config = config
        self._fuse = fuses(config)
        _blas.configure(getattr(config, "intra_op_parallelism_threads", 0) or 0)
        self._timeout_ms = getattr(config, "operation_timeout_in_ms", 0) or 0
        self._resources = ResourceManager()
        self._target = target
        self._cluster = None
        address = ray_cluster.parse_target(target)
        if address is not None and not self._timeout_ms:
            server_config = ray_cluster.DEFAULT_SESSION_CONFIGS.get(address)
            self._timeout_ms = getattr(server_config, "operation_timeout_in_ms", 0) or 0
        if address is not None:
            from .distributed.client import ClusterClient

            self._cluster = ClusterClient(address)
        # The plans of this session's run signatures (also read by ``explain``).
        self._plans = PlanCache(
            self._graph,
            self._cluster.plan
            if self._cluster is not None
            else functools.partial(Plan, fuse=self._fuse, overlap_calls=True),
        )
        self._lock = threading.Lock()  # guards _step_counter
        self._closed = False
        self._inflight: set = set()  # RunContexts of the runs in progress
        self._inflight_lock = threading.Lock()
        self._step_counter = 0
        self._default_ctx: list = []
        self._partial_runs: dict = {}  # handle -> client.partial_run.PartialRun
        # plan -> the executor records of its last traced run (Session.explain)
        self._last_stats: weakref.WeakKeyDictionary[Runnable, list[Any]] = (
            weakref.WeakKeyDictionary()
        )
        _debug.track(self)

    # --- properties ------------------------------------------------------------------

    @property
    def graph(self) -> Graph:
        return self._graph

    @property
    def graph_def(self) -> Any:
        """The session's graph as a ``GraphDef`` protobuf (``Graph.as_graph_def()``)."""
        return self._graph.as_graph_def()

    @property
    def sess_str(self) -> str:
        return self._target

    @property
    def resources(self) -> ResourceManager:
        """This session's state (variables, queues); for flowrt's own layers and tests."""
        return self._resources

    # --- context managers ---------------------------------------------------------------

    def as_default(self) -> "_DefaultSession":
        """Makes this the default session (for ``Tensor.eval``) inside the block."""
        return _DefaultSession(self)

    def __enter__(self) -> Session:
        ctx = _DefaultSession(self, with_graph=True)
        ctx.__enter__()
        self._default_ctx.append(ctx)
        return self

    def __exit__(self, *exc: Any) -> None:
        self._default_ctx.pop().__exit__(*exc)
        self.close()

    async def __aenter__(self) -> Session:
        return self.__enter__()

    async def __aexit__(self, *exc: Any) -> None:
        self.__exit__(*exc)
        await trio.lowlevel.checkpoint()

    # --- running --------------------------------------------------------------------

    def _prepare(
        self,
        fetches: Any,
        feed_dict: Mapping[Any, Any] | None,
        options: RunOptions | None,
        run_metadata: RunMetadata | None,
    ) -> tuple[Fetches, Runnable, Sequence[Any], RunContext]:
        """The run's fetches, plan (from the cache), fed values and fresh context."""
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        g = self._graph
        feed_tensors: tuple[Any, ...] = ()
        feed_values: Sequence[Any] = ()
        if feed_dict:
            feed_tensors, feed_values = resolve_feeds(g, feed_dict)
        fkey = fetch_key(fetches)
        key = (fkey, feed_tensors)
        entry = self._plans.entry(key)[0] if fkey is not None else None
        if entry is None:
            fm = Fetches(g, fetches)
            plan, version = self._plans.plan(fm.tensors, fm.targets, feed_tensors)
            entry = (fm, plan)
            if fkey is not None:
                self._plans.keep_entry(key, entry, version)
        fm, plan = entry
        stats: list[Any] | None = None
        timeout_ms, timeout_from = self._timeout_ms, "ConfigProto.operation_timeout_in_ms"
        opts: Any = options  # a RunOptions, or any object with its fields
        if opts is not None:
            if run_metadata is not None and getattr(opts, "trace_level", None):
                stats = []
            if run_metadata is not None and getattr(opts, "output_partition_graphs", None):
                run_metadata._partition_ops = (g, {op.name for op in plan.ops})
            if getattr(opts, "timeout_in_ms", 0):
                timeout_ms, timeout_from = opts.timeout_in_ms, "RunOptions.timeout_in_ms"
        if _profiler._active:
            # Registered as the run starts, so a block ending mid-run still shows its steps.
            stats = [] if stats is None else stats
            _profiler.collect(stats)
        with self._lock:
            self._step_counter += 1
            step = self._step_counter
        ctx = RunContext(
            self,
            self._resources,
            step,
            stats,
            timeout_ms / 1000.0 if timeout_ms > 0 else None,
            timeout_from,
        )
        return fm, plan, feed_values, ctx

    def run(
        self,
        fetches: Any,
        feed_dict: Mapping[Any, Any] | None = None,
        options: RunOptions | None = None,
        run_metadata: RunMetadata | None = None,
    ) -> Any:
        """Runs the ops and evaluates the tensors in ``fetches``.

        Args:
          fetches: a graph element (Tensor, Operation, name) or a nest of lists, tuples,
            namedtuples and dicts of them.
          feed_dict: maps tensors (or names) to values that replace them for this run.
          options: ``RunOptions`` (``timeout_in_ms``, ``trace_level``).
          run_metadata: ``RunMetadata`` filled with per-op stats when tracing.

        Returns:
          ``fetches`` with every tensor replaced by its numpy value and every op by None.

        A waiting queue op parks the calling thread (no trio loop is involved). A run
        that is interrupted before it completes (``Session.close()``, its timeout,
        KeyboardInterrupt) gives back every element it dequeued (docs/queues.md).

        Note (flowrt): calling it from inside a trio loop's thread raises RuntimeError:
        there it would block the loop; use ``await sess.arun(...)``.
        """
        if trio.lowlevel.in_trio_run():
            raise RuntimeError(
                "Session.run() was called from a thread that is running a trio event loop; "
                "it would block that loop. Use `await sess.arun(...)` there instead."
            )
        # The run holds the execution token (flowrt/_core/token.py) while it executes,
        # giving it up while it waits.
        TOKEN.acquire()
        try:
            fm, plan, feeds, ctx = self._prepare(fetches, feed_dict, options, run_metadata)
            vals = executor.run(plan, ctx, feeds, self._running)
            return self._finish(fm, plan, vals, ctx, run_metadata)
        finally:
            TOKEN.release(linger=True)

    async def arun(
        self,
        fetches: Any,
        feed_dict: Mapping[Any, Any] | None = None,
        options: RunOptions | None = None,
        run_metadata: RunMetadata | None = None,
    ) -> Any:
        """``run`` for trio tasks, from any trio loop: a waiting op awaits in this task.

        Several ``arun`` calls from tasks of one nursery run at once and share the
        session's state. Cancelling the calling task cancels the run: it takes or
        leaves nothing and gives back every element it dequeued. A plan whose compute
        time exceeds ``executor.THREAD_SECONDS``, or that runs opaque user code
        (py_func), runs on a worker thread, so other tasks of the loop go on meanwhile.

        Note (flowrt): a run that never waits lets the loop's other tasks run only
        when this task has run a switch interval without doing so (docs/executor.md).
        """
        fm, plan, feeds, ctx = self._prepare(fetches, feed_dict, options, run_metadata)
        vals = await executor.arun(plan, ctx, feeds, self._running)
        return self._finish(fm, plan, vals, ctx, run_metadata)

    def _running(self, ctx: RunContext) -> _Running:
        """Registers a run that is about to wait (``executor.run``'s ``on_wait``)."""
        return _Running(self, ctx)

    def _finish(
        self,
        fm: Fetches,
        plan: Runnable,
        vals: list[Any],
        ctx: RunContext,
        run_metadata: RunMetadata | None,
    ) -> Any:
        if ctx.stats is not None:
            self._last_stats[plan] = ctx.stats
            if run_metadata is not None:
                run_metadata._raw = ctx.stats
        if plan.fetches_fed:
            # As TF1: a fetched fed tensor comes back as the fed array (0-d included).
            return fm.build(
                [v if fed else fetch_value(v) for v, fed in zip(vals, plan.fetch_is_fed)]
            )
        return fm.build([fetch_value(v) for v in vals])

    # --- closing ----------------------------------------------------------------------

    def close(self) -> None:
        """Closes the session: in-flight runs end with CancelledError (giving back what
        they dequeued) and its state is freed. Using a closed session raises
        RuntimeError."""
        with self._inflight_lock:
            if self._closed:
                return
            self._closed = True
            runs = list(self._inflight)
        for ctx in runs:
            ctx.cancel(errors.CancelledError(None, None, _CLOSED_MSG))
        self._resources.close()
        self._partial_runs.clear()
        if self._cluster is not None:
            self._cluster.close()

    # --- observability ----------------------------------------------------------------

    def explain(
        self,
        fetches: Any,
        feed_dict: Mapping[Any, Any] | None = None,
        options: RunOptions | None = None,
    ) -> Any:
        """What ``run(fetches, feed_dict)`` would do: see ``fr.explain``."""
        return _explain.explain(fetches, feed_dict, options, session=self)

    def debug_dump(self, file: Any = None) -> str:
        """Every run of this session in flight, what it waits on, and what feeds that
        queue (``fr.client.debug``). Returns the text; also writes it to ``file``.

        Note (flowrt): TF1 has no such method.
        """
        return _debug.debug_dump(self, file)

    # --- callables --------------------------------------------------------------------

    def make_callable(
        self, fetches: Any, feed_list: Sequence[Any] | None = None, accept_options: bool = False
    ) -> Callable[..., Any]:
        """A function that runs ``fetches`` with positional values for ``feed_list``."""
        feed_list = list(feed_list or [])
        elems = [
            self._graph.as_graph_element(f, allow_tensor=True, allow_operation=False)
            for f in feed_list
        ]

        def call(*args: Any, **kwargs: Any) -> Any:
            options = kwargs.pop("options", None) if accept_options else None
            run_metadata = kwargs.pop("run_metadata", None) if accept_options else None
            if kwargs:
                raise TypeError("unexpected keyword arguments %s" % sorted(kwargs))
            if len(args) != len(elems):
                raise ValueError("Expected %d feed values, got %d" % (len(elems), len(args)))
            return self.run(fetches, dict(zip(elems, args)), options, run_metadata)

        return call

    def _make_callable_from_options(self, callable_options: CallableOptions) -> Callable[..., Any]:
        """A function running what ``callable_options`` names: it takes the values of
        ``feed`` positionally (and ``run_metadata=``) and returns the list of the values
        of ``fetch`` (TF1's ``Session._make_callable_from_options``).

        Raises:
          ValueError: for a name that is not a tensor (feed, fetch) or op (target) of the
            graph.
        """
        g = self._graph
        feeds = [
            g.as_graph_element(n, allow_tensor=True, allow_operation=False)
            for n in callable_options.feed
        ]
        fetches = [
            g.as_graph_element(n, allow_tensor=True, allow_operation=False)
            for n in callable_options.fetch
        ]
        targets = [
            g.as_graph_element(n, allow_tensor=False, allow_operation=True)
            for n in callable_options.target
        ]
        options = callable_options.run_options

        def call(*args: Any, run_metadata: RunMetadata | None = None) -> list:
            if len(args) != len(feeds):
                raise errors.InvalidArgumentError(
                    None, None, "Expected %d feed tensors, but got %d" % (len(feeds), len(args))
                )
            return self.run([fetches, targets], dict(zip(feeds, args)), options, run_metadata)[0]

        return call

    def partial_run_setup(self, fetches: Any, feeds: Sequence[Any] | None = None) -> str:
        """Starts a partial run: one step whose feeds and fetches are given over several
        ``partial_run`` calls. Returns its handle.

        Args:
          fetches: every tensor (or op, run when it is ready) the step will fetch, as
            for ``run``.
          feeds: every tensor the step will be fed.

        As in TF, each op of the step runs once, as soon as all it depends on is known:
        ops needing no feed run in this call.

        Note (flowrt): an op reached from a later call only through a control dependency
        on an op that already ran runs again.
        """
        from .client.partial_run import PartialRun

        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        run = PartialRun(self, fetches, feeds)
        self._partial_runs[run.handle] = run
        return run.handle

    def partial_run(
        self, handle: str, fetches: Any, feed_dict: Mapping[Any, Any] | None = None
    ) -> Any:
        """Continues the partial run ``handle``: feeds ``feed_dict`` and returns
        ``fetches`` (tensors named in ``partial_run_setup``, as a nest like ``run``'s).

        Raises:
          InvalidArgumentError: for an unknown handle, a feed or fetch not named in the
            setup, one already fed or fetched, or a fetch that needs a tensor not yet
            fed (TF's messages).
          RuntimeError: if ``fetches`` holds an op.
        """
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        run = self._partial_runs.get(handle)
        if run is None:
            raise errors.InvalidArgumentError(
                None, None, "Must run 'setup' before performing partial runs!"
            )
        return run.run(fetches, feed_dict)

    def list_devices(self) -> list["_Device"]:
        """The CPU device of this process, or of every task of the session's cluster."""
        if self._cluster is None:
            return [_Device("localhost", 0)]
        return [_Device(job, i) for job, i, _ in self._cluster.spec.tasks()]


class _Device(collections.namedtuple("_Device", "name device_type memory_limit_bytes")):
    def __new__(cls, job: str, task: int) -> _Device:
        name = "/job:%s/replica:0/task:%d/device:CPU:0" % (job, task)
        return super().__new__(cls, name, "CPU", 0)


class InteractiveSession(Session):
    """A Session that installs itself as the default session on construction."""

    def __init__(
        self, target: str = "", graph: Graph | None = None, config: ConfigProto | None = None
    ) -> None:
        super().__init__(target, graph, config)
        # Its graph becomes the default unless it already is: the default graph is then
        # not nested, so reset_default_graph() works while the session lives, as in TF.
        nest = self.graph is not _graph.get_default_graph()
        self._ctx: _DefaultSession | None = _DefaultSession(self, with_graph=nest)
        self._ctx.__enter__()

    def close(self) -> None:
        super().close()
        ctx, self._ctx = getattr(self, "_ctx", None), None
        if ctx is not None:
            try:
                ctx.__exit__(None, None, None)
            except (IndexError, AssertionError):
                pass


class _DefaultSession:
    def __init__(self, sess: Session, with_graph: bool = False) -> None:
        self.sess = sess
        self.graph_ctx = sess.graph.as_default() if with_graph else None

    def __enter__(self) -> Session:
        _graph._session_stack().append(self.sess)
        if self.graph_ctx is not None:
            self.graph_ctx.__enter__()
        return self.sess

    def __exit__(self, *exc: Any) -> None:
        if self.graph_ctx is not None:
            self.graph_ctx.__exit__(*exc)
        stack = _graph._session_stack()
        if stack and stack[-1] is self.sess:
            stack.pop()


class _Running:
    """A run that may wait: registered for ``close()`` while it runs; interrupted
    (close, timeout, a caller's cancel, KeyboardInterrupt) rather than failed on an op
    error, it gives back what it dequeued, as if it never ran. A failed run consumes
    what it took, as in TF, so a bad element cannot come back forever."""

    __slots__ = ("sess", "ctx")

    def __init__(self, sess: Session, ctx: RunContext) -> None:
        self.sess, self.ctx = sess, ctx

    def __enter__(self) -> None:
        sess = self.sess
        self.ctx.runner, self.ctx.since = runner_name(), time.monotonic()
        with sess._inflight_lock:
            sess._inflight.add(self.ctx)
            closed = sess._closed
        if closed:  # closed since the run began: its first wait ends it
            self.ctx.cancel(errors.CancelledError(None, None, _CLOSED_MSG))

    def __exit__(self, et: Any, e: BaseException | None, tb: Any) -> None:
        sess, ctx = self.sess, self.ctx
        with sess._inflight_lock:
            sess._inflight.discard(ctx)
        if e is not None and (ctx.interrupt is not None or not isinstance(e, Exception)):
            ctx.rollback()
