"""``@fr.function``: TF2's way to build the same graphs, by tracing Python functions.

Processing order:

1. **Key.** A call's arguments are bound to the Python signature; each leaf of their
   nests gives a key: a tensor or array its dtype and static shape, a variable its
   identity, any other Python value itself. ``input_signature`` fixes the key.
2. **Trace** (once per key, under a lock). The function runs once with placeholders for
   its tensor arguments, inside a new ``FuncGraph`` (see func_graph.py: variables used
   are captured, variables created are lifted). Afterwards its state ops (assignments,
   reads, prints, ...) are chained in program order by control edges, as TF2's automatic
   control dependencies do, and the last one becomes a target of every run: a side
   effect runs on every call even when no output depends on it.
3. **Run.** From plain Python, a concrete function runs its graph on its own internal
   ``Session`` and returns numpy values (``await f.acall(...)`` runs it from trio).
   While another graph is being built (inside another function, inside
   ``with graph.as_default():``, or given symbolic tensors) it becomes one call op
   (``StatefulPartitionedCall``/``PartitionedCall``) whose kernel runs the function's
   plan with the outer step's context, so it prunes and caches like any op.
4. **Differentiate.** The gradient of a call op is a call op of the same function graph
   extended with its gradient ops (``fr.gradients`` inside it); forward values those
   need become extra outputs of the forward call op, so nothing runs twice.
"""

from __future__ import annotations

import functools
import inspect
import threading
import warnings
import weakref
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, overload

import numpy as np
import trio

from . import dtypes as _dt
from . import nest
from ._core.graph import Operation, Tensor, _graph_stack, convert_to_tensor, get_default_graph
from ._core.registry import get_op_def
from ._core.shape import TensorShape, as_shape, unknown_shape
from .func_graph import FuncGraph, notify_read
from .ops import array_ops
from .ops.functional_ops import CallSpec, call_op
from .ops.sparse_ops import SparseTensor, SparseTensorValue
from .variables import Variable

if TYPE_CHECKING:
    from ._core.typing import DTypeLike, ShapeLike, TensorLike

__all__ = ["function", "TensorSpec", "ConcreteFunction", "Function", "RetracingWarning"]

# TF2 warns when one function has been traced this many times.
RETRACE_WARNING_THRESHOLD = 5

# One trace at a time in the process: traces create ops in the shared variables graph.
_TRACE_LOCK = threading.RLock()


class RetracingWarning(UserWarning):
    """A function was traced often: its calls pass new shapes, dtypes or Python values."""


class TensorSpec:
    """Describes a tensor argument: its shape (``None`` for unknown dims) and dtype.

    Args:
      shape: a list of dims (``None`` for any size), a ``TensorShape``, or None (any rank).
      dtype: the dtype (default float32).
      name: the placeholder's name in the traced graph (default: the argument's name).
    """

    __slots__ = ("shape", "dtype", "name")

    def __init__(
        self, shape: ShapeLike, dtype: DTypeLike = _dt.float32, name: str | None = None
    ) -> None:
        self.shape = as_shape(shape) if shape is not None else unknown_shape()
        self.dtype = _dt.as_dtype(dtype)
        self.name = name

    @classmethod
    def from_tensor(cls, tensor: Tensor | Variable, name: str | None = None) -> TensorSpec:
        return cls(tensor.shape, tensor.dtype, name or getattr(tensor, "name", None))

    def is_compatible_with(self, other: TensorSpec | TensorLike) -> bool:
        """True if ``other`` (a spec, tensor or array) has this dtype and a fitting shape."""
        if isinstance(other, TensorSpec):
            return other.dtype is self.dtype and self.shape.is_compatible_with(other.shape)
        if isinstance(other, Tensor):
            return other.dtype is self.dtype and self.shape.is_compatible_with(other.shape)
        arr = np.asarray(other)
        return _dt.as_dtype(arr.dtype) is self.dtype and self.shape.is_compatible_with(
            TensorShape(arr.shape)
        )

    def _key(self):
        dims = None if self.shape.ndims is None else tuple(self.shape.as_list())
        return ("T", self.dtype.name, dims)

    def __eq__(self, other):
        return (
            isinstance(other, TensorSpec)
            and self._key() == other._key()
            and self.name == other.name
        )

    def __hash__(self):
        return hash((self._key(), self.name))

    def __repr__(self):
        if self.shape.ndims is None:
            dims = "None"
        else:
            inner = ", ".join("None" if d is None else str(d) for d in self.shape.as_list())
            dims = "(%s%s)" % (inner, "," if self.shape.ndims == 1 else "")
        return "TensorSpec(shape=%s, dtype=fr.%s, name=%r)" % (dims, self.dtype.name, self.name)


# --------------------------------------------------------------------------------------
# Keys: what makes two calls use one trace
# --------------------------------------------------------------------------------------


class _Component:
    """One component of a sparse argument, traced at ``spec``: any number of entries
    (TF's ``SparseTensorSpec``), so a call with other entries reuses the trace."""

    __slots__ = ("value", "spec")

    def __init__(self, value, spec: TensorSpec):
        self.value, self.spec = value, spec


class _SparseParts(tuple):
    """A sparse argument as the nest of its three components (``_Component`` leaves)."""

    __slots__ = ()


def _split_sparse(x):
    """``x`` with every SparseTensor (or SparseTensorValue) in it as ``_SparseParts``."""
    if isinstance(x, (SparseTensor, SparseTensorValue)):
        sp = SparseTensor.from_value(x) if isinstance(x, SparseTensorValue) else x
        rank = sp.dense_shape.shape.dims[0] if sp.dense_shape.shape.ndims == 1 else None
        specs = (
            TensorSpec([None, rank], _dt.int64),
            TensorSpec([None], sp.values.dtype),
            TensorSpec([rank], _dt.int64),
        )
        if isinstance(x, SparseTensorValue):
            parts = (np.asarray(x.indices, np.int64), np.asarray(x.values), x.dense_shape)
            parts = parts[:2] + (np.asarray(parts[2], np.int64),)
        else:
            parts = (x.indices, x.values, x.dense_shape)
        return _SparseParts(_Component(v, s) for v, s in zip(parts, specs))
    if isinstance(x, dict):
        return {k: _split_sparse(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)) and not hasattr(x, "_fields"):
        return type(x)(_split_sparse(v) for v in x)
    return x


def _join_sparse(x):
    """``x`` with every ``_SparseParts`` of placeholders made a SparseTensor again."""
    if isinstance(x, _SparseParts):
        return SparseTensor(*x)
    if isinstance(x, dict):
        return {k: _join_sparse(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)) and not hasattr(x, "_fields"):
        return type(x)(_join_sparse(v) for v in x)
    return x


def _fed(x):
    """The value to feed for a flat argument leaf."""
    return x.value if isinstance(x, _Component) else x


def _leaf_spec(x):
    """A TensorSpec for a tensor-like leaf, or None for a Python value or a variable."""
    if isinstance(x, TensorSpec):
        return x
    if isinstance(x, _Component):
        return x.spec
    if isinstance(x, Tensor):
        return TensorSpec(x.shape, x.dtype)
    if isinstance(x, (np.ndarray, np.generic)):
        return TensorSpec(list(np.shape(x)), _dt.as_dtype(x.dtype))
    return None


def _leaf_key(x):
    spec = _leaf_spec(x)
    if spec is not None:
        return spec._key()
    if isinstance(x, Variable):
        return ("V", id(x))
    try:
        hash(x)
    except TypeError:
        return ("O", id(x))
    return ("P", type(x).__name__, x)


def _structure_key(x):
    if isinstance(x, dict):
        return ("dict", tuple((k, _structure_key(x[k])) for k in sorted(x)))
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, tuple(_structure_key(c) for c in x))
    return _leaf_key(x)


def _relaxed(specs_a, specs_b):
    """The most specific specs compatible with both lists (``None`` where dims differ)."""
    out = []
    for a, b in zip(specs_a, specs_b):
        if a.shape.ndims is None or b.shape.ndims != a.shape.ndims:
            out.append(TensorSpec(None, a.dtype))
            continue
        dims = [x if x == y else None for x, y in zip(a.shape.as_list(), b.shape.as_list())]
        out.append(TensorSpec(dims, a.dtype))
    return out


# --------------------------------------------------------------------------------------
# Concrete functions
# --------------------------------------------------------------------------------------


def _auto_control_dependencies(g: FuncGraph) -> Operation | None:
    """Chains ``g``'s state ops in program order; returns the last one (or None)."""
    nested = g._scratch.get("control_flow_bodies", set())
    chain = [
        op
        for op in g._ops
        if op not in nested
        and op.type not in ("VarHandleOp", "Placeholder")
        and get_op_def(op.type).stateful
    ]
    for prev, op in zip(chain, chain[1:]):
        op._add_control_input(prev)
    return chain[-1] if chain else None


class ConcreteFunction:
    """One trace of a function: its graph, inputs and outputs, and a way to call it.

    Attributes:
      graph: the ``FuncGraph`` traced into.
      inputs: the placeholders of the tensor arguments, then the handles of captured
        variables (as TF2 lists captures after arguments).
      outputs: the output tensors, flat (``structured_outputs`` has the nest).
      variables: the variables the function uses (captured or created), in order of use.
      structured_input_signature: the arguments as ``TensorSpec``s and Python values.
    """

    def __init__(
        self,
        name: str,
        graph: FuncGraph,
        placeholders: Iterable[Tensor],
        structured_inputs: tuple[tuple[Any, ...], dict[str, Any]],
        outputs: Iterable[Tensor],
        structure: Any,
        target: Operation | None,
    ) -> None:
        self.name = name
        self.graph = graph
        self._placeholders = list(placeholders)
        self.structured_input_signature = structured_inputs
        self.outputs = list(outputs)
        self.structured_outputs = structure
        self._target = target
        self._specs: dict = {}  # which captured handles a call op feeds -> CallSpec
        self._specs_lock = threading.Lock()
        self._fetches = self.outputs + ([target] if target is not None else [])
        self._session = None
        self._session_lock = threading.Lock()

    @property
    def inputs(self) -> list[Tensor]:
        return self._placeholders + [h for _, h in self.graph.captured_variables.values()]

    @property
    def variables(self) -> list[Variable]:
        seen = {id(v): v for v in self.graph.created_variables}
        seen.update((k, v) for k, (v, _) in self.graph.captured_variables.items())
        return list(seen.values())

    @property
    def trainable_variables(self) -> list[Variable]:
        return [v for v in self.variables if v.trainable]

    def pretty_printed_signature(self) -> str:
        """The call signature, e.g. ``f(TensorSpec(shape=(2,), dtype=fr.float32,
        name='x'), 3.0) -> [float32 (2,)]`` (Python arguments by value)."""
        args, kwargs = self.structured_input_signature
        parts = [repr(a) for a in args] + ["%s=%r" % kv for kv in sorted(kwargs.items())]
        outs = ", ".join("%s %s" % (t.dtype.name, t.shape) for t in self.outputs)
        return "%s(%s) -> [%s]" % (self.name, ", ".join(parts), outs)

    def __repr__(self):
        return "<ConcreteFunction %s>" % self.pretty_printed_signature()

    # --- running ----------------------------------------------------------------------

    def _sess(self):
        if self._session is None:
            from .session import Session

            with self._session_lock:
                if self._session is None:
                    self._session = Session(graph=self.graph)
        return self._session

    def _result(self, vals):
        flat = iter(vals)
        leaves = [
            None if x is None or isinstance(x, Operation) else next(flat)
            for x in nest.flatten(self.structured_outputs)
        ]
        return (
            nest.pack_leaves(self.structured_outputs, leaves)
            if nest.is_nested(self.structured_outputs)
            else leaves[0]
        )

    def _run(self, feeds: list):
        if trio.lowlevel.in_trio_run():
            raise RuntimeError(
                "fr.function %r was called from a thread running a trio event loop; it "
                "would block that loop. Use `await f.acall(...)` there instead." % self.name
            )
        vals = self._sess().run(self._fetches, dict(zip(self._placeholders, feeds)))
        return self._result(vals[: len(self.outputs)])

    async def _arun(self, feeds: list):
        vals = await self._sess().arun(self._fetches, dict(zip(self._placeholders, feeds)))
        return self._result(vals[: len(self.outputs)])

    def _call_in_graph(self, feeds: list):
        g = get_default_graph()
        inputs = [convert_to_tensor(x, dtype=p.dtype) for x, p in zip(feeds, self._placeholders)]
        # A variable of the calling graph (or captured by the calling function) is passed
        # in as its handle, so the call uses the caller's state of it (a session's value
        # in a TF1 graph); a variable of some other graph keeps its eager state.
        fed, outer = [], []
        for v, h in self.graph.captured_variables.values():
            home = v._handle
            if home.graph is g or g.building_function:
                fed.append(h)
                outer.append(v.handle if g.building_function else home)
        key = tuple(id(h) for h in fed)
        with self._specs_lock:
            spec = self._specs.get(key)
            if spec is None:
                targets = [self._target] if self._target is not None else []
                spec = self._specs[key] = CallSpec(
                    self.graph, self._placeholders + fed, self.outputs, targets, self.name
                )
        op = call_op(spec, inputs + outer, self.name)
        if g.building_function:
            for (v, _), h in zip(self.graph.captured_variables.values(), outer):
                notify_read(g, v, h)  # the call reads it: tapes of the caller watch it
        if not self.outputs:
            return op
        return self._result(op.outputs[: len(self.outputs)])

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Runs this trace with tensor arguments in the order of ``inputs`` (numpy out)."""
        flat = [x for x in nest.flatten((list(args), kwargs)) if _leaf_spec(x) is not None]
        if len(flat) != len(self._placeholders):
            raise TypeError(
                "%s expects %d tensor arguments, got %d"
                % (self.name, len(self._placeholders), len(flat))
            )
        if _builds_graph(flat):
            return self._call_in_graph(flat)
        return self._run(flat)


def _builds_graph(flat_leaves) -> bool:
    """Whether a call adds a call op (another graph is being built) or runs now."""
    if _graph_stack():  # a graph entered with as_default(), a function's among them
        return True
    return any(isinstance(x, Tensor) for x in flat_leaves)


# --------------------------------------------------------------------------------------
# Function
# --------------------------------------------------------------------------------------


class Function:
    """A Python function traced to graphs, one per input signature (``@fr.function``).

    Calling it with numpy values or Python numbers runs the graph and returns numpy
    values; ``await f.acall(...)`` does the same from a trio task. While another graph is
    being built it adds a call op there and returns its tensors.

    Note (flowrt): there is no autograph. Python ``if``/``for`` over tensors raise
    ``fr.errors.OperatorNotAllowedInGraphError``; use ``fr.cond`` and
    ``fr.while_loop``. Outputs are numpy values, not eager tensors.
    """

    def __init__(
        self,
        python_function: Callable[..., Any],
        name: str | None = None,
        input_signature: Sequence[Any] | None = None,
        reduce_retracing: bool = False,
    ) -> None:
        self._python_function = python_function
        fname: str = name if name else getattr(python_function, "__name__", "function")
        self.__name__ = self._name = fname
        self._signature = inspect.signature(python_function)
        self._input_signature: list[Any] | None = None
        if input_signature is not None:
            if not isinstance(input_signature, (list, tuple)):
                raise TypeError(
                    "input_signature must be either a tuple or a list, got %s."
                    % type(input_signature)
                )
            for s in nest.flatten(list(input_signature)):
                if not isinstance(s, TensorSpec):
                    raise TypeError(
                        "input_signature must be a possibly nested sequence of "
                        "TensorSpec objects, got invalid args %r" % (s,)
                    )
            self._input_signature = list(input_signature)
        self._reduce_retracing = bool(reduce_retracing)
        self._cache: dict = {}
        self._fast: dict = {}  # positional numpy/Python arguments -> (trace, feed order)
        self._by_structure: dict = {}
        self._lock = _TRACE_LOCK  # one lock order: a trace may call other functions
        self._traces = 0
        self._warned = False
        self._bound: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        functools.update_wrapper(self, python_function)

    @property
    def python_function(self) -> Callable[..., Any]:
        return self._python_function

    @property
    def input_signature(self) -> list[Any] | None:
        return self._input_signature

    def experimental_get_tracing_count(self) -> int:
        """How many times the Python function has been traced."""
        return self._traces

    def __get__(self, instance: object, owner: type | None = None) -> Function:
        # A decorated method: one Function (one trace cache) per instance, as TF2.
        if instance is None:
            return self
        f = self._bound.get(instance)
        if f is None:
            f = Function(
                functools.partial(self._python_function, instance),
                self._name,
                self._input_signature,
                self._reduce_retracing,
            )
            self._bound[instance] = f
        return f

    # --- binding arguments ---------------------------------------------------------

    def _bind(self, args, kwargs):
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError("%s: %s" % (self._name, e)) from None
        bound.apply_defaults()
        return bound

    def _bind_signature(self, args, kwargs):
        """Arguments checked against and converted to ``input_signature``."""
        if kwargs:
            bound = self._bind(args, kwargs)
            args = tuple(bound.arguments.values())
        sig = self._input_signature
        if len(args) != len(sig):
            raise TypeError(
                "%s: the input_signature has %d arguments, the call passed %d"
                % (self._name, len(sig), len(args))
            )
        values = []
        leaves = []
        for spec, x in zip(sig, args):
            leaves.extend(_flatten_up_to(spec, x, self._name))
        for i, (x, spec) in enumerate(zip(leaves, nest.flatten(sig))):
            if isinstance(x, Tensor):
                ok = spec.is_compatible_with(x)
            else:
                try:
                    x = np.asarray(x, dtype=spec.dtype.np) if not isinstance(x, np.ndarray) else x
                except (TypeError, ValueError):
                    ok = False
                else:
                    ok = spec.is_compatible_with(x)
            if not ok:
                raise TypeError(
                    "%s: Python inputs incompatible with input_signature: argument %d %r "
                    "does not match %r" % (self._name, i, x, spec)
                )
            values.append(x)
        return values

    # --- tracing ----------------------------------------------------------------------

    def _concrete(self, args, kwargs) -> tuple[ConcreteFunction, list]:
        """The concrete function for a call and the flat tensor values to feed it."""
        if self._input_signature is not None:
            values = self._bind_signature(args, kwargs)
            cf = self._cache.get("signature")
            if cf is None:
                with self._lock:
                    cf = self._cache.get("signature")
                    if cf is None:
                        cf = self._cache["signature"] = self._trace_signature()
            return cf, values
        bound = self._bind(args, kwargs)
        arguments = _split_sparse(dict(bound.arguments))
        key = _structure_key(arguments)
        cf = self._cache.get(key)
        flat = nest.flatten(list(arguments.values()))  # parameter order
        values = [x for x in flat if _leaf_spec(x) is not None]
        if cf is not None:
            return cf, [_fed(x) for x in values]
        with self._lock:
            cf = self._cache.get(key)
            if cf is None:
                cf = self._relaxed_match(arguments, values)
            if cf is None:
                cf = self._trace(arguments, [_leaf_spec(x) for x in values])
                self._cache[key] = cf
            else:
                self._cache[key] = cf
        return cf, [_fed(x) for x in values]

    def _relaxed_match(self, arguments, values):
        """With reduce_retracing: a trace whose specs fit, or a trace relaxed to fit."""
        if not self._reduce_retracing:
            return None
        skel = _skeleton(arguments)
        specs = [_leaf_spec(x) for x in values]
        for cf in self._by_structure.get(skel, []):
            ph = cf._placeholders
            if all(
                s.dtype is p.dtype and p.shape.is_compatible_with(s.shape)
                for s, p in zip(specs, ph)
            ):
                return cf
        prior = self._by_structure.get(skel)
        if prior:
            last = [TensorSpec(p.shape, p.dtype) for p in prior[-1]._placeholders]
            if all(a.dtype is b.dtype for a, b in zip(last, specs)):
                return self._trace(arguments, _relaxed(last, specs))
        return None

    def _trace(self, arguments: dict, specs: list) -> ConcreteFunction:
        with _TRACE_LOCK:
            self._traces += 1
            # TF2's rule: variables only while no trace has succeeded yet.
            first = not self._by_structure
            self._maybe_warn()
            fg = FuncGraph(self._name, may_create_variables=first)
            with fg.as_default():
                it = iter(specs)
                names = iter(_leaf_names(arguments))
                phs, leaves = [], []
                for x in nest.flatten(list(arguments.values())):
                    name = next(names)
                    if _leaf_spec(x) is None:
                        leaves.append(x)
                        continue
                    spec = next(it)
                    ph = array_ops.placeholder(spec.dtype, spec.shape, name=spec.name or name)
                    phs.append(ph)
                    leaves.append(ph)
                packed: Any = _join_sparse(nest.pack_leaves(list(arguments.values()), leaves))
                bound = dict(zip(arguments, packed))
                cf = self._finish_trace(fg, phs, bound, specs)
            skel = _skeleton(arguments)
            self._by_structure.setdefault(skel, []).append(cf)
            return cf

    def _trace_signature(self) -> ConcreteFunction:
        with _TRACE_LOCK:
            self._traces += 1
            fg = FuncGraph(self._name, may_create_variables=True)  # the only trace
            params = list(self._signature.parameters)
            signature = self._input_signature or []  # called only when there is one
            with fg.as_default():
                args = []
                for i, s in enumerate(signature):
                    base = params[i] if i < len(params) else "arg%d" % i
                    leaves = [
                        array_ops.placeholder(x.dtype, x.shape, name=x.name or base)
                        for x in nest.flatten(s)
                    ]
                    args.append(nest.pack_leaves(s, leaves) if nest.is_nested(s) else leaves[0])
                arguments = dict(zip(params, args))
                phs = [x for x in nest.flatten(args)]
                return self._finish_trace(fg, phs, arguments, list(signature))

    def _finish_trace(self, fg, phs, arguments, specs) -> ConcreteFunction:
        args, kwargs = [], {}
        for name, p in self._signature.parameters.items():
            if name not in arguments:
                continue
            if p.kind is p.VAR_POSITIONAL:
                args.extend(arguments[name])
            elif p.kind is p.VAR_KEYWORD:
                kwargs.update(arguments[name])
            elif p.kind is p.KEYWORD_ONLY:
                kwargs[name] = arguments[name]
            else:
                args.append(arguments[name])
        result = self._python_function(*args, **kwargs)
        flat = []
        for x in nest.flatten(result):
            if x is None or isinstance(x, Operation):
                continue
            flat.append(convert_to_tensor(x))
        converted = iter(flat)
        structure = (
            nest.pack_leaves(
                result,
                [
                    x if x is None or isinstance(x, Operation) else next(converted)
                    for x in nest.flatten(result)
                ],
            )
            if nest.is_nested(result)
            else (result if result is None or isinstance(result, Operation) else flat[0])
        )
        target = _auto_control_dependencies(fg)
        sig_args = tuple(_spec_or_value(x) for x in nest.flatten(list(arguments.values())))
        return ConcreteFunction(self._name, fg, phs, (sig_args, {}), flat, structure, target)

    def _maybe_warn(self):
        if self._traces >= RETRACE_WARNING_THRESHOLD and not self._warned:
            self._warned = True
            warnings.warn(
                "%d calls to fr.function %r triggered a retrace. Tracing is expensive; "
                "frequent retracing comes from (1) creating the fr.function anew in a "
                "loop, (2) passing tensors or arrays of changing shapes (use "
                "reduce_retracing=True or an input_signature with None dimensions), "
                "(3) passing changing Python values instead of arrays."
                % (self._traces, self._name),
                RetracingWarning,
                stacklevel=5,
            )

    # --- public API --------------------------------------------------------------------

    def get_concrete_function(self, *args, **kwargs) -> ConcreteFunction:
        """The trace for these arguments (``TensorSpec``s or values), tracing if needed."""
        if self._input_signature is not None:
            with self._lock:
                cf = self._cache.get("signature")
                if cf is None:
                    cf = self._cache["signature"] = self._trace_signature()
            return cf
        return self._concrete(args, kwargs)[0]

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        fk = None if kwargs else _fast_key(args)
        hit = self._fast.get(fk) if fk is not None else None
        if hit is not None and not _builds_graph(()):
            cf, order = hit
            return cf._run([args[i] for i in order])
        cf, values = self._concrete(args, kwargs)
        if fk is not None and self._input_signature is None:
            order = [next((i for i, a in enumerate(args) if a is v), None) for v in values]
            if None not in order:
                self._fast[fk] = (cf, order)
        if _builds_graph(values):
            return cf._call_in_graph(values)
        return cf._run(values)

    async def acall(self, *args: Any, **kwargs: Any) -> Any:
        """Runs the function from a trio task without blocking the loop (numpy out).

        Several ``acall``s of one function from tasks of one nursery run at once and
        share its variables' state.
        """
        cf, values = self._concrete(args, kwargs)
        return await cf._arun(values)

    def __repr__(self):
        return "<fr.function %s>" % self._name


def _flatten_up_to(spec, x, fname) -> list:
    """The leaves of ``x`` matching the ``TensorSpec`` leaves of the nest ``spec``."""
    if isinstance(spec, TensorSpec):
        return [x]
    kids = [spec[k] for k in sorted(spec)] if isinstance(spec, dict) else list(spec)
    try:
        xs = [x[k] for k in sorted(spec)] if isinstance(spec, dict) else list(x)
    except (TypeError, KeyError):
        xs = None
    if xs is None or len(xs) != len(kids):
        raise TypeError(
            "%s: Python inputs incompatible with input_signature: %r does not "
            "have the structure of %r" % (fname, x, spec)
        )
    out = []
    for s, y in zip(kids, xs):
        out.extend(_flatten_up_to(s, y, fname))
    return out


_PY_SCALARS = (int, float, bool, str, type(None))


def _fast_key(args):
    """A cheap key for calls whose arguments are all arrays or Python scalars, or None."""
    key = []
    for a in args:
        t = type(a)
        if t is np.ndarray or isinstance(a, np.generic):
            key.append((a.dtype.str, a.shape))
        elif t in _PY_SCALARS:
            key.append((t, a))
        else:
            return None
    return tuple(key)


def _spec_or_value(x):
    return TensorSpec(x.shape, x.dtype, x.op.name) if isinstance(x, Tensor) else x


def _skeleton(arguments: dict):
    """The key of ``arguments`` with every tensor-like leaf replaced by ``*``."""
    values = list(arguments.values())
    return _structure_key(
        nest.pack_leaves(
            values, ["*" if _leaf_spec(x) is not None else x for x in nest.flatten(values)]
        )
    )


def _leaf_names(arguments: dict) -> list:
    """A placeholder name per flat leaf: the argument name, ``x_1`` for nested leaves."""
    names = []
    for k, v in arguments.items():
        n = len(nest.flatten(v))
        names.extend([k] if n == 1 else ["%s_%d" % (k, i) for i in range(n)])
    return names


@overload
def function(
    func: Callable[..., Any],
    input_signature: Sequence[Any] | None = None,
    autograph: bool = True,
    jit_compile: bool | None = None,
    reduce_retracing: bool = False,
    experimental_relax_shapes: bool | None = None,
    experimental_compile: bool | None = None,
    experimental_autograph_options: Any = None,
    experimental_follow_type_hints: bool | None = None,
    name: str | None = None,
) -> Function: ...


@overload
def function(
    func: None = None,
    input_signature: Sequence[Any] | None = None,
    autograph: bool = True,
    jit_compile: bool | None = None,
    reduce_retracing: bool = False,
    experimental_relax_shapes: bool | None = None,
    experimental_compile: bool | None = None,
    experimental_autograph_options: Any = None,
    experimental_follow_type_hints: bool | None = None,
    name: str | None = None,
) -> Callable[[Callable[..., Any]], Function]: ...


def function(
    func: Callable[..., Any] | None = None,
    input_signature: Sequence[Any] | None = None,
    autograph: bool = True,
    jit_compile: bool | None = None,
    reduce_retracing: bool = False,
    experimental_relax_shapes: bool | None = None,
    experimental_compile: bool | None = None,
    experimental_autograph_options: Any = None,
    experimental_follow_type_hints: bool | None = None,
    name: str | None = None,
) -> Function | Callable[[Callable[..., Any]], Function]:
    """Compiles a Python function into traced graphs (TF2's ``tf.function``).

    Args:
      func: the function (or use ``@fr.function(...)`` as a decorator factory).
      input_signature: a list of (nests of) ``fr.TensorSpec``: one trace for all calls,
        whose tensor arguments must fit it.
      autograph: accepted for compatibility (see the note).
      jit_compile: accepted for compatibility (see the note).
      experimental_compile: accepted for compatibility (see the note).
      experimental_autograph_options: accepted for compatibility (see the note).
      experimental_follow_type_hints: accepted for compatibility (see the note).
      reduce_retracing: reuse or relax an existing trace (``None`` dims) instead of
        tracing each new shape; ``experimental_relax_shapes`` is its old name.
      name: the name of the traced graphs and call ops.

    Returns:
      A ``Function``.

    Note (flowrt): no autograph (Python control flow over tensors is an error; use
    ``fr.cond``/``fr.while_loop``) and no XLA. A ``RetracingWarning`` is issued once
    when one function is traced 5 times.
    """
    if experimental_relax_shapes is not None:
        reduce_retracing = reduce_retracing or bool(experimental_relax_shapes)

    def decorate(fn: Callable[..., Any]) -> Function:
        if not callable(fn):
            raise TypeError("fr.function expects a callable, got %r" % (fn,))
        return Function(
            fn, name=name, input_signature=input_signature, reduce_retracing=reduce_retracing
        )

    return decorate if func is None else decorate(func)
