"""Optional cross-check: every cell and driver against TensorFlow's own (TF1 control
flow, the legacy cells), values and gradients for the same weights."""

import types
import warnings

import numpy as np
import pytest

import flowrt as fr

B, T, D, H = 3, 4, 3, 4
RNG = np.random.default_rng(0)
X = RNG.standard_normal((B, T, D))
LENS = np.array([4, 2, 1], np.int32)


def _flat(s):
    return [y for c in s for y in _flat(c)] if isinstance(s, (list, tuple)) else [s]


def _build(m, nn):
    rc = nn.rnn_cell
    x = m.placeholder(m.float64, [B, T, D])
    outs = []
    cells = {
        "basic_rnn": lambda: rc.BasicRNNCell(H),
        "basic_lstm": lambda: rc.BasicLSTMCell(H, forget_bias=0.7),
        "basic_lstm_concat": lambda: rc.BasicLSTMCell(H, state_is_tuple=False),
        "lstm": lambda: rc.LSTMCell(H, num_proj=2, use_peepholes=True, cell_clip=0.5),
        "gru": lambda: rc.GRUCell(H),
        "multi": lambda: rc.MultiRNNCell([rc.BasicLSTMCell(H), rc.GRUCell(H)]),
        "lstm_concat": lambda: rc.LSTMCell(H, num_proj=2, state_is_tuple=False),
        "multi_concat": lambda: rc.MultiRNNCell(
            [rc.BasicRNNCell(H), rc.GRUCell(2)], state_is_tuple=False
        ),
    }
    for k, make in cells.items():
        with m.variable_scope(k):
            o, s = nn.dynamic_rnn(make(), x, sequence_length=LENS, dtype=m.float64)
            outs += [o] + _flat(s)
    with m.variable_scope("static"):
        o, s = nn.static_rnn(
            rc.BasicLSTMCell(H), m.unstack(x, axis=1), sequence_length=LENS, dtype=m.float64
        )
        outs += o + _flat(s)
    with m.variable_scope("static_bi"):
        o, sf, sb = nn.static_bidirectional_rnn(
            rc.BasicRNNCell(H),
            rc.GRUCell(H),
            m.unstack(x, axis=1),
            sequence_length=LENS,
            dtype=m.float64,
        )
        outs += o + [sf, sb]
    with m.variable_scope("static_bi_nolen"):
        o, sf, sb = nn.static_bidirectional_rnn(
            rc.BasicRNNCell(H), rc.BasicRNNCell(H), m.unstack(x, axis=1), dtype=m.float64
        )
        outs += o + [sf, sb]
    (fw, bw), states = nn.bidirectional_dynamic_rnn(
        rc.GRUCell(H), rc.BasicLSTMCell(H), x, sequence_length=LENS, dtype=m.float64
    )
    outs += [fw, bw] + _flat(states)
    loss = m.add_n([m.reduce_sum(o * o) for o in outs])
    vs = m.trainable_variables()
    names = [v.op.name for v in vs]
    return x, names, vs, outs + m.gradients(loss, [x] + vs)


def _run(m, nn, graph):
    with graph.as_default():
        x, names, vs, fetch = _build(m, nn)
        with m.Session() as sess:
            sess.run(m.global_variables_initializer())
            rng = np.random.default_rng(1)
            for v in vs:
                v.load(rng.uniform(-0.5, 0.5, v.shape.as_list()), sess)
            return names, sess.run(fetch, {x: X})


def test_cells_and_drivers_match_tensorflow():
    tf = pytest.importorskip("tensorflow.compat.v1")
    impl = pytest.importorskip("tensorflow.python.keras.layers.legacy_rnn.rnn_cell_impl")
    from tensorflow.python.ops import rnn

    ours_names, ours = _run(fr, fr.nn, fr.Graph())
    nn = types.SimpleNamespace(
        rnn_cell=impl,
        dynamic_rnn=rnn.dynamic_rnn,
        static_rnn=rnn.static_rnn,
        static_bidirectional_rnn=rnn.static_bidirectional_rnn,
        bidirectional_dynamic_rnn=rnn.bidirectional_dynamic_rnn,
    )
    with tf.Graph().as_default() as g:
        tf.disable_control_flow_v2()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # TF's deprecation notices of the cells
                theirs_names, theirs = _run(tf, nn, g)
        finally:
            tf.enable_control_flow_v2()
    assert ours_names == theirs_names
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
