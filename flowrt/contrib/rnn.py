"""``fr.contrib.rnn``: TF1's ``tf.contrib.rnn`` names for the RNN cells and
``static_rnn`` (defined in ``flowrt/nn_rnn``; this module only re-exports them)."""

from ..nn_rnn.rnn import static_rnn
from ..nn_rnn.rnn_cell import (
    BasicLSTMCell,
    BasicRNNCell,
    DropoutWrapper,
    GRUCell,
    LSTMCell,
    LSTMStateTuple,
    MultiRNNCell,
    RNNCell,
)

__all__ = [
    "BasicLSTMCell",
    "BasicRNNCell",
    "DropoutWrapper",
    "GRUCell",
    "LSTMCell",
    "LSTMStateTuple",
    "MultiRNNCell",
    "RNNCell",
    "static_rnn",
]
