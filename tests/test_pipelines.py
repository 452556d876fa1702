"""The README's main job: the streaming digits pipeline, both runner kinds, end to end."""

import os

import pytest

import flowrt as fr
from pipelines import digits_mlp


@pytest.mark.parametrize("runners", ["threads", "async"])
def test_digits_pipeline_trains_checkpoints_and_stops_cleanly(tmp_path, runners, capsys):
    ckpt = tmp_path / "ckpt"
    acc = digits_mlp.main(["--epochs", "4", "--checkpoint-dir", str(ckpt),
                           "--checkpoint-every", "20", "--quiet", "--runners", runners])
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
