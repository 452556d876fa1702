"""``fr.train.replica_device_setter``: TF1's device function for between-graph
replication (variables round-robin over the ps tasks, everything else on the worker).

The function only writes ``op.device``; the distributed runtime reads it. Ops created
inside ``fr.colocate_with`` get the device of the op they are colocated with instead;
optimizer slots and ``beta1_power`` are created inside one, so they land on their
primary variable's ps task. As in TF, a variable created there still passes its handle
op through this function first (TF creates variables in an ``init_scope``), so it
takes its turn in the round robin.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from .._core.device_spec import DeviceSpec

__all__ = ["replica_device_setter"]

STANDARD_PS_OPS = (
    "Variable",
    "VariableV2",
    "AutoReloadVariable",
    "MutableHashTable",
    "MutableHashTableV2",
    "MutableHashTableOfTensors",
    "MutableHashTableOfTensorsV2",
    "MutableDenseHashTable",
    "MutableDenseHashTableV2",
    "VarHandleOp",
    "BoostedTreesEnsembleResourceHandleOp",
    "BoostedTreesQuantileStreamResourceHandleOp",
    "ResourceConditionalAccumulator",
    "DecisionTreeResource",
)
"""The op types ``replica_device_setter`` places on ps tasks by default (TF1's list)."""

_log = logging.getLogger("flowrt.train")


class _RoundRobinStrategy:
    """The next ps task, cycling over ``num_tasks``: TF1's default ``ps_strategy``."""

    def __init__(self, num_tasks: int):
        self._num_tasks = num_tasks
        self._next_task = 0

    def __call__(self, unused_op: Any) -> int:
        task = self._next_task
        self._next_task = (self._next_task + 1) % self._num_tasks
        return task


class _ReplicaDeviceChooser:
    """The device function ``replica_device_setter`` returns (TF1's rules)."""

    def __init__(self, ps_tasks, ps_device, worker_device, merge_devices, ps_ops, ps_strategy):
        self._ps_tasks = ps_tasks
        self._ps_device = ps_device
        self._worker_device = worker_device
        self._merge_devices = merge_devices
        self._ps_ops = ps_ops
        self._ps_strategy = ps_strategy

    def device_function(self, op: Any) -> str:
        if not self._merge_devices and op.device:
            return op.device
        current = DeviceSpec.from_string(op.device or "")
        # A ps op goes to the ps device; its task comes from the strategy unless the op's
        # own device already names another job.
        if self._ps_tasks and self._ps_device and op.type in self._ps_ops:
            ps = DeviceSpec.from_string(self._ps_device)
            if ps.job and (not current.job or current.job == ps.job):
                ps = ps.replace(task=self._ps_strategy(op))
            return ps.make_merged_spec(current).to_string()
        worker = DeviceSpec.from_string(self._worker_device or "")
        return worker.make_merged_spec(current).to_string()


def _jobs(cluster: Any) -> Mapping[str, Any]:
    """``{job name: tasks}`` of a ``ClusterSpec`` or a dict (checked as ClusterSpec does)."""
    from .cluster import ClusterSpec

    return ClusterSpec(cluster).as_dict()


def replica_device_setter(
    ps_tasks: int = 0,
    ps_device: str | None = "/job:ps",
    worker_device: str | None = "/job:worker",
    merge_devices: bool = True,
    cluster: Any = None,
    ps_ops: list[str] | None = None,
    ps_strategy: Callable[[Any], int] | None = None,
) -> Callable[[Any], str] | None:
    """A device function for ``fr.device`` that places a replicated training graph.

    Ops whose type is in ``ps_ops`` (variables: ``VarHandleOp``, ``VariableV2``, hash
    tables, ...) go to ``ps_device`` with the task chosen by ``ps_strategy`` (round
    robin by default: ``/job:ps/task:0``, ``/job:ps/task:1``, ``/job:ps/task:0``, ...);
    every other op to ``worker_device``. Fields an inner ``fr.device`` already set win
    (``merge_devices``); an op whose device names a job other than ps's keeps its task.
    Ops inside ``fr.colocate_with`` follow the op they are colocated with instead: an
    optimizer slot lands on its variable's ps task, though, as in TF, its handle op
    still takes a turn of the round robin.

    ```python
    cluster = {"ps": ["ps0:2222", "ps1:2222"], "worker": ["w0:2222", "w1:2222"]}
    with fr.device(fr.train.replica_device_setter(cluster=cluster)):
        v1 = fr.Variable(...)  # /job:ps/task:0
        v2 = fr.Variable(...)  # /job:ps/task:1
        y = v1 * v2            # /job:worker
    ```

    Args:
      ps_tasks: the number of ps tasks; ignored when ``cluster`` is given.
      ps_device: the device of the ps job; empty or None for no ps job.
      worker_device: the device of every other op (e.g. ``/job:worker/task:3``).
      merge_devices: if True, merge with the device the op already has (inner
        ``fr.device`` blocks); if False, an op with a device keeps it unchanged.
      cluster: a ``fr.train.ClusterSpec`` or a dict ``{job: [addresses]}``; the number
        of ps tasks is the number of tasks of ``ps_device``'s job in it.
      ps_ops: the op types placed on ps tasks (default ``STANDARD_PS_OPS``).
      ps_strategy: ``f(op) -> ps task index`` for each ps op (default round robin);
        e.g. ``fr.contrib.training.GreedyLoadBalancingStrategy``.

    Returns:
      The device function, or None when there are no ps tasks (``fr.device(None)``
      then clears the enclosing devices, as in TF1).

    Raises:
      TypeError: if ``cluster`` is not a ClusterSpec or dict, or ``ps_strategy`` is not
        callable.
    """
    if cluster is not None:
        jobs = _jobs(cluster)
        ps_job = DeviceSpec.from_string(ps_device or "").job
        if ps_job is None or ps_job not in jobs:
            return None
        ps_tasks = len(jobs[ps_job])
    if ps_tasks == 0:
        return None
    if ps_ops is None:
        ps_ops = list(STANDARD_PS_OPS)
    if not merge_devices:
        _log.warning(
            "DEPRECATION: It is recommended to set merge_devices=true in replica_device_setter"
        )
    if ps_strategy is None:
        ps_strategy = _RoundRobinStrategy(ps_tasks)
    if not callable(ps_strategy):
        raise TypeError("ps_strategy must be callable, got %r" % (ps_strategy,))
    chooser = _ReplicaDeviceChooser(
        ps_tasks, ps_device, worker_device, merge_devices, ps_ops, ps_strategy
    )
    return chooser.device_function
