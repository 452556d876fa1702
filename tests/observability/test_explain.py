"""Session.explain / fr.explain, each account checked against the plan actually run."""

import json

import numpy as np
import pytest

import flowrt as fr

FULL = fr.RunOptions(trace_level=fr.RunOptions.FULL_TRACE)


def _ran(sess, fetches, feed_dict=None):
    """The op names a traced run of ``fetches`` ran, in order (waits left out)."""
    md = fr.RunMetadata()
    sess.run(fetches, feed_dict, options=FULL, run_metadata=md)
    return [n.node_name for n in md.step_stats.dev_stats[0].node_stats if not n.wait_for]


def test_pruned_plan_lists_steps_in_run_order_with_why_each_runs():
    x = fr.placeholder(fr.float32, [3], name="x")
    a = fr.square(x, name="a")
    fr.negative(x, name="unused")
    b = fr.add(a, 1.0, name="b")
    with fr.control_dependencies([fr.print(a, [a], name="log")]):
        c = fr.identity(b, name="c")
    feed = {x: np.ones(3, np.float32)}
    with fr.Session() as sess:
        e = sess.explain(c, feed)
        d = e.to_dict()
        assert d["cached"] is False
        ran = _ran(sess, c, feed)
        assert [s["op"] for s in d["steps"]] == ran
        assert "unused" not in ran
        why = {s["op"]: s["why"] for s in d["steps"]}
        assert why["c"] == "fetch c:0"
        assert why["a"] == "input of b <- input of c <- fetch c:0"
        assert why["log"] == "control dependency of c <- fetch c:0"
        assert sess.explain(c, feed).to_dict()["cached"] is True
    text = str(e)
    assert "pulled in by: control dependency of c <- fetch c:0" in text
    assert "not cached yet" in text and "straight, non-blocking" in text
    json.dumps(d)


def test_feeds_cut_off_their_producers():
    x = fr.placeholder(fr.float32, [3], name="x")
    a = fr.exp(x, name="a")
    b = fr.sqrt(a, name="b")
    c = fr.add(b, a, name="c")
    with fr.Session() as sess:
        e = sess.explain(c, {b: np.ones(3, np.float32)})
        # x is still needed (by a): feeding b cuts off b alone
        assert [s["op"] for s in e.to_dict()["steps"]] == ["x", "a", "c"]
        (cut,) = e.to_dict()["feeds_cut"]
        assert cut == {"feed": "b:0", "cut_off": ["b"]}
        e2 = sess.explain(c, {a: np.ones(3, np.float32)})
        assert (
            [s["op"] for s in e2.to_dict()["steps"]]
            == _ran(sess, c, {a: np.ones(3, np.float32)})
            == ["b", "c"]
        )
        assert set(e2.to_dict()["feeds_cut"][0]["cut_off"]) == {"x", "a"}
        assert "Feed a:0 cuts off: x, a" in str(e2)


def test_folded_constants_are_listed_and_do_not_run():
    x = fr.placeholder(fr.float32, [2], name="x")
    k = fr.multiply(fr.constant(2.0, name="two"), fr.constant(3.0, name="three"), name="k")
    y = fr.multiply(x, k, name="y")
    with fr.Session() as sess:
        d = sess.explain(y, {x: [1.0, 2.0]}).to_dict()
        assert d["folded"] == ["k"] and set(d["constants"]) == {"two", "three"}
        assert _ran(sess, y, {x: [1.0, 2.0]}) == [s["op"] for s in d["steps"]] == ["y"]


def test_fused_group_and_its_expression():
    x = fr.placeholder(fr.float32, [512, 512], name="x")
    y = fr.tanh(fr.exp(x * 2.0, name="e"), name="t")
    with fr.Session() as sess:
        e = sess.explain(y, {x: np.zeros((512, 512), np.float32)})
        (step,) = e.to_dict()["steps"]
        assert step["op"] == "t" and step["fused"] == ["mul", "e", "t"]
        assert step["expression"] == "Tanh(Exp(Mul(x:0, mul/y:0)))"
        assert _ran(sess, y, {x: np.zeros((512, 512), np.float32)}) == ["t"]
        assert "fused 3 ops: Tanh(Exp(Mul(x:0, mul/y:0)))" in str(e)
        after = sess.explain(y, {x: np.zeros((512, 512), np.float32)}).to_dict()
        assert after["traced"] and after["steps"][0]["time_us"] > 0


def test_blocking_plans_name_their_queues_straight_or_concurrent():
    q1 = fr.FIFOQueue(2, [fr.float32], shapes=[[]], name="q1")
    q2 = fr.FIFOQueue(2, [fr.float32], shapes=[[]], name="q2")
    one = fr.add(q1.dequeue(name="d1"), 1.0, name="one")
    two = fr.add(q1.dequeue(name="e1"), q2.dequeue(name="e2"), name="two")
    with fr.Session() as sess:
        d = sess.explain(one).to_dict()
        assert d["straight"] and d["blocking_plan"]
        assert d["blocking"] == [{"op": "d1", "type": "QueueDequeueV2", "queues": ["q1"]}]
        d2 = sess.explain(two).to_dict()
        assert not d2["straight"] and d2["kind"].startswith("concurrent")
        assert sorted((b["op"], b["queues"][0]) for b in d2["blocking"]) == [
            ("e1", "q1"),
            ("e2", "q2"),
        ]
        sess.run([q1.enqueue([1.0]), q2.enqueue([3.0])])
        assert sess.run(two) == 4.0
        assert sess.explain(two).to_dict()["cached"]
        assert "Blocking op e2 (QueueDequeueV2) touches: q2" in str(sess.explain(two))


def test_shared_resources_with_other_cached_plans():
    v = fr.Variable(1.0, name="v")
    inc = fr.assign_add(v, 1.0, name="inc")
    read = fr.add(v, 0.0, name="read")
    with fr.Session() as sess:
        sess.run(v.initializer)
        sess.run(inc)
        d = sess.explain(read).to_dict()
        shared = {r["resource"]: r for r in d["shared_resources"]}
        assert shared["v"]["plans"] >= 2  # the initializer's plan and inc's
        assert "Stateful resources shared with other cached plans:" in str(sess.explain(read))


def test_to_dot_draws_the_pruned_plan_and_fr_explain_uses_the_default_session():
    x = fr.placeholder(fr.float32, [2], name="x")
    with fr.control_dependencies([fr.no_op(name="first")]):
        y = fr.square(x, name="y")
    sess = fr.Session()
    with sess.as_default():
        dot = fr.explain(y, {x: [1.0, 2.0]}).to_dot()
    assert dot.startswith("digraph plan {") and dot.endswith("}")
    assert '"feed x:0" -> "y";' in dot and '"first" -> "y" [style=dashed];' in dot
    with pytest.raises(ValueError, match="Cannot explain without a session"):
        fr.explain(y, {x: [1.0, 2.0]})
    sess.close()
    with pytest.raises(RuntimeError, match="closed Session"):
        sess.explain(y, {x: [1.0, 2.0]})
