"""``fr.gfile`` (TF1's ``tf.gfile``) and ``fr.io.gfile`` (its TF2 names): file access
as TF programs write it, on the local file system.

Errors are TF's: a missing file or directory raises ``fr.errors.NotFoundError``, an
existing one where a new one is needed ``fr.errors.AlreadyExistsError``, a denied one
``fr.errors.PermissionDeniedError``, each naming the path.

Note (flowrt): only local paths (and ``file://`` URLs); TF's ``gs://``, ``hdfs://`` and
``s3://`` file systems are not supported (``fr.errors.UnimplementedError``).
"""

from __future__ import annotations

import contextlib
import glob as _glob
import os
import shutil
from collections.abc import Iterator
from typing import Any

from . import errors

__all__ = [
    "Copy",
    "DeleteRecursively",
    "Exists",
    "FastGFile",
    "GFile",
    "Glob",
    "IsDirectory",
    "ListDirectory",
    "MakeDirs",
    "MkDir",
    "Open",
    "Remove",
    "Rename",
    "Stat",
    "Walk",
    "copy",
    "exists",
    "glob",
    "isdir",
    "listdir",
    "makedirs",
    "mkdir",
    "remove",
    "rename",
    "rmtree",
    "stat",
    "walk",
]


def _path(path: Any) -> str:
    p = os.fspath(path)
    if isinstance(p, bytes):
        p = p.decode("utf-8")
    if p.startswith("file://"):
        return p[len("file://") :]
    scheme = p.split("://", 1)[0] if "://" in p else ""
    if scheme:
        raise errors.UnimplementedError(
            None, None, "File system scheme '%s' not implemented (file: '%s')" % (scheme, p)
        )
    return p


@contextlib.contextmanager
def _tf_errors(path: str) -> Iterator[None]:
    """OSErrors as TF's error classes, naming ``path``."""
    try:
        yield
    except FileNotFoundError as e:
        raise errors.NotFoundError(None, None, "%s; No such file or directory" % path) from e
    except FileExistsError as e:
        raise errors.AlreadyExistsError(None, None, "%s; File exists" % path) from e
    except PermissionError as e:
        raise errors.PermissionDeniedError(None, None, "%s; Permission denied" % path) from e
    except IsADirectoryError as e:
        raise errors.FailedPreconditionError(None, None, "%s; Is a directory" % path) from e
    except NotADirectoryError as e:
        raise errors.FailedPreconditionError(None, None, "%s; Not a directory" % path) from e
    except OSError as e:
        raise errors.UnknownError(None, None, "%s; %s" % (path, e.strerror or e)) from e


class GFile:
    """A file, as TF's ``tf.gfile.GFile(name, mode)``: ``read(n=-1)``, ``readline``,
    ``readlines``, iteration by line, ``write``, ``seek``/``tell``, ``size()``,
    ``flush``, ``close``, and a context manager. Text modes read and write ``str``
    (UTF-8), binary modes (``"rb"``, ``"wb"``, ...) ``bytes``. The file is opened on
    first use, so making a GFile for a missing file raises only when it is read."""

    def __init__(self, name: Any, mode: str = "r") -> None:
        if mode not in ("r", "w", "a", "rb", "wb", "ab", "r+", "w+", "a+", "rb+", "wb+", "ab+"):
            raise errors.InvalidArgumentError(
                None, None, "mode is not 'r' or 'w' or 'a': %s" % mode
            )
        self.name = _path(name)
        self.mode = mode
        self._f: Any = None

    def _file(self) -> Any:
        if self._f is None:
            binary = "b" in self.mode
            with _tf_errors(self.name):
                self._f = open(self.name, self.mode, encoding=None if binary else "utf-8")
        return self._f

    def read(self, n: int = -1) -> Any:
        with _tf_errors(self.name):
            return self._file().read(n)

    def readline(self) -> Any:
        with _tf_errors(self.name):
            return self._file().readline()

    def readlines(self) -> list:
        with _tf_errors(self.name):
            return self._file().readlines()

    def __iter__(self) -> GFile:
        return self

    def __next__(self) -> Any:
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    next = __next__

    def write(self, data: Any) -> None:
        f = self._file()
        if "b" in self.mode and isinstance(data, str):
            data = data.encode("utf-8")
        elif "b" not in self.mode and isinstance(data, bytes):
            data = data.decode("utf-8")
        with _tf_errors(self.name):
            f.write(data)

    def seek(self, offset: int, whence: int = 0) -> int:
        return self._file().seek(offset, whence)

    def tell(self) -> int:
        return self._file().tell()

    def size(self) -> int:
        with _tf_errors(self.name):
            return os.stat(self.name).st_size

    def seekable(self) -> bool:
        return True

    def flush(self) -> None:
        if self._f is not None:
            self._f.flush()

    def close(self) -> None:
        if self._f is not None:
            self._f.close()
            self._f = None

    def __del__(self) -> None:
        # ``GFile(path).read()`` is common TF1 code: the file closes with the object,
        # as TF's does, rather than warn.
        f = self.__dict__.get("_f")
        if f is not None:
            f.close()

    def __enter__(self) -> GFile:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


FastGFile = GFile
Open = GFile


class _Stat:
    """What ``Stat`` returns: ``length``, ``mtime_nsec`` and ``is_directory``."""

    def __init__(self, length: int, mtime_nsec: int, is_directory: bool) -> None:
        self.length = length
        self.mtime_nsec = mtime_nsec
        self.is_directory = is_directory


def Exists(filename: Any) -> bool:
    """Whether the path exists."""
    return os.path.exists(_path(filename))


def IsDirectory(dirname: Any) -> bool:
    """Whether the path is a directory."""
    return os.path.isdir(_path(dirname))


def Glob(filename: Any) -> list:
    """The paths matching a glob pattern, sorted."""
    return sorted(_glob.glob(_path(filename)))


def ListDirectory(dirname: Any) -> list:
    """The entries of a directory (names, not paths); NotFoundError if it is missing."""
    p = _path(dirname)
    if not os.path.isdir(p):
        raise errors.NotFoundError(None, None, "Could not find directory %s" % p)
    with _tf_errors(p):
        return sorted(os.listdir(p))


def MakeDirs(dirname: Any) -> None:
    """Makes a directory and any missing parents; an existing directory is fine."""
    p = _path(dirname)
    with _tf_errors(p):
        os.makedirs(p, exist_ok=True)


def MkDir(dirname: Any) -> None:
    """Makes one directory; AlreadyExistsError if it exists, NotFoundError if its
    parent does not."""
    p = _path(dirname)
    with _tf_errors(p):
        os.mkdir(p)


def Remove(filename: Any) -> None:
    """Deletes a file; NotFoundError if it is missing."""
    p = _path(filename)
    with _tf_errors(p):
        os.remove(p)


def DeleteRecursively(dirname: Any) -> None:
    """Deletes a directory tree (or a file); NotFoundError if it is missing."""
    p = _path(dirname)
    if not os.path.lexists(p):
        raise errors.NotFoundError(None, None, "%s; No such file or directory" % p)
    with _tf_errors(p):
        if os.path.isdir(p) and not os.path.islink(p):
            shutil.rmtree(p)
        else:
            os.remove(p)


def Rename(oldname: Any, newname: Any, overwrite: bool = False) -> None:
    """Renames a file; AlreadyExistsError if ``newname`` exists and not ``overwrite``."""
    src, dst = _path(oldname), _path(newname)
    if not overwrite and os.path.exists(dst):
        raise errors.AlreadyExistsError(None, None, "file already exists: %s" % dst)
    with _tf_errors(src):
        os.replace(src, dst)


def Copy(oldpath: Any, newpath: Any, overwrite: bool = False) -> None:
    """Copies a file; AlreadyExistsError if ``newpath`` exists and not ``overwrite``."""
    src, dst = _path(oldpath), _path(newpath)
    if not overwrite and os.path.exists(dst):
        raise errors.AlreadyExistsError(None, None, "file already exists: %s" % dst)
    with _tf_errors(src):
        shutil.copyfile(src, dst)


def Stat(filename: Any) -> _Stat:
    """The file's size, modification time (ns) and whether it is a directory."""
    p = _path(filename)
    with _tf_errors(p):
        st = os.stat(p)
    return _Stat(st.st_size, st.st_mtime_ns, os.path.isdir(p))


def Walk(top: Any, in_order: bool = True) -> Iterator[tuple]:
    """``(dirname, subdirs, files)`` for each directory under ``top`` (parents first
    when ``in_order``); nothing for a missing ``top``."""
    yield from os.walk(_path(top), topdown=in_order)


# TF2's names (tf.io.gfile).
copy = Copy
exists = Exists
glob = Glob
isdir = IsDirectory
listdir = ListDirectory
makedirs = MakeDirs
mkdir = MkDir
remove = Remove
rename = Rename
rmtree = DeleteRecursively
stat = Stat
walk = Walk
