"""fr.image YIQ/YUV conversions and resize_image_with_pad against TF 2.21's recorded
values, and sample_distorted_bounding_box's constraints (its random stream is numpy's,
so the crops are checked against the rules TF's kernel guarantees, not TF's draws)."""

import numpy as np
import pytest

import flowrt as fr

IMG = np.array(
    [[[0.9, 0.3, 0.1], [0.2, 0.2, 0.2]], [[0.05, 0.4, 0.8], [0.7, 0.1, 0.5]]], np.float32
)
# TF 2.21's outputs for IMG fed through a placeholder, flattened.
TF = {
    "rgb_to_yuv": [0.45660001039505005, -0.17548678815364838, 0.3889872431755066,
                   0.20000000298023224, 1.2994121334486408e-09, -2.980538038599434e-10,
                   0.34095001220703125, 0.22590355575084686, -0.25524550676345825,
                   0.32500001788139343, 0.08611942827701569, 0.3289811313152313],
    "yuv_to_rgb": [1.0139882564544678, 0.7235450744628906, 1.5096185207366943,
                   0.4279766082763672, 0.004947170149534941, 0.6064123511314392,
                   0.9619064331054688, -0.5723544359207153, 0.8628247380256653,
                   1.2699415683746338, 0.37022483348846436, 0.9032061696052551],
    "rgb_to_yiq": [0.45660001039505005, 0.4218091070652008, 0.06464909017086029,
                   0.20000000298023224, -3.937911774443137e-09, -7.3289538704557344e-06,
                   0.34095001220703125, -0.3371028006076813, 0.05044015869498253,
                   0.32500001788139343, 0.22900278866291046, 0.2513761520385742],
    "yiq_to_rgb": [1.2488784790039062, 0.753675639629364, 0.738400936126709,
                   0.5153622031211853, 0.016156582161784172, 0.31949806213378906,
                   0.9290543794631958, -0.5765685439109802, 0.9706884026527405,
                   1.1060110330581665, 0.34919658303260803, 1.441441297531128],
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(TF))
def test_color_matrices_equal_tf(name):
    with fr.Graph().as_default():
        x = fr.placeholder(fr.float32, [2, 2, 3])
        y = getattr(fr.image, name)(x)
        assert y.shape.as_list() == [2, 2, 3] and y.dtype == fr.float32
        with fr.Session() as s:
            out = s.run(y, {x: IMG})
    np.testing.assert_allclose(out.ravel(), TF[name], rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize(
    "there, back", [("rgb_to_yuv", "yuv_to_rgb"), ("rgb_to_yiq", "yiq_to_rgb")]
)
def test_color_round_trip_and_gradient(there, back):
    with fr.Graph().as_default():
        x = fr.constant(IMG.astype(np.float64))
        y = getattr(fr.image, back)(getattr(fr.image, there)(x))
        (g,) = fr.gradients(fr.reduce_sum(getattr(fr.image, there)(x)[..., 0]), [x])
        with fr.Session() as s:
            out, grad = s.run([y, g])
    np.testing.assert_allclose(out, IMG, atol=1e-4)
    np.testing.assert_allclose(grad[0, 0], [0.299, 0.587, 0.114])  # the Y row of both


def test_resize_image_with_pad_equals_tf():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4, 1)
    with fr.Graph().as_default():
        tall = fr.image.resize_image_with_pad(x, 6, 4)
        wide = fr.image.resize_image_with_pad(x, 3, 8)
        one = fr.image.resize_image_with_pad(x[0], 6, 4)
        assert one.shape.as_list() == [6, 4, 1]
        with fr.Session() as s:
            t, w, o = s.run([tall, wide, one])
    # TF 2.21's values.
    np.testing.assert_array_equal(
        t[0, ..., 0],
        [[0, 0, 0, 0], [0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11], [0, 0, 0, 0], [0, 0, 0, 0]],
    )
    np.testing.assert_array_equal(
        w[0, ..., 0],
        [[0, 0, 0, 1, 2, 3, 0, 0], [0, 0, 4, 5, 6, 7, 0, 0], [0, 0, 8, 9, 10, 11, 0, 0]],
    )
    np.testing.assert_array_equal(o, t[0])


def test_resize_image_with_pad_rejects_bad_rank():
    with fr.Graph().as_default():
        with pytest.raises(ValueError, match="must have either 3 or 4 dimensions"):
            fr.image.resize_image_with_pad(np.zeros([2, 2], np.float32), 4, 4)


def test_sample_distorted_bounding_box_constraints_hold():
    h, w = 40, 60
    boxes = np.array([[[0.1, 0.2, 0.5, 0.6], [0.3, 0.3, 0.9, 0.95]]], np.float32)
    pix = [(int(b[1] * w), int(b[0] * h), int(b[3] * w), int(b[2] * h)) for b in boxes[0]]
    with fr.Graph().as_default():
        begin, size, box = fr.image.sample_distorted_bounding_box(
            [h, w, 3], boxes, seed=7, min_object_covered=0.6, area_range=[0.1, 0.5]
        )
        assert begin.shape.as_list() == [3] and box.shape.as_list() == [1, 1, 4]
        assert begin.dtype == fr.int32 and box.dtype == fr.float32
        crops = fr.slice(fr.zeros([h, w, 3]), begin, size)
        with fr.Session() as s:
            runs = [s.run([begin, size, box, crops]) for _ in range(30)]
    distinct = {tuple(b.tolist() + z.tolist()) for b, z, _, _ in runs}
    assert len(distinct) > 5
    for b, z, bx, c in runs:
        y, x, ch = b
        ch_, cw, last = z[0], z[1], z[2]
        assert ch == 0 and last == -1 and c.shape == (ch_, cw, 3)
        assert 0 <= y and y + ch_ <= h and 0 <= x and x + cw <= w
        assert 0.1 * h * w <= ch_ * cw <= 0.5 * h * w
        assert 0.75 - 0.05 <= cw / ch_ <= 1.33 + 0.05  # rounding to whole pixels
        covered = [
            max(0, min(x + cw, x1) - max(x, x0))
            * max(0, min(y + ch_, y1) - max(y, y0))
            / ((x1 - x0) * (y1 - y0))
            for x0, y0, x1, y1 in pix
        ]
        assert max(covered) >= 0.6
        np.testing.assert_allclose(bx[0, 0], [y / h, x / w, (y + ch_) / h, (x + cw) / w])


def test_sample_distorted_bounding_box_seeds_repeat_and_whole_image_fallback():
    def crops(seed):
        with fr.Graph().as_default():
            out = fr.image.sample_distorted_bounding_box(
                [30, 30, 1],
                np.zeros([1, 0, 4], np.float32),
                seed=seed,
                seed2=2,
                use_image_if_no_bounding_boxes=True,
            )
            with fr.Session() as s:
                return [s.run(out[:2])[1].tolist() for _ in range(5)]

    assert crops(3) == crops(3)
    with fr.Graph().as_default():
        # Nothing can cover all of a box inside an area of at most 1%: the whole image.
        b, z, _ = fr.image.sample_distorted_bounding_box(
            [30, 30, 1],
            [[[0.0, 0.0, 1.0, 1.0]]],
            min_object_covered=1.0,
            area_range=[0.005, 0.01],
            seed=1,
        )
        with fr.Session() as s:
            assert [v.tolist() for v in s.run([b, z])] == [[0, 0, 0], [30, 30, -1]]


def test_sample_distorted_bounding_box_errors():
    with fr.Graph().as_default():
        out = fr.image.sample_distorted_bounding_box([8, 8, 3], np.zeros([1, 0, 4], np.float32))
        with fr.Session() as s:
            with pytest.raises(fr.errors.InvalidArgumentError, match="No bounding boxes"):
                s.run(out)
            bad = fr.image.sample_distorted_bounding_box([8, 8, 3], [[[0.0, 0.0, 1.5, 1.0]]])
            with pytest.raises(fr.errors.InvalidArgumentError, match=r"\[0.0, 1.0\]"):
                s.run(bad)
        with pytest.raises(TypeError, match="image_size"):
            fr.image.sample_distorted_bounding_box([8.0, 8.0, 3.0], [[[0.0, 0.0, 1.0, 1.0]]])
