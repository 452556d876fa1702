"""Variable state ops (TF's resource-variable types) and the variable-update API.

A variable's value lives in the session, not the graph: ``ctx.resources`` maps
``("var", shared_name)`` to a ``VariableResource`` holding the current numpy value and
a ``threading.Lock``. Every run of one session shares it; two sessions on one graph
have separate state. Stored arrays are read-only and never mutated: an update stores
a fresh array (copy-on-write), so a reader holding the old array is never disturbed,
and each read-modify-write happens under the variable's lock, so concurrent runs
(threads or trio tasks) never lose an update.

Op types (all ``stateful=True``):
  ``VarHandleOp``          -> the variable's handle (its ``VariableResource``)
  ``ReadVariableOp``       handle -> value (gradient passes through to the handle's reader)
  ``AssignVariableOp``     handle, value -> the value stored
  ``AssignAddVariableOp``  handle, delta -> the value stored
  ``AssignSubVariableOp``  handle, delta -> the value stored
  ``VarIsInitializedOp``   handle -> bool
  ``ResourceScatterUpdate/Add/Sub`` handle, indices, updates -> the value stored
Flowrt's assign ops output the value they stored (TF's have no output and re-read):
the result is exactly the written value even under concurrent updates.

Internal API for fused update kernels (optimizers). A kernel receives the value of a
variable's ``handle`` tensor (``Variable.handle``) as an input; pass it (or the
variable's op name) as ``handle``:

  ``update_variable(ctx, op, handle, fn)``: ``fn(old) -> new`` under the lock; ``new``
      must be a fresh array the kernel owns (e.g. ``old - lr * g``); it is stored
      read-only and returned. Raises FailedPreconditionError if uninitialized.
  ``update_variables(ctx, op, handles, fn)``: ``fn([old, ...]) -> [new, ...]`` for
      several variables at once (a variable and its slots), locks taken in key order.
  ``scatter_variable(ctx, op, handle, indices, updates, mode)``: a sparse row update
      (``mode`` in "update", "add", "sub", "mul", "div", "min", "max"); duplicate
      indices accumulate for add/sub. Use it for ``IndexedSlices`` gradients.
  ``update_variable_rows(ctx, op, handle, indices, fn)``: ``fn(old_rows) -> new_rows``
      on the unique ``indices`` (the rows they name, in the order of ``np.unique``).
  ``update_variables_inplace(ctx, op, handles, fn)``: ``fn([arr, ...])`` writes into
      the arrays, which are the stored arrays themselves when nothing else references
      them (else copies); they are stored read-only again afterwards.
  ``read_variable(ctx, op, handle)`` -> the current (read-only) value.

Stored arrays are never written while anything else (a run's value, a view, a
fetch) references them; when nothing does, updates write in place instead of
copying, which for a vocabulary-sized embedding is most of a training step.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.graph import GraphKeys, Tensor, convert_to_tensor, get_default_graph
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from .._core.shape import TensorShape, as_shape
from .common import in_graph_of, make_op

if TYPE_CHECKING:
    from .._core.typing import TensorLike
    from ..partitioned_variables import PartitionedVariable
    from ..variables import Variable

__all__ = [
    "assign",
    "assign_add",
    "assign_sub",
    "scatter_update",
    "scatter_add",
    "scatter_sub",
    "is_variable_initialized",
    "count_up_to",
]

# The handle of a variable: TF's ``resource`` dtype (not numeric, never differentiated).
resource = _dt.resource


class VariableResource:
    """The per-session state of one variable: its value (None until initialized).

    Ownership of the stored array is explicit: every read that hands it out counts a
    *holder* (``lease``), and a run that proves its read's value died within the run
    hands the lease back (``release``, emitted by the compiled plan; see
    ``executor.compile_plan``). An update may write the stored array in place only
    while it has no holder; otherwise it copies (copy-on-write). Storing a new array
    starts its count at zero.
    """

    __slots__ = ("name", "_value", "holders", "lock")

    def __init__(self, name: str):
        self.name = name
        self._value: np.ndarray | None = None
        self.holders = 0
        self.lock = threading.Lock()

    @property
    def value(self) -> np.ndarray | None:
        return self._value

    @value.setter
    def value(self, arr: np.ndarray | None) -> None:
        self._value = arr
        self.holders = 0

    def lease(self) -> np.ndarray | None:
        """The stored array, counted as held until ``release`` (or its replacement)."""
        with self.lock:  # excludes an in-place update in progress
            value = self._value
            if value is not None:
                self.holders += 1
        return value

    def release(self, arr: np.ndarray) -> None:
        """Hands back a lease on ``arr`` whose every reference is gone."""
        with self.lock:
            if self._value is arr and self.holders > 0:
                self.holders -= 1

    def owns(self, arr: np.ndarray) -> bool:
        """Whether ``arr`` (the stored array) may be written in place: nothing holds it
        and it is a base array of its own."""
        return self.holders == 0 and arr.base is None and arr.flags.owndata

    def __repr__(self):
        return "<VariableResource %r %s>" % (
            self.name,
            "uninitialized"
            if self._value is None
            else "shape=%s dtype=%s" % (list(self._value.shape), self._value.dtype),
        )


def _key(name: str):
    return ("var", name)


def _resource(ctx, handle) -> VariableResource:
    if isinstance(handle, VariableResource):
        return handle
    if isinstance(handle, str):
        return ctx.resources.get_or_create(_key(handle), lambda: VariableResource(handle))
    raise TypeError("expected a variable handle or a variable name, got %r" % (handle,))


def uninitialized_error(op, name: str) -> errors.FailedPreconditionError:
    init = "fr.global_variables_initializer()"
    graph = getattr(op, "graph", None)
    if graph is not None and any(
        v.op.name == name for v in graph.get_collection(GraphKeys.LOCAL_VARIABLES)
    ):
        init = "fr.local_variables_initializer()"
    return errors.FailedPreconditionError(
        None,
        op,
        "Attempting to use uninitialized value %s: variable '%s' is uninitialized "
        "in this session; run %s (or the variable's initializer) first." % (name, name, init),
    )


def frozen_copy(new, dtype) -> np.ndarray:
    """``new`` as a read-only array of ``dtype``, copied unless it is a fresh array."""
    arr = np.asarray(new, dtype=dtype)
    if not (arr.flags.writeable and arr.flags.owndata):
        arr = arr.copy()
    arr.flags.writeable = False
    return arr


def read_variable(ctx, op, handle) -> np.ndarray:
    """The current value of a variable (read-only); FailedPreconditionError if unset."""
    res = _resource(ctx, handle)
    value = res.lease()
    if value is None:
        raise uninitialized_error(op, res.name)
    return value


def update_variable(ctx, op, handle, fn) -> np.ndarray:
    """Applies ``fn(old) -> new`` atomically; stores ``new`` read-only and returns it."""
    res = _resource(ctx, handle)
    with res.lock:
        old = res.value
        if old is None:
            raise uninitialized_error(op, res.name)
        new = frozen_copy(fn(old), old.dtype)
        if new.shape != old.shape:
            raise errors.InvalidArgumentError(
                None,
                op,
                "update of variable '%s' changed its shape from %s to %s"
                % (res.name, list(old.shape), list(new.shape)),
            )
        res.value = new
    return new


def update_variables(ctx, op, handles, fn) -> list:
    """Applies ``fn([old, ...]) -> [new, ...]`` to several variables atomically."""
    resources = [_resource(ctx, h) for h in handles]
    order = sorted(set(resources), key=lambda r: r.name)
    for r in order:
        r.lock.acquire()
    try:
        olds = []
        for r in resources:
            if r.value is None:
                raise uninitialized_error(op, r.name)
            olds.append(r.value)
        news = [frozen_copy(n, o.dtype) for n, o in zip(fn(olds), olds, strict=True)]
        for r, o, n in zip(resources, olds, news, strict=True):
            if n.shape != o.shape:
                raise errors.InvalidArgumentError(
                    None,
                    op,
                    "update of variable '%s' changed its shape from %s to %s"
                    % (r.name, list(o.shape), list(n.shape)),
                )
        for r, n in zip(resources, news, strict=True):
            r.value = n
    finally:
        for r in reversed(order):
            r.lock.release()
    return news


def _check_rows(op, name, old, indices):
    idx = np.asarray(indices).reshape(-1).astype(np.int64, copy=False)
    n = old.shape[0] if old.ndim else 0
    bad = idx[(idx < 0) | (idx >= n)]
    if bad.size:
        raise errors.InvalidArgumentError(
            None,
            op,
            "indices[%d] = %d is not in [0, %d) for variable '%s'"
            % (int(np.flatnonzero((idx < 0) | (idx >= n))[0]), int(bad[0]), n, name),
        )
    return idx


_SCATTER = {
    "add": np.add.at,
    "sub": np.subtract.at,
    "mul": np.multiply.at,
    "div": np.divide.at,
    "min": np.minimum.at,
    "max": np.maximum.at,
}


def update_variables_inplace(ctx, op, handles, fn) -> None:
    """``fn([arr, ...])`` mutates arrays in place: each variable's stored array itself
    when nothing else references it (no copy of a large matrix per step), else a copy.

    All are stored read-only afterwards. Locks are taken in name order, as in
    ``update_variables``. ``fn`` should validate before it writes: a failure after a
    partial in-place write cannot be undone. This is every optimizer step's path, so it
    is written for few Python operations per variable (``setflags``, no properties).
    """
    resources = [h if type(h) is VariableResource else _resource(ctx, h) for h in handles]
    if len(resources) == 1:  # a plain variable (SGD): nothing to order
        order = resources
        shared = False
    else:
        order = sorted(set(resources), key=_by_name)
        shared = len(order) != len(resources)
    for r in order:
        r.lock.acquire()
    try:
        arrs = []
        for r in resources:
            v = r.value
            if v is None:
                raise uninitialized_error(op, r.name)
            if not shared and r.owns(v):
                v.setflags(write=True)
            else:
                v = v.copy()
            arrs.append(v)
        del v
        try:
            fn(arrs)
        finally:
            for a in arrs:
                a.setflags(write=False)
        for r, a in zip(resources, arrs, strict=True):
            r.value = a
    finally:
        for r in reversed(order):
            r.lock.release()


def _by_name(r: VariableResource) -> str:
    return r.name


def scatter_variable(ctx, op, handle, indices, updates, mode="add") -> np.ndarray:
    """Sparse row update ``var[indices] (op)= updates`` done copy-on-write, atomically."""
    res = _resource(ctx, handle)
    with res.lock:
        old = res.value
        if old is None:
            raise uninitialized_error(op, res.name)
        idx = _check_rows(op, res.name, old, indices)
        upd = np.asarray(updates, dtype=old.dtype).reshape((idx.size,) + old.shape[1:])
        new = _writable(res, old)
        del old
        if mode == "update":
            new[idx] = upd
        else:
            _SCATTER[mode](new, idx, upd)
        new.flags.writeable = False
        res.value = new
    return new


def _writable(res: VariableResource, old: np.ndarray) -> np.ndarray:
    """The stored array made writable in place when nothing holds it, else a copy (a
    sparse update then touches its rows, not a copy of the whole matrix)."""
    if res.owns(old):
        old.flags.writeable = True
        return old
    return old.copy()


def update_variable_rows(ctx, op, handle, indices, fn) -> np.ndarray:
    """``fn(old_rows) -> new_rows`` on the unique rows named by ``indices``."""
    res = _resource(ctx, handle)
    with res.lock:
        old = res.value
        if old is None:
            raise uninitialized_error(op, res.name)
        idx = np.unique(_check_rows(op, res.name, old, indices))
        rows = fn(old[idx])
        new = _writable(res, old)
        del old
        new[idx] = rows
        new.flags.writeable = False
        res.value = new
    return new


# --------------------------------------------------------------------------------------
# Op registrations
# --------------------------------------------------------------------------------------


def _handle_op(handle: Tensor):
    op = handle.op
    while op.type != "VarHandleOp" and op.inputs:
        op = op.inputs[0].op
    if op.type != "VarHandleOp":
        raise TypeError("expected a variable handle (VarHandleOp output), got %s" % handle.name)
    return op


def var_spec(handle: Tensor):
    h = _handle_op(handle)
    return h.attrs["dtype"], h.attrs["shape"]


def _var_handle_kernel(ctx, op):
    bound = op.attrs.get("_resource")
    if bound is not None:  # a function's capture: the variable's process-wide state
        return (bound,)
    name = op.attrs["shared_name"]
    return (ctx.resources.get_or_create(_key(name), lambda: VariableResource(name)),)


register_op(
    "VarHandleOp",
    infer=lambda op: [(resource, TensorShape([]))],
    kernel=_var_handle_kernel,
    grad=NOT_DIFFERENTIABLE,
    stateful=True,
)


def _read_infer(op):
    dtype, shape = var_spec(op.inputs[0])
    return [(dtype, shape)]


def _read_kernel(ctx, op, handle):
    value = handle.lease()
    if value is None:
        raise uninitialized_error(op, handle.name)
    return (value,)


def _release(handle: VariableResource, value: np.ndarray) -> None:
    handle.release(value)


# ``lease``: the plan hands a read's value back when it proves the value died in the run.
register_op(
    "ReadVariableOp",
    infer=_read_infer,
    kernel=_read_kernel,
    grad=lambda op, g: [g],
    stateful=True,
    lease=_release,
)


def _is_init_kernel(ctx, op, handle):
    return (np.array(handle.value is not None),)


register_op(
    "VarIsInitializedOp",
    infer=lambda op: [(_dt.bool, TensorShape([]))],
    kernel=_is_init_kernel,
    grad=NOT_DIFFERENTIABLE,
    stateful=True,
)


def _assign_infer(op):
    dtype, shape = var_spec(op.inputs[0])
    v = op.inputs[1]
    if v.dtype is not dtype:
        raise TypeError(
            "value has dtype %s but the variable has dtype %s" % (v.dtype.name, dtype.name)
        )
    if op.type != "AssignVariableOp" or op.attrs.get("validate_shape", True):
        if not shape.is_compatible_with(v.shape):
            raise ValueError(
                "Shape mismatch: the variable shape %s and the value shape %s "
                "are incompatible" % (shape, v.shape)
            )
    out = shape if shape.is_fully_defined() or op.type != "AssignVariableOp" else v.shape
    return [(dtype, out)]


def _check_static_shape(op, name, shape: TensorShape, value):
    if (
        op.attrs.get("validate_shape", True)
        and shape.ndims is not None
        and not shape.is_compatible_with(np.shape(value))
    ):
        raise errors.InvalidArgumentError(
            None,
            op,
            "Trying to assign to variable '%s' a value of shape %s; the variable "
            "has shape %s" % (name, list(np.shape(value)), shape),
        )


def _assign_kernel(ctx, op, handle, value):
    dtype, shape = var_spec(op.inputs[0])
    _check_static_shape(op, handle.name, shape, value)
    # Always copy: the value may be a caller's fed array, which must stay theirs.
    new = np.array(value, dtype=dtype.np, copy=True)
    new.flags.writeable = False
    with handle.lock:
        handle.value = new
    return (new,)


def _assign_delta_kernel(sign):
    def kernel(ctx, op, handle, delta):
        def fn(old):
            if np.shape(delta) != old.shape:
                raise errors.InvalidArgumentError(
                    None,
                    op,
                    "Cannot update variable '%s' with shape %s using a value with "
                    "shape %s, shapes must be equal."
                    % (handle.name, list(old.shape), list(np.shape(delta))),
                )
            return np.add(old, delta) if sign > 0 else np.subtract(old, delta)

        return (update_variable(ctx, op, handle, fn),)

    return kernel


register_op(
    "AssignVariableOp",
    infer=_assign_infer,
    kernel=_assign_kernel,
    grad=NOT_DIFFERENTIABLE,
    stateful=True,
)
register_op(
    "AssignAddVariableOp",
    infer=_assign_infer,
    kernel=_assign_delta_kernel(1),
    grad=NOT_DIFFERENTIABLE,
    stateful=True,
)
register_op(
    "AssignSubVariableOp",
    infer=_assign_infer,
    kernel=_assign_delta_kernel(-1),
    grad=NOT_DIFFERENTIABLE,
    stateful=True,
)


def _scatter_infer(op):
    dtype, shape = var_spec(op.inputs[0])
    idx, upd = op.inputs[1], op.inputs[2]
    if not idx.dtype.is_integer:
        raise TypeError("indices must be int32 or int64, got %s" % idx.dtype.name)
    if upd.dtype is not dtype:
        raise TypeError(
            "updates have dtype %s but the variable has dtype %s" % (upd.dtype.name, dtype.name)
        )
    if shape.ndims is not None and idx.shape.ndims is not None and upd.shape.ndims is not None:
        want = TensorShape(idx.shape.as_list() + shape.as_list()[1:])
        if upd.shape.ndims != 0 and not want.is_compatible_with(upd.shape):
            raise ValueError(
                "updates must have shape indices.shape + variable.shape[1:] = "
                "%s, got %s" % (want, upd.shape)
            )
    return [(dtype, shape)]


def _scatter_kernel(mode):
    def kernel(ctx, op, handle, indices, updates):
        old = read_variable(ctx, op, handle)
        upd = np.broadcast_to(updates, np.shape(indices) + old.shape[1:])
        return (scatter_variable(ctx, op, handle, indices, upd, mode),)

    return kernel


for _t, _mode in (
    ("ResourceScatterUpdate", "update"),
    ("ResourceScatterAdd", "add"),
    ("ResourceScatterSub", "sub"),
    ("ResourceScatterMul", "mul"),
    ("ResourceScatterDiv", "div"),
    ("ResourceScatterMin", "min"),
    ("ResourceScatterMax", "max"),
):
    register_op(
        _t,
        infer=_scatter_infer,
        kernel=_scatter_kernel(_mode),
        grad=NOT_DIFFERENTIABLE,
        stateful=True,
    )


# --------------------------------------------------------------------------------------
# CountUpTo: the old value of an int scalar variable, incremented atomically
# --------------------------------------------------------------------------------------


def _count_up_to_infer(op):
    dtype, shape = var_spec(op.inputs[0])
    if dtype not in (_dt.int32, _dt.int64):
        raise TypeError(
            "Value passed to parameter 'T' has DataType %s not in list of allowed "
            "values: int32, int64" % dtype.name
        )
    if shape.ndims not in (None, 0):
        raise ValueError(
            "Shape must be rank 0 but is rank %d (variable '%s' has shape %s)"
            % (shape.ndims, _handle_op(op.inputs[0]).name, shape)
        )
    return [(dtype, TensorShape([]))]


def _count_up_to_kernel(ctx, op, handle):
    limit = op.attrs["limit"]
    seen = []

    def bump(old):
        if old >= limit:
            raise errors.OutOfRangeError(None, op, "Reached limit of %d" % limit)
        seen.append(old)
        return old + 1

    update_variable(ctx, op, handle, bump)
    return (seen[0],)


# TF1's ref-variable type name, which TF1 programs and tests look for.
register_op(
    "CountUpTo",
    infer=_count_up_to_infer,
    kernel=_count_up_to_kernel,
    grad=NOT_DIFFERENTIABLE,
    stateful=True,
)


def count_up_to(ref: Variable, limit: int, name: str | None = None) -> Tensor:
    """Increments the int32/int64 scalar variable ``ref`` until it reaches ``limit``.

    Returns:
      A tensor of the value before the increment; running it once the value reached
      ``limit`` raises ``OutOfRangeError`` ("Reached limit of ...") and changes nothing.
    """
    with in_graph_of([ref, limit]):
        handle = getattr(ref, "handle", None)
        if handle is None:
            raise TypeError(
                "count_up_to needs a variable as its first argument (`ref`), got %r" % (ref,)
            )
        return (
            get_default_graph()
            ._create_op(
                "CountUpTo", [handle], {"limit": int(limit), "T": ref.dtype}, name, "CountUpTo"
            )
            .outputs[0]
        )


# --------------------------------------------------------------------------------------
# Graph-building helpers used by fr.Variable, and TF1's state functions
# --------------------------------------------------------------------------------------


def create_exact(op_type: str, inputs, attrs: dict, full_name: str):
    """Creates an op named exactly ``full_name`` (TF's ``name_scope`` "/" rule): the name
    was already reserved by a name scope of the same name."""
    return get_default_graph()._create_op(op_type, list(inputs), attrs, full_name + "/")


def var_handle(dtype, shape, full_name: str) -> Tensor:
    return create_exact(
        "VarHandleOp",
        [],
        {
            "dtype": _dt.as_dtype(dtype),
            "shape": as_shape(shape),
            "container": "",
            "shared_name": full_name,
        },
        full_name,
    ).outputs[0]


def value_for(handle: Tensor, value, what="value"):
    dtype, _ = var_spec(handle)
    try:
        return convert_to_tensor(value, dtype=dtype)
    except (TypeError, ValueError) as e:
        t = convert_to_tensor(value) if not isinstance(value, Tensor) else value
        raise TypeError(
            "Cannot assign a %s of dtype %s to variable '%s' of dtype %s (%s)."
            % (what, t.dtype.name, _handle_op(handle).name, dtype.name, e)
        ) from None


def assign_op(
    handle: Tensor, value, name=None, op_type="AssignVariableOp", validate_shape=True
) -> Tensor:
    with in_graph_of([handle, value]):
        value = value_for(handle, value)
        g = get_default_graph()
        attrs = {"dtype": value.dtype, "validate_shape": validate_shape}
        return g._create_op(op_type, [handle, value], attrs, name, op_type).outputs[0]


def _ref_method(ref, method, fn_name):
    m = getattr(ref, method, None)
    if m is None:
        raise TypeError(
            "%s needs a variable as its first argument (`ref`), got %r; create "
            "one with fr.Variable or fr.get_variable." % (fn_name, ref)
        )
    return m


def assign(
    ref: Variable | PartitionedVariable,
    value: TensorLike,
    validate_shape: bool | None = None,
    use_locking: bool | None = None,
    name: str | None = None,
) -> Tensor | Any:
    """Stores ``value`` in the variable ``ref``; returns a tensor of the stored value."""
    with in_graph_of([ref, value]):
        return _ref_method(ref, "assign", "assign")(value, use_locking=use_locking, name=name)


def assign_add(
    ref: Variable, value: TensorLike, use_locking: bool | None = None, name: str | None = None
) -> Tensor:
    """Adds ``value`` to the variable ``ref``; returns a tensor of the new value."""
    with in_graph_of([ref, value]):
        return _ref_method(ref, "assign_add", "assign_add")(
            value, use_locking=use_locking, name=name
        )


def assign_sub(
    ref: Variable, value: TensorLike, use_locking: bool | None = None, name: str | None = None
) -> Tensor:
    """Subtracts ``value`` from the variable ``ref``; returns a tensor of the new value."""
    with in_graph_of([ref, value]):
        return _ref_method(ref, "assign_sub", "assign_sub")(
            value, use_locking=use_locking, name=name
        )


def scatter_op(op_type, ref, indices, updates, use_locking, name):
    handle = getattr(ref, "handle", None)
    if handle is None:
        raise TypeError(
            "%s needs a variable as its first argument (`ref`), got %r" % (op_type, ref)
        )
    indices = convert_to_tensor(indices)
    updates = value_for(handle, updates, "update")
    return make_op(
        op_type, [handle, indices, updates], {"dtype": updates.dtype}, name, op_type
    ).outputs[0]


def scatter_update(
    ref: Variable,
    indices: TensorLike,
    updates: TensorLike,
    use_locking: bool = True,
    name: str | None = None,
) -> Tensor:
    """Sets rows ``ref[indices] = updates``; returns the new value."""
    with in_graph_of([ref, indices, updates]):
        return scatter_op("ResourceScatterUpdate", ref, indices, updates, use_locking, name)


def scatter_add(
    ref: Variable,
    indices: TensorLike,
    updates: TensorLike,
    use_locking: bool = False,
    name: str | None = None,
) -> Tensor:
    """Adds ``updates`` to rows ``ref[indices]`` (duplicates add up); returns the new value."""
    with in_graph_of([ref, indices, updates]):
        return scatter_op("ResourceScatterAdd", ref, indices, updates, use_locking, name)


def scatter_sub(
    ref: Variable,
    indices: TensorLike,
    updates: TensorLike,
    use_locking: bool = False,
    name: str | None = None,
) -> Tensor:
    """Subtracts ``updates`` from rows ``ref[indices]``; returns the new value."""
    with in_graph_of([ref, indices, updates]):
        return scatter_op("ResourceScatterSub", ref, indices, updates, use_locking, name)


def is_variable_initialized(variable: Variable) -> Tensor:
    """A bool tensor: whether ``variable`` has been initialized in the running session."""
    return make_op("VarIsInitializedOp", [variable.handle], {}, None, "VarIsInitializedOp").outputs[
        0
    ]
