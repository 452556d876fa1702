"""fr.TensorShape: partially known shapes, merging, compatibility, printing, broadcasting."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import flowrt as fr
from flowrt._core.shape import broadcast_shapes, scalar, unknown_shape

S = fr.TensorShape


def test_known_partial_and_unknown():
    s = S([None, 3])
    assert s.as_list() == [None, 3] and s.ndims == 2 and s.rank == 2
    assert [fr.dimension_value(d) for d in s.dims] == [None, 3]
    assert s[0] is None and s[1] == 3 and s[1:].as_list() == [3] and len(s) == 2
    assert not s.is_fully_defined() and s.num_elements() is None
    u = S(None)
    assert u.ndims is None and u[0] is None and u[1:].ndims is None and not u
    with pytest.raises(ValueError, match="unknown TensorShape"):
        u.as_list()
    with pytest.raises(ValueError, match="unknown rank"):
        len(u)
    assert S([]) and S([]).is_fully_defined() and S([]).num_elements() == 1 and scalar() == S([])
    assert S([2, 3]).num_elements() == 6


@pytest.mark.parametrize(
    "shape,text",
    [
        ([None, 3], "(None, 3)"),
        ([None], "(None,)"),
        ([], "()"),
        (None, "<unknown>"),
        ([2, 3], "(2, 3)"),
    ],
)
def test_str_matches_tf2(shape, text):
    assert str(S(shape)) == text


def test_repr_and_equality():
    assert repr(S([None, 3])) == "TensorShape([None, 3])"
    assert S([1, 2]) == S([1, 2]) and S([1, 2]) == [1, 2] and S([1, 2]) != S([1, 3])
    assert hash(S([1, 2])) == hash(S([1, 2]))


def test_merge_compatible_concatenate_with_rank():
    assert S([None, 3]).merge_with([2, None]).as_list() == [2, 3]
    assert S(None).merge_with([1]).as_list() == [1]
    assert S([1]).merge_with(None).as_list() == [1]
    with pytest.raises(ValueError, match="are not compatible"):
        S([2]).merge_with([3])
    assert S([None, 3]).is_compatible_with([4, 3])
    assert S(None).is_compatible_with([4, 3])
    assert not S([4]).is_compatible_with([4, 3])
    with pytest.raises(ValueError, match="incompatible"):
        S([4]).assert_is_compatible_with([5])
    assert S([2, 3]).concatenate([4]).as_list() == [2, 3, 4]
    assert S([2]).concatenate(None).ndims is None
    assert S(None).with_rank(2).as_list() == [None, None] and unknown_shape(2) == S([None, None])
    with pytest.raises(ValueError, match="must have rank 2"):
        S([2]).with_rank(2)


def test_shapes_of_placeholders_and_ops():
    x = fr.placeholder(fr.float32, [None, 3])
    assert isinstance(x.shape, fr.TensorShape) and x.get_shape().as_list() == [None, 3]
    assert fr.placeholder(fr.int32, S([4])).shape.as_list() == [4]


dims = st.one_of(st.none(), st.integers(1, 4))
shapes = st.one_of(st.none(), st.lists(dims, max_size=4))


@given(shapes, shapes)
def test_broadcast_agrees_with_numpy_on_every_completion(a, b):
    """Each known output dim equals numpy's broadcast of any completion of the inputs."""
    sa, sb = S(a), S(b)
    try:
        out = broadcast_shapes(sa, sb)
    except ValueError:
        ka = [1 if d is None else d for d in a]
        kb = [1 if d is None else d for d in b]
        with pytest.raises(ValueError):
            np.broadcast_shapes(tuple(ka), tuple(kb))
        return
    if a is None or b is None:
        assert out.ndims is None
        return
    assert out.ndims == max(len(a), len(b))
    # complete unknown dims with values numpy accepts; known output dims must agree
    for fill in (1, 4):
        ka = tuple(fill if d is None else d for d in a)
        kb = tuple(fill if d is None else d for d in b)
        try:
            ref = np.broadcast_shapes(ka, kb)
        except ValueError:
            continue
        for got, want in zip(out.as_list(), ref):
            assert got is None or got == want
