"""Hello, flowrt: string and number constants evaluated in a session.

The TF1 original is the first program of the TensorFlow 1.x "Get Started" guide:

    import tensorflow as tf
    hello = tf.constant("Hello, TensorFlow!")
    sess = tf.Session()
    print(sess.run(hello))

followed by adding two constants. Only the import differs here.

Run: python examples/hello_constants.py
"""

import flowrt as tf

# A string constant: a session returns TF1 strings as bytes.
hello = tf.constant("Hello, TensorFlow!")

# Two number constants and their sum: building the graph computes nothing yet.
a = tf.constant(1)
b = tf.constant(1)
total = a + b
x = tf.constant(3.0, dtype=tf.float32)
y = tf.constant(4.0)  # also float32, inferred from the value

print(total)  # a symbolic Tensor: its name, shape and dtype, not its value

with tf.Session() as sess:
    print(sess.run(hello))
    print("1 + 1 =", sess.run(total))
    print("3.0 * 4.0 =", sess.run(x * y))
    print("fetch several at once:", sess.run({"a": a, "b": b, "a+b": total}))
