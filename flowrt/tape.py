"""``fr.GradientTape``: TF2's gradient API, on the graph of a function being traced.

A tape records which ops of the function graph were created while it was recording
(op creation order ranges) and which tensors and variables it watches. ``gradient``
calls ``fr.gradients`` on that graph with every op the tape did not record held
constant, so it adds exactly the gradient subgraph ``fr.gradients`` would add for the
same ``ys``/``xs``. Nested tapes give higher orders: an outer tape records the inner
tape's gradient ops like any others.
"""

from __future__ import annotations

import contextlib
import enum
from collections.abc import Iterator
from typing import Any

from . import nest
from ._core.graph import Operation, Tensor, convert_to_tensor, get_default_graph
from .gradients import gradients
from .ops import math_ops
from .ops.indexed_slices import IndexedSlices
from .variables import Variable

__all__ = ["GradientTape", "UnconnectedGradients"]


class UnconnectedGradients(enum.Enum):
    """What ``gradient`` returns for a source the target does not depend on."""

    NONE = "none"
    ZERO = "zero"


class GradientTape:
    """Records ops of a traced function for differentiation (TF2's ``tf.GradientTape``).

    Args:
      persistent: if False (default), ``gradient`` may be called once.
      watch_accessed_variables: if True (default), trainable variables read while
        recording are watched automatically.

    Example::

        @fr.function
        def grad(x):
            with fr.GradientTape() as tape:
                tape.watch(x)
                y = x * x
            return tape.gradient(y, x)

    Note (flowrt): a tape works only inside a ``@fr.function`` (graphs are all flowrt
    has; there is no eager mode): entering one elsewhere raises RuntimeError. In graph
    code use ``fr.gradients``, which builds the same gradient subgraph. No ``jacobian``.
    """

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True) -> None:
        self._persistent = bool(persistent)
        self._watch_accessed = bool(watch_accessed_variables)
        self._graph: Any = None  # the FuncGraph being traced
        self._ranges: list[list] = []
        self._watched: list[Tensor] = []
        self._watched_vars: dict[int, Variable] = {}
        self._reads: dict[int, list[Tensor]] = {}
        self._used = False

    # --- recording -------------------------------------------------------------------

    def __enter__(self) -> "GradientTape":
        g = get_default_graph()
        if not g.building_function:
            raise RuntimeError(
                "fr.GradientTape records the ops of a function being traced, so it must be "
                "used inside an @fr.function (flowrt has no eager mode). In graph (TF1) "
                "code use fr.gradients(ys, xs), which builds the same gradient subgraph."
            )
        if self._graph is not None and self._graph is not g:
            raise RuntimeError("a GradientTape records one function graph; make a new tape")
        self._graph = g
        self._start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop()

    def _start(self) -> None:
        g = self._graph
        self._ranges.append([len(g._ops), None])
        g.tapes.append(self)

    def _stop(self) -> None:
        g = self._graph
        if self._ranges and self._ranges[-1][1] is None:
            self._ranges[-1][1] = len(g._ops)
            g.tapes.remove(self)

    @contextlib.contextmanager
    def stop_recording(self) -> Iterator[None]:
        """Ops created inside the block are not recorded (held constant)."""
        if self._graph is None or not self._ranges or self._ranges[-1][1] is not None:
            raise ValueError("Tape must be recording when stop_recording is called.")
        self._stop()
        try:
            yield
        finally:
            self._start()

    def reset(self) -> None:
        """Forgets everything recorded so far (recording continues if inside the block)."""
        recording = bool(self._ranges) and self._ranges[-1][1] is None
        self._stop()
        self._ranges, self._watched, self._watched_vars, self._reads = [], [], {}, {}
        if recording:
            self._start()

    def watch(self, tensor: Any) -> None:
        """Watches a tensor, a variable, or a nest of them."""
        for t in nest.flatten(tensor):
            if isinstance(t, Variable):
                self._watched_vars[id(t)] = t
            elif isinstance(t, Tensor):
                if not t.dtype.is_floating:
                    continue  # TF: only floating-point tensors can be watched
                self._watched.append(t)
            else:
                raise ValueError(
                    "Passed in object of type %s, not tf.Tensor or "
                    "tf.Variable: %r" % (type(t).__name__, t)
                )

    def watched_variables(self) -> tuple:
        """The variables watched, explicitly or by being read while recording."""
        return tuple(self._watched_vars.values())

    def _on_read(self, variable: Variable, read: Tensor) -> None:
        if self._watch_accessed and variable.trainable:
            self._watched_vars.setdefault(id(variable), variable)
        self._reads.setdefault(id(variable), []).append(read)

    def _recorded(self, op: Operation) -> bool:
        if op.graph is not self._graph:
            return False
        i = op._id
        return any(lo <= i and (hi is None or i < hi) for lo, hi in self._ranges)

    def _connected(self) -> set:
        """Tensors that depend on a watched tensor or variable through recorded ops."""
        seen = set(self._watched)
        for k, v in self._watched_vars.items():
            seen.update(self._reads.get(k, []))
            if self._graph is not None and id(v) in self._graph.captured_variables:
                seen.add(self._graph.captured_variables[id(v)][1])
        stack = list(seen)
        while stack:
            t = stack.pop()
            for op in t.consumers():
                if not self._recorded(op):
                    continue
                for o in op.outputs:
                    if o not in seen:
                        seen.add(o)
                        stack.append(o)
        return seen

    # --- differentiation ------------------------------------------------------------

    def gradient(
        self,
        target: Any,
        sources: Any,
        output_gradients: Any = None,
        unconnected_gradients: UnconnectedGradients | str = UnconnectedGradients.NONE,
    ) -> Any:
        """The gradients of ``target`` (a nest; summed) with respect to ``sources``.

        Args:
          target: a tensor or nest of tensors computed while recording.
          sources: a tensor, variable, or nest of them (the result has this nest).
          output_gradients: initial gradients, one per target (default ones).
          unconnected_gradients: ``UnconnectedGradients.NONE`` or ``.ZERO`` (or the
            strings "none"/"zero").

        Returns:
          The gradients in the nest of ``sources``: tensors, ``IndexedSlices`` or None.

        Raises:
          RuntimeError: a non-persistent tape's second call.
        """
        if self._graph is None:
            raise RuntimeError(
                "GradientTape.gradient can only be called on a tape that "
                "has recorded (use it as `with fr.GradientTape() as tape:`)"
            )
        if self._used and not self._persistent:
            raise RuntimeError(
                "A non-persistent GradientTape can only be used to compute "
                "one set of gradients (or jacobians)"
            )
        self._used = True
        mode = (
            UnconnectedGradients(unconnected_gradients).value
            if not isinstance(unconnected_gradients, UnconnectedGradients)
            else unconnected_gradients.value
        )
        g = self._graph
        with g.as_default():
            targets = [convert_to_tensor(t) for t in nest.flatten(target)]
            flat_sources = nest.flatten(sources)
            connected = self._connected()
            groups = []
            for s in flat_sources:
                if isinstance(s, Variable):
                    reads = list(self._reads.get(id(s), [])) if id(s) in self._watched_vars else []
                    # A function call, branch or loop given the variable's handle:
                    # differentiate the handle, which sums its reads' and theirs.
                    whole = s._all_reads() if reads else []
                    handles = [r for r in whole if r.dtype.name == "resource"]
                    groups.append(handles[:1] or reads)
                elif isinstance(s, Tensor):
                    groups.append([s] if s in connected else [])
                else:
                    raise ValueError("sources must be tensors or variables, got %r" % (s,))
            xs = [t for grp in groups for t in grp]
            live = [t for t in targets if t in connected]
            grads: list[Tensor | IndexedSlices | None] = [None] * len(xs)
            if xs and live:
                grad_ys = None
                if output_gradients is not None:
                    ogs = list(nest.flatten(output_gradients))
                    grad_ys = [og for t, og in zip(targets, ogs) if t in connected]
                stops = [
                    o for op in g._ops if not self._recorded(op) for o in op.outputs if o not in xs
                ]
                grads = gradients(live, xs, grad_ys=grad_ys, stop_gradients=stops)
            it = iter(grads)
            results = []
            for s, grp in zip(flat_sources, groups):
                parts = [gr for gr in (next(it) for _ in grp) if gr is not None]
                if not parts:
                    gr = None
                elif len(parts) == 1:
                    gr = parts[0]
                else:
                    gr = math_ops.add_n(
                        [p._as_tensor() if isinstance(p, IndexedSlices) else p for p in parts]
                    )
                if gr is None and mode == "zero":
                    from .ops import array_ops

                    gr = (
                        array_ops.zeros(s.shape.as_list(), s.dtype)
                        if isinstance(s, Variable)
                        else array_ops.zeros_like(s)
                    )
                results.append(gr)
        return nest.pack_leaves(sources, results) if nest.is_nested(sources) else results[0]
