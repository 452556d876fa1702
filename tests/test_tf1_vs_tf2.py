"""Each program written TF1's way and TF2's way gives the same results (issue 8)."""

import numpy as np
import pytest

import flowrt as fr


def test_one_plus_one():
    with fr.Session() as sess:
        tf1 = sess.run(fr.constant(1) + fr.constant(1))

    @fr.function
    def tf2():
        return fr.constant(1) + fr.constant(1)

    assert tf1 == tf2() == 2


def test_a_plus_b_fed_vs_passed():
    a = fr.placeholder(fr.float32, [None])
    b = fr.placeholder(fr.float32, [None])
    av, bv = np.array([1, 2], np.float32), np.array([3, 4], np.float32)
    with fr.Session() as sess:
        tf1 = sess.run(a + b, {a: av, b: bv})

    @fr.function
    def add(a, b):
        return a + b

    np.testing.assert_array_equal(tf1, add(av, bv))
    np.testing.assert_array_equal(add(av, bv), [4, 6])


def test_variable_incremented_five_times():
    with fr.variable_scope("counter"):
        c = fr.get_variable("c", [], initializer=fr.zeros_initializer())
    inc = fr.assign(c, c + 1.0)
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        for _ in range(5):
            sess.run(inc)
        tf1 = sess.run(c)

    v = fr.Variable(0.0)

    @fr.function
    def increment():
        v.assign_add(1.0)

    for _ in range(5):
        increment()
    assert tf1 == v.numpy() == 5.0


W1 = np.random.default_rng(0).standard_normal((3, 5)).astype(np.float32)
B1 = np.linspace(-1, 1, 5).astype(np.float32)
W2 = np.random.default_rng(1).standard_normal((5, 2)).astype(np.float32)
B2 = np.array([0.5, -0.5], np.float32)


def _tf1_net(x):
    """Input, hidden and output layers with variable_scope reuse: 4 variables."""

    def dense(h, name, w, b, act):
        with fr.variable_scope(name, reuse=fr.AUTO_REUSE):
            kernel = fr.get_variable("kernel", w.shape, initializer=fr.constant_initializer(w))
            bias = fr.get_variable("bias", b.shape, initializer=fr.constant_initializer(b))
        return act(fr.nn.bias_add(fr.matmul(h, kernel), bias))

    return dense(dense(x, "hidden", W1, B1, fr.nn.relu), "out", W2, B2, lambda t: t)


class _Net(fr.keras.Model):
    def __init__(self):
        super().__init__()
        self.hidden = fr.keras.layers.Dense(
            5,
            activation="relu",
            kernel_initializer=fr.constant_initializer(W1),
            bias_initializer=fr.constant_initializer(B1),
        )
        self.out = fr.keras.layers.Dense(
            2,
            kernel_initializer=fr.constant_initializer(W2),
            bias_initializer=fr.constant_initializer(B2),
        )

    def call(self, x):
        return self.out(self.hidden(x))


def test_dense_net_variable_scope_reuse_vs_layers_and_model():
    xs = [np.random.default_rng(i).standard_normal((4, 3)).astype(np.float32) for i in (2, 3)]
    x = fr.placeholder(fr.float32, [None, 3])
    y_a, y_b = _tf1_net(x), _tf1_net(x)  # the second call reuses the variables
    assert len(fr.global_variables()) == 4
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        tf1 = [sess.run(y_a, {x: xs[0]}), sess.run(y_b, {x: xs[1]})]

    net = _Net()

    @fr.function
    def forward(x):
        return net(x)

    tf2 = [forward(xs[0]), forward(xs[1])]
    assert len(net.trainable_variables) == 4
    assert [v.name for v in net.trainable_variables] == [
        "dense/kernel:0",
        "dense/bias:0",
        "dense_1/kernel:0",
        "dense_1/bias:0",
    ]
    for a, b in zip(tf1, tf2):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_gradient_of_square_at_three():
    x = fr.constant(3.0)
    (g,) = fr.gradients(x**2, x)
    with fr.Session() as sess:
        tf1 = sess.run(g)

    @fr.function
    def grad(x):
        with fr.GradientTape() as tape:
            tape.watch(x)
            y = x**2
        return tape.gradient(y, x)

    assert tf1 == grad(np.float32(3.0)) == 6.0


def _loss(w, b, x, y):
    return fr.reduce_mean((fr.matmul(x, w) + b - y) ** 2)


@pytest.mark.parametrize(
    "tf1_opt, tf2_opt",
    [
        (lambda: fr.train.GradientDescentOptimizer(0.1), lambda: fr.keras.optimizers.SGD(0.1)),
        (
            lambda: fr.train.MomentumOptimizer(0.1, 0.9),
            lambda: fr.keras.optimizers.SGD(0.1, momentum=0.9),
        ),
        (
            lambda: fr.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
            lambda: fr.keras.optimizers.SGD(0.1, momentum=0.9, nesterov=True),
        ),
        (lambda: fr.train.AdamOptimizer(0.1, epsilon=1e-7), lambda: fr.keras.optimizers.Adam(0.1)),
    ],
    ids=["sgd", "momentum", "nesterov", "adam"],
)
def test_training_steps_minimize_vs_tape_and_apply_gradients(tf1_opt, tf2_opt):
    rng = np.random.default_rng(5)
    xv = rng.standard_normal((6, 3)).astype(np.float32)
    yv = rng.standard_normal((6, 1)).astype(np.float32)
    w0 = rng.standard_normal((3, 1)).astype(np.float32)
    w, b = fr.Variable(w0), fr.Variable(np.zeros(1, np.float32))
    train = tf1_opt().minimize(_loss(w, b, xv, yv))
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        for _ in range(3):
            sess.run(train)
        tf1 = sess.run([w, b])

    w2, b2 = fr.Variable(w0), fr.Variable(np.zeros(1, np.float32))
    opt = tf2_opt()

    @fr.function
    def step(x, y):
        with fr.GradientTape() as tape:
            loss = _loss(w2, b2, x, y)
        grads = tape.gradient(loss, [w2, b2])
        opt.apply_gradients(zip(grads, [w2, b2]))

    for _ in range(3):
        step(xv, yv)
    np.testing.assert_allclose(w2.numpy(), tf1[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(b2.numpy(), tf1[1], rtol=1e-5, atol=1e-6)
    assert opt.iterations.numpy() == 3


def _grad_op_types(g, start):
    return [op.type for op in g.get_operations()[start:]]


def test_gradient_subgraphs_match_op_type_by_op_type():
    def model(x, w):
        return fr.reduce_sum(fr.tanh(fr.matmul(x, w)) * 2.0)

    xv = np.ones((2, 3), np.float32)
    w1 = fr.Variable(np.full((3, 4), 0.1, np.float32))
    y1 = model(xv, w1)
    g1 = fr.get_default_graph()
    n1 = len(g1.get_operations())
    fr.gradients(y1, [w1])
    tf1_types = _grad_op_types(g1, n1)

    w2 = fr.Variable(np.full((3, 4), 0.1, np.float32))
    marks = {}

    @fr.function
    def grads(x):
        with fr.GradientTape() as tape:
            y = model(x, w2)
        marks["start"] = len(fr.get_default_graph().get_operations())
        return tape.gradient(y, w2)

    cf = grads.get_concrete_function(xv)
    tf2_types = _grad_op_types(cf.graph, marks["start"])
    assert tf1_types == tf2_types
    assert tf2_types.count("MatMul") == 2 and "BroadcastTo" in tf2_types
