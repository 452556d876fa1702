"""``fr.nn``: neural-network ops (to be written)."""

from .ops.nn_ops import *  # noqa: F401,F403
