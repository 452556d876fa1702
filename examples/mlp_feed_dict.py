"""A multilayer perceptron trained on feed_dict minibatches: digit classification with
softmax cross entropy and plain gradient descent.

The TF1 original is the MNIST multilayer perceptron of the TensorFlow 1.x tutorials
(tutorials/mnist/mnist_softmax.py and the TensorFlow-Examples multilayer_perceptron.py):
placeholders for images and one-hot labels, two hidden layers, the mean of
tf.nn.softmax_cross_entropy_with_logits_v2 minimized by tf.train.GradientDescentOptimizer,
minibatches fed with feed_dict, accuracy from tf.argmax / tf.equal / tf.reduce_mean.
Instead of MNIST it uses the 8x8 digits that ship with the project (pipelines/data/).
Only the import differs from the TF1 program.

Run: python examples/mlp_feed_dict.py
"""

from pathlib import Path

import numpy as np

import flowrt as tf

DATA = Path(__file__).resolve().parent.parent / "pipelines" / "data"
N_INPUT, N_HIDDEN_1, N_HIDDEN_2, N_CLASSES = 64, 64, 32, 10
LEARNING_RATE, EPOCHS, BATCH_SIZE = 0.1, 20, 50


def load(path):
    """(images scaled to 0..1, one-hot labels) from a 'label,p0..p63' CSV with a header."""
    data = np.loadtxt(path, delimiter=",", skiprows=1, dtype=np.float32)
    images = data[:, 1:] / 16.0
    labels = np.eye(N_CLASSES, dtype=np.float32)[data[:, 0].astype(int)]
    return images, labels


train_x, train_y = load(DATA / "digits_train.csv")
test_x, test_y = load(DATA / "digits_test.csv")

tf.set_random_seed(0)
x = tf.placeholder(tf.float32, [None, N_INPUT], name="x")
y = tf.placeholder(tf.float32, [None, N_CLASSES], name="y")

weights = {
    "h1": tf.Variable(tf.random_normal([N_INPUT, N_HIDDEN_1], stddev=0.1), name="w1"),
    "h2": tf.Variable(tf.random_normal([N_HIDDEN_1, N_HIDDEN_2], stddev=0.1), name="w2"),
    "out": tf.Variable(tf.random_normal([N_HIDDEN_2, N_CLASSES], stddev=0.1), name="w_out"),
}
biases = {
    "b1": tf.Variable(tf.zeros([N_HIDDEN_1]), name="b1"),
    "b2": tf.Variable(tf.zeros([N_HIDDEN_2]), name="b2"),
    "out": tf.Variable(tf.zeros([N_CLASSES]), name="b_out"),
}


def multilayer_perceptron(x):
    layer_1 = tf.nn.relu(tf.add(tf.matmul(x, weights["h1"]), biases["b1"]))
    layer_2 = tf.nn.relu(tf.add(tf.matmul(layer_1, weights["h2"]), biases["b2"]))
    return tf.matmul(layer_2, weights["out"]) + biases["out"]


logits = multilayer_perceptron(x)
loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))
train_op = tf.train.GradientDescentOptimizer(LEARNING_RATE).minimize(loss)

correct = tf.equal(tf.argmax(logits, 1), tf.argmax(y, 1))
accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))

rng = np.random.RandomState(0)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for epoch in range(EPOCHS):
        order = rng.permutation(len(train_x))
        total = 0.0
        for start in range(0, len(order), BATCH_SIZE):
            idx = order[start : start + BATCH_SIZE]
            _, batch_loss = sess.run([train_op, loss], feed_dict={x: train_x[idx], y: train_y[idx]})
            total += batch_loss * len(idx)
        if epoch % 4 == 0 or epoch == EPOCHS - 1:
            print("epoch %2d  loss %.4f" % (epoch + 1, total / len(order)))
    test_accuracy = sess.run(accuracy, feed_dict={x: test_x, y: test_y})
    print("test accuracy: %.3f" % test_accuracy)
