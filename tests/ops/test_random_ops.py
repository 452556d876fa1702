"""Random ops: TF1 seed semantics, per-session streams, names, distributions."""

import numpy as np
import pytest

import flowrt as fr
from flowrt.ops import random_ops


def _draws(build, runs=2, graph_seed=None):
    """Builds a fresh graph with ``build()`` and returns ``runs`` successive values from
    each of two sessions."""
    with fr.Graph().as_default():
        if graph_seed is not None:
            fr.set_random_seed(graph_seed)
        t = build()
        out = []
        for _ in range(2):
            with fr.Session() as sess:
                out.append([sess.run(t) for _ in range(runs)])
    return out


SAMPLERS = {
    "normal": lambda seed=None: fr.random_normal([3, 5], seed=seed),
    "uniform": lambda seed=None: fr.random_uniform([3, 5], -2.0, 3.0, seed=seed),
    "uniform_int": lambda seed=None: fr.random_uniform([3, 5], 0, 100, fr.int32, seed=seed),
    "truncated": lambda seed=None: fr.truncated_normal([3, 5], 1.0, 2.0, seed=seed),
    "shuffle": lambda seed=None: fr.random_shuffle(np.arange(20), seed=seed),
    "multinomial": lambda seed=None: fr.multinomial(fr.zeros([2, 10]), 6, seed=seed),
}


@pytest.mark.parametrize("kind", list(SAMPLERS))
def test_op_seed_reproduces_across_sessions_and_runs_advance(kind):
    (a1, a2), (b1, b2) = _draws(lambda: SAMPLERS[kind](seed=3))
    np.testing.assert_array_equal(a1, b1)
    np.testing.assert_array_equal(a2, b2)
    assert not np.array_equal(a1, a2), "successive runs of one session must differ"


@pytest.mark.parametrize("kind", list(SAMPLERS))
def test_graph_seed_alone_reproduces_a_rebuilt_program(kind):
    (a1, a2), _ = _draws(lambda: SAMPLERS[kind](), graph_seed=11)
    (c1, c2), _ = _draws(lambda: SAMPLERS[kind](), graph_seed=11)
    np.testing.assert_array_equal(a1, c1)
    np.testing.assert_array_equal(a2, c2)
    (d1, _d2), _ = _draws(lambda: SAMPLERS[kind](), graph_seed=12)
    assert not np.array_equal(a1, d1)


def test_no_seed_is_nondeterministic():
    (a, _), (b, _) = _draws(lambda: fr.random_normal([20]))
    assert not np.array_equal(a, b)


def test_two_unseeded_ops_under_a_graph_seed_get_different_streams():
    with fr.Graph().as_default():
        fr.set_random_seed(1)
        x, y = fr.random_normal([10]), fr.random_normal([10])
        with fr.Session() as sess:
            a, b = sess.run([x, y])
    assert not np.array_equal(a, b)


def test_seed_pairs_follow_tf1_get_seed():
    with fr.Graph().as_default() as g:
        assert random_ops.get_seed(None) == (None, None)
        assert random_ops.get_seed(5) == (random_ops.DEFAULT_GRAPH_SEED, 5)
        fr.set_random_seed(7)
        assert g.seed == 7
        assert random_ops.get_seed(None) == (7, 0)
        assert random_ops.get_seed(None) == (7, 1)
        assert random_ops.get_seed(4) == (7, 4)
        fr.set_random_seed(0)
        assert random_ops.get_seed(0) == (0, 2**31 - 1)
        op = fr.random_normal([2], seed=9).op.inputs[0].op.inputs[0].op
        assert op.type == "RandomStandardNormal"
        assert (op.get_attr("seed"), op.get_attr("seed2")) == (0, 9)


def test_names_and_static_shapes_follow_tf1():
    p = fr.placeholder(fr.int32, [2])
    ts = [
        fr.random_normal([2, 3]),
        fr.random_uniform([2, 3]),
        fr.random_uniform([2], maxval=5, dtype=fr.int32),
        fr.truncated_normal([2]),
        fr.random_shuffle(fr.zeros([4, 2])),
        fr.multinomial(fr.zeros([2, 3]), 4),
        fr.random_uniform([2], -1.0, 1.0),
        fr.random_normal(p),
    ]
    assert [(t.name, t.op.type, t.shape.as_list(), t.dtype) for t in ts] == [
        ("random_normal:0", "AddV2", [2, 3], fr.float32),
        ("random_uniform/RandomUniform:0", "RandomUniform", [2, 3], fr.float32),
        ("random_uniform_1:0", "RandomUniformInt", [2], fr.int32),
        ("truncated_normal:0", "AddV2", [2], fr.float32),
        ("RandomShuffle:0", "RandomShuffle", [4, 2], fr.float32),
        ("multinomial/Multinomial:0", "Multinomial", [2, 4], fr.int64),
        ("random_uniform_2:0", "AddV2", [2], fr.float32),
        ("random_normal_1:0", "AddV2", [None, None], fr.float32),
    ]
    assert ts[0].op.inputs[0].op.name == "random_normal/mul"
    assert ts[0].op.inputs[0].op.inputs[0].op.name == "random_normal/RandomStandardNormal"


def test_random_ops_are_stateful_and_not_differentiable():
    from flowrt._core.registry import get_op_def

    for t in (
        "RandomStandardNormal",
        "RandomUniform",
        "RandomUniformInt",
        "TruncatedNormal",
        "RandomShuffle",
        "Multinomial",
    ):
        assert get_op_def(t).stateful
    x = fr.constant([1.0, 2.0])
    assert fr.gradients(fr.reduce_sum(fr.random_shuffle(x)), [x]) == [None]


def _sample(t, runs=1):
    with fr.Session() as sess:
        return np.concatenate([np.reshape(sess.run(t), -1) for _ in range(runs)])


def test_normal_statistics():
    v = _sample(fr.random_normal([200, 100], mean=2.0, stddev=3.0, dtype=fr.float64, seed=1))
    assert v.dtype == np.float64
    assert abs(v.mean() - 2.0) < 0.1 and abs(v.std() - 3.0) < 0.1


def test_uniform_statistics_and_range():
    v = _sample(fr.random_uniform([20000], -2.0, 3.0, seed=2))
    assert v.dtype == np.float32 and v.min() >= -2.0 and v.max() < 3.0
    assert abs(v.mean() - 0.5) < 0.05 and abs(v.std() - 5 / np.sqrt(12)) < 0.05
    w = _sample(fr.random_uniform([20000], maxval=4.0, seed=3))
    assert 0.0 <= w.min() and w.max() < 4.0 and abs(w.mean() - 2.0) < 0.05


def test_uniform_int_range_and_coverage():
    v = _sample(fr.random_uniform([5000], minval=-3, maxval=4, dtype=fr.int64, seed=4))
    assert v.dtype == np.int64
    assert set(v.tolist()) == set(range(-3, 4))


def test_truncated_normal_stays_within_two_stddevs():
    v = _sample(fr.truncated_normal([20000], mean=1.0, stddev=0.5, seed=5))
    assert v.min() >= 0.0 and v.max() <= 2.0
    # The standard normal truncated to [-2, 2] has std 0.8796.
    assert abs(v.mean() - 1.0) < 0.02 and abs(v.std() - 0.5 * 0.8796) < 0.02


def test_shuffle_permutes_the_first_dimension():
    x = np.arange(30).reshape(10, 3)
    with fr.Session() as sess:
        v = sess.run(fr.random_shuffle(x, seed=6))
    assert sorted(map(tuple, v)) == sorted(map(tuple, x))
    assert not np.array_equal(v, x)


def test_multinomial_frequencies_follow_softmax():
    logits = np.log(np.array([[0.2, 0.3, 0.5], [1.0, 0.0, 0.0]]) + 1e-30)
    v = _sample_2d(fr.multinomial(logits.astype(np.float32), 5000, seed=7))
    freq = np.bincount(v[0], minlength=3) / 5000
    np.testing.assert_allclose(freq, [0.2, 0.3, 0.5], atol=0.03)
    assert set(v[1].tolist()) == {0}


def _sample_2d(t):
    with fr.Session() as sess:
        return sess.run(t)


def test_errors():
    with pytest.raises(ValueError, match="Must specify maxval for integer dtype int32"):
        fr.random_uniform([2], dtype=fr.int32)
    with pytest.raises(ValueError, match="Argument `dtype` got invalid value bool"):
        fr.random_uniform([2], dtype=fr.bool)
    with pytest.raises(TypeError, match="int32"):
        fr.random_normal([2], dtype=fr.int32)
    with pytest.raises(
        ValueError, match="RandomStandardNormal op.*Invalid value in tensor used for shape: -2"
    ):
        fr.random_normal([2, -2])
    assert fr.random_normal([2, -1]).shape.as_list() == [2, None]  # as TF: -1 is unknown
    p = fr.placeholder(fr.int32, [1])
    bad_shape, empty_range = fr.random_normal(p), fr.random_uniform([2], 3, 3, fr.int32)
    with fr.Session() as sess:
        with pytest.raises(
            fr.errors.InvalidArgumentError, match=r"Dimension -1 must be >= 0 \(shape \[-1\]\)"
        ):
            sess.run(bad_shape, {p: [-1]})
        with pytest.raises(fr.errors.InvalidArgumentError, match="Need minval < maxval"):
            sess.run(empty_range)
