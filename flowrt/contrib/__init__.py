"""``fr.contrib``: the parts of TF1's ``tf.contrib`` that everyday programs use
(``fr.contrib.layers`` regularizers)."""

from . import layers

__all__ = ["layers"]
