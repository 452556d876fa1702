"""When a run gives the execution token up, and how long a thread's turn lasts.

The token (``token.py``) is the lock; this module is the policy around it, measured
on this project's machine (``docs/executor.md``: "The execution token" and "Turns"):

* A turn (``turn_seconds``): a thread whose run ends while only threads wait, and
  the first of them has waited less than this, may take the token back for its next
  run ahead of them (``ExecutionToken.release(linger=True)``). Each change of hands
  moves the work to a thread, often on another core, whose caches hold another run's
  data; the GIL's own switch interval bounds what a waiting thread loses.
* Which kernels run without the token (``heavy_kernel``): opaque user code always;
  products, random fills, parsing and copies (``HEAVY``) and elementwise ops or fused
  chains of them (``ELEMENTWISE_NS``) when their GIL-free part is long enough for
  another run's kernels to overlap it.
"""

from __future__ import annotations

import math
import sys
from typing import Any, Callable

import numpy as np

from .registry import get_op_def

__all__ = [
    "turn_seconds",
    "heavy_kernel",
    "released",
    "HEAVY",
    "ELEMENTWISE_NS",
    "ELEMENTWISE_RELEASE_NS",
    "MATMUL_RELEASE_FLOPS",
    "RANDOM_RELEASE_ELEMENTS",
    "PARSE_RELEASE_FIELDS",
    "COPY_RELEASE_ELEMENTS",
]


def turn_seconds() -> float:
    """How long a thread whose run ended may keep its turn ahead of waiting threads:
    the GIL's switch interval (``sys.getswitchinterval()``, 5 ms unless the program
    sets it)."""
    return sys.getswitchinterval()


def released(
    kernel: Callable[..., Any], heavy: Callable[..., bool] | None = None
) -> Callable[..., Any]:
    """``kernel`` run without the token: always (opaque user code), or when
    ``heavy(*inputs)`` says its GIL-free part is long enough for another run's kernels
    to overlap it."""
    from .token import TOKEN  # token.py imports this module (turn_seconds)

    release_all, restore = TOKEN.release_all, TOKEN.restore

    def call(ctx: Any, op: Any, *args: Any) -> Any:
        if heavy is not None and not heavy(*args):
            return kernel(ctx, op, *args)
        depth = release_all()
        try:
            return kernel(ctx, op, *args)
        finally:
            restore(depth)

    call.__wrapped__ = kernel  # type: ignore[attr-defined]
    return call


#: Products of at least this many multiply-adds release the token (docs/executor.md).
MATMUL_RELEASE_FLOPS = 1 << 22
#: Random fills of at least this many elements release the token.
RANDOM_RELEASE_ELEMENTS = 1 << 16


def _matmul_heavy(a: np.ndarray, b: np.ndarray, *_rest: Any) -> bool:
    if a.ndim < 2 or b.ndim < 2:
        return False
    flops: int = a.size * b.shape[-1]
    return flops >= MATMUL_RELEASE_FLOPS


def _fill_heavy(shape: Any, *_rest: Any) -> bool:
    elements: int = math.prod(np.asarray(shape).tolist() or [1])
    return elements >= RANDOM_RELEASE_ELEMENTS


#: decode_csv / string_to_number of at least this many fields (mostly numpy calls and
#: compiled parsing loops that release the GIL) release the token.
PARSE_RELEASE_FIELDS = 1 << 14
#: Pack / ConcatV2 results of at least this many elements (copies without the GIL).
COPY_RELEASE_ELEMENTS = 1 << 17


def _size(x: Any) -> int:
    """Elements of an array input; 1 for anything else (a handle, a scalar)."""
    return x.size if isinstance(x, np.ndarray) else 1


def _decode_heavy(records: Any, *defaults: Any) -> bool:
    return _size(records) * max(len(defaults), 1) >= PARSE_RELEASE_FIELDS


def _pack_heavy(*xs: Any) -> bool:
    return len(xs) * _size(xs[0]) >= COPY_RELEASE_ELEMENTS  # Pack's inputs share a shape


def _concat_heavy(*xs: Any) -> bool:
    return sum(map(_size, xs)) >= COPY_RELEASE_ELEMENTS


#: Op types whose kernel gives up the token when its input says it is heavy.
HEAVY: dict[str, Callable[..., bool]] = {
    "MatMul": _matmul_heavy,
    "BatchMatMulV2": _matmul_heavy,
    "RandomUniform": _fill_heavy,
    "RandomStandardNormal": _fill_heavy,
    "TruncatedNormal": _fill_heavy,
    "DecodeCSV": _decode_heavy,
    "StringToNumber": _decode_heavy,
    "Pack": _pack_heavy,
    "ConcatV2": _concat_heavy,
}


#: An elementwise kernel (or a fused chain of them) releases the token when its
#: estimated GIL-free time reaches this many nanoseconds (docs/executor.md).
ELEMENTWISE_RELEASE_NS = 25_000

#: GIL-free nanoseconds per float32 element of the elementwise ops that cost more than
#: a few tenths of one (numpy's loops, rounded down; docs/executor.md); every other
#: elementwise op counts ``_CHEAP_NS``.
ELEMENTWISE_NS: dict[str, float] = {
    "Exp": 1.5,
    "Sin": 1.5,
    "Tanh": 3.5,
    "Sigmoid": 3.5,
    "Cos": 5.0,
    "Log": 7.0,
    "Log1p": 12.0,
    "Softplus": 12.0,
    "Expm1": 40.0,
    "Asin": 50.0,
    "Acos": 50.0,
    "Pow": 50.0,
    "Tan": 50.0,
    "Cosh": 50.0,
    "Atan": 50.0,
    "Sinh": 50.0,
    "Asinh": 50.0,
    "Acosh": 50.0,
    "Atanh": 50.0,
}
_CHEAP_NS = 0.2


def _elementwise(
    kernel: Callable[..., Any], ops: list[Any], ns_per_element: float
) -> Callable[..., Any]:
    """``kernel`` of elementwise ``ops`` costing ``ns_per_element`` in all, releasing the
    token when its largest operand is long to compute.

    When every output's shape is known the choice is made here, once: the plan calls
    the kernel itself (or its released form), with no check per run; an elementwise
    output is at least as large as any operand. Otherwise each call checks its inputs.
    """
    least = ELEMENTWISE_RELEASE_NS / ns_per_element
    most = _static_elements(ops)
    if most is not None:
        return released(kernel) if most >= least else kernel

    def heavy(*xs: Any) -> bool:
        for x in xs:
            if type(x) is np.ndarray and x.size >= least:
                return True
        return False

    return released(kernel, heavy)


def _static_elements(ops: list[Any]) -> int | None:
    """The largest number of elements of any output of ``ops``, if all are known."""
    most = 0
    for op in ops:
        outputs = getattr(op, "outputs", None)
        if not outputs:
            return None
        for t in outputs:
            n = t.shape.num_elements()
            if n is None:
                return None
            most = max(most, n)
    return most


def heavy_kernel(step: Any) -> Callable[..., Any]:
    """The kernel a plan calls for ``step``: as registered, or wrapped to run without
    the token (opaque user code always; a ``HEAVY`` op type, an elementwise op or a
    fused chain of them when its inputs are big)."""
    kernel: Callable[..., Any] = step.kernel
    if step.blocking:
        return kernel  # a generator: its waits give the token up (waiting.drive_*)
    op_def = get_op_def(step.op.type)
    if op_def.extra.get("opaque"):
        return released(kernel)
    heavy = HEAVY.get(step.op.type)
    if heavy is not None:
        return released(kernel, heavy)
    members = getattr(kernel, "ops", None)  # a fused chain (fusion.FusedKernel)
    if members is not None:
        ns = sum(ELEMENTWISE_NS.get(o.type, _CHEAP_NS) for o in members)
        return _elementwise(kernel, members, ns)
    if op_def.ufunc is not None or step.op.type in ELEMENTWISE_NS:
        ns = ELEMENTWISE_NS.get(step.op.type, _CHEAP_NS)
        return _elementwise(kernel, [step.op], ns)
    return kernel
