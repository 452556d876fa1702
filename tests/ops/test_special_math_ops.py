"""Special functions against values computed with TF 2.21 (float64), recorded here."""

import numpy as np
import pytest

import flowrt as fr

X = [0.3, 1.5, 2.0]

# name -> (build(x), TF 2.21's result)
CASES = {
    "erf": (fr.erf, [0.3286267594591274, 0.9661051464753108, 0.9953222650189527]),
    "erfc": (fr.erfc, [0.6713732405408726, 0.03389485352468927, 0.004677734981047265]),
    "lgamma": (fr.lgamma, [1.0957979948180756, -0.12078223763524522, 0.0]),
    "digamma": (fr.digamma, [-3.502524222200133, 0.03648997397857645, 0.42278433509846747]),
    "erfinv": (
        lambda x: fr.math.erfinv(x * 0.3),
        [0.07993031862520326, 0.4226802386475619, 0.595116081449995],
    ),
    "ndtri": (
        lambda x: fr.math.ndtri(x * 0.3),
        [-1.3407550336902165, -0.12566134685507416, 0.2533471031357997],
    ),
    "i0e": (fr.math.bessel_i0e, [0.7575806251825479, 0.36743360905415834, 0.308508322553671]),
    "i1e": (
        fr.math.special.bessel_i1e,
        [0.11237756063983881, 0.21903938742092574, 0.2152692892489377],
    ),
    "i0": (fr.math.bessel_i0, [1.0226268793515971, 1.6467231897728907, 2.279585302336067]),
    "i1": (
        fr.math.special.bessel_i1,
        [0.15169384000359282, 0.9816664285779079, 1.5906368546373295],
    ),
    "igamma": (
        lambda x: fr.igamma(x, 2.0),
        [0.977974019172853, 0.7385358700508888, 0.5939941502901617],
    ),
    "igammac": (
        lambda x: fr.igammac(x, 2.0),
        [0.022025980827146997, 0.2614641299491111, 0.406005849709838],
    ),
    "polygamma": (
        lambda x: fr.polygamma(fr.constant(2.0, fr.float64), x),
        [-75.27253658872601, -0.8287966442343201, -0.4041138063191886],
    ),
    "zeta": (
        lambda x: fr.zeta(x + 1, fr.constant(2.0, fr.float64)),
        [2.931949211809544, 0.34148725725091705, 0.2020569031595943],
    ),
    "betainc": (
        lambda x: fr.betainc(x, fr.constant([2.0] * 3, fr.float64), [0.3] * 3),
        [0.8431828153424978, 0.336849372865677, 0.21599999999999991],
    ),
    "lbeta": (lambda x: fr.lbeta(fr.reshape(x, [1, 3])), [-0.5713064519860744]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_match_tf(name):
    build, want = CASES[name]
    with fr.Graph().as_default():
        y = build(fr.constant(X, fr.float64))
        with fr.Session() as s:
            got = s.run(y)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-14)


def test_igamma_gradient_wrt_a_matches_tf():
    with fr.Graph().as_default():
        a = fr.constant(X, fr.float64)
        (g,) = fr.gradients(fr.reduce_sum(fr.igamma(a, fr.constant(2.0, fr.float64))), [a])
        with fr.Session() as s:
            got = s.run(g)
    want = [-0.09925266010123988, -0.2774335642087111, -0.29400469074623103]
    np.testing.assert_allclose(got, want, rtol=1e-9)


def test_float32_and_float16_keep_their_dtype():
    with fr.Graph().as_default():
        ys = [fr.erf(fr.constant([0.5], dt)) for dt in (fr.float16, fr.float32)]
        with fr.Session() as s:
            h, f = s.run(ys)
    assert h.dtype == np.float16 and f.dtype == np.float32
    np.testing.assert_allclose(f, [0.5204999], rtol=1e-6)


def test_integer_input_is_a_type_error():
    with fr.Graph().as_default():
        with pytest.raises(TypeError, match="int32"):
            fr.lgamma(fr.constant([1, 2]))


def test_betainc_shapes_must_agree():
    with fr.Graph().as_default():
        with pytest.raises(ValueError, match="Shapes of a, b and x are inconsistent"):
            fr.betainc(fr.ones([2]), fr.ones([3]), fr.ones([2]))


def test_betainc_gradient_is_only_for_x():
    with fr.Graph().as_default():
        a, b, x = fr.constant(2.0), fr.constant(3.0), fr.constant(0.4)
        ga, gb, gx = fr.gradients(fr.betainc(a, b, x), [a, b, x])
        assert ga is None and gb is None
        with fr.Session() as s:
            # d/dx I_x(2, 3) = x (1 - x)^2 / B(2, 3) = 12 x (1 - x)^2
            np.testing.assert_allclose(s.run(gx), 12 * 0.4 * 0.6**2, rtol=1e-5)


def test_math_special_namespace():
    assert fr.math.special.bessel_i0e is fr.math.bessel_i0e
    assert fr.math.lbeta is fr.lbeta
