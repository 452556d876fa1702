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


# TF 2.21 compat.v1's values at these steps (rounded to 7 decimals).
_STEPS = [0, 3, 8, 12, 24, 25, 30, 100]
_TF_DECAYS = {
    "cdr": [0.1, 0.0691342, 0.1, 0.0853553, 0.1, 0.0997592, 0.0915735, 0.0222215],
    "cdr1": [0.1, 0.0722208, 0.055, 0.0325, 0.02125, 0.0208218, 0.0116475, 0.010011],
    "cdr3": [0.1, 0.0345491, 0.0723607, 0.0441811, 0.0627604, 0.0620702, 0.0565134, 0.0431678],
    "lcd": [0.1001, 0.0804678, 0.0393705, 0.0139197, 0.0001, 0.0001, 0.0001, 0.0001],
    "lcd2": [0.111, 0.0338217, 0.0468156, 0.0337254, 0.011, 0.011, 0.011, 0.011],
}


def test_cosine_restarts_and_linear_cosine_decay_as_tf():
    gs = fr.placeholder(fr.int64, [])
    r = {
        "cdr": fr.train.cosine_decay_restarts(0.1, gs, 8),
        "cdr1": fr.train.cosine_decay_restarts(0.1, gs, 8, t_mul=1.0, m_mul=0.5, alpha=0.1),
        "cdr3": fr.train.cosine_decay_restarts(0.1, gs, 5, t_mul=3.0, m_mul=0.8),
        "lcd": fr.train.linear_cosine_decay(0.1, gs, 20),
        "lcd2": fr.train.linear_cosine_decay(0.1, gs, 20, num_periods=2, alpha=0.1, beta=0.01),
    }
    assert [r[k].name for k in ("cdr", "cdr1", "lcd")] == [
        "SGDRDecay:0",
        "SGDRDecay_1:0",
        "LinearCosineDecay:0",
    ]
    assert fr.train.piecewise_constant_decay is fr.train.piecewise_constant
    with fr.Session() as s:
        got = [s.run(r, {gs: step}) for step in _STEPS]
    for k, want in _TF_DECAYS.items():
        np.testing.assert_allclose([g[k] for g in got], want, atol=1e-6, err_msg=k)
