"""Shared pieces of op definitions: creating ops, converting arguments, infer helpers."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes as _dt
from .._core.graph import (
    Graph,
    Operation,
    Tensor,
    convert_to_tensor,
    get_default_graph,
)
from .._core.shape import TensorShape, as_shape
from ..dtypes import DType

if TYPE_CHECKING:
    from .._core.typing import TensorLike

__all__ = [
    "is_tensor_like",
    "make_op",
    "make",
    "graph_of",
    "in_graph_of",
    "op_scope",
    "to_tensor",
    "binary_args",
    "same_as",
    "static_value",
    "check_dtype",
    "FLOATS",
    "INTS",
    "NUMERIC",
    "COMPLEX",
    "TensorShape",
    "as_shape",
    "int_list",
    "axis_value",
    "reduce_args",
    "shape_str",
]

FLOATS = (_dt.float16, _dt.float32, _dt.float64)
INTS = (_dt.int8, _dt.int16, _dt.int32, _dt.int64, _dt.uint8, _dt.uint16, _dt.uint32, _dt.uint64)
NUMERIC = FLOATS + INTS
COMPLEX = (_dt.complex64, _dt.complex128)


# Arguments that are never graph elements: skipped without attribute look-ups.
_PLAIN = (int, float, str, bytes, type(None), np.ndarray, np.generic)


def _first_element(values, first):
    """The first graph element among ``values`` (nested lists too), checking that every
    other one is in the same graph; ``first`` is the one found so far (or None)."""
    for v in values:
        if isinstance(v, (Tensor, Operation)):
            t = v
        elif isinstance(v, (list, tuple)):
            first = _first_element(v, first)
            continue
        elif isinstance(v, _PLAIN):
            continue
        elif hasattr(v, "_fetch_components"):  # SparseTensor, IndexedSlices (as TF)
            first = _first_element(v._fetch_components(), first)
            continue
        else:
            as_tensor = getattr(v, "_as_tensor", None)
            if as_tensor is None:
                continue
            t = as_tensor()
        if first is None:
            first = t
        elif t.graph is not first.graph:
            raise ValueError("%s must be from the same graph as %s." % (t, first))
    return first


def graph_of(values) -> Graph:
    """The graph an op on ``values`` belongs to (TF1's ``_get_graph_from_inputs``).

    The graph of the tensors, tensor-like objects (variables), composite tensors
    (``SparseTensor``, ``IndexedSlices``: their component tensors) and operations
    among ``values`` (nested lists too), else the default graph. While a function is
    traced, always its graph (as TF: an input from elsewhere is then an error naming
    it).

    Raises:
      ValueError: if two of them come from different graphs.
    """
    default = get_default_graph()
    if default.building_function:
        return default
    first = _first_element(values, None)
    return default if first is None else first.graph


class _InGraph:
    """The context manager of ``in_graph_of`` (a class: entered on every wrapper call)."""

    __slots__ = ("graph", "_cm")

    def __init__(self, graph: Graph, cm):
        self.graph = graph
        self._cm = cm

    def __enter__(self) -> Graph:
        if self._cm is not None:
            self._cm.__enter__()
        return self.graph

    def __exit__(self, *exc):
        if self._cm is not None:
            return self._cm.__exit__(*exc)
        return None


def in_graph_of(values) -> _InGraph:
    """A context manager making the graph of ``values`` (``graph_of``) the default
    graph inside the block, so that ops and constants created there go into it; it
    yields the graph.

    Raises:
      ValueError: if ``values`` come from different graphs.
    """
    default = get_default_graph()
    if default.building_function:
        return _InGraph(default, None)
    first = _first_element(values, None)
    if first is None or first.graph is default:
        return _InGraph(default, None)
    g = first.graph
    return _InGraph(g, g.as_default())


@contextlib.contextmanager
def op_scope(values, name, default_name=None):
    """TF1's ``name_scope(name, default_name, values)``: enters the graph of ``values``
    (``in_graph_of``) and a name scope in it; yields the scope string."""
    with in_graph_of(values) as g, g.name_scope(name or default_name) as scope:
        yield scope


def make_op(op_type: str, inputs, attrs=None, name=None, default_name=None) -> Operation:
    """Creates an op of registered type ``op_type``; returns the ``Operation``.

    The op goes into the graph of its inputs, as in TF1 (``fr.exp(x)`` with ``x`` from
    a graph that is not the default builds in ``x``'s graph), else into the default
    graph; Python and numpy inputs become constants in that graph.

    Raises:
      ValueError: if the inputs come from different graphs.
    """
    inputs = list(inputs)
    g = graph_of(inputs)
    if g is get_default_graph():
        return g._create_op(op_type, inputs, attrs or {}, name, default_name)
    with g.as_default():
        return g._create_op(op_type, inputs, attrs or {}, name, default_name)


def make(op_type: str, inputs, attrs=None, name=None, default_name=None):
    """Creates an op and returns its single output (or its outputs when there are many)."""
    op = make_op(op_type, inputs, attrs, name, default_name)
    return op.outputs[0] if len(op.outputs) == 1 else op.outputs


def to_tensor(x, dtype=None, name=None) -> Tensor:
    return convert_to_tensor(x, dtype=dtype, name=name)


def binary_args(x: TensorLike, y: TensorLike, op_name: str) -> tuple[Tensor, Tensor]:
    """Converts two operands, giving a Python/numpy operand the other's dtype (TF1)."""
    xt = isinstance(x, Tensor) or hasattr(x, "_as_tensor")
    yt = isinstance(y, Tensor) or hasattr(y, "_as_tensor")
    if xt:
        x = convert_to_tensor(x)
        y = _convert_like(y, x.dtype, op_name, "y") if not yt else convert_to_tensor(y)
    elif yt:
        y = convert_to_tensor(y)
        x = _convert_like(x, y.dtype, op_name, "x")
    else:
        x = convert_to_tensor(x)
        y = _convert_like(y, x.dtype, op_name, "y")
    return x, y


def _convert_like(v: TensorLike, dtype: DType, op_name: str, arg: str) -> Tensor:
    try:
        return convert_to_tensor(v, dtype=dtype)
    except (TypeError, ValueError):
        t = convert_to_tensor(v)
        raise TypeError(
            "Input '%s' of '%s' Op has type %s that does not match type %s of "
            "the other argument." % (arg, op_name, t.dtype.name, dtype.name)
        ) from None


def same_as(i: int = 0):
    """infer rule: one output with the dtype and shape of input ``i``."""

    def infer(op):
        x = op.inputs[i]
        return [(x.dtype, x.shape)]

    return infer


_ALLOWED: dict = {}


def check_dtype(t: Tensor, allowed, arg: str = "x"):
    ids = _ALLOWED.get(id(allowed))
    if ids is None:
        ids = _ALLOWED[id(allowed)] = (allowed, frozenset(id(d) for d in allowed))
    if id(t.dtype) not in ids[1]:
        raise TypeError(
            "Value passed to parameter '%s' has DataType %s not in list of allowed "
            "values: %s" % (arg, t.dtype.name, ", ".join(d.name for d in allowed))
        )


def shape_str(s: TensorShape) -> str:
    """A static shape for messages: ``[?, 3]``, or ``<unknown>``."""
    return (
        "<unknown>"
        if s.ndims is None
        else "[%s]" % ", ".join("?" if d is None else str(d) for d in s.as_list())
    )


def static_value(t: Tensor):
    """The value of ``t`` known at graph construction (``const_eval``), or None."""
    from .const_eval import static_value as evaluate

    return evaluate(t)


def int_list(t: Tensor):
    """A statically known int vector/scalar input as a list of ints, else None.

    Known means what TF's shape inference can evaluate: constants and small constant
    subgraphs over static shapes (``const_eval.static_value``)."""
    from .const_eval import static_value

    v = static_value(t)
    if v is None:
        return None
    return [int(a) for a in np.asarray(v).reshape(-1)]


def reduce_args(axis, keepdims, reduction_indices, keep_dims) -> tuple:
    """``(axis, keepdims)`` from a reduction's two TF1 spellings of each (``axis`` /
    ``reduction_indices``, ``keepdims`` / ``keep_dims``); ValueError when both are given."""
    if axis is not None and reduction_indices is not None:
        raise ValueError("Can not specify both 'axis' and 'reduction_indices'.")
    if keepdims is not None and keep_dims is not None:
        raise ValueError("Can not specify both 'keepdims' and 'keep_dims'.")
    return (reduction_indices if axis is None else axis), bool(
        keepdims if keepdims is not None else keep_dims
    )


def axis_value(v, rank):
    """Normalizes a (possibly negative) axis against a rank; raises ValueError if bad."""
    a = int(v)
    if rank is not None:
        if not -rank <= a < max(rank, 1):
            raise ValueError("axis %d is out of range for a tensor of rank %d" % (a, rank))
        if a < 0:
            a += rank
    return a


def is_tensor_like(v) -> bool:
    """Whether ``v`` is a tensor or converts to one as an op input without a dtype
    (a ``Tensor``, or an object with ``_as_tensor`` such as a ``Variable``): Python and
    numpy values are converted to the other operand's dtype instead."""
    return isinstance(v, Tensor) or hasattr(v, "_as_tensor")
