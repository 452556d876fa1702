"""conv2d forward + backward on a small batch: flowrt vs TensorFlow 2.21 side by side.

Run from the project root:  python benchmarks/conv.py [--quick] [--threads N]

The network is the usual MNIST front end: x [32, 28, 28, 1] -> conv 5x5x32 SAME ->
relu -> max_pool 2x2 -> conv 5x5x64 SAME -> relu -> max_pool 2x2 -> sum. One step runs
the forward pass and the gradients of the sum with respect to the input and both
filters (Conv2D, Conv2DBackpropInput, Conv2DBackpropFilter, MaxPool, MaxPoolGrad).

Also timed: the forward pass alone, and each conv layer's three kernels on their own.
Times are the best of several runs, in milliseconds per step. TF (tf.compat.v1 graph
mode) runs in the same process when importable; figures are noisy on a shared machine,
so compare the ratios of one run. ``--threads N`` sets both sessions'
``intra_op_parallelism_threads`` (flowrt: the BLAS threads; TF: its op thread pool, with
one inter-op thread): on an oversubscribed machine two BLAS threads that wait for each
other can turn a 1 ms matmul into a second, and ``--threads 1`` gives steadier figures.
"""

from __future__ import annotations

import os
import sys
import timeit

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import flowrt as fr


def best_ms(fn, repeat):
    fn()
    n = max(1, int(0.3 / max(timeit.timeit(fn, number=1), 1e-6)))
    return min(timeit.repeat(fn, number=n, repeat=repeat)) / n * 1e3


def build(m, batch):
    x = m.placeholder(m.float32, [batch, 28, 28, 1])
    r = np.random.default_rng(0)
    f1 = m.Variable(r.standard_normal((5, 5, 1, 32)).astype(np.float32) * 0.1)
    f2 = m.Variable(r.standard_normal((5, 5, 32, 64)).astype(np.float32) * 0.05)
    h1 = m.nn.conv2d(x, f1, [1, 1, 1, 1], "SAME")
    p1 = m.nn.max_pool(m.nn.relu(h1), [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    h2 = m.nn.conv2d(p1, f2, [1, 1, 1, 1], "SAME")
    p2 = m.nn.max_pool(m.nn.relu(h2), [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    loss = m.reduce_sum(p2)
    grads = m.gradients(loss, [x, f1, f2])
    g2 = m.placeholder(m.float32, [batch, 14, 14, 64])
    layer2 = [
        m.nn.conv2d(p1, f2, [1, 1, 1, 1], "SAME"),
        m.nn.conv2d_backprop_input([batch, 14, 14, 32], f2, g2, [1, 1, 1, 1], "SAME"),
        m.nn.conv2d_backprop_filter(p1, [5, 5, 32, 64], g2, [1, 1, 1, 1], "SAME"),
    ]
    return x, g2, loss, grads, layer2


def measure(m, batch, repeat, threads):
    config = None
    if threads:
        config = m.ConfigProto(intra_op_parallelism_threads=threads, inter_op_parallelism_threads=1)
    with m.Graph().as_default():
        x, g2, loss, grads, layer2 = build(m, batch)
        xv = np.random.default_rng(1).standard_normal((batch, 28, 28, 1)).astype(np.float32)
        gv = np.random.default_rng(2).standard_normal((batch, 14, 14, 64)).astype(np.float32)
        with m.Session(config=config) as s:
            s.run(m.global_variables_initializer())
            feed = {x: xv, g2: gv}
            row = {
                "forward": best_ms(lambda: s.run(loss, {x: xv}), repeat),
                "forward+backward": best_ms(lambda: s.run([loss, grads], {x: xv}), repeat),
                "conv2 Conv2D": best_ms(lambda: s.run(layer2[0], feed), repeat),
                "conv2 BackpropInput": best_ms(lambda: s.run(layer2[1], feed), repeat),
                "conv2 BackpropFilter": best_ms(lambda: s.run(layer2[2], feed), repeat),
            }
            out_fr = s.run(grads, {x: xv})
    return row, out_fr


def main():
    quick = "--quick" in sys.argv
    threads = int(sys.argv[sys.argv.index("--threads") + 1]) if "--threads" in sys.argv else 0
    batch, repeat = (8, 3) if quick else (32, 5)
    try:
        import tensorflow.compat.v1 as tf

        tf.disable_eager_execution()
    except ImportError:
        tf = None
    rows = {"flowrt": measure(fr, batch, repeat, threads)}
    if tf is not None:
        rows["tf 2.21"] = measure(tf, batch, repeat, threads)
        for a, b in zip(rows["flowrt"][1], rows["tf 2.21"][1]):
            np.testing.assert_allclose(a, b, rtol=2e-3, atol=2e-3)
    print(
        "conv2d forward+backward, batch %d, [%d,28,28,1] -> 5x5x32 SAME -> pool -> 5x5x64 "
        "SAME -> pool (ms per step, best of %d; %s)"
        % (
            batch,
            batch,
            repeat,
            "%d intra-op thread(s)" % threads if threads else "default threads",
        )
    )
    names = list(rows)
    print(
        "%-24s" % ""
        + "".join("%12s" % n for n in names)
        + ("%14s" % "flowrt/tf" if len(names) == 2 else "")
    )
    for key in rows["flowrt"][0]:
        vals = [rows[n][0][key] for n in names]
        ratio = "%14.2f" % (vals[0] / vals[1]) if len(vals) == 2 else ""
        print("%-24s" % key + "".join("%12.2f" % v for v in vals) + ratio)
    if tf is not None:
        print("(gradients agree with TF within 2e-3)")


if __name__ == "__main__":
    main()
