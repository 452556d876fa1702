"""Placeholders: a graph computing a + b, fed with scalars and then with arrays.

The TF1 original is the "Feeding" section of the TensorFlow 1.x low-level API guide:

    a = tf.placeholder(tf.float32)
    b = tf.placeholder(tf.float32)
    adder_node = a + b
    print(sess.run(adder_node, {a: 3, b: 4.5}))
    print(sess.run(adder_node, {a: [1, 3], b: [2, 4]}))

Only the import differs here.

Run: python examples/placeholders.py
"""

import numpy as np

import flowrt as tf

a = tf.placeholder(tf.float32, name="a")
b = tf.placeholder(tf.float32, name="b")
adder_node = a + b  # + is shorthand for tf.add(a, b)
add_and_triple = adder_node * 3.0

# A placeholder with a static shape rejects feeds of another shape.
m = tf.placeholder(tf.float32, shape=[None, 3], name="m")
row_sums = tf.reduce_sum(m, axis=1)

with tf.Session() as sess:
    print("3 + 4.5 =", sess.run(adder_node, {a: 3, b: 4.5}))
    print("[1, 3] + [2, 4] =", sess.run(adder_node, {a: [1, 3], b: [2, 4]}))
    print("(3 + 4.5) * 3 =", sess.run(add_and_triple, {a: 3, b: 4.5}))
    print("broadcast [[1], [2]] + [10, 20, 30] =")
    print(sess.run(adder_node, feed_dict={a: [[1], [2]], b: [10, 20, 30]}))
    print("row sums:", sess.run(row_sums, {m: np.arange(6.0).reshape(2, 3)}))
    try:
        sess.run(adder_node, {a: 1.0})  # b is not fed
    except tf.errors.InvalidArgumentError as e:
        print("without b:", type(e).__name__, "-", e.message.splitlines()[0])
