"""convolution, conv_transpose, conv1d_transpose, pool, max_pool_v2 and avg_pool_v2: the
op each picks, its name, and values against TF 2.21's (tensorflow.compat.v1, graph mode)
recorded results."""

import numpy as np
import pytest

import flowrt as fr

# TF 2.21's sum(y * y) of, per spatial rank n = 1, 2, 3: convolution (SAME dilated 2,
# VALID strided 2, SAME), then on the float32 input pool(MAX, SAME, 2, 2),
# max_pool_v2(3, 2, VALID), pool(AVG, SAME, 2, 2), avg_pool_v2(3, 2, SAME)
TF_SUMS = {
    1: (
        617.543558057649,
        97.65346315714777,
        554.2217998476714,
        20.7230281829834,
        19.829988479614258,
        11.145827293395996,
        10.36858081817627,
    ),
    2: (
        4973.533231775327,
        1436.105764876917,
        5788.665031751649,
        122.68523406982422,
        104.01992797851562,
        22.21527671813965,
        11.803586959838867,
    ),
    3: (
        31115.194409181808,
        4653.681323961791,
        40097.067554178095,
        379.7366943359375,
        325.3419189453125,
        40.87123107910156,
        15.363828659057617,
    ),
}
# conv1d_transpose([2, 3, 4] -> [2, 6, 2], stride 2, SAME) and conv_transpose([2, 3, 4] ->
# [2, 7, 2], stride 2, VALID)
TF_TRANSPOSED = (78.65348790611357, 104.47072416728327)


def _values():
    r = np.random.RandomState(2)  # the draws TF's figures were recorded on
    sums = {}
    for n in (1, 2, 3):
        x = fr.constant(r.randn(2, *[7, 6, 5][:n], 3))
        f = fr.constant(r.randn(*[3, 2, 2][:n], 3, 4))
        ys = [
            fr.nn.convolution(x, f, "SAME", dilation_rate=[2] * n),
            fr.nn.convolution(x, filters=f, padding="VALID", strides=[2] * n),
            fr.nn.convolution(x, f, "SAME"),
        ]
        x = fr.cast(x, fr.float32)
        ys += [
            fr.nn.pool(x, [2] * n, "MAX", "SAME", strides=[2] * n),
            fr.nn.max_pool_v2(x, 3, 2, "VALID"),
            fr.nn.pool(x, [2] * n, "AVG", "SAME", strides=[2] * n),
            fr.nn.avg_pool_v2(x, 3, 2, "SAME"),
        ]
        sums[n] = [fr.reduce_sum(y * y) for y in ys]
    t1 = fr.nn.conv1d_transpose(
        fr.constant(r.randn(2, 3, 4)), fr.constant(r.randn(3, 2, 4)), [2, 6, 2], 2
    )
    t2 = fr.nn.conv_transpose(
        fr.constant(r.randn(2, 3, 4)), fr.constant(r.randn(3, 2, 4)), [2, 7, 2], 2, "VALID"
    )
    return sums, [fr.reduce_sum(t1 * t1), fr.reduce_sum(t2 * t2)]


def test_values_as_tf():
    with fr.Graph().as_default():
        sums, transposed = _values()
        got_sums, got_t = fr.Session().run([sums, transposed])
    for n in (1, 2, 3):
        np.testing.assert_allclose(got_sums[n], TF_SUMS[n], rtol=2e-6)
    np.testing.assert_allclose(got_t, TF_TRANSPOSED, rtol=1e-12)


@pytest.mark.parametrize(
    "build, op_type, name",
    [  # TF 2.21's op types and names
        (
            lambda x1, x2, x3: fr.nn.convolution(x1, fr.zeros([3, 2, 4]), "SAME"),
            "Squeeze",
            "convolution/Squeeze",
        ),
        (
            lambda x1, x2, x3: fr.nn.convolution(x2, fr.zeros([3, 3, 2, 4]), "SAME"),
            "Conv2D",
            "convolution",
        ),
        (
            lambda x1, x2, x3: fr.nn.convolution(x3, fr.zeros([3, 3, 1, 2, 4]), "VALID"),
            "Conv3D",
            "convolution",
        ),
        (lambda x1, x2, x3: fr.nn.pool(x1, [2], "MAX", "SAME"), "Squeeze", "max_pool/Squeeze"),
        (lambda x1, x2, x3: fr.nn.pool(x2, [2, 2], "AVG", "VALID"), "AvgPool", "avg_pool"),
        (lambda x1, x2, x3: fr.nn.pool(x3, [2, 2, 2], "MAX", "SAME"), "MaxPool3D", "max_pool"),
        (lambda x1, x2, x3: fr.nn.max_pool_v2(x1, 2, 2, "SAME"), "Squeeze", "MaxPool1d/Squeeze"),
        (lambda x1, x2, x3: fr.nn.max_pool_v2(x2, 2, 2, "SAME"), "MaxPool", "MaxPool2d"),
        (lambda x1, x2, x3: fr.nn.avg_pool_v2(x1, 2, 2, "SAME"), "Squeeze", "AvgPool1D/Squeeze"),
        (lambda x1, x2, x3: fr.nn.avg_pool_v2(x2, 2, 2, "SAME"), "AvgPool", "AvgPool"),
        (lambda x1, x2, x3: fr.nn.avg_pool_v2(x3, 2, 2, "SAME"), "AvgPool3D", "AvgPool3D"),
        (
            lambda x1, x2, x3: fr.nn.conv_transpose(
                fr.zeros([1, 3, 3, 4]), fr.zeros([3, 3, 2, 4]), [1, 6, 6, 2], 2
            ),
            "Conv2DBackpropInput",
            "conv_transpose",
        ),
        (
            lambda x1, x2, x3: fr.nn.conv1d_transpose(
                fr.zeros([1, 3, 4]), fr.zeros([3, 2, 4]), [1, 6, 2], 2
            ),
            "Squeeze",
            "conv1d_transpose/Squeeze",
        ),
    ],
)
def test_the_op_picked_and_its_name(build, op_type, name):
    with fr.Graph().as_default():
        xs = fr.zeros([1, 5, 2]), fr.zeros([1, 5, 6, 2]), fr.zeros([1, 5, 6, 4, 2])
        y = build(*xs)
        assert (y.op.type, y.op.name) == (op_type, name)


def test_gradients_flow_through_the_picked_ops():
    with fr.Graph().as_default():
        x = fr.constant(np.random.RandomState(0).randn(1, 6, 2))
        f = fr.constant(np.ones((3, 2, 2)))
        y = fr.nn.convolution(x, f, "SAME", dilation_rate=2)
        dx, df = fr.gradients(fr.reduce_sum(y), [x, f])
        dxv, dfv = fr.Session().run([dx, df])
    assert dxv.shape == (1, 6, 2) and dfv.shape == (3, 2, 2)
    np.testing.assert_allclose(dxv[0, :, 0], [4.0, 4.0, 6.0, 6.0, 4.0, 4.0])


def test_errors():
    with fr.Graph().as_default():
        x = fr.zeros([1, 5, 6, 2])
        f = fr.zeros([3, 3, 2, 4])
        with pytest.raises(ValueError, match="strides > 1 not supported in conjunction"):
            fr.nn.convolution(x, f, "SAME", strides=2, dilation_rate=2)
        with pytest.raises(ValueError, match="rank 3, 4 or 5"):
            fr.nn.convolution(fr.zeros([5, 2]), f, "SAME")
        with pytest.raises(ValueError, match="not supported"):
            fr.nn.convolution(x, f, "SAME", data_format="NCHW")
        with pytest.raises(ValueError, match="dilation_rate .* is not supported"):
            fr.nn.pool(x, [2, 2], "MAX", "SAME", dilation_rate=[2, 2])
        with pytest.raises(ValueError, match="Invalid pooling_type"):
            fr.nn.pool(x, [2, 2], "MIN", "SAME")
        with pytest.raises(ValueError, match="must have rank 5"):
            fr.nn.pool(x, [2, 2, 2], "MAX", "SAME")
        with pytest.raises(ValueError, match="`output_shape` must be of length 3, 4 or 5"):
            fr.nn.conv_transpose(x, f, [1, 2], 1)
