"""Session.partial_run, _make_callable_from_options and RunMetadata.partition_graphs as
TF1's; each literal message and value was printed by TF 2.21 for the same program."""

import numpy as np
import pytest

import flowrt as fr
from flowrt.session_options import CallableOptions


def _graph():
    a = fr.placeholder(fr.float32, shape=[], name="a")
    b = fr.placeholder(fr.float32, shape=[], name="b")
    c = fr.placeholder(fr.float32, shape=[], name="c")
    r1 = fr.add(a, b, name="r1")
    r2 = fr.multiply(r1, c, name="r2")
    return a, b, c, r1, r2


def test_partial_run_feeds_and_fetches_over_several_calls():
    a, b, c, r1, r2 = _graph()
    with fr.Session() as sess:
        h = sess.partial_run_setup([r1, r2], [a, b, c])
        assert isinstance(h, str)
        res = sess.partial_run(h, r1, feed_dict={a: 1, b: 2})
        assert res == 3.0
        assert sess.partial_run(h, r2, feed_dict={c: res}) == 9.0
        h = sess.partial_run_setup([r1, r2], [a, b, c])
        assert sess.partial_run(h, {"x": r1}, {"a:0": 1, b: 4}) == {"x": 5.0}
        assert sess.partial_run(h, [r2], {c: 2}) == [10.0]
        h = sess.partial_run_setup(r2, [a, b, c])
        assert sess.partial_run(h, [], {a: 1, b: 2}) == []
        assert sess.partial_run(h, r2, {c: 3}) == 9.0


def test_each_op_of_a_partial_run_runs_once():
    a, b, c, r1, r2 = _graph()
    v = fr.Variable(0.0)
    inc = fr.assign_add(v, 1.0)
    r3 = r1 + inc
    with fr.Session() as sess:
        sess.run(v.initializer)
        h = sess.partial_run_setup([r3, r2, inc], [a, b, c])
        assert sess.partial_run(h, [r3, inc], {a: 1, b: 2}) == [4.0, 1.0]
        assert sess.partial_run(h, [r2], {c: 3}) == [9.0]
        assert sess.run(v) == 1.0  # TF 2.21: inc ran once
        # An op that needs no feed runs at once, as TF's executor runs it.
        sess.partial_run_setup([inc, r2], [a, b, c])
        assert sess.run(v) == 2.0


def test_partial_run_errors_as_tf():
    a, b, c, r1, r2 = _graph()
    other = r1 * 2.0
    with fr.Session() as sess:
        h = sess.partial_run_setup([r1, r2], [a, b, c])
        with pytest.raises(
            fr.errors.InvalidArgumentError,
            match="The fetch %s was not specified in partial_run_setup." % other.name,
        ):
            sess.partial_run(h, other, {a: 1, b: 2})
        with pytest.raises(
            fr.errors.InvalidArgumentError,
            match="The feed r1:0 was not specified in partial_run_setup.",
        ):
            sess.partial_run(h, r2, {r1: 1})
        with pytest.raises(
            fr.errors.InvalidArgumentError,
            match="Fetch a:0 can't be computed from the feeds that have been fed so far.",
        ):
            sess.partial_run(h, r2, {c: 2})
        assert sess.partial_run(h, r1, {a: 1, b: 2}) == 3.0  # the failed call fed nothing
        with pytest.raises(
            fr.errors.InvalidArgumentError, match="The feed a:0 has already been fed."
        ):
            sess.partial_run(h, r2, {a: 1, c: 2})
        with pytest.raises(
            fr.errors.InvalidArgumentError, match="The fetch r1:0 has already been fetched."
        ):
            sess.partial_run(h, r1, {c: 2})
        assert sess.partial_run(h, r2, {c: 2}) == 6.0
        with pytest.raises(RuntimeError, match=r"partial_run\(\) requires empty `target_list`"):
            sess.partial_run(sess.partial_run_setup([r1.op], [a, b]), r1.op, {a: 1, b: 2})
        with pytest.raises(
            fr.errors.InvalidArgumentError, match="Must run 'setup' before performing partial runs!"
        ):
            sess.partial_run("foo", r1, {a: 1, b: 2})
    with pytest.raises(RuntimeError, match="closed Session"):
        sess.partial_run(h, r1)


def test_make_callable_from_options_feeds_fetches_and_targets_by_name():
    x = fr.placeholder(fr.float32, [None], name="x")
    v = fr.Variable(1.0, name="v")
    fr.multiply(x, 2.0, name="y")
    inc = fr.assign_add(v, 1.0, name="inc")
    opts = CallableOptions()
    opts.feed.append("x:0")
    opts.fetch.append("y:0")
    opts.target.append(inc.op.name)
    with fr.Session() as sess:
        sess.run(v.initializer)
        f = sess._make_callable_from_options(opts)
        got = f(np.array([1.0, 2.0], np.float32))
        assert isinstance(got, list) and got[0].tolist() == [2.0, 4.0]
        assert sess.run(v) == 2.0
        with pytest.raises(
            fr.errors.InvalidArgumentError, match="Expected 1 feed tensors, but got 0"
        ):
            f()
        traced = CallableOptions(
            feed=["x:0"],
            fetch=["y:0"],
            run_options=fr.RunOptions(trace_level=fr.RunOptions.FULL_TRACE),
        )
        md = fr.RunMetadata()
        sess._make_callable_from_options(traced)([1.0], run_metadata=md)
        assert [s.node_name for s in md.step_stats.dev_stats[0].node_stats] == ["y"]


def test_run_metadata_partition_graphs():
    x = fr.placeholder(fr.float32, [None], name="x")
    y = fr.multiply(x, 2.0, name="y")
    fr.negative(y, name="unused")
    with fr.Session() as sess:
        md = fr.RunMetadata()
        opts = fr.RunOptions(output_partition_graphs=True)
        assert sess.run(y, {x: [1.0]}, options=opts, run_metadata=md).tolist() == [2.0]
        # TF 2.21: one partition, [Const, _Arg, Mul, _Retval] (flowrt keeps the feed as is)
        (part,) = md.partition_graphs
        assert sorted(n.op for n in part.node) == ["Const", "Mul"]
        md = fr.RunMetadata()
        sess.run(y, {x: [1.0]}, run_metadata=md)
        assert len(md.partition_graphs) == 0
