"""Shape arguments mixing tensors and ints, with TF's static shapes (issue 12, item 7)."""

import collections

import numpy as np
import pytest

import flowrt as fr

# (name, build(x, n) -> tensor, static shape for x: [None, 3], for x: [5, 3])
CASES = [
    ("zeros", lambda x, n: fr.zeros([n, 4]), [None, 4], [5, 4]),
    ("ones", lambda x, n: fr.ones([n, 4]), [None, 4], [5, 4]),
    ("fill", lambda x, n: fr.fill([n, 4], 2.0), [None, 4], [5, 4]),
    ("random_normal", lambda x, n: fr.random_normal([n, 4]), [None, 4], [5, 4]),
    ("random_uniform", lambda x, n: fr.random_uniform([n, 4]), [None, 4], [5, 4]),
    ("truncated_normal", lambda x, n: fr.truncated_normal([n, 4]), [None, 4], [5, 4]),
    ("tile_rows", lambda x, n: fr.tile(x, [n, 1]), [None, 3], [25, 3]),
    ("tile_cols", lambda x, n: fr.tile(x, [2, n]), [None, None], [10, 15]),
    ("slice", lambda x, n: fr.slice(x, [0, 0], [n, 2]), [None, 2], [5, 2]),
    ("slice_begin", lambda x, n: fr.slice(x, [n - 1, 0], [1, 2]), [1, 2], [1, 2]),
    ("reshape", lambda x, n: fr.reshape(x, [n, 3, 1]), [None, 3, 1], [5, 3, 1]),
    ("reshape_minus_one", lambda x, n: fr.reshape(x, [-1, n]), [None, None], [3, 5]),
    ("broadcast_to", lambda x, n: fr.broadcast_to(x, [n, 3]), [None, 3], [5, 3]),
    ("pad", lambda x, n: fr.pad(x, [[0, n], [1, 1]]), [None, 5], [10, 5]),
    (
        "zeros_concat",
        lambda x, n: fr.zeros(fr.concat([fr.shape(x)[:1], [4]], 0)),
        [None, 4],
        [5, 4],
    ),
    ("zeros_int64", lambda x, n: fr.zeros([fr.cast(n, fr.int64), 4]), [None, 4], [5, 4]),
    ("zeros_arith", lambda x, n: fr.zeros([n * 2, 4]), [None, 4], [10, 4]),
    # scalar arguments evaluated as TF's shape inference does
    ("range", lambda x, n: fr.range(fr.shape(x)[1] * 2), [6], [6]),
    ("one_hot", lambda x, n: fr.one_hot([0, 1], fr.shape(x)[1]), [2, 3], [2, 3]),
    ("sequence_mask", lambda x, n: fr.sequence_mask([1, 2], fr.shape(x)[1]), [2, 3], [2, 3]),
    ("expand_dims", lambda x, n: fr.expand_dims(x, fr.shape(x)[1] - 3), [1, None, 3], [1, 5, 3]),
    (
        "split_sizes",
        lambda x, n: fr.split(x, [1, fr.shape(x)[1] - 1], axis=1)[1],
        [None, 2],
        [5, 2],
    ),
    (
        "unsorted_segment_sum",
        lambda x, n: fr.unsorted_segment_sum(fr.ones([4]), [0, 1, 0, 1], fr.shape(x)[1]),
        [3],
        [3],
    ),
]


@pytest.mark.parametrize("name,build,unknown,known", CASES, ids=[c[0] for c in CASES])
def test_static_shape_as_tf(name, build, unknown, known):
    x = fr.placeholder(fr.float32, [None, 3])
    assert build(x, fr.shape(x)[0]).shape.as_list() == unknown
    y = fr.placeholder(fr.float32, [5, 3])
    assert build(y, fr.shape(y)[0]).shape.as_list() == known


@pytest.mark.parametrize("name,build,unknown,known", CASES, ids=[c[0] for c in CASES])
def test_run_shape_matches_static_shape(name, build, unknown, known):
    x = fr.placeholder(fr.float32, [None, 3])
    t = build(x, fr.shape(x)[0])
    with fr.Session() as sess:
        v = sess.run(t, {x: np.arange(15, dtype=np.float32).reshape(5, 3)})
    assert list(v.shape) == known


def test_known_dims_of_a_partly_known_shape_are_evaluated():
    x = fr.placeholder(fr.float32, [None, 3])
    n0, n1 = fr.shape(x)[0], fr.shape(x)[1]
    assert fr.zeros([n1, 2]).shape.as_list() == [3, 2]
    assert fr.zeros([n1 * 2, n0]).shape.as_list() == [6, None]
    assert fr.zeros(fr.shape(x)[1:]).shape.as_list() == [3]
    assert fr.zeros(fr.shape(x)).shape.as_list() == [None, 3]
    assert fr.zeros([fr.size(x), 2]).shape.as_list() == [None, 2]


def test_zeros_names_and_values_as_tf():
    x = fr.placeholder(fr.float32, [None, 3])
    z = fr.zeros([fr.shape(x)[0], 4], fr.int64)
    assert z.op.type == "Fill" and z.op.name == "zeros"
    assert z.op.inputs[0].op.name == "zeros/packed"
    assert fr.zeros([2, 3]).op.name == "zeros_1"  # small known shape: a Const, as TF
    with fr.Session() as sess:
        v = sess.run(z, {x: np.ones((2, 3))})
    assert v.dtype == np.int64 and v.shape == (2, 4) and not v.any()


def test_bad_shape_values():
    x = fr.placeholder(fr.float32, [None, 3])
    n = fr.shape(x)[0]
    with pytest.raises(ValueError, match="Fill dimensions must be >= 0"):
        fr.fill([2, -1], 1.0)
    with pytest.raises(ValueError, match="Invalid value in tensor used for shape: -2"):
        fr.random_normal([2, -2])
    with pytest.raises(TypeError, match="Expected int32, but got 2.0"):
        fr.zeros([2.0, n])
    t = fr.zeros([n - 2, 4])
    assert t.shape.as_list() == [None, 4]
    with fr.Session() as sess:
        with pytest.raises(fr.errors.InvalidArgumentError, match="Dimension -1 must be >= 0"):
            sess.run(t, {x: np.ones((1, 3))})


def test_tf_cross_check():
    tf = pytest.importorskip("tensorflow.compat.v1")
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        n = tf.shape(x)[0]
        assert tf.zeros([n, 4]).shape.as_list() == [None, 4]
        assert tf.tile(x, [n, 1]).shape.as_list() == [None, 3]


class _Frozen(collections.abc.Mapping):
    def __init__(self, pairs):
        self._d = dict(pairs)

    def __getitem__(self, k):
        return self._d[k]

    def __iter__(self):
        return iter(self._d)

    def __len__(self):
        return len(self._d)


def test_fetched_mappings_keep_their_type():
    a, b = fr.constant(1), fr.constant(2.0)
    dd = collections.defaultdict(list)
    dd["a"] = a
    dd["nested"] = collections.OrderedDict([("b", b), ("a", a)])
    with fr.Session() as sess:
        out = sess.run(dd)
        assert type(out) is collections.defaultdict and out.default_factory is list
        assert out["missing"] == []  # the default factory still works
        assert type(out["nested"]) is collections.OrderedDict
        assert list(out["nested"]) == ["b", "a"] and out["nested"]["b"] == 2.0
        custom = sess.run(_Frozen({"x": a, "y": [b, a]}))
        assert type(custom) is _Frozen and custom["x"] == 1 and custom["y"] == [2.0, 1]
