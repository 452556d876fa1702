"""A TF1 test file written for tf.test.TestCase, ported by changing the import.

With ``import tensorflow.compat.v1 as tf; tf.disable_eager_execution()`` in place of the
flowrt import it passes under TensorFlow too. Runs under pytest (collected by
tests/test/test_testcase.py) and as a script: ``python tests/test/tf1_style_test.py``.
"""

import numpy as np

import flowrt as tf  # was: import tensorflow.compat.v1 as tf


class MathOpsTest(tf.test.TestCase):
    def testAddAndMultiply(self):
        with self.cached_session():
            x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
            y = x * 2.0 + 1.0
            self.assertAllClose(y.eval(), [[3.0, 5.0], [7.0, 9.0]])
            self.assertShapeEqual(np.zeros((2, 2)), y)

    def testEvaluateNest(self):
        a = tf.constant([1, 2, 3])
        out = self.evaluate({"sum": tf.reduce_sum(a), "twice": [a * 2]})
        self.assertEqual(out["sum"], 6)
        self.assertAllEqual(out["twice"][0], [2, 4, 6])

    def testSessionWithFeeds(self):
        with self.session() as sess:
            p = tf.placeholder(tf.float32, [None])
            self.assertAllClose(sess.run(tf.square(p), {p: [1.5, -2.0]}), [2.25, 4.0])

    def testCachedSessionIsReused(self):
        with self.cached_session() as s1:
            pass
        with self.cached_session() as s2:
            self.assertIs(s1, s2)

    def testRanges(self):
        with self.cached_session():
            u = tf.random_uniform([100], minval=2.0, maxval=3.0)
            self.assertAllInRange(u.eval(), 2.0, 3.0, open_upper_bound=True)
        self.assertArrayNear([1.0, 2.0], [1.0 + 1e-7, 2.0], 1e-6)

    def testOpErrorIsMatched(self):
        with self.cached_session():
            v = tf.Variable(1.0, name="never_initialized")
            with self.assertRaisesOpError("uninitialized"):
                self.evaluate(v)
            with self.assertRaisesWithPredicateMatch(
                tf.errors.FailedPreconditionError, lambda e: "never_initialized" in e.message
            ):
                v.eval()

    def testTempDirAndGpu(self):
        self.assertEqual(self.get_temp_dir(), self.get_temp_dir())
        self.assertFalse(tf.test.is_gpu_available())

    def testGraphSeedIsSetPerTest(self):
        self.assertIsNotNone(tf.get_default_graph().seed)
        with self.cached_session():
            first = tf.random_normal([3]).eval()
        self.assertEqual(first.shape, (3,))


if __name__ == "__main__":
    tf.test.main()
