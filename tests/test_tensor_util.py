"""fr.make_tensor_proto writes each field as TF 2.21 does (the literals are its output
for the same calls), and fr.make_ndarray reads it back."""

import numpy as np
import pytest

import flowrt as fr


def _fields(p):
    return str(p).replace("\n", " | ")


@pytest.mark.parametrize(
    "args, kwargs, want",
    [
        (
            ([1, 2, 3],),
            {},
            "dtype: DT_INT32 | tensor_shape { |   dim { |     size: 3 |   } | } "
            '| tensor_content: "\\001\\000\\000\\000\\002\\000\\000\\000\\003\\000\\000\\000" | ',
        ),
        ((1.5,), {}, "dtype: DT_FLOAT | tensor_shape { | } | float_val: 1.5 | "),
        (("ab",), {}, 'dtype: DT_STRING | tensor_shape { | } | string_val: "ab" | '),
        (
            (1, fr.float32, [2, 2]),
            {},
            "dtype: DT_FLOAT | tensor_shape { |   dim { |     size: 2 "
            "|   } |   dim { |     size: 2 |   } | } | float_val: 1 | ",
        ),
        (
            ([1, 2], None, [3]),
            {},
            "dtype: DT_INT32 | tensor_shape { |   dim { |     size: 3 |   "
            "} | } | int_val: 1 | int_val: 2 | ",
        ),
        (
            (3, fr.int64, [2]),
            {},
            "dtype: DT_INT64 | tensor_shape { |   dim { |     size: 2 |   } | } | int64_val: 3 | ",
        ),
        (
            ([1, 2], fr.float16),
            {},
            "dtype: DT_HALF | tensor_shape { |   dim { |     size: 2 |   "
            '} | } | tensor_content: "\\000<\\000@" | ',
        ),
    ],
)
def test_make_tensor_proto_fields_as_tf(args, kwargs, want):
    assert _fields(fr.make_tensor_proto(*args, **kwargs)) == want


def test_make_tensor_proto_round_trips_and_errors_as_tf():
    for value in (np.arange(6, dtype=np.int32).reshape(2, 3), [b"a", b"bc"], 2.5, [True, False]):
        back = fr.make_ndarray(fr.make_tensor_proto(value))
        np.testing.assert_array_equal(back, np.asarray(value))
    assert fr.make_ndarray(fr.make_tensor_proto(3, fr.float32, [2])).tolist() == [3.0, 3.0]
    proto = fr.make_tensor_proto(1.0)
    assert fr.make_tensor_proto(proto) is proto
    with pytest.raises(TypeError, match="Expected int32, but got 1.5 of type 'float'."):
        fr.make_tensor_proto(1.5, fr.int32)
    with pytest.raises(TypeError, match=r"Expected Tensor's shape: \(3,\), but got \(2,\)."):
        fr.make_tensor_proto([1, 2], shape=[3], verify_shape=True)
    with pytest.raises(ValueError, match="Too many elements provided. Takes at most 2, but got 3."):
        fr.make_tensor_proto([1, 2, 3], shape=[2])
