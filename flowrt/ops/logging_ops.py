"""``fr.print``: prints tensors when it runs (TF's ``PrintV2``).

In a ``@fr.function`` it runs on every call (state ops always run there, in program
order); in TF1 graph code it runs when fetched or made a control dependency.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from .._core.graph import Operation, Tensor, convert_to_tensor, get_default_graph
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from .common import in_graph_of

__all__ = ["print"]

_STREAMS = {"stderr": lambda: sys.stderr, "stdout": lambda: sys.stdout}


def _format(v, summarize):
    a = np.asarray(v)
    if a.dtype == object:
        a = np.vectorize(lambda b: b.decode() if isinstance(b, bytes) else b)(a) if a.size else a
        if a.ndim == 0:
            return str(a[()])
    if a.ndim == 0:
        return str(a[()])
    with np.printoptions(
        threshold=summarize * 2 if summarize >= 0 else sys.maxsize, edgeitems=max(summarize, 1)
    ):
        return np.array2string(a, separator=" ")


def _print_kernel(ctx, op, *values):
    pieces, it = [], iter(values)
    for p in op.attrs["template"]:
        pieces.append(_format(next(it), op.attrs["summarize"]) if p is None else p)
    stream = op.attrs["output_stream"]
    out = stream() if callable(stream) and stream in _STREAMS.values() else stream
    out.write(op.attrs["sep"].join(pieces) + op.attrs["end"])
    out.flush()
    return ()


register_op(
    "PrintV2",
    infer=lambda op: [],
    kernel=_print_kernel,
    grad=NOT_DIFFERENTIABLE,
    stateful=True,
    quiet=True,
)


def print(
    *inputs: Any,
    output_stream: Any = None,
    summarize: int = 3,
    sep: str = " ",
    end: str = "\n",
    name: str | None = None,
) -> Operation:
    """Prints tensors and Python values each time the returned op runs (TF2 ``tf.print``).

    Args:
      *inputs: tensors (printed as their values) and Python objects (printed as str).
      output_stream: ``sys.stderr`` (default; the one current when the op runs),
        ``sys.stdout``, or any object with ``write``.
      summarize: how many leading and trailing elements per dimension to print (-1:
        all).
      sep: as for Python's ``print``.
      end: as for Python's ``print``.

    Returns:
      The print op.

    Note (flowrt): values are formatted by numpy (``[1. 2.5]``), where TF writes
    ``[1 2.5]``.
    """
    with in_graph_of([inputs]):
        tensors: list[Tensor] = []
        template: list[str | None] = []
        for x in inputs:
            if isinstance(x, Tensor) or hasattr(x, "_as_tensor"):
                tensors.append(convert_to_tensor(x))
                template.append(None)
            else:
                template.append(str(x))
        if output_stream is None or output_stream is sys.stderr:
            output_stream = _STREAMS["stderr"]
        elif output_stream is sys.stdout:
            output_stream = _STREAMS["stdout"]
        elif not hasattr(output_stream, "write"):
            raise ValueError(
                "Unsupported output stream %r: use sys.stderr, sys.stdout or an "
                "object with a write method" % (output_stream,)
            )
        g = get_default_graph()
        return g._create_op(
            "PrintV2",
            tensors,
            {
                "template": template,
                "output_stream": output_stream,
                "summarize": int(summarize),
                "sep": sep,
                "end": end,
            },
            name,
            "PrintV2",
        )
