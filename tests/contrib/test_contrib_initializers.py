"""fr.contrib.layers' initializers: contrib's own variance scaling (stddev
sqrt(1.3 * factor / n) for the truncated normal), checked by the sample statistics."""

import numpy as np
import pytest

import flowrt as fr


def _sample(init, shape):
    with fr.Graph().as_default():
        fr.set_random_seed(5)
        v = fr.get_variable("w", shape, initializer=init)
        with fr.Session() as s:
            s.run(fr.global_variables_initializer())
            return s.run(v)


def test_xavier_uniform_is_glorot_uniform():
    x = _sample(fr.contrib.layers.xavier_initializer(), [200, 300])
    limit = np.sqrt(6.0 / 500)
    assert x.dtype == np.float32 and np.abs(x).max() <= limit
    assert np.abs(x).max() > 0.99 * limit
    np.testing.assert_allclose(x.std(), limit / np.sqrt(3.0), rtol=0.02)


def test_xavier_normal_and_he_truncated_normal_use_contribs_stddev():
    x = _sample(fr.contrib.layers.xavier_initializer(uniform=False), [200, 300])
    stddev = np.sqrt(1.3 / 250)
    assert np.abs(x).max() <= 2 * stddev * 1.0001  # truncated at two stddevs
    # a normal truncated at 2 sigma has std 0.8796 sigma
    np.testing.assert_allclose(x.std(), 0.8796 * stddev, rtol=0.02)
    he = _sample(fr.contrib.layers.variance_scaling_initializer(), [3, 3, 64, 128])
    np.testing.assert_allclose(he.std(), 0.8796 * np.sqrt(1.3 * 2.0 / (9 * 64)), rtol=0.02)
    fo = _sample(
        fr.contrib.layers.variance_scaling_initializer(1.0, "FAN_OUT", uniform=True), [100, 400]
    )
    np.testing.assert_allclose(fo.std(), np.sqrt(3.0 / 400) / np.sqrt(3.0), rtol=0.02)


def test_contrib_initializer_errors_are_tfs():
    with pytest.raises(TypeError, match="Unknown mode FAN_X"):
        fr.contrib.layers.variance_scaling_initializer(mode="FAN_X")
    with pytest.raises(TypeError, match="non-floating point type"):
        fr.contrib.layers.xavier_initializer(dtype=fr.int32)
