"""Elementwise chains: how to evaluate them, and flowrt against TensorFlow.

Run from the project root:  python benchmarks/elementwise.py [--quick] [--no-tf] [--optimizers]

1. A 10-op float32 chain (arithmetic, and one with 4 transcendental ops) on raw arrays,
   64K..4M elements: numpy on whole arrays (a temporary per op), flowrt's blocked
   program (``_core/elementwise.Program``: cache-sized blocks, 1 and 2 threads) and,
   when importable, numexpr with 1 and 2 threads. This is what decides how a fused
   group runs (docs/fusion.md).
2. Block size at 4M elements (sets ``elementwise.BLOCK``).
3. The chains through ``Session.run``: unfused, fused (as shipped), and TensorFlow 2.21
   (tf.compat.v1 graph mode) side by side in one run.
4. The target row, the 10-op arithmetic chain on 4M float32 elements: flowrt fused must
   beat TF there. Rounds alternate flowrt and TF; each gives wall time (min, median) and
   CPU time of all threads (``time.process_time``), which a loaded host distorts less.

5. Optimizer update rules (``--optimizers`` runs only this): Adam's dense update on raw
   float32 arrays, 2.5K..4M elements: numpy on whole arrays with a temporary per op (the
   rule as TF's formula reads), flowrt's rule as shipped (one compiled loop; 1 and 2
   threads) and numexpr (three ``evaluate(..., out=)`` passes, 1 and 2 threads);
   then one ``apply_gradients`` step on a fed gradient through ``Session.run``, flowrt
   and TF side by side (wall min/median and CPU of all threads).

Times are the best of several repeats, in milliseconds.
"""

from __future__ import annotations

import sys
import time
import timeit

import numpy as np

import flowrt as fr
from flowrt._core import elementwise, fusion
from flowrt.session_options import RewriterConfig
from flowrt.train import update_rules

try:
    import numexpr as ne
except ImportError:  # numexpr is not a flowrt dependency: measured only when present
    ne = None

F32 = np.float32


def best(fn, repeat=5):
    fn()
    t = timeit.timeit(fn, number=1)
    number = max(1, int(0.1 / max(t, 1e-7)))
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e3


# --------------------------------------------------------------------------------------
# The two chains, as graphs (flowrt or TF), as programs and as numexpr strings
# --------------------------------------------------------------------------------------


def arith_chain(x, fr=fr):
    """10 arithmetic ops (memory-bound: where fusion should pay most)."""
    y = x * 1.5
    y = y + x
    y = y - 0.25
    y = fr.square(y)
    y = y * x
    y = fr.abs(y)
    y = fr.maximum(y, 0.1)
    y = y / (x + 3.0)
    return -y


def trans_chain(x, fr=fr):
    """10 ops, 4 of them transcendental (exp, tanh, sigmoid's exp)."""
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


def _program(build):
    """The chain's fused program, taken from a flowrt plan (what Session.run runs)."""
    from flowrt._core.plan import Plan

    with fr.Graph().as_default():
        x = fr.placeholder(fr.float32, [None])
        (st,) = Plan([build(x)], [], [x]).steps
        consts = [t.op.get_attr("value") for t in _ext_tensors(st)]
        return st.kernel.program, consts


def _ext_tensors(st):
    ops = st.kernel.ops
    seen, out = set(), []
    for op in ops:
        for t in op.inputs:
            if t.op not in ops and t not in seen and t.op.type == "Const":
                seen.add(t)
                out.append(t)
    return out


_NE = {
    arith_chain: "-(where(abs((((x * 1.5) + x) - 0.25)**2 * x) >= 0.1, "
    "abs((((x * 1.5) + x) - 0.25)**2 * x), 0.1) / (x + 3.0))",
    trans_chain: "-(abs(where(s >= 0.1, s, 0.1)**2) - 1.0)",
}
_NE_PRE = {trans_chain: "1 / (1 + exp(-(tanh(exp(x * 1.5)) + x)))"}


def raw(sizes):
    print("1. 10-op float32 chain on raw arrays (ms)")
    for build in (arith_chain, trans_chain):
        name = build.__name__.split("_")[0]
        prog, consts = _program(build)
        print(
            "%-6s %9s %8s %8s %8s %8s %8s"
            % (name, "size", "numpy", "blk-1t", "blk-2t", "ne-1t", "ne-2t")
        )
        for n in sizes:
            x = np.random.default_rng(0).standard_normal(n).astype(F32)
            xs = _inputs(prog, x, consts)
            with np.errstate(all="ignore"):
                t_np = best(lambda x=x, b=build: b(x, fr=_NumpyFr))
                row = [t_np]
                for par in (1 << 62, 0):
                    saved = elementwise.PARALLEL_MIN_SIZE
                    elementwise.PARALLEL_MIN_SIZE = par
                    try:
                        row.append(best(lambda xs=xs, p=prog: p(xs, np.dtype(F32))))
                    finally:
                        elementwise.PARALLEL_MIN_SIZE = saved
                for th in (1, 2):
                    row.append(_ne_time(build, x, th))
            print(
                "%-6s %9d" % ("", n)
                + "".join("%9s" % ("-" if v is None else "%.2f" % v) for v in row)
            )


def _inputs(prog, x, consts):
    # External inputs in first-use order: x is the first operand of the chain's first op.
    return [x] + [np.asarray(c, F32) for c in consts]


def _ne_time(build, x, threads):
    if ne is None:
        return None
    ne.set_num_threads(threads)
    pre = _NE_PRE.get(build)
    if pre is None:
        return best(lambda: ne.evaluate(_NE[build], local_dict={"x": x}))
    return best(
        lambda: ne.evaluate(_NE[build], local_dict={"s": ne.evaluate(pre, local_dict={"x": x})})
    )


class _NumpyFr:
    """The chain's functions in numpy, for the whole-array baseline."""

    exp, tanh, square, abs, maximum = np.exp, np.tanh, np.square, np.abs, np.maximum

    @staticmethod
    def sigmoid(x):
        return 1 / (1 + np.exp(-x))


def blocks(n):
    print("\n2. block size, arithmetic chain, %d elements, 1 thread / 2 threads (ms)" % n)
    prog, consts = _program(arith_chain)
    x = np.random.default_rng(0).standard_normal(n).astype(F32)
    xs = _inputs(prog, x, consts)
    saved = elementwise.BLOCK, elementwise.PARALLEL_MIN_SIZE
    try:
        for b in (1 << 12, 1 << 13, 1 << 14, 1 << 15, 1 << 16, 1 << 18):
            elementwise.BLOCK = b
            row = []
            for par in (1 << 62, 0):
                elementwise.PARALLEL_MIN_SIZE = par
                row.append(best(lambda: prog(xs, np.dtype(F32))))
            print("%9d %8.2f %8.2f" % (b, *row))
    finally:
        elementwise.BLOCK, elementwise.PARALLEL_MIN_SIZE = saved


def session_config(fused):
    """A session configuration with flowrt's elementwise fusion on or off."""
    remapping = RewriterConfig.DEFAULT if fused else RewriterConfig.OFF
    return fr.ConfigProto(
        graph_options=fr.GraphOptions(rewrite_options=RewriterConfig(remapping=remapping))
    )


def fr_time(n, build, fused):
    with fr.Graph().as_default():
        x = fr.placeholder(fr.float32, [None])
        y = build(x)
        xv = np.random.default_rng(0).standard_normal(n).astype(F32)
        with fr.Session(config=session_config(fused)) as sess:
            return best(lambda: sess.run(y, {x: xv}))


def tf_time(n, build):
    try:
        import tensorflow.compat.v1 as tf
    except ImportError:
        return None
    tf.disable_eager_execution()
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None])
        y = build(x, fr=tf)
        xv = np.random.default_rng(0).standard_normal(n).astype(F32)
        with tf.Session() as sess:
            return best(lambda: sess.run(y, {x: xv}))


def sessions(sizes, with_tf):
    print("\n3. 10-op float32 chain through Session.run (ms; TF 2.21 in the same run)")
    print("%-6s %9s %9s %9s %9s %9s" % ("chain", "size", "unfused", "fused", "tf-2.21", "tf/fused"))
    for build in (arith_chain, trans_chain):
        for n in sizes:
            u, f = fr_time(n, build, False), fr_time(n, build, True)
            t = tf_time(n, build) if with_tf else None
            print(
                "%-6s %9d %9.3f %9.3f %9s %9s"
                % (
                    build.__name__.split("_")[0],
                    n,
                    u,
                    f,
                    "-" if t is None else "%.3f" % t,
                    "-" if t is None else "%.2f" % (t / f),
                )
            )


def _wall_cpu(run, k=15):
    for _ in range(3):
        run()
    w, c = [], []
    for _ in range(k):
        t0, c0 = time.perf_counter(), time.process_time()
        run()
        w.append(time.perf_counter() - t0)
        c.append(time.process_time() - c0)
    w.sort()
    c.sort()
    return w[0] * 1e3, w[k // 2] * 1e3, c[0] * 1e3, c[k // 2] * 1e3


def target(rounds, with_tf, n=1 << 22):
    print("\n4. target: 10-op arithmetic chain, %d float32 elements (ms)" % n)
    print("%-6s %-8s %9s %9s %9s %9s" % ("round", "", "wall-min", "wall-med", "cpu-min", "cpu-med"))
    xv = np.random.default_rng(0).standard_normal(n).astype(F32)
    for r in range(rounds):
        rows = {}
        for fused in (True, False):
            with fr.Graph().as_default():
                x = fr.placeholder(fr.float32, [None])
                y = arith_chain(x)
                with fr.Session(config=session_config(fused)) as sess:
                    rows["fused" if fused else "unfused"] = _wall_cpu(
                        lambda s=sess, y=y, x=x: s.run(y, {x: xv})
                    )
        if with_tf:
            try:
                import tensorflow.compat.v1 as tf
            except ImportError:
                tf = None
            if tf is not None:
                tf.disable_eager_execution()
                with tf.Graph().as_default():
                    x = tf.placeholder(tf.float32, [None])
                    y = arith_chain(x, fr=tf)
                    with tf.Session() as sess:
                        rows["tf-2.21"] = _wall_cpu(lambda s=sess, y=y, x=x: s.run(y, {x: xv}))
        for k, v in rows.items():
            print("%-6d %-8s %9.2f %9.2f %9.2f %9.2f" % (r, k, *v))


_ADAM = dict(
    lr=1e-3, beta1=0.9, beta2=0.999, epsilon=1e-8, beta1_power=0.9**3, beta2_power=0.999**3
)


def _adam_numpy(g, w, m, v):
    """Adam on whole arrays as TF's formula reads (a temporary per op)."""
    s = {k: F32(x) for k, x in _ADAM.items()}
    alpha = F32(s["lr"] * np.sqrt(1 - s["beta2_power"]) / (1 - s["beta1_power"]))
    m += (g - m) * (1 - s["beta1"])
    v += (g * g - v) * (1 - s["beta2"])
    w -= m * alpha / (np.sqrt(v) + s["epsilon"])


def _adam_flowrt(g, w, m, v):
    """flowrt's kernel body: the one rule, a compiled loop (blocks on helper threads
    from ``update_rules.PARALLEL_MIN_SIZE``)."""
    from flowrt.train import apply_ops as opt

    s = {k: F32(x) for k, x in _ADAM.items()}
    opt._adam_dense([w, m, v], s, g)


def _adam_numexpr(g, w, m, v):
    s = {k: F32(x) for k, x in _ADAM.items()}
    alpha = F32(s["lr"] * np.sqrt(1 - s["beta2_power"]) / (1 - s["beta1_power"]))
    c1, c2, eps = F32(1 - s["beta1"]), F32(1 - s["beta2"]), s["epsilon"]
    env = {"g": g, "w": w, "m": m, "v": v, "c1": c1, "c2": c2, "alpha": alpha, "eps": eps}
    ne.evaluate("m + (g - m) * c1", local_dict=env, out=m)
    ne.evaluate("v + (g * g - v) * c2", local_dict=env, out=v)
    ne.evaluate("w - m * alpha / (sqrt(v) + eps)", local_dict=env, out=w)


def _apply_adam_session(tf, n, rounds_out):
    with tf.Graph().as_default():
        w = tf.Variable(np.zeros(n, F32), name="w")
        g = tf.placeholder(tf.float32, [n])
        op = tf.train.AdamOptimizer(1e-3).apply_gradients([(g, w)])
        gv = np.random.default_rng(0).standard_normal(n).astype(F32)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            rounds_out.append(_wall_cpu(lambda: sess.run(op, {g: gv}), k=41))


def optimizers(sizes, with_tf, rounds=2):
    print("\n5. Adam dense update, float32 (ms)")
    print("%9s %8s %8s %8s %8s %8s" % ("size", "numpy", "fr-1t", "fr-2t", "ne-1t", "ne-2t"))
    r = np.random.default_rng(0)
    for n in sizes:
        arrs = [r.standard_normal(n).astype(F32) for _ in range(4)]
        arrs[3] = np.abs(arrs[3])
        row = [best(lambda a=arrs: _adam_numpy(*a))]
        saved = update_rules.PARALLEL_MIN_SIZE
        for par in (1 << 62, 0):
            update_rules.PARALLEL_MIN_SIZE = par
            try:
                row.append(best(lambda a=arrs: _adam_flowrt(*a)))
            finally:
                update_rules.PARALLEL_MIN_SIZE = saved
        for th in (1, 2):
            if ne is None:
                row.append(None)
                continue
            ne.set_num_threads(th)
            row.append(best(lambda a=arrs: _adam_numexpr(*a)))
        print("%9d" % n + "".join("%9s" % ("-" if v is None else "%.3f" % v) for v in row))
    tf = None
    if with_tf:
        try:
            import tensorflow.compat.v1 as tf

            tf.disable_eager_execution()
        except ImportError:
            tf = None
    print("\n   Adam apply_gradients step through Session.run (ms; rounds alternate)")
    print("%9s %-8s %9s %9s %9s %9s" % ("size", "", "wall-min", "wall-med", "cpu-min", "cpu-med"))
    for n in sizes:
        for _ in range(rounds):
            got: dict = {"flowrt": [], "tf-2.21": []}
            _apply_adam_session(fr, n, got["flowrt"])
            if tf is not None:
                _apply_adam_session(tf, n, got["tf-2.21"])
            for k, v in got.items():
                if v:
                    print("%9d %-8s %9.3f %9.3f %9.3f %9.3f" % (n, k, *v[0]))


def main():
    quick = "--quick" in sys.argv
    with_tf = "--no-tf" not in sys.argv
    print(
        "BLOCK=%d PARALLEL_MIN_SIZE=%d THREADS=%d FUSED_MIN_SIZE=%d numexpr=%s"
        % (
            elementwise.BLOCK,
            elementwise.PARALLEL_MIN_SIZE,
            elementwise.THREADS,
            fusion.FUSED_MIN_SIZE,
            "-" if ne is None else ne.__version__,
        )
    )
    opt_sizes = [2560, 784 * 256, 1 << 20, 1 << 22] if not quick else [2560, 784 * 256]
    if "--optimizers" in sys.argv:
        optimizers(opt_sizes, with_tf)
        return
    sizes = [1 << 16, 1 << 18, 1 << 20, 1 << 22] if not quick else [1 << 16, 1 << 20]
    raw(sizes)
    blocks(1 << 22 if not quick else 1 << 20)
    sessions(([1 << 10, 1 << 13] if not quick else []) + sizes, with_tf)
    target(3 if not quick else 1, with_tf)
    optimizers(opt_sizes, with_tf)


if __name__ == "__main__":
    main()
