"""fr.layers.SeparableConv2D / separable_conv2d: TF1's variable and op names, shapes,
values (TF 2.21's tf.nn.separable_conv2d + bias_add + relu with the same constant
weights, recorded) and variable reuse."""

import numpy as np
import pytest

import flowrt as fr

X = np.random.default_rng(0).standard_normal((2, 6, 5, 3)).astype(np.float32)


def _names(vs):
    return [(v.name, v.shape.as_list()) for v in vs]


def test_functional_form_names_shapes_and_values():
    with fr.Graph().as_default():
        y = fr.layers.separable_conv2d(
            fr.constant(X),
            4,
            3,
            padding="same",
            depth_multiplier=2,
            depthwise_initializer=fr.constant_initializer(0.1),
            pointwise_initializer=fr.constant_initializer(0.2),
            bias_initializer=fr.constant_initializer(0.3),
            activation=fr.nn.relu,
        )
        assert y.name == "separable_conv2d/Relu:0" and y.shape.as_list() == [2, 6, 5, 4]
        assert _names(fr.global_variables()) == [
            ("separable_conv2d/depthwise_kernel:0", [3, 3, 3, 2]),
            ("separable_conv2d/pointwise_kernel:0", [1, 1, 6, 4]),
            ("separable_conv2d/bias:0", [4]),
        ]
        ops = [op.name for op in fr.get_default_graph().get_operations()]
        for name in (
            "separable_conv2d/separable_conv2d/depthwise",
            "separable_conv2d/separable_conv2d",
            "separable_conv2d/BiasAdd",
        ):
            assert name in ops
        with fr.Session() as s:
            s.run(fr.global_variables_initializer())
            got = s.run(y)
    np.testing.assert_allclose(
        got[0, :2, :2, 0], [[0.31191, 0.41591], [0.30122, 0.40525]], atol=1e-5
    )
    assert np.all(got[..., 0:1] == got)  # equal pointwise weights: equal channels


def test_class_form_strides_and_dilation():
    with fr.Graph().as_default():
        layer = fr.layers.SeparableConv2D(2, (2, 3), strides=2, name="sep2")
        z = layer(fr.constant(X))
        assert z.name == "sep2/BiasAdd:0" and z.shape.as_list() == [2, 3, 2, 2]
        assert layer.depthwise_kernel.name == "sep2/depthwise_kernel:0"
        assert layer.pointwise_kernel.name == "sep2/pointwise_kernel:0"
        assert layer.bias.name == "sep2/bias:0"
        assert layer.compute_output_shape([2, 6, 5, 3]).as_list() == [2, 3, 2, 2]
        y2 = fr.layers.separable_conv2d(fr.constant(X), 4, 3, dilation_rate=2)
        assert y2.name == "separable_conv2d/BiasAdd:0" and y2.shape.as_list() == [2, 2, 1, 4]
        assert fr.layers.SeparableConvolution2D is fr.layers.SeparableConv2D


def test_reuse_shares_the_variables_and_training_updates_them():
    with fr.Graph().as_default():
        x = fr.constant(X)
        a = fr.layers.separable_conv2d(x, 2, 3, name="s", use_bias=False)
        b = fr.layers.separable_conv2d(x, 2, 3, name="s", reuse=True, use_bias=False)
        assert len(fr.global_variables()) == 2
        loss = fr.reduce_sum(a * a) + fr.reduce_sum(b)
        step = fr.train.GradientDescentOptimizer(1e-3).minimize(loss)
        with fr.Session() as s:
            s.run(fr.global_variables_initializer())
            before = s.run(fr.global_variables())
            s.run(step)
            after = s.run(fr.global_variables())
    assert all(not np.allclose(u, v) for u, v in zip(before, after))


def test_bad_arguments():
    with pytest.raises(ValueError, match="strictly positive"):
        fr.layers.SeparableConv2D(0, 3)
    with pytest.raises(ValueError, match="channels_last"):
        fr.layers.SeparableConv2D(2, 3, data_format="channels_first")
    with fr.Graph().as_default(), pytest.raises(ValueError, match="channel dimension"):
        fr.layers.separable_conv2d(fr.placeholder(fr.float32, [1, 4, 4, None]), 2, 3)
