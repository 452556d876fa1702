"""``fr.train.ClusterSpec``: the jobs of a cluster and the addresses of their tasks.

As in TF1, a cluster is a map from job names (``"ps"``, ``"worker"``) to task
addresses, given as a list (task ``i`` is the ``i``-th address) or a dict of task
indices. flowrt reaches tasks through Ray (``docs/distributed.md``): an address is the
name of the task's mailbox in the Ray cluster, not a port flowrt listens on, so ``"host:port"``
strings from a TF1 program work unchanged as long as they are unique.
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

__all__ = ["ClusterSpec"]


class ClusterSpec:
    """A cluster: job names mapped to their tasks' addresses.

    Args:
      cluster: a dict ``{job_name: [address, ...]}`` or ``{job_name: {index:
        address}}``, or another ``ClusterSpec`` (copied).

    Raises:
      TypeError: ``cluster`` is not one of those, or a job's tasks are neither a list
        nor a dict of integer indices.
    """

    def __init__(self, cluster: "ClusterSpec | Mapping[str, Any]") -> None:
        self._jobs: dict[str, dict[int, str]] = {}
        if isinstance(cluster, ClusterSpec):
            self._jobs = {j: dict(t) for j, t in cluster._jobs.items()}
            return
        if not isinstance(cluster, Mapping):
            raise TypeError(
                "`cluster` must be a dictionary mapping one or more job names to "
                "lists of network addresses, or a `ClusterSpec`; got %r" % (cluster,)
            )
        for job, tasks in cluster.items():
            if not isinstance(job, str):
                raise TypeError("Job name %r must be a string" % (job,))
            if isinstance(tasks, Mapping):
                by_index = {}
                for i, addr in tasks.items():
                    if not isinstance(i, int) or isinstance(i, bool):
                        raise TypeError("Task index %r of job %r must be an integer" % (i, job))
                    by_index[i] = _address(addr, job)
            elif isinstance(tasks, (list, tuple)):
                by_index = {i: _address(a, job) for i, a in enumerate(tasks)}
            else:
                raise TypeError(
                    "The tasks for job %r must be a list or a dictionary from integers "
                    "to strings; got %r" % (job, tasks)
                )
            self._jobs[job] = dict(sorted(by_index.items()))
        seen: dict[str, str] = {}
        for job, tasks in self._jobs.items():
            for i, addr in tasks.items():
                if addr in seen:
                    raise ValueError(
                        "Address %r is used by both %s and /job:%s/task:%d; flowrt names "
                        "a task's actor after its address, so addresses must be unique"
                        % (addr, seen[addr], job, i)
                    )
                seen[addr] = "/job:%s/task:%d" % (job, i)

    # --- TF1's accessors ------------------------------------------------------------

    @property
    def jobs(self) -> list[str]:
        """The job names, sorted."""
        return sorted(self._jobs)

    def as_dict(self) -> dict[str, Any]:
        """``{job: [address, ...]}``, or ``{job: {index: address}}`` for a job whose
        task indices are not ``0..n-1``."""
        out: dict[str, Any] = {}
        for job, tasks in self._jobs.items():
            if list(tasks) == list(range(len(tasks))):
                out[job] = list(tasks.values())
            else:
                out[job] = dict(tasks)
        return out

    def num_tasks(self, job_name: str) -> int:
        """The number of tasks of ``job_name``. Raises ValueError for an unknown job."""
        return len(self._tasks(job_name))

    def task_indices(self, job_name: str) -> list[int]:
        """The sorted task indices of ``job_name``."""
        return list(self._tasks(job_name))

    def task_address(self, job_name: str, task_index: int) -> str:
        """The address of task ``task_index`` of ``job_name``.

        Raises:
          ValueError: no such job or task.
        """
        tasks = self._tasks(job_name)
        try:
            return tasks[task_index]
        except KeyError:
            raise ValueError("No task with index %r in job %r" % (task_index, job_name)) from None

    def job_tasks(self, job_name: str) -> list[str | None]:
        """The addresses of ``job_name``'s tasks by index (None where an index is
        missing)."""
        tasks = self._tasks(job_name)
        n = max(tasks) + 1 if tasks else 0
        return [tasks.get(i) for i in range(n)]

    def _tasks(self, job_name: str) -> dict[int, str]:
        try:
            return self._jobs[job_name]
        except KeyError:
            raise ValueError("No such job in cluster: %r" % (job_name,)) from None

    # --- flowrt's lookups -----------------------------------------------------------

    def tasks(self) -> Iterator[tuple[str, int, str]]:
        """Every ``(job, index, address)`` of the cluster, jobs sorted."""
        for job in self.jobs:
            for i, addr in self._jobs[job].items():
                yield job, i, addr

    def find(self, address: str) -> tuple[str, int] | None:
        """The ``(job, index)`` of the task at ``address``, or None."""
        for job, i, addr in self.tasks():
            if addr == address:
                return job, i
        return None

    # --- value semantics ------------------------------------------------------------

    def __bool__(self) -> bool:
        return bool(self._jobs)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mapping):
            other = ClusterSpec(other)
        return isinstance(other, ClusterSpec) and self._jobs == other._jobs

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None  # type: ignore[assignment]  # mutable-looking, as TF1's

    def __repr__(self) -> str:
        return "ClusterSpec(%r)" % (self.as_dict(),)


def _address(addr: object, job: str) -> str:
    if not isinstance(addr, str) or not addr:
        raise TypeError("Task address %r of job %r must be a non-empty string" % (addr, job))
    return addr
