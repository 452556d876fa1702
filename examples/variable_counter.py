"""A variable as a counter: state that lives in the session and changes with assign.

The TF1 original is the counter from the TensorFlow 1.x "Basic Usage" guide:

    state = tf.Variable(0, name="counter")
    one = tf.constant(1)
    new_value = tf.add(state, one)
    update = tf.assign(state, new_value)
    init_op = tf.global_variables_initializer()
    with tf.Session() as sess:
        sess.run(init_op)
        print(sess.run(state))
        for _ in range(3):
            sess.run(update)
            print(sess.run(state))

Only the import differs here (and it counts to 5).

Run: python examples/variable_counter.py
"""

import flowrt as tf

state = tf.Variable(0, name="counter")
one = tf.constant(1)
new_value = tf.add(state, one)
update = tf.assign(state, new_value)

init_op = tf.global_variables_initializer()

with tf.Session() as sess:
    # Reading the counter before running the initializer is an error, as in TF1.
    try:
        sess.run(state)
    except tf.errors.FailedPreconditionError:
        print("before init: the counter is uninitialized")
    sess.run(init_op)
    print("counter =", sess.run(state))
    for _ in range(5):
        sess.run(update)
        print("counter =", sess.run(state))

# Variables live in the session: a new session starts from the initializer again.
with tf.Session() as sess:
    sess.run(init_op)
    print("new session, counter =", sess.run(state))
    print("assign_add(10) ->", sess.run(state.assign_add(10)))
