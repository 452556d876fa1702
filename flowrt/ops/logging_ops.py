"""``fr.print``: prints tensors when it runs (TF's ``PrintV2``), and
``fr.strings.format``, which formats them the same way into a string (``StringFormat``).

In a ``@fr.function`` it runs on every call (state ops always run there, in program
order); in TF1 graph code it runs when fetched or made a control dependency.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from .. import dtypes as _dt
from .._core.graph import Operation, Tensor, convert_to_tensor, get_default_graph
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from .._core.shape import TensorShape
from .common import in_graph_of, make

__all__ = ["print"]  # string_format is fr.strings.format only

_STREAMS = {"stderr": lambda: sys.stderr, "stdout": lambda: sys.stdout}


def _format(v, summarize, quote=False):
    """``v`` as text; strings in double quotes when ``quote`` (``StringFormat``'s rule)."""
    a = np.asarray(v)
    formatter = None
    if a.dtype == object:
        a = np.vectorize(lambda b: b.decode() if isinstance(b, bytes) else b)(a) if a.size else a
        if quote:
            formatter = {"all": lambda t: '"%s"' % t}
        if a.ndim == 0:
            return formatter["all"](a[()]) if formatter else str(a[()])
    if a.ndim == 0:
        return str(a[()])
    with np.printoptions(
        threshold=summarize * 2 if summarize >= 0 else sys.maxsize, edgeitems=max(summarize, 1)
    ):
        return np.array2string(a, separator=" ", formatter=formatter)


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


def string_format(
    template: str,
    inputs: Any,
    placeholder: str = "{}",
    summarize: int = 3,
    name: str | None = None,
) -> Tensor:
    """A scalar string: ``template`` with each ``placeholder`` replaced by the value of
    the next tensor of ``inputs`` (op ``StringFormat``), as TF1's
    ``tf.strings.format``.

    Args:
      template: the text, with one ``placeholder`` per input.
      inputs: a tensor or a list of tensors.
      placeholder: the marker replaced by each input.
      summarize: how many leading and trailing elements per dimension to show (-1:
        all).
      name: a name for the op.

    Raises:
      ValueError: when the number of placeholders is not the number of inputs.

    Note (flowrt): values are formatted by numpy, as ``fr.print``'s (``[1. 2.5]``, where
    TF writes ``[1 2.5]``); integers, strings (in double quotes) and scalars read the
    same as TF's.
    """
    if isinstance(inputs, (list, tuple)):
        inputs = list(inputs)
    else:
        inputs = [inputs]
    pieces = template.split(placeholder)
    if len(pieces) - 1 != len(inputs):
        raise ValueError(
            "num placeholders in template and num inputs must match: %d vs. %d"
            % (len(pieces) - 1, len(inputs))
        )
    with in_graph_of([inputs]):
        tensors = [convert_to_tensor(x) for x in inputs]
        attrs = {"template": template, "placeholder": placeholder, "summarize": int(summarize)}
        return make("StringFormat", tensors, attrs, name, "StringFormat")


def _string_format_kernel(ctx, op, *values):
    a = op.attrs
    pieces = a["template"].split(a["placeholder"])
    out = [pieces[0]]
    for v, p in zip(values, pieces[1:], strict=True):
        out += [_format(v, a["summarize"], quote=True), p]
    return (np.array("".join(out).encode(), dtype=object),)


register_op(
    "StringFormat",
    infer=lambda op: [(_dt.string, TensorShape([]))],
    kernel=_string_format_kernel,
    grad=NOT_DIFFERENTIABLE,
    quiet=True,
)
