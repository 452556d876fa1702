"""Values known while the graph is built: TF's constant partial shapes.

TF's shape inference evaluates small constant subgraphs (``EvaluateConstantTensor``) and
reads shape vectors element by element (``ConstantPartialShape``), so
``fr.zeros([fr.shape(x)[0] * 2, 4])`` has the static shape ``[None, 4]``, or ``[10, 4]``
when ``x`` has 5 rows. Shape arguments of ``Fill``, ``Reshape``, ``Tile``, ``Slice``,
``BroadcastTo`` and the random samplers are read through :func:`partial_shape`.
"""

from __future__ import annotations

import numpy as np

from .._core.graph import Tensor, constant_value
from .._core.registry import get_op_def

__all__ = ["static_value", "partial_ints", "partial_shape"]

_MAX_OPS = 16  # ops evaluated for one value: shape arithmetic, never real compute
_MAX_ELEMENTS = 1024  # TF's limit on a tensor evaluated during shape inference


def static_value(t: Tensor):
    """The value of ``t`` if a small constant subgraph computes it, else None.

    Leaves are constants and ``Shape``/``Size``/``Rank`` of statically known shapes; a
    ``StridedSlice`` of a ``Shape`` is known when the dims it picks are. Inner ops must
    be pure (not stateful, never blocking).
    """
    return _eval(t, [_MAX_OPS])


def _eval(t: Tensor, budget: list):
    v = constant_value(t)
    if v is not None:
        return v
    op = t.op
    if budget[0] <= 0:
        return None
    budget[0] -= 1
    if op.type == "StridedSlice" and op.inputs[0].op.type == "Shape":
        return _slice_of_shape(op, budget)
    op_def = get_op_def(op.type)
    if (
        op_def.stateful
        or op_def.kernel is None
        or op_def.extra.get("opaque")
        or op_def.extra.get("no_fold")
        or op.type in ("Placeholder", "PlaceholderWithDefault")
    ):
        return None
    ins = []
    for x in op.inputs:
        v = _eval(x, budget)
        if v is None or np.size(v) > _MAX_ELEMENTS:
            return None
        ins.append(np.asarray(v))
    try:
        with np.errstate(all="ignore"):
            out = op_def.kernel(None, op, *ins)
    except Exception:  # not computable now: the run reports the error
        return None
    return out[t.value_index]


def _slice_of_shape(op, budget: list):
    """``shape(x)[i]`` or ``shape(x)[a:b]``: the picked dims, if all of them are known."""
    dims = op.inputs[0].op.inputs[0].shape
    if dims.ndims is None:
        return None
    spec = []
    for x in op.inputs[1:]:
        v = _eval(x, budget)
        if v is None:
            return None
        spec.append(np.asarray(v))
    index = np.arange(dims.ndims, dtype=np.int64)
    try:
        picked = get_op_def("StridedSlice").kernel(None, op, index, *spec)[0]
    except Exception:  # an invalid slice fails when run, as in TF
        return None
    known = dims.as_list()
    vals = [known[i] for i in np.reshape(picked, -1)]
    if any(d is None for d in vals):
        return None
    return np.reshape(np.array(vals, op.outputs[0].dtype.np), np.shape(picked))


def partial_ints(t: Tensor):
    """An int vector's known entries, None where unknown; None when its length is unknown.

    Reads through ``Pack`` of scalars, ``ConcatV2``, ``Cast``, ``Shape`` and slices of a
    ``Shape``, evaluating each entry with :func:`static_value`.
    """
    v = static_value(t)
    if v is not None:
        return [int(d) for d in v] if np.ndim(v) == 1 else None
    op = t.op
    if op.type == "Shape" and op.inputs[0].shape.ndims is not None:
        return op.inputs[0].shape.as_list()
    if op.type == "Cast":
        return partial_ints(op.inputs[0])
    if (
        op.type == "Pack"
        and op.attrs.get("axis", 0) == 0
        and all(x.shape.ndims in (None, 0) for x in op.inputs)
    ):
        return [None if (d := static_value(x)) is None else int(d) for x in op.inputs]
    if op.type == "ConcatV2":
        parts = [partial_ints(x) for x in op.inputs[:-1]]
        if all(p is not None for p in parts):
            return [d for p in parts for d in p]
    n = t.shape[0] if t.shape.ndims == 1 else None
    if n is None:
        return None
    if op.type == "StridedSlice" and op.inputs[0].op.type == "Shape":
        return _slice_dims(op, n)
    return [None] * n


def partial_shape(t: Tensor):
    """A shape vector as a list of dims, None where unknown (TF's ``MakeShapeFromShapeTensor``);
    None when not even the rank is known.

    ``-1`` entries are unknown dims. Raises ValueError for a constant entry below -1, as
    TF does; a computed one makes the whole shape unknown (the run reports it).
    """
    dims = partial_ints(t)
    if dims is None:
        return None
    bad = [d for d in dims if d is not None and d < -1]
    if bad:
        if static_value(t) is not None:
            raise ValueError("Invalid value in tensor used for shape: %d" % bad[0])
        return [None] * len(dims)
    return [None if d == -1 else d for d in dims]


def _slice_dims(op, n: int):
    """The dims a vector slice of ``Shape`` picks, None for the unknown ones."""
    dims = op.inputs[0].op.inputs[0].shape
    if dims.ndims is None:
        return [None] * n
    spec = [static_value(x) for x in op.inputs[1:]]
    if any(v is None for v in spec):
        return [None] * n
    try:
        picked = get_op_def("StridedSlice").kernel(
            None, op, np.arange(dims.ndims, dtype=np.int64), *map(np.asarray, spec)
        )[0]
    except Exception:
        return [None] * n
    known = dims.as_list()
    return [known[i] for i in np.reshape(picked, -1)]
