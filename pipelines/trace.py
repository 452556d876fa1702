"""``--trace-steps``: traced steps as TensorBoard run metadata and as a Chrome trace."""

from __future__ import annotations

import os

import flowrt as fr

__all__ = ["TraceHook"]


class TraceHook(fr.train.SessionRunHook):
    """Traces ``--trace-steps`` steps after the first (which compiles the plan): each one's
    run metadata goes to TensorBoard's graph tab (as run ``step<N>``), and every run that
    executes while they do (the training loop's and the queue runners', on a track per
    thread or trio task) to ``<logdir>/trace.json`` (an ``fr.profiler.trace`` block open
    from the first step, which compiles the plans, to the end of the last traced one)."""

    def __init__(self, job):
        self.job = job
        self.path = os.path.join(job.args.logdir, "trace.json")
        self.steps = []  # (step, RunMetadata protobuf)
        self._runs = 0
        self._profile = None  # the open profiler block

    def before_run(self, run_context):
        self._runs += 1
        if self._runs == 1:
            # Open from the first step on: a queue runner's run that started before the
            # block (an enqueue waiting for room) would be missing from it.
            self._profile = fr.profiler.trace(self.job.args.logdir, filename="trace.json")
            self._profile.__enter__()
        if not 1 < self._runs <= self.job.args.trace_steps + 1:
            return None
        return fr.train.SessionRunArgs(
            self.job.global_step, options=fr.RunOptions(trace_level=fr.RunOptions.FULL_TRACE)
        )

    def after_run(self, run_context, run_values):
        if run_values.results is None:
            return
        step = int(run_values.results)
        meta = fr.summary.run_metadata_proto(run_values.run_metadata)
        self.steps.append((step, meta))
        fr.summary.FileWriterCache.get(self.job.args.logdir).add_run_metadata(
            meta, "step%d" % step, step
        )
        if self._runs == self.job.args.trace_steps + 1:
            self._close()

    def end(self, session):
        self._close()
        if self.steps:
            print(
                "traced steps %s: %s" % (", ".join(str(s) for s, _ in self.steps), self.path),
                flush=True,
            )

    def _close(self):
        if self._profile is not None:
            profile, self._profile = self._profile, None
            profile.__exit__(None, None, None)


class _SavedListener(fr.train.CheckpointSaverListener):
    """Shows the last saved step in the bar; with --quiet, logs each save on stdout."""

    def __init__(self, progress):
        self.progress = progress

    def after_save(self, session, global_step_value):
        self.progress.saved = int(global_step_value)
        if self.progress.job.args.quiet:
            print("checkpoint saved at step %d" % global_step_value, flush=True)


# The runners and the training loop are the parallelism; BLAS threads on top of them
