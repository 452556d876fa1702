"""fr.edit_distance against TF 2.21's recorded results: values, shapes, errors."""

import numpy as np
import pytest

import flowrt as fr

INF = np.inf


def _run(h, t, normalize=True, feed=False):
    """Builds ``edit_distance`` of two (indices, values, dense_shape) triples, as constants
    or fed through sparse placeholders, and runs it in a fresh graph."""
    with fr.Graph().as_default():
        if feed:
            dtype = fr.as_dtype(np.asarray(h[1]).dtype)
            hs, ts = fr.sparse_placeholder(dtype), fr.sparse_placeholder(dtype)
            out = fr.edit_distance(hs, ts, normalize=normalize)
            with fr.Session() as s:
                return out, s.run(out, {hs: h, ts: t})
        out = fr.edit_distance(fr.SparseTensor(*h), fr.SparseTensor(*t), normalize=normalize)
        with fr.Session() as s:
            return out, s.run(out)


# TF's docstring example: (0,0) has no truth, (0,1) and (1,1) no hypothesis.
DOC_H = ([[0, 0, 0], [1, 0, 0]], [b"a", b"b"], [2, 1, 1])
DOC_T = ([[0, 1, 0], [1, 0, 0], [1, 0, 1], [1, 1, 0]], [b"a", b"b", b"c", b"a"], [2, 2, 2])
INT_H = ([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [2, 0]], np.array([1, 2, 3, 4, 5, 6]), [4, 3])
INT_T = ([[0, 0], [0, 1], [1, 0], [1, 1], [1, 2], [3, 0]], np.array([1, 3, 4, 4, 5, 7]), [4, 4])
LONG_H = (
    [[0, 0, i] for i in range(6)] + [[0, 1, 0], [0, 1, 1]],
    np.array([1, 2, 3, 4, 5, 6, 7, 8], np.int32),
    [1, 2, 6],
)
LONG_T = (
    [[0, 0, 0], [0, 0, 1], [0, 0, 2], [0, 0, 3], [0, 1, 0], [0, 1, 1], [0, 1, 2]],
    np.array([2, 3, 9, 5, 8, 7, 7], np.int32),
    [1, 2, 3],
)
STR_H = ([[0, 0], [0, 1], [0, 2], [1, 0]], [b"kit", b"ten", b"x", b""], [3, 3])
STR_T = ([[0, 0], [0, 1], [1, 0], [1, 1], [2, 0]], [b"sit", b"ten", b"", b"y", b"z"], [3, 2])
EMPTY = (np.zeros([0, 2], np.int64), np.zeros([0], np.int32), [2, 2])

CASES = {
    # name: (hypothesis, truth, normalize, TF 2.21's output)
    "doc_normalized": (DOC_H, DOC_T, True, [[INF, 1.0], [0.5, 1.0]]),
    "doc_counts": (DOC_H, DOC_T, False, [[1.0, 1.0], [1.0, 1.0]]),
    "int_normalized": (INT_H, INT_T, True, [0.5, 1 / 3, INF, 1.0]),
    "int_counts": (INT_H, INT_T, False, [1.0, 1.0, 1.0, 1.0]),
    "longer_normalized": (LONG_H, LONG_T, True, [[0.75, 2 / 3]]),
    "longer_counts": (LONG_H, LONG_T, False, [[3.0, 2.0]]),
    "strings": (STR_H, STR_T, True, [1.0, 0.5, 1.0]),
    "gaps_in_the_last_index_do_not_count": (
        ([[0, 0], [0, 5]], np.array([1, 2], np.int32), [1, 6]),
        ([[0, 0], [0, 1]], np.array([1, 2], np.int32), [1, 2]),
        True,
        [0.0],
    ),
    "nan_equals_nothing": (
        ([[0, 0], [0, 1]], np.array([np.nan, 1.0], np.float32), [1, 2]),
        ([[0, 0], [0, 1]], np.array([np.nan, 1.0], np.float32), [1, 2]),
        False,
        [1.0],
    ),
    "float64": (
        ([[0, 0], [0, 1]], np.array([0.5, 1.5]), [1, 2]),
        ([[0, 0], [0, 1]], np.array([0.5, -0.0]), [1, 2]),
        True,
        [0.5],
    ),
    "negative_zero_equals_zero": (
        ([[0, 0]], np.array([0.0]), [1, 2]),
        ([[0, 0]], np.array([-0.0]), [1, 2]),
        True,
        [0.0],
    ),
    "bool": (([[0, 0]], [True], [1, 1]), ([[0, 0], [0, 1]], [True, False], [1, 2]), True, [0.5]),
    "empty_truth_counts": (
        ([[0, 0], [0, 1]], np.array([1, 2], np.int32), [2, 2]),
        EMPTY,
        False,
        [2.0, 0.0],
    ),
    "both_empty": (EMPTY, EMPTY, True, [0.0, 0.0]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_values_match_tf(case):
    h, t, normalize, want = CASES[case]
    out, got = _run(h, t, normalize)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, np.asarray(want, np.float32))
    assert out.shape.as_list() == list(got.shape)


@pytest.mark.parametrize(
    "h, t, want",
    [
        # TF 2.21: entries out of order are walked in storage order, run by run.
        (
            ([[1, 0], [0, 0], [0, 1]], [1, 2, 3], [2, 2]),
            ([[0, 0], [0, 1], [1, 0]], [2, 3, 1], [2, 2]),
            [INF, 0.0],
        ),
        (([[0, 1], [0, 0]], [1, 2], [1, 2]), ([[0, 0], [0, 1]], [2, 1], [1, 2]), [1.0]),
        (
            ([[0, 0], [1, 0], [0, 1]], [1, 2, 3], [2, 2]),
            ([[0, 0], [0, 1], [1, 0]], [1, 3, 2], [2, 2]),
            [INF, 0.0],
        ),
        # An index past its dimension that still lands inside the output.
        (([[0, 5]], [1], [2, 2]), ([[0, 0]], [1], [2, 2]), [0.0, 0.0]),
        (([[0, 0]], [1], [2, 2]), ([[1, 5]], [1], [2, 2]), [INF, 1.0]),
    ],
)
def test_unsorted_and_overlong_indices_give_tfs_result(h, t, want):
    _, got = _run(h, t, feed=True)
    np.testing.assert_array_equal(got, np.asarray(want, np.float32))


def test_static_shape_is_the_larger_of_each_dimension_or_unknown():
    with fr.Graph().as_default():
        h = fr.SparseTensor([[0, 0, 0]], np.array([1], np.int64), [1, 2, 5])
        t = fr.SparseTensor([[0, 0, 0]], np.array([1], np.int64), [3, 1, 2])
        out = fr.edit_distance(h, t)
        assert out.shape.as_list() == [3, 2] and out.dtype == fr.float32
        assert out.op.type == "EditDistance" and out.op.name == "edit_distance"
        assert fr.edit_distance(h, t, name="foo").name == "foo:0"
        unknown = fr.edit_distance(fr.sparse_placeholder(fr.int64, [2, 3]), t)
        assert unknown.shape.ndims is None
        neg = fr.edit_distance(
            fr.SparseTensor([[0, 0]], [1], [-1, 2]), fr.SparseTensor([[0, 0]], [1], [-1, 2])
        )
        assert neg.shape.as_list() == [None]


def test_sparse_tensor_values_are_accepted():
    with fr.Graph().as_default():
        v = fr.SparseTensorValue([[0, 0]], [1], [1, 2])
        out = fr.edit_distance(v, v)
        with fr.Session() as s:
            np.testing.assert_array_equal(s.run(out), [0.0])


def test_not_differentiable():
    with fr.Graph().as_default():
        v = fr.constant([1.0, 2.0])
        out = fr.edit_distance(
            fr.SparseTensor([[0, 0], [0, 1]], v, [1, 2]), fr.SparseTensor([[0, 0]], [1.0], [1, 2])
        )
        assert fr.gradients(out, v) == [None]


def test_construction_errors_match_tf():
    sp = fr.SparseTensor([[0, 0]], [1], [1, 1])
    with pytest.raises(TypeError, match="^Hypothesis must be a SparseTensor.$"):
        fr.edit_distance(fr.constant([1]), sp)
    with pytest.raises(TypeError, match="^Truth must be a SparseTensor.$"):
        fr.edit_distance(sp, [1])
    with pytest.raises(
        TypeError,
        match="Input 'truth_values' of 'EditDistance' Op has type float32 that does not "
        "match type int32 of argument 'hypothesis_values'",
    ):
        fr.edit_distance(sp, fr.SparseTensor([[0, 0]], [1.0], [1, 1]))
    with pytest.raises(
        ValueError, match="Num elements of hypothesis_shape does not match truth_shape: 2 vs. 3"
    ):
        fr.edit_distance(sp, fr.SparseTensor([[0, 0, 0]], [1], [1, 1, 1]))
    with pytest.raises(
        ValueError,
        match="Input Hypothesis SparseTensors must have rank at least 2, "
        "but hypothesis_shape rank is: 1",
    ):
        fr.edit_distance(fr.SparseTensor([[0]], [1], [1]), fr.SparseTensor([[0]], [1], [1]))


@pytest.mark.parametrize(
    "h, t, error, message",
    [
        (
            ([[0, 0]], [1], [1, 1]),
            ([[0, 0, 0]], [1], [1, 1, 1]),
            fr.errors.InvalidArgumentError,
            "Expected truth and hypothesis to have matching ranks, but their shapes are: "
            "[3] and [2]",
        ),
        (
            ([[0]], [1], [1]),
            ([[0]], [1], [1]),
            fr.errors.InvalidArgumentError,
            "Input SparseTensors must have rank at least 2, but truth_shape rank is: 1",
        ),
        (
            ([[0, 0], [0, 1]], [1], [1, 2]),
            ([[0, 0]], [1], [1, 2]),
            fr.errors.InvalidArgumentError,
            "Expected hypothesis_values.NumElements == #rows(hypothesis_indices), their "
            "shapes are: [1] and [2,2]",
        ),
        (
            ([[0, 0]], [1], [1, 2, 3]),
            ([[0, 0]], [1], [1, 2]),
            fr.errors.InvalidArgumentError,
            "Expected hypothesis_shape.NumElements == #cols(hypothesis_indices), their "
            "shapes are: [3] and [1,2]",
        ),
        (
            (np.zeros([0, 2], np.int64), np.zeros([0], np.int32), [0, 3]),
            (np.zeros([0, 2], np.int64), np.zeros([0], np.int32), [0, 3]),
            fr.errors.InvalidArgumentError,
            "Got output shape [0] which has 0 elements",
        ),
        (
            ([[0, 0]], [1], [-1, 1]),
            ([[0, 0]], [1], [1, 1]),
            fr.errors.InvalidArgumentError,
            "Dimension -1 must be >= 0",
        ),
        (
            ([[5, 0]], [1], [2, 2]),
            ([[0, 0]], [1], [2, 2]),
            fr.errors.InternalError,
            "Got an inner product 5 which would require writing to outside of the buffer "
            "for the output tensor (max elements 2)",
        ),
        (
            ([[-1, 0]], [1], [2, 2]),
            ([[0, 0]], [1], [2, 2]),
            fr.errors.InternalError,
            "Got an inner product -1 which would require",
        ),
    ],
)
def test_run_errors_match_tf(h, t, error, message):
    h = tuple(np.asarray(a, np.int32 if k == 1 else np.int64) for k, a in enumerate(h))
    t = tuple(np.asarray(a, np.int32 if k == 1 else np.int64) for k, a in enumerate(t))
    with pytest.raises(error) as info:
        _run(h, t, feed=True)
    assert message in info.value.message
    assert info.value.op.type == "EditDistance"
