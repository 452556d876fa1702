"""``fr.Session``: prunes the graph to a run's fetches, caches the plan, and runs it.

Runs come from threads (``sess.run``) or trio tasks (``await sess.arun``) and share the
session's variables and queues. A plan that cannot block runs inline on the caller's
thread. A plan that may block (queue ops) runs on the trio loop the session is bound
to: the loop of the first ``arun`` that needed one, else a loop the session starts on
a background thread for its sync callers. ``sess.run`` from other threads reaches that
loop through ``trio.from_thread``; ``arun`` from another loop is bridged to it.
"""

from __future__ import annotations

import collections
import json
import threading
import time

import numpy as np
import trio

from . import dtypes as _dt
from . import errors
from ._core import graph as _graph
from ._core.executor import RunContext, resume, run_prefix, run_sync
from ._core.graph import Graph, Operation, Tensor
from ._core.plan import Plan
from ._core.resources import ResourceManager

__all__ = ["Session", "InteractiveSession", "RunOptions", "RunMetadata", "ConfigProto",
           "GPUOptions"]


# ``arun`` runs a non-blocking plan on a worker thread once its running average time
# exceeds this; below it the thread hand-off (~50-100 us) costs more than it frees.
ARUN_THREAD_SECONDS = 0.002


_CLOSED_MSG = "Session was closed while this run was in progress; the run was cancelled."


class RunOptions:
    """Per-run options: ``timeout_in_ms`` and ``trace_level`` (FULL_TRACE records stats)."""

    NO_TRACE, SOFTWARE_TRACE, HARDWARE_TRACE, FULL_TRACE = 0, 1, 2, 3

    def __init__(self, timeout_in_ms: int = 0, trace_level: int = 0, **_ignored):
        self.timeout_in_ms = timeout_in_ms
        self.trace_level = trace_level


class NodeStats(collections.namedtuple("NodeStats", "node_name op_type start_micros "
                                                    "end_micros thread_id")):
    """Timing of one op in a traced run (microseconds since the epoch)."""


class RunMetadata:
    """Filled by a run with ``trace_level=FULL_TRACE``: per-op step stats."""

    def __init__(self):
        self.step_stats: list[NodeStats] = []

    def chrome_trace(self) -> str:
        """The step stats as Chrome trace JSON (load in chrome://tracing or Perfetto)."""
        events = [{"name": s.node_name, "cat": s.op_type, "ph": "X", "pid": 0,
                   "tid": s.thread_id, "ts": s.start_micros,
                   "dur": max(0.0, s.end_micros - s.start_micros),
                   "args": {"op": s.op_type}} for s in self.step_stats]
        return json.dumps({"traceEvents": events})


class GPUOptions:
    def __init__(self, **kwargs):
        self.__dict__.update(kwargs)


class ConfigProto:
    """Session configuration. flowrt acts on ``intra_op_parallelism_threads``; the other
    TF1 fields are accepted and ignored (there are no devices to configure).

    Args:
      intra_op_parallelism_threads: threads one op may use (numpy's BLAS pool); 0 leaves
        numpy's default. Note (flowrt): the BLAS pool is process-wide, so the value of the
        last session created with a non-zero value applies to all. Runs that overlap
        (queue runners and a training loop) are usually fastest with 1 on few cores:
        the runs themselves are the parallelism, and BLAS threads then only contend.
      inter_op_parallelism_threads: ignored (independent ops overlap on trio).
    """

    def __init__(self, intra_op_parallelism_threads=0, inter_op_parallelism_threads=0,
                 **kwargs):
        self.intra_op_parallelism_threads = int(intra_op_parallelism_threads or 0)
        self.inter_op_parallelism_threads = int(inter_op_parallelism_threads or 0)
        self.__dict__.update(kwargs)
        self.gpu_options = kwargs.get("gpu_options", GPUOptions())


def _apply_config(config):
    n = getattr(config, "intra_op_parallelism_threads", 0) if config is not None else 0
    if n > 0:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=n, user_api="blas")


# --------------------------------------------------------------------------------------
# Fetch structures
# --------------------------------------------------------------------------------------


class _Fetches:
    """Flattens a nest of fetches to unique graph elements and rebuilds the results."""

    __slots__ = ("tensors", "targets", "build")

    def __init__(self, graph: Graph, fetches):
        self.tensors: list[Tensor] = []
        self.targets: list[Operation] = []
        index: dict = {}

        def elem(x):
            try:
                e = graph.as_graph_element(x)
            except KeyError as err:
                raise ValueError("Fetch argument %r cannot be interpreted as a Tensor. (%s)"
                                 % (x, err.args[0])) from None
            except TypeError:
                raise TypeError("Fetch argument %r has invalid type %r, must be a string or "
                                "Tensor. (Can not convert a %s into a Tensor or Operation.)"
                                % (x, type(x), type(x).__name__)) from None
            except ValueError as err:
                raise ValueError("Fetch argument %r cannot be interpreted as a Tensor. (%s)"
                                 % (x, err)) from None
            if isinstance(e, Operation):
                if e not in index:
                    index[e] = None
                    self.targets.append(e)
                return lambda vals: None
            if e not in index:
                index[e] = len(self.tensors)
                self.tensors.append(e)
            i = index[e]
            return lambda vals: vals[i]

        def walk(x):
            if x is None:
                raise TypeError("Fetch argument None has invalid type <class 'NoneType'>")
            comps = getattr(x, "_fetch_components", None)
            if comps is not None and not isinstance(x, type):
                parts = [walk(c) for c in comps()]
                rebuild = x._fetch_rebuild
                return lambda vals: rebuild([p(vals) for p in parts])
            if isinstance(x, (Tensor, Operation, str)) or hasattr(x, "_as_tensor"):
                return elem(x)
            if isinstance(x, dict):
                keys = list(x)
                parts = [walk(x[k]) for k in keys]
                cls = type(x)
                return lambda vals: cls(zip(keys, (p(vals) for p in parts)))
            if isinstance(x, tuple) and hasattr(x, "_fields"):
                parts = [walk(v) for v in x]
                cls = type(x)
                return lambda vals: cls(*[p(vals) for p in parts])
            if isinstance(x, (list, tuple)):
                parts = [walk(v) for v in x]
                cls = type(x)
                return lambda vals: cls([p(vals) for p in parts])
            return elem(x)

        self.build = walk(fetches)


_CONTAINERS = (list, tuple, dict)


def _fetch_key(fetches):
    """A hashable key for fetch structures whose flattening can be cached: a single
    element, or a flat list/tuple of elements; None for anything else."""
    t = type(fetches)
    if t is list or t is tuple:
        for x in fetches:
            if isinstance(x, _CONTAINERS) or getattr(x, "__hash__", None) is None:
                return None
        return (t,) + tuple(fetches)
    if isinstance(fetches, _CONTAINERS) or getattr(fetches, "__hash__", None) is None:
        return None
    return fetches


def _fetch_value(v):
    """TF1 hands back fresh numpy values: scalars as numpy scalars, strings as bytes."""
    if isinstance(v, np.ndarray):
        if v.ndim == 0:
            return v[()]
        if not v.flags.writeable:
            return v.copy()
    return v


# --------------------------------------------------------------------------------------
# Session
# --------------------------------------------------------------------------------------


class Session:
    """An environment in which a graph's ops run, holding their state.

    Args:
      target: ignored (flowrt runs in-process).
      graph: the graph to run; the default graph if None.
      config: accepted for compatibility.

    Use as ``with fr.Session() as sess:`` or ``async with fr.Session() as sess:``.
    """

    def __init__(self, target: str = "", graph: Graph | None = None, config=None):
        self._graph = graph if graph is not None else _graph.get_default_graph()
        self._config = config
        _apply_config(config)
        self._resources = ResourceManager()
        self._plans: dict = {}
        self._plans_version = self._graph.version
        self._closed = False
        self._token = None
        self._loop_thread: threading.Thread | None = None
        self._loop_stop = None
        self._bind_lock = threading.Lock()
        self._inflight: set = set()
        self._step_counter = 0
        self._default_ctx = []

    # --- properties ------------------------------------------------------------------

    @property
    def graph(self) -> Graph:
        return self._graph

    @property
    def graph_def(self):
        return self._graph

    @property
    def sess_str(self) -> str:
        return ""

    @property
    def resources(self) -> ResourceManager:
        """This session's state (variables, queues); for flowrt's own layers and tests."""
        return self._resources

    # --- context managers ---------------------------------------------------------------

    def as_default(self):
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

    def _check_open(self):
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")

    def _prepare(self, fetches, feed_dict, options, run_metadata):
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        g = self._graph
        if g._version != self._plans_version:
            self._plans = {}
            self._plans_version = g._version
        if feed_dict:
            feed_tensors, feed_values = self._feeds(feed_dict)
        else:
            feed_tensors = feed_values = ()
        fkey = _fetch_key(fetches)
        entry = None
        if fkey is not None:
            key = (fkey, feed_tensors)
            entry = self._plans.get(key)
        if entry is None:
            fm = _Fetches(g, fetches)
            pkey = (tuple(fm.tensors), tuple(fm.targets), feed_tensors)
            plan = self._plans.get(pkey)
            if plan is None:
                plan = self._plans[pkey] = Plan(fm.tensors, fm.targets, feed_tensors)
            entry = (fm, plan)
            if fkey is not None:
                self._plans[key] = entry
        fm, plan = entry
        stats = None
        timeout = None
        if options is not None:
            if run_metadata is not None and getattr(options, "trace_level", 0):
                stats = []
            if getattr(options, "timeout_in_ms", 0):
                timeout = options.timeout_in_ms / 1000.0
        self._step_counter += 1
        ctx = RunContext(self, self._resources, None, self._step_counter, stats)
        return fm, plan, feed_values, ctx, timeout

    def _feeds(self, feed_dict):
        if not feed_dict:
            return (), ()
        g = self._graph
        tensors, values = [], []
        for key, value in feed_dict.items():
            if type(key) is Tensor and key.op.graph is g:
                tensors.append(key)
                values.append(_feed_value(key, value))
                continue
            comps = getattr(key, "_feed_components", None)
            if comps is not None:
                pairs = comps(value)
            else:
                pairs = [(key, value)]
            for k, v in pairs:
                try:
                    t = g.as_graph_element(k, allow_tensor=True, allow_operation=False)
                except (KeyError, ValueError, TypeError) as e:
                    raise TypeError("Cannot interpret feed_dict key as Tensor: %s"
                                    % (e.args[0] if e.args else e)) from None
                tensors.append(t)
                values.append(_feed_value(t, v))
        return tuple(tensors), values

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Runs the ops and evaluates the tensors in ``fetches``.

        Args:
          fetches: a graph element (Tensor, Operation, name) or a nest of lists, tuples,
            namedtuples and dicts of them.
          feed_dict: maps tensors (or names) to values that replace them for this run.
          options: ``RunOptions`` (``timeout_in_ms``, ``trace_level``).
          run_metadata: ``RunMetadata`` filled with per-op stats when tracing.

        Returns:
          ``fetches`` with every tensor replaced by its numpy value and every op by None.

        Note (flowrt): calling it from inside a trio loop's thread raises RuntimeError:
        there it would block the loop; use ``await sess.arun(...)``.
        """
        if trio.lowlevel.in_trio_run():
            raise RuntimeError(
                "Session.run() was called from a thread that is running a trio event loop; "
                "it would block that loop. Use `await sess.arun(...)` there instead.")
        fm, plan, feeds, ctx, timeout = self._prepare(fetches, feed_dict, options,
                                                      run_metadata)
        t0 = time.time()
        if not plan.blocking:
            vals = run_sync(plan, ctx, feeds)
        else:
            # Try on this thread first: queue ops that need not wait complete here,
            # without a round trip to the trio loop; the rest goes there from the step
            # that would block.
            partial, k = run_prefix(plan, ctx, feeds)
            vals = k if partial is None else self._run_on_loop(
                resume, (plan, ctx, partial, k), plan, ctx, timeout)
        return self._finish(fm, plan, vals, ctx, run_metadata, t0)

    async def arun(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """``run`` for trio tasks: awaits blocking ops without blocking the loop.

        Several ``arun`` calls from tasks of one nursery run at once and share the
        session's state. Cancelling the calling task cancels the run; a cancelled
        queue op takes or leaves nothing.
        """
        fm, plan, feeds, ctx, timeout = self._prepare(fetches, feed_dict, options,
                                                      run_metadata)
        t0 = time.time()
        if not plan.blocking:
            await trio.lowlevel.checkpoint_if_cancelled()
            if plan.seconds > ARUN_THREAD_SECONDS:
                # A heavy plan would stall every other task of this loop; numpy releases
                # the GIL, so running it on a worker thread lets them go on meanwhile.
                vals = await trio.to_thread.run_sync(self._timed_run, plan, ctx, feeds)
            else:
                vals = self._timed_run(plan, ctx, feeds)
                await trio.lowlevel.cancel_shielded_checkpoint()
        else:
            await trio.lowlevel.checkpoint_if_cancelled()
            partial, k = run_prefix(plan, ctx, feeds)
            current = trio.lowlevel.current_trio_token()
            token = self._bind(current)
            if partial is not None and token is current:
                # The task that would unblock this step (a producer) is likely runnable
                # in this loop: yield once and try the step again before paying for a
                # wait (a cancel here is like one while waiting: nothing of step k ran).
                await trio.lowlevel.checkpoint()
                partial, k = run_prefix(plan, ctx, None, partial, k)
            if partial is None:
                await trio.lowlevel.cancel_shielded_checkpoint()
                return self._finish(fm, plan, k, ctx, run_metadata, t0)
            work = (resume, (plan, ctx, partial, k))
            if token is current:
                vals = await self._step(work[0], work[1], plan, ctx, timeout)
            else:
                try:
                    vals = await self._bridge(token, work, plan, ctx, timeout)
                except trio.RunFinishedError:
                    # The loop this session was bound to has exited: bind to this one
                    # (nothing of the waiting step has run) and wait here.
                    self._unbind(token)
                    if self._bind(current) is not current:
                        raise
                    vals = await self._step(work[0], work[1], plan, ctx, timeout)
        return self._finish(fm, plan, vals, ctx, run_metadata, t0)

    @staticmethod
    def _timed_run(plan, ctx, feeds):
        t0 = time.perf_counter()
        vals = run_sync(plan, ctx, feeds)
        plan.seconds = 0.8 * plan.seconds + 0.2 * (time.perf_counter() - t0)
        return vals

    def _finish(self, fm, plan, vals, ctx, run_metadata, t0):
        if ctx.stats is not None and run_metadata is not None:
            base = t0 * 1e6
            p0 = ctx.stats[0][1] if ctx.stats else 0.0
            run_metadata.step_stats = [
                NodeStats(op.name, op.type, base + (a - p0) * 1e6, base + (b - p0) * 1e6,
                          threading.get_ident()) for op, a, b in ctx.stats]
        if plan.fetches_fed:
            # As TF1: a fetched fed tensor comes back as the fed array (0-d included).
            return fm.build([v if fed else _fetch_value(v)
                             for v, fed in zip(vals, plan.fetch_is_fed)])
        return fm.build([_fetch_value(v) for v in vals])

    # --- the trio side ----------------------------------------------------------------

    async def _step(self, fn, args, plan, ctx, timeout, box=None):
        """Runs ``await fn(*args)`` (a blocking plan, or the rest of one) in the bound
        loop under a cancel scope that close() and the run's timeout can cancel."""
        token = trio.lowlevel.current_trio_token()
        with trio.CancelScope() as cs:
            entry = (token, cs)
            self._inflight.add(entry)
            if box is not None:
                box["cs"] = cs
                if box.get("cancel"):  # the bridged caller was cancelled before we began
                    cs.cancel()
            if timeout is not None:
                cs.deadline = trio.current_time() + timeout
            if self._closed:
                cs.cancel()
            try:
                return await fn(*args)
            finally:
                self._inflight.discard(entry)
        if self._closed:
            raise errors.CancelledError(None, None, _CLOSED_MSG)
        if timeout is None or trio.current_time() < cs.deadline:
            raise errors.CancelledError(None, None, "The run was cancelled by its caller.")
        waiting = ", ".join("%s op '%s'" % (s.type, s.name) for s in
                            _blocked_ops(plan, ctx)) or "no op"
        raise errors.DeadlineExceededError(
            None, None, "Timed out after %d ms (RunOptions.timeout_in_ms) waiting on %s."
            % (round(timeout * 1000), waiting))

    def _run_on_loop(self, fn, args, plan, ctx, timeout):
        for _ in range(2):
            token = self._bind(None)
            try:
                return trio.from_thread.run(self._step, fn, args, plan, ctx, timeout,
                                            trio_token=token)
            except trio.RunFinishedError:
                self._unbind(token)
            except trio.Cancelled:
                # The loop shut down under the run: close() stopped the session's own
                # loop, or the program's loop this session was bound to exited.
                if self._closed:
                    raise errors.CancelledError(None, None, _CLOSED_MSG) from None
                self._unbind(token)
                raise errors.CancelledError(
                    None, None, "The trio loop running this session's blocking ops exited "
                    "while the run waited; the run was cancelled.") from None
        self._check_open()
        raise RuntimeError("could not reach a trio loop to run a blocking op")

    async def _bridge(self, token, work, plan, ctx, timeout):
        """Runs a blocking plan on the session's loop from a task of another loop."""
        box: dict = {}
        here = trio.lowlevel.current_trio_token()
        done = trio.Event()

        def in_thread():
            try:
                box["result"] = trio.from_thread.run(self._step, work[0], work[1], plan, ctx,
                                                     timeout, box, trio_token=token)
                return box["result"]
            except trio.Cancelled:
                # Cancelled on the other loop (its shutdown): not this loop's cancel.
                raise errors.CancelledError(None, None, _CLOSED_MSG if self._closed else
                                            "The trio loop running this session's blocking "
                                            "ops exited; the run was cancelled.") from None
            finally:
                try:
                    here.run_sync_soon(done.set)
                except trio.RunFinishedError:
                    pass

        try:
            # A limiter of its own: waiting runs must not use up trio's default 40
            # worker threads, which other to_thread calls (heavy aruns) need.
            return await trio.to_thread.run_sync(in_thread, abandon_on_cancel=True,
                                                 limiter=trio.CapacityLimiter(1))
        except trio.Cancelled:
            box["cancel"] = True
            cs = box.get("cs")
            if cs is not None:
                try:
                    token.run_sync_soon(cs.cancel)
                except trio.RunFinishedError:
                    pass
            with trio.CancelScope(shield=True):
                await done.wait()
            if "result" in box:
                # The run completed before the cancel reached it: its effects happened,
                # so hand back its result rather than losing, e.g., a dequeued element.
                return box["result"]
            raise

    def _bind(self, current):
        """The token of the loop that runs this session's blocking plans.

        ``current`` is the caller's loop (arun) or None (sync run): an unbound session
        binds to the caller's loop, or starts its own for sync callers.
        """
        token = self._token
        if token is not None:
            return token
        with self._bind_lock:
            if self._token is None:
                self._check_open()
                if current is not None:
                    self._token = current
                else:
                    self._start_loop()
            return self._token

    def _unbind(self, token):
        with self._bind_lock:
            if self._token is token:
                self._token = None
                self._loop_thread = None

    def _start_loop(self):
        started = threading.Event()

        async def main():
            self._loop_stop = trio.Event()
            self._token = trio.lowlevel.current_trio_token()
            started.set()
            await self._loop_stop.wait()

        t = threading.Thread(target=trio.run, args=(main,), daemon=True,
                             name="flowrt-session-loop")
        t.start()
        started.wait()
        self._loop_thread = t

    # --- closing ----------------------------------------------------------------------

    def close(self):
        """Closes the session: cancels in-flight runs (they raise CancelledError) and
        frees its state. Using a closed session raises RuntimeError."""
        if self._closed:
            return
        self._closed = True
        for token, cs in list(self._inflight):
            try:
                token.run_sync_soon(cs.cancel)
            except trio.RunFinishedError:
                pass
        thread, stop = self._loop_thread, self._loop_stop
        if thread is not None and stop is not None:
            try:
                self._token.run_sync_soon(stop.set)
            except trio.RunFinishedError:
                pass
            if thread is not threading.current_thread() and not trio.lowlevel.in_trio_run():
                thread.join(timeout=10)
        for _, res in self._resources.items():
            closer = getattr(res, "on_session_close", None)
            if closer is not None:
                closer()

    def __del__(self):
        try:
            if not self._closed and self._loop_thread is not None:
                self.close()
        except Exception:  # noqa: BLE001 - never raise from a finalizer
            pass

    # --- callables --------------------------------------------------------------------

    def make_callable(self, fetches, feed_list=None, accept_options=False):
        """A function that runs ``fetches`` with positional values for ``feed_list``."""
        feed_list = list(feed_list or [])
        elems = [self._graph.as_graph_element(f, allow_tensor=True, allow_operation=False)
                 for f in feed_list]

        def call(*args, **kwargs):
            options = kwargs.pop("options", None) if accept_options else None
            run_metadata = kwargs.pop("run_metadata", None) if accept_options else None
            if kwargs:
                raise TypeError("unexpected keyword arguments %s" % sorted(kwargs))
            if len(args) != len(elems):
                raise ValueError("Expected %d feed values, got %d" % (len(elems), len(args)))
            return self.run(fetches, dict(zip(elems, args)), options, run_metadata)

        return call

    def list_devices(self):
        return [_Device()]


class _Device(collections.namedtuple("_Device", "name device_type memory_limit_bytes")):
    def __new__(cls):
        return super().__new__(cls, "/job:localhost/replica:0/task:0/device:CPU:0", "CPU", 0)


class InteractiveSession(Session):
    """A Session that installs itself as the default session on construction."""

    def __init__(self, target="", graph=None, config=None):
        super().__init__(target, graph, config)
        self._ctx = _DefaultSession(self, with_graph=True)
        self._ctx.__enter__()

    def close(self):
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


def _blocked_ops(plan, ctx):
    if ctx.waiting is not None:
        return [ctx.waiting]
    return [st.op for st in plan.steps if st.akernel is not None]


def _feed_value(t: Tensor, value):
    """Converts a fed value to the tensor's dtype and checks its static shape."""
    dt = t.dtype
    if isinstance(value, Tensor):
        raise TypeError("The value of a feed cannot be a fr.Tensor object. Acceptable feed "
                        "values include Python scalars, strings, lists, numpy ndarrays, or "
                        "TensorHandles. For reference, the tensor object was %s which was "
                        "passed to the argument `feed_dict` with key %s." % (value, t))
    if dt is _dt.string:
        arr = _graph._string_array(value)
    else:
        try:
            arr = np.asarray(value, dtype=dt.np)
        except (TypeError, ValueError) as e:
            raise ValueError("Cannot feed value %r for Tensor %r of dtype %s: %s"
                             % (value, t.name, dt.name, e)) from None
    shape = t.shape
    if shape.ndims is not None and not shape.is_compatible_with(arr.shape):
        raise ValueError("Cannot feed value of shape %r for Tensor %r, which has shape %r"
                         % (arr.shape, t.name, str(shape)))
    return arr

