"""Gradient specs for the RNN drivers: a weight-free cell whose weights are the checked
inputs, through dynamic_rnn (masking, time_major), static_rnn and the bidirectional RNN.
The cells' own math is checked against NumPy and TensorFlow in tests/nn_rnn."""

import numpy as np

import flowrt as fr
from tests.gradcheck import GradSpec

_r = np.random.default_rng(13)
X = _r.standard_normal((2, 3, 2))  # [batch, time, depth]
W = _r.standard_normal((2, 2)) * 0.5
H0 = _r.standard_normal((2, 2))
LENS = np.array([3, 1], np.int32)


class _Cell(fr.nn.rnn_cell.RNNCell):
    """h' = tanh(x W + h * w0): its weight ``W`` is a tensor, not a variable."""

    def __init__(self, w):
        super().__init__()
        self._w = w

    @property
    def state_size(self):
        return 2

    @property
    def output_size(self):
        return 2

    def call(self, x, h):
        new = fr.tanh(fr.matmul(x, self._w) + h * self._w[0])
        return new * 2.0, new


def _dynamic(x, w, h0):
    out, state = fr.nn.dynamic_rnn(_Cell(w), x, sequence_length=LENS, initial_state=h0)
    return out + fr.expand_dims(state, 1)


def _time_major(x, w, h0):
    out, _ = fr.nn.dynamic_rnn(
        _Cell(w), fr.transpose(x, [1, 0, 2]), initial_state=h0, time_major=True
    )
    return out


def _static(x, w, h0):
    xs = fr.unstack(x, axis=1)
    outs, state = fr.nn.static_rnn(_Cell(w), xs, initial_state=h0, sequence_length=LENS)
    return fr.stack(outs) * state


def _bidirectional(x, w, h0):
    (fw, bw), _ = fr.nn.bidirectional_dynamic_rnn(
        _Cell(w),
        _Cell(w * 0.5),
        x,
        sequence_length=LENS,
        initial_state_fw=h0,
        initial_state_bw=h0,
    )
    return fw * bw


SPECS = [
    GradSpec("While", _dynamic, [X, W, H0], id="dynamic_rnn-sequence_length"),
    GradSpec("While", _time_major, [X, W, H0], id="dynamic_rnn-time_major"),
    GradSpec("Select", _static, [X, W, H0], id="static_rnn-sequence_length"),
    GradSpec("While", _bidirectional, [X, W, H0], id="bidirectional_dynamic_rnn"),
]
