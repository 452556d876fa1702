"""fr.image non-max suppression variants (``image_nms.py``) against TF 2.21's recorded
results: with scores and soft-NMS, padded, over an overlap matrix, and combined per
class. Scores are distinct: with tied scores TF's order of the tied boxes depends on its
heap, and flowrt's takes the lower index first."""

import numpy as np
import pytest

import flowrt as fr

BOXES = np.array(
    [
        [0.33000001311302185, 0.4300000071525574, 0.4399999976158142, 0.8600000143051147],
        [0.36000001430511475, 0.33000001311302185, 0.7699999809265137, 0.7799999713897705],
        [0.25, 0.38999998569488525, 0.7400000095367432, 0.8100000023841858],
        [0.25999999046325684, 0.5400000214576721, 0.5400000214576721, 0.949999988079071],
        [0.5799999833106995, 0.23000000417232513, 0.7300000190734863, 0.5899999737739563],
        [0.47999998927116394, 0.3199999928474426, 0.6399999856948853, 0.800000011920929],
        [0.3400000035762787, 0.5600000023841858, 0.6499999761581421, 0.8299999833106995],
        [0.03999999910593033, 0.05000000074505806, 0.25, 0.46000000834465027],
    ],
    np.float32,
)
SCORES = np.array(
    [
        0.4560000002384186,
        0.5680000185966492,
        0.01899999938905239,
        0.6179999709129333,
        0.6119999885559082,
        0.6169999837875366,
        0.9440000057220459,
        0.6819999814033508,
    ],
    np.float32,
)
OVERLAPS = np.array(
    [
        [
            0.36000001430511475,
            0.4399999976158142,
            0.699999988079071,
            0.05999999865889549,
            0.6700000166893005,
            0.6700000166893005,
            0.20999999344348907,
            0.12999999523162842,
        ],
        [
            0.3199999928474426,
            0.36000001430511475,
            0.5699999928474426,
            0.4399999976158142,
            0.9900000095367432,
            0.10000000149011612,
            0.20999999344348907,
            0.1599999964237213,
        ],
        [
            0.6499999761581421,
            0.25,
            0.4699999988079071,
            0.23999999463558197,
            0.1599999964237213,
            0.10999999940395355,
            0.6600000262260437,
            0.14000000059604645,
        ],
        [
            0.20000000298023224,
            0.3700000047683716,
            0.8199999928474426,
            0.10000000149011612,
            0.8399999737739563,
            0.10000000149011612,
            0.9800000190734863,
            0.4699999988079071,
        ],
        [
            0.9800000190734863,
            0.6000000238418579,
            0.7400000095367432,
            0.03999999910593033,
            0.2800000011920929,
            0.11999999731779099,
            0.30000001192092896,
            0.11999999731779099,
        ],
        [
            0.3199999928474426,
            0.4099999964237213,
            0.05999999865889549,
            0.6899999976158142,
            0.5699999928474426,
            0.27000001072883606,
            0.5199999809265137,
            0.09000000357627869,
        ],
        [
            0.5799999833106995,
            0.9300000071525574,
            0.3199999928474426,
            0.6700000166893005,
            0.12999999523162842,
            0.7200000286102295,
            0.28999999165534973,
            0.18000000715255737,
        ],
        [
            0.5899999737739563,
            0.019999999552965164,
            0.8299999833106995,
            0.0,
            0.6800000071525574,
            0.27000001072883606,
            0.7400000095367432,
            0.9599999785423279,
        ],
    ],
    np.float32,
)
CBOXES = np.array(
    [
        [
            [
                [-0.10000000149011612, 0.20000000298023224, 0.5, 1.2999999523162842],
                [0.10999999940395355, 0.47999998927116394, 0.5299999713897705, 1.100000023841858],
            ],
            [
                [0.3499999940395355, 0.15000000596046448, 0.9600000381469727, 0.550000011920929],
                [0.4399999976158142, 0.28999999165534973, 1.0799999237060547, 0.8400000333786011],
            ],
            [
                [0.36000001430511475, 0.25, 1.0399999618530273, 0.7699999809265137],
                [0.20999999344348907, 0.30000001192092896, 0.41999998688697815, 0.6499999761581421],
            ],
            [
                [0.33000001311302185, 0.15000000596046448, 0.8400000333786011, 0.5600000023841858],
                [0.07000000029802322, 0.15000000596046448, 0.550000011920929, 0.6500000357627869],
            ],
            [
                [0.28999999165534973, 0.33000001311302185, 0.8200000524520874, 0.75],
                [0.44999998807907104, 0.18000000715255737, 0.8700000047683716, 0.8299999833106995],
            ],
            [
                [0.4000000059604645, 0.3499999940395355, 0.6500000357627869, 1.0099999904632568],
                [0.36000001430511475, 0.5, 0.6299999952316284, 1.1299999952316284],
            ],
            [
                [0.07999999821186066, 0.3100000023841858, 0.3400000035762787, 0.9299999475479126],
                [0.4000000059604645, 0.2800000011920929, 0.800000011920929, 0.5099999904632568],
            ],
            [
                [0.3499999940395355, 0.23000000417232513, 0.9100000262260437, 0.8600000143051147],
                [0.49000000953674316, 0.4300000071525574, 0.699999988079071, 0.8100000023841858],
            ],
        ]
    ],
    np.float32,
)
CSCORES = np.array(
    [
        [
            [0.7300000190734863, 0.1720000058412552],
            [0.5210000276565552, 0.05400000140070915],
            [0.20000000298023224, 0.01899999938905239],
            [0.7940000295639038, 0.2240000069141388],
            [0.3449999988079071, 0.9279999732971191],
            [0.7039999961853027, 0.03200000151991844],
            [0.16500000655651093, 0.6209999918937683],
            [0.5770000219345093, 0.23800000548362732],
        ]
    ],
    np.float32,
)


def run(*ts):
    with fr.Session(graph=ts[0].graph) as s:
        return s.run(list(ts))


@pytest.mark.parametrize(
    "sigma, score_threshold, indices, scores",
    [
        # TF 2.21's values.
        (0.0, float("-inf"), [6, 7, 4, 0], [0.944, 0.682, 0.612, 0.456]),
        (
            0.5,
            0.1,
            [6, 7, 4, 5, 3, 1],
            [0.944, 0.682, 0.6118532419204712, 0.5478371381759644, 0.5332436561584473,
             0.4171137809753418],
        ),
    ],
)  # fmt: skip
def test_with_scores_and_soft_nms_equal_tf(sigma, score_threshold, indices, scores):
    with fr.Graph().as_default():
        i, s = fr.image.non_max_suppression_with_scores(
            BOXES, SCORES, 6, 0.3, score_threshold, soft_nms_sigma=sigma
        )
        assert i.dtype == fr.int32 and i.shape.as_list() == [None] and s.dtype == fr.float32
        got_i, got_s = run(i, s)
    assert got_i.tolist() == indices
    np.testing.assert_allclose(got_s, scores, rtol=1e-6)


def test_padded_pads_with_zeros_and_counts():
    with fr.Graph().as_default():
        b = fr.constant(BOXES)
        i, n = fr.image.non_max_suppression_padded(b, SCORES, 6, 0.3)
        pi, pn = fr.image.non_max_suppression_padded(b, SCORES, 6, 0.3, pad_to_max_output_size=True)
        assert n.shape.as_list() == [] and pi.shape.as_list() == [None]
        got = run(i, n, pi, pn)
    assert got[0].tolist() == [6, 7, 4, 0] and got[1] == 4
    assert got[2].tolist() == [6, 7, 4, 0, 0, 0] and got[3] == 4
    with fr.Graph().as_default():
        with pytest.raises(ValueError, match="must be True for batched input"):
            fr.image.non_max_suppression_padded(fr.zeros([2, 5, 4]), fr.zeros([2, 5]), 3)


def test_overlaps_equal_tf():
    with fr.Graph().as_default():
        (got,) = run(fr.image.non_max_suppression_overlaps(OVERLAPS, SCORES, 5, 0.5, 0.1))
    assert got.tolist() == [6, 4]  # TF 2.21's


@pytest.mark.parametrize(
    "pad_per_class, clip_boxes, boxes",
    [
        # TF 2.21's values (the third box is clipped, or not).
        (False, True, [[0.45, 0.18, 0.87, 0.83], [0.33, 0.15, 0.84, 0.56], [0.0, 0.2, 0.5, 1.0],
                       [0.4, 0.28, 0.8, 0.51], [0.0, 0.0, 0.0, 0.0]]),
        (True, False, [[0.45, 0.18, 0.87, 0.83], [0.33, 0.15, 0.84, 0.56], [-0.1, 0.2, 0.5, 1.3],
                       [0.4, 0.28, 0.8, 0.51]]),
    ],
)  # fmt: skip
def test_combined_equal_tf(pad_per_class, clip_boxes, boxes):
    with fr.Graph().as_default():
        out = fr.image.combined_non_max_suppression(
            CBOXES, CSCORES, 2, 5, 0.5, 0.2, pad_per_class, clip_boxes
        )
        d = 4 if pad_per_class else 5
        assert [t.shape.as_list() for t in out] == [[1, d, 4], [1, d], [1, d], [1]]
        b, s, c, v = run(*out)
    np.testing.assert_allclose(b[0], boxes, rtol=1e-6)
    np.testing.assert_allclose(s[0], [0.928, 0.794, 0.73, 0.621, 0.0][:d], rtol=1e-6)
    assert c[0].tolist() == [1.0, 0.0, 0.0, 1.0, 0.0][:d] and v.tolist() == [4]


def test_errors():
    with fr.Graph().as_default():
        with pytest.raises(fr.errors.InvalidArgumentError, match="soft_nms_sigma"):
            run(fr.image.non_max_suppression_with_scores(BOXES, SCORES, 3, soft_nms_sigma=-1.0)[0])
        with pytest.raises(fr.errors.InvalidArgumentError, match="overlaps must be square"):
            run(fr.image.non_max_suppression_overlaps(OVERLAPS[:3], SCORES, 3))
        with pytest.raises(ValueError, match="Shape must be rank 4"):
            fr.image.combined_non_max_suppression(BOXES, SCORES, 2, 5)
