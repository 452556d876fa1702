"""parse_example / parse_single_example rules and messages (TF1's), and decode_raw."""

import numpy as np
import pytest

import flowrt as fr

F = fr.train.Feature


def _ex(**features) -> bytes:
    return fr.train.Example(features=fr.train.Features(feature=features)).SerializeToString()


def _i64(*v):
    return F(int64_list=fr.train.Int64List(value=v))


def _f32(*v):
    return F(float_list=fr.train.FloatList(value=v))


def _bytes(*v):
    return F(bytes_list=fr.train.BytesList(value=v))


def _parse(spec, records, names=None):
    ser = fr.placeholder(fr.string, [None])
    out = fr.parse_example(ser, spec, example_names=names)
    with fr.Session() as sess:
        return out, sess.run(out, {ser: records})


def test_fixed_len_dense_values_defaults_shapes_and_dtypes():
    spec = {
        "id": fr.FixedLenFeature([], fr.int64),
        "v": fr.FixedLenFeature([2, 2], fr.float32),
        "s": fr.FixedLenFeature([1], fr.string, default_value=b"none"),
        "d": fr.FixedLenFeature([2], fr.float32, default_value=[7.0, 8.0]),
    }
    out, got = _parse(
        spec,
        [
            _ex(id=_i64(3), v=_f32(1, 2, 3, 4), s=_bytes(b"x")),
            _ex(id=_i64(-4), v=_f32(5, 6, 7, 8), d=_f32(0.5, 1.5)),
        ],
    )
    assert {k: t.shape.as_list() for k, t in out.items()} == {
        "id": [None],
        "v": [None, 2, 2],
        "s": [None, 1],
        "d": [None, 2],
    }
    assert {k: t.dtype for k, t in out.items()} == {
        "id": fr.int64,
        "v": fr.float32,
        "s": fr.string,
        "d": fr.float32,
    }
    np.testing.assert_array_equal(got["id"], [3, -4])
    assert got["id"].dtype == np.int64 and got["v"].dtype == np.float32
    np.testing.assert_array_equal(got["v"], [[[1, 2], [3, 4]], [[5, 6], [7, 8]]])
    assert got["s"].tolist() == [[b"x"], [b"none"]]
    np.testing.assert_array_equal(got["d"], [[7, 8], [0.5, 1.5]])


def test_var_len_features_are_sparse():
    out, got = _parse(
        {"t": fr.VarLenFeature(fr.int64), "w": fr.VarLenFeature(fr.string)},
        [_ex(t=_i64(1, 2), w=_bytes(b"a")), _ex(), _ex(t=_i64(5))],
    )
    assert isinstance(out["t"], fr.SparseTensor)
    assert out["t"].indices.shape.as_list() == [None, 2]
    t = got["t"]
    np.testing.assert_array_equal(t.indices, [[0, 0], [0, 1], [2, 0]])
    np.testing.assert_array_equal(t.values, [1, 2, 5])
    np.testing.assert_array_equal(t.dense_shape, [3, 2])
    assert got["w"].values.tolist() == [b"a"]
    np.testing.assert_array_equal(got["w"].dense_shape, [3, 1])


def test_fixed_len_sequence_pads_to_the_longest():
    spec = {
        "a": fr.FixedLenSequenceFeature([2], fr.float32, allow_missing=True),
        "s": fr.FixedLenSequenceFeature([], fr.string, allow_missing=True, default_value=b"z"),
    }
    out, got = _parse(
        spec,
        [_ex(a=_f32(1, 2, 3, 4), s=_bytes(b"x")), _ex(a=_f32(1, 2), s=_bytes(b"x", b"y")), _ex()],
    )
    assert out["a"].shape.as_list() == [None, None, 2]
    np.testing.assert_array_equal(got["a"], [[[1, 2], [3, 4]], [[1, 2], [0, 0]], [[0, 0], [0, 0]]])
    assert got["s"].tolist() == [[b"x", b"z"], [b"x", b"y"], [b"z", b"z"]]


def test_parse_single_example_drops_the_batch_dimension():
    ser = fr.placeholder(fr.string, [])
    out = fr.parse_single_example(
        ser,
        {
            "id": fr.FixedLenFeature([], fr.int64),
            "t": fr.VarLenFeature(fr.float32),
            "q": fr.FixedLenSequenceFeature([2], fr.int64, allow_missing=True),
        },
    )
    assert out["id"].shape.as_list() == []
    assert out["t"].indices.shape.as_list() == [None, 1]
    assert out["t"].dense_shape.shape.as_list() == [1]
    assert out["q"].shape.as_list() == [None, 2]
    with fr.Session() as sess:
        got = sess.run(out, {ser: _ex(id=_i64(9), t=_f32(0.5, 1.5), q=_i64(1, 2, 3, 4))})
    assert got["id"] == 9
    np.testing.assert_array_equal(got["t"].indices, [[0], [1]])
    np.testing.assert_array_equal(got["t"].dense_shape, [2])
    np.testing.assert_array_equal(got["q"], [[1, 2], [3, 4]])


@pytest.mark.parametrize(
    "spec, record, names, message",
    [
        (
            {"a": fr.FixedLenFeature([], fr.int64)},
            _ex(a=_f32(1.0)),
            None,
            "Name: <unknown>, Key: a, Index: 0.  Data types don't match. Data type: float but "
            "expected type: int64",
        ),
        (
            {"a": fr.FixedLenFeature([2], fr.float32)},
            _ex(a=_f32(1.0)),
            None,
            r"Name: <unknown>, Key: a, Index: 0.  Number of float values != expected.  Values "
            r"size: 1 but output shape: \[2\]",
        ),
        (
            {"a": fr.FixedLenFeature([2], fr.float32)},
            _ex(b=_f32(1.0)),
            ["n0"],
            r"Name: n0, Feature: a \(data type: float\) is required but could not be found.",
        ),
        (
            {"a": fr.FixedLenFeature([2], fr.float32)},
            _ex(a=F()),
            None,
            r"Feature: a \(data type: float\) is required",
        ),
        (
            {"a": fr.VarLenFeature(fr.int64)},
            _ex(a=_f32(1.0)),
            None,
            "Key: a, Index: 0.  Data types don't match. Expected type: int64, Actual type: float",
        ),
        (
            {"a": fr.FixedLenSequenceFeature([2], fr.float32, allow_missing=True)},
            _ex(a=_f32(1, 2, 3)),
            None,
            r"Number of float values is not a multiple of stride length. Saw 3 values but output "
            r"shape is: \[\?,2\]",
        ),
        (
            {"a": fr.FixedLenFeature([], fr.int64)},
            b"garbage\xff",
            None,
            "Could not parse example input, value: b'garbage\\\\xff'",
        ),
    ],
)
def test_bad_records_give_tf_messages(spec, record, names, message):
    ser = fr.placeholder(fr.string, [None])
    out = fr.parse_example(ser, spec, example_names=names)
    with fr.Session() as sess, pytest.raises(fr.errors.InvalidArgumentError, match=message) as e:
        sess.run(out, {ser: [record]})
    assert e.value.op.type == "ParseExampleV2"


def test_bad_specs_fail_at_construction():
    ser = fr.placeholder(fr.string, [None])
    with pytest.raises(
        TypeError, match="DataType int32 not in list of allowed values: float32, int64, string"
    ):
        fr.parse_example(ser, {"a": fr.FixedLenFeature([], fr.int32)})
    with pytest.raises(ValueError, match="FixedLenSequenceFeature requires allow_missing"):
        fr.parse_example(ser, {"a": fr.FixedLenSequenceFeature([2], fr.float32)})
    with pytest.raises(ValueError, match="Missing shape for feature a"):
        fr.parse_example(ser, {"a": fr.FixedLenFeature(None, fr.int64)})
    with pytest.raises(ValueError, match="cannot be None or falsy"):
        fr.parse_example(ser, {})
    with pytest.raises(ValueError, match="Cannot reshape a tensor with 1 elements"):
        fr.parse_example(ser, {"a": fr.FixedLenFeature([1, 2], fr.int64, default_value=3)})
    with pytest.raises(ValueError, match="Shape must be rank 0"):
        fr.parse_single_example(ser, {"a": fr.FixedLenFeature([], fr.int64)})


def test_empty_batch_parses_to_empty_outputs():
    _, got = _parse({"a": fr.FixedLenFeature([3], fr.int64), "b": fr.VarLenFeature(fr.int64)}, [])
    assert got["a"].shape == (0, 3)
    assert got["b"].indices.shape == (0, 2)
    np.testing.assert_array_equal(got["b"].dense_shape, [0, 0])


def test_parse_example_cross_checks_with_tensorflow():
    tf = pytest.importorskip("tensorflow.compat.v1")
    ex = tf.train.Example(
        features=tf.train.Features(
            feature={
                "i": tf.train.Feature(int64_list=tf.train.Int64List(value=[4, 5])),
                "b": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"q"])),
            }
        )
    )
    _, got = _parse(
        {"i": fr.FixedLenFeature([2], fr.int64), "b": fr.VarLenFeature(fr.string)},
        [ex.SerializeToString()],
    )
    np.testing.assert_array_equal(got["i"], [[4, 5]])
    assert got["b"].values.tolist() == [b"q"]


# --- decode_raw -------------------------------------------------------------------------


def test_decode_raw_dtypes_endianness_and_shape():
    s = fr.placeholder(fr.string, [None])
    d = fr.decode_raw(s, fr.uint8)
    assert d.shape.as_list() == [None, None] and d.dtype == fr.uint8
    with fr.Session() as sess:
        np.testing.assert_array_equal(
            sess.run(d, {s: [b"abcd", b"efgh"]}), [[97, 98, 99, 100], [101, 102, 103, 104]]
        )
        x = np.arange(6, dtype=np.float32)
        np.testing.assert_array_equal(sess.run(fr.decode_raw(x.tobytes(), fr.float32)), x)
        assert sess.run(fr.decode_raw(b"ab", fr.int16, little_endian=False)).tolist() == [0x6162]
        assert sess.run(fr.decode_raw(bytes=b"ab", out_type=fr.int16)).tolist() == [0x6261]


@pytest.mark.parametrize(
    "records, out_type, message",
    [
        (
            [b"abcd", b"ef"],
            fr.uint8,
            "DecodeRaw requires input strings to all be the same size, "
            "but element 1 has size 2 != 4",
        ),
        (
            [b"abc"],
            fr.float32,
            "Input to DecodeRaw has length 3 that is not a multiple of 4, the size of float",
        ),
    ],
)
def test_decode_raw_errors(records, out_type, message):
    s = fr.placeholder(fr.string, [None])
    with fr.Session() as sess, pytest.raises(fr.errors.InvalidArgumentError, match=message):
        sess.run(fr.decode_raw(s, out_type), {s: records})


def test_decode_raw_rejects_string_out_type():
    with pytest.raises(TypeError, match="DataType string not in list"):
        fr.decode_raw(b"x", fr.string)


# --- parse_single_sequence_example --------------------------------------------------------


def _sequence_example() -> bytes:
    s = fr.train.SequenceExample()
    s.context.feature["len"].int64_list.value.append(3)
    for t in range(3):
        s.feature_lists.feature_list["tok"].feature.add().int64_list.value.extend(range(t + 1))
        s.feature_lists.feature_list["vec"].feature.add().float_list.value.extend([t, -t])
    return s.SerializeToString()


def test_parse_single_sequence_example_context_and_lists():
    ser = fr.placeholder(fr.string, [])
    context, seqs = fr.parse_single_sequence_example(
        ser,
        context_features={
            "len": fr.FixedLenFeature([], fr.int64),
            "cv": fr.VarLenFeature(fr.int64),
        },
        sequence_features={
            "tok": fr.VarLenFeature(fr.int64),
            "vec": fr.FixedLenSequenceFeature([2], fr.float32),
            "miss": fr.FixedLenSequenceFeature([], fr.int64, allow_missing=True),
        },
    )
    assert context["len"].shape.as_list() == [] and seqs["vec"].shape.as_list() == [None, 2]
    assert context["cv"].indices.shape.as_list() == [None, 1]
    assert seqs["tok"].indices.shape.as_list() == [None, 2]
    with fr.Session() as sess:
        c, q = sess.run([context, seqs], {ser: _sequence_example()})
    assert c["len"] == 3 and c["cv"].values.size == 0
    np.testing.assert_array_equal(c["cv"].dense_shape, [0])
    np.testing.assert_array_equal(q["vec"], [[0, 0], [1, -1], [2, -2]])
    np.testing.assert_array_equal(
        q["tok"].indices, [[0, 0], [1, 0], [1, 1], [2, 0], [2, 1], [2, 2]]
    )
    np.testing.assert_array_equal(q["tok"].values, [0, 0, 1, 0, 1, 2])
    np.testing.assert_array_equal(q["tok"].dense_shape, [3, 3])
    assert q["miss"].shape == (0,)


def test_parse_single_sequence_example_missing_required_list():
    ser = fr.placeholder(fr.string, [])
    _, seqs = fr.parse_single_sequence_example(
        ser,
        sequence_features={"nope": fr.FixedLenSequenceFeature([], fr.int64)},
        example_name="ex7",
    )
    with (
        fr.Session() as sess,
        pytest.raises(
            fr.errors.InvalidArgumentError,
            match="Name: ex7, Feature list 'nope' is required but could not be found",
        ),
    ):
        sess.run(seqs, {ser: _sequence_example()})
    with pytest.raises(ValueError, match="Missing features"):
        fr.parse_single_sequence_example(ser)


# --- decode_raw(fixed_length=) (TF2's tf.io.decode_raw, DecodePaddedRaw) ---------------


def test_decode_raw_fixed_length_cuts_and_pads_as_tf():
    got = fr.decode_raw([b"abc", b"abcdefgh", b""], fr.uint8, fixed_length=5)
    assert got.shape.as_list() == [3, 5]
    shorts = fr.decode_raw([b"\x01\x00\x02\x00\x03", b"ab"], fr.int16, fixed_length=4)
    big = fr.decode_raw([b"\x01\x00\x02\x00\x03", b"ab"], fr.int16, False, fixed_length=4)
    n = fr.placeholder(fr.int32, [])
    fed = fr.decode_raw([b"abc"], fr.int16, fixed_length=n)
    assert fed.shape.as_list() == [1, None]
    with fr.Session() as sess:
        # TF 2.21's values:
        assert sess.run(got).tolist() == [[97, 98, 99, 0, 0], [97, 98, 99, 100, 101], [0] * 5]
        assert sess.run(shorts).tolist() == [[1, 2], [25185, 0]]
        assert sess.run(big).tolist() == [[256, 512], [24930, 0]]
        assert sess.run(fed, {n: 2}).tolist() == [[25185]]  # "ab" little-endian
        with pytest.raises(
            fr.errors.InvalidArgumentError,
            match=r"fixed_length \(3\) must be a multiple of the size of out_type \(2\)",
        ):
            sess.run(fed, {n: 3})
        for bad in (0, -2):
            with pytest.raises(
                fr.errors.InvalidArgumentError,
                match=r"fixed_length \(%d\) must be greater than zero." % bad,
            ):
                sess.run(fed, {n: bad})
    with pytest.raises(ValueError, match="must be evenly divisible by 2 but is 3"):
        fr.decode_raw([b"abc"], fr.int16, fixed_length=3)
    with pytest.raises(ValueError, match="must be non-negative but is -2"):
        fr.decode_raw([b"abc"], fr.int16, fixed_length=-2)
    with pytest.raises(TypeError, match="DataType bool not in list of allowed values"):
        fr.decode_raw([b"abc"], fr.bool, fixed_length=2)


# --- SparseFeature ---------------------------------------------------------------------


def _sparse_records():
    return [
        _ex(idx=_i64(3, 0), val=_f32(1.5, 2.5)),
        _ex(idx=_i64(1), val=_f32(7.0)),
        _ex(idx=_i64(9), val=_f32(1.0)),
    ]


def test_sparse_feature_parses_index_and_value_keys_as_tf():
    sf = fr.io.SparseFeature("idx", "val", fr.float32, 5)
    assert fr.SparseFeature is fr.io.SparseFeature and sf.already_sorted is False
    out, got = _parse({"x": sf}, _sparse_records())
    assert sorted(out) == ["x"]
    # TF 2.21: sorted per example; an index past `size` is kept, as TF keeps it.
    np.testing.assert_array_equal(got["x"].indices, [[0, 0], [0, 3], [1, 1], [2, 9]])
    np.testing.assert_array_equal(got["x"].values, [2.5, 1.5, 7.0, 1.0])
    np.testing.assert_array_equal(got["x"].dense_shape, [3, 5])
    both = {"x": sf, "idx": fr.VarLenFeature(fr.int64)}
    _, got = _parse(both, _sparse_records()[:2])
    np.testing.assert_array_equal(got["idx"].values, [3, 0, 1])
    sorted_ = fr.io.SparseFeature("idx", "val", fr.float32, 5, already_sorted=True)
    _, got = _parse({"x": sorted_}, _sparse_records()[:2])
    np.testing.assert_array_equal(got["x"].indices, [[0, 3], [0, 0], [1, 1]])
    two = fr.io.SparseFeature(["idx", "idx"], "val", fr.float32, [5, 10])
    _, got = _parse({"x": two}, _sparse_records()[:2])
    np.testing.assert_array_equal(got["x"].indices, [[0, 0, 0], [0, 3, 3], [1, 1, 1]])
    np.testing.assert_array_equal(got["x"].dense_shape, [2, 5, 10])
    _, got = _parse({"x": sf}, [_ex()])
    assert got["x"].indices.shape == (0, 2) and got["x"].dense_shape.tolist() == [1, 5]


def test_sparse_feature_of_one_example_and_bad_specs():
    single = fr.parse_single_example(
        _sparse_records()[0], {"x": fr.io.SparseFeature("idx", "val", fr.float32, 5)}
    )
    with fr.Session() as sess:
        got = sess.run(single["x"])
    np.testing.assert_array_equal(got.indices, [[0], [3]])
    np.testing.assert_array_equal(got.dense_shape, [5])
    ser = fr.placeholder(fr.string, [None])
    with pytest.raises(ValueError, match="Missing index_key for SparseFeature"):
        fr.parse_example(ser, {"x": fr.io.SparseFeature(None, "v", fr.float32, 3)})
    with pytest.raises(TypeError, match="vocab_size has to be a list of Tensors or Python ints"):
        fr.parse_example(ser, {"x": fr.io.SparseFeature(["a", "b"], "v", fr.float32, 3)})
    with pytest.raises(TypeError, match="vocab_size has to be a Tensor or Python int"):
        fr.parse_example(ser, {"x": fr.io.SparseFeature("a", "v", fr.float32, None)})


# --- parse_sequence_example (batched) ----------------------------------------------------


def _seq(steps, length=None):
    s = fr.train.SequenceExample()
    if length is not None:
        s.context.feature["len"].int64_list.value.append(length)
    for t in range(steps):
        s.feature_lists.feature_list["tok"].feature.add().int64_list.value.extend(range(t + 1))
        s.feature_lists.feature_list["vec"].feature.add().float_list.value.extend([t, -t])
    return s.SerializeToString()


def test_parse_sequence_example_pads_and_gives_lengths_as_tf():
    ser = fr.placeholder(fr.string, [None])
    context, seqs, lengths = fr.io.parse_sequence_example(
        ser,
        context_features={
            "len": fr.FixedLenFeature([], fr.int64, default_value=-1),
            "cv": fr.VarLenFeature(fr.int64),
        },
        sequence_features={
            "tok": fr.VarLenFeature(fr.int64),
            "vec": fr.FixedLenSequenceFeature([2], fr.float32),
            "miss": fr.FixedLenSequenceFeature([], fr.int64, allow_missing=True),
        },
    )
    # TF 2.21's static shapes and values for the same program:
    assert context["len"].shape.as_list() == [None]
    assert context["cv"].indices.shape.as_list() == [None, 2]
    assert seqs["tok"].indices.shape.as_list() == [None, 3]
    assert seqs["vec"].shape.as_list() == [None, None, 2]
    assert sorted(lengths) == ["miss", "vec"] and lengths["vec"].shape.as_list() == [None]
    with fr.Session() as sess:
        c, q, n = sess.run([context, seqs, lengths], {ser: [_seq(3, 3), _seq(1), _seq(2, 5)]})
    assert c["len"].tolist() == [3, -1, 5]
    assert c["cv"].indices.shape == (0, 2) and c["cv"].dense_shape.tolist() == [3, 0]
    np.testing.assert_array_equal(
        q["tok"].indices,
        [[0, 0, 0], [0, 1, 0], [0, 1, 1], [0, 2, 0], [0, 2, 1], [0, 2, 2]]
        + [[1, 0, 0], [2, 0, 0], [2, 1, 0], [2, 1, 1]],
    )
    assert q["tok"].values.tolist() == [0, 0, 1, 0, 1, 2, 0, 0, 0, 1]
    assert q["tok"].dense_shape.tolist() == [3, 3, 3]
    assert q["vec"].tolist() == [
        [[0, 0], [1, -1], [2, -2]],
        [[0, 0], [0, 0], [0, 0]],
        [[0, 0], [1, -1], [0, 0]],
    ]
    assert q["miss"].shape == (3, 0)
    assert n["vec"].tolist() == [3, 1, 2] and n["miss"].tolist() == [0, 0, 0]


def test_parse_sequence_example_errors_as_tf():
    ser = fr.placeholder(fr.string, [None])
    with pytest.raises(ValueError, match="Both `context_features` and `sequence_features`"):
        fr.io.parse_sequence_example(ser)
    _, seqs, _ = fr.io.parse_sequence_example(
        ser,
        sequence_features={"vec": fr.FixedLenSequenceFeature([2], fr.float32)},
        example_names=["a", "b"],
    )
    with (
        fr.Session() as sess,
        pytest.raises(
            fr.errors.InvalidArgumentError,
            match="Name: b, Feature list 'vec' is required but could not be found.",
        ),
    ):
        sess.run(seqs, {ser: [_seq(1), b""]})


def test_ragged_feature_is_not_supported_and_says_what_to_use():
    # TF 2.21 parses a RaggedFeature into a RaggedTensor, a type flowrt does not have.
    with pytest.raises(
        AttributeError,
        match=r"tf.io.RaggedFeature \(parse_example's RaggedTensor results\) is not supported "
        r"by flowrt; instead, parse the feature with fr.io.VarLenFeature",
    ):
        fr.io.RaggedFeature  # noqa: B018
    with pytest.raises(AttributeError, match=r"tf.RaggedTensor is not supported by flowrt"):
        fr.RaggedTensor  # noqa: B018
