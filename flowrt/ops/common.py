"""Shared pieces of op definitions: creating ops, converting arguments, infer helpers."""

from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from .._core.graph import Tensor, constant_value, convert_to_tensor, get_default_graph
from .._core.shape import TensorShape, as_shape

__all__ = ["make_op", "make", "to_tensor", "binary_args", "same_as", "static_value",
           "check_dtype", "FLOATS", "INTS", "NUMERIC", "TensorShape", "as_shape",
           "int_list", "axis_value", "shape_str"]

FLOATS = (_dt.float16, _dt.float32, _dt.float64)
INTS = (_dt.int8, _dt.int16, _dt.int32, _dt.int64, _dt.uint8, _dt.uint16)
NUMERIC = FLOATS + INTS


def _graph_of(inputs):
    for x in inputs:
        if isinstance(x, Tensor):
            return x.graph
        t = getattr(x, "_as_tensor", None)
        if t is not None:
            return t().graph
        if isinstance(x, (list, tuple)):
            g = _graph_of(x)
            if g is not None:
                return g
    return None


def make_op(op_type: str, inputs, attrs=None, name=None, default_name=None):
    """Creates an op in the graph of its inputs (else the default graph)."""
    g = get_default_graph()
    return g._create_op(op_type, list(inputs), attrs or {}, name, default_name)


def make(op_type: str, inputs, attrs=None, name=None, default_name=None):
    """Creates an op and returns its single output (or its outputs when there are many)."""
    op = make_op(op_type, inputs, attrs, name, default_name)
    return op.outputs[0] if len(op.outputs) == 1 else op.outputs


def to_tensor(x, dtype=None, name=None) -> Tensor:
    return convert_to_tensor(x, dtype=dtype, name=name)


def binary_args(x, y, op_name: str):
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


def _convert_like(v, dtype, op_name, arg):
    try:
        return convert_to_tensor(v, dtype=dtype)
    except (TypeError, ValueError):
        t = convert_to_tensor(v)
        raise TypeError("Input '%s' of '%s' Op has type %s that does not match type %s of "
                        "the other argument." % (arg, op_name, t.dtype.name, dtype.name)) \
            from None


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
        raise TypeError("Value passed to parameter '%s' has DataType %s not in list of allowed "
                        "values: %s" % (arg, t.dtype.name, ", ".join(d.name for d in allowed)))


def shape_str(s: TensorShape) -> str:
    """A static shape for messages: ``[?, 3]``, or ``<unknown>``."""
    return "<unknown>" if s.ndims is None else "[%s]" % ", ".join(
        "?" if d is None else str(d) for d in s.as_list())


def static_value(t: Tensor):
    """The constant value of ``t`` at graph construction, or None."""
    return constant_value(t)


def int_list(t: Tensor):
    """A statically known int vector/scalar input as a list of ints, else None."""
    v = constant_value(t)
    if v is None:
        return None
    return [int(a) for a in np.asarray(v).reshape(-1)]


def axis_value(v, rank):
    """Normalizes a (possibly negative) axis against a rank; raises ValueError if bad."""
    a = int(v)
    if rank is not None:
        if not -rank <= a < max(rank, 1):
            raise ValueError("axis %d is out of range for a tensor of rank %d" % (a, rank))
        if a < 0:
            a += rank
    return a
