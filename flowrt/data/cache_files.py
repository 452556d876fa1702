"""``Dataset.cache(filename)``: the elements of a dataset's first complete pass, in files.

The files are those TF writes, readable by either: a tensor bundle (as a checkpoint,
``train/tensor_bundle.py``) with prefix ``filename``, component ``j`` of element ``i``
under the key ``"%7d_%*d" % (i, width, j)``. While a pass writes, the lockfile
``<filename>_0.lockfile`` exists; a second iterator starting to write the same cache
then fails with ``AlreadyExistsError``, as in TF. The bundle appears only when the pass
completes; a pass left unfinished (its iterator re-initialized or its session closed)
removes its lockfile and leaves no cache, so a later pass starts writing anew.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from typing import Any

import numpy as np

from .. import errors
from .pipeline import Failure

__all__ = ["cached"]


def _key(item: int, component: int, n: int) -> str:
    return "%7d_%*d" % (item, len(str(n - 1)), component)


def cached(op: Any, filename: str, source: Iterator[Any]) -> Iterator[Any]:
    """The elements of ``source``, read from the cache ``filename`` when it exists, else
    drawn from ``source`` and written there once the pass completes."""
    from ..train.tensor_bundle import BundleReader, index_path

    if os.path.exists(index_path(filename)):
        yield from _read(op, BundleReader(filename))
        return
    lock = filename + "_0.lockfile"
    try:
        fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    except FileExistsError:
        yield Failure(errors.AlreadyExistsError(None, op, _concurrent(lock)))
        return
    except OSError as err:
        yield Failure(errors.NotFoundError(None, op, "%s; %s" % (lock, err.strerror)))
        return
    with os.fdopen(fd, "w") as f:
        f.write("Created at: %d" % int(time.time()))
    try:
        seen = []
        for e in source:
            if type(e) is not Failure:  # a failed element is not cached (as TF)
                seen.append(e)
            yield e
        _write(filename, seen, op.attrs["n_components"])
    finally:
        try:
            os.remove(lock)
        except FileNotFoundError:  # removed by hand, as TF's message invites
            pass


def _concurrent(lock: str) -> str:
    try:
        with open(lock) as f:
            contents = f.read()
    except OSError:
        contents = ""
    return (
        "There appears to be a concurrent caching iterator running - cache lockfile already "
        "exists ('%s'). If you are sure no other running TF computations are using this "
        "cache prefix, delete the lockfile and re-initialize the iterator. Lockfile "
        "contents: %s" % (lock, contents)
    )


def _write(filename: str, elements: list, n: int) -> None:
    from ..train.tensor_bundle import data_path, index_path, write_bundle

    values = {_key(i, j, n): np.asarray(c) for i, e in enumerate(elements) for j, c in enumerate(e)}
    data = data_path(filename)
    tmp = "%s.tempstate%d" % (data, os.getpid())
    with open(tmp, "wb") as f:
        index = write_bundle(values, f)
    if values:
        os.replace(tmp, data)
    else:  # TF writes no data file for an empty dataset
        os.remove(tmp)
    with open(tmp, "wb") as f:
        f.write(index)
    os.replace(tmp, index_path(filename))


def _read(op: Any, reader: Any) -> Iterator[tuple]:
    items: dict[int, dict[int, str]] = {}
    for name in reader.names():
        item, _, component = name.partition("_")
        try:
            items.setdefault(int(item), {})[int(component)] = name
        except ValueError:
            raise errors.DataLossError(
                None, op, "%s: %r is not a key of a dataset cache" % (reader.path, name)
            ) from None
    n = op.attrs["n_components"]
    for i in range(len(items)):
        keys = items.get(i, {})
        if sorted(keys) != list(range(n)):
            raise errors.DataLossError(
                None,
                op,
                "%s: element %d has components %s, the dataset has %d"
                % (reader.path, i, sorted(keys), n),
            )
        yield tuple(reader.read(keys[j]) for j in range(n))
