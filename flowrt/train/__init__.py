"""``fr.train``: optimizers, checkpoints, queue runners, coordinators, input pipelines."""

from ..protos import (  # noqa: F401
    BytesList,
    Example,
    Feature,
    FeatureList,
    FeatureLists,
    Features,
    FloatList,
    Int64List,
    SequenceExample,
)
from .coordinator import *  # noqa: F401,F403
from .input import *  # noqa: F401,F403
from .optimizers import *  # noqa: F401,F403
from .queue_runner import *  # noqa: F401,F403
from .saver import *  # noqa: F401,F403
from .training_util import *  # noqa: F401,F403
