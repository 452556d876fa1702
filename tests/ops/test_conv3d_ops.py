"""conv3d, conv3d_transpose and conv3d_backprop_filter: values against a direct loop and
against TF 2.21's (tensorflow.compat.v1, graph mode) recorded results; shapes, names and
errors. Gradients are checked in tests/grad_specs/conv3d.py."""

import itertools

import numpy as np
import pytest

import flowrt as fr

_r = np.random.RandomState(0)  # the inputs TF's figures below were recorded on
X = _r.randn(2, 5, 6, 4, 3)
F = _r.randn(2, 3, 2, 3, 4)


def _direct(x, f, strides, padding):
    """conv3d by its definition, one output element at a time."""
    outs, pads = [], []
    for n, k, s in zip(x.shape[1:4], f.shape[:3], strides[1:4]):
        o = -(-n // s) if padding == "SAME" else (n - k) // s + 1
        outs.append(o)
        pads.append(max((o - 1) * s + k - n, 0) // 2 if padding == "SAME" else 0)
    y = np.zeros((x.shape[0], *outs, f.shape[4]))
    for b, i, j, k in itertools.product(range(x.shape[0]), *map(range, outs)):
        for a, c, e in itertools.product(*map(range, f.shape[:3])):
            p = [i * strides[1] + a - pads[0], j * strides[2] + c - pads[1]]
            p.append(k * strides[3] + e - pads[2])
            if all(0 <= q < n for q, n in zip(p, x.shape[1:4])):
                y[b, i, j, k] += x[b, p[0], p[1], p[2]] @ f[a, c, e]
    return y


# padding, strides, output shape; then TF 2.21's sum(y * cos), sum(dx * sin), sum(df * sin)
CASES = [
    (
        "SAME",
        [1, 2, 1, 2, 1],
        [2, 3, 6, 2, 4],
        2.7546112552129784,
        -0.11728867089168649,
        114.28630527625523,
    ),
    (
        "VALID",
        [1, 1, 2, 1, 1],
        [2, 4, 2, 3, 4],
        39.906184369937584,
        16.42089021466188,
        4.734875336953783,
    ),
]


def _wave(fn, shape):
    return fn(np.arange(int(np.prod(shape)))).reshape(shape)


@pytest.mark.parametrize("padding, strides, shape, tf_y, tf_dx, tf_df", CASES)
def test_conv3d_and_its_gradients_as_tf(padding, strides, shape, tf_y, tf_dx, tf_df):
    with fr.Graph().as_default():
        x, f = fr.constant(X), fr.constant(F)
        y = fr.nn.conv3d(x, f, strides, padding)
        assert (y.op.type, y.op.name, y.shape.as_list()) == ("Conv3D", "Conv3D", shape)
        w = _wave(np.cos, shape)
        dx, df = fr.gradients(fr.reduce_sum(y * w), [x, f])
        assert dx.op.type == "Conv3DBackpropInputV2" and df.op.type == "Conv3DBackpropFilterV2"
        yv, dxv, dfv = fr.Session().run([y, dx, df])
    np.testing.assert_allclose(yv, _direct(X, F, strides, padding), rtol=1e-12, atol=1e-12)
    assert np.sum(yv * w) == pytest.approx(tf_y, rel=1e-12)
    assert np.sum(dxv * _wave(np.sin, X.shape)) == pytest.approx(tf_dx, rel=1e-10)
    assert np.sum(dfv * _wave(np.sin, F.shape)) == pytest.approx(tf_df, rel=1e-12)


def test_conv3d_transpose_as_tf():
    r = np.random.RandomState(0)
    r.randn(2, 5, 6, 4, 3), r.randn(2, 3, 2, 3, 4)  # TF's values follow these draws
    v, f = r.randn(1, 2, 3, 2, 4), r.randn(2, 2, 3, 5, 4)
    with fr.Graph().as_default():
        t = fr.nn.conv3d_transpose(fr.constant(v), fr.constant(f), [1, 4, 6, 3, 5], [1, 2, 2, 2, 1])
        assert (t.op.type, t.op.name) == ("Conv3DBackpropInputV2", "conv3d_transpose")
        assert t.shape.as_list() == [1, 4, 6, 3, 5]
        tv = fr.Session().run(t)
    assert np.sum(tv * tv) == pytest.approx(1847.5315931717735, rel=1e-12)  # TF 2.21's


def test_conv3d_backprop_filter_is_the_filter_gradient_and_an_alias_of_v2():
    g = np.cos(np.arange(2 * 3 * 6 * 2 * 4)).reshape(2, 3, 6, 2, 4)
    with fr.Graph().as_default():
        x, f = fr.constant(X), fr.constant(F)
        (want,) = fr.gradients(fr.nn.conv3d(x, f, [1, 2, 1, 2, 1], "SAME"), f, grad_ys=g)
        got = fr.nn.conv3d_backprop_filter(x, list(F.shape), g, [1, 2, 1, 2, 1], "SAME")
        assert got.op.type == "Conv3DBackpropFilterV2" and got.shape.as_list() == list(F.shape)
        a, b = fr.Session().run([want, got])
    np.testing.assert_allclose(a, b)
    assert fr.nn.conv3d_backprop_filter is fr.nn.conv3d_backprop_filter_v2


def test_unknown_spatial_sizes_are_inferred_at_run_time():
    with fr.Graph().as_default():
        x = fr.placeholder(fr.float64, [None, None, None, None, 3])
        y = fr.nn.conv3d(x, fr.constant(F), [1, 1, 1, 1, 1], "VALID")
        assert y.shape.as_list() == [None, None, None, None, 4]
        yv = fr.Session().run(y, {x: X})
    np.testing.assert_allclose(yv, _direct(X, F, [1, 1, 1, 1, 1], "VALID"), rtol=1e-12)


def test_construction_errors():
    with fr.Graph().as_default():
        x, f = fr.constant(X), fr.constant(F)
        with pytest.raises(ValueError, match="strides.*5 elements"):
            fr.nn.conv3d(x, f, [1, 1, 1, 1], "SAME")
        with pytest.raises(ValueError, match="batch and depth"):
            fr.nn.conv3d(x, f, [2, 1, 1, 1, 1], "SAME")
        with pytest.raises(ValueError, match="padding"):
            fr.nn.conv3d(x, f, [1, 1, 1, 1, 1], "same")
        with pytest.raises(ValueError, match="NCDHW.*not supported"):
            fr.nn.conv3d(x, f, [1, 1, 1, 1, 1], "SAME", data_format="NCDHW")
        with pytest.raises(ValueError, match="in_channels"):
            fr.nn.conv3d(x, fr.constant(F[:, :, :, :2]), [1, 1, 1, 1, 1], "SAME")
        with pytest.raises(ValueError, match="rank 5"):
            fr.nn.conv3d(x[0], f, [1, 1, 1, 1, 1], "SAME")
        with pytest.raises(TypeError, match="int32 not in list"):
            fr.nn.conv3d(fr.constant([[[[[1]]]]]), fr.constant([[[[[1]]]]]), [1] * 5, "SAME")
