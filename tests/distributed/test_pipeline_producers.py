"""The main job scaled out: ``python -m pipelines.digits_mlp --producers N``."""

import pytest

import flowrt as fr
from pipelines import digits_mlp, scale_out


def test_epochs_are_shared_out_among_the_producers():
    assert [scale_out.epochs_of(5, 2, i) for i in range(2)] == [3, 2]
    assert [scale_out.epochs_of(1, 3, i) for i in range(3)] == [1, 0, 0]
    assert sum(scale_out.epochs_of(30, 4, i) for i in range(4)) == 30


def _job_args(tmp_path, *more):
    return [
        "--checkpoint-dir",
        str(tmp_path / "ckpt"),
        "--logdir",
        str(tmp_path / "logs"),
        "--quiet",
        "--eval-every",
        "1000",
        "--producers",
        "2",
        *more,
    ]


def test_two_producer_processes_feed_the_trainer_every_example_once(ray_session, tmp_path, capsys):
    acc = digits_mlp.main(_job_args(tmp_path, "--epochs", "2"))
    out = capsys.readouterr().out
    assert "the ps task and the trainer in this process, 2 producer processes" in out
    # 2 epochs of 1500 rows, one epoch from each producer, in batches of 64: as the
    # single-process job trains them.
    assert "done: 47 steps, 3000 examples" in out
    assert acc > 0.8
    latest = fr.train.latest_checkpoint(str(tmp_path / "ckpt"))
    assert latest is not None and latest.endswith("model.ckpt-47")


def test_a_failing_producer_stops_the_job_with_its_error(ray_session, tmp_path):
    bad = tmp_path / "bad.csv"
    good = (digits_mlp.DATA / "digits_train.csv").read_text().splitlines()
    bad.write_text("\n".join(good[:200] + ["1,2,3"] + good[200:400]) + "\n")
    with pytest.raises(RuntimeError, match=r"producer /job:worker/task:\d failed") as e:
        digits_mlp.main(_job_args(tmp_path, "--epochs", "2", "--train-csv", str(bad)))
    assert isinstance(e.value.__cause__, fr.errors.InvalidArgumentError)


def test_the_conv_net_job_trains_from_producer_processes(ray_session, tmp_path, capsys):
    from pipelines import digits_cnn

    acc = digits_cnn.main(_job_args(tmp_path, "--epochs", "2"))
    out = capsys.readouterr().out
    assert "the ps task and the trainer in this process, 2 producer processes" in out
    # 2 epochs of 1500 records, one from each producer, in batches of 32.
    assert "done: 94 steps, 3000 examples" in out
    assert acc > 0.5
