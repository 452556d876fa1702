"""fr.nn.rnn_cell and the RNN drivers: TF1's variable names and shapes, values against a
NumPy reference of each cell, sequence_length masking, time_major, bidirectional
reversal, errors, and a small sequence model whose loss falls."""

import numpy as np
import pytest

import flowrt as fr

rc = fr.nn.rnn_cell
B, T, D, H = 3, 4, 2, 3
RNG = np.random.default_rng(5)
X = RNG.standard_normal((B, T, D))
LENS = np.array([4, 1, 2], np.int32)


def _sig(x):
    return 1 / (1 + np.exp(-x))


def _np_step(kind, w, x, state, forget_bias=1.0):
    """One step of a TF1 cell in NumPy, from the cell's variable values ``w``."""
    if kind == "rnn":
        h = np.tanh(np.concatenate([x, state], 1) @ w["kernel"] + w["bias"])
        return h, h
    if kind == "gru":
        gates = _sig(np.concatenate([x, state], 1) @ w["gates/kernel"] + w["gates/bias"])
        r, u = np.split(gates, 2, axis=1)
        c = np.tanh(np.concatenate([x, r * state], 1) @ w["candidate/kernel"] + w["candidate/bias"])
        h = u * state + (1 - u) * c
        return h, h
    c, h = state
    i, j, f, o = np.split(np.concatenate([x, h], 1) @ w["kernel"] + w["bias"], 4, axis=1)
    c = c * _sig(f + forget_bias) + _sig(i) * np.tanh(j)
    h = np.tanh(c) * _sig(o)
    return h, (c, h)


def _np_rnn(kind, w, xs, lens=None, forget_bias=1.0):
    zero = np.zeros((xs.shape[0], H))
    state = (zero, zero) if kind == "lstm" else zero
    outs = []
    for t in range(xs.shape[1]):
        out, new = _np_step(kind, w, xs[:, t], state, forget_bias)
        if lens is not None:
            keep = (t < lens)[:, None]
            out = np.where(keep, out, 0.0)
            if kind == "lstm":
                new = tuple(np.where(keep, n, s) for n, s in zip(new, state))
            else:
                new = np.where(keep, new, state)
        outs.append(out)
        state = new
    return np.stack(outs, 1), state


def _weights(sess, prefix):
    vs = [v for v in fr.global_variables() if v.op.name.startswith(prefix + "/")]
    return {v.op.name[len(prefix) + 1 :]: sess.run(v) for v in vs}


CELLS = [
    ("rnn", lambda: rc.BasicRNNCell(H), "basic_rnn_cell"),
    ("gru", lambda: rc.GRUCell(H), "gru_cell"),
    ("lstm", lambda: rc.BasicLSTMCell(H, forget_bias=0.5), "basic_lstm_cell"),
]


@pytest.mark.parametrize("kind, make, cell_name", CELLS, ids=[c[0] for c in CELLS])
def test_dynamic_rnn_matches_numpy_with_sequence_length(kind, make, cell_name):
    with fr.Graph().as_default():
        x = fr.placeholder(fr.float64, [B, T, D])
        out, state = fr.nn.dynamic_rnn(make(), x, sequence_length=LENS, dtype=fr.float64)
        assert out.shape.as_list() == [B, T, H]
        with fr.Session() as sess:
            sess.run(fr.global_variables_initializer())
            w = _weights(sess, "rnn/" + cell_name)
            got_out, got_state = sess.run([out, state], {x: X})
    fb = 0.5 if kind == "lstm" else 1.0
    want_out, want_state = _np_rnn(kind, w, X, LENS, fb)
    np.testing.assert_allclose(got_out, want_out, rtol=1e-12, atol=1e-12)
    if kind == "lstm":
        assert isinstance(got_state, rc.LSTMStateTuple)
    np.testing.assert_allclose(np.asarray(got_state), np.asarray(want_state), rtol=1e-12)
    assert not got_out[1, 1:].any() and not got_out[2, 2:].any()  # zeros past each length


def test_variable_names_and_shapes_are_tf1s():
    with fr.Graph().as_default():
        x = fr.placeholder(fr.float32, [B, T, D])
        fr.nn.dynamic_rnn(rc.BasicLSTMCell(H), x, dtype=fr.float32)
        with fr.variable_scope("proj"):
            fr.nn.dynamic_rnn(rc.LSTMCell(H, num_proj=2, use_peepholes=True), x, dtype=fr.float32)
        with fr.variable_scope("gru"):
            fr.nn.dynamic_rnn(rc.GRUCell(H), x, dtype=fr.float32)
        with fr.variable_scope("multi"):
            cells = [rc.BasicLSTMCell(H), rc.BasicRNNCell(H)]
            fr.nn.dynamic_rnn(rc.MultiRNNCell(cells), x, dtype=fr.float32)
        with fr.variable_scope("static"):
            fr.nn.static_rnn(rc.BasicRNNCell(H), fr.unstack(x, axis=1), dtype=fr.float32)
        fr.nn.bidirectional_dynamic_rnn(rc.GRUCell(H), rc.GRUCell(H), x, dtype=fr.float32)
        got = {v.op.name: v.shape.as_list() for v in fr.trainable_variables()}
    assert got == {
        "rnn/basic_lstm_cell/kernel": [D + H, 4 * H],
        "rnn/basic_lstm_cell/bias": [4 * H],
        "proj/rnn/lstm_cell/kernel": [D + 2, 4 * H],
        "proj/rnn/lstm_cell/bias": [4 * H],
        "proj/rnn/lstm_cell/w_f_diag": [H],
        "proj/rnn/lstm_cell/w_i_diag": [H],
        "proj/rnn/lstm_cell/w_o_diag": [H],
        "proj/rnn/lstm_cell/projection/kernel": [H, 2],
        "gru/rnn/gru_cell/gates/kernel": [D + H, 2 * H],
        "gru/rnn/gru_cell/gates/bias": [2 * H],
        "gru/rnn/gru_cell/candidate/kernel": [D + H, H],
        "gru/rnn/gru_cell/candidate/bias": [H],
        "multi/rnn/multi_rnn_cell/cell_0/basic_lstm_cell/kernel": [D + H, 4 * H],
        "multi/rnn/multi_rnn_cell/cell_0/basic_lstm_cell/bias": [4 * H],
        "multi/rnn/multi_rnn_cell/cell_1/basic_rnn_cell/kernel": [2 * H, H],
        "multi/rnn/multi_rnn_cell/cell_1/basic_rnn_cell/bias": [H],
        "static/rnn/basic_rnn_cell/kernel": [D + H, H],
        "static/rnn/basic_rnn_cell/bias": [H],
        "bidirectional_rnn/fw/gru_cell/gates/kernel": [D + H, 2 * H],
        "bidirectional_rnn/fw/gru_cell/gates/bias": [2 * H],
        "bidirectional_rnn/fw/gru_cell/candidate/kernel": [D + H, H],
        "bidirectional_rnn/fw/gru_cell/candidate/bias": [H],
        "bidirectional_rnn/bw/gru_cell/gates/kernel": [D + H, 2 * H],
        "bidirectional_rnn/bw/gru_cell/gates/bias": [2 * H],
        "bidirectional_rnn/bw/gru_cell/candidate/kernel": [D + H, H],
        "bidirectional_rnn/bw/gru_cell/candidate/bias": [H],
    }


def test_sizes_zero_state_and_non_tuple_state():
    lstm = rc.BasicLSTMCell(4)
    assert lstm.state_size == rc.LSTMStateTuple(4, 4) and lstm.output_size == 4
    assert rc.BasicLSTMCell(4, state_is_tuple=False).state_size == 8
    assert rc.LSTMCell(4, num_proj=2).state_size == (4, 2)
    assert rc.LSTMCell(4, num_proj=2).output_size == 2
    multi = rc.MultiRNNCell([rc.GRUCell(2), rc.BasicLSTMCell(3)])
    assert multi.state_size == (2, rc.LSTMStateTuple(3, 3)) and multi.output_size == 3
    with fr.Graph().as_default():
        z = multi.zero_state(5, fr.float32)
        assert z[0].shape.as_list() == [5, 2] and z[1].c.shape.as_list() == [5, 3]
        assert z[1].dtype == fr.float32
        x = fr.placeholder(fr.float64, [B, T, D])
        cell = rc.BasicLSTMCell(H, state_is_tuple=False)
        out, state = fr.nn.dynamic_rnn(cell, x, dtype=fr.float64)
        assert state.shape.as_list() == [B, 2 * H]
        with fr.Session() as sess:
            sess.run(fr.global_variables_initializer())
            w = _weights(sess, "rnn/basic_lstm_cell")
            got_out, got_state = sess.run([out, state], {x: X})
    want_out, (c, h) = _np_rnn("lstm", w, X)
    np.testing.assert_allclose(got_out, want_out, rtol=1e-12)
    np.testing.assert_allclose(got_state, np.concatenate([c, h], 1), rtol=1e-12)


def test_static_rnn_time_major_and_initial_state_agree_with_dynamic():
    with fr.Graph().as_default():
        x = fr.placeholder(fr.float64, [B, T, D])
        h0 = fr.constant(RNG.standard_normal((B, H)))
        cell = rc.GRUCell(H)
        dyn, s_dyn = fr.nn.dynamic_rnn(
            cell, fr.transpose(x, [1, 0, 2]), initial_state=h0, time_major=True
        )
        outs, s_st = fr.nn.static_rnn(cell, fr.unstack(x, axis=1), initial_state=h0)
        assert len(outs) == T and dyn.shape.as_list() == [T, B, H]
        with fr.Session() as sess:
            sess.run(fr.global_variables_initializer())
            a, b, c, d = sess.run([dyn, fr.stack(outs), s_dyn, s_st], {x: X})
    np.testing.assert_allclose(a, b, rtol=1e-12)
    np.testing.assert_allclose(c, d, rtol=1e-12)


def test_bidirectional_reverses_each_row_within_its_length():
    with fr.Graph().as_default():
        x = fr.placeholder(fr.float64, [B, T, D])
        (fw, bw), (sf, sb) = fr.nn.bidirectional_dynamic_rnn(
            rc.BasicRNNCell(H), rc.BasicRNNCell(H), x, sequence_length=LENS, dtype=fr.float64
        )
        with fr.Session() as sess:
            sess.run(fr.global_variables_initializer())
            wb = _weights(sess, "bidirectional_rnn/bw/basic_rnn_cell")
            got_bw, got_sb = sess.run([bw, sb], {x: X})
    rev = np.array([np.concatenate([X[b, : LENS[b]][::-1], X[b, LENS[b] :]]) for b in range(B)])
    out, state = _np_rnn("rnn", wb, rev, LENS)
    out = np.array([np.concatenate([out[b, : LENS[b]][::-1], out[b, LENS[b] :]]) for b in range(B)])
    np.testing.assert_allclose(got_bw, out, rtol=1e-12)
    np.testing.assert_allclose(got_sb, state, rtol=1e-12)


def test_dropout_wrapper_keeps_names_and_drops():
    with fr.Graph().as_default():
        x = fr.ones([200, 1, 2])
        cell = rc.DropoutWrapper(rc.BasicRNNCell(50), output_keep_prob=0.5, seed=3)
        out, _ = fr.nn.dynamic_rnn(cell, x, dtype=fr.float32)
        assert [v.op.name for v in fr.trainable_variables()] == [
            "rnn/basic_rnn_cell/kernel",
            "rnn/basic_rnn_cell/bias",
        ]
        with fr.Session() as sess:
            sess.run(fr.global_variables_initializer())
            o = sess.run(out)
    frac = (o == 0).mean()
    assert 0.4 < frac < 0.6
    with pytest.raises(ValueError, match="Parameter output_keep_prob must be between 0 and 1"):
        rc.DropoutWrapper(rc.GRUCell(2), output_keep_prob=1.5)


def test_errors():
    with fr.Graph().as_default():
        x = fr.placeholder(fr.float32, [B, T, D])
        with pytest.raises(ValueError, match="^If there is no initial_state, you must give"):
            fr.nn.dynamic_rnn(rc.GRUCell(H), x)
        with pytest.raises(TypeError, match="^cell must be an instance of RNNCell"):
            fr.nn.dynamic_rnn(object(), x, dtype=fr.float32)
        with pytest.raises(ValueError, match="sequence_length must be a vector"):
            fr.nn.dynamic_rnn(rc.GRUCell(H), x, sequence_length=[[1]], dtype=fr.float32)
        with pytest.raises(ValueError, match="^Must specify at least one cell"):
            rc.MultiRNNCell([])


def test_small_sequence_model_trains():
    # Predict the running sum's sign of a sequence: loss must fall.
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((32, 6, 1)).astype(np.float32)
    ys = (np.cumsum(xs, 1)[:, -1, 0] > 0).astype(np.float32)[:, None]
    with fr.Graph().as_default():
        fr.set_random_seed(1)
        x = fr.placeholder(fr.float32, [None, 6, 1])
        y = fr.placeholder(fr.float32, [None, 1])
        _, state = fr.nn.dynamic_rnn(rc.BasicLSTMCell(8), x, dtype=fr.float32)
        logits = fr.layers.dense(state.h, 1)
        loss = fr.reduce_mean(fr.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=logits))
        train = fr.train.AdamOptimizer(0.05).minimize(loss)
        with fr.Session() as sess:
            sess.run(fr.global_variables_initializer())
            first = sess.run(loss, {x: xs, y: ys})
            for _ in range(40):
                sess.run(train, {x: xs, y: ys})
            last = sess.run(loss, {x: xs, y: ys})
    assert last < 0.5 * first


def test_contrib_rnn_namespace():
    assert fr.contrib.rnn.BasicLSTMCell is rc.BasicLSTMCell
    assert fr.contrib.rnn.static_rnn is fr.nn.static_rnn
    assert fr.contrib.rnn.LSTMStateTuple is rc.LSTMStateTuple


def test_static_bidirectional_rnn_concatenates_forward_and_backward():
    with fr.Graph().as_default():
        x = fr.placeholder(fr.float64, [B, T, D])
        outs, sf, sb = fr.nn.static_bidirectional_rnn(
            rc.BasicRNNCell(H), rc.BasicRNNCell(H), fr.unstack(x, axis=1), dtype=fr.float64
        )
        assert len(outs) == T and outs[0].shape.as_list() == [B, 2 * H]
        with fr.Session() as sess:
            sess.run(fr.global_variables_initializer())
            wf = _weights(sess, "bidirectional_rnn/fw/basic_rnn_cell")
            wb = _weights(sess, "bidirectional_rnn/bw/basic_rnn_cell")
            got = sess.run(fr.stack(outs, 1), {x: X})
    fw, _ = _np_rnn("rnn", wf, X)
    bw, _ = _np_rnn("rnn", wb, X[:, ::-1])
    np.testing.assert_allclose(got, np.concatenate([fw, bw[:, ::-1]], 2), rtol=1e-12)
