"""The client graph: ``Graph``, ``Operation``, ``Tensor``, naming, scopes and collections.

Building an op goes through ``Graph.create_op``: inputs are converted to tensors, the
name is made unique under the current name scope, the op's registered ``infer`` rule
gives output dtypes and static shapes, and the control-dependency and device stacks
are applied. Errors from ``infer`` are re-raised naming the op and where user code
created it.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import threading
import types
import warnings
from collections.abc import Iterator, Sequence
from typing import Any, Callable, cast

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .device_spec import DeviceSpec, canonical, merge_device
from .lazy_constant import value_of
from .op_signatures import check_attr_values
from .registry import get_op_def
from .shape import Dimension, TensorShape, as_shape

# Python operators on tensors (``+``, ``-``, ``@``, ``[]``, ...) are implemented by the op
# layer, which fills this table (``_core`` must not import the layers above it). Keys
# are the operators' names, nothing else.
OPERATORS: dict[str, Callable] = {}

# ``Graph.as_graph_def``'s builder of the GraphDef message, filled by the layer that owns
# the protobuf classes (flowrt/summary/protos.py): ``_core`` must not import it.
GRAPH_DEF_BUILDER: dict[str, Callable] = {}

# (priority, base types, function) from ``register_tensor_conversion_function``.
_CONVERSIONS: list[tuple[int, Any, Callable]] = []


def register_tensor_conversion_function(
    base_type: type | tuple[type, ...], conversion_func: Callable, priority: int = 100
) -> None:
    """Registers a function converting values of ``base_type`` to tensors (TF1's API).

    Args:
      base_type: a type or tuple of types; ``convert_to_tensor`` calls the function for
        values that are instances of it.
      conversion_func: ``conversion_func(value, dtype=None, name=None, as_ref=False)``
        returning a ``Tensor``, or ``NotImplemented`` to let the next function (then the
        constant conversion) try.
      priority: lower runs first; functions of equal priority run in registration order.

    Raises:
      TypeError: if ``conversion_func`` is not callable or ``base_type`` is not a type.
    """
    types = base_type if isinstance(base_type, tuple) else (base_type,)
    if not all(isinstance(t, type) for t in types):
        raise TypeError("base_type must be a type or a tuple of types, got %r" % (base_type,))
    if not callable(conversion_func):
        raise TypeError("conversion_func must be callable, got %r" % (conversion_func,))
    _CONVERSIONS.append((priority, types, conversion_func))
    _CONVERSIONS.sort(key=lambda e: e[0])


_FLOWRT_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


_INTERNAL_CODE: dict = {}


def _creation_site() -> tuple[str, int] | None:
    """(file, line) of the user code creating an op: the first frame outside flowrt."""
    f: types.FrameType | None = sys._getframe(2)
    internal = _INTERNAL_CODE
    while f is not None:
        code = f.f_code
        inside = internal.get(code)
        if inside is None:
            inside = internal[code] = code.co_filename.startswith(_FLOWRT_DIR)
        if not inside:
            return code.co_filename, f.f_lineno
        f = f.f_back
    return None


class GraphKeys:
    """Standard collection names, as in TF1."""

    GLOBAL_VARIABLES = "variables"
    VARIABLES = "variables"
    LOCAL_VARIABLES = "local_variables"
    METRIC_VARIABLES = "metric_variables"
    MODEL_VARIABLES = "model_variables"
    TRAINABLE_VARIABLES = "trainable_variables"
    SUMMARIES = "summaries"
    QUEUE_RUNNERS = "queue_runners"
    TABLE_INITIALIZERS = "table_initializer"
    ASSET_FILEPATHS = "asset_filepaths"
    MOVING_AVERAGE_VARIABLES = "moving_average_variables"
    REGULARIZATION_LOSSES = "regularization_losses"
    CONCATENATED_VARIABLES = "concatenated_variables"
    SAVERS = "savers"
    WEIGHTS = "weights"
    BIASES = "biases"
    ACTIVATIONS = "activations"
    UPDATE_OPS = "update_ops"
    LOSSES = "losses"
    SAVEABLE_OBJECTS = "saveable_objects"
    RESOURCES = "resources"
    LOCAL_RESOURCES = "local_resources"
    TRAINABLE_RESOURCE_VARIABLES = "trainable_resource_variables"
    INIT_OP = "init_op"
    LOCAL_INIT_OP = "local_init_op"
    READY_OP = "ready_op"
    READY_FOR_LOCAL_INIT_OP = "ready_for_local_init_op"
    SUMMARY_OP = "summary_op"
    GLOBAL_STEP = "global_step"
    EVAL_STEP = "eval_step"
    TRAIN_OP = "train_op"
    COND_CONTEXT = "cond_context"
    WHILE_CONTEXT = "while_context"


# --------------------------------------------------------------------------------------
# Tensors
# --------------------------------------------------------------------------------------


def _binary(name):
    def forward(self, other):
        return OPERATORS[name](self, other)

    def reverse(self, other):
        return OPERATORS[name](other, self)

    forward.__name__ = "__%s__" % name
    reverse.__name__ = "__r%s__" % name
    return forward, reverse


def _not_in_function(x, what: str, instead: str):
    g = getattr(x, "graph", None)
    if g is not None and g.building_function:
        from ..errors import OperatorNotAllowedInGraphError

        raise OperatorNotAllowedInGraphError(
            "%s is not allowed while fr.function %r is traced: %s has no value yet (flowrt "
            "has no autograph to convert Python control flow). Use %s instead."
            % (what, getattr(g, "name", "?"), getattr(x, "name", x), instead)
        )


class TensorOperators:
    """Python operators shared by ``Tensor`` and tensor-like objects (variables)."""

    __slots__ = ()
    __array_priority__ = 100

    __add__, __radd__ = _binary("add")
    __sub__, __rsub__ = _binary("sub")
    __mul__, __rmul__ = _binary("mul")
    __truediv__, __rtruediv__ = _binary("truediv")
    __floordiv__, __rfloordiv__ = _binary("floordiv")
    __mod__, __rmod__ = _binary("mod")
    __pow__, __rpow__ = _binary("pow")
    __matmul__, __rmatmul__ = _binary("matmul")
    __and__, __rand__ = _binary("and")
    __or__, __ror__ = _binary("or")
    __xor__, __rxor__ = _binary("xor")
    __lt__, _ = _binary("lt")
    __le__, _ = _binary("le")
    __gt__, _ = _binary("gt")
    __ge__, _ = _binary("ge")
    del _

    def __neg__(self):
        return OPERATORS["neg"](self)

    def __abs__(self):
        return OPERATORS["abs"](self)

    def __invert__(self):
        return OPERATORS["invert"](self)

    def __getitem__(self, key):
        return OPERATORS["getitem"](self, key)

    def __bool__(self):
        _not_in_function(self, "using a `fr.Tensor` as a Python `bool`", "fr.cond")
        raise TypeError(
            "Using a `fr.Tensor` as a Python `bool` is not allowed. Use `if t is not None:` "
            "instead of `if t:` or use flowrt ops such as fr.cond to execute subgraphs "
            "conditioned on the value of a tensor."
        )

    def __iter__(self):
        _not_in_function(self, "iterating over a `fr.Tensor`", "fr.while_loop or fr.unstack")
        raise TypeError(
            "Tensor objects are only iterable when eager execution is enabled. "
            "To iterate over this tensor use fr.unstack."
        )

    __hash__ = object.__hash__
    __eq__ = object.__eq__
    __ne__ = object.__ne__


class Tensor(TensorOperators):
    """A symbolic handle to one output of an ``Operation``."""

    __slots__ = ("op", "value_index", "dtype", "_shape", "_consumers", "__weakref__")

    def __init__(self, op: "Operation", value_index: int, dtype: _dt.DType, shape: TensorShape):
        self.op = op
        self.value_index = value_index
        self.dtype = dtype
        self._shape = shape
        self._consumers: list[Operation] = []

    @property
    def name(self) -> str:
        return "%s:%d" % (self.op.name, self.value_index)

    @property
    def graph(self) -> "Graph":
        return self.op.graph

    @property
    def shape(self) -> TensorShape:
        return self._shape

    def get_shape(self) -> TensorShape:
        return self._shape

    def set_shape(self, shape: Any) -> None:
        """Refines the static shape; raises ValueError if incompatible."""
        self._shape = self._shape.merge_with(as_shape(shape))

    @property
    def device(self) -> str:
        return self.op.device

    def consumers(self) -> list["Operation"]:
        return list(self._consumers)

    def eval(self, feed_dict: dict | None = None, session: Any = None) -> Any:
        """Runs the graph to compute this tensor in ``session`` or the default session."""
        return session_for(self.graph, session).run(self, feed_dict)

    def _as_tensor(self):
        return self

    def __repr__(self):
        return "<fr.Tensor '%s' shape=%s dtype=%s>" % (self.name, self._shape, self.dtype.name)

    def __str__(self):
        return 'Tensor("%s", shape=%s, dtype=%s)' % (self.name, self._shape, self.dtype.name)


# --------------------------------------------------------------------------------------
# Operations
# --------------------------------------------------------------------------------------


class Operation:
    """A node of the graph: an op type applied to input tensors, with attributes."""

    __slots__ = (
        "graph",
        "name",
        "type",
        "inputs",
        "outputs",
        "control_inputs",
        "attrs",
        "device",
        "_id",
        "_site",
        "_grad_type",
        "_control_outputs",
        "_output_mask",
        "__weakref__",
    )

    def __init__(
        self,
        graph: "Graph",
        name: str,
        op_type: str,
        inputs: tuple["Tensor", ...],
        attrs: dict[str, Any],
        device: str,
        site: tuple[str, int] | None,
    ) -> None:
        self.graph = graph
        self.name = name
        self.type = op_type
        self.inputs = inputs
        self.attrs = attrs
        self.device = device
        self.control_inputs: list[Operation] = []
        self._control_outputs: list[Operation] = []
        self.outputs: list[Tensor] = []
        self._site = site
        self._grad_type: str | None = None
        self._id: int = -1  # its index in graph._ops, set when the graph adds it

    @property
    def node_def(self) -> Any:
        """TF's ``NodeDef`` fields of this op (``name``, ``op``, ``input``, ``device``,
        ``attr``); see ``node_def.py``.

        Note (flowrt): a light Python object with the proto's field names, not a
        protobuf message; a ``Const``'s ``value`` attr holds a numpy array."""
        from .node_def import node_def_of

        return node_def_of(self)

    @property
    def op_def(self) -> Any:
        return get_op_def(self.type)

    @property
    def traceback(self) -> list[tuple[str, int]]:
        return [self._site] if self._site else []

    def values(self) -> tuple[Tensor, ...]:
        return tuple(self.outputs)

    def colocation_groups(self) -> list[bytes]:
        """The colocation groups of this op: the ``loc:@name`` entries of its ``_class``
        attr (set inside ``colocate_with``), else ``[b"loc:@<its own name>"]``."""
        groups = [
            g if isinstance(g, bytes) else g.encode()
            for g in self.attrs.get("_class", ())
            if g.startswith("loc:@" if isinstance(g, str) else b"loc:@")
        ]
        return groups or [("loc:@" + self.name).encode()]

    def get_attr(self, name: str) -> Any:
        """The value of attr ``name``; string attrs come back as ``bytes``, as in TF1
        (``op.get_attr("container") == b''``)."""
        try:
            v = self.attrs[name]
        except KeyError:
            raise ValueError("Operation '%s' has no attr named '%s'." % (self.name, name)) from None
        if isinstance(v, str):
            return v.encode()
        if isinstance(v, list) and v and all(isinstance(x, str) for x in v):
            return [x.encode() for x in v]
        return value_of(v, self)

    def run(self, feed_dict: dict | None = None, session: Any = None) -> None:
        """Runs this op (for its side effects) in ``session`` or the default session."""
        session_for(self.graph, session).run(self, feed_dict)

    def _set_outputs(self, specs) -> None:
        """Gives an imported op its outputs from known ``(dtype, shape)`` specs."""
        self.outputs = [Tensor(self, i, dt, shape) for i, (dt, shape) in enumerate(specs)]

    def _add_control_input(self, op: "Operation"):
        if op not in self.control_inputs:
            self.control_inputs.append(op)
            op._control_outputs.append(self)
            self.graph._late_control_inputs = True
            self.graph._version += 1

    def describe(self) -> str:
        """``Type op 'name'`` plus the user code line that created it, for messages."""
        where = (
            " (created at %s:%d)" % (os.path.basename(self._site[0]), self._site[1])
            if self._site
            else ""
        )
        return "%s op '%s'%s" % (self.type, self.name, where)

    def __repr__(self):
        return "<fr.Operation '%s' type=%s>" % (self.name, self.type)


# --------------------------------------------------------------------------------------
# Graph
# --------------------------------------------------------------------------------------


class _Stacks:
    """The control-dependency, device and colocation stacks of a graph (shared, or one
    per thread).

    ``device`` holds merged device strings; ``entries`` what each ``device()`` got (a
    string, None or a device function); ``fns`` counts the functions among them;
    ``coloc`` holds ``(op, device)`` per ``colocate_with``, innermost last (``device``:
    the colocated variable's, when a variable was given); ``outer`` the ``(device,
    entries, fns)`` outside the outermost ``colocate_with`` (None outside one)."""

    __slots__ = ("control", "device", "entries", "fns", "coloc", "outer")

    def __init__(
        self,
        control: list,
        device: list,
        entries: list | None = None,
        fns: int = 0,
        coloc: list | None = None,
    ):
        self.control = control
        self.device = device
        self.entries = entries if entries is not None else []
        self.fns = fns
        self.coloc = coloc if coloc is not None else []
        self.outer: tuple[list, list, int] | None = None

    def copy(self) -> "_Stacks":
        st = _Stacks(
            list(self.control), list(self.device), list(self.entries), self.fns, list(self.coloc)
        )
        st.outer = self.outer
        return st


class Graph:
    """A dataflow graph: ops, their names, collections and scoping state."""

    def __init__(self):
        self._ops: list[Operation] = []
        self._by_name: dict[str, Operation] = {}
        self._names_in_use: dict[str, int] = {}
        self._name_stack = ""
        self._shared_stacks = _Stacks([], [])
        self._local_stacks: threading.local | None = None  # after switch_to_thread_local
        self._collections: dict[str, list] = {}
        self._version = 0
        self._finalized = False
        self.seed: int | None = None
        self._gradient_override_map: dict[str, str] = {}
        self._late_control_inputs = False
        self._lock = threading.Lock()
        self._scratch: dict[str, Any] = {}
        self._attr_scope_map: dict[str, Any] = {}

    # --- ops ---------------------------------------------------------------------

    @property
    def version(self) -> int:
        return self._version

    @property
    def finalized(self) -> bool:
        return self._finalized

    def finalize(self) -> None:
        """Makes the graph read-only; adding an op then raises RuntimeError."""
        self._finalized = True

    def _unsafe_unfinalize(self):
        self._finalized = False

    def get_operations(self) -> list[Operation]:
        return list(self._ops)

    def get_operation_by_name(self, name: str) -> Operation:
        if not isinstance(name, str):
            raise TypeError(
                "Operation names are strings (or similar), not %s." % type(name).__name__
            )
        return cast(
            Operation, self.as_graph_element(name, allow_tensor=False, allow_operation=True)
        )

    def get_tensor_by_name(self, name: str) -> Tensor:
        if not isinstance(name, str):
            raise TypeError("Tensor names are strings (or similar), not %s." % type(name).__name__)
        return cast(Tensor, self.as_graph_element(name, allow_tensor=True, allow_operation=False))

    def as_graph_element(
        self, obj: Any, allow_tensor: bool = True, allow_operation: bool = True
    ) -> Tensor | Operation:
        """Resolves a Tensor, Operation or name string to an element of this graph."""
        if isinstance(obj, str):
            if ":" in obj:
                if not allow_tensor:
                    raise ValueError(
                        "Name '%s' appears to refer to a Tensor, not an Operation." % obj
                    )
                op_name, _, idx_str = obj.rpartition(":")
                try:
                    idx = int(idx_str)
                except ValueError:
                    raise ValueError(
                        "The name %r looks a like a Tensor name, but is not a "
                        "valid one. Tensor names must be of the form "
                        '"<op_name>:<output_index>".' % obj
                    ) from None
                op = self._by_name.get(op_name)
                if op is None:
                    raise KeyError(
                        "The name %r refers to a Tensor which does not exist. The "
                        "operation, %r, does not exist in the graph.%s"
                        % (obj, op_name, self._suggest(op_name))
                    )
                if idx >= len(op.outputs):
                    raise KeyError(
                        "The name %r refers to a Tensor which does not exist. The "
                        "operation, %r, exists but only has %d outputs."
                        % (obj, op_name, len(op.outputs))
                    )
                return op.outputs[idx]
            if not allow_operation:
                raise ValueError(
                    "The name %r refers to an Operation, not a Tensor. Tensor "
                    'names must be of the form "<op_name>:<output_index>".' % obj
                )
            op = self._by_name.get(obj)
            if op is None:
                raise KeyError(
                    "The name %r refers to an Operation not in the graph.%s"
                    % (obj, self._suggest(obj))
                )
            return op
        tensor = getattr(obj, "_as_tensor", None)
        if isinstance(obj, Tensor) or (tensor is not None and not isinstance(obj, Operation)):
            t = obj if isinstance(obj, Tensor) else cast(Callable[[], Tensor], tensor)()
            if not allow_tensor:
                raise TypeError("Can not convert a %s into an Operation." % type(obj).__name__)
            if t.graph is not self:
                raise ValueError("Tensor %s is not an element of this graph." % t.name)
            return t
        if isinstance(obj, Operation):
            if not allow_operation:
                raise TypeError("Can not convert an Operation into a Tensor.")
            if obj.graph is not self:
                raise ValueError("Operation %s is not an element of this graph." % obj.name)
            return obj
        raise TypeError("Can not convert a %s into a Tensor or Operation." % type(obj).__name__)

    def _suggest(self, name: str) -> str:
        import difflib

        close = difflib.get_close_matches(name, self._by_name.keys(), n=3)
        return " Did you mean %s?" % ", ".join(repr(c) for c in close) if close else ""

    def _stacks(self) -> _Stacks:
        local = self._local_stacks
        if local is None:
            return self._shared_stacks
        st = getattr(local, "stacks", None)
        if st is None:  # a thread's first use: the stacks as they were when switched
            init = self._shared_stacks
            st = local.stacks = init.copy()
        return st

    @property
    def _control_stack(self) -> list:
        return self._stacks().control

    @_control_stack.setter
    def _control_stack(self, value: list):
        self._stacks().control = value

    @property
    def _device_stack(self) -> list:
        return self._stacks().device

    def switch_to_thread_local(self) -> None:
        """Makes the device and control-dependency stacks thread-local (TF1).

        Before, a ``with g.device(...)`` or ``with g.control_dependencies(...)`` block
        entered in one thread applies to ops other threads create meanwhile. After, each
        thread has its own stacks, starting from their value at the first call; later
        calls do nothing.
        """
        if self._local_stacks is None:
            snapshot = self._shared_stacks
            self._shared_stacks = snapshot.copy()
            self._local_stacks = threading.local()

    def create_op(
        self,
        op_type: str,
        inputs: Sequence[Any],
        attrs: dict | None = None,
        name: str | None = None,
        dtypes: Any = None,
        input_types: Any = None,
        **_ignored: Any,
    ) -> Operation:
        """Adds an op of a registered type; returns the ``Operation``."""
        return self._create_op(op_type, list(inputs), attrs or {}, name)

    def _create_op(
        self,
        op_type: str,
        inputs: list,
        attrs: dict,
        name: str | None,
        default_name: str | None = None,
    ) -> Operation:
        if self._finalized:
            raise RuntimeError("Graph is finalized and cannot be modified.")
        op_def = get_op_def(op_type)
        site = _creation_site()
        tensors = []
        for i, x in enumerate(inputs):
            if type(x) is not Tensor:
                x = convert_to_tensor(x)
            if x.op.graph is not self:
                raise ValueError(
                    "%s op %r: input %d (%s) is from a different graph."
                    % (op_type, name or default_name or op_type, i, x.name)
                )
            tensors.append(x)
        if name and name[-1] == "/":
            full = name[:-1]  # TF1: a scope name used as an op name, taken exactly
            self._names_in_use.setdefault(full.lower(), 1)
        else:
            full = self.unique_name(name or default_name or op_def.default_name)
        if self._attr_scope_map:
            attrs = {**self._attr_scope_map, **attrs}
        check_attr_values(op_type, attrs)
        st = self._stacks()
        device = st.device[-1] if st.device else ""
        op = Operation(self, full, op_type, tuple(tensors), attrs, device, site)
        try:
            specs = op_def.infer(op)
        except (ValueError, TypeError) as e:
            raise type(e)("%s: %s" % (op.describe(), e)) from None
        op.outputs = [Tensor(op, i, dt, shape) for i, (dt, shape) in enumerate(specs)]
        if st.fns:  # after the outputs: device functions may look at them (TF1)
            op.device = self._apply_device_functions(op)
        if st.coloc:
            _colocate(op, st.coloc)
        for t in tensors:
            t._consumers.append(op)
        if self._control_stack:
            input_ops = {t.op for t in tensors}
            for ctrl in self._control_stack:
                if ctrl is None:
                    continue
                for c in ctrl:
                    if c not in input_ops and c not in op.control_inputs:
                        op.control_inputs.append(c)
                        c._control_outputs.append(op)
        if self._gradient_override_map:
            op._grad_type = self._gradient_override_map.get(op_type)
        with self._lock:
            op._id = len(self._ops)
            self._ops.append(op)
            self._by_name[full] = op
            self._version += 1
        return op

    def _import_op(self, name: str, op_type: str, inputs: tuple, attrs: dict, device: str = ""):
        """Adds an op exactly as described (name, inputs, attrs, device), without
        inference or scopes: for a graph rebuilt from another's ops (a cluster task
        running its part of a run). The caller sets its outputs (``_set_outputs``)."""
        op = Operation(self, name, op_type, inputs, attrs, device, None)
        for t in inputs:
            t._consumers.append(op)
        with self._lock:
            op._id = len(self._ops)
            self._ops.append(op)
            self._by_name[name] = op
            self._version += 1
        return op

    # --- naming ------------------------------------------------------------------

    def unique_name(self, name: str, mark_as_used: bool = True) -> str:
        """TF1's rule: ``name`` under the current scope, made unique with ``_N`` suffixes
        (case-insensitively)."""
        if self._name_stack:
            name = self._name_stack + "/" + name
        key = name.lower()
        i = self._names_in_use.get(key, 0)
        if mark_as_used:
            self._names_in_use[key] = i + 1
        if i > 0:
            base = key
            while key in self._names_in_use:
                key = "%s_%d" % (base, i)
                i += 1
            if mark_as_used:
                self._names_in_use[key] = 1
            name = "%s_%d" % (name, i - 1)
        return name

    def get_name_scope(self) -> str:
        return self._name_stack

    @contextlib.contextmanager
    def name_scope(self, name: str | None) -> Iterator[str]:
        """Pushes a name scope; yields the scope string ending in '/' (or '').

        Raises ValueError for a name TF rejects: at the root it must match
        ``_VALID_OP_NAME``, inside a scope ``_VALID_SCOPE_NAME`` (so ``"_"`` is a valid
        name only below the root)."""
        old = self._name_stack
        if name:
            _check_scope_name(name, bool(old))
        if name is None or name == "":
            new = ""
        elif name.endswith("/"):
            new = name[:-1]
        else:
            new = self.unique_name(name)
        self._name_stack = new
        try:
            yield new + "/" if new else ""
        finally:
            self._name_stack = old

    # --- control dependencies and devices -----------------------------------------

    @contextlib.contextmanager
    def control_dependencies(self, control_inputs: Any) -> Iterator[None]:
        """Ops created inside run after ``control_inputs`` (None clears the stack)."""
        if control_inputs is None:
            saved = self._control_stack
            self._control_stack = []
            try:
                yield
            finally:
                self._control_stack = saved
            return
        ops = []
        for c in control_inputs:
            if hasattr(c, "_as_control_op"):
                c = c._as_control_op()
            elif not isinstance(c, Operation):
                c = self.as_graph_element(c)
                if isinstance(c, Tensor):
                    c = c.op
            ops.append(c)
        self._control_stack.append(ops)
        try:
            yield
        finally:
            self._control_stack.pop()

    @contextlib.contextmanager
    def device(self, device_name_or_function: Any) -> Iterator[None]:
        """Records a device on the ops created inside (placement is always CPU).

        ``device_name_or_function`` is a device string or ``DeviceSpec``, None (clears
        the enclosing devices), or a function ``f(op) -> device string`` called for each
        op created inside, as in TF1 (innermost first; an inner device's fields win)."""
        entry = device_name_or_function
        if isinstance(entry, DeviceSpec):
            entry = entry.to_string()
        st = self._stacks()
        outer = st.device[-1] if st.device else ""
        if callable(entry):
            new = outer  # ops then get their device from _apply_device_functions
        elif entry is None:
            new = ""  # TF1: device(None) clears the enclosing device
        else:
            new = merge_device(outer, entry)
        st.device.append(new)
        st.entries.append(entry)
        st.fns += callable(entry)
        try:
            yield
        finally:
            st = self._stacks()  # switch_to_thread_local may have replaced them inside
            st.device.pop()
            st.entries.pop()
            st.fns -= callable(entry)

    def _apply_device_functions(self, op: "Operation") -> str:
        """TF's ``_apply_device_functions``: the device entries from the innermost out,
        stopping at ``device(None)``. A string fills the fields the inner entries left
        unset; a function's result (it sees ``op.device`` as set so far) replaces them."""
        device = ""
        for entry in reversed(self._stacks().entries):
            if entry is None:
                break
            if callable(entry):
                op.device = device
                got = entry(op)
                device = canonical(got) if got else ""
            else:
                device = merge_device(entry, device)
        return device

    @contextlib.contextmanager
    def colocate_with(self, op: Any, ignore_existing: bool = False) -> Iterator[None]:
        """Ops created inside are colocated with ``op`` (an op, tensor or variable).

        As TF1: each gets the ``_class`` attr ``["loc:@<op's name>"]`` (with the groups
        of the enclosing ``colocate_with`` blocks unless ``ignore_existing``) and the
        device of ``op`` if it has one; the enclosing ``device`` blocks and device
        functions do not apply inside (a ``device`` block opened inside does).
        ``colocate_with(None, ignore_existing=True)`` clears both colocation and devices.

        Raises:
          ValueError: if ``op`` is None and ``ignore_existing`` is False.
        """
        if op is None and not ignore_existing:
            raise ValueError(
                "Trying to reset colocation (op is None) but ignore_existing is not True"
            )
        st = self._stacks()
        saved = st.device, st.entries, st.fns, st.coloc, st.outer
        coloc = [] if ignore_existing else list(st.coloc)
        if op is not None:
            coloc.append(_colocation_entry(op))
        if st.outer is None:
            st.outer = st.device, st.entries, st.fns
        st.device, st.entries, st.fns, st.coloc = [], [], 0, coloc
        try:
            yield
        finally:
            st = self._stacks()  # switch_to_thread_local may have replaced them inside
            st.device, st.entries, st.fns, st.coloc, st.outer = saved

    @contextlib.contextmanager
    def _init_scope_devices(self) -> Iterator[None]:
        """The devices TF's ``init_scope`` gives the ops of a new variable: inside
        ``colocate_with`` with no ``device`` block of its own, the device blocks and
        functions from outside the ``colocate_with`` blocks. So a variable made there
        (an optimizer slot) still passes through ``replica_device_setter`` (taking a ps
        task in its round robin) before colocation sets its device."""
        st = self._stacks()
        if st.outer is None or st.entries:
            yield
            return
        saved = st.device, st.entries, st.fns
        device, entries, fns = st.outer
        st.device, st.entries, st.fns = list(device), list(entries), fns
        try:
            yield
        finally:
            st = self._stacks()
            st.device, st.entries, st.fns = saved

    @contextlib.contextmanager
    def _attr_scope(self, attr_map: dict[str, Any]) -> Iterator[None]:
        """Ops created inside get these attrs unless they set them (None removes one)."""
        saved = self._attr_scope_map
        merged = {**saved, **attr_map}
        self._attr_scope_map = {k: v for k, v in merged.items() if v is not None}
        try:
            yield
        finally:
            self._attr_scope_map = saved

    @contextlib.contextmanager
    def gradient_override_map(self, op_type_map: dict[str, str]) -> Iterator[None]:
        """Uses the gradient of another registered type for ops created inside."""
        saved = dict(self._gradient_override_map)
        self._gradient_override_map.update(op_type_map)
        try:
            yield
        finally:
            self._gradient_override_map = saved

    # --- collections ---------------------------------------------------------------

    def add_to_collection(self, name: str, value: Any) -> None:
        self._collections.setdefault(name, []).append(value)

    def add_to_collections(self, names: Any, value: Any) -> None:
        for n in [names] if isinstance(names, str) else set(names):
            self.add_to_collection(n, value)

    def get_collection(self, name: Any, scope: str | None = None) -> list:
        items = self._collections.get(name, [])
        if scope is None:
            return list(items)
        import re

        pat = re.compile(scope)
        return [x for x in items if hasattr(x, "name") and pat.match(x.name)]

    def get_collection_ref(self, name: Any) -> list:
        return self._collections.setdefault(name, [])

    def get_all_collection_keys(self) -> list:
        return list(self._collections)

    def clear_collection(self, name: str) -> None:
        self._collections.pop(name, None)

    def as_graph_def(self, from_version: int | None = None, add_shapes: bool = False) -> Any:
        """The graph as a ``GraphDef`` protobuf message, nodes in creation order (what
        ``fr.train.write_graph`` writes and TensorBoard reads).

        Args:
          from_version: kept for TF1's signature; the whole graph is returned.
          add_shapes: kept for TF1's signature; each node always carries its outputs'
            static shapes in its ``_output_shapes`` attr.

        Note (flowrt): the nodes are TF's (``flowrt/graph_export.py``): TF's op types,
        attrs (with the defaults TF's OpDefs declare) and input order, so TF imports
        the GraphDef; an op with no TF counterpart is a ValueError naming it. Every node
        with outputs carries ``_output_shapes``, as TF1 gives only with
        ``add_shapes=True``. A cond, loop or ``fr.function`` call is TF's ``If``,
        ``While`` or ``PartitionedCall`` over functions of the GraphDef's library. A
        loop's gradient, TensorArrays and ``initialized_value()`` are not written in
        TF's form yet: their attrs holding
        Python objects are listed in the node's ``_flowrt_unencoded_attrs`` attr (TF
        refuses the node; ``fr.import_graph_def`` names them).
        """
        return GRAPH_DEF_BUILDER["graph_def"](self)

    # --- default graph ---------------------------------------------------------------

    @contextlib.contextmanager
    def as_default(self) -> Iterator[Graph]:
        """Makes this graph the default graph of the current thread inside the block."""
        _graph_stack().append(self)
        try:
            yield self
        finally:
            _graph_stack().pop()

    @property
    def building_function(self) -> bool:
        return False

    def __repr__(self):
        return "<fr.Graph with %d ops>" % len(self._ops)


_VALID_OP_NAME = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\\/>-]*$")
_VALID_SCOPE_NAME = re.compile(r"^[A-Za-z0-9_.\\/>-]*$")


def _check_scope_name(name: str, nested: bool):
    """TF's name_scope check: a root scope name cannot start with '_', '-', '/' or '\\'."""
    if nested:
        if not _VALID_SCOPE_NAME.match(name):
            raise ValueError(
                "'%s' is not a valid scope name. A scope name has to match the "
                "following pattern: %s" % (name, _VALID_SCOPE_NAME.pattern)
            )
    elif not _VALID_OP_NAME.match(name):
        raise ValueError(
            "'%s' is not a valid root scope name. A root scope name has to match "
            "the following pattern: %s" % (name, _VALID_OP_NAME.pattern)
        )


def _colocation_entry(v: Any) -> tuple[Operation, str]:
    """TF's ``_op_to_colocate_with``: the op to colocate with, and for a variable its
    device (a variable's ops are colocated with its handle op)."""
    if isinstance(v, Operation):
        return v, ""
    handle = getattr(v, "handle", None)
    if isinstance(handle, Tensor):
        return handle.op, v.device
    if isinstance(v, Tensor):
        return v.op, ""
    return convert_to_tensor(v).op, ""


def _colocate(op: Operation, coloc: list) -> None:
    """Sets ``_class`` to the sorted union of the stack's groups and the device to the
    innermost colocated device that is set."""
    groups: set[bytes] = set()
    device = ""
    for other, other_device in reversed(coloc):
        groups.update(other.colocation_groups())
        if not device:
            device = other_device or other.device
    if device:
        op.device = device
    op.attrs = {**op.attrs, "_class": [g.decode() for g in sorted(groups)]}


_local = threading.local()
_global_default_graph: Graph | None = None


def _graph_stack() -> list:
    try:
        return _local.graphs
    except AttributeError:
        _local.graphs = []
        return _local.graphs


def get_default_graph() -> Graph:
    """The innermost ``as_default`` graph of this thread, else the global default graph."""
    stack = _graph_stack()
    if stack:
        return stack[-1]
    global _global_default_graph
    if _global_default_graph is None:
        _global_default_graph = Graph()
    return _global_default_graph


def reset_default_graph() -> None:
    """Replaces the global default graph with a new, empty one."""
    if _graph_stack():
        raise AssertionError(
            "Do not use fr.reset_default_graph() to clear nested graphs. "
            "If you need a cleared graph, exit the nesting and create a "
            "new graph."
        )
    global _global_default_graph
    _global_default_graph = Graph()


# --- default session stack (Session registers itself here) ----------------------------


def _session_stack() -> list:
    try:
        return _local.sessions
    except AttributeError:
        _local.sessions = []
        return _local.sessions


def get_default_session() -> Any:
    """The innermost session of ``with sess.as_default():`` in this thread, or None."""
    stack = _session_stack()
    return stack[-1] if stack else None


def session_for(graph, session):
    if session is None:
        session = get_default_session()
        if session is None:
            raise ValueError(
                "Cannot evaluate tensor using `eval()`: No default session is "
                "registered. Use `with sess.as_default()` or pass an explicit "
                "session to `eval(session=sess)`"
            )
    if session.graph is not graph:
        raise ValueError(
            "Cannot use the given session to evaluate tensor: the tensor's "
            "graph is different from the session's graph."
        )
    return session


# --------------------------------------------------------------------------------------
# Conversion of Python values to tensors
# --------------------------------------------------------------------------------------


def _numpy_value(value, dtype: _dt.DType | None):
    """The numpy array a Python value becomes as a constant, with TF1's dtype rules.

    As TF: Python elements are checked against ``dtype`` (no float -> int, only bools
    -> bool, bool -> number is fine), numpy values are cast; out-of-range integers wrap.
    """
    t = type(value)
    if t is float or t is int:
        # The common case (``x + 1.0``): a Python scalar, no element checks needed.
        if dtype is None:
            if t is float:
                return np.array(value, np.float32)
            if -2147483648 <= value <= 2147483647:
                return np.array(value, np.int32)
        elif dtype.is_floating or (
            t is int
            and dtype.is_integer
            and np.iinfo(dtype.np).min <= value <= np.iinfo(dtype.np).max
        ):
            return np.array(value, dtype.np)
    if value is None:
        raise ValueError("None values not supported.")
    if dtype is not None and dtype is _dt.string:
        return _string_array(value)
    if isinstance(value, (np.ndarray, np.generic)):
        arr = np.asarray(value)
        if arr.dtype.kind in "SUO":
            if dtype is not None:
                raise TypeError(
                    "Expected %s, but got %r of type '%s'."
                    % (dtype.name, value, type(value).__name__)
                )
            return _string_array(arr)
        if dtype is None:
            return arr
        return _wrap_cast(arr, dtype)
    if dtype is not None:
        if dtype.is_integer and isinstance(value, (list, tuple)):
            value = _dimension_values(value, dtype)
        _check_elements(value, dtype)
        if isinstance(value, (list, tuple)) and not _flat_list(value):
            return np.zeros(np.shape(value), dtype.np)
        return _wrap_cast(np.asarray(value), dtype)
    if isinstance(value, (str, bytes)):
        return _string_array(value)
    arr = np.asarray(value)
    if arr.dtype.kind in "SUO":
        return _string_array(value)
    if arr.dtype.kind == "f":
        return arr.astype(np.float32)
    if arr.dtype.kind in "iu":
        if arr.size and (arr.max() > np.iinfo(np.int32).max or arr.min() < np.iinfo(np.int32).min):
            return arr.astype(np.int64)
        return arr.astype(np.int32)
    if arr.dtype.kind == "b" or arr.size:
        return arr
    return arr.astype(np.float32)  # TF: an empty list is float32


def _flat_list(value) -> list:
    return list(_flat(value)) if isinstance(value, (list, tuple)) else [value]


def _dimension_values(value: list | tuple, dtype: _dt.DType) -> Any:
    """``value`` with each known ``Dimension`` replaced by its int, as TF's int conversion
    of ``[-1, x.shape[1]]`` under TF1 shapes; an unknown one is a ``TypeError``."""
    if not any(isinstance(v, Dimension) for v in _flat(value)):
        return value

    def known(v):
        if isinstance(v, (list, tuple)):
            return [known(e) for e in v]
        if isinstance(v, Dimension):
            if v.value is None:
                raise TypeError("Expected %s, but got ? of type 'Dimension'." % dtype.name)
            return v.value
        return v

    return known(value)


def _check_elements(value, dtype: _dt.DType):
    """TF's per-element type check of a Python value converted to ``dtype``."""
    ok: tuple[type, ...]
    if dtype.is_bool:
        ok = (bool, np.bool_)
    elif dtype.is_integer:
        ok = (int, np.integer, np.bool_)
    elif dtype.is_complex:
        ok = (int, float, complex, np.number, np.bool_)
    else:
        ok = (int, float, np.number, np.bool_)
    for v in _flat_list(value):
        if not isinstance(v, ok):
            raise TypeError(
                "Expected %s, but got %s of type '%s'." % (dtype.name, v, type(v).__name__)
            )


def _wrap_cast(arr: np.ndarray, dtype: _dt.DType) -> np.ndarray:
    if arr.dtype.kind in "SUO":
        raise TypeError(
            "Expected %s, but got %r of type '%s'." % (dtype.name, arr, type(arr).__name__)
        )
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # TF wraps out-of-range values too
        return arr.astype(dtype.np, copy=False)


def _string_array(value) -> np.ndarray:
    """``value`` as an object array of ``bytes`` (``str`` encoded as UTF-8), never the
    caller's own array: a fed array is neither changed nor frozen."""
    arr = np.asarray(value, dtype=object)
    items = arr.reshape(-1).tolist()
    if set(map(type, items)) <= {bytes}:  # the common case, checked in C
        return arr.copy() if arr is value else arr
    for i, v in enumerate(items):
        if isinstance(v, str):
            items[i] = v.encode("utf-8")
        elif isinstance(v, np.bytes_):
            items[i] = bytes(v)
        elif not isinstance(v, bytes):
            raise TypeError("Expected string, got %r of type '%s' instead." % (v, type(v).__name__))
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out.reshape(arr.shape)


def constant_op(value, dtype=None, shape=None, name=None, graph: Graph | None = None) -> Tensor:
    """Creates a ``Const`` op holding ``value`` (TF1's ``fr.constant``)."""
    dtype = None if dtype is None else _dt.as_dtype(dtype)
    arr = _numpy_value(value, dtype)
    if shape is not None:
        shape = [int(d) for d in as_shape(shape).as_list()]
        if arr.size == 1 and int(np.prod(shape)) != 1:
            arr = np.full(shape, arr.reshape(()), dtype=arr.dtype)
        elif arr.size == int(np.prod(shape)):
            arr = arr.reshape(shape)
        elif 0 < arr.size < int(np.prod(shape)) and arr.ndim <= 1:
            # TF1: a shorter list is padded with its last value.
            flat = np.concatenate(
                [arr.reshape(-1), np.repeat(arr.reshape(-1)[-1:], int(np.prod(shape)) - arr.size)]
            )
            arr = flat.reshape(shape)
        else:
            raise TypeError(
                "Eager execution of tf.constant with unsupported shape. Tensor "
                "%r (converted from %r) has %d elements, but got `shape` %s with "
                "%d elements)." % (arr, value, arr.size, shape, int(np.prod(shape)))
            )
    if isinstance(value, np.ndarray) and np.may_share_memory(arr, value):
        arr = arr.copy()  # the constant is frozen, never the caller's array
    arr.flags.writeable = False
    g = graph or get_default_graph()
    return g._create_op(
        "Const", [], {"value": arr, "dtype": _dt.as_dtype(arr.dtype)}, name, "Const"
    ).outputs[0]


def convert_to_tensor(
    value: Any,
    dtype: Any = None,
    name: str | None = None,
    preferred_dtype: Any = None,
    dtype_hint: Any = None,
) -> Tensor:
    """Converts tensors, tensor-like objects (variables) and Python/numpy values."""
    dtype = None if dtype is None else _dt.as_dtype(dtype)
    if isinstance(value, Tensor):
        t = value
    else:
        as_tensor = getattr(value, "_as_tensor", None)
        if as_tensor is not None:
            t = as_tensor()
        elif isinstance(value, Operation):
            raise TypeError(
                "Can't convert Operation '%s' to Tensor (target dtype=%s, "
                "name=%s)" % (value.name, dtype, name)
            )
        else:
            for _, types, fn in _CONVERSIONS:
                if isinstance(value, types):
                    r = fn(value, dtype=dtype, name=name, as_ref=False)
                    if r is not NotImplemented:
                        if not isinstance(r, Tensor):
                            raise RuntimeError("%r returned non-Tensor: %r" % (fn, r))
                        if dtype is not None and r.dtype is not dtype:
                            raise RuntimeError(
                                "%r returned a tensor of dtype %s, not the requested %s"
                                % (fn, r.dtype.name, dtype.name)
                            )
                        return r
            hint = dtype or preferred_dtype or dtype_hint
            if dtype is None and hint is not None:
                try:
                    return constant_op(value, _dt.as_dtype(hint), name=name)
                except (TypeError, ValueError):
                    return constant_op(value, None, name=name)
            return constant_op(value, dtype, name=name)
    if dtype is not None and t.dtype is not dtype:
        raise ValueError(
            "Tensor conversion requested dtype %s for Tensor with dtype %s: %r"
            % (dtype.name, t.dtype.name, t)
        )
    return t


def _tensor_shape_to_tensor(value: TensorShape, dtype=None, name=None, as_ref=False):
    """TF's conversion of a fully defined ``TensorShape``: an int32 vector (int64 when a
    dimension needs it, or when asked)."""
    if not value.is_fully_defined():
        raise ValueError("Cannot convert a partially known TensorShape %s to a Tensor." % value)
    dims = value.as_list()
    if dtype is None:
        dtype = _dt.int64 if any(d >= 2**31 for d in dims) else _dt.int32
    elif dtype not in (_dt.int32, _dt.int64):
        raise TypeError(
            "Cannot convert TensorShape %s to dtype %s. Allowed dtypes are tf.int32 and "
            "tf.int64." % (value, dtype)
        )
    return constant_op(np.array(dims, dtype.np), name=name)


def _dimension_to_tensor(value: Dimension, dtype=None, name=None, as_ref=False):
    """TF's conversion of a known ``Dimension``: an int32 (or int64) scalar."""
    if value.value is None:
        raise ValueError("Cannot convert unknown Dimension %s to a Tensor." % value)
    dtype = dtype or _dt.int32
    if dtype not in (_dt.int32, _dt.int64):
        raise TypeError(
            "Cannot convert Dimension %s to dtype %s. Allowed dtypes are tf.int32 and "
            "tf.int64." % (value, dtype)
        )
    return constant_op(np.array(value.value, dtype.np), name=name)


register_tensor_conversion_function(TensorShape, _tensor_shape_to_tensor)
register_tensor_conversion_function(Dimension, _dimension_to_tensor)


def _flat(x):
    for v in x:
        if isinstance(v, (list, tuple)):
            yield from _flat(v)
        else:
            yield v


def constant_value(t: Tensor) -> Any:
    """The value of ``t`` if it is known at graph construction time, else None."""
    op = t.op
    if op.type == "Const":
        try:
            return value_of(op.attrs["value"], op)
        except errors.ResourceExhaustedError:  # only a run may fail on it
            return None
    if op.type == "Shape" and op.inputs[0].shape.is_fully_defined():
        return np.array(op.inputs[0].shape.as_list(), dtype=op.outputs[0].dtype.np)
    if op.type == "Size" and op.inputs[0].shape.is_fully_defined():
        return np.array(op.inputs[0].shape.num_elements(), dtype=op.outputs[0].dtype.np)
    if op.type == "Rank" and op.inputs[0].shape.ndims is not None:
        return np.array(op.inputs[0].shape.ndims, dtype=np.int32)
    if op.type in ("Identity", "StopGradient"):
        return constant_value(op.inputs[0])
    if op.type == "Pack":
        vals = [constant_value(x) for x in op.inputs]
        if all(v is not None for v in vals):
            return np.stack(vals, axis=op.attrs.get("axis", 0))
    return None


def get_static_value(tensor: Any, partial: bool = False) -> Any:
    """The value of ``tensor`` if it is known when the graph is built (a constant, a
    fully known shape, size or rank, or a stack or identity of those), else None; a
    value that is not a tensor is returned as it is (TF's ``tf.get_static_value``).

    Raises:
      NotImplementedError: ``partial=True`` (partially known values are not computed).
    """
    if partial:
        raise NotImplementedError("get_static_value: partial=True is not supported by flowrt")
    if isinstance(tensor, Tensor):
        value = constant_value(tensor)
        return None if value is None else np.array(value)
    if hasattr(tensor, "op") and hasattr(tensor, "dtype"):  # a variable: no static value
        return None
    return tensor
