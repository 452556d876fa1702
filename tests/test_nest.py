"""fr.nest: TF's nest semantics (values and messages recorded from TF 2.21)."""

import collections

import numpy as np
import pytest

import flowrt as fr

nest = fr.nest
P = collections.namedtuple("P", "a b")


def test_flatten_orders_dict_values_by_key_and_keeps_leaves_whole():
    arr = np.array([5, 6])
    s = {"b": [1, (2, 3)], "a": P(4, None), "c": arr, "d": "str", "e": {}}
    assert nest.flatten(s) == [4, None, 1, 2, 3, arr, "str"]  # TF 2.21's order
    assert nest.flatten(None) == [None] and nest.flatten({1: "a", 0: "b"}) == ["b", "a"]
    with pytest.raises(TypeError, match="'<' not supported"):
        nest.flatten({1: "a", "b": 2})


def test_pack_sequence_as_keeps_key_order_type_and_namedtuples():
    od = collections.OrderedDict([("z", 1), ("a", 2)])
    assert nest.flatten(od) == [2, 1]
    packed = nest.pack_sequence_as(od, [10, 20])
    assert type(packed) is collections.OrderedDict
    assert list(packed.items()) == [("z", 20), ("a", 10)]
    got = nest.pack_sequence_as({"x": P(0, [0, 0]), "w": 0}, [1, 2, 3, 4])
    assert got == {"w": 1, "x": P(2, [3, 4])} and type(got["x"]) is P
    assert nest.pack_sequence_as(7, ["leaf"]) == "leaf"
    with pytest.raises(ValueError, match="Structure had 2 atoms, but flat_sequence had 1"):
        nest.pack_sequence_as([1, 2], [1])
    with pytest.raises(ValueError, match="nest cannot guarantee that it is safe"):
        nest.pack_sequence_as(1, [1, 2])
    with pytest.raises(TypeError, match="Attempted to pack value:\n  5\ninto a structure"):
        nest.pack_sequence_as([1], 5)


def test_map_structure_and_its_argument_errors():
    assert nest.map_structure(lambda x, y: x + y, [1, (2,)], [10, (20,)]) == [11, (22,)]
    assert nest.map_structure(lambda x: x, [1, (2,)], check_types=False) == [1, (2,)]
    assert nest.map_structure(lambda a, b: a * b, [1, 2], (3, 4), check_types=False) == [3, 8]
    with pytest.raises(TypeError, match="func must be callable, got: 1"):
        nest.map_structure(1, [1])
    with pytest.raises(ValueError, match="Must provide at least one structure"):
        nest.map_structure(abs)
    with pytest.raises(ValueError, match="not: `foo`"):
        nest.map_structure(abs, [1], foo=1)
    with pytest.raises(TypeError, match="don't have the same sequence type"):
        nest.map_structure(lambda a, b: a, [1], (1,))


def test_assert_same_structure_messages_are_tfs():
    # TF 2.21's exact message.
    want = (
        "The two structures don't have the same nested structure.\n\nFirst structure: "
        "type=list str=[1, [2]]\n\nSecond structure: type=list str=[1, 2]\n\nMore "
        'specifically: Substructure "type=list str=[2]" is a sequence, while substructure '
        '"type=int str=2" is not\nEntire first structure:\n[., [.]]\nEntire second '
        "structure:\n[., .]"
    )
    with pytest.raises(ValueError) as e:
        nest.assert_same_structure([1, [2]], [1, 2])
    assert str(e.value) == want
    with pytest.raises(TypeError, match="has type P, while second structure .* has type tuple"):
        nest.assert_same_structure(P(1, 2), (1, 2))
    with pytest.raises(ValueError, match="don't have the same set of keys"):
        nest.assert_same_structure({"a": 1}, collections.OrderedDict([("z", 1), ("a", 2)]))
    with pytest.raises(ValueError, match="don't have the same number of elements"):
        nest.assert_same_structure([1], [1, 2])
    nest.assert_same_structure([1], (1,), check_types=False)
    nest.assert_same_structure({"a": 1}, collections.OrderedDict(a=2))
    nest.assert_same_structure(P(1, [2]), collections.namedtuple("P", "a b")(3, [4]))


def test_is_nested():
    assert nest.is_nested([]) and nest.is_nested((1,)) and nest.is_nested({})
    assert not nest.is_nested("ab") and not nest.is_nested(np.array([1]))
    assert not nest.is_nested({1}) and not nest.is_nested(fr.constant(1))
    with pytest.raises(ValueError, match="expand_composites=True is not supported"):
        nest.flatten([1], expand_composites=True)
