"""fr.image geometry: flips, transpose, rot90, crops and pads, 3-D and batched, against
TF 2.21's values (recorded below: the seeded random ones over three runs of one
session), static shapes, and TF's errors (ValueError at build time, InvalidArgumentError
at run time)."""

import numpy as np
import pytest

import flowrt as fr

IMG = np.arange(5 * 7 * 2).reshape(5, 7, 2).astype(np.float32)
BATCH = np.arange(6 * 2 * 3 * 1).reshape(6, 2, 3, 1).astype(np.int32)

# tf.image.* of IMG / BATCH in TF 2.21 (tf.set_random_seed(1234); channel 0).
TF = {
    "cc_0.5": [
        [16.0, 18.0, 20.0, 22.0, 24.0],
        [30.0, 32.0, 34.0, 36.0, 38.0],
        [44.0, 46.0, 48.0, 50.0, 52.0],
    ],
    "cc_0.3": [[18.0, 20.0, 22.0], [32.0, 34.0, 36.0], [46.0, 48.0, 50.0]],
    "cc_0.77": [
        [0.0, 2.0, 4.0, 6.0, 8.0, 10.0, 12.0],
        [14.0, 16.0, 18.0, 20.0, 22.0, 24.0, 26.0],
        [28.0, 30.0, 32.0, 34.0, 36.0, 38.0, 40.0],
        [42.0, 44.0, 46.0, 48.0, 50.0, 52.0, 54.0],
        [56.0, 58.0, 60.0, 62.0, 64.0, 66.0, 68.0],
    ],
    "rcp_3_10": [
        [0.0, 14.0, 16.0, 18.0, 20.0, 22.0, 24.0, 26.0, 0.0, 0.0],
        [0.0, 28.0, 30.0, 32.0, 34.0, 36.0, 38.0, 40.0, 0.0, 0.0],
        [0.0, 42.0, 44.0, 46.0, 48.0, 50.0, 52.0, 54.0, 0.0, 0.0],
    ],
    "rcp_8_4": [
        [0.0, 0.0, 0.0, 0.0],
        [2.0, 4.0, 6.0, 8.0],
        [16.0, 18.0, 20.0, 22.0],
        [30.0, 32.0, 34.0, 36.0],
        [44.0, 46.0, 48.0, 50.0],
        [58.0, 60.0, 62.0, 64.0],
        [0.0, 0.0, 0.0, 0.0],
        [0.0, 0.0, 0.0, 0.0],
    ],
    "rfl3": [
        [0.0, 2.0, 4.0, 6.0, 8.0, 10.0, 12.0],
        [12.0, 10.0, 8.0, 6.0, 4.0, 2.0, 0.0],
        [0.0, 2.0, 4.0, 6.0, 8.0, 10.0, 12.0],
    ],
    "rfu3": [
        [0.0, 14.0, 28.0, 42.0, 56.0],
        [56.0, 42.0, 28.0, 14.0, 0.0],
        [56.0, 42.0, 28.0, 14.0, 0.0],
    ],
    "rfl4": [
        [
            [[2, 1, 0], [5, 4, 3]],
            [[6, 7, 8], [9, 10, 11]],
            [[12, 13, 14], [15, 16, 17]],
            [[20, 19, 18], [23, 22, 21]],
            [[26, 25, 24], [29, 28, 27]],
            [[30, 31, 32], [33, 34, 35]],
        ],
        [
            [[2, 1, 0], [5, 4, 3]],
            [[6, 7, 8], [9, 10, 11]],
            [[14, 13, 12], [17, 16, 15]],
            [[20, 19, 18], [23, 22, 21]],
            [[26, 25, 24], [29, 28, 27]],
            [[30, 31, 32], [33, 34, 35]],
        ],
        [
            [[0, 1, 2], [3, 4, 5]],
            [[6, 7, 8], [9, 10, 11]],
            [[12, 13, 14], [15, 16, 17]],
            [[18, 19, 20], [21, 22, 23]],
            [[24, 25, 26], [27, 28, 29]],
            [[32, 31, 30], [35, 34, 33]],
        ],
    ],
    "rfu4": [
        [
            [[0, 1, 2], [3, 4, 5]],
            [[9, 10, 11], [6, 7, 8]],
            [[15, 16, 17], [12, 13, 14]],
            [[21, 22, 23], [18, 19, 20]],
            [[24, 25, 26], [27, 28, 29]],
            [[33, 34, 35], [30, 31, 32]],
        ],
        [
            [[0, 1, 2], [3, 4, 5]],
            [[9, 10, 11], [6, 7, 8]],
            [[12, 13, 14], [15, 16, 17]],
            [[18, 19, 20], [21, 22, 23]],
            [[24, 25, 26], [27, 28, 29]],
            [[33, 34, 35], [30, 31, 32]],
        ],
        [
            [[0, 1, 2], [3, 4, 5]],
            [[9, 10, 11], [6, 7, 8]],
            [[12, 13, 14], [15, 16, 17]],
            [[21, 22, 23], [18, 19, 20]],
            [[24, 25, 26], [27, 28, 29]],
            [[30, 31, 32], [33, 34, 35]],
        ],
    ],
    "rcrop": [
        [[2.0, 4.0, 6.0], [16.0, 18.0, 20.0]],
        [[36.0, 38.0, 40.0], [50.0, 52.0, 54.0]],
        [[21.0, 23.0, 25.0], [35.0, 37.0, 39.0]],
    ],
}


def _run(t, feed=None):
    with fr.Session() as s:
        return s.run(t, feed)


@pytest.mark.parametrize("batched", [False, True])
def test_flips_transpose_rot90_match_numpy(batched):
    x = np.stack([IMG, IMG[::-1] * 2]) if batched else IMG
    o = 1 if batched else 0
    img = fr.image
    got = _run(
        [img.flip_left_right(x), img.flip_up_down(x), img.transpose_image(x), img.transpose(x)]
        + [img.rot90(x, k) for k in range(-1, 6)]
    )
    assert np.array_equal(got[0], np.flip(x, o + 1))
    assert np.array_equal(got[1], np.flip(x, o))
    swapped = np.swapaxes(x, o, o + 1)
    assert np.array_equal(got[2], swapped) and np.array_equal(got[3], swapped)
    for k, r in zip(range(-1, 6), got[4:]):
        assert np.array_equal(r, np.rot90(x, k, axes=(o, o + 1))), k
        assert r.dtype == np.float32


def test_rot90_k_as_a_tensor_and_static_shapes():
    k = fr.placeholder(fr.int32, [])
    r = fr.image.rot90(IMG, k)
    assert r.shape.as_list() == [None, None, 2]
    assert np.array_equal(_run(r, {k: 3}), np.rot90(IMG, 3))
    b = fr.image.rot90(fr.placeholder(fr.float32, [4, 5, 6, 3]), 1)
    assert b.shape.as_list() == [4, None, None, 3]
    with pytest.raises(ValueError, match="must have rank 0"):
        fr.image.rot90(IMG, [1, 2])


def test_flip_of_unknown_rank_chooses_by_rank_at_run_time():
    p = fr.placeholder(fr.float32)
    y = fr.image.flip_left_right(p)
    assert np.array_equal(_run(y, {p: IMG}), IMG[:, ::-1])
    b = np.stack([IMG, IMG + 1])
    assert np.array_equal(_run(y, {p: b}), b[:, :, ::-1])


def test_crop_and_pad_to_bounding_box():
    c = fr.image.crop_to_bounding_box(IMG, 1, 2, 3, 4)
    p = fr.image.pad_to_bounding_box(IMG, 1, 2, 8, 10)
    assert c.shape.as_list() == [3, 4, 2] and p.shape.as_list() == [8, 10, 2]
    cv, pv = _run([c, p])
    assert np.array_equal(cv, IMG[1:4, 2:6])
    want = np.zeros((8, 10, 2), np.float32)
    want[1:6, 2:9] = IMG
    assert np.array_equal(pv, want)
    b = np.stack([IMG, -IMG])
    cb = fr.image.crop_to_bounding_box(b, 0, 3, 5, 4)
    assert cb.shape.as_list() == [2, 5, 4, 2]
    assert np.array_equal(_run(cb), b[:, :, 3:7])


def test_central_crop_and_resize_with_crop_or_pad_values():
    img = fr.image
    for f in ("0.5", "0.3", "0.77"):
        y = img.central_crop(IMG, float(f))
        assert np.array_equal(_run(y)[..., 0], TF["cc_" + f]), f
        assert y.shape.as_list() == list(np.shape(TF["cc_" + f])) + [2]
    assert img.central_crop(IMG, 1.0).shape.as_list() == [5, 7, 2]
    assert np.array_equal(
        _run(img.resize_image_with_crop_or_pad(IMG, 3, 10))[..., 0], TF["rcp_3_10"]
    )
    assert np.array_equal(_run(img.resize_with_crop_or_pad(IMG, 8, 4))[..., 0], TF["rcp_8_4"])
    b = np.stack([IMG, IMG])
    y = img.resize_with_crop_or_pad(b, 8, 4)
    assert y.shape.as_list() == [2, 8, 4, 2]
    assert np.array_equal(_run(y)[1, ..., 0], TF["rcp_8_4"])


def test_dynamic_sizes_are_checked_at_run_time():
    p = fr.placeholder(fr.float32, [None, None, 2])
    c = fr.image.crop_to_bounding_box(p, 1, 1, 2, 3)
    pad = fr.image.pad_to_bounding_box(p, 1, 0, 6, 7)
    cc = fr.image.central_crop(p, 0.6)
    rp = fr.image.resize_with_crop_or_pad(p, 4, 7)
    assert c.shape.as_list() == [2, 3, 2] and pad.shape.as_list() == [6, 7, 2]
    assert cc.shape.as_list() == [None, None, 2] and rp.shape.as_list() == [4, 7, 2]
    x = IMG[:4, :5]
    got = _run([c, pad, cc, rp], {p: x})
    assert np.array_equal(got[0], x[1:3, 1:4])
    assert np.array_equal(got[1][1:5, :5], x) and got[1].sum() == x.sum()
    # As TF: (5 - 5 * 0.6) / 2 is 0.9999999999999998 in float64, so the crop starts at 0.
    assert np.array_equal(got[2], x)
    assert np.array_equal(got[3][:, 1:6], x)
    with pytest.raises(
        fr.errors.InvalidArgumentError, match=r"width must be >= target \+ offset\."
    ):
        _run(c, {p: IMG[:4, :3]})
    with pytest.raises(fr.errors.InvalidArgumentError, match="height must be <= target - offset"):
        _run(pad, {p: np.zeros((6, 5, 2), np.float32)})
    with pytest.raises(
        fr.errors.InvalidArgumentError, match="inner 3 dims of 'image.shape' must be > 0"
    ):
        _run(c, {p: np.zeros((0, 5, 2), np.float32)})


def test_static_errors_are_value_errors_with_tfs_messages():
    img = fr.image
    with pytest.raises(ValueError, match="must be at least three-dimensional"):
        img.flip_left_right(np.zeros((3, 4)))
    with pytest.raises(ValueError, match="must have either 3 or 4 dimensions"):
        img.flip_up_down(np.zeros((1, 2, 3, 4, 1)))
    with pytest.raises(ValueError, match="inner 3 dims of 'image.shape' must be > 0"):
        img.transpose_image(np.zeros((3, 0, 1)))
    with pytest.raises(ValueError, match=r"^offset_width must be >= 0\.$"):
        img.crop_to_bounding_box(IMG, 0, -1, 2, 2)
    with pytest.raises(ValueError, match=r"^target_height must be > 0\.$"):
        img.crop_to_bounding_box(IMG, 0, 0, 0, 2)
    with pytest.raises(ValueError, match=r"^height must be >= target \+ offset\.$"):
        img.crop_to_bounding_box(IMG, 3, 0, 3, 2)
    with pytest.raises(ValueError, match="^width must be <= target - offset$"):
        img.pad_to_bounding_box(IMG, 0, 1, 5, 7)
    with pytest.raises(ValueError, match="^offset_height must be >= 0$"):
        img.pad_to_bounding_box(IMG, -1, 0, 9, 9)
    with pytest.raises(ValueError, match=r"^target_width must be > 0\.$"):
        img.resize_with_crop_or_pad(IMG, 3, 0)
    with pytest.raises(ValueError, match=r"central_fraction must be within \(0, 1\]"):
        img.central_crop(IMG, 1.5)
    with pytest.raises(ValueError, match="must have either 3 or 4 dimensions"):
        img.pad_to_bounding_box(np.zeros((2, 2)), 0, 0, 3, 3)


def test_seeded_random_flips_and_crop_give_tfs_values():
    g = fr.Graph()
    with g.as_default():
        fr.set_random_seed(1234)
        img = fr.image
        t = {
            "rfl3": img.random_flip_left_right(IMG, seed=5)[0, :, 0],
            "rfu3": img.random_flip_up_down(IMG, seed=6)[:, 0, 0],
            "rfl4": img.random_flip_left_right(BATCH, seed=7)[..., 0],
            "rfu4": img.random_flip_up_down(BATCH, seed=8)[..., 0],
            "rcrop": img.random_crop(IMG, [2, 3, 1], seed=9)[..., 0],
        }
        assert t["rfl4"].dtype == fr.int32
        with fr.Session() as s:
            runs = [s.run(t) for _ in range(3)]
    for k in t:
        assert [r[k].tolist() for r in runs] == TF[k], k
    assert fr.random_crop is fr.image.random_crop


def test_random_crop_too_large_is_an_invalid_argument():
    with pytest.raises(fr.errors.InvalidArgumentError, match="Need value.shape >= size, got"):
        _run(fr.random_crop(IMG, [6, 2, 2]))


def test_gradients_flow_through_crop_pad_and_flip():
    x = fr.constant(IMG)
    y = fr.image.flip_left_right(
        fr.image.pad_to_bounding_box(fr.image.crop_to_bounding_box(x, 1, 1, 3, 3), 2, 0, 6, 4)
    )
    (g,) = fr.gradients(fr.reduce_sum(y * y), [x])
    want = np.zeros_like(IMG)
    want[1:4, 1:4] = 2 * IMG[1:4, 1:4]
    assert np.array_equal(_run(g), want)
