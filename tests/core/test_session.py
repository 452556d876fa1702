"""fr.Session: fetch structures, feeds, errors before running, callables, default
session, timeouts, tracing, closing."""

import collections
import json
import threading

import numpy as np
import pytest
import trio
import trio.testing

import flowrt as fr

from ._testops import Counter, Gate, count, wait_gate

Pair = collections.namedtuple("Pair", "first second")


def test_sync_and_async_context_managers():
    c = fr.constant(1.0)
    with fr.Session() as sess:
        assert fr.get_default_session() is sess
        assert sess.run(c) == 1.0
    assert fr.get_default_session() is None
    with pytest.raises(RuntimeError, match="Attempted to use a closed Session."):
        sess.run(c)


async def test_async_context_manager():
    c = fr.constant(2.0)
    async with fr.Session() as sess:
        assert fr.get_default_session() is sess
        assert await sess.arun(c) == 2.0
    with pytest.raises(RuntimeError, match="closed Session"):
        await sess.arun(c)


def test_fetch_structures_and_duplicates():
    a = fr.constant(1, name="a")
    b = fr.constant([2.0, 3.0])
    op = fr.no_op()
    with fr.Session() as sess:
        assert sess.run(a) == 1 and isinstance(sess.run(a), np.int32)
        assert sess.run("a:0") == 1 and sess.run("a") is None and sess.run(op) is None
        lst = sess.run([a, b])
        assert type(lst) is list and lst[0] == 1 and lst[1].tolist() == [2.0, 3.0]
        assert type(sess.run((a, b))) is tuple
        d = sess.run({"x": a, "y": [b, op]})
        assert d["x"] == 1 and d["y"][0].tolist() == [2.0, 3.0] and d["y"][1] is None
        nt = sess.run(Pair(a, (b, {"k": [a, "a:0"]})))
        assert isinstance(nt, Pair) and nt.first == 1 and nt.second[1]["k"] == [1, 1]
        assert sess.run([a, a, a]) == [1, 1, 1]
        assert sess.run([]) == [] and sess.run(()) == () and sess.run({}) == {}
        assert sess.run(fr.constant("ab")) == b"ab"


def test_fetched_arrays_are_fresh_and_writable():
    b = fr.constant([1.0, 2.0])
    with fr.Session() as sess:
        v = sess.run(b)
        v[0] = 9.0
        assert sess.run(b).tolist() == [1.0, 2.0]


def test_feeding_an_intermediate_cuts_the_graph_above_it():
    x = fr.placeholder(fr.float32, [None, 2], name="x")
    y = fr.identity(x * 2.0, name="y")
    z = y + 1.0
    with fr.Session() as sess:
        with pytest.raises(
            fr.errors.InvalidArgumentError, match="must feed a value for placeholder tensor 'x'"
        ):
            sess.run(z)
        assert sess.run(z, {y: [[1.0, 2.0]]}).tolist() == [[2.0, 3.0]]
        assert sess.run(z, {"y:0": [[0.0, 0.0]]}).tolist() == [[1.0, 1.0]]
        assert sess.run(z, {x: [[1, 2]]}).tolist() == [[3.0, 5.0]]  # ints converted
        assert sess.run(x, {x: [[1, 2]]}).dtype == np.float32
        c = fr.constant(3)
        assert sess.run(c * 2, {c: 5}) == 10  # constants are feedable too


def test_fed_intermediate_does_not_run_ops_above_it():
    n = Counter()
    a = count([], n, name="a")
    b = count([a], n, name="b")
    c = count([b], n, name="c")
    with fr.Session() as sess:
        sess.run(c, {b: 1.0})
        assert n.calls == {"c": 1}


@pytest.mark.parametrize(
    "feed,err,msg",
    [
        ({"x:0": [1.0, 2.0]}, ValueError, "Cannot feed value of shape (2,) for Tensor"),
        ({"x:0": [[1.0, 2.0, 3.0]]}, ValueError, "Cannot feed value of shape (1, 3)"),
        ({"x:0": [["a", "b"]]}, ValueError, "could not convert string to float"),
        ({"nope:0": 1.0}, TypeError, "Cannot interpret feed_dict key as Tensor"),
        ({3: 1.0}, TypeError, "Cannot interpret feed_dict key as Tensor"),
    ],
)
def test_bad_feeds_raise_before_anything_runs(feed, err, msg):
    n = Counter()
    fr.placeholder(fr.float32, [None, 2], name="x")
    c = count([], n)
    with fr.Session() as sess:
        with pytest.raises(err, match=msg.replace("(", r"\(").replace(")", r"\)")):
            sess.run(c, feed)
    assert n.total == 0


def test_feeding_a_tensor_or_an_op_is_a_type_error():
    x = fr.placeholder(fr.float32)
    c = fr.constant(1.0)
    op = fr.no_op()
    with fr.Session() as sess:
        with pytest.raises(TypeError, match="The value of a feed cannot be a fr.Tensor"):
            sess.run(x, {x: c})
        with pytest.raises(TypeError, match="Can not convert an? Operation into a Tensor"):
            sess.run(c, {op: 1.0})


@pytest.mark.parametrize(
    "fetch,err,msg",
    [
        ("nope:0", ValueError, "cannot be interpreted as a Tensor"),
        ("nope", ValueError, "cannot be interpreted as a Tensor"),
        (3, TypeError, "has invalid type"),
        (None, TypeError, "has invalid type"),
        ([fr.no_op, 3], TypeError, "has invalid type"),
    ],
)
def test_bad_fetches_raise_before_anything_runs(fetch, err, msg):
    n = Counter()
    c = count([], n)
    with fr.Session() as sess:
        with pytest.raises(err, match=msg):
            sess.run([c, fetch])
    assert n.total == 0


def test_fetch_from_another_graph():
    with fr.Graph().as_default():
        other = fr.constant(1)
    with fr.Session() as sess:
        with pytest.raises(ValueError, match="is not an element of this graph"):
            sess.run(other)


def test_make_callable():
    x = fr.placeholder(fr.float32, name="x")
    y = x * 2.0
    op = fr.no_op()
    with fr.Session() as sess:
        f = sess.make_callable([y, op], [x])
        assert f(3.0) == [6.0, None]
        g = sess.make_callable(y, ["x:0"])
        assert g(np.float32(1.5)) == 3.0
        assert sess.make_callable(op)() is None
        opts = fr.RunOptions(trace_level=fr.RunOptions.FULL_TRACE)
        md = fr.RunMetadata()
        h = sess.make_callable(y, [x], accept_options=True)
        assert h(1.0, options=opts, run_metadata=md) == 2.0
        assert [s.node_name for s in md.step_stats.dev_stats[0].node_stats] == [y.op.name]


def test_eval_and_run_with_the_default_session():
    x = fr.placeholder(fr.float32)
    y = x + 1.0
    n = Counter()
    side = count([], n, name="side").op
    with pytest.raises(ValueError, match="No default session is registered"):
        y.eval({x: 1.0})
    sess = fr.Session()
    with sess.as_default():
        assert y.eval({x: 1.0}) == 2.0
        side.run()
    assert y.eval({x: 2.0}, session=sess) == 3.0
    side.run(session=sess)
    assert n.calls == {"side": 2}
    other = fr.Session(graph=fr.Graph())
    with pytest.raises(ValueError, match="graph is different"):
        y.eval({x: 1.0}, session=other)
    sess.close()
    other.close()


def test_run_metadata_full_trace_and_chrome_trace():
    x = fr.placeholder(fr.float32, name="x")
    y = fr.identity(x * 2.0, name="y")
    opts = fr.RunOptions(trace_level=fr.RunOptions.FULL_TRACE)
    md = fr.RunMetadata()
    with fr.Session() as sess:
        sess.run(y, {x: 1.0}, options=opts, run_metadata=md)
        untraced = fr.RunMetadata()
        sess.run(y, {x: 1.0}, run_metadata=untraced)
    nodes = md.step_stats.dev_stats[0].node_stats
    names = [s.node_name for s in nodes]
    assert sorted(names) == ["mul", "y"]  # the fed placeholder and the folded const don't run
    for s in nodes:
        assert s.all_end_rel_micros >= 0 and s.all_start_micros > 0
        assert s.op_type in ("Mul", "Identity")
    trace = json.loads(md.chrome_trace())
    events = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert sorted(e["args"]["name"] for e in events) == ["mul", "y"]
    assert all(e["dur"] >= 0 for e in events)
    assert untraced.step_stats == fr.RunMetadata().step_stats
    assert untraced.step_stats.dev_stats == []


def test_op_errors_name_the_op_and_leave_the_session_usable():
    x = fr.placeholder(fr.float32, name="x")
    y = fr.identity(x, name="y")
    with fr.Session() as sess:
        with pytest.raises(fr.errors.InvalidArgumentError) as info:
            sess.run(y)
        assert info.value.op is x.op and "[[node x]]" in str(info.value)
        assert isinstance(info.value, fr.errors.OpError)
        assert sess.run(y, {x: 1.0}) == 1.0


def test_timeout_in_ms_raises_deadline_exceeded_and_session_stays_usable():
    gate = Gate()
    w = wait_gate(gate, name="w")
    with fr.Session() as sess:
        with pytest.raises(fr.errors.DeadlineExceededError, match="_TestWaitGate op 'w'"):
            sess.run(w, options=fr.RunOptions(timeout_in_ms=50))
        assert gate.cancelled == 1
        assert sess.run(fr.constant(1.0)) == 1.0
        gate.open()
        assert sess.run(w, options=fr.RunOptions(timeout_in_ms=10_000)) == 0.0


async def test_arun_timeout_uses_the_trio_clock(autojump_clock):
    gate = Gate()
    w = wait_gate(gate)
    async with fr.Session() as sess:
        t0 = trio.current_time()
        with pytest.raises(fr.errors.DeadlineExceededError, match="Timed out after 5000 ms"):
            await sess.arun(w, options=fr.RunOptions(timeout_in_ms=5000))
        assert trio.current_time() - t0 == pytest.approx(5.0)
        gate.open()
        assert await sess.arun(w) == 0.0


def test_close_cancels_an_in_flight_run_from_another_thread():
    gate = Gate()
    w = wait_gate(gate)
    sess = fr.Session()
    result = []

    def runner():
        try:
            sess.run(w)
        except BaseException as e:
            result.append(e)

    t = threading.Thread(target=runner)
    t.start()
    gate.wait_entered(1)
    sess.close()
    t.join(timeout=10)
    assert not t.is_alive()
    assert isinstance(result[0], fr.errors.CancelledError)
    assert "Session was closed" in result[0].message
    with pytest.raises(RuntimeError, match="closed Session"):
        sess.run(w)
    sess.close()  # idempotent


async def test_close_cancels_an_in_flight_arun():
    gate = Gate()
    w = wait_gate(gate)
    sess = fr.Session()
    errors = []

    async def runner():
        try:
            await sess.arun(w)
        except fr.errors.CancelledError as e:
            errors.append(e)

    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(runner)
            await trio.testing.wait_all_tasks_blocked()
            assert gate.entered == 1
            sess.close()
    assert len(errors) == 1 and gate.cancelled == 1


def test_a_fetched_fed_tensor_comes_back_as_the_fed_array_like_tf1():
    p = fr.placeholder(fr.float32, [])
    with fr.Session() as sess:
        got, computed = sess.run([p, p + 1.0], {p: 3.0})
    assert isinstance(got, np.ndarray) and got.shape == () and got == 3.0
    assert isinstance(computed, np.float32)


# --- feeds and options as a hostile user tries them -------------------------------------


def test_out_of_range_int_feed_is_a_type_error_naming_the_tensor():
    x = fr.placeholder(fr.int32, [], name="x")
    with fr.Session() as sess:
        with pytest.raises(TypeError, match=r"2147483648.*'x:0'.*int64"):
            sess.run(x, {x: 2**31})


def test_infinite_float_into_an_int_placeholder_casts_as_tf1():
    x = fr.placeholder(fr.int32, [], name="x")
    with fr.Session() as sess:
        assert sess.run(x, {x: float("inf")}) == np.iinfo(np.int32).min


def test_nan_into_an_int_placeholder_casts_as_tf1():
    x = fr.placeholder(fr.int32, [2], name="x")
    low = np.iinfo(np.int32).min
    with fr.Session() as sess:
        np.testing.assert_array_equal(sess.run(x, {x: [float("nan"), 1.0]}), [low, 1])
        np.testing.assert_array_equal(sess.run(x, {x: np.array([np.nan, 2.0])}), [low, 2])
        with pytest.raises(ValueError, match=r"Cannot feed value .*'x:0'"):
            sess.run(x, {x: [[1], [1, 2]]})


def test_non_string_into_a_string_placeholder_names_the_tensor():
    s = fr.placeholder(fr.string, [], name="s")
    with fr.Session() as sess:
        with pytest.raises(TypeError, match=r"feed value 5 .*'s:0'"):
            sess.run(s, {s: 5})


def test_a_list_as_feed_dict_is_a_type_error():
    x = fr.placeholder(fr.int32, [], name="x")
    with fr.Session() as sess:
        with pytest.raises(TypeError, match="feed_dict must be a dictionary"):
            sess.run(x, [(x, 1)])


def test_a_huge_allocation_is_resource_exhausted():
    n = fr.placeholder(fr.int64, [2])
    with fr.Session() as sess:
        with pytest.raises(fr.errors.ResourceExhaustedError, match="OOM"):
            sess.run(fr.zeros(n, fr.float64), {n: [2**31, 2**31]})


def _enqueue_once_waited(sess, q, enq):
    """A thread that runs ``enq`` once a dequeue of ``q`` waits (joined by the caller)."""

    def feed():
        ev = threading.Event()
        for _ in range(1000):
            if q.statistics(sess).waiting_dequeuers:
                break
            ev.wait(0.01)
        ev.wait(0.1)  # past a zero or negative deadline, had one been set
        sess.run(enq)

    t = threading.Thread(target=feed)
    t.start()
    return t


def test_negative_timeout_means_no_timeout_and_config_timeout_applies():
    # TF1: timeout_in_ms <= 0 in RunOptions means the session's timeout if 0, none if
    # negative; a run's own nonzero timeout overrides the session's either way.
    q = fr.FIFOQueue(2, fr.float32, shapes=[])
    deq, enq = q.dequeue(), q.enqueue(1.0)
    with fr.Session() as sess:
        t = _enqueue_once_waited(sess, q, enq)
        assert sess.run(deq, options=fr.RunOptions(timeout_in_ms=-1)) == 1.0  # it waited
        t.join(10)
    cfg = fr.ConfigProto(operation_timeout_in_ms=30)
    with fr.Session(config=cfg) as sess:
        with pytest.raises(
            fr.errors.DeadlineExceededError,
            match=r"Timed out after 30 ms \(ConfigProto.operation_timeout_in_ms\)",
        ):
            sess.run(deq)
        for own in (-1, 5000):
            t = _enqueue_once_waited(sess, q, enq)
            assert sess.run(deq, options=fr.RunOptions(timeout_in_ms=own)) == 1.0
            t.join(10)


def test_a_fed_string_array_is_neither_changed_nor_frozen():
    # Feeding encodes str to bytes in a copy: the caller's object array keeps its str.
    with fr.Graph().as_default():
        ph = fr.placeholder(fr.string, [None])
        out = fr.identity(ph)
        fed = np.array(["a", "é"], dtype=object)
        with fr.Session() as sess:
            assert sess.run(out, {ph: fed}).tolist() == [b"a", "é".encode()]
            raw = np.array([b"x", b"y"], dtype=object)
            assert sess.run(out, {ph: raw}).tolist() == [b"x", b"y"]
    assert fed.tolist() == ["a", "é"]
    assert raw.flags.writeable
    raw[0] = b"z"


def test_char_rnn_feeds_its_lstm_state_tuple_back():
    # Char-RNN's sampling loop: feed_dict={model.initial_state: state}, where both are
    # LSTMStateTuples (nests); TF flattens a nested key and its value in parallel.
    cell = fr.nn.rnn_cell.LSTMCell(4)
    x = fr.placeholder(fr.float32, [2, 3])
    initial_state = cell.zero_state(2, fr.float32)
    out, final_state = cell(x, initial_state)
    with fr.Session() as sess:
        sess.run(fr.global_variables_initializer())
        state = sess.run(initial_state)
        for _ in range(2):
            o, state = sess.run([out, final_state], {x: np.ones((2, 3)), initial_state: state})
        assert isinstance(state, fr.nn.rnn_cell.LSTMStateTuple) and o.shape == (2, 4)
        a, b, c = (fr.placeholder(fr.float32, [2], name=n) for n in "abc")
        twice = {(a, (b, c)): (np.ones(2), np.ones(2), np.zeros(2))}  # leaves paired in order
        assert sess.run(a + b + c, twice).tolist() == [2.0, 2.0]
        with pytest.raises(ValueError, match="Key had 2 elements, but value had 1 elements"):
            sess.run(a + b, {(a, b): (np.ones(2),)})
        with pytest.raises(ValueError, match="this key is not unique: .*a:0"):
            sess.run(a + b, {(a, b): (np.ones(2), np.ones(2)), a: np.ones(2)})


def test_an_interactive_session_on_the_default_graph_does_not_nest_it():
    # TF: reset_default_graph() works while an InteractiveSession lives (or was dropped
    # without close()); the session stays the default one, on its own graph.
    sess = fr.InteractiveSession()
    try:
        x = fr.constant(2)
        assert x.eval() == 2
        fr.reset_default_graph()
        assert fr.get_default_session() is sess
        assert fr.get_default_graph() is not sess.graph
    finally:
        sess.close()
    assert fr.get_default_session() is None


def test_an_interactive_session_on_another_graph_makes_it_the_default():
    g = fr.Graph()
    sess = fr.InteractiveSession(graph=g)
    try:
        assert fr.get_default_graph() is g
    finally:
        sess.close()
    assert fr.get_default_graph() is not g


def test_feeding_a_list_nested_thousands_deep_is_a_value_error():
    # TF: numpy's "exceeds the maximum number of dimensions" as a ValueError; the
    # message shows the value cut short, not a RecursionError from printing it.
    v = [1.0]
    for _ in range(5000):
        v = [v]
    with fr.Graph().as_default():
        x = fr.placeholder(fr.float32, name="x")
        with fr.Session() as s:
            with pytest.raises(
                ValueError,
                match=r"Cannot feed value \[+\.\.\.\]+ for Tensor 'x:0'",
            ):
                s.run(x, {x: v})


class _Steps(trio.abc.Instrument):
    """Counts the steps (runs between schedule points) of one task."""

    def __init__(self, task):
        self.task, self.steps = task, 0

    def before_task_step(self, task):
        if task is self.task:
            self.steps += 1


async def test_aruns_that_never_wait_are_not_a_schedule_point_each(monkeypatch):
    # A schedule point costs more than a small run: within one switch interval (made
    # long here), a hundred runs that never wait take none.
    monkeypatch.setattr(fr._core.executor, "turn_seconds", lambda: 60.0)
    x = fr.placeholder(fr.float32, [])
    y = x + 1.0
    async with fr.Session() as sess:
        await sess.arun(y, {x: 1.0})
        steps = _Steps(trio.lowlevel.current_task())
        trio.lowlevel.add_instrument(steps)
        try:
            for _ in range(100):
                assert await sess.arun(y, {x: 1.0}) == 2.0
        finally:
            trio.lowlevel.remove_instrument(steps)
        assert steps.steps <= 2


async def test_a_task_looping_over_runs_that_never_wait_lets_the_others_run():
    # Past a switch interval without one, a run's end is a schedule point: the other
    # task gets its turn and the loop ends.
    y = fr.constant(1.0) + 1.0
    started, done = trio.Event(), []
    async with fr.Session() as sess:

        async def spin():
            started.set()
            while not done:
                await sess.arun(y)

        with trio.fail_after(30):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(spin)
                await started.wait()  # resumes only when spin gives up its turn
                done.append(True)
