"""The op registry (flowrt/_core/registry.py): kernels derived from one definition."""

import pytest

from flowrt._core.registry import sync_kernel


def test_a_derived_sync_kernel_runs_its_generator_and_refuses_to_wait():
    def waits(ctx, op, x, wait=False):
        if wait:
            yield "a queue"
        return (x + 1,)

    kernel = sync_kernel(waits)
    assert kernel(None, None, 1) == (2,)
    with pytest.raises(RuntimeError, match="registered as not blocking waited on 'a queue'"):
        kernel(None, None, 1, wait=True)
