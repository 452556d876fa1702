"""``fr.nn``: activations, softmax, losses, dropout, embeddings and candidate sampling
(TF1's ``tf.nn``). Definitions live in ``flowrt/ops/nn_ops.py``,
``flowrt/ops/embedding_ops.py`` and ``flowrt/ops/candidate_sampling_ops.py``; this module
only re-exports them."""

from .ops.candidate_sampling_ops import *  # noqa: F401,F403
from .ops.embedding_ops import *  # noqa: F401,F403
from .ops.nn_ops import *  # noqa: F401,F403
