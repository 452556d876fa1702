"""BLAS threads per kernel (flowrt/_core/blas.py): one unless the config asks for more."""

import os

import pytest
from threadpoolctl import threadpool_info

import flowrt as fr
from flowrt._core import blas


def _blas_threads() -> list[int]:
    # Empty without a BLAS threadpoolctl knows, or on one core (a pool of 1 only).
    if (os.cpu_count() or 1) < 2:
        return []
    return [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]


@pytest.fixture
def restore_default(monkeypatch):
    for var in blas._ENV:
        monkeypatch.delenv(var, raising=False)
    yield
    fr.Session().close()  # back to the default for the tests that follow
    assert set(_blas_threads()) <= {blas.DEFAULT_THREADS}


def test_a_session_gives_kernels_one_blas_thread_unless_its_config_asks(restore_default):
    if not _blas_threads():
        pytest.skip("numpy is not linked against a BLAS threadpoolctl knows")
    fr.Session(config=fr.ConfigProto(intra_op_parallelism_threads=2)).close()
    assert set(_blas_threads()) == {2}
    fr.Session().close()
    assert set(_blas_threads()) == {1}
    fr.Session(config=fr.ConfigProto(intra_op_parallelism_threads=2)).close()
    assert set(_blas_threads()) == {2}


def test_an_environment_setting_is_left_alone_when_the_config_says_zero(
    restore_default, monkeypatch
):
    if not _blas_threads():
        pytest.skip("numpy is not linked against a BLAS threadpoolctl knows")
    fr.Session(config=fr.ConfigProto(intra_op_parallelism_threads=2)).close()
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "2")
    fr.Session().close()
    assert set(_blas_threads()) == {2}
    monkeypatch.delenv("OPENBLAS_NUM_THREADS")


def test_kernel_blocks_run_once_each_on_the_kernel_threads(restore_default):
    # The default config: BLAS gets one thread, the blocks every core of the process.
    fr.Session().close()
    assert blas.kernel_threads() == len(os.sched_getaffinity(0))
    fr.Session(config=fr.ConfigProto(intra_op_parallelism_threads=1)).close()
    assert blas.kernel_threads() == 1
    fr.Session().close()
    done: list[int] = []
    blas.run_blocks(50, done.append)
    assert sorted(done) == list(range(50))


def test_a_failing_block_raises_after_the_others_ended(restore_default):
    fr.Session().close()
    done: list[int] = []

    def block(i):
        if i == 3:
            raise ValueError("block 3")
        done.append(i)

    with pytest.raises(ValueError, match="^block 3$"):
        blas.run_blocks(8, block)
    assert 3 not in done
