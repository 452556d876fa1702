"""``fr.explain`` / ``Session.explain``: the plan a run would use, explained.

The session's plan for the run's signature (cached or, if not yet, built without
caching it) goes to ``_core/explain.py``, with what only the session knows: whether it
is cached, its other cached plans (for shared resources) and the last traced run.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .._core.explain import Explanation, explain_plan
from .._core.graph import get_default_session
from .._core.plan import Plan
from ..fetch_structures import Fetches, resolve_feeds

if TYPE_CHECKING:
    from ..session import Session

__all__ = ["explain", "Explanation"]


def explain(
    fetches: Any,
    feed_dict: Mapping[Any, Any] | None = None,
    options: object = None,
    session: Session | None = None,
) -> Explanation:
    """Explains what ``session.run(fetches, feed_dict)`` would run, without running it.

    Args:
      fetches: as for ``Session.run``.
      feed_dict: as for ``Session.run`` (the values are checked as ``run`` checks them).
      options: accepted for ``run``'s signature; they do not change the plan.
      session: the session; the default session if None.

    Returns:
      An Explanation: ``str()`` lists the steps in order with why each runs, the ops
      each feed cuts off, folded constants, fused groups and their expression, blocking
      ops and their queues, straight or concurrent, resources shared with other cached
      plans, whether cached, and each op's time after a traced run; ``to_dict()`` and
      ``to_dot()`` (Graphviz).

    Note (flowrt): TF1 has no such call.
    """

    sess = session if session is not None else get_default_session()
    if sess is None:
        raise ValueError(
            "Cannot explain without a session: pass session= or use `with sess.as_default():`"
        )
    if sess._closed:
        raise RuntimeError("Attempted to use a closed Session.")
    g = sess.graph
    fm = Fetches(g, fetches)
    feed_tensors = resolve_feeds(sess.graph, feed_dict)[0] if feed_dict else ()
    plan = sess._plans.get(fm.tensors, fm.targets, feed_tensors)
    cached = plan is not None
    if plan is None:
        plan = Plan(fm.tensors, fm.targets, feed_tensors, fuse=sess._fuse, overlap_calls=True)
    others = [
        ([t.name for t in k[0]] + ["^" + op.name for op in k[1]], p)
        for k, p in sess._plans.plans()
        if isinstance(p, Plan) and p is not plan
    ]
    return explain_plan(
        plan, fm.tensors, fm.targets, feed_tensors, cached, others, sess._last_stats.get(plan)
    )
