"""Runs a snippet in a child Python whose address space is capped, for tests that a
hostile input costs memory in proportion to its real size, not its declared size."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
"""The worktree root, put first on the child's path so it imports this flowrt."""

LIMIT_MB = 1024
"""The child's address-space cap: importing flowrt takes about 320 MB of it."""


def run_capped(code: str, limit_mb: int = LIMIT_MB, timeout: float = 120) -> str:
    """Runs ``code`` in a child capped at ``limit_mb`` of address space and returns its
    stdout; fails the test with the child's stderr when it exits non-zero (an
    allocation beyond the cap raises ``MemoryError`` there)."""

    def cap():
        limit = limit_mb << 20
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    env = dict(os.environ, PYTHONPATH=ROOT, OPENBLAS_NUM_THREADS="1")
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        env=env,
        preexec_fn=cap,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert proc.returncode == 0, "child failed under a %d MB cap:\n%s" % (
        limit_mb,
        proc.stderr[-3000:],
    )
    return proc.stdout
