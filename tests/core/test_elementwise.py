"""Blocked elementwise evaluation (flowrt/_core/elementwise.py): block coverage, threads,
errors, buffer reuse."""

import threading

import numpy as np
import pytest

from flowrt._core import elementwise
from flowrt._core.elementwise import Program, for_blocks


@pytest.fixture
def threads(monkeypatch):
    monkeypatch.setattr(elementwise, "PARALLEL_MIN_SIZE", 0)


@pytest.mark.parametrize("parallel", [False, True])
def test_every_range_is_covered_once(parallel):
    seen = []
    lock = threading.Lock()

    def fn(lo, hi):
        with lock:
            seen.append((lo, hi))

    for_blocks(1003, 100, fn, parallel)
    assert sorted(seen) == [(lo, min(lo + 100, 1003)) for lo in range(0, 1003, 100)]


def test_an_error_in_a_block_is_raised_after_started_blocks_finish():
    done = []

    def fn(lo, hi):
        if lo == 300:
            raise ZeroDivisionError("block %d" % lo)
        done.append(lo)

    with pytest.raises(ZeroDivisionError, match="block 300"):
        for_blocks(10_000, 100, fn, True)
    assert 0 in done and len(done) < 100  # later blocks were not started


def test_program_reuses_buffers_and_matches_numpy(threads, monkeypatch):
    monkeypatch.setattr(elementwise, "BLOCK", 1000)
    # ((x * y) + x) -> exp: inputs 0, 1; results 2, 3, 4.
    prog = Program([(np.multiply, [0, 1]), (np.add, [2, 0]), (np.exp, [3])], 2)
    assert prog.n_regs == 1
    x = np.linspace(-1, 1, 12_345)
    y = np.float64(0.5)
    for _ in range(2):  # the second call reuses this thread's buffers
        np.testing.assert_allclose(prog([x, y], np.dtype(np.float64)), np.exp(x * y + x))
    # 2-D with a broadcast row: blocks cut rows.
    a = np.arange(30_000, dtype=np.float32).reshape(3000, 10) / 3e4
    b = np.arange(10, dtype=np.float32)
    got = Program([(np.multiply, [0, 1])], 2)([a, b], np.dtype(np.float32))
    np.testing.assert_array_equal(got, a * b)
