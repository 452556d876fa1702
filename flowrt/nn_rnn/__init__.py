"""Recurrent networks: TF1's RNN cells (``fr.nn.rnn_cell``) and the RNN drivers
(``fr.nn.static_rnn``, ``fr.nn.dynamic_rnn``, ``fr.nn.bidirectional_dynamic_rnn``)."""

from . import rnn_cell
from .rnn import bidirectional_dynamic_rnn, dynamic_rnn, static_bidirectional_rnn, static_rnn

__all__ = [
    "rnn_cell",
    "static_rnn",
    "static_bidirectional_rnn",
    "dynamic_rnn",
    "bidirectional_dynamic_rnn",
]
