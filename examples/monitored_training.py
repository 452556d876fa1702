"""A TF1 training loop under tf.train.MonitoredTrainingSession, run twice: the second run
restores the checkpoint and its global step continues. Gradients are clipped by their
global norm, the learning rate decays exponentially, an assertion guards the input, and
a custom hook logs the loss. Written as the TF1 original, with `import flowrt as tf`."""

import shutil
import tempfile

import numpy as np

import flowrt as tf

rng = np.random.RandomState(0)
X = rng.uniform(-1, 1, (64, 3)).astype(np.float32)
Y = (X @ np.array([[2.0], [-1.0], [0.5]], np.float32) + 0.3).astype(np.float32)


class PrintLoss(tf.train.SessionRunHook):
    def __init__(self, loss, every):
        self.loss, self.every, self.n = loss, every, 0

    def before_run(self, run_context):
        return tf.train.SessionRunArgs(self.loss)  # fetched in the same run as train_op

    def after_run(self, run_context, run_values):
        self.n += 1
        if self.n % self.every == 0:
            print("  loss %.5f" % run_values.results)


def train(checkpoint_dir, last_step):
    with tf.Graph().as_default():
        global_step = tf.train.get_or_create_global_step()
        x = tf.placeholder(tf.float32, [None, 3])
        y = tf.placeholder(tf.float32, [None, 1])
        check = tf.assert_rank(x, 2)
        with tf.control_dependencies([check]):
            x = tf.identity(x)
        w = tf.get_variable("w", [3, 1], initializer=tf.zeros_initializer())
        b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
        lr = tf.train.exponential_decay(0.2, global_step, 100, 0.5, staircase=True)
        opt = tf.train.GradientDescentOptimizer(lr)
        grads, variables = zip(*opt.compute_gradients(loss))
        clipped, norm = tf.clip_by_global_norm(grads, 5.0)
        train_op = opt.apply_gradients(zip(clipped, variables), global_step=global_step)
        final = tf.train.FinalOpsHook(
            {"step": global_step, "loss": loss, "w": w}, final_ops_feed_dict={x: X, y: Y}
        )
        hooks = [tf.train.StopAtStepHook(last_step=last_step), PrintLoss(loss, 50), final]
        with tf.train.MonitoredTrainingSession(
            checkpoint_dir=checkpoint_dir, hooks=hooks, save_checkpoint_steps=50
        ) as sess:
            print("starting at global step %d" % sess.run(global_step, {x: X, y: Y}))
            while not sess.should_stop():
                sess.run(train_op, {x: X, y: Y})
        v = final.final_ops_values
        print(
            "stopped at global step %d, loss %.5f, w = %s"
            % (v["step"], v["loss"], np.round(v["w"].ravel(), 2))
        )
        return v


d = tempfile.mkdtemp()
try:
    train(d, last_step=100)
    v = train(d, last_step=200)  # resumes from the step-100 checkpoint
    print("latest checkpoint: %s" % (tf.train.latest_checkpoint(d) or "")[len(d) + 1 :])
    print("fit: %s" % (v["loss"] < 1e-3))
finally:
    shutil.rmtree(d)
