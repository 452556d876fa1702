"""``fr.get_variable`` and ``fr.variable_scope`` (TF1 variable sharing).

Each graph holds a variable store (full name -> variable, for ``get_variable`` only)
and, per thread, the current ``VariableScope`` and a count of opened scope names.
Variable names depend only on the variable scope; op names inside a scope follow its
name scope, so reopening ``dense2`` keeps ``dense2/weight`` while new ops go under
``dense2_1/``.
"""

from __future__ import annotations

import enum
import functools
import inspect
import threading
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from . import dtypes as _dt
from . import init_ops
from ._core.graph import GraphKeys, convert_to_tensor, get_default_graph
from ._core.shape import as_shape
from .partitioned_variables import (
    PartitionedVariable,
    PartitionInfo,
    SaveSliceInfo,
    check_partitions,
    slices,
)
from .variables import (
    Variable,
    VariableAggregation,
    VariableSynchronization,
    global_variables_initializer,
    local_variables_initializer,
    variables_initializer,
)

if TYPE_CHECKING:
    from ._core.typing import (
        Constraint,
        DeviceLike,
        DTypeLike,
        InitializerLike,
        Partitioner,
        Regularizer,
        ShapeLike,
    )

__all__ = [
    "AUTO_REUSE",
    "VariableScope",
    "variable_scope",
    "get_variable_scope",
    "get_variable",
    "get_local_variable",
    "no_regularizer",
]


class _ReuseMode(enum.Enum):
    """``reuse=AUTO_REUSE``: create variables that do not exist, reuse those that do."""

    AUTO_REUSE = 1


AUTO_REUSE = _ReuseMode.AUTO_REUSE

ReuseLike = bool | _ReuseMode | None
"""A scope's ``reuse``: True, False/None (inherit) or ``AUTO_REUSE``."""

init_ops.initializers.global_variables = global_variables_initializer
init_ops.initializers.local_variables = local_variables_initializer
init_ops.initializers.variables = variables_initializer


def no_regularizer(_: Any) -> None:
    """Use as ``regularizer=`` to turn off a scope's default regularizer."""
    return None


class VariableScope:
    """The defaults ``get_variable`` uses inside a ``variable_scope``.

    Attributes:
      name: the scope's name, prefixed to variable names.
      original_name_scope: the name scope opened with it (ends in "/").
      reuse: False (create only), True (reuse only) or ``AUTO_REUSE``.
      initializer: the default initializer.
      regularizer: the default regularizer.
      dtype: the default dtype.
      constraint: the default constraint.
      custom_getter: the default custom getter.
    """

    def __init__(
        self,
        reuse: ReuseLike,
        name: str = "",
        initializer: InitializerLike = None,
        regularizer: Regularizer | None = None,
        caching_device: DeviceLike = None,
        partitioner: Partitioner | None = None,
        custom_getter: Callable[..., Any] | None = None,
        name_scope: str = "",
        dtype: DTypeLike = _dt.float32,
        use_resource: bool | None = None,
        constraint: Constraint | None = None,
    ) -> None:
        self._name = name
        self._initializer = initializer
        self._regularizer = regularizer
        self._reuse = reuse
        self._caching_device = caching_device
        self._partitioner = partitioner
        self._custom_getter = custom_getter
        self._name_scope = name_scope
        self._dtype = dtype
        self._use_resource = use_resource
        self._constraint = constraint

    @property
    def name(self) -> str:
        return self._name

    @property
    def original_name_scope(self) -> str:
        return self._name_scope

    @property
    def reuse(self) -> ReuseLike:
        return self._reuse

    @property
    def initializer(self) -> InitializerLike:
        return self._initializer

    @property
    def regularizer(self) -> Regularizer | None:
        return self._regularizer

    @property
    def caching_device(self) -> DeviceLike:
        return self._caching_device

    @property
    def partitioner(self) -> Partitioner | None:
        return self._partitioner

    @property
    def custom_getter(self) -> Callable[..., Any] | None:
        return self._custom_getter

    @property
    def dtype(self) -> DTypeLike:
        return self._dtype

    @property
    def use_resource(self) -> bool | None:
        return self._use_resource

    @property
    def constraint(self) -> Constraint | None:
        return self._constraint

    def reuse_variables(self) -> None:
        """Turns on reuse for the rest of this scope."""
        self._reuse = True

    def set_initializer(self, initializer: InitializerLike) -> None:
        self._initializer = initializer

    def set_dtype(self, dtype: DTypeLike) -> None:
        self._dtype = dtype

    def set_use_resource(self, use_resource: bool | None) -> None:
        self._use_resource = use_resource

    def set_regularizer(self, regularizer: Regularizer | None) -> None:
        self._regularizer = regularizer

    def set_caching_device(self, caching_device: DeviceLike) -> None:
        self._caching_device = caching_device

    def set_partitioner(self, partitioner: Partitioner | None) -> None:
        self._partitioner = partitioner

    def set_custom_getter(self, custom_getter: Callable[..., Any] | None) -> None:
        self._custom_getter = custom_getter

    def get_collection(self, name: str) -> list[Any]:
        scope = self._name + "/" if self._name else ""
        return get_default_graph().get_collection(name, scope)

    def trainable_variables(self) -> list[Variable]:
        return self.get_collection(GraphKeys.TRAINABLE_VARIABLES)

    def global_variables(self) -> list[Variable]:
        return self.get_collection(GraphKeys.GLOBAL_VARIABLES)

    def local_variables(self) -> list[Variable]:
        return self.get_collection(GraphKeys.LOCAL_VARIABLES)

    def get_variable(
        self,
        var_store: _VariableStore,
        name: str,
        shape: ShapeLike = None,
        dtype: DTypeLike | None = None,
        initializer: InitializerLike = None,
        regularizer: Regularizer | None = None,
        reuse: ReuseLike = None,
        trainable: bool | None = None,
        collections: Iterable[str] | None = None,
        caching_device: DeviceLike = None,
        partitioner: Partitioner | None = None,
        validate_shape: bool = True,
        use_resource: bool | None = None,
        custom_getter: Callable[..., Any] | None = None,
        constraint: Constraint | None = None,
        synchronization: VariableSynchronization = VariableSynchronization.AUTO,
        aggregation: VariableAggregation = VariableAggregation.NONE,
    ) -> Variable | Any:
        """Gets or creates the variable ``<scope name>/<name>`` with this scope's
        defaults."""
        if regularizer is None:
            regularizer = self._regularizer
        if custom_getter is None:
            custom_getter = self._custom_getter
        if reuse is None:
            reuse = self._reuse
        if caching_device is None:
            caching_device = self._caching_device
        if partitioner is None:
            partitioner = self._partitioner
        full_name = self.name + "/" + name if self.name else name
        g = get_default_graph()
        with g.name_scope(None):
            if dtype is not None and initializer is not None and not callable(initializer):
                init_dtype = convert_to_tensor(initializer).dtype
                if init_dtype != _dt.as_dtype(dtype):
                    raise ValueError(
                        "Initializer type '%s' and explicit dtype '%s' don't "
                        "match." % (init_dtype.name, _dt.as_dtype(dtype).name)
                    )
            if initializer is None:
                initializer = self._initializer
            if constraint is None:
                constraint = self._constraint
            if dtype is None:
                dtype = self._dtype
            return var_store.get_variable(
                full_name,
                shape=shape,
                dtype=dtype,
                initializer=initializer,
                regularizer=regularizer,
                reuse=reuse,
                trainable=trainable,
                collections=collections,
                caching_device=caching_device,
                partitioner=partitioner,
                validate_shape=validate_shape,
                custom_getter=custom_getter,
                constraint=constraint,
                synchronization=synchronization,
                aggregation=aggregation,
            )

    def __repr__(self):
        return "<fr.VariableScope %r reuse=%r>" % (self._name, self._reuse)


class _VariableStore:
    """Variables created by ``get_variable`` in one graph, by full name."""

    def __init__(self):
        self._vars: dict[str, Variable] = {}
        self._partitioned_vars: dict[str, PartitionedVariable] = {}

    def get_variable(
        self,
        name,
        shape=None,
        dtype=_dt.float32,
        initializer=None,
        regularizer=None,
        reuse=None,
        trainable=None,
        collections=None,
        caching_device=None,
        partitioner=None,
        validate_shape=True,
        custom_getter=None,
        constraint=None,
        synchronization=VariableSynchronization.AUTO,
        aggregation=VariableAggregation.NONE,
    ):
        def true_getter(
            name,
            shape=None,
            dtype=_dt.float32,
            initializer=None,
            regularizer=None,
            reuse=None,
            trainable=None,
            collections=None,
            caching_device=None,
            partitioner=None,
            validate_shape=True,
            constraint=None,
            synchronization=VariableSynchronization.AUTO,
            aggregation=VariableAggregation.NONE,
            **_ignored,
        ):
            args = (
                dtype,
                initializer,
                regularizer,
                reuse,
                trainable,
                collections,
                caching_device,
                validate_shape,
                constraint,
                synchronization,
                aggregation,
            )
            scalar = shape is not None and as_shape(shape).ndims == 0
            if partitioner is not None and not scalar:  # TF: scalars ignore partitioners
                return self._get_partitioned_variable(name, partitioner, shape, *args)
            if reuse is True and name in self._partitioned_vars:
                # TF: reusing a partitioned variable needs no partitioner (nor shape).
                return self._get_partitioned_variable(name, None, shape, *args)
            return self._get_single_variable(name, shape, *args)

        if trainable is None:
            trainable = synchronization != VariableSynchronization.ON_READ
        kwargs = dict(
            name=name,
            shape=shape,
            dtype=dtype,
            initializer=initializer,
            regularizer=regularizer,
            reuse=reuse,
            trainable=trainable,
            collections=collections,
            caching_device=caching_device,
            partitioner=partitioner,
            validate_shape=validate_shape,
            constraint=constraint,
            synchronization=synchronization,
            aggregation=aggregation,
        )
        if custom_getter is not None:
            if not callable(custom_getter):
                raise ValueError("Passed a custom_getter which is not callable: %s" % custom_getter)
            return custom_getter(true_getter, **kwargs)
        return true_getter(**kwargs)

    def _get_partitioned_variable(
        self,
        name,
        partitioner,
        shape,
        dtype,
        initializer,
        regularizer,
        reuse,
        trainable,
        collections,
        caching_device,
        validate_shape,
        constraint,
        synchronization,
        aggregation,
    ):
        """TF1's ``_get_partitioned_variable``: parts ``<name>/part_<i>`` of one variable."""
        dtype = _dt.as_dtype(dtype)
        init_value = None
        if initializer is not None and not callable(initializer):
            init_value = convert_to_tensor(initializer, dtype=dtype)
        shape = as_shape(shape)
        if partitioner is None:  # reuse without a partitioner (checked by the caller)
            found = self._partitioned_vars[name]
            if not shape.is_compatible_with(found.get_shape()):
                raise ValueError(
                    "Trying to reuse partitioned variable %s, but specified "
                    "shape %s and found shape %s." % (name, shape, found.get_shape())
                )
            return found
        if not shape.is_fully_defined():
            raise ValueError(
                "Shape of a new partitioned variable must be fully defined, but "
                "instead was %s." % shape
            )
        if shape.ndims == 0:
            raise ValueError("A partitioned Variable must have rank at least 1, shape: %s" % shape)
        partitions = check_partitions(partitioner(shape=shape, dtype=dtype), shape, name)
        if name in self._partitioned_vars:
            if reuse is False:
                raise ValueError(
                    "Partitioned variable with name %s already exists. Did you "
                    "mean to set reuse=True or reuse=fr.AUTO_REUSE in VarScope?" % name
                )
            found = self._partitioned_vars[name]
            if not shape.is_compatible_with(found.get_shape()):
                raise ValueError(
                    "Trying to reuse partitioned variable %s, but specified "
                    "shape %s and found shape %s." % (name, shape, found.get_shape())
                )
            if not dtype.is_compatible_with(found.dtype):
                raise ValueError(
                    "Trying to reuse partitioned variable %s, but specified "
                    "dtype %s and found dtype %s." % (name, dtype.name, found.dtype.name)
                )
            if partitions != found._get_partitions():
                raise ValueError(
                    "Trying to reuse partitioned variable %s, but specified "
                    "partitions %s and found partitions %s."
                    % (name, partitions, found._get_partitions())
                )
            return found
        if reuse is True:
            raise ValueError(
                "PartitionedVariable %s does not exist, or was not created with "
                "fr.get_variable(). Did you mean to set reuse=False or "
                "reuse=fr.AUTO_REUSE in VarScope?" % name
            )
        if name in self._vars:
            raise ValueError(
                "A partitioner was provided, but an unpartitioned version of the "
                "variable was found: %s. Perhaps a variable of the same name "
                "was already created without partitioning?" % name
            )
        if initializer is None:
            initializer = _default_initializer(name, dtype)
        if inspect.isclass(initializer):
            initializer = initializer()
        parts = []
        for i, (offset, part_shape) in enumerate(slices(shape.as_list(), partitions)):
            part_name = "%s/part_%d" % (name, i)
            if part_name in self._vars:
                raise ValueError(
                    "Partitioned variable %s: a variable named %s already "
                    "exists." % (name, part_name)
                )
            if init_value is not None:
                from .ops.slicing_ops import slice as slice_

                with get_default_graph().name_scope(part_name + "/Initializer/"):
                    part_init = slice_(init_value, offset, part_shape)
                part_shape_arg = None
            else:
                info = PartitionInfo(shape.as_list(), offset)
                part_init = functools.partial(_with_partition_info, initializer, info)
                part_shape_arg = part_shape
            v = self._get_single_variable(
                part_name,
                part_shape_arg,
                dtype,
                part_init,
                regularizer,
                False,
                trainable,
                collections,
                caching_device,
                validate_shape,
                constraint,
                synchronization,
                aggregation,
            )
            v._save_slice_info = SaveSliceInfo(name, shape.as_list(), offset, part_shape)
            parts.append(v)
        pv = PartitionedVariable(name, shape, dtype, parts, partitions)
        self._partitioned_vars[name] = pv
        return pv

    def _get_single_variable(
        self,
        name,
        shape,
        dtype,
        initializer,
        regularizer,
        reuse,
        trainable,
        collections,
        caching_device,
        validate_shape,
        constraint,
        synchronization,
        aggregation,
    ):
        from_value = initializer is not None and not callable(initializer)
        if shape is not None and from_value:
            raise ValueError("If initializer is a constant, do not specify shape.")
        dtype = _dt.as_dtype(dtype)
        if shape is not None:
            shape = as_shape(shape)
        if name in self._vars:
            if reuse is False:
                raise ValueError(
                    "Variable %s already exists, disallowed. Did you mean to set "
                    "reuse=True or reuse=fr.AUTO_REUSE in VarScope?" % name
                )
            found = self._vars[name]
            if shape is not None and not shape.is_compatible_with(found.get_shape()):
                raise ValueError(
                    "Trying to share variable %s, but specified shape %s and "
                    "found shape %s." % (name, shape, found.get_shape())
                )
            if not dtype.is_compatible_with(found.dtype):
                raise ValueError(
                    "Trying to share variable %s, but specified dtype %s and "
                    "found dtype %s." % (name, dtype.name, found.dtype.name)
                )
            return found
        if reuse is True:
            raise ValueError(
                "Variable %s does not exist, or was not created with "
                "fr.get_variable(). Did you mean to set reuse=fr.AUTO_REUSE in "
                "VarScope?" % name
            )
        if initializer is None:
            if shape is None:
                raise ValueError(
                    "Variable %s did not get an initializer, so its `shape` "
                    "argument must be specified." % name
                )
            initializer = _default_initializer(name, dtype)
        if from_value:
            init_val, var_dtype = initializer, None
        else:
            if inspect.isclass(initializer):
                initializer = initializer()
            if shape is not None and shape.is_fully_defined():
                init_val = functools.partial(initializer, shape.as_list(), dtype=dtype)
                var_dtype = dtype
            elif _needs_no_arguments(initializer):
                init_val, var_dtype = initializer, None
            else:
                raise ValueError(
                    "The initializer passed is not valid. It should be a "
                    "callable with no arguments and the shape should not be "
                    "provided, or an initializer and `shape` should be fully "
                    "defined (got shape %s for variable %s)." % (shape, name)
                )
        v = Variable(
            initial_value=init_val,
            name=name,
            trainable=trainable,
            collections=collections,
            caching_device=caching_device,
            dtype=var_dtype,
            validate_shape=validate_shape,
            constraint=constraint,
            synchronization=synchronization,
            aggregation=aggregation,
            shape=shape,
        )
        self._vars[name] = v
        if regularizer:
            g = get_default_graph()
            with g.name_scope(name + "/Regularizer/"):
                loss = regularizer(v)
            if loss is not None:
                g.add_to_collection(GraphKeys.REGULARIZATION_LOSSES, loss)
        return v


def _with_partition_info(initializer, info, shape, dtype=None, partition_info=None):
    """Calls an initializer for one part, telling it where the part lies if it asks."""
    try:
        params = inspect.signature(initializer).parameters
    except (TypeError, ValueError):
        params = {}
    if "partition_info" in params or any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return initializer(shape, dtype=dtype, partition_info=info)
    return initializer(shape, dtype=dtype)


def _default_initializer(name, dtype):
    if dtype.is_floating:
        return init_ops.glorot_uniform_initializer()
    if dtype.is_integer or dtype.is_bool or dtype is _dt.string:
        return init_ops.zeros_initializer()
    raise ValueError("An initializer for variable %s of %s is required" % (name, dtype.name))


def _needs_no_arguments(fn):
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return False
    return all(
        p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        for p in sig.parameters.values()
    )


class _VariableScopeStore(threading.local):
    """Per graph and thread: the current scope and how often each name was opened."""

    def __init__(self):
        super().__init__()
        self.current_scope = VariableScope(False)
        self.variable_scopes_count: dict[str, int] = {}
        self.open_contexts: list = []  # entered variable_scope objects, innermost last

    def open_variable_scope(self, scope_name):
        self.variable_scopes_count[scope_name] = self.variable_scopes_count.get(scope_name, 0) + 1

    def close_variable_subscopes(self, scope_name):
        prefix = scope_name + "/"
        for k in self.variable_scopes_count:
            if k.startswith(prefix):
                self.variable_scopes_count[k] = 0

    def variable_scope_count(self, scope_name):
        return self.variable_scopes_count.get(scope_name, 0)


def _stores(g=None):
    g = g or get_default_graph()
    s = g._scratch
    if "variable_store" not in s:
        with g._lock:
            s.setdefault("variable_scope_store", _VariableScopeStore())
            s.setdefault("variable_store", _VariableStore())
    return s["variable_store"], s["variable_scope_store"]


def get_variable_scope() -> VariableScope:
    """The current variable scope of this thread in the default graph."""
    return _stores()[1].current_scope


def get_variable(
    name: str,
    shape: ShapeLike = None,
    dtype: DTypeLike | None = None,
    initializer: InitializerLike = None,
    regularizer: Regularizer | None = None,
    trainable: bool | None = None,
    collections: Iterable[str] | None = None,
    caching_device: DeviceLike = None,
    partitioner: Partitioner | None = None,
    validate_shape: bool = True,
    use_resource: bool | None = None,
    custom_getter: Callable[..., Any] | None = None,
    constraint: Constraint | None = None,
    synchronization: VariableSynchronization = VariableSynchronization.AUTO,
    aggregation: VariableAggregation = VariableAggregation.NONE,
) -> Variable | Any:
    """Gets the variable ``<scope>/<name>`` or creates it (TF1 ``tf.get_variable``).

    Args:
      name: the name within the current variable scope.
      shape: the shape (required unless ``initializer`` is a value or tensor).
      dtype: default the scope's dtype (float32).
      initializer: an initializer (default: the scope's, else glorot_uniform for floats
        and zeros for ints), or a value/tensor (then ``shape`` must be None).
      regularizer: ``fn(variable) -> loss`` added to ``REGULARIZATION_LOSSES``.
      trainable: as for ``fr.Variable``.
      collections: as for ``fr.Variable``.
      validate_shape: as for ``fr.Variable``.
      constraint: as for ``fr.Variable``.
      custom_getter: ``fn(getter, name, *args, **kwargs)`` wrapping creation.

    Returns:
      The ``Variable``; a ``PartitionedVariable`` when a partitioner applies, or what a
      custom getter returns (hence typed ``Variable | Any``, usually a ``Variable``).

    Raises:
      ValueError: creating a variable that exists without reuse, reusing one that does
        not exist, a shape or dtype that conflicts with the existing variable.
    """
    var_store, scope_store = _stores()
    return scope_store.current_scope.get_variable(
        var_store,
        name,
        shape=shape,
        dtype=dtype,
        initializer=initializer,
        regularizer=regularizer,
        trainable=trainable,
        collections=collections,
        caching_device=caching_device,
        partitioner=partitioner,
        validate_shape=validate_shape,
        custom_getter=custom_getter,
        constraint=constraint,
        synchronization=synchronization,
        aggregation=aggregation,
    )


def get_local_variable(
    name: str,
    shape: ShapeLike = None,
    dtype: DTypeLike | None = None,
    initializer: InitializerLike = None,
    regularizer: Regularizer | None = None,
    trainable: bool | None = False,
    collections: Iterable[str] | None = None,
    caching_device: DeviceLike = None,
    partitioner: Partitioner | None = None,
    validate_shape: bool = True,
    use_resource: bool | None = None,
    custom_getter: Callable[..., Any] | None = None,
    constraint: Constraint | None = None,
    synchronization: VariableSynchronization = VariableSynchronization.AUTO,
    aggregation: VariableAggregation = VariableAggregation.NONE,
) -> Variable | Any:
    """``get_variable`` adding the variable to ``LOCAL_VARIABLES`` (not trainable)."""
    collections = list(collections or []) + [GraphKeys.LOCAL_VARIABLES]
    return get_variable(
        name,
        shape,
        dtype,
        initializer,
        regularizer,
        trainable,
        collections,
        caching_device,
        partitioner,
        validate_shape,
        use_resource,
        custom_getter,
        constraint,
        synchronization,
        aggregation,
    )


class _pure_variable_scope:  # noqa: N801 - TF's name
    """Sets the current VariableScope (no name scope)."""

    def __init__(
        self,
        name_or_scope,
        reuse=None,
        initializer=None,
        regularizer=None,
        caching_device=None,
        partitioner=None,
        custom_getter=None,
        old_name_scope=None,
        dtype=None,
        use_resource=None,
        constraint=None,
    ):
        self._name_or_scope = name_or_scope
        self._reuse = reuse
        self._overrides = dict(
            initializer=initializer,
            regularizer=regularizer,
            caching_device=caching_device,
            partitioner=partitioner,
            custom_getter=custom_getter,
            dtype=dtype,
            use_resource=use_resource,
        )
        self._constraint = constraint
        self._old_name_scope = old_name_scope
        self._store = _stores()[1]

    def _apply(self, scope, old_getter):
        o = self._overrides
        for key in (
            "initializer",
            "regularizer",
            "caching_device",
            "partitioner",
            "dtype",
            "use_resource",
        ):
            if o[key] is not None:
                getattr(scope, "set_" + key)(o[key])
        if o["custom_getter"] is not None:
            scope.set_custom_getter(_wrap_getter(o["custom_getter"], old_getter))
        return scope

    def __enter__(self):
        store = self._store
        self._old = store.current_scope
        if isinstance(self._name_or_scope, VariableScope):
            src = self._name_or_scope
            self._new_name = src.name
            scope = VariableScope(
                src.reuse if not self._reuse else self._reuse,
                name=src.name,
                initializer=src.initializer,
                regularizer=src.regularizer,
                caching_device=src.caching_device,
                partitioner=src.partitioner,
                dtype=src.dtype,
                custom_getter=src.custom_getter,
                name_scope=src.original_name_scope,
                use_resource=src.use_resource,
                constraint=self._constraint,
            )
            self._apply(scope, src.custom_getter)
            store.open_variable_scope(self._new_name)
            self._old_subscopes = dict(store.variable_scopes_count)
        else:
            old = self._old
            self._new_name = (
                old.name + "/" + self._name_or_scope if old.name else self._name_or_scope
            )
            reuse = self._reuse or old.reuse
            name_scope = (
                self._name_or_scope if self._old_name_scope is None else self._old_name_scope
            )
            scope = VariableScope(
                reuse,
                name=self._new_name,
                initializer=old.initializer,
                regularizer=old.regularizer,
                caching_device=old.caching_device,
                partitioner=old.partitioner,
                dtype=old.dtype,
                use_resource=old.use_resource,
                custom_getter=old.custom_getter,
                name_scope=name_scope,
                constraint=self._constraint,
            )
            self._apply(scope, old.custom_getter)
            store.open_variable_scope(self._new_name)
        store.current_scope = scope
        self._last = scope
        return scope

    def __exit__(self, *exc):
        store = self._store
        improper = store.current_scope is not self._last
        if isinstance(self._name_or_scope, VariableScope):
            store.variable_scopes_count = self._old_subscopes
        else:
            store.close_variable_subscopes(self._new_name)
        # Restored even when improperly nested (TF leaves the inner scope current),
        # so later scopes and names are not built on a stale scope.
        store.current_scope = self._old
        if improper:
            raise RuntimeError("Improper nesting of variable_scope.")


def _wrap_getter(custom_getter, old_getter):
    if old_getter is None:
        return custom_getter

    def wrapped(getter, *args, **kwargs):
        return custom_getter(functools.partial(old_getter, getter), *args, **kwargs)

    return wrapped


def _unique_variable_scope(prefix):
    store = _stores()[1]
    current = store.current_scope
    name = current.name + "/" + prefix if current.name else prefix
    if store.variable_scope_count(name) == 0:
        return prefix
    idx = 1
    while store.variable_scope_count(name + "_%d" % idx) > 0:
        idx += 1
    return prefix + "_%d" % idx


class variable_scope:  # noqa: N801 - TF1's name
    """A context for ``get_variable`` names, defaults and reuse; also opens a name scope.

    Args:
      name_or_scope: a string or a ``VariableScope`` to (re)open.
      default_name: used (made unique) when ``name_or_scope`` is None.
      values: tensors passed to the layer; their graph becomes the default.
      initializer: the default ``initializer`` of ``get_variable`` inside.
      regularizer: the default ``regularizer`` of ``get_variable`` inside.
      dtype: the default ``dtype`` of ``get_variable`` inside.
      constraint: the default ``constraint`` of ``get_variable`` inside.
      custom_getter: the default ``custom_getter`` of ``get_variable`` inside.
      reuse: None (inherit), True (only reuse; inherited by sub-scopes) or
        ``fr.AUTO_REUSE`` (create if missing); False is treated as None.
      auxiliary_name_scope: if False, no name scope is opened.

    Example:
      with fr.variable_scope("dense1"):
          w = fr.get_variable("weight", [4, 3])      # dense1/weight
      with fr.variable_scope("dense1", reuse=True):
          w2 = fr.get_variable("weight")              # the same variable
    """

    def __init__(
        self,
        name_or_scope: str | VariableScope | None,
        default_name: str | None = None,
        values: Iterable[Any] | None = None,
        initializer: InitializerLike = None,
        regularizer: Regularizer | None = None,
        caching_device: DeviceLike = None,
        partitioner: Partitioner | None = None,
        custom_getter: Callable[..., Any] | None = None,
        reuse: ReuseLike = None,
        dtype: DTypeLike | None = None,
        use_resource: bool | None = None,
        constraint: Constraint | None = None,
        auxiliary_name_scope: bool = True,
    ) -> None:
        if default_name is None and name_or_scope is None:
            raise TypeError("If default_name is None then name_or_scope is required")
        if reuse is False:
            reuse = None  # False means "inherit", as in TF1.
        if not (reuse is True or reuse is None or reuse is AUTO_REUSE):
            raise ValueError("The reuse parameter must be True or False or None.")
        if name_or_scope is not None and not isinstance(name_or_scope, (VariableScope, str)):
            raise TypeError("VariableScope: name_or_scope must be a string or VariableScope.")
        if not isinstance(auxiliary_name_scope, bool):
            raise TypeError(
                "The auxiliary_name_scope must be `True` or `False`, while get {}".format(
                    auxiliary_name_scope
                )
            )
        self._name_or_scope = name_or_scope
        self._default_name = default_name
        self._values = values or []
        self._kw = dict(
            initializer=initializer,
            regularizer=regularizer,
            caching_device=caching_device,
            partitioner=partitioner,
            custom_getter=custom_getter,
            dtype=dtype,
            use_resource=use_resource,
            constraint=constraint,
        )
        self._reuse = reuse
        self._aux = auxiliary_name_scope

    def _graph(self):
        for v in _flatten(self._values):
            g = getattr(v, "graph", None)
            if g is not None:
                return g
        return get_default_graph()

    def __enter__(self) -> VariableScope:
        self._exits = []
        self._closed = False
        g = self._graph()
        gctx = g.as_default()
        gctx.__enter__()
        self._exits.append(gctx)
        try:
            scope = self._enter(g)
        except BaseException:
            self._unwind(None, None, None)
            raise
        self._open = _stores(g)[1].open_contexts
        self._open.append(self)
        return scope

    def _enter(self, g) -> VariableScope:
        ns = None
        if not self._aux:
            cur = g.get_name_scope()
            ns = g.name_scope(cur + "/" if cur else "")
        if self._name_or_scope is not None:
            nos = self._name_or_scope
            scope_name = nos if isinstance(nos, str) else nos.name.split("/")[-1]
            if scope_name or ns is not None:
                ns = ns or g.name_scope(scope_name)
                ns_name = ns.__enter__()
                self._exits.append(ns)
                old_ns = ns_name if isinstance(nos, str) else nos.original_name_scope
                pure = _pure_variable_scope(
                    nos, reuse=self._reuse, old_name_scope=old_ns, **self._kw
                )
            else:
                pure = _pure_variable_scope(nos, reuse=self._reuse, **self._kw)
        else:
            if self._reuse:
                raise ValueError("reuse=True cannot be used without a name_or_scope")
            ns = ns or g.name_scope(self._default_name)
            ns_name = ns.__enter__()
            self._exits.append(ns)
            unique = _unique_variable_scope(self._default_name)
            pure = _pure_variable_scope(unique, old_name_scope=ns_name, **self._kw)
        scope = pure.__enter__()
        self._exits.append(pure)
        return scope

    def __exit__(self, *exc: object) -> None:
        if self._closed:
            raise RuntimeError(
                "Improper nesting of variable_scope: this scope was closed "
                "when an enclosing variable_scope exited."
            )
        # Exiting a scope with scopes still open inside it (improper nesting) first
        # closes those, so the variable scope, name scope and default graph stacks stay
        # consistent; then it raises, as TF does.
        opened = self._open
        inner = []
        for i in range(len(opened) - 1, -1, -1):
            if opened[i] is self:
                inner = opened[i + 1 :]
                del opened[i:]
                break
        for ctx in reversed(inner):
            ctx._closed = True
            ctx._unwind(None, None, None)
        self._closed = True
        self._unwind(*exc)
        if inner:
            raise RuntimeError("Improper nesting of variable_scope.")

    def _unwind(self, *exc):
        # Every context entered is exited, even when one of them fails.
        first = None
        while self._exits:
            try:
                self._exits.pop().__exit__(*exc)
            except BaseException as e:  # re-raised below
                first = first or e
        if first is not None:
            raise first


def _flatten(values):
    for v in values:
        if isinstance(v, (list, tuple)):
            yield from _flatten(v)
        else:
            yield v
