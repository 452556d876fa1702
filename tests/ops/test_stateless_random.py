"""Stateless random ops: TF 2.21's values for recorded seeds, the same output in every
run and session, the ops' names and errors."""

import numpy as np
import pytest

import flowrt as fr
from tests.libm import assert_tfs_normals

# TF 2.21's values (tf.random.stateless_* in compat.v1 graph mode).
TF_VALUES = {
    "uniform32": (
        lambda: fr.random.stateless_uniform([5], [1, 2], -2.0, 3.0),
        [2.220302104949951, -1.0397733449935913, 2.98111629486084, -1.1980630159378052,
         -0.6400490999221802],
    ),
    "uniform64": (
        lambda: fr.random.stateless_uniform([3], [-3, 7], dtype=fr.float64),
        [0.8814728468152973, 0.42730389307623007, 0.38202012244054284],
    ),
    "normal32": (
        lambda: fr.random.stateless_normal([5], [1, 2], 1.0, 2.0),
        [2.0882201194763184, 1.4147605895996094, 1.1471285820007324, 1.0928690433502197,
         -1.603179693222046],
    ),
    "normal64": (
        lambda: fr.random.stateless_normal([3], [-3, 7], dtype=fr.float64),
        [0.2215444933404638, -0.45082169366577945, 1.3802154433031628],
    ),
    "truncated32": (
        lambda: fr.random.stateless_truncated_normal([5], [1, 2]),
        [0.544110119342804, 0.20738030970096588, 0.0735643208026886, 0.04643455147743225,
         0.16820591688156128],
    ),
    "truncated16": (
        lambda: fr.random.stateless_truncated_normal([3], [1, 2], dtype=fr.float16),
        [0.5439453125, 0.2073974609375, 0.07354736328125],
    ),
    "int32": (
        lambda: fr.random.stateless_uniform([5], [1, 2], -7, 1000, dtype=fr.int32),
        [33, 45, 211, 89, 48],
    ),
    "int64_wide_seed": (
        lambda: fr.random.stateless_uniform(
            [3], np.array([2**40 + 5, -(2**35)]), -(2**40), 2**45, dtype=fr.int64
        ),
        [16060822815067, 20209455920953, 16582110088781],
    ),
    "full_int32": (
        lambda: fr.random.stateless_uniform([3], [1, 2], None, None, dtype=fr.int32),
        [1105988140, 1738052849, -335576002],
    ),
    "full_int64": (
        lambda: fr.random.stateless_uniform([3], [1, 2], None, None, dtype=fr.int64),
        [7464880146280614444, 1591045637757961278, -1057468755545501549],
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", list(TF_VALUES))
def test_values_are_tfs_in_every_run_and_session(case):
    build, want = TF_VALUES[case]
    with fr.Graph().as_default():
        t = build()
        runs = []
        for _ in range(2):
            with fr.Session() as sess:
                runs += [sess.run(t), sess.run(t)]
    want = np.asarray(want, t.dtype.np)
    for got in runs:
        assert got.dtype == want.dtype
        if case.startswith(("normal", "truncated")):  # through the C library's log, sin, cos
            assert_tfs_normals(got, want, scale=1.0 + 2.0 * 4 if case == "normal32" else 4.0)
        else:
            np.testing.assert_array_equal(got, want)


def test_ops_and_names_are_tfs():
    with fr.Graph().as_default() as g:
        u = fr.random.stateless_uniform([2, 3], [1, 2], 1.0, 4.0)
        i = fr.random.stateless_uniform([4], [1, 2], 0, 9, dtype=fr.int64, name="ints")
        n = fr.random.stateless_normal(fr.constant([2, 3]), fr.constant([1, 2], fr.int64))
    assert u.name == "stateless_random_uniform:0" and u.shape.as_list() == [2, 3]
    assert i.op.type == "StatelessRandomUniformInt" and i.name == "ints:0"
    assert i.dtype == fr.int64 and i.shape.as_list() == [4]
    assert n.op.type == "AddV2" and n.shape.as_list() == [2, 3]
    types = {op.type for op in g.get_operations()}
    assert {"StatelessRandomUniform", "StatelessRandomNormal"} <= types


def test_categorical_is_a_function_of_the_seed_and_follows_the_logits():
    logits = np.log([[0.7, 0.2, 0.1], [1.0, 1.0, 1.0]])
    logits[1, :2] = -np.inf
    with fr.Graph().as_default():
        a = fr.random.stateless_categorical(logits, 20000, [4, 5])
        b = fr.random.stateless_multinomial(logits, 20000, [4, 5], output_dtype=fr.int32)
        c = fr.random.stateless_categorical(logits, 20000, [4, 6])
        with fr.Session() as sess:
            va, vb, vc = sess.run([a, b, c])
            va2 = sess.run(a)
    assert va.dtype == np.int64 and vb.dtype == np.int32 and va.shape == (2, 20000)
    np.testing.assert_array_equal(va, va2)
    np.testing.assert_array_equal(va, vb)
    assert not np.array_equal(va, vc)
    freq = np.bincount(va[0], minlength=3) / 20000
    np.testing.assert_allclose(freq, [0.7, 0.2, 0.1], atol=0.015)
    assert (va[1] == 2).all()


def test_errors_are_tfs():
    with fr.Graph().as_default():
        with pytest.raises(ValueError, match="Dimension must be 2 but is 3"):
            fr.random.stateless_uniform([3], [1, 2, 3])
        with pytest.raises(ValueError, match="must be both None or not None"):
            fr.random.stateless_uniform([3], [1, 2], dtype=fr.int32)
        with pytest.raises(ValueError, match="Argument `dtype` got invalid value bool"):
            fr.random.stateless_uniform([3], [1, 2], dtype=fr.bool)
        with pytest.raises(ValueError, match="Argument `alg` got unsupported value 'threefry'"):
            fr.random.stateless_normal([3], [1, 2], alg="threefry")
        t = fr.random.stateless_uniform([3], [1, 2], 5, 5, dtype=fr.int32)
        with fr.Session() as sess:
            with pytest.raises(fr.errors.InvalidArgumentError, match="Need minval < maxval"):
                sess.run(t)
