"""How a fetched ``Mapping`` is rebuilt with its results, as TF1's ``_DictFetchMapper``."""

from __future__ import annotations

import collections
import functools
from collections.abc import Callable, Mapping

__all__ = ["mapping_constructor"]


def mapping_constructor(fetches: Mapping) -> Callable:
    """The callable that rebuilds ``fetches``' type from ``(key, value)`` pairs.

    A ``defaultdict`` keeps its ``default_factory``; any other ``Mapping`` type is called
    with the pairs (TF1's rule, so a custom ``Mapping`` must accept an iterable of pairs).
    """
    if isinstance(fetches, collections.defaultdict):
        return functools.partial(collections.defaultdict, fetches.default_factory)
    return type(fetches)
