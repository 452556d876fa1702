"""fr.nn.sufficient_statistics, normalize_moments and weighted_moments: values and
names as TF 2.21's compat.v1 gives them (written into the expectations)."""

import numpy as np
import pytest

import flowrt as fr

X = np.array([[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]], np.float32)


def test_sufficient_statistics_and_normalize_moments():
    x = fr.constant(X)
    p = fr.placeholder(fr.float32, [None, 3])
    c, m, v, sh = fr.nn.sufficient_statistics(x, [0])
    c2, m2, v2, sh2 = fr.nn.sufficient_statistics(p, [0, 1], shift=1.0, keepdims=True)
    mean, var = fr.nn.normalize_moments(c, m, v, None)
    mean2, var2 = fr.nn.normalize_moments(c2, m2, v2, sh2)
    assert sh is None
    assert [t.name for t in (c, m, v, c2, mean, var, mean2)] == [
        "sufficient_statistics/Const:0",
        "sufficient_statistics/mean_ss:0",
        "sufficient_statistics/var_ss:0",
        "sufficient_statistics_1/count:0",  # dynamic: the product of the axes' sizes
        "normalize/mean:0",
        "normalize/variance:0",
        "normalize_1/mean:0",
    ]
    assert m2.shape.as_list() == [1, 1]
    with fr.Session() as s:
        r = s.run([c, m, v, mean, var, mean2, var2], {p: X})
    assert r[0] == 2.0
    np.testing.assert_allclose(r[1], [2, 3, 4])
    np.testing.assert_allclose(r[2], [2, 5, 10])
    np.testing.assert_allclose(r[3], X.mean(0))
    np.testing.assert_allclose(r[4], X.var(0))
    np.testing.assert_allclose(r[5], [[1.5]])
    np.testing.assert_allclose(r[6], [[X.var()]], rtol=1e-6)


def test_weighted_moments():
    x = fr.constant(X)
    wm, wv = fr.nn.weighted_moments(x, [0], fr.constant([[1.0], [3.0]]))
    wm2, wv2 = fr.nn.weighted_moments(x, [1], [1.0, 2.0, 1.0], keep_dims=True)
    z, _ = fr.nn.weighted_moments(x, [0], [[0.0], [0.0]])
    assert (wm.name, wv.name) == ("weighted_moments/Squeeze:0", "weighted_moments/Squeeze_1:0")
    assert wm2.shape.as_list() == [2, 1]
    with fr.Session() as s:
        r = s.run([wm, wv, wm2, wv2, z])
    np.testing.assert_allclose(r[0], [1.0, 1.25, 1.5])
    np.testing.assert_allclose(r[1], [0.0, 0.1875, 0.75])
    np.testing.assert_allclose(r[2], [[2.0], [1.0]])
    np.testing.assert_allclose(r[3], [[0.5], [0.0]])
    np.testing.assert_array_equal(r[4], [0.0, 0.0, 0.0])  # all-zero weights: 0, as TF 2


def test_batch_norm_with_global_normalization_as_tf():
    with fr.Graph().as_default():
        x = fr.constant([1.0, 2.0])
        scaled = fr.nn.batch_norm_with_global_normalization(x, 0.5, 4.0, 1.0, 3.0, 0.001, True)
        plain = fr.nn.batch_norm_with_global_normalization(
            input=x,
            mean=0.5,
            variance=4.0,
            beta=1.0,
            gamma=3.0,
            variance_epsilon=0.001,
            scale_after_normalization=False,
        )
        assert scaled.op.name == "batchnorm/add"
        got = fr.Session().run([scaled, plain])
        with pytest.raises(ValueError, match="Cannot specify both 'input' and 't'"):
            fr.nn.batch_norm_with_global_normalization(x, 0.5, 4.0, 1.0, 3.0, 0.001, True, input=x)
    # TF 2.21's
    np.testing.assert_allclose(got, [[1.7499063, 3.249719], [1.2499688, 1.7499063]], rtol=1e-6)
