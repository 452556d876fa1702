"""``fr.train.NewCheckpointReader``: TF1's reader of a checkpoint's variables by name,
used to inspect checkpoints and to warm-start from some of their variables."""

from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .saver import _CheckpointFile

__all__ = ["CheckpointReader", "NewCheckpointReader"]


class CheckpointReader:
    """The variables of one checkpoint, read by name.

    The index is read (and checked) once, when the reader is made; each ``get_tensor``
    opens the data file again, so a reader holds no open file.

    Note (flowrt): reads checkpoints written by ``fr.train.Saver``; TF's own checkpoint
    files are a different format.
    """

    def __init__(self, prefix: str):
        self._prefix = prefix
        with _CheckpointFile(prefix) as ckpt:
            self._info = {name: ckpt.info(name) for name in ckpt.index}

    def get_variable_to_shape_map(self) -> dict[str, list[int]]:
        """``{name: shape}`` of every variable in the checkpoint."""
        return {name: list(shape) for name, (_, shape) in self._info.items()}

    def get_variable_to_dtype_map(self) -> dict[str, _dt.DType]:
        """``{name: dtype}`` of every variable in the checkpoint."""
        return {name: _dt.as_dtype(dtype) for name, (dtype, _) in self._info.items()}

    def has_tensor(self, tensor_str: str) -> bool:
        """Whether the checkpoint holds a variable named ``tensor_str``."""
        return tensor_str in self._info

    def get_tensor(self, tensor_str: str) -> np.ndarray:
        """The saved value of variable ``tensor_str`` as a numpy array.

        Raises:
          fr.errors.NotFoundError: if the checkpoint has no variable of that name.
        """
        if tensor_str not in self._info:
            raise errors.NotFoundError(
                None, None, "Key %s not found in checkpoint %s" % (tensor_str, self._prefix)
            )
        with _CheckpointFile(self._prefix) as ckpt:
            return ckpt.read(tensor_str)

    def debug_string(self) -> bytes:
        """One ``name (dtype) [shape]`` line per variable, sorted by name, as TF's."""
        return "".join(
            "%s (%s) %s\n" % (name, dtype, list(shape))
            for name, (dtype, shape) in sorted(self._info.items())
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
