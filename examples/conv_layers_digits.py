"""A small convolutional net built with tf.layers, trained with tf.losses and evaluated
with tf.metrics: digit classification on the project's 8x8 digits.

The TF1 original is the layers tutorial of TensorFlow 1.x (tutorials/layers/
cnn_mnist.py): tf.layers.conv2d / max_pooling2d / dense / dropout with a `training`
flag, tf.losses.sparse_softmax_cross_entropy plus L2 regularization through
kernel_regularizer and tf.losses.get_total_loss(), batch normalization whose moving
averages update through UPDATE_OPS, and tf.metrics.accuracy over the test set in
batches (a local variable, initialized with tf.local_variables_initializer()). Only the
import differs from the TF1 program (tf.contrib.layers.l2_regularizer included).

Run: python examples/conv_layers_digits.py
"""

from pathlib import Path

import numpy as np

import flowrt as tf

DATA = Path(__file__).resolve().parent.parent / "pipelines" / "data"
EPOCHS, BATCH_SIZE, LEARNING_RATE = 3, 50, 0.01


def load(path):
    """(images [n, 8, 8, 1] scaled to 0..1, int labels) from a 'label,p0..p63' CSV."""
    data = np.loadtxt(path, delimiter=",", skiprows=1, dtype=np.float32)
    return (data[:, 1:] / 16.0).reshape(-1, 8, 8, 1), data[:, 0].astype(np.int64)


train_x, train_y = load(DATA / "digits_train.csv")
test_x, test_y = load(DATA / "digits_test.csv")

tf.set_random_seed(0)
x = tf.placeholder(tf.float32, [None, 8, 8, 1], name="x")
y = tf.placeholder(tf.int64, [None], name="y")
training = tf.placeholder_with_default(False, [], name="training")
regularizer = tf.contrib.layers.l2_regularizer(1e-4)

conv1 = tf.layers.conv2d(
    x, 8, [3, 3], padding="same", activation=tf.nn.relu, kernel_regularizer=regularizer
)
pool1 = tf.layers.max_pooling2d(conv1, pool_size=[2, 2], strides=2)
# momentum 0.9: the moving averages that inference uses settle within this example's
# 90 steps (TF1's default, 0.99, needs several hundred; with it test accuracy swung
# 0.6-0.95 with the seed).
norm1 = tf.layers.batch_normalization(pool1, momentum=0.9, training=training)
conv2 = tf.layers.conv2d(
    norm1, 16, [3, 3], padding="same", activation=tf.nn.relu, kernel_regularizer=regularizer
)
pool2 = tf.layers.max_pooling2d(conv2, pool_size=[2, 2], strides=2)
flat = tf.layers.flatten(pool2)
dense = tf.layers.dense(flat, 64, activation=tf.nn.relu, kernel_regularizer=regularizer)
dropped = tf.layers.dropout(dense, rate=0.3, training=training)
logits = tf.layers.dense(dropped, 10)

tf.losses.sparse_softmax_cross_entropy(labels=y, logits=logits)
loss = tf.losses.get_total_loss()
with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
    train_op = tf.train.AdamOptimizer(LEARNING_RATE).minimize(loss)
accuracy, accuracy_update = tf.metrics.accuracy(labels=y, predictions=tf.argmax(logits, 1))

print("variables:", ", ".join(v.op.name for v in tf.trainable_variables()))
rng = np.random.RandomState(0)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for epoch in range(EPOCHS):
        order = rng.permutation(len(train_x))
        total = 0.0
        for start in range(0, len(order), BATCH_SIZE):
            idx = order[start : start + BATCH_SIZE]
            _, batch_loss = sess.run(
                [train_op, loss], feed_dict={x: train_x[idx], y: train_y[idx], training: True}
            )
            total += batch_loss * len(idx)
        print("epoch %d  loss %.4f" % (epoch + 1, total / len(order)))
    sess.run(tf.local_variables_initializer())
    for start in range(0, len(test_x), 100):
        sess.run(
            accuracy_update,
            feed_dict={x: test_x[start : start + 100], y: test_y[start : start + 100]},
        )
    print("test accuracy: %.3f" % sess.run(accuracy))
