"""``fr.test``: TF1's ``tf.test`` for flowrt programs.

``fr.test.TestCase`` is a ``unittest.TestCase`` with TF1's helpers (``session()``,
``cached_session()``, ``evaluate()``, ``assertAllClose``, ...), so a TF1 test file
ports by changing its import. ``fr.test.mock`` is ``unittest.mock``, as in TF1. For
pytest suites, see ``flowrt.testing``.
"""

from unittest import mock as mock

from .gradient_checker import compute_gradient, compute_gradient_error
from .local_cluster import create_local_cluster
from .testcase import (
    TestCase,
    get_temp_dir,
    gpu_device_name,
    is_built_with_cuda,
    is_gpu_available,
    main,
)

__all__ = [
    "TestCase",
    "main",
    "is_gpu_available",
    "gpu_device_name",
    "is_built_with_cuda",
    "get_temp_dir",
    "compute_gradient",
    "compute_gradient_error",
    "create_local_cluster",
]
