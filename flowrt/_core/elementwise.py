"""Elementwise evaluation over cache-sized blocks, on up to ``THREADS`` threads.

A fused group of elementwise ops (``fusion.py``) runs here; ``for_blocks`` also shares
the blocks of a large variable's optimizer update (``train/update_rules.py``, compiled
loops) between threads. The work is cut into blocks of about ``BLOCK`` elements along
the leading axis; each block runs numpy's SIMD loops start to finish while its
intermediates stay in the core's cache (``out=`` buffers reused from block to block),
so a chain of ten ops reads and writes main memory once instead of ten times, and the
blocks are shared between the calling thread and ``THREADS - 1`` helper threads (numpy
releases the GIL in its loops). Below ``PARALLEL_MIN_SIZE`` elements everything runs on
the calling thread. The figures behind the constants are in ``docs/fusion.md``
(``benchmarks/elementwise.py``).
"""

from __future__ import annotations

import contextvars
import itertools
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Callable, Sequence

import numpy as np

from .codegen import Source

if TYPE_CHECKING:
    from .graph import Operation

__all__ = [
    "BLOCK",
    "PARALLEL_MIN_SIZE",
    "THREADS",
    "for_blocks",
    "Program",
    "unary_kernel",
    "binary_kernel",
]

# Elements per block: a float32 buffer fits a core's L2 cache. Smaller blocks pay more
# per-block Python dispatch; larger ones spill to L3 (docs/fusion.md, "Block size").
BLOCK = 1 << 16

# From this many elements the blocks are shared with helper threads (at least 4
# blocks): below it the hand-off to a helper is not repaid (docs/fusion.md).
PARALLEL_MIN_SIZE = 1 << 18

THREADS = max(1, min(os.cpu_count() or 1, 4))

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _helpers() -> ThreadPoolExecutor:
    global _pool
    if _pool is None:
        with _pool_lock:
            if _pool is None:
                _pool = ThreadPoolExecutor(THREADS - 1, thread_name_prefix="flowrt-blocks")
    return _pool


def for_blocks(n: int, step: int, fn: Callable[[int, int], None], parallel: bool) -> None:
    """Calls ``fn(lo, hi)`` for consecutive ranges of ``[0, n)`` of ``step`` each.

    With ``parallel`` (and more than one thread), helper threads take blocks too; the
    calling thread works through blocks itself and waits only for blocks a helper
    already started, so a busy helper never delays a run. ``fn`` sees the caller's numpy
    error state (``np.errstate`` is context-local). The first exception is raised after
    every started block has finished.
    """
    n_blocks = -(-n // step)
    if not parallel or THREADS == 1 or n_blocks < 2:
        for lo in range(0, n, step):
            fn(lo, min(lo + step, n))
        return
    counter = itertools.count()  # next() is atomic: each block is taken once
    failed: list[BaseException] = []

    def work():
        for i in counter:
            if i >= n_blocks or failed:
                return
            lo = i * step
            try:
                fn(lo, min(lo + step, n))
            except BaseException as e:  # re-raised by the caller below
                failed.append(e)
                return

    pool = _helpers()
    futures = [
        pool.submit(contextvars.copy_context().run, work)
        for _ in range(min(THREADS - 1, n_blocks - 1))
    ]
    work()
    for f in futures:
        if not f.cancel():
            f.result()
    if failed:
        raise failed[0]


def broadcast_shape(xs: Sequence[np.ndarray]) -> tuple:
    """The broadcast shape of ``xs`` (fast when every operand is full-size or a scalar)."""
    shape = ()
    for x in xs:
        s = x.shape
        if s != shape and s != ():
            if shape == ():
                shape = s
            else:
                return np.broadcast_shapes(*[x.shape for x in xs])
    return shape


def _rows(shape: tuple, block: int) -> int:
    inner = 1
    for d in shape[1:]:
        inner *= d
    return max(1, block // max(inner, 1))


class Program:
    """A straight-line elementwise program evaluated over blocks.

    ``instrs`` are ``(fn, args)`` in order: ``fn(*operands, out=buffer)`` is a numpy ufunc
    or a function of that form (safe when ``out`` is one of its operands); an argument
    ``k < n_inputs`` is external input ``k``, ``n_inputs + i`` the result of instruction
    ``i``. The last instruction's result is the program's. Intermediates get buffers by
    liveness (a buffer is reused once its value is dead), one set per thread. ``ops``,
    if given, are the ops the instructions compute: a failure names its op.
    """

    def __init__(
        self,
        instrs: Sequence[tuple[Callable, Sequence[int]]],
        n_inputs: int,
        ops: Sequence[Operation] | None = None,
    ):
        self.n_inputs = n_inputs
        last_use: dict[int, int] = {}
        for i, (_, args) in enumerate(instrs):
            for a in args:
                last_use[a] = i
        free: list[int] = []
        reg_of: dict[int, int] = {}
        n_regs = 0
        code = []
        for i, (fn, args) in enumerate(instrs):
            slots = tuple(a if a < n_inputs else n_inputs + reg_of[a] for a in args)
            for a in set(args):
                if a >= n_inputs and last_use[a] == i:
                    free.append(reg_of[a])
            if i == len(instrs) - 1:
                out = -1
            else:
                if free:
                    r = free.pop()
                else:
                    r, n_regs = n_regs, n_regs + 1
                reg_of[n_inputs + i] = r
                out = n_inputs + r
            code.append((fn, slots, out))
        self.code = tuple(code)
        self.n_regs = n_regs
        self._local = threading.local()
        self._block = _straight_line(self.code, n_inputs, n_regs, ops)

    def _regs(self, shape: tuple, dtype: np.dtype) -> list:
        """This thread's intermediate buffers, kept from call to call: fresh buffers of
        this size would each fault in their pages again."""
        loc = self._local
        regs = getattr(loc, "regs", None)
        if regs is None or loc.key != (shape, dtype):
            regs = loc.regs = [np.empty(shape, dtype) for _ in range(self.n_regs)]
            loc.key = (shape, dtype)
        return regs

    def __call__(
        self, xs: Sequence[np.ndarray], dtype: np.dtype, shape: tuple | None = None
    ) -> np.ndarray:
        """The program's result over inputs ``xs`` (broadcast like the ops would, to
        ``shape`` when the caller computed it: ``broadcast_shape(xs)``)."""
        if shape is None:
            shape = broadcast_shape(xs)
        out = np.empty(shape, dtype)
        block = self._block
        d0 = shape[0] if shape else 1
        rows = _rows(shape, BLOCK)
        if d0 <= rows:  # one block: no slicing
            block(list(xs), self._regs(shape, dtype), out)
            return out
        # Inputs with the output's leading axis are sliced per block; others broadcast.
        cut = [x.ndim == out.ndim and x.shape[0] == d0 for x in xs]
        buf_shape = (rows,) + shape[1:]

        def run(lo, hi):
            regs = self._regs(buf_shape, dtype)
            if hi - lo != rows:
                regs = [r[: hi - lo] for r in regs]
            block([x[lo:hi] if c else x for x, c in zip(xs, cut, strict=True)], regs, out[lo:hi])

        for_blocks(d0, rows, run, out.size >= PARALLEL_MIN_SIZE)
        return out


def _straight_line(
    code: Sequence[tuple[Callable, tuple[int, ...], int]],
    n_inputs: int,
    n_regs: int,
    ops: Sequence[Operation] | None,
) -> Callable:
    """``block(ins, regs, out)`` running ``code`` as straight-line Python, cheaper per
    instruction and block than a loop over the instructions (docs/fusion.md)."""
    names = ["v%d" % i for i in range(n_inputs)] + ["r%d" % i for i in range(n_regs)]
    src = Source("elementwise program of %d ops" % len(code), "def block(ins, regs, out):")
    if n_inputs:
        src.line("%s, = ins" % ", ".join(names[:n_inputs]))
    if n_regs:
        src.line("%s, = regs" % ", ".join(names[n_inputs:]))
    for i, (fn, args, o) in enumerate(code):
        src.bind("f%d" % i, fn)
        operands = ", ".join(names[a] for a in args)
        dest = "out" if o < 0 else names[o]
        src.line("f%d(%s, out=%s)" % (i, operands, dest), None if ops is None else ops[i])
    return src.build()


def unary_kernel(np_fn: Callable):
    """A kernel ``(ctx, op, x) -> (y,)`` applying ``np_fn``."""
    return lambda ctx, op, x: (np_fn(x),)


def binary_kernel(np_fn: Callable):
    """A kernel ``(ctx, op, x, y) -> (z,)`` applying ``np_fn``."""
    return lambda ctx, op, x, y: (np_fn(x, y),)
