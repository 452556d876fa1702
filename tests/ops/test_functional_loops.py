"""fr.map_fn, fr.scan, fr.foldl, fr.foldr: values against numpy, static shapes, nests,
errors; gradients are rows of tests/grad_specs/tensor_array.py."""

import numpy as np
import pytest

import flowrt as fr

X = np.linspace(-1.0, 1.0, 12).reshape(4, 3)
W = np.array([0.5, -0.3, 0.9])


def _run(fetches, x=X):
    with fr.Session() as sess:
        return sess.run(fetches, {"x:0": x})


def test_map_fn_values_shapes_and_nests():
    with fr.Graph().as_default():
        x = fr.placeholder(fr.float64, [4, 3], name="x")
        m = fr.map_fn(lambda r: fr.sin(r) * W, x)
        a, b = fr.map_fn(lambda t: (t[0] * 2.0, t[1] + 1.0), (x, x * 3.0))
        s = fr.map_fn(lambda r: fr.reduce_sum(r), x, dtype=fr.float64)
        d = fr.map_fn(lambda r: {"n": fr.cast(r[0] > 0, fr.int32)}, x, dtype={"n": fr.int32})
        assert m.shape.as_list() == [4, 3] and s.shape.as_list() == [4]
        assert m.name == "map/TensorArrayStack/TensorArrayGatherV3:0"
        got = _run([m, a, b, s, d["n"]])
    np.testing.assert_allclose(got[0], np.sin(X) * W)
    np.testing.assert_allclose(got[1], X * 2)
    np.testing.assert_allclose(got[2], X * 3 + 1)
    np.testing.assert_allclose(got[3], X.sum(1))
    np.testing.assert_array_equal(got[4], (X[:, 0] > 0).astype(np.int32))


def test_map_fn_unknown_length_and_options_accepted():
    with fr.Graph().as_default():
        x = fr.placeholder(fr.float64, [None, 3], name="x")
        m = fr.map_fn(
            lambda r: r * 2.0, x, parallel_iterations=4, back_prop=False, swap_memory=True
        )
        assert m.shape.as_list() == [None, 3]
        assert fr.gradients(m, x) == [None]
        np.testing.assert_allclose(_run(m, X[:2]), X[:2] * 2)


def test_map_fn_errors():
    with fr.Graph().as_default():
        with pytest.raises(TypeError, match="^fn must be callable.$"):
            fr.map_fn(3, [1.0])
        with pytest.raises(ValueError, match="^elems must be a 1\\+ dimensional Tensor"):
            fr.map_fn(lambda v: v, fr.constant(1.0))
        with pytest.raises(ValueError, match="don't have the same nested structure"):
            fr.map_fn(lambda t: t[0], (fr.constant([1.0]), fr.constant([2.0])))


def _np_scan(f, a, xs):
    out = []
    for v in xs:
        a = f(a, v)
        out.append(a)
    return np.array(out)


def test_scan_initializer_reverse_and_nests():
    with fr.Graph().as_default():
        x = fr.placeholder(fr.float64, [4, 3], name="x")
        s1 = fr.scan(lambda a, r: a * W + r, x)
        s2 = fr.scan(lambda a, r: a * fr.tanh(r) + 1.0, x, initializer=fr.ones([3], fr.float64))
        s3 = fr.scan(lambda a, r: a * 0.5 + r, x, reverse=True)
        p, q = fr.scan(
            lambda a, r: (a[0] + r, a[1] * r),
            x,
            initializer=(fr.zeros([3], fr.float64), fr.ones([3], fr.float64)),
        )
        assert s1.shape.as_list() == [4, 3] and p.shape.as_list() == [4, 3]
        got = _run([s1, s2, s3, p, q])
    np.testing.assert_allclose(
        got[0], np.vstack([X[:1], _np_scan(lambda a, r: a * W + r, X[0], X[1:])])
    )
    np.testing.assert_allclose(got[1], _np_scan(lambda a, r: a * np.tanh(r) + 1, np.ones(3), X))
    rev = _np_scan(lambda a, r: a * 0.5 + r, X[-1], X[-2::-1])[::-1]
    np.testing.assert_allclose(got[2], np.vstack([rev, X[-1:]]))
    np.testing.assert_allclose(got[3], np.cumsum(X, 0))
    np.testing.assert_allclose(got[4], np.cumprod(X, 0))


def test_foldl_foldr():
    with fr.Graph().as_default():
        x = fr.placeholder(fr.float64, [4, 3], name="x")
        f1 = fr.foldl(lambda a, r: a * W + r, x)
        f2 = fr.foldr(lambda a, r: a * W + fr.sin(r), x, initializer=fr.zeros([3], fr.float64))
        f3 = fr.foldl(lambda a, t: a + t[0] * t[1], (x, x), initializer=fr.zeros([3], fr.float64))
        got = _run([f1, f2, f3])
    a = X[0]
    for r in X[1:]:
        a = a * W + r
    np.testing.assert_allclose(got[0], a)
    a = np.zeros(3)
    for r in X[::-1]:
        a = a * W + np.sin(r)
    np.testing.assert_allclose(got[1], a)
    np.testing.assert_allclose(got[2], (X * X).sum(0))
