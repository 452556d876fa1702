"""Depthwise, separable and atrous convolution and space_to_depth/depth_to_space:
values against a direct numpy loop and TF 2.21's recorded figures, shapes, names and
errors."""

import numpy as np
import pytest

import flowrt as fr

_r = np.random.default_rng(0)
X = _r.standard_normal((2, 7, 6, 3))
F = _r.standard_normal((3, 2, 3, 2))
P = _r.standard_normal((1, 1, 6, 4))
A = _r.standard_normal((2, 2, 3, 4))


def _depthwise_reference(x, f, stride, padding, rate=1):
    """A direct loop: out[n, i, j, c*M+m] = sum x[n, i*s+a*r-pt, j*s+b*r-pl, c] f[a, b, c, m]."""
    n, h, w, c = x.shape
    kh, kw, _, m = f.shape
    eh, ew = (kh - 1) * rate + 1, (kw - 1) * rate + 1
    if padding == "SAME":
        oh, ow = -(-h // stride), -(-w // stride)
        pt = max((oh - 1) * stride + eh - h, 0) // 2
        pl = max((ow - 1) * stride + ew - w, 0) // 2
    else:
        oh, ow, pt, pl = (h - eh) // stride + 1, (w - ew) // stride + 1, 0, 0
    out = np.zeros((n, oh, ow, c, m))
    for i in range(oh):
        for j in range(ow):
            for a in range(kh):
                for b in range(kw):
                    y, z = i * stride + a * rate - pt, j * stride + b * rate - pl
                    if 0 <= y < h and 0 <= z < w:
                        out[:, i, j] += x[:, y, z, :, None] * f[a, b]
    return out.reshape(n, oh, ow, c * m)


# (kwargs, TF's op name, shape, TF's sums of squares of y, dy/dx and dy/df for
# loss = sum(y * y))
CASES = [
    (dict(strides=[1, 1, 1, 1], padding="SAME"), "depthwise", [2, 7, 6, 6],
     [3522.19959, 268439.02047, 1186833.81535]),
    (dict(strides=[1, 2, 2, 1], padding="VALID"), "depthwise", [2, 3, 3, 6],
     [1054.48931, 41327.66819, 121097.06228]),
    (dict(strides=[1, 1, 1, 1], padding="SAME", rate=[2, 2]), "depthwise", [2, 7, 6, 6],
     [2954.87321, 195358.64624, 896790.64447]),
    (dict(strides=[1, 2, 2, 1], padding="SAME"), "depthwise", [2, 4, 3, 6],
     [959.05672, 32396.59334, 110422.90452]),
    (dict(strides=[1, 1, 1, 1], padding="VALID", dilations=[2, 1]), "depthwise", [2, 3, 5, 6],
     [1662.02633, 94411.57074, 298948.73641]),
]  # fmt: skip


@pytest.mark.parametrize("kwargs, name, shape, sums", CASES)
def test_depthwise_conv2d_matches_tf(kwargs, name, shape, sums):
    with fr.Graph().as_default():
        x, f = fr.constant(X), fr.constant(F)
        y = fr.nn.depthwise_conv2d(x, f, **kwargs)
        assert y.op.name == name and y.op.type == "DepthwiseConv2dNative"
        assert y.shape.as_list() == shape
        gx, gf = fr.gradients(fr.reduce_sum(y * y), [x, f])
        assert gx.op.type == "DepthwiseConv2dNativeBackpropInput"
        with fr.Session() as s:
            yv, gxv, gfv = s.run([y, gx, gf])
    np.testing.assert_allclose([np.sum(v * v) for v in (yv, gxv, gfv)], sums, rtol=1e-8)
    rate = kwargs.get("rate") or kwargs.get("dilations") or [1, 1]
    if kwargs["strides"][1] == 1 and rate[0] == rate[1]:
        want = _depthwise_reference(X, F, 1, kwargs["padding"], rate[0])
        np.testing.assert_allclose(yv, want, rtol=1e-10)


def test_depthwise_float32_and_unequal_strides():
    with fr.Graph().as_default():
        y = fr.nn.depthwise_conv2d_native(
            X.astype(np.float32), F.astype(np.float32), [1, 2, 1, 1], "VALID"
        )
        assert y.dtype == fr.float32 and y.shape.as_list() == [2, 3, 5, 6]
        with fr.Session() as s:
            got = s.run(y)
    full = _depthwise_reference(X, F, 1, "VALID")
    np.testing.assert_allclose(got, full[:, ::2], rtol=1e-4, atol=1e-5)


def test_separable_conv2d_names_and_values_match_tf():
    with fr.Graph().as_default():
        x, f, p = fr.constant(X), fr.constant(F), fr.constant(P)
        y = fr.nn.separable_conv2d(x, f, p, [1, 1, 1, 1], "SAME")
        assert y.name == "separable_conv2d:0" and y.op.type == "Conv2D"
        assert y.op.inputs[0].name == "separable_conv2d/depthwise:0"
        assert y.shape.as_list() == [2, 7, 6, 4]
        grads = fr.gradients(fr.reduce_sum(y * y), [x, f, p])
        with fr.Session() as s:
            vals = s.run([y] + grads)
    np.testing.assert_allclose(
        [np.sum(v * v) for v in vals],
        [14795.36254, 7332126.11652, 49341454.19298, 41118969.78205],
        rtol=1e-8,
    )


def test_atrous_conv2d_matches_tf():
    with fr.Graph().as_default():
        y = fr.nn.atrous_conv2d(fr.constant(X), fr.constant(A), 2, "SAME")
        assert y.shape.as_list() == [2, 7, 6, 4] and y.op.name.startswith("convolution/")
        with fr.Session() as s:
            np.testing.assert_allclose(np.sum(s.run(y) ** 2), 2473.34161, rtol=1e-8)
    with fr.Graph().as_default(), pytest.raises(ValueError, match="positive integer"):
        fr.nn.atrous_conv2d(fr.constant(X), fr.constant(A), 0, "SAME")


def test_depthwise_errors():
    with fr.Graph().as_default():
        x = fr.constant(X)
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 4"):
            fr.nn.depthwise_conv2d(x, fr.constant(np.ones((3, 2, 4, 2))), [1, 1, 1, 1], "SAME")
        with pytest.raises(
            ValueError,
            match=r"When dilation rate is greater than 1, then all values of strides must be 1",
        ):
            fr.nn.depthwise_conv2d(x, fr.constant(F), [1, 2, 2, 1], "SAME", rate=[2, 2])
        with pytest.raises(ValueError, match="Attr 'padding' of 'DepthwiseConv2dNative'"):
            fr.nn.depthwise_conv2d(x, fr.constant(F), [1, 1, 1, 1], "same")
        with pytest.raises(ValueError, match="NHWC"):
            fr.nn.depthwise_conv2d(x, fr.constant(F), [1, 1, 1, 1], "SAME", data_format="NCHW")
        with pytest.raises(ValueError, match="Pointwise filter must be 1x1"):
            fr.nn.separable_conv2d(x, fr.constant(F), np.ones((2, 1, 6, 4)), [1, 1, 1, 1], "SAME")
        with pytest.raises(ValueError, match="in_channels \\* channel_multiplier = 6"):
            fr.nn.separable_conv2d(x, fr.constant(F), np.ones((1, 1, 5, 4)), [1, 1, 1, 1], "SAME")


def test_depthwise_run_time_mismatch_is_invalid_argument():
    with fr.Graph().as_default():
        x = fr.placeholder(fr.float64, [None, None, None, None])
        y = fr.nn.depthwise_conv2d(x, fr.constant(F), [1, 1, 1, 1], "SAME")
        with fr.Session() as s, pytest.raises(fr.errors.InvalidArgumentError, match="do not match"):
            s.run(y, {x: np.ones((1, 4, 4, 2))})


def test_space_to_depth_and_back():
    a = np.arange(2 * 4 * 6 * 3.0).reshape(2, 4, 6, 3)
    with fr.Graph().as_default():
        s2d = fr.space_to_depth(fr.constant(a), 2)
        d2s = fr.depth_to_space(s2d, 2)
        assert (s2d.name, d2s.name) == ("SpaceToDepth:0", "DepthToSpace:0")
        assert s2d.shape.as_list() == [2, 2, 3, 12] and d2s.shape.as_list() == [2, 4, 6, 3]
        assert fr.nn.space_to_depth is fr.space_to_depth
        with fr.Session() as s:
            sv, dv = s.run([s2d, d2s])
    # TF's layout: depth index (row_in_block * 2 + col_in_block) * C + c.
    want = a.reshape(2, 2, 2, 3, 2, 3).transpose(0, 1, 3, 2, 4, 5).reshape(2, 2, 3, 12)
    np.testing.assert_array_equal(sv, want)
    np.testing.assert_array_equal(dv, a)
    assert sv[0, 0, 0].tolist() == [0, 1, 2, 3, 4, 5, 18, 19, 20, 21, 22, 23]


@pytest.mark.parametrize(
    "fn, shape, block, message",
    [
        (fr.space_to_depth, (1, 5, 6, 3), 2, "must be evenly divisible by 2 but is 5"),
        (fr.depth_to_space, (1, 2, 2, 3), 2, "must be evenly divisible by 4 but is 3"),
        (fr.space_to_depth, (1, 4, 4, 3), 1, "Attr 'block_size' of 'SpaceToDepth' Op passed 1 "
         "less than minimum 2."),
        (fr.space_to_depth, (4, 4, 3), 2, "Shape must be rank 4 but is rank 3"),
    ],
)  # fmt: skip
def test_space_depth_errors_are_tfs(fn, shape, block, message):
    with fr.Graph().as_default(), pytest.raises(ValueError) as info:
        fn(fr.constant(np.ones(shape)), block)
    assert message in str(info.value)


def test_space_to_depth_run_time_error():
    with fr.Graph().as_default():
        x = fr.placeholder(fr.float32, [None, None, None, 2])
        y = fr.space_to_depth(x, 2)
        with (
            fr.Session() as s,
            pytest.raises(
                fr.errors.InvalidArgumentError, match="should be divisible by block_size: 2"
            ),
        ):
            s.run(y, {x: np.ones((1, 3, 4, 2))})
