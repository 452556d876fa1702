"""sparse_segment_sum/mean/sqrt_n and the sparse embedding lookups against TF 2.21's
results (recorded below); errors for bad indices and segment ids."""

from __future__ import annotations

import numpy as np
import pytest

import flowrt as fr

P = np.arange(24, dtype=np.float32).reshape(6, 4) / 10


def _run(fn):
    with fr.Graph().as_default():
        params = fr.Variable(P)
        out = fn(params)
        with fr.Session() as sess:
            sess.run(fr.global_variables_initializer())
            return sess.run(out)


def test_sparse_segment_reductions():
    got = _run(lambda p: fr.sparse_segment_sum(p, [0, 2, 2, 5], [0, 0, 2, 2]))
    want = np.stack([P[0] + P[2], np.zeros(4), P[2] + P[5]])
    np.testing.assert_allclose(got, want, rtol=1e-6)
    got = _run(lambda p: fr.math.sparse_segment_mean(p, [0, 2, 2, 5], [0, 0, 2, 2]))
    np.testing.assert_allclose(got, want / 2, rtol=1e-6)
    got = _run(lambda p: fr.sparse_segment_sqrt_n(p, [0, 2, 2, 5], [0, 0, 2, 2]))
    np.testing.assert_allclose(got, want / np.sqrt(2), rtol=1e-6)
    got = _run(lambda p: fr.sparse_segment_sum(p, [1, 3], [0, 1], num_segments=4))
    np.testing.assert_allclose(got, np.stack([P[1], P[3], np.zeros(4), np.zeros(4)]))
    # TF 2.21: the gradient of sum(sparse_segment_mean(...) ** 2) w.r.t. the params.
    with fr.Graph().as_default():
        p = fr.Variable(P)
        y = fr.sparse_segment_mean(p, [0, 2, 2, 5], [0, 0, 2, 2])
        g = fr.gradients(fr.reduce_sum(y * y), p)[0]
        with fr.Session() as sess:
            sess.run(fr.global_variables_initializer())
            got = sess.run(fr.convert_to_tensor(g))
    want = [
        [0.4, 0.5, 0.6, 0.7],
        [0, 0, 0, 0],
        [1.8, 2.0, 2.2, 2.4],
        [0, 0, 0, 0],
        [0, 0, 0, 0],
        [1.4, 1.5, 1.6, 1.7],
    ]
    np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.mark.parametrize(
    "indices, segment_ids, message",
    [
        ([0, 6], [0, 1], r"indices\[1\] == 6 out of range \[0, 6\)"),
        ([0, -1], [0, 1], r"indices\[1\] == -1 out of range"),
        ([0, 1], [1, 0], "segment ids are not increasing"),
    ],
)
def test_bad_indices_and_segment_ids(indices, segment_ids, message):
    with fr.Graph().as_default():
        ids = fr.placeholder(fr.int32, [None])
        y = fr.sparse_segment_sum(P, ids, segment_ids)
        with fr.Session() as sess, pytest.raises(fr.errors.InvalidArgumentError, match=message):
            sess.run(y, {ids: indices})
    with pytest.raises(ValueError, match="same size"):
        fr.sparse_segment_sum(P, [0, 1, 2], [0, 1])
    with pytest.raises(TypeError, match="indices"):
        fr.sparse_segment_mean(P, [0.0], [0])


def _ids():
    return fr.SparseTensor(
        [[0, 0], [0, 1], [2, 0], [2, 1], [2, 2]], np.array([1, 3, 3, 5, 1], np.int64), [4, 3]
    )


def _weights():
    return fr.SparseTensor(
        [[0, 0], [0, 1], [2, 0], [2, 1], [2, 2]], np.float32([1, 2, 0.5, 1.5, 3]), [4, 3]
    )


def test_embedding_lookup_sparse_combiners():
    rows = {0: [1, 3], 2: [3, 5, 1]}
    w = {0: [1, 2], 2: [0.5, 1.5, 3]}
    for combiner in ("sum", "mean", "sqrtn"):
        got = _run(lambda p, c=combiner: fr.nn.embedding_lookup_sparse(p, _ids(), None, combiner=c))
        assert got.shape == (3, 4)  # rows up to the last one with ids, as TF
        np.testing.assert_array_equal(got[1], 0)
        for r, ids in rows.items():
            s = P[ids].sum(0)
            scale = {"sum": 1, "mean": len(ids), "sqrtn": np.sqrt(len(ids))}[combiner]
            np.testing.assert_allclose(got[r], s / scale, rtol=1e-6)
        got = _run(
            lambda p, c=combiner: fr.nn.embedding_lookup_sparse(p, _ids(), _weights(), combiner=c)
        )
        for r, ids in rows.items():
            ws = np.float32(w[r])
            s = (P[ids] * ws[:, None]).sum(0)
            scale = {"sum": 1, "mean": ws.sum(), "sqrtn": np.sqrt((ws * ws).sum())}[combiner]
            np.testing.assert_allclose(got[r], s / scale, rtol=1e-6)
        np.testing.assert_array_equal(got[1], 0)  # zero weight: 0, not NaN (TF's div_no_nan)
    # TF 2.21's weighted sqrtn:
    np.testing.assert_allclose(
        got,
        [
            [1.2521981000900269, 1.386362075805664, 1.5205262899398804, 1.6546902656555176],
            [0.0, 0.0, 0.0, 0.0],
            [1.4154428243637085, 1.5628846883773804, 1.7103267908096313, 1.8577685356140137],
        ],
        rtol=1e-6,
    )
    with pytest.raises(ValueError, match="combiner must be one of"):
        fr.nn.embedding_lookup_sparse(P, _ids(), None, combiner="max")
    with pytest.raises(TypeError, match="sp_ids must be SparseTensor"):
        fr.nn.embedding_lookup_sparse(P, [[1]], None)


def test_safe_embedding_lookup_sparse_prunes_and_fills():
    where = [[0, 0], [0, 1], [2, 0], [3, 0]]

    def ids():
        return fr.SparseTensor(where, np.array([1, -1, 3, 2], np.int64), [5, 2])

    def w():
        return fr.SparseTensor(where, np.float32([1, 2, 0.5, -1]), [5, 2])

    got = _run(lambda p: fr.nn.safe_embedding_lookup_sparse(p, ids(), w()))
    # TF 2.21: id -1 and weight -1 dropped, empty rows 0, all 5 rows.
    want = [
        [0.4, 0.5, 0.6, 0.7],
        [0.0, 0.0, 0.0, 0.0],
        [1.2, 1.3, 1.4, 1.5],
        [0.0, 0.0, 0.0, 0.0],
        [0.0, 0.0, 0.0, 0.0],
    ]
    np.testing.assert_allclose(got, want, rtol=1e-6)
    got = _run(lambda p: fr.nn.safe_embedding_lookup_sparse(p, ids(), None, default_id=4))
    np.testing.assert_allclose(got[1], P[4], rtol=1e-6)  # an empty row: default_id's row
    np.testing.assert_allclose(got[3], P[2], rtol=1e-6)

    def ids3():
        where3 = [[0, 0, 0], [0, 1, 0], [0, 1, 1], [1, 0, 0]]
        return fr.SparseTensor(where3, np.array([1, 2, 3, 4], np.int64), [2, 2, 2])

    got = _run(lambda p: fr.nn.safe_embedding_lookup_sparse(p, ids3(), None))
    want3 = [
        [[0.4, 0.5, 0.6, 0.7], [1.0, 1.1, 1.2, 1.3]],
        [[1.6, 1.7, 1.8, 1.9], [0.0, 0.0, 0.0, 0.0]],
    ]
    np.testing.assert_allclose(got, want3, rtol=1e-6)
    with pytest.raises(ValueError, match="Missing embedding_weights"):
        fr.nn.safe_embedding_lookup_sparse(None, ids())
