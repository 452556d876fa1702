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

Nothing a run dequeued is lost or delivered twice (``docs/distributed.md``). Each
task keeps a *ledger* of the run parts it was sent: a part's state, *running*,
*completed* or *aborted*, is decided once, under the task's lock. A part that took
elements stays *pending* after it completes, holding them, until the run is settled:
its client says the run completed (``finish(commit=True)``) or was interrupted
(``commit=False``: they go back to the front of their queues). Each part carries the
list of the run's parts (``parts``: ``(job, index, stage)`` of each remote part, and
``CLIENT_HOLDS`` when the run fetches values back to its client or runs parts on a
task of the client's process, else ``CLIENT_COMPUTES`` when its client runs parts of
its own). A run settles by one rule, ``_settle``: it
commits when every part completed, and gives back when any aborted. A part that is
its run's only part settles as it completes. When a client dies (a watchdog checks,
every ``WATCH_SECONDS``, that each client with parts in flight or pending is alive: a
Ray object the client owns becomes unreachable when its process dies), its parts in
flight are cancelled and its private resources freed, and each of its pending parts
asks the run's other tasks for their parts' states (``part_state``), again each watch
until none is running (their own watchdogs cancel those). A task asked about a part
it never saw records it aborted, so the part, should it still arrive, is refused. A
dead client's own part counts as aborted when it held values (it may have died
before it saw them) or ran on a task of its process (which died with it).
"""

from __future__ import annotations

import threading
import time
from collections import deque

from .. import errors
from .._core import executor
from .._core.plan import Plan
from .._core.resources import ResourceManager
from .._core.run_context import RunContext
from .._core.token import TOKEN
from ..train.cluster import ClusterSpec
from . import ray_cluster
from .partition import build_part_graph

__all__ = [
    "CLIENT_COMPUTES",
    "CLIENT_HOLDS",
    "ON_THREAD",
    "TaskRuntime",
    "WATCH_SECONDS",
]

WATCH_SECONDS = 0.5

# The requests that run on a thread of their own (they may wait).
ON_THREAD = frozenset(["run_waiting_part", "join"])

_INTERRUPTED = "The run was interrupted by its client."
_REFUSED = (
    "The run's part arrived after the run was settled as aborted (its client was taken for dead)."
)

# A run's parts held by its client, in the ``parts`` a task is sent: its client only
# computes, or it holds what dies with it: values it fetches back, or parts it runs
# on a task its own process hosts.
CLIENT_COMPUTES = ("", -1, 0)
CLIENT_HOLDS = ("", -1, 1)

RUNNING, COMPLETED, ABORTED = "running", "completed", "aborted"

# Settled parts a client's ledger remembers (peers ask about a dead client's last
# runs, settled here moments before it died), and how long a gone client's ledger is
# kept for its runs' other tasks to ask.
LEDGER_SETTLED = 4096
FORGET_SECONDS = 600.0

# How long a watchdog waits for a peer's answer before it asks again next watch.
ASK_SECONDS = 5.0


class _Client:
    __slots__ = ("token", "resources", "plans")

    def __init__(self, token, resources):
        self.token = token
        self.resources = resources
        self.plans: dict[str, Plan] = {}


class _Part:
    """A run part in the ledger: its ``state``; ``ctx`` while it is pending (it
    completed holding elements); the run's ``parts``; ``told``: a peer was told it
    completed, so its client's late rollback no longer applies."""

    __slots__ = ("state", "ctx", "parts", "told")

    def __init__(self, state: str, parts: tuple) -> None:
        self.state, self.parts = state, parts
        self.ctx: RunContext | None = None
        self.told = False


class _Ledger:
    """A client's run parts on this task, keyed ``(run_id, stage)``; settled ones
    beyond the last ``LEDGER_SETTLED`` are forgotten."""

    __slots__ = ("parts", "settled", "gone")

    def __init__(self) -> None:
        self.parts: dict[tuple[int, int], _Part] = {}
        self.settled: deque = deque()
        self.gone: float | None = None

    def settle(self, key: tuple[int, int]) -> None:
        self.settled.append(key)
        while len(self.settled) > LEDGER_SETTLED:
            old = self.settled.popleft()
            part = self.parts.get(old)
            if part is not None and part.ctx is None:
                del self.parts[old]


class TaskRuntime:
    """The state and runs of task ``/job:{job}/task:{index}`` of a cluster.

    Args:
      cluster: the cluster as ``ClusterSpec.as_dict()``.
      job, index: which task this is.
    """

    def __init__(self, cluster: dict, job: str, index: int) -> None:
        self.cluster, self.job, self.index = cluster, job, index
        self._spec = ClusterSpec(cluster)
        self.resources = ResourceManager()
        self._clients: dict[str, _Client] = {}
        self._inflight: dict[tuple[str, int, int], RunContext] = {}
        self._pending: dict[tuple[str, int, int], _Part] = {}
        self._ledgers: dict[str, _Ledger] = {}
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
            runs = [c for k, c in self._inflight.items() if k[0] == client_id]
            ledger = self._ledgers.get(client_id)
            if ledger is not None and ledger.gone is None:
                ledger.gone = time.monotonic()
        for ctx in runs:
            ctx.cancel(errors.CancelledError(None, None, _INTERRUPTED))
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
        stage: int = 0,
        parts: tuple = (),
    ) -> tuple:
        """Runs one part of a client's run on the quick lane.

        A part that may wait (a dequeue) or runs Python code is not run here: the
        answer ``("thread",)`` tells the client to send it to ``run_waiting_part``.
        ``stage`` is the part's stage, ``parts`` the run's parts (module docstring);
        a part that is its run's only part commits its dequeues as it completes.

        Returns ``("ok", values, pending)``, ``("missing",)`` if the part's ops must be
        sent (``blob``) first, ``("thread",)``, or ``("error", code, message, op_name)``.
        """
        plan = self._plan(client_id, key, blob)
        if isinstance(plan, tuple):
            return plan
        if plan.blocking or plan.opaque:
            return ("thread",)
        return self._run(client_id, run_id, plan, feeds, timeout, stage, parts)

    def run_waiting_part(
        self,
        client_id: str,
        run_id: int,
        key: str,
        blob: bytes | None,
        feeds: list,
        timeout: float | None,
        stage: int = 0,
        parts: tuple = (),
    ) -> tuple:
        """``run_part`` for a part that may wait: runs it on the calling thread (the
        thread lane's). Answers as ``run_part``, never ``("thread",)``."""
        plan = self._plan(client_id, key, blob)
        if isinstance(plan, tuple):
            return plan
        return self._run(client_id, run_id, plan, feeds, timeout, stage, parts)

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
        self,
        client_id: str,
        run_id: int,
        plan: Plan,
        feeds: list,
        timeout,
        stage: int,
        parts: tuple,
    ) -> tuple:
        own = (self.job, self.index, stage)
        parts = tuple(map(tuple, parts)) or (own,)
        with self._lock:
            client = self._clients.get(client_id)
            if client is None:  # dropped meanwhile (its process died, or it closed)
                return ("unknown-client",)
            ledger = self._ledgers.setdefault(client_id, _Ledger())
            if (run_id, stage) in ledger.parts:  # a peer found the part missing: aborted
                return ("error", errors.CANCELLED, _REFUSED, None)
            part = ledger.parts[run_id, stage] = _Part(RUNNING, parts)
            ctx = RunContext(self, client.resources, run_id, None, timeout)
            self._inflight[client_id, run_id, stage] = ctx
        got: tuple = ("error",)
        try:
            got = self._execute(plan, ctx, feeds)
        finally:
            with self._lock:
                self._inflight.pop((client_id, run_id, stage), None)
                if got[0] != "ok":
                    part.state = ABORTED
                    ledger.settle((run_id, stage))
                else:
                    part.state = COMPLETED
                    if ctx.journal and parts != (own,):
                        part.ctx = ctx
                        self._pending[client_id, run_id, stage] = part
                    else:  # the run's only part: it settles as it completes
                        ledger.settle((run_id, stage))
        return got if got[0] != "ok" else ("ok", got[1], part.ctx is not None)

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

    def finish(self, client_id: str, run_id: int, stage: int, commit: bool) -> None:
        """Settles a pending part as its client says: its dequeues stand (``commit``)
        or go back. A part a peer was told had completed stands (its client died,
        and the peer commits)."""
        with self._lock:
            ctx = self._unpend(client_id, run_id, stage)
            ledger = self._ledgers.get(client_id)
            part = ledger.parts.get((run_id, stage)) if ledger is not None else None
            if part is not None and not commit:
                if part.told:
                    ctx = None
                else:
                    part.state = ABORTED
        if ctx is not None and not commit:
            ctx.rollback()

    def _unpend(self, client_id: str, run_id: int, stage: int) -> RunContext | None:
        """Takes a pending part's context out of the pending ones (under the lock)."""
        part = self._pending.pop((client_id, run_id, stage), None)
        if part is None:
            return None
        ctx, part.ctx = part.ctx, None
        self._ledgers[client_id].settle((run_id, stage))
        return ctx

    def cancel(self, client_id: str, run_id: int) -> None:
        """Interrupts a run's parts in flight: they take nothing and give back what
        they took."""
        with self._lock:
            ctxs = [c for k, c in self._inflight.items() if k[:2] == (client_id, run_id)]
        for ctx in ctxs:
            ctx.cancel(errors.CancelledError(None, None, _INTERRUPTED))

    def part_state(self, client_id: str, run_id: int, stage: int) -> str:
        """The state of a run's part here, asked by a task holding another part of the
        run of a dead client: ``"running"``, ``"completed"`` or ``"aborted"``. A part
        never seen here is recorded aborted, and refused if it arrives later."""
        with self._lock:
            ledger = self._ledgers.get(client_id)
            if ledger is None:
                ledger = self._ledgers[client_id] = _Ledger()
                if client_id not in self._clients:
                    ledger.gone = time.monotonic()
            part = ledger.parts.get((run_id, stage))
            if part is None:
                part = ledger.parts[run_id, stage] = _Part(ABORTED, ())
                ledger.settle((run_id, stage))
            if part.state == COMPLETED:
                part.told = True
            return part.state

    def _settle_gone(self, client_id: str) -> None:
        """Settles what pending parts of a gone client it can (the watchdog's work):
        each commits when every part of its run completed, and gives back when one
        aborted; one whose run has a part still running waits for the next watch."""
        with self._lock:
            waiting = [(k, p.parts) for k, p in self._pending.items() if k[0] == client_id]
        for (_, run_id, stage), parts in waiting:
            states = [self._peer_state(client_id, run_id, p) for p in parts]
            if ABORTED in states:
                commit = False
            elif all(s == COMPLETED for s in states):
                commit = True
            else:
                continue
            with self._lock:
                part = self._pending.get((client_id, run_id, stage))
                if part is None:  # settled meanwhile (its client's late message)
                    continue
                if not commit:
                    part.state = ABORTED
                ctx = self._unpend(client_id, run_id, stage)
            if ctx is not None and not commit:
                ctx.rollback()

    def _peer_state(self, client_id: str, run_id: int, part: tuple) -> str | None:
        """The state of a gone client's run part ``part``: asked of its task (None if
        it does not answer in time); a task that died lost its part (aborted); the
        client's own part aborted if it held values or tasks, else done."""
        job, index, stage = part
        if part == CLIENT_HOLDS:
            return ABORTED
        if part == CLIENT_COMPUTES:
            return COMPLETED
        if (job, index) == (self.job, self.index):
            return self.part_state(client_id, run_id, stage)
        from ..train import server

        address = self._spec.task_address(job, index)
        hosted = server.HOSTED.get(address)
        if hosted is not None:
            return hosted.part_state(client_id, run_id, stage)
        ray = ray_cluster.ray_module()
        try:
            peer = ray_cluster.find_actor(address, "/job:%s/task:%d" % (job, index))
            return ray.get(peer.part_state.remote(client_id, run_id, stage), timeout=ASK_SECONDS)
        except (ray.exceptions.GetTimeoutError, ray.exceptions.ActorUnavailableError):
            return None  # asked again next watch
        except (errors.UnavailableError, ray.exceptions.RayActorError):
            return ABORTED

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
                gone = {c for c in busy if c not in self._clients}
                now = time.monotonic()
                for c, ledger in list(self._ledgers.items()):
                    if ledger.gone is not None and now - ledger.gone > FORGET_SECONDS:
                        if c not in gone:
                            del self._ledgers[c]
            for client_id, token in tokens:
                try:
                    ray.get(token, timeout=30)
                except ray.exceptions.GetTimeoutError:
                    continue
                except Exception:  # OwnerDiedError and kin: the client's process died
                    self._drop(client_id)
            for client_id in gone:
                self._settle_gone(client_id)

    def stats(self) -> dict[str, int]:
        """Runs in flight and pending here, and sessions known (tests, debugging)."""
        with self._lock:
            return {
                "inflight": len(self._inflight),
                "pending": len(self._pending),
                "clients": len(self._clients),
            }
