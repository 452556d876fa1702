"""``fr.metrics``: TF1's streaming ``tf.metrics`` (``(value, update_op)`` over local
variables). Definitions live in ``metrics_impl.py``; this module only re-exports."""

from .metrics_impl import *  # noqa: F403
