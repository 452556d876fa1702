"""fr.image resizing: values exactly equal to TF 2.21's kernels (recorded below) for
each align_corners / half_pixel_centers mode, dtypes, shapes, names, resize_images'
3-D/4-D handling and errors."""

import numpy as np
import pytest

import flowrt as fr

IMG = (np.arange(12, dtype=np.float32).reshape(1, 3, 4, 1) * 1.7 - 3.1).astype(np.float32)

# ((size, align_corners, half_pixel_centers), kind): TF's output[0, :, :, 0].
TF_VALUES = {
    (((5, 6), False, False), "bil"): [
        [
            -3.0999999046325684,
            -1.9666664600372314,
            -0.8333331346511841,
            0.3000001907348633,
            1.4333338737487793,
            2.000000476837158,
        ],
        [
            0.9800004959106445,
            2.1133339405059814,
            3.2466673851013184,
            4.380000591278076,
            5.513334274291992,
            6.080000877380371,
        ],
        [
            5.060000419616699,
            6.193334102630615,
            7.326667785644531,
            8.460000991821289,
            9.593334197998047,
            10.160001754760742,
        ],
        [
            9.140000343322754,
            10.273334503173828,
            11.406667709350586,
            12.540000915527344,
            13.673334121704102,
            14.240001678466797,
        ],
        [
            10.5,
            11.633334159851074,
            12.766667366027832,
            13.899999618530273,
            15.033333778381348,
            15.600000381469727,
        ],
    ],
    (((5, 6), False, False), "nn"): [
        [
            -3.0999999046325684,
            -3.0999999046325684,
            -1.3999998569488525,
            0.3000001907348633,
            0.3000001907348633,
            2.000000476837158,
        ],
        [
            -3.0999999046325684,
            -3.0999999046325684,
            -1.3999998569488525,
            0.3000001907348633,
            0.3000001907348633,
            2.000000476837158,
        ],
        [
            3.700000286102295,
            3.700000286102295,
            5.400000095367432,
            7.100000858306885,
            7.100000858306885,
            8.80000114440918,
        ],
        [
            3.700000286102295,
            3.700000286102295,
            5.400000095367432,
            7.100000858306885,
            7.100000858306885,
            8.80000114440918,
        ],
        [
            10.5,
            10.5,
            12.200000762939453,
            13.899999618530273,
            13.899999618530273,
            15.600000381469727,
        ],
    ],
    (((5, 6), True, False), "bil"): [
        [
            -3.0999999046325684,
            -2.0799999237060547,
            -1.059999704360962,
            -0.03999972343444824,
            0.9800004959106445,
            2.000000476837158,
        ],
        [
            0.3000001907348633,
            1.320000171661377,
            2.3400003910064697,
            3.3600003719329834,
            4.380001068115234,
            5.40000057220459,
        ],
        [
            3.700000286102295,
            4.720000267028809,
            5.740000247955322,
            6.760000705718994,
            7.780001163482666,
            8.80000114440918,
        ],
        [
            7.100000381469727,
            8.120000839233398,
            9.140000343322754,
            10.15999984741211,
            11.180000305175781,
            12.200000762939453,
        ],
        [
            10.5,
            11.520000457763672,
            12.540000915527344,
            13.559999465942383,
            14.579999923706055,
            15.600000381469727,
        ],
    ],
    (((5, 6), True, False), "nn"): [
        [
            -3.0999999046325684,
            -1.3999998569488525,
            -1.3999998569488525,
            0.3000001907348633,
            0.3000001907348633,
            2.000000476837158,
        ],
        [
            3.700000286102295,
            5.400000095367432,
            5.400000095367432,
            7.100000858306885,
            7.100000858306885,
            8.80000114440918,
        ],
        [
            3.700000286102295,
            5.400000095367432,
            5.400000095367432,
            7.100000858306885,
            7.100000858306885,
            8.80000114440918,
        ],
        [
            10.5,
            12.200000762939453,
            12.200000762939453,
            13.899999618530273,
            13.899999618530273,
            15.600000381469727,
        ],
        [
            10.5,
            12.200000762939453,
            12.200000762939453,
            13.899999618530273,
            13.899999618530273,
            15.600000381469727,
        ],
    ],
    (((5, 6), False, True), "bil"): [
        [
            -3.0999999046325684,
            -2.25,
            -1.116666316986084,
            0.01666712760925293,
            1.1500003337860107,
            2.000000476837158,
        ],
        [
            -0.37999963760375977,
            0.4700002670288086,
            1.6033339500427246,
            2.7366673946380615,
            3.8700006008148193,
            4.720001220703125,
        ],
        [
            3.700000286102295,
            4.550000190734863,
            5.683333873748779,
            6.816667556762695,
            7.950000762939453,
            8.80000114440918,
        ],
        [
            7.780001163482666,
            8.630001068115234,
            9.763334274291992,
            10.89666748046875,
            12.030000686645508,
            12.880001068115234,
        ],
        [
            10.5,
            11.350000381469727,
            12.483333587646484,
            13.616666793823242,
            14.75,
            15.600000381469727,
        ],
    ],
    (((5, 6), False, True), "nn"): [
        [
            -3.0999999046325684,
            -1.3999998569488525,
            -1.3999998569488525,
            0.3000001907348633,
            2.000000476837158,
            2.000000476837158,
        ],
        [
            -3.0999999046325684,
            -1.3999998569488525,
            -1.3999998569488525,
            0.3000001907348633,
            2.000000476837158,
            2.000000476837158,
        ],
        [
            3.700000286102295,
            5.400000095367432,
            5.400000095367432,
            7.100000858306885,
            8.80000114440918,
            8.80000114440918,
        ],
        [
            10.5,
            12.200000762939453,
            12.200000762939453,
            13.899999618530273,
            15.600000381469727,
            15.600000381469727,
        ],
        [
            10.5,
            12.200000762939453,
            12.200000762939453,
            13.899999618530273,
            15.600000381469727,
            15.600000381469727,
        ],
    ],
    (((2, 3), False, False), "bil"): [
        [-3.0999999046325684, -0.8333331346511841, 1.4333338737487793],
        [7.100000381469727, 9.366666793823242, 11.633334159851074],
    ],
    (((2, 3), False, False), "nn"): [
        [-3.0999999046325684, -1.3999998569488525, 0.3000001907348633],
        [3.700000286102295, 5.400000095367432, 7.100000858306885],
    ],
    (((2, 3), True, False), "bil"): [
        [-3.0999999046325684, -0.5499998331069946, 2.000000476837158],
        [10.5, 13.050000190734863, 15.600000381469727],
    ],
    (((2, 3), True, False), "nn"): [
        [-3.0999999046325684, 0.3000001907348633, 2.000000476837158],
        [10.5, 13.899999618530273, 15.600000381469727],
    ],
    (((2, 3), False, True), "bil"): [
        [-1.116666555404663, 1.1500002145767212, 3.4166676998138428],
        [9.083333969116211, 11.350000381469727, 13.616667747497559],
    ],
    (((2, 3), False, True), "nn"): [
        [-3.0999999046325684, 0.3000001907348633, 2.000000476837158],
        [10.5, 13.899999618530273, 15.600000381469727],
    ],
}


@pytest.mark.parametrize("key", sorted(TF_VALUES, key=repr), ids=repr)
def test_values_are_exactly_tfs(key):
    (size, align, half), kind = key
    fn = fr.image.resize_bilinear if kind == "bil" else fr.image.resize_nearest_neighbor
    with fr.Graph().as_default():
        y = fn(IMG, size, align_corners=align, half_pixel_centers=half)
        assert y.shape.as_list() == [1, size[0], size[1], 1]
        with fr.Session() as s:
            got = s.run(y)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got[0, :, :, 0], np.array(TF_VALUES[key], np.float32))


def test_dtypes_names_and_gradient_ops():
    img = np.arange(48, dtype=np.uint8).reshape(1, 4, 6, 2)
    with fr.Graph().as_default():
        a = fr.image.resize_bilinear(img, [8, 12])
        b = fr.image.resize_nearest_neighbor(img, [8, 12])
        assert (a.name, a.dtype, b.name, b.dtype) == (
            "ResizeBilinear:0",
            fr.float32,
            "ResizeNearestNeighbor:0",
            fr.uint8,
        )
        x = fr.constant(IMG)
        ga = fr.gradients(fr.image.resize_bilinear(x, [5, 6]), x)[0]
        gb = fr.gradients(fr.image.resize_nearest_neighbor(x, [5, 6]), x)[0]
        assert ga.op.type == "ResizeBilinearGrad" and gb.op.type == "ResizeNearestNeighborGrad"
        assert ga.shape.as_list() == gb.shape.as_list() == [1, 3, 4, 1]
        with fr.Session() as s:
            av, bv, gav, gbv = s.run([a, b, ga, gb])
    np.testing.assert_array_equal(bv[0, ::2, ::2], img[0])
    np.testing.assert_array_equal(av[0, ::2, ::2], img[0].astype(np.float32))
    # Each output pixel passes on a total weight of 1: the gradients sum to 5 * 6.
    assert gav.sum() == pytest.approx(30.0) and gbv.sum() == 30.0


def test_resize_images_batches_and_squeezes_as_tf():
    r = np.random.default_rng(0)
    img = r.standard_normal((2, 5, 7, 3)).astype(np.float32)
    imgi = r.integers(0, 255, (1, 4, 6, 2)).astype(np.uint8)
    with fr.Graph().as_default():
        x = fr.constant(img)
        e = fr.image.resize_images(fr.constant(img[0]), [4, 9])
        f = fr.image.resize_images(x, fr.constant([5, 7]))
        g = fr.image.resize_images(
            imgi, [8, 8], method=fr.image.ResizeMethod.NEAREST_NEIGHBOR, align_corners=True
        )
        h = fr.image.resize(x, [10, 10], preserve_aspect_ratio=True)
        assert (e.name, e.shape.as_list()) == ("resize/Squeeze:0", [4, 9, 3])
        assert f is x  # the same size: no resize, as TF
        assert (g.name, g.dtype, g.shape.as_list()) == (
            "resize_2/ResizeNearestNeighbor:0",
            fr.uint8,
            [1, 8, 8, 2],
        )
        assert h.shape.as_list() == [2, 7, 10, 3]
        with fr.Session() as s:
            ev = s.run(e)
            want = s.run(fr.image.resize_bilinear(img[:1], [4, 9]))[0]
    np.testing.assert_array_equal(ev, want)


def test_errors():
    with fr.Graph().as_default():
        with pytest.raises(ValueError, match="^'images' must have either 3 or 4 dimensions.$"):
            fr.image.resize_images(np.ones((2, 2), np.float32), [2, 2])
        with pytest.raises(ValueError, match="'size' must be a 1-D Tensor of 2 elements"):
            fr.image.resize_images(np.ones((1, 2, 2, 1), np.float32), [2, 2, 2])
        with pytest.raises(ValueError, match="^Resize method is not implemented: 7$"):
            fr.image.resize_images(IMG, [2, 2], method=7)
        with pytest.raises(ValueError, match="Shape must be rank 4 but is rank 3"):
            fr.image.resize_bilinear(IMG[0], [2, 2])
        y = fr.image.resize_bilinear(IMG, [3, 3], align_corners=True, half_pixel_centers=True)
        size = fr.placeholder(fr.int32, [2])
        z = fr.image.resize_nearest_neighbor(IMG, size)
        assert z.shape.as_list() == [1, None, None, 1]
        with fr.Session() as s:
            with pytest.raises(
                fr.errors.InvalidArgumentError,
                match="If half_pixel_centers is True, align_corners must be False.",
            ):
                s.run(y)
            with pytest.raises(fr.errors.InvalidArgumentError, match="must be positive"):
                s.run(z, {size: [0, 2]})
