"""``Session.partial_run``: one step of a graph run in several calls, as TF1's.

``partial_run_setup(fetches, feeds)`` names every tensor the step will fetch and every
tensor it will be fed. Each ``partial_run(handle, fetches, feed_dict)`` feeds some of
them and fetches some: as in TF, every op of the step runs once, as soon as everything
it depends on is known. A call runs the ops that its feeds made ready (those depending
on a tensor still to be fed wait), keeping the values that waiting ops will read; a
later call feeds those values back instead of running their ops again.

The ops that only make a resource handle (a variable's, a queue's) are not kept but
run again when a later call needs them: they look the resource up and change nothing.
"""

from __future__ import annotations

import itertools
import threading
from typing import Any

from .. import errors
from .._core.graph import Operation, Tensor
from ..dtypes import resource
from ..fetch_structures import Fetches, resolve_feeds

__all__ = ["PartialRun"]

_handles = itertools.count()


def _name(t: Tensor) -> str:
    return t.name


class PartialRun:
    """The state of one partial run: what was fed, fetched, run, and the values kept."""

    def __init__(self, sess: Any, fetches: Any, feeds: Any) -> None:
        g = sess.graph
        fm = Fetches(g, fetches if fetches is not None else [])
        self.sess = sess
        self.fetches = list(fm.tensors)
        self.targets = list(fm.targets)
        self.feeds: list[Tensor] = []
        for f in feeds or []:
            try:
                t = g.as_graph_element(f, allow_tensor=True, allow_operation=False)
            except (KeyError, ValueError, TypeError) as e:
                raise TypeError(
                    "Cannot interpret partial_run_setup feed as Tensor: %s"
                    % (e.args[0] if e.args else e)
                ) from None
            self.feeds.append(t)
        self.handle = "%s->%s//%d" % (
            ",".join(_name(t) for t in self.feeds),
            ",".join(_name(t) for t in self.fetches),
            next(_handles),
        )
        self.lock = threading.Lock()
        self.known: dict[Tensor, Any] = {}  # fed and kept values
        self.fetched: set[Tensor] = set()
        self.done: set[Operation] = set()
        self.ops = self._closure()
        self._advance()

    def _closure(self) -> list[Operation]:
        """The ops of the step, in an order where each comes after its inputs."""
        fed = set(self.feeds)
        order: list[Operation] = []
        seen: set[Operation] = set()
        stack: list[tuple[Operation, bool]] = [
            (t.op, False) for t in reversed(self.fetches) if t not in fed
        ] + [(op, False) for op in reversed(self.targets)]
        while stack:
            op, expanded = stack.pop()
            if expanded:
                order.append(op)
                continue
            if op in seen:
                continue
            seen.add(op)
            stack.append((op, True))
            deps = [x.op for x in op.inputs if x not in fed] + list(op.control_inputs)
            stack.extend((d, False) for d in reversed(deps) if d not in seen)
        return order

    def _blocked(self) -> set[Operation]:
        """The ops that depend on a tensor still to be fed."""
        pending = {t for t in self.feeds if t not in self.known}
        blocked: set[Operation] = set()
        for op in self.ops:
            if any(x in pending or x.op in blocked for x in op.inputs) or any(
                c in blocked for c in op.control_inputs
            ):
                blocked.add(op)
        return blocked

    def run(self, fetches: Any, feed_dict: Any) -> Any:
        """One call: feeds ``feed_dict``, returns ``fetches`` (tensors of the setup)."""
        g = self.sess.graph
        fm = Fetches(g, fetches)
        if fm.targets:
            raise RuntimeError(
                "partial_run() requires empty `target_list`. Received: target_list=%s "
                "(non-empty)" % fm.targets
            )
        tensors, values = resolve_feeds(g, feed_dict) if feed_dict else ((), [])
        with self.lock:
            for t in tensors:
                if t not in self.feeds:
                    raise errors.InvalidArgumentError(
                        None, t.op, "The feed %s was not specified in partial_run_setup." % t.name
                    )
                if t in self.known:
                    raise errors.InvalidArgumentError(
                        None, t.op, "The feed %s has already been fed." % t.name
                    )
            for t in fm.tensors:
                if t not in self.fetches:
                    raise errors.InvalidArgumentError(
                        None, t.op, "The fetch %s was not specified in partial_run_setup." % t.name
                    )
                if t in self.fetched:
                    raise errors.InvalidArgumentError(
                        None, t.op, "The fetch %s has already been fetched." % t.name
                    )
            self._check_computable(fm.tensors, set(tensors))
            self.known.update(zip(tensors, values))
            self._advance()
            self.fetched.update(fm.tensors)
            return fm.build([self.known[t] for t in fm.tensors])

    def _check_computable(self, fetches: list[Tensor], feeding: set[Tensor]) -> None:
        pending = {t for t in self.feeds if t not in self.known and t not in feeding}
        seen: set[Operation] = set()
        stack = [t for t in fetches if t not in self.known and t not in feeding]
        for t in stack:
            if t in pending:
                self._cannot(t)
        ops = [t.op for t in stack]
        while ops:
            op = ops.pop()
            if op in seen or op in self.done:
                continue
            seen.add(op)
            for x in op.inputs:
                if x in pending:
                    self._cannot(x)
                if x not in self.known and x not in feeding:
                    ops.append(x.op)
            ops.extend(op.control_inputs)

    @staticmethod
    def _cannot(t: Tensor) -> None:
        raise errors.InvalidArgumentError(
            None,
            t.op,
            "Fetch %s can't be computed from the feeds that have been fed so far." % t.name,
        )

    def _advance(self) -> None:
        """Runs every op of the step that is ready and has not run, keeping the values
        the waiting ops (and the fetches) will read."""
        blocked = self._blocked()
        ready = [
            op
            for op in self.ops
            if op not in self.done and op not in blocked and not _handle_only(op)
        ]
        if not ready:
            return
        later = [op for op in self.ops if op not in self.done and op not in ready]
        needed = set(self.fetches) | {x for op in later for x in op.inputs}
        keep = [
            t
            for op in ready
            for t in op.outputs
            if t in needed and t not in self.known and t.dtype is not resource
        ]
        sinks = [op for op in ready if not any(t in keep for t in op.outputs)]
        inputs = {x for op in ready for x in op.inputs if x in self.known}
        feed = {t: self.known[t] for t in inputs}
        got = self.sess.run([keep, sinks], feed)[0]
        self.known.update(zip(keep, got))
        self.done.update(ready)


def _handle_only(op: Operation) -> bool:
    return bool(op.outputs) and all(t.dtype is resource for t in op.outputs)
