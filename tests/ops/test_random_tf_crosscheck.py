"""Optional cross-check of the random ops against TensorFlow (skipped when it is
missing): the same seeded programs give the same bits, run after run, in two sessions.
tests/ops/test_philox_streams.py checks recorded values without TensorFlow."""

import numpy as np
import pytest

import flowrt as fr

tf = pytest.importorskip("tensorflow.compat.v1")
tf.disable_eager_execution()

SIZES = [0, 1, 3, 4, 5, 7, 17, 1001]
SEEDS = [(None, 3), (1, None), (5, 2**31 - 2)]  # (graph seed, op seed)


def _ops(m, dtype, size, op_seed):
    if dtype in ("int32", "int64"):
        lo, hi = (-7, 1000) if dtype == "int32" else (-(2**40), 2**45)
        return [m.random_uniform([size], lo, hi, dtype=getattr(m, dtype), seed=op_seed)]
    dt = getattr(m, dtype)
    return [
        m.random_uniform([size], -2.0, 3.0, dtype=dt, seed=op_seed),
        m.random_normal([size], 1.0, 2.0, dtype=dt, seed=op_seed),
        m.truncated_normal([size], dtype=dt, seed=op_seed),
    ]


def _values(m, build, init=False):
    with m.Graph().as_default():
        ts = build(m)
        out = []
        for _ in range(2):
            with m.Session() as sess:
                if init:
                    sess.run(m.global_variables_initializer())
                out.append([sess.run(ts) for _ in range(2)])
    return [np.asarray(v) for v in _flat(out)]


def _flat(x):
    if isinstance(x, (list, tuple)):
        return [v for item in x for v in _flat(item)]
    return [x]


def _assert_same_bits(build, init=False):
    want, got = _values(tf, build, init), _values(fr, build, init)
    assert len(want) == len(got)
    for i, (w, g) in enumerate(zip(want, got)):
        assert w.dtype == g.dtype and w.shape == g.shape, i
        assert w.tobytes() == g.tobytes(), (i, w.ravel()[:4], g.ravel()[:4])


@pytest.mark.parametrize("seeds", SEEDS)
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int32", "int64"])
def test_samplers_match_tensorflow_bit_for_bit(dtype, seeds):
    graph_seed, op_seed = seeds

    def build(m):
        if graph_seed is not None:
            m.set_random_seed(graph_seed)
        return [t for size in SIZES for t in _ops(m, dtype, size, op_seed)]

    _assert_same_bits(build)


def test_initializers_dropout_and_dense_layers_match_tensorflow():
    def build(m):
        m.set_random_seed(42)
        inits = [
            m.glorot_uniform_initializer(),
            m.glorot_normal_initializer(seed=1),
            m.truncated_normal_initializer(0.0, 0.1, seed=3),
            m.random_normal_initializer(1.0, 2.0),
            m.random_uniform_initializer(-0.5, 0.5),
            m.variance_scaling_initializer(),
        ]
        vs = [m.get_variable("v%d" % i, [13, 7], initializer=f) for i, f in enumerate(inits)]
        with m.variable_scope("dense"):  # what tf.layers.dense creates by default
            vs.append(m.get_variable("kernel", [6, 8]))
        x = m.ones([4, 10])
        return vs + [m.nn.dropout(x, rate=0.3, seed=5), m.nn.dropout(x, rate=0.5)]

    _assert_same_bits(build, init=True)


STATELESS_SEEDS = [[1, 2], [-3, 7], np.array([2**40 + 5, -(2**35)]), np.array([0, 0], np.int32)]


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int32", "int64"])
def test_stateless_samplers_match_tensorflow_bit_for_bit(dtype):
    def build(m):
        dt, out = getattr(m, dtype), []
        for seed in STATELESS_SEEDS:
            for size in SIZES:
                if dtype in ("int32", "int64"):
                    lo, hi = (-7, 1000) if dtype == "int32" else (-(2**40), 2**45)
                    out.append(m.random.stateless_uniform([size], seed, lo, hi, dtype=dt))
                    out.append(m.random.stateless_uniform([size], seed, None, None, dtype=dt))
                    continue
                out.append(m.random.stateless_uniform([size], seed, -2.0, 3.0, dtype=dt))
                out.append(m.random.stateless_normal([size], seed, 1.0, 2.0, dtype=dt))
                out.append(m.random.stateless_truncated_normal([size], seed, dtype=dt))
        return out

    _assert_same_bits(build)
