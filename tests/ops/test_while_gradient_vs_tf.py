"""Optional cross-check: while_loop gradients against tensorflow.compat.v1's."""

import numpy as np
import pytest

import flowrt as fr

X = np.array([0.3, -0.2, 0.5])
W = np.array([1.1, 0.7, -0.4])


def _loops(m):
    x = m.placeholder(m.float64, [3])
    w = m.placeholder(m.float64, [3])
    single = m.while_loop(
        lambda i, v: i < 4, lambda i, v: (i + 1, m.sin(v) * w + v), [m.constant(0), x]
    )[1]

    def outer(i, v):
        u = m.while_loop(lambda j, u: j < 2, lambda j, u: (j + 1, u * w + 0.1), [m.constant(0), v])[
            1
        ]
        return i + 1, u * v

    nested = m.while_loop(lambda i, v: i < 3, outer, [m.constant(0), x])[1]
    capped = m.while_loop(
        lambda i, v: i < 100, lambda i, v: (i + 1, v * w), [m.constant(0), x], maximum_iterations=3
    )[1]
    fetch = []
    for y in (single, nested, capped):
        fetch.append([y] + m.gradients(m.reduce_sum(y * y), [x, w]))
    return x, w, fetch


def _run(m, graph):
    with graph.as_default():
        x, w, fetch = _loops(m)
        with m.Session() as sess:
            return sess.run(fetch, {x: X, w: W})


def test_while_gradients_match_tensorflow():
    tf = pytest.importorskip("tensorflow.compat.v1")
    ours = _run(fr, fr.Graph())
    theirs = _run(tf, tf.Graph())
    for a, b in zip(ours, theirs):
        for u, v in zip(a, b):
            np.testing.assert_allclose(u, v, rtol=1e-10, atol=1e-12)
