"""conv2d, max_pool, avg_pool, top_k, in_top_k: values against direct loops, shape
inference against the kernels, TF's tie rules, and errors naming the op."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import flowrt as fr
from flowrt.ops.conv_ops import window_geometry


def _run(*fetches, feed=None):
    with fr.Session() as s:
        return s.run(list(fetches), feed)


def _naive_conv(x, f, strides, padding, dil=(1, 1)):
    n, h, w, c = x.shape
    kh, kw, _, o = f.shape
    oh, pt, _ = window_geometry(h, kh, strides[0], dil[0], padding)
    ow, pl, _ = window_geometry(w, kw, strides[1], dil[1], padding)
    out = np.zeros((n, oh, ow, o))
    for a, b, i, j in itertools.product(range(oh), range(ow), range(kh), range(kw)):
        r, q = a * strides[0] + i * dil[0] - pt, b * strides[1] + j * dil[1] - pl
        if 0 <= r < h and 0 <= q < w:
            out[:, a, b, :] += x[:, r, q, :] @ f[i, j]
    return out


def _naive_pool(x, k, s, padding, kind):
    n, h, w, c = x.shape
    oh, pt, _ = window_geometry(h, k[0], s[0], 1, padding)
    ow, pl, _ = window_geometry(w, k[1], s[1], 1, padding)
    out = np.zeros((n, oh, ow, c))
    for a, b in itertools.product(range(oh), range(ow)):
        r0, c0 = a * s[0] - pt, b * s[1] - pl
        win = x[:, max(r0, 0) : r0 + k[0], max(c0, 0) : c0 + k[1], :]
        out[:, a, b] = win.max(axis=(1, 2)) if kind == "max" else win.mean(axis=(1, 2))
    return out


_r = np.random.default_rng(5)
X = _r.standard_normal((2, 7, 9, 3))
F = _r.standard_normal((3, 2, 3, 4))


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("strides", [(1, 1), (2, 2), (2, 3)])
@pytest.mark.parametrize("dil", [(1, 1), (2, 1)])
def test_conv2d_matches_direct_loops_and_static_shape(padding, strides, dil):
    y = fr.nn.conv2d(
        fr.constant(X),
        fr.constant(F),
        strides=[1, *strides, 1],
        padding=padding,
        dilations=[1, *dil, 1],
    )
    (v,) = _run(y)
    ref = _naive_conv(X, F, strides, padding, dil)
    assert y.shape.as_list() == list(ref.shape) == list(v.shape)
    np.testing.assert_allclose(v, ref, rtol=1e-10, atol=1e-10)


@settings(max_examples=25, deadline=None)
@given(
    st.integers(1, 7),
    st.integers(1, 7),
    st.integers(1, 3),
    st.integers(1, 3),
    st.integers(1, 3),
    st.integers(1, 3),
    st.sampled_from(["SAME", "VALID"]),
    st.integers(0, 2**31 - 1),
)
def test_conv2d_and_pools_on_random_geometries(h, w, kh, kw, sh, sw, padding, seed):
    """Static shapes equal the kernels' outputs, values equal the direct loops, and a VALID
    window larger than the input is a construction error."""
    r = np.random.default_rng(seed)
    x = r.standard_normal((1, h, w, 2))
    f = r.standard_normal((kh, kw, 2, 3))
    with fr.Graph().as_default():
        if padding == "VALID" and (kh > h or kw > w):
            with pytest.raises(ValueError, match=r"Negative dimension size caused by"):
                fr.nn.conv2d(fr.constant(x), fr.constant(f), [1, sh, sw, 1], padding)
            return
        y = fr.nn.conv2d(fr.constant(x), fr.constant(f), [1, sh, sw, 1], padding)
        mp = fr.nn.max_pool(fr.constant(x), [1, kh, kw, 1], [1, sh, sw, 1], padding)
        ap = fr.nn.avg_pool(fr.constant(x), [1, kh, kw, 1], [1, sh, sw, 1], padding)
        vy, vm, va = _run(y, mp, ap)
    for t, v in ((y, vy), (mp, vm), (ap, va)):
        assert t.shape.as_list() == list(v.shape)
    np.testing.assert_allclose(vy, _naive_conv(x, f, (sh, sw), padding), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(vm, _naive_pool(x, (kh, kw), (sh, sw), padding, "max"))
    np.testing.assert_allclose(va, _naive_pool(x, (kh, kw), (sh, sw), padding, "avg"))


def test_conv2d_explicit_padding_and_unknown_batch():
    x = fr.placeholder(fr.float64, [None, 7, 9, 3])
    y = fr.nn.conv2d(x, fr.constant(F), strides=1, padding=[[0, 0], [1, 2], [0, 1], [0, 0]])
    assert y.shape.as_list() == [None, 8, 9, 4]
    (v,) = _run(y, feed={x: X})
    xp = np.pad(X, ((0, 0), (1, 2), (0, 1), (0, 0)))
    np.testing.assert_allclose(v, _naive_conv(xp, F, (1, 1), "VALID"), rtol=1e-10)


def test_conv2d_float32_and_float16_keep_their_dtype():
    for dt in (fr.float32, fr.float16):
        y = fr.nn.conv2d(fr.constant(X, dt), fr.constant(F, dt), 1, "SAME")
        (v,) = _run(y)
        assert y.dtype is dt and v.dtype == dt.np
        np.testing.assert_allclose(
            v, _naive_conv(X.astype(dt.np), F.astype(dt.np), (1, 1), "SAME"), rtol=2e-2, atol=2e-2
        )


def test_conv2d_gradient_ops_are_tfs_types():
    x, f = fr.constant(X), fr.constant(F)
    y = fr.nn.conv2d(x, f, 1, "SAME")
    gx, gf = fr.gradients(y, [x, f])
    assert gx.op.type == "Conv2DBackpropInput" and gf.op.type == "Conv2DBackpropFilter"
    assert gx.shape.as_list() == list(X.shape) and gf.shape.as_list() == list(F.shape)


def test_conv2d_transpose_is_the_input_gradient():
    g = _r.standard_normal((2, 4, 5, 4))
    y = fr.nn.conv2d_transpose(fr.constant(g), fr.constant(F), [2, 7, 9, 3], [1, 2, 2, 1], "SAME")
    x = fr.constant(X)
    ref = fr.gradients(fr.nn.conv2d(x, fr.constant(F), 2, "SAME"), x, grad_ys=fr.constant(g))
    assert y.op.type == "Conv2DBackpropInput" and y.op.name == "conv2d_transpose"
    a, b = _run(y, ref[0])
    assert y.shape.as_list() == [2, 7, 9, 3]
    np.testing.assert_allclose(a, b)


def test_conv2d_construction_errors_name_the_op():
    x = fr.constant(X)
    with pytest.raises(
        ValueError,
        match=r"Conv2D op 'c1'.*Depth of input \(3\) is not a "
        r"multiple of input depth of filter \(2\)",
    ):
        fr.nn.conv2d(x, fr.constant(np.ones((3, 3, 2, 4))), 1, "SAME", name="c1")
    with pytest.raises(
        ValueError,
        match=r"Negative dimension size caused by subtracting 9 "
        r"from 7",
    ):
        fr.nn.conv2d(x, fr.constant(np.ones((9, 3, 3, 4))), 1, "VALID")
    with pytest.raises(ValueError, match=r"grouped convolutions are not supported"):
        fr.nn.conv2d(fr.constant(np.ones((1, 4, 4, 6))), fr.constant(F), 1, "SAME")
    with pytest.raises(
        ValueError,
        match=r"Attr 'padding' of 'Conv2D' Op passed string "
        r"'same' not in: \"SAME\", \"VALID\", \"EXPLICIT\"",
    ):
        fr.nn.conv2d(x, fr.constant(F), 1, "same")
    with pytest.raises(
        ValueError,
        match=r"Attr 'padding' of 'AvgPool' Op passed string "
        r"'valid' not in: \"SAME\", \"VALID\"\.",
    ):
        fr.nn.avg_pool(x, 2, 2, "valid")
    with pytest.raises(ValueError, match=r"strides in the batch and depth"):
        fr.nn.conv2d(x, fr.constant(F), [2, 1, 1, 1], "SAME")
    with pytest.raises(ValueError, match=r"NHWC"):
        fr.nn.conv2d(x, fr.constant(F), 1, "SAME", data_format="NCHW")
    with pytest.raises(TypeError, match=r"Input 'filter' of 'Conv2D' Op has type float32"):
        fr.nn.conv2d(x, fr.constant(F, fr.float32), 1, "SAME")


def test_conv2d_run_time_depth_mismatch_is_invalid_argument():
    x = fr.placeholder(fr.float64, [None, None, None, None])
    y = fr.nn.conv2d(x, fr.constant(F), 1, "SAME", name="late")
    with pytest.raises(
        fr.errors.InvalidArgumentError,
        match=r"Conv2D op 'late'.*Depth of input \(2\) is not a multiple of "
        r"input depth of filter \(3\)",
    ) as e:
        _run(y, feed={x: np.ones((1, 4, 4, 2))})
    assert e.value.op is y.op


@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("k,s", [((3, 3), (2, 2)), ((2, 3), (1, 2)), ((3, 2), (3, 1))])
def test_pools_match_direct_loops(kind, padding, k, s):
    fn = fr.nn.max_pool if kind == "max" else fr.nn.avg_pool
    y = fn(fr.constant(X), [1, *k, 1], [1, *s, 1], padding)
    (v,) = _run(y)
    ref = _naive_pool(X, k, s, padding, kind)
    assert y.shape.as_list() == list(ref.shape)
    np.testing.assert_allclose(v, ref, rtol=1e-12)


def test_max_pool_gradient_goes_to_the_first_maximum_as_in_tf():
    # Recorded from TF 2.21: ties route the whole gradient to the first maximal element
    # of the window in row-major order.
    x = fr.constant(np.array([[1, 3, 3], [3, 2, 0], [1, 1, 1]], np.float32).reshape(1, 3, 3, 1))
    y = fr.nn.max_pool(x, 2, 1, "VALID")
    (g,) = fr.gradients(
        y, x, grad_ys=fr.constant(np.array([[1, 10], [100, 1000]], np.float32).reshape(1, 2, 2, 1))
    )
    vy, vg = _run(y, g)
    np.testing.assert_array_equal(vy[0, :, :, 0], [[3, 3], [3, 2]])
    np.testing.assert_array_equal(vg[0, :, :, 0], [[0, 11, 0], [100, 1000, 0], [0, 0, 0]])


def test_max_pool_gradient_sums_overlapping_windows_in_tfs_order():
    # Recorded from TF 2.21: x[1] is the maximum of the first three windows and gets
    # (1 + 1e8) - 1e8 = 0 in float32, the outputs taken in order (the reverse gives 1).
    x = fr.constant(np.array([0, 9, 0, 0], np.float32).reshape(1, 1, 4, 1))
    y = fr.nn.max_pool(x, [1, 1, 3, 1], 1, "SAME")
    g = np.array([1, 1e8, -1e8, 5], np.float32).reshape(1, 1, 4, 1)
    (vg,) = _run(fr.gradients(y, x, grad_ys=fr.constant(g))[0])
    np.testing.assert_array_equal(vg.ravel(), [0, 0, 5, 0])


def test_avg_pool_same_averages_real_elements_only():
    x = fr.constant(np.arange(9, dtype=np.float32).reshape(1, 3, 3, 1))
    (v,) = _run(fr.nn.avg_pool(x, 2, 2, "SAME"))
    np.testing.assert_allclose(v[0, :, :, 0], [[2.0, 3.5], [6.5, 8.0]])


def test_pool_errors_name_the_op():
    with pytest.raises(
        ValueError,
        match=r"MaxPool op 'mp'.*Pooling is not yet supported on "
        r"the batch or depth",
    ):
        fr.nn.max_pool(fr.constant(X), [1, 2, 2, 2], 1, "SAME", name="mp")
    with pytest.raises(ValueError, match=r"AvgPool op.*Shape must be rank 4 but is rank 2"):
        fr.nn.avg_pool(fr.constant(np.ones((3, 3))), 2, 1, "SAME")


def test_top_k_sorted_values_and_tie_order():
    res = fr.nn.top_k(fr.constant([[1.0, 3, 3, 2, 5, 5], [0, 0, 0, 0, 0, 0]]), k=4)
    v, i = res
    assert res.values is v and res.indices is i
    assert _run(res)[0].indices.tolist() == [[4, 5, 1, 2], [0, 1, 2, 3]]
    assert v.op.type == "TopKV2" and v.shape.as_list() == [2, 4] and i.dtype is fr.int32
    a, b = _run(v, i)
    np.testing.assert_array_equal(a, [[5, 5, 3, 3], [0, 0, 0, 0]])
    np.testing.assert_array_equal(b, [[4, 5, 1, 2], [0, 1, 2, 3]])
    with pytest.raises(ValueError, match=r"input must have last dimension >= k = 7 but is 6"):
        fr.nn.top_k(fr.constant(np.ones((2, 6))), k=7)


def test_top_k_with_a_fed_k():
    k = fr.placeholder(fr.int32, [])
    v, _ = fr.nn.top_k(fr.constant([[4, 1, 3]]), k)
    assert v.shape.as_list() == [1, None]
    (a,) = _run(v, feed={k: 2})
    np.testing.assert_array_equal(a, [[4, 3]])
    with pytest.raises(fr.errors.InvalidArgumentError, match=r"TopKV2 op.*Had 3, needed 4"):
        _run(v, feed={k: 4})


def test_in_top_k_ties_nan_and_out_of_range_as_tf():
    p = fr.constant(
        np.array([[1, 3, 3, 2], [0, 0, 0, 0], [1, np.nan, 2, 0], [5, 1, 1, 1]], np.float32)
    )
    t = fr.constant([1, 2, 2, 7])
    r = fr.nn.in_top_k(p, t, 1)
    assert r.op.type == "InTopKV2" and r.dtype is fr.bool and r.shape.as_list() == [4]
    assert r.name == "in_top_k/InTopKV2:0"
    (v,) = _run(r)
    np.testing.assert_array_equal(v, [True, True, False, False])


def test_lrn_matches_its_definition_and_has_tfs_gradient_op():
    x = _r.standard_normal((2, 3, 2, 7))
    t = fr.constant(x)
    y = fr.nn.lrn(t, depth_radius=2, bias=0.5, alpha=0.1, beta=0.75)
    (g,) = fr.gradients(y, t)
    assert y.op.type == "LRN" and g.op.type == "LRNGrad"
    sq = np.zeros_like(x)
    for d in range(7):
        sq[..., d] = (x[..., max(d - 2, 0) : d + 3] ** 2).sum(-1)
    (v,) = _run(y)
    np.testing.assert_allclose(v, x / (0.5 + 0.1 * sq) ** 0.75, rtol=1e-12)
    with pytest.raises(LookupError, match=r"No gradient defined for operation.*LRNGrad"):
        fr.gradients(g, t)


# --------------------------------------------------------------------------------------
# Optional: the same programs against TensorFlow
# --------------------------------------------------------------------------------------


def _program(m, x, f, xi):
    X_, F_, XI = m.constant(x), m.constant(f), m.constant(xi)
    out = []
    for pad, s in itertools.product(["SAME", "VALID"], [[1, 1, 1, 1], [1, 2, 2, 1], [1, 2, 3, 1]]):
        c = m.nn.conv2d(X_, F_, strides=s, padding=pad)
        mp = m.nn.max_pool(XI, [1, 3, 2, 1], s, pad)
        ap = m.nn.avg_pool(X_, [1, 3, 3, 1], s, pad)
        loss = m.reduce_sum(c * c) + m.reduce_sum(mp * mp * 1.5) + m.reduce_sum(ap * ap)
        out += [c, mp, ap] + list(m.gradients(loss, [X_, F_, XI]))
    v, i = m.nn.top_k(m.constant(xi[0, 0]), k=2)
    g = m.constant(np.ones((2, 4, 5, 3), np.float32))
    extra = [
        m.nn.conv2d_transpose(g, F_[:, :, :, :3], [2, 7, 9, 3], [1, 2, 2, 1], "SAME"),
        m.nn.conv2d(X_, F_, [1, 1, 1, 1], "SAME", dilations=[1, 2, 2, 1]),
        m.nn.conv2d(X_, F_, [1, 1, 1, 1], [[0, 0], [1, 2], [0, 1], [0, 0]]),
        m.nn.in_top_k(m.constant(xi[0, 0]), m.constant([0, 1, 2, 2, 1, 0, 0, 1, 2]), 2),
        m.nn.conv1d(X_[:, 0], F_[0], 2, "SAME"),
        m.nn.lrn(X_, 2, 2.0, 1e-3, 0.75),
        m.gradients(m.reduce_sum(m.square(m.nn.lrn(X_, 1, 1.0, 0.5, 0.5))), X_)[0],
    ]
    return out + [v, i] + extra


def test_matches_tensorflow():
    tf = pytest.importorskip("tensorflow.compat.v1")
    tf.disable_eager_execution()
    x = X.astype(np.float32)
    f = F.astype(np.float32)
    xi = _r.integers(0, 3, (2, 7, 9, 3)).astype(np.float32)  # many ties
    got = []
    for m in (fr, tf):
        with m.Graph().as_default():
            out = _program(m, x, f, xi)
            with m.Session() as s:
                got.append(s.run(out))
    for a, b in zip(*got):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-4)


def test_gradients_with_unknown_shapes_match_the_static_graph():
    def program(x):
        f = fr.constant(F)
        y = fr.nn.conv2d(x, f, [1, 2, 1, 1], "SAME")
        loss = fr.reduce_sum(fr.square(fr.nn.max_pool(y, 2, 2, "SAME"))) + fr.reduce_sum(
            fr.nn.avg_pool(y, [1, 3, 2, 1], 1, "VALID")
        )
        gx, gf = fr.gradients(loss, [x, f])
        return [gx, gf] + fr.gradients(fr.reduce_sum(gx * gx), f)  # second order

    dyn = fr.placeholder(fr.float64, [None, None, None, 3])
    out_dyn = program(dyn)
    assert out_dyn[0].shape.as_list() == [None, None, None, 3]
    out_static = program(fr.constant(X))
    with fr.Session() as s:
        a = s.run(out_dyn, {dyn: X})
        b = s.run(out_static)
    for u, v in zip(a, b):
        np.testing.assert_allclose(u, v, rtol=1e-12)


def test_conv1d_is_tfs_expand_conv2d_squeeze():
    r = np.random.default_rng(3)
    x, f = r.standard_normal((2, 9, 3)), r.standard_normal((3, 3, 4))
    y = fr.nn.conv1d(x, f, 2, "SAME")
    z = fr.nn.conv1d(x, f, [1, 1, 1], "VALID", dilations=2)
    assert y.name == "conv1d/Squeeze:0" and y.op.inputs[0].op.type == "Conv2D"
    assert y.shape.as_list() == [2, 5, 4] and z.shape.as_list() == [2, 5, 4]
    a, b = _run(y, z)
    np.testing.assert_allclose(a, _naive_conv(x[:, None], f[None], (1, 2), "SAME")[:, 0])
    np.testing.assert_allclose(b, _naive_conv(x[:, None], f[None], (1, 1), "VALID", (1, 2))[:, 0])


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_lrn_in_single_and_half_precision_matches_its_definition(dtype):
    # The windows reach past the depth (radius 4 > depth 3) at both ends; float32 and
    # float16 are computed in float64 and rounded once, so the tolerance is the dtype's.
    x = _r.standard_normal((2, 3, 2, 3)).astype(dtype)
    y = fr.nn.lrn(fr.constant(x), depth_radius=4, bias=1.0, alpha=0.5, beta=0.75)
    (v,) = _run(y)
    x64 = x.astype(np.float64)
    ref = x64 / (1.0 + 0.5 * (x64**2).sum(-1, keepdims=True)) ** 0.75
    assert v.dtype == dtype
    np.testing.assert_allclose(v, ref, rtol=2 * np.finfo(dtype).eps, atol=0)
