"""Deterministic per-test seeds."""

from __future__ import annotations

import hashlib

__all__ = ["seed_for"]


def seed_for(test_id: str) -> int:
    """A seed in ``[1, 2**31 - 1)`` derived from ``test_id`` (stable across runs,
    processes and machines, unlike ``hash()``).

    Args:
      test_id: e.g. a pytest node id, ``"tests/test_x.py::test_train[adam]"``.

    Returns:
      The seed.
    """
    digest = hashlib.sha256(test_id.encode("utf-8")).digest()
    return int.from_bytes(digest[:4], "big") % (2**31 - 2) + 1
