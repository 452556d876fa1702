"""``fr.train.NewCheckpointReader``: TF1's reader of a checkpoint's variables by name,
used to inspect checkpoints, and ``init_from_checkpoint``, which warm-starts variables
from a checkpoint's values (fine-tuning)."""

from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from .. import errors
from ..ops import array_ops, state_ops
from ..variables import Variable, global_variables, local_variables
from .saver import _resolve
from .tensor_bundle import BundleReader

__all__ = ["CheckpointReader", "NewCheckpointReader", "init_from_checkpoint"]


class CheckpointReader:
    """The variables of one checkpoint, read by name.

    Reads TF's V2 checkpoint format, which ``fr.train.Saver`` writes and TF 1.x/2.x
    write (their extra entries such as ``global_step`` or optimizer slots included).
    The index is read (and checked) once, when the reader is made; each ``get_tensor``
    opens the data file again, so a reader holds no open file.
    """

    def __init__(self, prefix: str):
        self._prefix = prefix
        self._bundle = BundleReader(prefix)

    def get_variable_to_shape_map(self) -> dict[str, list[int]]:
        """``{name: shape}`` of every variable in the checkpoint."""
        return {name: list(self._bundle.shape(name)) for name in self._bundle.names()}

    def get_variable_to_dtype_map(self) -> dict[str, _dt.DType]:
        """``{name: dtype}`` of every variable in the checkpoint.

        Raises:
          fr.errors.UnimplementedError: a tensor has a dtype flowrt lacks (bfloat16...).
        """
        return {name: self._bundle.info(name)[0] for name in self._bundle.names()}

    def has_tensor(self, tensor_str: str) -> bool:
        """Whether the checkpoint holds a variable named ``tensor_str``."""
        return tensor_str in self._bundle

    def get_tensor(self, tensor_str: str) -> np.ndarray:
        """The saved value of variable ``tensor_str`` as a numpy array.

        Raises:
          fr.errors.NotFoundError: if the checkpoint has no variable of that name.
          fr.errors.DataLossError: if its bytes fail their checksum (names the file).
        """
        if tensor_str not in self._bundle:
            raise errors.NotFoundError(
                None, None, "Key %s not found in checkpoint %s" % (tensor_str, self._prefix)
            )
        return self._bundle.read(tensor_str)

    def debug_string(self) -> bytes:
        """One ``name (dtype) [shape]`` line per variable, sorted by name, as TF's."""
        return "".join(
            "%s (%s) %s\n" % (name, dtype.name, list(shape))
            for name, (dtype, shape) in ((n, self._bundle.info(n)) for n in self._bundle.names())
        ).encode()


def NewCheckpointReader(filepattern: str) -> CheckpointReader:
    """A ``CheckpointReader`` of the checkpoint with prefix ``filepattern``.

    Args:
      filepattern: the checkpoint's prefix, as ``Saver.save`` and
        ``fr.train.latest_checkpoint`` return it (``/tmp/model.ckpt-100``).

    Raises:
      fr.errors.NotFoundError: if there is no checkpoint with that prefix.
      fr.errors.DataLossError: if its files are damaged.
    """
    return CheckpointReader(filepattern)


def _set_initializer(var: Variable, reader: CheckpointReader, tensor_name: str) -> None:
    """Makes ``var``'s initializer assign the checkpoint's ``tensor_name``."""
    shapes = reader.get_variable_to_shape_map()
    if tensor_name not in shapes:
        raise ValueError(
            "Tensor %s is not found in %s checkpoint %s"
            % (tensor_name, reader._prefix, sorted(shapes)[:3])
        )
    want = var.shape
    if want.ndims is not None and not want.is_compatible_with(shapes[tensor_name]):
        raise ValueError(
            "Shape of variable %s (%s) doesn't match with shape of tensor %s (%s) from "
            "checkpoint reader." % (var.name, want, tensor_name, shapes[tensor_name])
        )
    ckpt_dtype = reader._bundle.info(tensor_name)[0]
    if ckpt_dtype is not var.dtype.base_dtype:
        raise ValueError(
            "dtype of variable %s (%s) doesn't match with dtype of tensor %s (%s) in the "
            "checkpoint" % (var.name, var.dtype.name, tensor_name, ckpt_dtype.name)
        )
    value = reader.get_tensor(tensor_name)
    g = var.graph
    handle = var.handle
    with g.as_default(), g.name_scope(None), g.control_dependencies(None):
        with g.name_scope(var.op.name + "/"), g.device(handle.op.device):
            init = array_ops.constant(
                value, dtype=var.dtype.base_dtype, name="checkpoint_initializer"
            )
            var._initializer_op = state_ops.assign_op(handle, init, name="Assign").op
    var._initial_value = init


def init_from_checkpoint(
    ckpt_dir_or_file: str, assignment_map: dict[str, str | Variable | list[Variable]]
) -> None:
    """Makes variables start from a checkpoint's values: their initializers (run by
    ``fr.global_variables_initializer()``) assign the checkpoint's tensors instead of the
    initial values. Call it before making the initializer op.

    ``assignment_map`` maps checkpoint names to the current graph's names, as TF1's:

    - ``"ckpt_scope/": "scope/"``: every variable under ``scope/`` from the tensor of
      the same relative name under ``ckpt_scope/`` (``"/"`` is the checkpoint's root);
    - ``"ckpt_scope/w": "scope/v"``: variable ``scope/v`` from tensor ``ckpt_scope/w``;
    - ``"ckpt_scope/w": variable``: that ``fr.Variable`` (or a list of them) from it.

    Args:
      ckpt_dir_or_file: a checkpoint prefix, or a directory (its latest checkpoint).
      assignment_map: checkpoint names to variable names, scopes or variables.

    Raises:
      ValueError: a tensor missing from the checkpoint, a shape or dtype mismatch, or a
        checkpoint name mapped to a scope (``"w": "scope/"``).

    Note (flowrt): the values are read from the checkpoint when this is called (TF
    reads them when the initializer runs) and held as constants of the graph.
    """
    reader = NewCheckpointReader(_resolve(ckpt_dir_or_file))
    by_name = {v.op.name: v for v in global_variables() + local_variables()}
    for tensor_name, current in assignment_map.items():
        if isinstance(current, Variable):
            _set_initializer(current, reader, tensor_name)
            continue
        if isinstance(current, (list, tuple)):
            for v in current:
                _set_initializer(v, reader, tensor_name)
            continue
        name = current[:-2] if current.endswith(":0") else current
        if name in by_name:
            _set_initializer(by_name[name], reader, tensor_name)
            continue
        if not tensor_name.endswith("/"):
            raise ValueError(
                "Assignment map with scope only name %s should map to scope only %s. Should "
                "be 'scope/': 'other_scope/'." % (current, tensor_name)
            )
        scope = name if name.endswith("/") else name + "/"
        # A scope with no variables in it initializes nothing, as in TF.
        for v in [v for n, v in by_name.items() if n.startswith(scope) or scope == "/"]:
            rel = v.op.name if scope == "/" else v.op.name[len(scope) :]
            _set_initializer(v, reader, rel if tensor_name == "/" else tensor_name + rel)
