"""``fr.client``: what a client sees of its runs.

``step_stats`` (TF1's StepStats of a traced run), ``timeline`` (its Chrome trace),
``explain`` (the plan a run would use) and ``debug`` (what the runs in flight wait on).
"""

from . import debug, explain, step_stats, timeline

__all__ = ["debug", "explain", "step_stats", "timeline"]
