"""Run traces: TF1's StepStats, the Chrome trace of a Timeline, the profiler block."""

import json

import numpy as np
import pytest
import trio
import trio.testing

import flowrt as fr
from flowrt.client.timeline import Timeline

FULL = fr.RunOptions(trace_level=fr.RunOptions.FULL_TRACE)


def _nodes(md):
    (dev,) = md.step_stats.dev_stats
    assert dev.device == "/job:localhost/replica:0/task:0/device:CPU:0"
    return dev.node_stats


def _diamond():
    x = fr.placeholder(fr.float32, [2, 3], name="x")
    a = fr.square(x, name="a")
    b = fr.negative(x, name="b")
    c = fr.add(a, b, name="c")
    d = fr.reduce_sum(c, axis=1, name="d")
    return x, d


def _check_dependency_order(nodes, graph):
    """Every traced op starts after each traced producer of its inputs ended."""
    by_name = {n.node_name: (i, n) for i, n in enumerate(nodes) if not n.wait_for}
    for i, n in enumerate(nodes):
        if n.wait_for:
            continue
        for t in graph.get_operation_by_name(n.node_name).inputs:
            if t.op.name in by_name:
                j, p = by_name[t.op.name]
                assert j < i
                assert p.all_start_micros + p.all_end_rel_micros <= n.all_start_micros


def test_step_stats_have_tf1_fields_in_dependency_order():
    x, d = _diamond()
    md = fr.RunMetadata()
    with fr.Session() as sess:
        out = sess.run(d, {x: np.ones((2, 3))}, options=FULL, run_metadata=md)
    np.testing.assert_allclose(out, [0.0, 0.0])
    nodes = _nodes(md)
    assert {n.node_name for n in nodes} == {"a", "b", "c", "d"}
    _check_dependency_order(nodes, fr.get_default_graph())
    c = next(n for n in nodes if n.node_name == "c")
    assert c.timeline_label == "c = AddV2(a, b)"
    assert c.op_start_rel_micros == 0 <= c.op_end_rel_micros == c.all_end_rel_micros
    assert c.thread_name == "thread:MainThread" and c.thread_id > 0
    assert md.step_stats.dev_stats[0].thread_names == {c.thread_id: "thread:MainThread"}
    # TensorBoard's form (FileWriter.add_run_metadata): the same fields in the protobuf.
    proto = fr.summary.run_metadata_proto(md)
    (dev,) = proto.step_stats.dev_stats
    assert [n.node_name for n in dev.node_stats] == [n.node_name for n in nodes]
    pc = next(n for n in dev.node_stats if n.node_name == "c")
    assert pc.timeline_label == c.timeline_label and pc.thread_id == c.thread_id
    assert [d.size for d in pc.output[0].tensor_description.shape.dim] == [2, 3]
    assert pc.output[0].tensor_description.allocation_description.requested_bytes == 24
    assert dict(dev.thread_names) == {c.thread_id: "thread:MainThread"}
    (o,) = c.output
    assert o.slot == 0 and o.tensor_description.dtype == fr.float32
    assert [d.size for d in o.tensor_description.shape.dim] == [2, 3]
    assert o.tensor_description.allocation_description.requested_bytes == 24
    d_stats = next(n for n in nodes if n.node_name == "d")
    assert [d.size for d in d_stats.output[0].tensor_description.shape.dim] == [2]


def test_untraced_body_is_unchanged_and_untraced_runs_fill_nothing():
    x, d = _diamond()
    with fr.Session() as sess:
        md = fr.RunMetadata()
        sess.run(d, {x: np.ones((2, 3))}, run_metadata=md)
        assert md.step_stats.dev_stats == []
        plan = next(p for _, p in sess._plans.plans() if isinstance(p, fr.session.Plan))
    names = set(plan.fn.compile().__code__.co_names)
    assert not names & {"clock", "record", "timed", "stats"}


async def test_arun_traces_tasks_and_queue_waits_as_nested_slices():
    q = fr.FIFOQueue(2, [fr.float32], shapes=[[]], name="q")
    enq = q.enqueue([fr.constant(5.0)], name="enq")
    y = fr.multiply(q.dequeue(name="deq"), 2.0, name="y")
    md = fr.RunMetadata()
    with fr.Session() as sess:
        got = []
        with trio.fail_after(10):
            async with trio.open_nursery() as nursery:

                async def consumer():
                    got.append(await sess.arun(y, options=FULL, run_metadata=md))

                nursery.start_soon(consumer, name="consumer-task")
                await trio.testing.wait_all_tasks_blocked()
                await sess.arun(enq)
    assert got == [10.0]
    nodes = _nodes(md)
    deq = next(n for n in nodes if n.node_name == "deq" and not n.wait_for)
    (wait,) = [n for n in nodes if n.wait_for]
    assert wait.node_name == "deq"
    assert wait.wait_for.endswith("from FIFOQueue 'q' (size 0, capacity 2)")
    assert deq.thread_name == wait.thread_name == "task:consumer-task"
    assert deq.all_start_micros <= wait.all_start_micros
    assert (
        wait.all_start_micros + wait.all_end_rel_micros
        <= deq.all_start_micros + deq.all_end_rel_micros
    )
    _check_dependency_order(nodes, fr.get_default_graph())
    trace = json.loads(Timeline(md.step_stats).generate_chrome_trace_format())
    _validate_chrome_trace(trace)
    assert [e["args"]["for"] for e in trace["traceEvents"] if e.get("cat") == "Wait"]


async def test_concurrent_plan_runs_blocking_ops_in_tasks_of_their_own():
    q1 = fr.FIFOQueue(2, [fr.float32], shapes=[[]], name="q1")
    q2 = fr.FIFOQueue(2, [fr.float32], shapes=[[]], name="q2")
    s = fr.add(q1.dequeue(name="d1"), q2.dequeue(name="d2"), name="s")
    md = fr.RunMetadata()
    with fr.Session() as sess:
        await sess.arun([q1.enqueue([1.0]), q2.enqueue([2.0])])
        with trio.fail_after(10):
            assert await sess.arun(s, options=FULL, run_metadata=md) == 3.0
    nodes = {n.node_name: n for n in _nodes(md) if not n.wait_for}
    assert nodes["d1"].thread_name == "task:d1" and nodes["d2"].thread_name == "task:d2"
    assert nodes["d1"].thread_id != nodes["d2"].thread_id
    _check_dependency_order(_nodes(md), fr.get_default_graph())


_PHASES = {"X", "M", "s", "t", "C", "B", "E", "i", "f"}


def _validate_chrome_trace(trace):
    """The Trace Event Format's rules: required keys per phase, flow pairs, nesting."""
    assert isinstance(trace["traceEvents"], list)
    flows: dict = {}
    tracks: dict = {}
    for e in trace["traceEvents"]:
        assert {"name", "ph", "pid", "tid"} <= set(e), e
        assert e["ph"] in _PHASES
        if e["ph"] == "M":
            assert e["name"] in ("process_name", "thread_name", "process_sort_index")
            assert isinstance(e["args"], dict)
            continue
        assert isinstance(e["ts"], (int, float))
        if e["ph"] == "X":
            assert e["dur"] >= 0
            tracks.setdefault((e["pid"], e["tid"]), []).append(e)
        elif e["ph"] in "st":
            flows.setdefault(e["id"], {})[e["ph"]] = e
        elif e["ph"] == "C":
            assert all(isinstance(v, (int, float)) for v in e["args"].values())
    for pair in flows.values():
        assert set(pair) == {"s", "t"} and pair["s"]["ts"] <= pair["t"]["ts"]
        assert pair["t"].get("bp") == "e"
    for events in tracks.values():  # slices on one track nest or are disjoint
        stack = []
        for e in sorted(events, key=lambda e: (e["ts"], -e["dur"])):
            while stack and stack[-1]["ts"] + stack[-1]["dur"] <= e["ts"]:
                stack.pop()
            if stack:
                assert e["ts"] + e["dur"] <= stack[-1]["ts"] + stack[-1]["dur"], (stack, e)
            stack.append(e)
    return flows


def test_chrome_trace_validates_and_has_flows_for_data_edges():
    x, d = _diamond()
    md = fr.RunMetadata()
    with fr.Session() as sess:
        sess.run(d, {x: np.ones((2, 3))}, options=FULL, run_metadata=md)
    text = Timeline(md.step_stats).generate_chrome_trace_format(show_memory=True)
    trace = json.loads(text)
    flows = _validate_chrome_trace(trace)
    slices = {e["args"]["name"]: e for e in trace["traceEvents"] if e["ph"] == "X"}
    assert set(slices) == {"a", "b", "c", "d"}
    assert slices["c"]["name"] == "AddV2" and slices["c"]["args"]["input0"] == "a"
    edges = {(p["s"]["name"], p["t"]["args"]["consumer"]) for p in flows.values()}
    assert edges == {("a", "c"), ("b", "c"), ("c", "d")}  # x is fed: no arrow from it
    names = {e["args"]["name"] for e in trace["traceEvents"] if e["name"] == "thread_name"}
    assert "thread:MainThread" in names
    counters = [e for e in trace["traceEvents"] if e["ph"] == "C"]
    assert sorted(c["args"]["bytes"] for c in counters) == [8, 24, 24, 24]
    plain = json.loads(Timeline(md.step_stats).generate_chrome_trace_format())
    assert not [e for e in plain["traceEvents"] if e["ph"] == "C"]


def test_profiler_block_aggregates_runs_into_one_trace_file(tmp_path):
    x, d = _diamond()
    with fr.Session() as sess:
        with fr.profiler.trace(str(tmp_path / "prof")) as prof:
            for _ in range(3):
                sess.run(d, {x: np.ones((2, 3))})
        md = fr.RunMetadata()
        sess.run(d, {x: np.ones((2, 3))}, run_metadata=md)
    assert prof.runs == 3 and md.step_stats.dev_stats == []
    with open(prof.path) as f:
        trace = json.load(f)
    _validate_chrome_trace(trace)
    ops = [e["args"]["name"] for e in trace["traceEvents"] if e["ph"] == "X"]
    assert sorted(ops) == sorted(["a", "b", "c", "d"] * 3)


def test_run_traces_a_blocking_plan_that_need_not_wait():
    q = fr.FIFOQueue(2, [fr.float32], shapes=[[]], name="q")
    y = fr.multiply(q.dequeue(name="deq"), 2.0, name="y")
    md = fr.RunMetadata()
    with fr.Session() as sess:
        sess.run(q.enqueue([3.0]))
        assert sess.run(y, options=FULL, run_metadata=md) == 6.0
        # A traced dequeue with nothing queued: the run's own timeout ends it.
        with pytest.raises(fr.errors.DeadlineExceededError, match="FIFOQueue 'q'"):
            sess.run(
                y,
                options=fr.RunOptions(trace_level=3, timeout_in_ms=50),
                run_metadata=fr.RunMetadata(),
            )
        sess.run(q.enqueue([4.0]))
        assert sess.run(y) == 8.0  # the interrupted traced run left the queue usable
    assert [n.node_name for n in _nodes(md)] == ["q", "deq", "y"]
    assert not any(n.wait_for for n in _nodes(md))


async def test_profiler_block_traces_arun_too(tmp_path):
    x, d = _diamond()
    async with fr.Session() as sess:
        with trio.fail_after(10):
            with fr.profiler.trace(str(tmp_path)) as prof:
                for _ in range(2):
                    await sess.arun(d, {x: np.ones((2, 3))})
    assert prof.runs == 2
    (dev,) = prof.step_stats.dev_stats
    assert [n.node_name for n in dev.node_stats].count("c") == 2
    assert all(n.thread_name.startswith("task:") for n in dev.node_stats)
    with open(prof.path) as f:
        _validate_chrome_trace(json.load(f))


def _runner_pipeline():
    """A capacity-2 queue fed by a queue runner, and a batch of 6 from it: the consumer
    must wait for the runner, and at least 4 of the runner's enqueue runs start after
    the consumer's run did."""
    q = fr.FIFOQueue(2, [fr.float32], shapes=[[]], name="q")
    enqueue = q.enqueue([fr.constant(1.0)], name="enqueue")
    fr.train.add_queue_runner(fr.train.QueueRunner(q, [enqueue]))
    return q.dequeue_many(6, name="batch")


def _tracks(path):
    """Chrome trace -> {track name: [events on it]}."""
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    names = {e["tid"]: e["args"]["name"] for e in events if e["name"] == "thread_name"}
    tracks: dict = {}
    for e in events:
        if e["ph"] == "X":
            tracks.setdefault(names[e["tid"]], []).append(e)
    return tracks


def _check_runner_and_wait_slices(tracks, runner_prefix, consumer):
    runner_tracks = [t for t in tracks if t.startswith(runner_prefix)]
    assert runner_tracks, sorted(tracks)
    ops = {e["args"]["name"] for t in runner_tracks for e in tracks[t] if e["cat"] == "Op"}
    assert "enqueue" in ops
    waits = [e for e in tracks[consumer] if e["cat"] == "Wait"]
    assert any(e["args"]["name"] == "batch" and "dequeue" in e["args"]["for"] for e in waits)


def test_profiler_block_traces_queue_runner_threads_and_the_dequeue_wait(tmp_path):
    batch = _runner_pipeline()
    md = fr.RunMetadata()
    with fr.Session() as sess:
        coord = fr.train.Coordinator()
        threads = fr.train.start_queue_runners(sess, coord=coord)
        with fr.profiler.trace(tmp_path, filename="trace.json") as prof:
            assert sess.run(batch, options=FULL, run_metadata=md).shape == (6,)
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=30)
    assert prof.path == str(tmp_path / "trace.json")
    tracks = _tracks(prof.path)
    _check_runner_and_wait_slices(tracks, "thread:QueueRunnerThread-q-enqueue", "thread:MainThread")
    # The traced run's own RunMetadata holds its own steps only, as TF1's.
    assert {n.node_name for n in _nodes(md)} == {"q", "batch"}


async def test_profiler_block_traces_queue_runner_tasks_and_the_dequeue_wait(tmp_path):
    batch = _runner_pipeline()
    with trio.fail_after(30):
        async with fr.Session() as sess:
            async with fr.train.queue_runners(sess):
                with fr.profiler.trace(tmp_path, filename="trace.json") as prof:
                    assert (await sess.arun(batch, options=FULL)).shape == (6,)
    tracks = _tracks(prof.path)
    consumer = [t for t in tracks if not t.startswith("task:QueueRunnerTask")]
    assert len(consumer) == 1, sorted(tracks)
    _check_runner_and_wait_slices(tracks, "task:QueueRunnerTask-q-enqueue", consumer[0])


async def test_profiler_block_shows_a_wait_still_going_on_when_it_ends(tmp_path):
    q = fr.FIFOQueue(2, [fr.float32], shapes=[[]], name="q")
    deq = q.dequeue(name="deq")
    enqueue = q.enqueue([1.0])
    with trio.fail_after(30):
        async with fr.Session() as sess, trio.open_nursery() as nursery:
            with fr.profiler.trace(tmp_path, filename="trace.json") as prof:
                nursery.start_soon(sess.arun, deq, name="consumer")
                await trio.testing.wait_all_tasks_blocked()
            await sess.arun(enqueue)
    (wait,) = [e for e in _tracks(prof.path)["task:consumer"] if e["cat"] == "Wait"]
    assert wait["args"]["name"] == "deq" and "dequeue" in wait["args"]["for"]
