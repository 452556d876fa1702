"""File input ops: ``TextLineReader``, ``read_file``, ``write_file``, ``matching_files``.

A reader is per-session state (which file is open, at which line) kept in
``ctx.resources``. Its read op takes the filename queue's handle as an input and, when
it needs a new file, dequeues from that queue directly (a blocking kernel, see
``_core/waiting.py``), so a read blocks only its own run, exactly like a dequeue.
"""

from __future__ import annotations

import os
import threading
from typing import TYPE_CHECKING, Any, NoReturn

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.graph import Operation, Tensor
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from .common import TensorShape, make, make_op, to_tensor
from .state_ops import resource

if TYPE_CHECKING:
    from .._core.typing import TensorLike
    from . import data_flow_ops

__all__ = ["read_file", "TextLineReader", "ReaderBase", "write_file", "matching_files"]


# --------------------------------------------------------------------------------------
# read_file, write_file, matching_files
# --------------------------------------------------------------------------------------


def read_file(filename: TensorLike, name: str | None = None) -> Tensor:
    """The whole contents of the file ``filename`` as a scalar string."""
    return make("ReadFile", [to_tensor(filename, _dt.string)], {}, name, "ReadFile")


def _scalar_string(op, i=0, what="filename"):
    s = op.inputs[i].shape
    if s.ndims is not None and s.ndims != 0:
        raise ValueError("Shape must be rank 0 but is rank %d (%s)" % (s.ndims, what))


def _read_file_infer(op):
    _scalar_string(op)
    return [(_dt.string, TensorShape([]))]


def open_error(e: OSError, path: str):
    cls = (
        errors.NotFoundError
        if isinstance(e, FileNotFoundError)
        else (
            errors.PermissionDeniedError if isinstance(e, PermissionError) else errors.UnknownError
        )
    )
    return cls(None, None, "%s; %s" % (path, e.strerror or e))


def _read_file_kernel(ctx, op, filename):
    path = os.fsdecode(bytes(np.asarray(filename, dtype=object)[()]))
    try:
        with open(path, "rb") as f:
            return (np.array(f.read(), dtype=object),)
    except OSError as e:
        raise open_error(e, path) from None


register_op(
    "ReadFile",
    infer=_read_file_infer,
    kernel=_read_file_kernel,
    grad=NOT_DIFFERENTIABLE,
    stateful=True,
)


def write_file(filename: TensorLike, contents: TensorLike, name: str | None = None) -> Operation:
    """An op writing the scalar string ``contents`` to the file ``filename``."""
    return make_op(
        "WriteFile",
        [to_tensor(filename, _dt.string), to_tensor(contents, _dt.string)],
        {},
        name,
        "WriteFile",
    )


def _write_file_kernel(ctx, op, filename, contents):
    path = os.fsdecode(bytes(np.asarray(filename, dtype=object)[()]))
    try:
        with open(path, "wb") as f:
            f.write(bytes(np.asarray(contents, dtype=object)[()]))
    except OSError as e:
        raise open_error(e, path) from None
    return ()


register_op(
    "WriteFile",
    infer=lambda op: [],
    kernel=_write_file_kernel,
    grad=NOT_DIFFERENTIABLE,
    stateful=True,
)


def matching_files(pattern: TensorLike, name: str | None = None) -> Tensor:
    """The sorted file names matching the glob ``pattern`` (a string or 1-D strings)."""
    return make("MatchingFiles", [to_tensor(pattern, _dt.string)], {}, name, "MatchingFiles")


def _matching_files_kernel(ctx, op, pattern):
    import glob

    found = set()
    for p in np.asarray(pattern, dtype=object).reshape(-1):
        found.update(glob.glob(os.fsdecode(bytes(p))))
    return (np.array([os.fsencode(f) for f in sorted(found)], dtype=object).reshape(-1),)


register_op(
    "MatchingFiles",
    infer=lambda op: [(_dt.string, TensorShape([None]))],
    kernel=_matching_files_kernel,
    grad=NOT_DIFFERENTIABLE,
    stateful=True,
)


# --------------------------------------------------------------------------------------
# Readers
# --------------------------------------------------------------------------------------


class ReaderState:
    """One reader's per-session state: the open work unit, counters, pending names.

    Every access holds ``tlock``: runs from threads and tasks read through one reader.
    A run that needs a new work unit dequeues a name without the lock (the dequeue may
    wait) and opens it, or keeps it in ``pending`` when another run opened one
    meanwhile. Subclasses define ``open`` and ``next_line`` (one record at a time), or
    ``take`` itself.
    """

    def __init__(self, name: str, skip_header_lines: int):
        self.name = name
        self.skip = skip_header_lines
        self.file: Any = None  # an open file, a RecordFile, or True (per reader)
        self.path = b""
        self.records = 0
        self.work_units = 0
        self.pending: list = []  # file names dequeued by runs while a file was open
        self.tlock = threading.Lock()

    def close_file(self):
        if self.file is not None:
            self.file.close()
        self.file = None

    def reset(self):
        self.close_file()
        self.pending = []
        self.records = 0
        self.work_units = 0

    on_session_close = close_file

    def open(self, op, path: bytes):
        """Starts the work unit ``path`` (``tlock`` held)."""
        raise NotImplementedError

    def next_line(self):
        """The next ``(key, value)``, or None at the end of the work unit, which it then
        closes and counts (``tlock`` held)."""
        raise NotImplementedError

    def take(self, n: int):
        """Up to ``n`` records ``(keys, values)`` of one work unit, fewer only where it
        ends (the next pending one is then opened if none came out); None when a new
        work unit is needed."""
        with self.tlock:
            while True:
                if self.file is None:
                    if not self.pending:
                        return None
                    self.open(None, self.pending.pop(0))
                keys: list = []
                values: list = []
                while self.file is not None and len(values) < n:
                    rec = self.next_line()
                    if rec is None:
                        break
                    keys.append(rec[0])
                    values.append(rec[1])
                if values:
                    return keys, values


# Bytes read per system call. Small files are read whole; big ones in blocks, each
# split into lines by one ``bytes.split``.
CHUNK_BYTES = 1 << 20


class TextLineState(ReaderState):
    """A text file read in blocks: one system call and one split per block, then batches
    of lines sliced from the block's line list."""

    def __init__(self, name: str, skip_header_lines: int):
        super().__init__(name, skip_header_lines)
        self.keyfmt = b""  # b"<file name>:%d\0", a key's format (``%`` in the name doubled)
        self.lines: list = []  # complete lines of the current block
        self.pos = 0  # the next line of ``lines`` to give out
        self.tail = b""  # the start of a line the next block completes
        self.eof = False
        self.line = 0  # the number of the last line consumed in the file

    def close_file(self):
        super().close_file()
        self.lines, self.pos, self.tail, self.eof = [], 0, b"", False

    on_session_close = close_file

    def open(self, op, path: bytes):
        """Opens the next file and skips its header lines (TF counts them)."""
        fs_path = os.fsdecode(path)
        try:
            f = open(fs_path, "rb", buffering=0)  # kept open across reads
        except OSError as e:
            raise open_error(e, fs_path) from None
        self.close_file()
        self.file, self.path, self.line = f, path, 0
        self.keyfmt = path.replace(b"%", b"%%") + b":%d\0"
        while self.line < self.skip and self._fill():
            self.pos += 1
            self.line += 1

    def _fill(self) -> bool:
        """Makes a line available in ``lines``; False at the end of the file."""
        while self.pos >= len(self.lines):
            if self.eof:
                return False
            data = self.file.read(CHUNK_BYTES)
            if data:
                text = self.tail + data
                lines = text.split(b"\n")
                self.tail = lines.pop()
            else:
                self.eof = True
                text = self.tail
                lines = [text] if text else []
                self.tail = b""
            if b"\r" in text:  # a line ending in "\r\n" (or the file in "\r") loses the "\r"
                lines = [x[:-1] if x.endswith(b"\r") else x for x in lines]
            self.lines, self.pos = lines, 0
        return True

    def take(self, n: int):
        with self.tlock:
            while True:
                if self.file is None:
                    if not self.pending:
                        return None
                    self.open(None, self.pending.pop(0))
                values: list = []
                while len(values) < n and self._fill():
                    got = self.lines[self.pos : self.pos + n - len(values)]
                    self.pos += len(got)
                    values += got
                if len(values) < n:
                    self.close_file()
                    self.work_units += 1
                if values:
                    first = self.line + 1
                    self.line += len(values)
                    self.records += len(values)
                    return self._keys(first, len(values)), values

    def _keys(self, first: int, k: int) -> list:
        """TF's keys ``b"<file name>:<line>"`` of lines ``first .. first + k - 1``: one
        format and one split for all (a file name holds no NUL byte)."""
        return (self.keyfmt * k % tuple(range(first, first + k))).split(b"\0")[:-1]


class ReaderBase:
    """Base of the readers: a reader op whose state (open file, position) lives in the
    session, and the ops that read through it.

    Note (flowrt): the read ops take the filename queue's dequeue as an attribute, not
    as an input: a read dequeues a new work unit only when the current one is done.
    """

    def __init__(self, reader_ref: Tensor, supports_serialize: bool = False) -> None:
        self._reader_ref = reader_ref
        self._supports_serialize = supports_serialize

    @property
    def reader_ref(self) -> Tensor:
        """The reader op's output (its handle)."""
        return self._reader_ref

    @property
    def supports_serialize(self) -> bool:
        return self._supports_serialize

    def _queue_ref(self, queue):
        """The handle of ``queue`` (a queue object, or its ``queue_ref``), which must
        hold scalar strings (file names)."""
        if isinstance(queue, Tensor):
            ref = queue
            if ref.dtype.name != "resource":
                raise TypeError("queue must be a queue or its queue_ref, got %r" % (queue,))
            types = ref.op.attrs.get("component_types")
        elif hasattr(queue, "queue_ref"):
            ref, types = queue.queue_ref, list(queue.dtypes)
        else:
            raise TypeError(
                "queue must be a queue object (e.g. fr.FIFOQueue of strings "
                "from fr.train.string_input_producer), got %r" % (queue,)
            )
        if types is not None and list(types) != [_dt.string]:
            raise TypeError(
                "a reader's queue must hold scalar strings (file names), got %s"
                % ", ".join(t.name for t in types)
            )
        return ref

    def read(
        self, queue: data_flow_ops.QueueBase, name: str | None = None
    ) -> tuple[Tensor, Tensor]:
        """The next record: ``(key, value)`` scalar strings.

        When the current file is done this dequeues the next file name from ``queue``,
        blocking while it is empty; OutOfRangeError once it is closed and drained.
        """
        op = make_op(
            "ReaderReadV2",
            [self._reader_ref, self._queue_ref(queue)],
            {},
            name,
            "ReaderReadV2",
        )
        return op.outputs[0], op.outputs[1]

    def read_up_to(
        self, queue: data_flow_ops.QueueBase, num_records: TensorLike, name: str | None = None
    ) -> tuple[Tensor, Tensor]:
        """Up to ``num_records`` records of the current file: ``(keys, values)``, 1-D
        strings; fewer when the file ends first."""
        op = make_op(
            "ReaderReadUpToV2",
            [self._reader_ref, self._queue_ref(queue), to_tensor(num_records, _dt.int64)],
            {},
            name,
            "ReaderReadUpToV2",
        )
        return op.outputs[0], op.outputs[1]

    def num_records_produced(self, name: str | None = None) -> Tensor:
        """An int64 scalar: the records this reader produced in the session."""
        return make(
            "ReaderNumRecordsProducedV2", [self._reader_ref], {}, name, "ReaderNumRecordsProducedV2"
        )

    def num_work_units_completed(self, name: str | None = None) -> Tensor:
        """An int64 scalar: the work units (files) this reader finished."""
        return make(
            "ReaderNumWorkUnitsCompletedV2",
            [self._reader_ref],
            {},
            name,
            "ReaderNumWorkUnitsCompletedV2",
        )

    def reset(self, name: str | None = None) -> Operation:
        """An op returning the reader to its initial state (no file, zero counters)."""
        return make_op("ReaderResetV2", [self._reader_ref], {}, name, "ReaderResetV2")

    def serialize_state(self, name: str | None = None) -> NoReturn:
        raise NotImplementedError("flowrt readers cannot serialize their state")

    def restore_state(self, state: TensorLike, name: str | None = None) -> NoReturn:
        raise NotImplementedError("flowrt readers cannot restore a serialized state")


class TextLineReader(ReaderBase):
    """A reader giving the lines of files, one record per line.

    Args:
      skip_header_lines: the number of lines to skip at the start of every file.
      name: a name for the reader op.

    The key of a record is ``b"<file name>:<line number>"`` (1-based); the value is the
    line without its ``\\n`` or ``\\r\\n``.
    """

    def __init__(self, skip_header_lines: int | None = None, name: str | None = None) -> None:
        ref = make(
            "TextLineReaderV2",
            [],
            {"skip_header_lines": int(skip_header_lines or 0), "container": "", "shared_name": ""},
            name,
            "TextLineReaderV2",
        )
        super().__init__(ref)


def _reader_kernel(ctx, op):
    skip = op.attrs["skip_header_lines"]
    return (ctx.resources.get_or_create(("reader", op.name), lambda: TextLineState(op.name, skip)),)


register_op(
    "TextLineReaderV2",
    infer=lambda op: [(resource, TensorShape([]))],
    kernel=_reader_kernel,
    grad=NOT_DIFFERENTIABLE,
    stateful=True,
)


def _next_work(ctx, op, state, q):
    """Dequeues the next file name from the reader's filename queue ``q`` and opens it
    (or keeps it for later, if another run opened a file meanwhile). Holds no lock while
    the dequeue waits, so reads from other runs go on."""
    got = yield from q.dequeue(1, False, "%s op '%s'" % (op.type, op.name), ctx)
    name = got[0][0]
    path = bytes(name[()] if isinstance(name, np.ndarray) else name)
    with state.tlock:
        ctx.keep(got)  # the reader owns the file name now: an interrupt keeps it read
        if state.file is None and not state.pending:
            state.open(op, path)
        else:
            state.pending.append(path)


def _read_kernel(ctx, op, state, q):
    while True:
        got = state.take(1)
        if got is not None:
            return (np.array(got[0][0], dtype=object), np.array(got[1][0], dtype=object))
        yield from _next_work(ctx, op, state, q)


def _read_up_to_kernel(ctx, op, state, q, n):
    n = int(n)
    if n <= 0:
        raise errors.InvalidArgumentError(None, op, "num_records must be positive, got %d" % n)
    while True:
        got = state.take(n)
        if got is not None:
            keys = np.empty(len(got[0]), dtype=object)
            keys[:] = got[0]
            values = np.empty(len(got[1]), dtype=object)
            values[:] = got[1]
            return keys, values
        yield from _next_work(ctx, op, state, q)


_KV = [(_dt.string, TensorShape([])), (_dt.string, TensorShape([]))]
register_op(
    "ReaderReadV2",
    infer=lambda op: list(_KV),
    kernel=_read_kernel,
    blocking=True,
    grad=NOT_DIFFERENTIABLE,
    stateful=True,
)
register_op(
    "ReaderReadUpToV2",
    infer=lambda op: [(_dt.string, TensorShape([None]))] * 2,
    kernel=_read_up_to_kernel,
    blocking=True,
    grad=NOT_DIFFERENTIABLE,
    stateful=True,
)
register_op(
    "ReaderNumRecordsProducedV2",
    infer=lambda op: [(_dt.int64, TensorShape([]))],
    kernel=lambda ctx, op, s: (np.array(s.records, np.int64),),
    grad=NOT_DIFFERENTIABLE,
    stateful=True,
)
register_op(
    "ReaderNumWorkUnitsCompletedV2",
    infer=lambda op: [(_dt.int64, TensorShape([]))],
    kernel=lambda ctx, op, s: (np.array(s.work_units, np.int64),),
    grad=NOT_DIFFERENTIABLE,
    stateful=True,
)


def _reset_kernel(ctx, op, state):
    state.reset()
    return ()


register_op(
    "ReaderResetV2",
    infer=lambda op: [],
    kernel=_reset_kernel,
    grad=NOT_DIFFERENTIABLE,
    stateful=True,
)
