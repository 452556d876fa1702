"""tf.strings' text ops, hash buckets and byte codecs, against TF 2.21's recorded
values and messages (compat.v1, graph mode)."""

import gzip
import zlib

import numpy as np
import pytest

import flowrt as fr

S = [b"Hello World", b"  abc  ", "été".encode(), b""]


def _run(t):
    with fr.Session() as s:
        return s.run(t)


def _list(a):
    return np.asarray(a, dtype=object).tolist()


def test_regex_replace_uses_re2_rewrites():
    # TF 2.21's values.
    assert _list(_run(fr.strings.regex_replace(S, r"([a-z])o", r"<\1\0>"))) == [
        b"Hel<llo> World",
        b"  abc  ",
        S[2],
        b"",
    ]
    first = fr.regex_replace(S, "o|l", "X", replace_global=False)
    assert _list(_run(first)) == [b"HeXlo World", b"  abc  ", S[2], b""]
    assert _run(fr.strings.regex_replace([b"abc"], "", "-")).tolist() == [b"-a-b-c-"]
    rewrite = fr.constant("\\\\")  # RE2: an escaped backslash is one backslash
    assert _run(fr.strings.regex_replace([b"abc"], fr.constant("b"), rewrite)).tolist() == [b"a\\c"]
    assert first.op.type == "RegexReplace" and first.shape.as_list() == [4]


def test_regex_full_match_and_re2_only_patterns():
    got = _run(fr.strings.regex_full_match(S, r"\s*abc\s*"))
    assert got.dtype == np.bool_ and got.tolist() == [False, True, False, False]
    assert _run(fr.strings.regex_full_match(["été"], r"\pL+")).tolist() == [True]
    # A backreference is Python's but not RE2's: TF rejects it, and so does flowrt.
    with pytest.raises(fr.errors.InvalidArgumentError, match=r"Invalid pattern: \(a\)\\1"):
        _run(fr.strings.regex_full_match([b"aa"], r"(a)\1"))
    with pytest.raises(fr.errors.InvalidArgumentError, match="missing \\)"):
        _run(fr.strings.regex_replace([b"a"], "(", "x"))
    with pytest.raises(fr.errors.InvalidArgumentError, match="requests 2 matches"):
        _run(fr.strings.regex_replace([b"a"], "(a)", r"\2"))


def test_case_strip_and_length():
    assert _list(_run(fr.strings.lower(S))) == [b"hello world", b"  abc  ", S[2], b""]
    assert _list(_run(fr.strings.upper(S))) == [b"HELLO WORLD", b"  ABC  ", "éTé".encode(), b""]
    utf8 = _run(fr.strings.lower(["ÉTÉ A"], encoding="utf-8"))
    assert utf8.tolist() == ["été a".encode()]
    assert _list(_run(fr.string_strip(S))) == [b"Hello World", b"abc", S[2], b""]
    n = fr.strings.length(S)
    assert n.dtype == fr.int32 and _run(n).tolist() == [11, 7, 5, 0]
    assert _run(fr.strings.length(S, unit="UTF8_CHAR")).tolist() == [11, 7, 3, 0]
    with pytest.raises(ValueError, match="Attr 'unit' of 'StringLength' Op passed string 'X'"):
        fr.strings.length(S, unit="X")
    with pytest.raises(TypeError, match="parameter 'input' has DataType int32"):
        fr.strings.lower(fr.constant([1]))


def test_hash_buckets_equal_tensorflows():
    # TF 2.21's buckets (FarmHash Fingerprint64, SipHash-2-4, legacy Hash64).
    fast = fr.strings.to_hash_bucket_fast(S, 1000)
    assert fast.dtype == fr.int64 and _run(fast).tolist() == [971, 755, 534, 263]
    strong = fr.string_to_hash_bucket_strong(S, 1000, [1, 2])
    assert _run(strong).tolist() == [362, 895, 269, 435]
    assert _run(fr.string_to_hash_bucket(S, 1000)).tolist() == [944, 469, 722, 899]
    long = b"abcdefghijklmnopqrstuvwxyz0123456789"
    assert _run(fr.strings.to_hash_bucket_fast([(b"\xff\x00" + long) * 3], 2**62)).tolist() == [
        1103820983904182574
    ]
    assert _run(fr.strings.to_hash_bucket(input=[long], num_buckets=2**62)).tolist() == [
        794022125702020992
    ]
    with pytest.raises(ValueError, match="'num_buckets' of 'StringToHashBucketFast' Op passed 0"):
        fr.string_to_hash_bucket_fast(S, 0)
    with pytest.raises(ValueError, match="Value out of range: 9223372036854775808"):
        fr.strings.to_hash_bucket_strong(S, 3, [2**63, 5])
    with pytest.raises(fr.errors.InvalidArgumentError, match="Key must have 2 elements"):
        _run(fr.strings.to_hash_bucket_strong(S, 3, [1]))


def test_as_string_follows_printf():
    # TF 2.21's strings.
    cases = [
        (fr.as_string([1.5, -0.25, 1e10], precision=3), [b"1.500", b"-0.250", b"10000000000.000"]),
        (fr.as_string([1.5, 1e10], scientific=True), [b"1.500000e+00", b"1.000000e+10"]),
        (fr.as_string([1.5, 1e10, 0.1], shortest=True), [b"1.5", b"1e+10", b"0.1"]),
        (fr.as_string([7, -3], width=5, fill="0"), [b"00007", b"-0003"]),
        (fr.as_string([True, False]), [b"true", b"false"]),
        (fr.as_string([0.1, 1e10, 1.0 / 3]), [b"0.100000", b"10000000000.000000", b"0.333333"]),
        (fr.as_string([1.5], width=6, fill=" "), [b" 1.500000"]),
        (fr.as_string([b"ab"], width=4), [b"  ab"]),
        (fr.as_string(np.array([1 + 2j], np.complex64)), [b"(1.000000,2.000000)"]),
        (fr.as_string(fr.constant([200], fr.uint8)), [b"200"]),
        (fr.as_string(fr.constant([0.1], fr.float16)), [b"0.099976"]),
        (fr.as_string([np.nan, np.inf, -np.inf]), [b"nan", b"inf", b"-inf"]),
        (fr.as_string([12345.678], scientific=True, precision=2, width=12), [b"    1.23e+04"]),
    ]
    got = _run([t for t, _ in cases])
    assert [_list(g) for g in got] == [want for _, want in cases]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(input=[1.0], scientific=True, shortest=True), "Cannot select both scientific"),
        (dict(input=[1], precision=2), "precision not supported for datatype int32"),
        (dict(input=[1.0], fill="x"), 'Fill argument not supported: "x"'),
    ],
)
def test_as_string_rejects_what_tf_rejects(kwargs, message):
    with pytest.raises(fr.errors.InvalidArgumentError, match=message):
        _run(fr.as_string(**kwargs))


def test_reduce_join_joins_in_tfs_order():
    x = [[b"a", b"b", b"c"], [b"d", b"e", b"f"]]
    got = _run(
        [
            fr.strings.reduce_join(x, [0, 1]),
            fr.strings.reduce_join(x, [1, 0]),
            fr.reduce_join(x),
            fr.strings.reduce_join(x, []),
            fr.strings.reduce_join(x, 0, keepdims=True, separator="|"),
            fr.strings.reduce_join(x, axis=-1),
            fr.strings.reduce_join(fr.zeros([2, 0], fr.string), axis=1),
        ]
    )
    # TF 2.21's values: the first axis listed varies fastest.
    assert got[0] == b"adbecf" and got[1] == b"abcdef" and got[2] == b"abcdef"
    assert _list(got[3]) == x
    assert _list(got[4]) == [[b"a|d", b"b|e", b"c|f"]]
    assert _list(got[5]) == [b"abc", b"def"]
    assert _list(got[6]) == [b"", b""]
    t = fr.strings.reduce_join(x, 0, keep_dims=True)
    assert t.shape.as_list() == [1, 3]
    with pytest.raises(ValueError, match="Invalid reduction dimension 2 for input with 2"):
        fr.strings.reduce_join(x, 2)
    with pytest.raises(ValueError, match="Duplicate reduction dimension 1"):
        fr.strings.reduce_join(x, [1, -1])
    axes = fr.placeholder(fr.int32, [None])
    with pytest.raises(fr.errors.InvalidArgumentError, match="Duplicate reduction dimension 1"):
        with fr.Session() as s:
            s.run(fr.strings.reduce_join(x, axes), {axes: [1, -1]})


def _sparse(v):
    return v.indices.tolist(), _list(v.values), v.dense_shape.tolist()


def test_strings_split_is_str_split_per_string():
    # TF 2.21's values.
    got = _run(
        [
            fr.strings.split([b"", b"a,,b", b" x  y "], sep=","),
            fr.strings.split([b"", b" x  y "]),
            fr.strings.split(source=[b"a,b,c"], sep=",", maxsplit=1),
            fr.strings.split([b"a<>b<>"], sep="<>"),
            fr.strings.split([[b"a b"]]),
        ]
    )
    assert _sparse(got[0]) == (
        [[0, 0], [1, 0], [1, 1], [1, 2], [2, 0]],
        [b"", b"a", b"", b"b", b" x  y "],
        [3, 3],
    )
    assert _sparse(got[1]) == ([[1, 0], [1, 1]], [b"x", b"y"], [2, 2])
    assert _sparse(got[2]) == ([[0, 0], [0, 1]], [b"a", b"b,c"], [1, 2])
    assert _sparse(got[3]) == ([[0, 0], [0, 1], [0, 2]], [b"a", b"b", b""], [1, 3])
    assert _sparse(got[4]) == ([[0, 0, 0], [0, 0, 1]], [b"a", b"b"], [1, 1, 2])
    with pytest.raises(NotImplementedError, match="RaggedTensor"):
        fr.strings.split([b"a"], result_type="RaggedTensor")
    with pytest.raises(NotImplementedError, match="RaggedTensor"):
        fr.string_split([b"a"], result_type="RaggedTensor")


def test_base64_is_web_safe():
    enc = _run([fr.encode_base64([b"hello?>", b"ab"]), fr.io.encode_base64([b"hello?>"], True)])
    assert _list(enc[0]) == [b"aGVsbG8_Pg", b"YWI"] and _list(enc[1]) == [b"aGVsbG8_Pg=="]
    dec = fr.decode_base64([b"aGVsbG8_Pg", b"aGVsbG8_Pg==", b"YWI"])
    assert _list(_run(dec)) == [b"hello?>", b"hello?>", b"ab"]
    with pytest.raises(fr.errors.InvalidArgumentError, match="cannot be 1 modulo 4"):
        _run(fr.io.decode_base64([b"a"]))
    with pytest.raises(fr.errors.InvalidArgumentError, match="Invalid character found"):
        _run(fr.io.decode_base64([b"a+b="]))


def test_decode_compressed():
    got = _run(
        [
            fr.io.decode_compressed([zlib.compress(b"hello")], "ZLIB"),
            fr.io.decode_compressed([gzip.compress(b"hello")], "GZIP"),
            fr.io.decode_compressed([b"hello"]),
        ]
    )
    assert [_list(g) for g in got] == [[b"hello"]] * 3
    with pytest.raises(fr.errors.DataLossError, match="incorrect header check"):
        _run(fr.io.decode_compressed([b"hello"], "ZLIB"))
    with pytest.raises(fr.errors.InvalidArgumentError, match="Only ZLIB, GZIP or NONE"):
        _run(fr.io.decode_compressed([b"hello"], "LZ4"))


# TF 2.21's serialize_tensor bytes.
_SERIALIZED = [
    (
        np.array([[1.5, 2.0]], np.float32),
        b'\x08\x01\x12\x08\x12\x02\x08\x01\x12\x02\x08\x02"\x08\x00\x00\xc0?\x00\x00\x00@',
    ),
    (np.array([b"ab", b"c"], object), b"\x08\x07\x12\x04\x12\x02\x08\x02B\x02abB\x01c"),
    (np.int64(7), b'\x08\t\x12\x00"\x08\x07\x00\x00\x00\x00\x00\x00\x00'),
    (np.array([True]), b'\x08\n\x12\x04\x12\x02\x08\x01"\x01\x01'),
]


@pytest.mark.parametrize("value, tf_bytes", _SERIALIZED)
def test_serialize_tensor_writes_tfs_bytes_and_parse_reads_them(value, tf_bytes):
    t = fr.constant(value, fr.string if value.dtype == object else None)
    ser = fr.io.serialize_tensor(t)
    parsed = fr.io.parse_tensor(tf_bytes, t.dtype)
    got, back = _run([ser, parsed])
    assert got == tf_bytes
    assert back.dtype == value.dtype and back.shape == value.shape
    assert _list(back) == _list(value)


def test_parse_tensor_errors():
    ser = fr.io.serialize_tensor(fr.constant([1.5]))
    with pytest.raises(
        fr.errors.InvalidArgumentError, match=r"parsed tensor \(float\) and dtype \(int32\)"
    ):
        _run(fr.io.parse_tensor(ser, fr.int32))
    with pytest.raises(fr.errors.InvalidArgumentError, match="Could not parse `serialized`"):
        _run(fr.io.parse_tensor(b"\xff\xff", fr.int32))


def test_format_fills_placeholders():
    # TF 2.21: b"x=[1 2] y=3.5"
    t = fr.strings.format("x={} y={}", (fr.constant([1, 2]), fr.constant(3.5)))
    assert t.shape.as_list() == [] and _run(t) == b"x=[1 2] y=3.5"
    many = fr.strings.format("<>:<>", [fr.range(10), "s"], placeholder="<>", summarize=2)
    assert _run(many) == b'[0 1 ... 8 9]:"s"'  # TF 2.21's, as the next
    assert _run(fr.strings.format("{}", fr.constant([b"ab", b"c"]))) == b'["ab" "c"]'
    with pytest.raises(ValueError, match="must match: 2 vs. 1"):
        fr.strings.format("{} {}", fr.constant(1))


def test_decode_json_example_gives_tfs_bytes():
    j = (
        '{"features": {"feature": {"a": {"int64List": {"value": ["3", 4]}}, '
        '"b": {"bytesList": {"value": ["eHk="]}}}}}'
    )
    got = _run(fr.io.decode_json_example([j]))
    # TF 2.21 writes the same Example with int64 values unpacked (b"\x08\x03\x08\x04");
    # flowrt packs them (b"\n\x02\x03\x04"), as protobuf does: every parser reads both.
    assert _list(got) == [
        b"\n\x1a\n\x0b\n\x01a\x12\x06\x1a\x04\n\x02\x03\x04\n\x0b\n\x01b\x12\x06\n\x04\n\x02xy"
    ]
    parsed = fr.parse_example(got, {"a": fr.FixedLenFeature([2], fr.int64)})
    assert _run(parsed["a"]).tolist() == [[3, 4]]
    with pytest.raises(fr.errors.InvalidArgumentError, match="Error while parsing JSON"):
        _run(fr.decode_json_example(['{"x": 1}']))
