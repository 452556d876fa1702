"""AdadeltaOptimizer, FtrlOptimizer, ProximalGradientDescentOptimizer and
ProximalAdagradOptimizer against TF 2.21's own results (recorded below), sparse
updates against the dense rule on the touched rows, slot names and argument checks.
(The compiled rules themselves are checked bit for bit in test_update_rules.py.)"""

from __future__ import annotations

import numpy as np
import pytest

import flowrt as fr

W0 = np.array([[0.3, -0.2, 0.5], [-0.7, 0.1, 0.9], [0.05, -0.4, 0.2]], np.float32)
T = np.array([[1.0, 0.5, -0.5], [0.2, -0.3, 0.4], [0.0, 0.1, -0.9]], np.float32)
SCALE = np.arange(1, 10, dtype=np.float32).reshape(3, 3)

# (optimizer, kwargs, w after 3 steps of TF 2.21's optimizer on the dense loss below)
TF_DENSE = [
    (
        "Adadelta",
        dict(learning_rate=0.5, rho=0.9, epsilon=1e-6),
        [
            [0.3048478364944458, -0.1951521635055542, 0.4951503574848175],
            [-0.6951507925987244, 0.09515659511089325, 0.8951545357704163],
            [0.045231085270643234, -0.39515453577041626, 0.1951500028371811],
        ],
    ),
    (
        "ProximalGradientDescent",
        dict(learning_rate=0.1, l1_regularization_strength=0.05, l2_regularization_strength=0.2),
        [
            [0.6034613847732544, 0.3290759325027466, -0.41695693135261536],
            [0.1823224276304245, -0.28921571373939514, 0.3854946494102478],
            [-0.0, 0.19080334901809692, -1.4119817018508911],
        ],
    ),
    (
        "ProximalGradientDescent",
        dict(learning_rate=0.1),
        [
            [0.6416000127792358, 0.34880000352859497, -0.4360000193119049],
            [0.19280000030994415, -0.30000001192092896, 0.3959999978542328],
            [-0.003200001083314419, 0.20800000429153442, -1.4632000923156738],
        ],
    ),
    (
        "ProximalAdagrad",
        dict(
            learning_rate=0.2,
            initial_accumulator_value=0.1,
            l1_regularization_strength=0.05,
            l2_regularization_strength=0.1,
        ),
        [
            [0.6590890288352966, 0.19047598540782928, 0.07706275582313538],
            [-0.2816707193851471, -0.23070260882377625, 0.5260456204414368],
            [-0.0190927404910326, -0.030228199437260628, -0.22128604352474213],
        ],
    ),
    (
        "Ftrl",
        dict(learning_rate=0.3, l1_regularization_strength=0.01, l2_regularization_strength=0.02),
        [
            [0.7876683473587036, 0.3465941548347473, -0.10895420610904694],
            [-0.10134787112474442, -0.29285818338394165, 0.4279693067073822],
            [-0.009082523174583912, 0.06387312710285187, -0.40355411171913147],
        ],
    ),
    (
        "Ftrl",
        dict(
            learning_rate=0.3,
            learning_rate_power=-0.7,
            initial_accumulator_value=0.2,
            l1_regularization_strength=0.001,
        ),
        [
            [0.7129672765731812, 0.1862635463476181, 0.1942160278558731],
            [-0.4140161871910095, -0.2027442306280136, 0.6039009094238281],
            [-0.020371079444885254, -0.1430569738149643, 0.013365022838115692],
        ],
    ),
    (
        "Ftrl",
        dict(
            learning_rate=0.3,
            l2_shrinkage_regularization_strength=0.1,
            l2_regularization_strength=0.05,
            l1_regularization_strength=0.01,
        ),
        [
            [0.7413185834884644, 0.34124669432640076, -0.11338329315185547],
            [-0.09408898651599884, -0.2880014479160309, 0.4192013144493103],
            [-0.010702614672482014, 0.06461619585752487, -0.4029172360897064],
        ],
    ),
    (
        "Ftrl",
        dict(learning_rate=0.3, beta=0.5, l1_regularization_strength=0.01),
        [
            [0.6483948230743408, 0.31239619851112366, -0.10298798233270645],
            [-0.09796461462974548, -0.28486523032188416, 0.423297256231308],
            [-0.032072801142930984, 0.06011940911412239, -0.39657339453697205],
        ],
    ),
]


def _train(name, kw, sparse=False, dtype=np.float32, steps=3):
    with fr.Graph().as_default():
        w = fr.Variable(W0.astype(dtype), name="w")
        if sparse:  # rows 2, 0, 2 through a gather: IndexedSlices with a duplicate
            rows = fr.gather(w, [2, 0, 2])
            loss = fr.reduce_sum(fr.square(rows - T[[2, 0, 2]].astype(dtype)))
        else:
            loss = fr.reduce_sum(fr.square(w - T.astype(dtype)) * SCALE.astype(dtype))
        opt = getattr(fr.train, name + "Optimizer")(**kw)
        step = opt.minimize(loss)
        with fr.Session() as sess:
            sess.run(fr.global_variables_initializer())
            for _ in range(steps):
                sess.run(step)
            slots = {n: sess.run(opt.get_slot(w, n)) for n in opt.get_slot_names()}
            names = [v.op.name for v in fr.global_variables()]
            return sess.run(w), slots, names


@pytest.mark.parametrize("case", range(len(TF_DENSE)))
def test_dense_steps_equal_tfs(case):
    name, kw, want = TF_DENSE[case]
    got, _, _ = _train(name, kw)
    # Bit for bit, except where TF's Eigen takes an approximate rsqrt or pow (ProximalAdagrad,
    # Ftrl with learning_rate_power != -0.5): within a few float32 ulps there.
    np.testing.assert_allclose(got, np.float32(want), rtol=2e-6, atol=1e-9)


@pytest.mark.parametrize("case", range(len(TF_DENSE)))
def test_float64_and_float16_variables(case):
    name, kw, want = TF_DENSE[case]
    w64, _, _ = _train(name, kw, dtype=np.float64)
    np.testing.assert_allclose(w64, np.float32(want), rtol=1e-5, atol=1e-6)
    w16, _, _ = _train(name, kw, dtype=np.float16)
    assert w16.dtype == np.float16
    np.testing.assert_allclose(w16, np.float32(want), rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize("case", range(len(TF_DENSE)))
def test_sparse_updates_touch_only_the_gathered_rows(case):
    # A sparse step is the dense rule on the touched rows, with the duplicate row's
    # gradients summed (TF deduplicates first): row 1 never moves, and the result
    # equals a dense step on rows [0, 2] whose gradient is what the gather sends back.
    name, kw, _ = TF_DENSE[case]
    got, slots, _ = _train(name, kw, sparse=True, steps=1)
    np.testing.assert_array_equal(got[1], W0[1])
    with fr.Graph().as_default():
        w = fr.Variable(W0[[0, 2]], name="w")
        grad = np.stack([2 * (W0[0] - T[0]), 4 * (W0[2] - T[2])])
        opt = getattr(fr.train, name + "Optimizer")(**kw)
        step = opt.apply_gradients([(fr.constant(grad), w)])
        with fr.Session() as sess:
            sess.run(fr.global_variables_initializer())
            sess.run(step)
            np.testing.assert_allclose(got[[0, 2]], sess.run(w), rtol=1e-6)
            for n, v in slots.items():
                np.testing.assert_allclose(v[[0, 2]], sess.run(opt.get_slot(w, n)), rtol=1e-6)


@pytest.mark.parametrize(
    "name, kw, names",
    [
        ("Adadelta", {}, ["w", "w/Adadelta", "w/Adadelta_1"]),
        ("ProximalAdagrad", dict(learning_rate=0.1), ["w", "w/ProximalAdagrad"]),
        ("Ftrl", dict(learning_rate=0.1), ["w", "w/Ftrl", "w/Ftrl_1"]),
        ("ProximalGradientDescent", dict(learning_rate=0.1), ["w"]),
    ],
)
def test_slot_variables_are_named_as_tf_names_them(name, kw, names):
    _, slots, got = _train(name, kw, steps=1)
    assert got == names
    if name == "Ftrl":
        assert sorted(slots) == ["accum", "linear"]
        np.testing.assert_array_less(0.1, slots["accum"])  # started at 0.1


@pytest.mark.parametrize(
    "kw, message",
    [
        (dict(initial_accumulator_value=-1.0), "initial_accumulator_value"),
        (dict(learning_rate_power=0.5), "learning_rate_power 0.500000 needs to be negative"),
        (dict(l1_regularization_strength=-1.0), "l1_regularization_strength"),
        (dict(l2_regularization_strength=-1.0), "l2_regularization_strength"),
        (dict(l2_shrinkage_regularization_strength=-1.0), "l2_shrinkage"),
    ],
)
def test_ftrl_rejects_bad_arguments_as_tf(kw, message):
    with pytest.raises(ValueError, match=message):
        fr.train.FtrlOptimizer(0.1, **kw)


def test_proximal_adagrad_needs_a_positive_accumulator():
    with pytest.raises(ValueError, match="initial_accumulator_value must be positive"):
        fr.train.ProximalAdagradOptimizer(0.1, initial_accumulator_value=0.0)


def test_l1_sets_small_weights_to_exactly_zero():
    # The point of the proximal step: weights the loss barely pulls on become 0.
    with fr.Graph().as_default():
        w = fr.Variable(np.array([0.001, -0.002, 1.0], np.float32))
        loss = fr.reduce_sum(fr.square(w - np.float32([0.0, 0.0, 2.0])))
        step = fr.train.FtrlOptimizer(0.5, l1_regularization_strength=0.5).minimize(loss)
        with fr.Session() as sess:
            sess.run(fr.global_variables_initializer())
            for _ in range(5):
                sess.run(step)
            got = sess.run(w)
    assert got[0] == 0.0 and got[1] == 0.0 and got[2] > 1.0
