"""fr.nn.ctc_greedy_decoder against TF 2.21's recorded results: values, shapes, errors."""

import numpy as np
import pytest

import flowrt as fr

INF = np.inf
# TF's docstring example: [max_time 3, batch 2, classes 3].
DOC = [
    [[0.0, -INF, -INF], [-2.3, -INF, -0.1]],
    [[-INF, -0.5, -INF], [-INF, -INF, -0.1]],
    [[-INF, -INF, -INF], [-0.1, -INF, -2.3]],
]
RANDOM = np.random.RandomState(0).randn(6, 3, 4).astype(np.float32)
# A B B * B * B with A = 0, B = 1 and the blank * = 2, one sequence.
REPEATS = np.full((7, 1, 3), -5.0, np.float32)
for _t, _c in enumerate([0, 1, 1, 2, 1, 2, 1]):
    REPEATS[_t, 0, _c] = 0.0


def _decode(x, lengths, feed=False, dtype=np.float32, **kw):
    with fr.Graph().as_default():
        if feed:
            xi, li = fr.placeholder(fr.as_dtype(dtype)), fr.placeholder(fr.int32)
            values = {xi: np.asarray(x, dtype), li: lengths}
        else:
            xi, li, values = fr.constant(np.asarray(x, dtype)), lengths, {}
        (decoded,), neg_sum = fr.nn.ctc_greedy_decoder(xi, li, **kw)
        with fr.Session() as s:
            sp, lp = s.run([decoded, neg_sum], values)
    return decoded, neg_sum, sp, lp


CASES = {
    # name: (inputs, sequence_length, kwargs, TF 2.21's indices, values, dense_shape, neg_sum)
    "doc_blank_1": (
        DOC,
        [2, 3],
        {"blank_index": 1},
        [[0, 0], [1, 0], [1, 1]],
        [0, 2, 0],
        [2, 2],
        [0.5, 0.3],
    ),
    "doc_default_blank": (DOC, [2, 3], {}, [[0, 0], [0, 1], [1, 0]], [0, 1, 0], [2, 2], [0.5, 0.3]),
    "doc_blank_minus_1": (
        DOC,
        [2, 3],
        {"blank_index": -1},
        [[0, 0], [0, 1], [1, 0]],
        [0, 1, 0],
        [2, 2],
        [0.5, 0.3],
    ),
    "doc_blank_0": (DOC, [2, 3], {"blank_index": 0}, [[0, 0], [1, 0]], [1, 2], [2, 1], [0.5, 0.3]),
    "doc_blank_minus_3": (
        DOC,
        [2, 3],
        {"blank_index": -3},
        [[0, 0], [1, 0]],
        [1, 2],
        [2, 1],
        [0.5, 0.3],
    ),
    "random_merged_with_an_empty_sequence": (
        RANDOM,
        [6, 4, 0],
        {},
        [[0, 0], [0, 1], [1, 0]],
        [0, 1, 0],
        [3, 2],
        [-6.529325, -6.845192, 0.0],
    ),
    "random_unmerged": (
        RANDOM,
        [6, 4, 0],
        {"merge_repeated": False},
        [[0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [1, 1], [1, 2]],
        [0, 0, 0, 1, 0, 0, 0],
        [3, 4],
        [-6.529325, -6.845192, 0.0],
    ),
    "random_blank_0": (
        RANDOM,
        [6, 4, 0],
        {"blank_index": 0},
        [[0, 0], [0, 1], [0, 2], [1, 0]],
        [3, 3, 1, 3],
        [3, 3],
        [-6.529325, -6.845192, 0.0],
    ),
    "repeats_merged": (
        REPEATS,
        [7],
        {},
        [[0, 0], [0, 1], [0, 2], [0, 3]],
        [0, 1, 1, 1],
        [1, 4],
        [0.0],
    ),
    "repeats_unmerged": (
        REPEATS,
        [7],
        {"merge_repeated": False},
        [[0, 0], [0, 1], [0, 2], [0, 3], [0, 4]],
        [0, 1, 1, 1, 1],
        [1, 5],
        [0.0],
    ),
    "negative_length_decodes_nothing": (REPEATS, [-1], {}, [], [], [1, 0], [0.0]),
    "ties_take_the_first_class": (np.zeros((2, 1, 3)), [2], {}, [[0, 0]], [0], [1, 1], [0.0]),
    "nan_wins_only_as_class_0": (
        [[[np.nan, 0.0, 1.0]], [[0.0, np.nan, -1.0]], [[1.0, np.nan, 2.0]]],
        [3],
        {"blank_index": 2},
        [[0, 0]],
        [0],
        [1, 1],
        [np.nan],
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_values_match_tf(case, dtype):
    x, lengths, kw, indices, values, shape, neg_sum = CASES[case]
    decoded, lp_t, sp, lp = _decode(x, lengths, dtype=dtype, **kw)
    assert sp.indices.dtype == sp.values.dtype == sp.dense_shape.dtype == np.int64
    assert sp.indices.reshape(-1, 2).tolist() == indices
    assert sp.values.tolist() == values and sp.dense_shape.tolist() == shape
    assert lp.dtype == dtype and lp.shape == (len(lengths), 1)
    # TF's float32 sums exactly; a float64 sum of the same inputs within float32's rounding.
    want = np.asarray(neg_sum, np.float32).astype(dtype)
    np.testing.assert_allclose(lp[:, 0], want, rtol=0 if dtype is np.float32 else 1e-6)
    assert decoded.indices.shape.as_list() == [None, 2]
    assert decoded.values.shape.as_list() == [None]
    assert decoded.dense_shape.shape.as_list() == [2]
    assert lp_t.shape.as_list() == [len(lengths), 1]


def test_graph_surface_is_tfs():
    with fr.Graph().as_default():
        x = fr.zeros([2, 1, 3])
        (decoded,), neg_sum = fr.nn.ctc_greedy_decoder(x, [2])
        assert decoded.indices.name == "CTCGreedyDecoder:0"
        assert neg_sum.name == "CTCGreedyDecoder:3"
        assert decoded.shape.as_list() == [None, None]
        assert decoded.values.op.attrs["merge_repeated"] is True
        assert decoded.values.op.attrs["blank_index"] == -1
        assert fr.gradients(neg_sum, x) == [None]
        (_,), unknown_batch = fr.nn.ctc_greedy_decoder(fr.placeholder(fr.float32), [2, 2])
        assert unknown_batch.shape.as_list() == [2, 1]


def test_construction_errors_match_tf():
    x = fr.zeros([7, 1, 3])
    with pytest.raises(
        TypeError,
        match="Input 'sequence_length' of 'CTCGreedyDecoder' Op has type int64 that does "
        "not match expected type of int32",
    ):
        fr.nn.ctc_greedy_decoder(x, fr.constant([2], fr.int64))
    with pytest.raises(
        TypeError,
        match="Value passed to parameter 'inputs' has DataType int32 not in list of "
        "allowed values: float32, float64",
    ):
        fr.nn.ctc_greedy_decoder(fr.zeros([2, 1, 3], fr.int32), [2])
    with pytest.raises(ValueError, match="Shape must be rank 3 but is rank 2"):
        fr.nn.ctc_greedy_decoder(fr.zeros([7, 3]), [7])
    with pytest.raises(ValueError, match="Shape must be rank 1 but is rank 2"):
        fr.nn.ctc_greedy_decoder(x, [[7]])
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 1 and 2"):
        fr.nn.ctc_greedy_decoder(x, [7, 7])


@pytest.mark.parametrize(
    "x, lengths, kw, error, message",
    [
        (REPEATS, [8], {}, fr.errors.FailedPreconditionError, "sequence_length(0) <= 7"),
        (
            REPEATS,
            [7, 7],
            {},
            fr.errors.FailedPreconditionError,
            "len(sequence_length) != batch_size.  len(sequence_length):  2 batch_size: 1",
        ),
        (REPEATS[:, 0], [7], {}, fr.errors.InvalidArgumentError, "inputs is not a 3-Tensor"),
        (REPEATS, [[7]], {}, fr.errors.InvalidArgumentError, "sequence_length is not a vector"),
        (np.zeros((0, 1, 3)), [0], {}, fr.errors.InvalidArgumentError, "inputs must not be empty"),
        (np.zeros((2, 1, 0)), [1], {}, fr.errors.InvalidArgumentError, "inputs must not be empty"),
        (
            DOC,
            [2, 3],
            {"blank_index": 3},
            fr.errors.InvalidArgumentError,
            "blank_index expected to be between -3 and 2 but was 3",
        ),
        (
            DOC,
            [2, 3],
            {"blank_index": -4},
            fr.errors.InvalidArgumentError,
            "blank_index expected to be between -3 and 2 but was -4",
        ),
    ],
)
def test_run_errors_match_tf(x, lengths, kw, error, message):
    with pytest.raises(error) as info:
        _decode(x, np.asarray(lengths, np.int32), feed=True, **kw)
    assert info.value.message == message
    assert info.value.op.type == "CTCGreedyDecoder"
