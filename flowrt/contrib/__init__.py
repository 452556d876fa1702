"""``fr.contrib``: the parts of TF1's ``tf.contrib`` that everyday programs use
(``fr.contrib.layers`` regularizers, ``fr.contrib.training`` ps load balancing,
``fr.contrib.rnn`` cells, ``fr.contrib.lookup`` vocabulary tables)."""

from . import layers, lookup, rnn, training

__all__ = ["layers", "lookup", "rnn", "training"]
