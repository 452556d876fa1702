"""``fr.random``: TF1's ``tf.random`` namespace (TF 1.13 and later), the random ops of
``fr`` under the names ``tf.random`` gives them. Definitions live in
``flowrt/ops/random_ops.py``; this module only re-exports them
(and ``categorical``) with those of ``flowrt/ops/stateless_random_ops.py``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .ops.candidate_sampling_ops import (
    fixed_unigram_candidate_sampler,
    log_uniform_candidate_sampler,
    uniform_candidate_sampler,
)
from .ops.random_ops import (
    get_seed,
    multinomial,
    set_random_seed,
    truncated_normal,
)
from .ops.random_ops import random_normal as normal
from .ops.random_ops import random_shuffle as shuffle
from .ops.random_ops import random_uniform as uniform
from .ops.stateless_random_ops import (
    stateless_categorical,
    stateless_multinomial,
    stateless_truncated_normal,
)
from .ops.stateless_random_ops import stateless_random_normal as stateless_normal
from .ops.stateless_random_ops import stateless_random_uniform as stateless_uniform

if TYPE_CHECKING:
    from ._core.graph import Tensor
    from ._core.typing import DTypeLike, TensorLike

__all__ = [
    "normal",
    "uniform",
    "truncated_normal",
    "shuffle",
    "set_random_seed",
    "get_seed",
    "multinomial",
    "categorical",
    "fixed_unigram_candidate_sampler",
    "log_uniform_candidate_sampler",
    "uniform_candidate_sampler",
    "stateless_uniform",
    "stateless_normal",
    "stateless_truncated_normal",
    "stateless_categorical",
    "stateless_multinomial",
]


def categorical(
    logits: TensorLike,
    num_samples: TensorLike,
    dtype: DTypeLike | None = None,
    seed: int | None = None,
    name: str | None = None,
) -> Tensor:
    """Draws ``num_samples`` class indices per row of the unnormalized log-probabilities
    ``logits`` (``[batch, classes]``): a ``[batch, num_samples]`` tensor of ``dtype``
    (default int64). TF's newer name for ``multinomial``.

    Args:
      logits: a 2-D float tensor.
      num_samples: the number of samples per row.
      dtype: int32 or int64.
      seed: the op seed.
      name: the name scope (default ``categorical``).
    """
    return multinomial(
        logits, num_samples, seed=seed, name=name or "categorical", output_dtype=dtype
    )
