"""fr.train.Supervisor: managed_session restores and continues the global step, runs the
queue runners and the checkpoint service, ends cleanly on OutOfRangeError."""

import threading

import numpy as np
import pytest

import flowrt as fr


def _model():
    gs = fr.train.get_or_create_global_step()
    w = fr.get_variable("w", [1], initializer=fr.zeros_initializer())
    train = fr.train.GradientDescentOptimizer(0.5).minimize(
        fr.reduce_sum(fr.square(w - 2.0)), global_step=gs
    )
    return gs, w, train


def test_managed_session_restores_and_continues(tmp_path):
    logdir = str(tmp_path)
    for start, stop in ((0, 3), (3, 5)):
        with fr.Graph().as_default():
            gs, w, train = _model()
            sv = fr.train.Supervisor(logdir=logdir, save_model_secs=0, save_summaries_secs=0)
            assert fr.get_default_graph().finalized
            with sv.managed_session() as sess:
                assert sess.run(gs) == start
                while not sv.should_stop():
                    sess.run(train)
                    if sess.run(gs) >= stop:
                        sv.saver.save(sess, sv.save_path, global_step=gs)
                        sv.request_stop()
    assert fr.train.latest_checkpoint(logdir).endswith("model.ckpt-5")
    np.testing.assert_allclose(fr.train.load_variable(logdir, "w"), [2.0])


def test_out_of_range_ends_cleanly_and_other_errors_are_raised():
    with fr.Graph().as_default():
        fr.train.get_or_create_global_step()
        (x,) = fr.train.slice_input_producer(
            [fr.constant([1.0, 2.0, 3.0])], num_epochs=1, shuffle=False
        )
        sv = fr.train.Supervisor(logdir=None)
        seen = []
        with sv.managed_session() as sess:
            while not sv.should_stop():
                seen.append(sess.run(x))
        assert seen == [1.0, 2.0, 3.0]
    with fr.Graph().as_default():
        fr.train.get_or_create_global_step()
        sv = fr.train.Supervisor(logdir=None)
        with pytest.raises(ValueError, match="boom"):
            with sv.managed_session():
                raise ValueError("boom")


def test_checkpoint_service_saves_on_its_timer(tmp_path):
    saved = threading.Event()

    class RecordingSaver(fr.train.Saver):
        def save(self, *args, **kwargs):
            path = super().save(*args, **kwargs)
            saved.set()
            return path

    with fr.Graph().as_default():
        gs, w, train = _model()
        sv = fr.train.Supervisor(
            logdir=str(tmp_path),
            saver=RecordingSaver(),
            save_model_secs=3600,
            save_summaries_secs=0,
        )
        with sv.managed_session():
            assert saved.wait(30)  # the first save is due at once
    assert fr.train.latest_checkpoint(str(tmp_path)).endswith("model.ckpt-0")


def test_non_chief_has_no_services():
    with fr.Graph().as_default():
        fr.train.get_or_create_global_step()
        sv = fr.train.Supervisor(is_chief=False, logdir="unused")
        assert sv.save_path is None and sv.summary_writer is None
        with pytest.raises(RuntimeError, match="Only chief supervisor"):
            sv.start_standard_services(None)
