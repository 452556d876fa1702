"""fr.summary: the wire encoder, the summary ops (TF1's names, tags and bytes), FileWriter's
event files, and an optional cross-check that TensorBoard itself reads them."""

import os
import re
import struct
import subprocess
import sys
import time
import types

import numpy as np
import pytest

import flowrt as fr
from flowrt.summary.protos import DBL_MAX, DEFAULT_BUCKET_LIMITS, Event, HistogramProto, Summary
from flowrt.summary.writer import read_events

# --------------------------------------------------------------------------------------
# Framing: fr.python_io's TFRecord encoder, CRC-32C from google-crc32c
# --------------------------------------------------------------------------------------


def test_event_records_are_python_io_records(tmp_path):
    assert fr.python_io.masked_crc32c(b"hello") == 421273531  # TensorBoard's stub gives the same
    with fr.summary.FileWriter(tmp_path) as writer:
        writer.add_summary(Summary(value=[Summary.Value(tag="a", simple_value=1.0)]), 3)
    records = list(fr.python_io.tf_record_iterator(writer.path))
    with open(writer.path, "rb") as f:
        data = f.read()
    assert data == b"".join(fr.python_io.encode_record(r) for r in records)
    assert [Event.FromString(r).step for r in records] == [0, 3]


def test_corrupt_event_file_is_data_loss(tmp_path):
    with fr.summary.FileWriter(tmp_path) as writer:
        writer.add_summary(b"", 1)
    with open(writer.path, "rb") as f:
        data = bytearray(f.read())
    data[-6] ^= 1
    with open(writer.path, "wb") as f:
        f.write(bytes(data))
    with pytest.raises(fr.errors.DataLossError, match="corrupted .*record at offset"):
        list(read_events(writer.path))
    with pytest.raises(fr.errors.NotFoundError):
        list(read_events(tmp_path / "missing"))


# The writers are held by a daemon thread still blocked at exit: never garbage collected,
# so only the exit hook can write what they hold.
_NEVER_CLOSED = """
import sys, threading
import flowrt as fr

def log(ready, forever):
    writer = fr.summary.FileWriter(sys.argv[1], max_queue=1000, flush_secs=1000)
    cached = fr.summary.FileWriterCache.get(sys.argv[2])
    for step in range(5):
        s = fr.summary.Summary(value=[fr.summary.Summary.Value(tag="loss", simple_value=step)])
        writer.add_summary(s, step)
        cached.add_summary(s, step)
    print(writer.path)
    print(cached.path)
    ready.set()
    forever.wait()

ready = threading.Event()
threading.Thread(target=log, args=(ready, threading.Event()), daemon=True).start()
ready.wait()
fr.summary.FileWriterCache._cache.clear()  # forget it, without closing it
"""


def test_writer_dropped_without_close_writes_what_it_held(tmp_path):
    import gc

    writer = fr.summary.FileWriter(tmp_path, max_queue=100)
    path = writer.path
    writer.add_summary(b"", 4)
    del writer
    gc.collect()
    assert [e.step for e in read_events(path)] == [0, 4]


def test_writer_never_closed_is_flushed_at_interpreter_exit(tmp_path):
    out = subprocess.run(
        [sys.executable, "-c", _NEVER_CLOSED, str(tmp_path / "a"), str(tmp_path / "b")],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    for path in out.stdout.split():  # a writer of the user's, and a cached one
        steps = [
            (e.step, [v.simple_value for v in e.summary.value])
            for e in read_events(path)
            if e.HasField("summary")
        ]
        assert steps == [(s, [float(s)]) for s in range(5)]


# --------------------------------------------------------------------------------------
# Protos: bytes as TF serializes them
# --------------------------------------------------------------------------------------


def test_summary_bytes_match_tf():
    # Bytes taken from tensorflow.compat.v1's ScalarSummary kernel.
    s = Summary(value=[Summary.Value(tag="outer/loss", simple_value=2.0)])
    assert s.SerializeToString() == b"\n\x11\n\nouter/loss\x15\x00\x00\x00@"
    # simple_value is a oneof member: 0.0 is still written.
    assert (
        Summary(value=[Summary.Value(tag="z", simple_value=0.0)]).SerializeToString()
        == b"\n\x08\n\x01z\x15\x00\x00\x00\x00"
    )
    s = Summary()
    s.value.add(tag="a", simple_value=1.5)
    assert Summary.FromString(s.SerializeToString()) == s


def test_event_round_trip():
    e = Event(
        wall_time=1234.5, step=-3, summary=Summary(value=[Summary.Value(tag="t", simple_value=1.0)])
    )
    assert Event.FromString(e.SerializeToString()) == e
    v = Event(wall_time=7.0, file_version="brain.Event:2").SerializeToString()
    assert v == b"\t" + struct.pack("<d", 7.0) + b"\x1a\rbrain.Event:2"


def test_default_bucket_limits_are_tfs():
    b = DEFAULT_BUCKET_LIMITS
    assert len(b) == 1551 and b[775] == 0.0 and b[776] == 1e-12 and b[-1] == DBL_MAX
    np.testing.assert_array_equal(b[:775], -b[776:][::-1])
    assert np.all(np.diff(b) > 0) and b[-2] < 1e20 <= b[-2] * 1.1


def _run(t):
    with fr.Session() as sess:
        return sess.run(t)


def _histo(values) -> HistogramProto:
    return Summary.FromString(_run(fr.summary.histogram("h", values))).value[0].histo


def test_histogram_matches_tf():
    # Expected values printed by tensorflow.compat.v1 for the same inputs.
    h = _histo(fr.constant([1.0, 2.0, 3.0]))
    assert (h.min, h.max, h.num, h.sum, h.sum_squares) == (1, 3, 3, 6, 14)
    assert h.bucket_limit == [
        0.917246389039776,
        1.0089710279437536,
        1.9661990955585713,
        2.1628190051144287,
        2.8787120958073054,
        3.1665833053880363,
        DBL_MAX,
    ]
    assert h.bucket == [0, 1, 0, 1, 0, 1, 0]
    h = _histo(fr.constant([0, 5, -3, 5], fr.int64))
    assert h.bucket_limit == [
        -3.1665833053880363,
        -2.8787120958073054,
        0.0,
        1e-12,
        4.6361946174186253,
        5.0998140791604882,
        DBL_MAX,
    ]
    assert h.bucket == [0, 1, 0, 1, 0, 2, 0] and h.sum_squares == 59
    h = _histo(fr.zeros([0]))
    assert h == HistogramProto(min=DBL_MAX, max=-DBL_MAX, bucket_limit=[DBL_MAX], bucket=[0])


def test_histogram_counts_agree_with_numpy():
    x = np.random.default_rng(0).standard_normal((40, 25)) * 100
    h = _histo(fr.constant(x))
    assert h.num == x.size and h.sum == pytest.approx(x.sum())
    assert sum(h.bucket) == x.size and h.min == x.min() and h.max == x.max()
    edges = [-np.inf] + list(h.bucket_limit)
    for lo, hi, n in zip(edges[:-1], edges[1:], h.bucket, strict=True):
        assert np.count_nonzero((x >= lo) & (x < hi)) == n


# --------------------------------------------------------------------------------------
# Ops: names, tags and collections as TF1
# --------------------------------------------------------------------------------------


def test_op_names_tags_and_collections_as_tf1():
    x = fr.constant([1.0, 2.0, 3.0])
    with fr.name_scope("outer"):
        s1 = fr.summary.scalar("loss", fr.reduce_mean(x))
        s1b = fr.summary.scalar("loss", fr.reduce_mean(x))
        s2 = fr.summary.histogram("w eights", x, family="fam")
        s3 = fr.summary.scalar("/lead", 3)
    m = fr.summary.merge_all()
    m2 = fr.summary.merge([s1, s2])
    g = fr.get_default_graph()
    # The op list tensorflow.compat.v1 builds for the same code.
    assert [(op.name, op.type) for op in g.get_operations() if op.type != "Mean"] == [
        ("Const", "Const"),
        ("outer/Const", "Const"),
        ("outer/loss/tags", "Const"),
        ("outer/loss", "ScalarSummary"),
        ("outer/Const_1", "Const"),
        ("outer/loss_1/tags", "Const"),
        ("outer/loss_1", "ScalarSummary"),
        ("outer/fam/w_eights/tag", "Const"),
        ("outer/fam/w_eights", "HistogramSummary"),
        ("outer/lead/tags", "Const"),
        ("outer/lead/values", "Const"),
        ("outer/lead", "ScalarSummary"),
        ("Merge/MergeSummary", "MergeSummary"),
        ("Merge_1/MergeSummary", "MergeSummary"),
    ]
    assert fr.get_collection(fr.GraphKeys.SUMMARIES) == [s1, s1b, s2, s3]
    assert m.dtype == fr.string and m.shape == fr.TensorShape([]) and m.op.get_attr("N") == 4
    merged = _run(m)
    assert len(merged) == 250  # as TF's
    got = Summary.FromString(merged)
    assert [v.tag for v in got.value] == [
        "outer/loss",
        "outer/loss_1",
        "fam/outer/fam/w_eights",
        "outer/lead",
    ]
    assert [v.simple_value if v.HasField("simple_value") else None for v in got.value] == [
        2.0,
        2.0,
        None,
        3.0,
    ]
    assert [v.tag for v in Summary.FromString(_run(m2)).value] == [
        "outer/loss",
        "fam/outer/fam/w_eights",
    ]


def test_collections_merge_names_and_merge_all_empty():
    assert fr.summary.merge_all() is None
    assert fr.summary.merge_all("nokey") is None
    c = fr.summary.scalar("c", 1.0, collections=["mine"])
    assert fr.get_collection("mine") == [c] and fr.get_collection(fr.GraphKeys.SUMMARIES) == []
    assert fr.summary.merge([c], name="my merge").name == "my_merge/my_merge:0"
    assert fr.summary.merge([c]).name == "Merge/MergeSummary:0"
    assert fr.summary.histogram("h", [[1.0, 2.0]]).op.inputs[1].op.name == "h/values"
    with pytest.raises(
        ValueError,
        match=r"^List argument 'inputs' to 'MergeSummary' Op with "
        r"length 0 shorter than minimum length 1\.$",
    ):
        fr.summary.merge([])


def test_summary_ops_reject_non_real_values():
    msg = "Value passed to parameter 'values' has DataType bool not in list of allowed values"
    with pytest.raises(TypeError, match=msg):
        fr.summary.scalar("b", fr.constant(True))
    with pytest.raises(TypeError, match=msg):
        fr.summary.histogram("b", fr.constant([True]))
    with pytest.raises(TypeError, match="MergeSummary input 0 has dtype float32"):
        fr.summary.merge([fr.constant(1.0)])


def test_scalar_of_a_vector_fails_at_run_time_as_tf():
    s = fr.summary.scalar("vec", fr.constant([1.0, 2.0, 3.0]))
    with pytest.raises(
        fr.errors.InvalidArgumentError,
        match=re.escape("tags and values are not the same shape: [] != [3] (tag 'vec')"),
    ):
        _run(s)


@pytest.mark.parametrize(
    "bad, message",
    [
        (float("nan"), "Nan in summary histogram for: h"),
        (float("inf"), "Infinity in Histogram for: h"),
    ],
)
def test_histogram_of_non_finite_values_fails(bad, message):
    h = fr.summary.histogram("h", fr.constant([1.0, bad, float("nan")]))
    with pytest.raises(fr.errors.InvalidArgumentError) as e:
        _run(h)
    assert e.value.message == message and e.value.op is h.op


def test_merge_rejects_duplicate_tags_and_garbage():
    s = fr.summary.scalar("loss", 1.0)
    with pytest.raises(fr.errors.InvalidArgumentError) as e:
        _run(fr.summary.merge([s, s]))
    assert e.value.message == "Duplicate tag loss found in summary inputs "
    with pytest.raises(fr.errors.InvalidArgumentError) as e:
        _run(fr.summary.merge([s, fr.constant("garbage\xff")]))
    assert e.value.message == "Could not parse one of the summary inputs"
    # An empty string is an empty Summary; a vector of summaries merges all of them.
    assert _run(fr.summary.merge([s, fr.constant("")])) == b"\n\x0b\n\x04loss\x15\x00\x00\x80?"
    v = fr.stack([s, fr.summary.scalar("x", 2.0)])
    assert (
        _run(fr.summary.merge([v]))
        == b"\n\x0b\n\x04loss\x15\x00\x00\x80?\n\x08\n\x01x\x15\x00\x00\x00@"
    )


def test_scalar_overflowing_float32_becomes_inf():
    s = fr.summary.scalar("big", fr.constant(1e300, fr.float64))
    assert Summary.FromString(_run(s)).value[0].simple_value == float("inf")


# --------------------------------------------------------------------------------------
# FileWriter
# --------------------------------------------------------------------------------------


def _graph_nodes(graph_def: bytes):
    """(name, op, inputs, attr keys) of each NodeDef."""
    return [
        (n.name, n.op, list(n.input), list(n.attr))
        for n in fr.summary.GraphDef.FromString(graph_def).node
    ]


def _build_model():
    x = fr.placeholder(fr.float32, [None, 3], name="x")
    with fr.control_dependencies([fr.no_op(name="init")]):
        y = fr.identity(x * 2.0, name="y")
    a, _ = fr.split(x, [1, 2], axis=1, name="split")
    fr.summary.scalar("loss", fr.reduce_sum(y))
    fr.summary.histogram("acts", a)
    return x, fr.summary.merge_all()


def test_file_writer_writes_version_graph_and_summaries(tmp_path):
    x, merged = _build_model()
    before = time.time()
    with fr.summary.FileWriter(
        str(tmp_path / "run"), fr.get_default_graph(), filename_suffix=".v1"
    ) as writer:
        with fr.Session() as sess:
            for step in range(3):
                writer.add_summary(sess.run(merged, {x: np.full((2, 3), step, np.float32)}), step)
        writer.add_summary(Summary(value=[Summary.Value(tag="py", simple_value=0.5)]), 10)
    files = os.listdir(tmp_path / "run")
    assert len(files) == 1
    m = re.fullmatch(r"events\.out\.tfevents\.(\d{10})\.(.+)\.v1", files[0])
    assert m and int(m.group(1)) >= int(before) and writer.path.endswith(files[0])
    events = list(read_events(writer.path))
    assert events[0].file_version == "brain.Event:2" and events[0].wall_time == int(m.group(1))
    assert events[1].HasField("graph_def") and events[1].step == 0
    assert events[2].HasField("meta_graph_def")  # TF1's FileWriter(graph=) writes it too
    steps = [
        (
            e.step,
            [
                (v.tag, v.simple_value if v.HasField("simple_value") else None)
                for v in e.summary.value
            ],
        )
        for e in events[3:]
    ]
    assert steps == [
        (0, [("loss", 0.0), ("acts", None)]),
        (1, [("loss", 12.0), ("acts", None)]),
        (2, [("loss", 24.0), ("acts", None)]),
        (10, [("py", 0.5)]),
    ]
    assert events[3].summary.value[1].histo.num == 2.0
    assert all(int(before) <= e.wall_time <= time.time() for e in events)

    nodes = {n[0]: n for n in _graph_nodes(events[1].graph_def)}
    assert nodes["x"][:3] == ("x", "Placeholder", [])
    assert sorted(nodes["x"][3]) == ["_output_shapes", "dtype", "shape"]
    assert nodes["y"][1:3] == ("Identity", ["mul", "^init"])
    assert nodes["split"][2] == ["x", "Const", "split/split_dim"]
    assert nodes["acts"][2] == ["acts/tag", "split"]


def test_file_writer_holds_max_queue_events(tmp_path):
    writer = fr.summary.FileWriter(tmp_path, max_queue=3)
    size = os.path.getsize(writer.path)
    s = Summary(value=[Summary.Value(tag="a", simple_value=1.0)])
    writer.add_summary(s, 1)
    writer.add_summary(s, 2)
    assert os.path.getsize(writer.path) == size
    writer.add_summary(s, 3)
    assert os.path.getsize(writer.path) > size
    writer.add_summary(s, 4)
    writer.flush()
    assert [e.step for e in read_events(writer.path)] == [0, 1, 2, 3, 4]
    writer.close()


def test_file_writer_flushes_after_flush_secs(tmp_path):
    writer = fr.summary.FileWriter(tmp_path, flush_secs=0)
    writer.add_summary(b"", 5)
    assert [e.step for e in read_events(writer.path)] == [0, 5]
    writer.close()


def test_close_reopen_and_add_after_close(tmp_path):
    writer = fr.summary.FileWriter(tmp_path)
    first = writer.path
    writer.close()
    writer.close()
    writer.add_summary(b"", 1)  # TF1 drops events added to a closed writer
    assert len(list(read_events(first))) == 1
    writer.reopen()
    assert writer.path != first  # same second: a numbered name instead of overwriting
    writer.add_summary(b"", 2)
    writer.close()
    assert [e.step for e in read_events(writer.path)] == [0, 2]
    assert writer.get_logdir() == str(tmp_path)


def test_add_event_and_graph_def_bytes(tmp_path):
    with fr.summary.FileWriter(tmp_path) as writer:
        writer.add_event(Event(wall_time=3.0, step=9, file_version="x"))
        writer.add_graph(None, global_step=4, graph_def=b"")
    events = list(read_events(writer.path))
    assert events[1] == Event(wall_time=3.0, step=9, file_version="x")
    assert events[2].graph_def == b"" and events[2].step == 4


def test_add_session_log(tmp_path):
    with fr.summary.FileWriter(tmp_path) as writer:
        writer.add_session_log(fr.summary.SessionLog(status=fr.summary.SessionLog.START), 3)
    (event,) = [e for e in read_events(writer.path) if e.HasField("session_log")]
    assert event.step == 3 and event.session_log.status == fr.summary.SessionLog.START


def test_file_writer_argument_errors(tmp_path):
    with fr.summary.FileWriter(tmp_path) as writer:
        with pytest.raises(TypeError, match="must be an instance of `Graph`"):
            writer.add_graph("graph")
        with pytest.raises(ValueError, match="^Please pass only graph, or graph_def"):
            writer.add_graph(fr.get_default_graph(), graph_def=b"")
        with pytest.raises(ValueError, match="not a serialized Summary protobuf"):
            writer.add_summary(b"\x0b")
        with pytest.raises(TypeError, match="got float"):
            writer.add_summary(1.0)


# --------------------------------------------------------------------------------------
# Cross-check: TensorBoard reads the files
# --------------------------------------------------------------------------------------


@pytest.fixture
def tensorboard(monkeypatch):
    pytest.importorskip("tensorboard")
    # Have tensorboard.compat use its TF stub rather than import TensorFlow.
    monkeypatch.setitem(
        sys.modules, "tensorboard.compat.notf", types.ModuleType("tensorboard.compat.notf")
    )
    from tensorboard.backend.event_processing import event_accumulator

    return event_accumulator


def test_tensorboard_event_accumulator_reads_the_file(tmp_path, tensorboard):
    ea = tensorboard
    x, merged = _build_model()
    with fr.summary.FileWriter(tmp_path, fr.get_default_graph()) as writer:
        with fr.Session() as sess:
            for step in (0, 5, 7):
                writer.add_summary(sess.run(merged, {x: np.full((2, 3), step, np.float32)}), step)
    acc = ea.EventAccumulator(str(tmp_path), size_guidance={ea.SCALARS: 0, ea.HISTOGRAMS: 0})
    acc.Reload()
    tags = acc.Tags()
    assert tags["scalars"] == ["loss"] and tags["histograms"] == ["acts"] and tags["graph"]
    assert [(e.step, e.value) for e in acc.Scalars("loss")] == [(0, 0.0), (5, 60.0), (7, 84.0)]
    h = acc.Histograms("acts")[-1].histogram_value
    assert (h.min, h.max, h.num, h.sum) == (7.0, 7.0, 2.0, 14.0)
    graph = acc.Graph()
    nodes = {n.name: n for n in graph.node}
    assert nodes["y"].op == "Identity" and list(nodes["y"].input) == ["mul", "^init"]
    assert nodes["x"].attr["dtype"].type == 1  # DT_FLOAT
    assert [d.size for d in nodes["x"].attr["shape"].shape.dim] == [-1, 3]
    assert [d.size for d in nodes["split"].attr["_output_shapes"].list.shape[1].dim] == [-1, 2]
    assert (
        nodes["Const"].attr["value"].tensor.tensor_content == np.array([1, 2], np.int32).tobytes()
    )
    assert len(graph.node) == len(fr.get_default_graph().get_operations())


def test_bytes_equal_tensorboards_protobuf_encoding(tensorboard):
    from tensorboard.compat.proto import event_pb2, summary_pb2

    ours = Event(
        wall_time=1.25,
        step=3,
        summary=Summary(
            value=[
                Summary.Value(tag="s", simple_value=0.0),
                Summary.Value(
                    tag="h",
                    histo=HistogramProto(
                        min=-1.0, num=2.0, bucket_limit=[0.5, 2.0], bucket=[1.0, 0.0]
                    ),
                ),
            ]
        ),
    )
    theirs = event_pb2.Event(
        wall_time=1.25,
        step=3,
        summary=summary_pb2.Summary(
            value=[
                summary_pb2.Summary.Value(tag="s", simple_value=0.0),
                summary_pb2.Summary.Value(
                    tag="h",
                    histo=summary_pb2.HistogramProto(
                        min=-1.0, num=2.0, bucket_limit=[0.5, 2.0], bucket=[1.0, 0.0]
                    ),
                ),
            ]
        ),
    )
    assert ours.SerializeToString() == theirs.SerializeToString()
    assert Event.FromString(theirs.SerializeToString()) == ours


def _check_same_fields(ours, theirs, left_out, seen):
    """Every field of ``ours`` is in ``theirs`` with the same number, name, type, repetition,
    packing and oneof; recursively. Fields of theirs missing from ours must be ``left_out``."""
    if ours.full_name in seen:
        return
    seen.add(ours.full_name)
    by_number = {f.number: f for f in theirs.fields}
    for f in ours.fields:
        g = by_number.pop(f.number)
        assert (f.name, f.type, f.is_repeated, f.is_packed) == (
            g.name,
            g.type,
            g.is_repeated,
            g.is_packed,
        ), (ours.full_name, f.name)
        assert (f.containing_oneof and f.containing_oneof.name) == (
            g.containing_oneof and g.containing_oneof.name
        ), (ours.full_name, f.name)
        if f.message_type is not None:
            _check_same_fields(f.message_type, g.message_type, left_out, seen)
        if f.enum_type is not None:
            assert {v.number: v.name for v in f.enum_type.values}.items() <= {
                v.number: v.name for v in g.enum_type.values
            }.items()
    for g in by_number.values():
        assert "%s.%s" % (theirs.name, g.name) in left_out, (theirs.full_name, g.name)


def test_compiled_protos_have_tfs_fields(tensorboard):
    from tensorboard.compat.proto import config_pb2, event_pb2, graph_pb2

    left_out = {
        "TensorProto.resource_handle_val",
        "TensorProto.variant_val",
        "GraphDef.debug_info",
        "ArgDef.handle_data",
        "ArgDef.experimental_full_type",
        "OpDef.deprecation",
        "FunctionDef.arg_attr",
        "FunctionDef.resource_arg_unique_id",
        "FunctionDefLibrary.registered_gradients",
        "NodeDef.experimental_debug_info",
        "NodeDef.experimental_type",
        "RunMetadata.cost_graph",
        "RunMetadata.session_metadata",
    }
    seen = set()
    for ours, theirs in [
        (Event, event_pb2.Event),
        (fr.summary.GraphDef, graph_pb2.GraphDef),
        (fr.summary.RunMetadata, config_pb2.RunMetadata),
    ]:
        _check_same_fields(ours.DESCRIPTOR, theirs.DESCRIPTOR, left_out, seen)
    assert len(seen) > 20


def test_top_level_summary_proto_written_by_hand(tmp_path):
    # TF1 training loops log values computed in Python with tf.Summary (top level) and
    # FileWriter.add_summary, taking the proto or its bytes.
    assert fr.Summary is fr.summary.Summary and fr.Event is fr.summary.Event
    assert fr.GraphDef is fr.summary.GraphDef and fr.HistogramProto is fr.summary.HistogramProto
    s = fr.Summary(value=[fr.Summary.Value(tag="acc", simple_value=0.5)])
    w = fr.summary.FileWriter(str(tmp_path))
    w.add_summary(s, 3)
    w.add_summary(s.SerializeToString(), 4)
    w.close()
    (path,) = [str(p) for p in tmp_path.iterdir()]
    got = [
        (e.step, [(v.tag, v.simple_value) for v in e.summary.value])
        for e in fr.train.summary_iterator(path)
        if e.HasField("summary")
    ]
    assert got == [(3, [("acc", 0.5)]), (4, [("acc", 0.5)])]


def test_session_graph_def_is_a_graph_def_that_file_writer_takes(tmp_path):
    # TF1 programs write `FileWriter(logdir, sess.graph_def)`: a GraphDef passed as
    # the graph (deprecated in TF1, still taken).
    with fr.Graph().as_default() as g:
        fr.add(fr.constant(1.0, name="a"), 2.0, name="b")
        with fr.Session() as sess:
            gd = sess.graph_def
            assert type(gd).__name__ == "GraphDef"
            assert [n.name for n in gd.node] == [op.name for op in g.get_operations()]
            with fr.summary.FileWriter(tmp_path, sess.graph_def) as writer:
                pass
    (event,) = [e for e in read_events(writer.path) if e.HasField("graph_def")]
    assert {n[0] for n in _graph_nodes(event.graph_def)} >= {"a", "b"}
