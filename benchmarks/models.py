"""Training steps of models TF1 users train: flowrt vs TensorFlow 2.21 side by side.

Run from the project root:

  python benchmarks/models.py [--runs N] [--threads N] [--models cifar10,...]
                              [--profile] [--no-tf]

Each model is one row: a graph written once against the TF1 API (``m`` is ``flowrt``
or ``tensorflow.compat.v1``), its forward pass and its training step timed in each
session of one process, best of ``--runs`` and median, in ms. TF runs only when it
imports (``tensorflow-cpu``; the row says so when it does not).

The arithmetic limit of a row is its floating-point work (the convolutions' and
matmuls' multiply-adds, 2 FLOPs each, counted from the shapes) divided by this
machine's sgemm rate: numpy's float32 ``1024^3`` matmul measured here with 1 and 2
BLAS threads (threadpoolctl), the better of the two. A step cannot run faster than
that on its BLAS; the
ratio says how close each framework is to the machine.

``--profile`` adds each framework's time per op type in one traced step
(``RunOptions(trace_level=FULL_TRACE)``, step stats' ``all_end_rel_micros`` summed per
op type), the largest first, for the first model given.

The host is shared: quote ``/proc/loadavg`` (printed) with every figure.
"""

from __future__ import annotations

import argparse
import collections
import os
import statistics
import sys
import time
from typing import Any, Callable

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# --------------------------------------------------------------------------------------
# Models: build(m) -> Model (placeholders fed with fixed arrays, forward and train fetches)
# --------------------------------------------------------------------------------------


class Model:
    def __init__(self, feed: dict, forward: Any, train: Any, flops: float, fwd_flops: float):
        self.feed, self.forward, self.train = feed, forward, train
        self.flops, self.fwd_flops = flops, fwd_flops


def _var(m, rng, shape, scale):
    return m.Variable((rng.standard_normal(shape) * scale).astype(np.float32))


def _conv_flops(n, oh, ow, kh, kw, c, o):
    """Multiply-adds x 2 of one conv; its backprops (input, filter) cost the same each."""
    return 2.0 * n * oh * ow * kh * kw * c * o


def cifar10(m) -> Model:
    """The CIFAR-10 tutorial's convolutional block: batch 128 of 24x24x3, conv 5x5x3->64
    + relu, max_pool 3x3/2 SAME, lrn(4, alpha=0.001/9, beta=0.75), conv 5x5x64->64 +
    relu, max_pool 3x3/2 SAME, mean of squares, SGD."""
    rng = np.random.default_rng(0)
    n = 128
    x = m.placeholder(m.float32, [n, 24, 24, 3])
    f1 = _var(m, rng, (5, 5, 3, 64), 0.05)
    f2 = _var(m, rng, (5, 5, 64, 64), 0.05)
    b1 = m.Variable(np.full(64, 0.1, np.float32))
    b2 = m.Variable(np.full(64, 0.1, np.float32))
    h = m.nn.relu(m.nn.bias_add(m.nn.conv2d(x, f1, [1, 1, 1, 1], "SAME"), b1))
    h = m.nn.max_pool(h, [1, 3, 3, 1], [1, 2, 2, 1], "SAME")
    h = m.nn.lrn(h, 4, bias=1.0, alpha=0.001 / 9.0, beta=0.75)
    h = m.nn.relu(m.nn.bias_add(m.nn.conv2d(h, f2, [1, 1, 1, 1], "SAME"), b2))
    h = m.nn.max_pool(h, [1, 3, 3, 1], [1, 2, 2, 1], "SAME")
    loss = m.reduce_mean(m.square(h))
    train = m.train.GradientDescentOptimizer(0.01).minimize(loss)
    c1 = _conv_flops(n, 24, 24, 5, 5, 3, 64)
    c2 = _conv_flops(n, 12, 12, 5, 5, 64, 64)
    xv = rng.standard_normal((n, 24, 24, 3)).astype(np.float32)
    # training: conv1 forward + filter grad; conv2 forward + input grad + filter grad
    return Model({x: xv}, loss, [train, loss], 2 * c1 + 3 * c2, c1 + c2)


def mnist_deep(m) -> Model:
    """The TF tutorial's ``mnist_deep``: conv 5x5x1->32, pool 2x2, conv 5x5x32->64,
    pool, dense 3136->1024 + relu, dropout 0.5, dense 1024->10, softmax cross entropy,
    Adam 1e-4; batch 50."""
    rng = np.random.default_rng(0)
    n = 50
    x = m.placeholder(m.float32, [n, 784])
    y = m.placeholder(m.int64, [n])
    img = m.reshape(x, [-1, 28, 28, 1])
    w1, b1 = _var(m, rng, (5, 5, 1, 32), 0.1), m.Variable(np.full(32, 0.1, np.float32))
    w2, b2 = _var(m, rng, (5, 5, 32, 64), 0.1), m.Variable(np.full(64, 0.1, np.float32))
    w3, b3 = _var(m, rng, (3136, 1024), 0.1), m.Variable(np.full(1024, 0.1, np.float32))
    w4, b4 = _var(m, rng, (1024, 10), 0.1), m.Variable(np.full(10, 0.1, np.float32))
    h = m.nn.relu(m.nn.conv2d(img, w1, [1, 1, 1, 1], "SAME") + b1)
    h = m.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    h = m.nn.relu(m.nn.conv2d(h, w2, [1, 1, 1, 1], "SAME") + b2)
    h = m.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    h = m.nn.relu(m.matmul(m.reshape(h, [-1, 3136]), w3) + b3)
    h = m.nn.dropout(h, keep_prob=0.5, seed=1)
    logits = m.matmul(h, w4) + b4
    loss = m.reduce_mean(m.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    train = m.train.AdamOptimizer(1e-4).minimize(loss)
    c1 = _conv_flops(n, 28, 28, 5, 5, 1, 32)
    c2 = _conv_flops(n, 14, 14, 5, 5, 32, 64)
    d = 2.0 * n * (3136 * 1024 + 1024 * 10)
    feed = {
        x: rng.random((n, 784)).astype(np.float32),
        y: rng.integers(0, 10, n),
    }
    return Model(feed, loss, [train, loss], 2 * c1 + 3 * c2 + 3 * d, c1 + c2 + d)


def word2vec_nce(m) -> Model:
    """word2vec's skip-gram with NCE: vocabulary 50000, embedding 128, batch 128, 64
    sampled negatives, word ids drawn from a Zipf law (as text gives), SGD 1.0."""
    rng = np.random.default_rng(0)
    vocab, dim, n = 50000, 128, 128
    x = m.placeholder(m.int32, [n])
    y = m.placeholder(m.int64, [n, 1])
    emb = m.Variable(rng.uniform(-1, 1, (vocab, dim)).astype(np.float32))
    w = _var(m, rng, (vocab, dim), 1.0 / np.sqrt(dim))
    b = m.Variable(np.zeros(vocab, np.float32))
    e = m.nn.embedding_lookup(emb, x)
    loss = m.reduce_mean(
        m.nn.nce_loss(weights=w, biases=b, labels=y, inputs=e, num_sampled=64, num_classes=vocab)
    )
    train = m.train.GradientDescentOptimizer(1.0).minimize(loss)
    ids = np.minimum(rng.zipf(1.3, 2 * n), vocab) - 1
    feed = {x: ids[:n].astype(np.int32), y: ids[n:].reshape(n, 1).astype(np.int64)}
    f = 2.0 * n * (64 + 1) * dim
    return Model(feed, loss, [train, loss], 3 * f, f)


def _batch_norm(m, h, name):
    """Training-mode batch norm as DCGAN writes it (``fused_batch_norm``)."""
    c = h.shape.as_list()[-1]
    gamma = m.Variable(np.ones(c, np.float32), name=name + "_gamma")
    beta = m.Variable(np.zeros(c, np.float32), name=name + "_beta")
    return m.nn.fused_batch_norm(h, gamma, beta, is_training=True)[0]


def dcgan(m) -> Model:
    """A DCGAN step on 32x32x3 images, batch 64: generator z[100] -> dense 4x4x256 ->
    conv2d_transpose 5x5/2 to 8x8x128, 16x16x64, 32x32x3 (batch norm + relu, tanh);
    discriminator conv 5x5/2 3->64->128->256 (batch norm + leaky relu) -> dense 1;
    sigmoid cross entropies, Adam 2e-4 on each network (both updates in one step)."""
    rng = np.random.default_rng(0)
    n = 64
    z = m.placeholder(m.float32, [n, 100])
    real = m.placeholder(m.float32, [n, 32, 32, 3])
    w0 = _var(m, rng, (100, 4 * 4 * 256), 0.02)
    gen_f = [_var(m, rng, (5, 5, o, i), 0.02) for i, o in ((256, 128), (128, 64), (64, 3))]
    h = m.nn.relu(_batch_norm(m, m.reshape(m.matmul(z, w0), [n, 4, 4, 256]), "g0"))
    for k, f in enumerate(gen_f):
        size = 8 << k
        h = m.nn.conv2d_transpose(h, f, [n, size, size, f.shape.as_list()[2]], [1, 2, 2, 1], "SAME")
        h = m.tanh(h) if k == 2 else m.nn.relu(_batch_norm(m, h, "g%d" % (k + 1)))
    fake = h
    dis_f = [_var(m, rng, (5, 5, i, o), 0.02) for i, o in ((3, 64), (64, 128), (128, 256))]
    w_out = _var(m, rng, (4 * 4 * 256, 1), 0.02)

    def discriminate(x, reuse):
        h = x
        for k, f in enumerate(dis_f):
            h = m.nn.conv2d(h, f, [1, 2, 2, 1], "SAME")
            if k:
                h = _batch_norm(m, h, "d%d%s" % (k, reuse))
            h = m.nn.leaky_relu(h, 0.2)
        return m.matmul(m.reshape(h, [n, -1]), w_out)

    xent = m.nn.sigmoid_cross_entropy_with_logits
    d_real, d_fake = discriminate(real, "r"), discriminate(fake, "f")
    d_loss = m.reduce_mean(xent(labels=m.ones_like(d_real), logits=d_real)) + m.reduce_mean(
        xent(labels=m.zeros_like(d_fake), logits=d_fake)
    )
    g_loss = m.reduce_mean(xent(labels=m.ones_like(d_fake), logits=d_fake))
    d_vars = dis_f + [w_out]
    g_vars = [w0] + gen_f
    train = [
        m.train.AdamOptimizer(2e-4, beta1=0.5).minimize(d_loss, var_list=d_vars),
        m.train.AdamOptimizer(2e-4, beta1=0.5).minimize(g_loss, var_list=g_vars),
        d_loss,
    ]
    gen = sum(
        _conv_flops(n, 4 << k, 4 << k, 5, 5, o, i)
        for k, (i, o) in enumerate(((256, 128), (128, 64), (64, 3)))
    )
    dis = sum(
        _conv_flops(n, 32 >> (k + 1), 32 >> (k + 1), 5, 5, i, o)
        for k, (i, o) in enumerate(((3, 64), (64, 128), (128, 256)))
    )
    fwd = gen + 2 * dis
    feed = {
        z: rng.uniform(-1, 1, (n, 100)).astype(np.float32),
        real: rng.uniform(-1, 1, (n, 32, 32, 3)).astype(np.float32),
    }
    return Model(feed, d_loss, train, 3 * fwd, fwd)


def lstm(m) -> Model:
    """A 2-layer LSTM language model: 128 units, 50 steps, batch 32, vocabulary 60,
    Adam. The cell is BasicLSTMCell's arithmetic written out and unrolled (one matmul
    of [x, h] per layer and step, gates i, j, f, o, forget bias 1): TF 2.21's
    compat.v1 ``BasicLSTMCell`` needs Keras 2, which its wheel does not bring."""
    rng = np.random.default_rng(0)
    n, steps, units, vocab = 32, 50, 128, 60
    x = m.placeholder(m.int32, [n, steps])
    y = m.placeholder(m.int32, [n, steps])
    emb = _var(m, rng, (vocab, units), 0.1)
    ws = [_var(m, rng, (2 * units, 4 * units), 0.05) for _ in range(2)]
    bs = [m.Variable(np.zeros(4 * units, np.float32)) for _ in range(2)]
    w_out, b_out = _var(m, rng, (units, vocab), 0.05), m.Variable(np.zeros(vocab, np.float32))
    inputs = m.unstack(m.nn.embedding_lookup(emb, x), axis=1)
    state = [(m.zeros([n, units]), m.zeros([n, units])) for _ in range(2)]
    outs = []
    for t in range(steps):
        h_in = inputs[t]
        for layer in range(2):
            c, h = state[layer]
            gates = m.matmul(m.concat([h_in, h], 1), ws[layer]) + bs[layer]
            i, j, f, o = m.split(gates, 4, axis=1)
            c = c * m.sigmoid(f + 1.0) + m.sigmoid(i) * m.tanh(j)
            h = m.tanh(c) * m.sigmoid(o)
            state[layer] = (c, h)
            h_in = h
        outs.append(h_in)
    logits = m.matmul(m.reshape(m.stack(outs, 1), [-1, units]), w_out) + b_out
    loss = m.reduce_mean(
        m.nn.sparse_softmax_cross_entropy_with_logits(labels=m.reshape(y, [-1]), logits=logits)
    )
    train = m.train.AdamOptimizer(2e-3).minimize(loss)
    ids = rng.integers(0, vocab, (n, steps + 1))
    feed = {x: ids[:, :-1].astype(np.int32), y: ids[:, 1:].astype(np.int32)}
    fwd = 2.0 * steps * 2 * n * 2 * units * 4 * units + 2.0 * n * steps * units * vocab
    return Model(feed, loss, [train, loss], 3 * fwd, fwd)


MODELS: dict[str, Callable[[Any], Model]] = {
    "cifar10": cifar10,
    "mnist_deep": mnist_deep,
    "dcgan": dcgan,
    "lstm": lstm,
    "word2vec_nce": word2vec_nce,
}

# --------------------------------------------------------------------------------------
# Measurement
# --------------------------------------------------------------------------------------


def sgemm_gflops(threads: int, size: int = 1024, repeat: int = 5) -> float:
    """numpy's float32 ``size^3`` matmul rate with ``threads`` BLAS threads, best of
    ``repeat``."""
    from threadpoolctl import threadpool_limits

    a = np.random.default_rng(0).standard_normal((size, size)).astype(np.float32)
    with threadpool_limits(threads, user_api="blas"):
        a @ a
        best = min(_seconds(lambda: a @ a) for _ in range(repeat))
    return 2.0 * size**3 / best / 1e9


def _seconds(fn: Callable[[], Any]) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def _times(fn: Callable[[], Any], runs: int) -> tuple[float, float]:
    fn()
    fn()
    ts = [_seconds(fn) * 1e3 for _ in range(runs)]
    return min(ts), statistics.median(ts)


def _profile(m, s, fetch, feed) -> dict[str, float]:
    """ms per op type in one traced run (the mean of three)."""
    total: dict[str, float] = collections.defaultdict(float)
    for _ in range(3):
        meta = m.RunMetadata()
        s.run(
            fetch,
            feed,
            options=m.RunOptions(trace_level=m.RunOptions.FULL_TRACE),
            run_metadata=meta,
        )
        for dev in meta.step_stats.dev_stats:
            for ns in dev.node_stats:
                op = ns.timeline_label.split("(")[0].split(" = ")[-1].strip() or ns.node_name
                op = op.replace("_MklNative", "").replace("_Mkl", "")
                total[op] += ns.all_end_rel_micros / 1e3 / 3
    return dict(total)


def measure(m, build, runs: int, threads: int, profile: bool) -> dict:
    config = m.ConfigProto(intra_op_parallelism_threads=threads)
    with m.Graph().as_default():
        if hasattr(m, "set_random_seed"):
            m.set_random_seed(1)
        model = build(m)
        with m.Session(config=config) as s:
            s.run(m.global_variables_initializer())
            row = {
                "forward": _times(lambda: s.run(model.forward, model.feed), runs),
                "train": _times(lambda: s.run(model.train, model.feed), runs),
            }
            if profile:
                row["profile"] = _profile(m, s, model.train, model.feed)
    return row


def _import_tf():
    try:
        import tensorflow.compat.v1 as tf
    except ImportError:
        return None
    tf.disable_eager_execution()
    return tf


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--threads", type=int, default=0, help="intra_op_parallelism_threads")
    p.add_argument("--models", default=",".join(MODELS))
    p.add_argument("--profile", action="store_true")
    p.add_argument("--no-tf", action="store_true")
    args = p.parse_args()

    import flowrt as fr

    print("flowrt from %s" % os.path.dirname(fr.__file__))
    tf = None if args.no_tf else _import_tf()
    if tf is None and not args.no_tf:
        print("TensorFlow is not importable: flowrt's figures only")
    rate = {t: sgemm_gflops(t) for t in (1, 2)}
    print("loadavg: %s" % open("/proc/loadavg").read().strip())
    print(
        "sgemm 1024^3 float32: %.0f GFLOP/s on 1 thread, %.0f on 2; intra_op threads %s"
        % (rate[1], rate[2], args.threads or "0 (default)")
    )
    frameworks = [("flowrt", fr)] + ([("tf", tf)] if tf is not None else [])
    head = "%-13s %-8s" % ("model", "pass") + "".join(
        "%18s" % ("%s best/med" % n) for n, _ in frameworks
    )
    print(head + ("%8s" % "fr/tf" if tf else "") + "%10s" % "limit")
    for i, name in enumerate(args.models.split(",")):
        build = MODELS[name]
        prof = args.profile and i == 0
        rows = {n: measure(m, build, args.runs, args.threads, prof) for n, m in frameworks}
        with fr.Graph().as_default():
            model = build(fr)
        for pass_, flops in (("forward", model.fwd_flops), ("train", model.flops)):
            cells = "".join("%18s" % ("%.1f / %.1f" % rows[n][pass_]) for n, _ in frameworks)
            ratio = "%8.2f" % (rows["flowrt"][pass_][0] / rows["tf"][pass_][0]) if tf else ""
            limit = flops / (max(rate.values()) * 1e9) * 1e3
            print("%-13s %-8s" % (name, pass_) + cells + ratio + "%10.1f" % limit)
        if prof:
            _print_profile(rows)
    print("loadavg: %s" % open("/proc/loadavg").read().strip())


def _print_profile(rows: dict) -> None:
    names = list(rows)
    ms: dict[str, float] = collections.defaultdict(float)
    for n in names:
        for op, t in rows[n]["profile"].items():
            ms[op] = max(ms[op], t)
    ops = sorted(ms.items(), key=lambda kv: -kv[1])
    print("  per op type, ms in one traced training step:")
    print("  %-28s" % "op" + "".join("%10s" % n for n in names))
    for op, _ in ops[:18]:
        print("  %-28s" % op + "".join("%10.1f" % rows[n]["profile"].get(op, 0.0) for n in names))


if __name__ == "__main__":
    main()
