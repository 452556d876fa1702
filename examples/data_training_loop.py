"""Digit classification fed by tf.data: the TF1 input-pipeline idiom of late TF1 programs.

A ``TextLineDataset`` of the digits CSV (header skipped) is shuffled, parsed in batches
with ``decode_csv`` and batched; one reinitializable iterator switches between the
training and the test set (``Iterator.from_structure`` + ``make_initializer``), and each
epoch ends on ``OutOfRangeError`` from ``get_next``. Only the import differs from the
TF1 program.

Run: python examples/data_training_loop.py
"""

from pathlib import Path

import flowrt as tf

DATA = Path(__file__).resolve().parent.parent / "pipelines" / "data"
N_INPUT, N_HIDDEN, N_CLASSES = 64, 64, 10
EPOCHS, BATCH_SIZE = 15, 50


def parse(lines):
    cols = tf.decode_csv(lines, record_defaults=[[0]] + [[0.0]] * N_INPUT)
    images = tf.stack(cols[1:], axis=1) / 16.0
    return images, tf.one_hot(cols[0], N_CLASSES)


def dataset(name, shuffle):
    ds = tf.data.TextLineDataset(str(DATA / name)).skip(1)
    if shuffle:
        ds = ds.shuffle(2000, seed=1)
    return ds.batch(BATCH_SIZE).map(parse)


tf.set_random_seed(0)
train_set, test_set = dataset("digits_train.csv", True), dataset("digits_test.csv", False)
it = tf.data.Iterator.from_structure(train_set.output_types, train_set.output_shapes)
x, y = it.get_next()
train_init, test_init = it.make_initializer(train_set), it.make_initializer(test_set)

hidden = tf.layers.dense(x, N_HIDDEN, activation=tf.nn.relu)
logits = tf.layers.dense(hidden, N_CLASSES)
loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))
train_op = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
correct = tf.reduce_sum(tf.cast(tf.equal(tf.argmax(logits, 1), tf.argmax(y, 1)), tf.float32))
batch_n = tf.shape(y)[0]

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for epoch in range(EPOCHS):
        sess.run(train_init)
        total, batches = 0.0, 0
        try:
            while True:
                _, value = sess.run([train_op, loss])
                total, batches = total + value, batches + 1
        except tf.errors.OutOfRangeError:
            pass
        if epoch % 5 == 0 or epoch == EPOCHS - 1:
            print("epoch %2d loss %.4f (%d batches)" % (epoch, total / batches, batches))
    sess.run(test_init)
    right = seen = 0
    try:
        while True:
            c, n = sess.run([correct, batch_n])
            right, seen = right + c, seen + n
    except tf.errors.OutOfRangeError:
        pass
    print("test accuracy: %.3f on %d examples" % (right / seen, seen))
