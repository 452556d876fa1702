"""``Operation.node_def``: a light object with the fields of TF's ``NodeDef`` proto.

Programs read ``op.node_def.name``, ``.op``, ``.input``, ``.device`` and
``.attr["shared_name"].s``; these objects give the same field names and value types
(bytes for strings, TF's ``DataType`` enum for types) without a protobuf dependency.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes as _dt
from .lazy_constant import LazyConstant
from .shape import TensorShape

__all__ = ["NodeDef", "AttrValue", "node_def_of"]


class _Dim:
    __slots__ = ("size", "name")

    def __init__(self, size: int):
        self.size = size
        self.name = ""


class TensorShapeProto:
    """``TensorShapeProto``: ``dim[i].size`` (-1 when unknown) and ``unknown_rank``."""

    __slots__ = ("dim", "unknown_rank")

    def __init__(self, shape: TensorShape):
        self.unknown_rank = shape.ndims is None
        self.dim = (
            [] if self.unknown_rank else [_Dim(-1 if d is None else d) for d in shape.as_list()]
        )

    def __repr__(self):
        if self.unknown_rank:
            return "unknown_rank: true"
        return " ".join("dim { size: %d }" % d.size for d in self.dim) or "{}"


class ListValue:
    """``AttrValue.ListValue``: one repeated field per kind."""

    __slots__ = ("s", "i", "f", "b", "type", "shape", "tensor")

    def __init__(self):
        self.s, self.i, self.f, self.b = [], [], [], []
        self.type, self.shape, self.tensor = [], [], []


_FIELDS = ("s", "i", "f", "b", "type", "shape", "tensor", "list")


class AttrValue:
    """``AttrValue``: exactly one of ``s`` (bytes), ``i``, ``f``, ``b``, ``type`` (TF's
    DataType enum), ``shape``, ``tensor`` (a numpy array) or ``list`` is set; the others
    keep their proto defaults."""

    __slots__ = ("s", "i", "f", "b", "type", "shape", "tensor", "list", "_which")

    def __init__(self, which: str, value):
        self.s, self.i, self.f, self.b, self.type = b"", 0, 0.0, False, 0
        self.shape = self.tensor = None
        self.list = ListValue()
        setattr(self, which, value)
        self._which = which

    def WhichOneof(self, group: str) -> str | None:  # protobuf's name
        if group != "value":
            raise ValueError('Protocol message has no oneof "%s" field.' % group)
        return self._which

    def HasField(self, name: str) -> bool:  # protobuf's name
        if name not in _FIELDS:
            raise ValueError('Protocol message AttrValue has no "%s" field.' % name)
        return self._which == name

    def __repr__(self):
        return "%s: %r" % (self._which, getattr(self, self._which))


def _kind(v) -> tuple[str, Any] | None:
    """(field, value) of one attr value; None for values with no AttrValue form."""
    if isinstance(v, _dt.DType):
        return "type", v.as_datatype_enum
    if isinstance(v, (bool, np.bool_)):
        return "b", bool(v)
    if isinstance(v, (int, np.integer)):
        return "i", int(v)
    if isinstance(v, (float, np.floating)):
        return "f", float(v)
    if isinstance(v, str):
        return "s", v.encode("utf-8")
    if isinstance(v, bytes):
        return "s", v
    if isinstance(v, TensorShape):
        return "shape", TensorShapeProto(v)
    if isinstance(v, (np.ndarray, LazyConstant)):
        return "tensor", v
    return None


def attr_value(v) -> AttrValue | None:
    """The ``AttrValue`` of an op attribute, or None if it has no TF form."""
    if isinstance(v, (list, tuple)):
        out = AttrValue("list", ListValue())
        for x in v:
            k = _kind(x)
            if k is None:
                if isinstance(x, (list, tuple)):  # a shape given as a list of dims
                    k = "shape", TensorShapeProto(TensorShape(list(x)))
                else:
                    return None
            getattr(out.list, k[0]).append(k[1])
        return out
    k = _kind(v)
    return None if k is None else AttrValue(*k)


class NodeDef:
    """TF's ``NodeDef`` fields: ``name``, ``op``, ``input`` (``"x"``, ``"x:1"``,
    ``"^ctrl"``), ``device`` and ``attr`` (name -> :class:`AttrValue`)."""

    __slots__ = ("name", "op", "input", "device", "attr")

    def __init__(
        self, name: str, op: str, inputs: list[str], device: str, attr: dict[str, AttrValue]
    ):
        self.name = name
        self.op = op
        self.input = inputs
        self.device = device
        self.attr = attr

    def __repr__(self):
        lines = ['name: "%s"' % self.name, 'op: "%s"' % self.op]
        lines += ['input: "%s"' % i for i in self.input]
        if self.device:
            lines.append('device: "%s"' % self.device)
        lines += ['attr { key: "%s" value { %r } }' % kv for kv in sorted(self.attr.items())]
        return "\n".join(lines)


def node_def_of(op) -> NodeDef:
    """The ``NodeDef`` of an ``Operation``; attributes with no TF form are left out."""
    inputs = [t.op.name if t.value_index == 0 else t.name for t in op.inputs]
    inputs += ["^" + c.name for c in op.control_inputs]
    attrs = {}
    for k, v in op.attrs.items():
        if k.startswith("_") and k != "_class":  # flowrt's private attrs; TF shows _class
            continue
        a = attr_value(v)
        if a is not None:
            attrs[k] = a
    return NodeDef(op.name, op.type, inputs, op.device, attrs)
