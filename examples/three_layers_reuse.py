"""Sharing variables: three dense layers built by one function with variable_scope and
get_variable, the third reusing the second's weights (reuse=True).

The TF1 original is the "Sharing variables" guide of TensorFlow 1.x
(programmers_guide/variables), where one function creates a layer's variables with
tf.get_variable and a tf.variable_scope(..., reuse=True) makes a second call share them
instead of creating new ones. Only the import differs here.

Run: python examples/three_layers_reuse.py
"""

import numpy as np

import flowrt as tf


def dense(inputs, units, activation=tf.nn.relu):
    """One fully connected layer; its variables are named after the enclosing scope."""
    weights = tf.get_variable(
        "weights",
        [inputs.shape[1], units],
        initializer=tf.random_normal_initializer(stddev=0.1, seed=1),
    )
    biases = tf.get_variable("biases", [units], initializer=tf.constant_initializer(0.1))
    return activation(tf.matmul(inputs, weights) + biases)


tf.set_random_seed(0)
x = tf.placeholder(tf.float32, [None, 4], name="x")

with tf.variable_scope("layer1"):
    h1 = dense(x, 8)
with tf.variable_scope("layer2"):
    h2 = dense(h1, 8)
# The third layer calls the same function under layer2's scope with reuse=True:
# get_variable returns layer2's variables instead of creating new ones.
with tf.variable_scope("layer2", reuse=True):
    h3 = dense(h2, 8)

# Creating layer2's variables again without reuse is an error, as in TF1.
try:
    with tf.variable_scope("layer2"):
        dense(h2, 8)
except ValueError as e:
    print("without reuse:", str(e).splitlines()[0])

print("variables:")
for v in tf.global_variables():
    print("  %-18s %s" % (v.name, v.shape))
print("h3 was built by", h3.op.name, "from", [t.name for t in h3.op.inputs])

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    out1, out2, out3 = sess.run([h1, h2, h3], {x: np.ones((2, 4), np.float32)})
    print("h3 shape:", out3.shape)
    # h3 = relu(h2 @ W2 + b2) with layer2's own variables, computed in numpy:
    with tf.variable_scope("layer2", reuse=True):
        w2, b2 = sess.run([tf.get_variable("weights"), tf.get_variable("biases")])
    print("h3 uses layer2's variables:", np.allclose(out3, np.maximum(out2 @ w2 + b2, 0)))
