"""``FileWriter``: event files that TensorBoard reads, and ``read_events`` to read them back.

An event file is a TFRecord stream (framed by ``fr.python_io``'s encoder) of serialized
``Event`` protos; the first one holds ``file_version = "brain.Event:2"``. The file is named
like TF's: ``events.out.tfevents.<seconds, 10 digits>.<hostname><filename_suffix>``.
Writers still open when the interpreter exits are flushed and closed then.
"""

from __future__ import annotations

import atexit
import os
import socket
import threading
import time
import weakref
from typing import TYPE_CHECKING, BinaryIO, Iterator, Protocol

import numpy as np
from google.protobuf.message import DecodeError

from .._core.graph import Graph
from ..graph_export import graph_def as _graph_def
from ..python_io import encode_record, tf_record_iterator
from .protos import Event, SessionLog, Summary, TaggedRunMetadata
from .run_metadata import run_metadata_proto

if TYPE_CHECKING:
    from ..session import Session
    from ..session_options import RunMetadata as _SessionRunMetadata


class SupportsSerializeToString(Protocol):
    """A protobuf message, or anything else that serializes itself to one (the
    serialized forms a ``FileWriter`` takes are its bytes, a fetched scalar string
    tensor, or such an object)."""

    def SerializeToString(self) -> bytes: ...


__all__ = ["FileWriter", "read_events"]

FILE_VERSION = "brain.Event:2"

# Every writer with an open file, flushed and closed at interpreter exit.
_open_writers: weakref.WeakSet = weakref.WeakSet()
_open_writers_lock = threading.Lock()


def _close_open_writers() -> None:
    with _open_writers_lock:
        writers = list(_open_writers)
    for writer in writers:
        writer.close()


atexit.register(_close_open_writers)


def _serialized(obj: object, what: str) -> bytes:
    """bytes from bytes, a 0-d string array (a fetched string tensor), or a protobuf-like
    object with ``SerializeToString``."""
    if isinstance(obj, np.ndarray) and obj.shape == () and obj.dtype == object:
        obj = obj[()]
    if isinstance(obj, (bytes, bytearray, memoryview)):
        return bytes(obj)
    ser = getattr(obj, "SerializeToString", None)
    if ser is None:
        raise TypeError(
            "%s must be serialized protobuf bytes (the value of a fetched summary "
            "tensor) or have SerializeToString(); got %s" % (what, type(obj).__name__)
        )
    return ser()


class FileWriter:
    """Writes summaries, graphs and events to an event file in ``logdir``.

    Example:
      merged = fr.summary.merge_all()
      with fr.summary.FileWriter("/tmp/run1", fr.get_default_graph()) as writer:
          for step in range(100):
              writer.add_summary(sess.run(merged), step)

    Args:
      logdir: the directory for the event file; created if missing.
      graph: a ``Graph`` to write at once (TensorBoard's graph tab).
      max_queue: events held in memory before they are written out.
      flush_secs: the longest time, in seconds, an event is held in memory.
      graph_def: deprecated TF1 argument: a serialized ``GraphDef`` to write.
      filename_suffix: appended to the event file's name.

    Note (flowrt): there is no background thread. Held events are written and flushed when
    ``max_queue`` are pending, when an event is added ``flush_secs`` or more after the last
    flush, on ``flush()``/``close()``, and when the interpreter exits (a writer never
    closed keeps its last events, as TF1's flushing thread does). A second writer opened in the same
    directory in the same second gets a ``.1``, ``.2``... before the suffix instead of
    overwriting the first one's file. The graph is written without a ``MetaGraphDef``.
    """

    def __init__(
        self,
        logdir: str | os.PathLike[str],
        graph: Graph | None = None,
        max_queue: int = 10,
        flush_secs: float = 120,
        graph_def: bytes | np.ndarray | SupportsSerializeToString | None = None,
        filename_suffix: str | None = None,
        session: Session | None = None,
    ) -> None:
        if session is not None:
            raise NotImplementedError(
                "FileWriter(session=...) writes to a database in TF1; "
                "flowrt writes event files only, so omit session"
            )
        self._logdir = os.fspath(logdir)
        self._max_queue = max(1, int(max_queue))
        self._flush_secs = float(flush_secs)
        self._suffix = filename_suffix or ""
        self._lock = threading.Lock()
        self._run_tags: set[str] = set()
        self._file: BinaryIO | None = None
        self._path = ""
        self._open()
        if graph is not None or graph_def is not None:
            self.add_graph(graph, graph_def=graph_def)
        if isinstance(graph, Graph):  # TF1 exports the meta graph beside it
            from ..train.meta_graph import export_meta_graph

            self.add_meta_graph(export_meta_graph(graph=graph))

    # --- file -----------------------------------------------------------------------

    def _open(self):
        os.makedirs(self._logdir, exist_ok=True)
        now = int(time.time())
        base = os.path.join(
            self._logdir, "events.out.tfevents.%010d.%s" % (now, socket.gethostname())
        )
        for n in range(1 << 16):
            path = base + ("" if n == 0 else ".%d" % n) + self._suffix
            try:
                self._file = open(path, "xb")
                break
            except FileExistsError:
                continue
        self._path = path
        self._pending: list[bytes] = []
        self._file.write(
            encode_record(
                Event(wall_time=float(now), file_version=FILE_VERSION).SerializeToString()
            )
        )
        self._file.flush()
        self._last_flush = time.monotonic()
        with _open_writers_lock:
            _open_writers.add(self)

    def get_logdir(self) -> str:
        """The directory the event file is in."""
        return self._logdir

    @property
    def path(self) -> str:
        """The event file being written (flowrt)."""
        return self._path

    # --- adding -----------------------------------------------------------------------

    def add_event(self, event: Event) -> None:
        """Adds an ``Event`` (or its serialized bytes) as given; ignored after ``close()``."""
        self._add(_serialized(event, "event"))

    def _add(self, data: bytes):
        with self._lock:
            if self._file is None:
                return  # TF1 drops events added to a closed writer
            self._pending.append(encode_record(data))
            if (
                len(self._pending) >= self._max_queue
                or time.monotonic() - self._last_flush >= self._flush_secs
            ):
                self._flush_locked()

    def _add_what(self, global_step, **what):
        event = Event(wall_time=time.time(), **what)
        if global_step is not None:
            event.step = int(global_step)
        self._add(event.SerializeToString())

    def add_summary(
        self,
        summary: bytes | np.ndarray | SupportsSerializeToString,
        global_step: int | None = None,
    ) -> None:
        """Adds a ``Summary``: the value of a fetched summary tensor (bytes) or a
        ``fr.summary.Summary``.

        Args:
          summary: serialized ``Summary`` bytes, or an object with ``SerializeToString``.
          global_step: the step to record with it (TensorBoard's x axis).
        """
        data = _serialized(summary, "summary")
        try:
            parsed = Summary.FromString(data)
        except DecodeError as e:
            raise ValueError(
                "add_summary: the summary is not a serialized Summary protobuf "
                "(%s); pass the value of a summary tensor" % e
            ) from None
        self._add_what(global_step, summary=parsed)

    def add_graph(
        self,
        graph: Graph | None,
        global_step: int | None = None,
        graph_def: bytes | np.ndarray | SupportsSerializeToString | None = None,
    ) -> None:
        """Adds a ``Graph`` for TensorBoard's graph tab.

        Args:
          graph: a ``Graph``.
          global_step: the step to record with it.
          graph_def: deprecated TF1 argument: a serialized ``GraphDef`` (bytes, or an object
            with ``SerializeToString``) instead of ``graph``.
        """
        if graph is not None and graph_def is not None:
            raise ValueError("Please pass only graph, or graph_def (deprecated), but not both.")
        if isinstance(graph, Graph):
            data = _graph_def(graph)
        elif graph is not None and hasattr(graph, "SerializeToString"):
            data = _serialized(graph, "graph")  # a GraphDef, as TF1 takes it (deprecated)
        elif graph is None and graph_def is not None:
            data = _serialized(graph_def, "graph_def")
        else:
            raise TypeError(
                "The passed graph must be an instance of `Graph` or the deprecated `GraphDef`"
            )
        self._add_what(global_step, graph_def=data)

    def add_meta_graph(
        self,
        meta_graph_def: bytes | SupportsSerializeToString,
        global_step: int | None = None,
    ) -> None:
        """Adds a ``MetaGraphDef`` (``fr.train.export_meta_graph()``'s), as TF1's
        ``CheckpointSaverHook`` does beside the graph.

        Args:
          meta_graph_def: a ``MetaGraphDef`` protobuf or its serialized bytes.
          global_step: the step to record with it.
        """
        if not isinstance(meta_graph_def, bytes) and not hasattr(
            meta_graph_def, "SerializeToString"
        ):
            raise TypeError(
                "meta_graph_def must be type MetaGraphDef, saw type: %s" % type(meta_graph_def)
            )
        self._add_what(global_step, meta_graph_def=_serialized(meta_graph_def, "meta_graph_def"))

    def add_session_log(
        self,
        session_log: bytes | np.ndarray | SupportsSerializeToString,
        global_step: int | None = None,
    ) -> None:
        """Adds a ``SessionLog`` (``START``, ``STOP`` or ``CHECKPOINT``); TensorBoard drops
        the events of steps after a ``START``'s step, so a restarted job's curves do not
        overlap.

        Args:
          session_log: a ``fr.summary.SessionLog`` protobuf (or its serialized bytes).
          global_step: the step to record with it.
        """
        log = SessionLog.FromString(_serialized(session_log, "session_log"))
        self._add_what(global_step, session_log=log)

    def add_run_metadata(
        self,
        run_metadata: _SessionRunMetadata | bytes | np.ndarray | SupportsSerializeToString,
        tag: str,
        global_step: int | None = None,
    ) -> None:
        """Adds a run's metadata: TensorBoard's graph tab then shows, for the run named
        ``tag``, each node's compute time and output memory.

        Example:
          opts = fr.RunOptions(trace_level=fr.RunOptions.FULL_TRACE)
          meta = fr.RunMetadata()
          sess.run(train_op, options=opts, run_metadata=meta)
          writer.add_run_metadata(meta, "step%d" % step, step)

        Args:
          run_metadata: a ``fr.RunMetadata`` filled by a traced run, a
            ``fr.summary.RunMetadata`` protobuf, or its serialized bytes.
          tag: the name of the run in TensorBoard's "Session runs" menu.
          global_step: the step to record with it.

        Raises:
          ValueError: ``tag`` is already used by an earlier call on this file.
        """
        tag = str(tag)
        data = _serialized(run_metadata_proto(run_metadata), "run_metadata")
        with self._lock:
            if tag in self._run_tags:
                raise ValueError("The provided tag was already used for this event type")
            self._run_tags.add(tag)
        self._add_what(
            global_step, tagged_run_metadata=TaggedRunMetadata(tag=tag, run_metadata=data)
        )

    # --- flushing and closing -----------------------------------------------------------

    def _flush_locked(self):
        if self._file is None:
            return
        if self._pending:
            self._file.write(b"".join(self._pending))
            self._pending = []
        self._file.flush()
        self._last_flush = time.monotonic()

    def flush(self) -> None:
        """Writes the held events to the event file and flushes it to the OS."""
        with self._lock:
            self._flush_locked()

    def close(self) -> None:
        """Flushes and closes the event file; a second close does nothing."""
        with self._lock:
            if self._file is None:
                return
            self._flush_locked()
            self._file.close()
            self._file = None
        with _open_writers_lock:
            _open_writers.discard(self)

    def reopen(self) -> None:
        """After ``close()``, starts a new event file in the same directory."""
        with self._lock:
            if self._file is None:
                self._open()

    def __enter__(self):
        return self

    def __del__(self):
        # A writer dropped without close() still writes what it holds.
        if getattr(self, "_file", None) is not None:
            self.close()

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return "<fr.summary.FileWriter %r%s>" % (
            self._path,
            " (closed)" if self._file is None else "",
        )


def read_events(path) -> Iterator[Event]:
    """The ``Event`` records of an event file, in order.

    Raises:
      NotFoundError: no such file.
      DataLossError: while iterating, a truncated or corrupt record.

    Note (flowrt): TF1 has this as ``tf.train.summary_iterator``.
    """
    for data in tf_record_iterator(path):
        yield Event.FromString(data)
