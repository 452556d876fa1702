"""The math family: TF1 semantics, dtypes, static shapes vs real outputs, errors, and
block forms (fusion) vs kernels."""

import inspect

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import flowrt as fr
from flowrt._core.registry import get_op_def, registered_ops


def run(fetches, feed=None):
    with fr.Session() as sess:
        return sess.run(fetches, feed)


# --------------------------------------------------------------------------------------
# Result dtypes and values (TF 2.21 compat.v1 recorded by hand)
# --------------------------------------------------------------------------------------


def test_integer_floordiv_and_mod_floor_toward_negative_infinity():
    i = fr.constant([7, -7, 7, -7, 0])
    j = fr.constant([2, 2, -2, -3, 5])
    q, m = run([fr.floordiv(i, j), fr.mod(i, j)])
    np.testing.assert_array_equal(q, [3, -4, -4, 2, 0])
    np.testing.assert_array_equal(m, [1, 1, -1, -1, 0])
    assert q.dtype == m.dtype == np.int32


def test_float_floordiv_is_floor_of_quotient_and_mod_keeps_fmod_sign():
    x = fr.constant([1.0, -1.0, 7.5, -4.0], fr.float64)
    y = fr.constant([0.1, 0.1, -2.0, 2.0], fr.float64)
    q, m = run([x // y, x % y])
    np.testing.assert_array_equal(q, [10.0, -10.0, -4.0, -2.0])  # numpy's // gives 9 for 1//0.1
    np.testing.assert_allclose(m, [0.1, 5.55111512e-17, -0.5, 0.0], atol=1e-15)
    assert np.signbit(m[3])  # TF: -4 mod 2 is -0.0


def test_integer_division_by_zero_is_invalid_argument_naming_the_op():
    a = fr.placeholder(fr.int32, [2])
    q = fr.floordiv(a, fr.constant([1, 0]), name="q")
    with pytest.raises(fr.errors.InvalidArgumentError, match="Integer division by zero") as ei:
        run(q, {a: [1, 2]})
    assert ei.value.op.name == "q"


@pytest.mark.parametrize(
    "dtype, out",
    [
        (fr.int8, np.float32),
        (fr.uint8, np.float32),
        (fr.int16, np.float32),
        (fr.int32, np.float64),
        (fr.int64, np.float64),
        (fr.float32, np.float32),
    ],
)
def test_truediv_casts_integers_like_tf(dtype, out):
    t = fr.truediv(fr.constant([1, 3], dtype), fr.constant([2, 2], dtype))
    assert t.dtype.np == out and t.op.name == "truediv"
    v = run(t)
    assert v.dtype == out
    np.testing.assert_allclose(v, [0.5, 1.5])


def test_divide_operator_and_names():
    x = fr.constant([1.0, 2.0])
    assert fr.divide(x, 2.0).op.name == "truediv"
    assert fr.divide(x, 2.0, name="dd").op.name == "dd"
    assert (x / x).op.type == "RealDiv"


def test_pow_int_and_float():
    a, b = run(
        [fr.pow(fr.constant([2, -3, 0]), fr.constant([3, 3, 0])), fr.constant([2.0, 4.0]) ** 0.5]
    )
    np.testing.assert_array_equal(a, [8, -27, 1])
    assert a.dtype == np.int32 and b.dtype == np.float32
    with pytest.raises(fr.errors.InvalidArgumentError, match="negative integer powers"):
        run(fr.pow(fr.constant([2]), fr.constant([-1])))


def test_comparisons_are_bool_and_broadcast():
    x = fr.constant([[1.0, 2.0, 3.0]])
    y = fr.constant([[2.0], [1.0]])
    outs = [x < y, x <= y, x > y, x >= y, fr.equal(x, y), fr.not_equal(x, y)]
    for t in outs:
        assert t.dtype is fr.bool and t.shape.as_list() == [2, 3]
    vals = run(outs)
    np.testing.assert_array_equal(vals[0], [[True, False, False], [False, False, False]])


def test_nan_semantics_of_maximum_minimum_and_argmax():
    n = np.nan
    mx, mn = run(
        [
            fr.maximum(fr.constant([n, 1.0]), fr.constant([1.0, n])),
            fr.minimum(fr.constant([n, 1.0]), fr.constant([1.0, n])),
        ]
    )
    assert np.isnan(mx).all() and np.isnan(mn).all()
    vals = run(
        [
            fr.argmax(fr.constant([n, 1.0, n])),
            fr.argmax(fr.constant([1.0, n, 3.0])),
            fr.argmax(fr.constant([n, n])),
            fr.argmin(fr.constant([1.0, n, 0.0])),
        ]
    )
    assert [int(v) for v in vals] == [1, 2, 0, 2]


def test_round_half_to_even_and_sign():
    r, s = run(
        [fr.round(fr.constant([0.5, 1.5, 2.5, -0.5])), fr.sign(fr.constant([-2.0, 0.0, 3.0]))]
    )
    np.testing.assert_array_equal(r, [0.0, 2.0, 2.0, -0.0])
    np.testing.assert_array_equal(s, [-1.0, 0.0, 1.0])


def test_sigmoid_is_stable_at_extremes():
    v = run(fr.sigmoid(fr.constant([-100.0, 100.0, 0.0])))
    assert v.dtype == np.float32
    np.testing.assert_allclose(v, [0.0, 1.0, 0.5], atol=1e-30)


def test_reductions_int_mean_truncates_and_empty_reductions():
    i = fr.constant([[-3, 4], [1, 1]], fr.int8)
    vals = run(
        {
            "m1": fr.reduce_mean(i, 1),
            "m": fr.reduce_mean(fr.constant([-3, -4, 0])),
            "wide": fr.reduce_mean(fr.constant([100, 100], fr.int8)),
            "wrap": fr.reduce_sum(fr.constant([100, 100], fr.int8)),
            "esum": fr.reduce_sum(fr.zeros([0])),
            "emax": fr.reduce_max(fr.zeros([0])),
            "emin": fr.reduce_min(fr.zeros([0])),
            "eprod": fr.reduce_prod(fr.zeros([0])),
            "emean": fr.reduce_mean(fr.zeros([0])),
            "eimax": fr.reduce_max(fr.zeros([0], fr.int32)),
        }
    )
    np.testing.assert_array_equal(vals["m1"], np.array([0, 1], np.int8))
    assert vals["m"] == -2 and vals["wide"] == 100 and vals["wrap"] == -56
    assert vals["esum"] == 0 and vals["emax"] == -np.inf and vals["emin"] == np.inf
    assert vals["eprod"] == 1 and np.isnan(vals["emean"])
    assert vals["eimax"] == np.iinfo(np.int32).min and vals["eimax"].dtype == np.int32


def test_where_select_with_vector_condition_picks_rows():
    c = fr.constant([True, False])
    x = fr.constant([[1, 2], [3, 4]])
    y = fr.constant([[9, 9], [8, 8]])
    np.testing.assert_array_equal(run(fr.where(c, x, y)), [[1, 2], [8, 8]])
    coords = run(fr.where(fr.constant([[True, False], [False, True]])))
    assert coords.dtype == np.int64
    np.testing.assert_array_equal(coords, [[0, 0], [1, 1]])


def test_add_n_and_clip_by_value():
    a = fr.constant([7.0, -7.0, 0.5])
    vals = run(
        [
            fr.add_n([a, a, a]),
            fr.clip_by_value(a, -3.0, 3.0),
            fr.clip_by_value(fr.constant([-1, 9, 3]), 0, 5),
        ]
    )
    np.testing.assert_array_equal(vals[0], [21.0, -21.0, 1.5])
    np.testing.assert_array_equal(vals[1], [3.0, -3.0, 0.5])
    np.testing.assert_array_equal(vals[2], [0, 5, 3])
    assert vals[2].dtype == np.int32


# --------------------------------------------------------------------------------------
# MatMul and ArgMax
# --------------------------------------------------------------------------------------


def test_matmul_types_names_and_values():
    a = fr.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
    b = fr.constant(np.arange(12, dtype=np.float32).reshape(3, 4))
    m = fr.matmul(a, b)
    assert (m.op.type, m.op.name) == ("MatMul", "MatMul")
    assert (a @ b).op.name == "matmul_1"  # names are unique case-insensitively, as in TF
    assert m.op.get_attr("transpose_a") is False
    bm = fr.matmul(fr.zeros([5, 2, 3]), b)
    assert bm.op.type == "BatchMatMulV2" and bm.op.name == "MatMul_2"
    assert bm.shape.as_list() == [5, 2, 4]
    im = fr.matmul(fr.constant([[1, 2]], fr.int64), fr.constant([[3], [4]], fr.int64))
    mv, iv = run([m, im])
    np.testing.assert_array_equal(mv, np.arange(6).reshape(2, 3) @ np.arange(12).reshape(3, 4))
    assert iv.dtype == np.int64 and iv.tolist() == [[11]]


def test_matmul_static_shapes_with_none():
    p = fr.placeholder(fr.float32, [None, 3])
    assert fr.matmul(p, fr.zeros([3, 4])).shape.as_list() == [None, 4]
    assert fr.matmul(p, p, transpose_a=True).shape.as_list() == [3, 3]
    u = fr.placeholder(fr.float32)
    r = fr.matmul(u, fr.zeros([3, 4]))
    assert r.op.type == "BatchMatMulV2" and r.shape.ndims is None
    b = fr.matmul(
        fr.placeholder(fr.float32, [None, 1, 2, 3]), fr.placeholder(fr.float32, [4, 3, None])
    )
    assert b.shape.as_list() == [None, 4, 2, None]


def test_matmul_construction_errors_name_the_op_and_the_fix():
    a = fr.zeros([2, 3])
    with pytest.raises(
        ValueError,
        match=r"MatMul op 'MatMul'.*Dimensions must be equal, but "
        r"are 3 and 2.*\[2, 3\].*transpose_a",
    ):
        fr.matmul(a, a)
    with pytest.raises(ValueError, match="Shape must be rank 2 but is rank 1"):
        fr.matmul(a, fr.zeros([3]))
    with pytest.raises(
        TypeError,
        match="Input 'b' of 'MatMul' Op has type float64 that does not match type float32",
    ):
        fr.matmul(a, fr.zeros([3, 2], fr.float64))
    with pytest.raises(TypeError, match="DataType bool not in list of allowed values"):
        fr.matmul(fr.constant([[True]]), fr.constant([[True]]))
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 4 and 3"):
        fr.matmul(fr.zeros([2, 3, 4]), fr.zeros([2, 3, 4]))


def test_argmax_argmin_dtypes_axes_and_names():
    x = fr.constant([[1.0, 5.0, 2.0], [7.0, 0.0, 7.0]])
    r = fr.argmax(x)
    assert (r.op.name, r.dtype, r.shape.as_list()) == ("ArgMax", fr.int64, [3])
    assert r.op.inputs[1].op.name == "ArgMax/dimension"
    r32 = fr.argmin(x, 1, output_type=fr.int32)
    assert r32.dtype is fr.int32 and r32.shape.as_list() == [2]
    assert fr.argmax(x, dimension=1).shape.as_list() == [2]
    vals = run([r, r32, fr.argmax(x, -1), fr.argmax(fr.zeros([0, 3]), 1)])
    assert vals[0].dtype == np.int64 and vals[0].tolist() == [1, 0, 1]
    assert vals[1].dtype == np.int32 and vals[1].tolist() == [0, 1]
    assert vals[2].tolist() == [1, 0] and vals[3].shape == (0,)
    with pytest.raises(ValueError, match="Cannot specify both 'dimension' and 'axis'"):
        fr.argmax(x, 1, dimension=1)
    with pytest.raises(
        ValueError,
        match=r"ArgMax op .*Dimension \(2\) must be in the range "
        r"\[-2, 2\)",
    ):
        fr.argmax(x, 2)
    with pytest.raises(fr.errors.InvalidArgumentError, match="Reduction axis 0 is empty"):
        run(fr.argmax(fr.zeros([0, 2]), 0))
    assert fr.gradients(fr.cast(fr.argmax(x), fr.float32), x) == [None]


def test_reduction_names_like_tf():
    x = fr.constant([[1.0, 2.0]])
    assert fr.reduce_sum(x, 1).op.inputs[1].op.name == "Sum/reduction_indices"
    m = fr.reduce_mean(x, name="m")
    assert m.op.name == "m" and m.op.inputs[1].op.name == "Const_1"
    with pytest.raises(ValueError, match="Can not specify both 'axis' and 'reduction_indices'"):
        fr.reduce_sum(x, 0, reduction_indices=0)


def test_tf_names_for_python_operands():
    x = fr.constant([1.0])
    assert fr.add(x, 2.0).op.inputs[1].op.name == "Add/y"
    assert (x + 1.0).op.inputs[1].op.name == "add_1/y"
    assert (1.0 + x).op.inputs[0].op.name == "add_2/x"
    c = fr.clip_by_value(x, 0.0, 1.0)
    assert (c.op.name, c.op.type) == ("clip_by_value", "Maximum")
    assert c.op.inputs[0].op.name == "clip_by_value/Minimum"
    assert c.op.inputs[1].op.name == "clip_by_value/y"
    with pytest.raises(TypeError, match="Expected int32 passed to parameter 'y' of op 'Minimum'"):
        fr.clip_by_value(fr.constant([1, 5]), 2.0, 3.0)
    with pytest.raises(ValueError, match="incompatible"):
        fr.clip_by_value(fr.constant([1.0, 2.0]), [[0.0, 0.0]], 1.0)


# --------------------------------------------------------------------------------------
# Static shapes agree with the kernels' real outputs (non-square shapes)
# --------------------------------------------------------------------------------------

_R = np.random.default_rng(0)
SHAPE_CASES = [
    ("matmul", lambda: fr.matmul(fr.constant(_R.random((2, 3))), fr.constant(_R.random((3, 5))))),
    (
        "matmul_ta",
        lambda: fr.matmul(
            fr.constant(_R.random((3, 2))), fr.constant(_R.random((3, 5))), transpose_a=True
        ),
    ),
    (
        "matmul_tb",
        lambda: fr.matmul(
            fr.constant(_R.random((2, 3))), fr.constant(_R.random((5, 3))), transpose_b=True
        ),
    ),
    (
        "batch_bcast",
        lambda: fr.matmul(fr.constant(_R.random((4, 1, 2, 3))), fr.constant(_R.random((5, 3, 7)))),
    ),
    (
        "batch_adj",
        lambda: fr.matmul(
            fr.constant(_R.random((4, 3, 2))),
            fr.constant(_R.random((4, 7, 3))),
            transpose_a=True,
            transpose_b=True,
        ),
    ),
    ("argmax0", lambda: fr.argmax(fr.constant(_R.random((2, 3, 4))), 0)),
    ("argmin_neg", lambda: fr.argmin(fr.constant(_R.random((2, 3, 4))), -1)),
    ("broadcast_add", lambda: fr.constant(_R.random((3, 1, 5))) + fr.constant(_R.random((4, 1)))),
    ("sum_keep", lambda: fr.reduce_sum(fr.constant(_R.random((2, 3, 4))), [0, 2], keepdims=True)),
    ("mean_1", lambda: fr.reduce_mean(fr.constant(_R.random((2, 3, 4))), 1)),
    ("clip", lambda: fr.clip_by_value(fr.constant(_R.random((2, 3))), 0.2, [0.5, 0.6, 0.7])),
    (
        "where",
        lambda: fr.where(
            fr.constant(_R.random((2, 3)) > 0.5),
            fr.constant(_R.random((2, 3))),
            fr.constant(_R.random((2, 3))),
        ),
    ),
    ("pow_bcast", lambda: fr.pow(fr.constant(_R.random((2, 1))), fr.constant(_R.random((1, 3))))),
]


@pytest.mark.parametrize("build", [c[1] for c in SHAPE_CASES], ids=[c[0] for c in SHAPE_CASES])
def test_static_shape_matches_kernel_output(build):
    t = build()
    assert t.shape.is_fully_defined()
    v = run(t)
    assert list(np.shape(v)) == t.shape.as_list()
    assert np.asarray(v).dtype == t.dtype.np


def test_operators_cover_the_python_surface():
    x = fr.constant([[2.0, 3.0]])
    y = fr.constant([[1.0], [2.0]])
    exprs = [x + y, x - y, x * y, x / y, x // y, x % y, x**y, -x, abs(-x), x @ y]
    vals = run(exprs)
    xv, yv = np.array([[2.0, 3.0]]), np.array([[1.0], [2.0]])
    ref = [xv + yv, xv - yv, xv * yv, xv / yv, xv // yv, xv % yv, xv**yv, -xv, xv, xv @ yv]
    for t, v, r in zip(exprs, vals, ref, strict=True):
        assert t.shape.as_list() == list(r.shape)
        np.testing.assert_allclose(v, r, rtol=1e-6)


# --------------------------------------------------------------------------------------
# block form (OpDef.ufunc, used by fusion) == kernel (values and dtype)
# --------------------------------------------------------------------------------------

BLOCK_OPS = sorted(
    t for t, d in registered_ops().items() if d.ufunc is not None and d.kernel is not None
)


def _nargs(op_type):
    return len(inspect.signature(get_op_def(op_type).kernel).parameters) - 2


shapes = st.lists(st.integers(1, 4), min_size=0, max_size=3)


def test_block_forms_cover_the_elementwise_families():
    assert {
        "Neg",
        "Exp",
        "Tanh",
        "Sigmoid",
        "Rsqrt",
        "AddV2",
        "Mul",
        "RealDiv",
        "Maximum",
        "SquaredDifference",
        "Relu",
        "ReluGrad",
    } <= set(BLOCK_OPS)


@settings(max_examples=80, deadline=None)
@given(
    op_type=st.sampled_from(BLOCK_OPS),
    shape=shapes,
    drop=st.integers(0, 3),
    ones=st.lists(st.booleans(), min_size=3, max_size=3),
    dtype=st.sampled_from([np.float32, np.float64]),
    seed=st.integers(0, 2**16),
    alias=st.booleans(),
)
def test_block_form_and_kernel_agree(op_type, shape, drop, ones, dtype, seed, alias):
    d = get_op_def(op_type)
    rng = np.random.default_rng(seed)
    # A second operand broadcasting against the first: fewer dims and/or size-1 dims.
    shape2 = [1 if o else s for s, o in zip(shape, ones, strict=False)][min(drop, len(shape)) :]
    xs = [np.asarray(rng.standard_normal(shape) * 3, dtype)]
    if _nargs(op_type) == 2:
        xs.append(np.asarray(rng.standard_normal(shape2) * 3, dtype))
    if rng.random() < 0.2:
        xs[0].reshape(-1)[0] = np.nan
    with np.errstate(all="ignore"):
        (ref,) = d.kernel(None, None, *[x.copy() for x in xs])
        ref = np.asarray(ref)
        # The block form writes into a buffer, which may be its own first operand.
        out = xs[0] if alias and xs[0].shape == ref.shape else np.empty(ref.shape, dtype)
        d.ufunc(*xs, out=out)
    assert out.dtype == ref.dtype, (op_type, out.dtype, ref.dtype)
    rtol = 2e-6 if dtype == np.float32 else 1e-13
    np.testing.assert_allclose(out, ref, rtol=rtol, atol=1e-30, equal_nan=True, err_msg=op_type)


def test_div_has_python2_semantics_and_constant_pads_short_lists():
    with fr.Session() as sess:
        assert sess.run(fr.div(fr.constant([7, -7]), 2)).tolist() == [3, -4]
        assert sess.run(fr.div(fr.constant([7.0, -7.0]), 2.0)).tolist() == [3.5, -3.5]
        assert sess.run(fr.constant([1, 2, 3], shape=[2, 2])).tolist() == [[1, 2], [3, 3]]


def test_reduce_sum_axis_forms_fed_at_run_time():
    # The axes arrive as values (fed or computed): scalars, 1-d lists, negative and
    # repeated entries are normalized as TF does.
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    ax = fr.placeholder(fr.int32)
    xt = fr.constant(x)
    s, k = fr.reduce_sum(xt, ax), fr.reduce_sum(xt, ax, keepdims=True)
    for axis, ref in [
        (np.int32(1), (1,)),
        (-1, (2,)),
        ([0], (0,)),
        ([2, -3], (0, 2)),
        ([1, 1], (1,)),
        ([], ()),
    ]:
        got, kept = run([s, k], {ax: axis})
        np.testing.assert_array_equal(got, x.sum(axis=ref))
        np.testing.assert_array_equal(kept, x.sum(axis=ref, keepdims=True))
        assert got.dtype == np.float32
    np.testing.assert_array_equal(run(fr.reduce_sum(fr.constant(3.5), ax), {ax: []}), 3.5)


def test_broadcast_to_at_run_time_copies_and_checks_like_tf():
    x = fr.placeholder(fr.float32)
    s = fr.placeholder(fr.int32)
    y = fr.broadcast_to(x, s)
    with fr.Session() as sess:
        out = sess.run(y, {x: 2.0, s: [3]})
        np.testing.assert_array_equal(out, [2.0, 2.0, 2.0])
        assert out.dtype == np.float32
        col = np.array([[1.0], [2.0]], np.float32)
        out = sess.run(y, {x: col, s: [2, 3]})
        np.testing.assert_array_equal(out, [[1, 1, 1], [2, 2, 2]])
        assert not np.shares_memory(out, col)
        # numpy's assignment would drop the leading 1; TF refuses a rank above the shape's
        with pytest.raises(fr.errors.InvalidArgumentError, match="Rank of input \\(2\\)"):
            sess.run(y, {x: [[1.0, 2.0]], s: [2]})
        with pytest.raises(fr.errors.InvalidArgumentError, match="BroadcastTo"):
            sess.run(y, {x: [1.0, 2.0], s: [3]})


EDGES = [-1e30, -104.0, -100.0, -88.5, -20.0, -1.5, -1e-30, 0.0, 1e-30, 0.5, 20.0, 100.0, 1e30]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op_type", BLOCK_OPS)
def test_block_form_and_kernel_agree_at_the_extremes(op_type, dtype):
    # Fusion runs the block form on large arrays and the kernel on small ones: they must
    # agree where results underflow or overflow too (atol 0 tells 0 from a denormal).
    d = get_op_def(op_type)
    x = np.array(EDGES, dtype)
    xs = [x] if _nargs(op_type) == 1 else [np.repeat(x, len(x)), np.tile(x, len(x))]
    with np.errstate(all="ignore"):
        (ref,) = d.kernel(None, None, *[v.copy() for v in xs])
        out = d.ufunc(*xs, out=np.empty(np.shape(ref), dtype))
    rtol = 2e-6 if dtype == np.float32 else 1e-13
    np.testing.assert_allclose(out, ref, rtol=rtol, atol=0, equal_nan=True, err_msg=op_type)
