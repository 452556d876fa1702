"""Element structures of datasets: nests of tensors as ``tf.data`` sees them.

A dataset element is a nest of tuples (namedtuples too) and dicts whose leaves are
tensors; as in ``tf.data``, a list is a leaf (converted to one tensor), not a nest.
Dict entries are ordered by sorted key, as ``tf.nest`` orders them. A dataset keeps its
element structure as a nest of ``TensorSpec`` leaves; its ops deal in the flat list.
"""

from __future__ import annotations

from typing import Any

from .. import dtypes as _dt
from .._core.graph import Tensor, convert_to_tensor
from .._core.shape import TensorShape
from ..function import TensorSpec

__all__ = ["flatten", "pack", "is_nest", "specs_of", "to_tensors", "types_of", "shapes_of"]


def is_nest(x: Any) -> bool:
    return isinstance(x, (tuple, dict))


def _children(x: Any) -> list:
    if isinstance(x, dict):
        return [x[k] for k in sorted(x)]
    return list(x)


def flatten(x: Any) -> list:
    """The leaves of ``x`` in ``tf.data`` order."""
    if not is_nest(x):
        return [x]
    out: list = []
    for c in _children(x):
        out.extend(flatten(c))
    return out


def pack(structure: Any, flat: list) -> Any:
    """``flat`` put back in the nest of ``structure``."""
    it = iter(flat)

    def build(s: Any) -> Any:
        if not is_nest(s):
            return next(it)
        vals = [build(c) for c in _children(s)]
        if isinstance(s, dict):
            return type(s)(zip(sorted(s), vals))
        if hasattr(s, "_fields"):
            return type(s)(*vals)
        return tuple(vals)

    return build(structure)


def map_structure(fn: Any, structure: Any) -> Any:
    return pack(structure, [fn(x) for x in flatten(structure)])


def to_tensors(value: Any, what: str) -> Any:
    """``value`` with every leaf converted to a tensor (a TypeError names ``what``)."""

    def conv(x: Any) -> Tensor:
        if isinstance(x, Tensor):
            return x
        try:
            return convert_to_tensor(x)
        except (TypeError, ValueError) as e:
            raise TypeError("%s: could not convert %r to a tensor: %s" % (what, x, e)) from None

    if not is_nest(value) and value is None:
        raise TypeError("%s: an element component may not be None" % what)
    return map_structure(conv, value)


def specs_of(tensors: Any) -> Any:
    """The nest of ``TensorSpec`` describing a nest of tensors."""
    return map_structure(lambda t: TensorSpec(t.shape, t.dtype), tensors)


def types_of(specs: Any) -> Any:
    return map_structure(lambda s: s.dtype, specs)


def shapes_of(specs: Any) -> Any:
    return map_structure(lambda s: s.shape, specs)


def classes_of(specs: Any) -> Any:
    return map_structure(lambda s: Tensor, specs)


def same_structure(a: Any, b: Any) -> bool:
    if is_nest(a) != is_nest(b):
        return False
    if not is_nest(a):
        return True
    if isinstance(a, dict) != isinstance(b, dict):
        return False
    if isinstance(a, dict) and sorted(a) != sorted(b):
        return False
    ca, cb = _children(a), _children(b)
    return len(ca) == len(cb) and all(same_structure(x, y) for x, y in zip(ca, cb))


def specs_from(types: Any, shapes: Any) -> Any:
    """``TensorSpec``s from a nest of dtypes and (optionally) a nest of shapes."""
    flat_t = [_dt.as_dtype(t) for t in flatten(types)]
    if shapes is None:
        flat_s = [TensorShape(None)] * len(flat_t)
    else:
        if not same_structure(types, shapes):
            raise ValueError(
                "output_types %r and output_shapes %r must have the same structure"
                % (types, shapes)
            )
        flat_s = [s if isinstance(s, TensorShape) else TensorShape(s) for s in flatten(shapes)]
    return pack(types, [TensorSpec(s, t) for t, s in zip(flat_t, flat_s)])


def describe(specs: Any) -> str:
    """The nest of dtypes, for error messages."""
    return repr(map_structure(lambda s: s.dtype.name, specs))
