"""fr.keras: layers (build, add_weight, Dense), models, optimizers."""

import numpy as np
import pytest

import flowrt as fr


def test_layer_builds_once_in_its_name_scope_and_tracks_weights():
    class Scale(fr.keras.layers.Layer):
        def build(self, input_shape):
            self.k = self.add_weight("k", [input_shape[-1]], initializer="ones")
            self.steps = self.add_weight("steps", [], dtype=fr.int64, trainable=False)

        def call(self, x):
            return x * self.k

    layer = Scale()

    @fr.function
    def f(x):
        return layer(x)

    np.testing.assert_array_equal(f(np.full((2, 3), 2.0, np.float32)), np.full((2, 3), 2.0))
    f(np.ones((5, 3), np.float32))  # a second trace: build does not run again
    assert [w.name for w in layer.weights] == ["scale/k:0", "scale/steps:0"]
    assert layer.trainable_weights == [layer.k]
    assert layer.non_trainable_weights == [layer.steps]


def test_dense_matches_matmul_plus_bias_in_tf1_graph_code_too():
    x = fr.placeholder(fr.float32, [None, 3])
    dense = fr.keras.layers.Dense(
        2, activation="relu", kernel_initializer=fr.constant_initializer(0.5)
    )
    y = dense(x)
    assert [v.name for v in fr.global_variables()] == ["dense/kernel:0", "dense/bias:0"]
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        out = sess.run(y, {x: [[1.0, 2.0, 3.0], [-1.0, -2.0, -3.0]]})
    np.testing.assert_allclose(out, [[3.0, 3.0], [0.0, 0.0]])
    with pytest.raises(ValueError, match="last dimension of the inputs to a Dense layer"):
        fr.keras.layers.Dense(2)(fr.placeholder(fr.float32, [2, None]))
    with pytest.raises(ValueError, match="Unknown activation function: 'rleu'. Did you mean"):
        fr.keras.layers.Dense(2, activation="rleu")


def test_dense_on_rank_three_inputs():
    dense = fr.keras.layers.Dense(4, kernel_initializer="ones")

    @fr.function
    def f(x):
        return dense(x)

    out = f(np.ones((2, 5, 3), np.float32))
    assert out.shape == (2, 5, 4) and np.all(out == 3.0)


def test_sequential_and_model_variables():
    seq = fr.keras.Sequential([fr.keras.layers.Dense(3), fr.keras.layers.Dense(1)])

    @fr.function
    def f(x):
        return seq(x)

    assert f(np.ones((2, 4), np.float32)).shape == (2, 1)
    assert [tuple(v.shape.as_list()) for v in seq.trainable_variables] == [
        (4, 3),
        (3,),
        (3, 1),
        (1,),
    ]
    assert len(seq.layers) == 2
    with pytest.raises(TypeError, match="must be an instance of class Layer"):
        seq.add(lambda x: x)


def test_optimizer_minimize_with_a_callable_loss_and_state_shared_across_traces():
    w = fr.Variable(np.float32(5.0))
    opt = fr.keras.optimizers.Adam(0.5)

    @fr.function
    def step(target):
        return opt.minimize(lambda: (w - target) ** 2, [w])

    step(np.float32(0.0))
    step(np.zeros(1, np.float32))  # a new trace updates the same slots and accumulators
    assert opt.iterations.numpy() == 2
    assert len(opt.variables()) == 1 + 2 + 2  # iterations, beta powers, m and v
    assert w.numpy() < 5.0
    with pytest.raises(ValueError, match="No gradients provided for any variable"):
        fr.function(lambda: opt.apply_gradients([(None, w)]))()


def test_learning_rate_from_a_variable_changes_while_training():
    lr = fr.Variable(np.float32(0.5))
    w = fr.Variable(np.float32(1.0))
    opt = fr.keras.optimizers.SGD(lr)

    @fr.function
    def step():
        opt.apply_gradients([(fr.constant(1.0), w)])

    step()
    fr.function(lambda: lr.assign(0.25))()  # functions read the variable's eager state
    step()
    assert w.numpy() == pytest.approx(1.0 - 0.5 - 0.25)
    with pytest.raises(AttributeError, match="take the learning rate when created"):
        opt.learning_rate = 0.1


def test_a_recurrent_net_over_while_loop_trains_with_tape_and_adam():
    cell = fr.keras.layers.Dense(4, activation="tanh")
    out = fr.keras.layers.Dense(1)
    opt = fr.keras.optimizers.Adam(0.05)
    xs = np.random.default_rng(0).standard_normal((5, 8, 3)).astype(np.float32)  # T, B, D
    ys = xs.sum(axis=(0, 2))[:, None] * 0.1

    @fr.function
    def step(x, y):
        with fr.GradientTape() as tape:

            def body(t, h):
                return t + 1, cell(fr.concat([x[t], h], 1))

            _, h = fr.while_loop(lambda t, h: t < 5, body, [0, fr.zeros([8, 4])])
            loss = fr.reduce_mean((out(h) - y) ** 2)
        weights = cell.trainable_variables + out.trainable_variables
        opt.apply_gradients(zip(tape.gradient(loss, weights), weights))
        return loss

    first = step(xs, ys)
    for _ in range(30):
        last = step(xs, ys)
    assert last < first / 10
