"""Run-time checks and printing: ``Assert`` and the ``assert_*`` family, ``check_numerics``,
``add_check_numerics_ops``, ``Print``.

An assertion whose operands are constants is decided when it is built (TF1: a false one
raises ``InvalidArgumentError`` at once); otherwise it is an ``Assert`` op that raises
``InvalidArgumentError`` when run. Put it in ``fr.control_dependencies`` of the ops that
must not run unless it holds.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

import numpy as np

from .. import dtypes as _dt
from .. import errors
from .._core.graph import Operation, Tensor, constant_value, convert_to_tensor, get_default_graph
from .._core.registry import NOT_DIFFERENTIABLE, register_op
from .array_ops import group, no_op
from .common import FLOATS, in_graph_of, make, make_op, op_scope, same_as

if TYPE_CHECKING:
    from .._core.typing import DTypeLike, TensorLike

__all__ = [
    "Assert",
    "assert_equal",
    "assert_none_equal",
    "assert_less",
    "assert_less_equal",
    "assert_greater",
    "assert_greater_equal",
    "assert_positive",
    "assert_negative",
    "assert_non_negative",
    "assert_non_positive",
    "assert_rank",
    "assert_rank_at_least",
    "assert_type",
    "assert_integer",
    "assert_scalar",
    "check_numerics",
    "add_check_numerics_ops",
    "Print",
]


# --------------------------------------------------------------------------------------
# Formatting values as TF's logging kernels do: "[1 2 3...]"
# --------------------------------------------------------------------------------------


def _summarize(value, n: int) -> str:
    arr = np.asarray(value)
    if arr.dtype == object or arr.dtype.kind in "SU":

        def item(x):
            return x.decode("utf-8", "replace") if isinstance(x, bytes) else str(x)
    elif arr.dtype.kind == "f":

        def item(x):
            return str(int(x)) if np.isfinite(x) and float(x).is_integer() else str(x)
    else:

        def item(x):
            return str(x)

    if arr.ndim == 0:
        return item(arr[()])
    left = [n if n >= 0 else arr.size]

    def walk(a):
        if a.ndim == 1:
            k = min(len(a), left[0])
            left[0] -= k
            return "[" + " ".join(item(x) for x in a[:k]) + ("..." if k < len(a) else "") + "]"
        parts = []
        for sub in a:
            if left[0] <= 0:
                parts.append("...")
                break
            parts.append(walk(sub))
        return "[" + "".join(parts) + "]"

    return walk(arr)


def _data_text(values, summarize) -> str:
    n = 3 if summarize is None else int(summarize)
    return " ".join(_summarize(v, n) if np.ndim(v) else "[%s]" % _summarize(v, n) for v in values)


# --------------------------------------------------------------------------------------
# Assert
# --------------------------------------------------------------------------------------


def _assert_kernel(ctx, op, condition, *data):
    if not np.all(condition):
        raise errors.InvalidArgumentError(
            None, op, "assertion failed: %s" % _data_text(data, op.attrs["summarize"])
        )
    return ()


def _assert_infer(op):
    cond = op.inputs[0]
    if cond.dtype != _dt.bool:
        raise TypeError("Assert's condition must be bool, got %s" % cond.dtype.name)
    if cond.shape.ndims not in (None, 0):
        raise ValueError("Assert's condition must be a scalar, got shape %s" % cond.shape)
    return []


register_op(
    "Assert", infer=_assert_infer, kernel=_assert_kernel, grad=NOT_DIFFERENTIABLE, stateful=True
)


def Assert(
    condition: TensorLike,
    data: Sequence[TensorLike],
    summarize: int | None = None,
    name: str | None = None,
) -> Operation:
    """An op raising ``InvalidArgumentError`` ("assertion failed: [data]...") when the
    scalar bool ``condition`` is false.

    Args:
      condition: a scalar bool tensor.
      data: tensors (or strings) printed when it fails.
      summarize: how many entries of each tensor to print (default 3).
      name: the op name (default ``Assert``).

    Returns:
      The ``Assert`` operation.

    Note (flowrt): one ``Assert`` op, without TF1's ``AssertGuard`` cond around it.
    """
    with op_scope([condition, data], name, "Assert"):
        cond = convert_to_tensor(condition, name="Condition")
        xs = [convert_to_tensor(x) for x in data]
        return make_op("Assert", [cond] + xs, {"summarize": summarize}, "Assert")


def message_prefix(message) -> str:
    return "%s.  " % message if message else ""


def _static_false(data):
    raise errors.InvalidArgumentError(
        None, None, "\n".join(str(d) if not isinstance(d, Tensor) else "%s" % d.name for d in data)
    )


def _binary_assert(sym, default_name, fn, np_fn, x, y, data, summarize, message, name):
    with op_scope([x, y, data], name, default_name):
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y", dtype=x.dtype) if not isinstance(y, Tensor) else y
        if data is None:
            data = [
                "Condition x %s y did not hold element-wise:" % sym,
                "x (%s) = " % x.name,
                x,
                "y (%s) = " % y.name,
                y,
            ]
        if message:
            data = [message_prefix(message)] + list(data)
        xs, ys = constant_value(x), constant_value(y)
        if xs is not None and ys is not None and not np.all(np_fn(xs, ys)):
            _static_false(data)
        from .math_ops import reduce_all

        condition = reduce_all(fn(x, y))
        return Assert(condition, data, summarize=summarize)


class _BinaryAssert(Protocol):
    """The signature of ``assert_equal`` and the other comparison asserts."""

    def __call__(
        self,
        x: TensorLike,
        y: TensorLike,
        data: Sequence[TensorLike] | None = None,
        summarize: int | None = None,
        message: str | None = None,
        name: str | None = None,
    ) -> Operation: ...


class _SignAssert(Protocol):
    """The signature of ``assert_positive`` and the other sign asserts."""

    def __call__(
        self,
        x: TensorLike,
        data: Sequence[TensorLike] | None = None,
        summarize: int | None = None,
        message: str | None = None,
        name: str | None = None,
    ) -> Operation: ...


def _make_binary(sym, default_name, fn_name, np_fn, doc) -> _BinaryAssert:
    def assert_fn(
        x: TensorLike,
        y: TensorLike,
        data: Sequence[TensorLike] | None = None,
        summarize: int | None = None,
        message: str | None = None,
        name: str | None = None,
    ) -> Operation:
        from . import math_ops

        return _binary_assert(
            sym,
            default_name,
            getattr(math_ops, fn_name),
            np_fn,
            x,
            y,
            data,
            summarize,
            message,
            name,
        )

    assert_fn.__name__ = assert_fn.__qualname__ = default_name
    assert_fn.__doc__ = (
        doc
        + """

    Args:
      x: a tensor (broadcast with ``y``).
      y: a tensor (broadcast with ``x``).
      data: tensors printed on failure (default: the condition, ``x`` and ``y``).
      summarize: entries of each tensor to print.
      message: a prefix for the failure message.
      name: the scope name.

    Returns:
      The ``Assert`` op (run it, or make other ops depend on it).

    Raises:
      InvalidArgumentError: at construction, when ``x`` and ``y`` are constants and the
        condition is false.
    """
    )
    return assert_fn


assert_equal = _make_binary(
    "==", "assert_equal", "equal", np.equal, "Asserts ``x == y`` elementwise."
)
assert_none_equal = _make_binary(
    "!=", "assert_none_equal", "not_equal", np.not_equal, "Asserts ``x != y`` elementwise."
)
assert_less = _make_binary("<", "assert_less", "less", np.less, "Asserts ``x < y`` elementwise.")
assert_less_equal = _make_binary(
    "<=", "assert_less_equal", "less_equal", np.less_equal, "Asserts ``x <= y`` elementwise."
)
assert_greater = _make_binary(
    ">", "assert_greater", "greater", np.greater, "Asserts ``x > y`` elementwise."
)
assert_greater_equal = _make_binary(
    ">=",
    "assert_greater_equal",
    "greater_equal",
    np.greater_equal,
    "Asserts ``x >= y`` elementwise.",
)


def _make_sign(default_name, sym, binary, zero_first, doc) -> _SignAssert:
    def assert_fn(
        x: TensorLike,
        data: Sequence[TensorLike] | None = None,
        summarize: int | None = None,
        message: str | None = None,
        name: str | None = None,
    ) -> Operation:
        with op_scope([x, data], name, default_name):
            x = convert_to_tensor(x, name="x")
            if data is None:
                data = [
                    "Condition x %s 0 did not hold element-wise:" % sym,
                    "x (%s) = " % x.name,
                    x,
                ]
            zero = convert_to_tensor(np.zeros((), x.dtype.np))
            a, b = (zero, x) if zero_first else (x, zero)
            return binary(a, b, data=data, summarize=summarize, message=message)

    assert_fn.__name__ = assert_fn.__qualname__ = default_name
    assert_fn.__doc__ = (
        doc
        + """

    Args:
      x: a numeric tensor.
      data: as for ``assert_equal``.
      summarize: as for ``assert_equal``.
      message: as for ``assert_equal``.
      name: as for ``assert_equal``.

    Returns:
      The ``Assert`` op.
    """
    )
    return assert_fn


assert_positive = _make_sign(
    "assert_positive", ">", assert_less, True, "Asserts ``x > 0`` elementwise."
)
assert_negative = _make_sign(
    "assert_negative", "<", assert_less, False, "Asserts ``x < 0`` elementwise."
)
assert_non_negative = _make_sign(
    "assert_non_negative", ">=", assert_less_equal, True, "Asserts ``x >= 0`` elementwise."
)
assert_non_positive = _make_sign(
    "assert_non_positive", "<=", assert_less_equal, False, "Asserts ``x <= 0`` elementwise."
)


def _rank_assert(x, rank, at_least, message, name, default_name, data, summarize):
    with op_scope([x, rank, data], name, default_name):
        x = convert_to_tensor(x, name="x")
        rank_t = convert_to_tensor(rank, name="rank")
        if not rank_t.dtype.is_integer:
            raise TypeError("rank must be of an integer type, got %s" % rank_t.dtype.name)
        if rank_t.shape.ndims not in (None, 0):
            raise ValueError("Rank must be a scalar, got shape %s" % rank_t.shape)
        want = constant_value(rank_t)
        have = x.shape.ndims
        prefix = message_prefix(message)
        what = "at least " if at_least else ""
        if want is not None and have is not None:
            ok = have >= int(want) if at_least else have == int(want)
            if not ok:
                raise ValueError(
                    "%sTensor %s must have rank %s%d.  Received rank %d, shape %s"
                    % (prefix, x.name, what, int(want), have, x.shape)
                )
            return no_op(name="static_checks_determined_all_ok")
        from .array_ops import rank as rank_of
        from .math_ops import equal, greater_equal

        r = rank_of(x)
        condition = (greater_equal if at_least else equal)(r, rank_t)
        if data is None:
            data = [
                prefix + "Tensor %s must have rank %s" % (x.name, what),
                rank_t,
                "Received shape: ",
                make("Shape", [x], {"out_type": _dt.int32}),
            ]
        return Assert(condition, data, summarize=summarize)


def assert_rank(
    x: TensorLike,
    rank: TensorLike,
    data: Sequence[TensorLike] | None = None,
    summarize: int | None = None,
    message: str | None = None,
    name: str | None = None,
) -> Operation:
    """Asserts that ``x`` has rank ``rank`` (statically when both are known: ValueError).

    Returns:
      The ``Assert`` op, or a no-op when the static shapes already prove it.

    Raises:
      ValueError: the static rank is known and differs.
    """
    return _rank_assert(x, rank, False, message, name, "assert_rank", data, summarize)


def assert_rank_at_least(
    x: TensorLike,
    rank: TensorLike,
    data: Sequence[TensorLike] | None = None,
    summarize: int | None = None,
    message: str | None = None,
    name: str | None = None,
) -> Operation:
    """Asserts that ``x``'s rank is at least ``rank`` (as ``assert_rank``)."""
    return _rank_assert(x, rank, True, message, name, "assert_rank_at_least", data, summarize)


def assert_scalar(
    tensor: TensorLike, name: str | None = None, message: str | None = None
) -> Tensor:
    """Returns ``tensor`` if its static rank is 0; ValueError otherwise (or if unknown)."""
    with op_scope([tensor], name, "assert_scalar"):
        tensor = convert_to_tensor(tensor, name="tensor")
        shape = tensor.shape
        if shape.ndims != 0:
            prefix = (message + " ") if message else ""
            if shape.ndims is None:
                raise ValueError("%sExpected scalar shape, saw unknown shape." % prefix)
            raise ValueError(
                "%sExpected scalar shape for %s, saw shape: %s." % (prefix, tensor.name, shape)
            )
        return tensor


def assert_type(
    tensor: TensorLike, tf_type: DTypeLike, message: str | None = None, name: str | None = None
) -> Operation:
    """A no-op if ``tensor`` has dtype ``tf_type``; TypeError otherwise (static)."""
    with in_graph_of([tensor]):
        tensor = convert_to_tensor(tensor)
        want = _dt.as_dtype(tf_type)
        if tensor.dtype != want:
            prefix = (message + " ") if message else ""
            raise TypeError(
                "%s%s must be of type %s; got %s"
                % (prefix, tensor.name, want.name, tensor.dtype.name)
            )
        return no_op(name=name or "statically_determined_correct_type")


def assert_integer(x: TensorLike, message: str | None = None, name: str | None = None) -> Operation:
    """A no-op if ``x`` has an integer dtype; TypeError otherwise (static)."""
    with in_graph_of([x]):
        x = convert_to_tensor(x)
        if not x.dtype.is_integer:
            prefix = (message + " ") if message else ""
            raise TypeError(
                '%sExpected "x" to be integer type.  Found: %s of dtype %s'
                % (prefix, x.name, x.dtype.name)
            )
        return no_op(name=name or "statically_determined_was_integer")


# --------------------------------------------------------------------------------------
# check_numerics
# --------------------------------------------------------------------------------------


def _check_numerics_kernel(ctx, op, x):
    bad_nan = np.isnan(x).any()
    bad_inf = np.isinf(x).any()
    if bad_nan or bad_inf:
        what = "Inf and NaN" if bad_nan and bad_inf else ("NaN" if bad_nan else "Inf")
        raise errors.InvalidArgumentError(
            None, op, "%s : Tensor had %s values" % (op.attrs["message"], what)
        )
    return (x,)


def _check_numerics_infer(op):
    x = op.inputs[0]
    if x.dtype not in FLOATS:
        raise TypeError(
            "Value passed to parameter 'tensor' has DataType %s not in list of "
            "allowed values: float16, float32, float64" % x.dtype.name
        )
    return [(x.dtype, x.shape)]


def _check_numerics_grad(op, grad):
    return [
        check_numerics(
            grad,
            "Not a number (NaN) or infinity (Inf) values detected in "
            "gradient. " + op.attrs["message"],
        )
    ]


register_op(
    "CheckNumerics",
    infer=_check_numerics_infer,
    kernel=_check_numerics_kernel,
    grad=_check_numerics_grad,
    stateful=True,
)


def check_numerics(tensor: TensorLike, message: str, name: str | None = None) -> Tensor:
    """Passes ``tensor`` through; ``InvalidArgumentError`` ("<message> : Tensor had NaN
    values") when it has a NaN or Inf. Its gradient is checked the same way."""
    return make("CheckNumerics", [tensor], {"message": str(message)}, name)


def add_check_numerics_ops() -> Operation:
    """A ``check_numerics`` on every float output of every op in the default graph,
    chained by control dependencies; returns the group to run with the train op.

    Note (flowrt): like TF1, checking an op's output makes a run of the group run that op
    (including stateful ones such as dequeues); fetch it in the same run as the train op.
    """
    g = get_default_graph()
    check: list = []
    for op in list(g.get_operations()):
        for i, out in enumerate(op.outputs):
            if out.dtype in FLOATS:
                with g.control_dependencies(check):
                    check = [check_numerics(out, message="%s:%d" % (op.name, i))]
    return group(*check)


# --------------------------------------------------------------------------------------
# Print
# --------------------------------------------------------------------------------------


class _Counter:
    def __init__(self):
        self.lock = threading.Lock()
        self.n = 0


def _print_kernel(ctx, op, x, *data):
    first_n = op.attrs["first_n"]
    if first_n is not None and first_n >= 0:
        counter = ctx.resources.get_or_create(("print_counter", op.name), _Counter)
        with counter.lock:
            counter.n += 1
            if counter.n > first_n:
                return (x,)
    sys.stderr.write("%s%s\n" % (op.attrs["message"], _data_text(data, op.attrs["summarize"])))
    return (x,)


register_op(
    "Print",
    infer=same_as(0),
    kernel=_print_kernel,
    grad=lambda op, grad: [grad] + [None] * (len(op.inputs) - 1),
    stateful=True,
)


def Print(
    input_: TensorLike,
    data: Sequence[TensorLike],
    message: str | None = None,
    first_n: int | None = None,
    summarize: int | None = None,
    name: str | None = None,
) -> Tensor:
    """Passes ``input_`` through and, when run, writes ``message`` and ``data`` to stderr.

    Args:
      input_: the tensor passed through.
      data: tensors to print ("[1 2 3...]" each).
      message: a prefix.
      first_n: print only the first N runs (per session).
      summarize: entries of each tensor to print (default 3).
      name: the op name.
    """
    with in_graph_of([input_, data]):
        xs = [convert_to_tensor(d) for d in data]
        return make(
            "Print",
            [input_] + xs,
            {"message": message or "", "first_n": first_n, "summarize": summarize},
            name,
        )
