"""The op registry: each op type is registered once with all of its rules.

A row holds the type's shape/dtype inference, its kernel (sync, or async when it may
block), and its gradient. Op type strings are TF's, so ``RegisterGradient`` and
``gradient_override_map`` work as TF1 users expect.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, TypeVar

if TYPE_CHECKING:
    from .graph import Operation

__all__ = [
    "OpDef",
    "register_op",
    "get_op_def",
    "NOT_DIFFERENTIABLE",
    "RegisterGradient",
    "NotDifferentiable",
    "gradient_function",
    "registered_ops",
    "kernel_of",
    "is_blocking",
    "sync_kernel",
]


class _NotDifferentiable:
    def __repr__(self) -> str:
        return "NOT_DIFFERENTIABLE"


NOT_DIFFERENTIABLE = _NotDifferentiable()
"""Marks a type whose gradient is None by definition (argmax, comparisons, ...)."""

GradientRule = Callable[..., Any] | _NotDifferentiable | None
"""An op type's gradient: ``grad(op, *output_grads) -> [input_grad or None, ...]``,
``NOT_DIFFERENTIABLE``, or None for "no gradient defined"."""

_GradFn = TypeVar("_GradFn", bound=Callable[..., Any])


@dataclass(eq=False)
class OpDef:
    """Everything about one op type.

    Attributes:
      type: TF's op type string.
      infer: ``infer(op) -> [(dtype, TensorShape), ...]``, pure; raises ValueError or
        TypeError with a plain message (the graph adds op name and creation site).
      kernel: ``kernel(ctx, op, *inputs) -> tuple`` of numpy outputs; never mutates inputs.
        For a ``blocking`` op it is a generator function returning that tuple: it yields
        a ``waiting.Wait`` whenever it must wait and is sent the wait's result, so the
        same kernel waits in a thread or in a trio task (see ``waiting``).
      blocking: the kernel may wait (queue ops, readers).
      blocks: for an op type that waits or not by what it runs (a cond, a loop, a call
        whose body holds a queue op), ``blocks(op) -> bool`` for one op of it; its
        registered kernel is then a generator function (``waiting_kernel``) and
        ``kernel`` is derived from it (``sync_kernel``). ``kernel_of`` picks per op.
      grad: ``grad(op, *output_grads) -> [input_grad or None, ...]``, NOT_DIFFERENTIABLE,
        or None for "no gradient defined".
      stateful: the op reads or writes session state, so it is never folded or deduped.
      default_name: the name an op of this type gets when none is given.
      ufunc: the op's block form for elementwise fusion, or None: ``ufunc(*inputs, out=)``
        writes the op's result into ``out`` (a numpy ufunc, or a function of that form
        that is safe when ``out`` is one of its inputs); used on float inputs of one
        dtype, whose result has that dtype.
      extra: further flags; ``quiet=True`` marks a kernel that does no floating-point
        math, so a plan of only such kernels skips silencing numpy's warnings;
        ``differentiates_handles=True`` an op (a call, a branch or loop) whose gradient
        gives a variable handle input the gradient of the reads it makes of it;
        ``no_fold=True`` a pure op never computed before the run (constant folding):
        a loop, whose length is unbounded, runs under the run's deadline.
    """

    type: str
    infer: Callable
    kernel: Callable
    blocking: bool = False
    grad: GradientRule = None
    stateful: bool = False
    default_name: str = ""
    ufunc: Callable | None = None
    extra: dict = field(default_factory=dict)
    blocks: Callable[[Operation], bool] | None = None
    waiting_kernel: Callable | None = None


def sync_kernel(waiting: Callable[..., Any]) -> Callable[..., Any]:
    """The kernel of an op that does not wait, from the generator function ``waiting``
    that may: its generator runs to its end at once (a wait there is a bug)."""

    def kernel(*args: Any, **kwargs: Any) -> Any:
        gen = waiting(*args, **kwargs)
        try:
            wait = gen.send(None)
        except StopIteration as stop:
            return stop.value
        gen.close()
        raise RuntimeError("a kernel registered as not blocking waited on %r" % (wait,))

    kernel.__name__ = kernel.__qualname__ = "sync_" + waiting.__name__
    return kernel


def kernel_of(d: OpDef, op: Operation) -> tuple[Callable[..., Any], bool]:
    """The kernel a plan runs for ``op`` of type ``d`` and whether it may wait."""
    if d.blocks is not None and d.blocks(op):
        assert d.waiting_kernel is not None
        return d.waiting_kernel, True
    return d.kernel, d.blocking


def is_blocking(op: Operation) -> bool:
    """Whether ``op``'s kernel may wait (its type's, or this op's when it depends)."""
    d = get_op_def(op.type)
    return d.blocking or (d.blocks is not None and d.blocks(op))


_OPS: dict[str, OpDef] = {}
_GRADIENTS: dict[str, Callable[..., Any] | _NotDifferentiable] = {}


def register_op(
    op_type: str,
    *,
    infer: Callable[..., Any],
    kernel: Callable[..., Any],
    blocking: bool | Callable[[Operation], bool] = False,
    grad: GradientRule = None,
    stateful: bool = False,
    default_name: str | None = None,
    ufunc: Callable[..., Any] | None = None,
    **extra: Any,
) -> OpDef:
    """Registers an op type once; a second registration of the same type is an error.

    ``blocking`` is True for a type whose kernel may wait, or a function of the op for
    a type that waits or not by what the op runs (``OpDef.blocks``); either way
    ``kernel`` is then a generator function."""
    if op_type in _OPS:
        raise KeyError("op type %r is already registered" % op_type)
    if blocking and not inspect.isgeneratorfunction(kernel):
        raise ValueError("op type %r: a blocking kernel is a generator function" % op_type)
    blocks, waiting = None, None
    if callable(blocking):
        blocks, waiting, kernel, blocking = blocking, kernel, sync_kernel(kernel), False
    d = OpDef(
        op_type,
        infer,
        kernel,
        bool(blocking),
        grad,
        stateful,
        default_name or op_type,
        ufunc,
        extra,
        blocks,
        waiting,
    )
    _OPS[op_type] = d
    if grad is not None:
        _GRADIENTS[op_type] = grad
    return d


def get_op_def(op_type: str) -> OpDef:
    try:
        return _OPS[op_type]
    except KeyError:
        import difflib

        close = difflib.get_close_matches(op_type, _OPS.keys(), n=3)
        hint = " Did you mean %s?" % ", ".join(map(repr, close)) if close else ""
        raise KeyError("op type %r is not registered.%s" % (op_type, hint)) from None


def registered_ops() -> dict[str, OpDef]:
    return dict(_OPS)


class RegisterGradient:
    """Decorator registering a gradient function for an op type (TF1's API).

    Example:
      @fr.RegisterGradient("MySquare")
      def _my_square_grad(op, grad):
          return [grad * 2.0 * op.inputs[0]]
    """

    def __init__(self, op_type: str) -> None:
        if not isinstance(op_type, str):
            raise TypeError("op_type must be a string")
        self._op_type = op_type

    def __call__(self, f: _GradFn) -> _GradFn:
        if self._op_type in _GRADIENTS:
            raise KeyError(
                "Registering two gradient with name '%s'! (Previous registration "
                "was in %s)"
                % (self._op_type, getattr(_GRADIENTS[self._op_type], "__module__", "?"))
            )
        _GRADIENTS[self._op_type] = f
        return f


def NotDifferentiable(op_type: str) -> None:  # TF1's name
    """Declares that ops of ``op_type`` have no gradient (their gradients are None)."""
    _GRADIENTS[op_type] = NOT_DIFFERENTIABLE


NoGradient = NotDifferentiable


def gradient_function(op: Operation) -> Callable[..., Any] | _NotDifferentiable:
    """The gradient rule for ``op`` (honouring gradient_override_map); LookupError if none."""
    op_type = op._grad_type or op.type
    g = _GRADIENTS.get(op_type)
    if g is None:
        raise LookupError(
            "No gradient defined for operation '%s' (op type: %s). In general "
            "every operation must have an associated `@fr.RegisterGradient` for "
            "correct autodiff." % (op.name, op_type)
        )
    return g
