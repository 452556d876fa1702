"""The TF protocol buffers event files hold.

``Summary``, ``HistogramProto``, ``Event``, ``GraphDef`` and ``RunMetadata`` are the
classes compiled from ``flowrt/protos/*.proto`` (TF's messages and field numbers, so the
bytes are TF's). ``histogram_proto(values)`` is TF's histogram of an array. (A ``Graph``
as a ``GraphDef`` is ``flowrt/graph_export.py``'s.)
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from ..protos.event_pb2 import Event, SessionLog, TaggedRunMetadata
from ..protos.graph_pb2 import AttrValue, GraphDef, NodeDef
from ..protos.step_stats_pb2 import RunMetadata, StepStats
from ..protos.summary_pb2 import HistogramProto, Summary, SummaryMetadata
from ..protos.tensor_pb2 import TensorProto, TensorShapeProto

__all__ = [
    "Summary",
    "SummaryMetadata",
    "HistogramProto",
    "Event",
    "SessionLog",
    "TaggedRunMetadata",
    "GraphDef",
    "NodeDef",
    "AttrValue",
    "TensorProto",
    "TensorShapeProto",
    "RunMetadata",
    "StepStats",
    "histogram_proto",
    "DEFAULT_BUCKET_LIMITS",
]

DBL_MAX = sys.float_info.max

# --------------------------------------------------------------------------------------
# HistogramProto, with TF's default buckets
# --------------------------------------------------------------------------------------


def _default_bucket_limits() -> np.ndarray:
    # TF's histogram.cc: limits growing by 10% from 1e-12 up to 1e20, mirrored, around 0.
    pos, v = [], 1.0e-12
    while v < 1.0e20:
        pos.append(v)
        v *= 1.1
    pos.append(DBL_MAX)
    return np.array([-x for x in reversed(pos)] + [0.0] + pos)


DEFAULT_BUCKET_LIMITS = _default_bucket_limits()


def histogram_proto(values: Any) -> HistogramProto:
    """TF's ``Histogram`` of finite values, empty runs of buckets collapsed as TF does."""
    x = np.asarray(values, dtype=np.float64).reshape(-1)
    limits = DEFAULT_BUCKET_LIMITS
    counts = np.bincount(np.searchsorted(limits, x, side="right"), minlength=len(limits))
    counts = counts.astype(np.float64)
    # A run of empty buckets becomes one entry with the run's last limit.
    nonzero = counts > 0
    keep = nonzero | np.append(nonzero[1:], True)
    # Sums are sequential like TF's loop (cumsum does not reorder), so they match bit for bit.
    return HistogramProto(
        min=float(x.min()) if x.size else DBL_MAX,
        max=float(x.max()) if x.size else -DBL_MAX,
        num=float(x.size),
        sum=float(np.cumsum(x)[-1]) if x.size else 0.0,
        sum_squares=float(np.cumsum(x * x)[-1]) if x.size else 0.0,
        bucket_limit=limits[keep].tolist(),
        bucket=counts[keep].tolist(),
    )
