"""What a run will do: an account of one plan, for people (``str``) and tools.

``explain_plan`` reads a built ``Plan`` (the one a run with the same fetches and feeds
uses) and reports, in the order the run takes: each step's op, the fetch or target that
pulls it in (one shortest path, through data and control edges), the ops each feed cuts
off, the ops folded into constants, the fused groups and their expression, the blocking
ops and the queues they touch, whether the plan is straight or concurrent, the stateful
resources (variables, queues, readers) other cached plans share, whether the plan is
cached, and each op's time in the last traced run of the plan.
"""

from __future__ import annotations

import collections
from collections.abc import Sequence
from typing import Any

from .fusion import FusedKernel
from .graph import Operation, Tensor
from .plan import prune

__all__ = ["Explanation", "explain_plan"]

# Op types that create a stateful resource other ops use through a handle or ref.
_RESOURCE_SUFFIXES = ("QueueV2", "Queue", "ReaderV2", "Reader")
_VARIABLE_TYPES = {"VariableV2", "Variable", "VarHandleOp"}


def _is_resource(op: Operation) -> bool:
    return op.type in _VARIABLE_TYPES or op.type.endswith(_RESOURCE_SUFFIXES)


def _is_queue(op: Operation) -> bool:
    return op.type.endswith(("QueueV2", "Queue"))


class Explanation:
    """The account of one plan; ``str()`` for people, ``to_dict()`` for tools,
    ``to_dot()`` for a Graphviz picture of the pruned plan."""

    def __init__(self, info: dict, ops: list[Operation], edges: list[tuple]):
        self._info = info
        self._ops = ops
        self._edges = edges

    def to_dict(self) -> dict:
        """Everything as plain lists, dicts and strings (JSON-serialisable)."""
        return self._info

    def __str__(self) -> str:
        d = self._info
        lines = [
            "Plan for fetches %s%s: %d step(s), %s, %s."
            % (
                ", ".join(d["fetches"] + ["^" + t for t in d["targets"]]) or "(none)",
                " with feeds " + ", ".join(d["feeds"]) if d["feeds"] else "",
                len(d["steps"]),
                d["kind"],
                "cached" if d["cached"] else "not cached yet",
            )
        ]
        lines.append("Steps, in the order they run:")
        for i, s in enumerate(d["steps"]):
            t = "" if s["time_us"] is None else "  [%.0f us]" % s["time_us"]
            lines.append(
                "  %2d. %s (%s)%s%s"
                % (i, s["op"], s["type"], "  BLOCKING" if s["blocking"] else "", t)
            )
            if s["fused"]:
                lines.append("      fused %d ops: %s" % (len(s["fused"]), s["expression"]))
            lines.append("      pulled in by: %s" % s["why"])
        for title, key in (
            ("Constants (no step)", "constants"),
            ("Folded into constants when the plan was built", "folded"),
        ):
            if d[key]:
                lines.append("%s: %s" % (title, ", ".join(d[key])))
        for f in d["feeds_cut"]:
            lines.append(
                "Feed %s cuts off: %s"
                % (
                    f["feed"],
                    ", ".join(f["cut_off"])
                    or "nothing (its producer is needed elsewhere or is a placeholder)",
                )
            )
        for b in d["blocking"]:
            lines.append(
                "Blocking op %s (%s) touches: %s"
                % (b["op"], b["type"], ", ".join(b["queues"]) or "no queue (runs a sub-plan)")
            )
        if d["shared_resources"]:
            lines.append("Stateful resources shared with other cached plans:")
            for r in d["shared_resources"]:
                lines.append(
                    "  %s (%s): also in %d other plan(s), e.g. fetching %s"
                    % (r["resource"], r["type"], r["plans"], r["example"])
                )
        if d["traced"] is False:
            lines.append(
                "(No traced run of this plan yet: run it with RunOptions("
                "trace_level=FULL_TRACE) to see each op's time.)"
            )
        return "\n".join(lines)

    __repr__ = __str__

    def to_dot(self) -> str:
        """The pruned plan as Graphviz ``dot`` text: steps as boxes (blocking ones
        red, fused groups labelled with their expression), constants and fed tensors
        as ellipses, data edges solid, control edges dashed."""
        d = self._info
        kind = {s["op"]: s for s in d["steps"]}
        lines = ["digraph plan {", '  rankdir="TB";', '  node [fontname="Helvetica"];']
        for op in self._ops:
            s = kind.get(op.name)
            if s is None:
                style = "shape=ellipse, style=dashed"
                label = "%s\\n%s" % (op.name, op.type)
            else:
                label = "%s\\n%s" % (op.name, op.type)
                if s["fused"]:
                    label += "\\nfused: %s" % s["expression"].replace('"', "'")
                style = "shape=box" + (", color=red" if s["blocking"] else "")
            lines.append('  "%s" [label="%s", %s];' % (op.name, label, style))
        for f in d["feeds"]:
            lines.append('  "feed %s" [shape=ellipse, style=filled, fillcolor=lightblue];' % f)
        for a, b, control in self._edges:
            lines.append('  "%s" -> "%s"%s;' % (a, b, " [style=dashed]" if control else ""))
        lines.append("}")
        return "\n".join(lines)


def _expression(root: Operation, members: set) -> str:
    def render(op: Operation) -> str:
        return "%s(%s)" % (
            op.type,
            ", ".join(render(t.op) if t.op in members else t.name for t in op.inputs),
        )

    return render(root)


def _why(fetches: list[Tensor], targets: list[Operation], fed: set) -> dict:
    """Per needed op, the shortest chain to a fetch or target: BFS backwards from them
    over data edges (cut at fed tensors) and control edges."""
    why: dict[Operation, str] = {}
    queue: collections.deque[Operation] = collections.deque()
    for t in fetches:
        if t not in fed and t.op not in why:
            why[t.op] = "fetch %s" % t.name
            queue.append(t.op)
    for op in targets:
        if op not in why:
            why[op] = "target %s" % op.name
            queue.append(op)
    while queue:
        op = queue.popleft()
        for t in op.inputs:
            if t not in fed and t.op not in why:
                why[t.op] = "input of %s <- %s" % (op.name, why[op])
                queue.append(t.op)
        for c in op.control_inputs:
            if c not in why:
                why[c] = "control dependency of %s <- %s" % (op.name, why[op])
                queue.append(c)
    return why


def explain_plan(
    plan: Any,
    fetches: list[Tensor],
    targets: list[Operation],
    feeds: tuple,
    cached: bool,
    other_plans: Sequence[tuple[list[str], Any]] = (),
    stats: list | None = None,
) -> Explanation:
    """Explains ``plan``, built for ``fetches``/``targets`` with ``feeds`` fed.

    Args:
      plan: the Plan a run of this signature uses.
      fetches, targets, feeds: the run's fetched tensors, target ops and fed tensors.
      cached: whether the session holds the plan already.
      other_plans: ``(fetch names, plan)`` for the session's other cached plans.
      stats: the executor records (``tracing.Stat``) of the plan's last traced run.
    """
    fed = set(feeds)
    why = _why(list(fetches), list(targets), fed)
    times: dict[str, float] = collections.defaultdict(float)
    for s in stats or ():
        if s[5] is None:
            times[s[0].name] += (s[2] - s[1]) * 1e6
    steps, in_steps = [], set()
    for st in plan.steps:
        k = st.kernel
        members = list(k.ops) if isinstance(k, FusedKernel) else []
        in_steps.add(st.op)
        in_steps.update(members)
        steps.append(
            {
                "op": st.op.name,
                "type": st.op.type,
                "blocking": bool(st.blocking),
                "fused": [o.name for o in members],
                "expression": _expression(st.op, set(members)) if members else "",
                "why": why.get(st.op, "?"),
                "time_us": round(times[st.op.name], 1) if stats else None,
            }
        )
    constants, folded = [], []
    for op in plan.ops:
        if op in in_steps:
            continue
        if op.type == "Const" and not op.control_inputs:
            constants.append(op.name)
        else:
            folded.append(op.name)
    needed = set(plan.ops)
    feeds_cut = []
    for t in feeds:
        without = prune(list(fetches), list(targets), fed - {t})
        feeds_cut.append(
            {"feed": t.name, "cut_off": [op.name for op in without if op not in needed]}
        )
    blocking = []
    for st in plan.steps:
        if st.blocking:
            qs = [t.op.name for t in st.op.inputs if _is_queue(t.op)]
            blocking.append({"op": st.op.name, "type": st.op.type, "queues": qs})
    shared = []
    for op in plan.ops:
        if not _is_resource(op):
            continue
        users = [names for names, p in other_plans if p is not plan and op in set(p.ops)]
        if users:
            shared.append(
                {
                    "resource": op.name,
                    "type": op.type,
                    "plans": len(users),
                    "example": ", ".join(users[0]) or "(targets only)",
                }
            )
    edges = []
    for op in plan.ops:
        for t in op.inputs:
            if t in fed:
                edges.append(("feed %s" % t.name, op.name, False))
            elif t.op in needed:
                edges.append((t.op.name, op.name, False))
        for c in op.control_inputs:
            if c in needed:
                edges.append((c.name, op.name, True))
    kind = "concurrent (blocking ops run as trio tasks as their inputs are ready)"
    if not plan.blocking:
        kind = "straight, non-blocking (one body on the caller's thread)"
    elif plan.straight:
        kind = "straight, blocking (one body; waits park the thread or task)"
    info = {
        "fetches": [t.name for t in fetches],
        "targets": [op.name for op in targets],
        "feeds": [t.name for t in feeds],
        "kind": kind,
        "straight": bool(plan.straight),
        "blocking_plan": bool(plan.blocking),
        "cached": cached,
        "steps": steps,
        "constants": constants,
        "folded": folded,
        "feeds_cut": feeds_cut,
        "blocking": blocking,
        "shared_resources": shared,
        "traced": bool(stats),
    }
    return Explanation(info, list(plan.ops), edges)
