"""``fr.losses``: TF1's ``tf.losses`` (weighted, reduced losses in the ``LOSSES``
collection). Definitions live in ``losses_impl.py``; this module only re-exports."""

from .losses_impl import *  # noqa: F403
