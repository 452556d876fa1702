"""``fr.client``: what a client sees of its runs (``timeline``, ``step_stats``)."""

from . import step_stats, timeline  # noqa: F401
