"""fr.searchsorted, fr.histogram_fixed_width, fr.string_join / fr.strings.join and
fr.extract_image_patches: values, names and errors as TF 2.21's (recorded)."""

import numpy as np
import pytest

import flowrt as fr


def test_searchsorted_both_sides_and_shapes():
    with fr.Graph().as_default():
        ss = fr.searchsorted(
            fr.constant([[1.0, 3, 5, 7], [2, 4, 6, 8]]), fr.constant([[0.0, 3, 9], [4, 4.5, 1]])
        )
        ss2 = fr.searchsorted(
            fr.constant([1, 3, 3, 7]), fr.constant([3, 8]), side="right", out_type=fr.int64
        )
        assert ss.shape.as_list() == [2, 3] and ss.dtype == fr.int32
        assert ss2.dtype == fr.int64 and ss2.op.inputs[0].op.type == "UpperBound"
        assert ss.op.inputs[0].op.type == "LowerBound"
        with fr.Session() as s:
            a, b = s.run([ss, ss2])
    assert a.tolist() == [[0, 1, 4], [1, 2, 0]] and b.tolist() == [3, 4]


def test_searchsorted_with_unknown_shapes():
    with fr.Graph().as_default():
        seq = fr.placeholder(fr.float32, [None, None])
        v = fr.placeholder(fr.float32, [None, None])
        out = fr.searchsorted(seq, v, side="right")
        with fr.Session() as s:
            got = s.run(out, {seq: [[1, 2, 2, 3]], v: [[2, 0, 5]]})
    assert got.tolist() == [[3, 0, 4]]


def test_searchsorted_errors():
    with fr.Graph().as_default():
        with pytest.raises(
            ValueError,
            match=r"^Argument `side` must be either 'right' or 'left'. Received: `side` = 'mid'.$",
        ):
            fr.searchsorted([1.0, 2.0], [1.0], side="mid")
        seq = fr.placeholder(fr.float32, [None, None])
        v = fr.placeholder(fr.float32, [None, None])
        out = fr.searchsorted(seq, v)
        with (
            fr.Session() as s,
            pytest.raises(
                fr.errors.InvalidArgumentError, match="Leading dim_size of both tensors must match"
            ),
        ):
            s.run(out, {seq: [[1.0], [2.0]], v: [[1.0]]})


def test_histogram_fixed_width_matches_tf():
    with fr.Graph().as_default():
        h = fr.histogram_fixed_width(fr.constant([-1.0, 0.0, 1.5, 2.0, 5.0, 15.0]), [0.0, 5.0], 5)
        h64 = fr.histogram_fixed_width([1, 2, 3, 9], [0, 10], nbins=2, dtype=fr.int64)
        assert (h.name, h.op.type, h.shape.as_list(), h.dtype) == (
            "histogram_fixed_width:0",
            "HistogramFixedWidth",
            [5],
            fr.int32,
        )
        with fr.Session() as s:
            hv, h64v = s.run([h, h64])
    assert hv.tolist() == [2, 1, 1, 0, 2] and h64v.tolist() == [3, 1]
    assert h64v.dtype == np.int64


def test_histogram_fixed_width_errors():
    with fr.Graph().as_default():
        with pytest.raises(ValueError, match="Requires nbins > 0: 0"):
            fr.histogram_fixed_width(fr.constant([1.0]), [0.0, 1.0], nbins=0)
        h = fr.histogram_fixed_width(fr.constant([1.0]), [1.0, 0.0], nbins=3)
        with (
            fr.Session() as s,
            pytest.raises(
                fr.errors.InvalidArgumentError, match=r"value_range\[0\] < value_range\[1\]"
            ),
        ):
            s.run(h)


def test_string_join_matches_tf():
    with fr.Graph().as_default():
        a = fr.constant([["a", "b"], ["c", "d"]])
        j = fr.string_join([a, fr.constant("x"), [["1", "2"], ["3", "4"]]], separator="-")
        j2 = fr.strings.join([a, "z"])
        assert (j.name, j.op.type, j.shape.as_list()) == ("StringJoin:0", "StringJoin", [2, 2])
        assert j2.name == "StringJoin_1:0" and fr.strings.to_number is fr.string_to_number
        with fr.Session() as s:
            jv, j2v = s.run([j, j2])
    assert jv.tolist() == [[b"a-x-1", b"b-x-2"], [b"c-x-3", b"d-x-4"]]
    assert j2v.tolist() == [[b"az", b"bz"], [b"cz", b"dz"]]


def test_string_join_shape_errors():
    with fr.Graph().as_default():
        a = fr.constant([["a", "b"], ["c", "d"]])
        with pytest.raises(ValueError, match="Shapes must be equal rank, but are 2 and 1"):
            fr.string_join([a, fr.constant(["1", "2"])])
        j = fr.string_join([fr.placeholder_with_default(a, None), fr.constant(["1", "2"])])
        with (
            fr.Session() as s,
            pytest.raises(
                fr.errors.InvalidArgumentError,
                match=r"Input shapes do not match: \[2, 2\] vs. \[2\]",
            ),
        ):
            s.run(j)


def test_extract_image_patches_matches_tf():
    x = np.arange(2 * 5 * 6 * 2.0).reshape(2, 5, 6, 2)
    with fr.Graph().as_default():
        p = fr.extract_image_patches(
            fr.constant(x), ksizes=[1, 3, 2, 1], strides=[1, 2, 2, 1], rates=[1, 1, 2, 1],
            padding="SAME",
        )  # fmt: skip
        q = fr.image.extract_patches(x, [1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID")
        assert (p.name, p.op.type, p.shape.as_list()) == (
            "ExtractImagePatches:0",
            "ExtractImagePatches",
            [2, 3, 3, 12],
        )
        assert q.shape.as_list() == [2, 4, 5, 8]
        with fr.Session() as s:
            v, qv = s.run([p, q])
    assert float((v**2).sum()) == 654158.0
    assert v[0, 0, 0].tolist() == [0, 0, 0, 0, 0, 1, 4, 5, 12, 13, 16, 17]
    assert v[1, 2, 1].tolist() == [100, 101, 104, 105, 112, 113, 116, 117, 0, 0, 0, 0]
    np.testing.assert_array_equal(qv[1, 2, 3], np.concatenate([x[1, 2, 3:5], x[1, 3, 3:5]]).ravel())
    with fr.Graph().as_default(), pytest.raises(ValueError, match="Can not specify both"):
        fr.extract_image_patches(x, [1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "SAME", sizes=[1])
