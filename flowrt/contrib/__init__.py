"""``fr.contrib``: the parts of TF1's ``tf.contrib`` that everyday programs use
(``fr.contrib.layers`` regularizers, ``fr.contrib.training`` ps load balancing)."""

from . import layers, training

__all__ = ["layers", "training"]
