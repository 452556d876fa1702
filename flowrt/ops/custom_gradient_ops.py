"""``fr.custom_gradient`` and the ``IdentityN`` op it is built on (``fr.identity_n``).

As TF1 builds it in graph mode: the function's results, its arguments and the variables
it uses pass together through one ``IdentityN`` op whose gradient is overridden
(``gradient_override_map``) with a rule calling the user's ``grad_fn``. Backpropagation
reaches the results only through that op, so the function's own ops are never
differentiated; the rule gives the gradients of the arguments and of the variables
(whose reads then carry them to ``fr.gradients`` and the optimizers).
"""

from __future__ import annotations

import functools
import inspect
import itertools
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from .._core.graph import GraphKeys, Operation, Tensor, convert_to_tensor, get_default_graph
from .._core.registry import RegisterGradient, register_op
from .common import in_graph_of, make_op

if TYPE_CHECKING:
    from .._core.typing import TensorLike

__all__ = ["custom_gradient", "identity_n", "grad_pass_through"]

_uids = itertools.count()
_uids_lock = threading.Lock()


def identity_n(input: Sequence[TensorLike], name: str | None = None) -> list[Tensor]:
    """Returns a list of tensors with the same values as ``input`` (one op).

    Args:
      input: the tensors.
      name: the op name (default ``IdentityN``).

    Returns:
      One tensor per input.
    """
    op = make_op("IdentityN", [convert_to_tensor(t) for t in input], None, name, "IdentityN")
    return list(op.outputs)


register_op(
    "IdentityN",
    infer=lambda op: [(t.dtype, t.shape) for t in op.inputs],
    kernel=lambda ctx, op, *xs: xs,
    grad=lambda op, *grads: list(grads),
    aliases=True,
)


def custom_gradient(f: Callable[..., Any] | None = None) -> Any:
    """Decorator defining a function together with its gradient.

    ``f(*args)`` returns ``(y, grad_fn)``: ``y`` a tensor or nest of tensors, and
    ``grad_fn(*dys)`` the gradients of the arguments given the gradients of ``y``'s
    tensors (one per argument, or a single tensor for one argument). When ``f`` reads
    variables (``fr.get_variable`` / ``fr.Variable``), ``grad_fn`` must accept a
    ``variables`` keyword argument and return ``(arg_grads, variable_grads)`` with one
    gradient per variable in ``variables`` (sorted by name).

    Args:
      f: the function; ``custom_gradient()`` with no function returns the decorator.

    Returns:
      The decorated function: calling it returns ``y``, whose gradients (through
      ``fr.gradients``, ``GradientTape`` or an optimizer) come from ``grad_fn``.

    Raises:
      TypeError: when ``f`` uses variables and ``grad_fn`` takes no ``variables``.
      ValueError: for keyword arguments (as TF1 in graph mode), or when ``grad_fn``
        does not return one gradient per variable.

    Example:
      @fr.custom_gradient
      def clip_grad(x):
          def grad(dy):
              return fr.clip_by_value(dy, -1.0, 1.0)
          return fr.identity(x), grad
    """
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def decorated(*args: Any, **kwargs: Any) -> Any:
        return _graph_mode_call(f, args, kwargs)

    return decorated


def grad_pass_through(f: Callable[..., Any]) -> Callable[..., Any]:
    """Wraps ``f`` so that its gradient is the identity: the gradients of its outputs
    pass to its inputs unchanged (one input per output), and variables it reads get
    none. As TF builds it, with ``custom_gradient``.

    Args:
      f: the function whose forward values are kept.

    Returns:
      The wrapped function.

    Example:
      y = fr.grad_pass_through(fr.round)(x)  # the values of round(x), the gradient 1
    """

    @custom_gradient
    def _grad_pass_through_op(*args: Any) -> Any:
        def grad(*dys: Any, variables: Any = None) -> Any:
            if variables is not None:
                return dys, [None] * len(variables)
            return dys

        return f(*args), grad

    return functools.wraps(f)(_grad_pass_through_op)


def _flatten(x: Any) -> list[Any]:
    if isinstance(x, (list, tuple)):
        return [leaf for item in x for leaf in _flatten(item)]
    if isinstance(x, dict):
        return [leaf for k in sorted(x) for leaf in _flatten(x[k])]
    return [x]


def _pack_as(structure: Any, flat: list[Any]) -> Any:
    it = iter(flat)

    def pack(s: Any) -> Any:
        if isinstance(s, (list, tuple)):
            items = [pack(i) for i in s]
            if isinstance(s, tuple) and hasattr(s, "_fields"):
                return type(s)(*items)
            return type(s)(items)
        if isinstance(s, dict):
            packed = {k: pack(s[k]) for k in sorted(s)}
            return type(s)((k, packed[k]) for k in s)
        return next(it)

    return pack(structure)


def _scope_variables() -> set[Any]:
    from ..var_scope import get_variable_scope

    vs = get_variable_scope()
    return set(vs.global_variables() + vs.local_variables())


def _dependent_variables(inputs: list[Tensor], outputs: list[Tensor]) -> list[Any]:
    """The variables whose handles the ops between ``inputs`` and ``outputs`` use (TF's
    ``_get_dependent_variables``): a walk back from the outputs, stopping at inputs."""
    stop = set(inputs)
    seen: set[Operation] = set()
    stack = [t.op for t in outputs if t not in stop]
    handles: set[Operation] = set()
    while stack:
        op = stack.pop()
        if op in seen:
            continue
        seen.add(op)
        if op.type == "VarHandleOp":
            handles.add(op)
        stack.extend(t.op for t in op.inputs if t not in stop)
        stack.extend(op.control_inputs)
    if not handles:
        return []
    g = get_default_graph()
    found: list[Any] = []
    for key in (GraphKeys.GLOBAL_VARIABLES, GraphKeys.LOCAL_VARIABLES):
        for v in g.get_collection(key):
            h = getattr(v, "handle", None)
            if h is not None and h.op in handles and v not in found:
                found.append(v)
    return found


def _accepts_variables(fn: Callable[..., Any]) -> bool:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == "variables" or p.kind is inspect.Parameter.VAR_KEYWORD for p in params)


def _graph_mode_call(f: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
    if kwargs:
        raise ValueError(
            "The custom_gradient decorator currently supports keywords arguments only "
            "when eager execution is enabled."
        )
    # As TF1: the ops go into the graph of the arguments, whatever the default.
    with in_graph_of(list(args)):
        return _call_in_graph(f, args)


def _call_in_graph(f: Callable[..., Any], args: tuple) -> Any:
    args = tuple(_pack_as(a, [convert_to_tensor(x) for x in _flatten(a)]) for a in args)
    before = _scope_variables()
    result, grad_fn = f(*args)
    flat_args = _flatten(args)
    flat_result = [convert_to_tensor(t) for t in _flatten(result)]
    new_vars = _scope_variables() - before
    used = set(_dependent_variables(flat_args, flat_result)) | new_vars
    variables = sorted(used, key=lambda v: v.name)
    in_signature = _accepts_variables(grad_fn)
    if variables and not in_signature:
        raise TypeError(
            "@tf.custom_gradient grad_fn must accept keyword argument 'variables', since "
            "function uses variables: %s" % (variables,)
        )
    n_result = len(flat_result)

    def grad_rule(op: Operation, *result_grads: Any) -> list[Any]:
        result_grads = result_grads[:n_result]
        if variables:
            input_grads, variable_grads = grad_fn(*result_grads, variables=variables)
            variable_grads = list(variable_grads)
            if len(variable_grads) != len(variables):
                raise ValueError(
                    "Must return gradient for each variable from @custom_gradient grad_fn."
                )
        else:
            input_grads = grad_fn(*result_grads)
            variable_grads = []
        return [None] * n_result + _flatten(input_grads) + variable_grads

    with _uids_lock:
        name = "CustomGradient-%d" % next(_uids)
    RegisterGradient(name)(grad_rule)
    g = get_default_graph()
    with g.gradient_override_map({"IdentityN": name}):
        passed = identity_n(flat_result + flat_args + [v.value() for v in variables])
    return _pack_as(result, passed[:n_result])
