"""``fr.train.Saver``: checkpoints of variables, in TF's V2 checkpoint format.

Files of a checkpoint with prefix ``dir/model.ckpt-20`` (TF1's names and bytes, so TF's
``tf.train.Saver``/``tf.train.load_checkpoint`` read flowrt's checkpoints and flowrt reads
TF's; the format is described in ``tensor_bundle.py``):
  ``model.ckpt-20.data-00000-of-00001``  the variables' values.
  ``model.ckpt-20.index``  an SSTable mapping each variable name to its dtype, shape,
      place in the data file and CRC-32C; a checkpoint "exists" when this file exists
      (as TF's ``checkpoint_exists``).
  ``checkpoint``  the text state file in TF's format (``model_checkpoint_path: "..."``
      then one ``all_model_checkpoint_paths: "..."`` per kept checkpoint); paths are
      stored relative to a relative save directory, as TF1 stores them.
Each file is written in full to a temporary name and moved into place with
``os.replace``, in the order data, index, state; re-saving over an existing prefix keeps
the previous data file until the new index is in place and moves it back if that move
fails, so a failed save leaves the previous checkpoint and state file loadable. Reading
treats the files as untrusted: a damaged file gives ``DataLossError`` naming it, and
so does a checkpoint of an older flowrt (its JSON/npz format), which this flowrt no
longer reads.

``save`` also writes ``model.ckpt-20.meta``, the ``MetaGraphDef`` that
``fr.train.import_meta_graph`` rebuilds the graph from (see ``meta_graph.py``).
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import errors
from .._core.graph import GraphKeys, Operation, constant_value, get_default_graph
from ..ops.array_ops import group, placeholder
from ..ops.state_ops import assign_op
from ..partitioned_variables import SavedSlices, group_for_saving
from ..protos.meta_graph_pb2 import MetaGraphDef, SaverDef
from ..variables import Variable, global_variables
from .saver_graph import RESTORE_KEYS
from .tensor_bundle import BundleReader, write_bundle

if TYPE_CHECKING:
    from .._core.graph import Tensor
    from ..partitioned_variables import PartitionedVariable
    from ..session import Session

__all__ = [
    "Saver",
    "latest_checkpoint",
    "get_checkpoint_state",
    "checkpoint_exists",
    "update_checkpoint_state",
    "CheckpointState",
    "generate_checkpoint_state_proto",
    "list_variables",
    "load_variable",
]

_DATA_SUFFIX = ".data-00000-of-00001"
_INDEX_SUFFIX = ".index"


# --------------------------------------------------------------------------------------
# File format
# --------------------------------------------------------------------------------------


# The process's umask, read once (reading it means setting it): files are created with
# ``0o666 & ~umask`` (0644 under the usual 022), as TF creates them, not mkstemp's 0600.
_UMASK = os.umask(0o022)
os.umask(_UMASK)


def _write_temp(path: str, write) -> str:
    """Calls ``write(fileobj)`` on a new temporary file next to ``path``, synced; returns
    its name."""
    d = os.path.dirname(path) or "."
    fd, tmp = tempfile.mkstemp(prefix=os.path.basename(path) + ".", suffix=".tmp", dir=d)
    try:
        os.fchmod(fd, 0o666 & ~_UMASK)
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
    except BaseException:
        _unlink(tmp)
        raise
    return tmp


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _write_atomic(path: str, write):
    """Calls ``write(fileobj)`` on a temporary file next to ``path``, then renames it."""
    tmp = _write_temp(path, write)
    try:
        os.replace(tmp, path)
    except BaseException:
        _unlink(tmp)
        raise


def _write_bundle_files(prefix: str, by_name: dict) -> None:
    """Writes the data and index files of ``prefix`` so that a failure at any point
    leaves the checkpoint there before (if any) loadable.

    Both files are written in full under temporary names first. The data file is moved
    into place, then the index; if moving the index fails, the previous data file (kept
    as a hard link) is moved back, so the previous index never meets new data.
    """
    data, index_file = prefix + _DATA_SUFFIX, prefix + _INDEX_SUFFIX
    index: list[bytes] = []
    tmp_data = _write_temp(data, lambda f: index.append(write_bundle(by_name, f)))
    tmp_index = backup = None
    try:
        tmp_index = _write_temp(index_file, lambda f: f.write(index[0]))
        if os.path.exists(index_file) and os.path.exists(data):
            backup = tmp_data + ".previous"
            os.link(data, backup)
        os.replace(tmp_data, data)
        try:
            os.replace(tmp_index, index_file)
        except BaseException:
            if backup is not None:
                os.replace(backup, data)
                backup = None
            raise
    finally:
        for leftover in (tmp_data, tmp_index, backup):
            if leftover is not None and os.path.exists(leftover):
                _unlink(leftover)


def checkpoint_exists(checkpoint_prefix: str) -> bool:
    """Whether a checkpoint with this prefix (``dir/model.ckpt-20``) was fully written."""
    return os.path.exists(checkpoint_prefix + _INDEX_SUFFIX)


# --------------------------------------------------------------------------------------
# The `checkpoint` state file
# --------------------------------------------------------------------------------------


class CheckpointState:
    """The contents of a ``checkpoint`` state file: the newest checkpoint, the kept ones
    and, when the writer gave them, their save times and the time of the newest
    checkpoint kept for good (seconds since the epoch; TF's ``CheckpointManager`` fields,
    empty and 0.0 after a ``Saver``'s save, as TF's)."""

    def __init__(
        self,
        model_checkpoint_path: str = "",
        all_model_checkpoint_paths: Iterable[str] = (),
        all_model_checkpoint_timestamps: Iterable[float] = (),
        last_preserved_timestamp: float = 0.0,
    ) -> None:
        self.model_checkpoint_path = model_checkpoint_path
        self.all_model_checkpoint_paths = list(all_model_checkpoint_paths)
        self.all_model_checkpoint_timestamps = [float(t) for t in all_model_checkpoint_timestamps]
        self.last_preserved_timestamp = float(last_preserved_timestamp)

    def __repr__(self) -> str:
        return (
            "CheckpointState(model_checkpoint_path=%r, all_model_checkpoint_paths=%r, "
            "all_model_checkpoint_timestamps=%r, last_preserved_timestamp=%r)"
            % (
                self.model_checkpoint_path,
                self.all_model_checkpoint_paths,
                self.all_model_checkpoint_timestamps,
                self.last_preserved_timestamp,
            )
        )


def _quote(s: str) -> str:
    return '"%s"' % s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _unquote(s: str) -> str:
    return re.sub(r"\\(.)", lambda m: {"n": "\n"}.get(m.group(1), m.group(1)), s)


_LINE = re.compile(r'^\s*(\w+)\s*:\s*"((?:[^"\\]|\\.)*)"\s*$')
_NUMBER_LINE = re.compile(r"^\s*(\w+)\s*:\s*([-+0-9.eE]+|inf|-inf|nan)\s*$")


def update_checkpoint_state(
    save_dir: str,
    model_checkpoint_path: str,
    all_model_checkpoint_paths: Sequence[str] | None = None,
    latest_filename: str | None = None,
    all_model_checkpoint_timestamps: Sequence[float] | None = None,
    last_preserved_timestamp: float | None = None,
) -> None:
    """Atomically writes the ``checkpoint`` state file of ``save_dir``.

    As TF1 writes it: when ``save_dir`` is relative, relative checkpoint paths are stored
    relative to ``save_dir`` (``get_checkpoint_state`` joins them back), so the file works
    from the directory it was saved from and from ``save_dir`` alike; absolute paths are
    stored as given.
    """
    _write_state(
        save_dir,
        model_checkpoint_path,
        all_model_checkpoint_paths,
        latest_filename,
        relative=False,
        timestamps=all_model_checkpoint_timestamps,
        last_preserved=last_preserved_timestamp,
    )


def _write_state(
    save_dir,
    model_checkpoint_path,
    all_model_checkpoint_paths,
    latest_filename,
    relative: bool,
    timestamps: Sequence[float] | None = None,
    last_preserved: float | None = None,
):
    save_dir = save_dir or "."
    paths = list(all_model_checkpoint_paths or [])
    if relative:  # Saver(save_relative_paths=True): absolute paths stored relative

        def rel(p):
            return os.path.relpath(p, save_dir) if os.path.isabs(p) else p

        paths = [rel(p) for p in paths]
        model_checkpoint_path = rel(model_checkpoint_path)
    state = generate_checkpoint_state_proto(
        save_dir, model_checkpoint_path, paths, timestamps, last_preserved
    )
    text = "model_checkpoint_path: %s\n" % _quote(state.model_checkpoint_path)
    text += "".join(
        "all_model_checkpoint_paths: %s\n" % _quote(p) for p in state.all_model_checkpoint_paths
    )
    # Protobuf's text format of the double fields, left out when unset as TF's.
    text += "".join(
        "all_model_checkpoint_timestamps: %r\n" % t for t in state.all_model_checkpoint_timestamps
    )
    if state.last_preserved_timestamp:
        text += "last_preserved_timestamp: %r\n" % state.last_preserved_timestamp
    path = os.path.join(save_dir, latest_filename or "checkpoint")
    _write_atomic(path, lambda f: f.write(text.encode("utf-8")))


def generate_checkpoint_state_proto(
    save_dir: str,
    model_checkpoint_path: str,
    all_model_checkpoint_paths: Sequence[str] | None = None,
    all_model_checkpoint_timestamps: Sequence[float] | None = None,
    last_preserved_timestamp: float | None = None,
) -> CheckpointState:
    """The ``CheckpointState`` a ``checkpoint`` file would hold: ``model_checkpoint_path``
    last in ``all_model_checkpoint_paths`` (appended if missing); with a relative
    ``save_dir``, relative paths are made relative to it, as TF stores them."""
    paths = list(all_model_checkpoint_paths or [])
    if not paths or paths[-1] != model_checkpoint_path:
        paths.append(model_checkpoint_path)
    timestamps = list(all_model_checkpoint_timestamps or [])
    if timestamps and len(timestamps) != len(paths):
        raise ValueError(
            "Checkpoint timestamps, if provided, must match checkpoint paths (got paths %s "
            "and timestamps %s)" % (paths, timestamps)
        )
    if not os.path.isabs(save_dir):

        def rel(p: str) -> str:
            return p if os.path.isabs(p) else os.path.relpath(p, save_dir)

        model_checkpoint_path = rel(model_checkpoint_path)
        paths = [rel(p) for p in paths]
    last = last_preserved_timestamp or 0.0
    return CheckpointState(model_checkpoint_path, paths, timestamps, last)


def get_checkpoint_state(
    checkpoint_dir: str, latest_filename: str | None = None
) -> CheckpointState | None:
    """The ``CheckpointState`` of ``checkpoint_dir``, or None if it has no state file.

    Relative paths in the file are taken relative to ``checkpoint_dir``.
    """
    path = os.path.join(checkpoint_dir, latest_filename or "checkpoint")
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except (FileNotFoundError, NotADirectoryError):
        return None
    state = CheckpointState()
    for line in lines:
        if not line.strip():
            continue
        n = _NUMBER_LINE.match(line)
        if n is not None:
            if n.group(1) == "all_model_checkpoint_timestamps":
                state.all_model_checkpoint_timestamps.append(float(n.group(2)))
            elif n.group(1) == "last_preserved_timestamp":
                state.last_preserved_timestamp = float(n.group(2))
            continue
        m = _LINE.match(line)
        if m is None:
            continue  # fields flowrt does not know
        field, value = m.group(1), _unquote(m.group(2))
        if not os.path.isabs(value):
            value = os.path.join(checkpoint_dir, value)
        if field == "model_checkpoint_path":
            state.model_checkpoint_path = value
        elif field == "all_model_checkpoint_paths":
            state.all_model_checkpoint_paths.append(value)
    if not state.model_checkpoint_path:
        raise ValueError("Invalid checkpoint state loaded from %s" % checkpoint_dir)
    return state


def latest_checkpoint(checkpoint_dir: str, latest_filename: str | None = None) -> str | None:
    """The prefix of the newest checkpoint in ``checkpoint_dir``, or None."""
    state = get_checkpoint_state(checkpoint_dir, latest_filename)
    if state and state.model_checkpoint_path and checkpoint_exists(state.model_checkpoint_path):
        return state.model_checkpoint_path
    return None


def _resolve(ckpt: str) -> str:
    if os.path.isdir(ckpt):
        latest = latest_checkpoint(ckpt)
        if latest is None:
            raise ValueError(
                "Couldn't find 'checkpoint' file or checkpoints in given directory %s" % ckpt
            )
        return latest
    return ckpt


def list_variables(ckpt_dir_or_file: str) -> list[tuple[str, list[int]]]:
    """``[(name, shape), ...]`` of the variables in a checkpoint (or a dir's latest)."""
    ckpt = BundleReader(_resolve(ckpt_dir_or_file))
    return [(name, list(ckpt.shape(name))) for name in ckpt.names()]


def load_variable(ckpt_dir_or_file: str, name: str) -> np.ndarray:
    """The saved value of variable ``name`` in a checkpoint (or a dir's latest); a
    tensor name's ``:0`` is dropped (``'global_step:0'`` reads ``global_step``), as TF."""
    if name.endswith(":0"):
        name = name[:-2]
    prefix = _resolve(ckpt_dir_or_file)
    ckpt = BundleReader(prefix)
    if name not in ckpt:
        raise errors.NotFoundError(None, None, "Key %s not found in checkpoint %s" % (name, prefix))
    return ckpt.read(name)


# --------------------------------------------------------------------------------------
# Saver
# --------------------------------------------------------------------------------------


def _parts(v) -> list:
    """The variables an entry is stored from: one, or a partitioned variable's parts."""
    return v.parts if isinstance(v, SavedSlices) else [v]


def _restore_assigns(restore_op: Operation) -> list[Operation]:
    """The ops a restore op runs: its control inputs, through the ``NoOp`` groups of a
    sharded saver (TF's ``save/restore_all`` runs ``save/restore_shard``)."""
    out = []
    for c in restore_op.control_inputs:
        out.extend(_restore_assigns(c) if c.type == "NoOp" else [c])
    return out


def _restored_key(t: Tensor) -> str | None:
    """The checkpoint key TF's ``RestoreV2`` reads into ``t`` (through identities), from
    the constant names of the restore (a ``var_list`` dict's keys), or None."""
    while t.op.type == "Identity":
        t = t.op.inputs[0]
    if t.op.type != "RestoreV2" or t.op.inputs[1].op.type != "Const":
        return None
    names = np.asarray(constant_value(t.op.inputs[1])).reshape(-1)
    key = names[t.value_index] if t.value_index < names.size else None
    return key.decode("utf-8") if isinstance(key, bytes) else None


class Saver:
    """Saves and restores variables (TF1 ``tf.train.Saver``).

    Args:
      var_list: None (all global variables and ``SAVEABLE_OBJECTS``), a list of
        variables (saved under their op names, e.g. ``"mlp/w1"``), or a dict from
        checkpoint names to variables.
      max_to_keep: how many recent checkpoints to keep; older ones are deleted. None
        or 0 keeps all.
      allow_empty: if False (default), having no variables is a ValueError.
      defer_build: build the restore ops on first use instead of now.
      saver_def: a ``SaverDef`` (from ``as_saver_def``, or a meta graph): use the
        restore ops it names (under name scope ``name``, when given) instead of
        building new ones; ``import_meta_graph`` makes its saver this way.

    Note (flowrt): the restore ops live under ``save/`` (``save/restore_all``);
    checkpoints are TF's V2 format (see the module docstring), readable by TF; a
    partitioned variable is written as one whole tensor, which TF restores into its
    slices, and TF's sliced entries are read back whole.
    """

    def __init__(
        self,
        var_list: Sequence[Variable | PartitionedVariable]
        | dict[str, Variable | PartitionedVariable]
        | None = None,
        reshape: bool = False,
        sharded: bool = False,
        max_to_keep: int | None = 5,
        keep_checkpoint_every_n_hours: float = 10000.0,
        name: str | None = None,
        restore_sequentially: bool = False,
        saver_def: Any = None,
        builder: Any = None,
        defer_build: bool = False,
        allow_empty: bool = False,
        write_version: int = 2,
        pad_step_number: bool = False,
        save_relative_paths: bool = False,
        filename: str | None = None,
    ) -> None:
        if builder is not None:
            raise NotImplementedError("builder is not supported by flowrt")
        self._saver_def = saver_def
        if saver_def is not None:
            max_to_keep = saver_def.max_to_keep
            keep_checkpoint_every_n_hours = saver_def.keep_checkpoint_every_n_hours
            sharded = saver_def.sharded
        self._var_list = var_list
        self._max_to_keep = max_to_keep
        self._keep_hours = keep_checkpoint_every_n_hours
        self._sharded = sharded
        self._name = name
        self._allow_empty = allow_empty
        self._pad_step_number = pad_step_number
        self._save_relative_paths = save_relative_paths
        self._filename = filename
        self._last_checkpoints: list[str] = []
        self._built = False
        self._is_empty = False
        self._graph = get_default_graph()
        if not defer_build:
            self.build()

    # --- building ------------------------------------------------------------------

    def _named_vars(self) -> dict:
        var_list = self._var_list
        if var_list is None:
            var_list = global_variables() + self._graph.get_collection(GraphKeys.SAVEABLE_OBJECTS)
        items = (
            list(var_list.items()) if isinstance(var_list, dict) else [(None, v) for v in var_list]
        )
        # Parts of a partitioned variable become one entry under its full name (TF1).
        named = group_for_saving(items)
        for n, v in named.items():
            if not isinstance(v, (Variable, SavedSlices)):
                raise TypeError(
                    "Saver can only save variables; %r for %r is a %s" % (v, n, type(v).__name__)
                )
        return named

    def build(self) -> None:
        """Creates the restore ops (``save/restore_all``); called by the constructor."""
        if self._built:
            return
        if self._saver_def is not None:
            self._bind_saver_def()
            self._built = True
            return
        with self._graph.as_default():
            named = self._named_vars()
            if not named:
                if not self._allow_empty:
                    raise ValueError("No variables to save")
                self._is_empty = True
            self._vars = named
            g = self._graph
            self._feeds: dict[str, list[Tensor]] = {}
            with g.name_scope(self._name or "save"):
                assigns = []
                for n in sorted(named):
                    self._feeds[n] = []
                    for v in _parts(named[n]):
                        ph = placeholder(v.dtype, v.shape, name="restore_value")
                        self._feeds[n].append(ph)
                        assigns.append(assign_op(v.handle, ph, name="AssignVariableOp").op)
                self._restore_op = group(*assigns, name="restore_all")
            self._record_keys()
        self._built = True

    def _bind_saver_def(self) -> None:
        """Uses the restore ops a ``SaverDef`` names (an imported saver's): each assign
        under ``restore_op_name`` feeds one variable (or part) from its placeholder."""
        g, scope = self._graph, self._name
        name = self._saver_def.restore_op_name
        full = "%s/%s" % (scope, name) if scope else name
        try:
            self._restore_op = g.get_operation_by_name(full)
        except (KeyError, ValueError):
            raise ValueError(
                "SaverDef's restore_op_name %r names no operation of the graph" % full
            ) from None
        feeds = {}
        ckpt_keys = {}
        for a in _restore_assigns(self._restore_op):
            if a.type != "AssignVariableOp" or len(a.inputs) != 2:
                raise ValueError(
                    "SaverDef's restore op %r runs %s, not a variable restore; it was not "
                    "written by a flowrt Saver" % (full, a.describe())
                )
            feeds[a.inputs[0].op] = a.inputs[1]
            ckpt_keys[a.inputs[0].op] = _restored_key(a.inputs[1])
        candidates = global_variables() + g.get_collection(GraphKeys.SAVEABLE_OBJECTS)
        restored = [v for v in candidates if isinstance(v, Variable) and v.op in feeds]
        prefix = scope + "/" if scope else ""

        def key(v):
            n = v._save_slice_info.full_name if v._save_slice_info is not None else v.op.name
            return n[len(prefix) :] if prefix and n.startswith(prefix) else n

        self._vars = group_for_saving([(ckpt_keys.get(v.op) or key(v), v) for v in restored])
        self._feeds = {n: [feeds[p.op] for p in _parts(v)] for n, v in self._vars.items()}
        self._is_empty = not self._vars
        self._record_keys()

    def _record_keys(self) -> None:
        """Records the checkpoint key each restore placeholder reads, for the GraphDef
        writer's ``RestoreV2`` (``saver_graph.saver_graph_def``)."""
        keys = self._graph._scratch.setdefault(RESTORE_KEYS, {})
        for n, phs in self._feeds.items():
            for part, ph in zip(_parts(self._vars[n]), phs, strict=True):
                info = part._save_slice_info if len(phs) > 1 else None
                keys[ph.op.name] = (n, info.spec if info is not None else "")

    # --- checkpoints list ------------------------------------------------------------

    @property
    def last_checkpoints(self) -> list[str]:
        """The kept checkpoint prefixes, oldest first."""
        return list(self._last_checkpoints)

    def set_last_checkpoints(self, last_checkpoints: Iterable[str]) -> None:
        self._last_checkpoints = list(last_checkpoints)

    def recover_last_checkpoints(self, checkpoint_paths: Iterable[str]) -> None:
        self._last_checkpoints = [p for p in checkpoint_paths if checkpoint_exists(p)]

    def _record(self, path) -> list:
        if path in self._last_checkpoints:
            self._last_checkpoints.remove(path)
        self._last_checkpoints.append(path)
        drop = []
        if self._max_to_keep:
            while len(self._last_checkpoints) > self._max_to_keep:
                drop.append(self._last_checkpoints.pop(0))
        return drop

    @staticmethod
    def _delete(prefix):
        for suffix in (_DATA_SUFFIX, _INDEX_SUFFIX, ".meta"):
            try:
                os.remove(prefix + suffix)
            except FileNotFoundError:
                pass

    # --- save / restore ----------------------------------------------------------------

    def save(
        self,
        sess: Session,
        save_path: str,
        global_step: int | Tensor | Variable | None = None,
        latest_filename: str | None = None,
        meta_graph_suffix: str = "meta",
        write_meta_graph: bool = True,
        write_state: bool = True,
        strip_default_attrs: bool = False,
        save_debug_info: bool = False,
    ) -> str:
        """Writes the variables' values in ``sess`` to a checkpoint.

        Args:
          sess: the session holding the values.
          save_path: the prefix, e.g. ``"ckpt/model.ckpt"``; its directory must exist
            (ValueError otherwise, as TF1).
          global_step: an int, or a tensor/variable whose value is appended:
            ``"ckpt/model.ckpt-20"``.
          latest_filename: the state file's name (default ``checkpoint``).
          meta_graph_suffix: the suffix of the meta graph file (``<prefix>.meta``).
          write_meta_graph: also write the graph, its collections and this saver's
            ``SaverDef`` to ``<prefix>.meta`` (``fr.train.import_meta_graph`` reads it).
          write_state: also update the directory's ``checkpoint`` state file.
          strip_default_attrs: kept for TF1's signature.
          save_debug_info: kept for TF1's signature.

        Returns:
          The checkpoint prefix written (pass it to ``restore``).
        """
        self.build()
        if global_step is not None:
            if isinstance(global_step, (int, np.integer)):
                step = int(global_step)
            else:
                step = int(sess.run(global_step))
            prefix = (
                "%s-%08d" % (save_path, step)
                if self._pad_step_number
                else "%s-%d" % (save_path, step)
            )
        else:
            prefix = save_path
        save_dir = os.path.dirname(prefix)
        if save_dir and not os.path.isdir(save_dir):
            # TF 2.21 creates the missing directory when its own parent exists, and refuses
            # a deeper missing path.
            if not os.path.isdir(os.path.dirname(os.path.abspath(save_dir))):
                raise ValueError("Parent directory of %s doesn't exist, can't save." % save_path)
            os.makedirs(save_dir, exist_ok=True)
        names = sorted(self._vars)
        fetched = sess.run([_parts(self._vars[n]) for n in names]) if names else []
        values = [
            self._vars[n].join(parts) if isinstance(self._vars[n], SavedSlices) else parts[0]
            for n, parts in zip(names, fetched, strict=True)
        ]
        by_name = dict(zip(names, values, strict=True))
        _write_bundle_files(prefix, by_name)
        if write_meta_graph:
            from .meta_graph import export_meta_graph

            export_meta_graph(
                prefix + "." + meta_graph_suffix, saver_def=self.as_saver_def(), graph=sess.graph
            )
        if write_state:
            drop = self._record(prefix)
            _write_state(
                save_dir,
                prefix,
                self._last_checkpoints,
                latest_filename,
                relative=self._save_relative_paths,
            )
            for old in drop:
                if old != prefix:
                    self._delete(old)
        return prefix

    def restore(self, sess: Session, save_path: str) -> None:
        """Assigns the values saved at ``save_path`` to the variables, in ``sess``.

        Raises:
          ValueError: ``save_path`` is None or not a checkpoint.
          NotFoundError: a variable is missing from the checkpoint (named in the message).
          InvalidArgumentError: a saved shape or dtype differs from the variable's.
          DataLossError: the checkpoint is damaged, not a TF-format checkpoint, or
            written by an older flowrt (the message names the file and variable).

        A failed restore assigns no variable: every value is read and checked first.
        """
        if save_path is None:
            raise ValueError("Can't load save_path when it is None.")
        if not checkpoint_exists(save_path):
            raise ValueError("The passed save_path is not a valid checkpoint: %s" % save_path)
        self.build()
        ckpt = BundleReader(save_path)
        feeds: dict[Tensor, np.ndarray] = {}
        for name in sorted(self._vars):
            v, value = self._vars[name], self._read_for(ckpt, name)
            # A partitioned variable's entry is split back into its parts.
            pieces = v.split(value) if isinstance(v, SavedSlices) else [value]
            feeds.update(zip(self._feeds[name], pieces, strict=True))
        # Every value was read and checked: only now is any variable assigned.
        sess.run(self._restore_op, feeds)

    def _read_for(self, ckpt, name):
        v = self._vars[name]
        if name not in ckpt:
            close = [n for n in ckpt.names() if n.split("/")[-1] == name.split("/")[-1]][:3]
            hint = " (the checkpoint has %s)" % ", ".join(close) if close else ""
            raise errors.NotFoundError(
                None,
                self._restore_op,
                "Restoring from checkpoint failed: key %s not "
                "found in checkpoint %s%s. The variable %s exists in the graph but was "
                "not saved under this name." % (name, ckpt.prefix, hint, v.name),
            )
        dtype, shape = ckpt.info(name)
        # Declared shape and dtype are checked before any data is read.
        if not v.shape.is_compatible_with(shape):
            raise errors.InvalidArgumentError(
                None,
                self._restore_op,
                "Restoring variable %s from %s: the checkpoint has "
                "shape %s but the variable has shape %s" % (name, ckpt.path, list(shape), v.shape),
            )
        if v.dtype.base_dtype is not dtype:
            raise errors.InvalidArgumentError(
                None,
                self._restore_op,
                "Restoring variable %s from %s: the checkpoint has dtype %s but the "
                "variable has dtype %s" % (name, ckpt.path, dtype.name, v.dtype.name),
            )
        return ckpt.read(name)

    def as_saver_def(self) -> SaverDef:
        """This saver as a ``SaverDef`` (what ``import_meta_graph`` rebuilds it from).

        Note (flowrt): a saver made from a ``SaverDef`` (an imported one) returns it.
        Otherwise ``filename_tensor_name`` and ``save_tensor_name`` are empty: flowrt's
        ``save`` runs no graph op; ``restore_op_name`` is ``save/restore_all``. A meta
        graph exported with this ``SaverDef`` holds TF's ``SaveV2``/``RestoreV2``
        subgraph, and its stored ``SaverDef`` names that subgraph's tensors.
        """
        self.build()
        if self._saver_def is not None:
            d = SaverDef()
            d.CopyFrom(self._saver_def)
            return d
        d = SaverDef(
            restore_op_name=self._restore_op.name,
            max_to_keep=self._max_to_keep or 0,
            sharded=bool(self._sharded),
            keep_checkpoint_every_n_hours=self._keep_hours,
        )
        d.version = SaverDef.V2
        return d

    @property
    def saver_def(self) -> SaverDef:
        """The ``SaverDef`` of this saver: the one it was made from (``saver_def=``),
        else ``as_saver_def()``'s."""
        return self._saver_def if self._saver_def is not None else self.as_saver_def()

    def to_proto(self, export_scope: str | None = None) -> SaverDef:
        """The ``SaverDef``, names relative to ``export_scope``."""
        d = self.as_saver_def()
        prefix = export_scope.rstrip("/") + "/" if export_scope else ""
        if prefix and d.restore_op_name.startswith(prefix):
            d.restore_op_name = d.restore_op_name[len(prefix) :]
        return d

    def export_meta_graph(
        self,
        filename: str | None = None,
        collection_list: Iterable[str] | None = None,
        as_text: bool = False,
        export_scope: str | None = None,
        clear_devices: bool = False,
        clear_extraneous_savers: bool = False,
        strip_default_attrs: bool = False,
        save_debug_info: bool = False,
    ) -> MetaGraphDef:
        """Writes this saver's graph as a ``MetaGraphDef`` with its ``SaverDef``
        (``fr.train.export_meta_graph``'s arguments)."""
        from .meta_graph import export_meta_graph

        return export_meta_graph(
            filename=filename,
            saver_def=self.as_saver_def(),
            collection_list=collection_list,
            as_text=as_text,
            graph=self._graph,
            export_scope=export_scope,
            clear_devices=clear_devices,
            clear_extraneous_savers=clear_extraneous_savers,
        )
