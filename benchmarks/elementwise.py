"""Elementwise kernels: numpy vs numexpr per op, and fused vs unfused chains.

Run from the project root:  python benchmarks/elementwise.py [--quick]

1. One binary op (float32 ``x * y``) with numpy and with numexpr across sizes: where
   numexpr starts to win sets ``_core/elementwise.NUMEXPR_MIN_SIZE``.
2. Chains of 10 elementwise ops (transcendental-heavy, and arithmetic only) run by a
   Session: unfused with numpy kernels only, unfused as shipped (each op choosing
   numpy/numexpr by size), fused with the numexpr program forced, and fused as shipped
   (numexpr from ``fusion.FUSED_MIN_SIZE`` on, else the kernels one by one): where the
   forced fusion beats numpy sets ``FUSED_MIN_SIZE``.
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


def best(fn, number=None, repeat=7):
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
        t_np = best(lambda x=x, y=y: np.multiply(x, y))
        t_ne = best(lambda x=x, y=y: ne.evaluate("x * y", local_dict={"x": x, "y": y}))
        print("%10d %12.1f %12.1f %8.2f" % (n, t_np, t_ne, t_np / t_ne))


def chain(x, fr=fr):
    """10 elementwise ops, all with numexpr templates, 4 of them transcendental."""
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


def arith_chain(x, fr=fr):
    """10 arithmetic elementwise ops (memory-bound: where fusion should pay most)."""
    y = x * 1.5
    y = y + x
    y = y - 0.25
    y = fr.square(y)
    y = y * x
    y = fr.abs(y)
    y = fr.maximum(y, 0.1)
    y = y / (x + 3.0)
    return -y


def fr_chain_time(n, mode, build=chain):
    """mode: 'numpy' (unfused, numpy kernels only), 'unfused' (per-op numpy/numexpr by
    size), 'forced' (fused, numexpr at any size) or 'shipped' (fused as configured)."""
    saved = (fusion.ENABLED, fusion.FUSED_MIN_SIZE, fusion.FUSED_MIN_SIZE_TRANSCENDENTAL,
             elementwise.NUMEXPR_MIN_SIZE)
    fusion.ENABLED = mode in ("forced", "shipped")
    if mode == "forced":
        fusion.FUSED_MIN_SIZE = fusion.FUSED_MIN_SIZE_TRANSCENDENTAL = 0
    if mode == "numpy":
        elementwise.NUMEXPR_MIN_SIZE = 1 << 62
    try:
        with fr.Graph().as_default():
            x = fr.placeholder(fr.float32, [None])
            y = build(x)
            xv = np.random.default_rng(0).standard_normal(n).astype(np.float32)
            with fr.Session() as sess:
                sess.run(y, {x: xv})
                return best(lambda: sess.run(y, {x: xv}))
    finally:
        (fusion.ENABLED, fusion.FUSED_MIN_SIZE, fusion.FUSED_MIN_SIZE_TRANSCENDENTAL,
         elementwise.NUMEXPR_MIN_SIZE) = saved


def tf_chain_time(n, build=chain):
    try:
        import tensorflow.compat.v1 as tf
    except ImportError:
        return None
    tf.disable_eager_execution()
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None])
        y = build(x, fr=tf)
        xv = np.random.default_rng(0).standard_normal(n).astype(np.float32)
        with tf.Session() as sess:
            sess.run(y, {x: xv})
            return best(lambda: sess.run(y, {x: xv}))


def chains(sizes, with_tf=True):
    for title, build in (("transcendental", chain), ("arithmetic", arith_chain)):
        print("\n2. 10-op float32 %s chain through Session.run (us per run)" % title)
        print("%10s %10s %10s %10s %10s %10s" % ("size", "numpy", "unfused", "fused-ne",
                                                 "fused", "tf-2.21"))
        for n in sizes:
            row = [fr_chain_time(n, m, build) for m in ("numpy", "unfused", "forced",
                                                        "shipped")]
            t = tf_chain_time(n, build) if with_tf else None
            print("%10d %10.1f %10.1f %10.1f %10.1f %10s" % (n, *row, "-" if t is None
                                                            else "%.1f" % t))


def main():
    quick = "--quick" in sys.argv
    print("NUMEXPR_MIN_SIZE=%d FUSED_MIN_SIZE=%d FUSED_MIN_SIZE_TRANSCENDENTAL=%d"
          % (elementwise.NUMEXPR_MIN_SIZE, fusion.FUSED_MIN_SIZE,
             fusion.FUSED_MIN_SIZE_TRANSCENDENTAL))
    single_op([2 ** k for k in range(8, 25, 2)] if not quick else [1024, 65536])
    sizes = [10 ** k for k in range(3, 8)] if not quick else [1000, 100000]
    chains(sizes if not quick else [1000, 100000],
           with_tf="--no-tf" not in sys.argv)


if __name__ == "__main__":
    main()
