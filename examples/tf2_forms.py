"""The TF2 forms of the classic TF1 examples: @fr.function, fr.Variable, Keras layers,
fr.GradientTape and apply_gradients (docs/graph_functions.md puts each next to its TF1
form; hello_constants.py, placeholders.py, variable_counter.py,
three_layers_reuse.py and gradient_of_square.py are the TF1 ones).

Run: python examples/tf2_forms.py
"""

import numpy as np

import flowrt as tf


@tf.function
def one_plus_one():
    return tf.constant(1) + tf.constant(1)


print("1 + 1 =", one_plus_one())


@tf.function
def add(a, b):
    return a + b


print("3 + 4.5 =", add(np.float32(3.0), np.float32(4.5)))

counter = tf.Variable(0, name="counter")


@tf.function
def increment():
    counter.assign_add(1)


for _ in range(5):
    increment()
print("counter =", counter.numpy())


class ThreeLayers(tf.keras.Model):
    """Three dense layers; the third reuses the second's weights by calling it again."""

    def __init__(self):
        super().__init__()
        init = tf.random_normal_initializer(stddev=0.1, seed=1)
        self.layer1 = tf.keras.layers.Dense(
            8,
            activation="relu",
            kernel_initializer=init,
            bias_initializer=tf.constant_initializer(0.1),
        )
        self.layer2 = tf.keras.layers.Dense(
            8,
            activation="relu",
            kernel_initializer=init,
            bias_initializer=tf.constant_initializer(0.1),
        )

    def call(self, x):
        return self.layer2(self.layer2(self.layer1(x)))


model = ThreeLayers()


@tf.function
def forward(x):
    return model(x)


print("output shape:", forward(np.ones((2, 4), np.float32)).shape)
print("variables:")
for v in model.trainable_variables:
    print("  %-18s %s" % (v.name, v.shape))


@tf.function
def square_gradient(x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x**2
    return tape.gradient(y, x)


print("dy/dx at 3:", square_gradient(np.float32(3.0)))

rng = np.random.default_rng(0)
xs = rng.standard_normal((64, 4)).astype(np.float32)
ys = xs @ np.array([[1.0], [-2.0], [0.5], [3.0]], np.float32)
regression = tf.keras.layers.Dense(1)
opt = tf.keras.optimizers.Adam(0.1)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((regression(x) - y) ** 2)
    grads = tape.gradient(loss, regression.trainable_variables)
    opt.apply_gradients(zip(grads, regression.trainable_variables))
    return loss


first = train_step(xs, ys)
for _ in range(200):
    last = train_step(xs, ys)
print("regression loss fell from %.4f to %.4f in %d steps" % (first, last, opt.iterations.numpy()))
