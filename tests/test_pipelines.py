"""The README's main job: the streaming digits pipeline, both runner kinds, end to end."""

import os
import re
import signal
import subprocess
import sys

import pytest

import flowrt as fr
from pipelines import digits_mlp


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
    digits_mlp.main(["--epochs", "2", "--checkpoint-dir", ckpt, "--quiet"])
    assert "done: 48 steps, 0 examples" in capsys.readouterr().out  # nothing left to train
    digits_mlp.main(["--epochs", "1", "--checkpoint-dir", ckpt, "--quiet", "--fresh"])
    out = capsys.readouterr().out
    assert "training from step 0:" in out and "done: 24 steps" in out


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
    assert out.count("(default:") >= 12
    assert "checkpoints/digits_mlp" in out


@pytest.mark.parametrize("runners", ["threads", "async"])
def test_digits_ctrl_c_saves_a_checkpoint_then_exits(tmp_path, runners):
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
        assert "training from step %d (resumed from %s): 0 epochs" % (step, ckpt) in out
