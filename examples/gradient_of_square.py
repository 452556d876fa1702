"""Symbolic differentiation: the gradient of x**2 at x = 3 is 2 * 3 = 6.

The TF1 original is the tf.gradients example of the TensorFlow 1.x API docs:

    x = tf.placeholder(tf.float32)
    y = x ** 2
    dy_dx = tf.gradients(y, x)
    with tf.Session() as sess:
        print(sess.run(dy_dx, {x: 3.0}))

tf.gradients adds the gradient ops to the graph; the session then evaluates them like
any other tensor. Only the import differs here.

Run: python examples/gradient_of_square.py
"""

import flowrt as tf

x = tf.placeholder(tf.float32, name="x")
y = x**2
(dy_dx,) = tf.gradients(y, x)
(d2y_dx2,) = tf.gradients(dy_dx, x)  # gradients of gradients work too

# The same with a variable: the gradient with respect to a variable's value.
v = tf.Variable(3.0, name="v")
(dsq_dv,) = tf.gradients(tf.square(v), [v])

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    print("dy/dx at 3:", sess.run(dy_dx, {x: 3.0}))
    print("d2y/dx2 at 3:", sess.run(d2y_dx2, {x: 3.0}))
    print("dy/dx at [1, 2, 3]:", sess.run(dy_dx, {x: [1.0, 2.0, 3.0]}))
    print("d(v^2)/dv at v = 3:", sess.run(dsq_dv))
