"""Learning-rate schedules: TF1's formulas, dtypes and names, at a range of steps."""

import math

import numpy as np
import pytest

import flowrt as fr

STEPS = [0, 1, 4, 5, 6, 9, 10, 11, 15, 20, 25]


def _values(make):
    with fr.Graph().as_default():
        gs = fr.train.get_or_create_global_step()
        step = fr.placeholder(fr.int64, [])
        set_step = fr.assign(gs, step)
        lr = make(gs)
        with fr.Session() as sess:
            sess.run(gs.initializer)
            out = []
            for s in STEPS:
                sess.run(set_step, {step: s})
                out.append(sess.run(lr))
        return lr, np.array(out)


def _f32(x):
    return float(np.float32(x))


CASES = [
    (
        "exponential",
        lambda gs: fr.train.exponential_decay(0.1, gs, 5, 0.5),
        lambda s: 0.1 * 0.5 ** (s / 5),
        "ExponentialDecay:0",
    ),
    (
        "exponential-staircase",
        lambda gs: fr.train.exponential_decay(0.1, gs, 5, 0.5, staircase=True),
        lambda s: 0.1 * 0.5 ** (s // 5),
        "ExponentialDecay:0",
    ),
    (
        "natural_exp",
        lambda gs: fr.train.natural_exp_decay(0.1, gs, 5, 0.5),
        lambda s: 0.1 * math.exp(-0.5 * s / 5),
        "ExponentialDecay:0",
    ),
    (
        "inverse_time-staircase",
        lambda gs: fr.train.inverse_time_decay(0.1, gs, 5, 0.5, staircase=True),
        lambda s: 0.1 / (1 + 0.5 * (s // 5)),
        "InverseTimeDecay:0",
    ),
    (
        "polynomial",
        lambda gs: fr.train.polynomial_decay(0.1, gs, 10, 0.01, power=2.0),
        lambda s: (0.1 - 0.01) * (1 - min(s, 10) / 10) ** 2 + 0.01,
        "PolynomialDecay:0",
    ),
    (
        "polynomial-cycle",
        lambda gs: fr.train.polynomial_decay(0.1, gs, 10, 0.01, cycle=True),
        lambda s: (0.1 - 0.01) * (1 - s / (10 * max(1, math.ceil(s / 10)))) + 0.01,
        "PolynomialDecay:0",
    ),
    (
        "cosine",
        lambda gs: fr.train.cosine_decay(0.1, gs, 10, alpha=0.2),
        lambda s: 0.1 * (0.8 * 0.5 * (1 + math.cos(math.pi * min(s, 10) / 10)) + 0.2),
        "CosineDecay:0",
    ),
    (
        "piecewise",
        lambda gs: fr.train.piecewise_constant(gs, [5, 10], [1.0, 0.5, 0.1]),
        lambda s: 1.0 if s <= 5 else (0.5 if s <= 10 else 0.1),
        "PiecewiseConstant:0",
    ),
]


@pytest.mark.parametrize("make,formula,name", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_schedule_values_dtype_and_name(make, formula, name):
    lr, got = _values(make)
    assert lr.dtype == fr.float32 and lr.name == name
    np.testing.assert_allclose(got, [formula(s) for s in STEPS], rtol=2e-6)


def test_float64_rate_gives_a_float64_schedule():
    lr, got = _values(
        lambda gs: fr.train.exponential_decay(
            fr.constant(0.2, fr.float64), gs, 4, 0.9, staircase=True
        )
    )
    assert lr.dtype == fr.float64
    # decay_rate goes through float32 first, as in TF1 (0.9 -> 0.8999999762).
    np.testing.assert_allclose(got, [0.2 * _f32(0.9) ** (s // 4) for s in STEPS], rtol=1e-12)


def test_schedule_argument_errors():
    with pytest.raises(ValueError, match="global_step is required for exponential_decay"):
        fr.train.exponential_decay(0.1, None, 5, 0.5)
    with pytest.raises(ValueError, match="global_step is required for cosine_decay"):
        fr.train.cosine_decay(0.1, None, 5)
    with fr.Graph().as_default():
        gs = fr.train.get_or_create_global_step()
        with pytest.raises(ValueError, match="length of boundaries should be 1 less"):
            fr.train.piecewise_constant(gs, [1, 2], [0.1, 0.2])
        with pytest.raises(ValueError, match="same dtype"):
            fr.train.piecewise_constant(gs, [1], [0.1, 2])


def test_schedule_drives_an_optimizer():
    with fr.Graph().as_default():
        gs = fr.train.get_or_create_global_step()
        v = fr.Variable(0.0)
        lr = fr.train.piecewise_constant(gs, [2], [1.0, 0.5])
        train = fr.train.GradientDescentOptimizer(lr).minimize(-v, global_step=gs)
        with fr.Session() as sess:
            sess.run(fr.global_variables_initializer())
            for _ in range(4):
                sess.run(train)
            assert sess.run(v) == pytest.approx(1.0 + 1.0 + 1.0 + 0.5)
