"""Matrix multiplication: ``MatMul`` for two matrices, ``BatchMatMulV2`` (broadcast
batch dims) otherwise, with their gradients and the ``@`` operator."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes as _dt
from .._core.graph import OPERATORS, Tensor, convert_to_tensor
from .._core.registry import register_op
from .._core.shape import TensorShape, broadcast_shapes, unknown_shape
from .common import check_dtype, is_tensor_like, make, op_scope, shape_str
from .math_ops import sum_to

if TYPE_CHECKING:
    from .._core.typing import DTypeLike, TensorLike

__all__ = ["matmul"]

# --------------------------------------------------------------------------------------
# Matrix multiply: MatMul for two matrices, BatchMatMulV2 (broadcast batch dims) else
# --------------------------------------------------------------------------------------

_MATMUL_TYPES = (
    _dt.float16,
    _dt.float32,
    _dt.float64,
    _dt.int32,
    _dt.int64,
    _dt.uint8,
    _dt.uint16,
    _dt.uint32,
    _dt.uint64,
)


def _matmul_check(op, ta, tb):
    a, b = op.inputs
    check_dtype(a, _MATMUL_TYPES, "a")
    if a.dtype is not b.dtype:
        raise TypeError(
            "Input 'b' of '%s' Op has type %s that does not match type %s of "
            "argument 'a'." % (op.type, b.dtype.name, a.dtype.name)
        )
    sa, sb = a.shape, b.shape
    if sa.ndims is None or sb.ndims is None:
        return None
    m, ka = (sa[-1], sa[-2]) if ta else (sa[-2], sa[-1])
    kb, n = (sb[-1], sb[-2]) if tb else (sb[-2], sb[-1])
    if ka is not None and kb is not None and ka != kb:
        raise ValueError(
            "Dimensions must be equal, but are %d and %d: the inner dimensions "
            "of a %s and b %s (transpose_a=%s, transpose_b=%s) must agree; "
            "fix the shapes or set transpose_a/transpose_b."
            % (ka, kb, shape_str(sa), shape_str(sb), ta, tb)
        )
    return m, n


def _matmul_infer(op):
    a, b = op.inputs
    for t in (a, b):
        if t.shape.ndims is not None and t.shape.ndims != 2:
            raise ValueError(
                "Shape must be rank 2 but is rank %d (input shapes: %s, %s); "
                "MatMul multiplies matrices, use fr.reshape or fr.expand_dims."
                % (t.shape.ndims, shape_str(a.shape), shape_str(b.shape))
            )
    mn = _matmul_check(op, op.attrs["transpose_a"], op.attrs["transpose_b"])
    return [(a.dtype, TensorShape(list(mn) if mn else [None, None]))]


def _batch_matmul_infer(op):
    a, b = op.inputs
    for t in (a, b):
        if t.shape.ndims is not None and t.shape.ndims < 2:
            raise ValueError(
                "Shape must be at least rank 2 but is rank %d (input shapes: "
                "%s, %s)." % (t.shape.ndims, shape_str(a.shape), shape_str(b.shape))
            )
    mn = _matmul_check(op, op.attrs["adj_x"], op.attrs["adj_y"])
    if mn is None:
        return [(a.dtype, unknown_shape())]
    batch = broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return [(a.dtype, batch.concatenate(list(mn)))]


def _t(x, flag):
    return np.swapaxes(x, -1, -2) if flag else x


def _matmul_kernel(ctx, op, a, b):
    return (np.matmul(_t(a, op.attrs["transpose_a"]), _t(b, op.attrs["transpose_b"])),)


def _batch_matmul_kernel(ctx, op, a, b):
    return (np.matmul(_t(a, op.attrs["adj_x"]), _t(b, op.attrs["adj_y"])),)


def _matmul_grad_pair(g, a, b, ta, tb, mm):
    """TF's rule: the two input gradients as products, without explicit transposes."""
    if not ta and not tb:
        return mm(g, b, False, True), mm(a, g, True, False)
    if not ta and tb:
        return mm(g, b, False, False), mm(g, a, True, False)
    if ta and not tb:
        return mm(b, g, False, True), mm(a, g, False, False)
    return mm(b, g, True, True), mm(g, a, True, True)


def _matmul_grad(op, g):
    a, b = op.inputs
    return list(
        _matmul_grad_pair(
            g,
            a,
            b,
            op.attrs["transpose_a"],
            op.attrs["transpose_b"],
            lambda x, y, tx, ty: make("MatMul", [x, y], {"transpose_a": tx, "transpose_b": ty}),
        )
    )


def _batch_matmul_grad(op, g):
    a, b = op.inputs
    ga, gb = _matmul_grad_pair(
        g,
        a,
        b,
        op.attrs["adj_x"],
        op.attrs["adj_y"],
        lambda x, y, tx, ty: make("BatchMatMulV2", [x, y], {"adj_x": tx, "adj_y": ty}),
    )
    # Sum over the batch dims each input was broadcast along (its matrix dims match).
    return [sum_to(ga, a, ga, ga.shape), sum_to(gb, b, gb, gb.shape)]


register_op("MatMul", infer=_matmul_infer, kernel=_matmul_kernel, grad=_matmul_grad)
register_op(
    "BatchMatMulV2",
    infer=_batch_matmul_infer,
    kernel=_batch_matmul_kernel,
    grad=_batch_matmul_grad,
    default_name="MatMul",
)


def matmul(
    a: TensorLike,
    b: TensorLike,
    transpose_a: bool = False,
    transpose_b: bool = False,
    adjoint_a: bool = False,
    adjoint_b: bool = False,
    a_is_sparse: bool = False,
    b_is_sparse: bool = False,
    output_type: DTypeLike | None = None,
    grad_a: bool = False,
    grad_b: bool = False,
    name: str | None = None,
) -> Tensor:
    """Matrix product ``a @ b`` (after optional transposes).

    Two matrices give a ``MatMul`` op; a rank above 2 (or unknown) on either side gives
    ``BatchMatMulV2``, whose leading (batch) dimensions broadcast, as in TF.

    Note (flowrt): ``adjoint_*`` equal ``transpose_*`` (no complex dtypes); the sparsity
    hints and ``grad_*`` are accepted and ignored; ``output_type`` must be None or the
    inputs' dtype.
    """
    if transpose_a and adjoint_a:
        raise ValueError("Only one of transpose_a and adjoint_a can be True.")
    if transpose_b and adjoint_b:
        raise ValueError("Only one of transpose_b and adjoint_b can be True.")
    ta, tb = bool(transpose_a or adjoint_a), bool(transpose_b or adjoint_b)

    def build():
        x = convert_to_tensor(a, name="a")
        y = convert_to_tensor(b, dtype=x.dtype if not is_tensor_like(b) else None, name="b")
        if output_type is not None and _dt.as_dtype(output_type) is not x.dtype:
            raise TypeError(
                "matmul: output_type %s differs from the inputs' dtype %s; "
                "flowrt only supports output_type=None."
                % (_dt.as_dtype(output_type).name, x.dtype.name)
            )
        return [x, y]

    with op_scope((a, b), name, "MatMul") as scope:
        inputs = build()
    ra, rb = inputs[0].shape.ndims, inputs[1].shape.ndims
    batched = ra is None or rb is None or ra > 2 or rb > 2
    op_type = "BatchMatMulV2" if batched else "MatMul"
    attrs = {"adj_x": ta, "adj_y": tb} if batched else {"transpose_a": ta, "transpose_b": tb}
    return make(op_type, inputs, attrs, scope)


OPERATORS["matmul"] = lambda x, y: matmul(x, y, name="matmul")
