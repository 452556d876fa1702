"""``fr.train.Saver``: checkpoints of variables, with TF1's file naming and state file.

Files of a checkpoint with prefix ``dir/model.ckpt-20`` (TF1's names):
  ``model.ckpt-20.data-00000-of-00001``  the values: an ``.npz`` archive (loaded with
      ``allow_pickle=False``, so reading a checkpoint never executes code). Entry
      ``index`` is a JSON document (uint8 bytes) mapping each variable name to
      ``{"key", "dtype", "shape"}``; entry ``<key>`` holds the array. String variables
      are stored as their concatenated bytes (uint8) plus ``<key>_len`` (int64 lengths).
  ``model.ckpt-20.index``  the same JSON index alone; a checkpoint "exists" when this
      file exists (as TF's ``checkpoint_exists``).
  ``checkpoint``  the text state file in TF's format (``model_checkpoint_path: "..."``
      then one ``all_model_checkpoint_paths: "..."`` per kept checkpoint).
Each file is written to a temporary name and moved into place with ``os.replace``, in
the order data, index, state: a crash at any point leaves the previous checkpoint and
state file intact and loadable.

Note (flowrt): no ``.meta`` graph file is written (``write_meta_graph`` is ignored).
"""

from __future__ import annotations

import json
import os
import re
import tempfile

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.graph import GraphKeys, get_default_graph
from ..ops.array_ops import group, placeholder
from ..ops.state_ops import assign_op
from ..variables import Variable, global_variables

__all__ = ["Saver", "latest_checkpoint", "get_checkpoint_state", "checkpoint_exists",
           "update_checkpoint_state", "CheckpointState", "list_variables", "load_variable"]

_FORMAT = "flowrt-checkpoint-v1"
_DATA_SUFFIX = ".data-00000-of-00001"
_INDEX_SUFFIX = ".index"


# --------------------------------------------------------------------------------------
# File format
# --------------------------------------------------------------------------------------


def _write_atomic(path: str, write):
    """Calls ``write(fileobj)`` on a temporary file next to ``path``, then renames it."""
    d = os.path.dirname(path) or "."
    fd, tmp = tempfile.mkstemp(prefix=os.path.basename(path) + ".", suffix=".tmp", dir=d)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _encode(values: dict) -> tuple[dict, dict]:
    """name -> array  to  (index, npz entries)."""
    index, entries = {}, {}
    for i, (name, value) in enumerate(sorted(values.items())):
        key = "t%d" % i
        arr = np.asarray(value)
        if arr.dtype == object:
            flat = [bytes(b) for b in arr.reshape(-1)]
            entries[key] = np.frombuffer(b"".join(flat), dtype=np.uint8)
            entries[key + "_len"] = np.array([len(b) for b in flat], dtype=np.int64)
            dtype = "string"
        else:
            entries[key] = arr
            dtype = _dt.as_dtype(arr.dtype).name
        index[name] = {"key": key, "dtype": dtype, "shape": list(arr.shape)}
    return {"format": _FORMAT, "tensors": index}, entries


def _write_arrays(f, index: dict, entries: dict):
    """Writes the data file (an npz archive) to the open file ``f``."""
    meta = np.frombuffer(json.dumps(index).encode("utf-8"), dtype=np.uint8)
    np.savez(f, index=meta, **entries)


def _read_checkpoint(prefix: str):
    """(index dict, npz archive) of a checkpoint; DataLossError if it is unreadable."""
    path = prefix + _DATA_SUFFIX
    try:
        npz = np.load(path, allow_pickle=False)
        index = json.loads(bytes(npz["index"]).decode("utf-8"))
    except FileNotFoundError:
        raise errors.NotFoundError(None, None, "Checkpoint data file %s not found" % path) \
            from None
    except (ValueError, KeyError, OSError) as e:
        raise errors.DataLossError(None, None, "Unable to read checkpoint %s: %s (is it a "
                                   "flowrt checkpoint?)" % (path, e)) from None
    if index.get("format") != _FORMAT:
        raise errors.DataLossError(None, None, "Checkpoint %s has format %r, expected %r"
                                   % (path, index.get("format"), _FORMAT))
    return index["tensors"], npz


def _decode(info: dict, npz) -> np.ndarray:
    key = info["key"]
    if info["dtype"] == "string":
        raw = bytes(npz[key])
        lens = npz[key + "_len"]
        out = np.empty(len(lens), dtype=object)
        pos = 0
        for i, n in enumerate(lens):
            out[i] = raw[pos:pos + int(n)]
            pos += int(n)
        return out.reshape(info["shape"])
    return npz[key]


def checkpoint_exists(checkpoint_prefix: str) -> bool:
    """Whether a checkpoint with this prefix (``dir/model.ckpt-20``) was fully written."""
    return os.path.exists(checkpoint_prefix + _INDEX_SUFFIX)


# --------------------------------------------------------------------------------------
# The `checkpoint` state file
# --------------------------------------------------------------------------------------


class CheckpointState:
    """The contents of a ``checkpoint`` state file."""

    def __init__(self, model_checkpoint_path="", all_model_checkpoint_paths=()):
        self.model_checkpoint_path = model_checkpoint_path
        self.all_model_checkpoint_paths = list(all_model_checkpoint_paths)

    def __repr__(self):
        return "CheckpointState(model_checkpoint_path=%r, all_model_checkpoint_paths=%r)" % (
            self.model_checkpoint_path, self.all_model_checkpoint_paths)


def _quote(s: str) -> str:
    return '"%s"' % s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _unquote(s: str) -> str:
    return re.sub(r"\\(.)", lambda m: {"n": "\n"}.get(m.group(1), m.group(1)), s)


_LINE = re.compile(r'^\s*(\w+)\s*:\s*"((?:[^"\\]|\\.)*)"\s*$')


def update_checkpoint_state(save_dir, model_checkpoint_path, all_model_checkpoint_paths=None,
                            latest_filename=None, all_model_checkpoint_timestamps=None,
                            last_preserved_timestamp=None):
    """Atomically writes the ``checkpoint`` state file of ``save_dir``."""
    paths = list(all_model_checkpoint_paths or [])
    if not paths or paths[-1] != model_checkpoint_path:
        paths.append(model_checkpoint_path)
    text = "model_checkpoint_path: %s\n" % _quote(model_checkpoint_path)
    text += "".join("all_model_checkpoint_paths: %s\n" % _quote(p) for p in paths)
    path = os.path.join(save_dir, latest_filename or "checkpoint")
    _write_atomic(path, lambda f: f.write(text.encode("utf-8")))


def get_checkpoint_state(checkpoint_dir, latest_filename=None):
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
        m = _LINE.match(line)
        if m is None:
            continue  # fields flowrt does not use (e.g. timestamps)
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


def latest_checkpoint(checkpoint_dir, latest_filename=None):
    """The prefix of the newest checkpoint in ``checkpoint_dir``, or None."""
    state = get_checkpoint_state(checkpoint_dir, latest_filename)
    if state and state.model_checkpoint_path and checkpoint_exists(state.model_checkpoint_path):
        return state.model_checkpoint_path
    return None


def _resolve(ckpt: str) -> str:
    if os.path.isdir(ckpt):
        latest = latest_checkpoint(ckpt)
        if latest is None:
            raise ValueError("Couldn't find 'checkpoint' file or checkpoints in given "
                             "directory %s" % ckpt)
        return latest
    return ckpt


def list_variables(ckpt_dir_or_file) -> list:
    """``[(name, shape), ...]`` of the variables in a checkpoint (or a dir's latest)."""
    index, _ = _read_checkpoint(_resolve(ckpt_dir_or_file))
    return [(name, info["shape"]) for name, info in sorted(index.items())]


def load_variable(ckpt_dir_or_file, name) -> np.ndarray:
    """The saved value of variable ``name`` in a checkpoint (or a dir's latest)."""
    prefix = _resolve(ckpt_dir_or_file)
    index, npz = _read_checkpoint(prefix)
    if name not in index:
        raise errors.NotFoundError(None, None, "Key %s not found in checkpoint %s"
                                   % (name, prefix))
    return _decode(index[name], npz)


# --------------------------------------------------------------------------------------
# Saver
# --------------------------------------------------------------------------------------


def _var_name(v) -> str:
    op = getattr(v, "op", None)
    return op.name if op is not None else v.name.split(":")[0]


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

    Note (flowrt): the restore ops live under ``save/`` (``save/restore_all``);
    checkpoints are flowrt's npz format (see the module docstring), not TF's tables.
    """

    def __init__(self, var_list=None, reshape=False, sharded=False, max_to_keep=5,
                 keep_checkpoint_every_n_hours=10000.0, name=None,
                 restore_sequentially=False, saver_def=None, builder=None, defer_build=False,
                 allow_empty=False, write_version=2, pad_step_number=False,
                 save_relative_paths=False, filename=None):
        if saver_def is not None or builder is not None:
            raise NotImplementedError("saver_def and builder are not supported by flowrt")
        self._var_list = var_list
        self._max_to_keep = max_to_keep
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
            var_list = global_variables() + self._graph.get_collection(
                GraphKeys.SAVEABLE_OBJECTS)
        if isinstance(var_list, dict):
            named = dict(var_list)
        else:
            named = {}
            for v in var_list:
                n = _var_name(v)
                if n in named and named[n] is not v:
                    raise ValueError("At least two variables have the same name: %s" % n)
                named[n] = v
        for n, v in named.items():
            if not isinstance(v, Variable):
                raise TypeError("Saver can only save variables; %r for %r is a %s"
                                % (v, n, type(v).__name__))
        return named

    def build(self):
        """Creates the restore ops (``save/restore_all``); called by the constructor."""
        if self._built:
            return
        with self._graph.as_default():
            named = self._named_vars()
            if not named:
                if not self._allow_empty:
                    raise ValueError("No variables to save")
                self._is_empty = True
            self._vars = named
            g = self._graph
            self._feeds = {}
            with g.name_scope(self._name or "save"):
                assigns = []
                for n in sorted(named):
                    v = named[n]
                    ph = placeholder(v.dtype, v.shape, name="restore_value")
                    self._feeds[n] = ph
                    assigns.append(assign_op(v.handle, ph, name="AssignVariableOp").op)
                self._restore_op = group(*assigns, name="restore_all")
        self._built = True

    # --- checkpoints list ------------------------------------------------------------

    @property
    def last_checkpoints(self) -> list:
        """The kept checkpoint prefixes, oldest first."""
        return list(self._last_checkpoints)

    def set_last_checkpoints(self, last_checkpoints):
        self._last_checkpoints = list(last_checkpoints)

    def recover_last_checkpoints(self, checkpoint_paths):
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

    def save(self, sess, save_path, global_step=None, latest_filename=None,
             meta_graph_suffix="meta", write_meta_graph=True, write_state=True,
             strip_default_attrs=False, save_debug_info=False):
        """Writes the variables' values in ``sess`` to a checkpoint.

        Args:
          sess: the session holding the values.
          save_path: the prefix, e.g. ``"ckpt/model.ckpt"``; its directory must exist.
          global_step: an int, or a tensor/variable whose value is appended:
            ``"ckpt/model.ckpt-20"``.
          write_state: also update the directory's ``checkpoint`` state file.

        Returns:
          The checkpoint prefix written (pass it to ``restore``).
        """
        self.build()
        if global_step is not None:
            if not isinstance(global_step, (int, np.integer)):
                global_step = sess.run(global_step)
            step = int(global_step)
            prefix = "%s-%08d" % (save_path, step) if self._pad_step_number \
                else "%s-%d" % (save_path, step)
        else:
            prefix = save_path
        save_dir = os.path.dirname(prefix)
        if save_dir and not os.path.isdir(save_dir):
            raise ValueError("Parent directory of %s doesn't exist, can't save." % save_path)
        names = sorted(self._vars)
        values = sess.run([self._vars[n] for n in names]) if names else []
        index, entries = _encode(dict(zip(names, values, strict=True)))
        _write_atomic(prefix + _DATA_SUFFIX, lambda f: _write_arrays(f, index, entries))
        text = json.dumps(index).encode("utf-8")
        _write_atomic(prefix + _INDEX_SUFFIX, lambda f: f.write(text))
        if write_state:
            drop = self._record(prefix)
            update_checkpoint_state(save_dir or ".", prefix, self._last_checkpoints,
                                    latest_filename)
            for old in drop:
                if old != prefix:
                    self._delete(old)
        return prefix

    def restore(self, sess, save_path):
        """Assigns the values saved at ``save_path`` to the variables, in ``sess``.

        Raises:
          ValueError: ``save_path`` is None or not a checkpoint.
          NotFoundError: a variable is missing from the checkpoint (named in the message).
          InvalidArgumentError: a saved shape differs from the variable's.
        """
        if save_path is None:
            raise ValueError("Can't load save_path when it is None.")
        if not checkpoint_exists(save_path):
            raise ValueError("The passed save_path is not a valid checkpoint: %s" % save_path)
        self.build()
        index, npz = _read_checkpoint(save_path)
        feeds = {}
        for name in sorted(self._vars):
            v = self._vars[name]
            if name not in index:
                close = [n for n in index if n.split("/")[-1] == name.split("/")[-1]][:3]
                hint = " (the checkpoint has %s)" % ", ".join(close) if close else ""
                raise errors.NotFoundError(
                    None, self._restore_op, "Restoring from checkpoint failed: key %s not "
                    "found in checkpoint %s%s. The variable %s exists in the graph but was "
                    "not saved under this name." % (name, save_path, hint, v.name))
            value = _decode(index[name], npz)
            if not v.shape.is_compatible_with(value.shape):
                raise errors.InvalidArgumentError(
                    None, self._restore_op, "Restoring variable %s: the checkpoint has shape "
                    "%s but the variable has shape %s" % (name, list(value.shape), v.shape))
            if v.dtype.name != index[name]["dtype"]:
                raise errors.InvalidArgumentError(
                    None, self._restore_op, "Restoring variable %s: the checkpoint has dtype "
                    "%s but the variable has dtype %s" % (name, index[name]["dtype"],
                                                          v.dtype.name))
            feeds[self._feeds[name]] = value
        sess.run(self._restore_op, feeds)

    def as_saver_def(self):
        raise NotImplementedError("flowrt keeps no SaverDef protocol buffers")

    def to_proto(self, export_scope=None):
        raise NotImplementedError("flowrt keeps no SaverDef protocol buffers")
