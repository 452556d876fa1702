"""One cluster task: its state and the parts of runs that clients send it.

A ``TaskRuntime`` lives in the process that started the task's ``fr.train.Server``: the
task's resources (variables, queues, readers) and the plans of the run parts that
other processes' sessions place on it (sessions of its own process run their parts on
its resources in place: ``client.py``). Remote clients call ``run_part`` once per part
per run (``mailbox.py``): directly, when the hosting process is a ``process_class()``
actor, else through the task's mailbox, whose serving thread in this process runs the
requests. Every method here is a plain function that the caller's serving thread runs:

* the *quick lane* (one thread: the actor's own, or the mailbox's event loop) serves
  every request that cannot wait, in the order they come;
* the *thread lane* (``ON_THREAD``: ``run_waiting_part``, ``join``) runs each request
  on a thread of its own, so a part that waits (a dequeue) holds up no other request.

A part runs with the same compiled plans and waits as a local run. ``run_part`` runs
it on the quick lane when it cannot wait; otherwise it answers ``("thread",)`` and the
client sends that part's runs to ``run_waiting_part`` from then on. A part that only
computes stays on the quick lane however long it takes: the lane is the client's
choice for good, and a lane chosen by measured time would move quick parts to threads
for good whenever the machine was busy once (seen here); the GIL runs one of them at a
time anyway.

Nothing a run dequeued is lost (``docs/distributed.md``): a part that took elements
stays *pending* after it returns, holding them, until its client says the run
completed (``finish(commit=True)``) or was interrupted (``commit=False``: they go back
to the front of their queues). A part that is its run's whole and returns nothing
commits as it completes: nothing of the run is left to fail, and a client dying
before its commit leaves would otherwise see elements the part moved given back too.
A watchdog checks, every ``WATCH_SECONDS``, that each client with runs in flight or
pending is alive (a Ray object the client owns becomes unreachable when its process
dies); a dead client's runs are cancelled and rolled back and its private resources
freed.
"""

from __future__ import annotations

import threading

from .. import errors
from .._core import executor
from .._core.plan import Plan
from .._core.resources import ResourceManager
from .._core.run_context import RunContext
from .._core.token import TOKEN
from . import ray_cluster
from .partition import build_part_graph

__all__ = ["ON_THREAD", "TaskRuntime", "WATCH_SECONDS"]

WATCH_SECONDS = 0.5

# The requests that run on a thread of their own (they may wait).
ON_THREAD = frozenset(["run_waiting_part", "join"])

_INTERRUPTED = "The run was interrupted by its client."


class _Client:
    __slots__ = ("token", "resources", "plans")

    def __init__(self, token, resources):
        self.token = token
        self.resources = resources
        self.plans: dict[str, Plan] = {}


class TaskRuntime:
    """The state and runs of task ``/job:{job}/task:{index}`` of a cluster.

    Args:
      cluster: the cluster as ``ClusterSpec.as_dict()``.
      job, index: which task this is.
    """

    def __init__(self, cluster: dict, job: str, index: int) -> None:
        self.cluster, self.job, self.index = cluster, job, index
        self.resources = ResourceManager()
        self._clients: dict[str, _Client] = {}
        self._inflight: dict[tuple[str, int], RunContext] = {}
        self._pending: dict[tuple[str, int], RunContext] = {}
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._watchdog = threading.Thread(
            target=self._watch, name="flowrt-task-watchdog", daemon=True
        )
        self._watchdog.start()

    @property
    def name(self) -> str:
        return "/job:%s/task:%d" % (self.job, self.index)

    # --- clients ------------------------------------------------------------------

    def hello(self, client_id: str, token_box: list) -> tuple[dict, str, int]:
        """Registers a client (a session) by the Ray object it owns in ``token_box``
        (its liveness token). Returns the cluster, job and index."""
        with self._lock:
            if client_id not in self._clients:
                scoped = self.resources.scoped(client_id)
                self._clients[client_id] = _Client(token_box[0], scoped)
        return self.cluster, self.job, self.index

    def drop_client(self, client_id: str) -> None:
        """Ends a client's session here: its runs are cancelled and rolled back, and
        its private resources (queues without a shared_name, readers) are freed."""
        self._drop(client_id)

    def _drop(self, client_id: str) -> None:
        with self._lock:
            client = self._clients.pop(client_id, None)
            runs = [(k, c) for k, c in self._inflight.items() if k[0] == client_id]
            pending = [(k, c) for k, c in self._pending.items() if k[0] == client_id]
            for k, _ in pending:
                del self._pending[k]
        for _, ctx in runs:
            ctx.cancel(errors.CancelledError(None, None, _INTERRUPTED))
        for _, ctx in pending:
            ctx.rollback()
        if client is not None:
            client.resources.close()

    # --- runs ---------------------------------------------------------------------

    def run_part(
        self,
        client_id: str,
        run_id: int,
        key: str,
        blob: bytes | None,
        feeds: list,
        timeout: float | None,
        whole: bool = False,
    ) -> tuple:
        """Runs one part of a client's run on the quick lane.

        A part that may wait (a dequeue) or runs Python code is not run here: the
        answer ``("thread",)`` tells the client to send it to ``run_waiting_part``.
        A part that is its run's ``whole`` commits its dequeues as it completes.

        Returns ``("ok", values, pending)``, ``("missing",)`` if the part's ops must be
        sent (``blob``) first, ``("thread",)``, or ``("error", code, message, op_name)``.
        """
        plan = self._plan(client_id, key, blob)
        if isinstance(plan, tuple):
            return plan
        if plan.blocking or plan.opaque:
            return ("thread",)
        return self._run(client_id, run_id, plan, feeds, timeout, whole)

    def run_waiting_part(
        self,
        client_id: str,
        run_id: int,
        key: str,
        blob: bytes | None,
        feeds: list,
        timeout: float | None,
        whole: bool = False,
    ) -> tuple:
        """``run_part`` for a part that may wait: runs it on the calling thread (the
        thread lane's). Answers as ``run_part``, never ``("thread",)``."""
        plan = self._plan(client_id, key, blob)
        if isinstance(plan, tuple):
            return plan
        return self._run(client_id, run_id, plan, feeds, timeout, whole)

    def _plan(self, client_id: str, key: str, blob: bytes | None) -> Plan | tuple:
        """The client's plan of part ``key`` (built from ``blob`` the first time), or
        the answer that says why there is none."""
        client = self._clients.get(client_id)
        if client is None:
            return ("unknown-client",)
        plan = client.plans.get(key)
        if plan is not None:
            return plan
        if blob is None:
            return ("missing",)
        try:
            g, ops, ins, outs = build_part_graph(blob)
            plan = client.plans[key] = Plan(outs, [], ins, ops=ops)
        except errors.OpError as e:
            return ("error", e.error_code, e.message, e.op.name if e.op else None)
        except Exception as e:  # e.g. an op type this task's flowrt does not know
            msg = "%s could not build its part of the run: %s: %s" % (
                self.name,
                type(e).__name__,
                e,
            )
            return ("error", errors.INTERNAL, msg, None)
        return plan

    def _run(
        self, client_id: str, run_id: int, plan: Plan, feeds: list, timeout, whole: bool
    ) -> tuple:
        client = self._clients.get(client_id)
        if client is None:  # dropped meanwhile (its process died, or it closed)
            return ("unknown-client",)
        ctx = RunContext(self, client.resources, run_id, None, timeout)
        rkey = (client_id, run_id)
        with self._lock:
            self._inflight[rkey] = ctx
        try:
            got = self._execute(plan, ctx, feeds)
        finally:
            with self._lock:
                self._inflight.pop(rkey, None)
        if got[0] == "ok" and ctx.journal and not whole:
            with self._lock:
                self._pending[rkey] = ctx
            return ("ok", got[1], True)
        return got

    @staticmethod
    def _execute(plan: Plan, ctx: RunContext, feeds: list) -> tuple:
        # As a local Session.run: the part runs holding this process's execution token,
        # which its waits give up (docs/executor.md), so a part and the process's own
        # runs take turns instead of trading the GIL.
        try:
            with TOKEN:
                vals = executor.run(plan, ctx, feeds)
        except BaseException as e:
            if ctx.interrupt is not None or not isinstance(e, Exception):
                ctx.rollback()
            if not isinstance(e, errors.OpError):
                if not isinstance(e, Exception):
                    raise
                e = errors.UnknownError(None, None, "%s: %s" % (type(e).__name__, e))
            return ("error", e.error_code, e.message, e.op.name if e.op is not None else None)
        return ("ok", vals, False)

    def finish(self, client_id: str, run_id: int, commit: bool) -> None:
        """Ends a pending part: its dequeues stand (``commit``) or go back."""
        with self._lock:
            ctx = self._pending.pop((client_id, run_id), None)
        if ctx is not None and not commit:
            ctx.rollback()

    def cancel(self, client_id: str, run_id: int) -> None:
        """Interrupts a part in flight: it takes nothing and gives back what it took."""
        with self._lock:
            ctx = self._inflight.get((client_id, run_id))
        if ctx is not None:
            ctx.cancel(errors.CancelledError(None, None, _INTERRUPTED))

    # --- liveness -----------------------------------------------------------------

    def ping(self) -> str:
        return self.name

    def stop(self) -> None:
        """Stops the task's watchdog and ``join``s (a Server that could not start)."""
        self._stopped.set()

    def wait_stopped(self) -> None:
        """Blocks until the task stops (never, unless its process ends)."""
        while not self._stopped.wait(1.0):
            pass

    def join(self) -> None:
        """Returns when the task stops (never, unless its process ends): a request of
        the thread lane."""
        self.wait_stopped()

    def _watch(self) -> None:
        ray = ray_cluster.ray_module()

        while not self._stopped.wait(WATCH_SECONDS):
            with self._lock:
                busy = {k[0] for k in self._inflight} | {k[0] for k in self._pending}
                tokens = [(c, self._clients[c].token) for c in busy if c in self._clients]
            for client_id, token in tokens:
                try:
                    ray.get(token, timeout=30)
                except ray.exceptions.GetTimeoutError:
                    continue
                except Exception:  # OwnerDiedError and kin: the client's process died
                    self._drop(client_id)

    def stats(self) -> dict[str, int]:
        """Runs in flight and pending here, and sessions known (tests, debugging)."""
        with self._lock:
            return {
                "inflight": len(self._inflight),
                "pending": len(self._pending),
                "clients": len(self._clients),
            }
