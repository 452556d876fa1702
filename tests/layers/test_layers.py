"""fr.layers: TF1 variable and op names, reuse, initializers, regularizers, the
training flag of dropout, shapes, class forms, and errors.

(TF 2.21 cannot run tf.compat.v1.layers under Keras 3, so the names are TF 1.15's.)"""

import numpy as np
import pytest

import flowrt as fr

X = np.arange(2 * 6 * 6 * 3, dtype=np.float32).reshape(2, 6, 6, 3) / 100.0


def test_dense_variables_ops_and_values():
    x = fr.placeholder(fr.float32, [None, 4])
    y = fr.layers.dense(
        x,
        3,
        activation=fr.nn.relu,
        kernel_initializer=fr.constant_initializer(0.5),
        bias_initializer=fr.constant_initializer(-1.0),
    )
    assert [v.op.name for v in fr.trainable_variables()] == ["dense/kernel", "dense/bias"]
    assert y.name == "dense/Relu:0" and y.shape.as_list() == [None, 3]
    with fr.Session() as s:
        s.run(fr.global_variables_initializer())
        np.testing.assert_allclose(
            s.run(y, {x: [[1, 2, 3, 4], [0, 0, 0, 0]]}), [[4, 4, 4], [0, 0, 0]]
        )


def test_unnamed_layers_get_unique_scopes_and_reuse_by_name():
    x = fr.constant(np.ones((2, 4), np.float32))
    fr.layers.dense(x, 3)
    fr.layers.dense(x, 3)
    a = fr.layers.dense(x, 2, name="fc")
    b = fr.layers.dense(x, 2, name="fc", reuse=True)
    names = [v.op.name for v in fr.global_variables()]
    assert names == [
        "dense/kernel",
        "dense/bias",
        "dense_1/kernel",
        "dense_1/bias",
        "fc/kernel",
        "fc/bias",
    ]
    assert a.name == "fc/BiasAdd:0" and b.name == "fc_1/BiasAdd:0"
    with pytest.raises(ValueError, match=r"Variable fc/kernel already exists, disallowed"):
        fr.layers.dense(x, 2, name="fc")
    with pytest.raises(ValueError, match=r"Variable nothere/kernel does not exist"):
        fr.layers.dense(x, 2, name="nothere", reuse=True)


def test_enclosing_reuse_scope_shares_variables():
    x = fr.constant(np.ones((2, 4), np.float32))
    with fr.variable_scope("net"):
        a = fr.layers.dense(x, 2)
    with fr.variable_scope("net", reuse=True):
        b = fr.layers.dense(x, 2)
    with fr.variable_scope("net2", reuse=fr.AUTO_REUSE):
        c = fr.layers.dense(x, 2, name="d")
    with fr.variable_scope("net2", reuse=fr.AUTO_REUSE):
        d = fr.layers.dense(x, 2, name="d")
    assert [v.op.name for v in fr.global_variables()] == [
        "net/dense/kernel",
        "net/dense/bias",
        "net2/d/kernel",
        "net2/d/bias",
    ]
    with fr.Session() as s:
        s.run(fr.global_variables_initializer())
        va, vb, vc, vd = s.run([a, b, c, d])
    np.testing.assert_array_equal(va, vb)
    np.testing.assert_array_equal(vc, vd)


def test_layer_object_called_twice_shares_its_variables():
    layer = fr.layers.Dense(2, name="shared")
    x1 = fr.constant(np.ones((1, 3), np.float32))
    y1, y2 = layer(x1), layer(x1 * 2)
    assert y1.name == "shared/BiasAdd:0"
    assert layer.name == "shared" and len(layer.trainable_weights) == 2
    assert y2.name == "shared/BiasAdd_1:0"
    assert layer.kernel.op.name == "shared/kernel"


def test_regularizers_go_to_regularization_losses():
    x = fr.constant(np.ones((2, 4), np.float32))
    reg = fr.contrib.layers.l2_regularizer(0.5)
    fr.layers.dense(
        x,
        3,
        kernel_regularizer=reg,
        bias_regularizer=reg,
        kernel_initializer=fr.ones_initializer(),
        bias_initializer=fr.ones_initializer(),
    )
    losses = fr.get_collection(fr.GraphKeys.REGULARIZATION_LOSSES)
    assert [t.name for t in losses] == [
        "dense/kernel/Regularizer/l2_regularizer:0",
        "dense/bias/Regularizer/l2_regularizer:0",
    ]
    with fr.Session() as s:
        s.run(fr.global_variables_initializer())
        np.testing.assert_allclose(
            s.run(fr.losses.get_regularization_loss()), 0.5 * 12 / 2 + 0.5 * 3 / 2
        )


def test_dense_on_rank_3_input():
    x = fr.placeholder(fr.float32, [None, 5, 4])
    y = fr.layers.dense(x, 3, kernel_initializer=fr.ones_initializer())
    assert y.shape.as_list() == [None, 5, 3]
    with fr.Session() as s:
        s.run(fr.global_variables_initializer())
        assert s.run(y, {x: np.ones((2, 5, 4))}).shape == (2, 5, 3)


def test_dense_needs_a_known_last_dimension():
    with pytest.raises(
        ValueError,
        match=r"last dimension of the inputs to `Dense` should be "
        r"defined",
    ):
        fr.layers.dense(fr.placeholder(fr.float32, [None, None]), 3)


def test_dropout_training_flag():
    x = fr.constant(np.ones((50, 40), np.float32))
    off = fr.layers.dropout(x, 0.5)  # TF1 default: training=False, the identity
    on = fr.layers.dropout(x, 0.5, training=True, seed=1)
    flag = fr.placeholder(fr.bool, [])
    fed = fr.layers.dropout(x, 0.5, training=flag, seed=2)
    with fr.Session() as s:
        np.testing.assert_array_equal(s.run(off), 1.0)
        v = s.run(on)
        assert set(np.unique(v)) == {0.0, 2.0} and 0.4 < (v == 0).mean() < 0.6
        np.testing.assert_array_equal(s.run(fed, {flag: False}), 1.0)
        assert (s.run(fed, {flag: True}) == 0).any()
    with pytest.raises(ValueError, match=r"Expected a float value between 0 and 1"):
        fr.layers.dropout(x, 1.5)


def test_conv_pool_flatten_stack():
    x = fr.placeholder(fr.float32, [None, 6, 6, 3])
    h = fr.layers.conv2d(x, 4, 3, padding="same", activation=fr.nn.relu)
    p = fr.layers.max_pooling2d(h, 2, 2)
    a = fr.layers.average_pooling2d(h, [3, 2], [3, 2], padding="valid")
    f = fr.layers.flatten(p)
    assert [v.op.name for v in fr.global_variables()] == ["conv2d/kernel", "conv2d/bias"]
    assert fr.global_variables()[0].shape.as_list() == [3, 3, 3, 4]
    assert h.name == "conv2d/Relu:0" and p.name == "max_pooling2d/MaxPool:0"
    assert a.name == "average_pooling2d/AvgPool:0" and a.shape.as_list() == [None, 2, 3, 4]
    assert p.shape.as_list() == [None, 3, 3, 4] and f.shape.as_list() == [None, 36]
    with fr.Session() as s:
        s.run(fr.global_variables_initializer())
        vh, vf = s.run([h, f], {x: X})
    assert vf.shape == (2, 36)
    np.testing.assert_allclose(vf[0].reshape(3, 3, 4)[0, 0], vh[0, :2, :2].max(axis=(0, 1)))


def test_conv2d_layer_matches_the_op_with_the_same_variables():
    x = fr.constant(X)
    y = fr.layers.conv2d(
        x,
        2,
        (3, 2),
        strides=2,
        padding="valid",
        kernel_initializer=fr.random_normal_initializer(seed=3),
    )
    k, b = fr.global_variables()
    ref = fr.nn.bias_add(fr.nn.conv2d(x, k, [1, 2, 2, 1], "VALID"), b)
    with fr.Session() as s:
        s.run(fr.global_variables_initializer())
        a, r = s.run([y, ref])
    np.testing.assert_allclose(a, r, rtol=1e-6)


def test_layer_argument_errors():
    x = fr.constant(X)
    with pytest.raises(ValueError, match=r"`padding` argument must be one of"):
        fr.layers.conv2d(x, 2, 3, padding="full")
    with pytest.raises(ValueError, match=r"expected ndim=4, found ndim=2"):
        fr.layers.conv2d(fr.constant(np.ones((2, 3), np.float32)), 2, 3)
    with pytest.raises(ValueError, match=r"channels_last"):
        fr.layers.max_pooling2d(x, 2, 2, data_format="channels_first")
    with pytest.raises(TypeError, match=r"Keyword argument not understood: bogus"):
        fr.layers.Dense(3, bogus=1)
    d = fr.layers.Dense(3)
    d(fr.constant(np.ones((2, 4), np.float32)))
    with pytest.raises(
        ValueError,
        match=r"Input 0 of layer dense is incompatible with the "
        r"layer: expected axis -1 of input shape to have "
        r"value 4, got 5",
    ):
        d(fr.constant(np.ones((2, 5), np.float32)))


def test_trains_with_gradients_through_every_layer():
    fr.set_random_seed(0)
    x = fr.constant(np.random.default_rng(0).standard_normal((2, 6, 6, 3)), fr.float32)
    h = fr.layers.conv2d(x, 4, 3, padding="same", activation=fr.nn.relu)
    h = fr.layers.flatten(fr.layers.max_pooling2d(h, 2, 2))
    logits = fr.layers.dense(h, 3)
    loss = fr.losses.sparse_softmax_cross_entropy([0, 2], logits)
    grads = fr.gradients(loss, fr.trainable_variables())
    assert all(g is not None for g in grads)
    step = fr.train.GradientDescentOptimizer(0.5).minimize(loss)
    with fr.Session() as s:
        s.run(fr.global_variables_initializer())
        first = s.run(loss)
        for _ in range(40):
            s.run(step)
        assert s.run(loss) < first * 0.25


def test_batch_normalization_training_inference_and_update_ops():
    r = np.random.default_rng(0)
    xv = (r.standard_normal((8, 3, 3, 4)) * 2 + 1).astype(np.float32)
    x = fr.placeholder(fr.float32, [None, 3, 3, 4])
    training = fr.placeholder(fr.bool, [])
    y = fr.layers.batch_normalization(x, training=training, momentum=0.9)
    names = [v.op.name for v in fr.global_variables()]
    assert names == [
        "batch_normalization/gamma",
        "batch_normalization/beta",
        "batch_normalization/moving_mean",
        "batch_normalization/moving_variance",
    ]
    assert [v.op.name for v in fr.trainable_variables()] == names[:2]
    updates = fr.get_collection(fr.GraphKeys.UPDATE_OPS)
    assert len(updates) == 2
    _, _, mm, mv = fr.global_variables()
    m, v = xv.mean((0, 1, 2)), xv.var((0, 1, 2))
    # TF1 runs a 4-D input through its fused kernel: the moving variance moves toward the
    # batch variance with Bessel's correction (72 values per channel: 72 / 71).
    vu = xv.var((0, 1, 2), ddof=1)
    with fr.Session() as s:
        s.run(fr.global_variables_initializer())
        np.testing.assert_allclose(
            s.run(y, {x: xv, training: True}), (xv - m) / np.sqrt(v + 1e-3), atol=1e-5
        )
        s.run(updates, {x: xv, training: True})
        np.testing.assert_allclose(s.run(mm), 0.1 * m, atol=1e-6)
        np.testing.assert_allclose(s.run(mv), 0.9 + 0.1 * vu, atol=1e-5)
        s.run(updates, {x: xv, training: False})  # not training: the averages stay
        np.testing.assert_allclose(s.run(mm), 0.1 * m, atol=1e-6)
        np.testing.assert_allclose(
            s.run(y, {x: xv, training: False}),
            (xv - 0.1 * m) / np.sqrt(0.9 + 0.1 * vu + 1e-3),
            atol=1e-5,
        )


@pytest.mark.parametrize(
    "shape, axis, fused, ddof",
    [
        ((8, 3), -1, None, 0),  # 2-D: TF1's non-fused path, biased variance
        ((4, 2, 2, 3), -1, None, 1),  # NHWC: fused kernel, Bessel-corrected
        ((4, 3, 2, 2), 1, None, 1),  # NCHW: fused kernel too
        ((4, 2, 2, 3), -1, False, 0),  # fused=False: biased, as TF1's nn.moments path
        ((2, 2, 2, 2, 3), -1, None, 0),  # 5-D: TF1 has no fused kernel
    ],
)
def test_batch_normalization_moving_variance_as_tf1(shape, axis, fused, ddof):
    # TF 1.x (and tf.compat.v1 before Keras 3) with momentum 0.9, one training step.
    xv = np.arange(np.prod(shape), dtype=np.float32).reshape(shape) ** 1.5
    x = fr.constant(xv)
    y = fr.layers.batch_normalization(x, axis=axis, training=True, momentum=0.9, fused=fused)
    red = tuple(i for i in range(len(shape)) if i != axis % len(shape))
    with fr.Session() as s:
        s.run(fr.global_variables_initializer())
        out, _ = s.run([y, fr.get_collection(fr.GraphKeys.UPDATE_OPS)])
        mv = s.run(fr.global_variables()[3])
    want = xv.var(red, ddof=ddof)
    np.testing.assert_allclose(mv, 0.9 + 0.1 * want, rtol=1e-5)
    m, v = xv.mean(red, keepdims=True), xv.var(red, keepdims=True)  # biased in both
    np.testing.assert_allclose(out, (xv - m) / np.sqrt(v + 1e-3), rtol=1e-4, atol=1e-4)


def test_batch_normalization_on_dense_features_trains_with_update_ops():
    fr.set_random_seed(1)
    r = np.random.default_rng(1)
    x = fr.constant((r.standard_normal((16, 5)) * 3 + 2).astype(np.float32))
    h = fr.layers.batch_normalization(fr.layers.dense(x, 4), training=True, axis=1)
    loss = fr.reduce_mean(fr.square(h - 1.0))
    with fr.control_dependencies(fr.get_collection(fr.GraphKeys.UPDATE_OPS)):
        step = fr.train.GradientDescentOptimizer(0.1).minimize(loss)
    mm = [v for v in fr.global_variables() if v.op.name.endswith("moving_mean")][0]
    with fr.Session() as s:
        s.run(fr.global_variables_initializer())
        before = s.run(loss)
        for _ in range(30):
            s.run(step)
        assert s.run(loss) < before
        assert np.abs(s.run(mm)).sum() > 0
    with pytest.raises(NotImplementedError, match=r"renorm"):
        fr.layers.batch_normalization(x, renorm=True)


def test_conv2d_transpose_layer_shapes_variables_and_values():
    x = fr.placeholder(fr.float32, [None, 4, 5, 3])
    y = fr.layers.conv2d_transpose(x, 6, 3, strides=2, padding="same")
    z = fr.layers.conv2d_transpose(x, 2, (3, 2), strides=(2, 1), name="up")
    assert y.shape.as_list() == [None, 8, 10, 6] and z.shape.as_list() == [None, 9, 6, 2]
    k = fr.global_variables()[0]
    assert [v.op.name for v in fr.global_variables()] == [
        "conv2d_transpose/kernel",
        "conv2d_transpose/bias",
        "up/kernel",
        "up/bias",
    ]
    assert k.shape.as_list() == [3, 3, 6, 3]
    ref = fr.nn.conv2d_transpose(x, k, fr.stack([fr.shape(x)[0], 8, 10, 6]), [1, 2, 2, 1], "SAME")
    xv = np.random.default_rng(0).standard_normal((2, 4, 5, 3))
    with fr.Session() as s:
        s.run(fr.global_variables_initializer())
        a, b, c = s.run([y, ref, z], {x: xv})
    np.testing.assert_allclose(a, b, rtol=1e-6)
    assert c.shape == (2, 9, 6, 2)


def test_layer_losses_include_weight_and_activity_regularizers():
    x = fr.constant(np.ones((2, 4), np.float32))
    layer = fr.layers.Dense(
        3,
        kernel_regularizer=fr.contrib.layers.l1_regularizer(0.1),
        activity_regularizer=lambda y: fr.reduce_sum(y) * 0.0 + 7.0,
        kernel_initializer=fr.ones_initializer(),
    )
    layer(x)
    regs = fr.get_collection(fr.GraphKeys.REGULARIZATION_LOSSES)
    assert layer.losses == regs and len(regs) == 2
    assert regs[0].name == "dense/kernel/Regularizer/l1_regularizer:0"
    assert regs[1].name.startswith("dense/ActivityRegularizer/")
    with fr.Session() as s:
        s.run(fr.global_variables_initializer())
        np.testing.assert_allclose(s.run(regs), [1.2, 7.0], rtol=1e-6)


def test_conv1d_and_1d_pooling_layers():
    x = fr.placeholder(fr.float32, [None, 10, 3])
    y = fr.layers.conv1d(x, 4, 3, padding="same", activation=fr.nn.relu)
    p = fr.layers.max_pooling1d(y, 2, 2)
    a = fr.layers.average_pooling1d(y, 3, 1)
    assert [v.op.name for v in fr.global_variables()] == ["conv1d/kernel", "conv1d/bias"]
    assert fr.global_variables()[0].shape.as_list() == [3, 3, 4]
    assert y.shape.as_list() == [None, 10, 4] and p.shape.as_list() == [None, 5, 4]
    assert a.shape.as_list() == [None, 8, 4]
    k, b = fr.global_variables()
    ref = fr.nn.relu(fr.nn.bias_add(fr.nn.conv1d(x, k, 1, "SAME"), b))
    xv = np.random.default_rng(0).random((2, 10, 3))
    with fr.Session() as s:
        s.run(fr.global_variables_initializer())
        vy, vr, vp, va = s.run([y, ref, p, a], {x: xv})
    np.testing.assert_allclose(vy, vr, rtol=1e-6)
    np.testing.assert_allclose(vp, vy.reshape(2, 5, 2, 4).max(2), rtol=1e-6)
    np.testing.assert_allclose(va[:, 0], vy[:, :3].mean(1), rtol=1e-5)
    with pytest.raises(ValueError, match=r"expected ndim=3, found ndim=4"):
        fr.layers.conv1d(fr.constant(X), 2, 3)


def test_a_named_layer_object_takes_a_unique_scope_and_a_failed_one_leaves_no_variables():
    # TF's testCallOnPlaceHolder: Dense objects named 'my_dense' whose input check fails
    # create nothing, and the next one builds (in a scope of its own: TF1's
    # variable_scope(None, default_name=name)); the functional form keeps the exact name.
    for shape in (None, [None, None], [None, None, None]):
        with pytest.raises(ValueError, match="last dimension of the inputs to `Dense`"):
            fr.layers.Dense(4, name="my_dense")(fr.placeholder(fr.float32, shape))
    assert fr.global_variables() == []
    fr.layers.Dense(4, name="my_dense")(fr.placeholder(fr.float32, [None, 3]))
    fr.layers.Dense(4, name="my_dense")(fr.placeholder(fr.float32, [None, None, 3]))
    assert len(fr.global_variables()) == 4
    fr.layers.dense(fr.placeholder(fr.float32, [None, 3]), 2, name="fc")
    assert [v.name for v in fr.global_variables()][-2:] == ["fc/kernel:0", "fc/bias:0"]
