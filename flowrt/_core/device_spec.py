"""Device strings: ``DeviceSpec`` (TF1's ``tf.DeviceSpec``), the one parser of
``/job:J/replica:R/task:T/device:TYPE:I`` strings, and the merge ``fr.device`` blocks
and device functions use."""

from __future__ import annotations

import functools
from typing import Any

__all__ = ["DeviceSpec"]

_DEVICE_TYPES = frozenset({"CPU", "GPU", "TPU", "CUSTOM", "EPU"})

Components = tuple[Any, Any, Any, Any, Any]  # job, replica, task, device_type, device_index


def _int_or_none(what: str, value: Any, spec: str | None = None) -> int | None:
    if value is None:
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        where = " in the device spec '%s'" % spec if spec is not None else ""
        raise ValueError("%s must be an integer, got %r%s." % (what, value, where)) from None


def _device_type_or_none(device_type: Any) -> str | None:
    # TF accepts lowercase "cpu" and "gpu" for backwards compatibility.
    if device_type in ("cpu", "gpu"):
        return device_type.upper()
    return None if device_type is None else str(device_type)


@functools.lru_cache(maxsize=4096)
def parse(spec: str | None) -> Components:
    """``(job, replica, task, device_type, device_index)`` of a device string.

    TF's grammar: ``/``-separated fields ``job:J``, ``replica:R``, ``task:T``,
    ``device:TYPE:I`` or the short ``TYPE:I`` / ``TYPE`` (CPU, GPU, TPU, ...; any case);
    an index ``*`` means any. Raises ValueError as TF does for an unknown field or two
    device types, and for a replica, task or index that is not an integer.
    """
    job = replica = task = device_type = device_index = None
    for part in (spec or "").split("/"):
        y = part.split(":")
        n = len(y)
        if n == 2 and y[0] == "job":
            job = y[1]
        elif n == 2 and y[0] == "replica":
            replica = _int_or_none("The replica", y[1], spec)
        elif n == 2 and y[0] == "task":
            task = _int_or_none("The task", y[1], spec)
        elif (n in (1, 2) and y[0].upper() in _DEVICE_TYPES) or (n == 3 and y[0] == "device"):
            if device_type is not None:
                raise ValueError(
                    "Multiple device types are not allowed while parsing the device spec: %s."
                    % spec
                )
            device_type, index = (y[0].upper(), y[1:]) if n < 3 else (y[1], y[2:])
            if index and index[0] != "*":
                device_index = _int_or_none("The device index", index[0], spec)
        elif n > 1 or y[0] != "":
            raise ValueError(
                "Unknown attribute '%s' is encountered while parsing the device spec: '%s'."
                % (y[0], spec)
            )
    return job, replica, task, device_type, device_index


def components_to_string(c: Components) -> str:
    """The canonical string of parsed components (``/job:ps/task:1/device:CPU:0``)."""
    job, replica, task, device_type, device_index = c
    out = []
    if job is not None:
        out.append("/job:" + job)
    if replica is not None:
        out.append("/replica:%d" % replica)
    if task is not None:
        out.append("/task:%d" % task)
    if device_type is not None:
        out.append("/device:%s:%s" % (device_type, "*" if device_index is None else device_index))
    return "".join(out)


def _merged(outer: Components, inner: Components) -> Components:
    job, replica, task, device_type, device_index = (
        i if i is not None else o for o, i in zip(outer, inner)
    )
    return job, replica, task, device_type, device_index


@functools.lru_cache(maxsize=4096)
def merge_device(outer: str, inner: str) -> str:
    """The canonical device string of ``inner`` with its unset fields taken from ``outer``."""
    return components_to_string(_merged(parse(outer), parse(inner)))


def canonical(device: Any) -> str:
    """A device string or ``DeviceSpec`` as a canonical device string."""
    if isinstance(device, DeviceSpec):
        return device.to_string()
    return merge_device("", device)


class DeviceSpec:
    """A (possibly partial) device: job, replica, task, device type and index (TF1's
    ``tf.DeviceSpec``, the mutable one of ``tf.compat.v1``).

    ``DeviceSpec(job="ps", task=1).to_string() == "/job:ps/task:1"``; unset fields are
    None. ``fr.device`` accepts a ``DeviceSpec`` wherever it accepts a string, and a
    device function may return one.

    Args:
      job: the job name.
      replica: the replica index.
      task: the task index.
      device_type: "CPU", "GPU", ... ("cpu" and "gpu" are upper-cased).
      device_index: the device index; None means any.

    Raises:
      ValueError: if ``replica``, ``task`` or ``device_index`` is not an integer.
    """

    __slots__ = ("_job", "_replica", "_task", "_device_type", "_device_index")

    def __init__(
        self,
        job: str | None = None,
        replica: int | None = None,
        task: int | None = None,
        device_type: str | None = None,
        device_index: int | None = None,
    ):
        self.job = job
        self.replica = replica
        self.task = task
        self.device_type = device_type
        self.device_index = device_index

    @property
    def job(self) -> str | None:
        return self._job

    @job.setter
    def job(self, job: Any) -> None:
        self._job = None if job is None else str(job)

    @property
    def replica(self) -> int | None:
        return self._replica

    @replica.setter
    def replica(self, replica: Any) -> None:
        self._replica = _int_or_none("The replica", replica)

    @property
    def task(self) -> int | None:
        return self._task

    @task.setter
    def task(self, task: Any) -> None:
        self._task = _int_or_none("The task", task)

    @property
    def device_type(self) -> str | None:
        return self._device_type

    @device_type.setter
    def device_type(self, device_type: Any) -> None:
        self._device_type = _device_type_or_none(device_type)

    @property
    def device_index(self) -> int | None:
        return self._device_index

    @device_index.setter
    def device_index(self, device_index: Any) -> None:
        self._device_index = _int_or_none("The device index", device_index)

    def _components(self) -> Components:
        return self._job, self._replica, self._task, self._device_type, self._device_index

    @classmethod
    def from_string(cls, spec: str) -> "DeviceSpec":
        """The spec of a device string such as ``/job:ps/task:0/device:CPU:0`` (all fields
        optional; ``/cpu:0`` and ``GPU:1`` are accepted). Raises ValueError as TF does."""
        return cls(*parse(spec))

    def parse_from_string(self, spec: str) -> "DeviceSpec":
        """Sets every field from the device string ``spec`` (unset fields become None);
        returns self, as TF1."""
        (self.job, self.replica, self.task, self.device_type, self.device_index) = parse(spec)
        return self

    def to_string(self) -> str:
        """``/job:<name>/replica:<id>/task:<id>/device:<type>:<id>``, unset fields left
        out (an unset index of a set type is ``*``)."""
        return components_to_string(self._components())

    def merge_from(self, dev: "DeviceSpec") -> None:
        """Sets in place the fields ``dev`` sets (``dev`` wins), as TF1."""
        (self.job, self.replica, self.task, self.device_type, self.device_index) = _merged(
            self._components(), dev._components()
        )

    def make_merged_spec(self, dev: "DeviceSpec") -> "DeviceSpec":
        """A new spec: this one with the fields ``dev`` sets replaced by ``dev``'s."""
        return self.__class__(*_merged(self._components(), dev._components()))

    def replace(self, **kwargs: Any) -> "DeviceSpec":
        """A new spec with the given fields (``job=``, ``task=``, ...) replaced."""
        fields: dict[str, Any] = dict(
            job=self.job,
            replica=self.replica,
            task=self.task,
            device_type=self.device_type,
            device_index=self.device_index,
        )
        fields.update(kwargs)
        return self.__class__(**fields)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DeviceSpec) and self.to_string() == other.to_string()

    def __hash__(self) -> int:
        return hash(self.to_string())

    def __repr__(self) -> str:
        return "<DeviceSpec(job=%s, replica=%s, task=%s, device_type=%s, device_index=%s)>" % (
            self._components()
        )
