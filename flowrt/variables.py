"""``fr.Variable`` and the variable collections and initializers of TF1.

A variable is a handle op (``VarHandleOp``, named like the variable) plus, built once
with it: ``<name>/Initializer/...`` (the initial value), ``<name>/Assign`` (the
initializer), ``<name>/IsInitialized/VarIsInitializedOp`` and the variable's snapshot
``<name>/Read/ReadVariableOp``. Its value lives in each session (see
``flowrt/ops/state_ops.py``). Wherever a tensor is expected the variable stands for
its snapshot, one tensor per variable, so ``fr.gradients(loss, v)`` differentiates
with respect to that tensor and optimizers update ``v.handle``.
"""

from __future__ import annotations

import contextlib
import enum
import inspect
import threading
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from . import dtypes as _dt
from ._core.graph import (
    Graph,
    GraphKeys,
    Operation,
    Tensor,
    TensorOperators,
    constant_op,
    convert_to_tensor,
    get_default_graph,
    session_for,
)
from ._core.registry import NOT_DIFFERENTIABLE, get_op_def, register_op
from ._core.shape import TensorShape, as_shape
from .func_graph import evaluate, notify_read, variable_graph
from .ops import slicing_ops, state_ops
from .ops.common import make_op
from .ops.control_flow_ops import tracing_body

if TYPE_CHECKING:
    from ._core.typing import DTypeLike, ShapeLike, TensorLike
    from .session import Session

__all__ = [
    "Variable",
    "VariableV1",
    "variable_creator_scope",
    "VariableSynchronization",
    "VariableAggregation",
    "global_variables",
    "all_variables",
    "trainable_variables",
    "local_variables",
    "model_variables",
    "moving_average_variables",
    "variables_initializer",
    "initialize_variables",
    "global_variables_initializer",
    "initialize_all_variables",
    "local_variables_initializer",
    "initialize_local_variables",
    "report_uninitialized_variables",
    "assert_variables_initialized",
]


class VariableSynchronization(enum.Enum):
    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


class VariableAggregation(enum.Enum):
    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3
    ONLY_FIRST_TOWER = 3


def _creator_stack(g) -> list:
    """The variable creators of ``g`` for this thread (innermost last)."""
    local = g._scratch.get("variable_creators")
    if local is None:
        with g._lock:
            local = g._scratch.setdefault("variable_creators", threading.local())
    if not hasattr(local, "stack"):
        local.stack = []
    return local.stack


class variable_creator_scope:  # noqa: N801 - TF1's name
    """Routes the creation of variables inside through ``variable_creator``.

    ``variable_creator(next_creator, **kwargs)`` receives the ``fr.Variable`` arguments
    as keywords (``initial_value``, ``name``, ``trainable``, ``caching_device``, ...)
    and returns a variable, usually ``next_creator(**kwargs)`` with changed arguments.
    Nested scopes run the innermost creator first. ``get_variable`` creates through
    them too. The creators are per graph and thread, as in TF; exiting a scope while
    one opened inside it is still open raises RuntimeError (and closes both).
    """

    def __init__(self, variable_creator: Callable[..., Any]) -> None:
        self._creator = variable_creator

    def __enter__(self) -> variable_creator_scope:
        self._stack = _creator_stack(get_default_graph())
        self._depth = len(self._stack)
        self._stack.append(self._creator)
        return self

    def __exit__(self, *exc: object) -> None:
        improper = len(self._stack) != self._depth + 1
        del self._stack[self._depth :]
        if improper:
            raise RuntimeError("Exiting variable_creator_scope without proper nesting.")


class _VariableMeta(type):
    """Sends ``Variable(...)`` through the creators of ``variable_creator_scope``."""

    def __call__(cls, *args, **kwargs):
        if cls is not Variable:
            return super().__call__(*args, **kwargs)
        stack = _creator_stack(get_default_graph())
        if not stack:
            return super().__call__(*args, **kwargs)
        bound = _INIT_SIGNATURE.bind(None, *args, **kwargs)
        bound.apply_defaults()
        arguments = dict(bound.arguments)
        del arguments["self"]

        def base(**kw):
            return type.__call__(cls, **kw)

        creator = base
        for c in stack:
            creator = _chain(c, creator)
        return creator(**arguments)


def _static_shape(value: Tensor, shape: Any, validate_shape: bool) -> TensorShape:
    """A new variable's shape: ``shape`` if given (checked against the initial value's
    when validating), else the initial value's, or unknown if not validating."""
    if shape is not None:
        static = as_shape(shape)
        if validate_shape and not static.is_compatible_with(value.shape):
            raise ValueError(
                "The initial value's shape (%s) is not compatible with "
                "the explicitly supplied `shape` argument (%s)." % (value.shape, static)
            )
        return static
    return value.shape if validate_shape else TensorShape(None)


def _chain(creator, next_creator):
    return lambda **kw: creator(next_creator, **kw)


class Variable(TensorOperators, metaclass=_VariableMeta):
    """A tensor whose value persists across runs of a session (TF1 ``tf.Variable``).

    Args:
      initial_value: a tensor or a value convertible to one, or a callable with no
        arguments returning one. Required.
      trainable: if True (default), also added to ``GraphKeys.TRAINABLE_VARIABLES``,
        the default list optimizers train.
      collections: graph collections to add it to (default ``[GLOBAL_VARIABLES]``).
      validate_shape: if False, the variable's shape is unknown and assignments may
        change it.
      name: the variable's name (default "Variable"), made unique under the current
        name scope.
      dtype: if set, ``initial_value`` is converted to it.
      constraint: a function applied by optimizers after updates.
      shape: the static shape, if different from ``initial_value``'s (e.g. ``[None]``).
      caching_device: the device (string or device function) the variable's value is
        read on: ``value()`` and uses of the variable as a tensor carry it.

    Note (flowrt): variables are TF's resource variables. ``assign`` and friends return
    the value they stored (a tensor), not a variable-like object.

    TF2 style (see docs/graph_functions.md): inside a ``@fr.function`` trace a variable
    from another graph is captured and its uses read and write its *eager state*, one
    value per variable object shared by all function calls, which ``numpy()`` reads;
    a variable created inside a function is lifted out of it and initialized at once,
    and only the function's first trace may create variables (else ValueError). A
    session's value of a TF1 graph variable is separate from its eager state, as two
    sessions' values are; a function called as an op in the variable's own graph gets
    its handle as an input and so uses the session's value.
    """

    def __init__(
        self,
        initial_value: TensorLike | Callable[[], TensorLike] | None = None,
        trainable: bool | None = None,
        collections: Iterable[str] | None = None,
        validate_shape: bool = True,
        caching_device: str | Callable[..., str] | None = None,
        name: str | None = None,
        variable_def: Any = None,
        dtype: DTypeLike | None = None,
        expected_shape: ShapeLike = None,
        import_scope: str | None = None,
        constraint: Callable[[Tensor], Tensor] | None = None,
        use_resource: bool | None = None,
        synchronization: VariableSynchronization = VariableSynchronization.AUTO,
        aggregation: VariableAggregation = VariableAggregation.NONE,
        shape: ShapeLike = None,
    ) -> None:
        if variable_def is not None:
            raise NotImplementedError(
                "variable_def (protocol buffers) is not supported by "
                "flowrt; create the variable from an initial value"
            )
        if initial_value is None:
            raise ValueError("initial_value must be specified.")
        init_from_fn = callable(initial_value)
        if trainable is None:
            trainable = synchronization != VariableSynchronization.ON_READ
        if collections is None:
            collections = [GraphKeys.GLOBAL_VARIABLES]
        if not isinstance(collections, (list, tuple, set)):
            raise ValueError(
                "collections argument to Variable constructor must be a list, "
                "tuple, or set. Got %s of type %s" % (collections, type(collections))
            )
        collections = list(collections)
        if trainable and GraphKeys.TRAINABLE_VARIABLES not in collections:
            collections.append(GraphKeys.TRAINABLE_VARIABLES)
        if constraint is not None and not callable(constraint):
            raise ValueError("The `constraint` argument must be a callable.")
        g = _graph_of(initial_value)
        lifted_from = g if g.building_function else None
        outer_scope = None
        if lifted_from is not None:
            initial_value, g = _lift(lifted_from, initial_value, dtype), variable_graph()
            init_from_fn = callable(initial_value)
            outer_scope = lifted_from.get_name_scope()
            outer_scope = outer_scope + "/" if outer_scope else None
        lifted_scope = (
            g.name_scope(outer_scope) if lifted_from is not None else contextlib.nullcontext()
        )
        with (
            g.as_default(),
            g.control_dependencies(None),
            g._init_scope_devices(),
            lifted_scope,
            g.name_scope(name or "Variable") as scope,
        ):
            full = scope[:-1]
            # TF1's placement: the initial value and the handle are colocated with the
            # handle (the initial value on no device of its own); the initializer and the
            # snapshot are on the handle's device.
            with g._attr_scope({"_class": ["loc:@" + full]}):
                with g.name_scope("Initializer"), g.device(None):
                    value = initial_value() if callable(initial_value) else initial_value
                    value = convert_to_tensor(
                        value, dtype=dtype, name=None if init_from_fn else "initial_value"
                    )
                self._handle = state_ops.var_handle(
                    value.dtype, _static_shape(value, shape, validate_shape), full
                )
            with g.name_scope("IsInitialized"):
                self._is_initialized = state_ops.is_variable_initialized(self)
            on_handle = self._handle.op.device
            with g.colocate_with(None, ignore_existing=True), g.device(on_handle):
                self._initializer_op = state_ops.assign_op(
                    self._handle, value, name="Assign", validate_shape=validate_shape
                ).op
            # TF1: the value is read (cached) on ``caching_device`` when one is given,
            # whatever the enclosing devices and colocation.
            with (
                g.colocate_with(None, ignore_existing=True)
                if caching_device is not None
                else contextlib.nullcontext(),
                g.device(on_handle if caching_device is None else caching_device),
                g.name_scope("Read"),
            ):
                self._snapshot = g._create_op(
                    "ReadVariableOp", [self._handle], {"dtype": value.dtype}, "ReadVariableOp"
                ).outputs[0]
        self._initial_value = value
        self._eager = None
        self._eager_lock = threading.Lock()
        if lifted_from is not None:
            self._handle.op.attrs["_resource"] = self._eager_resource()
            lifted_from.created_variables.append(self)
            lifted_from.add_to_collections(collections, self)
        self._trainable = bool(trainable)
        self._constraint = constraint
        self._caching_device = caching_device
        self._synchronization = synchronization
        self._aggregation = aggregation
        self._save_slice_info: Any = None  # a part of a PartitionedVariable: SaveSliceInfo
        g.add_to_collections(collections, self)

    # --- identity --------------------------------------------------------------------

    @property
    def name(self) -> str:
        return self._handle.name

    @property
    def op(self) -> Operation:
        return self.handle.op

    @property
    def handle(self) -> Tensor:
        """The ``VarHandleOp`` output; inputs of fused update ops take it (inside a
        function trace: the function graph's capture of the variable)."""
        g = get_default_graph()
        if g.building_function and g is not self._handle.graph:
            return self._capture(g)
        return self._handle

    @property
    def graph(self) -> Graph:
        """The variable's graph; inside a function trace, the function's graph."""
        return self.handle.graph

    @property
    def device(self) -> str:
        return self._handle.op.device

    @property
    def dtype(self) -> _dt.DType:
        return self._handle.op.attrs["dtype"]

    @property
    def shape(self) -> TensorShape:
        return self._handle.op.attrs["shape"]

    def get_shape(self) -> TensorShape:
        return self.shape

    @property
    def trainable(self) -> bool:
        return self._trainable

    @property
    def constraint(self) -> Callable[[Tensor], Tensor] | None:
        return self._constraint

    @property
    def synchronization(self) -> VariableSynchronization:
        return self._synchronization

    @property
    def aggregation(self) -> VariableAggregation:
        return self._aggregation

    @property
    def initializer(self) -> Operation:
        """The op that assigns the initial value (``<name>/Assign``)."""
        return self._initializer_op

    @property
    def create(self) -> Operation:
        return self._initializer_op

    @property
    def initial_value(self) -> Tensor:
        return self._initial_value

    # --- reading ---------------------------------------------------------------------

    def value(self) -> Tensor:
        """The variable's snapshot tensor (the same tensor every call); inside a function
        trace, a new read ordered after the function's earlier state ops (as TF2)."""
        handle = self.handle
        if handle is not self._handle or handle.graph.building_function:
            return self._read(handle)
        return self._snapshot

    def read_value(self) -> Tensor:
        """A new read of the variable (ordered by control dependencies where created)."""
        handle = self.handle
        g = handle.graph
        if g.building_function:
            return self._read(handle)
        with g.as_default(), g.name_scope("Read"):
            v = g._create_op(
                "ReadVariableOp", [handle], {"dtype": self.dtype}, "ReadVariableOp"
            ).outputs[0]
        with g.as_default():
            return g._create_op("Identity", [v], {}, None, "Identity").outputs[0]

    def numpy(self) -> np.ndarray:
        """The variable's eager state: the value ``@fr.function`` calls read and write.

        Note (flowrt): not a session's value; for that use ``sess.run(v)``.
        """
        res = self._eager_resource()
        with res.lock:
            value = res.value
        return value[()] if value.ndim == 0 else value.copy()

    # --- function captures -------------------------------------------------------------

    def _eager_resource(self):
        """This variable's process-wide state, initialized from its initial value."""
        if self._eager is None:
            with self._eager_lock:
                if self._eager is None:
                    res = state_ops.VariableResource(self._handle.op.name)
                    (value,) = evaluate([self._initial_value])
                    res.value = state_ops.frozen_copy(np.array(value, copy=True), self.dtype.np)
                    self._eager = res
        return self._eager

    def _capture(self, g) -> Tensor:
        """The handle of this variable in function graph ``g`` (made once per graph)."""
        entry = g.captured_variables.get(id(self))
        if entry is None:
            with g.as_default(), g.control_dependencies(None), g.name_scope(None):
                full = g.unique_name(self._handle.op.name)
                h = state_ops.var_handle(self.dtype, self.shape, full)
            h.op.attrs["_resource"] = self._eager_resource()
            entry = g.captured_variables[id(self)] = (self, h)
            # TF1 code inside a function (minimize() without var_list) finds it there.
            for key in self._home_collections():
                if self not in g.get_collection(key):
                    g.add_to_collection(key, self)
        return entry[1]

    def _all_reads(self) -> list:
        """The tensors to differentiate for this variable in the current graph: every
        read (its snapshot first; none in a function graph, where each use is a read of
        its own), so that gradients sum over all of them as TF's do via the handle; or
        the handle alone when a call, branch or loop takes it (its gradient is then the
        sum over the reads outside and theirs inside)."""
        handle = self.handle
        if any(get_op_def(c.type).extra.get("differentiates_handles") for c in handle.consumers()):
            return [handle]
        reads = [] if handle.graph.building_function else [self._snapshot]
        reads += [
            c.outputs[0]
            for c in handle.consumers()
            if c.type == "ReadVariableOp" and c.outputs[0] not in reads
        ]
        return reads

    def _home_collections(self) -> list:
        g = self._handle.graph
        return [
            k
            for k in (
                GraphKeys.GLOBAL_VARIABLES,
                GraphKeys.TRAINABLE_VARIABLES,
                GraphKeys.LOCAL_VARIABLES,
            )
            if any(v is self for v in g.get_collection(k))
        ]

    def _read(self, handle: Tensor) -> Tensor:
        """A new read of ``handle`` in its graph (a function graph's tapes are told)."""
        g = handle.graph
        with g.as_default():
            t = g._create_op(
                "ReadVariableOp", [handle], {"dtype": self.dtype}, "ReadVariableOp"
            ).outputs[0]
        if g.building_function:
            notify_read(g, self, t)
        return t

    def sparse_read(self, indices: TensorLike, name: str | None = None) -> Tensor:
        return slicing_ops.gather(self._snapshot, indices, name=name)

    def initialized_value(self) -> Tensor:
        """The value if initialized in the running session, else the initial value."""
        g = self._handle.graph
        with g.as_default(), g.control_dependencies(None):
            return g._create_op(
                "ReadVariableOrDefault",
                [self._handle, self._initial_value],
                {},
                None,
                "ReadVariableOrDefault",
            ).outputs[0]

    def is_initialized(self, name: str | None = None) -> Tensor:
        return state_ops.is_variable_initialized(self)

    def eval(self, session: Session | None = None) -> Any:
        """The variable's value in ``session`` (or the default session)."""
        return session_for(self._handle.graph, session).run(self._snapshot)

    def _as_tensor(self) -> Tensor:
        # Inside control_dependencies or a branch or loop body, a use of the variable is a
        # new read, ordered after them or read on each run of the body (as TF's resource
        # variables read afresh); elsewhere, the one snapshot.
        handle = self.handle
        if handle.graph.building_function or tracing_body(handle.graph):
            return self._read(handle)
        if any(ctrl for ctrl in handle.graph._control_stack):
            return self.read_value()
        return self._snapshot

    def _as_graph_element(self) -> Tensor:
        return self._snapshot

    # --- writing ---------------------------------------------------------------------

    def _update(self, op_type, value, name, read_value):
        handle = self.handle
        with handle.graph.as_default():
            out = state_ops.assign_op(handle, value, name=name, op_type=op_type)
        return out if read_value else out.op

    def assign(
        self,
        value: TensorLike,
        use_locking: bool | None = None,
        name: str | None = None,
        read_value: bool = True,
    ) -> Tensor | Operation:
        """Stores ``value``; returns a tensor of the stored value (or the op if
        ``read_value=False``)."""
        return self._update("AssignVariableOp", value, name, read_value)

    def assign_add(
        self,
        delta: Any,
        use_locking: bool | None = None,
        name: str | None = None,
        read_value: bool = True,
    ) -> Tensor | Operation:
        """Adds ``delta`` atomically; returns a tensor of the new value."""
        return self._update("AssignAddVariableOp", delta, name, read_value)

    def assign_sub(
        self,
        delta: Any,
        use_locking: bool | None = None,
        name: str | None = None,
        read_value: bool = True,
    ) -> Tensor | Operation:
        """Subtracts ``delta`` atomically; returns a tensor of the new value."""
        return self._update("AssignSubVariableOp", delta, name, read_value)

    def _scatter(self, fn, sparse_delta, use_locking, name):
        with self.graph.as_default():
            return fn(
                self, sparse_delta.indices, sparse_delta.values, use_locking=use_locking, name=name
            )

    def scatter_update(
        self, sparse_delta: Any, use_locking: bool = False, name: str | None = None
    ) -> Tensor:
        return self._scatter(state_ops.scatter_update, sparse_delta, use_locking, name)

    def scatter_add(
        self, sparse_delta: Any, use_locking: bool = False, name: str | None = None
    ) -> Tensor:
        return self._scatter(state_ops.scatter_add, sparse_delta, use_locking, name)

    def scatter_sub(
        self, sparse_delta: Any, use_locking: bool = False, name: str | None = None
    ) -> Tensor:
        return self._scatter(state_ops.scatter_sub, sparse_delta, use_locking, name)

    def count_up_to(self, limit: int) -> Tensor:
        """Increments this int scalar variable until it reaches ``limit`` (op type
        ``CountUpTo``); returns the value before the increment, and raises
        ``OutOfRangeError`` when run once the value reached ``limit``."""
        with self.graph.as_default():
            return state_ops.count_up_to(self, limit)

    def load(self, value: TensorLike, session: Session | None = None) -> None:
        """Writes ``value`` into the variable in ``session`` (no new ops are added)."""
        sess = session_for(self._handle.graph, session)
        sess.run(self._initializer_op, {self._initializer_op.inputs[1]: value})

    # --- misc -------------------------------------------------------------------------

    def set_shape(self, shape: ShapeLike) -> None:
        raise NotImplementedError(
            "Variable.set_shape is not supported; create the variable with `shape=`"
        )

    def __repr__(self) -> str:
        return "<fr.Variable '%s' shape=%s dtype=%s>" % (self.name, self.shape, self.dtype.name)

    def __str__(self) -> str:
        return self.__repr__()

    def __array__(self, dtype=None, copy=None):
        raise NotImplementedError(
            "Cannot convert a symbolic fr.Variable (%s) to a numpy array; fetch it with "
            "sess.run(v) or v.eval(session)." % self.name
        )


VariableV1 = Variable
_INIT_SIGNATURE = inspect.signature(Variable.__init__)


def _graph_of(initial_value):
    if isinstance(initial_value, Tensor):
        return initial_value.graph
    if isinstance(initial_value, Variable):
        return initial_value.graph
    return get_default_graph()


def _lift(fg, initial_value, dtype):
    """The initial value of a variable created while tracing function graph ``fg``, made
    independent of ``fg`` (a value computed now, or the callable as given)."""
    if not fg.may_create_variables:
        raise ValueError(
            "fr.function %r tried to create a variable on a trace other than its first. "
            "fr.function only supports variables created on the first call (TF2's rule): "
            "create the variable once, outside the function or guarded by `if self.v is "
            "None:` in an object, and reuse it." % fg.name
        )
    if callable(initial_value) and not isinstance(initial_value, Variable):
        return initial_value
    if isinstance(initial_value, (Tensor, Variable)):
        t = convert_to_tensor(initial_value, dtype=dtype)
        (value,) = evaluate([t])
        return np.array(value, copy=True)
    return initial_value


def _read_or_default_kernel(ctx, op, handle, default):
    value = handle.lease()
    return (value if value is not None else default,)


register_op(
    "ReadVariableOrDefault",
    infer=lambda op: [(op.inputs[1].dtype, op.inputs[1].shape)],
    kernel=_read_or_default_kernel,
    grad=NOT_DIFFERENTIABLE,
    stateful=True,
)


# --------------------------------------------------------------------------------------
# Collections and initializers
# --------------------------------------------------------------------------------------


def global_variables(scope: str | None = None) -> list[Variable]:
    """The variables in ``GraphKeys.GLOBAL_VARIABLES`` (optionally filtered by a name
    regex ``scope``)."""
    return get_default_graph().get_collection(GraphKeys.GLOBAL_VARIABLES, scope)


all_variables = global_variables


def trainable_variables(scope: str | None = None) -> list[Variable]:
    return get_default_graph().get_collection(GraphKeys.TRAINABLE_VARIABLES, scope)


def local_variables(scope: str | None = None) -> list[Variable]:
    return get_default_graph().get_collection(GraphKeys.LOCAL_VARIABLES, scope)


def model_variables(scope: str | None = None) -> list[Variable]:
    return get_default_graph().get_collection(GraphKeys.MODEL_VARIABLES, scope)


def moving_average_variables(scope: str | None = None) -> list[Variable]:
    return get_default_graph().get_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, scope)


def variables_initializer(var_list: Iterable[Variable], name: str = "init") -> Operation:
    """An op running the initializers of ``var_list`` (a no-op for an empty list)."""
    from .ops.array_ops import group, no_op

    var_list = list(var_list)
    if var_list:
        return group(*[v.initializer for v in var_list], name=name)
    return no_op(name=name)


initialize_variables = variables_initializer


def global_variables_initializer() -> Operation:
    """The op initializing every global variable (name "init")."""
    return variables_initializer(global_variables())


initialize_all_variables = global_variables_initializer


def local_variables_initializer() -> Operation:
    return variables_initializer(local_variables())


initialize_local_variables = local_variables_initializer


def report_uninitialized_variables(
    var_list: Iterable[Variable] | None = None, name: str = "report_uninitialized_variables"
) -> Tensor:
    """A 1-D string tensor: the names of the variables not yet initialized.

    As in TF1, each variable's check runs where the variable lives (on its cluster
    task), and only the booleans travel.
    """
    from .ops import array_ops, indexing_ops, math_ops

    if var_list is None:
        var_list = global_variables() + local_variables()
    var_list = list(var_list)
    g = get_default_graph()
    with g.name_scope(name):
        if not var_list:
            return constant_op(np.array([], dtype=object), _dt.string)
        missing = math_ops.logical_not(
            array_ops.stack([state_ops.is_variable_initialized(v) for v in var_list])
        )
        names = constant_op(np.array([v.op.name.encode() for v in var_list], dtype=object))
        return indexing_ops.boolean_mask(names, missing)


def _assert_init_kernel(ctx, op, *handles):
    from . import errors

    for n, h in zip(op.attrs["names"], handles, strict=True):
        if h.value is None:
            raise errors.FailedPreconditionError(
                None,
                op,
                "Attempting to use uninitialized value %s: run "
                "fr.global_variables_initializer() first." % n,
            )
    return ()


register_op(
    "AssertVariablesInitialized",
    infer=lambda op: [],
    kernel=_assert_init_kernel,
    grad=NOT_DIFFERENTIABLE,
    stateful=True,
)


def assert_variables_initialized(var_list: Iterable[Variable] | None = None) -> Operation | None:
    """An op that raises FailedPreconditionError if some variable is uninitialized
    (None when there are no variables)."""
    if var_list is None:
        var_list = global_variables() + local_variables()
    var_list = list(var_list)
    if not var_list:
        return None
    if len(var_list) == 1:
        return _assert_initialized(var_list)
    # One check per variable, on the variable's own task (a cluster), grouped.
    from .ops.array_ops import group

    return group(*[_assert_initialized([v]) for v in var_list])


def _assert_initialized(var_list):
    return make_op(
        "AssertVariablesInitialized",
        [v.handle for v in var_list],
        {"names": [v.op.name for v in var_list]},
        None,
        "AssertVariablesInitialized",
    )
