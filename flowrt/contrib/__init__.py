"""``fr.contrib``: the parts of TF1's ``tf.contrib`` that everyday programs use
(``fr.contrib.layers`` regularizers, ``fr.contrib.training`` ps load balancing,
``fr.contrib.rnn`` cells)."""

from . import layers, rnn, training

__all__ = ["layers", "rnn", "training"]
