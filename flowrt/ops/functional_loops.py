"""``fr.map_fn``, ``fr.scan``, ``fr.foldl`` and ``fr.foldr``: loops over a leading axis.

Each is built as TF1 builds it: the elements are unstacked into TensorArrays, a
``while_loop`` reads element ``i`` and calls ``fn``, and (``map_fn``, ``scan``) writes
each result into an output TensorArray stacked after the loop. Gradients therefore come
from the While and TensorArray gradients, with no rule of their own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import dtypes as _dt
from .. import nest
from .._core.graph import Tensor, convert_to_tensor
from .._core.shape import TensorShape
from . import array_ops
from .common import op_scope
from .control_flow_ops import structure_error
from .tensor_array_ops import TensorArray
from .while_ops import while_loop

__all__ = ["map_fn", "scan", "foldl", "foldr"]


def _check_fn(fn: Any) -> None:
    if not callable(fn):
        raise TypeError("fn must be callable.")


def _elems(elems: Any) -> list[Tensor]:
    flat = [convert_to_tensor(e, name="elem") for e in nest.flatten(elems)]
    if not flat:
        raise ValueError("elems must be a non-empty Tensor or sequence of Tensors")
    return flat


def _length(flat: list[Tensor], scalar_error: bool) -> tuple[Any, TensorShape]:
    """The loop length (an int when static, else a tensor) and its static dim."""
    s = flat[0].shape
    if scalar_error and s.ndims is not None and s.ndims < 1:
        if len(flat) == 1:
            raise ValueError("elems must be a 1+ dimensional Tensor, not a scalar")
        raise ValueError("elements in elems must be 1+ dimensional Tensors, not scalars")
    n_static = TensorShape([None if s.ndims is None else s[0]])
    for e in flat[1:]:
        if e.shape.ndims is not None and e.shape.ndims >= 1:
            n_static = n_static.merge_with(TensorShape([e.shape[0]]))
    n = n_static[0] if n_static[0] is not None else array_ops.shape(flat[0])[0]
    return n, n_static


def _unstacked(flat: list[Tensor], n: Any) -> list[TensorArray]:
    return [
        TensorArray(e.dtype, size=n, dynamic_size=False, infer_shape=True).unstack(e) for e in flat
    ]


def _same_structure(expected: Any, got: Any) -> None:
    err = structure_error(expected, got, check_types=False)
    if err:
        raise ValueError(
            "The two structures don't have the same nested structure.\n\nFirst structure: "
            "%r\n\nSecond structure: %r\n\nMore specifically: %s" % (expected, got, err)
        )


def _stacked(tas: list[TensorArray], n_static: TensorShape) -> list[Tensor]:
    out = []
    for ta in tas:
        r = ta.stack()
        if r.shape.ndims is not None:
            r.set_shape(n_static.concatenate(r.shape[1:]))
        out.append(r)
    return out


def map_fn(
    fn: Callable[[Any], Any],
    elems: Any,
    dtype: Any = None,
    parallel_iterations: int | None = None,
    back_prop: bool = True,
    swap_memory: bool = False,
    infer_shape: bool = True,
    name: str | None = None,
    fn_output_signature: Any = None,
) -> Any:
    """Applies ``fn`` to each element of ``elems`` along axis 0 (TF1 ``tf.map_fn``).

    Args:
      fn: called with one element (in the nest of ``elems``); returns a nest of tensors.
      elems: a tensor or a nest of tensors, all with the same first dimension.
      dtype: the nest of dtypes ``fn`` returns, when it differs from ``elems``'.
      parallel_iterations: accepted for compatibility (iterations run in order).
      back_prop: if False, no gradient flows through the loop.
      swap_memory: accepted for compatibility.
      infer_shape: if True, all results of ``fn`` must have one shape.
      name: the name scope (default ``map``).
      fn_output_signature: TF2's spelling of ``dtype``.

    Returns:
      The results of ``fn`` stacked along a new axis 0, in the nest ``fn`` returns.

    Note (flowrt): iterations run one after another (``parallel_iterations`` and
    ``swap_memory`` have no effect), as in every flowrt ``while_loop``.
    """
    _check_fn(fn)
    if fn_output_signature is not None:
        dtype = fn_output_signature
    flat_in = nest.flatten(elems)
    with op_scope(flat_in, name, "map"):
        flat = _elems(elems)
        if dtype is None:
            out_struct: Any = elems
            dtypes = [e.dtype for e in flat]
        else:
            out_struct = dtype
            dtypes = [_dt.as_dtype(d) for d in nest.flatten(dtype)]
        n, n_static = _length(flat, scalar_error=True)
        in_tas = _unstacked(flat, n)
        accs = [TensorArray(d, size=n, dynamic_size=False, infer_shape=infer_shape) for d in dtypes]

        def compute(i, tas):
            value = fn(nest.pack_leaves(elems, [ta.read(i) for ta in in_tas]))
            _same_structure(out_struct, value)
            return i + 1, [ta.write(i, v) for ta, v in zip(tas, nest.flatten(value))]

        _, out = while_loop(
            lambda i, _: i < n,
            compute,
            (array_ops.constant(0), accs),
            parallel_iterations=parallel_iterations or 10,
            back_prop=back_prop,
            swap_memory=swap_memory,
            maximum_iterations=n,
        )
        return nest.pack_leaves(out_struct, _stacked(out, n_static))


def scan(
    fn: Callable[[Any, Any], Any],
    elems: Any,
    initializer: Any = None,
    parallel_iterations: int = 10,
    back_prop: bool = True,
    swap_memory: bool = False,
    infer_shape: bool = True,
    reverse: bool = False,
    name: str | None = None,
) -> Any:
    """Cumulative ``fn`` over ``elems`` along axis 0 (TF1 ``tf.scan``).

    Args:
      fn: ``fn(accumulator, element)`` returning the next accumulator (the nest of
        ``initializer``, or of ``elems`` without one).
      elems: a tensor or a nest of tensors, all with the same first dimension.
      initializer: the first accumulator; without it, the first element (last when
        ``reverse``) is the first accumulator and the first output.
      parallel_iterations: accepted for compatibility.
      back_prop: if False, no gradient flows through the loop.
      swap_memory: accepted for compatibility.
      infer_shape: if True, all accumulators must have one shape.
      reverse: if True, scans from the last element to the first.
      name: the name scope (default ``scan``).

    Returns:
      Every accumulator, stacked along axis 0 in element order.
    """
    _check_fn(fn)
    flat_in = nest.flatten(elems)
    with op_scope(flat_in, name, "scan"):
        flat = _elems(elems)
        n, n_static = _length(flat, scalar_error=False)
        in_tas = _unstacked(flat, n)
        if initializer is None:
            struct = elems
            a_flat = [ta.read(n - 1 if reverse else 0) for ta in in_tas]
            skip = 1
        else:
            struct = initializer
            a_flat = [convert_to_tensor(x) for x in nest.flatten(initializer)]
            skip = 0
        accs = [
            TensorArray(
                a.dtype,
                size=n,
                element_shape=a.shape if infer_shape else None,
                dynamic_size=False,
                infer_shape=infer_shape,
            )
            for a in a_flat
        ]
        if initializer is None:
            accs = [ta.write(n - 1 if reverse else 0, a) for ta, a in zip(accs, a_flat)]

        def compute(i, a, tas):
            out = fn(
                nest.pack_leaves(struct, a), nest.pack_leaves(elems, [ta.read(i) for ta in in_tas])
            )
            _same_structure(struct, out)
            flat_out = [convert_to_tensor(x) for x in nest.flatten(out)]
            tas = [ta.write(i, v) for ta, v in zip(tas, flat_out)]
            return (i - 1 if reverse else i + 1), flat_out, tas

        if reverse:
            start = n - 1 - skip
            cond = lambda i, a, tas: i >= 0
        else:
            start = skip
            cond = lambda i, a, tas: i < n
        _, _, out = while_loop(
            cond,
            compute,
            (convert_to_tensor(start, dtype=_dt.int32), a_flat, accs),
            parallel_iterations=parallel_iterations,
            back_prop=back_prop,
            swap_memory=swap_memory,
            maximum_iterations=n,
        )
        return nest.pack_leaves(struct, _stacked(out, n_static))


def _fold(fn, elems, initializer, parallel_iterations, back_prop, swap_memory, name, right):
    _check_fn(fn)
    flat_in = nest.flatten(elems)
    with op_scope(flat_in, name, "foldr" if right else "foldl"):
        flat = _elems(elems)
        n, _ = _length(flat, scalar_error=False)
        in_tas = _unstacked(flat, n)
        if initializer is None:
            first = n - 1 if right else 0
            a = nest.pack_leaves(elems, [ta.read(first) for ta in in_tas])
            start = first if right else 1
        else:
            a = initializer
            start = n if right else 0

        def compute(i, a):
            if right:
                i = i - 1
            out = fn(a, nest.pack_leaves(elems, [ta.read(i) for ta in in_tas]))
            return [i if right else i + 1, out]

        _, r = while_loop(
            (lambda i, a: i > 0) if right else (lambda i, a: i < n),
            compute,
            [convert_to_tensor(start, dtype=_dt.int32), a],
            parallel_iterations=parallel_iterations,
            back_prop=back_prop,
            swap_memory=swap_memory,
            maximum_iterations=n,
        )
        return r


def foldl(
    fn: Callable[[Any, Any], Any],
    elems: Any,
    initializer: Any = None,
    parallel_iterations: int = 10,
    back_prop: bool = True,
    swap_memory: bool = False,
    name: str | None = None,
) -> Any:
    """Folds ``fn`` over ``elems`` from the first element (TF1 ``tf.foldl``).

    Args:
      fn: ``fn(accumulator, element)`` returning the next accumulator.
      elems: a tensor or a nest of tensors, all with the same first dimension.
      initializer: the first accumulator (default: the first element).
      parallel_iterations: accepted for compatibility.
      back_prop: if False, no gradient flows through the loop.
      swap_memory: accepted for compatibility.
      name: the name scope (default ``foldl``).

    Returns:
      The last accumulator.
    """
    return _fold(fn, elems, initializer, parallel_iterations, back_prop, swap_memory, name, False)


def foldr(
    fn: Callable[[Any, Any], Any],
    elems: Any,
    initializer: Any = None,
    parallel_iterations: int = 10,
    back_prop: bool = True,
    swap_memory: bool = False,
    name: str | None = None,
) -> Any:
    """Folds ``fn`` over ``elems`` from the last element (TF1 ``tf.foldr``).

    Args:
      fn: ``fn(accumulator, element)`` returning the next accumulator.
      elems: a tensor or a nest of tensors, all with the same first dimension.
      initializer: the first accumulator (default: the last element).
      parallel_iterations: accepted for compatibility.
      back_prop: if False, no gradient flows through the loop.
      swap_memory: accepted for compatibility.
      name: the name scope (default ``foldr``).

    Returns:
      The last accumulator.
    """
    return _fold(fn, elems, initializer, parallel_iterations, back_prop, swap_memory, name, True)
