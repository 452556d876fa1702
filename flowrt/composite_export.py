"""flowrt ops written as the TF nodes TF's own Python builds for the same call (rewrites
of ``graph_export.py``'s writer): ``ResourceSparseApplyAdam``, for which TF has no
kernel, as ``AdamOptimizer._resource_apply_sparse`` composes it from scatter ops;
``ProdOthers`` (``reduce_prod``'s gradient) as TF's ``_ProdGrad`` computes it; and
``ParseExampleV2``, whose keys flowrt holds as attrs, with TF's string ``Const`` inputs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from . import dtypes as _dt
from ._core.graph import Operation, Tensor
from ._core.shape import TensorShape

if TYPE_CHECKING:
    from .graph_export import GraphDefWriter

__all__ = ["REWRITES"]


def _n(
    w: GraphDefWriter,
    name: str,
    tf_type: str,
    inputs: list[str],
    attrs: dict[str, Any],
    shape: TensorShape | None,
    dev: str,
    control: list[str] = (),  # type: ignore[assignment]
) -> str:
    """Appends a node under a fresh ``name`` with one output of ``shape`` (None: no
    output); returns its name."""
    name = w.unique(name)
    out = [] if shape is None else [shape]
    w.node(name, tf_type, inputs, attrs, control=control, device=dev, out_shapes=out)
    return name


def _scalar_const(w: GraphDefWriter, name: str, value: float, dtype: _dt.DType) -> str:
    name = w.unique(name)
    attrs = {"dtype": dtype, "value": np.array(value, dtype=dtype.np)}
    w.node(name, "Const", [], attrs, out_shapes=[TensorShape([])])
    return name


def _deduplicated(w: GraphDefWriter, op: Operation, grad: Tensor, indices: Tensor):
    """(summed gradient rows, unique indices), as TF's optimizers deduplicate a sparse
    gradient (``_deduplicate_indexed_slices``: ``Unique``, ``UnsortedSegmentSum``)."""
    s, dev, i32, vec = op.name + "/dedup", op.device, _dt.int32, TensorShape([None])
    itype = indices.dtype.base_dtype
    unique = w.unique(s + "/Unique")
    w.node(
        unique,
        "Unique",
        [w.ref(indices)],
        {"T": itype, "out_idx": i32},
        control=[c.name for c in op.control_inputs],
        device=dev,
        out_shapes=[vec, indices.shape],
    )
    shape = _n(
        w, s + "/Shape", "Shape", [unique], {"T": itype, "out_type": i32}, TensorShape([1]), dev
    )
    ends = []
    for part, v in (("stack", 0), ("stack_1", 1), ("stack_2", 1)):
        ends.append(w.unique(s + "/strided_slice/" + part))
        w.node(
            ends[-1],
            "Const",
            [],
            {"dtype": i32, "value": np.array([v], np.int32)},
            out_shapes=[TensorShape([1])],
        )
    attrs = {"T": i32, "Index": i32, "shrink_axis_mask": 1}
    n = _n(w, s + "/strided_slice", "StridedSlice", [shape, *ends], attrs, TensorShape([]), dev)
    attrs = {"T": grad.dtype.base_dtype, "Tindices": i32, "Tnumsegments": i32}
    rows = TensorShape([None]).concatenate(grad.shape[1:])  # one per unique index
    summed = _n(
        w,
        s + "/UnsortedSegmentSum",
        "UnsortedSegmentSum",
        [w.ref(grad), unique + ":1", n],
        attrs,
        rows,
        dev,
    )
    return summed, unique


def _sparse_adam(w: GraphDefWriter, op: Operation) -> None:
    """``ResourceSparseApplyAdam`` as TF1's ``AdamOptimizer`` writes a sparse update
    (TF has no sparse Adam kernel): the rows deduplicated, ``m = m * beta1``, then
    ``ResourceScatterAdd(m, indices, grad * (1 - beta1))``; ``v`` likewise with
    ``grad * grad`` and ``beta2``; then ``var -= lr_t * m / (sqrt(v) + epsilon)`` with
    ``lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power)``, grouped by a ``NoOp``."""
    from .graph_export import _read_after_assign

    var, m, v, b1p, b2p, lr, beta1, beta2, eps, grad, indices = op.inputs
    s, dev, dtype = op.name, op.device, grad.dtype.base_dtype
    scalar, rows = TensorShape([]), TensorShape([None]).concatenate(grad.shape[1:])
    full = op.outputs[0].shape if op.outputs else TensorShape(None)  # the variable's
    control = [c.name for c in op.control_inputs]
    one = _scalar_const(w, s + "/sub/x", 1.0, dtype)
    t = {"T": dtype}
    sub = _n(w, s + "/sub", "Sub", [one, w.ref(b2p)], t, scalar, dev)
    sqrt = _n(w, s + "/Sqrt", "Sqrt", [sub], t, scalar, dev)
    mul = _n(w, s + "/mul", "Mul", [w.ref(lr), sqrt], t, scalar, dev)
    sub_1 = _n(w, s + "/sub_1", "Sub", [one, w.ref(b1p)], t, scalar, dev)
    lr_t = _n(w, s + "/truediv", "RealDiv", [mul, sub_1], t, scalar, dev)
    g, idx = _deduplicated(w, op, grad, indices)
    moments = []
    for slot, beta, scaled in ((m, beta1, [g]), (v, beta2, [g, g])):
        tag = "m" if slot is m else "v"
        value = scaled[0]
        if len(scaled) == 2:
            value = _n(w, s + "/%s/mul_g" % tag, "Mul", scaled, t, rows, dev)
        keep = _n(w, s + "/%s/sub" % tag, "Sub", [one, w.ref(beta)], t, scalar, dev)
        value = _n(w, s + "/%s/mul" % tag, "Mul", [value, keep], t, rows, dev)
        read = _n(
            w,
            s + "/%s/ReadVariableOp" % tag,
            "ReadVariableOp",
            [w.ref(slot)],
            {"dtype": dtype},
            full,
            dev,
            control,
        )
        decayed = _n(w, s + "/%s/mul_1" % tag, "Mul", [read, w.ref(beta)], t, full, dev)
        assign = _n(
            w,
            s + "/%s/AssignVariableOp" % tag,
            "AssignVariableOp",
            [w.ref(slot), decayed],
            {"dtype": dtype},
            None,
            dev,
        )
        scatter = _n(
            w,
            s + "/%s/ResourceScatterAdd" % tag,
            "ResourceScatterAdd",
            [w.ref(slot), idx, value],
            {"dtype": dtype, "Tindices": indices.dtype.base_dtype},
            None,
            dev,
            [assign],
        )
        moments.append(
            _n(
                w,
                s + "/%s/ReadVariableOp_1" % tag,
                "ReadVariableOp",
                [w.ref(slot)],
                {"dtype": dtype},
                full,
                dev,
                [scatter],
            )
        )
    m_t, v_t = moments
    v_sqrt = _n(w, s + "/Sqrt_1", "Sqrt", [v_t], t, full, dev)
    denom = _n(w, s + "/add", "AddV2", [v_sqrt, w.ref(eps)], t, full, dev)
    step = _n(w, s + "/mul_2", "Mul", [lr_t, m_t], t, full, dev)
    step = _n(w, s + "/truediv_1", "RealDiv", [step, denom], t, full, dev)
    update = _n(
        w,
        s + "/AssignSubVariableOp",
        "AssignSubVariableOp",
        [w.ref(var), step],
        {"dtype": dtype},
        None,
        dev,
    )
    w.node(s, "NoOp", [], {}, control=[update, m_t, v_t], device=dev)
    _read_after_assign(w, op)


def _prod_others(w: GraphDefWriter, op: Operation) -> None:
    """``ProdOthers`` (each element's product of the others along the reduced axes, in
    ``reduce_prod``'s gradient) as TF's ``_ProdGrad`` computes it: the reduced axes
    moved first and flattened to ``[reduced, other]``, exclusive ``Cumprod`` from both
    ends multiplied, and the transpose undone."""
    x, axis = op.inputs
    s, dev, control = op.name, op.device, [c.name for c in op.control_inputs]
    i32, vec, scalar = _dt.int32, TensorShape([None]), TensorShape([])
    out = op.outputs[0]
    lx = w.ref(x)
    shape = _n(
        w,
        s + "/Shape",
        "Shape",
        [lx],
        {"T": x.dtype.base_dtype, "out_type": i32},
        TensorShape([x.shape.ndims]),
        dev,
        control,
    )
    minus_one = w.unique(s + "/Reshape/shape")
    w.node(
        minus_one,
        "Const",
        [],
        {"dtype": i32, "value": np.array([-1], np.int32)},
        out_shapes=[TensorShape([1])],
    )
    axis_t = axis.dtype.base_dtype
    red = _n(
        w,
        s + "/Reshape",
        "Reshape",
        [w.ref(axis), minus_one],
        {"T": axis_t, "Tshape": i32},
        vec,
        dev,
    )
    if axis_t != i32:
        red = _n(w, s + "/Cast", "Cast", [red], {"SrcT": axis_t, "DstT": i32}, vec, dev)
    rank = _n(w, s + "/Rank", "Rank", [lx], {"T": x.dtype.base_dtype}, scalar, dev, control)
    red = _n(w, s + "/add", "AddV2", [red, rank], {"T": i32}, vec, dev)
    red = _n(w, s + "/mod", "FloorMod", [red, rank], {"T": i32}, vec, dev)
    start, delta = (
        _scalar_const(w, s + "/range/start", 0, _dt.int32),
        _scalar_const(w, s + "/range/delta", 1, _dt.int32),
    )
    idx = _n(w, s + "/range", "Range", [start, rank, delta], {"Tidx": i32}, vec, dev)
    other = w.unique(s + "/ListDiff")
    attrs = {"T": i32, "out_idx": i32}
    w.node(other, "ListDiff", [idx, red], attrs, device=dev, out_shapes=[vec, vec])
    zero = _scalar_const(w, s + "/concat/axis", 0, _dt.int32)
    perm = _n(
        w, s + "/concat", "ConcatV2", [red, other, zero], {"T": i32, "N": 2, "Tidx": i32}, vec, dev
    )
    nums = []
    for part, tag in ((red, "reduced"), (other, "other")):
        gathered = _n(
            w,
            s + "/GatherV2_" + tag,
            "GatherV2",
            [shape, part, zero],
            {"Tparams": i32, "Tindices": i32, "Taxis": i32},
            vec,
            dev,
        )
        nums.append(
            _n(
                w,
                s + "/Prod_" + tag,
                "Prod",
                [gathered, zero],
                {"T": i32, "Tidx": i32},
                scalar,
                dev,
            )
        )
    tx = {"T": x.dtype.base_dtype}
    permuted = _n(
        w, s + "/transpose", "Transpose", [lx, perm], {**tx, "Tperm": i32}, TensorShape(None), dev
    )
    pshape = _n(w, s + "/Shape_1", "Shape", [permuted], {**tx, "out_type": i32}, vec, dev)
    flat_shape = _n(
        w,
        s + "/Reshape_1/shape",
        "Pack",
        nums,
        {"T": i32, "N": 2, "axis": 0},
        TensorShape([2]),
        dev,
    )
    flat = _n(
        w,
        s + "/Reshape_1",
        "Reshape",
        [permuted, flat_shape],
        {**tx, "Tshape": i32},
        TensorShape([None, None]),
        dev,
    )
    sides = [
        _n(
            w,
            s + "/Cumprod" + tag,
            "Cumprod",
            [flat, zero],
            {**tx, "Tidx": i32, "exclusive": True, "reverse": rev},
            TensorShape([None, None]),
            dev,
        )
        for tag, rev in (("", False), ("_1", True))
    ]
    prod = _n(w, s + "/mul", "Mul", sides, tx, TensorShape([None, None]), dev)
    y = _n(
        w,
        s + "/Reshape_2",
        "Reshape",
        [prod, pshape],
        {**tx, "Tshape": i32},
        TensorShape(None),
        dev,
    )
    inv = _n(w, s + "/InvertPermutation", "InvertPermutation", [perm], {"T": i32}, vec, dev)
    w.node(s, "Transpose", [y, inv], {**tx, "Tperm": i32}, device=dev, out_shapes=[out.shape])


def _string_const(w: GraphDefWriter, name: str, values: list[str]) -> str:
    name = w.unique(name)
    arr = np.array([v.encode("utf-8") for v in values], dtype=object).reshape([len(values)])
    attrs = {"dtype": _dt.string, "value": arr}
    w.node(name, "Const", [], attrs, out_shapes=[TensorShape(arr.shape)])
    return name


def _parse_example(w: GraphDefWriter, op: Operation) -> None:
    """``ParseExampleV2`` as TF writes it: the keys as string constants after the
    serialized batch and names, no ragged features, and a ``FixedLenSequenceFeature``'s
    dense shape led by an unknown dim (flowrt marks it by its ``ragged`` flag)."""
    a, s = op.attrs, op.name
    serialized, names, *defaults = op.inputs
    keys = [
        _string_const(w, s + "/" + what, list(a.get(what, ())))
        for what in ("sparse_keys", "dense_keys", "ragged_keys")
    ]
    shapes = [
        TensorShape(([None] if seq else []) + list(shape))
        for shape, seq in zip(a["dense_shapes"], a["ragged"], strict=True)
    ]
    attrs = {
        "num_sparse": len(a["sparse_keys"]),
        "sparse_types": list(a["sparse_types"]),
        "Tdense": list(a["Tdense"]),
        "dense_shapes": shapes,
        "ragged_value_types": [],
        "ragged_split_types": [],
    }
    w.node(
        s,
        "ParseExampleV2",
        [w.ref(serialized), w.ref(names), *keys, *(w.ref(t) for t in defaults)],
        attrs,
        control=[c.name for c in op.control_inputs],
        device=op.device,
        out_shapes=[t.shape for t in op.outputs],
    )


REWRITES: dict[str, Callable[[GraphDefWriter, Operation], None]] = {
    "ResourceSparseApplyAdam": _sparse_adam,
    "ProdOthers": _prod_others,
    "ParseExampleV2": _parse_example,
}
