"""Op construction (flowrt/ops/common.py): ops go into their inputs' graph, as in TF1."""

import pathlib
import re

import numpy as np
import pytest

import flowrt as fr
from flowrt.ops.common import graph_of, make_op


@pytest.fixture
def other():
    """A graph that is not the default, holding a placeholder ``x`` of shape [2, 3]."""
    g = fr.Graph()
    with g.as_default():
        x = fr.placeholder(fr.float32, [2, 3], name="x")
    return g, x


def test_ops_on_a_tensor_of_another_graph_build_in_that_graph(other):
    g, x = other
    default = fr.get_default_graph()
    before = len(default.get_operations())
    built = [
        fr.exp(x),
        x + 1.0,
        2.0 * x,
        fr.add(x, 2.0),
        fr.maximum(x, 0.5),
        -x,
        abs(x),
        fr.reduce_sum(x),
        fr.reduce_mean(x, axis=1),
        fr.argmax(x, 1),
        fr.clip_by_value(x, 0.0, 1.0),
        fr.matmul(x, np.ones((3, 2), np.float32)),
        fr.truediv(x, 4.0),
        x[0],
    ]
    assert all(t.graph is g for t in built)
    assert fr.get_default_graph() is default
    assert len(default.get_operations()) == before  # nothing leaked into the default
    # Names come from the op's own graph, Python operands become constants there.
    assert built[1].name == "add:0" and built[1].op.inputs[1].name == "add/y:0"
    xv = np.arange(6, dtype=np.float32).reshape(2, 3)
    with fr.Session(graph=g) as sess:
        e, a, s, c = sess.run([built[0], built[1], built[7], built[10]], {x: xv})
    np.testing.assert_allclose(e, np.exp(xv), rtol=1e-6)
    np.testing.assert_array_equal(a, xv + 1)
    assert s == xv.sum()
    np.testing.assert_array_equal(c, np.clip(xv, 0, 1))


def test_make_op_uses_the_inputs_graph(other):
    g, x = other
    op = make_op("Neg", [x])
    assert op.graph is g and op.name == "Neg"
    assert graph_of([3.0, [x]]) is g
    assert graph_of([1.0]) is fr.get_default_graph()


def test_inputs_from_two_graphs_are_rejected(other):
    g, x = other
    y = fr.constant(1.0, name="y")  # in the default graph
    with pytest.raises(
        ValueError,
        match=r'Tensor\("y:0".*must be from the same graph as '
        r'Tensor\("x:0"',
    ):
        x + y
    with pytest.raises(ValueError, match="must be from the same graph"):
        make_op("AddV2", [x, y])


def test_no_definitions_hidden_from_grep():
    # Public functions are written out (``exp = _unary("Exp", "exp")``), never assigned
    # through globals() in a loop.
    root = pathlib.Path(fr.__file__).parent
    offenders = [
        str(p.relative_to(root))
        for p in root.rglob("*.py")
        if re.search(r"globals\(\)\s*\[", p.read_text())
    ]
    assert offenders == []


def test_inside_a_traced_function_ops_go_into_the_function_graph():
    # TF's rule: while a function is traced, its graph is used whatever the inputs, so an
    # outer-graph tensor is an error naming it, not an op built silently outside.
    outer = fr.constant(2.0, name="outer")

    @fr.function
    def f(x):
        return fr.exp(outer) * x

    with pytest.raises(
        ValueError,
        match=r"Exp op 'Exp': input 0 \(outer:0\) is from a "
        r"different graph",
    ):
        f(fr.constant(1.0))


def test_candidate_sampling_embedding_and_indexed_slices_build_in_their_inputs_graph():
    # Issue 11: these wrappers open their own scopes (nn_ops._OwnScope) and convert
    # Python arguments; every op and constant must go into the inputs' graph.
    g = fr.Graph()
    with g.as_default():
        emb = fr.placeholder(fr.float32, [10, 3], name="emb")
        shard = fr.placeholder(fr.float32, [5, 3], name="shard")
        x = fr.placeholder(fr.float32, [4, 3], name="x")
        bias = fr.placeholder(fr.float32, [10], name="bias")
        labels = fr.placeholder(fr.int64, [4, 1], name="labels")
        ids = fr.placeholder(fr.int32, [4], name="ids")
    default = fr.get_default_graph()
    before = len(default.get_operations())
    sv = fr.nn.log_uniform_candidate_sampler(labels, 1, 3, True, 10, seed=1)
    built = {
        "log_uniform": sv.sampled_candidates,
        "uniform": fr.nn.uniform_candidate_sampler(labels, 1, 3, True, 10)[0],
        "fixed_unigram": fr.nn.fixed_unigram_candidate_sampler(
            labels, 1, 3, True, 10, unigrams=list(range(1, 11))
        )[0],
        "hits": fr.nn.compute_accidental_hits(labels, sv.sampled_candidates, 1)[0],
        "lookup": fr.nn.embedding_lookup(emb, ids),
        "lookup_python_ids": fr.nn.embedding_lookup(emb, [1, 2]),
        "lookup_max_norm": fr.nn.embedding_lookup(emb, ids, max_norm=1.0),
        "lookup_sharded": fr.nn.embedding_lookup([shard, shard], ids),
        "nce": fr.nn.nce_loss(emb, bias, labels, x, 3, 10),
        "nce_sampled_values": fr.nn.nce_loss(emb, bias, labels, x, 3, 10, sampled_values=sv),
        "sampled_softmax": fr.nn.sampled_softmax_loss(emb, bias, labels, x, 3, 10),
        "segment_sum": fr.unsorted_segment_sum(x, ids, 5),
    }
    grads = fr.gradients(fr.reduce_sum(built["nce"]), [emb, bias, x])
    built["indexed_slices_dense"] = fr.convert_to_tensor(grads[0])
    wrong = [k for k, t in built.items() if t.graph is not g]
    assert wrong == []
    assert all(t.graph is g for t in grads)
    assert fr.get_default_graph() is default
    assert len(default.get_operations()) == before  # nothing leaked into the default
    r = np.random.default_rng(0)
    feed = {
        emb: r.standard_normal((10, 3)).astype(np.float32),
        shard: r.standard_normal((5, 3)).astype(np.float32),
        x: r.standard_normal((4, 3)).astype(np.float32),
        bias: np.zeros(10, np.float32),
        labels: np.array([[1], [2], [3], [9]]),
        ids: np.array([0, 4, 2, 4], np.int32),
    }
    with fr.Session(graph=g) as sess:
        out = sess.run(built, feed)
    np.testing.assert_array_equal(out["lookup"], feed[emb][[0, 4, 2, 4]])
    np.testing.assert_array_equal(out["lookup_python_ids"], feed[emb][[1, 2]])
    assert out["nce"].shape == (4,) and out["indexed_slices_dense"].shape == (10, 3)
