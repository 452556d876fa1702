"""The public annotations as a user's type checker sees them: TF1 code type-checks
unchanged, and a misspelt keyword or an argument of the wrong type is an error.

mypy (a dev dependency) checks two small user files with the repository's config; the
test is skipped where mypy is not installed. It shares the repository's mypy cache, which
CI fills by running ``mypy`` before the tests, so it takes a second there.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("mypy")

ROOT = Path(__file__).resolve().parent.parent

# TF1 code that must type-check as it is: values, variables, gradients (which may be
# None), queues, readers, control flow and sessions, as TF1 programs write them.
GOOD = """
import numpy as np

import flowrt as tf

x = tf.placeholder(tf.float32, [None, 784], name="x")
labels = tf.placeholder(tf.int64, [None])
with tf.variable_scope("layer1", reuse=tf.AUTO_REUSE):
    w = tf.get_variable("w", [784, 10], initializer=tf.zeros_initializer())
    b = tf.get_variable("b", [10], initializer=tf.constant_initializer(0.1))
logits = tf.matmul(x, w) + b
loss = tf.reduce_mean(
    tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
)
(g,) = tf.gradients(loss, [w])
second = tf.gradients(g, w)
clipped, norm = tf.clip_by_global_norm([g], 5.0)
v = tf.Variable(np.zeros([3], np.float32), name="v")
step = tf.assign_add(v, [1.0, 2.0, 3.0])
z = tf.zeros([tf.shape(x)[0], 4])
img = tf.reshape(x, [-1, 28, 28, 1])
conv = tf.nn.conv2d(img, tf.zeros([3, 3, 1, 8]), strides=[1, 1, 1, 1], padding="SAME")
pool = tf.nn.max_pool(conv, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")
r = tf.cond(tf.constant(True), lambda: x, lambda: x * 2)
i = tf.while_loop(lambda i: i < 10, lambda i: i + 1, [tf.constant(0)])
q = tf.FIFOQueue(10, [tf.float32], shapes=[[]])
enqueue = q.enqueue([1.0])
more = q.dequeue() + 1.0
halves = tf.split(x, 2, axis=1)
both = tf.concat([x, x], axis=1)
dense = tf.sparse_tensor_to_dense(tf.SparseTensor([[0, 0]], [1.0], [2, 2]))
out = tf.py_func(lambda a: a, [x], tf.float32)
out.set_shape([None, 784])
top = tf.nn.top_k(logits, k=2).values
casts = [tf.cast(x, tf.int32), tf.cast(x, "float64"), tf.cast(x, np.float64)]
with tf.control_dependencies([step]):
    after = tf.identity(x)
init = tf.global_variables_initializer()
with tf.Session() as sess:
    sess.run(init)
    value = v.eval(sess)
    v.load([1.0, 2.0, 3.0], sess)
"""

# Misuse, one error per marked line: ``# E: <mypy error code>``.
BAD = """
import flowrt as tf

x = tf.placeholder(tf.float32)
tf.assert_equal(x, x, messag="typo")  # E: call-arg
tf.assert_positive(x, summarize="3")  # E: arg-type
tf.zeros([2], name=3)  # E: arg-type
tf.get_variable(3)  # E: arg-type
tf.reduce_sum(x, keepdims="yes")  # E: arg-type
tf.Variable(1.0, trainable="yes")  # E: arg-type
tf.nn.relu(x, nmae="r")  # E: call-arg
tf.FIFOQueue("10", [tf.float32])  # E: arg-type
tf.gradients(x, x, unconnected_gradients=0)  # E: arg-type
"""


def _mypy(*files: Path) -> list[tuple[str, int, str]]:
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml")]
        + ["--cache-dir", str(ROOT / ".mypy_cache"), "--no-error-summary"]
        + [str(f) for f in files],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    found = re.findall(r"^(.*?):(\d+): error: .*\[([a-z-]+)\]$", proc.stdout, re.M)
    assert found or proc.returncode == 0, proc.stdout + proc.stderr
    return [(Path(f).name, int(line), code) for f, line, code in found]


def test_tf1_code_type_checks_and_misuse_is_caught(tmp_path: Path) -> None:
    good, bad = tmp_path / "good.py", tmp_path / "bad.py"
    good.write_text(textwrap.dedent(GOOD))
    bad.write_text(BAD)
    expected = [
        ("bad.py", n, m.group(1))
        for n, text in enumerate(BAD.splitlines(), 1)
        if (m := re.search(r"# E: ([a-z-]+)$", text))
    ]
    assert sorted(_mypy(good, bad)) == sorted(expected)
