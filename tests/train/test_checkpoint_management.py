"""load_checkpoint, checkpoints_iterator, get_checkpoint_mtimes, remove_checkpoint,
generate_checkpoint_state_proto; GlobalStepWaiterHook, ProfilerHook, basic_train_loop;
noisy_linear_cosine_decay."""

from __future__ import annotations

import json
import os
import threading

import numpy as np
import pytest

import flowrt as fr


def _save_steps(d, steps):
    """Checkpoints of one variable ``v`` (its value the step) at each of ``steps``."""
    with fr.Graph().as_default():
        v = fr.Variable(0.0, name="v")
        saver = fr.train.Saver(max_to_keep=10)
        with fr.Session() as sess:
            paths = []
            for s in steps:
                v.load(float(s), sess)
                paths.append(saver.save(sess, os.path.join(d, "model.ckpt"), global_step=s))
    return paths


def test_load_checkpoint_reads_a_prefix_or_a_directorys_latest(tmp_path):
    paths = _save_steps(str(tmp_path), [1, 2])
    assert fr.train.load_checkpoint(str(tmp_path)).get_tensor("v") == 2.0
    assert fr.train.load_checkpoint(paths[0]).get_tensor("v") == 1.0
    os.mkdir(tmp_path / "empty")
    with pytest.raises(ValueError, match="Couldn't find 'checkpoint' file"):
        fr.train.load_checkpoint(str(tmp_path / "empty"))


def test_mtimes_remove_and_state_proto(tmp_path):
    paths = _save_steps(str(tmp_path), [1, 2])
    missing = str(tmp_path / "model.ckpt-99")
    times = fr.train.get_checkpoint_mtimes(paths + [missing])
    assert len(times) == 2 and all(t > 0 for t in times)
    fr.train.remove_checkpoint(paths[0])
    assert not fr.train.checkpoint_exists(paths[0])
    assert not [f for f in os.listdir(tmp_path) if f.startswith("model.ckpt-1.")]
    assert fr.train.checkpoint_exists(paths[1])
    state = fr.train.generate_checkpoint_state_proto("d", "d/m-2", ["d/m-1"])
    assert state.model_checkpoint_path == "m-2"
    assert state.all_model_checkpoint_paths == ["m-1", "m-2"]
    state = fr.train.generate_checkpoint_state_proto("/d", "/d/m-2")
    assert state.all_model_checkpoint_paths == ["/d/m-2"]


def test_checkpoints_iterator_follows_a_trainer(tmp_path):
    # An evaluation loop sees each checkpoint the trainer writes, then times out.
    _save_steps(str(tmp_path), [1])
    seen = []
    writer = threading.Thread(target=_save_steps, args=(str(tmp_path), [2]))
    for path in fr.train.checkpoints_iterator(str(tmp_path), timeout=3):
        seen.append(os.path.basename(path))
        if len(seen) == 1:
            writer.start()
    writer.join(60)
    assert seen == ["model.ckpt-1", "model.ckpt-2"]
    # timeout_fn returning False keeps it waiting: the next checkpoint still arrives.
    calls = []

    def timeout_fn():
        calls.append(1)
        if len(calls) == 1:
            _save_steps(str(tmp_path), [3])
            return False
        return True

    got = list(fr.train.checkpoints_iterator(str(tmp_path), timeout=1, timeout_fn=timeout_fn))
    assert [os.path.basename(p) for p in got] == ["model.ckpt-2", "model.ckpt-3"]
    assert len(calls) == 2


def test_global_step_waiter_hook_waits_for_the_step():
    with fr.Graph().as_default():
        gs = fr.train.get_or_create_global_step()
        bump = fr.assign_add(gs, 1)
        hook = fr.train.GlobalStepWaiterHook(wait_until_step=3)
        hook.begin()
        with fr.Session() as sess:
            sess.run(fr.global_variables_initializer())
            ctx = fr.train.SessionRunContext((), sess)
            done = threading.Event()

            def worker():
                hook.before_run(ctx)
                done.set()

            t = threading.Thread(target=worker)
            t.start()
            assert not done.wait(0.7)  # step 0 < 3: still waiting
            for _ in range(3):
                sess.run(bump)
            assert done.wait(30)
            t.join(30)


def test_profiler_hook_writes_a_chrome_trace_every_n_steps(tmp_path):
    with fr.Graph().as_default():
        gs = fr.train.get_or_create_global_step()
        x = fr.Variable(np.ones((4, 4), np.float32))
        train = fr.group(fr.assign_add(x, fr.matmul(x, x) * 1e-3), fr.assign_add(gs, 1))
        hook = fr.train.ProfilerHook(save_steps=2, output_dir=str(tmp_path))
        with fr.train.MonitoredTrainingSession(hooks=[hook]) as sess:
            for _ in range(5):
                sess.run(train)
    traces = sorted(f for f in os.listdir(tmp_path) if f.startswith("timeline-"))
    assert traces == ["timeline-2.json", "timeline-4.json"]
    events = json.loads((tmp_path / "timeline-2.json").read_text())["traceEvents"]
    assert any(e.get("args", {}).get("op") == "MatMul" for e in events)
    with pytest.raises(RuntimeError, match="Global step"):
        with fr.Graph().as_default():
            fr.train.ProfilerHook(save_steps=1).begin()


def test_basic_train_loop_runs_until_stop_and_retries_after_abort(tmp_path):
    with fr.Graph().as_default():
        gs = fr.train.get_or_create_global_step()
        step = fr.assign_add(gs, 1)
        sv = fr.train.Supervisor(logdir=str(tmp_path), save_model_secs=0, save_summaries_secs=0)
        calls = []

        def train_step(sess, k, scale=1):
            calls.append(int(sess.run(step)) * scale)
            if len(calls) == 2:
                raise fr.errors.AbortedError(None, None, "worker restarted")
            if len(calls) >= 5:
                sv.request_stop()

        fr.train.basic_train_loop(sv, train_step, args=[0], kwargs={"scale": 10})
    assert len(calls) == 5 and calls[0] == 10


def test_noisy_linear_cosine_decay_is_linear_cosine_decay_plus_noise():
    with fr.Graph().as_default():
        gs = fr.placeholder(fr.int64, [])
        fr.set_random_seed(3)
        noisy = fr.train.noisy_linear_cosine_decay(0.1, gs, 100, initial_variance=0.0)
        plain = fr.train.linear_cosine_decay(0.1, gs, 100)
        loud = fr.train.noisy_linear_cosine_decay(0.1, gs, 100, initial_variance=1.0)
        with fr.Session() as sess:
            for s in (0, 30, 150):
                a, b = sess.run([noisy, plain], {gs: s})
                assert a == pytest.approx(b, rel=1e-6)
            draws = [sess.run(loud, {gs: 10}) for _ in range(50)]
    assert np.std(draws) > 0.005  # fresh noise each run
    with pytest.raises(ValueError, match="global_step is required"):
        fr.train.noisy_linear_cosine_decay(0.1, None, 100)
