"""``fr.train``: optimizers, checkpoints, queue runners, coordinators, input pipelines,
monitored sessions and their hooks, learning-rate schedules."""

import types as _types

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
from . import save_restore_ops  # noqa: F401  (registers SaveV2, RestoreV2)
from .basic_session_run_hooks import *  # noqa: F403
from .checkpoint_management import *  # noqa: F403
from .checkpoint_reader import *  # noqa: F403
from .cluster import *  # noqa: F403
from .coordinator import *  # noqa: F403
from .device_setter import *  # noqa: F403
from .input import *  # noqa: F403
from .learning_rate_decay import *  # noqa: F403
from .meta_graph import export_meta_graph, import_meta_graph  # noqa: F401
from .monitored_session import *  # noqa: F403
from .moving_averages import *  # noqa: F403
from .optimizers import *  # noqa: F403
from .proximal_optimizers import *  # noqa: F403
from .queue_runner import *  # noqa: F403
from .saver import *  # noqa: F403
from .scaffold import *  # noqa: F403
from .server import *  # noqa: F403
from .session_manager import *  # noqa: F403
from .session_run_hook import *  # noqa: F403
from .supervisor import *  # noqa: F403
from .training_util import *  # noqa: F403

__all__ = sorted(
    _n
    for _n, _v in globals().items()
    if _n.isidentifier() and not _n.startswith("_") and not isinstance(_v, _types.ModuleType)
)
"""Every public name of ``fr.train`` (its submodules are not part of it)."""
