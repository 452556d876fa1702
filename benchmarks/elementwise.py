"""Elementwise kernels: numpy vs numexpr per op, and fused vs unfused chains.

Run from the project root:  python benchmarks/elementwise.py [--quick]

1. One binary op (float32 ``x * y``) with numpy and with numexpr across sizes: where
   numexpr starts to win sets ``_core/elementwise.NUMEXPR_MIN_SIZE``.
2. A chain of 10 elementwise ops run by a Session, unfused (one step per op, each
   choosing numpy/numexpr by size), fused with the numexpr program forced, and fused
   as shipped (numexpr from ``fusion.FUSED_MIN_SIZE`` on, else the kernels one by one):
   where forced fusion starts to win sets ``FUSED_MIN_SIZE``.
3. The same chain in TensorFlow 2.21 (tf.compat.v1 graph mode) when importable.

Times are the best of several runs, in microseconds per run.
"""

from __future__ import annotations

import sys
import timeit

import numexpr as ne
import numpy as np

import flowrt as fr
from flowrt._core import elementwise, fusion


def best(fn, number=None, repeat=5):
    fn()
    if number is None:
        t = timeit.timeit(fn, number=1)
        number = max(1, int(0.05 / max(t, 1e-7)))
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e6


def single_op(sizes):
    print("1. float32 x * y: numpy vs numexpr (us per call, %d numexpr threads)"
          % ne.get_num_threads())
    print("%10s %12s %12s %8s" % ("size", "numpy", "numexpr", "ratio"))
    for n in sizes:
        x = np.random.default_rng(0).standard_normal(n).astype(np.float32)
        y = x + 1
        t_np = best(lambda: np.multiply(x, y))
        t_ne = best(lambda: ne.evaluate("x * y", local_dict={"x": x, "y": y}))
        print("%10d %12.1f %12.1f %8.2f" % (n, t_np, t_ne, t_np / t_ne))


def chain(x):
    """10 elementwise ops, all with numexpr templates."""
    y = x * 1.5
    y = fr.exp(y)
    y = fr.tanh(y)
    y = y + x
    y = fr.sigmoid(y)
    y = fr.maximum(y, 0.1)
    y = fr.square(y)
    y = fr.abs(y)
    y = y - 1.0
    return -y


def fr_chain_time(n, mode):
    """mode: 'unfused', 'forced' (fused, numexpr at any size) or 'shipped'."""
    saved = fusion.ENABLED, fusion.FUSED_MIN_SIZE
    fusion.ENABLED = mode != "unfused"
    if mode == "forced":
        fusion.FUSED_MIN_SIZE = 0
    try:
        with fr.Graph().as_default():
            x = fr.placeholder(fr.float32, [None])
            y = chain(x)
            xv = np.random.default_rng(0).standard_normal(n).astype(np.float32)
            with fr.Session() as sess:
                sess.run(y, {x: xv})
                return best(lambda: sess.run(y, {x: xv}))
    finally:
        fusion.ENABLED, fusion.FUSED_MIN_SIZE = saved


def tf_chain_time(n):
    try:
        import tensorflow.compat.v1 as tf
    except ImportError:
        return None
    tf.disable_eager_execution()
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None])
        y = chain_tf(tf, x)
        xv = np.random.default_rng(0).standard_normal(n).astype(np.float32)
        with tf.Session() as sess:
            sess.run(y, {x: xv})
            return best(lambda: sess.run(y, {x: xv}))


def chain_tf(tf, x):
    y = x * 1.5
    y = tf.exp(y)
    y = tf.tanh(y)
    y = y + x
    y = tf.sigmoid(y)
    y = tf.maximum(y, 0.1)
    y = tf.square(y)
    y = tf.abs(y)
    y = y - 1.0
    return -y


def chains(sizes, with_tf=True):
    print("\n2. 10-op float32 chain through Session.run (us per run)")
    print("%10s %12s %12s %12s %12s" % ("size", "unfused", "fused-forced", "fused", "tf-2.21"))
    for n in sizes:
        u = fr_chain_time(n, "unfused")
        f = fr_chain_time(n, "forced")
        s = fr_chain_time(n, "shipped")
        t = tf_chain_time(n) if with_tf else None
        print("%10d %12.1f %12.1f %12.1f %12s" % (n, u, f, s, "-" if t is None
                                                  else "%.1f" % t))


def main():
    quick = "--quick" in sys.argv
    print("NUMEXPR_MIN_SIZE=%d FUSED_MIN_SIZE=%d" % (elementwise.NUMEXPR_MIN_SIZE,
                                                   fusion.FUSED_MIN_SIZE))
    single_op([2 ** k for k in range(8, 23, 2)] if not quick else [1024, 65536])
    sizes = [10 ** k for k in range(3, 8)] if not quick else [1000, 100000]
    chains([1000, 4096, 16384, 65536] + sizes[2:] if not quick else sizes,
           with_tf="--no-tf" not in sys.argv)


if __name__ == "__main__":
    main()
