"""``fr.summary``: summary ops and the event-file writer TensorBoard reads.

``scalar``, ``histogram``, ``image``, ``audio``, ``text``, ``tensor_summary``, ``merge``
and ``merge_all`` build ops whose values are serialized ``Summary`` protobufs;
``FileWriter`` writes them, and the graph, to ``events.out.tfevents.*`` files. See docs/summary.md.
"""

from .media_ops import audio, image, tensor_summary, text
from .protos import (
    Event,
    GraphDef,
    HistogramProto,
    RunMetadata,
    SessionLog,
    Summary,
    SummaryMetadata,
    TaggedRunMetadata,
)
from .run_metadata import run_metadata_proto
from .summary_ops import histogram, merge, merge_all, scalar
from .writer import FileWriter
from .writer_cache import FileWriterCache

__all__ = [
    "scalar",
    "histogram",
    "image",
    "audio",
    "text",
    "tensor_summary",
    "merge",
    "merge_all",
    "FileWriter",
    "FileWriterCache",
    "Summary",
    "SummaryMetadata",
    "HistogramProto",
    "Event",
    "SessionLog",
    "TaggedRunMetadata",
    "GraphDef",
    "RunMetadata",
    "run_metadata_proto",
]
