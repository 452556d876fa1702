"""string_to_number and substr, with TF 2.21's observed values and messages."""

import numpy as np
import pytest

import flowrt as fr


def _run(t):
    with fr.Session() as s:
        return s.run(t)


def test_string_to_number_parses_a_batch_by_tf_rules():
    x = fr.constant([[" 1.5", "-2", "1e40", "0x10"], ["7", "+3", "inf", ".5"]])
    got = _run(fr.string_to_number(x))
    assert got.dtype == np.float32 and got.shape == (2, 4)
    np.testing.assert_array_equal(
        got, np.array([[1.5, -2, np.inf, 16], [7, 3, np.inf, 0.5]], np.float32)
    )
    ints = _run(fr.string_to_number(["2147483647", " -5 "], fr.int32))
    assert ints.dtype == np.int32 and list(ints) == [2**31 - 1, -5]
    assert _run(fr.string_to_number(input=["9007199254740993"], out_type=fr.int64)) == [
        9007199254740993
    ]
    assert _run(fr.string_to_number("0.1", fr.float64)) == 0.1


@pytest.mark.parametrize(
    "strings, out_type, bad",
    [
        (["1.5", "x"], fr.float32, "x"),
        (["1.5"], fr.int32, "1.5"),
        ([""], fr.int32, ""),
        (["1", "2147483648"], fr.int32, "2147483648"),
        (["1_0"], fr.float64, "1_0"),
    ],
)
def test_string_to_number_names_the_string_it_cannot_convert(strings, out_type, bad):
    with pytest.raises(fr.errors.InvalidArgumentError) as info:
        _run(fr.string_to_number(strings, out_type))
    assert info.value.message == "StringToNumberOp could not correctly convert string: " + bad


def test_string_to_number_out_type_must_be_numeric():
    with pytest.raises(TypeError, match="DataType bool not in list of allowed values"):
        fr.string_to_number(["1"], fr.bool)


def test_substr_bytes_by_tf():
    s = fr.constant(["hello", "wo"])
    assert list(_run(fr.substr(s, 1, 3))) == [b"ell", b"o"]
    assert list(_run(fr.substr(s, -2, 3))) == [b"lo", b"wo"]
    assert list(_run(fr.substr(s, 2, -1))) == [b"llo", b""]  # negative len: to the end
    assert list(_run(fr.substr(fr.constant(["hello", "world"]), [0, 1], [1, 2]))) == [b"h", b"or"]
    t = fr.substr(
        fr.constant([["hello", "world"]]), fr.constant([[1], [2]]), fr.constant([[1], [1]])
    )
    assert t.shape.as_list() == [2, 2] and t.op.type == "Substr"
    assert _run(t).tolist() == [[b"e", b"o"], [b"l", b"r"]]
    assert _run(fr.substr("h\u00e9llo", 1, 2, unit="UTF8_CHAR")) == "\u00e9l".encode()
    assert _run(fr.substr("h\u00e9llo", 1, 2)) == "\u00e9".encode()
    assert _run(fr.substr("h\u00e9llo", -2, 2, unit="UTF8_CHAR")) == b"lo"
    assert _run(fr.substr(["hello"], fr.constant(5, fr.int64), fr.constant(2, fr.int64))) == [b""]


@pytest.mark.parametrize(
    "pos, message",
    [
        (3, "pos 3 out of range for string b'wo' at index 1"),
        (-3, "pos -3 out of range for string b'wo' at index 1"),
    ],
)
def test_substr_pos_out_of_range(pos, message):
    with pytest.raises(fr.errors.InvalidArgumentError) as info:
        _run(fr.substr(["hello", "wo"], pos, 1))
    assert info.value.message == message


def test_substr_argument_errors():
    with pytest.raises(ValueError, match='not in: "BYTE", "UTF8_CHAR"'):
        fr.substr("a", 0, 1, unit="BAD")
    with pytest.raises(TypeError, match="not in list of allowed values: int32, int64"):
        fr.substr("a", 1.0, 1)
    with pytest.raises(TypeError, match="Input 'len' of 'Substr' Op has type int64"):
        fr.substr("a", 0, fr.constant(1, fr.int64))
    with pytest.raises(ValueError, match="pos and len must have the same shape"):
        fr.substr(["a", "b"], [0, 1, 2], 1)
