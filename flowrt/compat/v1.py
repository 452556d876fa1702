"""``fr.compat.v1``: the TF1 API under TF2's name for it. It is ``flowrt``'s own public
surface (``flowrt.compat.v1.X is flowrt.X``), so ``import flowrt.compat.v1 as tf``
ports a program written against ``tensorflow.compat.v1``."""

from __future__ import annotations

from typing import Any

import flowrt as _flowrt
from flowrt import *  # noqa: F403
from flowrt import __all__ as _all

__all__ = list(_all)


def __getattr__(name: str) -> Any:
    return getattr(_flowrt, name)  # unsupported names: flowrt's own porting message
