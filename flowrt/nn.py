"""``fr.nn``: activations, softmax, losses, dropout, embeddings (dense and sparse),
candidate sampling, convolution, pooling, batch normalization, local response
normalization, top-k and CTC decoding (TF1's ``tf.nn``).
Definitions live in ``flowrt/ops/nn_ops.py``, ``embedding_ops.py``,
``sparse_segment_ops.py``, ``candidate_sampling_ops.py``, ``conv_ops.py``,
``conv3d_ops.py``, ``depthwise_conv_ops.py``, ``space_depth_ops.py``, ``pool_ops.py``,
``pool3d_ops.py``, ``pool_argmax_ops.py``, ``nd_conv_pool_ops.py``, ``lrn_ops.py``, ``topk_ops.py``,
``moments_ops.py``, ``nn_loss_ops.py``, ``ctc_ops.py``, ``cwise_math_ops.py`` (softsign)
and ``activation_ops.py`` (swish, crelu); this module only re-exports them."""

import types as _types

from .nn_rnn import rnn_cell  # noqa: F401
from .nn_rnn.rnn import *  # noqa: F403
from .ops.activation_ops import crelu, swish  # noqa: F401
from .ops.activation_ops import swish as silu  # noqa: F401
from .ops.batch_space_ops import space_to_batch  # noqa: F401
from .ops.candidate_sampling_ops import *  # noqa: F403
from .ops.conv3d_ops import *  # noqa: F403
from .ops.conv_ops import *  # noqa: F403
from .ops.ctc_ops import *  # noqa: F403
from .ops.cwise_math_ops import softsign  # noqa: F401
from .ops.depthwise_conv_ops import *  # noqa: F403
from .ops.depthwise_conv_ops import (  # noqa: F401  (TF1's aliases)
    depthwise_conv2d_native_backprop_filter as depthwise_conv2d_backprop_filter,
)
from .ops.depthwise_conv_ops import (  # noqa: F401
    depthwise_conv2d_native_backprop_input as depthwise_conv2d_backprop_input,
)
from .ops.embedding_ops import *  # noqa: F403
from .ops.lrn_ops import *  # noqa: F403
from .ops.moments_ops import *  # noqa: F403
from .ops.nd_conv_pool_ops import *  # noqa: F403
from .ops.nn_loss_ops import *  # noqa: F403
from .ops.nn_ops import *  # noqa: F403
from .ops.pool3d_ops import *  # noqa: F403
from .ops.pool_argmax_ops import *  # noqa: F403
from .ops.pool_ops import *  # noqa: F403
from .ops.space_depth_ops import *  # noqa: F403
from .ops.topk_ops import *  # noqa: F403

__all__ = sorted(
    _n
    for _n, _v in globals().items()
    if _n.isidentifier() and not _n.startswith("_") and not isinstance(_v, _types.ModuleType)
)
"""What the star imports above brought: every public name of ``fr.nn``."""
