"""A session's side of a cluster: partitioned plans and how their runs go.

A ``DistributedPlan`` is built once per run signature, like a ``Plan``: its stages of
parts (``partition``), each local part compiled to a ``Plan`` on the session's graph,
and so is each part of a task hosted by this process (its ``fr.train.Server`` was
started here: ``HOSTED``), which runs in place on that task's resources; each part of
a task of another process is pickled once (``PartSpec``) for its task. Its ``run`` is
a straight plan body like any other: a generator that runs the local parts in place and yields a
``RemoteWait`` while remote parts run, so ``Session.run`` parks a thread and
``Session.arun`` awaits in its task through the same drivers as a local run.

A remote part that dequeued stays pending on its task until the run ends: the run's
journal holds a ``RemoteLease`` for it, so an interrupted run gives those elements
back exactly as it gives back local ones, and a completed (or failed) run commits.
Each part carries the list of the run's parts (``DistributedPlan.parts``), by which
the tasks settle the run among themselves if this process dies (``task.py``).
"""

from __future__ import annotations

import itertools
import math
import threading
import time
import uuid
from typing import Any

import trio

from .. import errors
from .._core.executor import run_nested, run_sync
from .._core.parker import Parker
from .._core.plan import Plan, prune
from .._core.waiting import Wait
from ..train.cluster import ClusterSpec
from . import ray_cluster
from .partition import LOCAL, PartSpec, partition
from .task import CLIENT_COMPUTES, CLIENT_HOLDS

__all__ = ["ClusterClient", "DistributedPlan", "RemoteWait"]

# How long an interrupted run waits for its remote parts to come back (and say
# whether they took anything) before it gives up on them (their task then rolls
# them back itself when it sees this client gone or the part cancelled).
ABANDON_SECONDS = 30.0


class ClusterClient:
    """A session's connection to the cluster of its target task.

    Attributes:
      address: the target task's address; ``own``: its ``(job, index)``.
      spec: the ``ClusterSpec``.
      client_id: this session's identity on every task.
    """

    def __init__(self, address: str):
        ray_cluster.connect()
        ray = ray_cluster.ray_module()

        self.address = address
        self.client_id = uuid.uuid4().hex
        self._token = ray.put(b"")  # dies with this process: tasks watch it
        self._actors: dict[tuple, Any] = {}
        self._sent: dict[tuple, set] = {}
        self._lock = threading.Lock()
        self._run_ids = itertools.count(1)
        self._commits: list = []
        self._hosted: dict[tuple, Any] = {}  # task -> this session's view of its state
        local = _hosted_tasks().get(address)
        if local is not None:
            cluster, job, index = local.cluster, local.job, local.index
        else:
            actor = ray_cluster.find_actor(address, "The session's target task")
            cluster, job, index = self._hello(actor, address)
        self.spec = ClusterSpec(cluster)
        self.own = (job, index)

    def _hello(self, actor, address):
        ray = ray_cluster.ray_module()

        try:
            return ray.get(actor.hello.remote(self.client_id, [self._token]))
        except ray.exceptions.RayActorError as e:
            raise ray_cluster.unavailable("Task", address, e) from None

    def task_name(self, task) -> str:
        return "/job:%s/task:%d" % task

    def actor(self, task):
        """The actor of ``task``, registered with once per incarnation."""
        actor = self._actors.get(task)
        if actor is None:
            address = self.spec.task_address(*task)
            actor = ray_cluster.find_actor(address, self.task_name(task))
            self._hello(actor, address)
            with self._lock:
                self._actors[task] = actor
                self._sent[task] = set()
        return actor

    def hosted(self, task):
        """This session's view of the resources of ``task`` if this process hosts it
        (else None): shared ones are the task's, private ones this session's."""
        res = self._hosted.get(task)
        if res is None:
            runtime = _hosted_tasks().get(self.spec.task_address(*task))
            if runtime is None:
                return None
            with self._lock:
                res = self._hosted.setdefault(task, runtime.resources.scoped(self.client_id))
        return res

    def forget(self, task) -> None:
        """Drops a task's actor after it died: the next run looks it up again."""
        with self._lock:
            self._actors.pop(task, None)
            self._sent.pop(task, None)

    def next_run_id(self) -> int:
        return next(self._run_ids)

    def committing(self, ref) -> None:
        """Tracks a commit in flight: ``close`` waits for it, so that a task never
        sees the session end before a completed run's commit (Ray does not order
        the calls of a threaded actor)."""
        ray = ray_cluster.ray_module()
        with self._lock:
            self._commits.append(ref)
            if len(self._commits) >= 64:
                _, self._commits = ray.wait(
                    self._commits, num_returns=len(self._commits), timeout=0
                )

    def close(self) -> None:
        """Ends this session on every task it used (private resources freed)."""
        ray = ray_cluster.ray_module()
        with self._lock:
            actors = list(self._actors.values())
            self._actors.clear()
            commits, self._commits = self._commits, []
            hosted, self._hosted = list(self._hosted.values()), {}
        for res in hosted:
            res.close()
        if commits:
            ray.wait(commits, num_returns=len(commits), timeout=ABANDON_SECONDS)
        for actor in actors:
            try:
                actor.drop_client.remote(self.client_id)
            except Exception:  # the task is gone already
                pass

    def plan(self, fetch_tensors, target_ops, feed_tensors) -> "DistributedPlan":
        return DistributedPlan(self, list(fetch_tensors), list(target_ops), list(feed_tensors))


def _hosted_tasks() -> dict:
    from ..train import server

    return server.HOSTED


class _Remote:
    """A part of a task of another process, in stage ``stage`` of its run. ``waits``:
    its task said it may wait (or is slow), so its runs go to the task's thread lane
    (``task.py``)."""

    __slots__ = ("task", "stage", "key", "blob", "inputs", "outputs", "graph", "waits")

    def __init__(self, part, stage: int):
        self.task, self.stage = part.task, stage
        self.graph = part.ops[0].graph
        self.key = uuid.uuid4().hex
        self.blob = PartSpec(part).dumps()
        self.inputs, self.outputs = part.inputs, part.outputs
        self.waits = False


class _Local:
    __slots__ = ("plan", "inputs", "outputs")

    def __init__(self, part):
        self.plan = Plan(part.outputs, [], part.inputs, ops=part.ops)
        if self.plan.blocking:
            raise errors.InternalError(None, part.ops[0], "a client-side part may not block")
        self.inputs, self.outputs = part.inputs, part.outputs


class _Hosted:
    """A part of a task this process hosts: a plan on the session's graph that runs in
    the run itself, on the task's resources (it may wait, as a local run waits)."""

    __slots__ = ("plan", "inputs", "outputs", "resources")

    def __init__(self, part, resources):
        self.plan = Plan(part.outputs, [], part.inputs, ops=part.ops)
        self.resources = resources
        self.inputs, self.outputs = part.inputs, part.outputs


class DistributedPlan:
    """A run signature partitioned over a cluster; it runs like a straight ``Plan``
    (``executor.Runnable``) whose body is ``run``."""

    blocking = True
    straight = True
    opaque = False
    seconds = 0.0

    def __init__(self, client: ClusterClient, fetches, targets, feeds):
        self.client = client
        fed = set(feeds)
        ops = prune(fetches, targets, fed)
        stages = partition(ops, fed, fetches, client.own, client.spec)
        self.stages = []
        for n, stage in enumerate(stages):
            remotes, locals_, hosted = [], [], []
            for p in stage:
                res = None if p.task == LOCAL else client.hosted(p.task)
                if p.task == LOCAL:
                    locals_.append(_Local(p))
                elif res is not None:
                    hosted.append(_Hosted(p, res))
                else:
                    remotes.append(_Remote(p, n))
            # Hosted parts that may wait run last: the stage's other parts go first.
            hosted.sort(key=lambda h: h.plan.blocking)
            self.stages.append((remotes, locals_, hosted))
        # The run's parts, sent with each: the remote ones, and the client's own if it
        # has any (what it holds dies with it: ``task.py``). A run that is one remote
        # part alone settles on its task as that part completes: nothing of the run is
        # left to fail or be interrupted.
        fetched = [t for t in fetches if t not in fed]
        parts = [(r.task[0], r.task[1], r.stage) for rs, _, _ in self.stages for r in rs]
        if fetched or any(hs for _, _, hs in self.stages):
            parts.append(CLIENT_HOLDS)
        elif any(ls for _, ls, _ in self.stages):
            parts.append(CLIENT_COMPUTES)
        self.parts = tuple(parts)
        self.feeds = feeds
        self.fetches = fetches
        self.fetch_is_fed = tuple(t in fed for t in fetches)
        self.fetches_fed = any(self.fetch_is_fed)
        self.ops = ops
        self.steps = ops

    def body(self, traced: bool):
        """The run's body, traced or not: its parts record their own steps."""
        return self.run

    def run(self, ctx, feeds):
        """The run's body (a generator; see the module docstring)."""
        client = self.client
        run_id = client.next_run_id()
        values = dict(zip(self.feeds, feeds))
        calls: list[_Call] = []
        try:
            for remotes, locals_, hosted in self.stages:
                calls = []
                for r in remotes:
                    calls.append(_Call(client, r, run_id, values, ctx, self.parts))
                for part in locals_:
                    outs = run_sync(part.plan, ctx, [values[t] for t in part.inputs])
                    values.update(zip(part.outputs, outs))
                for h in hosted:
                    # The run's own context, on the task's resources while the part
                    # runs: what it dequeues joins the run's journal, as locally.
                    own, ctx.resources = ctx.resources, h.resources
                    try:
                        outs = yield from run_nested(h.plan, ctx, [values[t] for t in h.inputs])
                    finally:
                        ctx.resources = own
                    values.update(zip(h.outputs, outs))
                while calls:
                    yield RemoteWait(calls, ctx)
                    again, failure = [], None
                    for call in calls:  # every answer is taken before an error is raised
                        try:
                            outs = call.result(ctx)
                        except errors.OpError as e:
                            failure = failure or e
                            continue
                        if outs is None:  # send the part (again): see _Call.result
                            call.submit(with_blob=True)
                            again.append(call)
                        else:
                            values.update(zip(call.remote.outputs, outs))
                    calls = again
                    if failure is not None:
                        raise failure
        except BaseException as e:
            # Parts still out (a failure elsewhere in the stage) are stopped, and what
            # they took joins the journal.
            RemoteWait(calls, ctx).abandon()
            if isinstance(e, errors.UnavailableError):
                # A task's death is not an op's failure: the run is interrupted, and
                # the living tasks get back what it took from them.
                ctx.mark_interrupted(e)
                ctx.rollback()
            elif ctx.interrupt is None and isinstance(e, Exception):
                _commit(ctx)  # an op error consumes what the run took, as in TF
            raise
        _commit(ctx)
        return [values[t] for t in self.fetches]


def _commit(ctx) -> None:
    kept = []
    for entry in ctx.journal:
        if isinstance(entry[0], RemoteLease):
            entry[0].finish(True)
        else:
            kept.append(entry)
    ctx.journal[:] = kept


class RemoteLease:
    """A pending remote part in a run's journal: ``give_back`` rolls it back."""

    __slots__ = ("actor", "client", "run_id", "stage")

    def __init__(self, actor, client, run_id, stage):
        self.actor, self.client, self.run_id, self.stage = actor, client, run_id, stage

    def finish(self, commit: bool) -> None:
        """Commits without waiting (the session's ``close`` waits for its commits);
        a rollback waits until the elements are back, so the interrupted run's caller
        finds them in the queue, as with a local run."""
        try:
            ref = self.actor.finish.remote(self.client.client_id, self.run_id, self.stage, commit)
            if commit:
                self.client.committing(ref)
            else:
                ray_cluster.ray_module().get(ref, timeout=ABANDON_SECONDS)
        except Exception:  # the task died (it holds nothing any more) or hangs
            pass

    def give_back(self, _elems) -> None:
        self.finish(False)


# A call's answer not read yet.
_UNREAD = object()


class _Call:
    """One remote part's actor call in one run."""

    __slots__ = (
        "client",
        "remote",
        "run_id",
        "parts",
        "args",
        "ctx",
        "actor",
        "ref",
        "settled",
        "got",
    )

    def __init__(self, client, remote, run_id, values, ctx, parts):
        self.client, self.remote, self.run_id, self.ctx = client, remote, run_id, ctx
        self.parts = parts
        self.args = [values[t] for t in remote.inputs]
        self.actor = None
        self.settled = False
        self.submit(with_blob=remote.key not in client._sent.get(remote.task, ()))

    def submit(self, with_blob: bool) -> None:
        client, r, ctx = self.client, self.remote, self.ctx
        self.settled = False
        self.got = _UNREAD
        self.actor = client.actor(r.task)
        timeout = None
        if ctx.deadline != math.inf:
            timeout = max(0.001, ctx.deadline - time.monotonic())
        method = self.actor.run_waiting_part if r.waits else self.actor.run_part
        self.ref = method.remote(
            client.client_id,
            self.run_id,
            r.key,
            r.blob if with_blob else None,
            self.args,
            timeout,
            r.stage,
            self.parts,
        )
        if with_blob:
            client._sent.setdefault(r.task, set()).add(r.key)

    def cancel(self) -> None:
        try:
            self.actor.cancel.remote(self.client.client_id, self.run_id)
        except Exception:
            pass

    def outcome(self):
        """The actor's answer (the call has completed), or the Ray error of a task
        that died. The wait that saw the call complete usually read it already."""
        if self.got is not _UNREAD:
            return self.got
        ray = ray_cluster.ray_module()

        try:
            self.got = ray.get(self.ref)
        except (ray.exceptions.RayActorError, ray.exceptions.ActorUnavailableError) as e:
            self.got = e
        return self.got

    def result(self, ctx):
        """The part's outputs, or None: send the part again, with its ops (the task
        had not seen it, or restarted), or to the thread lane (the task said it may
        wait: its ops go along once more, which the task then ignores). Raises the
        part's error."""
        self.settled = True
        got = self.outcome()
        task = self.remote.task
        if isinstance(got, BaseException):
            self.client.forget(task)
            raise ray_cluster.unavailable(
                self.client.task_name(task), self.client.spec.task_address(*task), got
            )
        kind = got[0]
        if kind == "ok":
            if got[2]:
                ctx.journal.append((self.lease(), None))
            return got[1]
        if kind == "thread":
            self.remote.waits = True
            return None
        if kind in ("missing", "unknown-client"):
            if kind == "unknown-client":  # the task restarted: register again
                self.client.forget(task)
            return None
        _, code, message, op_name = got
        op = None
        if op_name is not None:
            try:
                op = self.client_graph_op(op_name)
            except (KeyError, ValueError):
                op = None
        error = errors.exception_type_from_error_code(code)(None, op, message)
        if code in (errors.DEADLINE_EXCEEDED, errors.CANCELLED):
            # The part's task ended it at the run's own deadline (or on its cancel):
            # the run is interrupted, not failed, and gives back what it took.
            ctx.cancel(error)
            ctx.check_interrupted()
        raise error

    def lease(self) -> RemoteLease:
        return RemoteLease(self.actor, self.client, self.run_id, self.remote.stage)

    def client_graph_op(self, name):
        return self.remote.graph.get_operation_by_name(name)

    def settle(self) -> None:
        """After an interruption: the part's answer decides what the run must give
        back (a part that completed and took elements is rolled back by the run)."""
        self.settled = True
        got = self.outcome()
        if isinstance(got, tuple) and got[0] == "ok" and got[2]:
            self.ctx.journal.append((self.lease(), None))


class RemoteWait(Wait):
    """Waiting for a stage's remote parts: a thread waits in ``ray.wait``, a task
    awaits the calls' futures. An interrupted wait cancels the parts (``wake``, called
    by ``ctx.cancel``) and waits for their answers, which say what to give back."""

    __slots__ = ("calls", "ctx")

    def __init__(self, calls, ctx):
        self.calls, self.ctx = calls, ctx

    def describe(self) -> str:
        tasks = sorted({c.client.task_name(c.remote.task) for c in self.calls})
        return "its parts running on %s" % ", ".join(tasks)

    def wake(self) -> None:
        """The run was interrupted: its parts stop waiting and give back what they took."""
        for c in self.calls:
            c.cancel()

    def wait_sync(self):
        """Reads the calls' answers in one ``ray.get`` (a ``ray.wait`` and then a
        ``ray.get`` cost a round trip to Ray's core each); if a task died, waits for
        the others' answers, which ``_Call.result`` then reads one by one."""
        ray = ray_cluster.ray_module()
        ctx = self.ctx
        calls = self.calls
        ctx.waiter = self
        try:
            ctx.check_interrupted()
            deadline = ctx.deadline
            timeout = None if deadline == math.inf else max(0.0, deadline - time.monotonic())
            try:
                if len(calls) == 1:
                    calls[0].got = ray.get(calls[0].ref, timeout=timeout)
                else:
                    for c, got in zip(calls, ray.get([c.ref for c in calls], timeout=timeout)):
                        c.got = got
                waiting = False
            except ray.exceptions.GetTimeoutError:
                waiting = True
            except ray.exceptions.RayError:  # a task died (or its call failed)
                if deadline != math.inf:
                    timeout = max(0.0, deadline - time.monotonic())
                refs = [c.ref for c in calls]
                _, waiting = ray.wait(refs, num_returns=len(refs), timeout=timeout)
            ctx.check_interrupted()
            if waiting:
                ctx.timed_out()
        except BaseException:
            self.abandon()
            raise
        finally:
            ctx.waiter = None

    async def wait_async(self):
        parker = Parker()
        futures = [c.ref.future() for c in self.calls]

        def check(_f):
            if all(f.done() for f in futures):
                parker.wake()

        for f in futures:
            f.add_done_callback(check)
        try:
            while not all(f.done() for f in futures):
                await parker.park_async()
        except BaseException:
            with trio.CancelScope(shield=True):
                await trio.to_thread.run_sync(self.abandon)
            raise
        for c, f in zip(self.calls, futures):  # the answers, read once
            if f.exception() is None:
                c.got = f.result()

    def abandon(self) -> None:
        """Stops the calls not yet answered and settles them (what they took joins
        the run's journal, to be given back or committed with the run)."""
        calls = [c for c in self.calls if not c.settled]
        if not calls:
            return
        ray = ray_cluster.ray_module()
        for c in calls:
            c.cancel()
        refs = [c.ref for c in calls]
        ready, _ = ray.wait(refs, num_returns=len(refs), timeout=ABANDON_SECONDS)
        ready = set(ready)
        for c in calls:
            if c.ref in ready:
                c.settle()
