"""``fr.train.Server``: one task of a cluster, served from this process.

TF1 starts a gRPC server per task, in the process that asks for it; so does flowrt:
the task's state (``distributed/task.py``: its variables, queues and readers) lives in
the process that created the ``Server``. Sessions in this process run the task's parts
in place; other processes find it by its mailbox, a Ray actor named after the task's
address (``distributed/mailbox.py``), and call this process directly when it is a
``process_class()`` actor, else through the mailbox. Both live as long as this
process: when it ends, the task is gone, and runs that need it fail with
``UnavailableError``.
"""

from __future__ import annotations

import threading
from typing import Any, Mapping

from .. import errors
from ..distributed import mailbox, ray_cluster
from ..distributed.task import TaskRuntime
from .cluster import ClusterSpec

__all__ = ["Server"]

# address -> the state of each task this process hosts (its sessions run parts there);
# the servers stay referenced (and so alive) until the process ends, as TF1's do.
HOSTED: dict[str, TaskRuntime] = {}
_SERVERS: list["Server"] = []
_lock = threading.Lock()


class Server:
    """An in-process handle on one task of a cluster.

    Args:
      server_or_cluster_def: a ``ClusterSpec`` or a dict ``{job: [address, ...]}``.
      job_name: this task's job; may be omitted when the cluster has one job.
      task_index: this task's index; may be omitted when the job has one task.
      protocol: accepted for compatibility (flowrt talks through Ray).
      config: a ``ConfigProto``: the defaults of sessions on this task's target (its
        ``operation_timeout_in_ms`` applies to a session whose config sets none).
      start: accepted for compatibility; the task always starts at once.
      ray_address: the Ray cluster to join (``ray start --head`` prints it); None
        means the ``RAY_ADDRESS`` environment variable if set, else the Ray instance
        on this machine, started if none runs.

    Raises:
      ValueError: the job or task is missing from the cluster or ambiguous.
      UnknownError: a server for this task already runs (in any process).

    Note (flowrt): a task address is the name of its mailbox (a Ray actor), not a
    port to listen on; any unique string works. Other processes call this process
    directly when it is a Ray actor made by ``process_class()`` (in
    ``flowrt.distributed.process``); a driver's task is served through its mailbox.
    """

    def __init__(
        self,
        server_or_cluster_def: ClusterSpec | Mapping[str, Any],
        job_name: str | None = None,
        task_index: int | None = None,
        protocol: str | None = None,
        config: Any = None,
        start: bool = True,
        ray_address: str | None = None,
    ) -> None:
        ray = ray_cluster.ray_module()
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        cluster = ClusterSpec(server_or_cluster_def)
        if job_name is None:
            if len(cluster.jobs) != 1:
                raise ValueError("Must specify an explicit `job_name`.")
            job_name = cluster.jobs[0]
        if task_index is None:
            indices = cluster.task_indices(job_name)
            if len(indices) != 1:
                raise ValueError("Must specify an explicit `task_index`.")
            task_index = indices[0]
        address = cluster.task_address(job_name, task_index)
        ray_cluster.connect(ray_address)
        self._cluster = cluster
        self._job, self._index, self._address = job_name, int(task_index), address
        # The mailbox runs on this machine, next to the process that serves it.
        here = NodeAffinitySchedulingStrategy(ray.get_runtime_context().get_node_id(), soft=False)
        with _lock:
            if address in HOSTED:
                raise _in_use(job_name, task_index, address, "this process hosts it")
            # Registered before the mailbox can be found: a direct caller finds it here.
            self._runtime = HOSTED[address] = TaskRuntime(
                cluster.as_dict(), job_name, int(task_index)
            )
        # A process_class() actor serves its tasks itself (mailbox.HOST): the mailbox
        # only tells callers so; a driver's tasks are served through the mailbox.
        direct = mailbox.HOST
        try:
            self._actor = (
                mailbox.mailbox_class()
                .options(
                    name=ray_cluster.actor_name(address),
                    namespace=ray_cluster.NAMESPACE,
                    max_concurrency=mailbox.MAX_CONCURRENT_CALLS,
                    scheduling_strategy=here,
                )
                .remote(direct)
            )
        except ValueError as e:  # the name is taken: this task already runs
            with _lock:
                del HOSTED[address]
            self._runtime.stop()
            raise _in_use(job_name, task_index, address, e) from None
        # The task answers before the Server is returned (a TF1 server listens once
        # constructed): its first caller does not wait for Ray to start the mailbox.
        stub = mailbox.find(self._actor, address)
        self._serving = None
        if direct is None:
            self._serving = mailbox.serve(self._actor, self._runtime, self._runtime.name)
            ray.get(stub.ping.remote())
        with _lock:
            _SERVERS.append(self)
            if config is not None:
                ray_cluster.DEFAULT_SESSION_CONFIGS[address] = config

    @property
    def target(self) -> str:
        """The session target of this task: ``fr.Session(server.target)``."""
        return "grpc://" + self._address

    @property
    def server_def(self) -> dict[str, Any]:
        """The cluster, job name and task index (TF1's ``ServerDef`` fields)."""
        return {
            "cluster": self._cluster,
            "job_name": self._job,
            "task_index": self._index,
            "protocol": "ray",
        }

    def start(self) -> None:
        """Does nothing: the task started with the ``Server``."""

    def join(self) -> None:
        """Blocks until the task stops serving (a ps task's main loop:
        ``server.join()``; in practice until the process ends)."""
        if self._serving is None:  # served by this actor's event loop, until it ends
            self._runtime.wait_stopped()
            return
        while self._serving.is_alive():
            self._serving.join(1.0)

    @staticmethod
    def create_local_server(config: Any = None, start: bool = True) -> "Server":
        """A one-task cluster ``{"local": [a unique address]}`` in this process."""
        import uuid

        return Server(
            {"local": ["localhost:%s" % uuid.uuid4().hex[:12]]}, "local", 0, config=config
        )

    def __repr__(self) -> str:
        return "<fr.train.Server /job:%s/task:%d at %s>" % (self._job, self._index, self._address)


def _in_use(job: str, index: int, address: str, why: Any) -> errors.UnknownError:
    return errors.UnknownError(
        None,
        None,
        "Could not start server for /job:%s/task:%d: %r is already in use (%s)"
        % (job, index, address, why),
    )
