"""TF1's TensorShape rank checks, Graph.as_graph_def, fr.dimension_value and
fr.is_tensor, as TF 2.21's compat.v1 gives them."""

import numpy as np
import pytest

import flowrt as fr


def test_tensorshape_rank_checks():
    s = fr.TensorShape([None, 3, 4])
    assert s.with_rank_at_least(2) is s and s.with_rank_at_most(3) is s
    with pytest.raises(ValueError, match="rank at least 4"):
        s.with_rank_at_least(4)
    with pytest.raises(ValueError, match="rank at most 2"):
        s.with_rank_at_most(2)
    s.assert_has_rank(3)
    with pytest.raises(ValueError, match="must have rank 2"):
        s.assert_has_rank(2)
    s.assert_same_rank([1, 2, 3])
    fr.TensorShape(None).assert_same_rank([1])
    with pytest.raises(ValueError, match="same rank"):
        s.assert_same_rank([1, 2])
    fr.TensorShape([1, 2]).assert_is_fully_defined()
    with pytest.raises(ValueError, match="not fully defined"):
        s.assert_is_fully_defined()
    assert fr.TensorShape(None).with_rank_at_least(5).ndims is None


def test_as_graph_def_lists_the_nodes():
    a = fr.constant(1.0, name="a")
    fr.add(a, a, name="b")
    gd = fr.get_default_graph().as_graph_def()
    assert isinstance(gd, fr.GraphDef)
    assert [(n.name, n.op, list(n.input)) for n in gd.node] == [
        ("a", "Const", []),
        ("b", "AddV2", ["a", "a"]),
    ]


def test_dimension_value_and_is_tensor():
    p = fr.placeholder(fr.float32, [None, 3])
    assert fr.dimension_value(p.shape[1]) == 3 and fr.dimension_value(p.shape[0]) is None
    assert fr.dimension_value(np.int64(4)) == 4
    assert fr.is_tensor(p) and fr.is_tensor(fr.Variable(1.0))
    assert fr.is_tensor(fr.SparseTensor([[0]], [1.0], [2]))
    assert not fr.is_tensor(1.0) and not fr.is_tensor(np.ones(2))
