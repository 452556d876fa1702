"""flowrt's protocol buffers: compiled ``.proto`` definitions wire-compatible with TF's.

Each ``<name>.proto`` here has its generated ``<name>_pb2.py`` checked in beside it;
``regenerate.sh`` rebuilds them (needs ``pip install -e '.[dev]'``). The proto package is
``flowrt``, not ``tensorflow``, so these classes and TF's can be imported in one process;
the serialized bytes are the same because field numbers, types and options are.

``tensor``, ``graph``, ``summary``, ``event`` and ``step_stats`` hold what event files
need (``Event``, ``Summary``, ``GraphDef``, ``RunMetadata``...); ``fr.summary`` exports them.
"""

from .error_codes_pb2 import Code as ErrorCode
from .example_pb2 import Example, SequenceExample
from .feature_pb2 import (
    BytesList,
    Feature,
    FeatureList,
    FeatureLists,
    Features,
    FloatList,
    Int64List,
)
from .queue_runner_pb2 import QueueRunnerDef

__all__ = [
    "BytesList",
    "Example",
    "Feature",
    "FeatureList",
    "FeatureLists",
    "Features",
    "FloatList",
    "Int64List",
    "QueueRunnerDef",
    "SequenceExample",
    "ErrorCode",
]
