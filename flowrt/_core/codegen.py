"""Generated Python functions: a hot plan's body, a fused group, an elementwise block.

Straight-line code is where flowrt runs many kernels with no loop around them, and all
of it comes from ``Source``. A source is a function signature, body lines, the globals
the lines name, and, per line that calls an op's kernel, that op. ``Source.build``
compiles it under a filename of its own (``<flowrt plan of 12 steps #3>``) whose text is
registered with ``linecache``, so a traceback, ``pdb`` or a profiler shows the generated
lines; the entry goes when the function is collected. A failure is attributed one way
everywhere: the body is wrapped in ``try``, and the line the exception was raised at
maps to its op, which ``op_error`` names (a line that calls no kernel re-raises as is).
A line per call costs nothing at run time; a counter of the current step would.
"""

from __future__ import annotations

import itertools
import linecache
import weakref
from typing import TYPE_CHECKING, Any, Callable

from .. import errors

if TYPE_CHECKING:
    from .graph import Operation

__all__ = ["Source", "op_error"]

_serial = itertools.count(1)


def op_error(exc: BaseException, op: Operation) -> errors.OpError:
    """Wraps a kernel's plain exception as InvalidArgumentError naming the op (an
    ``OpError`` gets the op if it names none; running out of memory is
    ResourceExhaustedError)."""
    if isinstance(exc, errors.OpError):
        if exc.op is None:
            exc.op = op
        return exc
    if isinstance(exc, MemoryError) or (
        isinstance(exc, ValueError) and "larger than the maximum possible size" in str(exc)
    ):
        return errors.ResourceExhaustedError(
            None,
            op,
            "%s: OOM when allocating the op's output (%s)"
            % (op.describe(), str(exc) or "MemoryError"),
        )
    msg = str(exc) or type(exc).__name__
    return errors.InvalidArgumentError(None, op, "%s: %s" % (op.describe(), msg))


class Source:
    """The text of one generated function and the globals its lines name.

    ``what`` says what it computes (it becomes the filename); ``signature`` is its
    ``def`` line. Lines are added with ``line``; ``op`` marks a line that calls that
    op's kernel, so an exception raised there becomes ``op_error(e, op)``.
    """

    __slots__ = ("what", "signature", "env", "_lines", "_ops")

    def __init__(self, what: str, signature: str) -> None:
        self.what = what
        self.signature = signature
        self.env: dict[str, Any] = {}
        self._lines: list[str] = []
        self._ops: dict[int, Operation] = {}  # body line index -> op its call runs

    def bind(self, name: str, value: Any) -> str:
        """Makes ``value`` the global ``name`` of the generated code; returns ``name``."""
        self.env[name] = value
        return name

    def line(self, text: str, op: Operation | None = None) -> None:
        """Appends a body line (nested blocks carry their own extra indent)."""
        if op is not None:
            self._ops[len(self._lines)] = op
        self._lines.append(text)

    def build(self, context: str | None = None) -> Callable[..., Any]:
        """Compiles the function; ``context`` is a ``with`` expression around the body
        (its names bound first)."""
        head = [self.signature]
        indent = "    "
        if self._ops:
            head.append("    try:")
            indent += "    "
        if context is not None:
            head.append(indent + "with %s:" % context)
            indent += "    "
        body = [indent + b for b in self._lines] or [indent + "pass"]
        tail = []
        if self._ops:
            first = len(head) + 1  # line numbers start at 1
            self.env["OPS_AT"] = {first + k: op for k, op in self._ops.items()}
            self.env["op_error"] = op_error
            self.env["OpError"] = errors.OpError
            tail = [
                "    except Exception as e:",
                "        op = OPS_AT.get(e.__traceback__.tb_lineno)",
                "        if op is None:",
                "            raise",
                "        raise op_error(e, op) from (None if isinstance(e, OpError) else e)",
            ]
        text = "\n".join(head + body + tail) + "\n"
        filename = "<flowrt %s #%d>" % (self.what, next(_serial))
        code = compile(text, filename, "exec")
        exec(code, self.env)
        name = self.signature.split()[1].split("(")[0]
        fn: Callable[..., Any] = self.env[name]
        linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
        weakref.finalize(fn, linecache.cache.pop, filename, None)
        return fn
