"""fr.image color and value ops (``image_color.py``, ``image_hsv.py``) against TF 2.21:
values recorded below (the images fed through placeholders, as TF computes them
without constant folding; seeded random ones over two runs of one session), dtype
rules (uint8 in, uint8 out), shapes and errors."""

import numpy as np
import pytest

import flowrt as fr

F = np.array(
    [
        [[0.9, 0.3, 0.1], [0.2, 0.2, 0.2], [0.1, 0.6, 0.6]],
        [[0.05, 0.4, 0.8], [0.7, 0.1, 0.5], [0.0, 0.0, 0.0]],
    ],
    np.float32,
)
W = np.array([[[1.3, -0.2, 0.5], [0.999, 0.0004, -1e-6]]], np.float32)  # outside [0, 1]
U = np.array(
    [[[255, 0, 17], [200, 200, 10], [3, 90, 160]], [[128, 64, 32], [0, 0, 0], [77, 250, 251]]],
    np.uint8,
)
I32 = np.array([[[2**31 - 1, -(2**31), 0], [12345678, -1, 1 << 24]]], np.int32)

# name: (dtype, shape, TF 2.21's values, flattened; for random ones, one list per run).
TF = {
    "cid_u8_f32": (
        "float32",
        [2, 3, 3],
        [
            1.0,
            0.0,
            0.06666667014360428,
            0.7843137979507446,
            0.7843137979507446,
            0.03921568766236305,
            0.011764707043766975,
            0.3529411852359772,
            0.6274510025978088,
            0.501960813999176,
            0.250980406999588,
            0.125490203499794,
            0.0,
            0.0,
            0.0,
            0.3019607961177826,
            0.9803922176361084,
            0.9843137860298157,
        ],
    ),
    "cid_f_u8": (
        "uint8",
        [2, 3, 3],
        [229, 76, 25, 51, 51, 51, 25, 153, 153, 12, 102, 204, 178, 25, 127, 0, 0, 0],
    ),
    "cid_w_u8_sat": ("uint8", [1, 2, 3], [255, 0, 127, 255, 0, 0]),
    "cid_w_i16_sat": ("int16", [1, 2, 3], [32767, -6553, 16383, 32734, 13, 0]),
    "cid_u8_i32": (
        "int32",
        [2, 3, 3],
        [
            2139095040,
            0,
            142606336,
            1677721600,
            1677721600,
            83886080,
            25165824,
            754974720,
            1342177280,
            1073741824,
            536870912,
            268435456,
            0,
            0,
            0,
            645922816,
            2097152000,
            2105540608,
        ],
    ),
    "cid_i32_u8": ("uint8", [1, 2, 3], [255, 0, 0, 1, 255, 2]),
    "cid_i32_i16": ("int16", [1, 2, 3], [32767, -32768, 0, 188, -1, 256]),
    "cid_i32_f32": (
        "float32",
        [1, 2, 3],
        [1.0, -1.0, 0.0, 0.005748904310166836, -4.656612873077393e-10, 0.0078125],
    ),
    "cid_u8_f16": (
        "float16",
        [2, 3, 3],
        [
            1.0,
            0.0,
            0.066650390625,
            0.7841796875,
            0.7841796875,
            0.039215087890625,
            0.0117645263671875,
            0.35302734375,
            0.62744140625,
            0.501953125,
            0.2509765625,
            0.12548828125,
            0.0,
            0.0,
            0.0,
            0.302001953125,
            0.98046875,
            0.984375,
        ],
    ),
    "cid_f_f64": (
        "float64",
        [2, 3, 3],
        [
            0.8999999761581421,
            0.30000001192092896,
            0.10000000149011612,
            0.20000000298023224,
            0.20000000298023224,
            0.20000000298023224,
            0.10000000149011612,
            0.6000000238418579,
            0.6000000238418579,
            0.05000000074505806,
            0.4000000059604645,
            0.800000011920929,
            0.699999988079071,
            0.10000000149011612,
            0.5,
            0.0,
            0.0,
            0.0,
        ],
    ),
    "sc_w_u8": ("uint8", [1, 2, 3], [255, 0, 150, 255, 0, 0]),
    "sc_i32_u8": ("uint8", [1, 2, 3], [255, 0, 0, 255, 0, 255]),
    "sc_w_i32": (
        "int32",
        [1, 2, 3],
        [2147483520, -600000000, 1500000000, 2147483520, 1200000, -3000],
    ),
    "br_u8": (
        "uint8",
        [2, 3, 3],
        [255, 51, 68, 251, 251, 61, 54, 141, 211, 179, 115, 83, 51, 51, 51, 128, 255, 255],
    ),
    "br_f": (
        "float32",
        [2, 3, 3],
        [
            0.75,
            0.15000000596046448,
            -0.05000000447034836,
            0.04999999701976776,
            0.04999999701976776,
            0.04999999701976776,
            -0.05000000447034836,
            0.45000001788139343,
            0.45000001788139343,
            -0.10000000894069672,
            0.25,
            0.6499999761581421,
            0.5499999523162842,
            -0.05000000447034836,
            0.3499999940395355,
            -0.15000000596046448,
            -0.15000000596046448,
            -0.15000000596046448,
        ],
    ),
    "co_u8": (
        "uint8",
        [2, 3, 3],
        [255, 0, 0, 254, 255, 0, 0, 83, 209, 138, 42, 4, 0, 0, 0, 57, 255, 255],
    ),
    "co_f": (
        "float32",
        [2, 3, 3],
        [
            0.5550000071525574,
            0.2800000309944153,
            0.25999999046325684,
            0.2750000059604645,
            0.24000002443790436,
            0.30000001192092896,
            0.23499998450279236,
            0.40000003576278687,
            0.46000000834465027,
            0.2150000035762787,
            0.320000022649765,
            0.5400000214576721,
            0.4749999940395355,
            0.20000001788139343,
            0.42000001668930054,
            0.19499999284744263,
            0.1600000262260437,
            0.2199999988079071,
        ],
    ),
    "ga_u8": (
        "uint8",
        [2, 3, 3],
        [255, 0, 72, 248, 248, 55, 30, 166, 222, 199, 140, 99, 0, 0, 0, 154, 255, 255],
    ),
    "ga_f": (
        "float32",
        [2, 3, 3],
        [
            0.7931101322174072,
            0.07074027508497238,
            0.006309573072940111,
            0.028991185128688812,
            0.028991185128688812,
            0.028991185128688812,
            0.006309573072940111,
            0.32503700256347656,
            0.32503700256347656,
            0.0013732005609199405,
            0.1332085132598877,
            0.6120656132698059,
            0.4562634229660034,
            0.006309573072940111,
            0.21763764321804047,
            0.0,
            0.0,
            0.0,
        ],
    ),
    "pis_u8": (
        "float32",
        [2, 3, 3],
        [
            1.6583125591278076,
            -1.009635090827942,
            -0.8317719101905823,
            1.0828728675842285,
            1.0828728675842285,
            -0.9050096869468689,
            -0.9782474637031555,
            -0.06800650805234909,
            0.6643712520599365,
            0.3295699954032898,
            -0.34003254771232605,
            -0.6748338341712952,
            -1.009635090827942,
            -1.009635090827942,
            -1.009635090827942,
            -0.20401953160762787,
            1.6059998273849487,
            1.6164623498916626,
        ],
    ),
    "pis_f": (
        "float32",
        [2, 3, 3],
        [
            2.027597665786743,
            -0.06790994107723236,
            -0.7664125561714172,
            -0.4171612560749054,
            -0.4171612560749054,
            -0.4171612560749054,
            -0.7664125561714172,
            0.9798439145088196,
            0.9798439145088196,
            -0.9410381317138672,
            0.2813413143157959,
            1.6783465147018433,
            1.3290951251983643,
            -0.7664125561714172,
            0.6305925846099854,
            -1.115663766860962,
            -1.115663766860962,
            -1.115663766860962,
        ],
    ),
    "gray_u8": ("uint8", [2, 3, 1], [78, 178, 72, 79, 0, 198]),
    "gray_f": (
        "float32",
        [2, 3, 1],
        [
            0.4565100371837616,
            0.1999800056219101,
            0.4504900276660919,
            0.3409450054168701,
            0.32493001222610474,
            0.0,
        ],
    ),
    "g2rgb": (
        "uint8",
        [2, 3, 3],
        [0, 0, 0, 200, 200, 200, 90, 90, 90, 64, 64, 64, 0, 0, 0, 250, 250, 250],
    ),
    "hsv": (
        "float32",
        [2, 3, 3],
        [
            0.041666675359010696,
            0.8888888359069824,
            0.8999999761581421,
            0.0,
            0.0,
            0.20000000298023224,
            0.5,
            0.8333333134651184,
            0.6000000238418579,
            0.5888888835906982,
            0.9375,
            0.800000011920929,
            0.8888888955116272,
            0.8571428060531616,
            0.699999988079071,
            0.0,
            0.0,
            0.0,
        ],
    ),
    "rgb": (
        "float32",
        [2, 3, 3],
        [
            0.10000000149011612,
            0.07000000029802322,
            0.08800001442432404,
            0.19200001657009125,
            0.20000000298023224,
            0.1600000113248825,
            0.6000000238418579,
            0.4560000002384186,
            0.23999999463558197,
            0.800000011920929,
            0.5760000348091125,
            0.48000001907348633,
            0.4599999785423279,
            0.44999998807907104,
            0.5,
            0.0,
            0.0,
            0.0,
        ],
    ),
    "hue_f": (
        "float32",
        [2, 3, 3],
        [
            0.20399990677833557,
            0.8999999761581421,
            0.10000000149011612,
            0.20000000298023224,
            0.20000000298023224,
            0.20000000298023224,
            0.40999993681907654,
            0.10000000149011612,
            0.6000000238418579,
            0.800000011920929,
            0.05000000074505806,
            0.6849997639656067,
            0.699999988079071,
            0.6719997525215149,
            0.10000000149011612,
            0.0,
            0.0,
            0.0,
        ],
    ),
    "hue_u8": (
        "uint8",
        [2, 3, 3],
        [0, 255, 69, 10, 135, 200, 160, 3, 36, 32, 128, 96, 0, 0, 0, 251, 77, 191],
    ),
    "sat_f": (
        "float32",
        [2, 3, 3],
        [
            0.8999999761581421,
            0.22499999403953552,
            0.0,
            0.20000000298023224,
            0.20000000298023224,
            0.20000000298023224,
            0.0,
            0.6000000238418579,
            0.6000000238418579,
            0.0,
            0.3733333647251129,
            0.800000011920929,
            0.699999988079071,
            0.0,
            0.4666665494441986,
            0.0,
            0.0,
            0.0,
        ],
    ),
    "sat_u8": (
        "uint8",
        [2, 3, 3],
        [255, 166, 172, 200, 200, 133, 105, 135, 160, 128, 105, 94, 0, 0, 0, 190, 251, 251],
    ),
    "rbr": (
        "uint8",
        [2, 3, 3],
        [
            [201, 0, 0, 146, 146, 0, 0, 36, 106, 74, 10, 0, 0, 0, 0, 23, 196, 197],
            [195, 0, 0, 140, 140, 0, 0, 30, 100, 68, 4, 0, 0, 0, 0, 17, 190, 191],
        ],
    ),
    "rco": (
        "float32",
        [2, 3, 3],
        [
            [
                1.1804922819137573,
                0.316260427236557,
                -0.030083417892456055,
                0.13902340829372406,
                0.16747912764549255,
                0.1186978816986084,
                -0.0097578763961792,
                0.7626042366027832,
                0.7138230204582214,
                -0.08414849638938904,
                0.4650416970252991,
                1.0113855600357056,
                0.8829297423362732,
                0.018697842955589294,
                0.5650416612625122,
                -0.15853914618492126,
                -0.13008341193199158,
                -0.17886465787887573,
            ],
            [
                0.760389506816864,
                0.2919066548347473,
                0.16474688053131104,
                0.23035010695457458,
                0.2161867320537567,
                0.24046680331230164,
                0.15463018417358398,
                0.5190664529800415,
                0.5433465242385864,
                0.11677023768424988,
                0.3676265776157379,
                0.6947863101959229,
                0.6089496612548828,
                0.1404668092727661,
                0.46762657165527344,
                0.07891026139259338,
                0.0647469013929367,
                0.08902698755264282,
            ],
        ],
    ),
    "rhue": (
        "float32",
        [2, 3, 3],
        [
            [
                0.8999999761581421,
                0.6971510648727417,
                0.10000000149011612,
                0.20000000298023224,
                0.20000000298023224,
                0.20000000298023224,
                0.10000000149011612,
                0.35178062319755554,
                0.6000000238418579,
                0.07232920825481415,
                0.05000000074505806,
                0.800000011920929,
                0.699999988079071,
                0.10000000149011612,
                0.2021367996931076,
                0.0,
                0.0,
                0.0,
            ],
            [
                0.4130847752094269,
                0.8999999761581421,
                0.10000000149011612,
                0.20000000298023224,
                0.20000000298023224,
                0.20000000298023224,
                0.2793219983577728,
                0.10000000149011612,
                0.6000000238418579,
                0.718982994556427,
                0.05000000074505806,
                0.800000011920929,
                0.699999988079071,
                0.5151861906051636,
                0.10000000149011612,
                0.0,
                0.0,
                0.0,
            ],
        ],
    ),
    "rsat": (
        "uint8",
        [2, 3, 3],
        [
            [255, 202, 205, 200, 200, 160, 127, 145, 160, 128, 114, 108, 0, 0, 0, 215, 251, 251],
            [255, 16, 32, 200, 200, 22, 13, 94, 160, 128, 68, 38, 0, 0, 0, 88, 250, 251],
        ],
    ),
}

# Float sums and powers whose order or libm TF does not share with numpy: TF's values to
# a few ulps (AdjustContrastv2's channel mean, Pow, the mean/std of standardization).
_CLOSE = {"co_f", "ga_f", "pis_u8", "pis_f", "rco"}


def _graph():
    fr.set_random_seed(42)
    vals = dict(F=F, W=W, U=U, I32=I32)
    P = {k: fr.placeholder(fr.as_dtype(v.dtype), v.shape) for k, v in vals.items()}
    f, w, u, i32 = P["F"], P["W"], P["U"], P["I32"]
    img = fr.image
    t = {
        "cid_u8_f32": img.convert_image_dtype(u, fr.float32),
        "cid_f_u8": img.convert_image_dtype(f, fr.uint8),
        "cid_w_u8_sat": img.convert_image_dtype(w, fr.uint8, saturate=True),
        "cid_w_i16_sat": img.convert_image_dtype(w, fr.int16, saturate=True),
        "cid_u8_i32": img.convert_image_dtype(u, fr.int32),
        "cid_i32_u8": img.convert_image_dtype(i32, fr.uint8),
        "cid_i32_i16": img.convert_image_dtype(i32, fr.int16),
        "cid_i32_f32": img.convert_image_dtype(i32, fr.float32),
        "cid_u8_f16": img.convert_image_dtype(u, fr.float16),
        "cid_f_f64": img.convert_image_dtype(f, fr.float64),
        "sc_w_u8": fr.saturate_cast(w * 300, fr.uint8),
        "sc_i32_u8": fr.saturate_cast(i32, fr.uint8),
        "sc_w_i32": fr.saturate_cast(w * 3e9, fr.int32),
        "br_u8": img.adjust_brightness(u, 0.2),
        "br_f": img.adjust_brightness(f, -0.15),
        "co_u8": img.adjust_contrast(u, 1.6),
        "co_f": img.adjust_contrast(f, 0.4),
        "ga_u8": img.adjust_gamma(u, 0.5, 1.1),
        "ga_f": img.adjust_gamma(f, 2.2),
        "pis_u8": img.per_image_standardization(u),
        "pis_f": img.per_image_standardization(f),
        "gray_u8": img.rgb_to_grayscale(u),
        "gray_f": img.rgb_to_grayscale(f),
        "g2rgb": img.grayscale_to_rgb(u[..., 1:2]),
        "hsv": img.rgb_to_hsv(f),
        "rgb": img.hsv_to_rgb(f),
        "hue_f": img.adjust_hue(f, 0.27),
        "hue_u8": img.adjust_hue(u, -0.61),
        "sat_f": img.adjust_saturation(f, 1.8),
        "sat_u8": img.adjust_saturation(u, 0.35),
        "rbr": img.random_brightness(u, 0.3, seed=1),
        "rco": img.random_contrast(f, 0.5, 1.5, seed=2),
        "rhue": img.random_hue(f, 0.3, seed=3),
        "rsat": img.random_saturation(u, 0.2, 1.2, seed=4),
    }
    return t, {P[k]: v for k, v in vals.items()}


def _check(name, got, want_dtype, want_shape, want):
    assert got.dtype == np.dtype(want_dtype), name
    assert list(got.shape) == want_shape, name
    want = np.array(want, dtype=np.float64 if got.dtype.kind == "f" else got.dtype)
    if name in _CLOSE:
        np.testing.assert_allclose(got.ravel(), want, rtol=2e-6, atol=1e-6, err_msg=name)
    else:
        assert np.array_equal(got.ravel().astype(want.dtype), want), name


def test_values_dtypes_and_shapes_match_tf():
    g = fr.Graph()
    with g.as_default():
        t, feed = _graph()
        for k, (dt, shape, _) in TF.items():
            assert t[k].dtype.name == dt, k
            assert t[k].shape.as_list() == shape, k
        with fr.Session() as s:
            runs = [s.run(t, feed) for _ in range(2)]
    for k, (dt, shape, want) in TF.items():
        if k.startswith("r") and k != "rgb":
            for run, w in zip(runs, want):
                _check(k, run[k], dt, shape, w)
        else:
            _check(k, runs[0][k], dt, shape, want)


def test_convert_image_dtype_rules():
    img = fr.image
    x = fr.constant(F)
    assert img.convert_image_dtype(x, fr.float32).op.type == "Identity"
    with pytest.raises(AttributeError, match="dtype must be either floating point or integer"):
        img.convert_image_dtype(x, fr.bool)
    with pytest.raises(AttributeError, match="image dtype must be either"):
        img.convert_image_dtype(fr.constant([True]), fr.float32)


def test_random_value_ops_check_their_ranges():
    img = fr.image
    with pytest.raises(ValueError, match="max_delta must be non-negative."):
        img.random_brightness(F, -0.1)
    with pytest.raises(ValueError, match="upper must be > lower."):
        img.random_contrast(F, 0.5, 0.5)
    with pytest.raises(ValueError, match="lower must be non-negative."):
        img.random_saturation(F, -0.5, 0.5)
    with pytest.raises(ValueError, match=r"max_delta must be <= 0.5."):
        img.random_hue(F, 0.6)
    with pytest.raises(ValueError, match="Gamma should be a non-negative real number."):
        img.adjust_gamma(F, -1.0)
    gamma = fr.placeholder(fr.float32, [])
    y = img.adjust_gamma(F, gamma)
    with fr.Session() as s:
        np.testing.assert_allclose(s.run(y, {gamma: 1.0}), F)
        with pytest.raises(fr.errors.InvalidArgumentError, match="Gamma should be"):
            s.run(y, {gamma: -2.0})


def test_shape_errors():
    img = fr.image
    with pytest.raises(ValueError, match="Dimension must be 3 but is 4"):
        img.rgb_to_hsv(np.zeros((2, 4), np.float32))
    with pytest.raises(ValueError, match="Shape must be at least rank 3 but is rank 2"):
        img.adjust_contrast(np.zeros((2, 3), np.float32), 2.0)
    with pytest.raises(ValueError, match="Last dimension of a grayscale image should be size 1."):
        img.grayscale_to_rgb(np.zeros((2, 2, 3), np.float32))
    with pytest.raises(ValueError, match="must be at least two-dimensional"):
        img.grayscale_to_rgb(np.zeros((1,), np.float32))
    with pytest.raises(TypeError, match="DataType int32 not in list"):
        img.rgb_to_hsv(np.zeros((2, 3), np.int32))
    p = fr.placeholder(fr.float32)
    hue = img.adjust_hue(p, 0.1)
    with fr.Session() as s:
        with pytest.raises(fr.errors.InvalidArgumentError, match="input must be at least 3-D"):
            s.run(hue, {p: np.zeros((4, 3), np.float32)})
        with pytest.raises(fr.errors.InvalidArgumentError, match="must have 3 channels"):
            s.run(hue, {p: np.zeros((1, 4, 2), np.float32)})


def test_hsv_round_trip_and_gradients():
    x = fr.constant(F.astype(np.float64))
    back = fr.image.hsv_to_rgb(fr.image.rgb_to_hsv(x))
    with fr.Session() as s:
        np.testing.assert_allclose(s.run(back), F, atol=1e-7)
    (g,) = fr.gradients(fr.reduce_sum(fr.image.rgb_to_hsv(x)), [x])
    assert g is not None
    with pytest.raises(LookupError, match="No gradient defined for operation"):
        c = fr.constant(F)
        fr.gradients(fr.reduce_sum(fr.image.adjust_hue(c, 0.1)), [c])
    c = fr.constant(F)
    with pytest.raises(LookupError, match=r"op type: AdjustContrastv2"):
        fr.gradients(fr.reduce_sum(fr.image.adjust_contrast(c, 2.0)), [c])
