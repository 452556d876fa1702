"""``--trace-steps``: traced steps as TensorBoard run metadata and as a Chrome trace.

``write_chrome_trace`` is kept small so that ``fr.client.timeline`` (TF1's full timeline:
flow arrows, queue waits) can replace it.
"""

from __future__ import annotations

import json
import os

import flowrt as fr

__all__ = ["TraceHook", "write_chrome_trace"]


class TraceHook(fr.train.SessionRunHook):
    """Traces ``--trace-steps`` steps after the first (which compiles the plan): each one's
    run metadata goes to TensorBoard's graph tab (as run ``step<N>``), and all of them to a
    Chrome trace when the session ends."""

    def __init__(self, job):
        self.job = job
        self.path = os.path.join(job.args.logdir, "trace.json")
        self.steps = []  # (step, RunMetadata protobuf)
        self._runs = 0

    def before_run(self, run_context):
        self._runs += 1
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

    def end(self, session):
        if self.steps:
            write_chrome_trace(self.path, self.steps)
            print(
                "traced steps %s: %s" % (", ".join(str(s) for s, _ in self.steps), self.path),
                flush=True,
            )


def write_chrome_trace(path, steps):
    """Writes traced steps as Chrome trace JSON: one complete ("X") event per op, one track
    per thread (or trio task), and a slice per step above them.

    Note: ``fr.client.timeline.Timeline(step_stats).generate_chrome_trace_format()`` makes
    the full TF1 timeline (flow arrows, queue waits); this is the small form the job needs.
    """
    events = [{"name": "process_name", "ph": "M", "pid": 0, "args": {"name": "flowrt"}}]
    threads = {}
    for step, meta in steps:
        first, last = None, None
        for dev in meta.step_stats.dev_stats:
            for n in dev.node_stats:
                tid = threads.setdefault(n.thread_id, len(threads) + 1)
                label = n.timeline_label or n.node_name
                events.append(
                    {
                        "name": n.node_name,
                        "cat": "Op",
                        "ph": "X",
                        "pid": 0,
                        "tid": tid,
                        "ts": n.all_start_micros,
                        "dur": n.all_end_rel_micros,
                        "args": {"step": step, "op": label},
                    }
                )
                end = n.all_start_micros + n.all_end_rel_micros
                first = n.all_start_micros if first is None else min(first, n.all_start_micros)
                last = end if last is None else max(last, end)
        if first is not None:
            events.append(
                {
                    "name": "step %d" % step,
                    "cat": "Step",
                    "ph": "X",
                    "pid": 0,
                    "tid": 0,
                    "ts": first,
                    "dur": last - first,
                    "args": {"step": step},
                }
            )
    events.append({"name": "thread_name", "ph": "M", "pid": 0, "tid": 0, "args": {"name": "steps"}})
    events += [
        {
            "name": "thread_name",
            "ph": "M",
            "pid": 0,
            "tid": tid,
            "args": {"name": "thread %d" % ident},
        }
        for ident, tid in threads.items()
    ]
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w") as f:
        json.dump({"traceEvents": events, "displayTimeUnit": "ms"}, f)


class _SavedListener(fr.train.CheckpointSaverListener):
    """Shows the last saved step in the bar; with --quiet, logs each save on stdout."""

    def __init__(self, progress):
        self.progress = progress

    def after_save(self, session, global_step_value):
        self.progress.saved = int(global_step_value)
        if self.progress.job.args.quiet:
            print("checkpoint saved at step %d" % global_step_value, flush=True)


# The runners and the training loop are the parallelism; BLAS threads on top of them
