"""More checks of ``tf.debugging``: ``assert_near``, ``assert_rank_in``, the static
``assert_same_float_dtype`` and ``assert_proper_iterable``, ``verify_tensor_all_finite``
and the monotonicity tests ``is_non_decreasing``/``is_strictly_increasing``.

Built from existing ops, as TF1 builds them (no new op type).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import dtypes as _dt
from .._core.graph import Operation, Tensor, constant_value, convert_to_tensor
from ..scopes import control_dependencies
from .array_ops import identity, no_op
from .check_ops import Assert, check_numerics, message_prefix
from .common import make, op_scope
from .sparse_ops import SparseTensor

if TYPE_CHECKING:
    from .._core.typing import DTypeLike, TensorLike

__all__ = [
    "assert_near",
    "assert_proper_iterable",
    "assert_rank_in",
    "assert_same_float_dtype",
    "is_non_decreasing",
    "is_numeric_tensor",
    "is_strictly_increasing",
    "verify_tensor_all_finite",
]


def assert_near(
    x: TensorLike,
    y: TensorLike,
    rtol: TensorLike | None = None,
    atol: TensorLike | None = None,
    data: Sequence[TensorLike] | None = None,
    summarize: int | None = None,
    message: str | None = None,
    name: str | None = None,
) -> Operation:
    """Asserts ``|x - y| < atol + rtol * |y|`` elementwise (strictly, as TF).

    Args:
      x: a float or complex tensor.
      y: a tensor of ``x``'s dtype.
      rtol: relative tolerance (default ``10 * eps`` of the dtype).
      atol: absolute tolerance (default ``10 * eps`` of the dtype).
      data: tensors printed on failure (default: the tolerances, ``x`` and ``y``).
      summarize: entries of each tensor to print.
      message: a prefix for the failure message.
      name: the scope name.

    Returns:
      The ``Assert`` op.
    """
    from .math_ops import abs as abs_
    from .math_ops import less, reduce_all

    with op_scope([x, y, rtol, atol, data], name, "assert_near"):
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y", dtype=x.dtype)
        real = x.dtype.real_dtype if x.dtype.is_complex else x.dtype
        eps = np.finfo(real.np).eps
        rtol_t = convert_to_tensor(10 * eps if rtol is None else rtol, name="rtol", dtype=real)
        atol_t = convert_to_tensor(10 * eps if atol is None else atol, name="atol", dtype=real)
        if data is None:
            data = [
                message_prefix(message),
                "x and y not equal to tolerance rtol = %s, atol = %s" % (rtol_t, atol_t),
                "x (%s) = " % x.name,
                x,
                "y (%s) = " % y.name,
                y,
            ]
        tol = atol_t + rtol_t * abs_(y)
        return Assert(reduce_all(less(abs_(x - y), tol)), data, summarize=summarize)


def assert_rank_in(
    x: TensorLike,
    ranks: Iterable[TensorLike],
    data: Sequence[TensorLike] | None = None,
    summarize: int | None = None,
    message: str | None = None,
    name: str | None = None,
) -> Operation:
    """Asserts that ``x``'s rank is one of ``ranks`` (statically when known: ValueError).

    Returns:
      The ``Assert`` op, or a no-op when the static shapes already prove it.

    Raises:
      ValueError: the static rank is known and not in ``ranks``.
    """
    from .array_ops import rank as rank_of
    from .math_ops import equal, reduce_any

    with op_scope([x], name, "assert_rank_in"):
        x = convert_to_tensor(x, name="x")
        rank_ts = [convert_to_tensor(r, name="rank") for r in ranks]
        for r in rank_ts:
            if not r.dtype.is_integer:
                raise TypeError("rank must be of an integer type, got %s" % r.dtype.name)
        wants = [constant_value(r) for r in rank_ts]
        have = x.shape.ndims
        if have is not None and all(w is not None for w in wants):
            if have not in [int(w) for w in wants]:
                raise ValueError(
                    "%sTensor %s must have rank in %s.  Received rank %d, shape %s"
                    % (message_prefix(message), x.name, tuple(int(w) for w in wants), have, x.shape)
                )
            return no_op(name="static_checks_determined_all_ok")
        r = rank_of(x)
        condition = reduce_any(make("Pack", [equal(r, t) for t in rank_ts], {"axis": 0}))
        if data is None:
            data = [
                message_prefix(message) + "Tensor %s must have rank in" % x.name,
                *rank_ts,
                "Received shape: ",
                make("Shape", [x], {"out_type": _dt.int32}),
            ]
        return Assert(condition, data, summarize=summarize)


def assert_same_float_dtype(
    tensors: Sequence[Any] | None = None, dtype: DTypeLike | None = None
) -> _dt.DType:
    """The common floating dtype of ``tensors`` (and ``dtype``, if given); float32 when
    neither says.

    Raises:
      ValueError: the dtypes differ, or the common dtype is not floating point.
    """
    want = None if dtype is None else _dt.as_dtype(dtype)
    first = None
    for t in tensors or ():
        if t is None or not hasattr(t, "dtype"):
            continue
        base = t.dtype
        if first is None:
            first = t
            if want is not None and base != want:
                raise ValueError(
                    "%s, type=%s, must be of the same type (%s)." % (t.name, base, want)
                )
            want = base
        elif base != want:
            raise ValueError(
                "%s, type=%s, must be of the same type (%s) as %s."
                % (t.name, base, want, first.name)
            )
    if want is None:
        return _dt.float32
    if not want.is_floating:
        raise ValueError("Expected floating point type, got %s." % want)
    return want


def assert_proper_iterable(values: Any) -> None:
    """Raises ``TypeError`` unless ``values`` is an iterable meant as one: a tensor,
    ``SparseTensor``, ndarray, ``str`` or ``bytes`` is not."""
    if isinstance(values, (Tensor, SparseTensor, np.ndarray, str, bytes)):
        raise TypeError(
            'Expected argument "values" to be a "proper" iterable.  Found: %s' % type(values)
        )
    if not hasattr(values, "__iter__"):
        raise TypeError('Expected argument "values" to be iterable.  Found: %s' % type(values))


def verify_tensor_all_finite(
    t: TensorLike, msg: str, name: str | None = None, x: Any = None, message: Any = None
) -> Tensor:
    """``t``, after a ``check_numerics`` of it (``InvalidArgumentError`` on NaN or Inf);
    TF1's ``tf.debugging.assert_all_finite`` (``x``/``message`` are TF2's names)."""
    t = x if t is None else t
    msg = message if msg is None else msg
    with op_scope([t], name, "VerifyFinite"):
        t = convert_to_tensor(t, name="t")
        with control_dependencies([check_numerics(t, msg)]):
            return identity(t)


def is_numeric_tensor(tensor: Any) -> bool:
    """Whether ``tensor`` is a ``Tensor`` of an integer, floating or complex dtype."""
    return isinstance(tensor, Tensor) and (
        tensor.dtype.is_integer or tensor.dtype.is_floating or tensor.dtype.is_complex
    )


def _monotonic(x: TensorLike, name: str | None, default: str, strict: bool) -> Tensor:
    from .array_ops import reshape
    from .math_ops import less, less_equal, reduce_all

    with op_scope([x], name, default):
        x = convert_to_tensor(x, name="x")
        if not is_numeric_tensor(x):
            raise TypeError("Expected x to be numeric, instead found: %s" % x)
        flat = reshape(x, [-1])
        diff = flat[1:] - flat[:-1]
        zero = convert_to_tensor(0, dtype=x.dtype)
        return reduce_all((less if strict else less_equal)(zero, diff))


def is_non_decreasing(x: TensorLike, name: str | None = None) -> Tensor:
    """True if ``x``'s elements (in row-major order) never decrease (fewer than two
    elements: True).

    Raises:
      TypeError: ``x`` is not numeric.
    """
    return _monotonic(x, name, "is_non_decreasing", strict=False)


def is_strictly_increasing(x: TensorLike, name: str | None = None) -> Tensor:
    """True if ``x``'s elements (in row-major order) strictly increase (fewer than two
    elements: True).

    Raises:
      TypeError: ``x`` is not numeric.
    """
    return _monotonic(x, name, "is_strictly_increasing", strict=True)
