"""``Timeline``: a traced run's StepStats as Chrome-trace JSON, as TF1's
``tensorflow.python.client.timeline``.

The JSON follows the Trace Event Format that ``chrome://tracing`` and Perfetto open: a
process per device (``M`` metadata events name it), a track (``tid``) per thread or
trio task that ran ops, an ``X`` (complete) event per op, the waits of blocking ops as
``X`` events nested inside their op's slice, and flow arrows (``s``/``t`` events) from
each op to the ops that consume its outputs.
"""

from __future__ import annotations

import json
import re
from typing import Any

from .step_stats import StepStats

__all__ = ["Timeline"]

_INPUTS = re.compile(r"^[^=]+ = [^(]+\((.*)\)$")


def _inputs(label: str) -> list[str]:
    """The producing op names in a TF1 ``timeline_label`` ``"y = Type(a:0, b)"``."""
    m = _INPUTS.match(label)
    if m is None or not m.group(1):
        return []
    return [x.strip().lstrip("^").split(":")[0] for x in m.group(1).split(",")]


class Timeline:
    """Turns ``step_stats`` (``RunMetadata().step_stats``) into a Chrome trace.

    Args:
      step_stats: a StepStats of one traced run, or several merged (``MergeFrom``).
      graph: accepted for TF1 compatibility; the labels carry what is needed.
    """

    def __init__(self, step_stats: StepStats, graph: object = None) -> None:
        self._step_stats = step_stats
        self._graph = graph

    def generate_chrome_trace_format(
        self, show_dataflow: bool = True, show_memory: bool = False
    ) -> str:
        """The trace as a JSON string ``{"traceEvents": [...]}``.

        Args:
          show_dataflow: add flow arrows from each op to the ops reading its outputs.
          show_memory: add a counter track of each op's output bytes.
            Note (flowrt): TF1 charts its allocators' live memory; flowrt has no
            allocator and charts the bytes of the outputs each op produced.
        """
        events: list[dict[str, Any]] = []
        flow_id = 0
        for pid, dev in enumerate(self._step_stats.dev_stats):
            events.append(
                {
                    "name": "process_name",
                    "ph": "M",
                    "pid": pid,
                    "tid": 0,
                    "args": {"name": dev.device},
                }
            )
            events.append(
                {
                    "name": "process_sort_index",
                    "ph": "M",
                    "pid": pid,
                    "tid": 0,
                    "args": {"sort_index": pid},
                }
            )
            tracks: dict[int, str] = {}
            last_end: dict[str, dict] = {}  # op name -> its latest op event
            for ns in dev.node_stats:
                tid = ns.thread_id
                if tid not in tracks:
                    tracks[tid] = ns.thread_name or str(tid)
                    events.append(
                        {
                            "name": "thread_name",
                            "ph": "M",
                            "pid": pid,
                            "tid": tid,
                            "args": {"name": tracks[tid]},
                        }
                    )
                ts = ns.all_start_micros
                dur = max(ns.all_end_rel_micros, 0)
                if ns.wait_for:
                    events.append(
                        {
                            "name": "wait",
                            "cat": "Wait",
                            "ph": "X",
                            "pid": pid,
                            "tid": tid,
                            "ts": ts,
                            "dur": dur,
                            "args": {"name": ns.node_name, "for": ns.wait_for},
                        }
                    )
                    continue
                args = {"name": ns.node_name, "op": ns.op_type}
                ins = _inputs(ns.timeline_label)
                for i, name in enumerate(ins):
                    args["input%d" % i] = name
                ev = {
                    "name": ns.op_type or ns.node_name,
                    "cat": "Op",
                    "ph": "X",
                    "pid": pid,
                    "tid": tid,
                    "ts": ts,
                    "dur": dur,
                    "args": args,
                }
                events.append(ev)
                if show_memory:
                    nbytes = sum(
                        o.tensor_description.allocation_description.requested_bytes
                        for o in ns.output
                    )
                    events.append(
                        {
                            "name": "output bytes",
                            "ph": "C",
                            "pid": pid,
                            "tid": tid,
                            "ts": ts + dur,
                            "args": {"bytes": nbytes},
                        }
                    )
                if show_dataflow:
                    for name in dict.fromkeys(ins):
                        src = last_end.get(name)
                        if src is None:
                            continue  # fed, folded or from another run
                        flow_id += 1
                        events.append(
                            {
                                "name": name,
                                "cat": "DataFlow",
                                "ph": "s",
                                "pid": src["pid"],
                                "tid": src["tid"],
                                "id": flow_id,
                                "ts": src["ts"] + src["dur"],
                            }
                        )
                        events.append(
                            {
                                "name": name,
                                "cat": "DataFlow",
                                "ph": "t",
                                "bp": "e",
                                "pid": pid,
                                "tid": tid,
                                "id": flow_id,
                                "ts": ts,
                                "args": {"consumer": ns.node_name},
                            }
                        )
                last_end[ns.node_name] = ev
        return json.dumps({"traceEvents": events, "displayTimeUnit": "ns"})
