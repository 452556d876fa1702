"""Gradient specs for the elementwise math and reduction families."""

import numpy as np

import flowrt as fr
from tests.gradcheck import GradSpec

_r = np.random.default_rng(42)
A = _r.standard_normal((3, 4))
B = _r.standard_normal((3, 4))
POS = _r.uniform(0.5, 2.0, (3, 4))
COL = _r.standard_normal((3, 1))
ROW = _r.standard_normal((4,))
M34 = _r.standard_normal((3, 4))
M45 = _r.standard_normal((4, 5))
M43 = _r.standard_normal((4, 3))
M54 = _r.standard_normal((5, 4))
B234 = _r.standard_normal((2, 3, 4))
B145 = _r.standard_normal((1, 4, 5))
B243 = _r.standard_normal((2, 4, 3))


def _second(fwd):
    """``d(fwd(x))/dx`` contracted with ``g``: exercises the forward op's gradient op."""

    def fn(g, x):
        return fr.gradients(fwd(x), x, grad_ys=g)[0]

    return fn


SPECS = [
    GradSpec("Neg", lambda x: -x, [A]),
    GradSpec("Abs", fr.abs, [POS * np.sign(A)]),
    GradSpec("Sign", lambda x: fr.sign(x) * x, [A]),
    GradSpec("Square", fr.square, [A]),
    GradSpec("Sqrt", fr.sqrt, [POS]),
    GradSpec("Rsqrt", fr.rsqrt, [POS]),
    GradSpec("Reciprocal", fr.reciprocal, [POS]),
    GradSpec("Exp", fr.exp, [A]),
    GradSpec("Log", fr.log, [POS]),
    GradSpec("Log1p", fr.log1p, [POS]),
    GradSpec("Sin", fr.sin, [A]),
    GradSpec("Cos", fr.cos, [A]),
    GradSpec("Tanh", fr.tanh, [A]),
    GradSpec("Sigmoid", fr.sigmoid, [A]),
    # TF's fused gradient ops (cwise_grad_ops.py), checked as second-order gradients.
    GradSpec("SigmoidGrad", _second(fr.sigmoid), [B, A]),
    GradSpec("TanhGrad", _second(fr.tanh), [B, A]),
    GradSpec("SqrtGrad", _second(fr.sqrt), [B, POS]),
    GradSpec("RsqrtGrad", _second(fr.rsqrt), [B, POS]),
    GradSpec("ReciprocalGrad", _second(fr.reciprocal), [B, POS]),
    GradSpec("AddV2", lambda x, y: x + y, [A, COL], id="AddV2-broadcast"),
    GradSpec("Sub", lambda x, y: x - y, [A, ROW], id="Sub-broadcast"),
    GradSpec("Mul", lambda x, y: x * y, [A, B]),
    GradSpec("RealDiv", lambda x, y: x / y, [A, POS]),
    GradSpec("DivNoNan", fr.div_no_nan, [A, POS]),
    GradSpec("FloorMod", fr.mod, [POS * 3.0 + 0.1, POS], eps=1e-7),
    GradSpec("Pow", fr.pow, [POS, B]),
    GradSpec("Maximum", fr.maximum, [A, B]),
    GradSpec("Minimum", fr.minimum, [A, B]),
    GradSpec("SquaredDifference", fr.squared_difference, [A, COL]),
    GradSpec("Select", lambda x, y: fr.where(fr.constant(A > 0), x, y), [A, B]),
    GradSpec("AddN", lambda x, y: fr.add_n([x, y, x]), [A, B]),
    GradSpec(
        "Cast",
        lambda x: fr.cast(fr.cast(x, fr.float32), fr.float64) * x,
        [A],
        eps=1e-2,
        rtol=1e-4,
        atol=1e-5,
    ),
    GradSpec("Sum", lambda x: fr.reduce_sum(x, axis=1), [A]),
    GradSpec("Mean", lambda x: fr.reduce_mean(x, axis=0, keepdims=True), [A]),
    GradSpec("Max", lambda x: fr.reduce_max(x, axis=1), [A]),
    GradSpec("Min", lambda x: fr.reduce_min(x), [A]),
    GradSpec("Prod", lambda x: fr.reduce_prod(x, axis=0), [A]),
    GradSpec("BroadcastTo", lambda x: fr.broadcast_to(x, [3, 4]), [ROW]),
    GradSpec("MatMul", fr.matmul, [M34, M45]),
    GradSpec("MatMul", lambda a, b: fr.matmul(a, b, transpose_a=True), [M43, M45], id="MatMul-ta"),
    GradSpec("MatMul", lambda a, b: fr.matmul(a, b, transpose_b=True), [M34, M54], id="MatMul-tb"),
    GradSpec(
        "MatMul",
        lambda a, b: fr.matmul(a, b, transpose_a=True, transpose_b=True),
        [M43, M54],
        id="MatMul-tab",
    ),
    GradSpec("MatMul", lambda a, b: a @ b, [M34, M45], id="MatMul-operator"),
    GradSpec("BatchMatMulV2", fr.matmul, [B234, B145], id="BatchMatMulV2-broadcast"),
    GradSpec("BatchMatMulV2", fr.matmul, [B234, M45], id="BatchMatMulV2-rank2-rhs"),
    GradSpec(
        "BatchMatMulV2",
        lambda a, b: fr.matmul(a, b, adjoint_a=True, transpose_b=True),
        [B243, _r.standard_normal((2, 5, 4))],
        id="BatchMatMulV2-adj",
    ),
    GradSpec("Maximum", lambda t: fr.clip_by_value(t, -0.5, 0.5), [A], id="clip_by_value"),
    GradSpec("Identity", fr.identity, [A]),
    GradSpec("PlaceholderWithDefault", lambda x: fr.placeholder_with_default(x, [3, 4]) * 2.0, [A]),
    GradSpec("Reshape", lambda x: fr.reshape(x, [4, 3]) * fr.constant(B.reshape(4, 3)), [A]),
    GradSpec("Pack", lambda x, y: fr.stack([x, y], axis=1), [A, B]),
    GradSpec("Fill", lambda x: fr.fill([2, 3], x), [np.array(1.5)]),
    GradSpec(
        "UnsortedSegmentSum", lambda x: fr.unsorted_segment_sum(x, fr.constant([0, 2, 0]), 3), [A]
    ),
    # Complex numbers: real inputs and outputs around complex ops, so the finite-difference
    # check covers TF's conjugated gradients (math_grad.py) through each op.
    GradSpec("Complex", lambda x, y: fr.real(fr.complex(x, y) * fr.complex(y, x)), [A, B]),
    GradSpec("Complex", lambda x, y: fr.imag(fr.complex(x, y)), [A, ROW], id="Complex-broadcast"),
    GradSpec("Real", lambda x, y: fr.real(fr.complex(x, y) * fr.complex(x, y)), [A, B]),
    GradSpec("Imag", lambda x, y: fr.imag(fr.complex(x, y) * fr.complex(y, x)), [A, B]),
    GradSpec("Conj", lambda x, y: fr.imag(fr.conj(fr.complex(x, y)) * fr.complex(y, x)), [A, B]),
    GradSpec("ComplexAbs", lambda x, y: fr.abs(fr.complex(x, y)), [A, B]),
    GradSpec("DivNoNan", lambda x, y: fr.div_no_nan(x, y), [A, POS]),
    GradSpec(
        "Exp",
        lambda x, y: fr.real(fr.exp(fr.complex(x, y)) / fr.complex(POS, y)),
        [A, B],
        id="Exp-RealDiv-complex",
    ),
    GradSpec(
        "Tanh",
        lambda x, y: fr.imag(
            fr.tanh(fr.complex(x, y) * 0.3)
            + fr.sqrt(fr.complex(POS, y)) * fr.log(fr.complex(POS, x))
        ),
        [A, B],
        id="Tanh-Sqrt-Log-complex",
    ),
    GradSpec(
        "Square",
        lambda x, y: fr.real(
            fr.square(fr.complex(x, y)) * fr.sigmoid(fr.complex(y, x))
            + fr.sin(fr.complex(x, y))
            - fr.reciprocal(fr.complex(POS, y))
        ),
        [A, B],
        id="Square-Sigmoid-Sin-complex",
    ),
    GradSpec(
        "Mean",
        lambda x, y: fr.real(
            fr.reduce_mean(fr.complex(x, y) * fr.complex(x, x), axis=0)
            * fr.reduce_sum(fr.cos(fr.complex(y, x)))
        ),
        [A, B],
        id="Mean-Sum-Cos-complex",
    ),
    GradSpec(
        "Cast",
        lambda x: fr.cast(fr.cast(x, fr.complex128) * fr.complex(x, x), fr.float64),
        [A],
        id="Cast-complex",
    ),
]
