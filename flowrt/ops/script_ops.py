"""Python functions as ops: ``py_func`` and ``numpy_function`` (op types ``PyFunc`` and
``PyFuncStateless``) and ``py_function`` (``EagerPyFunc``), one mechanism.

The function gets its inputs as numpy arrays and returns arrays (or values numpy turns
into arrays) of the declared ``Tout`` dtypes. It is kept by the graph, under the op's
``token`` attr. Its exceptions become ``fr.errors`` as TF maps them: ``ValueError`` and
``TypeError`` -> InvalidArgumentError, ``StopIteration`` -> OutOfRangeError,
``MemoryError`` -> ResourceExhaustedError, ``NotImplementedError`` -> UnimplementedError,
anything else -> UnknownError; the message names the op and carries the traceback.

Both types are registered ``opaque=True``: the kernel runs arbitrary Python of unknown
cost, so ``Session.arun`` runs a plan holding one on a worker thread rather than on the
trio loop. Runs from several threads call the function concurrently, as in TF (there is
no lock around it: the function's own state is its own to guard).
"""

from __future__ import annotations

import itertools
import threading
import traceback
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, cast, overload

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.graph import Operation, Tensor, convert_to_tensor, get_default_graph
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from .._core.shape import unknown_shape
from ..dtypes import DType
from .common import in_graph_of

if TYPE_CHECKING:
    from .._core.typing import DTypeLike, TensorLike

__all__ = ["py_func", "numpy_function", "py_function"]

_tokens = itertools.count()
_tokens_lock = threading.Lock()

# TF's DataTypeString spellings, used in its messages about returned values.
_TF_NAMES = {"float32": "float", "float64": "double", "float16": "half"}

_ERRORS = [  # Python exception class -> fr.errors class, in TF's order of checks
    ((ValueError, TypeError), errors.InvalidArgumentError),
    ((StopIteration,), errors.OutOfRangeError),
    ((MemoryError,), errors.ResourceExhaustedError),
    ((NotImplementedError,), errors.UnimplementedError),
]


@overload
def py_func(
    func: Callable[..., Any],
    inp: TensorLike | Sequence[TensorLike],
    Tout: DType | str | type | np.dtype[Any],
    stateful: bool = True,
    name: str | None = None,
) -> Tensor: ...


@overload
def py_func(
    func: Callable[..., Any],
    inp: TensorLike | Sequence[TensorLike],
    Tout: list[Any] | tuple[Any, ...],
    stateful: bool = True,
    name: str | None = None,
) -> list[Tensor] | Operation: ...


def py_func(  # TF1's argument names
    func: Callable[..., Any],
    inp: TensorLike | Sequence[TensorLike],
    Tout: DTypeLike | Sequence[DTypeLike],
    stateful: bool = True,
    name: str | None = None,
) -> Tensor | list[Tensor] | Operation:
    """Wraps a Python function taking and returning numpy arrays as a graph op.

    Args:
      func: called as ``func(*arrays)`` each time the op runs; returns one array (or
        value convertible to one) per ``Tout`` entry: a list or tuple for several, a
        single value for one, None for none.
      inp: the input tensors (or values converted to tensors).
      Tout: a dtype, or a list/tuple of dtypes (then a list of tensors is returned).
      stateful: False declares ``func`` pure (op type ``PyFuncStateless``).
      name: the op's name.

    Returns:
      A tensor for a single ``Tout`` dtype; a list of tensors for a list ``Tout``; the
      ``Operation`` when ``Tout`` is empty. Static shapes are unknown (``set_shape``
      refines them). The op has no gradient (``fr.gradients`` gives None).

    Note (flowrt): ``Session.arun`` runs a plan holding a py_func on a worker thread, so
    the function never blocks the trio loop.
    """
    return _make_py_op(func, inp, Tout, "PyFunc" if stateful else "PyFuncStateless", name)


def _make_py_op(
    func: Callable[..., Any],
    inp: TensorLike | Sequence[TensorLike],
    Tout: DTypeLike | Sequence[DTypeLike],
    op_type: str,
    name: str | None,
) -> Tensor | list[Tensor] | Operation:
    with in_graph_of([inp]):
        if not callable(func):
            raise ValueError(
                "Expected func to be callable. Received func=%r of type %s." % (func, type(func))
            )
        many = isinstance(Tout, (list, tuple))
        touts = [_dt.as_dtype(t) for t in cast(Sequence[Any], Tout if many else [Tout])]
        if isinstance(inp, (list, tuple)):
            inputs = [convert_to_tensor(x) for x in inp]
        else:
            inputs = [convert_to_tensor(inp)]
        with _tokens_lock:
            token = ("pyfunc_%d" % next(_tokens)).encode()
        g = get_default_graph()
        g._scratch.setdefault("py_funcs", {})[token] = func
        attrs = {"token": token, "Tin": [t.dtype for t in inputs], "Tout": touts}
        op = g._create_op(op_type, inputs, attrs, name)
        if not touts:
            return op
        return list(op.outputs) if many else op.outputs[0]


@overload
def numpy_function(
    func: Callable[..., Any],
    inp: TensorLike | Sequence[TensorLike],
    Tout: DType | str | type | np.dtype[Any],
    stateful: bool = True,
    name: str | None = None,
) -> Tensor: ...


@overload
def numpy_function(
    func: Callable[..., Any],
    inp: TensorLike | Sequence[TensorLike],
    Tout: list[Any] | tuple[Any, ...],
    stateful: bool = True,
    name: str | None = None,
) -> list[Tensor] | Operation: ...


def numpy_function(
    func: Callable[..., Any],
    inp: TensorLike | Sequence[TensorLike],
    Tout: DTypeLike | Sequence[DTypeLike],
    stateful: bool = True,
    name: str | None = None,
) -> Tensor | list[Tensor] | Operation:
    """Wraps a Python function taking and returning numpy arrays as a graph op.

    TF1's ``numpy_function``: the same op as :func:`py_func` (see there for the
    arguments and results).
    """
    return py_func(func, inp, cast(Any, Tout), stateful=stateful, name=name)


def py_function(
    func: Callable[..., Any],
    inp: TensorLike | Sequence[TensorLike],
    Tout: DTypeLike | Sequence[DTypeLike],
    name: str | None = None,
) -> Tensor | list[Tensor] | Operation:
    """Wraps a Python function as a graph op (op type ``EagerPyFunc``), as TF1's
    ``tf.py_function``.

    The function gets each input as an array that also has TF's ``.numpy()`` (a numpy
    array subclass), so code written for TF's eager tensors (``x.numpy()``, ``x * 2``)
    runs unchanged. Arguments and results as for :func:`py_func`.

    Note (flowrt): the function runs on numpy arrays, not eager ops, so the op has no
    gradient: ``fr.gradients`` through it raises ``LookupError`` (TF differentiates the
    function's TF ops).
    """
    return _make_py_op(func, inp, Tout, "EagerPyFunc", name)


class _EagerArray(np.ndarray):
    """An input of a ``py_function``: a numpy array with TF's ``EagerTensor.numpy()``."""

    def numpy(self) -> np.ndarray:
        """The value as a plain numpy array (a 0-d input gives a numpy scalar)."""
        a = np.asarray(self).view(np.ndarray)
        return a[()] if a.ndim == 0 else a


def _infer(op):
    return [(dt, unknown_shape()) for dt in op.attrs["Tout"]]


def _as_result(value):
    """TF's ``FuncRegistry._convert``: numpy arrays, str as UTF-8 bytes objects."""
    result = np.asarray(value, order="C")
    if result.dtype.char == "S":
        return np.asarray(value, order="C", dtype=object)
    if result.dtype.char == "U":
        return np.vectorize(lambda s: s.encode("utf-8"), otypes=[object])(result)
    if result.dtype.kind == "O" and result.size:
        # TF's kernel encodes the str of an object array too (bytes stay as they are).
        return np.vectorize(
            lambda s: s.encode("utf-8") if isinstance(s, str) else s, otypes=[object]
        )(result)
    return result


def _kernel(ctx, op, *args):
    token = op.attrs["token"]
    func = op.graph._scratch.get("py_funcs", {}).get(token)
    if func is None:
        raise errors.InvalidArgumentError(
            None, op, "%s: callback %s is not found" % (op.describe(), token.decode())
        )
    # The caller's arrays may be shared with other consumers: the function gets its own.
    args = [a.copy() if isinstance(a, np.ndarray) and a.ndim else a for a in args]
    if op.type == "EagerPyFunc":
        args = [np.array(a).view(_EagerArray) for a in args]
    try:
        # The executor silences numpy's warnings; the user's function sees the defaults.
        with np.errstate(divide="warn", over="warn", under="ignore", invalid="warn"):
            ret = func(*args)
    except Exception as e:  # every Python failure becomes an OpError
        cls = next((c for types, c in _ERRORS if isinstance(e, types)), errors.UnknownError)
        tb = "".join(traceback.format_exception(type(e), e, e.__traceback__))
        raise cls(None, op, "%s: %s: %s\n%s" % (op.describe(), type(e).__name__, e, tb)) from e
    touts = op.attrs["Tout"]
    if ret is None:
        values = []
    elif isinstance(ret, (list, tuple)):
        values = [_as_result(v) for v in ret]
    else:
        values = [_as_result(ret)]
    if len(values) != len(touts):
        raise errors.InvalidArgumentError(
            None,
            op,
            "%s: %s returns %d values, but expects to see %d values."
            % (op.describe(), token.decode(), len(values), len(touts)),
        )
    for i, (v, dt) in enumerate(zip(values, touts, strict=True)):
        got = _dtype_of(v)
        if got is not dt:
            shown = v.dtype.name if got is None else _TF_NAMES.get(got.name, got.name)
            raise errors.InvalidArgumentError(
                None,
                op,
                "%s: %d-th value returned by %s is %s, but expects %s"
                % (op.describe(), i, token.decode(), shown, _TF_NAMES.get(dt.name, dt.name)),
            )
    return tuple(values)


def _dtype_of(v: np.ndarray):
    if v.dtype.kind == "O":
        return _dt.string
    try:
        return _dt.as_dtype(v.dtype)
    except TypeError:
        return None


for _type in ("PyFunc", "PyFuncStateless"):
    register_op(
        _type,
        infer=_infer,
        kernel=_kernel,
        grad=NOT_DIFFERENTIABLE,
        stateful=_type == "PyFunc",
        opaque=True,
    )
# No gradient rule: TF differentiates the function's eager ops, which flowrt's numpy
# function does not have; fr.gradients says so rather than giving None.
register_op("EagerPyFunc", infer=_infer, kernel=_kernel, stateful=True, opaque=True)
