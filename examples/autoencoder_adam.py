"""A perceptron autoencoder for 64x64 RGB images, trained with Adam.

The TF1 original is the fully connected autoencoder of the TensorFlow 1.x tutorials
(TensorFlow-Examples autoencoder.py and its image variants): flattened images fed
through a placeholder, one hidden layer (a ReLU encoder to a 64-number code), a sigmoid
decoder layer back to the image, the mean squared reconstruction error minimized by
tf.train.AdamOptimizer on feed_dict minibatches. The images here are 256 synthetic
64x64x3 smooth random patterns (soft coloured blobs), made in numpy.
Only the import differs from the TF1 program.

Run: python examples/autoencoder_adam.py
"""

import numpy as np

import flowrt as tf

N_IMAGES, SIZE, CHANNELS = 256, 64, 3
N_INPUT, N_HIDDEN = SIZE * SIZE * CHANNELS, 64
LEARNING_RATE, EPOCHS, BATCH_SIZE = 0.003, 10, 32


def smooth_patterns(n, rng):
    """n images of shape (64, 64, 3) in [0, 1]: each the sum of 3 soft coloured blobs."""
    yy, xx = np.meshgrid(np.linspace(0, 1, SIZE), np.linspace(0, 1, SIZE), indexing="ij")
    out = np.zeros((n, SIZE, SIZE, CHANNELS))
    for _ in range(3):
        cx, cy = rng.uniform(0.2, 0.8, size=(2, n, 1, 1))
        radius = rng.uniform(0.1, 0.3, size=(n, 1, 1))
        colour = rng.uniform(0, 1, size=(n, 1, 1, CHANNELS))
        blob = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * radius**2))
        out += blob[..., None] * colour
    return np.clip(out, 0, 1).astype(np.float32)


rng = np.random.RandomState(0)
images = smooth_patterns(N_IMAGES, rng).reshape(N_IMAGES, N_INPUT)

tf.set_random_seed(0)
x = tf.placeholder(tf.float32, [None, N_INPUT], name="x")

weights = {
    "encoder": tf.Variable(tf.random_normal([N_INPUT, N_HIDDEN], stddev=0.01), name="w_enc"),
    "decoder": tf.Variable(tf.random_normal([N_HIDDEN, N_INPUT], stddev=0.01), name="w_dec"),
}
biases = {
    "encoder": tf.Variable(tf.zeros([N_HIDDEN]), name="b_enc"),
    "decoder": tf.Variable(tf.zeros([N_INPUT]), name="b_dec"),
}


def encoder(x):
    return tf.nn.relu(tf.add(tf.matmul(x, weights["encoder"]), biases["encoder"]))


def decoder(code):
    return tf.nn.sigmoid(tf.add(tf.matmul(code, weights["decoder"]), biases["decoder"]))


reconstruction = decoder(encoder(x))
loss = tf.reduce_mean(tf.pow(x - reconstruction, 2))
train_op = tf.train.AdamOptimizer(LEARNING_RATE).minimize(loss)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    first = sess.run(loss, {x: images})
    print("before training  reconstruction loss %.5f" % first)
    for epoch in range(EPOCHS):
        order = rng.permutation(N_IMAGES)
        for start in range(0, N_IMAGES, BATCH_SIZE):
            sess.run(train_op, feed_dict={x: images[order[start : start + BATCH_SIZE]]})
        if epoch % 2 == 1:
            print(
                "epoch %2d         reconstruction loss %.5f"
                % (epoch + 1, sess.run(loss, {x: images}))
            )
    last = sess.run(loss, {x: images})
    print(
        "reconstruction loss fell from %.5f to %.5f (variance of the pixels: %.5f)"
        % (first, last, images.var())
    )
