"""fr.bitwise against TF 2.21's recorded results (shift clamping and wrap-around)."""

import numpy as np
import pytest

import flowrt as fr

b = fr.bitwise


def test_int8_shifts_clamp_and_wrap_and_logic_ops():
    x = fr.constant([1, -1, 64, -128, 5, 5], fr.int8)
    s = fr.constant([7, 1, 2, 1, 8, -1], fr.int8)
    with fr.Session() as sess:
        got = sess.run(
            [
                b.left_shift(x, s),
                b.right_shift(x, s),
                b.invert(x),
                b.bitwise_and(x, s),
                b.bitwise_or(x, s),
                b.bitwise_xor(x, s),
            ]
        )
    # TF 2.21's values.
    want = [
        [-128, -2, 0, 0, -128, 5],
        [0, -1, 16, -64, 0, 5],
        [-2, 0, -65, 127, -6, -6],
        [1, 1, 0, 0, 0, 5],
        [7, -1, 66, -127, 13, -1],
        [6, -2, 66, -127, 13, -6],
    ]
    for g, w in zip(got, want, strict=True):
        assert g.dtype == np.int8
        np.testing.assert_array_equal(g, w)


def test_unsigned_wide_and_broadcast():
    u = fr.constant([1, 255, 128], fr.uint8)
    su = fr.constant([7, 1, 9], fr.uint8)
    with fr.Session() as sess:
        left, right, inv, grid, wide = sess.run(
            [
                b.left_shift(u, su),
                b.right_shift(u, su),
                b.invert(u),
                b.bitwise_and(fr.constant([[12], [10]]), fr.constant([6, 3])),
                b.right_shift(fr.constant([-100, 100], fr.int64), fr.constant([70, 64], fr.int64)),
            ]
        )
    # TF 2.21's values.
    assert left.tolist() == [128, 254, 0] and right.tolist() == [0, 127, 1]
    assert inv.tolist() == [254, 0, 127] and inv.dtype == np.uint8
    assert grid.tolist() == [[4, 0], [2, 2]] and grid.shape == (2, 2)
    assert wide.tolist() == [-1, 0]


def test_names_dtypes_and_no_gradient():
    x = fr.placeholder(fr.int32, [None, 3])
    y = b.bitwise_and(x, 2)
    assert y.op.type == "BitwiseAnd" and y.op.name.startswith("BitwiseAnd")
    assert y.shape.as_list() == [None, 3] and y.dtype == fr.int32
    assert b.invert(x).op.type == "Invert"
    with pytest.raises(TypeError):
        b.bitwise_and(fr.constant([1.0]), fr.constant([1.0]))
    with pytest.raises(TypeError):
        b.invert(fr.constant([True]))
    f = fr.placeholder(fr.float32, [3])
    z = fr.cast(b.left_shift(fr.cast(f, fr.int32), 1), fr.float32)
    assert fr.gradients(z, f) == [None]
