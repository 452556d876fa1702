"""``fr.Session``: prunes the graph to a run's fetches, caches the plan, and runs it.

Runs come from threads (``sess.run``) or trio tasks in any trio loop (``await
sess.arun``) and share the session's variables and queues. A straight plan (every plan
whose blocking ops are ordered by its dependencies) runs its compiled body where it is
called: a waiting op parks the calling thread, or awaits in the calling task. The
session has no thread or loop of its own. See ``_core/executor.py``.
"""

from __future__ import annotations

import collections
import threading
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import outcome
import trio

from . import errors
from . import profiler as _profiler
from ._core import blas as _blas
from ._core import graph as _graph
from ._core.executor import ConcurrentRun, run_concurrent
from ._core.graph import Graph
from ._core.plan import Plan
from ._core.resources import ResourceManager
from ._core.run_context import RunContext
from ._core.token import TOKEN
from ._core.tracing import runner_name
from ._core.waiting import drive_async, drive_sync
from .client import debug as _debug
from .client import explain as _explain
from .distributed import ray_cluster
from .fetch_structures import Fetches, fetch_key, fetch_value, resolve_feeds
from .session_options import CallableOptions, ConfigProto, RunMetadata, RunOptions

__all__ = ["Session", "InteractiveSession"]


# ``arun`` runs a straight plan on a worker thread once its running average compute time
# exceeds this; below it the thread hand-off (~50-100 us) costs more than it frees.
ARUN_THREAD_SECONDS = 0.002


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
        self._plans: dict = {}
        self._plans_version = self._graph.version
        self._closed = False
        self._inflight: set = set()  # RunContexts of the runs in progress
        self._inflight_lock = threading.Lock()
        self._step_counter = 0
        self._default_ctx: list = []
        self._partial_runs: dict = {}  # handle -> client.partial_run.PartialRun
        # plan -> the executor records of its last traced run (Session.explain)
        self._last_stats: weakref.WeakKeyDictionary[Plan, list] = weakref.WeakKeyDictionary()
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

    def __enter__(self):
        ctx = _DefaultSession(self, with_graph=True)
        ctx.__enter__()
        self._default_ctx.append(ctx)
        return self

    def __exit__(self, *exc):
        self._default_ctx.pop().__exit__(*exc)
        self.close()

    async def __aenter__(self):
        return self.__enter__()

    async def __aexit__(self, *exc):
        self.__exit__(*exc)
        await trio.lowlevel.checkpoint()

    # --- running --------------------------------------------------------------------

    def _prepare(self, fetches, feed_dict, options, run_metadata):
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        g = self._graph
        if g._version != self._plans_version:
            self._plans = {}
            self._plans_version = g._version
        if feed_dict:
            feed_tensors, feed_values = resolve_feeds(self._graph, feed_dict)
        else:
            feed_tensors = feed_values = ()
        fkey = fetch_key(fetches)
        entry = None
        if fkey is not None:
            key = (fkey, feed_tensors)
            entry = self._plans.get(key)
        if entry is None:
            fm = Fetches(g, fetches)
            pkey = (tuple(fm.tensors), tuple(fm.targets), feed_tensors)
            plan = self._plans.get(pkey)
            if plan is None:
                if self._cluster is not None:
                    plan = self._cluster.plan(fm.tensors, fm.targets, feed_tensors)
                else:
                    plan = Plan(fm.tensors, fm.targets, feed_tensors, overlap_calls=True)
                self._plans[pkey] = plan
            entry = (fm, plan)
            if fkey is not None:
                self._plans[key] = entry
        fm, plan = entry
        stats = None
        timeout_ms, timeout_from = self._timeout_ms, "ConfigProto.operation_timeout_in_ms"
        if options is not None:
            if run_metadata is not None and getattr(options, "trace_level", 0):
                stats = []
            if run_metadata is not None and getattr(options, "output_partition_graphs", 0):
                run_metadata._partition_ops = (g, {op.name for op in plan.ops})
            if getattr(options, "timeout_in_ms", 0):
                timeout_ms, timeout_from = options.timeout_in_ms, "RunOptions.timeout_in_ms"
        if _profiler._active:
            # Registered as the run starts, so a block ending mid-run still shows its steps.
            stats = [] if stats is None else stats
            _profiler.collect(stats)
        self._step_counter += 1
        ctx = RunContext(
            self,
            self._resources,
            self._step_counter,
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
            if plan.straight:
                gen, vals = _start(plan, ctx, feeds)
                if gen is not None:  # a step waits: now the run can be interrupted
                    with _Running(self, ctx):
                        vals = drive_sync(gen, plan, vals)
            else:
                with _Running(self, ctx):
                    vals = ConcurrentRun(plan, ctx, feeds).wait_sync()
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
        time exceeds ``ARUN_THREAD_SECONDS``, or that runs opaque user code (py_func),
        runs on a worker thread, so other tasks of the loop go on meanwhile.
        """
        fm, plan, feeds, ctx = self._prepare(fetches, feed_dict, options, run_metadata)
        await trio.lowlevel.checkpoint_if_cancelled()
        # Kernels run holding the execution token, taken stretch by stretch between
        # awaits (never blocking the loop on it), or by a worker thread off the loop.
        if not plan.straight:
            with _Running(self, ctx):
                vals = await self._interruptible(run_concurrent(plan, ctx, feeds), ctx)
        elif plan.opaque or plan.seconds > ARUN_THREAD_SECONDS:
            with _Running(self, ctx):
                # On the thread, waits time out by the run's own deadline.
                vals = await self._interruptible(_in_thread(plan, ctx, feeds), ctx, False)
        else:
            await TOKEN.acquire_async()
            try:
                gen, vals = _start(plan, ctx, feeds)
            finally:
                TOKEN.release()
            if gen is not None:  # a step waits: now the run can be interrupted
                with _Running(self, ctx):
                    vals = await self._interruptible(drive_async(gen, plan, vals), ctx)
            await trio.lowlevel.cancel_shielded_checkpoint()
        with trio.CancelScope(shield=True):  # the run completed: its result is handed back
            await TOKEN.acquire_async()
        try:
            return self._finish(fm, plan, vals, ctx, run_metadata)
        finally:
            TOKEN.release()

    @staticmethod
    async def _interruptible(coro, ctx, deadline=True):
        """Awaits ``coro`` (a run) under a cancel scope that ``ctx.cancel`` (close())
        and, with ``deadline``, the run's timeout cancel."""
        token = trio.lowlevel.current_trio_token()
        with trio.CancelScope() as cs:

            def cancel():
                try:
                    token.run_sync_soon(cs.cancel)
                except trio.RunFinishedError:
                    pass

            ctx.cancel_hook = cancel
            if ctx.interrupt is not None:
                cs.cancel()
            if deadline and ctx.timeout is not None:
                cs.deadline = trio.current_time() + ctx.timeout
            return await coro
        # The run's own scope was cancelled: by close() or its timeout.
        if ctx.interrupt is None:
            ctx.timed_out()
        raise ctx.interrupt

    def _finish(self, fm, plan, vals, ctx, run_metadata):
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

        def call(*args, **kwargs):
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
    def __new__(cls, job, task):
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
    def __init__(self, sess, with_graph=False):
        self.sess = sess
        self.graph_ctx = sess.graph.as_default() if with_graph else None

    def __enter__(self):
        _graph._session_stack().append(self.sess)
        if self.graph_ctx is not None:
            self.graph_ctx.__enter__()
        return self.sess

    def __exit__(self, *exc):
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

    def __init__(self, sess, ctx):
        self.sess, self.ctx = sess, ctx

    def __enter__(self):
        sess = self.sess
        self.ctx.runner, self.ctx.since = runner_name(), time.monotonic()
        with sess._inflight_lock:
            sess._inflight.add(self.ctx)
            closed = sess._closed
        if closed:  # closed since the run began: its first wait ends it
            self.ctx.cancel(errors.CancelledError(None, None, _CLOSED_MSG))

    def __exit__(self, et, e, tb):
        sess, ctx = self.sess, self.ctx
        with sess._inflight_lock:
            sess._inflight.discard(ctx)
        if e is not None and (ctx.interrupt is not None or not isinstance(e, Exception)):
            ctx.rollback()
        return False


def _start(plan, ctx, feeds):
    """Runs a straight plan's body up to its first wait: ``(None, fetched)`` if it
    completed, ``(generator, wait)`` if a step waits. Interrupted meanwhile (a signal),
    it gives back what it dequeued."""
    fn = plan.fn if ctx.stats is None else plan.traced_fn
    t0 = time.perf_counter()
    if not plan.blocking:
        vals = fn(ctx, feeds)
    else:
        gen = fn(ctx, feeds)
        try:
            return gen, gen.send(None)
        except StopIteration as stop:
            vals = stop.value
        except BaseException as e:
            if not isinstance(e, Exception):
                ctx.rollback()
            raise
    plan.seconds = 0.8 * plan.seconds + 0.2 * (time.perf_counter() - t0)
    return None, vals


def _to_end(plan, ctx, feeds):
    """A straight run from start to end on this thread, holding the execution token."""
    with TOKEN:
        gen, vals = _start(plan, ctx, feeds)
        return vals if gen is None else drive_sync(gen, plan, vals)


async def _in_thread(plan, ctx, feeds):
    """Runs a straight plan on a worker thread from a trio task (``_to_end``).

    Cancelling the task interrupts the run (``ctx.cancel``: a waiting op gives up and
    the run gives back what it dequeued) and waits for the thread to return, so the run
    never outlives its task. A run that completed before the cancel reached it hands
    back its result: its effects happened.
    """
    token = trio.lowlevel.current_trio_token()
    done = trio.Event()
    box: list = []

    def target():
        box.append(outcome.capture(_to_end, plan, ctx, feeds))

    def report(_):
        try:
            token.run_sync_soon(done.set)
        except trio.RunFinishedError:
            pass

    trio.lowlevel.start_thread_soon(target, report)
    try:
        await done.wait()
    except trio.Cancelled:
        ctx.cancel(errors.CancelledError(None, None, "The run was cancelled by its caller."))
        with trio.CancelScope(shield=True):
            await done.wait()
        if isinstance(box[0], outcome.Value):
            return box[0].unwrap()
        raise
    return box[0].unwrap()
