"""``fr.contrib.rnn``: TF1's ``tf.contrib.rnn`` names for the RNN cells,
``static_rnn`` and ``static_bidirectional_rnn`` (defined in ``flowrt/nn_rnn``; this
module only re-exports them)."""

from ..nn_rnn.rnn import static_bidirectional_rnn, static_rnn
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
    "static_bidirectional_rnn",
    "static_rnn",
]
