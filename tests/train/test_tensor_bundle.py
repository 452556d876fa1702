"""Checkpoints in TF's V2 format (tensor bundles): round-trips of every dtype through
``fr.train.Saver``, TF-written bytes read without TF (the committed fixture), the SSTable
over many blocks and restart points, damage as DataLossError, and cross-checks with TF
2.21 in both directions when it is installed."""

import importlib.util
import os
import struct

import numpy as np
import pytest

import flowrt as fr
from flowrt._core.crc import masked_crc32c
from flowrt.protos.tensor_bundle_pb2 import BundleEntryProto, BundleHeaderProto
from flowrt.train import sstable, tensor_bundle
from tests.memory_limit import run_capped

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "tf_checkpoint")
_spec = importlib.util.spec_from_file_location(
    "make_fixture", os.path.join(FIXTURE, "make_fixture.py")
)
_fixture = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_fixture)
STEP, VALUES = _fixture.STEP, _fixture.VALUES

# What the variables of a TF-format round-trip hold: every dtype TF's Saver handles.
ROUND_TRIP = {k: v for k, v in VALUES.items() if k != "part"}
ROUND_TRIP["scalar_str"] = np.array(b"just one", dtype=object)
ROUND_TRIP["empty_str"] = np.zeros((0,), dtype=object)


def _assert_same(got, want, name):
    got = np.asarray(got, dtype=object if want.dtype == object else None)
    assert got.dtype == want.dtype, name
    assert got.shape == want.shape, name
    assert got.tolist() == want.tolist(), name


def _save(tmp_path, values, step=None):
    with fr.Graph().as_default():
        vs = [fr.Variable(v, name=n) for n, v in values.items()]
        with fr.Session() as sess:
            sess.run(fr.global_variables_initializer())
            return fr.train.Saver(vs).save(sess, str(tmp_path / "model.ckpt"), global_step=step)


def test_every_dtype_round_trips_through_save_restore_and_the_reader(tmp_path):
    path = _save(tmp_path, ROUND_TRIP, step=3)
    with fr.Graph().as_default():
        vs = {
            n: fr.Variable(
                np.zeros_like(v) if v.dtype != object else np.full(v.shape, b"?", object), name=n
            )
            for n, v in ROUND_TRIP.items()
        }
        with fr.Session() as sess:
            sess.run(fr.global_variables_initializer())
            fr.train.Saver(list(vs.values())).restore(sess, path)
            for n, v in vs.items():
                _assert_same(sess.run(v), ROUND_TRIP[n], n)
    reader = fr.train.NewCheckpointReader(path)
    assert reader.get_variable_to_shape_map() == {n: list(v.shape) for n, v in ROUND_TRIP.items()}
    dtypes = reader.get_variable_to_dtype_map()
    for n, v in ROUND_TRIP.items():
        assert dtypes[n] is fr.as_dtype(v.dtype if v.dtype != object else fr.string), n
        _assert_same(reader.get_tensor(n), v, n)
    assert [n for n, _ in fr.train.list_variables(str(tmp_path))] == sorted(ROUND_TRIP)


def test_files_are_tfs_tensor_bundle(tmp_path):
    values = {"b": np.array([1.0, 2.0], np.float32), "a": np.array(7, np.int64)}
    path = _save(tmp_path, values)
    table = sstable.read_table((tmp_path / "model.ckpt.index").read_bytes(), "x")
    assert [k for k, _ in table] == [b"", b"a", b"b"]
    header = BundleHeaderProto.FromString(table[0][1])
    assert (header.num_shards, header.endianness, header.version.producer) == (1, 0, 1)
    data = (tmp_path / "model.ckpt.data-00000-of-00001").read_bytes()
    a, b = (BundleEntryProto.FromString(v) for _, v in table[1:])
    assert (a.dtype, a.offset, a.size) == (fr.int64.as_datatype_enum, 0, 8)
    assert (b.dtype, b.offset, b.size, [d.size for d in b.shape.dim]) == (1, 8, 8, [2])
    assert data == struct.pack("<q2f", 7, 1.0, 2.0)
    assert b.crc32c == masked_crc32c(data[8:])
    assert fr.train.load_variable(path, "a") == 7


def test_reads_the_checkpoint_tf_wrote(tmp_path):
    """TF 2.21's tf.compat.v1 Saver wrote the fixture (make_fixture.py): its values, its
    own entries (global step, Adam's slots and powers) and a partitioned variable's
    slices under TF's encoded slice keys."""
    prefix = fr.train.latest_checkpoint(FIXTURE)
    assert prefix == os.path.join(FIXTURE, "model.ckpt-%d" % STEP)
    reader = fr.train.NewCheckpointReader(prefix)
    for n, v in VALUES.items():
        _assert_same(reader.get_tensor(n), v, n)
    assert reader.get_tensor("global_step") == STEP
    assert reader.get_variable_to_dtype_map()["global_step"] is fr.int64
    shapes = reader.get_variable_to_shape_map()
    assert shapes["part"] == [4, 3]
    assert shapes["scope/w/Adam"] == shapes["scope/w/Adam_1"] == [2, 2]
    np.testing.assert_allclose(reader.get_tensor("beta1_power"), 0.9 ** (STEP + 1), rtol=1e-6)
    assert set(shapes) == set(VALUES) | {
        "global_step",
        "beta1_power",
        "beta2_power",
        "scope/w/Adam",
        "scope/w/Adam_1",
    }
    with fr.Graph().as_default():
        w = fr.get_variable("w", [2, 2], initializer=fr.zeros_initializer())
        part = fr.get_variable(
            "part",
            [4, 3],
            initializer=fr.zeros_initializer(),
            partitioner=fr.fixed_size_partitioner(2),
        )
        step = fr.train.get_or_create_global_step()
        with fr.Session() as sess:
            sess.run(fr.global_variables_initializer())
            fr.train.Saver({"scope/w": w, "part": part, "global_step": step}).restore(sess, prefix)
            _assert_same(sess.run(w), VALUES["scope/w"], "scope/w")
            _assert_same(np.concatenate(sess.run(list(part))), VALUES["part"], "part")
            assert sess.run(step) == STEP


def test_the_ported_program_resumes_from_tfs_checkpoint():
    """make_fixture.py's graph written with flowrt: a default Saver restores every
    variable TF saved, Adam's slots and powers included, and training continues."""
    prefix = fr.train.latest_checkpoint(FIXTURE)
    reader = fr.train.NewCheckpointReader(prefix)
    with fr.Graph().as_default():
        made = {}
        for name, value in VALUES.items():
            zero = np.zeros_like(value) if value.dtype != object else np.full(value.shape, b"?")
            if name == "part":
                made[name] = fr.get_variable(
                    name,
                    value.shape,
                    initializer=fr.zeros_initializer(),
                    partitioner=fr.fixed_size_partitioner(2),
                )
            elif name == "scope/w":
                with fr.variable_scope("scope"):
                    made[name] = fr.get_variable("w", initializer=fr.constant(zero))
            else:
                made[name] = fr.Variable(zero, name=name)
        step = fr.train.get_or_create_global_step()
        loss = fr.reduce_sum(fr.square(made["scope/w"]))
        train = fr.train.AdamOptimizer(0.0).minimize(loss, global_step=step)
        saved = {v.op.name: v for v in fr.global_variables() if "part" not in v.op.name}
        assert set(saved) | {"part"} == set(reader.get_variable_to_shape_map())
        with fr.Session() as sess:
            sess.run(fr.global_variables_initializer())
            fr.train.Saver().restore(sess, prefix)
            for name, v in saved.items():
                _assert_same(sess.run(v), reader.get_tensor(name), name)
            _assert_same(np.concatenate(sess.run(list(made["part"]))), VALUES["part"], "part")
            sess.run(train)
            assert sess.run(step) == STEP + 1


def _copy_fixture(tmp_path, edit):
    """The fixture's files in ``tmp_path``, its index entries passed through ``edit``."""
    for name in os.listdir(FIXTURE):
        if name.startswith("model.ckpt-"):
            with open(os.path.join(FIXTURE, name), "rb") as f:
                (tmp_path / name).write_bytes(f.read())
    prefix = str(tmp_path / ("model.ckpt-%d" % STEP))
    table = sstable.read_table((tmp_path / ("model.ckpt-%d.index" % STEP)).read_bytes(), "x")
    (tmp_path / ("model.ckpt-%d.index" % STEP)).write_bytes(sstable.write_table(edit(table)))
    return prefix


def test_tf_slices_are_checked(tmp_path):
    with open(os.path.join(FIXTURE, "model.ckpt-%d.index" % STEP), "rb") as f:
        slice_keys = [k for k, _ in sstable.read_table(f.read(), "x") if k.startswith(b"\x00")]
    # TF's EncodeTensorNameSlice, as flowrt computes it, names the fixture's two slices.
    assert slice_keys == [
        tensor_bundle.slice_key("part", [(0, 2), (0, 3)]),
        tensor_bundle.slice_key("part", [(2, 2), (0, 3)]),
    ]
    prefix = _copy_fixture(tmp_path, lambda t: [kv for kv in t if kv[0] != slice_keys[1]])
    with pytest.raises(
        fr.errors.DataLossError, match=r"index.*tensor part: the entry of slice .*\(2, 2\).*missing"
    ):
        fr.train.load_variable(prefix, "part")

    def overlap(table):
        out = []
        for k, v in table:
            if k == b"part":
                e = BundleEntryProto.FromString(v)
                e.slices[1].extent[0].start = 1
                e.slices[1].extent[0].length = 2
                v = e.SerializeToString()
            elif k == slice_keys[1]:
                k = tensor_bundle.slice_key("part", [(1, 2), (0, 3)])
            out.append((k, v))
        return sorted(out)

    prefix = _copy_fixture(tmp_path, overlap)
    with pytest.raises(fr.errors.DataLossError, match="tensor part: its slices do not cover it"):
        fr.train.load_variable(prefix, "part")

    def full_columns(table):
        """Slices given as "all of dim 1" (no length): TF keys them with length -1."""
        out = []
        for k, v in table:
            if k == b"part":
                e = BundleEntryProto.FromString(v)
                for sl in e.slices:
                    sl.extent[1].ClearField("length")
                v = e.SerializeToString()
            elif k in slice_keys:
                start = 0 if k == slice_keys[0] else 2
                k = tensor_bundle.slice_key("part", [(start, 2), (0, -1)])
            out.append((k, v))
        return sorted(out)

    prefix = _copy_fixture(tmp_path, full_columns)
    _assert_same(fr.train.load_variable(prefix, "part"), VALUES["part"], "part")


def test_bundles_of_several_data_shards(tmp_path):
    """TF's sharded savers write ``.data-0000i-of-0000n``; each entry names its shard."""
    with open(tmp_path / "m.data-00001-of-00002", "wb") as f:
        index = tensor_bundle.write_bundle({"b": np.arange(3, dtype=np.int16)}, f)
    (tmp_path / "m.data-00000-of-00002").write_bytes(b"")
    table = sstable.read_table(index, "x")
    header = BundleHeaderProto.FromString(table[0][1])
    header.num_shards = 2
    entry = BundleEntryProto.FromString(table[1][1])
    entry.shard_id = 1
    items = [(b"", header.SerializeToString()), (b"b", entry.SerializeToString())]
    (tmp_path / "m.index").write_bytes(sstable.write_table(items))
    assert fr.train.load_variable(str(tmp_path / "m"), "b").tolist() == [0, 1, 2]


def test_sstable_over_many_blocks_and_restart_points(tmp_path):
    items = [
        (b"layer%03d/%s" % (i // 3, k), bytes([i % 256]) * (i % 17))
        for i, k in enumerate([b"bias", b"kernel", b"kernel/Adam"] * 100)
    ]
    items.sort()
    for block_size, interval in [(64, 1), (200, 3), (1 << 20, 16)]:
        buf = sstable.write_table(items, block_size=block_size, restart_interval=interval)
        assert sstable.read_table(buf, "t") == items
        assert _data_blocks(buf) >= len(items) * 8 // block_size
    # Many variables: a saved checkpoint's index spans several of TF's 256 KiB blocks.
    many = {"v%05d" % i: np.full((2,), i, np.int32) for i in range(15000)}
    with open(tmp_path / "m.data-00000-of-00001", "wb") as f:
        index = tensor_bundle.write_bundle(many, f)
    assert _data_blocks(index) >= 2
    (tmp_path / "m.index").write_bytes(index)
    reader = fr.train.NewCheckpointReader(str(tmp_path / "m"))
    assert reader.get_tensor("v14999").tolist() == [14999, 14999]
    assert len(reader.get_variable_to_shape_map()) == 15000


def _data_blocks(buf):
    """How many data blocks the table ``buf`` has (entries of its index block)."""
    footer = buf[-48:]
    src = sstable._Source(buf)
    _, pos, _ = sstable._block(src, footer, "t", "metaindex")
    index, _, _ = sstable._block(src, footer[pos:], "t", "index")
    return len(sstable._entries(index, "t", "index", [len(buf)]))


def test_sstable_damage_is_data_loss_naming_the_file():
    items = [(b"k%03d" % i, b"v" * 10) for i in range(50)]
    good = sstable.write_table(items, block_size=100, restart_interval=4)
    rng = np.random.default_rng(1)
    for bit in rng.integers(0, len(good) * 8, 200).tolist():
        b = bytearray(good)
        b[bit // 8] ^= 1 << (bit % 8)
        try:
            got = sstable.read_table(bytes(b), "/d/m.index")
        except fr.errors.DataLossError as e:
            assert "/d/m.index" in str(e)
            continue
        assert got == items  # only the footer's padding is read by nothing
    for n in (0, 10, len(good) - 1):
        with pytest.raises(fr.errors.DataLossError, match="/d/m.index"):
            sstable.read_table(good[:n], "/d/m.index")


def test_bfloat16_tensors_tf_wrote_are_read_as_the_same_float32_values():
    # tests/fixtures/tf_graphs/make_fixture.py: a bfloat16 variable "v" saved by TF 2.21.
    fixture = os.path.join(os.path.dirname(__file__), "..", "fixtures", "tf_graphs")
    want = np.load(os.path.join(fixture, "expected.npz"))["bfloat16/v"]
    prefix = os.path.join(fixture, "bfloat16", "model.ckpt")
    reader = fr.train.load_checkpoint(prefix)
    assert reader.get_variable_to_dtype_map()["v"] == fr.float32
    got = reader.get_tensor("v")
    assert got.dtype == np.float32
    # Bit for bit: -0.0, inf and the subnormal stay what TF's cast to float32 gives.
    assert got.tobytes() == want.tobytes()
    with fr.Graph().as_default():
        v = fr.Variable(np.zeros(6, np.float32), name="v")
        with fr.Session() as sess:
            fr.train.Saver([v]).restore(sess, prefix)
            assert sess.run(v).tobytes() == want.tobytes()


def test_snappy_blocks_are_refused_clearly():
    # A one-entry table whose data block claims snappy compression (type 1), CRC right.
    good = bytearray(sstable.write_table([(b"a", b"b")]))
    # The data block: varints 0, 1, 1, key, value, one restart offset, the count.
    contents_len = 3 + 1 + 1 + 4 + 4
    good[contents_len] = 1
    struct.pack_into("<I", good, contents_len + 1, masked_crc32c(bytes(good[: contents_len + 1])))
    with pytest.raises(fr.errors.DataLossError, match=r"m\.index.*snappy-compressed"):
        sstable.read_table(bytes(good), "m.index")


def test_flipped_data_byte_and_hand_built_corrupt_index(tmp_path):
    values = {"a": np.arange(6, dtype=np.float32), "s": np.array([b"xy", b""], dtype=object)}
    path = _save(tmp_path, values)
    data = tmp_path / "model.ckpt.data-00000-of-00001"
    good = data.read_bytes()
    # a's bytes, s's last string byte, s's first length (24: a is 6 float32s).
    for pos, name, why in [
        (3, "a", "checksum mismatch for tensor a"),
        (len(good) - 1, "s", "checksum mismatch for tensor s"),
        (24, "s", "tensor s: string lengths disagree with its size"),
        (26, "s", "checksum mismatch for the string lengths of tensor s"),
    ]:
        b = bytearray(good)
        b[pos] ^= 0x10
        data.write_bytes(bytes(b))
        with pytest.raises(
            fr.errors.DataLossError, match=r"model\.ckpt\.data-00000-of-00001.*" + why
        ):
            fr.train.load_variable(path, name)
    data.write_bytes(good)
    index = tmp_path / "model.ckpt.index"
    index.write_bytes(b"\x00" * 100)
    with pytest.raises(fr.errors.DataLossError, match=r"model\.ckpt\.index.*bad magic number"):
        fr.train.NewCheckpointReader(path)


def test_missing_files_and_tensors_are_not_found(tmp_path):
    path = _save(tmp_path, {"a": np.zeros(2, np.float32)})
    reader = fr.train.NewCheckpointReader(path)
    assert reader.has_tensor("a") and not reader.has_tensor("b")
    with pytest.raises(fr.errors.NotFoundError, match="Key b not found in checkpoint"):
        reader.get_tensor("b")
    with pytest.raises(fr.errors.NotFoundError, match="Failed to find any matching files for"):
        fr.train.NewCheckpointReader(str(tmp_path / "nothing"))
    os.remove(path + ".data-00000-of-00001")
    with pytest.raises(fr.errors.NotFoundError, match=r"data-00000-of-00001 of tensor a not found"):
        reader.get_tensor("a")


def test_older_flowrt_checkpoints_give_a_clear_data_loss(tmp_path):
    """The JSON/npz files flowrt wrote before it wrote TF's format are refused, saying so."""
    (tmp_path / "model.ckpt-5.index").write_text(
        '{"format": "flowrt-checkpoint-v1", "tensors": {}}'
    )
    (tmp_path / "model.ckpt-5.data-00000-of-00001").write_bytes(b"PK\x03\x04")
    (tmp_path / "checkpoint").write_text('model_checkpoint_path: "model.ckpt-5"\n')
    with pytest.raises(
        fr.errors.DataLossError, match="was written by an older flowrt .*delete it to start over"
    ):
        fr.train.load_variable(str(tmp_path), "global_step")


# --------------------------------------------------------------------------------------
# TF 2.21 itself, both directions
# --------------------------------------------------------------------------------------


def test_tf_reads_what_flowrt_wrote(tmp_path):
    tf = pytest.importorskip("tensorflow.compat.v1")
    path = _save(tmp_path, ROUND_TRIP, step=1)
    reader = tf.train.load_checkpoint(path)
    for n, v in ROUND_TRIP.items():
        _assert_same(reader.get_tensor(n), v, n)
    tf.disable_eager_execution()
    with tf.Graph().as_default():
        made = {
            n: tf.Variable(
                np.zeros_like(v) if v.dtype != object else np.full(v.shape, b"?", object), name=n
            )
            for n, v in ROUND_TRIP.items()
        }
        with tf.Session() as sess:
            tf.train.Saver(made).restore(sess, path)
            for n, v in made.items():
                _assert_same(sess.run(v), ROUND_TRIP[n], n)


def test_tf_restores_flowrt_partitioned_variable_into_its_slices(tmp_path):
    tf = pytest.importorskip("tensorflow.compat.v1")
    value = np.arange(12, dtype=np.float32).reshape(4, 3)
    with fr.Graph().as_default():
        part = fr.get_variable(
            "part",
            [4, 3],
            initializer=fr.zeros_initializer(),
            partitioner=fr.fixed_size_partitioner(2),
        )
        with fr.Session() as sess:
            sess.run(fr.global_variables_initializer())
            sess.run([p.assign(v) for p, v in zip(part, np.split(value, 2), strict=True)])
            path = fr.train.Saver().save(sess, str(tmp_path / "m"))
    tf.disable_eager_execution()
    with tf.Graph().as_default():
        part = tf.get_variable(
            "part",
            [4, 3],
            initializer=tf.zeros_initializer(),
            partitioner=tf.fixed_size_partitioner(2),
        )
        with tf.Session() as sess:
            tf.train.Saver().restore(sess, path)
            np.testing.assert_array_equal(np.concatenate(sess.run(list(part))), value)


def test_flowrt_reads_what_tf_wrote_now(tmp_path):
    tf = pytest.importorskip("tensorflow.compat.v1")
    tf.disable_eager_execution()
    # Slices whose starts and lengths need more than one byte of TF's key encoding.
    big = np.arange(-300000, 300000, dtype=np.int64).reshape(-1, 3)
    with tf.Graph().as_default():
        made = [tf.Variable(v, name=n) for n, v in ROUND_TRIP.items()]
        made += list(
            tf.get_variable(
                "big", initializer=tf.constant(big), partitioner=tf.fixed_size_partitioner(3)
            )
        )
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = tf.train.Saver(made).save(sess, str(tmp_path / "tf.ckpt"))
    for n, v in ROUND_TRIP.items():
        _assert_same(fr.train.load_variable(path, n), v, n)
    _assert_same(fr.train.load_variable(path, "big"), big, "big")


def _forged_huge_part(table):
    """The fixture's [4, 3] "part" declared [2**40, 3], its one remaining slice 2x3."""
    out = []
    for k, v in table:
        if k == b"part":
            e = BundleEntryProto.FromString(v)
            e.shape.dim[0].size = 2**40
            del e.slices[1]
            v = e.SerializeToString()
        elif k == tensor_bundle.slice_key("part", [(2, 2), (0, 3)]):
            continue
        out.append((k, v))
    return out


def test_sliced_tensor_declaring_more_than_its_slices_fails_before_allocating(tmp_path):
    # 12 TiB declared, 24 bytes saved: DataLossError, in a child whose address space
    # could not hold the declared tensor (load_variable allocated it first).
    prefix = _copy_fixture(tmp_path, _forged_huge_part)
    out = run_capped(
        """
        import flowrt as fr
        try:
            fr.train.load_variable(%r, "part")
        except fr.errors.DataLossError as e:
            print(e.message)
        """
        % prefix
    )
    assert "tensor part: its slices do not cover it exactly" in out


def _index_of(tmp_path, table_bytes):
    """A checkpoint prefix whose .index is ``table_bytes`` (its data file empty)."""
    prefix = str(tmp_path / "forged")
    (tmp_path / "forged.index").write_bytes(table_bytes)
    (tmp_path / "forged.data-00000-of-00001").write_bytes(b"")
    return prefix


def _forged_table(data_contents, handles_of):
    """A table of one data block of ``data_contents`` (entries, restarts and count),
    whose index holds ``handles_of(handle)``: ``(key, handle)`` pairs."""
    out = bytearray()

    def put(contents):
        contents += b"\0"
        handle = sstable.varint(len(out)) + sstable.varint(len(contents) - 1)
        out.extend(contents + struct.pack("<I", masked_crc32c(contents)))
        return handle

    index = sstable._BlockBuilder(1)
    for key, handle in handles_of(put(data_contents)):
        index.add(key, handle)
    footer = put(sstable._BlockBuilder(16).finish()) + put(index.finish())
    footer += b"\0" * (40 - len(footer)) + struct.pack("<Q", sstable._MAGIC)
    return bytes(out + footer)


def test_index_whose_keys_grow_quadratically_is_data_loss(tmp_path):
    # 50,000 keys "a", "aa", ...: each entry shares all but one byte with the one
    # before, so 200 KB of file declare 1.25 GB of keys (+2.5 GB before this check).
    entry = [b"\0\1\0a"] + [sstable.varint(n) + b"\1\0a" for n in range(1, 50_000)]
    block = b"".join(entry) + struct.pack("<II", 0, 1)
    table = _forged_table(block, lambda h: [(b"b", h)])
    out = run_capped(
        """
        import flowrt as fr
        try:
            fr.train.load_variable(%r, "x")
        except fr.errors.DataLossError as e:
            print(e.message)
        """
        % _index_of(tmp_path, table)
    )
    assert "forged.index" in out and "keys add up to more than 64 times" in out


def test_index_handles_pointing_back_at_one_block_are_data_loss(tmp_path):
    # 2,000 index entries all pointing at one 30 KB data block: each would read it again.
    data = sstable._BlockBuilder(16)
    for i in range(300):
        data.add(b"k%05d" % i, b"v" * 100)
    table = _forged_table(data.finish(), lambda h: [(b"z%05d" % i, h) for i in range(2000)])
    prefix = _index_of(tmp_path, table)
    with pytest.raises(fr.errors.DataLossError, match="data block 1 .*overlaps the block before"):
        fr.train.load_variable(prefix, "x")


def test_huge_sparse_index_is_not_read_whole(tmp_path):
    # An 8 GB sparse .index (zeros): only its footer is read, DataLossError at once.
    prefix = _index_of(tmp_path, b"")
    os.truncate(prefix + ".index", 8 << 30)
    out = run_capped(
        """
        import flowrt as fr
        try:
            fr.train.load_variable(%r, "x")
        except fr.errors.DataLossError as e:
            print(e.message)
        """
        % prefix
    )
    assert "forged.index" in out and "bad magic number" in out
