"""TF1's optimizers: ``Optimizer`` and its GradientDescent, Momentum, Adam, Adagrad,
RMSProp and Adadelta subclasses (the proximal ones, Ftrl among them, are in
``proximal_optimizers``).

Processing order of ``minimize`` (as TF1): ``compute_gradients`` (``fr.gradients`` of
the loss with respect to every read of each variable) -> ``apply_gradients``: create
the slots (``w/Adam``, ...) and non-slot variables (``beta1_power``) once, then one
update op per variable under ``<Optimizer>/update_<var>/``, a final group op named
like the optimizer, and, with ``global_step``, an increment after all the updates.
Each update is one op of ``apply_ops`` (TF's ``Resource[Sparse]Apply*``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from .. import dtypes as _dt
from .._core.graph import GraphKeys, Tensor, convert_to_tensor, get_default_graph
from .._core.shape import TensorShape
from ..gradients import gradients
from ..ops import array_ops, math_ops, slicing_ops, state_ops
from ..ops.indexed_slices import IndexedSlices
from .apply_ops import apply_op

if TYPE_CHECKING:
    from .._core.graph import Operation
    from .._core.typing import TensorLike
    from ..variables import Variable


__all__ = [
    "Optimizer",
    "GradientDescentOptimizer",
    "MomentumOptimizer",
    "AdamOptimizer",
    "AdagradOptimizer",
    "RMSPropOptimizer",
    "AdadeltaOptimizer",
]

_VALID_DTYPES = (_dt.float16, _dt.float32, _dt.float64)

# --------------------------------------------------------------------------------------
# Optimizer
# --------------------------------------------------------------------------------------


def _call_if_callable(v):
    return v() if callable(v) else v


def _var_key(var):
    return var.handle.op.name if hasattr(var, "handle") else var.op.name


def _reads_of(var) -> list:
    """Every tensor reading ``var`` (its snapshot first), so that gradients through
    ``read_value()`` and through the snapshot both count."""
    return var._all_reads() or [var.value()]


class Optimizer:
    """Base class for optimizers (TF1's ``tf.train.Optimizer``).

    Subclasses create their slots in ``_create_slots``, their hyperparameter tensors in
    ``_prepare``, and one update op per variable in ``_apply_dense`` / ``_apply_sparse``.
    """

    GATE_NONE = 0
    GATE_OP = 1
    GATE_GRAPH = 2

    def __init__(self, use_locking: bool, name: str) -> None:
        if not name:
            raise ValueError("Must specify the optimizer name")
        self._use_locking = use_locking
        self._name = name
        self._slots: dict[str, dict] = {}
        self._non_slot_dict: dict = {}

    def get_name(self) -> str:
        return self._name

    # --- the three steps ----------------------------------------------------------

    def minimize(
        self,
        loss: Tensor | Callable[[], Tensor],
        global_step: Variable | None = None,
        var_list: Sequence[Variable] | None = None,
        gate_gradients: int = GATE_OP,
        aggregation_method: int | None = None,
        colocate_gradients_with_ops: bool = False,
        name: str | None = None,
        grad_loss: TensorLike | None = None,
    ) -> Operation:
        """Adds ops to minimize ``loss`` by updating ``var_list`` (default: the
        ``TRAINABLE_VARIABLES`` collection); increments ``global_step`` afterwards.

        Returns:
          The training op (named like the optimizer, e.g. ``GradientDescent``).
        """
        grads_and_vars = self.compute_gradients(
            loss,
            var_list=var_list,
            gate_gradients=gate_gradients,
            aggregation_method=aggregation_method,
            colocate_gradients_with_ops=colocate_gradients_with_ops,
            grad_loss=grad_loss,
        )
        vars_with_grad = [v for g, v in grads_and_vars if g is not None]
        if not vars_with_grad:
            raise ValueError(
                "No gradients provided for any variable, check your graph for ops that do "
                "not support gradients, between variables %s and loss %s."
                % ([str(v) for _, v in grads_and_vars], loss)
            )
        return self.apply_gradients(grads_and_vars, global_step=global_step, name=name)

    def compute_gradients(
        self,
        loss: Tensor | Callable[[], Tensor],
        var_list: Sequence[Variable] | None = None,
        gate_gradients: int = GATE_OP,
        aggregation_method: int | None = None,
        colocate_gradients_with_ops: bool = False,
        grad_loss: TensorLike | None = None,
    ) -> list[tuple[Tensor | IndexedSlices | None, Variable]]:
        """``[(gradient, variable), ...]`` for ``var_list`` (default: the trainable
        variables); the gradient is None for a variable the loss does not depend on,
        and an ``IndexedSlices`` for one reached through ``gather``."""
        if callable(loss):
            loss = loss()
        loss = convert_to_tensor(loss)
        self._assert_valid_dtypes([loss])
        if grad_loss is not None:
            grad_loss = convert_to_tensor(grad_loss)
            self._assert_valid_dtypes([grad_loss])
        if gate_gradients not in (Optimizer.GATE_NONE, Optimizer.GATE_OP, Optimizer.GATE_GRAPH):
            raise ValueError(
                "gate_gradients must be one of: Optimizer.GATE_NONE, "
                "Optimizer.GATE_OP, Optimizer.GATE_GRAPH.  Not %s" % gate_gradients
            )
        g = loss.graph
        if var_list is None:
            var_list = g.get_collection(GraphKeys.TRAINABLE_VARIABLES) + g.get_collection(
                GraphKeys.TRAINABLE_RESOURCE_VARIABLES
            )
        else:
            var_list = list(_flatten(var_list))
        if not var_list:
            raise ValueError("No variables to optimize.")
        for v in var_list:
            if not hasattr(v, "handle"):
                raise NotImplementedError("Trying to update a Tensor %s" % (v,))
        reads = [_reads_of(v) for v in var_list]
        flat = [t for rs in reads for t in rs]
        with g.as_default():
            grads = gradients(
                loss,
                flat,
                grad_ys=None if grad_loss is None else [grad_loss],
                aggregation_method=aggregation_method,
                colocate_gradients_with_ops=colocate_gradients_with_ops,
            )
            out, i = [], 0
            for v, rs in zip(var_list, reads, strict=True):
                parts = [gr for gr in grads[i : i + len(rs)] if gr is not None]
                i += len(rs)
                out.append((_sum_grads(parts), v))
        self._assert_valid_dtypes([v for gr, v in out if gr is not None])
        return out

    def apply_gradients(
        self,
        grads_and_vars: Iterable[tuple[TensorLike | IndexedSlices | None, Variable]],
        global_step: Variable | None = None,
        name: str | None = None,
    ) -> Operation:
        """Applies ``(gradient, variable)`` pairs: one update op per variable with a
        gradient, then ``global_step += 1`` if given.

        Returns:
          The training op. Raises ValueError "No gradients provided for any variable"
          when every gradient is None.
        """
        grads_and_vars = tuple(grads_and_vars)
        if not grads_and_vars:
            raise ValueError("No variables provided.")
        converted = []
        for gr, v in grads_and_vars:
            if gr is not None and not isinstance(gr, IndexedSlices):
                try:
                    gr = convert_to_tensor(gr)
                except (TypeError, ValueError):
                    raise TypeError(
                        "Gradient must be convertible to a Tensor or "
                        "IndexedSlices, or None: %s" % (str(gr),)
                    ) from None
            if not hasattr(v, "handle"):
                raise NotImplementedError("Trying to update a Tensor %s" % (v,))
            converted.append((gr, v))
        var_list = [v for gr, v in converted if gr is not None]
        if not var_list:
            raise ValueError(
                "No gradients provided for any variable: %s." % ([str(v) for _, v in converted],)
            )
        g = var_list[0].graph
        with g.as_default():
            with g.control_dependencies(None):
                self._create_slots(var_list)
            update_ops = []
            with g.name_scope(name or self._name) as scope:
                full = scope[:-1]
                self._prepare()
                for gr, v in converted:
                    if gr is None:
                        continue
                    # TF1: a variable's update ops are colocated with it.
                    with g.name_scope("update_" + v.op.name), g.colocate_with(v):
                        if isinstance(gr, IndexedSlices):
                            if v.constraint is not None:
                                raise RuntimeError(
                                    "Cannot use a constraint function on a sparse variable."
                                )
                            update_ops.append(self._apply_sparse(gr, v))
                        elif v.constraint is None:
                            update_ops.append(self._apply_dense(gr, v))
                        else:
                            # TF1: the constraint projects the variable after its update.
                            with g.control_dependencies([self._apply_dense(gr, v)]):
                                projected = v.constraint(v)  # type: ignore[arg-type]
                                update_ops.append(v.assign(projected, read_value=False))
                if global_step is None:
                    train_op = self._finish(update_ops, full, exact=True)
                else:
                    with g.control_dependencies([self._finish(update_ops, "update")]):
                        train_op = _increment(global_step, full)
            train_ops = g.get_collection_ref(GraphKeys.TRAIN_OP)
            if train_op not in train_ops:
                train_ops.append(train_op)
            return train_op

    # --- slots ------------------------------------------------------------------------

    def get_slot(self, var: Variable, name: str) -> Variable | None:
        """The slot variable ``name`` (e.g. "m") created for ``var``, or None."""
        named = self._slots.get(name)
        if not named:
            return None
        return named.get(_var_key(var))

    def get_slot_names(self) -> list[str]:
        """Sorted names of the slots this optimizer creates (e.g. ``['m', 'v']``)."""
        return sorted(self._slots)

    def variables(self) -> list[Variable]:
        """The optimizer's variables in the current graph (slots and non-slot
        variables such as ``beta1_power``), sorted by name."""
        g = get_default_graph()
        out = [v for (name, graph), v in self._non_slot_dict.items() if graph is g]
        for named in self._slots.values():
            out.extend(v for v in named.values() if v.graph is g)
        return sorted(out, key=lambda v: v.name)

    def _slot_dict(self, slot_name):
        return self._slots.setdefault(slot_name, {})

    def _get_or_make_slot(self, var, value, slot_name, op_name):
        """A slot for ``var`` initialized to the scalar ``value``, named
        ``<var>/<op_name>`` (made unique: ``w/Adam``, ``w/Adam_1``)."""
        named = self._slot_dict(slot_name)
        key = _var_key(var)
        if key not in named:
            named[key] = _create_slot_var(var, value, op_name)
        return named[key]

    def _zeros_slot(self, var, slot_name, op_name):
        return self._get_or_make_slot(var, 0.0, slot_name, op_name)

    def _get_non_slot_variable(self, name, graph=None):
        return self._non_slot_dict.get((name, graph or get_default_graph()))

    def _create_non_slot_variable(self, initial_value, name, colocate_with):
        from ..variables import Variable

        g = colocate_with.graph
        key = (name, g)
        v = self._non_slot_dict.get(key)
        if v is None:
            with g.as_default(), g.colocate_with(colocate_with):
                v = Variable(initial_value, name=name, trainable=False)
            self._non_slot_dict[key] = v
        return v

    # --- hooks for subclasses ---------------------------------------------------------

    def _create_slots(self, var_list):
        pass

    def _prepare(self):
        pass

    def _apply_dense(self, grad, var):
        raise NotImplementedError()

    def _apply_sparse(self, grad, var):
        raise NotImplementedError()

    def _finish(self, update_ops, name, exact=False):
        if exact:
            return _group_exact(update_ops, name)
        return array_ops.group(*update_ops, name=name)

    def _assert_valid_dtypes(self, tensors):
        for t in tensors:
            dtype = t.dtype
            if dtype not in _VALID_DTYPES:
                raise ValueError(
                    "Invalid type %r for %s, expected: %s."
                    % (dtype, t.name, [v for v in _VALID_DTYPES])
                )

    def _hyper(self, name, var):
        """A hyperparameter as a tensor of ``var``'s dtype (TF casts in each update)."""
        t = self._tensors[name]
        return math_ops.cast(t, var.dtype) if t.dtype is not var.dtype else t

    def _make_tensors(self, **values):
        self._tensors = {
            n: convert_to_tensor(_call_if_callable(v), name=n) if not isinstance(v, Tensor) else v
            for n, v in values.items()
        }


def _flatten(x):
    if isinstance(x, (list, tuple)):
        for y in x:
            yield from _flatten(y)
    elif isinstance(x, dict):
        for y in x.values():
            yield from _flatten(y)
    else:
        yield x


def _sum_grads(parts):
    if not parts:
        return None
    if len(parts) == 1:
        return parts[0]
    if all(isinstance(p, IndexedSlices) for p in parts):
        return IndexedSlices(
            slicing_ops.concat([p.values for p in parts], 0),
            slicing_ops.concat([p.indices for p in parts], 0),
            parts[0].dense_shape,
        )
    return math_ops.add_n([p._as_tensor() if isinstance(p, IndexedSlices) else p for p in parts])


def _create_slot_var(var, value, op_name):
    from ..variables import Variable

    g = var.graph
    shape = var.shape
    dtype = var.dtype

    def init():
        if shape.is_fully_defined():
            dims = shape.as_list()
            if int(np.prod(dims)) <= 1024:
                return array_ops.constant(
                    np.full(dims, value, dtype.np), name="zeros" if value == 0 else "Const"
                )
            return array_ops.fill(
                dims, array_ops.constant(value, dtype), name="zeros" if value == 0 else "Const"
            )
        return array_ops.fill(array_ops.shape(var.initial_value), array_ops.constant(value, dtype))

    # TF1: a slot is colocated with its variable (same device; ps device functions such
    # as replica_device_setter do not see it).
    with g.as_default(), g.name_scope(None), g.control_dependencies(None), g.colocate_with(var):
        return Variable(
            init,
            name=var.op.name + "/" + op_name,
            trainable=False,
            dtype=dtype,
            validate_shape=shape.is_fully_defined(),
        )


def _group_exact(ops, full_name):
    g = get_default_graph()
    deps = [o.op if isinstance(o, Tensor) else o for o in ops]
    with g.control_dependencies(deps):
        return state_ops.create_exact("NoOp", [], {}, full_name)


def _increment(global_step, full_name):
    handle = getattr(global_step, "handle", None)
    if handle is None:
        raise TypeError("global_step must be a variable, got %r" % (global_step,))
    with get_default_graph().colocate_with(global_step):
        one = array_ops.constant(1, global_step.dtype)
        return state_ops.create_exact(
            "AssignAddVariableOp",
            [handle, one],
            {"dtype": global_step.dtype, "validate_shape": True},
            full_name,
        )


def _sparse_parts(grad: IndexedSlices):
    return grad.values, grad.indices


# --------------------------------------------------------------------------------------
# The optimizers
# --------------------------------------------------------------------------------------


class GradientDescentOptimizer(Optimizer):
    """``var -= learning_rate * grad``."""

    def __init__(
        self,
        learning_rate: TensorLike | Callable[[], TensorLike],
        use_locking: bool = False,
        name: str = "GradientDescent",
    ) -> None:
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate

    def _prepare(self):
        self._make_tensors(learning_rate=self._learning_rate)

    def _apply_dense(self, grad, var):
        return apply_op(
            "ResourceApplyGradientDescent",
            {"var": var.handle, "alpha": self._hyper("learning_rate", var), "grad": grad},
        )

    def _apply_sparse(self, grad, var):
        return apply_op(
            "ResourceSparseApplyGradientDescent",
            {
                "var": var.handle,
                "alpha": self._hyper("learning_rate", var),
                "grad": grad.values,
                "indices": grad.indices,
            },
        )


class MomentumOptimizer(Optimizer):
    """``accum = momentum * accum + grad; var -= learning_rate * accum`` (Nesterov:
    ``var -= learning_rate * (grad + momentum * accum)``); slot ``momentum``."""

    def __init__(
        self,
        learning_rate: TensorLike | Callable[[], TensorLike],
        momentum: TensorLike | Callable[[], TensorLike],
        use_locking: bool = False,
        name: str = "Momentum",
        use_nesterov: bool = False,
    ) -> None:
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._momentum = momentum
        self._use_nesterov = use_nesterov

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "momentum", self._name)

    def _prepare(self):
        self._make_tensors(learning_rate=self._learning_rate, momentum=self._momentum)

    def _inputs(self, var):
        return {
            "var": var.handle,
            "accum": self.get_slot(var, "momentum").handle,
            "lr": self._hyper("learning_rate", var),
            "momentum": self._hyper("momentum", var),
        }

    def _apply_dense(self, grad, var):
        return apply_op(
            "ResourceApplyMomentum",
            {**self._inputs(var), "grad": grad},
            {"use_nesterov": self._use_nesterov},
        )

    def _apply_sparse(self, grad, var):
        return apply_op(
            "ResourceSparseApplyMomentum",
            {**self._inputs(var), "grad": grad.values, "indices": grad.indices},
            {"use_nesterov": self._use_nesterov},
        )


class AdamOptimizer(Optimizer):
    """Adam (Kingma & Ba) with TF1's update
    ``var -= lr * sqrt(1 - beta2^t) / (1 - beta1^t) * m / (sqrt(v) + epsilon)``.

    Slots ``m`` and ``v`` (variables ``<var>/Adam`` and ``<var>/Adam_1``); non-slot
    variables ``beta1_power`` and ``beta2_power``, multiplied by ``beta1``/``beta2``
    after each step's updates.
    """

    def __init__(
        self,
        learning_rate: TensorLike | Callable[[], TensorLike] = 0.001,
        beta1: TensorLike | Callable[[], TensorLike] = 0.9,
        beta2: TensorLike | Callable[[], TensorLike] = 0.999,
        epsilon: TensorLike | Callable[[], TensorLike] = 1e-08,
        use_locking: bool = False,
        name: str = "Adam",
    ) -> None:
        super().__init__(use_locking, name)
        self._lr = learning_rate
        self._beta1 = beta1
        self._beta2 = beta2
        self._epsilon = epsilon

    def _get_beta_accumulators(self):
        g = get_default_graph()
        return (
            self._get_non_slot_variable("beta1_power", graph=g),
            self._get_non_slot_variable("beta2_power", graph=g),
        )

    def _create_slots(self, var_list):
        first = min(var_list, key=lambda x: x.name)
        self._create_non_slot_variable(
            initial_value=self._beta1, name="beta1_power", colocate_with=first
        )
        self._create_non_slot_variable(
            initial_value=self._beta2, name="beta2_power", colocate_with=first
        )
        for v in var_list:
            self._zeros_slot(v, "m", self._name)
            self._zeros_slot(v, "v", self._name)

    def _prepare(self):
        self._make_tensors(
            learning_rate=self._lr, beta1=self._beta1, beta2=self._beta2, epsilon=self._epsilon
        )

    def _inputs(self, var):
        b1p, b2p = self._get_beta_accumulators()
        return {
            "var": var.handle,
            "m": self.get_slot(var, "m").handle,
            "v": self.get_slot(var, "v").handle,
            "beta1_power": math_ops.cast(b1p, var.dtype),
            "beta2_power": math_ops.cast(b2p, var.dtype),
            "lr": self._hyper("learning_rate", var),
            "beta1": self._hyper("beta1", var),
            "beta2": self._hyper("beta2", var),
            "epsilon": self._hyper("epsilon", var),
        }

    def _apply_dense(self, grad, var):
        return apply_op("ResourceApplyAdam", {**self._inputs(var), "grad": grad})

    def _apply_sparse(self, grad, var):
        return apply_op(
            "ResourceSparseApplyAdam",
            {**self._inputs(var), "grad": grad.values, "indices": grad.indices},
        )

    def _finish(self, update_ops, name, exact=False):
        g = get_default_graph()
        b1p, b2p = self._get_beta_accumulators()
        with g.control_dependencies(update_ops), g.colocate_with(b1p):
            u1 = g._create_op(
                "AssignMulVariableOp",
                [b1p.handle, self._tensors["beta1"]],
                {},
                None,
                "AssignMulVariableOp",
            )
            u2 = g._create_op(
                "AssignMulVariableOp",
                [b2p.handle, self._tensors["beta2"]],
                {},
                None,
                "AssignMulVariableOp",
            )
        return super()._finish(list(update_ops) + [u1, u2], name, exact)


class AdagradOptimizer(Optimizer):
    """``accum += grad ** 2; var -= learning_rate * grad / sqrt(accum)``; slot
    ``accumulator`` (variable ``<var>/Adagrad``) starting at
    ``initial_accumulator_value``."""

    def __init__(
        self,
        learning_rate: TensorLike | Callable[[], TensorLike],
        initial_accumulator_value: float = 0.1,
        use_locking: bool = False,
        name: str = "Adagrad",
    ) -> None:
        if initial_accumulator_value <= 0.0:
            raise ValueError(
                "initial_accumulator_value must be positive: %s" % initial_accumulator_value
            )
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_accumulator_value = initial_accumulator_value

    def _create_slots(self, var_list):
        for v in var_list:
            self._get_or_make_slot(v, self._initial_accumulator_value, "accumulator", self._name)

    def _prepare(self):
        self._make_tensors(learning_rate=self._learning_rate)

    def _inputs(self, var):
        return {
            "var": var.handle,
            "accum": self.get_slot(var, "accumulator").handle,
            "lr": self._hyper("learning_rate", var),
        }

    def _apply_dense(self, grad, var):
        return apply_op("ResourceApplyAdagrad", {**self._inputs(var), "grad": grad})

    def _apply_sparse(self, grad, var):
        return apply_op(
            "ResourceSparseApplyAdagrad",
            {**self._inputs(var), "grad": grad.values, "indices": grad.indices},
        )


class RMSPropOptimizer(Optimizer):
    """RMSProp: ``ms = decay * ms + (1 - decay) * grad ** 2``;
    ``mom = momentum * mom + lr * grad / sqrt(ms + epsilon)``; ``var -= mom``.

    Slots ``rms`` (starting at 1.0), ``momentum`` and, when ``centered``, ``mg`` (the
    mean gradient, subtracted as ``ms - mg ** 2``).
    """

    def __init__(
        self,
        learning_rate: TensorLike | Callable[[], TensorLike],
        decay: TensorLike | Callable[[], TensorLike] = 0.9,
        momentum: TensorLike | Callable[[], TensorLike] = 0.0,
        epsilon: TensorLike | Callable[[], TensorLike] = 1e-10,
        use_locking: bool = False,
        centered: bool = False,
        name: str = "RMSProp",
    ) -> None:
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._decay = decay
        self._momentum = momentum
        self._epsilon = epsilon
        self._centered = centered

    def _create_slots(self, var_list):
        for v in var_list:
            self._get_or_make_slot(v, 1.0, "rms", self._name)
            if self._centered:
                self._zeros_slot(v, "mg", self._name)
            self._zeros_slot(v, "momentum", self._name)

    def _prepare(self):
        self._make_tensors(
            learning_rate=self._learning_rate,
            decay=self._decay,
            momentum=self._momentum,
            epsilon=self._epsilon,
        )

    def _inputs(self, var):
        d = {
            "var": var.handle,
            "ms": self.get_slot(var, "rms").handle,
            "mom": self.get_slot(var, "momentum").handle,
            "lr": self._hyper("learning_rate", var),
            "rho": self._hyper("decay", var),
            "momentum": self._hyper("momentum", var),
            "epsilon": self._hyper("epsilon", var),
        }
        if self._centered:
            d["mg"] = self.get_slot(var, "mg").handle
        return d

    def _apply_dense(self, grad, var):
        t = "ResourceApplyCenteredRMSProp" if self._centered else "ResourceApplyRMSProp"
        return apply_op(t, {**self._inputs(var), "grad": grad})

    def _apply_sparse(self, grad, var):
        t = "ResourceSparseApplyCenteredRMSProp" if self._centered else "ResourceSparseApplyRMSProp"
        return apply_op(t, {**self._inputs(var), "grad": grad.values, "indices": grad.indices})


del TensorShape


class AdadeltaOptimizer(Optimizer):
    """Adadelta (Zeiler): ``accum = rho * accum + (1 - rho) * grad ** 2``;
    ``update = sqrt(accum_update + epsilon) / sqrt(accum + epsilon) * grad``;
    ``var -= learning_rate * update``;
    ``accum_update = rho * accum_update + (1 - rho) * update ** 2``.

    Slots ``accum`` and ``accum_update`` (variables ``<var>/Adadelta`` and
    ``<var>/Adadelta_1``), starting at zero.
    """

    def __init__(
        self,
        learning_rate: TensorLike | Callable[[], TensorLike] = 0.001,
        rho: TensorLike | Callable[[], TensorLike] = 0.95,
        epsilon: TensorLike | Callable[[], TensorLike] = 1e-8,
        use_locking: bool = False,
        name: str = "Adadelta",
    ) -> None:
        super().__init__(use_locking, name)
        self._lr = learning_rate
        self._rho = rho
        self._epsilon = epsilon

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "accum", self._name)
            self._zeros_slot(v, "accum_update", self._name)

    def _prepare(self):
        self._make_tensors(learning_rate=self._lr, rho=self._rho, epsilon=self._epsilon)

    def _inputs(self, var):
        return {
            "var": var.handle,
            "accum": self.get_slot(var, "accum").handle,
            "accum_update": self.get_slot(var, "accum_update").handle,
            "lr": self._hyper("learning_rate", var),
            "rho": self._hyper("rho", var),
            "epsilon": self._hyper("epsilon", var),
        }

    def _apply_dense(self, grad, var):
        return apply_op("ResourceApplyAdadelta", {**self._inputs(var), "grad": grad})

    def _apply_sparse(self, grad, var):
        return apply_op(
            "ResourceSparseApplyAdadelta",
            {**self._inputs(var), "grad": grad.values, "indices": grad.indices},
        )
