"""MonitoredSession / MonitoredTrainingSession: hook order, same-run fetches, restore,
queue runners, clean stop on OutOfRangeError, recovery, and the trio form."""

import logging
import os

import numpy as np
import pytest
import trio

import flowrt as fr


def _linreg(lr=0.1):
    x = np.stack([np.linspace(-1.0, 1.0, 8), np.cos(np.arange(8.0))], 1).astype(np.float32)
    y = (x @ np.array([[1.5], [-2.0]], np.float32) + 0.25).astype(np.float32)
    gs = fr.train.get_or_create_global_step()
    w = fr.get_variable("w", [2, 1], initializer=fr.zeros_initializer())
    loss = fr.reduce_mean(fr.square(fr.matmul(fr.constant(x), w) - fr.constant(y)))
    train = fr.train.GradientDescentOptimizer(lr).minimize(loss, global_step=gs)
    return loss, train, gs, w


class Recorder(fr.train.SessionRunHook):
    def __init__(self, fetch=None, stop_after=None):
        self.calls, self.results, self.fetch, self.stop_after = [], [], fetch, stop_after

    def begin(self):
        self.calls.append("begin")

    def after_create_session(self, session, coord):
        self.calls.append("after_create_session")

    def before_run(self, run_context):
        self.calls.append("before_run")
        return fr.train.SessionRunArgs(self.fetch) if self.fetch is not None else None

    def after_run(self, run_context, run_values):
        self.calls.append("after_run")
        self.results.append(run_values.results)
        if self.stop_after and len(self.results) >= self.stop_after:
            run_context.request_stop()

    def end(self, session):
        self.calls.append("end")


def test_hooks_called_in_tf1_order_with_their_fetches_in_the_same_run():
    with fr.Graph().as_default():
        loss, train, gs, _ = _linreg()
        a, b = Recorder({"gs": gs, "loss": loss}, stop_after=3), Recorder()
        user = []
        with fr.train.MonitoredTrainingSession(hooks=[a, b]) as sess:
            assert fr.get_default_graph().finalized
            while not sess.should_stop():
                user.append(sess.run([train, loss, gs]))
            with pytest.raises(RuntimeError, match="Run called even after should_stop"):
                sess.run(gs)
        assert not fr.get_default_graph().finalized  # restored on close, as TF1
        assert a.calls == ["begin", "after_create_session"] + ["before_run", "after_run"] * 3 + [
            "end"
        ]
        assert b.calls == a.calls and b.results == [None, None, None]
        # The hook's loss is the one the caller got: fetched in the very same run.
        assert [r["loss"] for r in a.results] == [u[1] for u in user]
        assert [int(r["gs"]) for r in a.results] == [int(u[2]) for u in user]


def test_feeds_from_hooks_merge_and_conflicts_are_errors():
    with fr.Graph().as_default():
        x = fr.placeholder(fr.float32, [])
        y = fr.placeholder(fr.float32, [])
        xy = x * y
        fr.train.get_or_create_global_step()
        feed = fr.train.FeedFnHook(lambda: {x: 2.0})
        with fr.train.MonitoredSession(hooks=[feed]) as sess:
            assert sess.run(xy, {y: 3.0}) == 6.0
            with pytest.raises(RuntimeError, match="fed by a SessionRunHook and user"):
                sess.run(x, {x: 1.0})
        with fr.train.MonitoredSession(hooks=[feed, fr.train.FeedFnHook(lambda: {x: 1.0})]) as sess:
            with pytest.raises(RuntimeError, match="Same tensor is fed by two hooks"):
                sess.run(x)


def test_stop_at_step_checkpoints_and_resume_continues_the_global_step(tmp_path):
    ckpt = str(tmp_path / "run")

    def train(last_step):
        with fr.Graph().as_default():
            loss, train_op, gs, w = _linreg()
            final = fr.train.FinalOpsHook({"gs": gs, "w": w})
            with fr.train.MonitoredTrainingSession(
                checkpoint_dir=ckpt,
                save_checkpoint_steps=2,
                save_summaries_steps=None,
                log_step_count_steps=None,
                hooks=[fr.train.StopAtStepHook(last_step=last_step), final],
            ) as sess:
                start = sess.run(gs)
                while not sess.should_stop():
                    sess.run(train_op)
            return start, final.final_ops_values

    start1, v1 = train(5)
    assert start1 == 0 and v1["gs"] == 5
    assert fr.train.latest_checkpoint(ckpt).endswith("model.ckpt-5")
    start2, v2 = train(8)
    assert start2 == 5 and v2["gs"] == 8  # restored: the global step continues
    # The same 8 steps in one go give the same weights.
    with fr.Graph().as_default():
        loss, train_op, gs, w = _linreg()
        final = fr.train.FinalOpsHook(w)
        with fr.train.MonitoredTrainingSession(
            hooks=[fr.train.StopAtStepHook(num_steps=8), final]
        ) as sess:
            while not sess.should_stop():
                sess.run(train_op)
    np.testing.assert_allclose(v2["w"], final.final_ops_values, rtol=1e-6)
    files = os.listdir(ckpt)
    assert any(f.startswith("events.out.tfevents") for f in files)
    # Saved at creation (0, then the restored 5), every 2 steps, and at the end; the
    # second saver took over the first one's list (max_to_keep=5).
    assert fr.train.get_checkpoint_state(ckpt).all_model_checkpoint_paths == [
        os.path.join(ckpt, "model.ckpt-%d" % s) for s in (2, 4, 5, 7, 8)
    ]


def test_out_of_range_from_queue_runners_is_a_clean_stop_and_end_hooks_run():
    with fr.Graph().as_default():
        fr.train.get_or_create_global_step()
        (x,) = fr.train.slice_input_producer(
            [fr.constant(np.arange(6.0))], num_epochs=1, shuffle=False
        )
        batch = fr.train.batch([x], batch_size=2)
        rec = Recorder()
        seen = []
        with fr.train.MonitoredSession(hooks=[rec]) as sess:
            while not sess.should_stop():
                seen.extend(sess.run(batch).tolist())
        assert sorted(seen) == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
        assert rec.calls[-1] == "end"


def test_an_error_skips_end_hooks_and_propagates():
    with fr.Graph().as_default():
        fr.train.get_or_create_global_step()
        rec = Recorder()
        with pytest.raises(ValueError, match="boom"):
            with fr.train.MonitoredSession(hooks=[rec]):
                raise ValueError("boom")
        assert "end" not in rec.calls


class AbortOnce(fr.train.SessionRunHook):
    def __init__(self, at):
        self.at, self.n, self.created = at, 0, 0

    def after_create_session(self, session, coord):
        self.created += 1

    def before_run(self, run_context):
        self.n += 1
        if self.n == self.at:
            raise fr.errors.AbortedError(None, None, "preempted")


def test_recovers_from_an_aborted_session_by_restoring_the_checkpoint(tmp_path):
    with fr.Graph().as_default():
        loss, train, gs, w = _linreg()
        abort = AbortOnce(at=4)
        with fr.train.MonitoredTrainingSession(
            checkpoint_dir=str(tmp_path),
            save_checkpoint_steps=2,
            hooks=[abort],
            save_summaries_steps=None,
            log_step_count_steps=None,
        ) as sess:
            steps = [sess.run([train, gs])[1] for _ in range(5)]
        # Steps 1..3 ran; the abort recreated the session from model.ckpt-2 (saved after 2
        # steps), so the global step went back to 2 and continued from there.
        assert abort.created == 2
        assert [int(s) for s in steps] == [0, 1, 2, 2, 3]


def test_singular_monitored_session_does_not_recover_and_exposes_raw_session():
    with fr.Graph().as_default():
        loss, train, gs, w = _linreg()
        with pytest.raises(fr.errors.AbortedError):
            with fr.train.SingularMonitoredSession(hooks=[AbortOnce(at=1)]) as sess:
                assert isinstance(sess.raw_session(), fr.Session)
                sess.run(train)


def test_scaffold_init_fn_and_ready_check():
    with fr.Graph().as_default():
        v = fr.Variable(1.0, name="v")
        scaffold = fr.train.Scaffold(init_op=fr.no_op(), init_fn=lambda s, sess: v.load(7.0, sess))
        with fr.train.MonitoredSession(fr.train.ChiefSessionCreator(scaffold=scaffold)) as s:
            assert s.run(v) == 7.0
    with fr.Graph().as_default():
        fr.Variable(1.0, name="v")
        scaffold = fr.train.Scaffold(init_op=fr.no_op())
        with pytest.raises(RuntimeError, match="Variables not initialized: v"):
            fr.train.MonitoredSession(fr.train.ChiefSessionCreator(scaffold=scaffold))


def test_worker_session_creator_times_out_when_never_ready():
    with fr.Graph().as_default():
        fr.Variable(1.0, name="v")
        creator = fr.train.WorkerSessionCreator(max_wait_secs=0)
        with pytest.raises(fr.errors.DeadlineExceededError, match="not ready"):
            creator.create_session()


def test_nan_tensor_hook_and_logging_hook(caplog):
    with fr.Graph().as_default():
        fr.train.get_or_create_global_step()
        x = fr.placeholder(fr.float32, [])
        log = fr.train.LoggingTensorHook({"x": x}, every_n_iter=2)
        with caplog.at_level(logging.INFO, logger="flowrt.train"):
            with fr.train.MonitoredSession(hooks=[log]) as sess:
                for v in (1.0, 2.0, 3.0):
                    sess.run(x, {x: v})
        assert [
            r.getMessage().split(" (")[0]
            for r in caplog.records
            if r.getMessage().startswith("x =")
        ] == ["x = 1.0", "x = 3.0"]
        with pytest.raises(fr.train.NanLossDuringTrainingError):
            with fr.train.MonitoredSession(hooks=[fr.train.NanTensorHook(x)]) as sess:
                sess.run(x, {x: float("nan")})
        with fr.train.MonitoredSession(hooks=[fr.train.NanTensorHook(x, False)]) as sess:
            sess.run(x, {x: float("nan")})
            assert sess.should_stop()


def test_hook_argument_errors():
    with pytest.raises(ValueError, match="Only one of num_steps or last_step"):
        fr.train.StopAtStepHook(num_steps=2, last_step=3)
    with pytest.raises(ValueError, match="exactly one of every_n_iter"):
        fr.train.LoggingTensorHook(["x"])
    with pytest.raises(ValueError, match="Exactly one of scaffold or summary_op"):
        fr.train.SummarySaverHook(save_steps=1)
    with pytest.raises(ValueError, match="Can not provide both every_secs and every_steps"):
        fr.train.CheckpointSaverHook("d", save_secs=1, save_steps=1)
    with fr.Graph().as_default():
        with pytest.raises(RuntimeError, match="Global step should be created"):
            fr.train.MonitoredSession(hooks=[fr.train.StopAtStepHook(1)])


def test_summary_saver_hook_writes_the_merged_summaries(tmp_path):
    with fr.Graph().as_default():
        loss, train, gs, w = _linreg()
        fr.summary.scalar("loss", loss)
        with fr.train.MonitoredTrainingSession(
            checkpoint_dir=str(tmp_path),
            save_summaries_steps=2,
            log_step_count_steps=None,
            save_checkpoint_secs=None,
            hooks=[fr.train.StopAtStepHook(last_step=5)],
        ) as sess:
            while not sess.should_stop():
                sess.run(train)
    fr.summary.FileWriterCache.clear()
    (events,) = [f for f in os.listdir(tmp_path) if f.startswith("events")]
    steps = [
        e.step for e in fr.train.summary_iterator(str(tmp_path / events)) if e.HasField("summary")
    ]
    assert steps == [1, 3, 5]


# --- the trio form -----------------------------------------------------------------------


async def test_async_form_awaits_async_hooks_and_runs_queue_runners_as_tasks():
    with fr.Graph().as_default():
        gs = fr.train.get_or_create_global_step()
        step = fr.assign_add(gs, 1)
        (x,) = fr.train.slice_input_producer(
            [fr.constant(np.arange(8.0))], num_epochs=1, shuffle=False
        )
        batch = fr.train.batch([x], batch_size=4)
        calls = []

        class AsyncHook(fr.train.SessionRunHook):
            async def after_create_session(self, session, coord):
                calls.append(("created", int(await session.arun(gs))))

            async def before_run(self, run_context):
                await trio.lowlevel.checkpoint()
                return fr.train.SessionRunArgs(gs)

            async def after_run(self, run_context, run_values):
                calls.append(("after", int(run_values.results)))

        sync = Recorder(fetch=gs)
        seen = []
        with trio.fail_after(30):
            async with fr.train.MonitoredTrainingSession(hooks=[AsyncHook(), sync]) as sess:
                with pytest.raises(RuntimeError, match="await sess.arun"):
                    sess.run(gs)
                while not sess.should_stop():
                    b, _ = await sess.arun([batch, step])
                    seen.extend(b.tolist())
        assert sorted(seen) == list(np.arange(8.0))
        assert calls[0] == ("created", 0) and [c for c in calls[1:]] == [("after", 0), ("after", 1)]
        assert sync.calls[-1] == "end" and [int(r) for r in sync.results] == [0, 1]


async def test_async_form_stop_at_step_and_checkpoint(tmp_path):
    with fr.Graph().as_default():
        loss, train, gs, w = _linreg()
        with trio.fail_after(30):
            async with fr.train.MonitoredTrainingSession(
                checkpoint_dir=str(tmp_path),
                hooks=[fr.train.StopAtStepHook(4)],
                save_summaries_steps=None,
                log_step_count_steps=None,
            ) as sess:
                n = 0
                while not sess.should_stop():
                    await sess.arun(train)
                    n += 1
        assert n == 4
        assert fr.train.latest_checkpoint(str(tmp_path)).endswith("model.ckpt-4")


async def test_async_form_rejects_sync_use_and_sync_form_rejects_async_hooks():
    with fr.Graph().as_default():
        fr.train.get_or_create_global_step()
        sess = fr.train.MonitoredSession()
        with pytest.raises(RuntimeError, match="created inside trio"):
            with sess:
                pass

    class AsyncBegin(fr.train.SessionRunHook):
        async def begin(self):
            pass

    def make():
        with fr.Graph().as_default():
            fr.train.get_or_create_global_step()
            fr.train.MonitoredSession(hooks=[AsyncBegin()])

    with pytest.raises(TypeError, match="returned an awaitable"):
        await trio.to_thread.run_sync(make)


def _failing_producer():
    """A queue fed by a runner whose enqueue fails at run time (an assertion)."""
    q = fr.FIFOQueue(4, fr.float32, shapes=[])
    x = fr.random_uniform([], 1.0, 2.0)
    check = fr.assert_negative(x, message="producer broke")
    with fr.control_dependencies([check]):
        enqueue = q.enqueue(fr.identity(x))
    fr.train.add_queue_runner(fr.train.QueueRunner(q, [enqueue]))
    return q.dequeue()


def test_a_queue_runner_error_stops_the_loop_and_is_raised_on_close():
    with fr.Graph().as_default():
        fr.train.get_or_create_global_step()
        _failing_producer()

        class KeepCoord(fr.train.SessionRunHook):
            def after_create_session(self, session, coord):
                self.coord = coord

        keep = KeepCoord()
        with pytest.raises(fr.errors.InvalidArgumentError, match="producer broke"):
            with fr.train.MonitoredSession(hooks=[keep]) as sess:
                while not sess.should_stop():
                    # should_stop() turns True once the runner thread reports its error to
                    # the coordinator; close() then raises it.
                    assert keep.coord.wait_for_stop(30)


async def test_async_queue_runner_error_cancels_the_block_and_is_raised():
    with fr.Graph().as_default():
        fr.train.get_or_create_global_step()
        dequeue = _failing_producer()
        with trio.fail_after(30):
            with pytest.raises(fr.errors.InvalidArgumentError, match="producer broke"):
                async with fr.train.MonitoredSession() as sess:
                    await sess.arun(dequeue)  # blocks until the runner's error cancels it


async def test_async_form_recovers_from_an_aborted_session(tmp_path):
    with fr.Graph().as_default():
        loss, train, gs, w = _linreg()

        class AsyncAbortOnce(AbortOnce):
            async def before_run(self, run_context):
                return AbortOnce.before_run(self, run_context)

        abort = AsyncAbortOnce(at=4)
        with trio.fail_after(30):
            async with fr.train.MonitoredTrainingSession(
                checkpoint_dir=str(tmp_path),
                save_checkpoint_steps=2,
                hooks=[abort],
                save_summaries_steps=None,
                log_step_count_steps=None,
            ) as sess:
                steps = [(await sess.arun([train, gs]))[1] for _ in range(5)]
        assert abort.created == 2
        assert [int(s) for s in steps] == [0, 1, 2, 2, 3]


def test_run_step_fn_and_request_stop():
    with fr.Graph().as_default():
        loss, train, gs, w = _linreg()
        rec = Recorder(fetch=gs)

        def step_fn(step_context):
            value = step_context.run_with_hooks(gs)  # hooks see this run...
            step_context.session.run(train)  # ...but not this one (the raw session)
            if value >= 2:
                step_context.request_stop()
            return value

        seen = []
        with fr.train.MonitoredSession(hooks=[rec]) as sess:
            while not sess.should_stop():
                seen.append(sess.run_step_fn(step_fn))
        assert seen == [0, 1]  # the third call stopped the loop (a clean end)
        assert rec.calls.count("before_run") == 3 and rec.calls[-1] == "end"


async def test_async_form_cancelled_from_outside_still_closes_cleanly():
    with fr.Graph().as_default():
        fr.train.get_or_create_global_step()
        q = fr.FIFOQueue(2, fr.float32, shapes=[])
        dequeue = q.dequeue()
        rec = Recorder()
        with trio.fail_after(30):
            with trio.move_on_after(0.2) as scope:
                async with fr.train.MonitoredSession(hooks=[rec]) as sess:
                    await sess.arun(dequeue)  # nothing is ever enqueued
        assert scope.cancelled_caught
        assert "end" not in rec.calls  # a cancelled block is not a clean end
        assert sess.should_stop()
        assert not fr.get_default_graph().finalized


def test_a_hook_failing_after_creation_leaves_no_session_or_runner_behind():
    with fr.Graph().as_default():
        fr.train.get_or_create_global_step()
        q = fr.FIFOQueue(2, fr.float32, shapes=[])
        fr.train.add_queue_runner(fr.train.QueueRunner(q, [q.enqueue(1.0)]))
        size = q.size()
        sessions = []

        class Fails(fr.train.SessionRunHook):
            def after_create_session(self, session, coord):
                sessions.append((session, coord))
                raise ValueError("hook broke")

        with pytest.raises(ValueError, match="hook broke"):
            fr.train.MonitoredSession(hooks=[Fails()])
        ((session, coord),) = sessions
        assert coord.should_stop() and coord.joined
        with pytest.raises(RuntimeError, match="closed Session"):
            session.run(size)


def test_non_chief_waits_for_readiness_and_adds_no_chief_hooks(tmp_path):
    with fr.Graph().as_default():
        fr.train.get_or_create_global_step()
        with pytest.raises(fr.errors.DeadlineExceededError, match="not ready"):
            fr.train.MonitoredTrainingSession(
                is_chief=False, checkpoint_dir=str(tmp_path), max_wait_secs=0
            )
    assert os.listdir(tmp_path) == []  # no checkpoint or summary hooks for a worker
    with fr.Graph().as_default():
        v = fr.Variable(1.0, name="loc", collections=[fr.GraphKeys.LOCAL_VARIABLES])
        with fr.train.MonitoredTrainingSession(is_chief=False, max_wait_secs=0) as sess:
            assert sess.run(v) == 1.0  # local variables are the worker's own


def test_default_hooks_write_summaries_graph_and_meta_graph_where_tf_does(tmp_path):
    # TF 2.21 after disable_v2_behavior: summaries at steps 1, 101, 201 (the hooks' read
    # of the global step is the step before the run's increment), a START log, the graph
    # and meta graph events, graph.pbtxt and a CHECKPOINT log from CheckpointSaverHook.
    from flowrt.summary.writer import read_events

    gs = fr.train.get_or_create_global_step()
    w = fr.Variable(1.0)
    loss = fr.square(w)
    fr.summary.scalar("loss", loss)
    train = fr.train.GradientDescentOptimizer(0.01).minimize(loss, global_step=gs)
    with fr.train.MonitoredTrainingSession(
        checkpoint_dir=str(tmp_path), log_step_count_steps=None
    ) as sess:
        for _ in range(250):
            sess.run(train)
    events = [e for p in sorted(tmp_path.glob("events.out.tfevents.*")) for e in read_events(p)]
    kinds = [(e.step, e.WhichOneof("what")) for e in events]
    assert [s for s, k in kinds if k == "summary"] == [1, 101, 201]
    assert (0, "meta_graph_def") in kinds and (0, "graph_def") in kinds
    logs = [(e.step, e.session_log.status) for e in events if e.HasField("session_log")]
    assert (1, fr.summary.SessionLog.START) in logs
    assert (0, fr.summary.SessionLog.CHECKPOINT) in logs
    assert (tmp_path / "graph.pbtxt").exists()
    assert fr.train.latest_checkpoint(str(tmp_path)).endswith("model.ckpt-250")


def test_checkpoint_saver_hook_without_graph_def_writes_no_graph_files_but_the_events(tmp_path):
    # TF 2.21: save_graph_def=False skips graph.pbtxt and the .meta files; the hook still
    # adds the graph and meta graph events (after the cached writer's own pair).
    from flowrt.summary.writer import read_events
    from flowrt.summary.writer_cache import FileWriterCache

    gs = fr.train.get_or_create_global_step()
    fr.Variable(1.0, name="v")
    step = fr.assign_add(gs, 1)
    hook = fr.train.CheckpointSaverHook(str(tmp_path), save_steps=1, save_graph_def=False)
    with fr.train.MonitoredSession(hooks=[hook]) as sess:
        sess.run(step)
    FileWriterCache.clear()  # flushes the event file
    assert not (tmp_path / "graph.pbtxt").exists() and not list(tmp_path.glob("*.meta"))
    events = [e for p in sorted(tmp_path.glob("events.out.tfevents.*")) for e in read_events(p)]
    kinds = [e.WhichOneof("what") for e in events]
    assert kinds.count("graph_def") == 2 and kinds.count("meta_graph_def") == 2
    meta = [e for e in events if e.HasField("meta_graph_def")][-1]
    assert b"save/" in meta.meta_graph_def  # the hook's carries the saver's SaverDef
    logs = [(e.step, e.session_log.status) for e in events if e.HasField("session_log")]
    assert (0, fr.summary.SessionLog.CHECKPOINT) in logs


def test_monitored_training_session_passes_save_graph_def_to_its_checkpoint_hook(tmp_path):
    fr.train.get_or_create_global_step()
    for flag in (True, False):
        with fr.train.MonitoredTrainingSession(
            checkpoint_dir=str(tmp_path), save_graph_def=flag
        ) as sess:
            (hook,) = [h for h in sess._hooks if isinstance(h, fr.train.CheckpointSaverHook)]
            assert hook._save_graph_def is flag


@pytest.mark.parametrize("method", ["before_run", "after_run"])
def test_a_stop_iteration_from_a_hook_propagates_as_itself(method):
    # TF raises the hook's StopIteration to the caller (a coroutine would make it a
    # RuntimeError); `with` ends cleanly on it, as on a step_fn's.
    class Stopper(fr.train.SessionRunHook):
        pass

    def stop(*_):
        raise StopIteration("enough")

    hook = Stopper()
    setattr(hook, method, stop)
    x = fr.constant(1)
    with fr.train.MonitoredSession(hooks=[hook]) as sess:
        with pytest.raises(StopIteration, match="enough"):
            sess.run(x)


class _AbortOnce(fr.train.SessionRunHook):
    """Counts sessions; on the ``at``-th run's after_run raises AbortedError (``how`` =
    'raise') or reports it to the coordinator ('coordinator')."""

    def __init__(self, how, at=1):
        self.how, self.at, self.runs, self.created = how, at, 0, 0

    def after_create_session(self, session, coord):
        self.created += 1
        self.coord = coord

    def after_run(self, run_context, run_values):
        self.runs += 1
        if self.runs == self.at:
            try:
                raise fr.errors.AbortedError(None, None, "abort")
            except fr.errors.AbortedError as e:
                if self.how == "raise":
                    raise
                self.coord.request_stop(e)


def test_run_step_fn_recreates_the_session_and_calls_step_fn_again_after_an_abort():
    hook, calls = _AbortOnce("raise"), []
    x = fr.constant(1)

    def step_fn(step_context):
        calls.append(1)
        return step_context.run_with_hooks(x)

    with fr.train.MonitoredSession(hooks=[hook]) as sess:
        assert sess.run_step_fn(step_fn) == 1
        assert (len(calls), hook.created) == (2, 2)  # as TF's _RecoverableSession


def test_should_stop_recreates_the_session_after_a_coordinator_abort():
    hook = _AbortOnce("coordinator", at=2)
    x = fr.constant(1)
    with fr.train.MonitoredSession(hooks=[hook]) as sess:
        assert sess.run(x) == 1 and sess.run(x) == 1
        assert hook.created == 1
        assert not sess.should_stop()
        assert hook.created == 2  # recreated at once, as TF's _RecoverableSession
        assert sess.run(x) == 1 and not sess.should_stop()
