"""Finding, waiting for, timing and deleting checkpoints: TF1's
``tf.train.load_checkpoint``, ``checkpoints_iterator``, ``get_checkpoint_mtimes``,
and ``remove_checkpoint`` (the ``checkpoint`` state file, and
``generate_checkpoint_state_proto``, are in ``saver``)."""

from __future__ import annotations

import glob
import logging
import os
import time
from collections.abc import Callable, Iterator, Sequence

from .checkpoint_reader import CheckpointReader, NewCheckpointReader
from .saver import _resolve, checkpoint_exists, latest_checkpoint

__all__ = [
    "checkpoints_iterator",
    "get_checkpoint_mtimes",
    "load_checkpoint",
    "remove_checkpoint",
]

_log = logging.getLogger("flowrt.train")


def load_checkpoint(ckpt_dir_or_file: str) -> CheckpointReader:
    """A ``CheckpointReader`` of a checkpoint prefix, or of a directory's latest one.

    Raises:
      ValueError: a directory without checkpoints.
    """
    return NewCheckpointReader(_resolve(ckpt_dir_or_file))


def _wait_for_new_checkpoint(
    checkpoint_dir: str, last: str | None, seconds_to_sleep: float, timeout: float | None
) -> str | None:
    """The directory's latest checkpoint once it differs from ``last``; None after
    ``timeout`` seconds without one."""
    stop = None if timeout is None else time.monotonic() + timeout
    while True:
        path = latest_checkpoint(checkpoint_dir)
        if path is not None and path != last:
            return path
        if stop is not None and time.monotonic() + seconds_to_sleep > stop:
            return None
        time.sleep(seconds_to_sleep)


def checkpoints_iterator(
    checkpoint_dir: str,
    min_interval_secs: float = 0,
    timeout: float | None = None,
    timeout_fn: Callable[[], bool] | None = None,
) -> Iterator[str]:
    """Yields each new checkpoint of ``checkpoint_dir`` as training writes it, as an
    evaluation job follows a trainer: at most one per ``min_interval_secs``; after
    ``timeout`` seconds without a new one it ends, unless ``timeout_fn`` returns False
    (then it waits again).

    Note (flowrt): it polls the directory's ``checkpoint`` file once a second, as TF
    does; a checkpoint replaced twice between polls is yielded once.
    """
    last = None
    while True:
        path = _wait_for_new_checkpoint(checkpoint_dir, last, 1.0, timeout)
        if path is None:
            if timeout_fn is None or timeout_fn():
                _log.info("Timed-out waiting for a checkpoint.")
                return
            continue
        start = time.monotonic()
        last = path
        yield path
        left = start + min_interval_secs - time.monotonic()
        if left > 0:
            time.sleep(left)


def get_checkpoint_mtimes(checkpoint_prefixes: Sequence[str]) -> list[float]:
    """The modification time (seconds since the epoch) of each checkpoint that exists
    (its ``.index`` file); missing ones are skipped with a warning, as in TF."""
    times = []
    for prefix in checkpoint_prefixes:
        if checkpoint_exists(prefix):
            times.append(os.path.getmtime(prefix + ".index"))
        else:
            _log.warning("Checkpoint %s does not exist: no modification time for it.", prefix)
    return times


def remove_checkpoint(
    checkpoint_prefix: str, checkpoint_format_version: int = 2, meta_graph_suffix: str = "meta"
) -> None:
    """Deletes a checkpoint's files: its index, data shards and meta graph (each that
    exists)."""
    paths = [checkpoint_prefix + ".index", checkpoint_prefix + "." + meta_graph_suffix]
    paths += glob.glob(glob.escape(checkpoint_prefix) + ".data-?????-of-?????")
    for p in paths:
        if os.path.exists(p):
            os.remove(p)
