"""Writing and reading graphs: flowrt vs TensorFlow 2.21 side by side.

Run from the project root:  python benchmarks/graph_import.py [--layers N] [--repeat R]

The graph is an MLP of N dense layers trained by Adam (about 60 ops per layer with its
gradients and slots). Timed, best of R runs, in milliseconds:

- ``as_graph_def``: the graph's ``GraphDef`` message;
- ``import_graph_def``: that ``GraphDef`` rebuilt in a fresh graph;
- ``export_meta_graph``: the ``MetaGraphDef`` (graph, variables, collections, saver);
- ``import_meta_graph``: a fresh graph and saver rebuilt from its serialized bytes.

TF (tf.compat.v1 graph mode) runs in the same process when importable; figures are noisy
on a shared machine, so compare the ratios of one run.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import flowrt as fr


def build(m, layers: int) -> None:
    x = m.placeholder(m.float32, [None, 32], name="x")
    y = m.placeholder(m.int64, [None], name="y")
    h = x
    for i in range(layers):
        w = m.Variable(np.full((32, 32), 0.01, np.float32), name="w%d" % i)
        b = m.Variable(np.zeros(32, np.float32), name="b%d" % i)
        h = m.nn.relu(m.matmul(h, w) + b)
    loss = m.reduce_mean(m.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=h))
    train = m.train.AdamOptimizer(0.01).minimize(loss)
    m.add_to_collection("train_op", train)
    m.train.Saver()


def best_ms(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times) * 1e3


def measure(m, layers: int, repeat: int) -> dict[str, float]:
    g = m.Graph()
    with g.as_default():
        build(m, layers)
    gd = g.as_graph_def()
    with g.as_default():
        meta = m.train.export_meta_graph().SerializeToString()

    def import_gd():
        with m.Graph().as_default():
            m.import_graph_def(gd, name="")

    def export_meta():
        with g.as_default():
            m.train.export_meta_graph()

    def import_meta():
        with m.Graph().as_default():
            m.train.import_meta_graph(_meta_class(m).FromString(meta))

    return {
        "ops": float(len(g.get_operations())),
        "as_graph_def": best_ms(g.as_graph_def, repeat),
        "import_graph_def": best_ms(import_gd, repeat),
        "export_meta_graph": best_ms(export_meta, repeat),
        "import_meta_graph": best_ms(import_meta, repeat),
    }


def _meta_class(m):
    if m is fr:
        from flowrt.train.meta_graph import MetaGraphDef

        return MetaGraphDef
    return m.MetaGraphDef


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--layers", type=int, default=8)
    p.add_argument("--repeat", type=int, default=5)
    a = p.parse_args()
    results = {"flowrt": measure(fr, a.layers, a.repeat)}
    try:
        import tensorflow.compat.v1 as tf

        tf.disable_eager_execution()
        results["TF 2.21"] = measure(tf, a.layers, a.repeat)
    except ImportError:
        pass
    names = list(results)
    print("%-20s" % "ms (best of %d)" % a.repeat + "".join("%12s" % n for n in names), end="")
    print("%14s" % "TF / flowrt" if len(names) == 2 else "")
    for key in (
        "ops",
        "as_graph_def",
        "import_graph_def",
        "export_meta_graph",
        "import_meta_graph",
    ):
        vals = [results[n][key] for n in names]
        row = "%-20s" % key + "".join("%12.1f" % v for v in vals)
        if len(vals) == 2 and key != "ops":
            row += "%14.2f" % (vals[1] / vals[0])
        print(row)


if __name__ == "__main__":
    main()
