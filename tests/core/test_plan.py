"""Pruning and plan caching: only the needed ops run; one plan per (fetches, feeds,
targets) until the graph grows."""

import threading

import pytest
import trio
from hypothesis import given, settings
from hypothesis import strategies as st

import flowrt as fr
from flowrt._core import plan as plan_module
from flowrt._core.plan import Plan

from ._testops import Counter, count


@pytest.fixture
def plan_builds(monkeypatch):
    """Counts Plan constructions (cache misses)."""
    built = []
    orig = Plan.__init__

    def init(self, *args, **kwargs):
        built.append(args)
        orig(self, *args, **kwargs)

    monkeypatch.setattr(Plan, "__init__", init)
    return built


def test_only_needed_ops_run():
    n = Counter()
    a = count([], n, name="a")
    b = count([a], n, name="b")
    count([a], n, name="unneeded")
    c = count([], n, name="c")
    with fr.control_dependencies([c]):
        d = count([b], n, name="d")
    with fr.Session() as sess:
        sess.run(d)
        assert n.calls == {"a": 1, "b": 1, "c": 1, "d": 1}
        sess.run([b, b, "b:0"])
        assert n.calls == {"a": 2, "b": 2, "c": 1, "d": 1}
        sess.run(c.op)
        assert n.calls["c"] == 2 and "unneeded" not in n.calls


def test_plan_cache_hits_and_is_invalidated_when_the_graph_grows(plan_builds):
    n = Counter()
    x = fr.placeholder(fr.float32, name="x")
    a = count([x], n, name="a")
    b = count([a], n, name="b")
    with fr.Session() as sess:
        for _ in range(3):
            sess.run(b, {x: 1.0})
        assert len(plan_builds) == 1
        sess.run([b], {x: 1.0})
        sess.run("b:0", {x: 1.0})
        assert len(plan_builds) == 1  # same tensors, feeds and targets: same plan
        sess.run(b, {a: 1.0})  # other feeds: another plan
        sess.run([b, a.op], {x: 1.0})  # other targets: another plan
        builds = len(plan_builds)
        sess.run(b, {a: 1.0})
        sess.run([b, a.op], {x: 1.0})
        assert len(plan_builds) == builds
        count([], n, name="new")  # the graph grows: cached plans are dropped
        sess.run(b, {x: 1.0})
        assert len(plan_builds) == builds + 1
        sess.run(b, {x: 1.0})
        assert len(plan_builds) == builds + 1
    assert n.calls["b"] == 11


def test_late_control_input_invalidates_and_orders():
    n = Counter()
    a = count([], n, name="a")
    b = count([], n, name="b")
    with fr.Session() as sess:
        sess.run(a)
        assert n.calls == {"a": 1}
        a.op._add_control_input(b.op)  # b was created after a
        sess.run(a)
        assert n.calls == {"a": 2, "b": 1}
        p = Plan([a], [], [])
        assert [op.name for op in p.ops] == ["b", "a"]


def test_prune_reports_cycles():
    n = Counter()
    a = count([], n, name="a")
    b = count([a], n, name="b")
    a.op._add_control_input(b.op)
    with pytest.raises(ValueError, match="cycle"):
        Plan([b], [], [])


# --- random DAGs ------------------------------------------------------------------------------


@st.composite
def dags(draw):
    n = draw(st.integers(1, 14))
    data, ctrl = [], []
    for i in range(n):
        data.append(draw(st.lists(st.integers(0, i - 1), max_size=3)) if i else [])
        ctrl.append(draw(st.lists(st.integers(0, i - 1), max_size=2, unique=True)) if i else [])
    idx = st.integers(0, n - 1)
    fetches = draw(st.lists(idx, max_size=3))
    targets = draw(st.lists(idx, max_size=2))
    feeds = draw(st.lists(idx, max_size=3, unique=True))
    late = draw(st.lists(st.tuples(idx, idx), max_size=2))  # control inputs added later
    return n, data, ctrl, fetches, targets, feeds, late


def _needed(data, ctrl, fetches, targets, feeds):
    """The reference: ancestors of fetched ops (unless the tensor is fed) and targets,
    through data edges not cut at fed tensors and through every control edge."""
    stack = [i for i in fetches if i not in feeds] + list(targets)
    seen = set()
    while stack:
        i = stack.pop()
        if i in seen:
            continue
        seen.add(i)
        stack += [j for j in data[i] if j not in feeds]
        stack += ctrl[i]
    return seen


@settings(max_examples=150, deadline=None)
@given(dags())
def test_random_dag_plans_hold_exactly_the_needed_ancestors(dag):
    n, data, ctrl, fetches, targets, feeds, late = dag
    with fr.Graph().as_default() as g:
        counter = Counter()
        ts = []
        for i in range(n):
            with fr.control_dependencies([ts[j] for j in ctrl[i]]):
                ts.append(count([ts[j] for j in data[i]], counter, name="n%d" % i))
        # as in TF, control_dependencies skips ops that are already data inputs
        ctrl = [[j for j in c if j not in d] for c, d in zip(ctrl, data)]
        assert all(
            [c.name for c in t.op.control_inputs] == ["n%d" % j for j in ctrl[i]]
            for i, t in enumerate(ts)
        )
        for src, dst in late:
            if src < dst:  # keep it acyclic; the later op gains a control input
                ts[dst].op._add_control_input(ts[src].op)
                ctrl[dst] = sorted(set(ctrl[dst]) | {src})
        fetch_t = [ts[i] for i in fetches]
        target_o = [ts[i].op for i in targets]
        feed_t = [ts[i] for i in feeds]
        plan = Plan(fetch_t, target_o, feed_t)
        want = _needed(data, ctrl, fetches, targets, set(feeds))
        assert {op.name for op in plan.ops} == {"n%d" % i for i in want}
        assert len(plan.ops) == len(want)
        pos = {op: k for k, op in enumerate(plan.ops)}
        for op in plan.ops:  # topological: producers and control inputs come first
            for t in op.inputs:
                if t not in feed_t:
                    assert pos[t.op] < pos[op]
            for c in op.control_inputs:
                assert pos[c] < pos[op]
        with fr.Session(graph=g) as sess:
            sess.run([fetch_t, target_o], {t: 1.0 for t in feed_t})
        assert counter.calls == {"n%d" % i: 1 for i in want}


def test_a_plan_built_from_a_graph_that_changed_meanwhile_serves_no_later_run(monkeypatch):
    # An arun (a trio loop on another thread) builds its plan while this thread adds a
    # control input to the fetched op and runs it: the arun's plan, built from the old
    # graph, must not replace the new one in the cache.
    x = fr.placeholder(fr.float32, [], name="x")
    y = fr.identity(x, name="y")
    v = fr.Variable(0.0, name="v")
    bump = fr.assign_add(v, 1.0)
    inside, go = threading.Event(), threading.Event()
    prune = plan_module.prune

    def slow_prune(*args):
        ops = prune(*args)
        if threading.current_thread().name == "arun":
            inside.set()
            go.wait(10)
        return ops

    monkeypatch.setattr(plan_module, "prune", slow_prune)
    with fr.Session() as sess:
        sess.run(v.initializer)

        async def arun():
            with trio.fail_after(10):
                return await sess.arun(y, {x: 1.0})

        got = []
        t = threading.Thread(target=lambda: got.append(trio.run(arun)), name="arun")
        t.start()
        assert inside.wait(10)
        y.op._add_control_input(bump.op)
        sess.run(y, {x: 1.0})  # a plan with the bump
        go.set()
        t.join(10)
        assert got == [1.0]
        assert sess.run(v) == 1.0
        sess.run(y, {x: 1.0})
        assert sess.run(v) == 2.0
