"""The README's main job: the streaming digits pipeline, both runner kinds, end to end."""

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import flowrt as fr
from flowrt.summary.writer import read_events
from pipelines import digits_cnn, digits_mlp


@pytest.fixture(autouse=True)
def _in_tmp_dir(tmp_path, monkeypatch):
    # The jobs' default --logdir is relative (logs/<job>): keep it out of the repo.
    # ``python -m pipelines.<job>`` still finds the job (pipelines/ is not installed).
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join([root] + [p for p in [os.environ.get("PYTHONPATH")] if p])
    )
    monkeypatch.chdir(tmp_path)


@pytest.mark.parametrize("runners", ["threads", "async"])
def test_digits_pipeline_trains_checkpoints_and_stops_cleanly(tmp_path, runners, capsys):
    ckpt = tmp_path / "ckpt"
    acc = digits_mlp.main(
        [
            "--epochs",
            "4",
            "--checkpoint-dir",
            str(ckpt),
            "--checkpoint-every",
            "20",
            "--quiet",
            "--runners",
            runners,
        ]
    )
    out = capsys.readouterr().out
    assert "done: 94 steps, 6000 examples" in out  # 4 epochs x 1500 rows, batches of 64
    # The rate is the training's, from the first step on (as the progress bar's); the
    # set-up, with the first step's one-off compilation, is told apart.
    assert re.search(
        r"done: 94 steps, 6000 examples, \d+ examples/s in \d+\.\d s after the first step, "
        r"set-up \d+\.\d s, final loss \d\.\d{4}, test accuracy",
        out,
    ), out
    assert acc > 0.85
    latest = fr.train.latest_checkpoint(str(ckpt))
    assert latest is not None and latest.endswith("model.ckpt-94")
    kept = sorted(f for f in os.listdir(ckpt) if f.endswith(".index"))
    assert len(kept) == 3  # max_to_keep=3 of the periodic and final checkpoints


def test_digits_pipeline_checkpoint_restores_into_a_fresh_graph(tmp_path):
    ckpt = tmp_path / "ckpt"
    digits_mlp.main(["--epochs", "1", "--checkpoint-dir", str(ckpt), "--quiet"])
    with fr.Graph().as_default():
        x = fr.placeholder(fr.float32, [None, digits_mlp.N_PIXELS])
        with fr.variable_scope("model"):
            logits = digits_mlp.model(x, 128)
        step = fr.train.get_or_create_global_step()
        with fr.Session() as sess:
            fr.train.Saver().restore(sess, fr.train.latest_checkpoint(str(ckpt)))
            images, labels = digits_mlp.load_csv(digits_mlp.DATA / "digits_test.csv")
            pred = sess.run(fr.argmax(logits, 1), {x: images})
            assert sess.run(step) == 24
            assert (pred == labels).mean() > 0.5


def test_digits_pipeline_resumes_its_global_step_and_fresh_starts_over(tmp_path, capsys):
    ckpt = str(tmp_path / "ckpt")
    digits_mlp.main(["--epochs", "1", "--checkpoint-dir", ckpt, "--quiet"])
    digits_mlp.main(["--epochs", "2", "--checkpoint-dir", ckpt, "--quiet"])
    out = capsys.readouterr().out
    assert "training from step 24 (resumed from %s): 1 epochs of 1500 examples" % ckpt in out
    assert "done: 48 steps, 1500 examples" in out
    acc = digits_mlp.main(["--epochs", "2", "--checkpoint-dir", ckpt, "--quiet"])
    out = capsys.readouterr().out
    # Nothing left to train: it says so, and how to train more or start over.
    assert out == (
        "all epochs done (--epochs 2, step 48, test accuracy %.3f, checkpoint %s/model.ckpt-48): "
        "--epochs N with N > 2 trains on to N epochs, --fresh starts over\n" % (acc, ckpt)
    )
    digits_mlp.main(["--epochs", "1", "--checkpoint-dir", ckpt, "--quiet", "--fresh"])
    out = capsys.readouterr().out
    assert "training from step 0:" in out and "done: 24 steps" in out


def test_checkpoints_of_an_older_flowrt_stop_the_job_clearly_and_fresh_starts_over(
    tmp_path, capsys
):
    """flowrt once wrote JSON/npz under TF's file names; a job resuming from such a
    directory stops naming the problem and the fix, and --fresh replaces them."""
    ckpt = tmp_path / "ckpt"
    ckpt.mkdir()
    (ckpt / "model.ckpt-24.index").write_text('{"format": "flowrt-checkpoint-v1"}')
    (ckpt / "model.ckpt-24.data-00000-of-00001").write_bytes(b"PK\x03\x04")
    (ckpt / "checkpoint").write_text('model_checkpoint_path: "model.ckpt-24"\n')
    with pytest.raises(
        fr.errors.DataLossError,
        match=r"model\.ckpt-24 was written by an older flowrt .* run the job with --fresh",
    ):
        digits_mlp.main(["--epochs", "1", "--checkpoint-dir", str(ckpt), "--quiet"])
    digits_mlp.main(["--epochs", "1", "--checkpoint-dir", str(ckpt), "--quiet", "--fresh"])
    assert "done: 24 steps" in capsys.readouterr().out
    assert fr.train.load_variable(str(ckpt), "global_step") == 24


def test_digits_help_shows_every_default(capsys):
    with pytest.raises(SystemExit):
        digits_mlp.main(["--help"])
    out = capsys.readouterr().out
    for opt in (
        "--epochs",
        "--batch-size",
        "--learning-rate",
        "--hidden",
        "--checkpoint-dir",
        "--checkpoint-every",
        "--eval-every",
        "--runners",
        "--seed",
    ):
        assert opt in out
    assert out.count("(default:") >= 15
    assert "checkpoints/digits_mlp" in out and "logs/digits_mlp" in out
    assert "--trace-steps" in out
    # The command that runs it; the summaries go to --logdir, not --checkpoint-dir; a
    # default its help explains is not shown again as "(default: None)".
    assert out.startswith("usage: python -m pipelines.digits_mlp ")
    flat = " ".join(out.split())
    assert "--checkpoint-dir CHECKPOINT_DIR where checkpoints go, and are resumed from" in flat
    assert "(default: None)" not in out and "(default: RAY_ADDRESS, else the Ray" in flat


@pytest.mark.parametrize("runners", ["threads", "async"])
def test_digits_writes_summaries_graph_and_a_chrome_trace(tmp_path, runners, capsys):
    digits_mlp.main(
        [
            "--runners",
            runners,
            "--epochs",
            "1",
            "--checkpoint-dir",
            "ckpt",
            "--quiet",
            "--summary-every",
            "5",
            "--eval-every",
            "10",
            "--trace-steps",
            "2",
        ]
    )
    trace_path = os.path.join("logs", "digits_mlp", "trace.json")
    assert "traced steps 1, 2: %s" % trace_path in capsys.readouterr().out
    (events_file,) = [f for f in os.listdir("logs/digits_mlp") if f.startswith("events")]
    events = list(read_events(os.path.join("logs/digits_mlp", events_file)))
    scalars = {}
    for e in events:
        for v in e.summary.value:
            scalars.setdefault(v.tag, []).append((e.step, v.simple_value))
    assert set(scalars) == {
        "loss",
        "accuracy",
        "examples_per_sec",
        "input/input_producer/fraction_of_32_full",
        "input/shuffle_batch/fraction_over_640_of_1920_full",
    }
    assert [s for s, _ in scalars["accuracy"]] == [10, 20, 24]
    assert scalars["accuracy"][-1][1] > 0.5
    assert [s for s, _ in scalars["examples_per_sec"]] == [5, 10, 15, 20]
    assert all(r > 0 for _, r in scalars["examples_per_sec"])
    fill = [f for _, f in scalars["input/shuffle_batch/fraction_over_640_of_1920_full"]]
    assert all(0.0 <= f <= 1.0 for f in fill) and max(fill) > 0
    assert sum(e.HasField("graph_def") for e in events) == 1
    runs = [
        (e.step, e.tagged_run_metadata.tag) for e in events if e.HasField("tagged_run_metadata")
    ]
    assert runs == [(1, "step1"), (2, "step2")]

    tracks = _trace_tracks(trace_path)
    assert "input/shuffle_batch" in {  # the batch's dequeue, on the training loop's track
        ev["args"]["name"] for t in tracks if "QueueRunner" not in t for ev in tracks[t]
    }


def _trace_tracks(path):
    """A Chrome trace's slices by the name of their track (thread or trio task)."""
    with open(path) as f:
        trace = json.load(f)["traceEvents"]
    names = {ev["tid"]: ev["args"]["name"] for ev in trace if ev["name"] == "thread_name"}
    tracks = {}
    for ev in trace:
        if ev["ph"] == "X":
            assert isinstance(ev["ts"], int) and ev["dur"] >= 0
            tracks.setdefault(names[ev["tid"]], []).append(ev)
    return tracks


@pytest.mark.parametrize("runners", ["threads", "async"])
def test_digits_chrome_trace_has_the_queue_runners_tracks(tmp_path, runners, capsys):
    # Three epochs: more examples than the batch queue holds, so the runners still run
    # while the traced steps do. Ten steps: the trainer's thread may keep the token for
    # a turn (a switch interval, several ~1 ms steps) before a runner's next run starts.
    digits_mlp.main(["--runners", runners, "--epochs", "3", "--quiet", "--trace-steps", "10"])
    tracks = _trace_tracks(os.path.join("logs", "digits_mlp", "trace.json"))
    runners_tracks = [t for t in tracks if "QueueRunner" in t]
    assert runners_tracks, sorted(tracks)
    # Each with its ops as slices (where a runner's run stands when the trace ends varies;
    # tests/observability/test_traces.py checks a runner's enqueue and the dequeue's wait).
    assert all(any(ev["cat"] == "Op" for ev in tracks[t]) for t in runners_tracks), tracks


@pytest.mark.parametrize(
    "job, runners", [("digits_mlp", "threads"), ("digits_mlp", "async"), ("digits_cnn", "threads")]
)
def test_digits_ctrl_c_saves_a_checkpoint_then_exits(tmp_path, job, runners):
    ckpt = str(tmp_path / "ckpt")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "pipelines." + job,
            "--epochs",
            "1000",
            "--quiet",
            "--checkpoint-dir",
            ckpt,
            "--checkpoint-every",
            "100000",
            "--eval-every",
            "100000",
            "--runners",
            runners,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        for line in proc.stdout:  # blocks until the session exists
            if line.startswith("training from step"):
                break
        assert line.startswith("training from step 0:"), line
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=120)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 130, out
    m = re.search(r"interrupted: (\d+) steps.*checkpoint (\S+)", out)
    assert m, out
    step = int(m.group(1))
    assert m.group(2).endswith("model.ckpt-%d" % step)
    assert fr.train.latest_checkpoint(ckpt) == m.group(2)
    assert int(fr.train.load_variable(ckpt, "global_step")) == step


def test_digits_killed_mid_way_resumes_its_global_step(tmp_path, capsys):
    ckpt = str(tmp_path / "ckpt")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "pipelines.digits_mlp",
            "--epochs",
            "1000",
            "--quiet",
            "--checkpoint-dir",
            ckpt,
            "--checkpoint-every",
            "5",
            "--eval-every",
            "100000",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        for line in proc.stdout:
            if line.startswith("checkpoint saved at step 10"):
                break
        proc.kill()  # SIGKILL mid-way: no chance to save anything more
    finally:
        proc.kill()
        proc.wait()
        proc.stdout.close()
    step = int(fr.train.load_variable(ckpt, "global_step"))
    assert step >= 10 and step % 5 == 0
    digits_mlp.main(["--epochs", "1", "--checkpoint-dir", ckpt, "--quiet"])
    out = capsys.readouterr().out
    if step < 24:
        assert "training from step %d (resumed from %s)" % (step, ckpt) in out
        assert "done: %d steps" % (step + 24) in out  # the epoch is read from its start
    else:
        assert "all epochs done (--epochs 1, step %d," % step in out


# --- digits_cnn: TFRecord files of tf.train.Example into a conv net ---------------------


def _subset_csv(tmp_path, rows):
    """The first ``rows`` examples of the embedded training CSV (a short run's data)."""
    lines = (digits_mlp.DATA / "digits_train.csv").read_text().splitlines(keepends=True)
    path = tmp_path / "train_subset.csv"
    path.write_text("".join(lines[: rows + 1]))
    return str(path)


@pytest.mark.parametrize("runners", ["threads", "async"])
def test_digits_cnn_writes_records_then_trains_from_them(tmp_path, runners, capsys):
    ckpt = tmp_path / "ckpt"
    train_csv = _subset_csv(tmp_path, 400)
    acc = digits_cnn.main(
        [
            "--epochs",
            "3",
            "--checkpoint-dir",
            str(ckpt),
            "--quiet",
            "--train-csv",
            train_csv,
            "--runners",
            runners,
        ]
    )
    out = capsys.readouterr().out
    assert "wrote 5 TFRecord shards to %s" % (ckpt / "data") in out  # 4 train + 1 test
    assert "training from step 0: 3 epochs of 400 examples" in out
    assert "done: 38 steps, 1200 examples" in out  # 37 full batches of 32 and one of 16
    assert acc > 0.7
    assert fr.train.latest_checkpoint(str(ckpt)).endswith("model.ckpt-38")
    assert sorted(os.listdir(ckpt / "data")) == ["test-00000-of-00001.tfrecord"] + [
        "train-%05d-of-00004.tfrecord" % i for i in range(4)
    ]
    names = {name for name, _ in fr.train.list_variables(str(ckpt))}
    assert {
        "model/conv1/kernel",
        "model/conv2/bias",
        "model/dense/kernel",
        "model/logits/bias",
        "global_step",
    } <= names
    assert fr.train.load_variable(str(ckpt), "model/conv1/kernel").shape == (3, 3, 1, 16)
    assert fr.train.load_variable(str(ckpt), "model/conv2/kernel").shape == (3, 3, 16, 32)


def test_digits_cnn_records_parse_back_to_the_csv_values(tmp_path):
    data = tmp_path / "data"
    csv = digits_mlp.DATA / "digits_test.csv"
    paths = digits_cnn.shard_paths(data, "test", 3)
    assert digits_cnn.write_records(csv, paths) == 3
    rows = np.loadtxt(csv, delimiter=",", skiprows=1, dtype=np.int64)
    # Round-robin: shard i holds rows i, i + 3, ...; read back with the protobuf message.
    for i, path in enumerate(paths):
        examples = [fr.train.Example.FromString(r) for r in fr.python_io.tf_record_iterator(path)]
        assert len(examples) == len(rows[i::3])
        for ex, row in zip(examples, rows[i::3]):
            feature = ex.features.feature
            assert sorted(feature) == ["image_raw", "label"]
            assert list(feature["label"].int64_list.value) == [row[0]]
            (raw,) = feature["image_raw"].bytes_list.value
            assert list(raw) == list(row[1:])
    # And through the graph the job trains from: parse_example + decode_raw.
    serialized = fr.placeholder(fr.string, [None])
    images, labels = digits_cnn.decode(serialized)
    assert images.shape.as_list() == [None, 8, 8, 1]
    with fr.Session() as sess:
        got_x, got_y = sess.run([images, labels], {serialized: digits_cnn.read_records(paths)})
    order = np.concatenate([np.arange(len(rows))[i::3] for i in range(3)])
    want_x, want_y = digits_mlp.load_csv(csv)
    np.testing.assert_array_equal(got_y, want_y[order])
    np.testing.assert_allclose(got_x.reshape(-1, 64), want_x[order])
    assert digits_cnn.write_records(csv, paths) == 0  # present shards are not rewritten


def test_digits_cnn_resumes_its_global_step_and_rewrites_only_missing_shards(tmp_path, capsys):
    ckpt = str(tmp_path / "ckpt")
    data = tmp_path / "records"
    common = [
        "--checkpoint-dir",
        ckpt,
        "--quiet",
        "--data-dir",
        str(data),
        "--train-csv",
        _subset_csv(tmp_path, 320),
    ]
    digits_cnn.main(["--epochs", "1"] + common)
    first = capsys.readouterr().out
    assert "wrote 5 TFRecord shards to %s" % data in first and "done: 10 steps" in first
    shard = data / "train-00002-of-00004.tfrecord"
    shard.unlink()
    digits_cnn.main(["--epochs", "2"] + common)
    out = capsys.readouterr().out
    assert "wrote 1 TFRecord shards to %s" % data in out
    assert "training from step 10 (resumed from %s): 1 epochs of 320 examples" % ckpt in out
    assert "done: 20 steps, 320 examples" in out
    assert int(fr.train.load_variable(ckpt, "global_step")) == 20
    digits_cnn.main(["--epochs", "1", "--fresh"] + common)
    out = capsys.readouterr().out
    assert "wrote" not in out  # --fresh starts the training over, not the data
    assert "training from step 0:" in out and "done: 10 steps" in out


def test_digits_cnn_help_shows_every_default(capsys):
    with pytest.raises(SystemExit):
        digits_cnn.main(["--help"])
    out = " ".join(capsys.readouterr().out.split())  # as wrapped at any terminal width
    for opt in (
        "--epochs",
        "--batch-size",
        "--learning-rate",
        "--checkpoint-dir",
        "--fresh",
        "--checkpoint-every",
        "--eval-every",
        "--runners",
        "--seed",
        "--data-dir",
        "--shards",
        "--train-csv",
        "--test-csv",
        "--producers",
        "--ray-address",
    ):
        assert opt in out
    assert out.count("(default:") == 19  # every option but --help
    assert "checkpoints/digits_cnn" in out and "(default: <checkpoint-dir>/data)" in out


def test_digits_cnn_rejects_bad_options_and_corrupt_shards(tmp_path, capsys):
    for option in ("--shards", "--batch-size", "--eval-every", "--checkpoint-every"):
        with pytest.raises(SystemExit):
            digits_cnn.main([option, "0", "--checkpoint-dir", str(tmp_path)])
        assert "argument %s: must be at least 1, got 0" % option in capsys.readouterr().err
    data = tmp_path / "data"
    paths = digits_cnn.shard_paths(data, "train", 2)
    digits_cnn.write_records(_subset_csv(tmp_path, 50), paths)
    raw = bytearray(Path(paths[1]).read_bytes())
    raw[40] ^= 0xFF  # inside the first record's data
    Path(paths[1]).write_bytes(bytes(raw))
    with pytest.raises(
        fr.errors.DataLossError,
        match=r"corrupted \(data CRC mismatch\) record at offset 0 in .*"
        r"train-00001-of-00002\.tfrecord",
    ):
        digits_cnn.main(["--checkpoint-dir", str(tmp_path), "--shards", "2", "--quiet"])


def test_digits_cnn_records_are_read_by_tensorflow(tmp_path):
    """Optional: TF's own reader and parser take the job's shards as written."""
    tf = pytest.importorskip("tensorflow.compat.v1")
    tf.disable_eager_execution()
    csv = digits_mlp.DATA / "digits_test.csv"
    paths = digits_cnn.shard_paths(tmp_path, "test", 2)
    digits_cnn.write_records(csv, paths)
    with tf.Graph().as_default():
        files = tf.train.string_input_producer(paths, num_epochs=1, shuffle=False)
        _, serialized = tf.TFRecordReader().read_up_to(files, 1000)
        parsed = tf.parse_example(
            serialized,
            {
                "image_raw": tf.FixedLenFeature([], tf.string),
                "label": tf.FixedLenFeature([], tf.int64),
            },
        )
        pixels = tf.decode_raw(parsed["image_raw"], tf.uint8)
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess=sess, coord=coord)
            got = [sess.run([pixels, parsed["label"]]) for _ in paths]  # a read per shard
            coord.request_stop()
            coord.join(threads)
    rows = np.loadtxt(csv, delimiter=",", skiprows=1, dtype=np.int64)
    for i, (x, y) in enumerate(got):
        np.testing.assert_array_equal(y, rows[i::2, 0])
        np.testing.assert_array_equal(x, rows[i::2, 1:])
