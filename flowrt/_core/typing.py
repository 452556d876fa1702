"""Type aliases shared by the annotations of the public API.

Annotations only: nothing here is used at run time, and no public signature changes its
behaviour because of them. They follow TF's own ``tensorflow.types`` spellings where TF has
one (``TensorLike``, ``DTypeLike``, ``ShapeLike``).

Modules import them under ``if TYPE_CHECKING:``, so that the API reference shows a
parameter as ``TensorLike`` (not the ``Union`` it stands for).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias, Union

import numpy as np
import numpy.typing as npt

from ..dtypes import DType
from .shape import TensorShape

if TYPE_CHECKING:
    from .graph import Operation, Tensor, TensorOperators


class SupportsAsTensor(Protocol):
    """An object ``convert_to_tensor`` turns into a tensor by asking it for one (a
    ``Variable``, an ``IndexedSlices``)."""

    def _as_tensor(self) -> Tensor: ...


TensorLike: TypeAlias = Union[
    "Tensor",
    SupportsAsTensor,
    np.ndarray,
    np.generic,
    bool,
    int,
    float,
    complex,
    str,
    bytes,
    Sequence[Any],
]
"""What ``fr.convert_to_tensor`` accepts: a tensor, a variable, a numpy array or scalar, a
Python scalar, string or bytes, or a (nested) list/tuple of those."""

DTypeLike: TypeAlias = Union[DType, npt.DTypeLike]
"""What ``fr.as_dtype`` accepts: a ``DType``, its name (``"float32"``), a numpy dtype or
type, or a Python type (``float``, ``int``, ``bool``, ``str``, ``bytes``, ``complex``)."""

ShapeLike: TypeAlias = Union[TensorShape, Sequence[Any], Iterable[Any], int, None]
"""What ``fr.TensorShape`` accepts: a ``TensorShape``, ``None`` (unknown rank), one
dimension, or a sequence of dimensions (ints, ``None`` for unknown, objects with
``__index__``)."""

AxisLike: TypeAlias = Union[int, Sequence[int], "Tensor", np.ndarray, None]
"""An axis argument: one axis, a list of axes, or an int32 tensor of them; ``None`` for all."""

OpOrTensor: TypeAlias = Union["Operation", "Tensor"]
"""A graph element a session can run or a control dependency can name."""

InitializerLike: TypeAlias = Union[Callable[..., Any], TensorLike, None]
"""A variable's initializer: an initializer object or function called as
``init(shape, dtype=, partition_info=)``, or a value or tensor to start from."""

Regularizer: TypeAlias = Callable[[Any], Any]
"""``regularizer(variable) -> loss tensor or None``."""

Partitioner: TypeAlias = Callable[..., Sequence[int]]
"""``partitioner(shape=, dtype=) -> [parts per dimension]``."""

Constraint: TypeAlias = Callable[["Tensor"], "Tensor"]
"""A projection applied after an optimizer's update: ``constraint(value) -> value``."""

DeviceLike: TypeAlias = Union[str, Callable[..., str], None]
"""A device: a string (``"/cpu:0"``) or a function of an op returning one."""

TensorValue: TypeAlias = Union["TensorOperators", np.ndarray, float]
"""A value used with Python arithmetic before any conversion (``variance + epsilon``): a
tensor or variable (they overload the operators), a numpy array or a number (int or
float)."""
