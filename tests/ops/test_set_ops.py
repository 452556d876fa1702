"""fr.sets on dense and sparse inputs, against TF 2.21's recorded results."""

import pytest

import flowrt as fr

sets = fr.sets


def _run(*results):
    with fr.Session() as s:
        out = s.run(list(results))
    return [(v.indices.tolist(), v.values.tolist(), v.dense_shape.tolist()) for v in out]


def test_dense_and_sparse_operations_match_tf():
    a = fr.constant([[1, 2, 2, 3], [4, 5, 5, 5]])
    b = fr.constant([[2, 3, 7, 7], [5, 9, 9, 9]])
    sp = fr.SparseTensor([[0, 0], [0, 1], [1, 0]], [3, 1, 6], [2, 4])
    got = _run(
        sets.set_intersection(a, b),
        sets.set_union(a, b),
        sets.set_difference(a, b),
        sets.set_difference(a, b, aminusb=False),
        sets.intersection(sp, a),
        sets.union(a, sp),
        sets.difference(sp, a),
        sets.set_union(sp, sp),
    )
    # TF 2.21's (indices, values, dense_shape).
    assert got == [
        ([[0, 0], [0, 1], [1, 0]], [2, 3, 5], [2, 2]),
        ([[0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [1, 1], [1, 2]], [1, 2, 3, 7, 4, 5, 9], [2, 4]),
        ([[0, 0], [1, 0]], [1, 4], [2, 1]),
        ([[0, 0], [1, 0]], [7, 9], [2, 1]),
        ([[0, 0], [0, 1]], [1, 3], [2, 2]),
        ([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]], [1, 2, 3, 4, 5, 6], [2, 3]),
        ([[1, 0]], [6], [2, 1]),
        ([[0, 0], [0, 1], [1, 0]], [1, 3, 6], [2, 2]),
    ]
    with fr.Session() as s:
        assert s.run(sets.set_size(sp)).tolist() == [2, 1]
        strings = s.run(sets.set_union([[b"a", b"b"]], fr.constant([[b"c", b"a"]])))
    assert strings.values.tolist() == [b"a", b"b", b"c"]


def test_result_specs_types_and_errors():
    r = sets.set_intersection(fr.constant([[1, 2]]), fr.constant([[2, 3]]))
    assert isinstance(r, fr.SparseTensor) and r.values.op.type == "DenseToDenseSetOperation"
    assert r.indices.shape.as_list() == [None, 2] and r.values.dtype == fr.int32
    assert r.dense_shape.shape.as_list() == [2]
    with pytest.raises(TypeError, match="'a' has invalid dtype `float32` not in supported"):
        sets.set_union(fr.constant([[1.0]]), fr.constant([[1.0]]))
    with pytest.raises(TypeError, match="Types don't match, int32 vs int64."):
        sets.set_union(fr.constant([[1]]), fr.constant([[1]], fr.int64))
    with pytest.raises(TypeError, match="Expected `SparseTensor`, got"):
        sets.set_size(fr.constant([[1]]))
    x = fr.placeholder(fr.int32, [None, 2])
    bad = sets.set_union(x, fr.constant([[1, 2], [3, 4]]))
    with fr.Session() as s:
        with pytest.raises(fr.errors.InvalidArgumentError, match="Shape mismatch"):
            s.run(bad.values, {x: [[1, 2]]})
        with pytest.raises(fr.errors.InvalidArgumentError, match="Invalid rank 1"):
            s.run(sets.set_union(fr.placeholder_with_default([1], [None]), [1]).values)
